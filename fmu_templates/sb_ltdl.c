/*
 * sb_ltdl.c -- Featherstone's LTDL factorization of a tree-structured mass matrix
 * (R. Featherstone, Rigid Body Dynamics Algorithms, Springer, 2008, sec. 6.5), and the accelerations
 * of trees that model.c gives directly by the articulated-body algorithm; see sb_ltdl.h.
 *
 * Row-major storage: entry (i, j) of the n x n matrix is A[i * n + j]; only the lower triangle
 * along the tree (j an ancestor of i) and the diagonal are read and written.
 */
#include "sb_ltdl.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sb_internal.h"
#include "sb_linalg.h"

int sb_ltdl(int n, const int *parent, double *A)
{
    /* from the leaves up: when coordinate k is reached, every descendant has already
       subtracted its contribution from the entries of k and of k's ancestors */
    for (int k = n - 1; k >= 0; --k) {
        double *Ak = A + (size_t)k * n;
        const double d = Ak[k];
        if (!(d > 0.0)) return k + 1; /* also catches NaN */
        const double inv = 1.0 / d;
        for (int i = parent[k]; i >= 0; i = parent[i]) {
            const double a = Ak[i] * inv; /* L(k, i) */
            double *Ai = A + (size_t)i * n;
            for (int j = i; j >= 0; j = parent[j]) Ai[j] -= a * Ak[j]; /* M(i, j) -= L(k, i) M(k, j) */
            Ak[i] = a;
        }
        Ak[k] = inv;
    }
    return 0;
}

void sb_ltdl_solve(int n, const int *parent, const double *F, double *b)
{
    /* L^T y = b: each coordinate, from the leaves up, passes its final value to its ancestors */
    for (int i = n - 1; i >= 0; --i) {
        const double *Fi = F + (size_t)i * n;
        const double bi = b[i];
        for (int j = parent[i]; j >= 0; j = parent[j]) b[j] -= Fi[j] * bi;
    }
    for (int i = 0; i < n; ++i) b[i] *= F[(size_t)i * n + i]; /* D^-1 */
    /* L x = y: from the roots down */
    for (int i = 0; i < n; ++i) {
        const double *Fi = F + (size_t)i * n;
        double v = b[i];
        for (int j = parent[i]; j >= 0; j = parent[j]) v -= Fi[j] * b[j];
        b[i] = v;
    }
}

int sb_mass_factor(int n, double *A)
{
#ifndef SB_MASS_DENSE
    if (sb_mass_parent) return sb_ltdl(n, sb_mass_parent, A);
#endif
    return sb_ldlt(n, A);
}

void sb_mass_solve(int n, const double *F, double *b)
{
#ifndef SB_MASS_DENSE
    if (sb_mass_parent) {
        sb_ltdl_solve(n, sb_mass_parent, F, b);
        return;
    }
#endif
    sb_ldlt_solve(n, F, b);
}

int sb_direct_accelerations(SbInstance *inst, const SbPoint *pt, double *ddq)
{
    const SbModel *m = inst->m;
    if (!m->has_direct || m->nk + m->nf > 0 || m->nc > 0) return 0;
    double *sol = inst->dyn.sol; /* nq + nc entries: ddq is left as it was when they do not hold */
    if (!sb_accelerations_direct(pt, sol)) return 0; /* M not positive definite, or not finite */
    memcpy(ddq, sol, (size_t)m->nq * sizeof(double));
    return 1;
}
