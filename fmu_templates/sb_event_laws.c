/*
 * sb_event_laws.c -- the laws of events (see sb_event_laws.h).  Linear complementarity problems z >= 0,
 * w = W z + b >= 0, z.w = 0 with a symmetric positive semi-definite W, the Delassus matrix of the contacts.  A model has few contacts that act at
 * once, so the active sets are enumerated, the smallest first (K. G. Murty, Linear Complementarity, Linear and
 * Nonlinear Programming, 1988, ch. 1 and 2): for a positive semi-definite W and a solvable problem this finds
 * a solution.  The subproblems are solved by the pseudo-inverse of W[S, S] (cyclic Jacobi): contacts redundant within
 * an active set share their force as the minimum-norm solution does.
 */
#include <math.h>

#include "sb_event_laws.h"
#include "sb_linalg.h"

void sb_sym_solve(int m, const double *W, int s, const int *S, const double *rhs, double *zs)
{
    double A[SB_LCP_MAX * SB_LCP_MAX], V[SB_LCP_MAX * SB_LCP_MAX], w[SB_LCP_MAX], y[SB_LCP_MAX];
    for (int a = 0; a < s; ++a)
        for (int c = 0; c < s; ++c) A[a * s + c] = W[S[a] * m + S[c]];
    if (s == 1) { /* (the common case: one contact) */
        zs[0] = A[0] > 0.0 ? rhs[0] / A[0] : 0.0;
        return;
    }
    sb_sym_eigen(s, A, V, w);
    double wmax = 0.0;
    for (int a = 0; a < s; ++a) wmax = fmax(wmax, fabs(w[a]));
    for (int a = 0; a < s; ++a) { /* y = diag(w)^+ V^T rhs */
        double v = 0.0;
        for (int c = 0; c < s; ++c) v += V[c * s + a] * rhs[c];
        y[a] = fabs(w[a]) > SB_LCP_RCOND * wmax ? v / w[a] : 0.0;
    }
    for (int a = 0; a < s; ++a) {
        double v = 0.0;
        for (int c = 0; c < s; ++c) v += V[a * s + c] * y[c];
        zs[a] = v;
    }
}

/* The next combination of s of the positions 0..m-1 in comb (increasing); 0 after the last. */
static int next_combination(int m, int s, int *comb)
{
    int a = s - 1;
    while (a >= 0 && comb[a] == m - s + a) --a;
    if (a < 0) return 0;
    ++comb[a];
    for (int c = a + 1; c < s; ++c) comb[c] = comb[c - 1] + 1;
    return 1;
}

int sb_lcp(int m, const double *W, const double *b, double *z)
{
    double bmax = 0.0;
    int all_positive = 1;
    for (int i = 0; i < m; ++i) {
        z[i] = 0.0;
        bmax = fmax(bmax, fabs(b[i]));
        if (b[i] < 0.0) all_positive = 0;
    }
    if (all_positive) return 0;
    if (m > SB_LCP_MAX) return 2;
    int order[SB_LCP_MAX], comb[SB_LCP_MAX], active[SB_LCP_MAX];
    double rhs[SB_LCP_MAX], zs[SB_LCP_MAX];
    for (int i = 0; i < m; ++i) { /* stable insertion sort of the indices by b */
        int j = i;
        while (j > 0 && b[order[j - 1]] > b[i]) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = i;
    }
    const double scale = SB_LCP_TOL * (1.0 + bmax);
    for (int s = 1; s <= m; ++s) {
        for (int a = 0; a < s; ++a) comb[a] = a;
        do {
            for (int a = 0; a < s; ++a) { /* the active set, sorted */
                int v = order[comb[a]], j = a;
                while (j > 0 && active[j - 1] > v) {
                    active[j] = active[j - 1];
                    --j;
                }
                active[j] = v;
            }
            for (int a = 0; a < s; ++a) rhs[a] = -b[active[a]];
            sb_sym_solve(m, W, s, active, rhs, zs);
            int ok = 1;
            for (int i = 0; i < m; ++i) z[i] = 0.0;
            for (int a = 0; a < s; ++a) {
                z[active[a]] = zs[a];
                if (!(zs[a] >= -scale)) ok = 0;
            }
            for (int i = 0; i < m && ok; ++i) {
                double w = b[i];
                for (int c = 0; c < m; ++c) w += W[i * m + c] * z[c];
                int in_set = 0;
                for (int a = 0; a < s; ++a) in_set |= active[a] == i;
                if (!(w >= -scale) || (in_set && !(fabs(w) <= scale))) ok = 0;
            }
            if (ok) {
                for (int i = 0; i < m; ++i) z[i] = fmax(z[i], 0.0);
                return 0;
            }
        } while (next_combination(m, s, comb));
    }
    for (int i = 0; i < m; ++i) z[i] = 0.0;
    return 1;
}

double sb_kept_force(double bmax, double wmax, double largest, double force_tol)
{
    return fmax(1e-10 * (1.0 + bmax / wmax), force_tol * (1.0 + largest));
}

double sb_entry_rate(double r, double alpha, double d, double located)
{
    if (r >= 0.0 && alpha <= 0.0) return r; /* drifted in: it never approached */
    if (r >= 0.0 && d <= located) return r; /* leaving where it was located: the importer's error */
    const double r2 = r * r + 2.0 * alpha * d;
    return r2 > 0.0 ? -sqrt(r2) : 0.0;
}

double sb_indicator_offset(double offset, double d, double r, double gap, double base, double largest,
                           double growth, double rest_velocity)
{
    if (r < -rest_velocity || (d <= 0.0 && gap > largest)) return base; /* an impact, or flown away */
    if (d > 0.0 && d <= 2.0 * offset) return fmax(offset, fmin(growth * offset, largest)); /* found again there */
    return offset;
}

double sb_offset_bound(double rtol, int n, const double *G, const double *q)
{
    double s = 1.0;
    for (int j = 0; j < n; ++j) s += fabs(G[j] * q[j]);
    return rtol * s;
}

double sb_rest_rate(int closed, double gamma, double step, double rest_velocity)
{
    return closed && step > 0.0 ? fmax(rest_velocity, fabs(gamma) * step) : rest_velocity;
}

int sb_unresolved_flight(double u, double alpha, double depth, double late, double gap_tol, double resolution,
                         double step, double flight_steps)
{
    if (!(alpha < 0.0 && u >= 0.0)) return 0;
    if (depth > 0.0) return 1;
    if (!(late > gap_tol && u * u < 2.0 * -alpha * resolution * late)) return 0;
    return !(step > 0.0) || 2.0 * u < flight_steps * step * -alpha; /* (the flight lasts 2 u / -alpha) */
}

int sb_plastic_impact(double r, double e, double alpha, double late, double rest_velocity, double gap_tol,
                      double resolution, double step, double flight_steps)
{
    return !(r < -rest_velocity) ||
           sb_unresolved_flight(-e * r, alpha, 0.0, late, gap_tol, resolution, step, flight_steps);
}

double sb_error_free_rate(double r, double u, double e, double alpha0, double alpha1, double duration, double steps,
                          double squares)
{
    if (!(e >= 0.0 && e < 1.0 && r < 0.0 && u > 0.0 && alpha0 < 0.0 && alpha1 < 0.0 && duration > 0.0 &&
          steps >= 1.0 && squares > 0.0))
        return r;
    const double a = fmin(-alpha0, -alpha1), big = fmax(-alpha0, -alpha1), h = duration / steps;
    const double explained = 2.0 * u * u * fabs(alpha1 - alpha0) / a; /* (the change of alpha) */
    const double gain = r * r - u * u - explained;
    if (!(0.25 * a * a * squares <= gain && gain <= 4.0 * big * big * squares)) return r; /* (Euler: alpha^2 squares) */
    const double rate = -sqrt(u * u + explained);
    return 2.0 * e * -rate < a * h ? 0.0 : rate;
}

int sb_sliding_forces(int ns, double *F, const double *mu, const double *s, SbNormalsOf normals, void *context,
                      int *wrong, double *limit)
{
    double N[SB_LCP_MAX], Nh[SB_LCP_MAX], Fh[SB_LCP_MAX], k[SB_LCP_MAX], r[SB_LCP_MAX], dF[SB_LCP_MAX];
    double sigma[SB_LCP_MAX];
    double J[SB_LCP_MAX * SB_LCP_MAX];
    int prow[SB_LCP_MAX], pcol[SB_LCP_MAX];
    if (ns > SB_LCP_MAX) return 2;
    if (normals(context, F, N)) return 3;
    for (int j = 0; j < ns; ++j) {
        sigma[j] = N[j] < 0.0 ? -1.0 : 1.0;
        k[j] = mu[j] * s[j] * sigma[j];
    }
    int converged = 0;
    for (int it = 0; it < 8 && !converged; ++it) {
        double scale = 1.0, rmax = 0.0;
        for (int j = 0; j < ns; ++j) {
            r[j] = F[j] + k[j] * N[j];
            scale = fmax(scale, 1.0 + fabs(F[j]) + fabs(k[j] * N[j]));
            rmax = fmax(rmax, fabs(r[j]));
        }
        if (rmax <= 1e-12 * scale) {
            converged = 1;
            break;
        }
        const double h = 1e-6 * scale;
        for (int c = 0; c < ns; ++c) { /* column c of J = I + diag(k) dN/dF */
            for (int j = 0; j < ns; ++j) Fh[j] = F[j] + (j == c ? h : 0.0);
            if (normals(context, Fh, Nh)) return 3;
            for (int j = 0; j < ns; ++j) J[j * ns + c] = (j == c ? 1.0 : 0.0) + k[j] * (Nh[j] - N[j]) / h;
        }
        const int rank = sb_lu_factor(ns, J, prow, pcol, 1e-14);
        sb_lu_solve(ns, J, prow, pcol, rank, r, dF);
        for (int j = 0; j < ns; ++j) F[j] -= dF[j];
        if (normals(context, F, N)) return 3;
    }
    if (!converged) {
        double scale = 1.0, rmax = 0.0;
        for (int j = 0; j < ns; ++j) {
            scale = fmax(scale, 1.0 + fabs(F[j]) + fabs(k[j] * N[j]));
            rmax = fmax(rmax, fabs(F[j] + k[j] * N[j]));
        }
        if (!(rmax <= 1e-12 * scale)) return 2;
    }
    for (int j = 0; j < ns; ++j) {
        if (sigma[j] * N[j] < 0.0) { /* the normal force turned against its contact: the Painleve limit passed */
            for (int i = 0; i < ns; ++i) Fh[i] = F[i] + (i == j ? 1.0 : 0.0);
            if (normals(context, Fh, Nh)) return 3;
            const double c = Nh[j] - N[j], d = s[j] * sigma[j] * c;
            *wrong = j;
            *limit = d < 0.0 ? -1.0 / d : INFINITY;
            return 1;
        }
    }
    return 0;
}
