/*
 * sb_assembly.c -- initialization and constraint projection of a symbody FMU:
 * the experiment (start and stop time, tolerance), assembly of the initial
 * configuration (Newton on Phi_init, then the start velocities the host set
 * kept and the others from D dq = beta), and the projection of positions and
 * velocities onto the constraints after the solvers' steps.
 */
#include <stdio.h>
#include <string.h>

#include "sb_events.h"
#include "sb_internal.h"
#include "sb_linalg.h"

#define SB_ASSEMBLY_MAXIT 50   /* Newton iterations of the assembly */
#define SB_TIGHT_PIVOT 1e-2    /* D M^-1 D^T with a pivot below this (relative): a singular position near */

/* ------------------------------------------------------------------------ */
/* projections and assembly                                                 */
/* ------------------------------------------------------------------------ */

/* Correction dx = J^T (J J^T + mu^2 I)^+ r for J (m x n), mu = reg |J|: the minimum-norm step
   along the well-conditioned directions of J; along a direction whose singular value s is small
   (rows becoming dependent at a singular position) the step is s r / (s^2 + mu^2) <= r / (2 mu)
   instead of r / s, so that a projection never leaps to another assembly branch (sb_min_norm, in the
   instance's workspace).  Returns the rank. */
int sb_min_norm_step(SbInstance *inst, int m_rows, int n, const double *J, const double *r, double *dx, double reg)
{
    return sb_min_norm(m_rows, n, J, r, reg, inst->proj.G, inst->proj.gprow, inst->proj.gpcol, inst->proj.ytmp, dx);
}

/* Newton iterations on the rows `rows` (evaluated by eval) for positions q. */
typedef void (*RowEval)(SbInstance *inst, double t, const double *x, double *J, double *r);

static void eval_Phi(SbInstance *inst, double t, const double *x, double *J, double *r)
{
    SbPoint pt = sb_point(inst, t, x, NULL, NULL);
    if (inst->m->nh > 0) sb_Phi_Phi_q(&pt, J, r);
    const int nh = inst->m->nh; /* then the closed contacts (their gaps are held as well) */
    if (SB_CONTACTS(inst->m) > 0) sb_closed_contact_rows(inst, t, x, J + (size_t)nh * inst->m->nq, r + nh);
}

/* The closed contacts (rows held with the bilateral constraints by the projection). */
static int closed_contacts(const SbInstance *inst)
{
    int m = 0;
    for (int i = 0; i < SB_CONTACTS(inst->m) && i < inst->m->nk; ++i) m += inst->state.closed[i] != 0.0;
    return m;
}

static void eval_Phi_init(SbInstance *inst, double t, const double *x, double *J, double *r)
{
    SbPoint pt = sb_point(inst, t, x, NULL, NULL);
    sb_Phi_init(&pt, J, r);
    for (int k = 0; k < inst->m->ninit; ++k) { /* rows fixing a coordinate use its start value */
        int i = inst->m->init_fix[k];
        if (i >= 0) r[k] = x[i] - inst->proj.qfix[i];
    }
}

static SbStatus newton_positions(SbInstance *inst, double t, double *x, int rows, RowEval eval, double tol, int maxit,
                                 const char *const *row_names, int named, int *iterations, double *residual)
{
    const int n = inst->m->nq;
    double *J = inst->proj.Jrows, *r = inst->proj.rrows, *dx = inst->proj.dx;
    double err = 0.0;
    int it;
    for (it = 0; it <= maxit; ++it) {
        eval(inst, t, x, J, r);
        int bad = sb_first_nonfinite(rows, r);
        if (bad < 0) bad = sb_first_nonfinite(rows * n, J) >= 0 ? sb_first_nonfinite(rows * n, J) / n : -1;
        if (bad >= 0)
            return sb_problem(inst, SB_DISCARD, "constraint '%s' is not finite",
                              bad < named ? row_names[bad] : "(the gap of a closed contact)");
        err = sb_norm_inf(rows, r);
        if (err <= tol || it == maxit) break;
        sb_min_norm_step(inst, rows, n, J, r, dx, SB_CORR_REG);
        double step = sb_norm_inf(n, dx);
        for (int i = 0; i < n; ++i) x[i] -= dx[i];
        if (step <= 1e-15 * (1.0 + sb_norm_inf(n, x))) {
            ++it;
            eval(inst, t, x, J, r);
            err = sb_norm_inf(rows, r);
            break;
        }
    }
    *iterations = it;
    *residual = err;
    if (!(err <= tol)) {
        int worst = 0;
        for (int k = 1; k < rows; ++k)
            if (fabs(r[k]) > fabs(r[worst])) worst = k;
        return sb_problem(inst, SB_DISCARD, "Newton iteration did not converge: |%s| = %g after %d iterations",
                          worst < named ? row_names[worst] : "the gap of a closed contact", err, it);
    }
    return SB_OK;
}

/* Velocities: dq += J^T (J J^T)^+ (b - J dq) for J = D (and fixed rows at init).  (The rates of the closed
   contacts are left to Baumgarte's terms: a correction along their rows in this metric, not the mass metric,
   would change the motion more than their drift does.) */
static void project_velocities(SbInstance *inst, double t, double *x, int with_fixed);

void sb_project_velocities(SbInstance *inst, double t, double *x)
{
    if (inst->m->nc > 0) project_velocities(inst, t, x, 0);
}

static void project_velocities(SbInstance *inst, double t, double *x, int with_fixed)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc;
    SbPoint pt = sb_point(inst, t, x, NULL, NULL);
    double *J = inst->proj.Jrows, *r = inst->proj.rrows, *dx = inst->proj.dx;
    int rows = nc;
    sb_D_beta(&pt, J, r);
    if (with_fixed)
        for (int k = 0; k < m->ninit; ++k) {
            int i = m->init_fix[k];
            if (i < 0) continue;
            for (int j = 0; j < n; ++j) J[rows * n + j] = (j == i);
            r[rows] = inst->proj.qfix[n + i];
            ++rows;
        }
    for (int k = 0; k < rows; ++k) {
        double v = r[k];
        for (int j = 0; j < n; ++j) v -= J[k * n + j] * x[n + j];
        r[k] = v;
    }
    sb_min_norm_step(inst, rows, n, J, r, dx, with_fixed ? 0.0 : SB_CORR_REG); /* initial velocities: exact */
    for (int j = 0; j < n; ++j) x[n + j] += dx[j];
}

SbStatus sb_project(SbInstance *inst, double t, double *x)
{
    const SbModel *m = inst->m;
    const int closed = closed_contacts(inst);
    if ((m->nc == 0 && closed == 0) || inst->state.set[SB_SET_PROJECTION] == 0.0) return SB_OK;
    /* next to a singular position the constraint values barely see the errors along the directions
       that lose their rows, and the velocity rows turn with those errors: the projection is left to
       the steps on either side (Baumgarte's terms hold the drift meanwhile) */
    /* after a regular range-space solve every row is clearly independent: nothing to check */
    if (m->nc == 0) {
    } else if (inst->dyn.fact == SB_FACT_SCHUR) {
        if (m->nc > inst->dyn.rank_ref) inst->dyn.rank_ref = m->nc;
    } else if (sb_near_singular(inst, t, x)) {
        sb_log(inst, SB_OK, SB_LOG_SOLVER, "t = %.17g: no projection next to a singular position", t);
        return SB_OK;
    }
    /* on the way to a singular position the exact accelerations (sb_passage.c) follow the drift that
       solver.projection_tol leaves, and every passage adds to it (the velocities are projected onto the
       level of Phi the positions are at): there the positions go onto the constraints as closely as
       rounding allows */
    const int tight = m->nc > 0 && (inst->dyn.fact != SB_FACT_SCHUR || inst->dyn.least_pivot < SB_TIGHT_PIVOT);
    const double tol = inst->state.set[SB_SET_PROJ_TOL];
    int it = 0;
    double res = 0.0;
    if (m->nh + closed > 0) { /* the holonomic constraints and the gaps of the closed contacts */
        SbStatus s = newton_positions(inst, t, x, m->nh + closed, eval_Phi,
                                      tight ? 1e-15 * (1.0 + sb_norm_inf(m->nq, x)) : tol, 20, m->constraint_names,
                                      m->nh, &it, &res);
        if (s != SB_OK && !(tight && res <= tol)) return s;
    }
    if (m->nc > 0) project_velocities(inst, t, x, 0);
    if (!sb_all_finite(2 * m->nq, x)) return sb_problem(inst, SB_DISCARD, "the projected state is not finite");
    sb_log(inst, SB_OK, SB_LOG_SOLVER, "projection at t = %.17g: %d Newton iterations, |Phi| = %g", t, it, res);
    return SB_OK;
}

SbStatus sb_reassemble(SbInstance *inst, double t, double *x)
{
    const SbModel *m = inst->m;
    const int rows = m->nh + closed_contacts(inst);
    int it = 0;
    double res = 0.0;
    if (rows > 0) {
        SbStatus s = newton_positions(inst, t, x, rows, eval_Phi, 1e-13 * (1.0 + sb_norm_inf(m->nq, x)),
                                      SB_ASSEMBLY_MAXIT, m->constraint_names, m->nh, &it, &res);
        if (s != SB_OK) return s;
    }
    if (m->nc > 0) project_velocities(inst, t, x, 0);
    if (!sb_all_finite(2 * m->nq, x)) return sb_problem(inst, SB_DISCARD, "the re-assembled state is not finite");
    sb_log(inst, SB_OK, SB_LOG_SOLVER, "re-assembly at t = %.17g: %d Newton iterations, |Phi| = %g", t, it, res);
    return SB_OK;
}

/* ------------------------------------------------------------------------ */
/* initialization                                                           */
/* ------------------------------------------------------------------------ */

SbStatus sb_setup_experiment(SbInstance *inst, const char *function, int tolerance_defined, double tolerance,
                             double start_time, int stop_defined, double stop_time)
{
    if (!isfinite(start_time)) return sb_fail(inst, function, "startTime %g is not finite", start_time);
    if (stop_defined && !(stop_time >= start_time)) /* NaN included */
        return sb_fail(inst, function, "stopTime %g is before startTime %g", stop_time, start_time);
    if (tolerance_defined && !(tolerance > 0.0 && isfinite(tolerance))) /* NaN included */
        return sb_fail(inst, function, "tolerance %g is invalid: it must be positive and finite", tolerance);
    *inst->state.time = start_time;
    inst->history.stop_defined = stop_defined != 0;
    inst->history.stop_time = stop_defined ? stop_time : INFINITY;
    if (tolerance_defined && !(inst->state.flags & SB_FLAG_RTOL_SET) && inst->state.set[SB_SET_IGNORE_TOL] == 0.0) {
        inst->state.set[SB_SET_RTOL] = tolerance; /* checked above: positive and finite */
        inst->state.flags |= SB_FLAG_RTOL_EXPERIMENT;
    }
    sb_changed(inst);
    return SB_OK;
}

/* Start velocities: D dq = beta with the chosen velocities kept and the others changed as little as
   possible (minimum-norm correction).  keep[i] != 0 keeps dq_i.  Returns the largest violation of a
   constraint row afterwards and its index in *worst. */
static double constrained_velocities(SbInstance *inst, double t, double *x, const unsigned char *keep, int *worst)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc;
    double *J = inst->proj.Jrows, *r = inst->proj.rrows, *dx = inst->proj.dx;
    SbPoint pt = sb_point(inst, t, x, NULL, NULL);
    sb_D_beta(&pt, J, r);
    for (int k = 0; k < nc; ++k) {
        for (int j = 0; j < n; ++j) r[k] -= J[k * n + j] * x[n + j];
        for (int j = 0; j < n; ++j)
            if (keep[j]) J[k * n + j] = 0.0; /* a kept velocity is not a correction variable */
    }
    sb_min_norm_step(inst, nc, n, J, r, dx, 0.0); /* initial velocities: exact */
    for (int j = 0; j < n; ++j) x[n + j] += dx[j];
    sb_D_beta(&pt, J, r); /* the violation left: rows the free velocities cannot satisfy */
    double err = 0.0, scale = 1.0;
    *worst = 0;
    for (int k = 0; k < nc; ++k) {
        double v = -r[k];
        for (int j = 0; j < n; ++j) {
            v += J[k * n + j] * x[n + j];
            scale = fmax(scale, fabs(J[k * n + j] * x[n + j]));
        }
        scale = fmax(scale, fabs(r[k]));
        if (!(fabs(v) <= err)) {
            err = fabs(v);
            *worst = k;
        }
    }
    return err / scale;
}

/* Why a start velocity is kept (the values of keep[] in initial_velocities). */
enum { SB_KEEP_HOST = 1, SB_KEEP_HELD = 2, SB_KEEP_START = 3 };

/* Names of the kept velocities, for messages. */
static void kept_names(const SbInstance *inst, const unsigned char *keep, char *buf, size_t size)
{
    static const char *const why[] = {"", "set by the host", "held for assembly", "the model's start value"};
    size_t used = 0;
    buf[0] = '\0';
    for (int j = 0; j < inst->m->nq && used + 4 < size; ++j)
        if (keep[j]) {
            int w = snprintf(buf + used, size - used, "%s'd%s' (%s)", used ? ", " : "", inst->m->coordinate_names[j],
                             why[keep[j] <= SB_KEEP_START ? keep[j] : 0]);
            if (w < 0) break;
            used += (size_t)w < size - used ? (size_t)w : size - used - 1;
        }
    if (!used) snprintf(buf, size, "none");
}

/* Rank of the constraint rows that the velocities not kept (keep == NULL: all) can satisfy: of
   D_f D_f^T, D_f the columns of D of the free velocities, at the tolerance of min_norm_step relative
   to *scale, the largest diagonal entry of D D^T (set when keep == NULL). */
static int free_rank(SbInstance *inst, double t, const double *x, const unsigned char *keep, double *scale)
{
    const int n = inst->m->nq, nc = inst->m->nc;
    double *J = inst->proj.Jrows, gmax = 0.0;
    SbPoint pt = sb_point(inst, t, x, NULL, NULL);
    sb_D_beta(&pt, J, inst->proj.rrows);
    if (keep)
        for (int k = 0; k < nc; ++k)
            for (int j = 0; j < n; ++j)
                if (keep[j]) J[k * n + j] = 0.0;
    sb_gram(nc, n, J, inst->proj.G);
    for (int k = 0; k < nc; ++k) gmax = fmax(gmax, inst->proj.G[k * nc + k]);
    if (!keep) *scale = gmax;
    if (!(gmax > 1e-12 * *scale)) return 0;
    return sb_lu_factor(nc, inst->proj.G, inst->proj.gprow, inst->proj.gpcol, 1e-12 * *scale / gmax);
}

/* Completes the kept velocities (those the host set) with the model's start velocities: first the
   independent ones (those symbody.numeric.solve_velocities keeps at the model's start configuration,
   sb_model.independent), then those of the coordinates held for assembly (with_held), then the others
   in order; each is kept while the free velocities still satisfy every constraint row all can (the
   same rank).  The free velocities are then determined by the kept ones: none is changed arbitrarily
   (a minimum-norm change mixes units: a bicycle's forward speed went to a steer rate). */
static void complete_kept(SbInstance *inst, double t, const double *x, unsigned char *keep, int with_held)
{
    const SbModel *m = inst->m;
    double scale = 0.0;
    const int rank = free_rank(inst, t, x, NULL, &scale);
    for (int pass = 0; pass < 3; ++pass)
        for (int j = 0; j < m->nq; ++j) {
            int held = 0;
            for (int k = 0; k < m->ninit; ++k) held |= m->init_fix[k] == j;
            if (keep[j] || (pass == 0 && !m->independent[j]) || (pass == 1 && !(held && with_held))) continue;
            keep[j] = (unsigned char)(pass == 1 ? SB_KEEP_HELD : SB_KEEP_START);
            if (free_rank(inst, t, x, keep, &scale) < rank) keep[j] = 0;
        }
}

/* Initial velocities: the start velocities the host set are kept exactly (they are the independent
   velocities, as `independent` of symbody.numeric.solve_velocities); the model's own start velocities
   complete them (complete_kept: its independent ones first, as solve_velocities keeps them), those of
   the coordinates held for assembly when that is consistent.  The others follow from the constraints.
   When the host's velocities over-determine the motion, those it set to the model's own start values
   (tools that set every start value) give way first.  Start velocities that still contradict the
   constraints are an error naming the row. */
static SbStatus initial_velocities(SbInstance *inst, double t, double *x)
{
    const SbModel *m = inst->m;
    const int n = m->nq;
    unsigned char *keep = (unsigned char *)inst->dyn.stmp; /* n bytes fit in (n + nc) doubles */
    int held = 0, worst = 0;
    for (int j = 0; j < n; ++j) keep[j] = inst->history.dq_set[j] ? SB_KEEP_HOST : 0;
    complete_kept(inst, t, x, keep, 1);
    for (int j = 0; j < n; ++j) held |= keep[j] == SB_KEEP_HELD;
    double *start = inst->proj.qfix + n;  /* start velocities */
    double err = constrained_velocities(inst, t, x, keep, &worst);
    if (!(err <= 1e-9) && held) { /* the held coordinates' start velocities give way to the host's */
        memcpy(x + n, start, (size_t)n * sizeof(double));
        for (int j = 0; j < n; ++j) keep[j] = inst->history.dq_set[j] ? SB_KEEP_HOST : 0;
        complete_kept(inst, t, x, keep, 0);
        err = constrained_velocities(inst, t, x, keep, &worst);
        sb_log(inst, SB_OK, SB_LOG_EVENTS,
               "initial velocities: the start velocities of coordinates held for assembly follow from the "
               "constraints and the velocities set by the host");
    }
    int defaults = 0; /* tools that set every start value also set the model's own: those give way last */
    for (int j = 0; j < n; ++j) defaults |= inst->history.dq_set[j] && start[j] == m->dq0[j];
    if (!(err <= 1e-9) && defaults) {
        memcpy(x + n, start, (size_t)n * sizeof(double));
        for (int j = 0; j < n; ++j) keep[j] = inst->history.dq_set[j] && start[j] != m->dq0[j] ? SB_KEEP_HOST : 0;
        complete_kept(inst, t, x, keep, 0);
        err = constrained_velocities(inst, t, x, keep, &worst);
        sb_log(inst, SB_OK, SB_LOG_EVENTS,
               "initial velocities: velocities the host set to the model's start values follow from the "
               "constraints and the velocities it changed");
    }
    if (!(err <= 1e-9)) {
        char names[400];
        kept_names(inst, keep, names, sizeof names);
        return sb_fail(inst, "ExitInitializationMode",
                       "the start velocities contradict constraint '%s' (relative violation %.3g): kept velocities: "
                       "%s; set only independent velocities (as many as the degrees of freedom), the others are "
                       "computed from the constraints",
                       m->constraint_names[worst], err, names);
    }
    int moved = -1; /* the start velocity the constraints changed most */
    for (int j = 0; j < n; ++j)
        if (x[n + j] != start[j] && (moved < 0 || fabs(x[n + j] - start[j]) > fabs(x[n + moved] - start[moved])))
            moved = j;
    if (moved >= 0) {
        char names[400];
        kept_names(inst, keep, names, sizeof names);
        sb_log(inst, SB_OK, SB_LOG_EVENTS,
               "initial velocities: kept %s; the others follow from the constraints ('d%s' from %g to %g)", names,
               m->coordinate_names[moved], start[moved], x[n + moved]);
    }
    return SB_OK;
}

SbStatus sb_enter_initialization(SbInstance *inst)
{
    inst->state.mode = SB_MODE_INIT;
    return SB_OK;
}

SbStatus sb_exit_initialization(SbInstance *inst)
{
    const SbModel *m = inst->m;
    const int n = m->nq;
    for (int i = 0; i < m->np; ++i)
        if (!isfinite(inst->state.p[i])) {
            for (int k = 0; k < m->nvars; ++k)
                if (m->variables[k].kind == SB_VAR_P && m->variables[k].index == i)
                    return sb_fail(inst, "ExitInitializationMode", "parameter '%s' is not finite",
                                   m->variables[k].name);
        }
    const int nx = sb_nx(m);
    if (!sb_all_finite(nx, inst->state.x))
        return sb_fail(inst, "ExitInitializationMode", "the initial state is not finite");
    if (m->nc > 0) {
        /* assemble: Newton on Phi_init (coordinates fixed for assembly keep their start values), then velocities */
        double *xs = inst->proj.xwork; /* work on a copy so that a failure leaves the state untouched */
        memcpy(xs, inst->state.x, (size_t)nx * sizeof(double));
        memcpy(inst->proj.qfix, inst->state.x, (size_t)nx * sizeof(double));
        int it = 0;
        double res = 0.0;
        if (m->ninit > 0) {
            double tol = inst->state.set[SB_SET_PROJ_TOL];
            SbStatus s = newton_positions(inst, *inst->state.time, xs, m->ninit, eval_Phi_init, 1e-3 * tol,
                                          SB_ASSEMBLY_MAXIT, m->init_names, m->ninit, &it, &res);
            if (s != SB_OK && !(res <= tol))
                return sb_fail(inst, "ExitInitializationMode", "assembly of the initial configuration failed: %s",
                               inst->problem);
        }
        SbStatus sv = initial_velocities(inst, *inst->state.time, xs);
        if (sv != SB_OK) return sv;
        if (!sb_all_finite(2 * n, xs))
            return sb_fail(inst, "ExitInitializationMode", "the assembled initial state is not finite");
        memcpy(inst->state.x, xs, (size_t)nx * sizeof(double));
        sb_seed_row_reference(inst, *inst->state.time);
        sb_log(inst, SB_OK, SB_LOG_EVENTS, "assembled the initial configuration: %d Newton iterations, |Phi| = %g", it,
               res);
    }
    sb_changed(inst);
    if (SB_EVENTS(m) > 0) { /* the contact and friction modes at the start (Model Exchange too: outputs read
                               before the host's first event iteration see them) */
        int changed = 0;
        SbStatus se = sb_check_coefficients(inst, "ExitInitializationMode", 1);
        if (se == SB_OK) se = sb_initial_contacts(inst, "ExitInitializationMode");
        if (se == SB_OK) se = sb_events_resolve(inst, "ExitInitializationMode", &changed);
        if (se != SB_OK) return se;
    }
    SbStatus s = sb_update(inst);
    if (s != SB_OK)
        return sb_fail(inst, "ExitInitializationMode", "the initial state is not admissible: %s", inst->problem);
    inst->state.mode = inst->interface == SB_ME ? SB_MODE_EVENT : SB_MODE_STEP;
    inst->state.flags |= SB_FLAG_INITIALIZED;
    sb_log(inst, SB_OK, SB_LOG_EVENTS, "initialized at t = %g", *inst->state.time);
    return SB_OK;
}
