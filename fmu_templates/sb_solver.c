/*
 * sb_solver.c -- Dormand-Prince 5(4) and Rosenbrock 2(3) for the Co-Simulation
 * interface, the communication step and its checks (see sb_solver.h; rk4 is in sb_rk4.c).
 *
 * The integrated ODE is x' = [dq; ddq(q, dq, u, xs, t); rates] with the Baumgarte-
 * stabilized accelerations of sb_accelerations and the rates of the first-order
 * states xs; inside a communication step the inputs are the polynomials of
 * symbody_model.h (a motion input z + dz tau + ddz tau^2 / 2), constants otherwise.  Step size control of the adaptive methods uses the
 * weighted RMS norm with weights atol + rtol max(|y0|, |y1|) (Hairer, Norsett,
 * Wanner, Solving ODEs I, II.4).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_events.h"
#include "sb_internal.h"
#include "sb_linalg.h"
#include "sb_solver.h"

#define SB_MAX_RETRIES 10       /* the same discarded step asked for in a row before the FMU gives up */

SbStatus sb_solver_alloc(SbInstance *inst)
{
    const int nx = sb_nx(inst->m);
    SbSolver *w = calloc(1, sizeof *w);
    if (!w) return SB_ERROR;
    inst->solver = w;
    w->nx = nx;
    const size_t v = (size_t)(nx > 0 ? nx : 1) * sizeof(double);
    int ok = 1;
    for (int i = 0; i < 7; ++i) ok &= (w->k[i] = malloc(v)) != NULL;
    ok &= (w->y1 = malloc(v)) != NULL;
    ok &= (w->ytmp = malloc(v)) != NULL;
    ok &= (w->err = malloc(v)) != NULL;
    ok &= (w->T = malloc(v)) != NULL;
    ok &= (w->F0 = malloc(v)) != NULL;
    ok &= (w->F1 = malloc(v)) != NULL;
    ok &= (w->F2 = malloc(v)) != NULL;
    ok &= (w->J = malloc(v * (size_t)(nx > 0 ? nx : 1))) != NULL;
    ok &= (w->W = malloc(v * (size_t)(nx > 0 ? nx : 1))) != NULL;
    ok &= (w->wrow = malloc((size_t)(nx > 0 ? nx : 1) * sizeof(int))) != NULL;
    ok &= (w->wcol = malloc((size_t)(nx > 0 ? nx : 1) * sizeof(int))) != NULL;
    ok &= (w->backup = malloc((size_t)inst->state.nS * sizeof(double))) != NULL;
    ok &= (w->rk4_dir = malloc(v)) != NULL;
    return ok ? SB_OK : SB_ERROR;
}

void sb_solver_free(SbInstance *inst)
{
    SbSolver *w = inst->solver;
    if (!w) return;
    for (int i = 0; i < 7; ++i) free(w->k[i]);
    free(w->y1);
    free(w->ytmp);
    free(w->err);
    free(w->T);
    free(w->F0);
    free(w->F1);
    free(w->F2);
    free(w->J);
    free(w->W);
    free(w->wrow);
    free(w->wcol);
    free(w->backup);
    free(w->rk4_dir);
    free(w);
    inst->solver = NULL;
}


/* ytmp = y + h * sum_i a[i] k[i] */
static void combine(int nx, double *out, const double *y, double h, int nk, const double *a, double *const *k)
{
    for (int j = 0; j < nx; ++j) {
        double s = 0.0;
        for (int i = 0; i < nk; ++i)
            if (a[i] != 0.0) s += a[i] * k[i][j];
        out[j] = y[j] + h * s;
    }
}

static double error_norm(const SbInstance *inst, int nx, const double *err, const double *y0, const double *y1)
{
    const double rtol = inst->state.set[SB_SET_RTOL], atol = inst->state.set[SB_SET_ATOL];
    double s = 0.0;
    for (int i = 0; i < nx; ++i) {
        double sc = atol + rtol * fmax(fabs(y0[i]), fabs(y1[i]));
        double e = err[i] / sc;
        s += e * e;
    }
    return nx > 0 ? sqrt(s / nx) : 0.0;
}

static double max_step(const SbInstance *inst)
{
    double h = inst->state.set[SB_SET_MAX_STEP];
    return h > 0.0 ? h : INFINITY;
}

/* Starting step size (Hairer, Norsett, Wanner, II.4, algorithm of the code DOPRI5). */
static double initial_step(SbInstance *inst, double t, const double *y, const double *f0, int order, double span)
{
    SbSolver *w = inst->solver;
    const int nx = w->nx;
    const double rtol = inst->state.set[SB_SET_RTOL], atol = inst->state.set[SB_SET_ATOL];
    double d0 = 0.0, d1 = 0.0;
    for (int i = 0; i < nx; ++i) {
        double sc = atol + rtol * fabs(y[i]);
        d0 += (y[i] / sc) * (y[i] / sc);
        d1 += (f0[i] / sc) * (f0[i] / sc);
    }
    d0 = sqrt(d0 / nx);
    d1 = sqrt(d1 / nx);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    h0 = fmin(h0, fmin(span, max_step(inst)));
    for (int i = 0; i < nx; ++i) w->ytmp[i] = y[i] + h0 * f0[i];
    if (sb_derivatives(inst, t + h0, w->ytmp, w->err) != SB_OK) return h0;
    double d2 = 0.0;
    for (int i = 0; i < nx; ++i) {
        double sc = atol + rtol * fabs(y[i]);
        double e = (w->err[i] - f0[i]) / sc;
        d2 += e * e;
    }
    d2 = sqrt(d2 / nx) / h0;
    double dm = fmax(d1, d2);
    double h1 = dm <= 1e-15 ? fmax(1e-6, h0 * 1e-3) : pow(0.01 / dm, 1.0 / (order + 1));
    return fmin(fmin(100.0 * h0, h1), fmin(span, max_step(inst)));
}

/* ------------------------------------------------------------------------ */
/* Dormand-Prince 5(4)                                                      */
/* ------------------------------------------------------------------------ */

static const double DP_C[7] = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};
static const double DP_A[7][6] = {
    {0},
    {1.0 / 5.0},
    {3.0 / 40.0, 9.0 / 40.0},
    {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0},
    {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0},
    {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0},
    {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0}};
/* error estimate: difference of the 5th and 4th order weights */
static const double DP_E[7] = {71.0 / 57600.0, 0.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0,
                               22.0 / 525.0,   -1.0 / 40.0};

/* Discard after SB_MAX_STEPS internal steps: the host may retry with a shorter communication step. */
static SbStatus too_many_steps(SbInstance *inst, const char *solver, double t)
{
    snprintf(inst->problem, sizeof inst->problem, "%s needed more than %ld internal steps (t = %.17g)", solver,
             SB_MAX_STEPS, t);
    return SB_DISCARD;
}

/* Whether a step of size hs from t went too close to a singular instant for its length: the evaluations
   of its stages (reset before them) allow steps of inst->dyn.step_cap there (sb_passage.c).  Then *h is
   the size to retry with. */
static int too_long_for_passage(SbInstance *inst, const char *solver, double t, double hs, double *h)
{
    if (!(hs > inst->dyn.step_cap)) return 0;
    *h = 0.8 * inst->dyn.step_cap;
    sb_log(inst, SB_OK, SB_LOG_SOLVER, "%s: step at t = %.17g shortened to %g next to a singular position", solver, t,
           *h);
    return 1;
}

static SbStatus dopri5(SbInstance *inst, double t, double tend)
{
    /* what is left of the step when it is done: rounding of tend, but never the whole of a tiny step */
    const double tiny = fmin(1e-13 * fmax(1.0, fabs(tend)), 1e-3 * (tend - t));
    SbSolver *w = inst->solver;
    const int nx = w->nx;
    double *y = inst->state.x, **k = w->k;
    double h = *inst->state.h_next;
    int need_k1 = 1, rejected = 0;
    long count = 0;
    SbStatus s;
    while (tend - t > tiny) {
        if (++count > SB_MAX_STEPS) return too_many_steps(inst, "dopri5", t);
        if (need_k1) {
            if ((s = sb_derivatives(inst, t, y, k[0])) != SB_OK) return s;
            need_k1 = 0;
        }
        if (!(h > 0.0)) h = initial_step(inst, t, y, k[0], 4, tend - t);
        const double hprop = fmin(h, max_step(inst));
        double hs = hprop;
        int last = 0;
        if (t + hs >= tend - tiny) {
            hs = tend - t;
            last = 1;
        }
        s = SB_OK;
        inst->dyn.step_cap = INFINITY;
        for (int st = 1; st < 7 && s == SB_OK; ++st) {
            double *out = st == 6 ? w->y1 : w->ytmp;
            combine(nx, out, y, hs, st, DP_A[st], k);
            s = sb_derivatives(inst, t + DP_C[st] * hs, out, k[st]);
        }
        double errn = INFINITY;
        if (s == SB_OK && too_long_for_passage(inst, "dopri5", t, hs, &h)) {
            rejected = 1;
            continue;
        }
        if (s == SB_OK) {
            for (int j = 0; j < nx; ++j) {
                double e = 0.0;
                for (int i = 0; i < 7; ++i) e += DP_E[i] * k[i][j];
                w->err[j] = hs * e;
            }
            errn = error_norm(inst, nx, w->err, y, w->y1);
        }
        if (errn <= 1.0) { /* accept */
            t = last ? tend : t + hs;
            memcpy(y, w->y1, (size_t)nx * sizeof(double));
            double *tmp = k[0]; /* first same as last */
            k[0] = k[6];
            k[6] = tmp;
            if (sb_projecting(inst)) {
                if ((s = sb_project(inst, t, y)) != SB_OK) return s;
                need_k1 = 1;
            }
            double fac = errn == 0.0 ? 5.0 : fmin(5.0, fmax(0.2, 0.9 * pow(errn, -0.2)));
            if (rejected) fac = fmin(fac, 1.0);
            h = hs * fac;
            if (last && hs < hprop) h = fmax(h, hprop); /* a step shortened to hit tend keeps the proposal */
            rejected = 0;
            w->t_reached = t;
            sb_log(inst, SB_OK, SB_LOG_SOLVER, "dopri5: accepted step to t = %.17g (h = %g, error %g)", t, hs, errn);
        } else {
            h = hs * (isfinite(errn) ? fmax(0.2, 0.9 * pow(errn, -0.2)) : 0.25);
            rejected = 1;
            sb_log(inst, SB_OK, SB_LOG_SOLVER, "dopri5: rejected step at t = %.17g (h = %g, error %g)", t, hs, errn);
        }
        if (h < 1e-14 * fmax(1.0, fabs(t))) {
            if (s == SB_OK) snprintf(inst->problem, sizeof inst->problem, "local error test failed");
            char why[400];
            memcpy(why, inst->problem, sizeof why - 1); why[sizeof why - 1] = 0;
            snprintf(inst->problem, sizeof inst->problem, "dopri5 step size underflow at t = %.17g (%s)", t, why);
            w->underflow = 1;
            return SB_DISCARD;
        }
    }
    *inst->state.h_next = h;
    return SB_OK;
}

/* ------------------------------------------------------------------------ */
/* Rosenbrock 2(3), L-stable (Shampine and Reichelt, The MATLAB ODE Suite)   */
/* ------------------------------------------------------------------------ */

static SbStatus rosenbrock23(SbInstance *inst, double t, double tend)
{
    /* what is left of the step when it is done: rounding of tend, but never the whole of a tiny step */
    const double tiny = fmin(1e-13 * fmax(1.0, fabs(tend)), 1e-3 * (tend - t));
    SbSolver *w = inst->solver;
    const int nx = w->nx;
    const double d = 1.0 / (2.0 + sqrt(2.0)), e32 = 6.0 + sqrt(2.0);
    double *y = inst->state.x, *k1 = w->k[0], *k2 = w->k[1], *k3 = w->k[2], *rhs = w->k[3];
    double h = *inst->state.h_next;
    int need_jac = 1, rejected = 0;
    long count = 0;
    SbStatus s;
    while (tend - t > tiny) {
        if (++count > SB_MAX_STEPS) return too_many_steps(inst, "rosenbrock23", t);
        if (need_jac) {
            if ((s = sb_derivatives(inst, t, y, w->F0)) != SB_OK) return s;
            if ((s = sb_state_jacobian(inst, t, y, w->J, w->T)) != SB_OK) return s;
            need_jac = 0;
        }
        if (!(h > 0.0)) h = initial_step(inst, t, y, w->F0, 2, tend - t);
        const double hprop = fmin(h, max_step(inst));
        double hs = hprop;
        int last = 0;
        if (t + hs >= tend - tiny) {
            hs = tend - t;
            last = 1;
        }
        /* W = I - h d J */
        for (int i = 0; i < nx * nx; ++i) w->W[i] = -hs * d * w->J[i];
        for (int i = 0; i < nx; ++i) w->W[i * nx + i] += 1.0;
        int rank = sb_lu_factor(nx, w->W, w->wrow, w->wcol, 1e-14);
        double errn = INFINITY;
        s = SB_OK;
        if (rank < nx) {
            s = SB_DISCARD;
            snprintf(inst->problem, sizeof inst->problem, "singular iteration matrix I - h d J");
        }
        inst->dyn.step_cap = INFINITY;
        if (s == SB_OK) {
            for (int i = 0; i < nx; ++i) rhs[i] = w->F0[i] + hs * d * w->T[i];
            sb_lu_solve(nx, w->W, w->wrow, w->wcol, nx, rhs, k1);
            for (int i = 0; i < nx; ++i) w->ytmp[i] = y[i] + 0.5 * hs * k1[i];
            s = sb_derivatives(inst, t + 0.5 * hs, w->ytmp, w->F1);
        }
        if (s == SB_OK) {
            for (int i = 0; i < nx; ++i) rhs[i] = w->F1[i] - k1[i];
            sb_lu_solve(nx, w->W, w->wrow, w->wcol, nx, rhs, k2);
            for (int i = 0; i < nx; ++i) {
                k2[i] += k1[i];
                w->y1[i] = y[i] + hs * k2[i];
            }
            s = sb_derivatives(inst, t + hs, w->y1, w->F2);
        }
        if (s == SB_OK) {
            for (int i = 0; i < nx; ++i)
                rhs[i] = w->F2[i] - e32 * (k2[i] - w->F1[i]) - 2.0 * (k1[i] - w->F0[i]) + hs * d * w->T[i];
            sb_lu_solve(nx, w->W, w->wrow, w->wcol, nx, rhs, k3);
            for (int i = 0; i < nx; ++i) w->err[i] = hs / 6.0 * (k1[i] - 2.0 * k2[i] + k3[i]);
            errn = error_norm(inst, nx, w->err, y, w->y1);
        }
        if (s == SB_OK && too_long_for_passage(inst, "rosenbrock23", t, hs, &h)) {
            rejected = 1;
            continue;
        }
        if (errn <= 1.0) {
            t = last ? tend : t + hs;
            memcpy(y, w->y1, (size_t)nx * sizeof(double));
            if (sb_projecting(inst) && (s = sb_project(inst, t, y)) != SB_OK) return s;
            need_jac = 1;
            double fac = errn == 0.0 ? 5.0 : fmin(5.0, fmax(0.2, 0.8 * pow(errn, -1.0 / 3.0)));
            if (rejected) fac = fmin(fac, 1.0);
            h = hs * fac;
            if (last && hs < hprop) h = fmax(h, hprop);
            rejected = 0;
            w->t_reached = t;
            sb_log(inst, SB_OK, SB_LOG_SOLVER, "rosenbrock23: accepted step to t = %.17g (h = %g, error %g)", t, hs,
                   errn);
        } else {
            h = hs * (isfinite(errn) ? fmax(0.2, 0.8 * pow(errn, -1.0 / 3.0)) : 0.25);
            rejected = 1;
            sb_log(inst, SB_OK, SB_LOG_SOLVER, "rosenbrock23: rejected step at t = %.17g (h = %g, error %g)", t, hs,
                   errn);
        }
        if (h < 1e-14 * fmax(1.0, fabs(t))) {
            if (s == SB_OK) snprintf(inst->problem, sizeof inst->problem, "local error test failed");
            char why[400];
            memcpy(why, inst->problem, sizeof why - 1); why[sizeof why - 1] = 0;
            snprintf(inst->problem, sizeof inst->problem, "rosenbrock23 step size underflow at t = %.17g (%s)", t, why);
            w->underflow = 1;
            return SB_DISCARD;
        }
    }
    *inst->state.h_next = h;
    return SB_OK;
}

/* ------------------------------------------------------------------------ */

/* The state after a step: states and accelerations finite, else the step is discarded.  An output
   outside its domain (such as y / x at x = 0) leaves the motion valid: the step stands with a
   warning, and reading that output is discarded (sb_get_real), so no host sees it as a number. */
static SbStatus check_result(SbInstance *inst)
{
    const SbModel *m = inst->m;
    if (!sb_all_finite(sb_nx(m), inst->state.x)) {
        snprintf(inst->problem, sizeof inst->problem, "the state at the end of the step is not finite");
        return SB_DISCARD;
    }
    SbStatus s = sb_update(inst);
    if (s != SB_OK) return s;
    if (sb_all_finite(m->ny, inst->cache.y)) return SB_OK;
    for (int k = 0; k < m->nvars; ++k)
        if (m->variables[k].kind == SB_VAR_Y && !isfinite(inst->cache.y[m->variables[k].index])) {
            sb_log(inst, SB_WARNING, SB_LOG_WARNING,
                   "DoStep: output '%s' is not finite at t = %.17g (outside its domain); reading it is discarded",
                   m->variables[k].name, *inst->state.time);
            return SB_WARNING;
        }
    return SB_OK;
}

/* After a discarded step (state back at t0): can a host that retries with smaller steps get on?  Not
   when the state at t0 itself is inadmissible, when an adaptive solver found no step size that leaves
   t0 (step size underflow there), when no smaller step exists, or when the host asked for the same
   step SB_MAX_RETRIES times in a row (a master that retries without shrinking the step would spin). */
static int cannot_continue(SbInstance *inst, double t0, double H, int adaptive)
{
    SbSolver *w = inst->solver;
    if (inst->history.discards >= SB_MAX_RETRIES) return 1;
    if (H <= 4.0 * DBL_EPSILON * fmax(1.0, fabs(t0))) return 1;
    if (adaptive && w->underflow && w->t_reached <= t0) return 1;
    char why[sizeof inst->problem];
    memcpy(why, inst->problem, sizeof why);
    int stuck = sb_update(inst) != SB_OK; /* the state at t0 with the current inputs and parameters */
    memcpy(inst->problem, why, sizeof why);
    return stuck;
}

SbStatus sb_integrate(SbInstance *inst, double t0, double tend)
{
    switch ((int)inst->state.set[SB_SET_METHOD]) {
    case SB_METHOD_RK4: return sb_rk4(inst, t0, tend);
    case SB_METHOD_ROSENBROCK23: return rosenbrock23(inst, t0, tend);
    default: return dopri5(inst, t0, tend);
    }
}

SbStatus sb_do_step(SbInstance *inst, double t0, double H)
{
    SbSolver *w = inst->solver;
    const double t = *inst->state.time;
    if (!isfinite(t0)) return sb_fail(inst, "DoStep", "currentCommunicationPoint %g is not finite", t0);
    if (!isfinite(H) || H < 0.0 || !isfinite(t0 + H))
        return sb_fail(inst, "DoStep", "communicationStepSize %g is invalid: it must be finite and >= 0", H);
    /* the host's time and the FMU's may differ by rounding only: a few ulps of the times involved and a
       small fraction of the step (never a fraction of |t|, which would accept seconds at t = 1e9) */
    const double scale = fabs(t) > fabs(H) ? fabs(t) : fabs(H); /* finite here (fmax is a libm call) */
    const double tol = 64.0 * DBL_EPSILON * scale + 1e-9 * H;
    if (!(fabs(t0 - t) <= tol))
        return sb_fail(inst, "DoStep",
                       "currentCommunicationPoint %.17g does not match the FMU time %.17g (difference %.3g s); "
                       "a step must start where the last one ended",
                       t0, t, t0 - t);
    const double tend = t0 + H;
    if (inst->history.stop_defined && tend > inst->history.stop_time + 64.0 * DBL_EPSILON * fmax(fabs(tend), fabs(H)) + 1e-9 * H)
        return sb_fail(inst, "DoStep", "the step from t = %.17g to %.17g goes past the stop time %.17g set by the host",
                       t0, tend, inst->history.stop_time);
    if (H == 0.0) return SB_OK;
    memcpy(w->backup, inst->state.S, (size_t)inst->state.nS * sizeof(double));
    SbStatus s;
    const int method = (int)inst->state.set[SB_SET_METHOD];
    inst->problem[0] = '\0';
    w->t_reached = t0;
    w->underflow = 0;
    w->rk4_left = 0; /* rk4's stability is estimated anew in each communication step */
    inst->interpolating = 1; /* the inputs set at t0 are polynomials of t - t0 over the step */
    inst->input_time = t0;
    s = SB_EVENTS(inst->m) > 0 ? sb_events_integrate(inst, t0, tend) : sb_integrate(inst, t0, tend);
    inst->interpolating = 0;
    if (s == SB_OK) {
        sb_advance_inputs(inst, tend - t0); /* the motion inputs where the step ends */
        *inst->state.time = tend;
        sb_changed(inst);
        s = check_result(inst);
    }
    if (s != SB_OK && s != SB_WARNING) {
        memcpy(inst->state.S, w->backup, (size_t)inst->state.nS * sizeof(double));
        sb_changed(inst);
        if (s != SB_DISCARD) return SB_ERROR;
        inst->history.discards = inst->history.discard_t == t0 && inst->history.discard_h == H ? inst->history.discards + 1 : 1;
        inst->history.discard_t = t0;
        inst->history.discard_h = H;
        sb_log(inst, SB_DISCARD, SB_LOG_DISCARD,
               "DoStep: step from t = %.17g to %.17g discarded, state kept at t = %.17g: %s", t0, tend, t0,
               inst->problem);
        if (cannot_continue(inst, t0, H, method != SB_METHOD_RK4)) {
            inst->state.flags |= SB_FLAG_TERMINATE;
            sb_log(inst, SB_DISCARD, SB_LOG_DISCARD,
                   "DoStep: no smaller step can continue from t = %.17g with these inputs and parameters: the FMU "
                   "asks the host to terminate the simulation",
                   t0);
        }
        return SB_DISCARD;
    }
    inst->state.flags &= ~SB_FLAG_TERMINATE;
    inst->history.discards = 0;
    return s;
}
