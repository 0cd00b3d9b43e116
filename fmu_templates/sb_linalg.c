/*
 * sb_linalg.c -- dense Cholesky and complete-pivoting LU (see sb_linalg.h).
 */
#include <math.h>
#include "sb_linalg.h"

int sb_cholesky(int n, double *A)
{
    for (int j = 0; j < n; ++j) {
        double d = A[j * n + j];
        for (int k = 0; k < j; ++k) d -= A[j * n + k] * A[j * n + k];
        if (!(d > 0.0)) return j + 1; /* also catches NaN */
        d = sqrt(d);
        A[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = A[i * n + j];
            for (int k = 0; k < j; ++k) s -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = s / d;
        }
    }
    return 0;
}

void sb_cholesky_solve(int n, const double *L, double *b)
{
    for (int i = 0; i < n; ++i) { /* L y = b */
        double s = b[i];
        for (int k = 0; k < i; ++k) s -= L[i * n + k] * b[k];
        b[i] = s / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) { /* L^T x = y */
        double s = b[i];
        for (int k = i + 1; k < n; ++k) s -= L[k * n + i] * b[k];
        b[i] = s / L[i * n + i];
    }
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
