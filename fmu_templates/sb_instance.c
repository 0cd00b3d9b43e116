/*
 * sb_instance.c -- one instance of a symbody FMU: its lifecycle (instantiate,
 * free, reset to the start values) and logging (categories, messages of failed
 * calls, numerical problems remembered for the caller's message).
 *
 * Nothing in the runtime aborts or exits: every failure is reported to the
 * caller as a status with a log message naming the variable, equation or call
 * at fault, and the state is left untouched by failed calls.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_internal.h"
#include "sb_solver.h"

const char *const sb_log_category_names[7] = {"logEvents",      "logStatusWarning", "logStatusDiscard", "logStatusError",
                                              "logStatusFatal", "logSolver",        "logCalls"};

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

SbStatus sb_problem(SbInstance *inst, SbStatus status, const char *fmt, ...)
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
