/*
 * sb_events_work.h -- what the event files of the runtime share (sb_events.c: the forces and indicators of a
 * mode; sb_events_resolve.c: the resolution of an event): the workspace of the contacts and friction elements
 * and the responses of the model to forces along their rows.
 */
#ifndef SB_EVENTS_WORK_H
#define SB_EVENTS_WORK_H

#include "sb_events.h"
#include "sb_internal.h"
#include "sb_event_laws.h"

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_EVENTS_WORK
#endif

#define SB_MAX_ENUMERATED SB_LCP_MAX /* contacts and sticking elements acting at once */

/* The event rows are the nk contacts, then the nf friction elements: G holds their rows (gap Jacobian
   rows, then the sliding rate rows A), rate their rates, force their forces, gbeta and ggamma their
   beta and gamma (g_q dq - gap_beta, A dq - fr_beta). */
typedef struct SbEvents {
    double *gap, *G, *gbeta, *ggamma, *e; /* event row blocks at the last evaluation */
    double *force;                        /* forces of the closed contacts and the friction elements (nk + nf) */
    double *rate, *P;                     /* (nk + nf) */
    double *rate0;                        /* the rates when the event was found, before any impulse (nk + nf) */
    double *gap0;                         /* the gaps when the event was found (nk) */
    double *depth, *target;               /* depth at which a contact was found inside, its rate at entry (nk) */
    double late;                          /* the largest depth of a contact found inside at this event */
    double step;                          /* the span of the importer's step that found it (0: not known) */
    double *flight;                       /* the importer's steps, part of the FMU state (SbState.flight): */
    double *bounds;                       /* the last two ends of its steps and events (ME; NaN), */
    double *left_time, *left_steps;       /* a contact's last departure from its surface: time, steps then, */
    double *left_squares;                 /* the sum of the squared spans then, */
    double *left_rate, *left_alpha;       /* its rate (0: none since, or an impulse changed it in flight), alpha */
    double *Z;                            /* responses [X; Y] to unit forces, one row of nq + nc per event row */
    double *W, *Wc, *b, *z;               /* Delassus matrix of a set, a condensed one, LCP vectors */
    int *set, *keep;
    int *held;                            /* the rows held in the current modes (sb_contact_accelerations) */
    double *a0;                           /* accelerations with no contact force (nq) */
    double *dq0;                          /* velocities before the friction elements stopped (nq) */
    double *sw;                           /* switching functions of the loads (nsw) */
    double *mu, *mus, *normal, *before;   /* friction coefficients, |N|, modes before an event (nf) */
    double *signed_normal;                /* N as the model gives it (nf) */
    double *slide;                        /* sliding accelerations along the slip directions when found (nf) */
    double *Zs, *sol0, *lam_all;          /* responses to the slip forces (nf x na), the bilateral solution (na),
                                             [multipliers; event forces] the normal forces see (nc + nk + nf) */
} SbEvents;

static inline SbEvents *sb_ev(const SbInstance *inst) { return (SbEvents *)inst->events; }

/* The event indicator of a sticking friction element: positive while its force F is admissible. */
static inline double sb_ev_stick_margin(const SbEvents *ev, int j, double F)
{
    return ev->mus[j] * ev->normal[j] - fabs(F) + SB_STICK_TOL * (1.0 + ev->normal[j]);
}

/* The blocks of the contacts and the friction elements and their rates at (t, x), the switching functions. */
void sb_ev_evaluate(SbInstance *inst, double t, const double *x);

/* N (signed_normal) and |N| (normal) of every friction element at (t, x), the multipliers and event forces in
   lam (nc + nk + nf). */
void sb_ev_normals(SbInstance *inst, double t, const double *x, const double *lam);

/* Responses Z (rows of nq + nc) to unit forces along the event rows set[0..m) and their Delassus matrix W
   (m x m, symmetrized), with the factorization left by the last sb_accelerations. */
void sb_ev_response(SbInstance *inst, int m, const int *set);

/* The same with the h rows set[m..m+h) held as well: W_mm - W_mh W_hh^-1 W_hm into W (m x m) and
   Z_m - Z_h W_hh^-1 W_hm. */
void sb_ev_response_held(SbInstance *inst, int m, int h, const int *set);

/* The rows of the closed contacts and the sticking friction elements into set; returns their number. */
int sb_ev_held_rows(const SbInstance *inst, int *set);

/* Accelerations with every contact open at the current state into a0 (leaves the factorization). */
SbStatus sb_ev_open_accelerations(SbInstance *inst, const char *function);

/* sb_flights.c: another end of the importer's steps at t (`event` 1: an event, which may set the ends back) */
void sb_step_bound(SbEvents *ev, double t, int event);

/* sb_flights.c: the span of the importer's step that ended at t (0 where not known) */
double sb_importer_step(const SbInstance *inst, double t);

/* sb_flights.c, Model Exchange after an event: the departures of the open contacts leaving their surfaces */
SbStatus sb_record_departures(SbInstance *inst, const char *function);

/* sb_flights.c, Model Exchange after an event: the offsets of the contacts' event indicators */
void sb_grow_offsets(SbInstance *inst, const char *function);

#ifdef SB_VISIBILITY_PUSHED_EVENTS_WORK
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_EVENTS_WORK
#endif

#endif /* SB_EVENTS_WORK_H */
