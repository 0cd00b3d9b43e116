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
#include "sb_events.h"
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

/* A zeroed buffer of count elements (at least one); *ok turns 0 when the allocation fails. */
static void *zalloc(size_t count, size_t size, int *ok)
{
    void *p = calloc(count > 0 ? count : 1, size);
    if (!p) *ok = 0;
    return p;
}

static double *doubles(int rows, int cols, int *ok) { return zalloc((size_t)rows * (size_t)cols, sizeof(double), ok); }
static int *ints(int count, int *ok) { return zalloc((size_t)count, sizeof(int), ok); }
static int imax(int a, int b) { return a > b ? a : b; }

/* One array S = [time, x (2 nq + ns), u (3 nu: values, first and second derivatives), p (np), settings, h_next,
   row_ref (the constraint rows' largest norms), kept (the branch checks' memory), flight (the importer's steps in
   the contacts' flights), closed (nk), slip (nf), side (nsw), offset (nk)] and the named views into it. */
static void alloc_state(SbState *s, const SbModel *m, int *ok)
{
    s->nS = 1 + sb_nx(m) + 3 * m->nu + m->np + SB_N_SETTINGS + 1 + m->nc + sb_kept_size(m) + sb_flight_size(m) +
            m->nk + m->nf + m->nsw + m->nk;
    s->S = doubles(s->nS, 1, ok);
    if (!s->S) return;
    s->time = s->S;
    s->x = s->S + 1;
    s->u = s->x + sb_nx(m);
    s->p = s->u + 3 * m->nu;
    s->set = s->p + m->np;
    s->h_next = s->set + SB_N_SETTINGS;
    s->row_ref = s->h_next + 1;
    s->kept = s->row_ref + m->nc;
    s->flight = s->kept + sb_kept_size(m);
    s->closed = s->flight + sb_flight_size(m);
    s->slip = s->closed + m->nk;
    s->side = s->slip + m->nf;
    s->offset = s->side + m->nsw;
}

static void alloc_cache(SbCache *c, const SbModel *m, int *ok)
{
    c->ddq = doubles(m->nq, 1, ok);
    c->lam = doubles(m->nc + m->nk + m->nf, 1, ok);
    c->y = doubles(m->ny, 1, ok);
    c->rates = doubles(m->ns, 1, ok);
}

static void alloc_dynamics(SbDynamics *d, const SbModel *m, int *ok)
{
    const int n = m->nq, nc = m->nc, nh = m->nh, na = n + nc;
    d->na = na;
    d->M = doubles(n, n, ok);
    d->delta = doubles(n, 1, ok);
    d->D = doubles(nc, n, ok);
    d->beta = doubles(nc, 1, ok);
    d->gamma = doubles(nc, 1, ok);
    d->Phi = doubles(nh, 1, ok);
    d->Phi_q = doubles(nh, n, ok);
    d->Mf = doubles(n, n, ok);
    d->X = doubles(nc, n, ok);
    d->Sf = doubles(nc, nc, ok);
    d->stmp = doubles(na, 1, ok);
    d->sw = doubles(nc, 1, ok);
    d->A = doubles(na, na, ok);
    d->prow = ints(na, ok);
    d->pcol = ints(na, ok);
    d->rhs = doubles(na, 1, ok);
    d->sol = doubles(na, 1, ok);
    d->bridge = doubles(5 * n + nc * n, 1, ok);
    d->branch_G = doubles(2 * nc + 1, nc, ok);
    d->carry = doubles(nc > 0 ? 6 : 0, sb_nx(m), ok);
    d->passage = SB_PASSAGE_NONE;
    d->step_cap = INFINITY;
    d->lam_work = doubles(nc + m->nk + m->nf, 1, ok);
}

static void free_dynamics(SbDynamics *d)
{
    void *buffers[] = {d->M,  d->delta, d->D,  d->beta, d->gamma, d->Phi,  d->Phi_q, d->Mf,
                       d->X,  d->Sf,    d->stmp, d->sw, d->A,     d->prow, d->pcol,  d->rhs,
                       d->sol, d->bridge, d->lam_work, d->branch_G, d->carry};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i) free(buffers[i]);
}

static void alloc_jacobians(SbJacobianWork *j, const SbModel *m, int *ok)
{
    const int n = m->nq, nc = m->nc, nu = m->nu, ny = m->ny, na = n + nc;
    j->R_q = doubles(na, n, ok);
    j->R_dq = doubles(na, n, ok);
    j->R_u = doubles(na, nu, ok);
    j->R_t = doubles(na, 1, ok);
    j->V_q = doubles(nc, n, ok);
    j->V_t = doubles(nc, 1, ok);
    j->Y_q = doubles(ny, n, ok);
    j->Y_dq = doubles(ny, n, ok);
    j->Y_u = doubles(ny, nu, ok);
    j->Y_t = doubles(ny, 1, ok);
    j->Y_ddq = doubles(ny, n, ok);
    j->Y_lam = doubles(ny, nc, ok);
    j->sq = doubles(n, 1, ok);
    j->sdq = doubles(n, 1, ok);
    j->su = doubles(3 * nu, 1, ok); /* a seed of the inputs; its rates (sb_state_jacobian) */
    j->dsol = doubles(na, 1, ok);
}

static void free_jacobians(SbJacobianWork *j)
{
    void *buffers[] = {j->R_q, j->R_dq, j->R_u,   j->R_t,   j->V_q, j->V_t,  j->Y_q, j->Y_dq,
                       j->Y_u, j->Y_t,  j->Y_ddq, j->Y_lam, j->sq,  j->sdq,  j->su,  j->dsol};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i) free(buffers[i]);
}

static void alloc_projection(SbProjectionWork *w, const SbModel *m, int *ok)
{
    const int n = m->nq, nr = imax(m->ninit, m->nc + m->ninit) + m->nk; /* (+ nk: projections onto contacts) */
    w->nrows = nr;
    w->Jrows = doubles(nr, n, ok);
    w->rrows = doubles(nr, 1, ok);
    w->G = doubles(nr, nr, ok);
    w->gprow = ints(nr, ok);
    w->gpcol = ints(nr, ok);
    w->ytmp = doubles(nr, 1, ok);
    w->dx = doubles(n, 1, ok);
    w->xwork = doubles(sb_nx(m), 1, ok);
    w->qfix = doubles(sb_nx(m), 1, ok);
}

static void free_projection(SbProjectionWork *w)
{
    void *buffers[] = {w->Jrows, w->rrows, w->G, w->gprow, w->gpcol, w->ytmp, w->dx, w->xwork, w->qfix};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i) free(buffers[i]);
}

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
#ifdef SB_NO_EVENTS
    if (m->nk + m->nsw + m->nf > 0) { /* a runtime without the event machinery cannot integrate this model */
        sb_fail(&probe, "Instantiate", "this FMU's runtime was built without events (SB_NO_EVENTS), but the model "
                "has %d contacts, %d switching loads and %d friction elements", m->nk, m->nsw, m->nf);
        return NULL;
    }
#endif

    int ok = 1;
    SbInstance *inst = zalloc(1, sizeof *inst, &ok);
    if (!ok) {
        sb_fail(&probe, "Instantiate", "out of memory");
        return NULL;
    }
    inst->m = m;
    inst->interface = interface;
    inst->env = env;
    inst->logger = logger;
    inst->host = host;
    inst->logging_on = logging_on;
    inst->log_mask = logging_on ? SB_LOG_ALL : (SB_LOG_WARNING | SB_LOG_DISCARD | SB_LOG_ERROR | SB_LOG_FATAL);
    inst->name = zalloc(strlen(probe.name) + 1, 1, &ok);
    if (inst->name) strcpy(inst->name, probe.name);
    alloc_state(&inst->state, m, &ok);
    alloc_cache(&inst->cache, m, &ok);
    alloc_dynamics(&inst->dyn, m, &ok);
    alloc_jacobians(&inst->jac, m, &ok);
    alloc_projection(&inst->proj, m, &ok);
    inst->history.dq_set = zalloc((size_t)m->nq, 1, &ok);
    inst->constants = doubles(m->nconst, 1, &ok);
    if (ok && interface == SB_CS && sb_solver_alloc(inst) != SB_OK) ok = 0;
    if (ok && sb_events_alloc(inst) != SB_OK) ok = 0;
    if (!ok) {
        sb_fail(&probe, "Instantiate", "out of memory");
        sb_free(inst);
        return NULL;
    }
    sb_reset(inst);
    return inst;
}

void sb_free(SbInstance *inst)
{
    if (!inst) return;
    sb_solver_free(inst);
    sb_events_free(inst);
    free(inst->name);
    free(inst->state.S);
    free(inst->cache.ddq);
    free(inst->cache.lam);
    free(inst->cache.y);
    free(inst->cache.rates);
    free_dynamics(&inst->dyn);
    free_jacobians(&inst->jac);
    free_projection(&inst->proj);
    free(inst->history.dq_set);
    free(inst->constants);
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
    for (int i = 0; i < m->ns; ++i) inst->state.x[2 * n + i] = m->s0[i];
    for (int i = 0; i < m->nu; ++i) {
        inst->state.u[i] = m->u0[i];
        inst->state.u[m->nu + i] = inst->state.u[2 * m->nu + i] = 0.0; /* no input derivatives set */
    }
    inst->interpolating = 0;
    for (int i = 0; i < m->np; ++i) inst->state.p[i] = m->p0[i];
    sb_parameters_changed(inst);
    for (int i = 0; i < SB_N_SETTINGS; ++i) inst->state.set[i] = m->settings0[i];
    *inst->state.h_next = 0.0;
    for (int i = 0; i < m->nk + m->nf; ++i) inst->state.closed[i] = 0.0; /* open contacts, sticking friction */
    for (int j = 0; j < m->nsw; ++j) inst->state.side[j] = 1.0;
    for (int i = 0; i < m->nk; ++i) inst->state.offset[i] = SB_EVENT_HYSTERESIS;
    for (int i = 0; i < sb_flight_size(m); ++i) inst->state.flight[i] = 0.0; /* no step, no departure known */
    if (m->nk > 0) inst->state.flight[SB_FLIGHT_END0] = inst->state.flight[SB_FLIGHT_END1] = NAN;
    sb_branch_reset(inst);
    inst->state.mode = SB_MODE_INSTANTIATED;
    inst->state.flags = 0;
    inst->cache.valid = 0;
    inst->history.stop_defined = 0;
    inst->history.stop_time = INFINITY;
    inst->history.discards = 0;
    inst->history.floor_told[0] = inst->history.floor_told[1] = 0.0;
    memset(inst->history.dq_set, 0, (size_t)(n > 0 ? n : 1));
}

void sb_parameters_changed(SbInstance *inst)
{
    SbPoint pt = sb_point(inst, *inst->state.time, inst->state.x, NULL, NULL);
    sb_constants(&pt, inst->constants); /* reads pt.p only */
}
