/*
 * sb_linalg.h -- small dense linear algebra for the symbody FMU runtime.
 *
 * Matrices are row-major `double` arrays.  The mass matrix is never inverted
 * symbolically: the generated code evaluates M, D, ... and these routines
 * solve the linear systems numerically.
 */
#ifndef SB_LINALG_H
#define SB_LINALG_H

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

/* Largest absolute value of a vector (0 for n == 0); NaN if any entry is NaN. */
double sb_norm_inf(int n, const double *x);

/* 1 if all entries are finite. */
int sb_all_finite(int n, const double *x);

#ifdef SB_VISIBILITY_PUSHED_LINALG
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_LINALG
#endif

#endif /* SB_LINALG_H */
