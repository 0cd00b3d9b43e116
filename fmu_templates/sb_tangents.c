/*
 * sb_tangents.c -- Jacobian columns from tangent code (forward mode) or central differences.
 *
 * Used by model.c files exported without exact Jacobians (see sb_tangents.h).
 * A column j of d f/d x is the tangent of f along the unit direction e_j
 * (Griewank and Walther, "Evaluating Derivatives", 2nd ed., SIAM, 2008, ch. 3),
 * or (f(x + h e_j) - f(x - h e_j)) / (2 h) with h = eps^(1/3) max(1, |x_j|),
 * which balances truncation and rounding errors of the central difference.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sb_tangents.h"

/* Number of entries of each known. */
static void known_sizes(int size[SB_N_KNOWNS])
{
    size[SB_KNOWN_Q] = sb_model.nq;
    size[SB_KNOWN_DQ] = sb_model.nq;
    size[SB_KNOWN_U] = sb_model.nu;
    size[SB_KNOWN_T] = 1;
    size[SB_KNOWN_DDQ] = sb_model.nq;
    size[SB_KNOWN_LAM] = sb_model.nc;
}

/* Entries each known takes in the buffers: the inputs are followed by their two time derivatives, which
   the generated code reads with them (symbody_model.h); they are no knowns of their own. */
static int stored(int k, const int size[SB_N_KNOWNS]) { return k == SB_KNOWN_U ? 3 * size[k] : size[k]; }

/* A point whose vectors live in `x` (laid out known after known, as `off` says); the first-order states and
   the time since the inputs were set are those of `in`. */
static SbPoint point_in(const double *x, const int off[SB_N_KNOWNS], const SbPoint *in)
{
    SbPoint pt;
    pt.t = x[off[SB_KNOWN_T]];
    pt.q = x + off[SB_KNOWN_Q];
    pt.dq = x + off[SB_KNOWN_DQ];
    pt.u = x + off[SB_KNOWN_U];
    pt.p = in->p;
    pt.c = in->c;
    pt.ddq = x + off[SB_KNOWN_DDQ];
    pt.lam = x + off[SB_KNOWN_LAM];
    pt.xs = in->xs;
    pt.tau = in->tau;
    return pt;
}

/* One column: the derivative of f along entry `i` of the knowns, into col (nout). */
static void column(const SbPoint *in, SbTangent tangent, SbValue value, int nout, const int off[SB_N_KNOWNS],
                   double *dir, double *x, int i, double *col, double *minus)
{
    if (tangent) {
        dir[i] = 1.0;
        SbPoint d = point_in(dir, off, in);
        tangent(in, &d, col);
        dir[i] = 0.0;
        return;
    }
    const double xi = x[i], h = cbrt(DBL_EPSILON) * fmax(1.0, fabs(xi));
    const double up = xi + h, down = xi - h;
    x[i] = up;
    SbPoint pt = point_in(x, off, in);
    value(&pt, col);
    x[i] = down;
    pt = point_in(x, off, in);
    value(&pt, minus);
    x[i] = xi;
    for (int r = 0; r < nout; ++r) col[r] = (col[r] - minus[r]) / (up - down);
}

void sb_jacobian_columns(const SbPoint *in, SbTangent tangent, SbValue value, int nout, double *const J[SB_N_KNOWNS])
{
    int size[SB_N_KNOWNS], off[SB_N_KNOWNS], total = 0;
    known_sizes(size);
    for (int k = 0; k < SB_N_KNOWNS; ++k) {
        off[k] = total;
        total += stored(k, size);
    }
    /* direction, point (the contact forces after the multipliers: lam holds nc + nk values, which the
       outputs may use), column and the minus side of a difference */
    const int nk = sb_model.nk;
    double *buf = (double *)calloc((size_t)(2 * total + nk + 2 * nout + 1), sizeof(double));
    if (!buf) {
        for (int k = 0; k < SB_N_KNOWNS; ++k)
            if (J[k])
                for (int e = 0; e < nout * size[k]; ++e) J[k][e] = NAN;
        return;
    }
    double *dir = buf, *x = buf + total, *col = x + total + nk, *minus = col + nout;
    const double *src[SB_N_KNOWNS] = {in->q, in->dq, in->u, &in->t, in->ddq, in->lam};
    for (int k = 0; k < SB_N_KNOWNS; ++k)
        if (size[k] > 0 && src[k]) memcpy(x + off[k], src[k], (size_t)stored(k, size) * sizeof(double));
    if (nk > 0 && in->lam) memcpy(x + off[SB_KNOWN_LAM] + size[SB_KNOWN_LAM], in->lam + size[SB_KNOWN_LAM],
                                  (size_t)nk * sizeof(double)); /* (LAM is the last known) */
    for (int k = 0; k < SB_N_KNOWNS; ++k) {
        if (!J[k]) continue;
        for (int j = 0; j < size[k]; ++j) {
            column(in, tangent, value, nout, off, dir, x, off[k] + j, col, minus);
            for (int r = 0; r < nout; ++r) J[k][(size_t)r * size[k] + j] = col[r];
        }
    }
    free(buf);
}

void sb_residual_value(const SbPoint *in, double *R)
{
    const int n = sb_model.nq, nc = sb_model.nc;
    /* M, delta, D, beta, gamma, Phi */
    double *buf = (double *)calloc((size_t)(n * n + n + nc * n + 3 * nc + 1), sizeof(double));
    if (!buf) {
        for (int r = 0; r < n + nc; ++r) R[r] = NAN;
        return;
    }
    double *M = buf, *delta = M + n * n, *D = delta + n, *beta = D + nc * n, *gamma = beta + nc, *Phi = gamma + nc;
    sb_M_delta(in, M, delta);
    if (nc > 0) sb_constraints(in, D, beta, gamma, Phi);
    for (int i = 0; i < n; ++i) {
        double s = -delta[i];
        for (int j = 0; j < n; ++j) s += M[i * n + j] * in->ddq[j];
        for (int r = 0; r < nc; ++r) s += D[r * n + i] * in->lam[r];
        R[i] = s;
    }
    for (int r = 0; r < nc; ++r) {
        double s = -gamma[r];
        for (int j = 0; j < n; ++j) s += D[r * n + j] * in->ddq[j];
        R[n + r] = s;
    }
    free(buf);
}

void sb_velocity_value(const SbPoint *in, double *V)
{
    const int n = sb_model.nq, nc = sb_model.nc;
    double *buf = (double *)calloc((size_t)(nc * n + nc + 1), sizeof(double));
    if (!buf) {
        for (int r = 0; r < nc; ++r) V[r] = NAN;
        return;
    }
    double *D = buf, *beta = D + nc * n;
    sb_D_beta(in, D, beta);
    for (int r = 0; r < nc; ++r) {
        double s = -beta[r];
        for (int j = 0; j < n; ++j) s += D[r * n + j] * in->dq[j];
        V[r] = s;
    }
    free(buf);
}
