/*
 * bench_solve.h -- the linear solve shared by the "generated code only"
 * harnesses (symbody_blocks_ddq.c and pydy_ddq.c): M ddq = f for a symmetric
 * positive definite M by a square-root-free Cholesky factorization
 * M = L D L^T, in place.  Both harnesses use this same code, so that their
 * timings differ only by the generated evaluation of M and f.
 */
#ifndef BENCH_SOLVE_H
#define BENCH_SOLVE_H

/* Factor A = L D L^T in place (strict lower triangle: L, diagonal: 1/D) and
   solve L D L^T x = b in place.  Returns 0, or k + 1 if pivot k is not positive. */
static inline int bench_ldlt_solve(int n, double *A, double *b)
{
    for (int j = 0; j < n; ++j) {
        /* D_j = A_jj - sum_k L_jk^2 D_k, with L_jk D_k kept in the upper triangle as a workspace */
        double d = A[j * n + j];
        for (int k = 0; k < j; ++k) d -= A[k * n + j] * A[j * n + k];
        if (!(d > 0.0)) return j + 1;
        A[j * n + j] = 1.0 / d;
        for (int i = j + 1; i < n; ++i) {
            double s = A[i * n + j];
            for (int k = 0; k < j; ++k) s -= A[k * n + i] * A[j * n + k];
            A[j * n + i] = s;            /* L_ij D_j */
            A[i * n + j] = s / d;        /* L_ij */
        }
    }
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < i; ++k) b[i] -= A[i * n + k] * b[k];
    for (int i = 0; i < n; ++i) b[i] *= A[i * n + i];
    for (int i = n - 1; i >= 0; --i)
        for (int k = i + 1; k < n; ++k) b[i] -= A[k * n + i] * b[k];
    return 0;
}

#endif /* BENCH_SOLVE_H */
