/*
 * sb_events.h -- unilateral contacts and stick-slip friction of a symbody FMU (sb_events.c): forces of
 * the closed contacts and of friction in the acceleration solve, event indicators, and the resolution of
 * an event (impacts by Newton's multi-contact law, then the new contact modes, then stick or slip), the
 * same laws as symbody.numeric.impacts and symbody.numeric.events.
 */
#ifndef SB_EVENTS_H
#define SB_EVENTS_H

#include "sb_runtime.h"

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_EVENTS
#endif

/* gaps within this distance of zero touch (symbody.numeric.simulate_events: gap_tol) */
#define SB_GAP_TOL 1e-8
/* approach rates below this close a contact plastically (rest_velocity: ends accumulations of impacts) */
#define SB_REST_VELOCITY 1e-5
/* a sticking friction element holds while |F| < mu_static |N| + SB_STICK_TOL (1 + |N|) */
#define SB_STICK_TOL 1e-10

/* Workspace of the contacts (NULL for models without contacts). */
SbStatus sb_events_alloc(SbInstance *inst);
void sb_events_free(SbInstance *inst);

/* After the bilateral solve of sb_accelerations (factorization in inst->dyn, solution in inst->dyn.sol):
   the forces of the closed contacts and their effect on the accelerations and multipliers. */
SbStatus sb_contact_accelerations(SbInstance *inst, double t, const double *x);

/* The contact forces, then the friction forces, of the last sb_contact_accelerations (nk + nf; zero for open
   contacts). */
void sb_contact_forces(const SbInstance *inst, double *force);

/* Event indicators at the current state (nk + nsw + nf): the gap of an open contact, the force of a closed
   one; the switching functions of the loads; mu_static |N| - |F| + SB_STICK_TOL (1 + |N|) of a sticking
   friction element, s v of one slipping in the direction s. */
SbStatus sb_event_indicators(SbInstance *inst, const char *function, double *z, size_t nz);

/* The gap rates of the contacts, then the sliding rates of the friction elements, at the current state
   (nk + nf). */
void sb_contact_rates(SbInstance *inst, double *rate);

/* The sliding accelerations A ddq - fr_gamma of the friction elements at the current state (nf). */
SbStatus sb_slip_accelerations(SbInstance *inst, double *acc);

/* Event indicator i at the current state; the cache must be valid (sb_update). */
double sb_event_indicator(SbInstance *inst, int i);

/* Resolve the events at the current state: impacts, then the contact modes.  *changed: the velocities
   changed.  Logs every impact and mode change (logEvents). */
SbStatus sb_events_resolve(SbInstance *inst, const char *function, int *changed);

/* Co-Simulation (sb_events_cs.c): integrate from t0 to tend with sb_integrate in chunks of one internal
   step, locating every event (a gap closing, a contact force vanishing) by re-integration and resolving
   it there; the contact modes are resolved at t0 first. */
SbStatus sb_events_integrate(SbInstance *inst, double t0, double tend);

#ifdef SB_VISIBILITY_PUSHED_EVENTS
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_EVENTS
#endif

#endif /* SB_EVENTS_H */
