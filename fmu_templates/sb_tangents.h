/*
 * sb_tangents.h -- Jacobian columns of the model's residuals without exact Jacobian code.
 *
 * A model.c exported with `--jacobians forward` defines tangent functions
 * (forward-mode derivatives of R, V or y along a direction of the knowns) and
 * fills the Jacobian blocks of symbody_model.h one column at a time from them;
 * one exported with `--jacobians none` fills them by central differences of
 * the block values.  Either way the runtime sees the same dense Jacobians.
 */
#ifndef SB_TANGENTS_H
#define SB_TANGENTS_H

#include "symbody_model.h"

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_TANGENTS
#endif

/* out = d f/d(knowns) * dir at `in` (dir->t, q, dq, u, ddq, lam hold the direction). */
typedef void (*SbTangent)(const SbPoint *in, const SbPoint *dir, double *out);
/* out = f(in) (a block value, for differences). */
typedef void (*SbValue)(const SbPoint *in, double *out);

/* Which knowns a Jacobian is taken with respect to; J[k] is row-major (nout x size of known k), NULL skips it. */
enum { SB_KNOWN_Q = 0, SB_KNOWN_DQ, SB_KNOWN_U, SB_KNOWN_T, SB_KNOWN_DDQ, SB_KNOWN_LAM, SB_N_KNOWNS };

/* The Jacobians of f (nout rows) at `in`: exact columns from `tangent` when it is given, otherwise central
   differences of `value`.  When memory runs out, every entry is NaN (the runtime reports non-finite Jacobians). */
void sb_jacobian_columns(const SbPoint *in, SbTangent tangent, SbValue value, int nout, double *const J[SB_N_KNOWNS]);

/* R = [M ddq + D^T lam - delta; D ddq - gamma] ((nq + nc) rows), from sb_M_delta and sb_constraints. */
void sb_residual_value(const SbPoint *in, double *R);

/* V = D dq - beta (nc rows), from sb_D_beta. */
void sb_velocity_value(const SbPoint *in, double *V);

#ifdef SB_VISIBILITY_PUSHED_TANGENTS
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_TANGENTS
#endif

#endif /* SB_TANGENTS_H */
