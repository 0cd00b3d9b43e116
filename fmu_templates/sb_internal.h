/*
 * sb_internal.h -- what the files of the symbody FMU runtime share among
 * themselves and the FMI wrappers never call: numerical problems remembered for
 * the caller's message, the evaluation point of the model's blocks, and solves
 * with the factorization of the last dynamics evaluation.
 */
#ifndef SB_INTERNAL_H
#define SB_INTERNAL_H

#include "sb_runtime.h"

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_INTERNAL
#endif

/* Report a numerical problem (sb_instance.c): remembered in inst->problem for the caller's message;
   returns status. */
SbStatus sb_problem(SbInstance *inst, SbStatus status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The point (t, x = [q; dq]) with the instance's inputs and parameters, at which blocks are evaluated. */
static inline SbPoint sb_point(const SbInstance *inst, double t, const double *x, const double *ddq,
                               const double *lam)
{
    SbPoint pt;
    pt.t = t;
    pt.q = x;
    pt.dq = x + inst->m->nq;
    pt.u = inst->state.u;
    pt.p = inst->state.p;
    pt.ddq = ddq;
    pt.lam = lam;
    return pt;
}

/* Index of the first non-finite entry of v (n entries), or -1 (sb_dynamics.c). */
int sb_first_nonfinite(int n, const double *v);

/* Solve [M D^T; D 0] z = b with the factorization left by sb_accelerations (b and z may alias;
   sb_dynamics.c). */
void sb_solve_factored(SbInstance *inst, const double *b, double *z);

#ifdef SB_VISIBILITY_PUSHED_INTERNAL
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_INTERNAL
#endif

#endif /* SB_INTERNAL_H */
