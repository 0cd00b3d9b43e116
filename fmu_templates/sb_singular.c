/*
 * sb_singular.c -- singular positions of constrained mechanisms in the symbody FMU runtime.
 *
 * At a singular position (a slider-crank at its dead point, a parallelogram linkage lying flat)
 * rows of the constraint Jacobian D become dependent or vanish for an instant.  The exact
 * solution of [M D^T; D 0] then has multipliers that grow like the inverse of the smallest
 * eigenvalue of D M^-1 D^T with the drift of the integration, and the velocity rows turn with
 * the tiny position errors along the direction that loses its row.  Two remedies, used by
 * sb_dynamics.c and sb_assembly.c only near such positions:
 *   - filtered multipliers (Tikhonov's regularization of the range-space system, on rows scaled
 *     by the largest norm each has had);
 *   - no projection while fewer rows are clearly independent than usual.
 */
#include <math.h>
#include <string.h>

#include "sb_linalg.h"
#include "sb_runtime.h"

#define SB_FILTER_LEVEL 1e-6 /* filter level tau, relative to the regular eigenvalues of E D M^-1 D^T E */
#define SB_SINGULAR_GAP 1e-2 /* rows independent for the projection: singular value above this part of |D| */

/* 1 / sqrt of the reference squared norm of constraint row r: the largest it has had */
static double row_weight(const SbInstance *inst, int r)
{
    const int n = inst->m->nq;
    double v = 0.0;
    for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * inst->dyn.D[r * n + j];
    v = fmax(v, inst->dyn.row_ref[r]);
    return v > 0.0 ? 1.0 / sqrt(v) : 1.0;
}

/* lam <- E V diag(s / (s^2 + tau^2)) V^T E lam (SB_FACT_FILTER, tau = inst->dyn.filter_tau);
   inst->dyn.A is free in this mode. */
void sb_filter_multipliers(SbInstance *inst, double *lam)
{
    const int nc = inst->m->nc;
    double *c = inst->dyn.A, *e = inst->dyn.A + nc;
    for (int r = 0; r < nc; ++r) e[r] = row_weight(inst, r);
    const double tau = inst->dyn.filter_tau;
    for (int k = 0; k < nc; ++k) { /* c = V^T E lam, filtered */
        double v = 0.0;
        for (int r = 0; r < nc; ++r) v += inst->dyn.Sf[r * nc + k] * e[r] * lam[r];
        const double sk = inst->dyn.sw[k];
        c[k] = sk > 0.0 ? v * sk / (sk * sk + tau * tau) : 0.0;
    }
    for (int r = 0; r < nc; ++r) {
        double v = 0.0;
        for (int k = 0; k < nc; ++k) v += inst->dyn.Sf[r * nc + k] * c[k];
        lam[r] = e[r] * v;
    }
}

/* Filtered multipliers at a singular position (rows of D nearly dependent or vanishing): with Mf
   and X = Mf^-1 D^T left by factor_schur, the eigen-decomposition of E S E, S = D X, the rows
   scaled by the largest norm each has had (a row small by its units is not a vanishing one).
   The accelerations are continuous and the multipliers bounded where the exact solution of
   [M D^T; D 0] has multipliers growing like the inverse of S's smallest eigenvalue. */
void sb_factor_filter(SbInstance *inst, double t)
{
    const int n = inst->m->nq, nc = inst->m->nc;
    double *S = inst->dyn.A, *e = inst->dyn.stmp; /* both free in this mode */
    for (int r = 0; r < nc; ++r) e[r] = row_weight(inst, r);
    for (int r = 0; r < nc; ++r)
        for (int c = r; c < nc; ++c) {
            double v = 0.0;
            for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * inst->dyn.X[c * n + j];
            S[r * nc + c] = S[c * nc + r] = e[r] * v * e[c];
        }
    sb_sym_eigen(nc, S, inst->dyn.Sf, inst->dyn.sw);
    /* the scale of a regular mode: the largest eigenvalue, or about the smallest of M^-1 (1 / max M_ii)
       when every row vanishes at once (a single row at a dead point) */
    double smax = 0.0, mmax = 0.0;
    for (int k = 0; k < nc; ++k) smax = fmax(smax, inst->dyn.sw[k]);
    for (int i = 0; i < n; ++i) mmax = fmax(mmax, inst->dyn.M[i * n + i]);
    if (inst->dyn.rho == 0.0 && mmax > 0.0) smax = fmax(smax, 1.0 / mmax);
    inst->dyn.filter_tau = SB_FILTER_LEVEL * smax;
    inst->dyn.fact = SB_FACT_FILTER;
    inst->dyn.rank = inst->dyn.na;
    sb_log(inst, SB_OK, SB_LOG_SOLVER,
           "t = %.17g: constraint rows nearly dependent (singular position), filtered multipliers", t);
}

/* 1 when fewer constraint rows are clearly independent at x than usual: singular values of D
   above SB_SINGULAR_GAP times the largest row norm met, compared with the most counted so far
   (redundant rows never count). */
int sb_near_singular(SbInstance *inst, double t, const double *x)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc;
    SbPoint pt;
    memset(&pt, 0, sizeof pt);
    pt.t = t;
    pt.q = x;
    pt.dq = x + n;
    pt.u = inst->state.u;
    pt.p = inst->state.p;
    double *J = inst->proj.Jrows, *r = inst->proj.rrows, *V = inst->dyn.A, *w = inst->dyn.stmp, ref = 0.0;
    sb_D_beta(&pt, J, r);
    sb_gram(nc, n, J, inst->proj.G);
    for (int k = 0; k < nc; ++k) ref = fmax(ref, fmax(inst->dyn.row_ref[k], inst->proj.G[k * nc + k]));
    sb_sym_eigen(nc, inst->proj.G, V, w);
    int rank = 0;
    for (int k = 0; k < nc; ++k)
        if (w[k] > SB_SINGULAR_GAP * SB_SINGULAR_GAP * ref) ++rank;
    if (rank > inst->dyn.rank_ref) inst->dyn.rank_ref = rank;
    return rank < inst->dyn.rank_ref;
}
