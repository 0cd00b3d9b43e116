/*
 * sb_events.c -- unilateral contacts of a symbody FMU (symbody.model.contacts): the mode of each
 * contact (open or closed, part of the FMU state), the forces of the closed contacts, the event
 * indicators and the resolution of events.  The laws are those of symbody.numeric.impacts:
 *
 * G holds the gap Jacobian rows of the contacts considered, gdot = G dq - gap_beta their rates.
 * The bilateral constraints are held, so the response to impulses P (or forces f) along the gap
 * gradients is X P with [M D^T; D 0] [X; Y] = [G^T; 0], and W = G X is the Delassus matrix.
 *
 * Impacts (F. Pfeiffer and C. Glocker, Multibody Dynamics with Unilateral Contacts, Wiley, 1996,
 * ch. 6): the touching contacts (gap within SB_GAP_TOL, not separating) take impulses P >= 0 with
 * gdot+ = gdot- + W P, gdot+ + e gdot- >= 0, P (gdot+ + e gdot-) = 0, a linear complementarity problem;
 * approach rates below SB_REST_VELOCITY count as plastic (e = 0), which ends an accumulation of impacts.
 * Modes: the touching contacts at rest relative to their gap carry forces f >= 0 with gap accelerations
 * W f + b >= 0, f (W f + b) = 0; those with f > 0 close (their rates are zeroed), the others open.
 * Closed contacts are constraints g = 0 with Baumgarte's terms of the bilateral rows: their forces
 * solve W_CC f = -(G_C ddq0 - gap_gamma + 2 alpha gdot + beta^2 g), ddq0 the accelerations with no
 * contact force.  The complementarity problems are solved by enumerating the active sets, the
 * smallest first (K. G. Murty, Linear Complementarity, Linear and Nonlinear Programming, 1988).
 *
 * Stick-slip friction (symbody.model.friction, the laws of symbody.numeric.events): element j has the
 * sliding rate v = A_j dq - fr_beta_j and a mode, part of the FMU state: 0 sticking, +1 or -1 the
 * direction it slips.  A sticking element is one more constraint row, v = 0 (with the Baumgarte term of
 * the velocity rows), stacked with the closed contacts; its force F along A_j^T is the row's force.  A
 * slipping one adds the force F = -mu |N| s along A_j^T.  The normal force N may depend on the
 * multipliers, contact forces and friction forces (a block pressed on a contact by its weight, a rod sliding
 * on its end): then the slip forces are found by Newton up to the Painleve limit (sb_sliding_forces).  The
 * event indicator of a sticking element is mu_static |N| - |F| + SB_STICK_TOL (1 + |N|) (positive while it
 * holds), that of a slipping one s v.
 * At an event the elements moving faster than SB_REST_VELOCITY slip along their rate; the others stick,
 * and while the force that holds one has an indicator <= 0 the most overloaded is released, sliding
 * against that force (one at a time: a heuristic, not a complementarity problem, for elements that load
 * each other).  Sticking elements that moved are stopped by an impulse along their rows that keeps the
 * closed contacts and the bilateral constraints.  Impacts do not hold sticking elements (a finite normal
 * force gives no friction impulse); the force problem of the contacts does.
 */
#include <stdlib.h>
#include <string.h>

#include "sb_events_work.h"
#include "sb_linalg.h"


SbStatus sb_events_alloc(SbInstance *inst)
{
    const SbModel *m = inst->m;
    const int k = m->nk + m->nf + 1, n = m->nq, na = n + m->nc; /* (+1: no zero-size buffers) */
    inst->events = NULL;
    if (m->nk + m->nsw + m->nf == 0) return SB_OK;
    SbEvents *ev = calloc(1, sizeof *ev);
    if (!ev) return SB_ERROR;
    inst->events = ev;
    double *const left = inst->state.flight + SB_FLIGHT_HEAD; /* (the FMU state's records: sb_events_resolve.c) */
    ev->flight = inst->state.flight;
    ev->bounds = ev->flight + SB_FLIGHT_END0;
    ev->left_time = left + SB_LEFT_TIME * m->nk;
    ev->left_steps = left + SB_LEFT_COUNT * m->nk;
    ev->left_squares = left + SB_LEFT_SQUARES * m->nk;
    ev->left_rate = left + SB_LEFT_RATE * m->nk;
    ev->left_alpha = left + SB_LEFT_ALPHA * m->nk;
    double **d[] = {&ev->gap,   &ev->gbeta,  &ev->ggamma, &ev->e,  &ev->force, &ev->rate,   &ev->P,      &ev->rate0,
                    &ev->depth, &ev->target, &ev->b,      &ev->z,  &ev->mu,    &ev->mus,    &ev->normal, &ev->before,
                    &ev->slide, &ev->signed_normal, &ev->gap0};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; ++i)
        if (!(*d[i] = calloc((size_t)k, sizeof(double)))) return SB_ERROR;
    int **ip[] = {&ev->set, &ev->keep, &ev->held};
    for (size_t i = 0; i < sizeof ip / sizeof ip[0]; ++i)
        if (!(*ip[i] = calloc((size_t)k, sizeof(int)))) return SB_ERROR;
    if (!(ev->G = calloc((size_t)k * n + 1, sizeof(double))) || !(ev->Z = calloc((size_t)k * na, sizeof(double))) ||
        !(ev->W = calloc((size_t)k * k, sizeof(double))) || !(ev->Wc = calloc((size_t)k * k, sizeof(double))) ||
        !(ev->a0 = calloc((size_t)n + 1, sizeof(double))) || !(ev->dq0 = calloc((size_t)n + 1, sizeof(double))) ||
        !(ev->sw = calloc((size_t)m->nsw + 1, sizeof(double))) ||
        !(ev->Zs = calloc((size_t)k * na, sizeof(double))) || !(ev->sol0 = calloc((size_t)na, sizeof(double))) ||
        !(ev->lam_all = calloc((size_t)(m->nc + k), sizeof(double))))
        return SB_ERROR;
    return SB_OK;
}

void sb_events_free(SbInstance *inst)
{
    SbEvents *ev = sb_ev(inst);
    if (!ev) return;
    void *buffers[] = {ev->gap,    ev->G,   ev->gbeta, ev->ggamma, ev->e,      ev->force,  ev->rate,   ev->P,
                       ev->rate0,  ev->depth, ev->target, ev->Z,   ev->W,      ev->Wc,     ev->b,      ev->z,
                       ev->set,    ev->keep, ev->held, ev->a0,     ev->dq0,    ev->sw,     ev->mu,     ev->mus,
                       ev->normal, ev->before, ev->slide, ev->Zs,  ev->sol0,   ev->lam_all, ev->signed_normal,
                       ev->gap0};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i) free(buffers[i]);
    free(ev);
    inst->events = NULL;
}

/* The blocks of the contacts and the friction elements and their rates at (t, x). */
void sb_ev_evaluate(SbInstance *inst, double t, const double *x)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq, k = inst->m->nk, nf = inst->m->nf;
    SbPoint pt = sb_point(inst, t, x, NULL, NULL);
    sb_contacts(&pt, ev->gap, ev->G, ev->gbeta, ev->ggamma, ev->e);
    sb_switches(&pt, ev->sw);
    if (nf > 0) sb_frictions(&pt, ev->G + (size_t)k * n, ev->gbeta + k, ev->ggamma + k, ev->mu, ev->mus);
    for (int i = 0; i < k + nf; ++i) {
        double r = -ev->gbeta[i];
        for (int j = 0; j < n; ++j) r += ev->G[i * n + j] * x[n + j];
        ev->rate[i] = r;
    }
}

/* |N| of every friction element at (t, x), the multipliers and event forces in lam (nc + nk + nf). */
void sb_ev_normals(SbInstance *inst, double t, const double *x, const double *lam)
{
    SbEvents *ev = sb_ev(inst);
    SbPoint pt = sb_point(inst, t, x, NULL, lam);
    sb_friction_normals(&pt, ev->signed_normal);
    for (int j = 0; j < inst->m->nf; ++j) ev->normal[j] = fabs(ev->signed_normal[j]);
}

/* Responses Z (rows of nq + nc) to unit forces along the contacts set[0..m) and their Delassus matrix W
   (m x m, symmetrized), with the factorization left by the last sb_accelerations. */
void sb_ev_response(SbInstance *inst, int m, const int *set)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq, na = inst->dyn.na;
    for (int a = 0; a < m; ++a) {
        double *z = ev->Z + (size_t)a * na;
        memset(z, 0, (size_t)na * sizeof(double));
        memcpy(z, ev->G + (size_t)set[a] * n, (size_t)n * sizeof(double));
        sb_solve_factored(inst, z, z);
    }
    for (int a = 0; a < m; ++a)
        for (int c = 0; c < m; ++c) {
            double v = 0.0;
            for (int j = 0; j < n; ++j) v += ev->G[(size_t)set[a] * n + j] * ev->Z[(size_t)c * na + j];
            ev->W[a * m + c] = v;
        }
    for (int a = 0; a < m; ++a)
        for (int c = a + 1; c < m; ++c) {
            const double v = 0.5 * (ev->W[a * m + c] + ev->W[c * m + a]);
            ev->W[a * m + c] = ev->W[c * m + a] = v;
        }
}

/* Responses and Delassus matrix of the m rows set[0..m) with the h rows set[m..m+h) held as well (the
   sticking friction elements): W_mm - W_mh W_hh^-1 W_hm into ev->W (m x m) and Z_m - Z_h W_hh^-1 W_hm. */
void sb_ev_response_held(SbInstance *inst, int m, int h, const int *set)
{
    SbEvents *ev = sb_ev(inst);
    const int mh = m + h, na = inst->dyn.na;
    sb_ev_response(inst, mh, set);
    if (h == 0) return;
    int hs[SB_MAX_ENUMERATED];
    for (int b = 0; b < h; ++b) hs[b] = m + b;
    double col[SB_MAX_ENUMERATED], y[SB_MAX_ENUMERATED];
    for (int c = 0; c < m; ++c) {
        for (int b = 0; b < h; ++b) col[b] = ev->W[(m + b) * mh + c];
        sb_sym_solve(mh, ev->W, h, hs, col, y);
        for (int b = 0; b < h; ++b)
            for (int j = 0; j < na; ++j) ev->Z[(size_t)c * na + j] -= y[b] * ev->Z[(size_t)(m + b) * na + j];
        for (int a = 0; a < m; ++a) {
            double v = ev->W[a * mh + c];
            for (int b = 0; b < h; ++b) v -= ev->W[a * mh + m + b] * y[b];
            ev->Wc[a * m + c] = v;
        }
    }
    for (int a = 0; a < m; ++a)
        for (int c = 0; c < m; ++c) ev->W[a * m + c] = 0.5 * (ev->Wc[a * m + c] + ev->Wc[c * m + a]);
}

/* The right-hand side of the held event rows set[0..m): minus their accelerations from inst->dyn.sol, with
   the terms of Baumgarte (the gap of a closed contact as a holonomic row, the rates as velocity rows). */
static void row_defects(SbInstance *inst, int m, const int *set, double *rhs)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq, k = inst->m->nk;
    const double alpha = inst->state.set[SB_SET_ALPHA], bb = inst->state.set[SB_SET_BETA];
    for (int a = 0; a < m; ++a) {
        const int i = set[a];
        double v = -ev->ggamma[i] + 2.0 * alpha * ev->rate[i] + (i < k ? bb * bb * ev->gap[i] : 0.0);
        for (int j = 0; j < n; ++j) v += ev->G[(size_t)i * n + j] * inst->dyn.sol[j];
        rhs[a] = -v;
    }
}

/* The forces of the held rows set[0..m) (W, Z of response) with the slip forces of the slipping friction
   elements in ev->force, added to inst->dyn.sol (which holds the bilateral solution) and stored in
   ev->force; the multipliers and event forces the normal forces see in ev->lam_all. */
static SbStatus apply_forces(SbInstance *inst, int m, const int *set, const double *rhs0)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq, nc = inst->m->nc, k = inst->m->nk, nf = inst->m->nf, na = inst->dyn.na;
    double rhs[SB_MAX_ENUMERATED], f[SB_MAX_ENUMERATED];
    memcpy(rhs, rhs0, (size_t)m * sizeof(double));
    for (int j = 0; j < nf; ++j) { /* the slip forces (ev->force, set by the caller) along their rows */
        if (inst->state.slip[j] == 0.0) continue;
        const double F = ev->force[k + j];
        const double *zs = ev->Zs + (size_t)j * na;
        for (int i = 0; i < na; ++i) inst->dyn.sol[i] += F * zs[i];
        for (int a = 0; a < m; ++a) {
            double v = 0.0;
            for (int i = 0; i < n; ++i) v += ev->G[(size_t)set[a] * n + i] * zs[i];
            rhs[a] -= F * v;
        }
    }
    int all[SB_MAX_ENUMERATED] = {0};
    for (int a = 0; a < m; ++a) all[a] = a;
    sb_sym_solve(m, ev->W, m, all, rhs, f);
    for (int a = 0; a < m; ++a) {
        const int i = set[a];
        if (!isfinite(f[a]))
            return sb_problem(inst, SB_DISCARD, "the force of %s '%s' is not finite", i < k ? "contact" : "friction",
                              i < k ? inst->m->contact_names[i] : inst->m->friction_names[i - k]);
        ev->force[i] = f[a];
        for (int j = 0; j < na; ++j) inst->dyn.sol[j] += f[a] * ev->Z[(size_t)a * na + j];
    }
    memcpy(ev->lam_all, inst->dyn.sol + n, (size_t)nc * sizeof(double));
    memcpy(ev->lam_all + nc, ev->force, (size_t)(k + nf) * sizeof(double));
    return SB_OK;
}

/* The rows of the closed contacts and the sticking friction elements into set; returns their number. */
int sb_ev_held_rows(const SbInstance *inst, int *set)
{
    int m = 0;
    for (int i = 0; i < inst->m->nk; ++i)
        if (inst->state.closed[i] != 0.0) set[m++] = i;
    for (int j = 0; j < inst->m->nf; ++j)
        if (inst->state.slip[j] == 0.0) set[m++] = inst->m->nk + j;
    return m;
}

static SbStatus slip_forces(SbInstance *inst, double t, const double *x, int m, const double *rhs);

SbStatus sb_contact_accelerations(SbInstance *inst, double t, const double *x)
{
    SbEvents *ev = sb_ev(inst);
    const SbModel *md = inst->m;
    const int n = md->nq, nc = md->nc, k = md->nk, nf = md->nf, na = inst->dyn.na;
    int slipping = 0;
    for (int i = 0; i < k + nf; ++i) ev->force[i] = 0.0;
    for (int j = 0; j < nf; ++j)
        if (inst->state.slip[j] != 0.0) slipping = 1;
    const int m = sb_ev_held_rows(inst, ev->held); /* a sticking element is one more row */
    if (m == 0 && !slipping) return SB_OK;
    if (m > SB_MAX_ENUMERATED)
        return sb_problem(inst, SB_DISCARD, "%d contacts and sticking friction elements hold at once: more than the %d "
                          "this FMU handles", m, SB_MAX_ENUMERATED);
    sb_ev_evaluate(inst, t, x);
    sb_ev_response(inst, m, ev->held);
    double rhs[SB_MAX_ENUMERATED];
    row_defects(inst, m, ev->held, rhs);
    if (nf == 0) return apply_forces(inst, m, ev->held, rhs);
    for (int j = 0; j < nf; ++j) { /* responses to unit forces along the slipping elements' rows */
        if (inst->state.slip[j] == 0.0) continue;
        double *zs = ev->Zs + (size_t)j * na;
        memset(zs, 0, (size_t)na * sizeof(double));
        memcpy(zs, ev->G + (size_t)(k + j) * n, (size_t)n * sizeof(double));
        sb_solve_factored(inst, zs, zs);
    }
    memcpy(ev->sol0, inst->dyn.sol, (size_t)na * sizeof(double));
    memset(ev->lam_all, 0, (size_t)(nc + k + nf) * sizeof(double));
    sb_ev_normals(inst, t, x, ev->lam_all); /* (N of the normal forces without the forces) */
    for (int j = 0; j < nf; ++j)
        if (inst->state.slip[j] != 0.0) ev->force[k + j] = -ev->mu[j] * ev->normal[j] * inst->state.slip[j];
    if (!md->friction_implicit) return apply_forces(inst, m, ev->held, rhs);
    return slip_forces(inst, t, x, m, rhs);
}

/* The context of normals_of: the point and the held rows of sb_contact_accelerations. */
typedef struct {
    SbInstance *inst;
    double t;
    const double *x;
    int m, ns, status;
    const double *rhs;
    int slipping[SB_MAX_ENUMERATED];
} SbSlipContext;

/* The signed normal forces of the slipping elements with the slip forces F (SbNormalsOf). */
static int normals_of(void *context, const double *F, double *N)
{
    SbSlipContext *c = (SbSlipContext *)context;
    SbInstance *inst = c->inst;
    SbEvents *ev = sb_ev(inst);
    for (int a = 0; a < c->ns; ++a) ev->force[inst->m->nk + c->slipping[a]] = F[a];
    memcpy(inst->dyn.sol, ev->sol0, (size_t)inst->dyn.na * sizeof(double));
    if ((c->status = apply_forces(inst, c->m, ev->held, c->rhs)) != SB_OK) return 1;
    sb_ev_normals(inst, c->t, c->x, ev->lam_all);
    for (int a = 0; a < c->ns; ++a) N[a] = ev->signed_normal[c->slipping[a]];
    return 0;
}

/* Normal forces that depend on the forces (a rod sliding on its end): the slip forces by Newton up to the
   Painleve limit (sb_sliding_forces), then the forces of the held rows with them. */
static SbStatus slip_forces(SbInstance *inst, double t, const double *x, int m, const double *rhs)
{
    SbEvents *ev = sb_ev(inst);
    const int k = inst->m->nk;
    SbSlipContext c = {inst, t, x, m, 0, SB_OK, rhs, {0}};
    double F[SB_MAX_ENUMERATED], mu[SB_MAX_ENUMERATED], s[SB_MAX_ENUMERATED], limit = 0.0;
    for (int j = 0; j < inst->m->nf; ++j) {
        if (inst->state.slip[j] == 0.0) continue;
        if (c.ns == SB_MAX_ENUMERATED)
            return sb_problem(inst, SB_DISCARD, "more than %d friction elements slip at once", SB_MAX_ENUMERATED);
        F[c.ns] = ev->force[k + j];
        mu[c.ns] = ev->mu[j];
        s[c.ns] = inst->state.slip[j];
        c.slipping[c.ns++] = j;
    }
    int wrong = 0;
    const int r = c.ns ? sb_sliding_forces(c.ns, F, mu, s, normals_of, &c, &wrong, &limit) : 0;
    if (r == 3) return c.status;
    if (r == 1)
        return sb_problem(inst, SB_DISCARD,
                          "friction '%s' sliding at t = %g: mu = %g is beyond the Painleve limit %.4g of this "
                          "configuration, where the normal force would turn against the contact: rigid contacts with "
                          "sliding Coulomb friction have no consistent motion there (the Painleve paradox)",
                          inst->m->friction_names[c.slipping[wrong]], t, mu[wrong], limit);
    if (r == 2) return sb_problem(inst, SB_DISCARD, "the sliding friction forces do not converge at t = %g", t);
    return normals_of(&c, F, s) ? c.status : SB_OK; /* (the forces at the solution; s: scratch) */
}

void sb_contact_forces(const SbInstance *inst, double *force)
{
    memcpy(force, sb_ev(inst)->force, (size_t)(inst->m->nk + inst->m->nf) * sizeof(double));
}

/* Event indicator of friction element j at the current state (after evaluate; the cache valid when it
   sticks): mu_static |N| - |F| + SB_STICK_TOL (1 + |N|) sticking, s v slipping. */
static double friction_indicator(SbInstance *inst, int j)
{
    SbEvents *ev = sb_ev(inst);
    const double s = inst->state.slip[j];
    if (s != 0.0) return s * ev->rate[inst->m->nk + j];
    sb_ev_normals(inst, *inst->state.time, inst->state.x, inst->cache.lam);
    return sb_ev_stick_margin(ev, j, inst->cache.lam[inst->m->nc + inst->m->nk + j]);
}

/* Whether the event indicators need the accelerations: the force of a closed contact or of a sticking
   friction element is one. */
static int needs_forces(const SbInstance *inst)
{
    for (int i = 0; i < inst->m->nk; ++i)
        if (inst->state.closed[i] != 0.0) return 1;
    for (int j = 0; j < inst->m->nf; ++j)
        if (inst->state.slip[j] == 0.0) return 1;
    return 0;
}

SbStatus sb_event_indicators(SbInstance *inst, const char *function, double *z, size_t nz, int hysteresis)
{
    const int k = inst->m->nk, nsw = inst->m->nsw, nf = inst->m->nf;
    if (nz != (size_t)(k + nsw + nf))
        return sb_fail(inst, function, "this FMU has %d event indicators (asked %lu)", k + nsw + nf,
                       (unsigned long)nz);
    if (k + nsw + nf == 0) return SB_OK;
    if (needs_forces(inst)) { /* gaps, switches and slip rates do not need the accelerations */
        SbStatus s = sb_update(inst);
        if (s != SB_OK) {
            sb_log(inst, s, SB_LOG_DISCARD, "%s: at t = %g: %s", function, *inst->state.time, inst->problem);
            return s;
        }
    }
    SbEvents *ev = sb_ev(inst);
    sb_ev_evaluate(inst, *inst->state.time, inst->state.x);
    for (int i = 0; i < k; ++i) z[i] = inst->state.closed[i] != 0.0 ? inst->cache.lam[inst->m->nc + i] : ev->gap[i];
    for (int j = 0; j < nsw; ++j) {
        z[k + j] = ev->sw[j];
        if (!isfinite(ev->sw[j])) {
            sb_problem(inst, SB_DISCARD, "switching function %d of the loads is not finite at t = %g", j,
                       *inst->state.time);
            sb_log(inst, SB_DISCARD, SB_LOG_DISCARD, "%s: %s", function, inst->problem);
            return SB_DISCARD;
        }
    }
    for (int j = 0; j < nf; ++j) {
        z[k + nsw + j] = friction_indicator(inst, j);
        if (!isfinite(z[k + nsw + j])) {
            sb_problem(inst, SB_DISCARD, "the event indicator of friction '%s' is not finite at t = %g",
                       inst->m->friction_names[j], *inst->state.time);
            sb_log(inst, SB_DISCARD, SB_LOG_DISCARD, "%s: %s", function, inst->problem);
            return SB_DISCARD;
        }
    }
    if (hysteresis)
        for (int i = 0; i < k + nsw + nf; ++i) z[i] += sb_hysteresis(inst, i);
    return SB_OK;
}

double sb_hysteresis(const SbInstance *inst, int i)
{
    const int k = inst->m->nk, nsw = inst->m->nsw;
    if (i < k) return inst->state.closed[i] != 0.0 ? 0.0 : inst->state.offset[i];
    if (i < k + nsw) return inst->state.side[i - k] * SB_EVENT_HYSTERESIS;
    return inst->state.slip[i - k - nsw] != 0.0 ? SB_EVENT_HYSTERESIS : 0.0;
}

int sb_closed_contact_rows(SbInstance *inst, double t, const double *x, double *J, double *r)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq;
    int m = 0;
    if (!ev || inst->m->nk == 0) return 0;
    sb_ev_evaluate(inst, t, x);
    for (int i = 0; i < inst->m->nk; ++i) {
        if (inst->state.closed[i] == 0.0) continue;
        memcpy(J + (size_t)m * n, ev->G + (size_t)i * n, (size_t)n * sizeof(double));
        r[m++] = ev->gap[i];
    }
    return m;
}

void sb_contact_rates(SbInstance *inst, double *rate)
{
    sb_ev_evaluate(inst, *inst->state.time, inst->state.x);
    memcpy(rate, sb_ev(inst)->rate, (size_t)(inst->m->nk + inst->m->nf) * sizeof(double));
}

/* The accelerations G ddq - ggamma of the event rows first .. first + count - 1 at the current state. */
static SbStatus row_accelerations(SbInstance *inst, int first, int count, double *acc)
{
    const int n = inst->m->nq;
    if (count == 0) return SB_OK;
    SbStatus s = sb_update(inst);
    if (s != SB_OK) return s;
    SbEvents *ev = sb_ev(inst);
    sb_ev_evaluate(inst, *inst->state.time, inst->state.x);
    for (int j = 0; j < count; ++j) {
        double a = -ev->ggamma[first + j];
        for (int i = 0; i < n; ++i) a += ev->G[(size_t)(first + j) * n + i] * inst->cache.ddq[i];
        acc[j] = a;
    }
    return SB_OK;
}

SbStatus sb_slip_accelerations(SbInstance *inst, double *acc)
{
    return row_accelerations(inst, inst->m->nk, inst->m->nf, acc);
}

SbStatus sb_gap_accelerations(SbInstance *inst, double *acc)
{
    return row_accelerations(inst, 0, inst->m->nk, acc);
}

double sb_event_indicator(SbInstance *inst, int i)
{
    const int k = inst->m->nk, nsw = inst->m->nsw;
    if (i < k && inst->state.closed[i] != 0.0) return inst->cache.lam[inst->m->nc + i];
    sb_ev_evaluate(inst, *inst->state.time, inst->state.x);
    const double h = sb_hysteresis(inst, i);
    if (i >= k + nsw) return friction_indicator(inst, i - k - nsw) + h;
    return (i < k ? sb_ev(inst)->gap[i] : sb_ev(inst)->sw[i - k]) + h;
}

/* Accelerations with every contact open at the current state into ev->a0 (leaves the factorization). */
SbStatus sb_ev_open_accelerations(SbInstance *inst, const char *function)
{
    const int k = inst->m->nk;
    double saved[SB_MAX_ENUMERATED];
    int many = k > SB_MAX_ENUMERATED;
    for (int i = 0; i < k; ++i) {
        if (!many) saved[i] = inst->state.closed[i];
        inst->state.closed[i] = 0.0;
    }
    SbStatus s = sb_accelerations(inst, *inst->state.time, inst->state.x, sb_ev(inst)->a0, NULL);
    for (int i = 0; i < k && !many; ++i) inst->state.closed[i] = saved[i];
    if (s != SB_OK) sb_log(inst, s, SB_LOG_DISCARD, "%s: at t = %g: %s", function, *inst->state.time, inst->problem);
    return s;
}

