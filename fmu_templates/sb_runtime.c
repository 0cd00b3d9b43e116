/*
 * sb_runtime.c -- instance, variables, dynamics, assembly, directional
 * derivatives and FMU state of a symbody FMU (see sb_runtime.h).
 *
 * Nothing here aborts or exits: every failure is reported to the caller as a
 * status with a log message naming the variable, equation or call at fault,
 * and the state is left untouched by failed calls.
 */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_linalg.h"
#include "sb_runtime.h"
#include "sb_solver.h"

#define SB_RANK_RTOL 1e-13     /* relative pivot threshold of the augmented matrix */
#define SB_FILTER_SWITCH 1e-4  /* D M^-1 D^T with a pivot below this (relative): filtered multipliers */
#define SB_VANISHING_ROW 1e-4  /* ... also when a row's squared norm falls below this part of its largest */
#define SB_CORR_REG 1e-6       /* regularization of position and velocity corrections, relative to |D| */
#define SB_ASSEMBLY_MAXIT 50   /* Newton iterations of the assembly */

const char *const sb_log_category_names[7] = {"logEvents",      "logStatusWarning", "logStatusDiscard", "logStatusError",
                                              "logStatusFatal", "logSolver",        "logCalls"};

static const char *const mode_names[] = {"instantiated", "initialization mode", "event mode", "continuous-time mode",
                                         "step mode",    "terminated",          "error"};

/* ------------------------------------------------------------------------ */
/* logging                                                                  */
/* ------------------------------------------------------------------------ */

static const char *category_name(unsigned category)
{
    for (int i = 0; i < 7; ++i)
        if (category == (1u << i)) return sb_log_category_names[i];
    return "logEvents";
}

static void vlog(SbInstance *inst, SbStatus status, unsigned category, const char *fmt, va_list ap)
{
    if (!inst || !inst->logger || !(inst->log_mask & category)) return;
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    inst->logger(inst, status, category_name(category), buf);
}

void sb_log(SbInstance *inst, SbStatus status, unsigned category, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(inst, status, category, fmt, ap);
    va_end(ap);
}

SbStatus sb_fail(SbInstance *inst, const char *function, const char *fmt, ...)
{
    char buf[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sb_log(inst, SB_ERROR, SB_LOG_ERROR, "%s: %s", function, buf);
    return SB_ERROR;
}

/* Report a numerical problem: remembered in inst->problem for the caller's message. */
static SbStatus problem(SbInstance *inst, SbStatus status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(inst->problem, sizeof inst->problem, fmt, ap);
    va_end(ap);
    return status;
}

SbStatus sb_set_debug_logging(SbInstance *inst, int on, size_t n, const char *const categories[])
{
    if (n == 0) {
        inst->logging_on = on;
        inst->log_mask = on ? SB_LOG_ALL : 0u;
        return SB_OK;
    }
    if (!categories) return sb_fail(inst, "SetDebugLogging", "categories is NULL but nCategories = %lu",
                                      (unsigned long)n);
    for (size_t k = 0; k < n; ++k) {
        int found = -1;
        for (int i = 0; i < 7; ++i)
            if (categories[k] && strcmp(categories[k], sb_log_category_names[i]) == 0) found = i;
        if (found < 0 && categories[k] && strcmp(categories[k], "logAll") == 0) {
            inst->log_mask = on ? SB_LOG_ALL : 0u;
            continue;
        }
        if (found < 0)
            return sb_fail(inst, "SetDebugLogging", "unknown log category '%s'", categories[k] ? categories[k] : "(null)");
        if (on)
            inst->log_mask |= 1u << found;
        else
            inst->log_mask &= ~(1u << found);
    }
    inst->logging_on = on;
    return SB_OK;
}

int sb_allowed(SbInstance *inst, const char *function, unsigned modes)
{
    if (modes & SB_IN(inst->state.mode)) return 1;
    sb_log(inst, SB_ERROR, SB_LOG_ERROR, "%s: not allowed in %s", function, mode_names[inst->state.mode]);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* lifecycle                                                                */
/* ------------------------------------------------------------------------ */

static void *zalloc(size_t count, size_t size, int *ok)
{
    void *p = calloc(count > 0 ? count : 1, size);
    if (!p) *ok = 0;
    return p;
}

static int imax(int a, int b) { return a > b ? a : b; }

SbInstance *sb_instantiate(const SbModel *m, SbInterface interface, const char *name, const char *token, void *env,
                           SbLogger logger, const void *host, int logging_on)
{
    SbInstance probe; /* for messages before the instance exists */
    memset(&probe, 0, sizeof probe);
    probe.m = m;
    probe.name = (char *)(name ? name : "symbody");
    probe.env = env;
    probe.logger = logger;
    probe.host = host;
    probe.log_mask = SB_LOG_ERROR | SB_LOG_FATAL;

    if (token && strcmp(token, m->token) != 0) {
        sb_fail(&probe, "Instantiate", "instantiation token '%s' does not match the FMU's '%s'", token, m->token);
        return NULL;
    }
    if ((interface == SB_ME && !m->has_me) || (interface == SB_CS && !m->has_cs)) {
        sb_fail(&probe, "Instantiate", "this FMU was built without the %s interface",
                interface == SB_ME ? "Model Exchange" : "Co-Simulation");
        return NULL;
    }

    int ok = 1;
    SbInstance *inst = zalloc(1, sizeof *inst, &ok);
    if (!ok) {
        sb_fail(&probe, "Instantiate", "out of memory");
        return NULL;
    }
    const int n = m->nq, nc = m->nc, nh = m->nh, ni = m->ninit, nu = m->nu, np = m->np, ny = m->ny;
    const int na = n + nc, nx = 2 * n, nr = imax(ni, nc + ni);
    inst->m = m;
    inst->interface = interface;
    inst->env = env;
    inst->logger = logger;
    inst->host = host;
    inst->logging_on = logging_on;
    inst->log_mask = logging_on ? SB_LOG_ALL : (SB_LOG_WARNING | SB_LOG_DISCARD | SB_LOG_ERROR | SB_LOG_FATAL);
    inst->name = zalloc(strlen(probe.name) + 1, 1, &ok);
    if (inst->name) strcpy(inst->name, probe.name);

    inst->state.nS = 1 + nx + nu + np + SB_N_SETTINGS + 1;
    inst->state.S = zalloc((size_t)inst->state.nS, sizeof(double), &ok);
    inst->cache.ddq = zalloc(n, sizeof(double), &ok);
    inst->cache.lam = zalloc(nc, sizeof(double), &ok);
    inst->cache.y = zalloc(ny, sizeof(double), &ok);
    inst->dyn.na = na;
    inst->dyn.M = zalloc((size_t)n * n, sizeof(double), &ok);
    inst->dyn.delta = zalloc(n, sizeof(double), &ok);
    inst->dyn.D = zalloc((size_t)nc * n, sizeof(double), &ok);
    inst->dyn.beta = zalloc(nc, sizeof(double), &ok);
    inst->dyn.gamma = zalloc(nc, sizeof(double), &ok);
    inst->dyn.Phi = zalloc(nh, sizeof(double), &ok);
    inst->dyn.Phi_q = zalloc((size_t)nh * n, sizeof(double), &ok);
    inst->dyn.A = zalloc((size_t)na * na, sizeof(double), &ok);
    inst->dyn.Mf = zalloc((size_t)n * n, sizeof(double), &ok);
    inst->dyn.X = zalloc((size_t)nc * n, sizeof(double), &ok);
    inst->dyn.Sf = zalloc((size_t)nc * nc, sizeof(double), &ok);
    inst->dyn.stmp = zalloc(na, sizeof(double), &ok);
    inst->dyn.sw = zalloc(nc, sizeof(double), &ok);
    inst->dyn.row_ref = zalloc(nc, sizeof(double), &ok);
    inst->dyn.prow = zalloc(na, sizeof(int), &ok);
    inst->dyn.pcol = zalloc(na, sizeof(int), &ok);
    inst->dyn.rhs = zalloc(na, sizeof(double), &ok);
    inst->dyn.sol = zalloc(na, sizeof(double), &ok);
    inst->jac.R_q = zalloc((size_t)na * n, sizeof(double), &ok);
    inst->jac.R_dq = zalloc((size_t)na * n, sizeof(double), &ok);
    inst->jac.R_u = zalloc((size_t)na * nu, sizeof(double), &ok);
    inst->jac.R_t = zalloc(na, sizeof(double), &ok);
    inst->jac.V_q = zalloc((size_t)nc * n, sizeof(double), &ok);
    inst->jac.V_t = zalloc(nc, sizeof(double), &ok);
    inst->jac.Y_q = zalloc((size_t)ny * n, sizeof(double), &ok);
    inst->jac.Y_dq = zalloc((size_t)ny * n, sizeof(double), &ok);
    inst->jac.Y_u = zalloc((size_t)ny * nu, sizeof(double), &ok);
    inst->jac.Y_t = zalloc(ny, sizeof(double), &ok);
    inst->jac.Y_ddq = zalloc((size_t)ny * n, sizeof(double), &ok);
    inst->jac.Y_lam = zalloc((size_t)ny * nc, sizeof(double), &ok);
    inst->jac.sq = zalloc(n, sizeof(double), &ok);
    inst->jac.sdq = zalloc(n, sizeof(double), &ok);
    inst->jac.su = zalloc(nu, sizeof(double), &ok);
    inst->jac.dsol = zalloc(na, sizeof(double), &ok);
    inst->proj.nrows = nr;
    inst->proj.Jrows = zalloc((size_t)nr * n, sizeof(double), &ok);
    inst->proj.rrows = zalloc(nr, sizeof(double), &ok);
    inst->proj.G = zalloc((size_t)nr * nr, sizeof(double), &ok);
    inst->proj.gprow = zalloc(nr, sizeof(int), &ok);
    inst->proj.gpcol = zalloc(nr, sizeof(int), &ok);
    inst->proj.ytmp = zalloc(nr, sizeof(double), &ok);
    inst->proj.dx = zalloc(n, sizeof(double), &ok);
    inst->proj.xwork = zalloc(nx, sizeof(double), &ok);
    inst->proj.qfix = zalloc(nx, sizeof(double), &ok);
    inst->history.dq_set = zalloc(n, 1, &ok);
    if (ok && interface == SB_CS && sb_solver_alloc(inst) != SB_OK) ok = 0;
    if (!ok) {
        sb_fail(&probe, "Instantiate", "out of memory");
        sb_free(inst);
        return NULL;
    }
    inst->state.time = inst->state.S;
    inst->state.x = inst->state.S + 1;
    inst->state.u = inst->state.x + nx;
    inst->state.p = inst->state.u + nu;
    inst->state.set = inst->state.p + np;
    inst->state.h_next = inst->state.set + SB_N_SETTINGS;
    sb_reset(inst);
    return inst;
}

void sb_free(SbInstance *inst)
{
    if (!inst) return;
    sb_solver_free(inst);
    void *blocks[] = {inst->name,  inst->state.S,     inst->cache.ddq,  inst->cache.lam,   inst->cache.y,     inst->dyn.M,     inst->dyn.delta,
                      inst->dyn.D,     inst->dyn.beta,  inst->dyn.gamma, inst->dyn.Phi,  inst->dyn.Phi_q, inst->dyn.A,     inst->dyn.Mf,    inst->dyn.X,     inst->dyn.Sf,    inst->dyn.stmp,  inst->dyn.sw,  inst->dyn.row_ref,  inst->dyn.prow,
                      inst->dyn.pcol,  inst->dyn.rhs,   inst->dyn.sol,  inst->jac.R_q,   inst->jac.R_dq,  inst->jac.R_u,   inst->jac.R_t,
                      inst->jac.V_q,   inst->jac.V_t,   inst->jac.Y_q,  inst->jac.Y_dq,  inst->jac.Y_u,   inst->jac.Y_t,   inst->jac.Y_ddq,
                      inst->jac.Y_lam, inst->jac.sq,    inst->jac.sdq,  inst->jac.su,    inst->jac.dsol,  inst->proj.G,     inst->proj.gprow,
                      inst->proj.gpcol, inst->proj.Jrows, inst->proj.rrows, inst->proj.ytmp, inst->proj.dx,    inst->proj.xwork, inst->proj.qfix,
                      inst->history.dq_set};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; ++i) free(blocks[i]);
    free(inst);
}

void sb_reset(SbInstance *inst)
{
    const SbModel *m = inst->m;
    const int n = m->nq;
    *inst->state.time = 0.0;
    for (int i = 0; i < n; ++i) {
        inst->state.x[i] = m->q0[i];
        inst->state.x[n + i] = m->dq0[i];
    }
    for (int i = 0; i < m->nu; ++i) inst->state.u[i] = m->u0[i];
    for (int i = 0; i < m->np; ++i) inst->state.p[i] = m->p0[i];
    for (int i = 0; i < SB_N_SETTINGS; ++i) inst->state.set[i] = m->settings0[i];
    *inst->state.h_next = 0.0;
    inst->state.mode = SB_MODE_INSTANTIATED;
    inst->state.flags = 0;
    inst->cache.valid = 0;
    inst->history.stop_defined = 0;
    inst->history.stop_time = INFINITY;
    inst->history.discards = 0;
    memset(inst->history.dq_set, 0, (size_t)(n > 0 ? n : 1));
}

/* ------------------------------------------------------------------------ */
/* variables                                                                */
/* ------------------------------------------------------------------------ */

const SbVariable *sb_variable(SbInstance *inst, const char *function, unsigned vr)
{
    if (vr >= (unsigned)inst->m->nvars) {
        sb_fail(inst, function, "unknown value reference %u (this FMU has %d variables)", vr, inst->m->nvars);
        return NULL;
    }
    return &inst->m->variables[vr];
}

static const char *type_name(SbVarType t)
{
    return t == SB_TYPE_REAL ? "Real/Float64" : (t == SB_TYPE_ENUM ? "Integer/Int64" : "Boolean");
}

static const SbVariable *typed_variable(SbInstance *inst, const char *function, unsigned vr, SbVarType type)
{
    const SbVariable *v = sb_variable(inst, function, vr);
    if (v && v->type != type) {
        sb_fail(inst, function, "variable '%s' (value reference %u) is of type %s, not %s", v->name, vr,
                type_name(v->type), type_name(type));
        return NULL;
    }
    return v;
}

/* Value of a calculated variable: make sure ddq, lam, y belong to the state. */
static SbStatus need_update(SbInstance *inst, const char *function, const SbVariable *v)
{
    SbStatus s = sb_update(inst);
    if (s != SB_OK)
        sb_log(inst, s, s == SB_DISCARD ? SB_LOG_DISCARD : SB_LOG_ERROR, "%s: cannot compute '%s' at t = %g: %s",
               function, v->name, *inst->state.time, inst->problem);
    return s;
}

SbStatus sb_get_real(SbInstance *inst, const char *function, const unsigned *vr, size_t n, double *values)
{
    if (n > 0 && (!vr || !values)) return sb_fail(inst, function, "NULL value reference or value array");
    const int nq = inst->m->nq;
    for (size_t k = 0; k < n; ++k) {
        const SbVariable *v = typed_variable(inst, function, vr[k], SB_TYPE_REAL);
        if (!v) return SB_ERROR;
        switch (v->kind) {
        case SB_VAR_TIME: values[k] = *inst->state.time; break;
        case SB_VAR_Q: values[k] = inst->state.x[v->index]; break;
        case SB_VAR_DQ: values[k] = inst->state.x[nq + v->index]; break;
        case SB_VAR_U: values[k] = inst->state.u[v->index]; break;
        case SB_VAR_P: values[k] = inst->state.p[v->index]; break;
        case SB_VAR_SETTING: values[k] = inst->state.set[v->index]; break;
        case SB_VAR_DDQ:
        case SB_VAR_Y: {
            SbStatus s = need_update(inst, function, v);
            if (s != SB_OK) return s;
            values[k] = v->kind == SB_VAR_DDQ ? inst->cache.ddq[v->index] : inst->cache.y[v->index];
            if (!isfinite(values[k])) { /* an output expression outside its domain (ddq are checked) */
                sb_log(inst, SB_DISCARD, SB_LOG_DISCARD, "%s: output '%s' is not finite at t = %g", function, v->name,
                       *inst->state.time);
                return SB_DISCARD;
            }
            break;
        }
        }
    }
    return SB_OK;
}

/* Range check of settings (solver.*, baumgarte.*). */
static int setting_ok(SbSetting s, double value)
{
    switch (s) {
    case SB_SET_METHOD: return value == SB_METHOD_RK4 || value == SB_METHOD_DOPRI5 || value == SB_METHOD_ROSENBROCK23;
    case SB_SET_STEP:
    case SB_SET_RTOL:
    case SB_SET_ATOL:
    case SB_SET_PROJ_TOL: return value > 0.0;
    case SB_SET_PROJECTION:
    case SB_SET_IGNORE_TOL: return value == 0.0 || value == 1.0;
    default: return value >= 0.0;
    }
}

static const char *setting_rule(SbSetting s)
{
    switch (s) {
    case SB_SET_METHOD: return "1 (rk4), 2 (dopri5) or 3 (rosenbrock23)";
    case SB_SET_STEP:
    case SB_SET_RTOL:
    case SB_SET_ATOL:
    case SB_SET_PROJ_TOL: return "positive";
    case SB_SET_PROJECTION:
    case SB_SET_IGNORE_TOL: return "true or false";
    default: return "zero or positive";
    }
}

/* Which modes allow setting a variable of this kind. */
static unsigned settable_modes(const SbVariable *v)
{
    switch (v->kind) {
    case SB_VAR_Q:
    case SB_VAR_DQ: return SB_IN(SB_MODE_INSTANTIATED) | SB_IN(SB_MODE_INIT);
    case SB_VAR_U:
        return SB_IN(SB_MODE_INSTANTIATED) | SB_IN(SB_MODE_INIT) | SB_IN(SB_MODE_EVENT) | SB_IN(SB_MODE_CONTINUOUS) |
               SB_IN(SB_MODE_STEP);
    case SB_VAR_P:
    case SB_VAR_SETTING:
        return SB_IN(SB_MODE_INSTANTIATED) | SB_IN(SB_MODE_INIT) | SB_IN(SB_MODE_EVENT) | SB_IN(SB_MODE_STEP);
    default: return 0u;
    }
}

static SbStatus check_range(SbInstance *inst, const char *function, const SbVariable *v, double value);

/* Check that a value may be set: mode, finiteness and range. */
static SbStatus check_value(SbInstance *inst, const char *function, const SbVariable *v, double value)
{
    if (!(settable_modes(v) & SB_IN(inst->state.mode))) {
        if (settable_modes(v) == 0u)
            return sb_fail(inst, function, "variable '%s' is calculated by the FMU and cannot be set", v->name);
        return sb_fail(inst, function, "variable '%s' cannot be set in %s", v->name, mode_names[inst->state.mode]);
    }
    return check_range(inst, function, v, value);
}

/* Check a value against its variable's rules: finite, inside [min, max], a valid setting. */
static SbStatus check_range(SbInstance *inst, const char *function, const SbVariable *v, double value)
{
    if (!isfinite(value)) return sb_fail(inst, function, "value %g of variable '%s' is not finite", value, v->name);
    if (v->kind == SB_VAR_SETTING) {
        if (!setting_ok((SbSetting)v->index, value))
            return sb_fail(inst, function, "value %g of '%s' is invalid: it must be %s", value, v->name,
                           setting_rule((SbSetting)v->index));
    } else if (value < v->min || value > v->max) {
        return sb_fail(inst, function, "value %g of variable '%s' is outside its range [%g, %g]", value, v->name,
                       v->min, v->max);
    }
    return SB_OK;
}

/* Store a checked value. */
static void store_value(SbInstance *inst, const SbVariable *v, double value)
{
    const int nq = inst->m->nq;
    switch (v->kind) {
    case SB_VAR_Q: inst->state.x[v->index] = value; break;
    case SB_VAR_DQ:
        inst->state.x[nq + v->index] = value;
        inst->history.dq_set[v->index] = 1; /* a velocity the host chose: kept by the assembly */
        break;
    case SB_VAR_U: inst->state.u[v->index] = value; break;
    case SB_VAR_P:
        inst->state.p[v->index] = value;
        inst->dyn.psd_checked = 0; /* a mass or an inertia may have changed sign */
        break;
    case SB_VAR_SETTING:
        if (v->index == SB_SET_METHOD && inst->state.set[v->index] != value) *inst->state.h_next = 0.0;
        if (v->index == SB_SET_RTOL) inst->state.flags = (inst->state.flags | SB_FLAG_RTOL_SET) & ~SB_FLAG_RTOL_EXPERIMENT;
        inst->state.set[v->index] = value;
        if (v->index == SB_SET_IGNORE_TOL && value != 0.0 && (inst->state.flags & SB_FLAG_RTOL_EXPERIMENT)) {
            inst->state.set[SB_SET_RTOL] = inst->m->settings0[SB_SET_RTOL]; /* undo an earlier fmi2SetupExperiment */
            inst->state.flags &= ~SB_FLAG_RTOL_EXPERIMENT;
        }
        break;
    default: break;
    }
}

SbStatus sb_check_state_values(SbInstance *inst, const char *function, const double *S)
{
    const SbModel *m = inst->m;
    const int nq = m->nq, nx = 2 * nq;
    if (!isfinite(S[0])) return sb_fail(inst, function, "the time %g of the FMU state is not finite", S[0]);
    for (int k = 0; k < m->nvars; ++k) { /* the same rules as a host's Set: finite, in range, valid settings */
        const SbVariable *v = &m->variables[k];
        const double *x = S + 1, *u = x + nx, *p = u + m->nu, *set = p + m->np;
        double value;
        switch (v->kind) {
        case SB_VAR_Q: /* states come from the integration: finite, not necessarily inside a start range */
        case SB_VAR_DQ:
            value = x[(v->kind == SB_VAR_DQ ? nq : 0) + v->index];
            if (!isfinite(value))
                return sb_fail(inst, function, "value %g of variable '%s' is not finite", value, v->name);
            continue;
        case SB_VAR_U: value = u[v->index]; break;
        case SB_VAR_P: value = p[v->index]; break;
        case SB_VAR_SETTING: value = set[v->index]; break;
        default: continue;
        }
        if (check_range(inst, function, v, value) != SB_OK) return SB_ERROR;
    }
    const double h_next = S[inst->state.nS - 1];
    if (!(isfinite(h_next) && h_next >= 0.0))
        return sb_fail(inst, function, "the solver step size %g of the FMU state is invalid", h_next);
    return SB_OK;
}

SbStatus sb_set_values(SbInstance *inst, const char *function, const unsigned *vr, size_t n, SbVarType type,
                       const void *values, SbValueAt at)
{
    if (n > 0 && (!vr || !values)) return sb_fail(inst, function, "NULL value reference or value array");
    for (size_t k = 0; k < n; ++k) { /* check everything first: a rejected call sets nothing */
        const SbVariable *v = typed_variable(inst, function, vr[k], type);
        if (!v) return SB_ERROR;
        SbStatus s = check_value(inst, function, v, at(values, k));
        if (s != SB_OK) return s;
    }
    for (size_t k = 0; k < n; ++k) store_value(inst, &inst->m->variables[vr[k]], at(values, k));
    if (n > 0) sb_changed(inst);
    return SB_OK;
}

static double real_at(const void *values, size_t k) { return ((const double *)values)[k]; }
static double int_at(const void *values, size_t k) { return (double)((const long long *)values)[k]; }
static double bool_at(const void *values, size_t k) { return ((const int *)values)[k] ? 1.0 : 0.0; }

SbStatus sb_set_real(SbInstance *inst, const char *function, const unsigned *vr, size_t n, const double *values)
{
    return sb_set_values(inst, function, vr, n, SB_TYPE_REAL, values, real_at);
}

SbStatus sb_get_int(SbInstance *inst, const char *function, const unsigned *vr, size_t n, long long *values)
{
    if (n > 0 && (!vr || !values)) return sb_fail(inst, function, "NULL value reference or value array");
    for (size_t k = 0; k < n; ++k) {
        const SbVariable *v = typed_variable(inst, function, vr[k], SB_TYPE_ENUM);
        if (!v) return SB_ERROR;
        values[k] = (long long)inst->state.set[v->index];
    }
    return SB_OK;
}

SbStatus sb_set_int(SbInstance *inst, const char *function, const unsigned *vr, size_t n, const long long *values)
{
    return sb_set_values(inst, function, vr, n, SB_TYPE_ENUM, values, int_at);
}

SbStatus sb_get_bool(SbInstance *inst, const char *function, const unsigned *vr, size_t n, int *values)
{
    if (n > 0 && (!vr || !values)) return sb_fail(inst, function, "NULL value reference or value array");
    for (size_t k = 0; k < n; ++k) {
        const SbVariable *v = typed_variable(inst, function, vr[k], SB_TYPE_BOOLEAN);
        if (!v) return SB_ERROR;
        values[k] = inst->state.set[v->index] != 0.0;
    }
    return SB_OK;
}

SbStatus sb_set_bool(SbInstance *inst, const char *function, const unsigned *vr, size_t n, const int *values)
{
    return sb_set_values(inst, function, vr, n, SB_TYPE_BOOLEAN, values, bool_at);
}

/* ------------------------------------------------------------------------ */
/* dynamics                                                                 */
/* ------------------------------------------------------------------------ */

static SbPoint point(const SbInstance *inst, double t, const double *x, const double *ddq, const double *lam)
{
    SbPoint pt;
    pt.t = t;
    pt.q = x;
    pt.dq = x + inst->m->nq;
    pt.u = inst->state.u;
    pt.p = inst->state.p;
    pt.ddq = ddq;
    pt.lam = lam;
    return pt;
}

/* Name of the first non-finite entry of a block, for messages. */
static int first_nonfinite(int n, const double *v)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i])) return i;
    return -1;
}

/* Discard naming the first non-finite entry of the blocks sb_accelerations evaluated, or SB_OK. */
static SbStatus nonfinite_blocks(SbInstance *inst)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, nh = m->nh;
    int bad;
    if ((bad = first_nonfinite(n * n, inst->dyn.M)) >= 0)
        return problem(inst, SB_DISCARD, "mass matrix entry M(%s, %s) is not finite", m->coordinate_names[bad / n],
                       m->coordinate_names[bad % n]);
    if ((bad = first_nonfinite(n, inst->dyn.delta)) >= 0)
        return problem(inst, SB_DISCARD, "generalized force delta(%s) is not finite", m->coordinate_names[bad]);
    if (nc == 0) return SB_OK;
    if ((bad = first_nonfinite(nc * n, inst->dyn.D)) >= 0)
        return problem(inst, SB_DISCARD, "constraint Jacobian row '%s' is not finite", m->constraint_names[bad / n]);
    if ((bad = first_nonfinite(nc, inst->dyn.gamma)) >= 0 || (bad = first_nonfinite(nc, inst->dyn.beta)) >= 0 ||
        (bad = first_nonfinite(nh, inst->dyn.Phi)) >= 0)
        return problem(inst, SB_DISCARD, "constraint '%s' is not finite", m->constraint_names[bad]);
    return SB_OK;
}

/* Solve A z = b with the factorization left by sb_accelerations (b and z may alias):
   SB_FACT_LDLT: A = M = L D L^T (no constraints);
   SB_FACT_SCHUR: range-space method, X = M^-1 D^T, S = D X = L D L^T:
       y = M^-1 b1, lam = S^-1 (D y - b2), z1 = y - X lam, z2 = lam;
       when M is singular (coordinates without inertia, e.g. contact parameters) the same with
       M + rho D^T D in place of M and b1 + rho D^T b2 in place of b1 (augmented Lagrangian):
       positive definite whenever the motions the constraints allow all have inertia;
   SB_FACT_LU: complete-pivoting LU of [M D^T; D 0] (singular M or redundant constraints);
   SB_FACT_FILTER: as SB_FACT_SCHUR with S = V diag(s) V^T and S^-1 replaced by V diag(s / (s^2 + tau^2)) V^T,
       tau = 1e-6 max(s) (sb_singular.c): the exact multipliers where s >> tau, bounded ones where rows of D
       become dependent (a singular position) instead of growing like 1 / s (Tikhonov's regularization). */
static void solve_factored(SbInstance *inst, const double *b, double *z)
{
    const int n = inst->m->nq, nc = inst->m->nc, na = inst->dyn.na;
    switch (inst->dyn.fact) {
    case SB_FACT_LDLT:
        if (z != b) memcpy(z, b, (size_t)na * sizeof(double));
        sb_ldlt_solve(n, inst->dyn.Mf, z);
        break;
    case SB_FACT_SCHUR:
    case SB_FACT_FILTER: {
        double *y = inst->dyn.stmp, *lam = inst->dyn.stmp + n;
        memcpy(y, b, (size_t)n * sizeof(double));
        if (inst->dyn.rho != 0.0) /* [M + rho D^T D, D^T; D, 0] z = [b1 + rho D^T b2; b2]: the same solution */
            for (int r = 0; r < nc; ++r)
                for (int j = 0; j < n; ++j) y[j] += inst->dyn.rho * inst->dyn.D[r * n + j] * b[n + r];
        sb_ldlt_solve(n, inst->dyn.Mf, y);
        for (int r = 0; r < nc; ++r) {
            double v = -b[n + r];
            for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * y[j];
            lam[r] = v;
        }
        if (inst->dyn.fact == SB_FACT_SCHUR) sb_ldlt_solve(nc, inst->dyn.Sf, lam);
        else sb_filter_multipliers(inst, lam);
        for (int i = 0; i < n; ++i) {
            double v = y[i];
            for (int r = 0; r < nc; ++r) v -= inst->dyn.X[r * n + i] * lam[r];
            z[i] = v;
        }
        memcpy(z + n, lam, (size_t)nc * sizeof(double));
        break;
    }
    default: sb_lu_solve(na, inst->dyn.A, inst->dyn.prow, inst->dyn.pcol, inst->dyn.rank, b, z); break;
    }
}

/* Range-space factorization of [M D^T; D 0].  Returns 1 on success, 0 if M is
   not positive definite and -1 if D M^-1 D^T is not (redundant constraints). */
/* Mf = M + rho D^T D with rho = weight max|M_ii| / max_j |D[:, j]|^2 (both terms weigh alike
   for weight 1).  Returns rho, or 0 when D vanishes. */
static double augment_mass(SbInstance *inst, double weight)
{
    const int n = inst->m->nq, nc = inst->m->nc;
    double mmax = 0.0, dmax2 = 0.0;
    memcpy(inst->dyn.Mf, inst->dyn.M, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; ++i) mmax = fmax(mmax, fabs(inst->dyn.M[i * n + i]));
    for (int j = 0; j < n; ++j) {
        double s2 = 0.0;
        for (int r = 0; r < nc; ++r) s2 += inst->dyn.D[r * n + j] * inst->dyn.D[r * n + j];
        dmax2 = fmax(dmax2, s2);
    }
    if (!(dmax2 > 0.0)) return 0.0;
    const double rho = weight * (mmax > 0.0 ? mmax : 1.0) / dmax2;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s2 = 0.0;
            for (int r = 0; r < nc; ++r) s2 += inst->dyn.D[r * n + i] * inst->dyn.D[r * n + j];
            inst->dyn.Mf[i * n + j] += rho * s2;
        }
    return rho;
}

static int factor_schur(SbInstance *inst, int augmented)
{
    const int n = inst->m->nq, nc = inst->m->nc;
    memcpy(inst->dyn.Mf, inst->dyn.M, (size_t)n * n * sizeof(double));
    inst->dyn.rho = 0.0;
    if (augmented && !((inst->dyn.rho = augment_mass(inst, 1.0)) > 0.0)) return 0;
    if (sb_ldlt(n, inst->dyn.Mf)) {
        inst->dyn.rho = 0.0;
        return 0;
    }
    for (int r = 0; r < nc; ++r) { /* X[r] = M^-1 D[r]^T */
        memcpy(inst->dyn.X + (size_t)r * n, inst->dyn.D + (size_t)r * n, (size_t)n * sizeof(double));
        sb_ldlt_solve(n, inst->dyn.Mf, inst->dyn.X + (size_t)r * n);
    }
    for (int r = 0; r < nc; ++r)
        for (int c = r; c < nc; ++c) {
            double v = 0.0;
            for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * inst->dyn.X[c * n + j];
            inst->dyn.Sf[r * nc + c] = inst->dyn.Sf[c * nc + r] = v;
        }
    /* a nearly singular S (redundant constraints) goes to the rank-revealing LU */
    double dmax = 0.0;
    for (int r = 0; r < nc; ++r) dmax = fmax(dmax, fabs(inst->dyn.Sf[r * nc + r]));
    if (sb_ldlt(nc, inst->dyn.Sf)) return -1;
    for (int r = 0; r < nc; ++r)
        if (!(1.0 / inst->dyn.Sf[r * nc + r] > SB_FILTER_SWITCH * dmax)) return -1;
    return 1;
}

/* A mass matrix that is not positive semi-definite (a negative mass or moment
   of inertia) gives accelerations without physical meaning: name the coordinate. */
static SbStatus check_semidefinite(SbInstance *inst)
{
    const int n = inst->m->nq;
    memcpy(inst->dyn.Mf, inst->dyn.M, (size_t)n * n * sizeof(double));
    int bad = sb_semidefinite(n, inst->dyn.Mf, 1e-9);
    if (bad < 0) return SB_OK;
    return problem(inst, SB_DISCARD,
                   "the mass matrix is not positive semi-definite at coordinate '%s': a mass or moment of inertia "
                   "is negative",
                   inst->m->coordinate_names[bad]);
}

static void factor_lu(SbInstance *inst)
{
    const int n = inst->m->nq, nc = inst->m->nc, na = inst->dyn.na;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) inst->dyn.A[i * na + j] = inst->dyn.M[i * n + j];
        for (int r = 0; r < nc; ++r) inst->dyn.A[i * na + n + r] = inst->dyn.D[r * n + i];
    }
    for (int r = 0; r < nc; ++r) {
        for (int j = 0; j < n; ++j) inst->dyn.A[(n + r) * na + j] = inst->dyn.D[r * n + j];
        for (int c = 0; c < nc; ++c) inst->dyn.A[(n + r) * na + n + c] = 0.0;
    }
    inst->dyn.fact = SB_FACT_LU;
    inst->dyn.rank = sb_lu_factor(na, inst->dyn.A, inst->dyn.prow, inst->dyn.pcol, SB_RANK_RTOL);
}

SbStatus sb_accelerations(SbInstance *inst, double t, const double *x, double *ddq, double *lam)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, nh = m->nh, na = inst->dyn.na;
    const double *dq = x + n;
    SbPoint pt = point(inst, t, x, NULL, NULL);
    int bad, schur = 0; /* schur < 0: Mf and X hold a factorization for filtered multipliers */

    /* Non-finite block entries are not scanned here (that costs as much as a small model's
       evaluation): they propagate into the factorization or the solution, and every failure path
       below calls nonfinite_blocks() first to name the entry at fault. */
    sb_M_delta(&pt, inst->dyn.M, inst->dyn.delta);
    memcpy(inst->dyn.rhs, inst->dyn.delta, (size_t)n * sizeof(double));

    if (nc == 0) {
        memcpy(inst->dyn.Mf, inst->dyn.M, (size_t)n * n * sizeof(double));
        inst->dyn.fact = SB_FACT_LDLT;
        inst->dyn.rank = n;
        int k = sb_ldlt(n, inst->dyn.Mf);
        if (k) { /* not positive definite: singular, indefinite or not finite */
            SbStatus s = nonfinite_blocks(inst);
            if (s != SB_OK) return s;
            s = check_semidefinite(inst);
            if (s != SB_OK) return s;
            factor_lu(inst);
            if (inst->dyn.rank < n)
                return problem(inst, SB_DISCARD, "singular mass matrix (rank %d of %d; check coordinate '%s')",
                               inst->dyn.rank, n, m->coordinate_names[k - 1]);
        }
    } else {
        sb_constraints(&pt, inst->dyn.D, inst->dyn.beta, inst->dyn.gamma, inst->dyn.Phi);
        /* rhs = [delta; gamma - 2 alpha (D dq - beta) - beta_b^2 Phi]  (Baumgarte) */
        const double alpha = inst->state.set[SB_SET_ALPHA], bb = inst->state.set[SB_SET_BETA];
        for (int r = 0; r < nc; ++r) {
            double v = -inst->dyn.beta[r];
            for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * dq[j];
            double g = inst->dyn.gamma[r] - 2.0 * alpha * v;
            if (r < nh) g -= bb * bb * inst->dyn.Phi[r];
            inst->dyn.rhs[n + r] = g;
        }
        /* A coordinate without inertia (contact parameters, auxiliary coordinates) has an exact
           zero on the diagonal of M at every state: such models factor M + rho D^T D directly.
           The choice depends on the state only, so a restored FMU state continues bit-identically.
           Semi-definiteness is checked once per parameter set (a negative mass or inertia is a
           parameter's doing; physical inertia is positive semi-definite at every configuration). */
        int massless = 0;
        for (int i = 0; i < n; ++i)
            if (inst->dyn.M[i * n + i] == 0.0) {
                massless = 1;
                break;
            }
        if (massless && !inst->dyn.psd_checked) {
            SbStatus s = nonfinite_blocks(inst);
            if (s != SB_OK) return s;
            s = check_semidefinite(inst);
            if (s != SB_OK) return s;
            inst->dyn.psd_checked = 1;
        }
        schur = factor_schur(inst, massless);
        /* a row whose norm falls far below the largest it has had vanishes: a singular position */
        int vanishing = 0;
        for (int r = 0; r < nc; ++r) {
            double v = 0.0;
            for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * inst->dyn.D[r * n + j];
            if (v > inst->dyn.row_ref[r]) inst->dyn.row_ref[r] = v;
            if (v < SB_VANISHING_ROW * inst->dyn.row_ref[r]) vanishing = 1;
        }
        if (schur == 0 && !massless) { /* M is singular here, indefinite or not finite */
            SbStatus s = nonfinite_blocks(inst);
            if (s != SB_OK) return s;
            if (!inst->dyn.psd_checked) {
                s = check_semidefinite(inst);
                if (s != SB_OK) return s;
                inst->dyn.psd_checked = 1;
            }
            schur = factor_schur(inst, 1);
        }
        if (vanishing && schur != 0) schur = -2; /* straight to the filtered multipliers */
        if (schur > 0) {
            inst->dyn.fact = SB_FACT_SCHUR;
            inst->dyn.rank = na;
        } else if (schur == -2) {
            sb_factor_filter(inst, t);
        } else {
            SbStatus s = nonfinite_blocks(inst);
            if (s != SB_OK) return s;
            factor_lu(inst); /* redundant constraints, or motions without inertia (rank-revealing) */
            /* D M^-1 D^T nearly singular with no row exactly dependent: a singular position */
            if (inst->dyn.rank == na && schur < 0) sb_factor_filter(inst, t);
        }
    }
    solve_factored(inst, inst->dyn.rhs, inst->dyn.sol);
    if (inst->dyn.rank < na) {
        SbStatus s = nonfinite_blocks(inst);
        if (s != SB_OK) return s;
        /* redundant constraints: accept only a consistent system (residual check) */
        double res = 0.0, scale = sb_norm_inf(na, inst->dyn.rhs) + 1.0;
        for (int i = 0; i < n; ++i) {
            double r = -inst->dyn.delta[i];
            for (int j = 0; j < n; ++j) r += inst->dyn.M[i * n + j] * inst->dyn.sol[j];
            for (int c = 0; c < nc; ++c) r += inst->dyn.D[c * n + i] * inst->dyn.sol[n + c];
            if (fabs(r) > res) res = fabs(r);
        }
        for (int c = 0; c < nc; ++c) {
            double r = -inst->dyn.rhs[n + c];
            for (int j = 0; j < n; ++j) r += inst->dyn.D[c * n + j] * inst->dyn.sol[j];
            if (fabs(r) > res) res = fabs(r);
        }
        /* rows dependent only at this instant (a singular position) with a drift the dropped rows
           cannot follow: the augmented Lagrangian continues through it */
        if (!(res <= 1e-8 * scale) && schur < 0) {
            sb_factor_filter(inst, t);
            solve_factored(inst, inst->dyn.rhs, inst->dyn.sol);
        } else if (!(res <= 1e-8 * scale))
            return problem(inst, SB_DISCARD,
                           "singular augmented matrix [M D^T; D 0] (rank %d of %d): the constraints are "
                           "inconsistent or the mass matrix is singular",
                           inst->dyn.rank, na);
        /* the accelerations are unique only if every null vector [v; mu] has v = 0 (redundant
           constraint rows); a v != 0 is a motion allowed by the constraints that has no inertia */
        for (int k = 0; k < na - inst->dyn.rank; ++k) {
            double *z = inst->dyn.stmp;
            sb_lu_null_vector(na, inst->dyn.A, inst->dyn.pcol, inst->dyn.rank, k, z);
            int worst = 0;
            for (int i = 1; i < n; ++i)
                if (fabs(z[i]) > fabs(z[worst])) worst = i;
            if (!(fabs(z[worst]) <= 1e-6 * sb_norm_inf(na, z)))
                return problem(inst, SB_DISCARD,
                               "singular mass matrix on the motions the constraints allow (rank %d of %d of "
                               "[M D^T; D 0]): the motion of coordinate '%s' has no inertia",
                               inst->dyn.rank, na, m->coordinate_names[worst]);
        }
    }
    if ((bad = first_nonfinite(na, inst->dyn.sol)) >= 0) {
        SbStatus s = nonfinite_blocks(inst);
        if (s != SB_OK) return s;
        return problem(inst, SB_DISCARD, "%s '%s' is not finite", bad < n ? "acceleration of" : "multiplier of",
                       bad < n ? m->coordinate_names[bad] : m->constraint_names[bad - n]);
    }
    if (ddq) memcpy(ddq, inst->dyn.sol, (size_t)n * sizeof(double));
    if (lam && nc) memcpy(lam, inst->dyn.sol + n, (size_t)nc * sizeof(double));
    return SB_OK;
}

SbStatus sb_update(SbInstance *inst)
{
    if (inst->cache.valid) return inst->cache.status;
    SbStatus s = sb_accelerations(inst, *inst->state.time, inst->state.x, inst->cache.ddq, inst->cache.lam);
    if (s == SB_OK && inst->m->ny > 0) {
        SbPoint pt = point(inst, *inst->state.time, inst->state.x, inst->cache.ddq, inst->cache.lam);
        sb_outputs(&pt, inst->cache.y);
    }
    inst->cache.valid = 1;
    inst->cache.status = s;
    return s;
}

SbStatus sb_derivatives(SbInstance *inst, double t, const double *x, double *xdot)
{
    const int n = inst->m->nq;
    memmove(xdot, x + n, (size_t)n * sizeof(double));
    /* x and xdot may not alias beyond this point: x + n was read above */
    return sb_accelerations(inst, t, x, xdot + n, NULL);
}

/* Residual Jacobians at (t, x) with inst->dyn.sol = [ddq; lam], including the
   Baumgarte terms of the constraint rows. */
static void residual_jacobians(SbInstance *inst, double t, const double *x)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, nh = m->nh, nu = m->nu;
    SbPoint pt = point(inst, t, x, inst->dyn.sol, inst->dyn.sol + n);
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

SbStatus sb_state_jacobian(SbInstance *inst, double t, const double *x, double *J, double *J_t)
{
    const int n = inst->m->nq, na = inst->dyn.na, nx = 2 * n;
    SbStatus s = sb_accelerations(inst, t, x, NULL, NULL);
    if (s != SB_OK) return s;
    residual_jacobians(inst, t, x);
    memset(J, 0, (size_t)nx * nx * sizeof(double));
    for (int i = 0; i < n; ++i) J[i * nx + n + i] = 1.0;
    double *b = inst->jac.dsol;
    for (int c = 0; c < nx; ++c) { /* column c: d/dq_c or d/ddq_(c-n) */
        const double *R = c < n ? inst->jac.R_q : inst->jac.R_dq;
        int j = c < n ? c : c - n;
        for (int r = 0; r < na; ++r) b[r] = -R[r * n + j];
        solve_factored(inst, b, b);
        for (int i = 0; i < n; ++i) J[(n + i) * nx + c] = b[i];
    }
    if (J_t) {
        for (int r = 0; r < na; ++r) b[r] = -inst->jac.R_t[r];
        solve_factored(inst, b, b);
        for (int i = 0; i < n; ++i) {
            J_t[i] = 0.0;
            J_t[n + i] = b[i];
        }
    }
    if (!sb_all_finite(nx * nx, J)) return problem(inst, SB_DISCARD, "the state Jacobian is not finite");
    return SB_OK;
}

SbStatus sb_directional_derivative(SbInstance *inst, const char *function, const unsigned *unknowns, size_t n_unknowns,
                                   const unsigned *knowns, size_t n_knowns, const double *seed, double *sensitivity)
{
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
    if (need_dyn) {
        SbStatus s = sb_accelerations(inst, *inst->state.time, inst->state.x, NULL, NULL);
        if (s != SB_OK) {
            sb_log(inst, s, SB_LOG_DISCARD, "%s: %s", function, inst->problem);
            return s;
        }
        residual_jacobians(inst, *inst->state.time, inst->state.x);
        /* A d[ddq; lam] = -(R_q sq + R_dq sdq + R_u su) */
        sb_matvec(na, n, inst->jac.R_q, inst->jac.sq, inst->dyn.rhs, 0);
        sb_matvec(na, n, inst->jac.R_dq, inst->jac.sdq, inst->dyn.rhs, 1);
        if (nu) sb_matvec(na, nu, inst->jac.R_u, inst->jac.su, inst->dyn.rhs, 1);
        for (int i = 0; i < na; ++i) inst->dyn.rhs[i] = -inst->dyn.rhs[i];
        solve_factored(inst, inst->dyn.rhs, inst->jac.dsol);
        if (need_y) {
            SbPoint pt = point(inst, *inst->state.time, inst->state.x, inst->dyn.sol, inst->dyn.sol + n);
            sb_output_jacobians(&pt, inst->jac.Y_q, inst->jac.Y_dq, inst->jac.Y_u, inst->jac.Y_t, inst->jac.Y_ddq, inst->jac.Y_lam);
        }
    }
    for (size_t k = 0; k < n_unknowns; ++k) {
        const SbVariable *v = &m->variables[unknowns[k]];
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
            break;
        default: break;
        }
        sensitivity[k] = d;
        if (!isfinite(d)) { /* a Jacobian entry outside its domain (e.g. the derivative of sqrt at 0) */
            sb_log(inst, SB_DISCARD, SB_LOG_DISCARD,
                   "%s: the derivative of '%s' is not finite at t = %g (the model's equations are not "
                   "differentiable at this state)",
                   function, v->name, *inst->state.time);
            return SB_DISCARD;
        }
    }
    (void)ny;
    return SB_OK;
}

/* ------------------------------------------------------------------------ */
/* projections and assembly                                                 */
/* ------------------------------------------------------------------------ */

/* Correction dx = J^T (J J^T + mu^2 I)^+ r for J (m x n), mu = reg |J|: the minimum-norm step
   along the well-conditioned directions of J; along a direction whose singular value s is small
   (rows becoming dependent at a singular position) the step is s r / (s^2 + mu^2) <= r / (2 mu)
   instead of r / s, so that a projection never leaps to another assembly branch.  Returns the rank. */
static int min_norm_step(SbInstance *inst, int m_rows, int n, const double *J, const double *r, double *dx,
                         double reg)
{
    double *y = inst->proj.ytmp, gmax = 0.0;
    sb_gram(m_rows, n, J, inst->proj.G);
    for (int k = 0; k < m_rows; ++k) gmax = fmax(gmax, inst->proj.G[k * m_rows + k]);
    for (int k = 0; k < m_rows; ++k) inst->proj.G[k * m_rows + k] += reg * reg * gmax;
    int rank = sb_lu_factor(m_rows, inst->proj.G, inst->proj.gprow, inst->proj.gpcol, 1e-12);
    sb_lu_solve(m_rows, inst->proj.G, inst->proj.gprow, inst->proj.gpcol, rank, r, y);
    sb_matvec_t(m_rows, n, J, y, dx, 0);
    return rank;
}

/* Newton iterations on the rows `rows` (evaluated by eval) for positions q. */
typedef void (*RowEval)(SbInstance *inst, double t, const double *x, double *J, double *r);

static void eval_Phi(SbInstance *inst, double t, const double *x, double *J, double *r)
{
    SbPoint pt = point(inst, t, x, NULL, NULL);
    sb_Phi_Phi_q(&pt, J, r);
}

static void eval_Phi_init(SbInstance *inst, double t, const double *x, double *J, double *r)
{
    SbPoint pt = point(inst, t, x, NULL, NULL);
    sb_Phi_init(&pt, J, r);
    for (int k = 0; k < inst->m->ninit; ++k) { /* rows fixing a coordinate use its start value */
        int i = inst->m->init_fix[k];
        if (i >= 0) r[k] = x[i] - inst->proj.qfix[i];
    }
}

static SbStatus newton_positions(SbInstance *inst, double t, double *x, int rows, RowEval eval, double tol, int maxit,
                                 const char *const *row_names, int *iterations, double *residual)
{
    const int n = inst->m->nq;
    double *J = inst->proj.Jrows, *r = inst->proj.rrows, *dx = inst->proj.dx;
    double err = 0.0;
    int it;
    for (it = 0; it <= maxit; ++it) {
        eval(inst, t, x, J, r);
        int bad = first_nonfinite(rows, r);
        if (bad < 0) bad = first_nonfinite(rows * n, J) >= 0 ? first_nonfinite(rows * n, J) / n : -1;
        if (bad >= 0) return problem(inst, SB_DISCARD, "constraint '%s' is not finite", row_names[bad]);
        err = sb_norm_inf(rows, r);
        if (err <= tol || it == maxit) break;
        min_norm_step(inst, rows, n, J, r, dx, SB_CORR_REG);
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
        return problem(inst, SB_DISCARD, "Newton iteration did not converge: |%s| = %g after %d iterations",
                       row_names[worst], err, it);
    }
    return SB_OK;
}

/* Velocities: dq += J^T (J J^T)^+ (b - J dq) for J = D (and fixed rows at init). */
static void project_velocities(SbInstance *inst, double t, double *x, int with_fixed)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc;
    SbPoint pt = point(inst, t, x, NULL, NULL);
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
    min_norm_step(inst, rows, n, J, r, dx, with_fixed ? 0.0 : SB_CORR_REG); /* initial velocities: exact */
    for (int j = 0; j < n; ++j) x[n + j] += dx[j];
}

SbStatus sb_project(SbInstance *inst, double t, double *x)
{
    const SbModel *m = inst->m;
    if (m->nc == 0 || inst->state.set[SB_SET_PROJECTION] == 0.0) return SB_OK;
    /* next to a singular position the constraint values barely see the errors along the directions
       that lose their rows, and the velocity rows turn with those errors: the projection is left to
       the steps on either side (Baumgarte's terms hold the drift meanwhile) */
    /* after a regular range-space solve every row is clearly independent: nothing to check */
    if (inst->dyn.fact == SB_FACT_SCHUR) {
        if (m->nc > inst->dyn.rank_ref) inst->dyn.rank_ref = m->nc;
    } else if (sb_near_singular(inst, t, x)) {
        sb_log(inst, SB_OK, SB_LOG_SOLVER, "t = %.17g: no projection next to a singular position", t);
        return SB_OK;
    }
    int it = 0;
    double res = 0.0;
    if (m->nh > 0) {
        SbStatus s = newton_positions(inst, t, x, m->nh, eval_Phi, inst->state.set[SB_SET_PROJ_TOL], 20, m->constraint_names,
                                      &it, &res);
        if (s != SB_OK) return s;
    }
    project_velocities(inst, t, x, 0);
    if (!sb_all_finite(2 * m->nq, x)) return problem(inst, SB_DISCARD, "the projected state is not finite");
    sb_log(inst, SB_OK, SB_LOG_SOLVER, "projection at t = %.17g: %d Newton iterations, |Phi| = %g", t, it, res);
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
    SbPoint pt = point(inst, t, x, NULL, NULL);
    sb_D_beta(&pt, J, r);
    for (int k = 0; k < nc; ++k) {
        for (int j = 0; j < n; ++j) r[k] -= J[k * n + j] * x[n + j];
        for (int j = 0; j < n; ++j)
            if (keep[j]) J[k * n + j] = 0.0; /* a kept velocity is not a correction variable */
    }
    min_norm_step(inst, nc, n, J, r, dx, 0.0); /* initial velocities: exact */
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

/* Names of the kept velocities, for messages. */
static void kept_names(const SbInstance *inst, const unsigned char *keep, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int j = 0; j < inst->m->nq && used + 4 < size; ++j)
        if (keep[j]) {
            int w = snprintf(buf + used, size - used, "%s'd%s' (%s)", used ? ", " : "", inst->m->coordinate_names[j],
                             inst->history.dq_set[j] ? "set by the host" : "held for assembly");
            if (w < 0) break;
            used += (size_t)w < size - used ? (size_t)w : size - used - 1;
        }
    if (!used) snprintf(buf, size, "none");
}

/* Initial velocities: the start velocities the host set are kept exactly (they are the independent
   velocities, as `independent` of symbody.numeric.solve_velocities); so are those of the coordinates
   held for assembly when that is consistent.  The others follow from the constraints.  When the
   host's velocities over-determine the motion, those it set to the model's own start values (tools
   that set every start value) give way first.  Start velocities that still contradict the
   constraints are an error naming the row. */
static SbStatus initial_velocities(SbInstance *inst, double t, double *x)
{
    const SbModel *m = inst->m;
    const int n = m->nq;
    unsigned char *keep = (unsigned char *)inst->dyn.stmp; /* n bytes fit in (n + nc) doubles */
    int held = 0, worst = 0;
    for (int j = 0; j < n; ++j) keep[j] = inst->history.dq_set[j];
    for (int k = 0; k < m->ninit; ++k)
        if (m->init_fix[k] >= 0 && !keep[m->init_fix[k]]) keep[m->init_fix[k]] = 2, held = 1;
    double *start = inst->proj.qfix + n;  /* start velocities */
    double err = constrained_velocities(inst, t, x, keep, &worst);
    if (!(err <= 1e-9) && held) { /* the held coordinates' start velocities give way to the host's */
        memcpy(x + n, start, (size_t)n * sizeof(double));
        for (int j = 0; j < n; ++j) keep[j] = inst->history.dq_set[j];
        err = constrained_velocities(inst, t, x, keep, &worst);
        sb_log(inst, SB_OK, SB_LOG_EVENTS,
               "initial velocities: the start velocities of coordinates held for assembly follow from the "
               "constraints and the velocities set by the host");
    }
    int defaults = 0; /* tools that set every start value also set the model's own: those give way last */
    for (int j = 0; j < n; ++j) defaults |= inst->history.dq_set[j] && start[j] == m->dq0[j];
    if (!(err <= 1e-9) && defaults) {
        memcpy(x + n, start, (size_t)n * sizeof(double));
        for (int j = 0; j < n; ++j) keep[j] = inst->history.dq_set[j] && start[j] != m->dq0[j];
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
                    return sb_fail(inst, "ExitInitializationMode", "parameter '%s' is not finite", m->variables[k].name);
        }
    if (!sb_all_finite(2 * n, inst->state.x))
        return sb_fail(inst, "ExitInitializationMode", "the initial state is not finite");
    if (m->nc > 0) {
        /* assemble: Newton on Phi_init (coordinates fixed for assembly keep their start values), then velocities */
        double *xs = inst->proj.xwork; /* work on a copy so that a failure leaves the state untouched */
        memcpy(xs, inst->state.x, (size_t)2 * n * sizeof(double));
        memcpy(inst->proj.qfix, inst->state.x, (size_t)2 * n * sizeof(double));
        int it = 0;
        double res = 0.0;
        if (m->ninit > 0) {
            double tol = inst->state.set[SB_SET_PROJ_TOL];
            SbStatus s = newton_positions(inst, *inst->state.time, xs, m->ninit, eval_Phi_init, 1e-3 * tol,
                                          SB_ASSEMBLY_MAXIT, m->init_names, &it, &res);
            if (s != SB_OK && !(res <= tol))
                return sb_fail(inst, "ExitInitializationMode", "assembly of the initial configuration failed: %s",
                               inst->problem);
        }
        SbStatus sv = initial_velocities(inst, *inst->state.time, xs);
        if (sv != SB_OK) return sv;
        if (!sb_all_finite(2 * n, xs))
            return sb_fail(inst, "ExitInitializationMode", "the assembled initial state is not finite");
        memcpy(inst->state.x, xs, (size_t)2 * n * sizeof(double));
        sb_log(inst, SB_OK, SB_LOG_EVENTS, "assembled the initial configuration: %d Newton iterations, |Phi| = %g", it,
               res);
    }
    sb_changed(inst);
    SbStatus s = sb_update(inst);
    if (s != SB_OK)
        return sb_fail(inst, "ExitInitializationMode", "the initial state is not admissible: %s", inst->problem);
    inst->state.mode = inst->interface == SB_ME ? SB_MODE_EVENT : SB_MODE_STEP;
    inst->state.flags |= SB_FLAG_INITIALIZED;
    sb_log(inst, SB_OK, SB_LOG_EVENTS, "initialized at t = %g", *inst->state.time);
    return SB_OK;
}
