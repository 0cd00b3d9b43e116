/*
 * sb_flights.c -- what the Model Exchange event laws keep of the importer's steps and of the contacts' flights
 * between events (all part of the FMU state, SbState.flight and SbState.offset): the ends and spans of the
 * importer's steps (its completed integrator steps, or the times it advances to where it completes none), the
 * peak acceleration of the closed contacts' surfaces (sb_rest_rate), each contact's last departure from its
 * surface (sb_error_free_rate at its next impact) and the offsets of the contacts' event indicators
 * (sb_indicator_offset).  sb_events_resolve.c uses them at each event.
 */
#include <math.h>
#include <string.h>

#include "sb_events_work.h"

/* Another end of the importer's steps (Model Exchange, models with contacts): a time it advanced to (`event` 0)
   or an event (1).  A step ends where the time passes the latest end seen: the square of its span adds to
   SB_FLIGHT_SQUARES (explicit Euler adds alpha^2 h^2 to a gap's r^2 in a step of h); an event may set the ends
   back (a located event inside the last step, a host's step rejected and repeated). */
void sb_step_bound(SbEvents *ev, double t, int event)
{
    double *const f = ev->flight;
    if (t > f[SB_FLIGHT_END1]) {
        f[SB_FLIGHT_SQUARES] += (t - f[SB_FLIGHT_END1]) * (t - f[SB_FLIGHT_END1]);
        f[SB_FLIGHT_COUNT] += 1.0;
    }
    if (t > f[SB_FLIGHT_END1] || isnan(f[SB_FLIGHT_END1]) || (event && t != f[SB_FLIGHT_END1])) {
        if (f[SB_FLIGHT_END1] > f[SB_FLIGHT_END0]) f[SB_FLIGHT_SPAN] = f[SB_FLIGHT_END1] - f[SB_FLIGHT_END0];
        f[SB_FLIGHT_END0] = f[SB_FLIGHT_END1];
        f[SB_FLIGHT_END1] = t;
    }
}

/* The accelerations of the closed contacts' surfaces at the end of a completed step of the importer: gap_gamma
   with the velocities zeroed (the motion of the surface itself, a floor moved by a motion input, not the
   centripetal terms of the bodies' own motion), kept as their peak while a contact is closed: the lag the
   importer's steps leave in a closed contact's rate follows them through the stabilization, with its memory
   (rest_rate; a floor heaving at 1 Hz, its acceleration through zero, left a rate of 1.4e-3 m/s under Euler at
   1 ms).  (ev->dq0 is the scratch of the friction stops, free between events.) */
static void surface_peak(SbInstance *inst)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq;
    const double t = *inst->state.time;
    double *dq = inst->state.x + n, peak = 0.0;
    int closed = 0;
    for (int i = 0; i < inst->m->nk; ++i) closed |= inst->state.closed[i] != 0.0;
    if (!closed) {
        ev->flight[SB_FLIGHT_PEAK] = 0.0;
        return;
    }
    memcpy(ev->dq0, dq, (size_t)n * sizeof(double));
    memset(dq, 0, (size_t)n * sizeof(double));
    sb_ev_evaluate(inst, t, inst->state.x);
    memcpy(dq, ev->dq0, (size_t)n * sizeof(double));
    for (int i = 0; i < inst->m->nk; ++i)
        if (inst->state.closed[i] != 0.0) peak = fmax(peak, fabs(ev->ggamma[i]));
    ev->flight[SB_FLIGHT_PEAK] = fmax(ev->flight[SB_FLIGHT_PEAK], peak);
    sb_ev_evaluate(inst, t, inst->state.x); /* (the blocks at the state again) */
}

/* The importer completed an integrator step: from now on only these end its steps (a host that calls it knows
   its steps from the stages of a Runge-Kutta method or the times a root finder tries). */
void sb_events_step_completed(SbInstance *inst)
{
    if (!inst->events || inst->m->nk == 0) return;
    surface_peak(inst);
    sb_ev(inst)->flight[SB_FLIGHT_COMPLETING] = 1.0;
    sb_step_bound(sb_ev(inst), *inst->state.time, 0);
}

/* The importer set the time (Model Exchange): where it never calls CompletedIntegratorStep (the FMU declares it
   not needed), the times it advances to end its steps; explicit Euler's are exactly those. */
void sb_events_time_set(SbInstance *inst)
{
    if (!inst->events || inst->m->nk == 0 || inst->interface != SB_ME) return;
    if (sb_ev(inst)->flight[SB_FLIGHT_COMPLETING] != 0.0) return; /* (its completed steps end them) */
    sb_step_bound(sb_ev(inst), *inst->state.time, 0);
}

/* Model Exchange, after an event: the departures of the open contacts leaving their surfaces (against their
   gap acceleration: they come back), for sb_error_free_rate at their next impact; a contact in flight whose
   rate the event changed (an impulse elsewhere) loses its record, as does one that closed. */
SbStatus sb_record_departures(SbInstance *inst, const char *function)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq, k = inst->m->nk;
    const double t = *inst->state.time;
    SbStatus s = sb_ev_open_accelerations(inst, function);
    if (s != SB_OK) return s;
    sb_ev_evaluate(inst, t, inst->state.x);
    for (int i = 0; i < k; ++i) {
        double alpha = -ev->ggamma[i];
        for (int j = 0; j < n; ++j) alpha += ev->G[(size_t)i * n + j] * ev->a0[j];
        const int open = inst->state.closed[i] == 0.0;
        if (open && ev->gap[i] <= SB_GAP_TOL && ev->rate[i] > SB_REST_VELOCITY && alpha < 0.0) {
            ev->left_time[i] = t;
            ev->left_steps[i] = ev->flight[SB_FLIGHT_COUNT];
            ev->left_squares[i] = ev->flight[SB_FLIGHT_SQUARES];
            ev->left_rate[i] = ev->rate[i];
            ev->left_alpha[i] = alpha;
        } else if (!open || fabs(ev->rate[i] - ev->rate0[i]) > SB_REST_VELOCITY) {
            ev->left_rate[i] = 0.0;
        }
    }
    sb_changed(inst);
    return SB_OK;
}

/* Model Exchange, after an event: the offsets of the contacts' event indicators (module comment, 6), from where
   and how the event found each. */
void sb_grow_offsets(SbInstance *inst, const char *function)
{
    SbEvents *ev = sb_ev(inst);
    const int n = inst->m->nq;
    sb_ev_evaluate(inst, *inst->state.time, inst->state.x);
    for (int i = 0; i < inst->m->nk; ++i) {
        const double before = inst->state.offset[i];
        const double largest = fmax(SB_EVENT_HYSTERESIS, sb_offset_bound(inst->state.set[SB_SET_RTOL], n,
                                                                         ev->G + (size_t)i * n, inst->state.x));
        inst->state.offset[i] = sb_indicator_offset(before, ev->depth[i], ev->rate0[i], ev->gap0[i],
                                                    SB_EVENT_HYSTERESIS, largest, SB_OFFSET_GROWTH, SB_REST_VELOCITY);
        if (inst->state.offset[i] > before)
            sb_log(inst, SB_OK, SB_LOG_EVENTS, "%s: t = %.17g: contact '%s' found again where it left its surface: "
                   "the offset of its event indicator grows to %g", function, *inst->state.time,
                   inst->m->contact_names[i], inst->state.offset[i]);
    }
}

/* The span of the importer's step that ended at t (0 where not known: Co-Simulation, no step yet, an event
   inside the last step).  An importer that does not call CompletedIntegratorStep ends a step at every time it
   advances to: the stages of a Runge-Kutta step shorten it, which only makes fewer impacts plastic in
   sb_unresolved_flight. */
double sb_importer_step(const SbInstance *inst, double t)
{
    const SbEvents *ev = sb_ev(inst);
    if (inst->interface != SB_ME || inst->m->nk == 0) return 0.0;
    if (ev->bounds[1] < t) return t - ev->bounds[1];
    return ev->bounds[1] == t && ev->bounds[0] < t ? t - ev->bounds[0] : 0.0;
}
