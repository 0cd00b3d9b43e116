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
 */
#include <stdlib.h>
#include <string.h>

#include "sb_events.h"
#include "sb_internal.h"
#include "sb_linalg.h"

#define SB_LCP_TOL 1e-9
#define SB_MAX_ENUMERATED 14

typedef struct SbEvents {
    double *gap, *G, *gbeta, *ggamma, *e; /* contact blocks at the last evaluation */
    double *force;                        /* forces of the closed contacts (nk) */
    double *rate, *coef, *P;              /* (nk) */
    double *Z;                            /* responses [X; Y] to unit forces, one row of nq + nc per contact */
    double *W, *Wf, *b, *z, *w;           /* Delassus matrix of a set (nk x nk), its factors, LCP vectors */
    int *set, *keep, *order, *comb, *active, *prow, *pcol;
    double *a0;                           /* accelerations with no contact force (nq) */
    double *sw;                           /* switching functions of the loads (nsw) */
} SbEvents;

static SbEvents *events(const SbInstance *inst) { return (SbEvents *)inst->events; }

SbStatus sb_events_alloc(SbInstance *inst)
{
    const int k = inst->m->nk + 1, n = inst->m->nq, na = n + inst->m->nc; /* (+1: no zero-size buffers) */
    inst->events = NULL;
    if (inst->m->nk + inst->m->nsw == 0) return SB_OK;
    SbEvents *ev = calloc(1, sizeof *ev);
    if (!ev) return SB_ERROR;
    inst->events = ev;
    double **d[] = {&ev->gap, &ev->gbeta, &ev->ggamma, &ev->e, &ev->force, &ev->rate, &ev->coef, &ev->P,
                    &ev->b, &ev->z, &ev->w};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; ++i)
        if (!(*d[i] = calloc((size_t)k, sizeof(double)))) return SB_ERROR;
    int **ip[] = {&ev->set, &ev->keep, &ev->order, &ev->comb, &ev->active, &ev->prow, &ev->pcol};
    for (size_t i = 0; i < sizeof ip / sizeof ip[0]; ++i)
        if (!(*ip[i] = calloc((size_t)k, sizeof(int)))) return SB_ERROR;
    if (!(ev->G = calloc((size_t)k * n + 1, sizeof(double))) || !(ev->Z = calloc((size_t)k * na, sizeof(double))) ||
        !(ev->W = calloc((size_t)k * k, sizeof(double))) || !(ev->Wf = calloc((size_t)k * k, sizeof(double))) ||
        !(ev->a0 = calloc((size_t)n + 1, sizeof(double))) ||
        !(ev->sw = calloc((size_t)inst->m->nsw + 1, sizeof(double))))
        return SB_ERROR;
    return SB_OK;
}

void sb_events_free(SbInstance *inst)
{
    SbEvents *ev = events(inst);
    if (!ev) return;
    void *buffers[] = {ev->gap,  ev->G,  ev->gbeta, ev->ggamma, ev->e,    ev->force, ev->rate,   ev->coef,
                       ev->P,    ev->Z,  ev->W,     ev->Wf,     ev->b,    ev->z,     ev->w,      ev->set,
                       ev->keep, ev->order, ev->comb, ev->active, ev->prow, ev->pcol, ev->a0, ev->sw};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i) free(buffers[i]);
    free(ev);
    inst->events = NULL;
}

/* The contact blocks and gap rates at (t, x). */
static void evaluate(SbInstance *inst, double t, const double *x)
{
    SbEvents *ev = events(inst);
    const int n = inst->m->nq, k = inst->m->nk;
    SbPoint pt = sb_point(inst, t, x, NULL, NULL);
    sb_contacts(&pt, ev->gap, ev->G, ev->gbeta, ev->ggamma, ev->e);
    sb_switches(&pt, ev->sw);
    for (int i = 0; i < k; ++i) {
        double r = -ev->gbeta[i];
        for (int j = 0; j < n; ++j) r += ev->G[i * n + j] * x[n + j];
        ev->rate[i] = r;
    }
}

/* Responses Z (rows of nq + nc) to unit forces along the contacts set[0..m) and their Delassus matrix W
   (m x m, symmetrized), with the factorization left by the last sb_accelerations. */
static void response(SbInstance *inst, int m, const int *set)
{
    SbEvents *ev = events(inst);
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

/* Solve W[S, S] zs = rhs (s unknowns, basic solution when singular) into zs. */
static void solve_sub(SbEvents *ev, int m, const int *S, int s, const double *rhs, double *zs)
{
    for (int a = 0; a < s; ++a)
        for (int c = 0; c < s; ++c) ev->Wf[a * s + c] = ev->W[S[a] * m + S[c]];
    int rank = sb_lu_factor(s, ev->Wf, ev->prow, ev->pcol, 1e-12);
    sb_lu_solve(s, ev->Wf, ev->prow, ev->pcol, rank, rhs, zs);
}

/* z >= 0 with w = W z + b >= 0 and z.w = 0 (W m x m in ev->W, b in ev->b): the active sets by increasing
   size, those of the most negative b first, as symbody.numeric.complementarity.solve_lcp.  Returns 0 on
   success, 1 when no active set gives a solution, 2 when there are too many unknowns. */
static int solve_lcp(SbEvents *ev, int m)
{
    double bmax = 0.0;
    int all_positive = 1;
    for (int i = 0; i < m; ++i) {
        ev->z[i] = 0.0;
        bmax = fmax(bmax, fabs(ev->b[i]));
        if (ev->b[i] < 0.0) all_positive = 0;
    }
    if (all_positive) return 0;
    if (m > SB_MAX_ENUMERATED) return 2;
    for (int i = 0; i < m; ++i) { /* stable insertion sort of the indices by b */
        int j = i;
        while (j > 0 && ev->b[ev->order[j - 1]] > ev->b[i]) {
            ev->order[j] = ev->order[j - 1];
            --j;
        }
        ev->order[j] = i;
    }
    const double scale = SB_LCP_TOL * (1.0 + bmax);
    double rhs[SB_MAX_ENUMERATED], zs[SB_MAX_ENUMERATED];
    for (int s = 1; s <= m; ++s) {
        for (int a = 0; a < s; ++a) ev->comb[a] = a;
        for (;;) {
            for (int a = 0; a < s; ++a) { /* the active set, sorted */
                int v = ev->order[ev->comb[a]], j = a;
                while (j > 0 && ev->active[j - 1] > v) {
                    ev->active[j] = ev->active[j - 1];
                    --j;
                }
                ev->active[j] = v;
            }
            for (int a = 0; a < s; ++a) rhs[a] = -ev->b[ev->active[a]];
            solve_sub(ev, m, ev->active, s, rhs, zs);
            int ok = 1;
            for (int i = 0; i < m; ++i) ev->z[i] = 0.0;
            for (int a = 0; a < s; ++a) {
                ev->z[ev->active[a]] = zs[a];
                if (!(zs[a] >= -scale)) ok = 0;
            }
            for (int i = 0; i < m && ok; ++i) {
                double w = ev->b[i];
                for (int c = 0; c < m; ++c) w += ev->W[i * m + c] * ev->z[c];
                ev->w[i] = w;
                if (!(w >= -scale)) ok = 0;
            }
            for (int a = 0; a < s && ok; ++a)
                if (!(fabs(ev->w[ev->active[a]]) <= scale)) ok = 0;
            if (ok) {
                for (int i = 0; i < m; ++i) ev->z[i] = fmax(ev->z[i], 0.0);
                return 0;
            }
            int a = s - 1; /* next combination of s of the m positions */
            while (a >= 0 && ev->comb[a] == m - s + a) --a;
            if (a < 0) break;
            ++ev->comb[a];
            for (int c = a + 1; c < s; ++c) ev->comb[c] = ev->comb[c - 1] + 1;
        }
    }
    for (int i = 0; i < m; ++i) ev->z[i] = 0.0;
    return 1;
}

SbStatus sb_contact_accelerations(SbInstance *inst, double t, const double *x)
{
    SbEvents *ev = events(inst);
    const int n = inst->m->nq, k = inst->m->nk, na = inst->dyn.na;
    int m = 0;
    for (int i = 0; i < k; ++i) {
        ev->force[i] = 0.0;
        if (inst->state.closed[i] != 0.0) ev->set[m++] = i;
    }
    if (m == 0) return SB_OK;
    evaluate(inst, t, x);
    response(inst, m, ev->set);
    const double alpha = inst->state.set[SB_SET_ALPHA], bb = inst->state.set[SB_SET_BETA];
    double rhs[SB_MAX_ENUMERATED], f[SB_MAX_ENUMERATED];
    if (m > SB_MAX_ENUMERATED)
        return sb_problem(inst, SB_DISCARD, "%d contacts closed at once: more than the %d this FMU handles", m,
                          SB_MAX_ENUMERATED);
    for (int a = 0; a < m; ++a) {
        const int i = ev->set[a];
        double v = -ev->ggamma[i] + 2.0 * alpha * ev->rate[i] + bb * bb * ev->gap[i];
        for (int j = 0; j < n; ++j) v += ev->G[(size_t)i * n + j] * inst->dyn.sol[j];
        rhs[a] = -v;
        ev->comb[a] = a;
    }
    solve_sub(ev, m, ev->comb, m, rhs, f);
    for (int a = 0; a < m; ++a) {
        if (!isfinite(f[a]))
            return sb_problem(inst, SB_DISCARD, "the force of contact '%s' is not finite",
                              inst->m->contact_names[ev->set[a]]);
        ev->force[ev->set[a]] = f[a];
        for (int j = 0; j < na; ++j) inst->dyn.sol[j] += f[a] * ev->Z[(size_t)a * na + j];
    }
    return SB_OK;
}

void sb_contact_forces(const SbInstance *inst, double *force)
{
    memcpy(force, events(inst)->force, (size_t)inst->m->nk * sizeof(double));
}

SbStatus sb_event_indicators(SbInstance *inst, const char *function, double *z, size_t nz)
{
    const int k = inst->m->nk, nsw = inst->m->nsw;
    if (nz != (size_t)(k + nsw))
        return sb_fail(inst, function, "this FMU has %d event indicators (asked %lu)", k + nsw, (unsigned long)nz);
    if (k + nsw == 0) return SB_OK;
    int closed = 0;
    for (int i = 0; i < k; ++i)
        if (inst->state.closed[i] != 0.0) closed = 1;
    if (closed) { /* the forces of the closed contacts need the accelerations; gaps and switches do not */
        SbStatus s = sb_update(inst);
        if (s != SB_OK) {
            sb_log(inst, s, SB_LOG_DISCARD, "%s: at t = %g: %s", function, *inst->state.time, inst->problem);
            return s;
        }
    }
    SbEvents *ev = events(inst);
    evaluate(inst, *inst->state.time, inst->state.x);
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
    return SB_OK;
}

void sb_contact_rates(SbInstance *inst, double *rate)
{
    evaluate(inst, *inst->state.time, inst->state.x);
    memcpy(rate, events(inst)->rate, (size_t)inst->m->nk * sizeof(double));
}

double sb_event_indicator(SbInstance *inst, int i)
{
    const int k = inst->m->nk;
    if (i < k && inst->state.closed[i] != 0.0) return inst->cache.lam[inst->m->nc + i];
    evaluate(inst, *inst->state.time, inst->state.x);
    return i < k ? events(inst)->gap[i] : events(inst)->sw[i - k];
}

/* Accelerations with every contact open at the current state into ev->a0 (leaves the factorization). */
static SbStatus open_accelerations(SbInstance *inst, const char *function)
{
    const int k = inst->m->nk;
    double saved[SB_MAX_ENUMERATED];
    int many = k > SB_MAX_ENUMERATED;
    for (int i = 0; i < k; ++i) {
        if (!many) saved[i] = inst->state.closed[i];
        inst->state.closed[i] = 0.0;
    }
    SbStatus s = sb_accelerations(inst, *inst->state.time, inst->state.x, events(inst)->a0, NULL);
    for (int i = 0; i < k && !many; ++i) inst->state.closed[i] = saved[i];
    if (s != SB_OK) sb_log(inst, s, SB_LOG_DISCARD, "%s: at t = %g: %s", function, *inst->state.time, inst->problem);
    return s;
}

/* Newton's multi-contact impact on the m touching contacts ev->set; returns the status, *changed set. */
static SbStatus impact(SbInstance *inst, const char *function, int m, int *changed)
{
    SbEvents *ev = events(inst);
    const int n = inst->m->nq, na = inst->dyn.na;
    const double t = *inst->state.time;
    int approach = 0;
    for (int a = 0; a < m; ++a)
        if (ev->rate[ev->set[a]] < -SB_REST_VELOCITY) approach = 1;
    if (!approach) return SB_OK;
    SbStatus s = open_accelerations(inst, function);
    if (s != SB_OK) return s;
    response(inst, m, ev->set);
    for (int a = 0; a < m; ++a) {
        const double r = ev->rate[ev->set[a]];
        ev->b[a] = (1.0 + (r < -SB_REST_VELOCITY ? ev->e[ev->set[a]] : 0.0)) * r;
    }
    int bad = solve_lcp(ev, m);
    if (bad)
        return sb_fail(inst, function, "the impact at t = %g has no solution by %s", t,
                       bad == 2 ? "enumeration (too many touching contacts)"
                                : "any active set (inconsistent contacts?)");
    for (int a = 0; a < m; ++a) {
        const int i = ev->set[a];
        if (ev->z[a] > 0.0 && ev->rate[i] < -SB_REST_VELOCITY)
            sb_log(inst, SB_OK, SB_LOG_EVENTS, "%s: t = %.17g: impact of contact '%s' (rate %g, impulse %g)", function,
                   t, inst->m->contact_names[i], ev->rate[i], ev->z[a]);
        for (int j = 0; j < n; ++j) inst->state.x[n + j] += ev->z[a] * ev->Z[(size_t)a * na + j];
    }
    *changed = 1;
    sb_changed(inst);
    return SB_OK;
}

/* The closed contacts among the touching ones: the force problem over those at rest. */
static SbStatus select_modes(SbInstance *inst, const char *function, int touching, int *changed)
{
    SbEvents *ev = events(inst);
    const int n = inst->m->nq, k = inst->m->nk, na = inst->dyn.na;
    const double t = *inst->state.time;
    int m = 0;
    if (touching > 0) { /* (nothing touching: every contact opens, no force problem) */
        SbStatus s = open_accelerations(inst, function);
        if (s != SB_OK) return s;
        evaluate(inst, t, inst->state.x);
    }
    for (int a = 0; a < touching; ++a)
        if (fabs(ev->rate[ev->set[a]]) <= SB_REST_VELOCITY) ev->set[m++] = ev->set[a];
    int nkeep = 0;
    if (m > 0) {
        response(inst, m, ev->set);
        const double alpha = inst->state.set[SB_SET_ALPHA], bb = inst->state.set[SB_SET_BETA];
        double bmax = 0.0, wmax = 1e-300;
        for (int a = 0; a < m; ++a) {
            const int i = ev->set[a];
            double v = -ev->ggamma[i] + 2.0 * alpha * ev->rate[i] + bb * bb * ev->gap[i];
            for (int j = 0; j < n; ++j) v += ev->G[(size_t)i * n + j] * ev->a0[j];
            ev->b[a] = v;
            bmax = fmax(bmax, fabs(v));
            wmax = fmax(wmax, ev->W[a * m + a]);
        }
        int bad = solve_lcp(ev, m);
        if (bad)
            return sb_fail(inst, function, "the contact forces at t = %g have no solution by %s", t,
                           bad == 2 ? "enumeration (too many touching contacts)" : "any active set");
        for (int a = 0; a < m; ++a)
            if (ev->z[a] > 1e-10 * (1.0 + bmax / wmax)) ev->keep[nkeep++] = a;
        if (nkeep > 0) { /* the closing contacts come exactly to rest */
            double rhs[SB_MAX_ENUMERATED], P[SB_MAX_ENUMERATED];
            int stopped = 0;
            for (int c = 0; c < nkeep; ++c) {
                rhs[c] = ev->rate[ev->set[ev->keep[c]]];
                if (rhs[c] != 0.0) stopped = 1;
            }
            if (stopped) {
                solve_sub(ev, m, ev->keep, nkeep, rhs, P);
                for (int c = 0; c < nkeep; ++c)
                    for (int j = 0; j < n; ++j) inst->state.x[n + j] -= P[c] * ev->Z[(size_t)ev->keep[c] * na + j];
                *changed = 1;
            }
        }
    }
    for (int i = 0; i < k; ++i) ev->P[i] = 0.0; /* the new modes */
    for (int c = 0; c < nkeep; ++c) ev->P[ev->set[ev->keep[c]]] = 1.0;
    for (int i = 0; i < k; ++i) {
        if (ev->P[i] != inst->state.closed[i])
            sb_log(inst, SB_OK, SB_LOG_EVENTS, "%s: t = %.17g: contact '%s' %s", function, t,
                   inst->m->contact_names[i], ev->P[i] != 0.0 ? "closes" : "opens");
        inst->state.closed[i] = ev->P[i];
    }
    sb_changed(inst);
    return SB_OK;
}

SbStatus sb_events_resolve(SbInstance *inst, const char *function, int *changed)
{
    *changed = 0;
    const int k = inst->m->nk;
    if (k == 0) return SB_OK;
    SbEvents *ev = events(inst);
    const double t = *inst->state.time;
    evaluate(inst, t, inst->state.x);
    int m = 0;
    for (int i = 0; i < k; ++i) {
        const int closed = inst->state.closed[i] != 0.0;
        if (!closed && -ev->gap[i] > SB_GAP_TOL)
            return sb_fail(inst, function, "contact '%s' penetrates by %g at t = %g (an event was missed)",
                           inst->m->contact_names[i], -ev->gap[i], t);
        if (closed || (ev->gap[i] <= SB_GAP_TOL && ev->rate[i] <= SB_REST_VELOCITY)) ev->set[m++] = i;
    }
    if (m > SB_MAX_ENUMERATED)
        return sb_fail(inst, function, "%d contacts touch at once at t = %g: more than the %d this FMU handles", m, t,
                       SB_MAX_ENUMERATED);
    SbStatus s = impact(inst, function, m, changed);
    if (s != SB_OK) return s;
    return select_modes(inst, function, m, changed);
}
