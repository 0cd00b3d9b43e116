/*
 * sb_rk4.c -- classic Runge-Kutta 4 with a fixed internal step for the Co-Simulation interface
 * (solver.method = 1; see sb_solver.h), with its checks at no extra evaluation: stability, trust in
 * the step and finiteness of the state.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sb_internal.h"
#include "sb_solver.h"

/* Stability of classic RK4 (E. Hairer, G. Wanner, "Solving Ordinary Differential Equations II", 1996,
   IV.2): |h lambda| <= 2.785 on the negative real axis, 2.828 on the imaginary axis.  A step whose
   estimate of h |lambda| exceeds SB_RK4_UNSTABLE, confirmed by the Jacobian at the start of the step,
   is unstable: its errors grow at every step. */
#define SB_RK4_UNSTABLE 3.0
/* An rk4 step is not trustworthy when its error estimate (rk4_error) exceeds this part of the size of
   a coordinate: a step across a singular instant of the forces (a point mass falling into an
   attracting centre) or a motion far faster than solver.step resolves. */
#define SB_RK4_UNTRUSTED 0.01
#define SB_RK4_SIZE_FLOOR 1e-3 /* a coordinate's size is at least this part of the largest (one at rest at 0) */

/* The rare paths of a step (its messages) are laid out away from the hot loop. */
#if defined(__GNUC__)
#define SB_COLD __attribute__((cold, noinline))
#define SB_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define SB_COLD
#define SB_LIKELY(x) (x)
#endif

#define RK4_ADVICE "set a smaller solver.step, or solver.method = 2 (dopri5) or 3 (rosenbrock23, for stiff models)"

/* Stability of an rk4 step from its stages, at no extra evaluation: for x' = J x the stage differences
   are k2 - k1 = (h/2) J k1 and k3 - k2 = (h/2) J (k2 - k1), so |k3 - k2| / |k2 - k1| estimates
   (h/2) |lambda| of the motion that dominates them, the fastest excited one.  It can exceed the spectral
   radius by far: |J v| / |v| is bounded by the norm of J, not by its largest |lambda|, and the Jacobian of a
   chain of relative coordinates is strongly non-normal (its norm a hundred times its spectral radius).  A
   large estimate is therefore checked by power iteration on J at the start y of the step (difference
   quotients, where no switch of the forces intervenes): the mean growth per iteration of |J^k u| over the
   later iterations converges to the spectral radius whatever the non-normality.  It starts from the
   direction of the last estimate (where the fastest mode was) with k2 - k1 mixed in (what is excited now),
   and an estimate that clears the step stands for SB_RK4_RECHECK flagged steps of a communication step.
   Normal models never pay for it.  The two sums come from the loop that forms the last stage's point
   (rk4_last_point), which reads k1, k2 and k3 anyway. */
typedef struct {
    double num, den; /* |k3 - k2|^2, |k2 - k1|^2 */
} Rk4Sums;

#define SB_RK4_POWER_MIN 8  /* (multiples of 4) power iterations before an estimate may clear a step */
#define SB_RK4_POWER_MAX 48 /* power iterations before an estimate refuses one */
#define SB_RK4_RECHECK 16   /* flagged steps an estimate that cleared the step stands for */

/* The stages k1..k4 of an rk4 step and the point of the last one; on the stack of the step loop for up
   to 8 coordinates (their addresses are then constants of the frame, not reloaded after every call to
   model.c), else the solver's buffers. */
typedef struct {
    double *k[4], *yt;
} Rk4Stages;

/* The spectral radius of J = df/dx at (t, y) (f = k1 there) by power iteration from w->rk4_dir, updated:
   the geometric mean of the growth |J u| / |u| over the later half of the iterations, from SB_RK4_POWER_MIN
   iterations on until h times it is within SB_RK4_UNSTABLE, at most SB_RK4_POWER_MAX.  0 when an evaluation
   fails or J u vanishes (nothing confirmed: the step itself shows what happens). */
static double rk4_spectral_radius(SbInstance *inst, double t, double hh, const double *y, const double *k1)
{
    SbSolver *w = inst->solver;
    const int nx = w->nx;
    double *u = w->rk4_dir, ynorm = 0.0, un = 0.0, logs[SB_RK4_POWER_MAX];
    for (int j = 0; j < nx; ++j) ynorm += y[j] * y[j], un += u[j] * u[j];
    const double eps = 1e-7 * (1.0 + sqrt(ynorm));
    double radius = 0.0;
    for (int it = 0; it < SB_RK4_POWER_MAX; ++it) {
        un = sqrt(un);
        for (int j = 0; j < nx; ++j) w->y1[j] = y[j] + eps * u[j] / un;
        if (sb_derivatives(inst, t, w->y1, w->err) != SB_OK) return w->rk4_dir_set = 0, 0.0;
        double jv = 0.0;
        for (int j = 0; j < nx; ++j) {
            u[j] = (w->err[j] - k1[j]) / eps; /* J u / |u| */
            jv += u[j] * u[j];
        }
        if (!(jv > 0.0) || !isfinite(jv)) return w->rk4_dir_set = 0, 0.0;
        logs[it] = 0.5 * log(jv);
        un = jv;
        /* windows of even length: exact for an oscillator, whose |J u| alternates between its q and dq */
        if (it + 1 < SB_RK4_POWER_MIN || (it + 1) % 4) continue;
        double sum = 0.0;
        for (int i = (it + 1) / 2; i <= it; ++i) sum += logs[i];
        radius = exp(sum / (double)((it + 1) / 2));
        if (!(hh * radius > SB_RK4_UNSTABLE)) break;
    }
    un = sqrt(un);
    for (int j = 0; j < nx; ++j) u[j] /= un; /* a unit direction, as the next start expects */
    w->rk4_dir_set = 1;
    return radius;
}

/* The rare part of rk4_stability: confirm the estimate at the start of the step (k1, k2: its stages). */
SB_COLD static SbStatus rk4_unstable(SbInstance *inst, double t, double hh, const double *y, const double *k1,
                             const double *k2, const Rk4Sums *sums)
{
    SbSolver *w = inst->solver;
    double f = 0.0; /* |k1|^2 */
    for (int j = 0; j < w->nx; ++j) f += k1[j] * k1[j];
    if (!(sums->den > 1e-20 * f)) return SB_OK; /* differences at the level of rounding errors say nothing */
    if (w->rk4_left > 0 && hh * w->rk4_radius <= SB_RK4_UNSTABLE) {
        --w->rk4_left;
        return SB_OK;
    }
    /* the start: the last direction (unit) with a tenth of the unit k2 - k1 */
    const double mix = 1.0 / sqrt(sums->den);
    for (int j = 0; j < w->nx; ++j)
        w->rk4_dir[j] = (w->rk4_dir_set ? w->rk4_dir[j] + 0.1 * mix * (k2[j] - k1[j]) : mix * (k2[j] - k1[j]));
    char why[sizeof inst->problem];
    memcpy(why, inst->problem, sizeof why);
    const double lambda = rk4_spectral_radius(inst, t, hh, y, k1);
    memcpy(inst->problem, why, sizeof why);
    w->rk4_radius = lambda;
    w->rk4_left = SB_RK4_RECHECK;
    if (!(hh * lambda > SB_RK4_UNSTABLE)) return SB_OK;
    snprintf(inst->problem, sizeof inst->problem,
             "rk4 is unstable at t = %.17g: solver.step = %g is beyond its stability limit for the model's "
             "fastest motion (|lambda| ~ %.3g 1/s needs solver.step < %.3g); %s",
             t, hh, lambda, 2.78 / lambda, RK4_ADVICE);
    return SB_DISCARD;
}

/* 2 sqrt(num / den) > SB_RK4_UNSTABLE without a division or a square root (den > 0) */
static inline SbStatus rk4_stability(SbInstance *inst, double t, double hh, const double *y, const double *k1,
                                     const double *k2, const Rk4Sums *sums)
{
    const double num = sums->num, den = sums->den;
    if (!(den > 0.0) || !(4.0 * num > SB_RK4_UNSTABLE * SB_RK4_UNSTABLE * den)) return SB_OK;
    return rk4_unstable(inst, t, hh, y, k1, k2, sums);
}

/* The kernels of an rk4 step are instantiated with a constant number of coordinates (cranes and small
   mechanisms, up to 8): forced inline where the compiler allows, so that their loops unroll */
#if defined(__GNUC__)
#define SB_HOT static inline __attribute__((always_inline))
#else
#define SB_HOT static inline
#endif

/* C99's restrict (MSVC spells it __restrict): the stages, the state and the stage point never overlap */
#if defined(_MSC_VER)
#define SB_RESTRICT __restrict
#else
#define SB_RESTRICT restrict
#endif

/* max(a, b) of finite numbers (libm's fmax is a call) */
static inline double max_of(double a, double b) { return a > b ? a : b; }

/* The message of a step rk4_update does not trust (rare: out of the hot loop). */
SB_COLD static SbStatus rk4_untrusted(SbInstance *inst, double t, double hh, const double *y, const double *y4, double big)
{
    const int n = inst->m->nq;
    const double floor = SB_RK4_SIZE_FLOOR * big + inst->state.set[SB_SET_ATOL];
    double ratio = 0.0; /* the worst coordinate by its ratio, for the message */
    int at = 0;
    for (int j = 0; j < n; ++j) {
        const double e = fabs(hh * (y[n + j] - y4[n + j])) / 6.0, r = e / (fabs(y[j]) + floor);
        if (r > ratio) ratio = r, at = j;
    }
    snprintf(inst->problem, sizeof inst->problem,
             "the rk4 step from t = %.17g (h = %g) is not trustworthy: its error estimate is %.3g of the size of "
             "coordinate '%s' (the motion changes faster than solver.step resolves, e.g. close to a singular "
             "point of the forces); %s",
             t, hh, ratio, inst->m->coordinate_names[at], RK4_ADVICE);
    return SB_DISCARD;
}

/* The rk4 update y <- y + hh (k1 + 2 k2 + 2 k3 + k4) / 6 with an error estimate of the step at no
   extra evaluation.  With f(y1), the first stage of the next step, y + hh (k1 + 2 k2 + 2 k3 + f(y1)) / 6
   is a solution of order three (it meets the order conditions up to three with the stages of rk4);
   it differs from rk4's by hh (f(y1) - k4) / 6, an estimate of its local error that overestimates
   rk4's own.  Its position part needs no evaluation: hh (dq1 - dq4) / 6, dq1 the new velocities and
   dq4 = dq + hh dq'_3 those where k4 was evaluated (still in ytmp).  Compared with the size of each
   coordinate over the step (at least SB_RK4_SIZE_FLOOR of the largest coordinate and its travel,
   plus atol); the velocity part is not used, as a switch of the forces inside the step (dry friction,
   a contact) changes the velocities' slopes but the positions little.  SB_DISCARD with the advice
   when the estimate exceeds SB_RK4_UNTRUSTED of that size (the caller restores the state).
   The same loop checks that the new state is finite (an infinity or a NaN turns the sum of the
   entries times zero into a NaN): a state that is not finite is discarded first, with its message. */
SB_HOT SbStatus rk4_update(SbInstance *inst, const int n, double t, double hh, double *SB_RESTRICT y,
                           const Rk4Stages *st)
{
    const double *SB_RESTRICT k1 = st->k[0], *SB_RESTRICT k2 = st->k[1];
    const double *SB_RESTRICT k3 = st->k[2], *SB_RESTRICT k4 = st->k[3];
    const double *SB_RESTRICT y4 = st->yt; /* the point of the last stage */
    const double h6 = hh / 6.0;
    double big = 0.0, worst = 0.0, zero = 0.0; /* worst: the largest excess of an estimate over its 1 % */
    for (int j = 0; j < n; ++j) {
        const int v = n + j;
        const double q0 = y[j];
        y[j] += h6 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]);
        y[v] += h6 * (k1[v] + 2.0 * k2[v] + 2.0 * k3[v] + k4[v]);
        zero += y[j] * 0.0 + y[v] * 0.0; /* stays 0 while the state is finite */
        const double e = fabs(h6 * (y[v] - y4[v])), size = max_of(fabs(q0), fabs(y[j]));
        big = max_of(big, size + fabs(hh * y[v]));
        worst = max_of(worst, e - SB_RK4_UNTRUSTED * size); /* no branch: near 0 a coordinate flips it */
    }
    if (zero != 0.0) {
        snprintf(inst->problem, sizeof inst->problem,
                 "the state is not finite after the rk4 step from t = %.17g (h = %g): %s", t, hh, RK4_ADVICE);
        return SB_DISCARD;
    }
    /* the largest excess over SB_RK4_UNTRUSTED of a coordinate's own size, against the floor */
    if (!(worst > SB_RK4_UNTRUSTED * (SB_RK4_SIZE_FLOOR * big + inst->state.set[SB_SET_ATOL]))) return SB_OK;
    return rk4_untrusted(inst, t, hh, y, y4, big);
}

/* The point of a stage, yt = y + c k, and the position part of its derivative (the velocities of
   yt) written into the next stage's kn on the way: no separate copy per evaluation. */
SB_HOT void rk4_point(const int n, double *SB_RESTRICT yt, double *SB_RESTRICT kn, const double *SB_RESTRICT y,
                      double c, const double *SB_RESTRICT k)
{
    for (int j = 0; j < n; ++j) yt[j] = y[j] + c * k[j];
    for (int j = n; j < 2 * n; ++j) kn[j - n] = yt[j] = y[j] + c * k[j];
}

/* The last stage's point, with the sums of the stability estimate over k1, k2 and k3. */
SB_HOT void rk4_last_point(const int n, double *SB_RESTRICT yt, double *SB_RESTRICT kn, const double *SB_RESTRICT y,
                           double h, double *const *k, Rk4Sums *sums)
{
    const double *SB_RESTRICT k1 = k[0], *SB_RESTRICT k2 = k[1], *SB_RESTRICT k3 = k[2];
    double num = 0.0, den = 0.0;
    for (int j = 0; j < 2 * n; ++j) {
        const double d21 = k2[j] - k1[j], d32 = k3[j] - k2[j];
        num += d32 * d32;
        den += d21 * d21;
        yt[j] = y[j] + h * k3[j];
    }
    for (int j = 0; j < n; ++j) kn[j] = yt[n + j];
    sums->num = num, sums->den = den;
}

/* How the stages of rk4 get their accelerations: in closed form from model.c (unconstrained models whose
   equations carry them), by the lean factorization of M (other models without constraints or
   contacts), or by sb_accelerations (the rest). */
enum { RK4_GENERAL, RK4_LEAN, RK4_DIRECT };

/* ddq of a stage in closed form straight into kv + n: one call to model.c, which checks its pivots and
   the result (symbody_model.h, sb_direct_valid).  When they do not hold, sb_accelerations at the same
   point factors M and names what failed. */
SB_HOT SbStatus rk4_direct(SbInstance *inst, const int n, SbPoint *pt, double t, const double *x, double *kv)
{
    pt->t = t, pt->q = x, pt->dq = x + n;
    return SB_LIKELY(sb_accelerations_direct(pt, kv + n)) ? SB_OK : sb_accelerations(inst, t, x, kv + n, NULL);
}

/* ddq of a stage into kv + n (its velocities are already in kv): models without constraints or
   contacts take the direct or the lean evaluation, whose result is checked here (a NaN or an infinity
   makes the sum non-finite; sb_accelerations at the same point then names the entry at fault). */
SB_HOT SbStatus rk4_accelerations(SbInstance *inst, const int n, int path, SbPoint *pt, double t, const double *x,
                                  double *kv)
{
    if (path == RK4_DIRECT) return rk4_direct(inst, n, pt, t, x, kv);
    if (path == RK4_GENERAL) return sb_accelerations(inst, t, x, kv + n, NULL);
    SbStatus s = n >= 1 && n <= 8 ? sb_free_accelerations_small(inst, n, t, x, kv + n)
                                  : sb_free_accelerations(inst, t, x, kv + n);
    double sum = 0.0;
    for (int j = n; j < 2 * n; ++j) sum += kv[j];
    return s != SB_OK || isfinite(sum) ? s : sb_accelerations(inst, t, x, kv + n, NULL);
}

/* The N internal steps of rk4 over [t0, tend] for n coordinates and the evaluation path (constants where
   inlined: each instance is one compact loop). */
SB_HOT SbStatus rk4_steps(SbInstance *inst, const int n, const int path, double t0, double tend, long N)
{
    SbSolver *w = inst->solver;
    double *y = inst->state.x;
    double local[5 * 16]; /* the stages of up to 8 coordinates, packed: few cache lines of the stack */
    const int small = n <= 8, nx = 2 * n;
    const Rk4Stages st = {{small ? local : w->k[0], small ? local + nx : w->k[1], small ? local + 2 * nx : w->k[2],
                           small ? local + 3 * nx : w->k[3]},
                          small ? local + 4 * nx : w->ytmp};
    double *const k1 = st.k[0], *const k2 = st.k[1], *const k3 = st.k[2], *const k4 = st.k[3], *const yt = st.yt;
    const double H = tend - t0;
    SbPoint pt = sb_point(inst, t0, y, NULL, NULL);
    /* The first stage is f at the state the last communication step ended with: where nothing was set
       since, the instance's cache holds its accelerations from that step's final check (check_result), by
       the same function of model.c: they are taken as they are (one evaluation less per step). */
    int first_known = path == RK4_DIRECT && inst->cache.valid && inst->cache.status == SB_OK &&
                      t0 == *inst->state.time;
    Rk4Sums sums;
    for (long i = 0; i < N; ++i) {
        const double t = t0 + H * (double)i / (double)N;
        const double hh = (i == N - 1 ? tend : t0 + H * (double)(i + 1) / (double)N) - t;
        for (int j = 0; j < n; ++j) k1[j] = y[n + j];
        SbStatus s = SB_OK;
        if (first_known) {
            for (int j = 0; j < n; ++j) k1[n + j] = inst->cache.ddq[j];
            first_known = 0;
        } else
            s = rk4_accelerations(inst, n, path, &pt, t, y, k1);
        if (s == SB_OK) {
            rk4_point(n, yt, k2, y, 0.5 * hh, k1);
            s = rk4_accelerations(inst, n, path, &pt, t + 0.5 * hh, yt, k2);
        }
        if (s == SB_OK) {
            rk4_point(n, yt, k3, y, 0.5 * hh, k2);
            s = rk4_accelerations(inst, n, path, &pt, t + 0.5 * hh, yt, k3);
        }
        if (s == SB_OK) {
            rk4_last_point(n, yt, k4, y, hh, st.k, &sums);
            s = rk4_accelerations(inst, n, path, &pt, t + hh, yt, k4);
        }
        if (s != SB_OK) return s;
        if ((s = rk4_stability(inst, t, hh, y, k1, k2, &sums)) != SB_OK) return s;
        if ((s = rk4_update(inst, n, t, hh, y, &st)) != SB_OK) return s;
        if (sb_projecting(inst) && (s = sb_project(inst, t + hh, y)) != SB_OK) return s;
        w->t_reached = t + hh;
    }
    return SB_OK;
}

/* The N internal steps of rk4 for models with first-order states: the stages from sb_derivatives over the whole
   state [q; dq; xs], the same checks (stability, trust in the step from the positions, finiteness). */
static SbStatus rk4_with_states(SbInstance *inst, double t0, double tend, long N)
{
    SbSolver *w = inst->solver;
    const int n = inst->m->nq, nx = w->nx;
    double *y = inst->state.x, *const *k = w->k, *yt = w->ytmp;
    const double H = tend - t0;
    for (long i = 0; i < N; ++i) {
        const double t = t0 + H * (double)i / (double)N;
        const double hh = (i == N - 1 ? tend : t0 + H * (double)(i + 1) / (double)N) - t;
        SbStatus s = sb_derivatives(inst, t, y, k[0]);
        for (int j = 0; j < nx && s == SB_OK; ++j) yt[j] = y[j] + 0.5 * hh * k[0][j];
        if (s == SB_OK) s = sb_derivatives(inst, t + 0.5 * hh, yt, k[1]);
        for (int j = 0; j < nx && s == SB_OK; ++j) yt[j] = y[j] + 0.5 * hh * k[1][j];
        if (s == SB_OK) s = sb_derivatives(inst, t + 0.5 * hh, yt, k[2]);
        Rk4Sums sums = {0.0, 0.0};
        for (int j = 0; j < nx && s == SB_OK; ++j) {
            const double d21 = k[1][j] - k[0][j], d32 = k[2][j] - k[1][j];
            sums.num += d32 * d32, sums.den += d21 * d21;
            yt[j] = y[j] + hh * k[2][j];
        }
        if (s == SB_OK) s = sb_derivatives(inst, t + hh, yt, k[3]);
        if (s != SB_OK) return s;
        if ((s = rk4_stability(inst, t, hh, y, k[0], k[1], &sums)) != SB_OK) return s;
        /* the first-order states by the rk4 formula; q and dq by rk4_update with its checks */
        for (int j = 2 * n; j < nx; ++j) y[j] += hh / 6.0 * (k[0][j] + 2.0 * k[1][j] + 2.0 * k[2][j] + k[3][j]);
        const Rk4Stages st = {{k[0], k[1], k[2], k[3]}, yt};
        if ((s = rk4_update(inst, n, t, hh, y, &st)) != SB_OK) return s;
        if (!sb_all_finite(nx, y)) {
            snprintf(inst->problem, sizeof inst->problem,
                     "the state is not finite after the rk4 step from t = %.17g (h = %g): %s", t, hh, RK4_ADVICE);
            return SB_DISCARD;
        }
        if (sb_projecting(inst) && (s = sb_project(inst, t + hh, y)) != SB_OK) return s;
        w->t_reached = t + hh;
    }
    return SB_OK;
}

/* rk4_steps on one evaluation path, instantiated for n = 1..8 (constants: their loops unrolled) and any n */
#define RK4_BY_SIZE(path)                                                                                              \
    switch (m->nq) {                                                                                                   \
    case 1: return rk4_steps(inst, 1, path, t0, tend, N);                                                              \
    case 2: return rk4_steps(inst, 2, path, t0, tend, N);                                                              \
    case 3: return rk4_steps(inst, 3, path, t0, tend, N);                                                              \
    case 4: return rk4_steps(inst, 4, path, t0, tend, N);                                                              \
    case 5: return rk4_steps(inst, 5, path, t0, tend, N);                                                              \
    case 6: return rk4_steps(inst, 6, path, t0, tend, N);                                                              \
    case 7: return rk4_steps(inst, 7, path, t0, tend, N);                                                              \
    case 8: return rk4_steps(inst, 8, path, t0, tend, N);                                                              \
    default: return rk4_steps(inst, m->nq, path, t0, tend, N);                                                         \
    }

SbStatus sb_rk4(SbInstance *inst, double t0, double tend)
{
    const double H = tend - t0, h = inst->state.set[SB_SET_STEP];
    double nd = ceil(H / h * (1.0 - 1e-12));
    if (nd < 1.0) nd = 1.0;
    if (nd > (double)SB_MAX_STEPS) { /* a shorter communication step (or a larger solver.step) will do */
        snprintf(inst->problem, sizeof inst->problem,
                 "solver.step = %g needs more than %ld internal steps for a communication step of %g", h, SB_MAX_STEPS,
                 H);
        return SB_DISCARD;
    }
    const long N = (long)nd;
    const SbModel *m = inst->m;
    if (m->ns > 0) return rk4_with_states(inst, t0, tend, N);
    const int path = m->nc > 0 || SB_CONTACTS(m) > 0 ? RK4_GENERAL : m->has_direct ? RK4_DIRECT : RK4_LEAN;
    /* the same operations for any n: the results are bit-identical */
    if (path == RK4_DIRECT) RK4_BY_SIZE(RK4_DIRECT)
    if (path == RK4_LEAN) RK4_BY_SIZE(RK4_LEAN)
    return rk4_steps(inst, m->nq, RK4_GENERAL, t0, tend, N);
}

