/*
 * sb_events_resolve.c -- the resolution of an event: the importer's event iteration in Model Exchange, an
 * event located inside doStep in Co-Simulation, the start of both.  In order:
 *
 * 1. Events found late.  A master that sees events only at the ends of its steps (or whose tolerance lets a
 *    closed contact drift) hands over a state past the event: an open contact inside its surface (gap below
 *    -SB_PROJECT_GAP), a closed one that drifted inside.  The event is handled at that state: the positions are
 *    projected onto those surfaces with every bilateral constraint kept (a first step in the metric of the
 *    masses, as impulses along the gaps would move the bodies, then Newton with minimum-norm steps on
 *    [Phi; g]), the velocities onto the bilateral rows, and a contact found inside takes the rate at which it
 *    crossed its surface (sb_entry_rate: the projection neither gains nor loses energy along the gap; one
 *    leaving where the importer located it, within twice the offset of its event indicator, keeps its rate).
 * 2. Impacts: Newton's multi-contact law (F. Pfeiffer and C. Glocker, Multibody Dynamics with Unilateral
 *    Contacts, Wiley, 1996, ch. 6) on the touching contacts (the closed ones whatever the drift of their gaps,
 *    the open ones with gaps within SB_GAP_TOL, not separating): impulses
 *    P >= 0 with gdot+ = gdot- + W P, gdot+ + e gdot- >= 0, complementary (sb_lcp).  Plastic (e = 0) when
 *    sb_plastic_impact says so: approaches slower than SB_REST_VELOCITY, and impacts found late whose rebound
 *    would rise less than SB_REBOUND_RESOLUTION times the depth at which they were found; so accumulations of
 *    impacts end, also in masters with fixed steps.
 * 3. Contact modes: the touching contacts at rest (slower than SB_REST_VELOCITY; a closed one within the
 *    importer's error on the motion of its surface, sb_rest_rate: Euler lags a h / 2 behind a floor accelerating
 *    at a, which took a ball resting on it for an impact or a lift-off at the next event of any element) or
 *    leaving slower than the importer resolves (under their gap accelerations with the closed contacts held) carry forces f >= 0 with gap accelerations W f + b >= 0 at
 *    their rates zeroed, complementary (the sticking friction elements held); those with f > 0 close (their
 *    rates are zeroed, and so are those of the opening ones that approach slower than SB_REST_VELOCITY), the
 *    others open, except those whose rates the sticking elements hold already (W_ii zero with them held: a
 *    block stuck against its stop), which stay closed and share the load in the forces of the mode.
 * 4. Friction (stick or slip): the elements at rest stick while the force that holds them keeps a positive
 *    indicator, the most overloaded released first, sliding against that force (a heuristic for elements that
 *    load each other, as symbody.numeric.events).  An element that was slipping and whose rate has reversed
 *    without an impulse reached its stop (perhaps found late): it is at rest, its position taken back by the
 *    way it went past the stop.  The elements at rest are stopped by an impulse along their rows that keeps
 *    the closed contacts and the bilateral constraints.
 * 5. Every closed contact's force is strictly positive in the new modes: those whose force is not (above
 *    SB_FORCE_TOL of the largest: the complementarity problem and the forces of the mode agree to rounding
 *    only) open, and the friction modes are chosen again.  The switching functions of the loads take their
 *    sides (the hysteresis of their indicators).
 * 6. Model Exchange: the offsets of the contacts' event indicators (sb_events.h, SB_OFFSET_GROWTH): grown for a
 *    contact found again where it left its surface, back to the first after an impact or a flight.
 */
#include <stdlib.h>
#include <string.h>

#include "sb_events_work.h"
#include "sb_linalg.h"

#define SB_PROJECT_ITERATIONS 20

/* ------------------------------------------------------------------------ */
/* events found late                                                        */
/* ------------------------------------------------------------------------ */

/* Newton on [Phi; g_set] = 0 for the positions (the bilateral constraints and the gaps of the m contacts
   set[0..m)): a first step in the metric of the masses, then minimum-norm steps. */
static SbStatus project_positions(SbInstance *inst, const char *function, int m, const int *set)
{
    SbEvents *ev = sb_ev(inst);
    const SbModel *md = inst->m;
    const int n = md->nq, nh = md->nh, rows = nh + m;
    const double t = *inst->state.time;
    double *x = inst->state.x, *J = inst->proj.Jrows, *r = inst->proj.rrows, *dx = inst->proj.dx;
    const double tol = fmin(inst->state.set[SB_SET_PROJ_TOL], 1e-3 * SB_PROJECT_GAP);
    double err = INFINITY;
    /* A first step in the metric of the mass matrix, the bilateral rows held: the bodies move back as impulses
       along the gaps would move them (a step of least norm in the coordinates mixes metres and radians: a
       payload found 4 mm inside the ground had its rope turned by 1.8e-3 rad rather than shortened, and the
       trolley drifted 5 cm over the next 4 s).  Newton's steps below remove what is left (of second order). */
    SbStatus s = sb_ev_open_accelerations(inst, function);
    if (s != SB_OK) return s;
    sb_ev_evaluate(inst, t, x);
    sb_ev_response(inst, m, set);
    {
        int all[SB_MAX_ENUMERATED];
        double rhs[SB_MAX_ENUMERATED], P[SB_MAX_ENUMERATED];
        for (int a = 0; a < m; ++a) {
            all[a] = a;
            rhs[a] = -ev->gap[set[a]];
        }
        sb_sym_solve(m, ev->W, m, all, rhs, P);
        for (int a = 0; a < m; ++a)
            for (int j = 0; j < n; ++j) x[j] += P[a] * ev->Z[(size_t)a * inst->dyn.na + j];
        sb_changed(inst);
    }
    for (int it = 0; it <= SB_PROJECT_ITERATIONS; ++it) {
        SbPoint pt = sb_point(inst, t, x, NULL, NULL);
        if (nh > 0) sb_Phi_Phi_q(&pt, J, r);
        sb_ev_evaluate(inst, t, x);
        for (int a = 0; a < m; ++a) {
            memcpy(J + (size_t)(nh + a) * n, ev->G + (size_t)set[a] * n, (size_t)n * sizeof(double));
            r[nh + a] = ev->gap[set[a]];
        }
        err = sb_norm_inf(rows, r);
        if (!isfinite(err) || err <= tol || it == SB_PROJECT_ITERATIONS) break;
        sb_min_norm_step(inst, rows, n, J, r, dx, SB_CORR_REG);
        for (int i = 0; i < n; ++i) x[i] -= dx[i];
    }
    if (!(err <= SB_PROJECT_GAP))
        return sb_fail(inst, function, "at t = %g the positions cannot be projected onto the surface of contact "
                       "'%s' with the constraints kept (residual %g)", t, md->contact_names[set[0]], err);
    sb_project_velocities(inst, t, x);
    sb_changed(inst);
    return SB_OK;
}

/* Open contacts found inside their surfaces and closed ones whose gap drifted: projected back (module comment,
   1); ev->depth holds the depth of each contact found inside, 0 for the others. */
static SbStatus project_found_late(SbInstance *inst, const char *function, int *changed)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq, k = inst->m->nk, na = inst->dyn.na;
    const double t = *inst->state.time;
    int m = 0, inside = 0;
    ev->late = 0.0;
    for (int i = 0; i < k; ++i) {
        const int closed = inst->state.closed[i] != 0.0;
        ev->depth[i] = 0.0;
        if (!closed && ev->gap[i] < -SB_PROJECT_GAP) {
            ev->depth[i] = -ev->gap[i];
            if (ev->depth[i] > 2.0 * inst->state.offset[i]) /* (not at its offset: where it was located) */
                ev->late = fmax(ev->late, ev->depth[i]);
            ev->set[m++] = i;
            ++inside;
        } else if (closed && ev->gap[i] < -SB_PROJECT_GAP) { /* (one that moved out opens unless it touches) */
            ev->set[m++] = i;
        }
    }
    if (m == 0) return SB_OK;
    if (m > SB_MAX_ENUMERATED)
        return sb_fail(inst, function, "%d contacts are inside their surfaces at t = %g: more than the %d this FMU "
                       "handles", m, t, SB_MAX_ENUMERATED);
    if (inside) { /* the rates at entry, from the gap accelerations with every contact open where they were found */
        SbStatus s = sb_ev_open_accelerations(inst, function);
        if (s != SB_OK) return s;
        for (int a = 0; a < m; ++a) {
            const int i = ev->set[a];
            if (ev->depth[i] == 0.0) continue;
            double alpha = -ev->ggamma[i];
            for (int j = 0; j < n; ++j) alpha += ev->G[(size_t)i * n + j] * ev->a0[j];
            ev->target[i] = sb_entry_rate(ev->rate[i], alpha, ev->depth[i], 2.0 * inst->state.offset[i]);
            sb_log(inst, SB_OK, SB_LOG_EVENTS,
                   "%s: t = %.17g: contact '%s' found %g inside its surface (rate %g): projected onto it, rate "
                   "at entry %g", function, t, inst->m->contact_names[i], ev->depth[i], ev->rate[i], ev->target[i]);
        }
    }
    SbStatus s = project_positions(inst, function, m, ev->set);
    if (s != SB_OK) return s;
    *changed = 1;
    if (!inside) return SB_OK;
    /* the rates at entry, the other touching contacts held as they move (a correction of the importer's step,
       not an impulse of the contacts: it must not open or close another one) */
    int S[SB_MAX_ENUMERATED], all[SB_MAX_ENUMERATED], ms = 0;
    double rhs[SB_MAX_ENUMERATED], P[SB_MAX_ENUMERATED];
    if ((s = sb_ev_open_accelerations(inst, function)) != SB_OK) return s; /* (the factorization at the new state) */
    sb_ev_evaluate(inst, t, inst->state.x);
    for (int i = 0; i < k && ms < SB_MAX_ENUMERATED; ++i) {
        const int touching =
            inst->state.closed[i] != 0.0 || (ev->gap[i] <= SB_GAP_TOL && fabs(ev->rate[i]) <= SB_REST_VELOCITY);
        if (ev->depth[i] > 0.0 || touching) {
            rhs[ms] = ev->depth[i] > 0.0 ? ev->target[i] - ev->rate[i] : 0.0;
            all[ms] = ms;
            S[ms++] = i;
        }
    }
    sb_ev_response(inst, ms, S);
    sb_sym_solve(ms, ev->W, ms, all, rhs, P);
    for (int a = 0; a < ms; ++a)
        for (int j = 0; j < n; ++j) inst->state.x[n + j] += P[a] * ev->Z[(size_t)a * na + j];
    sb_changed(inst);
    sb_ev_evaluate(inst, t, inst->state.x);
    return SB_OK;
}

/* ------------------------------------------------------------------------ */
/* impacts and contact modes                                                */
/* ------------------------------------------------------------------------ */

/* The rate below which contact i is at rest at this event (sb_rest_rate): a closed contact's rate is the
   importer's error up to the acceleration of its surface's own motion (its peak at the ends of the importer's
   steps while contacts were closed: surface_peak) times the importer's step, the longer of the one that found
   the event and the one before (a master that locates its events by bisection ends its steps anywhere: its lag
   comes from its whole steps).  Surfaces at rest (no motion input, no function of time in the gap) keep
   SB_REST_VELOCITY. */
static double rest_rate(const SbInstance *inst, int i)
{
    const SbEvents *ev = sb_ev(inst);
    const double step = ev->step > 0.0 ? fmax(ev->step, ev->flight[SB_FLIGHT_SPAN]) : 0.0;
    return sb_rest_rate(inst->state.closed[i] != 0.0, ev->flight[SB_FLIGHT_PEAK], step, SB_REST_VELOCITY);
}

/* Newton's multi-contact impact on the m touching contacts ev->set; returns the status, *changed set. */
static SbStatus impact(SbInstance *inst, const char *function, int m, int *changed)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq, na = inst->dyn.na;
    const double t = *inst->state.time;
    int approach = 0;
    for (int a = 0; a < m; ++a)
        if (ev->rate[ev->set[a]] < -rest_rate(inst, ev->set[a])) approach = 1;
    if (!approach) return SB_OK;
    SbStatus s = sb_ev_open_accelerations(inst, function);
    if (s != SB_OK) return s;
    sb_ev_response(inst, m, ev->set);
    for (int a = 0; a < m; ++a) {
        const int i = ev->set[a];
        const double r = ev->rate[i];
        double alpha = -ev->ggamma[i];
        for (int j = 0; j < n; ++j) alpha += ev->G[(size_t)i * n + j] * ev->a0[j];
        const int plastic = sb_plastic_impact(r, ev->e[i], alpha, ev->late, rest_rate(inst, i), SB_GAP_TOL,
                                              SB_REBOUND_RESOLUTION, ev->step, SB_FLIGHT_STEPS);
        /* Model Exchange: the approach without the importer's error (explicit Euler's gain in the flight) */
        const double held = inst->interface == SB_ME
                                ? sb_error_free_rate(r, ev->left_rate[i], ev->e[i], ev->left_alpha[i], alpha,
                                                     t - ev->left_time[i],
                                                     ev->flight[SB_FLIGHT_COUNT] - ev->left_steps[i],
                                                     ev->flight[SB_FLIGHT_SQUARES] - ev->left_squares[i])
                                : r;
        ev->b[a] = plastic ? r : held == r ? (1.0 + ev->e[i]) * r : r + ev->e[i] * held;
    }
    int bad = sb_lcp(m, ev->W, ev->b, ev->z);
    if (bad)
        return sb_fail(inst, function, "the impact at t = %g has no solution by %s", t,
                       bad == 2 ? "enumeration (too many touching contacts)"
                                : "any active set (inconsistent contacts?)");
    for (int a = 0; a < m; ++a) {
        const int i = ev->set[a];
        if (ev->z[a] > 0.0 && ev->rate[i] < -rest_rate(inst, i)) /* (not a closed contact's drift zeroed) */
            sb_log(inst, SB_OK, SB_LOG_EVENTS, "%s: t = %.17g: impact of contact '%s' (rate %g, impulse %g%s)",
                   function, t, inst->m->contact_names[i], ev->rate[i], ev->z[a],
                   ev->b[a] == ev->rate[i]                            ? ", plastic"
                   : ev->b[a] != (1.0 + ev->e[i]) * ev->rate[i] ? ", rebound without the importer's error"
                                                                      : "");
        for (int j = 0; j < n; ++j) inst->state.x[n + j] += ev->z[a] * ev->Z[(size_t)a * na + j];
    }
    *changed = 1;
    sb_changed(inst);
    return SB_OK;
}

/* The closed contacts among the touching ones: the force problem over those at rest. */
static SbStatus select_modes(SbInstance *inst, const char *function, int touching, int *changed)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq, k = inst->m->nk, na = inst->dyn.na;
    const double t = *inst->state.time;
    int m = 0;
    double coming[SB_MAX_ENUMERATED]; /* the gap accelerations of the open ones in the current modes */
    if (touching > 0) { /* (nothing touching: every contact opens, no force problem) */
        /* An open contact leaving comes back under its gap acceleration with the closed contacts and the
           sticking elements held, not with them all released: the overhead crane's payload lifting off the
           ground while the trolley rests pressed against its stop (its gap acceleration -1.4e-4 held, +0.37
           released) counted as in a resolved flight and stayed open with the importer's drift of the rate it
           had closed (6e-5), found inside the ground at each of the importer's next steps. */
        sb_changed(inst);
        SbStatus s = sb_accelerations(inst, t, inst->state.x, ev->a0, NULL);
        if (s != SB_OK) {
            sb_log(inst, s, SB_LOG_DISCARD, "%s: at t = %g: %s", function, t, inst->problem);
            return s;
        }
        sb_ev_evaluate(inst, t, inst->state.x);
        for (int a = 0; a < touching; ++a) {
            const int i = ev->set[a];
            coming[a] = -ev->ggamma[i];
            for (int j = 0; j < n; ++j) coming[a] += ev->G[(size_t)i * n + j] * ev->a0[j];
        }
        if ((s = sb_ev_open_accelerations(inst, function)) != SB_OK) return s;
        sb_ev_evaluate(inst, t, inst->state.x);
    }
    for (int a = 0; a < touching; ++a) { /* at rest, or leaving slower than the importer resolves */
        const int i = ev->set[a];
        double alpha = -ev->ggamma[i];
        for (int j = 0; j < n; ++j) alpha += ev->G[(size_t)i * n + j] * ev->a0[j];
        if (inst->state.closed[i] == 0.0) alpha = coming[a];
        const double inside_leaving = ev->depth[i] > 0.0 && ev->rate0[i] > 0.0 ? ev->depth[i] : 0.0;
        if (fabs(ev->rate[i]) <= rest_rate(inst, i) ||
            sb_unresolved_flight(ev->rate[i], alpha, inside_leaving, ev->late, SB_GAP_TOL, SB_REBOUND_RESOLUTION,
                                 ev->step, SB_FLIGHT_STEPS))
            ev->set[m++] = i;
    }
    int nkeep = 0, h = 0;
    for (int j = 0; j < inst->m->nf && m > 0; ++j) /* the sticking friction elements hold */
        if (inst->state.slip[j] == 0.0) ev->set[m + h++] = k + j;
    if (m + h > SB_MAX_ENUMERATED)
        return sb_fail(inst, function, "%d contacts and sticking friction elements at t = %g: more than the %d this "
                       "FMU handles", m + h, t, SB_MAX_ENUMERATED);
    if (m > 0) {
        double wfree[SB_MAX_ENUMERATED]; /* each contact's own Delassus entry, the sticking rows free */
        if (h > 0) {
            sb_ev_response(inst, m, ev->set);
            for (int a = 0; a < m; ++a) wfree[a] = ev->W[a * m + a];
        }
        sb_ev_response_held(inst, m, h, ev->set);
        const double bb = inst->state.set[SB_SET_BETA];
        double bmax = 0.0, wmax = 1e-300;
        for (int a = 0; a < m; ++a) {
            const int i = ev->set[a];
            /* (at the rate zeroed: the closing contacts come to rest, and the force they then carry decides; with
               the stabilization of an approach rate below SB_REST_VELOCITY a contact lifting off closed with a
               force the rest did not keep, and one at rest on the ground, its rate the importer's drift, opened
               against a gap acceleration into the ground) */
            double v = -ev->ggamma[i] + bb * bb * ev->gap[i];
            for (int j = 0; j < n; ++j) v += ev->G[(size_t)i * n + j] * ev->a0[j];
            ev->b[a] = v;
            bmax = fmax(bmax, fabs(v));
            wmax = fmax(wmax, ev->W[a * m + a]);
        }
        int bad = sb_lcp(m, ev->W, ev->b, ev->z);
        if (bad)
            return sb_fail(inst, function, "the contact forces at t = %g have no solution by %s", t,
                           bad == 2 ? "enumeration (too many touching contacts)" : "any active set");
        double largest = 0.0;
        for (int a = 0; a < m; ++a) largest = fmax(largest, fabs(ev->z[a]));
        const double kept = sb_kept_force(bmax, wmax, largest, SB_FORCE_TOL);
        for (int a = 0; a < m; ++a)
            /* (a contact whose rate the sticking elements hold already, a block stuck against its stop, stays
               closed: the forces of the mode share the load, and one that pulls opens with the unloaded ones) */
            if (ev->z[a] > kept || (h > 0 && ev->W[a * m + a] <= SB_LCP_RCOND * wfree[a])) ev->keep[nkeep++] = a;
        /* The closing contacts come exactly to rest, and so do those at rest that open while approaching
           (slower than SB_REST_VELOCITY: plastic, as the impact law takes them): left open with their approach
           rate, they are found inside their surfaces at the importer's next step, and again. */
        int stop[SB_MAX_ENUMERATED], nstop = 0;
        double rhs[SB_MAX_ENUMERATED], P[SB_MAX_ENUMERATED];
        for (int a = 0, c = 0; a < m; ++a) {
            const int closing = c < nkeep && ev->keep[c] == a;
            c += closing;
            const double r = ev->rate[ev->set[a]];
            if (closing || (r < 0.0 && fabs(r) <= rest_rate(inst, ev->set[a]))) {
                rhs[nstop] = ev->rate[ev->set[a]];
                stop[nstop++] = a;
            }
        }
        int stopped = 0;
        for (int c = 0; c < nstop; ++c) stopped |= rhs[c] != 0.0;
        if (stopped) {
            sb_sym_solve(m, ev->W, nstop, stop, rhs, P);
            for (int c = 0; c < nstop; ++c)
                for (int j = 0; j < n; ++j) inst->state.x[n + j] -= P[c] * ev->Z[(size_t)stop[c] * na + j];
            *changed = 1;
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

/* ------------------------------------------------------------------------ */
/* friction                                                                 */
/* ------------------------------------------------------------------------ */

/* Stop the friction elements at rest: the sticking ones, and those found at rest (ev->keep[j] != 0) that are
   released against a rate of the other sign: the impulse along their rows and those of the closed contacts
   (kept as they move), the bilateral constraints held, that zeroes their rates.  An element that went past its stop (found late) is taken back
   by the way it went: the positions move by tau / 2 times the velocity change, tau the time since the stop
   (its rate over its deceleration when it was found). */
static SbStatus stop_at_rest(SbInstance *inst, const char *function, double tau, int *changed)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq, k = inst->m->nk, nf = inst->m->nf, na = inst->dyn.na;
    double rhs[SB_MAX_ENUMERATED], P[SB_MAX_ENUMERATED];
    int S[SB_MAX_ENUMERATED], all[SB_MAX_ENUMERATED], m = 0, moving = 0;
    for (int i = 0; i < k; ++i)
        if (inst->state.closed[i] != 0.0 && m < SB_MAX_ENUMERATED) S[m++] = i;
    for (int j = 0; j < nf; ++j) {
        const double s = inst->state.slip[j];
        if ((s == 0.0 || (ev->keep[j] && s * ev->rate[k + j] < 0.0)) && m < SB_MAX_ENUMERATED) S[m++] = k + j;
    }
    for (int a = 0; a < m; ++a) {
        rhs[a] = S[a] < k ? 0.0 : ev->rate[S[a]];
        all[a] = a;
        if (rhs[a] != 0.0) moving = 1;
    }
    if (!moving) return SB_OK;
    sb_changed(inst);
    SbStatus s = sb_accelerations(inst, *inst->state.time, inst->state.x, ev->a0, NULL); /* the factorization */
    if (s != SB_OK) {
        sb_log(inst, s, SB_LOG_DISCARD, "%s: at t = %g: %s", function, *inst->state.time, inst->problem);
        return s;
    }
    sb_ev_response(inst, m, S);
    sb_sym_solve(m, ev->W, m, all, rhs, P);
    for (int a = 0; a < m; ++a)
        for (int j = 0; j < n; ++j) {
            const double dv = -P[a] * ev->Z[(size_t)a * na + j];
            inst->state.x[n + j] += dv;
            inst->state.x[j] += 0.5 * tau * dv;
        }
    *changed = 1;
    sb_changed(inst);
    return SB_OK;
}

/* Stick or slip (module comment, 4). */
static SbStatus select_friction(SbInstance *inst, const char *function, int *changed)
{
    SbEvents *ev = sb_ev(inst);
    const int k = inst->m->nk, nf = inst->m->nf, nc = inst->m->nc;
    const double t = *inst->state.time;
    double tau = 0.0;
    sb_ev_evaluate(inst, t, inst->state.x);
    for (int j = 0; j < nf; ++j) {
        const double v = ev->rate[k + j], s = inst->state.slip[j];
        /* an element slipping along s whose rate reversed by the motion, not by an impulse, reached its stop */
        const int stopped = s != 0.0 && s * ev->rate0[k + j] <= SB_REST_VELOCITY && s * v <= SB_REST_VELOCITY;
        ev->before[j] = s;
        ev->keep[j] = stopped || fabs(v) <= SB_REST_VELOCITY;
        inst->state.slip[j] = ev->keep[j] ? 0.0 : (v > 0.0 ? 1.0 : -1.0);
        if (stopped && s * ev->rate0[k + j] < -SB_REST_VELOCITY && ev->slide[j] < 0.0)
            tau = fmax(tau, s * ev->rate0[k + j] / ev->slide[j]);
    }
    if (tau > 0.0)
        sb_log(inst, SB_OK, SB_LOG_EVENTS, "%s: t = %.17g: a friction element went past its stop for %g s (found "
               "late): taken back", function, t, tau);
    /* The holding forces at the rates zeroed: a sticking element's rate at the event (a step of motion past its
       stop when found late) is not a force it must hold (its stabilization term would add m 2 alpha rate). */
    const int n = inst->m->nq;
    int zeroed = 0;
    memcpy(ev->dq0, inst->state.x + n, (size_t)n * sizeof(double));
    SbStatus s0 = stop_at_rest(inst, function, 0.0, &zeroed);
    if (s0 != SB_OK) return s0;
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
            const double margin = sb_ev_stick_margin(ev, j, ev->lam_all[nc + k + j]);
            if (margin <= lowest) {
                lowest = margin;
                worst = j;
            }
        }
        if (worst < 0) break;
        inst->state.slip[worst] = ev->lam_all[nc + k + worst] > 0.0 ? -1.0 : 1.0; /* against the holding force */
    }
    if (zeroed) { /* the rates as found, stopped below by the elements that stick */
        memcpy(inst->state.x + n, ev->dq0, (size_t)n * sizeof(double));
        sb_changed(inst);
        sb_ev_evaluate(inst, t, inst->state.x);
    }
    SbStatus s = stop_at_rest(inst, function, tau, changed);
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

/* The rates when the event was found and the sliding accelerations of the elements that went past their stop
   (their deceleration there: how long ago they stopped). */
static SbStatus remember_rates(SbInstance *inst)
{
    SbEvents *ev = sb_ev(inst);
    const int k = inst->m->nk, nf = inst->m->nf;
    int late = 0;
    memcpy(ev->rate0, ev->rate, (size_t)(k + nf) * sizeof(double));
    memcpy(ev->gap0, ev->gap, (size_t)k * sizeof(double));
    for (int j = 0; j < nf; ++j) {
        ev->slide[j] = 0.0;
        late |= inst->state.slip[j] * ev->rate[k + j] < -SB_REST_VELOCITY;
    }
    if (!late) return SB_OK;
    SbStatus s = sb_slip_accelerations(inst, ev->slide);
    for (int j = 0; j < nf; ++j) ev->slide[j] *= inst->state.slip[j];
    sb_ev_evaluate(inst, *inst->state.time, inst->state.x);
    return s;
}

/* ------------------------------------------------------------------------ */
/* the resolution                                                           */
/* ------------------------------------------------------------------------ */

/* Closed contacts whose force in the new modes is not positive open (module comment, 5): not above SB_FORCE_TOL
   of the largest, the rounding of the solves (a force located reaching zero that a complementarity problem
   finds a hair above it would be found reaching zero again at once); *opened says how many. */
static SbStatus open_unloaded(SbInstance *inst, const char *function, int *opened)
{
    SbEvents *ev = sb_ev(inst);
    const double t = *inst->state.time;
    *opened = 0;
    sb_changed(inst);
    SbStatus s = sb_accelerations(inst, t, inst->state.x, ev->a0, NULL);
    if (s != SB_OK) {
        sb_log(inst, s, SB_LOG_DISCARD, "%s: at t = %g: %s", function, t, inst->problem);
        return s;
    }
    double largest = 0.0; /* a force below SB_FORCE_TOL of the largest is zero (the rounding of the solves) */
    for (int i = 0; i < inst->m->nk; ++i)
        if (inst->state.closed[i] != 0.0) largest = fmax(largest, fabs(ev->force[i]));
    for (int i = 0; i < inst->m->nk; ++i)
        if (inst->state.closed[i] != 0.0 && !(ev->force[i] > SB_FORCE_TOL * (1.0 + largest))) {
            inst->state.closed[i] = 0.0;
            ++*opened;
            sb_log(inst, SB_OK, SB_LOG_EVENTS, "%s: t = %.17g: contact '%s' opens (force %g)", function, t,
                   inst->m->contact_names[i], ev->force[i]);
        }
    sb_changed(inst);
    return SB_OK;
}

/* The sides of the switching functions (their hysteresis in Model Exchange). */
static void take_sides(SbInstance *inst)
{
    SbEvents *ev = sb_ev(inst);
    if (inst->m->nsw == 0) return;
    sb_ev_evaluate(inst, *inst->state.time, inst->state.x);
    for (int j = 0; j < inst->m->nsw; ++j)
        if (ev->sw[j] != 0.0) inst->state.side[j] = ev->sw[j] > 0.0 ? 1.0 : -1.0;
}

SbStatus sb_events_resolve(SbInstance *inst, const char *function, int *changed)
{
    *changed = 0;
    const int k = inst->m->nk, nf = inst->m->nf;
    if (k + nf == 0) {
        if (inst->m->nsw > 0) take_sides(inst);
        return SB_OK;
    }
    SbEvents *ev = sb_ev(inst);
    const double t = *inst->state.time;
    ev->step = sb_importer_step(inst, t);
    if (inst->interface == SB_ME && k > 0) sb_step_bound(ev, t, 1);
    sb_ev_evaluate(inst, t, inst->state.x);
    SbStatus s = remember_rates(inst);
    if (s == SB_OK) s = project_found_late(inst, function, changed);
    if (s != SB_OK) return s;
    int m = 0;
    for (int i = 0; i < k; ++i)
        if (inst->state.closed[i] != 0.0 ||
            (ev->gap[i] <= SB_GAP_TOL &&
             (ev->rate[i] <= SB_REST_VELOCITY || (ev->depth[i] > 0.0 && ev->rate0[i] > 0.0))))
            ev->set[m++] = i; /* touching (a closed contact's gap is held by its constraint: a drift out of its
                                 surface is the importer's error, and the impulse and force problems open it) */
    if (m > SB_MAX_ENUMERATED)
        return sb_fail(inst, function, "%d contacts touch at once at t = %g: more than the %d this FMU handles", m, t,
                       SB_MAX_ENUMERATED);
    int touching[SB_MAX_ENUMERATED];
    memcpy(touching, ev->set, (size_t)m * sizeof(int));
    s = impact(inst, function, m, changed);
    if (s == SB_OK && k > 0) s = select_modes(inst, function, m, changed);
    /* the friction modes, then again the contact modes where the friction modes changed (the force problem of
       the contacts held the elements that were sticking) or a closed contact lost its force */
    for (int round = 0; s == SB_OK && round <= k + nf; ++round) {
        int opened = 0, slips = 0;
        for (int j = 0; j < nf; ++j) ev->P[k + j] = inst->state.slip[j];
        if (nf > 0 && (s = select_friction(inst, function, changed)) != SB_OK) break;
        for (int j = 0; j < nf; ++j) slips |= ev->P[k + j] != inst->state.slip[j];
        if (nf > 0) memcpy(ev->rate0 + k, ev->rate + k, (size_t)nf * sizeof(double)); /* (stopped already) */
        if (k == 0) break;
        if (slips && m > 0) {
            sb_ev_evaluate(inst, t, inst->state.x);
            memcpy(ev->set, touching, (size_t)m * sizeof(int));
            if ((s = select_modes(inst, function, m, changed)) != SB_OK) break;
            continue;
        }
        if ((s = open_unloaded(inst, function, &opened)) != SB_OK || opened == 0) break;
    }
    if (s == SB_OK && k > 0 && inst->interface == SB_ME) s = sb_record_departures(inst, function);
    if (s == SB_OK && k > 0 && inst->interface == SB_ME) sb_grow_offsets(inst, function);
    if (s == SB_OK) take_sides(inst);
    return s;
}

SbStatus sb_check_coefficients(SbInstance *inst, const char *function, int relations)
{
    SbEvents *ev = sb_ev(inst);
    const int k = inst->m->nk, nf = inst->m->nf;
    if (!ev || k + nf == 0) return SB_OK;
    sb_ev_evaluate(inst, *inst->state.time, inst->state.x);
    for (int i = 0; i < k; ++i)
        if (!(ev->e[i] >= 0.0 && ev->e[i] <= 1.0))
            return sb_fail(inst, function, "unilateral contact '%s': the restitution is %g; it must lie in [0, 1]",
                           inst->m->contact_names[i], ev->e[i]);
    for (int j = 0; j < nf; ++j) {
        if (!(ev->mu[j] >= 0.0))
            return sb_fail(inst, function, "friction '%s': the coefficient mu is %g; it must not be negative",
                           inst->m->friction_names[j], ev->mu[j]);
        if (relations && !(ev->mus[j] >= ev->mu[j]))
            return sb_fail(inst, function, "friction '%s': the static coefficient (%g) is below the sliding one (%g)",
                           inst->m->friction_names[j], ev->mus[j], ev->mu[j]);
    }
    return SB_OK;
}

SbStatus sb_initial_contacts(SbInstance *inst, const char *function)
{
    SbEvents *ev = sb_ev(inst);
    if (!ev || inst->m->nk == 0) return SB_OK;
    sb_ev_evaluate(inst, *inst->state.time, inst->state.x);
    for (int i = 0; i < inst->m->nk; ++i)
        if (ev->gap[i] < -SB_GAP_TOL)
            return sb_fail(inst, function, "the initial state penetrates contact '%s' by %g", inst->m->contact_names[i],
                           -ev->gap[i]);
    return SB_OK;
}
