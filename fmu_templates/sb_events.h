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
/* after an event a closed contact keeps a force above this part of 1 + the largest contact force, else it opens */
#define SB_FORCE_TOL 1e-8
/* a sticking friction element holds while |F| < mu_static |N| + SB_STICK_TOL (1 + |N|) */
#define SB_STICK_TOL 1e-10

/* Model Exchange: after every event each event indicator lies strictly inside the domain of the mode it
   stands for (FMI: an event is an indicator moving between z > 0 and z <= 0), so that the next change is
   seen however long the importer's next step.  The indicator is offset, the state is not moved: an open
   contact's is gap + its offset, SB_EVENT_HYSTERESIS at first (after an event the gaps of open contacts are at least
   -SB_PROJECT_GAP: deeper ones are projected onto the surface), a slipping friction element's
   s v + SB_EVENT_HYSTERESIS, a switching function's sw + side SB_EVENT_HYSTERESIS with side its sign at the
   last event (part of the FMU state).  A closed contact's force and a sticking element's margin are strictly
   positive after an event (the mode selection opens or releases those that are not).  The offset is the
   tolerance of the sticking margins, SB_STICK_TOL: an event is seen when an open gap reaches -1e-10, a slip
   rate -1e-10, a switching function 1e-10 past zero (a delay of 1e-10 over the rate, far below any importer's
   accuracy, that does not add up over the impacts of an accumulation). */
#define SB_EVENT_HYSTERESIS SB_STICK_TOL
/* An open contact's offset grows where the importer's error is larger than it.  A contact that opened (or was
   projected back onto its surface) and is found at its offset inside again, leaving or at rest, was found by
   the error of the importer's next step, not by a motion: fmpy's CVode restarts after every event with steps
   whose error in a gap reaches rtol times the coordinates it depends on (the overhead crane's payload lifting
   off the ground under a slowly vanishing force, its gap h - l cos(theta) with l = 15.3 m, was found 1e-10 inside
   every 1e-6 s for 0.05 s at rtol 1e-6, 112,000 events in 10 s, each projecting it back and holding it on the
   ground).  Each time that happens its offset grows by SB_OFFSET_GROWTH, up to the error the importer's tolerance
   allows in that gap, rtol (1 + sum_j |dg/dq_j q_j|) (sb_offset_bound; rtol the experiment's tolerance, else
   solver.rtol): an event found at most that deep inside is within the importer's accuracy, and it is taken as
   located, not found late (SB_REBOUND_RESOLUTION does not apply to it).  An impact of the contact (an approach
   faster than SB_REST_VELOCITY) or an event that finds it farther than that bound from its surface (it flew)
   sets it back to SB_EVENT_HYSTERESIS (sb_indicator_offset).  The offsets are part of the FMU state;
   Co-Simulation locates its events itself and keeps them at SB_EVENT_HYSTERESIS. */
#define SB_OFFSET_GROWTH 10.0

/* at an event, open contacts deeper than this and closed ones that drifted inside their surface by more than
   this are projected onto them (positions, every bilateral constraint kept) */
#define SB_PROJECT_GAP (0.5 * SB_EVENT_HYSTERESIS)
/* an impact found late (deeper than SB_GAP_TOL) whose rebound would rise less than this times the depth at
   which it was found is plastic: the importer cannot resolve that flight, and an accumulation of impacts
   ends in every importer ... */
#define SB_REBOUND_RESOLUTION 10.0
/* ... unless its flight lasts SB_FLIGHT_STEPS or more of the Model Exchange importer's steps (the span of its
   step that found the event, from the times of its completed integrator steps, or of the times it advances to
   where it completes none, and of the events): a master with fixed steps (the FMU Compliance Checker's explicit
   Euler) resolves those flights */
#define SB_FLIGHT_STEPS 10.0

/* Workspace of the contacts (NULL for models without contacts). */
SbStatus sb_events_alloc(SbInstance *inst);
void sb_events_free(SbInstance *inst);

/* The importer completed an integrator step (Model Exchange): its time ends a step (SB_FLIGHT_STEPS). */
void sb_events_step_completed(SbInstance *inst);

/* The importer set the time (Model Exchange): where it never completes integrator steps, a time past the latest
   one seen ends a step. */
void sb_events_time_set(SbInstance *inst);

/* After the bilateral solve of sb_accelerations (factorization in inst->dyn, solution in inst->dyn.sol):
   the forces of the closed contacts and their effect on the accelerations and multipliers. */
SbStatus sb_contact_accelerations(SbInstance *inst, double t, const double *x);

/* The contact forces, then the friction forces, of the last sb_contact_accelerations (nk + nf; zero for open
   contacts). */
void sb_contact_forces(const SbInstance *inst, double *force);

/* Event indicators at the current state (nk + nsw + nf): the gap of an open contact, the force of a closed
   one; the switching functions of the loads; mu_static |N| - |F| + SB_STICK_TOL (1 + |N|) of a sticking
   friction element, s v of one slipping in the direction s.  With `hysteresis` (Model Exchange) each plus its
   offset sb_hysteresis. */
SbStatus sb_event_indicators(SbInstance *inst, const char *function, double *z, size_t nz, int hysteresis);

/* The offset of event indicator i in Model Exchange in the current modes (see SB_EVENT_HYSTERESIS). */
double sb_hysteresis(const SbInstance *inst, int i);

/* The restitutions and friction coefficients at the current state: restitution in [0, 1], mu >= 0 and, with
   `relations`, mu_static >= mu (symbody.numeric refuses the others with a ModelError); an Error naming the
   element.  The relation of two parameters is checked when the host cannot be setting them one after the
   other any more: at ExitInitializationMode, and by the setters after it. */
SbStatus sb_check_coefficients(SbInstance *inst, const char *function, int relations);

/* The rows of the closed contacts at (t, x) into J (their gap Jacobian rows) and r (their gaps); returns their
   number (the projection of Co-Simulation holds their gaps with the holonomic constraints). */
int sb_closed_contact_rows(SbInstance *inst, double t, const double *x, double *J, double *r);

/* The gap rates of the contacts, then the sliding rates of the friction elements, at the current state
   (nk + nf). */
void sb_contact_rates(SbInstance *inst, double *rate);

/* The sliding accelerations A ddq - fr_gamma of the friction elements at the current state (nf). */
SbStatus sb_slip_accelerations(SbInstance *inst, double *acc);

/* The gap accelerations G ddq - ggamma of the contacts at the current state, in their current modes (nk). */
SbStatus sb_gap_accelerations(SbInstance *inst, double *acc);

/* Event indicator i at the current state with its offset (the FMI 3 local variable); the cache must be
   valid (sb_update). */
double sb_event_indicator(SbInstance *inst, int i);

/* Resolve the events at the current state: impacts, then the contact modes.  *changed: the velocities
   changed.  Logs every impact and mode change (logEvents). */
SbStatus sb_events_resolve(SbInstance *inst, const char *function, int *changed);

/* The initial state is outside every contact (within SB_GAP_TOL): an Error naming the one it penetrates. */
SbStatus sb_initial_contacts(SbInstance *inst, const char *function);

/* Co-Simulation (sb_events_cs.c): integrate from t0 to tend with sb_integrate in chunks of one internal
   step, locating every event (a gap closing, a contact force vanishing) by re-integration and resolving
   it there; the contact modes are resolved at t0 first. */
SbStatus sb_events_integrate(SbInstance *inst, double t0, double tend);

#ifdef SB_VISIBILITY_PUSHED_EVENTS
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_EVENTS
#endif

#endif /* SB_EVENTS_H */
