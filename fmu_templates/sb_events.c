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
 * multipliers, contact forces and friction forces (a block pressed on a contact by its weight): then the
 * forces are found by fixed-point iteration.  The event indicator of a sticking element is
 * mu_static |N| - |F| + SB_STICK_TOL (1 + |N|) (positive while it holds), that of a slipping one s v.
 * At an event the elements moving faster than SB_REST_VELOCITY slip along their rate; the others stick,
 * and while the force that holds one has an indicator <= 0 the most overloaded is released, sliding
 * against that force (one at a time: a heuristic, not a complementarity problem, for elements that load
 * each other).  Sticking elements that moved are stopped by an impulse along their rows that keeps the
 * closed contacts and the bilateral constraints.  Impacts do not hold sticking elements (a finite normal
 * force gives no friction impulse); the force problem of the contacts does.
 */
#include <stdlib.h>
#include <string.h>

#include "sb_events.h"
#include "sb_internal.h"
#include "sb_linalg.h"

#define SB_LCP_TOL 1e-9
#define SB_MAX_ENUMERATED 14
#define SB_NORMAL_ITERATIONS 50 /* fixed-point iterations of normal forces that depend on the forces */

/* The event rows are the nk contacts, then the nf friction elements: G holds their rows (gap Jacobian
   rows, then the sliding rate rows A), rate their rates, force their forces, gbeta and ggamma their
   beta and gamma (g_q dq - gap_beta, A dq - fr_beta). */
typedef struct SbEvents {
    double *gap, *G, *gbeta, *ggamma, *e; /* event row blocks at the last evaluation */
    double *force;                        /* forces of the closed contacts and the friction elements (nk + nf) */
    double *rate, *coef, *P;              /* (nk + nf) */
    double *Z;                            /* responses [X; Y] to unit forces, one row of nq + nc per event row */
    double *W, *Wf, *Wc, *b, *z, *w;      /* Delassus matrix of a set, its factors, a condensed one, LCP vectors */
    int *set, *keep, *order, *comb, *active, *prow, *pcol;
    int *held;                            /* the rows held in the current modes (sb_contact_accelerations) */
    double *a0;                           /* accelerations with no contact force (nq) */
    double *sw;                           /* switching functions of the loads (nsw) */
    double *mu, *mus, *normal, *before;   /* friction coefficients, |N|, modes before an event (nf) */
    double *Zs, *sol0, *lam_all, *lam_prev; /* responses to the slip forces (nf x na), the bilateral solution
                                             (na), [multipliers; event forces] the normal forces see (nc + nk + nf)
                                             and their previous iterate */
} SbEvents;

static SbEvents *events(const SbInstance *inst) { return (SbEvents *)inst->events; }

SbStatus sb_events_alloc(SbInstance *inst)
{
    const SbModel *m = inst->m;
    const int k = m->nk + m->nf + 1, n = m->nq, na = n + m->nc; /* (+1: no zero-size buffers) */
    inst->events = NULL;
    if (m->nk + m->nsw + m->nf == 0) return SB_OK;
    SbEvents *ev = calloc(1, sizeof *ev);
    if (!ev) return SB_ERROR;
    inst->events = ev;
    double **d[] = {&ev->gap, &ev->gbeta, &ev->ggamma, &ev->e,  &ev->force, &ev->rate,   &ev->coef, &ev->P,
                    &ev->b,   &ev->z,     &ev->w,      &ev->mu, &ev->mus,   &ev->normal, &ev->before};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; ++i)
        if (!(*d[i] = calloc((size_t)k, sizeof(double)))) return SB_ERROR;
    int **ip[] = {&ev->set, &ev->keep, &ev->order, &ev->comb, &ev->active, &ev->prow, &ev->pcol, &ev->held};
    for (size_t i = 0; i < sizeof ip / sizeof ip[0]; ++i)
        if (!(*ip[i] = calloc((size_t)k, sizeof(int)))) return SB_ERROR;
    if (!(ev->G = calloc((size_t)k * n + 1, sizeof(double))) || !(ev->Z = calloc((size_t)k * na, sizeof(double))) ||
        !(ev->W = calloc((size_t)k * k, sizeof(double))) || !(ev->Wf = calloc((size_t)k * k, sizeof(double))) ||
        !(ev->Wc = calloc((size_t)k * k, sizeof(double))) || !(ev->a0 = calloc((size_t)n + 1, sizeof(double))) ||
        !(ev->sw = calloc((size_t)m->nsw + 1, sizeof(double))) ||
        !(ev->Zs = calloc((size_t)k * na, sizeof(double))) || !(ev->sol0 = calloc((size_t)na, sizeof(double))) ||
        !(ev->lam_all = calloc((size_t)(m->nc + k), sizeof(double))) ||
        !(ev->lam_prev = calloc((size_t)(m->nc + k), sizeof(double))))
        return SB_ERROR;
    return SB_OK;
}

void sb_events_free(SbInstance *inst)
{
    SbEvents *ev = events(inst);
    if (!ev) return;
    void *buffers[] = {ev->gap,   ev->G,     ev->gbeta, ev->ggamma, ev->e,    ev->force, ev->rate,   ev->coef,
                       ev->P,     ev->Z,     ev->W,     ev->Wf,     ev->Wc,   ev->b,     ev->z,      ev->w,
                       ev->set,   ev->keep,  ev->order, ev->comb,   ev->active, ev->prow, ev->pcol,  ev->a0,
                       ev->sw,    ev->mu,    ev->mus,   ev->normal, ev->before, ev->Zs,   ev->sol0,  ev->lam_all,
                       ev->lam_prev, ev->held};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i) free(buffers[i]);
    free(ev);
    inst->events = NULL;
}

/* The blocks of the contacts and the friction elements and their rates at (t, x). */
static void evaluate(SbInstance *inst, double t, const double *x)
{
    SbEvents *ev = events(inst);
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
static void normals(SbInstance *inst, double t, const double *x, const double *lam)
{
    SbEvents *ev = events(inst);
    SbPoint pt = sb_point(inst, t, x, NULL, lam);
    sb_friction_normals(&pt, ev->normal);
    for (int j = 0; j < inst->m->nf; ++j) ev->normal[j] = fabs(ev->normal[j]);
}

/* The event indicator of a sticking friction element: positive while its force F is admissible. */
static double stick_margin(const SbEvents *ev, int j, double F)
{
    return ev->mus[j] * ev->normal[j] - fabs(F) + SB_STICK_TOL * (1.0 + ev->normal[j]);
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

/* Responses and Delassus matrix of the m rows set[0..m) with the h rows set[m..m+h) held as well (the
   sticking friction elements): W_mm - W_mh W_hh^-1 W_hm into ev->W (m x m) and Z_m - Z_h W_hh^-1 W_hm. */
static void response_held(SbInstance *inst, int m, int h, const int *set)
{
    SbEvents *ev = events(inst);
    const int mh = m + h, na = inst->dyn.na;
    response(inst, mh, set);
    if (h == 0) return;
    for (int a = 0; a < h; ++a)
        for (int c = 0; c < h; ++c) ev->Wf[a * h + c] = ev->W[(m + a) * mh + m + c];
    const int rank = sb_lu_factor(h, ev->Wf, ev->prow, ev->pcol, 1e-12);
    double col[SB_MAX_ENUMERATED], y[SB_MAX_ENUMERATED];
    for (int c = 0; c < m; ++c) {
        for (int b = 0; b < h; ++b) col[b] = ev->W[(m + b) * mh + c];
        sb_lu_solve(h, ev->Wf, ev->prow, ev->pcol, rank, col, y);
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
    SbEvents *ev = events(inst);
    const int n = inst->m->nq, k = inst->m->nk;
    const double alpha = inst->state.set[SB_SET_ALPHA], bb = inst->state.set[SB_SET_BETA];
    for (int a = 0; a < m; ++a) {
        const int i = set[a];
        double v = -ev->ggamma[i] + 2.0 * alpha * ev->rate[i] + (i < k ? bb * bb * ev->gap[i] : 0.0);
        for (int j = 0; j < n; ++j) v += ev->G[(size_t)i * n + j] * inst->dyn.sol[j];
        rhs[a] = -v;
    }
}

/* The forces of the held rows set[0..m) (W, Z of response) and of the slipping friction elements at the
   normal forces of ev->lam_all, added to inst->dyn.sol (which holds the bilateral solution) and stored
   in ev->force. */
static SbStatus apply_forces(SbInstance *inst, int m, const int *set, const double *rhs0)
{
    SbEvents *ev = events(inst);
    const int n = inst->m->nq, nc = inst->m->nc, k = inst->m->nk, nf = inst->m->nf, na = inst->dyn.na;
    double rhs[SB_MAX_ENUMERATED], f[SB_MAX_ENUMERATED];
    memcpy(rhs, rhs0, (size_t)m * sizeof(double));
    for (int j = 0; j < nf; ++j) { /* the slip forces, -mu |N| s along their rows */
        const double s = inst->state.slip[j];
        if (s == 0.0) continue;
        const double F = -ev->mu[j] * ev->normal[j] * s;
        const double *zs = ev->Zs + (size_t)j * na;
        ev->force[k + j] = F;
        for (int i = 0; i < na; ++i) inst->dyn.sol[i] += F * zs[i];
        for (int a = 0; a < m; ++a) {
            double v = 0.0;
            for (int i = 0; i < n; ++i) v += ev->G[(size_t)set[a] * n + i] * zs[i];
            rhs[a] -= F * v;
        }
    }
    int all[SB_MAX_ENUMERATED] = {0};
    for (int a = 0; a < m; ++a) all[a] = a;
    solve_sub(ev, m, all, m, rhs, f);
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
static int held_rows(const SbInstance *inst, int *set)
{
    int m = 0;
    for (int i = 0; i < inst->m->nk; ++i)
        if (inst->state.closed[i] != 0.0) set[m++] = i;
    for (int j = 0; j < inst->m->nf; ++j)
        if (inst->state.slip[j] == 0.0) set[m++] = inst->m->nk + j;
    return m;
}

SbStatus sb_contact_accelerations(SbInstance *inst, double t, const double *x)
{
    SbEvents *ev = events(inst);
    const SbModel *md = inst->m;
    const int n = md->nq, nc = md->nc, k = md->nk, nf = md->nf, na = inst->dyn.na;
    int slipping = 0;
    for (int i = 0; i < k + nf; ++i) ev->force[i] = 0.0;
    for (int j = 0; j < nf; ++j)
        if (inst->state.slip[j] != 0.0) slipping = 1;
    const int m = held_rows(inst, ev->held); /* a sticking element is one more row */
    if (m == 0 && !slipping) return SB_OK;
    if (m > SB_MAX_ENUMERATED)
        return sb_problem(inst, SB_DISCARD, "%d contacts and sticking friction elements hold at once: more than the %d "
                          "this FMU handles", m, SB_MAX_ENUMERATED);
    evaluate(inst, t, x);
    response(inst, m, ev->held);
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
    for (int it = 0; it < SB_NORMAL_ITERATIONS; ++it) {
        normals(inst, t, x, ev->lam_all);
        memcpy(inst->dyn.sol, ev->sol0, (size_t)na * sizeof(double));
        const int nl = nc + k + nf;
        memcpy(ev->lam_prev, ev->lam_all, (size_t)nl * sizeof(double));
        SbStatus s = apply_forces(inst, m, ev->held, rhs);
        if (s != SB_OK || !md->friction_implicit) return s; /* (N without forces: no iteration) */
        double change = 0.0, scale = 0.0;
        for (int i = 0; i < nl; ++i) {
            change = fmax(change, fabs(ev->lam_all[i] - ev->lam_prev[i]));
            scale = fmax(scale, fabs(ev->lam_all[i]));
        }
        if (it > 0 && change <= 1e-12 * (1.0 + scale)) return SB_OK;
    }
    return sb_problem(inst, SB_DISCARD, "the normal forces of the friction elements do not converge at t = %g", t);
}

void sb_contact_forces(const SbInstance *inst, double *force)
{
    memcpy(force, events(inst)->force, (size_t)(inst->m->nk + inst->m->nf) * sizeof(double));
}

/* Event indicator of friction element j at the current state (after evaluate; the cache valid when it
   sticks): mu_static |N| - |F| + SB_STICK_TOL (1 + |N|) sticking, s v slipping. */
static double friction_indicator(SbInstance *inst, int j)
{
    SbEvents *ev = events(inst);
    const double s = inst->state.slip[j];
    if (s != 0.0) return s * ev->rate[inst->m->nk + j];
    normals(inst, *inst->state.time, inst->state.x, inst->cache.lam);
    return stick_margin(ev, j, inst->cache.lam[inst->m->nc + inst->m->nk + j]);
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

SbStatus sb_event_indicators(SbInstance *inst, const char *function, double *z, size_t nz)
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
    for (int j = 0; j < nf; ++j) {
        z[k + nsw + j] = friction_indicator(inst, j);
        if (!isfinite(z[k + nsw + j])) {
            sb_problem(inst, SB_DISCARD, "the event indicator of friction '%s' is not finite at t = %g",
                       inst->m->friction_names[j], *inst->state.time);
            sb_log(inst, SB_DISCARD, SB_LOG_DISCARD, "%s: %s", function, inst->problem);
            return SB_DISCARD;
        }
    }
    return SB_OK;
}

void sb_contact_rates(SbInstance *inst, double *rate)
{
    evaluate(inst, *inst->state.time, inst->state.x);
    memcpy(rate, events(inst)->rate, (size_t)(inst->m->nk + inst->m->nf) * sizeof(double));
}

SbStatus sb_slip_accelerations(SbInstance *inst, double *acc)
{
    const int n = inst->m->nq, k = inst->m->nk, nf = inst->m->nf;
    if (nf == 0) return SB_OK;
    SbStatus s = sb_update(inst);
    if (s != SB_OK) return s;
    SbEvents *ev = events(inst);
    evaluate(inst, *inst->state.time, inst->state.x);
    for (int j = 0; j < nf; ++j) {
        double a = -ev->ggamma[k + j];
        for (int i = 0; i < n; ++i) a += ev->G[(size_t)(k + j) * n + i] * inst->cache.ddq[i];
        acc[j] = a;
    }
    return SB_OK;
}

double sb_event_indicator(SbInstance *inst, int i)
{
    const int k = inst->m->nk, nsw = inst->m->nsw;
    if (i < k && inst->state.closed[i] != 0.0) return inst->cache.lam[inst->m->nc + i];
    evaluate(inst, *inst->state.time, inst->state.x);
    if (i >= k + nsw) return friction_indicator(inst, i - k - nsw);
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
    int nkeep = 0, h = 0;
    for (int j = 0; j < inst->m->nf && m > 0; ++j) /* the sticking friction elements hold */
        if (inst->state.slip[j] == 0.0) ev->set[m + h++] = k + j;
    if (m + h > SB_MAX_ENUMERATED)
        return sb_fail(inst, function, "%d contacts and sticking friction elements at t = %g: more than the %d this "
                       "FMU handles", m + h, t, SB_MAX_ENUMERATED);
    if (m > 0) {
        response_held(inst, m, h, ev->set);
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

/* Stop the sticking friction elements that still move: the impulse along the held rows (closed contacts
   kept as they move, the bilateral constraints too) that zeroes their rates. */
static SbStatus stop_sticking(SbInstance *inst, const char *function, int *changed)
{
    SbEvents *ev = events(inst);
    const int n = inst->m->nq, k = inst->m->nk, na = inst->dyn.na;
    const int m = held_rows(inst, ev->set);
    double rhs[SB_MAX_ENUMERATED], P[SB_MAX_ENUMERATED];
    if (m > SB_MAX_ENUMERATED)
        return sb_fail(inst, function, "%d contacts and sticking friction elements at t = %g: more than the %d this "
                       "FMU handles", m, *inst->state.time, SB_MAX_ENUMERATED);
    int moving = 0;
    for (int a = 0; a < m; ++a) {
        rhs[a] = ev->set[a] < k ? 0.0 : ev->rate[ev->set[a]];
        ev->comb[a] = a;
        if (rhs[a] != 0.0) moving = 1;
    }
    if (!moving) return SB_OK;
    response(inst, m, ev->set); /* (the factorization of the last sb_accelerations, at this state) */
    solve_sub(ev, m, ev->comb, m, rhs, P);
    for (int a = 0; a < m; ++a)
        for (int j = 0; j < n; ++j) inst->state.x[n + j] -= P[a] * ev->Z[(size_t)a * na + j];
    *changed = 1;
    sb_changed(inst);
    return SB_OK;
}

/* Stick or slip: the elements at rest stick while the force that holds them keeps a positive indicator; the
   most overloaded one is released first, sliding against that force (symbody.numeric.events). */
static SbStatus select_friction(SbInstance *inst, const char *function, int *changed)
{
    SbEvents *ev = events(inst);
    const int k = inst->m->nk, nf = inst->m->nf, nc = inst->m->nc;
    const double t = *inst->state.time;
    evaluate(inst, t, inst->state.x);
    for (int j = 0; j < nf; ++j) {
        const double v = ev->rate[k + j];
        ev->before[j] = inst->state.slip[j];
        inst->state.slip[j] = fabs(v) > SB_REST_VELOCITY ? (v > 0.0 ? 1.0 : -1.0) : 0.0;
    }
    for (int round = 0; round <= nf; ++round) {
        sb_changed(inst);
        SbStatus s = sb_accelerations(inst, t, inst->state.x, ev->a0, NULL);
        if (s != SB_OK) {
            sb_log(inst, s, SB_LOG_DISCARD, "%s: at t = %g: %s", function, t, inst->problem);
            return s;
        }
        int worst = -1;
        double lowest = 0.0;
        for (int j = 0; j < nf; ++j) {
            if (inst->state.slip[j] != 0.0) continue;
            const double margin = stick_margin(ev, j, ev->lam_all[nc + k + j]);
            if (margin <= lowest) {
                lowest = margin;
                worst = j;
            }
        }
        if (worst < 0) break;
        inst->state.slip[worst] = ev->lam_all[nc + k + worst] > 0.0 ? -1.0 : 1.0; /* against the holding force */
    }
    SbStatus s = stop_sticking(inst, function, changed);
    if (s != SB_OK) return s;
    for (int j = 0; j < nf; ++j)
        if (inst->state.slip[j] != ev->before[j])
            sb_log(inst, SB_OK, SB_LOG_EVENTS, "%s: t = %.17g: friction '%s' %s (rate %g)", function, t,
                   inst->m->friction_names[j],
                   inst->state.slip[j] == 0.0 ? "sticks" : inst->state.slip[j] > 0.0 ? "slips forward" : "slips backward",
                   ev->rate[k + j]);
    sb_changed(inst);
    return SB_OK;
}

SbStatus sb_events_resolve(SbInstance *inst, const char *function, int *changed)
{
    *changed = 0;
    const int k = inst->m->nk;
    if (k + inst->m->nf == 0) return SB_OK;
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
    if (s == SB_OK && k > 0) s = select_modes(inst, function, m, changed);
    if (s == SB_OK && inst->m->nf > 0) s = select_friction(inst, function, changed);
    return s;
}
