/*
 * sb_jacobians.c -- derivatives of a symbody FMU from the model's exact
 * symbolic Jacobians: the state Jacobian of the implicit solver and the
 * directional derivatives of FMI, d[ddq; lam]/dx = -[M D^T; D 0]^-1 dR/dx with
 * the factorization of the dynamics, Baumgarte's terms added, outputs by the
 * chain rule through ddq and lam.
 *
 * With unilateral contacts the derivatives are those of the current contact mode (sb_events.c): the
 * closed contacts C are constraints G_C ddq - gap_gamma + 2 alpha gdot + beta^2 g = 0 whose forces f
 * push along the gap gradients, M ddq + D^T lam = delta + G_C^T f.  The linearized system is solved by
 * its Schur complement on the contacts, the Delassus matrix W = G_C X with [M D^T; D 0] [X; Y] = [G_C^T; 0]
 * (the factorization of the bilateral solve is reused): with y the bilateral solution and r_C the
 * negated derivative of the contact rows, W df = r_C - G_C y_ddq and d[ddq; lam] = y + [X; Y] df.  The contact terms (G_C^T f and the contact
 * rows, with ddq and f held) have no exported Jacobian code: they are differentiated by a central
 * difference along the direction asked for, x +- h s with h = eps^(1/3) max(1, |x|) / |s| (relative
 * error about 1e-10).  Outputs that use contact forces take their part along df the same way.
 *
 * Inside a Co-Simulation step the inputs move with time (symbody_model.h): the time derivative of the
 * dynamics then holds dR/du du/dt too.  Models with first-order states (whose rates may use the
 * multipliers and the contact forces) take all their derivatives by central differences of the whole
 * dynamics, [dq; ddq; rates] and the outputs, along the direction asked for (the same step h).
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "sb_events.h"
#include "sb_internal.h"
#include "sb_linalg.h"

/* -- the closed unilateral contacts of the current mode ---------------------------------------------- */

typedef struct {
    int m;                                 /* closed contacts */
    int *set, *prow, *pcol;                /* their indices; pivots of the LU of W */
    int rank;                              /* of W */
    double *lam;                           /* nc multipliers, then the nk contact forces */
    double *ddq;                           /* the accelerations of the mode (nq) */
    double *gap, *G, *gbeta, *ggamma, *e;  /* contact blocks (nk, nk x nq, nk, nk, nk) */
    double *xs, *us, *Fp, *Fm;             /* a perturbed point (2 nq + ns; 3 nu); contact terms on either side
                                              (nq + nk) */
    double *Z, *W;                         /* responses [X; Y] (rows of nq + nc per closed contact), LU of W */
    double *r, *df;                        /* right-hand sides of the contact rows; force derivatives (nk) */
    double *yp, *ym;                       /* outputs on either side (ny) */
} SbModeWork;

static void mode_free(SbModeWork *w)
{
    if (!w->set) return; /* (a model without contacts: nothing allocated) */
    free(w->set);
    free(w->lam);
}

/* The work of the current mode after sb_accelerations at (t, x); w->lam holds the multipliers and forces
   (every model), the rest is set up only when contacts are closed.  SB_ERROR when out of memory. */
static SbStatus mode_prepare(SbInstance *inst, SbModeWork *w, double t, const double *x)
{
    const SbModel *md = inst->m;
    const int n = md->nq, nc = md->nc, nk = SB_CONTACTS(md), nu = 3 * md->nu, ny = md->ny, na = inst->dyn.na;
    const int nx = sb_nx(md);
    memset(w, 0, sizeof *w);
    if (nk == 0) { /* the solution of the bilateral system as it stands */
        w->ddq = inst->dyn.sol;
        w->lam = inst->dyn.sol + n;
        return SB_OK;
    }
    const size_t nd = (size_t)(nc + nk) + n + 4 * (size_t)nk + (size_t)nk * n + (size_t)nx + nu +
                      2 * (size_t)(n + nk) + (size_t)nk * na + (size_t)nk * nk + 2 * (size_t)nk + 2 * (size_t)ny + 1;
    w->set = malloc((size_t)(3 * nk + 1) * sizeof(int));
    w->lam = malloc(nd * sizeof(double));
    if (!w->set || !w->lam) {
        mode_free(w);
        return sb_problem(inst, SB_ERROR, "out of memory");
    }
    w->prow = w->set + nk;
    w->pcol = w->prow + nk;
    w->ddq = w->lam + nc + nk;
    w->gap = w->ddq + n;
    w->G = w->gap + nk;
    w->gbeta = w->G + (size_t)nk * n;
    w->ggamma = w->gbeta + nk;
    w->e = w->ggamma + nk;
    w->xs = w->e + nk;
    w->us = w->xs + nx;
    memcpy(w->xs, x, (size_t)nx * sizeof(double)); /* (the first-order states are held) */
    memcpy(w->us, inst->state.u, (size_t)nu * sizeof(double)); /* (the input derivatives are held) */
    w->Fp = w->us + nu;
    w->Fm = w->Fp + n + nk;
    w->Z = w->Fm + n + nk;
    w->W = w->Z + (size_t)nk * na;
    w->r = w->W + (size_t)nk * nk;
    w->df = w->r + nk;
    w->yp = w->df + nk;
    w->ym = w->yp + ny;
    memcpy(w->ddq, inst->dyn.sol, (size_t)n * sizeof(double));
    memcpy(w->lam, inst->dyn.sol + n, (size_t)nc * sizeof(double));
    for (int i = 0; i < nk; ++i) {
        w->df[i] = 0.0;
        if (inst->state.closed[i] != 0.0) w->set[w->m++] = i;
    }
    sb_contact_forces(inst, w->lam + nc);
    if (w->m == 0) return SB_OK;
    SbPoint pt = sb_point(inst, t, x, w->ddq, w->lam);
    sb_contacts(&pt, w->gap, w->G, w->gbeta, w->ggamma, w->e);
    for (int a = 0; a < w->m; ++a) { /* X, Y and W = G_C X */
        double *z = w->Z + (size_t)a * na;
        memset(z, 0, (size_t)na * sizeof(double));
        memcpy(z, w->G + (size_t)w->set[a] * n, (size_t)n * sizeof(double));
        sb_solve_factored(inst, z, z);
    }
    for (int a = 0; a < w->m; ++a)
        for (int c = 0; c < w->m; ++c) {
            double v = 0.0;
            for (int j = 0; j < n; ++j) v += w->G[(size_t)w->set[a] * n + j] * w->Z[(size_t)c * na + j];
            w->W[a * w->m + c] = v;
        }
    w->rank = sb_lu_factor(w->m, w->W, w->prow, w->pcol, 1e-12);
    return SB_OK;
}

/* The contact terms at (t, xs, us) with ddq and the forces held: G_C^T f (nq, on the side of delta), then
   the closed contact rows G ddq - gap_gamma + 2 alpha (G dq - gap_beta) + beta^2 g (m). */
static void contact_terms(SbInstance *inst, SbModeWork *w, double t, double *F)
{
    const int n = inst->m->nq, nc = inst->m->nc;
    const double alpha = inst->state.set[SB_SET_ALPHA], bb = inst->state.set[SB_SET_BETA];
    SbPoint pt = sb_point(inst, t, w->xs, w->ddq, w->lam);
    pt.u = w->us;
    sb_contacts(&pt, w->gap, w->G, w->gbeta, w->ggamma, w->e);
    memset(F, 0, (size_t)n * sizeof(double));
    for (int a = 0; a < w->m; ++a) {
        const int i = w->set[a];
        const double *g = w->G + (size_t)i * n;
        double acc = -w->ggamma[i] + bb * bb * w->gap[i], rate = -w->gbeta[i];
        for (int j = 0; j < n; ++j) {
            F[j] += g[j] * w->lam[nc + i];
            acc += g[j] * w->ddq[j];
            rate += g[j] * w->xs[n + j];
        }
        F[n + a] = acc + 2.0 * alpha * rate;
    }
}

/* d[ddq; lam] of the current mode along the direction (st, sq, sdq, su) of (t, q, dq, u), given b, the
   negated derivative of the bilateral residual along it (na; changed): into sol (na; may be b), the force
   derivatives into w->df. */
static void mode_solve(SbInstance *inst, SbModeWork *w, double t, const double *x, double st, const double *sq,
                       const double *sdq, const double *su, double *b, double *sol)
{
    const int n = inst->m->nq, nu = inst->m->nu, na = inst->dyn.na, m = w->m;
    if (m == 0) {
        sb_solve_factored(inst, b, sol);
        return;
    }
    double xn = fabs(t), sn = fabs(st);
    for (int j = 0; j < n; ++j) {
        xn = fmax(xn, fmax(fabs(x[j]), fabs(x[n + j])));
        sn = fmax(sn, fmax(fabs(sq[j]), fabs(sdq[j])));
    }
    for (int j = 0; j < nu; ++j) {
        xn = fmax(xn, fabs(inst->state.u[j]));
        sn = fmax(sn, fabs(su[j]));
    }
    for (int a = 0; a < m; ++a) w->r[a] = 0.0;
    if (sn > 0.0) { /* the contact terms along the direction, by a central difference */
        const double h = cbrt(DBL_EPSILON) * fmax(1.0, xn) / sn;
        for (int side = 1; side >= -1; side -= 2) {
            /* (xs beyond 2 nq and us beyond nu hold the states and input derivatives: mode_prepare) */
            for (int j = 0; j < n; ++j) {
                w->xs[j] = x[j] + side * h * sq[j];
                w->xs[n + j] = x[n + j] + side * h * sdq[j];
            }
            for (int j = 0; j < nu; ++j) w->us[j] = inst->state.u[j] + side * h * su[j];
            contact_terms(inst, w, t + side * h * st, side > 0 ? w->Fp : w->Fm);
        }
        for (int j = 0; j < n; ++j) b[j] += (w->Fp[j] - w->Fm[j]) / (2.0 * h);
        for (int a = 0; a < m; ++a) w->r[a] = -(w->Fp[n + a] - w->Fm[n + a]) / (2.0 * h);
    }
    sb_solve_factored(inst, b, sol);
    double rhs[64], dfs[64], *R = m <= 64 ? rhs : malloc(2 * (size_t)m * sizeof(double));
    double *D = m <= 64 ? dfs : R + m;
    if (!R) { /* (out of memory: the derivatives come out NaN and the caller reports them) */
        for (int i = 0; i < na; ++i) sol[i] = NAN;
        return;
    }
    SbPoint pt = sb_point(inst, t, x, w->ddq, w->lam);
    sb_contacts(&pt, w->gap, w->G, w->gbeta, w->ggamma, w->e); /* G at x */
    for (int a = 0; a < m; ++a) {
        double v = w->r[a];
        for (int j = 0; j < n; ++j) v -= w->G[(size_t)w->set[a] * n + j] * sol[j];
        R[a] = v;
    }
    sb_lu_solve(m, w->W, w->prow, w->pcol, w->rank, R, D);
    for (int a = 0; a < m; ++a) {
        w->df[w->set[a]] = D[a];
        for (int i = 0; i < na; ++i) sol[i] += D[a] * w->Z[(size_t)a * na + i];
    }
    if (R != rhs) free(R);
}

/* The derivative of output i along the force derivatives w->df (with everything else held), by a central
   difference of the outputs. */
static double output_through_forces(SbInstance *inst, SbModeWork *w, double t, const double *x, int i)
{
    const int nc = inst->m->nc, nk = inst->m->nk;
    double fn = 0.0, sn = 0.0;
    for (int c = 0; c < nk; ++c) {
        fn = fmax(fn, fabs(w->lam[nc + c]));
        sn = fmax(sn, fabs(w->df[c]));
    }
    if (!(sn > 0.0)) return 0.0;
    const double h = cbrt(DBL_EPSILON) * fmax(1.0, fn) / sn;
    SbPoint pt = sb_point(inst, t, x, w->ddq, w->lam);
    for (int c = 0; c < nk; ++c) w->lam[nc + c] += h * w->df[c];
    sb_outputs(&pt, w->yp);
    for (int c = 0; c < nk; ++c) w->lam[nc + c] -= 2.0 * h * w->df[c];
    sb_outputs(&pt, w->ym);
    for (int c = 0; c < nk; ++c) w->lam[nc + c] += h * w->df[c];
    return (w->yp[i] - w->ym[i]) / (2.0 * h);
}

/* -- the bilateral residual ------------------------------------------------------------------------- */

/* Residual Jacobians at (t, x) with inst->dyn.sol = [ddq; lam] (lam: the multipliers and contact forces of
   the point, nc + nk), including the Baumgarte terms of the constraint rows. */
static void residual_jacobians(SbInstance *inst, double t, const double *x, const double *lam)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, nh = m->nh, nu = m->nu;
    SbPoint pt = sb_point(inst, t, x, inst->dyn.sol, lam);
    (void)nu;
    sb_residual_jacobians(&pt, inst->jac.R_q, inst->jac.R_dq, inst->jac.R_u, inst->jac.R_t);
    if (nc == 0) return;
    const double alpha = inst->state.set[SB_SET_ALPHA], bb = inst->state.set[SB_SET_BETA];
    if (alpha == 0.0 && bb == 0.0) return;
    sb_velocity_jacobians(&pt, inst->jac.V_q, inst->jac.V_t);
    if (nh > 0) sb_Phi_Phi_q(&pt, inst->dyn.Phi_q, inst->dyn.Phi);
    /* inst->dyn.D and inst->dyn.beta hold the values at this point (sb_accelerations) */
    for (int r = 0; r < nc; ++r) {
        double *Rq = inst->jac.R_q + (size_t)(n + r) * n, *Rdq = inst->jac.R_dq + (size_t)(n + r) * n;
        for (int j = 0; j < n; ++j) {
            Rq[j] += 2.0 * alpha * inst->jac.V_q[r * n + j];
            Rdq[j] += 2.0 * alpha * inst->dyn.D[r * n + j];
            if (r < nh) Rq[j] += bb * bb * inst->dyn.Phi_q[r * n + j];
        }
        inst->jac.R_t[n + r] += 2.0 * alpha * inst->jac.V_t[r];
        if (r < nh) inst->jac.R_t[n + r] -= bb * bb * inst->dyn.beta[r]; /* Phi_t = -beta */
    }
}

/* du/dt of the inputs as the generated code reads them at time t (symbody_model.h): a motion input's position
   moves with its velocity, its velocity with its acceleration; the others with their derivatives. */
static void input_rates(const SbInstance *inst, double t, double *udot)
{
    const SbModel *m = inst->m;
    const int nu = m->nu;
    const double *u = inst->state.u, tau = inst->interpolating ? t - inst->input_time : 0.0;
    for (int j = 0; j < nu; ++j) udot[j] = u[nu + j] + tau * u[2 * nu + j];
    for (int k = 0; k < m->nmotion; ++k) {
        const int j = m->motion[k];
        udot[j] = u[j + 1] + tau * u[j + 2];
        udot[j + 1] = u[j + 2];
        udot[j + 2] = 0.0;
    }
}

/* -- models with first-order states: central differences of the whole dynamics --------------------- */

/* Work of the differences: a perturbed state and the derivatives and outputs on either side. */
typedef struct {
    double *x, *fp, *fm, *yp, *ym, *u0;
} SbDifferences;

static SbStatus differences_alloc(SbInstance *inst, SbDifferences *d)
{
    const int nx = sb_nx(inst->m), ny = inst->m->ny, nu = inst->m->nu;
    d->x = malloc((size_t)(3 * nx + 2 * ny + nu + 1) * sizeof(double));
    if (!d->x) return sb_problem(inst, SB_ERROR, "out of memory");
    d->fp = d->x + nx;
    d->fm = d->fp + nx;
    d->yp = d->fm + nx;
    d->ym = d->yp + ny;
    d->u0 = d->ym + ny;
    memcpy(d->u0, inst->state.u, (size_t)nu * sizeof(double));
    return SB_OK;
}

/* [dq; ddq; rates] (into f) and, when y is given, the outputs at (t, x) with the inputs u0 + eps su. */
static SbStatus evaluate_at(SbInstance *inst, SbDifferences *d, double t, const double *su, double eps, double *f,
                            double *y)
{
    const SbModel *m = inst->m;
    if (su)
        for (int j = 0; j < m->nu; ++j) inst->state.u[j] = d->u0[j] + eps * su[j];
    SbStatus s = sb_derivatives(inst, t, d->x, f);
    if (s == SB_OK && y && m->ny > 0) {
        SbPoint pt = sb_point(inst, t, d->x, f + m->nq, inst->dyn.lam_work);
        sb_outputs(&pt, y);
    }
    if (su) memcpy(inst->state.u, d->u0, (size_t)m->nu * sizeof(double));
    return s;
}

/* The derivative of [dq; ddq; rates] (into df) and of the outputs (into dy, when given) along the direction
   (st, sx, su) of (t, x, u) at (t, x), by a central difference. */
static SbStatus along(SbInstance *inst, SbDifferences *d, double t, const double *x, double st, const double *sx,
                      const double *su, double *df, double *dy)
{
    const SbModel *m = inst->m;
    const int nx = sb_nx(m), nu = m->nu, ny = m->ny;
    double xn = fabs(t), sn = fabs(st);
    for (int j = 0; j < nx; ++j) {
        xn = fmax(xn, fabs(x[j]));
        if (sx) sn = fmax(sn, fabs(sx[j]));
    }
    for (int j = 0; j < nu && su; ++j) {
        xn = fmax(xn, fabs(d->u0[j]));
        sn = fmax(sn, fabs(su[j]));
    }
    if (!(sn > 0.0)) {
        memset(df, 0, (size_t)nx * sizeof(double));
        if (dy && ny) memset(dy, 0, (size_t)ny * sizeof(double));
        return SB_OK;
    }
    const double h = cbrt(DBL_EPSILON) * fmax(1.0, xn) / sn;
    SbStatus s = SB_OK;
    for (int side = 1; side >= -1 && s == SB_OK; side -= 2) {
        for (int j = 0; j < nx; ++j) d->x[j] = x[j] + (sx ? side * h * sx[j] : 0.0);
        s = evaluate_at(inst, d, t + side * h * st, su, side * h, side > 0 ? d->fp : d->fm,
                        dy ? (side > 0 ? d->yp : d->ym) : NULL);
    }
    if (s != SB_OK) return s;
    for (int j = 0; j < nx; ++j) df[j] = (d->fp[j] - d->fm[j]) / (2.0 * h);
    for (int j = 0; j < ny && dy; ++j) dy[j] = (d->yp[j] - d->ym[j]) / (2.0 * h);
    return SB_OK;
}

static SbStatus state_jacobian_by_differences(SbInstance *inst, double t, const double *x, double *J, double *J_t)
{
    const int nx = sb_nx(inst->m);
    SbDifferences d;
    SbStatus s = differences_alloc(inst, &d);
    if (s != SB_OK) return s;
    double *unit = calloc((size_t)nx + 1, sizeof(double)), *col = calloc((size_t)nx + 1, sizeof(double));
    if (!unit || !col) s = sb_problem(inst, SB_ERROR, "out of memory");
    for (int c = 0; c < nx && s == SB_OK; ++c) {
        unit[c] = 1.0;
        s = along(inst, &d, t, x, 0.0, unit, NULL, col, NULL);
        unit[c] = 0.0;
        for (int i = 0; i < nx; ++i) J[(size_t)i * nx + c] = col[i];
    }
    if (s == SB_OK && J_t) s = along(inst, &d, t, x, 1.0, NULL, NULL, J_t, NULL);
    free(unit);
    free(col);
    free(d.x);
    if (s != SB_OK) return s;
    if (!sb_all_finite(nx * nx, J)) return sb_problem(inst, SB_DISCARD, "the state Jacobian is not finite");
    return SB_OK;
}

SbStatus sb_state_jacobian(SbInstance *inst, double t, const double *x, double *J, double *J_t)
{
    /* (first-order states; stick-slip friction, whose rows mode_prepare does not hold: by differences) */
    if (inst->m->ns > 0 || inst->m->nf > 0) return state_jacobian_by_differences(inst, t, x, J, J_t);
    const int n = inst->m->nq, nu = inst->m->nu, na = inst->dyn.na, nx = 2 * n;
    SbStatus s = sb_accelerations(inst, t, x, NULL, NULL);
    if (s != SB_OK) return s;
    SbModeWork w;
    if ((s = mode_prepare(inst, &w, t, x)) != SB_OK) return s;
    residual_jacobians(inst, t, x, w.lam);
    memset(J, 0, (size_t)nx * nx * sizeof(double));
    for (int i = 0; i < n; ++i) J[i * nx + n + i] = 1.0;
    double *b = inst->jac.dsol, *sq = inst->jac.sq, *sdq = inst->jac.sdq, *su = inst->jac.su;
    memset(sq, 0, (size_t)n * sizeof(double));
    memset(sdq, 0, (size_t)n * sizeof(double));
    if (nu) memset(su, 0, (size_t)nu * sizeof(double));
    for (int c = 0; c < nx; ++c) { /* column c: d/dq_c or d/ddq_(c-n) */
        const double *R = c < n ? inst->jac.R_q : inst->jac.R_dq;
        int j = c < n ? c : c - n;
        double *unit = c < n ? sq : sdq;
        for (int r = 0; r < na; ++r) b[r] = -R[r * n + j];
        unit[j] = 1.0;
        mode_solve(inst, &w, t, x, 0.0, sq, sdq, su, b, b);
        unit[j] = 0.0;
        for (int i = 0; i < n; ++i) J[(n + i) * nx + c] = b[i];
    }
    if (J_t) { /* -A^-1 (R_t + R_u du/dt): the inputs move with time inside a Co-Simulation step */
        for (int r = 0; r < na; ++r) b[r] = -inst->jac.R_t[r];
        if (nu && inst->interpolating) {
            double *udot = inst->jac.su + nu; /* (su holds 3 nu entries) */
            input_rates(inst, t, udot);
            for (int r = 0; r < na; ++r)
                for (int j = 0; j < nu; ++j) b[r] -= inst->jac.R_u[(size_t)r * nu + j] * udot[j];
        }
        mode_solve(inst, &w, t, x, 1.0, sq, sdq, su, b, b);
        for (int i = 0; i < n; ++i) {
            J_t[i] = 0.0;
            J_t[n + i] = b[i];
        }
    }
    mode_free(&w);
    if (!sb_all_finite(nx * nx, J)) return sb_problem(inst, SB_DISCARD, "the state Jacobian is not finite");
    return SB_OK;
}

/* Directional derivatives of a model with first-order states: the seed as a direction of (x, u), the
   unknowns from one central difference of [dq; ddq; rates] and the outputs along it. */
static SbStatus directional_by_differences(SbInstance *inst, const char *function, const unsigned *unknowns,
                                           size_t n_unknowns, const unsigned *knowns, size_t n_knowns,
                                           const double *seed, double *sensitivity)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nx = sb_nx(m), nu = m->nu, ny = m->ny;
    double *buf = calloc((size_t)(2 * nx + nu + ny + 1), sizeof(double));
    if (!buf) return sb_fail(inst, function, "out of memory");
    double *sx = buf, *df = sx + nx, *su = df + nx, *dy = su + nu;
    SbStatus s = SB_OK;
    for (size_t k = 0; k < n_knowns && s == SB_OK; ++k) {
        const SbVariable *v = sb_variable(inst, function, knowns[k]);
        if (!v) s = SB_ERROR;
        else if (!isfinite(seed[k])) s = sb_fail(inst, function, "seed of '%s' is not finite", v->name);
        else if (v->kind == SB_VAR_Q) sx[v->index] += seed[k];
        else if (v->kind == SB_VAR_DQ) sx[n + v->index] += seed[k];
        else if (v->kind == SB_VAR_X) sx[2 * n + v->index] += seed[k];
        else if (v->kind == SB_VAR_U) su[v->index] += seed[k];
        else s = sb_fail(inst, function, "'%s' is not a known of directional derivatives (states and inputs are)",
                         v->name);
    }
    for (size_t k = 0; k < n_unknowns && s == SB_OK; ++k) {
        const SbVariable *v = sb_variable(inst, function, unknowns[k]);
        if (!v) s = SB_ERROR;
        else if (v->kind != SB_VAR_Q && v->kind != SB_VAR_DQ && v->kind != SB_VAR_X && v->kind != SB_VAR_DDQ &&
                 v->kind != SB_VAR_DX && v->kind != SB_VAR_Y)
            s = sb_fail(inst, function,
                        "'%s' is not an unknown of directional derivatives (states, their derivatives and outputs are)",
                        v->name);
    }
    SbDifferences d;
    if (s == SB_OK && (s = differences_alloc(inst, &d)) == SB_OK) {
        s = along(inst, &d, *inst->state.time, inst->state.x, 0.0, sx, su, df, dy);
        free(d.x);
        if (s != SB_OK) sb_log(inst, s, SB_LOG_DISCARD, "%s: %s", function, inst->problem);
    }
    for (size_t k = 0; k < n_unknowns && s == SB_OK; ++k) {
        const SbVariable *v = sb_variable(inst, function, unknowns[k]); /* checked above */
        const int i = v->index;
        switch (v->kind) {
        case SB_VAR_Q: sensitivity[k] = sx[i]; break;
        case SB_VAR_DQ: sensitivity[k] = sx[n + i]; break;
        case SB_VAR_X: sensitivity[k] = sx[2 * n + i]; break;
        case SB_VAR_DDQ: sensitivity[k] = df[n + i]; break;
        case SB_VAR_DX: sensitivity[k] = df[2 * n + i]; break;
        default: sensitivity[k] = dy[i]; break;
        }
        if (!isfinite(sensitivity[k])) {
            sb_log(inst, SB_DISCARD, SB_LOG_DISCARD, "%s: the derivative of '%s' is not finite at t = %g", function,
                   v->name, *inst->state.time);
            s = SB_DISCARD;
        }
    }
    free(buf);
    return s;
}

SbStatus sb_directional_derivative(SbInstance *inst, const char *function, const unsigned *unknowns, size_t n_unknowns,
                                   const unsigned *knowns, size_t n_knowns, const double *seed, double *sensitivity)
{
    if (inst->m->nf > 0) /* the friction forces are not differentiated */
        return sb_fail(inst, function, "directional derivatives of a model with stick-slip friction are not provided");
    if ((n_unknowns && (!unknowns || !sensitivity)) || (n_knowns && (!knowns || !seed)))
        return sb_fail(inst, function, "NULL array argument");
    if (inst->m->ns > 0)
        return directional_by_differences(inst, function, unknowns, n_unknowns, knowns, n_knowns, seed, sensitivity);
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, nu = m->nu, ny = m->ny, na = inst->dyn.na;
    if ((n_unknowns && (!unknowns || !sensitivity)) || (n_knowns && (!knowns || !seed)))
        return sb_fail(inst, function, "NULL array argument");
    memset(inst->jac.sq, 0, (size_t)n * sizeof(double));
    memset(inst->jac.sdq, 0, (size_t)n * sizeof(double));
    if (nu) memset(inst->jac.su, 0, (size_t)nu * sizeof(double));
    for (size_t k = 0; k < n_knowns; ++k) {
        const SbVariable *v = sb_variable(inst, function, knowns[k]);
        if (!v) return SB_ERROR;
        if (!isfinite(seed[k])) return sb_fail(inst, function, "seed of '%s' is not finite", v->name);
        switch (v->kind) {
        case SB_VAR_Q: inst->jac.sq[v->index] += seed[k]; break;
        case SB_VAR_DQ: inst->jac.sdq[v->index] += seed[k]; break;
        case SB_VAR_U: inst->jac.su[v->index] += seed[k]; break;
        default:
            return sb_fail(inst, function, "'%s' is not a known of directional derivatives (states and inputs are)",
                           v->name);
        }
    }
    int need_dyn = 0, need_y = 0;
    for (size_t k = 0; k < n_unknowns; ++k) {
        const SbVariable *v = sb_variable(inst, function, unknowns[k]);
        if (!v) return SB_ERROR;
        if (v->kind == SB_VAR_DDQ) need_dyn = 1;
        else if (v->kind == SB_VAR_Y) need_dyn = need_y = 1;
        else if (v->kind != SB_VAR_Q && v->kind != SB_VAR_DQ)
            return sb_fail(inst, function,
                           "'%s' is not an unknown of directional derivatives (states, accelerations and outputs are)",
                           v->name);
    }
    SbModeWork w;
    memset(&w, 0, sizeof w);
    const double t = *inst->state.time;
    if (need_dyn) {
        SbStatus s = sb_accelerations(inst, t, inst->state.x, NULL, NULL);
        if (s != SB_OK) {
            sb_log(inst, s, SB_LOG_DISCARD, "%s: %s", function, inst->problem);
            return s;
        }
        if ((s = mode_prepare(inst, &w, t, inst->state.x)) != SB_OK) return s;
        residual_jacobians(inst, t, inst->state.x, w.lam);
        /* A d[ddq; lam] = -(R_q sq + R_dq sdq + R_u su), with the closed contacts of the mode */
        sb_matvec(na, n, inst->jac.R_q, inst->jac.sq, inst->dyn.rhs, 0);
        sb_matvec(na, n, inst->jac.R_dq, inst->jac.sdq, inst->dyn.rhs, 1);
        if (nu) sb_matvec(na, nu, inst->jac.R_u, inst->jac.su, inst->dyn.rhs, 1);
        for (int i = 0; i < na; ++i) inst->dyn.rhs[i] = -inst->dyn.rhs[i];
        mode_solve(inst, &w, t, inst->state.x, 0.0, inst->jac.sq, inst->jac.sdq, inst->jac.su, inst->dyn.rhs,
                   inst->jac.dsol);
        if (need_y) {
            SbPoint pt = sb_point(inst, t, inst->state.x, w.ddq, w.lam);
            SbJacobianWork *j = &inst->jac;
            sb_output_jacobians(&pt, j->Y_q, j->Y_dq, j->Y_u, j->Y_t, j->Y_ddq, j->Y_lam);
        }
    }
    for (size_t k = 0; k < n_unknowns; ++k) {
        const SbVariable *v = sb_variable(inst, function, unknowns[k]); /* checked above */
        const int i = v->index;
        double d = 0.0;
        switch (v->kind) {
        case SB_VAR_Q: d = inst->jac.sq[i]; break;
        case SB_VAR_DQ: d = inst->jac.sdq[i]; break;
        case SB_VAR_DDQ: d = inst->jac.dsol[i]; break;
        case SB_VAR_Y:
            for (int j = 0; j < n; ++j)
                d += inst->jac.Y_q[i * n + j] * inst->jac.sq[j] + inst->jac.Y_dq[i * n + j] * inst->jac.sdq[j] +
                     inst->jac.Y_ddq[i * n + j] * inst->jac.dsol[j];
            for (int j = 0; j < nu; ++j) d += inst->jac.Y_u[i * nu + j] * inst->jac.su[j];
            for (int j = 0; j < nc; ++j) d += inst->jac.Y_lam[i * nc + j] * inst->jac.dsol[n + j];
            if (SB_CONTACTS(m) > 0) d += output_through_forces(inst, &w, t, inst->state.x, i);
            break;
        default: break;
        }
        sensitivity[k] = d;
        if (!isfinite(d)) { /* a Jacobian entry outside its domain (e.g. the derivative of sqrt at 0) */
            mode_free(&w);
            sb_log(inst, SB_DISCARD, SB_LOG_DISCARD,
                   "%s: the derivative of '%s' is not finite at t = %g (the model's equations are not "
                   "differentiable at this state)",
                   function, v->name, *inst->state.time);
            return SB_DISCARD;
        }
    }
    (void)ny;
    mode_free(&w);
    return SB_OK;
}
