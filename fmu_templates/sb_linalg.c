/*
 * sb_linalg.c -- dense L D L^T (Cholesky without square roots) and complete-pivoting LU (see sb_linalg.h).
 */
#include <math.h>
#include <stddef.h>

#include "sb_linalg.h"

/* sb_ldlt for any n: the columns of sb_linalg.h's kernel while the pivots of the earlier ones fit
   the stack buffer dk (it multiplies by them instead of dividing; no variable-length array: the
   sources also build with MSVC), then the same column dividing by the pivots beyond it.  With a
   constant n <= 8 sb_ldlt_small unrolls the same operations: the results are bit-identical. */
static int ldlt_kernel(const int n, double *A)
{
    enum { NSTACK = 64 };
    double dk[NSTACK + 1];
    for (int j = 0; j < n; ++j) {
        if (j <= NSTACK) {
            const int r = sb_ldlt_column(n, j, A, dk);
            if (r) return r;
            continue;
        }
        double *Aj = A + (size_t)j * n;
        double d = Aj[j];
        for (int k = 0; k < j; ++k) {
            const double w = k < NSTACK ? Aj[k] * dk[k] : Aj[k] / A[(size_t)k * n + k]; /* L_jk d_k */
            A[(size_t)k * n + j] = w;
            d -= Aj[k] * w;
        }
        if (!(d > 0.0)) return j + 1; /* also catches NaN */
        Aj[j] = 1.0 / d;
        sb_ldlt_below(n, j, A);
    }
    return 0;
}

int sb_semidefinite(int n, double *A, double tol)
{
    double scale = 0.0;
    for (int j = 0; j < n; ++j) scale = fmax(scale, fabs(A[(size_t)j * n + j]));
    const double eps = tol * scale;
    /* same storage as sb_ldlt, with 0 in place of 1/D for zero pivots */
    for (int j = 0; j < n; ++j) {
        double *Aj = A + (size_t)j * n;
        double d = Aj[j];
        for (int k = 0; k < j; ++k) {
            double dk = A[(size_t)k * n + k];
            double w = dk != 0.0 ? Aj[k] / dk : 0.0; /* L_jk d_k */
            A[(size_t)k * n + j] = w;
            d -= Aj[k] * w;
        }
        if (!(d >= -eps)) return j; /* negative pivot (or NaN) */
        if (d <= eps) { /* zero pivot: the rest of the column must vanish */
            Aj[j] = 0.0;
            for (int i = j + 1; i < n; ++i) {
                double *Ai = A + (size_t)i * n;
                double s = Ai[j];
                for (int k = 0; k < j; ++k) s -= Ai[k] * A[(size_t)k * n + j];
                if (!(fabs(s) <= sqrt(eps * scale))) return j;
                Ai[j] = 0.0;
            }
            continue;
        }
        Aj[j] = 1.0 / d;
        for (int i = j + 1; i < n; ++i) {
            double *Ai = A + (size_t)i * n;
            double s = Ai[j];
            for (int k = 0; k < j; ++k) s -= Ai[k] * A[(size_t)k * n + j];
            Ai[j] = s * Aj[j];
        }
    }
    return -1;
}

/* The body of sb_ldlt_solve for any n (n <= 8: row by row below). */
static void ldlt_solve_kernel(const int n, const double *F, double *b)
{
    for (int i = 0; i < n; ++i) { /* L y = b */
        double s = b[i];
        for (int k = 0; k < i; ++k) s -= F[(size_t)i * n + k] * b[k];
        b[i] = s;
    }
    for (int i = 0; i < n; ++i) b[i] *= F[(size_t)i * n + i]; /* D z = y */
    for (int i = n - 1; i >= 0; --i) { /* L^T x = z */
        double s = b[i];
        for (int k = i + 1; k < n; ++k) s -= F[(size_t)k * n + i] * b[k];
        b[i] = s;
    }
}

int sb_ldlt(int n, double *A)
{
    /* mass matrices up to 8 coordinates (cranes, small mechanisms): every loop unrolled (sb_linalg.h) */
    return n >= 1 && n <= 8 ? sb_ldlt_small(n, A) : ldlt_kernel(n, A);
}

void sb_ldlt_solve(int n, const double *F, double *b)
{
    if (n <= 8) sb_ldlt_solve_small(n, F, b); /* row by row, every loop unrolled (sb_linalg.h) */
    else ldlt_solve_kernel(n, F, b);
}

int sb_lu_factor(int n, double *A, int *prow, int *pcol, double rtol)
{
    double first = 0.0;
    for (int k = 0; k < n; ++k) {
        int ip = k, jp = k;
        double big = -1.0;
        for (int i = k; i < n; ++i)
            for (int j = k; j < n; ++j) {
                double a = fabs(A[i * n + j]);
                if (a > big || a != a) { /* NaN wins: the caller sees a non-finite result */
                    big = a;
                    ip = i;
                    jp = j;
                    if (a != a) goto found;
                }
            }
    found:
        if (k == 0) first = big;
        if (!(big > rtol * first) || big == 0.0) return k;
        prow[k] = ip;
        pcol[k] = jp;
        if (ip != k)
            for (int j = 0; j < n; ++j) {
                double t = A[k * n + j];
                A[k * n + j] = A[ip * n + j];
                A[ip * n + j] = t;
            }
        if (jp != k)
            for (int i = 0; i < n; ++i) {
                double t = A[i * n + k];
                A[i * n + k] = A[i * n + jp];
                A[i * n + jp] = t;
            }
        double piv = A[k * n + k];
        for (int i = k + 1; i < n; ++i) {
            double l = A[i * n + k] / piv;
            A[i * n + k] = l;
            if (l != 0.0)
                for (int j = k + 1; j < n; ++j) A[i * n + j] -= l * A[k * n + j];
        }
    }
    return n;
}

void sb_lu_solve(int n, const double *LU, const int *prow, const int *pcol, int rank, const double *b, double *x)
{
    if (x != b)
        for (int i = 0; i < n; ++i) x[i] = b[i];
    for (int k = 0; k < rank; ++k) { /* row interchanges */
        int r = prow[k];
        if (r != k) {
            double t = x[k];
            x[k] = x[r];
            x[r] = t;
        }
    }
    for (int i = 0; i < rank; ++i) { /* L (unit lower) */
        double s = x[i];
        for (int j = 0; j < i; ++j) s -= LU[i * n + j] * x[j];
        x[i] = s;
    }
    for (int i = rank; i < n; ++i) x[i] = 0.0; /* free unknowns */
    for (int i = rank - 1; i >= 0; --i) { /* U */
        double s = x[i];
        for (int j = i + 1; j < rank; ++j) s -= LU[i * n + j] * x[j];
        x[i] = s / LU[i * n + i];
    }
    for (int k = rank - 1; k >= 0; --k) { /* column interchanges, in reverse */
        int c = pcol[k];
        if (c != k) {
            double t = x[k];
            x[k] = x[c];
            x[c] = t;
        }
    }
}

void sb_lu_null_vector(int n, const double *LU, const int *pcol, int rank, int k, double *z)
{
    /* P A Q = L U with U = [U11 U12; 0 0]: in the pivot order, z = [-U11^-1 U12 e_k; e_k] */
    for (int i = rank; i < n; ++i) z[i] = 0.0;
    z[rank + k] = 1.0;
    for (int i = rank - 1; i >= 0; --i) {
        double s = -LU[i * n + rank + k];
        for (int j = i + 1; j < rank; ++j) s -= LU[i * n + j] * z[j];
        z[i] = s / LU[i * n + i];
    }
    for (int j = rank - 1; j >= 0; --j) { /* column interchanges, in reverse */
        int c = pcol[j];
        if (c != j) {
            double t = z[j];
            z[j] = z[c];
            z[c] = t;
        }
    }
}

void sb_matvec(int m, int n, const double *A, const double *x, double *y, int accumulate)
{
    for (int i = 0; i < m; ++i) {
        double s = accumulate ? y[i] : 0.0;
        for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

void sb_matvec_t(int m, int n, const double *A, const double *x, double *y, int accumulate)
{
    if (!accumulate)
        for (int j = 0; j < n; ++j) y[j] = 0.0;
    for (int i = 0; i < m; ++i) {
        double xi = x[i];
        if (xi != 0.0)
            for (int j = 0; j < n; ++j) y[j] += A[i * n + j] * xi;
    }
}

void sb_gram(int m, int n, const double *A, double *G)
{
    for (int i = 0; i < m; ++i)
        for (int k = i; k < m; ++k) {
            double s = 0.0;
            for (int j = 0; j < n; ++j) s += A[i * n + j] * A[k * n + j];
            G[i * m + k] = G[k * m + i] = s;
        }
}

int sb_min_norm(int m, int n, const double *J, const double *r, double reg, double *G, int *prow, int *pcol,
                double *y, double *dx)
{
    double gmax = 0.0;
    sb_gram(m, n, J, G);
    for (int k = 0; k < m; ++k) gmax = fmax(gmax, G[k * m + k]);
    for (int k = 0; k < m; ++k) G[k * m + k] += reg * reg * gmax;
    int rank = sb_lu_factor(m, G, prow, pcol, 1e-12);
    sb_lu_solve(m, G, prow, pcol, rank, r, y);
    sb_matvec_t(m, n, J, y, dx, 0);
    return rank;
}

double sb_filter_modes(int nc, double *ESE, double *V, double *s, double level, double least)
{
    sb_sym_eigen(nc, ESE, V, s);
    double smax = least;
    for (int k = 0; k < nc; ++k) smax = fmax(smax, s[k]);
    return level * smax;
}

void sb_filter_apply(int nc, const double *V, const double *s, const double *e, double tau, double *lam, double *c)
{
    for (int k = 0; k < nc; ++k) { /* c = V^T E lam, filtered */
        double v = 0.0;
        for (int r = 0; r < nc; ++r) v += V[r * nc + k] * e[r] * lam[r];
        c[k] = s[k] > 0.0 ? v * s[k] / (s[k] * s[k] + tau * tau) : 0.0;
    }
    for (int r = 0; r < nc; ++r) {
        double v = 0.0;
        for (int k = 0; k < nc; ++k) v += V[r * nc + k] * c[k];
        lam[r] = e[r] * v;
    }
}

int sb_clear_rank(int nc, double *G, double *V, double *w, double ref, double gap)
{
    sb_sym_eigen(nc, G, V, w);
    int rank = 0;
    for (int k = 0; k < nc; ++k)
        if (w[k] > gap * gap * ref) ++rank;
    return rank;
}

double sb_norm_inf(int n, const double *x)
{
    double r = 0.0;
    for (int i = 0; i < n; ++i) {
        double a = fabs(x[i]);
        if (a != a) return a;
        if (a > r) r = a;
    }
    return r;
}

int sb_all_finite(int n, const double *x)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

void sb_sym_eigen(int n, double *A, double *V, double *w)
{
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) V[i * n + j] = (i == j);
    double norm = 0.0;
    for (int i = 0; i < n * n; ++i) norm += A[i] * A[i];
    for (int sweep = 0; sweep < 60; ++sweep) {
        double off = 0.0;
        for (int p = 0; p < n; ++p)
            for (int q = p + 1; q < n; ++q) off += A[p * n + q] * A[p * n + q];
        if (!(off > 1e-32 * norm)) break;
        for (int p = 0; p < n; ++p)
            for (int q = p + 1; q < n; ++q) {
                const double apq = A[p * n + q];
                if (apq == 0.0) continue;
                /* rotation that zeroes A[p][q] (Golub and Van Loan, "Matrix Computations", sec. 8.5) */
                const double theta = (A[q * n + q] - A[p * n + p]) / (2.0 * apq);
                const double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < n; ++k) { /* columns p and q */
                    const double akp = A[k * n + p], akq = A[k * n + q];
                    A[k * n + p] = c * akp - s * akq;
                    A[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; ++k) { /* rows p and q */
                    const double apk = A[p * n + k], aqk = A[q * n + k];
                    A[p * n + k] = c * apk - s * aqk;
                    A[q * n + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < n; ++k) {
                    const double vkp = V[k * n + p], vkq = V[k * n + q];
                    V[k * n + p] = c * vkp - s * vkq;
                    V[k * n + q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < n; ++i) w[i] = A[i * n + i];
}
