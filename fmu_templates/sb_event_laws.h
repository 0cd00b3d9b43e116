/*
 * sb_event_laws.h -- the laws of events that hold in every importer (sb_event_laws.c): the linear
 * complementarity problems of unilateral contacts and impacts, the rate at which a contact found inside
 * entered, and when an impact is plastic.  The C kernel of symbody.numeric.event_laws (the numpy kernel;
 * tests/fmu/test_event_kernels.py runs both on the same problems).
 */
#ifndef SB_EVENT_LAWS_H
#define SB_EVENT_LAWS_H

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_EVENT_LAWS
#endif

/* unknowns the enumeration of the active sets handles (2^14 sets at most) */
#define SB_LCP_MAX 14
/* complementarity holds to this, relative to 1 + max |b| */
#define SB_LCP_TOL 1e-9
/* eigenvalues of a Delassus matrix below this, relative to its largest, count as zero (redundant contacts) */
#define SB_LCP_RCOND 1e-12
/* a contact found at most this deep inside its surface was located there, not found late: twice the offset of
   the event indicators in Model Exchange (sb_events.h, SB_EVENT_HYSTERESIS = 1e-10: an event is seen when an
   open gap reaches -1e-10), far below any importer's accuracy, so the depth says nothing of how it entered */
#define SB_LOCATED_DEPTH 2e-10

/* The minimum-norm solution zs of W[S, S] zs = rhs for a symmetric positive semi-definite W (m x m,
   row-major) and the s indices S: its pseudo-inverse, eigenvalues below SB_LCP_RCOND of the largest
   dropped (contacts redundant within the set share their force).  s <= SB_LCP_MAX. */
void sb_sym_solve(int m, const double *W, int s, const int *S, const double *rhs, double *zs);

/* z >= 0 with w = W z + b >= 0 and z.w = 0 for a symmetric positive semi-definite W (m x m): the active
   sets by increasing size, those of the most negative b first, each solved by sb_sym_solve; the first
   complementary one (to SB_LCP_TOL (1 + max |b|)) wins.  Returns 0 on success (z set), 1 when no active set
   gives a solution, 2 when m > SB_LCP_MAX (z zero then). */
int sb_lcp(int m, const double *W, const double *b, double *z);

/* The force a contact at rest must carry in the solution of its force problem to close: above the rounding of
   the problem (1e-10 of 1 + bmax / wmax, the largest |b| and W_ii) and force_tol of 1 + the largest force of the
   solution (one that needs less is at the point of lifting off: closed, it would open again at once). */
double sb_kept_force(double bmax, double wmax, double largest, double force_tol);

/* The rate at which a contact found at depth d > 0 inside its surface, with gap rate r and gap acceleration
   alpha (every contact open), crossed the surface: under a constant alpha r^2 - 2 alpha g is kept along the
   gap g, so r_in^2 = r^2 + 2 alpha d, approaching (r_in <= 0; 0 when the motion could not have come from the
   surface), unless it only drifted in (r >= 0 while alpha <= 0: r is kept) or leaves where it was located
   (r >= 0, d at most `located`, twice the offset of its event indicator (SB_LOCATED_DEPTH with the first
   offset): r is kept; the rule would turn the importer's error into an approach).  Applied with the projection
   back onto the surface, the late event neither gains nor loses energy along the gap. */
double sb_entry_rate(double r, double alpha, double d, double located);

/* The offset of an open contact's event indicator in Model Exchange after an event (sb_events.h,
   SB_EVENT_HYSTERESIS), from its offset before, the depth d at which the event found it inside its surface (0:
   not inside), its gap and gap rate r then.  Found where it was located (0 < d <= 2 offset) and not approaching
   faster than rest_velocity: the importer's error in its next step reached the offset, which grows by `growth`,
   up to `largest` (the error the importer's tolerance allows in the gap: sb_offset_bound).  Approaching faster
   (an impact, or found late) or found away from its surface by more than `largest` (it flew): the first
   offset, base.  Else (closed, at rest, or hovering within the importer's error) the offset is kept. */
double sb_indicator_offset(double offset, double d, double r, double gap, double base, double largest,
                           double growth, double rest_velocity);

/* The error an importer at relative tolerance rtol (absolute tolerance rtol: FMI's nominal values 1) may make
   in a gap with the Jacobian row G (n) at the coordinates q (n): rtol (1 + sum_j |G_j q_j|). */
double sb_offset_bound(double rtol, int n, const double *G, const double *q);

/* Whether a contact leaving its surface at rate u >= 0 against its gap acceleration alpha < 0 (every contact
   open; it comes back) makes a flight the importer does not resolve, and so counts as at rest: found `depth` > 0
   inside its surface while leaving it (the importer's step spans the flight, its interpolation put the
   crossing before it), or, at an event found late (late > gap_tol inside a surface), rising less than
   resolution times that depth and, where the importer's step is known (step > 0: the span of its step that
   found the event), lasting less than flight_steps of those steps.  (The depth alone bounds the step from
   below only, by depth / |rate|: a flight that rises ten times the depth may still span tens of steps of an
   importer whose step began just before the crossing.) */
int sb_unresolved_flight(double u, double alpha, double depth, double late, double gap_tol, double resolution,
                         double step, double flight_steps);

/* The largest rate of a closed contact, at an event, that is the importer's error rather than a motion: its
   constraint holds the rate at zero, but an importer whose steps h follow the acceleration gamma of the gap's
   own motion (a moving surface: gap_gamma) a step late leaves it up to |gamma| h (explicit Euler, a h / 2
   behind a floor accelerating at a); rest_velocity for open contacts, without a known step (h <= 0) and on
   surfaces at rest. Such a contact is at rest: no impact, no lift-off (symbody.numeric.event_laws.rest_rate). */
double sb_rest_rate(int closed, double gamma, double step, double rest_velocity);

/* Whether an impact with approach rate r (at entry), restitution e and gap acceleration alpha (every contact
   open) at an event found `late` inside a surface is plastic: an approach slower than rest_velocity, or a
   rebound -e r whose flight sb_unresolved_flight says the importer does not resolve (so an accumulation of
   impacts ends in every importer, also with fixed steps). */
int sb_plastic_impact(double r, double e, double alpha, double late, double rest_velocity, double gap_tol,
                      double resolution, double step, double flight_steps);

/* The approach rate that an impact with approach rate r < 0 and restitution e < 1 takes in its law (rebound
   -e times it): r, or the rate without the importer's error where the flight it ends gained energy that the
   importer made. The contact left its surface at rate u > 0 with gap acceleration alpha0 < 0 and came back,
   duration later, after `steps` steps of the importer whose spans h_i have the sum of squares `squares`,
   with gap acceleration alpha1 < 0; the change of the gap acceleration explains x = 2 u^2 |alpha1 - alpha0| /
   min |alpha| of the gain r^2 - u^2; the rest is the importer's error when it is what explicit Euler adds
   (alpha^2 h_i^2 a step: sum alpha^2 h_i^2) to within a factor 4 (min alpha^2 squares / 4 to
   4 max alpha^2 squares). Then the impact takes -sqrt(u^2 + x), or 0 (plastic) where the rebound's flight
   would be shorter than the mean step duration / steps: the accumulation ends as the exact one does. An
   elastic contact (e = 1) keeps r (symbody.numeric.event_laws.error_free_rate). */
double sb_error_free_rate(double r, double u, double e, double alpha0, double alpha1, double duration, double steps,
                          double squares);

/* The normal forces N (ns) of the slipping friction elements with their slip forces F (ns); 0 on success. */
typedef int (*SbNormalsOf)(void *context, const double *F, double *N);

/* The slip forces F = -mu s |N| (ns <= SB_LCP_MAX) of slipping friction elements whose normal forces N =
   normals(F) depend on them: Newton on F + mu s sigma N(F) = 0, sigma the sign of each N at the start F, dN/dF
   by differences (exact in one step where N is affine in F; a fixed-point iteration diverges once |mu dN/dF|
   > 1).  Returns 0 with F set; 1 beyond the Painleve limit (*wrong the element whose normal force turns
   against its contact, *limit its limit -1 / (s sigma dN/dF)); 2 without convergence; 3 when normals fails.
   As symbody.numeric.event_laws.sliding_forces. */
int sb_sliding_forces(int ns, double *F, const double *mu, const double *s, SbNormalsOf normals, void *context,
                      int *wrong, double *limit);

#ifdef SB_VISIBILITY_PUSHED_EVENT_LAWS
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_EVENT_LAWS
#endif

#endif /* SB_EVENT_LAWS_H */
