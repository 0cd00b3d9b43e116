/*
 * sb_internal.h -- what the files of the symbody FMU runtime share among
 * themselves and the FMI wrappers never call: numerical problems remembered for
 * the caller's message, the evaluation point of the model's blocks, and solves
 * with the factorization of the last dynamics evaluation.
 */
#ifndef SB_INTERNAL_H
#define SB_INTERNAL_H

#include "sb_linalg.h"
#include "sb_ltdl.h"
#include "sb_runtime.h"

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_INTERNAL
#endif

/* Report a numerical problem (sb_instance.c): remembered in inst->problem for the caller's message;
   returns status.  Cold: the paths that call it are laid out away from the hot ones. */
SbStatus sb_problem(SbInstance *inst, SbStatus status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4), cold))
#endif
    ;

/* The point (t, x = [q; dq; xs]) with the instance's inputs and parameters, at which blocks are evaluated
   (x has 2 nq + ns entries); inside a Co-Simulation step the inputs are polynomials of the time since its start. */
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
    pt.xs = x + 2 * inst->m->nq;
    pt.tau = inst->interpolating ? t - inst->input_time : 0.0;
    pt.c = inst->constants;
    return pt;
}

/* Unilateral contacts, stick-slip friction elements and switching loads of the model (sb_events.c);
   SB_CONTACTS counts the elements whose forces act through multipliers (contacts and friction).
   A runtime built with
   -DSB_NO_EVENTS has none: its hot paths carry no test for them, and sb_instance.c refuses a model
   that declares any (benchmarks/fmu_events_overhead.py compares it with the runtime as shipped). */
#ifdef SB_NO_EVENTS
#define SB_CONTACTS(m) 0
#define SB_EVENTS(m) 0
#else
#define SB_CONTACTS(m) ((m)->nk + (m)->nf)
#define SB_EVENTS(m) ((m)->nk + (m)->nsw + (m)->nf)
#endif

/* ddq at (t, x) of a model without constraints or contacts (n entries; sb_dynamics.c): the lean
   evaluation of the solvers' stages.  M is evaluated into Mf and factored in place, delta straight
   into ddq and solved in place.  A mass matrix that is not positive definite goes to
   sb_accelerations (its checks and messages); ddq itself is not checked: the caller calls
   sb_accelerations at the same point when ddq is not finite, which names the entry at fault. */
SbStatus sb_free_accelerations(SbInstance *inst, double t, const double *x, double *ddq);

/* The same for a constant n <= 8 where inlined (the rk4 stages, sb_solver.c): the direct accelerations
   of an articulated-body model.c, else the dense factorization with every loop unrolled, unless the
   model's mass matrix is factored along its tree. */
static inline SbStatus sb_free_accelerations_small(SbInstance *inst, const int n, double t, const double *x,
                                                   double *ddq)
{
    SbPoint pt = sb_point(inst, t, x, NULL, NULL);
    double *Mf = inst->dyn.Mf;
    if (inst->m->has_direct && sb_direct_accelerations(inst, &pt, ddq)) return SB_OK; /* trees: no M (sb_ltdl.c) */
    sb_M_delta(&pt, Mf, ddq);
#ifndef SB_MASS_DENSE
    if (sb_mass_parent) {
        if (sb_mass_factor(n, Mf) != 0) return sb_accelerations(inst, t, x, ddq, NULL);
        sb_mass_solve(n, Mf, ddq);
    } else
#endif
    {
        if (sb_ldlt_small(n, Mf) != 0) return sb_accelerations(inst, t, x, ddq, NULL);
        sb_ldlt_solve_small(n, Mf, ddq);
    }
    inst->dyn.fact = SB_FACT_LDLT;
    inst->dyn.rank = n;
    return SB_OK;
}

/* Regularization of position and velocity corrections, relative to |D| (sb_assembly.c). */
#define SB_CORR_REG 1e-6

/* Correction dx = J^T (J J^T + mu^2 I)^+ r for J (m_rows x n, in inst->proj's buffers or any other), mu = reg
   |J|: the minimum-norm step that never leaps to another assembly branch (sb_assembly.c); returns the rank. */
int sb_min_norm_step(SbInstance *inst, int m_rows, int n, const double *J, const double *r, double *dx, double reg);

/* Velocities onto the bilateral rows D dq = beta at (t, x), the least change (sb_assembly.c). */
void sb_project_velocities(SbInstance *inst, double t, double *x);

/* The branch checks of Model Exchange (sb_branch.c) that the branch guard of a passage (sb_singular.c) uses: the
   Baumgarte rate w in 1/s when its terms are off; how clearly the usual number of constraint rows D (nc x nq)
   hold (0 at a singular position) with the row that holds least in *row (raising the usual number); an
   evaluated state marked next to a singular position; and the Error of a host that went on without the event
   asked for. */
#define SB_BRANCH_RATE 1e-3
double sb_scaled_rows_hold(SbInstance *inst, const double *D, int *row);
void sb_branch_mark(SbInstance *inst);
SbStatus sb_branch_not_restored(SbInstance *inst, double t);

/* Positions onto the holonomic constraints and the gaps of the closed contacts to rounding (minimum-norm Newton steps
   from x, so the nearest assembly), then the velocities onto D dq = beta (sb_assembly.c): a Discard with the
   problem when the Newton iteration does not converge. */
SbStatus sb_reassemble(SbInstance *inst, double t, double *x);

/* The rates of the first-order states at pt into rates (ns), or a Discard naming the state whose rate is not
   finite (sb_dynamics.c). */
SbStatus sb_state_rates(SbInstance *inst, const SbPoint *pt, double *rates);

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
