/*
 * sbc_laws.c -- the control laws of symbody's controller FMUs (coefficient
 * layouts in sbc_controller.h).  The inputs set at a communication point hold
 * until the next one (zero-order hold), and the outputs are those at the
 * communication point:
 *
 * - linear, continuous (sample_time == 0): y = y_ref + C x + D (u - u_ref);
 *   over a step h the state moves exactly as x' = A x + B (u - u_ref) with the
 *   held input: x <- Ad x + Bd (u - u_ref), [Ad Bd; 0 I] = exp([A B; 0 0] h)
 *   (the zero-order-hold discretization; the exponential by scaling and
 *   squaring of the diagonal (6,6) Pade approximant: C. Moler and C. Van Loan,
 *   "Nineteen dubious ways to compute the exponential of a matrix, twenty-five
 *   years later", SIAM Review 45, 2003, method 3; G. Golub and C. Van Loan,
 *   "Matrix Computations", 4th ed., 2013, algorithm 9.3.1);
 * - linear, discrete (sample time Ts): at each sample instant t_k = start + k Ts
 *   the law reads its inputs, y_k = y_ref + C x_k + D (u - u_ref),
 *   x_k+1 = A x_k + B (u - u_ref), and holds y_k until t_k+1.  A sample instant
 *   at a communication point reads the inputs set there (its outputs follow
 *   them while the instant is due: direct feedthrough through D); one inside a
 *   step reads the inputs held over the step;
 * - PID (sample time Ts), e = reference - u at each sample instant:
 *   D_k = (tf D_k-1 + kd (e_k - e_k-1)) / (tf + Ts)   (backward Euler of kd s / (tf s + 1), no kick at k = 0)
 *   v_k = kp e_k + I_k + D_k,  y_k = min(max(v_k, u_min), u_max)
 *   I_k+1 = I_k + Ts (ki e_k + kt (y_k - v_k))        (forward Euler; back-calculation anti-windup)
 * - input shaper: y(t) = sum_i a_i u(t - tau_i), u being the input held between
 *   communication points (before the start time: the coefficient `initial`).
 *   A delay that is no multiple of the communication step takes the value held
 *   at t - tau_i, so an impulse reaches the output at the first communication
 *   point at or after it.
 */
#include <math.h>
#include <string.h>

#include "sb_linalg.h"
#include "sbc_runtime.h"

#define PADE_ORDER 6

int sbc_law_states(const SbcController *c)
{
    if (c->kind == SBC_LINEAR) return c->nx;
    if (c->kind == SBC_PID) return 4; /* integral, filtered derivative, last error, started */
    return 0;
}

double sbc_time_tolerance(const SbcInstance *inst)
{
    double scale = *inst->step;
    const double ts = inst->c->sample_time;
    if (ts > 0.0 && (scale == 0.0 || ts < scale)) scale = ts;
    return 1e-6 * scale + 1e-13 * fmax(1.0, fabs(*inst->time));
}

void sbc_law_changed(SbcInstance *inst) { inst->discrete_valid = 0; }

SbcStatus sbc_law_check(SbcInstance *inst, const char *function)
{
    const SbcController *c = inst->c;
    if (c->kind == SBC_PID && !(inst->coef[SBC_UMIN] <= inst->coef[SBC_UMAX]))
        return sbc_fail(inst, function, "the output limits are crossed: u_min = %g > u_max = %g", inst->coef[SBC_UMIN],
                        inst->coef[SBC_UMAX]);
    return SBC_OK;
}

/* A sample instant is due at the current time (its inputs are those set now). */
static int sample_due(const SbcInstance *inst)
{
    const double ts = inst->c->sample_time;
    return ts > 0.0 && *inst->start + *inst->next * ts <= *inst->time + sbc_time_tolerance(inst);
}

static int all_finite(int n, const double *v)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* linear laws                                                              */
/* ------------------------------------------------------------------------ */

typedef struct {
    const double *A, *B, *C, *D, *u_ref, *y_ref;
} Linear;

static Linear linear(const SbcInstance *inst)
{
    const SbcController *c = inst->c;
    const int nx = c->nx, nu = c->nu, ny = c->ny;
    Linear L;
    L.A = inst->coef;
    L.B = L.A + nx * nx;
    L.C = L.B + nx * nu;
    L.D = L.C + ny * nx;
    L.u_ref = L.D + ny * nu;
    L.y_ref = L.u_ref + nu;
    return L;
}

/* y = y_ref + C x + D du */
static void linear_output(const SbcController *c, const Linear *L, const double *x, const double *du, double *y)
{
    for (int i = 0; i < c->ny; ++i) {
        double s = L->y_ref[i];
        for (int j = 0; j < c->nx; ++j) s += L->C[i * c->nx + j] * x[j];
        for (int j = 0; j < c->nu; ++j) s += L->D[i * c->nu + j] * du[j];
        y[i] = s;
    }
}

/* xn = P x + Q du (P: nx x nx, Q: nx x nu) */
static void linear_update(const SbcController *c, const double *P, const double *Q, const double *x, const double *du,
                          double *xn)
{
    for (int i = 0; i < c->nx; ++i) {
        double s = 0.0;
        for (int j = 0; j < c->nx; ++j) s += P[i * c->nx + j] * x[j];
        for (int j = 0; j < c->nu; ++j) s += Q[i * c->nu + j] * du[j];
        xn[i] = s;
    }
}

static void deviation(const SbcInstance *inst, const Linear *L, double *du)
{
    for (int j = 0; j < inst->c->nu; ++j) du[j] = inst->in[j] - L->u_ref[j];
}

static void matmul(int n, const double *A, const double *B, double *C)
{
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k) s += A[i * n + k] * B[k * n + j];
            C[i * n + j] = s;
        }
}

/* E = exp(M) (n x n) by scaling and squaring of the (6,6) Pade approximant; work: 6 n^2 + n doubles.
   Returns 0 when the denominator is singular or a value is not finite. */
static int expm(int n, const double *M, double *E, double *work, int *piv)
{
    const int nn = n * n;
    double *S = work, *X = S + nn, *N = X + nn, *Q = N + nn, *T = Q + nn, *col = T + nn;
    double norm = 0.0;
    for (int i = 0; i < n; ++i) {
        double row = 0.0;
        for (int j = 0; j < n; ++j) row += fabs(M[i * n + j]);
        norm = fmax(norm, row);
    }
    if (!isfinite(norm)) return 0;
    int squarings = 0;
    if (norm > 0.5) squarings = (int)ceil(log2(norm / 0.5)); /* ||M / 2^s|| <= 1/2 */
    const double scale = ldexp(1.0, -squarings);
    for (int k = 0; k < nn; ++k) {
        S[k] = M[k] * scale;
        X[k] = N[k] = Q[k] = 0.0;
    }
    for (int i = 0; i < n; ++i) X[i * n + i] = N[i * n + i] = Q[i * n + i] = 1.0;
    double c = 1.0;
    for (int k = 1; k <= PADE_ORDER; ++k) {
        c *= (double)(PADE_ORDER - k + 1) / (double)(k * (2 * PADE_ORDER - k + 1));
        matmul(n, S, X, T);
        memcpy(X, T, (size_t)nn * sizeof(double));
        const double sign = (k % 2) ? -1.0 : 1.0;
        for (int m = 0; m < nn; ++m) {
            N[m] += c * X[m];
            Q[m] += sign * c * X[m];
        }
    }
    if (sb_lu_factor(n, Q, piv, piv + n, 0.0) < n) return 0;
    for (int j = 0; j < n; ++j) { /* E = Q^-1 N, column by column */
        for (int i = 0; i < n; ++i) col[i] = N[i * n + j];
        sb_lu_solve(n, Q, piv, piv + n, n, col, col);
        for (int i = 0; i < n; ++i) E[i * n + j] = col[i];
    }
    for (int s = 0; s < squarings; ++s) {
        matmul(n, E, E, T);
        memcpy(E, T, (size_t)nn * sizeof(double));
    }
    return all_finite(nn, E);
}

/* Ad, Bd of the zero-order-hold discretization with step h (cached while h and the coefficients stay). */
static SbcStatus discretize(SbcInstance *inst, const char *function, double h)
{
    if (inst->discrete_valid && inst->discrete_step == h) return SBC_OK;
    const SbcController *c = inst->c;
    const int nx = c->nx, nu = c->nu, n = nx + nu;
    const Linear L = linear(inst);
    double *M = inst->work, *E = M + n * n;
    memset(M, 0, (size_t)(n * n) * sizeof(double));
    for (int i = 0; i < nx; ++i) {
        for (int j = 0; j < nx; ++j) M[i * n + j] = L.A[i * nx + j] * h;
        for (int j = 0; j < nu; ++j) M[i * n + nx + j] = L.B[i * nu + j] * h;
    }
    if (!expm(n, M, E, E + n * n, inst->pivots))
        return sbc_fail(inst, function, "the zero-order-hold discretization over the step %g is not finite", h);
    for (int i = 0; i < nx; ++i) {
        for (int j = 0; j < nx; ++j) inst->Ad[i * nx + j] = E[i * n + j];
        for (int j = 0; j < nu; ++j) inst->Bd[i * nu + j] = E[i * n + nx + j];
    }
    inst->discrete_step = h;
    inst->discrete_valid = 1;
    return SBC_OK;
}

/* ------------------------------------------------------------------------ */
/* PID                                                                      */
/* ------------------------------------------------------------------------ */

/* The output of a sample with error e; with `commit`, the PID's state s moves on to the next sample. */
static double pid_sample(const double *k, double *s, double e, double ts, int commit)
{
    const double d = s[3] != 0.0 ? (k[SBC_TF] * s[1] + k[SBC_KD] * (e - s[2])) / (k[SBC_TF] + ts) : 0.0;
    const double v = k[SBC_KP] * e + s[0] + d;
    const double y = fmin(fmax(v, k[SBC_UMIN]), k[SBC_UMAX]);
    if (commit) {
        s[0] += ts * (k[SBC_KI] * e + k[SBC_KT] * (y - v));
        s[1] = d;
        s[2] = e;
        s[3] = 1.0;
    }
    return y;
}

/* ------------------------------------------------------------------------ */
/* input shaper                                                             */
/* ------------------------------------------------------------------------ */

static int impulses(const SbcController *c) { return (c->nc - 1) / 2; }

/* The input held at time s <= now: the value set at the last communication point at or before s. */
static double held_input(const SbcInstance *inst, double s, double tol)
{
    if (s >= *inst->time - tol) return inst->in[0];
    const int count = (int)*inst->count;
    for (int i = count - 1; i >= 0; --i)
        if (inst->history[2 * i] <= s + tol) return inst->history[2 * i + 1];
    return inst->coef[2 * impulses(inst->c)]; /* before the start time */
}

static double shaped(const SbcInstance *inst)
{
    const int n = impulses(inst->c);
    const double tol = sbc_time_tolerance(inst);
    double y = 0.0;
    for (int i = 0; i < n; ++i) y += inst->coef[i] * held_input(inst, *inst->time - inst->coef[n + i], tol);
    return y;
}

/* Remember the input held over [now, now + h) and forget what no delay reaches after the step. */
static SbcStatus shaper_step(SbcInstance *inst, const char *function, double h)
{
    const int n = impulses(inst->c);
    int count = (int)*inst->count;
    if (count == 0 || inst->history[2 * count - 1] != inst->in[0]) {
        if (sbc_history_reserve(inst, count + 1) != SBC_OK)
            return sbc_fail(inst, function, "out of memory for the input history");
        inst->history[2 * count] = *inst->time;
        inst->history[2 * count + 1] = inst->in[0];
        *inst->count = ++count;
    }
    double longest = 0.0;
    for (int i = 0; i < n; ++i) longest = fmax(longest, inst->coef[n + i]);
    const double cutoff = *inst->time + h - longest - sbc_time_tolerance(inst);
    int keep = 0; /* the last entry at or before the cutoff is still needed */
    while (keep + 1 < count && inst->history[2 * (keep + 1)] <= cutoff) ++keep;
    if (keep > 0) {
        memmove(inst->history, inst->history + 2 * keep, (size_t)(2 * (count - keep)) * sizeof(double));
        *inst->count = count - keep;
    }
    return SBC_OK;
}

/* ------------------------------------------------------------------------ */
/* outputs and steps                                                        */
/* ------------------------------------------------------------------------ */

SbcStatus sbc_law_outputs(SbcInstance *inst, const char *function, double *y)
{
    const SbcController *c = inst->c;
    if (c->kind == SBC_SHAPER) {
        y[0] = shaped(inst);
    } else if (c->sample_time > 0.0 && !sample_due(inst)) {
        memcpy(y, inst->held, (size_t)c->ny * sizeof(double));
    } else if (c->kind == SBC_PID) {
        if (sbc_law_check(inst, function) != SBC_OK) return SBC_ERROR;
        double s[4];
        memcpy(s, inst->x, sizeof s);
        y[0] = pid_sample(inst->coef, s, inst->coef[SBC_REF] - inst->in[0], c->sample_time, 0);
    } else {
        const Linear L = linear(inst);
        double du[64];
        if (c->nu > 64) return sbc_fail(inst, function, "more than 64 inputs");
        deviation(inst, &L, du);
        linear_output(c, &L, inst->x, du, y);
    }
    if (!all_finite(c->ny, y)) return sbc_fail(inst, function, "an output of '%s' is not finite at t = %g", c->name, *inst->time);
    return SBC_OK;
}

/* The samples of a discrete law whose instants lie in [now, now + h), on copies committed when all are finite. */
static SbcStatus sample_over(SbcInstance *inst, const char *function, double h)
{
    const SbcController *c = inst->c;
    const double ts = c->sample_time, end = *inst->time + h - sbc_time_tolerance(inst);
    double x[64], xn[64], y[64], du[64];
    if (inst->ns > 64 || c->ny > 64 || c->nu > 64) return sbc_fail(inst, function, "more than 64 states or signals");
    memcpy(x, inst->x, (size_t)inst->ns * sizeof(double));
    memcpy(y, inst->held, (size_t)c->ny * sizeof(double));
    double next = *inst->next;
    const Linear L = linear(inst);
    if (c->kind == SBC_LINEAR) deviation(inst, &L, du);
    while (*inst->start + next * ts < end) {
        if (c->kind == SBC_PID) {
            y[0] = pid_sample(inst->coef, x, inst->coef[SBC_REF] - inst->in[0], ts, 1);
        } else {
            linear_output(c, &L, x, du, y);
            linear_update(c, L.A, L.B, x, du, xn);
            memcpy(x, xn, (size_t)c->nx * sizeof(double));
        }
        next += 1.0;
    }
    if (!all_finite(inst->ns, x) || !all_finite(c->ny, y))
        return sbc_fail(inst, function, "the state of '%s' is no longer finite after t = %g", c->name, *inst->time);
    memcpy(inst->x, x, (size_t)inst->ns * sizeof(double));
    memcpy(inst->held, y, (size_t)c->ny * sizeof(double));
    *inst->next = next;
    return SBC_OK;
}

SbcStatus sbc_law_step(SbcInstance *inst, const char *function, double h)
{
    const SbcController *c = inst->c;
    if (c->kind == SBC_SHAPER) return shaper_step(inst, function, h);
    if (c->sample_time > 0.0) return sample_over(inst, function, h);
    if (c->nx == 0) return SBC_OK; /* a static gain */
    if (discretize(inst, function, h) != SBC_OK) return SBC_ERROR;
    const Linear L = linear(inst);
    double du[64], xn[64];
    if (c->nx > 64 || c->nu > 64) return sbc_fail(inst, function, "more than 64 states or inputs");
    deviation(inst, &L, du);
    linear_update(c, inst->Ad, inst->Bd, inst->x, du, xn);
    if (!all_finite(c->nx, xn))
        return sbc_fail(inst, function, "the state of '%s' is no longer finite after t = %g", c->name, *inst->time);
    memcpy(inst->x, xn, (size_t)c->nx * sizeof(double));
    return SBC_OK;
}
