/*
 * sb_events_cs.c -- events of unilateral contacts, stick-slip friction and switching loads inside a
 * Co-Simulation step (sb_events.c has the laws).  The communication step is integrated in chunks of one internal step of the embedded solver
 * (rk4: solver.step; dopri5, rosenbrock23: the step size they propose).  After each chunk the event
 * functions are checked: the gap of each open contact, the force of each closed one.  A function that
 * was positive at the start of the chunk and is not at its end marks an event: its time is found by the
 * Illinois variant of regula falsi (M. Dowell and P. Jarratt, "A modified regula falsi method for
 * computing the root of an equation", BIT 11, 1971) on the state re-integrated from the start of the
 * chunk, the event is resolved there (impacts, new modes) and the integration continues to the
 * communication point.  An open contact that has just left zero gap does not count its root at the
 * start of the chunk: when it separates, its gap (from its start where rounding left that below zero)
 * divided by the time since the start is watched (its limit there is the gap rate); when it leaves tangentially, the gap is watched for reaching
 * -SB_GAP_TOL / 2 below its start.  An event function that dips below zero and back within one chunk
 * (a grazing impact, a load switched on and off again, a long step) is found by dip(): one that
 * decreases at the start of the chunk and increases at its end has a minimum inside, located on the
 * cubic Hermite interpolant of its values and rates (gap rates G dq - gap_beta; the rates of the
 * switching functions by a central difference along the motion) and checked on the re-integrated
 * state.  The switching functions of the loads (kinks and jumps of forces) are
 * located the same way, crossing zero in either direction, and the integration restarts there (the
 * generated code evaluates sign() as it stands, so the last stage of a fixed rk4 step ending at a kink
 * may still see the other side: an error of the order of the step times the jump remains there).
 * A sticking friction element is watched through its indicator mu_static |N| - |F| + SB_STICK_TOL (1 + |N|)
 * (sb_events.c), a slipping one through s v, its rate along the slip direction s.  One that has just
 * started to slip from rest (s v within SB_REST_VELOCITY of zero, accelerating along s) is watched through
 * s v divided by the time since the start of the chunk (its limit there is the sliding acceleration), as
 * a contact leaving zero gap; one at rest that does not accelerate along s, or a sticking one whose
 * indicator is not positive, is resolved at once.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "sb_events.h"
#include "sb_internal.h"
#include "sb_solver.h"

#define SB_MAX_EVENTS 100000L /* events in one communication step: more is an accumulation not ended */
#define SB_ROOT_ITERATIONS 200
#define SB_MAX_CHUNKS 1000000L /* internal steps in one communication step (sb_solver.c: SB_MAX_STEPS) */
#define SB_KINK_CUTS 12        /* an rk4 step holding a kink of the loads is cut down to 4^-12 of its length */

static int adaptive_method(const SbInstance *inst)
{
    return (int)inst->state.set[SB_SET_METHOD] != SB_METHOD_RK4;
}

typedef struct {
    int nk, nsw, nz;  /* contacts; switching functions; contacts, switching functions and friction elements */
    double *S0;       /* the instance state at the start of the chunk */
    double *Sa;       /* the state at the last point before an event (locate) */
    double ta;        /* start of the chunk */
    double *z, *off;  /* event functions; offsets of the contacts leaving zero gap tangentially, for the
                         switching functions the side (+1, -1) they start on */
    double *rate;     /* limits of the divided functions at the start of the chunk: gap rates, sliding
                         accelerations along the slip directions */
    double *v, *acc;  /* gap and sliding rates (nk + nf), sliding accelerations (nf) */
    double *dip;      /* work of dip() (SbDip) */
    double carried;   /* the time of the values and rates dip() carried to the next chunk (NAN: none) */
    int *watched;     /* positive at the start of the chunk */
    int *divided;     /* separating from zero gap, slipping from rest: the function divided by the time since
                         ta is watched (a friction element's less its offset, the negative rate it starts at) */
    double *gacc;     /* gap accelerations at the start of the chunk (nk), then their jerks (nk; between the
                         chunks, the accelerations at the start of the last one) */
    double gacc_t;    /* the time of the last chunk's gap accelerations (NAN: none since the step or event began) */
    double rtol, atol; /* the tolerance asked for (solver.rtol or the importer's, solver.atol) */
    int held;         /* the event tolerance holds near a switching (event_tolerance_held) */
} SbWatch;

/* The smallest watched event function at the current state and time t (INFINITY: none watched). */
static SbStatus smallest(SbInstance *inst, SbWatch *w, double t, double *phi)
{
    *inst->state.time = t;
    sb_changed(inst);
    SbStatus s = sb_event_indicators(inst, "DoStep", w->z, (size_t)w->nz, 0);
    if (s != SB_OK) return s;
    *phi = INFINITY;
    for (int i = 0; i < w->nz; ++i) {
        if (!w->watched[i]) continue;
        double v = w->z[i] + w->off[i];
        if (i >= w->nk + w->nsw) v = w->divided[i] ? (t > w->ta ? (w->z[i] - w->off[i]) / (t - w->ta) : w->rate[i])
                                                   : w->z[i];
        else if (i >= w->nk) v = w->off[i] * w->z[i];
        else if (w->divided[i]) v = t > w->ta ? (w->z[i] - w->off[i]) / (t - w->ta) : w->rate[i];
        *phi = fmin(*phi, v);
    }
    return SB_OK;
}

/* The state at tau, integrated from the start of the chunk at ta, and the smallest watched function. */
static SbStatus reach(SbInstance *inst, SbWatch *w, double ta, double tau, double *phi)
{
    memcpy(inst->state.S, w->S0, (size_t)inst->state.nS * sizeof(double));
    sb_changed(inst);
    if (tau > ta) {
        SbStatus s = sb_integrate(inst, ta, tau);
        if (s != SB_OK) return s;
    }
    return smallest(inst, w, tau, phi);
}

/* The length of the next chunk from t: one internal step of the solver.  While a friction element sticks,
   the adaptive solvers' chunks are at most solver.step long: its indicator follows the loads (a push that
   exceeds the static limit for a moment) while the states of the stuck bodies, which steer the step size,
   stand still, so it is sampled at least as densely as rk4 samples it. */
static double chunk(const SbInstance *inst, double t0, double tend)
{
    if ((int)inst->state.set[SB_SET_METHOD] == SB_METHOD_RK4) return inst->state.set[SB_SET_STEP];
    double h = *inst->state.h_next > 0.0 ? *inst->state.h_next : (tend - t0) / 64.0;
    const double hmax = inst->state.set[SB_SET_MAX_STEP];
    for (int j = 0; j < inst->m->nf; ++j)
        if (inst->state.slip[j] == 0.0) {
            h = fmin(h, inst->state.set[SB_SET_STEP]);
            break;
        }
    return hmax > 0.0 ? fmin(h, hmax) : h;
}

/* The time in (a, b] where the smallest watched function, positive at a (fa) and not at b (fb), reaches
   zero (to a few ulps); leaves the state there (the side where it is not positive). */
static SbStatus locate(SbInstance *inst, SbWatch *w, double a, double fa, double b, double fb, double *te)
{
    const double ta = a, tb = b; /* (the function is not positive at the chunk's end tb) */
    int side = 0;
    SbStatus s;
    for (int it = 0; it < SB_ROOT_ITERATIONS && b - a > 4.0 * DBL_EPSILON * fmax(1.0, fabs(b)); ++it) {
        double c = (a * fb - b * fa) / (fb - fa);
        if (!(c > a && c < b) || it % 8 == 7) c = 0.5 * (a + b); /* a bisection now and then bounds the worst case */
        double fc;
        if ((s = reach(inst, w, ta, c, &fc)) != SB_OK) return s;
        if (fc > 0.0) {
            a = c;
            fa = fc;
            if (side == -1) fb *= 0.5;
            side = -1;
        } else {
            b = c;
            fb = fc;
            if (side == 1) fa *= 0.5;
            side = 1;
        }
    }
    /* the state at b through the one at a: the solver's stages from ta to a all lie before the event, and
       the last bit, from a to b, is a few ulps of time (a step straddling a kink of the forces would carry
       an error of the order of its length) */
    double fend;
    if ((s = reach(inst, w, ta, a, &fend)) != SB_OK) return s;
    memcpy(w->Sa, inst->state.S, (size_t)inst->state.nS * sizeof(double));
    /* strictly past the root: a switching function exactly at zero would have sign() take neither side in
       the first stage of the next step (an error of the order of the step times the jump), and one still on
       its side would be found again at once.  A function that crosses so slowly that some ulps of time leave
       the state's bits as they were (x = sin t grazing a buffer at 1 - 1e-7 crosses at 4.5e-4 m/s) is taken
       further, the step doubling, up to the chunk's end where it was not positive */
    for (int tries = 0;; ++tries) {
        if (tries > 0) {
            memcpy(inst->state.S, w->Sa, (size_t)inst->state.nS * sizeof(double));
            b = fmin(b + ldexp(nextafter(b, INFINITY) - b, tries), tb); /* 2, 4, 8, ... ulps */
        }
        if (b > a && (s = sb_integrate(inst, a, b)) != SB_OK) return s;
        if ((s = smallest(inst, w, b, &fend)) != SB_OK) return s;
        if (fend < 0.0 || b >= tb) break;
    }
    *te = b;
    return SB_OK;
}

/* How each friction element is watched in the chunk from w->ta (the state there, w->z its indicators);
   returns 1 when one is due at once (at rest without accelerating along its slip, or sticking beyond
   its limit). */
static int watch_friction(SbInstance *inst, SbWatch *w)
{
    const int nf = inst->m->nf, z0 = w->nk + w->nsw;
    int due = 0;
    for (int j = 0; j < nf; ++j) {
        const int i = z0 + j;
        const double s = inst->state.slip[j], v0 = w->z[i], a0 = s * w->acc[j];
        w->divided[i] = 0;
        w->off[i] = 0.0;
        w->watched[i] = 1;
        if (s == 0.0 || v0 > SB_REST_VELOCITY || (v0 > 0.0 && a0 <= 0.0)) {
            if (!(v0 > 0.0)) due = 1;
        } else if (a0 > 0.0) { /* slipping from rest */
            w->divided[i] = 1;
            w->off[i] = fmin(v0, 0.0);
            w->rate[i] = a0;
        } else {
            due = 1;
        }
    }
    return due;
}


/* -- event functions that dip below zero and back within one chunk -------------------------------- */

#define SB_DIP_REFINEMENTS 8

/* Views into SbWatch.dip: the state at the end of the chunk (nS); raw event functions and rates at the
   start (z0, r0: carried from the end of the last chunk when it ended without an event, at time
   w->carried), rates at the end and inside (nz each); the work of the switching rates (2 nx: a point and the
   state's derivative, nx = 2 nq + ns; 2 nsw). */
typedef struct {
    double *Sb, *z0, *r0, *r1, *rt, *xs, *dx, *swp, *swm;
} SbDip;

static SbDip dip_views(const SbInstance *inst, const SbWatch *w)
{
    const int nz = w->nz, nsw = w->nsw;
    SbDip d;
    d.Sb = w->dip;
    d.z0 = d.Sb + inst->state.nS;
    d.r0 = d.z0 + nz;
    d.r1 = d.r0 + nz;
    d.rt = d.r1 + nz;
    d.xs = d.rt + nz;
    d.dx = d.xs + sb_nx(inst->m);
    d.swp = d.dx + sb_nx(inst->m);
    d.swm = d.swp + nsw;
    return d;
}

/* Number of doubles of SbWatch.dip. */
static size_t dip_size(const SbInstance *inst, int nz)
{
    return (size_t)inst->state.nS + 4 * (size_t)nz + 2 * (size_t)sb_nx(inst->m) + 2 * (size_t)inst->m->nsw + 1;
}

/* The time derivatives of the raw event functions of the contacts and switching functions (the first
   nk + nsw; friction elements are watched by watch_friction) at the current state and time t (contacts: the gap
   rates G dq - gap_beta; switching functions: a central difference along the motion [dq; ddq; rates], the
   accelerations of the current mode). */
static SbStatus rates(SbInstance *inst, SbWatch *w, SbDip *d, double t, double *r)
{
    const int k = w->nk, nsw = w->nsw;
    if (k > 0) { /* (sb_contact_rates gives the sliding rates of the friction elements after the gap rates) */
        sb_contact_rates(inst, w->v);
        memcpy(r, w->v, (size_t)k * sizeof(double));
    }
    if (nsw == 0) return SB_OK;
    const double *x = inst->state.x;
    const int nx = sb_nx(inst->m);
    SbStatus s = sb_derivatives(inst, t, x, d->dx);
    if (s != SB_OK) return s;
    double xn = 1.0, vn = 0.0;
    for (int j = 0; j < nx; ++j) {
        xn = fmax(xn, fabs(x[j]));
        vn = fmax(vn, fabs(d->dx[j]));
    }
    const double h = cbrt(DBL_EPSILON) * xn / fmax(vn, 1.0);
    for (int side = 1; side >= -1; side -= 2) {
        for (int j = 0; j < nx; ++j) d->xs[j] = x[j] + side * h * d->dx[j];
        SbPoint pt = sb_point(inst, t + side * h, d->xs, NULL, NULL);
        sb_switches(&pt, side > 0 ? d->swp : d->swm);
    }
    for (int j = 0; j < nsw; ++j) r[k + j] = (d->swp[j] - d->swm[j]) / (2.0 * h);
    return SB_OK;
}

/* The watched value of event function i from its raw value (the offsets and sides of the chunk), and the
   same for its rate. */
static double watched_value(const SbWatch *w, int i, double z)
{
    return i < w->nk ? z + (w->divided[i] ? 0.0 : w->off[i]) : w->off[i] * z;
}
static double watched_rate(const SbWatch *w, int i, double r) { return i < w->nk ? r : w->off[i] * r; }

/* The minimum over s in [0, 1] of the cubic Hermite interpolant with values v0, v1 and derivatives
   d0 < 0 < d1 (per unit s) at the ends: its only interior critical point, by bisection on the slope. */
static double hermite_minimum(double v0, double d0, double v1, double d1, double *smin)
{
    const double a2 = -3.0 * v0 - 2.0 * d0 + 3.0 * v1 - d1, a3 = 2.0 * v0 + d0 - 2.0 * v1 + d1;
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 60; ++it) {
        const double s = 0.5 * (lo + hi);
        if ((3.0 * a3 * s + 2.0 * a2) * s + d0 < 0.0) lo = s;
        else hi = s;
    }
    *smin = 0.5 * (lo + hi);
    return ((a3 * *smin + a2) * *smin + d0) * *smin + v0;
}

/* Event function i decreases at ta (watched value vl, rate dl) and increases at tb (vr, dr), positive at
   both ends: refine the bracket of its minimum on the re-integrated state until the minimum is seen to
   stay clear of zero (*found = 0) or a state where a watched function is not positive is reached
   (*found = 1: the state and *fc are at *tc). */
static SbStatus dip_of(SbInstance *inst, SbWatch *w, SbDip *d, int i, double ta, double vl, double dl, double tb,
                       double vr, double dr, double *tc, double *fc, int *found)
{
    double tl = ta, tr = tb;
    *found = 0;
    for (int it = 0; it < SB_DIP_REFINEMENTS; ++it) {
        const double h = tr - tl;
        double sm, fm;
        const double pm = hermite_minimum(vl, dl * h, vr, dr * h, &sm);
        if (pm > 0.5 * fmin(vl, vr)) return SB_OK; /* a shallow minimum, well clear of zero */
        const double tm = tl + sm * h;
        if (!(tm > tl && tm < tr)) return SB_OK;
        SbStatus s = reach(inst, w, ta, tm, &fm);
        if (s != SB_OK) return s;
        if (fm <= 0.0) {
            *tc = tm;
            *fc = fm;
            *found = 1;
            return SB_OK;
        }
        const double vm = watched_value(w, i, w->z[i]);
        if ((s = rates(inst, w, d, tm, d->rt)) != SB_OK) return s;
        const double rm = watched_rate(w, i, d->rt[i]);
        if (fabs(vm - pm) <= 0.1 * vm) return SB_OK; /* the interpolant is accurate: its minimum is positive */
        if (rm > 0.0) {
            tr = tm;
            vr = vm;
            dr = rm;
        } else {
            tl = tm;
            vl = vm;
            dl = rm;
        }
    }
    return SB_OK;
}

/* After a chunk from ta to *tb at whose end every watched function is positive (w->z holds the raw
   values there): an open contact's gap or a switching function (not a friction element's indicator) that decreases at ta and increases at *tb
   has passed a minimum inside the chunk.  When that minimum is not positive, *tb and *fb become a time
   and value at which the smallest watched function is not positive (the state is left there, for
   locate()); otherwise the state at *tb is kept and its values carried to the next chunk. */
static SbStatus dip(SbInstance *inst, SbWatch *w, double ta, double *tb, double *fb)
{
    const int k = w->nk, nz = w->nz, ne = w->nk + w->nsw, nS = inst->state.nS;
    SbDip d = dip_views(inst, w);
    const double tend = *tb;
    int rising = 0, moved = 0;
    if (ne == 0) return SB_OK;
    SbStatus s = rates(inst, w, &d, tend, d.r1);
    if (s != SB_OK) return s;
    for (int i = 0; i < ne; ++i)
        if (w->watched[i] && (i >= k || inst->state.closed[i] == 0.0) && watched_rate(w, i, d.r1[i]) > 0.0) rising = 1;
    if (rising) memcpy(d.Sb, inst->state.S, (size_t)nS * sizeof(double));
    if (rising && w->carried != ta) { /* the start of the chunk: raw values and rates */
        double f0;
        moved = 1;
        if ((s = reach(inst, w, ta, ta, &f0)) != SB_OK) return s;
        memcpy(d.z0, w->z, (size_t)nz * sizeof(double));
        if ((s = rates(inst, w, &d, ta, d.r0)) != SB_OK) return s;
    }
    for (int i = 0; i < ne && rising && s == SB_OK; ++i) {
        if (!(w->watched[i] && (i >= k || inst->state.closed[i] == 0.0))) continue;
        const double dl = watched_rate(w, i, d.r0[i]), dr = watched_rate(w, i, d.r1[i]);
        if (!(dl < 0.0 && dr > 0.0)) continue;
        double tc = tend, fc = *fb, fe;
        int found = 0;
        moved = 1;
        memcpy(inst->state.S, d.Sb, (size_t)nS * sizeof(double)); /* (the raw value at the end, again) */
        sb_changed(inst);
        if ((s = smallest(inst, w, tend, &fe)) != SB_OK) break;
        const double vr = watched_value(w, i, w->z[i]);
        s = dip_of(inst, w, &d, i, ta, watched_value(w, i, d.z0[i]), dl, tend, vr, dr, &tc, &fc, &found);
        if (s == SB_OK && found && tc < *tb) {
            *tb = tc;
            *fb = fc;
        }
    }
    if (s != SB_OK) return s;
    if (*tb < tend) { /* the earliest dip */
        w->carried = NAN;
        return reach(inst, w, ta, *tb, fb);
    }
    if (moved) { /* back to the end of the chunk */
        memcpy(inst->state.S, d.Sb, (size_t)nS * sizeof(double));
        sb_changed(inst);
        if ((s = smallest(inst, w, tend, fb)) != SB_OK) return s;
    }
    memcpy(d.z0, w->z, (size_t)nz * sizeof(double)); /* the start of the next chunk */
    memcpy(d.r0, d.r1, (size_t)nz * sizeof(double));
    w->carried = tend;
    return SB_OK;
}

/* -- the communication step ------------------------------------------------------------------------ */

/* On the way to the switching of a unilateral contact or a stick-slip friction element, the adaptive solvers
   hold at least these tolerances, whatever the importer passes (solver.rtol, solver.atol,
   fmi2SetupExperiment, fmi3EnterInitializationMode): the modes of contacts and friction elements change at
   events only (no evaluation of the forces sees a gap close or a slip stop), so an event function that comes
   within the error of the motion from zero is a guess, and the error of every step that takes a gap towards a
   grazing impact decides whether there is one (a gap dipping 1e-7 below zero, an apex a hair from a stop):
   missed, it is an error of the size of the motion.  The steps of such an approach must all be accurate (the
   first steps of x = sin t towards a wall at 1 - 1e-7 already carry more than 1e-7 of error at rtol 1e-3).
   Elsewhere the steps run at the tolerance asked for: a chunk runs at the event tolerance when some open
   contact is on its way to its surface (on_the_way: closing, and turning on the cubic Taylor polynomial of its
   gap within SB_TURN_SHARE of the gap of the surface, on either side; or within SB_NEAR_BAND times what an
   error at the tolerance asked for could hide of it over twice the chunk), has just left zero gap, while a
   friction element sticks, and while a slipping one slows down or its rate comes near zero; a closed contact
   is at its switching (held at a loose tolerance, its rate drifts into an impact at the next step).  A
   contact that recedes, turns with most of its gap left or passes its surface at speed before it turns (an
   impact at any tolerance) runs at the tolerance asked for (a crane whose booms sway far from their end
   stops).  The switching functions of the loads (the kinks and jumps of Abs and sign: ropes, slings,
   buffers, valves) hold no mode: every evaluation of the forces takes the side the state is on, so the error
   control of the step answers for a switch the location passes by, and they never tighten the tolerance.
   rk4's steps are solver.step; the event atol is the floor of its trust check in every chunk of a model with
   events. */
#define SB_EVENT_RTOL 1e-9
#define SB_EVENT_ATOL 1e-11
#define SB_NEAR_BAND 10.0
#define SB_TURN_SHARE 0.5

static int event_tolerance_held(const SbInstance *inst)
{
    return inst->m->nk + inst->m->nf > 0 || !adaptive_method(inst);
}

/* The least value of g + v s + a s^2 / 2 over s in [0, H]. */
static double least_ahead(double g, double v, double a, double H)
{
    double least = fmin(g, g + (v + 0.5 * a * H) * H);
    if (a > 0.0 && v < 0.0 && -v / a < H) least = fmin(least, g - 0.5 * v * v / a);
    return least;
}

/* The value of g + v s + a s^2 / 2 + j s^3 / 6, closing at s = 0 (v < 0), where it first turns (its rate
   v + a s + j s^2 / 2 back at zero) for s > 0; INFINITY when it does not turn, or turns only where the cubic
   term has outgrown the rate term (|j| s^3 / 6 > |v| s: the polynomial says nothing there; for a harmonic
   motion that is 2.4 radians of its phase ahead, whatever the phase). */
static double turning_value(double g, double v, double a, double j)
{
    const double disc = a * a - 2.0 * j * v;
    if (!(disc >= 0.0)) return INFINITY;
    const double q = -0.5 * (a + copysign(sqrt(disc), a)); /* the roots q / (j / 2) and v / q, without cancellation */
    double s = INFINITY;
    if (j != 0.0 && q / (0.5 * j) > 0.0) s = q / (0.5 * j);
    if (q != 0.0 && v / q > 0.0) s = fmin(s, v / q);
    if (!isfinite(s) || fabs(j) * s * s > 6.0 * fabs(v)) return INFINITY;
    return g + s * (v + s * (0.5 * a + s * j / 6.0));
}

/* Whether the function g (rate v, acceleration a, jerk j) is on its way to zero where the error of the motion
   decides whether it reaches zero: closing, and turning on its cubic Taylor polynomial within SB_TURN_SHARE of
   itself of zero, on either side (x = sin t from t = 0 against a wall at 1 turns at 0.057 there); or within
   SB_NEAR_BAND times the error a step at rtol, atol could hide of zero over the horizon H.  One that turns
   with most of itself left is a miss, one that passes zero at speed before it turns an impact at any
   tolerance. */
static int on_the_way(double g, double v, double a, double j, double H, double rtol, double atol)
{
    if (v < 0.0 && fabs(turning_value(g, v, a, j)) <= SB_TURN_SHARE * g) return 1;
    const double travel = fabs(g) + fabs(v) * H + 0.5 * fabs(a) * H * H;
    return least_ahead(g, v, a, H) <= SB_NEAR_BAND * (rtol * travel + atol);
}

/* The jerks of the gaps (the second half of w->gacc, whose first half holds the gap accelerations at the
   current state and time t): from the last chunk's accelerations where there is one in this mode, else by a
   forward difference along the motion [dq; ddq; rates]. */
static SbStatus gap_jerks(SbInstance *inst, SbWatch *w, double t)
{
    const int k = w->nk, nx = sb_nx(inst->m);
    double *a = w->gacc, *j = w->gacc + k;
    if (isfinite(w->gacc_t) && t > w->gacc_t) {
        for (int i = 0; i < k; ++i) j[i] = (a[i] - j[i]) / (t - w->gacc_t);
        return SB_OK;
    }
    SbDip d = dip_views(inst, w);
    double *x = inst->state.x;
    SbStatus s = sb_derivatives(inst, t, x, d.dx);
    if (s != SB_OK) return s;
    double xn = 1.0, vn = 0.0;
    for (int i = 0; i < nx; ++i) {
        xn = fmax(xn, fabs(x[i]));
        vn = fmax(vn, fabs(d.dx[i]));
    }
    const double h = cbrt(DBL_EPSILON) * xn / fmax(vn, 1.0);
    /* the whole state kept: an evaluation at the point ahead may raise the rows' largest norms */
    memcpy(w->Sa, inst->state.S, (size_t)inst->state.nS * sizeof(double));
    for (int i = 0; i < nx; ++i) x[i] += h * d.dx[i];
    *inst->state.time = t + h;
    sb_changed(inst);
    s = sb_gap_accelerations(inst, j);
    memcpy(inst->state.S, w->Sa, (size_t)inst->state.nS * sizeof(double));
    sb_changed(inst);
    for (int i = 0; i < k; ++i) j[i] = (j[i] - a[i]) / h;
    return s;
}

/* The first contact or friction element on its way to a switching in the chunk of length h from the current
   state at t (w->z, w->rate, w->acc at the start of the chunk): its index (the contacts, then nk + the
   friction elements), or -1.  The gap accelerations are kept for the next chunk's jerks. */
static int switching_ahead(SbInstance *inst, SbWatch *w, double t, double h, SbStatus *s)
{
    const int k = w->nk, nf = inst->m->nf, z0 = w->nk + w->nsw;
    const double H = 2.0 * h;
    int which = -1;
    *s = SB_OK;
    if (k > 0 && ((*s = sb_gap_accelerations(inst, w->gacc)) != SB_OK || (*s = gap_jerks(inst, w, t)) != SB_OK))
        return -1;
    for (int i = 0; i < k && which < 0; ++i) /* (a closed contact is at its switching: its force decides it) */
        if (inst->state.closed[i] != 0.0 || w->divided[i] ||
            on_the_way(w->z[i], w->rate[i], w->gacc[i], w->gacc[k + i], H, w->rtol, w->atol))
            which = i;
    memcpy(w->gacc + k, w->gacc, (size_t)k * sizeof(double));
    w->gacc_t = t;
    for (int j = 0; j < nf && which < 0; ++j) {
        const double slip = inst->state.slip[j];
        const double rate = slip * w->acc[j]; /* the rate of its slip speed s v */
        if (slip == 0.0 || rate < 0.0 || on_the_way(w->z[z0 + j], rate, 0.0, 0.0, H, w->rtol, w->atol)) which = k + j;
    }
    return which;
}

/* Tell the user (logSolver), once for each pair of tolerances, that the adaptive solver runs tighter than
   asked from time t, and why (which: the contact or friction element on its way to a switching). */
static void tell_event_tolerance(SbInstance *inst, double rtol, double atol, double t, int which)
{
    double *told = inst->history.floor_told;
    const int k = inst->m->nk;
    if (!adaptive_method(inst) || (rtol <= SB_EVENT_RTOL && atol <= SB_EVENT_ATOL) ||
        (told[0] == rtol && told[1] == atol))
        return;
    told[0] = rtol;
    told[1] = atol;
    sb_log(inst, SB_OK, SB_LOG_SOLVER,
           "DoStep: t = %.17g: the solver runs at rtol %g, atol %g, not at the %s %g and solver.atol %g asked for, "
           "while %s '%s' is on its way to a switching: on the way to the switching of a unilateral contact or "
           "a stick-slip friction element the events hold at least rtol %g, atol %g in Co-Simulation (a grazing "
           "impact or a stop within the error of the motion would be a guess); elsewhere the solver runs at the "
           "tolerance asked for (said once)",
           t, fmin(rtol, SB_EVENT_RTOL), fmin(atol, SB_EVENT_ATOL),
           inst->state.flags & SB_FLAG_RTOL_EXPERIMENT ? "importer's tolerance" : "solver.rtol", rtol, atol,
           which < k ? "contact" : "friction element",
           which < k ? inst->m->contact_names[which] : inst->m->friction_names[which - k], SB_EVENT_RTOL,
           SB_EVENT_ATOL);
}

/* The tolerance of the chunk of length h from t: the event tolerance on the way to a switching, else the one
   asked for (rk4: always the event atol, the floor of its trust check). */
static SbStatus chunk_tolerance(SbInstance *inst, SbWatch *w, double t, double h)
{
    int which = -1;
    SbStatus s = SB_OK;
    if (w->held && adaptive_method(inst)) which = switching_ahead(inst, w, t, h, &s);
    const int tight = w->held && (which >= 0 || !adaptive_method(inst));
    inst->state.set[SB_SET_RTOL] = tight ? fmin(w->rtol, SB_EVENT_RTOL) : w->rtol;
    inst->state.set[SB_SET_ATOL] = tight ? fmin(w->atol, SB_EVENT_ATOL) : w->atol;
    if (tight && which >= 0) tell_event_tolerance(inst, w->rtol, w->atol, t, which);
    return s;
}

static SbStatus integrate(SbInstance *inst, SbWatch *w, double t0, double tend)
{
    const int k = w->nk, nz = w->nz, nf = inst->m->nf;
    double t = t0;
    long events = 0, chunks = 0;
    int changed;
    *inst->state.time = t0;
    sb_changed(inst);
    if ((int)inst->state.set[SB_SET_METHOD] == SB_METHOD_RK4 && (tend - t0) / inst->state.set[SB_SET_STEP] > SB_MAX_CHUNKS)
        return sb_problem(inst, SB_DISCARD, "solver.step = %g needs more than %ld internal steps for a communication step of %g",
                          inst->state.set[SB_SET_STEP], SB_MAX_CHUNKS, tend - t0);
    SbStatus s = sb_events_resolve(inst, "DoStep", &changed); /* the modes at the start */
    while (s == SB_OK && t < tend) {
        if (++chunks > SB_MAX_CHUNKS) /* (solver.step far below the communication step: never a hang) */
            return sb_problem(inst, SB_DISCARD,
                              "more than %ld internal steps in the communication step (t = %.17g); set a larger "
                              "solver.step or take shorter communication steps",
                              SB_MAX_CHUNKS, t);
        const double h = chunk(inst, t0, tend);
        double tb = tend - t <= h * (1.0 + 1e-12) ? tend : t + h;
        double fa, fb, te;
        *inst->state.time = t;
        sb_changed(inst);
        if ((s = sb_event_indicators(inst, "DoStep", w->z, (size_t)nz, 0)) != SB_OK) return s;
        if (k + nf > 0) sb_contact_rates(inst, w->v);
        for (int i = 0; i < k; ++i) w->rate[i] = w->v[i];
        if (nf > 0 && (s = sb_slip_accelerations(inst, w->acc)) != SB_OK) return s;
        w->ta = t;
        int inside = 0; /* an open contact that crept more than SB_GAP_TOL / 2 inside its surface, a hair a chunk
                           (the tangential watch below follows the gap of each chunk's start): resolved at once */
        for (int i = 0; i < k; ++i) {
            const int leaving = inst->state.closed[i] == 0.0 && fabs(w->z[i]) <= SB_GAP_TOL;
            w->divided[i] = leaving && w->rate[i] > SB_REST_VELOCITY;
            /* a separating contact's divided gap counts from its start where that lies below zero by rounding
               (the projection of an impact leaves -2e-16): counted from zero, a rebound that flies less than
               |z| / rate (1.8e-12 s on the hydraulic crane's stop, against 1.1e-11) had no root to locate but
               the chunk's start, and was found there again at every turn ("more than 100000 events") */
            w->off[i] = leaving ? (w->divided[i] ? fmin(w->z[i], 0.0) : 0.5 * SB_GAP_TOL - fmin(w->z[i], 0.0)) : 0.0;
            w->watched[i] = w->divided[i] || w->z[i] + w->off[i] > 0.0;
            inside |= inst->state.closed[i] == 0.0 && w->z[i] < -0.5 * SB_GAP_TOL && !w->divided[i];
        }
        if (inside) {
            if (++events > SB_MAX_EVENTS)
                return sb_problem(inst, SB_DISCARD, "more than %ld events in the step (t = %.17g): impacts accumulate",
                                  SB_MAX_EVENTS, t);
            s = sb_events_resolve(inst, "DoStep", &changed);
            w->carried = w->gacc_t = NAN;
            continue;
        }
        if (nf > 0 && watch_friction(inst, w)) { /* a friction element due now: resolved here */
            if (++events > SB_MAX_EVENTS)
                return sb_problem(inst, SB_DISCARD, "more than %ld events in the step (t = %.17g): the friction modes "
                                  "do not settle", SB_MAX_EVENTS, t);
            s = sb_events_resolve(inst, "DoStep", &changed);
            w->carried = w->gacc_t = NAN; /* (the modes, and perhaps the velocities, changed at t) */
            continue;
        }
        for (int j = k; j < k + w->nsw; ++j) { /* a switching function exactly at zero is watched from the next chunk */
            w->off[j] = (double)((w->z[j] > 0.0) - (w->z[j] < 0.0));
            w->watched[j] = w->off[j] != 0.0;
            w->divided[j] = 0;
        }
        if ((s = chunk_tolerance(inst, w, t, tb - t)) != SB_OK) return s;
        if ((s = smallest(inst, w, t, &fa)) != SB_OK) return s;
        memcpy(w->S0, inst->state.S, (size_t)inst->state.nS * sizeof(double)); /* (with the chunk's tolerance) */
        /* a switching function that changes sign inside an rk4 step makes its error estimate large (a kink of
           the forces): the step is taken shorter, down to where it no longer holds the kink or holds a sliver
           of it, and the switch is then located as any event */
        int shorter = 0;
        while ((s = sb_integrate(inst, t, tb)) == SB_DISCARD && w->nsw > 0 && !adaptive_method(inst) &&
               ++shorter <= SB_KINK_CUTS) {
            memcpy(inst->state.S, w->S0, (size_t)inst->state.nS * sizeof(double));
            sb_changed(inst);
            tb = t + 0.25 * (tb - t);
        }
        if (s != SB_OK) return s;
        if ((s = smallest(inst, w, tb, &fb)) != SB_OK) return s;
        if (fb > 0.0 && (s = dip(inst, w, t, &tb, &fb)) != SB_OK) return s; /* a gap below zero inside */
        if (fb > 0.0) {
            t = tb;
            continue;
        }
        if ((s = locate(inst, w, t, fa, tb, fb, &te)) != SB_OK) return s;
        if (++events > SB_MAX_EVENTS)
            return sb_problem(inst, SB_DISCARD, "more than %ld events in the step (t = %.17g): impacts accumulate",
                              SB_MAX_EVENTS, te);
        *inst->state.time = te;
        sb_changed(inst);
        s = sb_events_resolve(inst, "DoStep", &changed);
        w->carried = w->gacc_t = NAN;
        t = te;
    }
    return s;
}

SbStatus sb_events_integrate(SbInstance *inst, double t0, double tend)
{
    SbWatch w;
    const int k = inst->m->nk, nf = inst->m->nf, nz = k + inst->m->nsw + nf + 1; /* (+1: no zero-size buffers) */
    w.nk = k;
    w.nsw = inst->m->nsw;
    w.nz = k + inst->m->nsw + nf;
    w.S0 = malloc((size_t)inst->state.nS * sizeof(double));
    w.Sa = malloc((size_t)inst->state.nS * sizeof(double));
    w.z = malloc((size_t)nz * sizeof(double));
    w.off = malloc((size_t)nz * sizeof(double));
    w.rate = malloc((size_t)nz * sizeof(double));
    w.dip = malloc(dip_size(inst, w.nz) * sizeof(double));
    w.carried = NAN;
    w.watched = malloc((size_t)nz * sizeof(int));
    w.divided = malloc((size_t)nz * sizeof(int));
    w.v = malloc((size_t)(k + nf + 1) * sizeof(double));
    w.acc = malloc((size_t)(nf + 1) * sizeof(double));
    w.gacc = malloc((size_t)(2 * k + 1) * sizeof(double));
    w.gacc_t = NAN;
    w.ta = t0;
    const double rtol = inst->state.set[SB_SET_RTOL], atol = inst->state.set[SB_SET_ATOL];
    w.rtol = rtol;
    w.atol = atol;
    w.held = event_tolerance_held(inst);
    SbStatus s = w.S0 && w.Sa && w.z && w.off && w.rate && w.dip && w.watched && w.divided && w.v && w.acc && w.gacc
                     ? integrate(inst, &w, t0, tend)
                     : sb_problem(inst, SB_ERROR, "out of memory");
    inst->state.set[SB_SET_RTOL] = rtol;
    inst->state.set[SB_SET_ATOL] = atol;
    free(w.S0);
    free(w.Sa);
    free(w.z);
    free(w.off);
    free(w.rate);
    free(w.dip);
    free(w.watched);
    free(w.divided);
    free(w.v);
    free(w.acc);
    free(w.gacc);
    return s;
}
