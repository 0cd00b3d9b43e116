/*
 * sb_linalg.h -- small dense linear algebra for the symbody FMU runtime.
 *
 * Matrices are row-major `double` arrays.  The mass matrix is never inverted
 * symbolically: the generated code evaluates M, D, ... and these routines
 * solve the linear systems numerically.
 */
#ifndef SB_LINALG_H
#define SB_LINALG_H

#include <stddef.h>

/* Only the FMI functions are exported: everything declared here stays inside
   the FMU's library, so that two symbody FMUs loaded into one process (even
   with RTLD_GLOBAL) never bind to each other's model or runtime. */
#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_LINALG
#endif

/* Square-root-free Cholesky factorization A = L D L^T of a symmetric positive
   definite matrix, in place: the strict lower triangle holds L (unit diagonal),
   the diagonal holds 1/D.  Returns 0 on success or k + 1 when the k-th pivot is
   not positive (the matrix is not positive definite). */
int sb_ldlt(int n, double *A);

/* The kernels of sb_ldlt and sb_ldlt_solve for a constant n <= 8 (the mass matrices of small models,
   factored at every evaluation), forced inline where the compiler allows so that every loop unrolls;
   the hot path of the rk4 stages (sb_dynamics.c) instantiates them for its n.  The same operations
   in the same order as the loops for any n: the results are bit-identical. */
#if defined(__GNUC__)
#define SB_KERNEL static inline __attribute__((always_inline))
#else
#define SB_KERNEL static inline
#endif

/* The rows below the diagonal of column j of sb_ldlt, once its pivot is known (A_jj = 1/D_j, the row's
   scratch w_kj = L_jk d_k above it): L_ij = (A_ij - sum_k L_ik w_kj) / D_j. */
SB_KERNEL void sb_ldlt_below(const int n, const int j, double *A)
{
    const double inv = A[(size_t)j * n + j];
    for (int i = j + 1; i < n; ++i) {
        double *Ai = A + (size_t)i * n;
        double s = Ai[j];
        for (int k = 0; k < j; ++k) s -= Ai[k] * A[(size_t)k * n + j];
        Ai[j] = s * inv;
    }
}

/* Column j of sb_ldlt; dk holds the pivots of the earlier columns.  Returns 0, or j + 1 for a pivot
   that is not positive. */
SB_KERNEL int sb_ldlt_column(const int n, const int j, double *A, double *dk)
{
    double *Aj = A + (size_t)j * n;
    double d = Aj[j];
    for (int k = 0; k < j; ++k) {
        const double w = Aj[k] * dk[k]; /* L_jk d_k */
        A[(size_t)k * n + j] = w;
        d -= Aj[k] * w;
    }
    if (!(d > 0.0)) return j + 1; /* also catches NaN */
    dk[j] = d;
    Aj[j] = 1.0 / d;
    sb_ldlt_below(n, j, A);
    return 0;
}

/* Row i of L y = b, and row i of D z = y, L^T x = z (rows from the last up) of sb_ldlt_solve. */
SB_KERNEL void sb_ldlt_solve_lower(const int n, const int i, const double *F, double *b)
{
    double s = b[i];
    for (int k = 0; k < i; ++k) s -= F[(size_t)i * n + k] * b[k];
    b[i] = s;
}

SB_KERNEL void sb_ldlt_solve_upper(const int n, const int i, const double *F, double *b)
{
    b[i] *= F[(size_t)i * n + i];
    double s = b[i];
    for (int k = i + 1; k < n; ++k) s -= F[(size_t)k * n + i] * b[k];
    b[i] = s;
}

/* sb_ldlt and sb_ldlt_solve for n <= 8, every column and row spelled out so that every loop unrolls
   for the constant n of the caller (other n: nothing is done, and sb_ldlt_small returns -1). */
#define SB_COL(n, j) (r = sb_ldlt_column(n, j, A, dk))
#define SB_COLS4(n) (SB_COL(n, 0) || SB_COL(n, 1) || SB_COL(n, 2) || SB_COL(n, 3))
SB_KERNEL int sb_ldlt_small(const int n, double *A)
{
    double dk[8];
    int r = -1;
    switch (n) {
    case 1: return sb_ldlt_column(1, 0, A, dk);
    case 2: (void)(SB_COL(2, 0) || SB_COL(2, 1)); break;
    case 3: (void)(SB_COL(3, 0) || SB_COL(3, 1) || SB_COL(3, 2)); break;
    case 4: (void)SB_COLS4(4); break;
    case 5: (void)(SB_COLS4(5) || SB_COL(5, 4)); break;
    case 6: (void)(SB_COLS4(6) || SB_COL(6, 4) || SB_COL(6, 5)); break;
    case 7: (void)(SB_COLS4(7) || SB_COL(7, 4) || SB_COL(7, 5) || SB_COL(7, 6)); break;
    case 8: (void)(SB_COLS4(8) || SB_COL(8, 4) || SB_COL(8, 5) || SB_COL(8, 6) || SB_COL(8, 7)); break;
    default: break;
    }
    return r;
}
#undef SB_COLS4
#undef SB_COL

#define SB_L(n, i) sb_ldlt_solve_lower(n, i, F, b)
#define SB_U(n, i) sb_ldlt_solve_upper(n, i, F, b)
#define SB_SOLVE(n, lower, upper) \
    case n:                       \
        lower;                    \
        upper;                    \
        break
SB_KERNEL void sb_ldlt_solve_small(const int n, const double *F, double *b)
{
    switch (n) {
    case 1: b[0] *= F[0]; break;
    SB_SOLVE(2, (SB_L(2, 1)),
             (SB_U(2, 1), SB_U(2, 0)));
    SB_SOLVE(3, (SB_L(3, 1), SB_L(3, 2)),
             (SB_U(3, 2), SB_U(3, 1), SB_U(3, 0)));
    SB_SOLVE(4, (SB_L(4, 1), SB_L(4, 2), SB_L(4, 3)),
             (SB_U(4, 3), SB_U(4, 2), SB_U(4, 1), SB_U(4, 0)));
    SB_SOLVE(5, (SB_L(5, 1), SB_L(5, 2), SB_L(5, 3), SB_L(5, 4)),
             (SB_U(5, 4), SB_U(5, 3), SB_U(5, 2), SB_U(5, 1), SB_U(5, 0)));
    SB_SOLVE(6, (SB_L(6, 1), SB_L(6, 2), SB_L(6, 3), SB_L(6, 4), SB_L(6, 5)),
             (SB_U(6, 5), SB_U(6, 4), SB_U(6, 3), SB_U(6, 2), SB_U(6, 1), SB_U(6, 0)));
    SB_SOLVE(7, (SB_L(7, 1), SB_L(7, 2), SB_L(7, 3), SB_L(7, 4), SB_L(7, 5), SB_L(7, 6)),
             (SB_U(7, 6), SB_U(7, 5), SB_U(7, 4), SB_U(7, 3), SB_U(7, 2), SB_U(7, 1), SB_U(7, 0)));
    SB_SOLVE(8, (SB_L(8, 1), SB_L(8, 2), SB_L(8, 3), SB_L(8, 4), SB_L(8, 5), SB_L(8, 6), SB_L(8, 7)),
             (SB_U(8, 7), SB_U(8, 6), SB_U(8, 5), SB_U(8, 4), SB_U(8, 3), SB_U(8, 2), SB_U(8, 1), SB_U(8, 0)));
    default: break;
    }
}
#undef SB_SOLVE
#undef SB_U
#undef SB_L

/* Check that a symmetric matrix is positive semi-definite (a mass matrix with
   massless coordinates), by L D L^T that skips zero pivots; A is overwritten.
   Pivots within tol * max|A_ii| of zero count as zero.  Returns -1 when A is
   positive semi-definite, else the index of the row where a negative pivot
   (or a zero pivot with a nonzero column) shows it is indefinite. */
int sb_semidefinite(int n, double *A, double tol);

/* Solve L D L^T x = b in place (b becomes x) with a factorization of sb_ldlt. */
void sb_ldlt_solve(int n, const double *F, double *b);

/* LU factorization with complete pivoting, P A Q = L U, in place.
   Pivots smaller than rtol times the first pivot end the elimination: the
   return value is the numerical rank (n for a regular matrix).  prow and
   pcol (n entries each) receive the row and column interchanges. */
int sb_lu_factor(int n, double *A, int *prow, int *pcol, double rtol);

/* Solve A x = b with a factorization of sb_lu_factor of rank `rank`.  For a
   rank-deficient but consistent system, the unknowns left without pivot are
   set to zero, which gives one exact solution.  b and x may alias. */
void sb_lu_solve(int n, const double *LU, const int *prow, const int *pcol, int rank, const double *b, double *x);

/* The null vector z (A z = 0) of a factorization of sb_lu_factor of rank
   `rank` < n that belongs to the k-th unknown left without pivot
   (0 <= k < n - rank): that unknown is 1, the other free ones 0. */
void sb_lu_null_vector(int n, const double *LU, const int *pcol, int rank, int k, double *z);

/* Eigen-decomposition of a symmetric matrix A = V diag(w) V^T by cyclic Jacobi rotations
   (A is overwritten; V receives the eigenvectors as columns, row-major n x n). */
void sb_sym_eigen(int n, double *A, double *V, double *w);

/* y = A x (A is m x n); with `accumulate` nonzero, y += A x. */
void sb_matvec(int m, int n, const double *A, const double *x, double *y, int accumulate);

/* y = A^T x (A is m x n, y has n entries); with `accumulate` nonzero, y += A^T x. */
void sb_matvec_t(int m, int n, const double *A, const double *x, double *y, int accumulate);

/* G = A A^T (A is m x n, G is m x m). */
void sb_gram(int m, int n, const double *A, double *G);

/* The regularized minimum-norm correction dx = J^T (J J^T + mu^2 I)^+ r for J (m x n), mu^2 = reg^2
   max_k |J_k|^2 (symbody.numeric.constraint_laws.min_norm_step is its numpy twin).  G (m x m), prow,
   pcol (m each) and y (m) are workspace.  Returns the rank of the regularized J J^T. */
int sb_min_norm(int m, int n, const double *J, const double *r, double reg, double *G, int *prow, int *pcol,
                double *y, double *dx);

/* The filtered multipliers at a singular position (symbody.numeric.constraint_laws.filter_modes and
   filter_apply are the numpy twins).  sb_filter_modes: the eigen-decomposition E S E = V diag(s) V^T of the
   Schur complement S = D M^-1 D^T with its rows scaled by E (ESE is overwritten) and the filter level
   tau = level max(max s, least), which it returns.  sb_filter_apply: lam <- E V diag(s / (s^2 + tau^2)) V^T E lam
   (modes with s <= 0 dropped); c (nc) is workspace. */
double sb_filter_modes(int nc, double *ESE, double *V, double *s, double level, double least);
void sb_filter_apply(int nc, const double *V, const double *s, const double *e, double tau, double *lam, double *c);

/* How many rows of D are clearly independent: the eigenvalues of G = D D^T (nc x nc, overwritten; V and w
   workspace) above gap^2 ref (symbody.numeric.constraint_laws.clear_rank is the numpy twin). */
int sb_clear_rank(int nc, double *G, double *V, double *w, double ref, double gap);

/* Largest absolute value of a vector (0 for n == 0); NaN if any entry is NaN. */
double sb_norm_inf(int n, const double *x);

/* 1 if all entries are finite. */
int sb_all_finite(int n, const double *x);

#ifdef SB_VISIBILITY_PUSHED_LINALG
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_LINALG
#endif

#endif /* SB_LINALG_H */
