/*
 * sb_branch.c -- the branch checks of Model Exchange in the symbody FMU runtime: the state kept at the
 * accepted steps, the velocity through a passage of a singular position and the work of the constraint
 * forces in a step, and the state put back onto its assembly branch in the event they ask for.
 *
 * In Model Exchange the host's tolerance decides the constraint drift, and a drift as large as the
 * distance between the branches of a singular position turns the motion onto another branch (sb_singular.c
 * explains the positions and the work test of a passage, sb_branch_guard).  Everything the checks remember
 * is SbState.kept, part of the FMU state.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sb_internal.h"
#include "sb_linalg.h"
#include "sb_runtime.h"

#define SB_BRANCH_NEAR 1e-2  /* rows next to a singular position: fewer eigenvalues of their Gram matrix scaled by
                                their largest norms above this than usual (singular values of 0.1) */
#define SB_BRANCH_JUMP 0.25  /* a velocity through the passage off its continuation by this part of the speed */
#define SB_STEP_WORK 5e-2    /* work of the constraint forces in one accepted step, part of the kinetic energy */

/* The branch check of Model Exchange.  A host at a loose tolerance carries a constraint drift as large as
   the distance between the branches of a singular position into it, and Baumgarte's terms may then turn the
   motion onto the other branch with the kinetic energy kept (the slider-crank with crank = rod, its slider
   stopped at the pivot, the crank reversed): the power balance of sb_branch_guard does not see it.  On the
   branch the velocity is continuous through the passage and its accelerations bounded (sb_passage.c
   bridges them); onto another branch it jumps by a part of itself within the passage.  So, at every
   accepted state (CompletedIntegratorStep) the positions q, velocity dq and acceleration ddq are kept
   (SbState.kept: part of the FMU state, so that a host that restores an earlier state compares with the
   state kept then); when a state next to a singular position (the rows scaled by the largest norms they
   have had, fewer eigenvalues of their Gram matrix above SB_BRANCH_NEAR than usual: sb_scaled_rows_hold) was
   evaluated since the kept one, the velocity at the next accepted state must continue it: dq1 - dq0 - h (ddq0
   + ddq1) / 2 within SB_BRANCH_JUMP of the speed and of the velocity change the accelerations make in the
   step.  Far from singular positions a loose host's drift can turn the motion as well (the slider-crank
   started at its dead point under CVode at rtol 1e-3 reversed its crank at t = 0.92 with no passage): the
   work of the bilateral constraint forces in one accepted step stays below SB_STEP_WORK of the kinetic
   energy.  Else the state is on another branch: CompletedIntegratorStep asks for an event (enterEventMode),
   as it does after the work test of a passage fired in an evaluation (sb_branch_guard), and in event mode
   sb_branch_restore puts it back onto the branch of the kept state.  A host that goes on without the event,
   or a state that cannot be put back, stops the run with an Error (SB_FLAG_BRANCH_LOST, as the guard).
   Events that change the velocities forget the kept state. */

void sb_branch_forget(SbInstance *inst)
{
    if (inst->m->nc == 0) return;
    double *kept = inst->state.kept;
    kept[SB_KEPT_T] = NAN;
    kept[SB_KEPT_NEAR] = 0.0;
    kept[SB_KEPT_ROW] = 0.0;
    kept[SB_KEPT_LEAST] = INFINITY;
    kept[SB_KEPT_ASKED] = NAN;
    kept[SB_KEPT_STEP_WORK] = 0.0;
    kept[SB_KEPT_FIRED] = 0.0;
}

void sb_branch_reset(SbInstance *inst)
{
    if (inst->m->nc == 0) return;
    memset(inst->state.kept, 0, (size_t)sb_kept_size(inst->m) * sizeof(double));
    inst->state.kept[SB_KEPT_WORK_T] = NAN;
    inst->state.kept[SB_KEPT_STEP_T] = NAN;
    sb_branch_forget(inst);
}

/* How clearly the usual number of constraint rows hold: the eigenvalues of the Gram matrix of the rows of D
   scaled by the largest norms they have had (its diagonal is at most 1: 1 for rows that keep their norms and
   stay orthogonal), sorted from the largest; the usual number r is the most eigenvalues of at least
   SB_BRANCH_NEAR met (SB_KEPT_RANK, raised here and seeded at initialization).  Returns the r-th largest
   eigenvalue (0 at a singular position; INFINITY for a model whose rows never hold clearly), and in *row the
   row with the largest share in its eigenvector.  Rows that are always zero or always dependent on the others
   (redundant) never count, so they do not make every state one next to a singular position.  Each eigenvalue
   w of eigenvector v counts as a part of the most rows of these norms could give along v, w / (sum |v_a|)^2
   (Cauchy-Schwarz; rows scaled to norms of at most 1): a row given twice has the eigenvalue 2 c^2 along
   (1, 1) / sqrt 2 where the row alone has c^2, and would have been seen next to its singular position only
   half as far from it. */
double sb_scaled_rows_hold(SbInstance *inst, const double *D, int *row)
{
    const int n = inst->m->nq, nc = inst->m->nc;
    double *G = inst->dyn.branch_G, *V = G + nc * nc, *w = V + nc * nc, *kept = inst->state.kept;
    for (int a = 0; a < nc; ++a)
        for (int b = 0; b <= a; ++b) {
            double v = 0.0;
            for (int j = 0; j < n; ++j) v += D[a * n + j] * D[b * n + j];
            v /= sqrt(fmax(inst->state.row_ref[a], 1e-300) * fmax(inst->state.row_ref[b], 1e-300));
            G[a * nc + b] = G[b * nc + a] = isfinite(v) ? v : 0.0;
        }
    sb_sym_eigen(nc, G, V, w);
    for (int k = 0; k < nc; ++k) { /* each eigenvalue as a part of the most its combination of rows could give */
        double sum = 0.0;
        for (int a = 0; a < nc; ++a) sum += fabs(V[a * nc + k]);
        w[k] /= sum * sum;
    }
    int count = 0;
    for (int k = 0; k < nc; ++k) count += w[k] >= SB_BRANCH_NEAR;
    if (count > kept[SB_KEPT_RANK]) kept[SB_KEPT_RANK] = count;
    const int r = (int)kept[SB_KEPT_RANK];
    *row = 0;
    if (r == 0) return INFINITY;
    int k = -1; /* the r-th largest eigenvalue: r - 1 of them are larger */
    for (int i = 0; i < nc && k < 0; ++i) {
        int larger = 0;
        for (int j = 0; j < nc; ++j) larger += w[j] > w[i] || (w[j] == w[i] && j < i);
        if (larger == r - 1) k = i;
    }
    double big = -1.0;
    for (int a = 0; a < nc; ++a)
        if (fabs(V[a * nc + k]) > big) big = fabs(V[a * nc + k]), *row = a;
    return fmax(w[k], 0.0);
}

/* Mark an evaluated state next to a singular position (sb_update, Model Exchange), with the row that loses
   its hold most there. */
void sb_branch_mark(SbInstance *inst)
{
    int row;
    if (inst->m->nc == 0) return;
    double *kept = inst->state.kept;
    const double least = sb_scaled_rows_hold(inst, inst->dyn.D, &row);
    if (inst->dyn.fact == SB_FACT_FILTER || least < SB_BRANCH_NEAR) kept[SB_KEPT_NEAR] = 1.0;
    if (least < kept[SB_KEPT_LEAST]) {
        kept[SB_KEPT_LEAST] = least;
        kept[SB_KEPT_ROW] = row;
    }
}

/* Keep the current state (its accelerations in inst->cache.ddq) as the one the next accepted states continue. */
static void keep_state(SbInstance *inst, double t, int near)
{
    const int n = inst->m->nq;
    double *kept = inst->state.kept;
    memcpy(kept + SB_KEPT_HEAD, inst->state.x, (size_t)(2 * n) * sizeof(double)); /* q, dq */
    memcpy(kept + SB_KEPT_HEAD + 2 * n, inst->cache.ddq, (size_t)n * sizeof(double));
    memcpy(kept + SB_KEPT_HEAD + 3 * n, inst->state.x + 2 * n, (size_t)inst->m->ns * sizeof(double)); /* xs */
    kept[SB_KEPT_T] = t;
    kept[SB_KEPT_NEAR] = near;
    if (!near) kept[SB_KEPT_LEAST] = INFINITY;
}

/* Whether the velocity dq (accelerations ddq) at time t jumped from the continuation of the kept state:
   |dq1 - dq0 - h (ddq0 + ddq1) / 2| above SB_BRANCH_JUMP of the speed and of the velocity change the
   accelerations make in the step; the coordinate of the largest departure goes to *worst. */
static int velocity_jumped(const SbInstance *inst, double t, const double *dq, const double *ddq, int *worst)
{
    const int n = inst->m->nq;
    const double *v0 = inst->state.kept + SB_KEPT_HEAD + n, *a0 = v0 + n, h = t - inst->state.kept[SB_KEPT_T];
    double off = 0.0, speed = 0.0, change = 0.0;
    *worst = 0;
    for (int i = 0; i < n; ++i) {
        const double d = fabs(dq[i] - v0[i] - 0.5 * h * (a0[i] + ddq[i]));
        if (d > off) off = d, *worst = i;
        speed = fmax(speed, fmax(fabs(dq[i]), fabs(v0[i])));
        change = fmax(change, h * fmax(fabs(a0[i]), fabs(ddq[i])));
    }
    return off > SB_BRANCH_JUMP * (speed + change) && off > 0.0;
}

/* The run stops: the state left its branch and was not put back (the verdict is part of the state). */
static SbStatus branch_lost(SbInstance *inst, const char *function, double t, const char *why)
{
    const char *row = inst->m->constraint_names[(int)inst->state.kept[SB_KEPT_ROW]];
    inst->state.flags |= SB_FLAG_BRANCH_LOST;
    sb_log(inst, SB_ERROR, SB_LOG_ERROR,
           "%s%st = %.17g: the motion left its assembly branch at a singular position after t = %.17g, where "
           "constraint row '%s' vanishes or becomes dependent on the others, and %s; the constraint drift of the "
           "integration was as large as the distance between the branches.  Integrate with a tighter tolerance; "
           "the run stops here instead of continuing on another branch",
           function ? function : "", function ? ": " : "", t, inst->state.kept[SB_KEPT_T], row, why);
    return sb_problem(inst, SB_ERROR,
                      "the motion left its assembly branch at the singular position of constraint row '%s' and %s "
                      "(integrate with a tighter tolerance)", row, why);
}

SbStatus sb_branch_not_restored(SbInstance *inst, double t)
{
    return branch_lost(inst, NULL, t,
                       "the host went on without the event CompletedIntegratorStep asked for (enterEventMode) to put "
                       "the state back onto the branch");
}

/* The scale of the work test of an accepted step: the kinetic energy at the kept state and at the current one
   (velocity dq), whichever is larger, plus the kinetic energy the loads give within a Baumgarte time (T_f of
   sb_branch_guard); INFINITY (no test) where M has no L D L^T factors (singular M).  With redundant rows (the
   LU of the augmented matrix) M is factored here into Mf, which the LU solves do not use.
   Uses the blocks of the last dynamics evaluation, at the current state. */
static double step_energy(SbInstance *inst, const double *dq)
{
    const int n = inst->m->nq;
    const double *M = inst->dyn.M, *v0 = inst->state.kept + SB_KEPT_HEAD + n;
    if (inst->dyn.fact == SB_FACT_LU) { /* (redundant rows: M factored here, the LU does not need Mf) */
        memcpy(inst->dyn.Mf, M, (size_t)n * n * sizeof(double));
        if (sb_ldlt(n, inst->dyn.Mf)) return INFINITY; /* (a singular M) */
    } else if (inst->dyn.fact != SB_FACT_SCHUR && inst->dyn.fact != SB_FACT_FILTER)
        return INFINITY;
    double T0 = 0.0, T1 = 0.0, Tf = 0.0, *a = inst->dyn.stmp; /* free after the solve */
    for (int i = 0; i < n; ++i) {
        double u = 0.0, v = 0.0;
        for (int j = 0; j < n; ++j) u += M[i * n + j] * v0[j], v += M[i * n + j] * dq[j];
        T0 += 0.5 * v0[i] * u;
        T1 += 0.5 * dq[i] * v;
        a[i] = inst->dyn.delta[i];
    }
    const double w = fmax(fmax(inst->state.set[SB_SET_ALPHA], inst->state.set[SB_SET_BETA]), SB_BRANCH_RATE);
    sb_ldlt_solve(n, inst->dyn.Mf, a);
    for (int i = 0; i < n; ++i) Tf += 0.5 * a[i] * inst->dyn.delta[i];
    const double scale = (isnan(inst->state.kept[SB_KEPT_T]) ? T1 : fmax(T0, T1)) + fabs(Tf) / (w * w);
    return isfinite(scale) ? scale : INFINITY;
}

static SbStatus carry_kept_state(SbInstance *inst, double t, double *x);

/* Whether the velocity dq at time t departs from that of the kept state carried to t along its own motion
   (carry_kept_state) by more than SB_BRANCH_JUMP of the speed and of the velocity change the accelerations make
   in the step; the coordinate of the largest departure goes to *worst.  The check at the end of a passage
   where the host's drift carried the motion onto the other branch smoothly, its accelerations on the way
   explaining its velocities (the slider-crank with its guide given twice, under CVode at rtol 1e-3: the rod's
   rate went from -2.2 to +9.6 in 0.04 s, with accelerations up to 650).  0 where the kept state cannot be
   carried (the comparison of velocity_jumped stands alone then).  The evaluations leave the cache on other
   states: the caller updates it. */
static int carried_departs(SbInstance *inst, double t, const double *dq, const double *ddq, int *worst)
{
    const int n = inst->m->nq;
    const double *v0 = inst->state.kept + SB_KEPT_HEAD + n, *a0 = v0 + n, h = t - inst->state.kept[SB_KEPT_T];
    double *x = inst->proj.xwork; /* free after initialization */
    double *dq1 = inst->dyn.carry + 5 * sb_nx(inst->m);
    memcpy(dq1, dq, (size_t)n * sizeof(double));
    double speed = 0.0, change = 0.0;
    for (int i = 0; i < n; ++i) {
        speed = fmax(speed, fmax(fabs(dq1[i]), fabs(v0[i])));
        change = fmax(change, h * fmax(fabs(a0[i]), fabs(ddq[i])));
    }
    const SbStatus s = carry_kept_state(inst, t, x);
    sb_changed(inst);
    if (s != SB_OK) return 0;
    double off = 0.0;
    *worst = 0;
    for (int i = 0; i < n; ++i)
        if (fabs(dq1[i] - x[n + i]) > off) off = fabs(dq1[i] - x[n + i]), *worst = i;
    return off > SB_BRANCH_JUMP * (speed + change);
}

SbStatus sb_branch_step(SbInstance *inst, const char *function, int *enter_event)
{
    const SbModel *m = inst->m;
    const int n = m->nq;
    if (m->nc == 0 || inst->interface != SB_ME) return SB_OK;
    double *kept = inst->state.kept;
    const double t = *inst->state.time;
    if (!isnan(kept[SB_KEPT_ASKED]))
        return branch_lost(inst, function, t,
                           "the host completed another step without the event CompletedIntegratorStep asked for "
                           "(enterEventMode) to put the state back onto the branch");
    SbStatus s = sb_update(inst); /* the accelerations at the accepted state */
    if (s == SB_ERROR || s == SB_FATAL) return s;
    if (s != SB_OK) { /* no accelerations here (the host's next evaluation reports why): start afresh */
        sb_branch_forget(inst);
        return SB_OK;
    }
    const double *dq = inst->state.x + n, *ddq = inst->cache.ddq;
    int row, worst;
    const int near = sb_scaled_rows_hold(inst, inst->dyn.D, &row) < SB_BRANCH_NEAR;
    const double work = kept[SB_KEPT_STEP_WORK], scale = step_energy(inst, dq);
    kept[SB_KEPT_STEP_WORK] = 0.0; /* (the next step's from here) */
    int left = 0;
    if (kept[SB_KEPT_NEAR] != 0.0 && !near && t > kept[SB_KEPT_T]) { /* the end of a passage */
        left = velocity_jumped(inst, t, dq, ddq, &worst);
        if (!left) {
            left = carried_departs(inst, t, dq, ddq, &worst);
            s = sb_update(inst); /* (the cache back at the accepted state) */
            if (s == SB_ERROR || s == SB_FATAL) return s;
            if (s != SB_OK) {
                sb_branch_forget(inst);
                return SB_OK;
            }
            dq = inst->state.x + n, ddq = inst->cache.ddq;
        }
    }
    if (left) {
        const double *v0 = kept + SB_KEPT_HEAD + n, *a0 = v0 + n;
        kept[SB_KEPT_ASKED] = t;
        *enter_event = 1;
        sb_log(inst, SB_OK, SB_LOG_EVENTS,
               "%s: t = %.17g: the motion left its assembly branch at a singular position between t = %.17g and "
               "t = %.17g, where constraint row '%s' vanishes or becomes dependent on the others: the rate of "
               "coordinate '%s' went from %.6g to %.6g, which the accelerations of the motion (%.6g and %.6g) do "
               "not explain (the constraint drift of the integration was as large as the distance between the "
               "branches); an event is requested to put the state back onto the branch",
               function, t, kept[SB_KEPT_T], t, m->constraint_names[(int)kept[SB_KEPT_ROW]],
               m->coordinate_names[worst], v0[worst], dq[worst], a0[worst], ddq[worst]);
        return SB_OK;
    }
    if (kept[SB_KEPT_FIRED] != 0.0 && t > kept[SB_KEPT_T]) { /* sb_branch_guard saw the work of a passage */
        kept[SB_KEPT_ASKED] = t;
        *enter_event = 1;
        sb_log(inst, SB_OK, SB_LOG_EVENTS,
               "%s: t = %.17g: the constraint forces did work at the singular position of constraint row '%s' since "
               "t = %.17g (see above): an event is requested to put the state back onto the branch",
               function, t, m->constraint_names[(int)kept[SB_KEPT_ROW]], kept[SB_KEPT_T]);
        return SB_OK;
    }
    if (t > kept[SB_KEPT_T] && fabs(work) > SB_STEP_WORK * scale) {
        kept[SB_KEPT_ASKED] = t;
        kept[SB_KEPT_ROW] = row; /* (the row that holds least here, for the message of a failure) */
        *enter_event = 1;
        sb_log(inst, SB_OK, SB_LOG_EVENTS,
               "%s: t = %.17g: the constraint forces did work %.3g in the step to here (kinetic energy %.3g with what "
               "the loads give within a Baumgarte time, the model's units), which they do not on the motion: the "
               "constraint drift of the integration drives the state off its assembly branch; an event is requested "
               "to put the state back onto the branch of the state kept at t = %.17g",
               function, t, work, scale, kept[SB_KEPT_T]);
        return SB_OK;
    }
    if (!near || !(t > kept[SB_KEPT_T])) /* outside the passage (or the first one, or one restored from before) */
        keep_state(inst, t, near);
    return SB_OK;
}

#define SB_CARRY_STEPS 32 /* rk4 steps that carry the kept state to the present (sb_branch_restore) */

/* The kept state (q0, dq0 and the first-order states xs0 at t0) carried to time t by SB_CARRY_STEPS rk4 steps of
   the model's own dynamics, into x: the motion through the passage on the kept state's branch, with the exact
   accelerations bridged over the singular instant (sb_passage.c).  The first-order states (a drive's current, a
   cylinder's pressure) are carried with it: the host integrated them along the motion on the other branch. */
static SbStatus carry_kept_state(SbInstance *inst, double t, double *x)
{
    const int n = inst->m->nq, nx = sb_nx(inst->m);
    const double t0 = inst->state.kept[SB_KEPT_T], hs = (t - t0) / SB_CARRY_STEPS;
    double *k = inst->dyn.carry, *y = k + 4 * nx; /* k1..k4, then the stage state */
    memcpy(x, inst->state.kept + SB_KEPT_HEAD, (size_t)(2 * n) * sizeof(double));
    memcpy(x + 2 * n, inst->state.kept + SB_KEPT_HEAD + 3 * n, (size_t)(nx - 2 * n) * sizeof(double));
    static const double c[4] = {0.0, 0.5, 0.5, 1.0}, w[4] = {1.0, 2.0, 2.0, 1.0};
    /* on the constraints to rounding first: the host's drift, as large as the distance between the branches next
       to the singular position, would turn the motion as it turned the host's */
    SbStatus s = sb_reassemble(inst, t0, x);
    if (s != SB_OK) return s;
    for (int step = 0; step < SB_CARRY_STEPS; ++step) {
        const double ts = t0 + step * hs;
        for (int j = 0; j < 4; ++j) {
            for (int i = 0; i < nx; ++i) y[i] = x[i] + (j ? c[j] * hs * k[(j - 1) * nx + i] : 0.0);
            s = sb_derivatives(inst, ts + c[j] * hs, y, k + j * nx);
            if (s != SB_OK) return s;
        }
        for (int i = 0; i < nx; ++i) {
            double v = 0.0;
            for (int j = 0; j < 4; ++j) v += w[j] * k[j * nx + i];
            x[i] += hs / 6.0 * v;
        }
    }
    return sb_all_finite(nx, x) ? SB_OK : sb_problem(inst, SB_DISCARD, "the carried state is not finite");
}

/* Put the state back onto the branch of the kept state (q0, dq0, ddq0 at t0): the kept state carried to the present
   time t (the first accepted state after the passage, where the rows hold again) along its own motion
   (carry_kept_state), re-assembled by minimum-norm Newton steps (which converge to the assembly nearest to it: the
   branch the motion continues on) and its velocities projected onto the constraints.  The re-assembly must move
   the carried state by less than SB_BRANCH_JUMP of the motion in the step (positions, h = t - t0: h (|dq0| +
   h |ddq0|)) and of the speed and velocity change (velocities); else the run stops with an Error. */
SbStatus sb_branch_restore(SbInstance *inst, const char *function, int *restored)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nx = sb_nx(m);
    *restored = 0;
    if (m->nc == 0 || inst->interface != SB_ME || isnan(inst->state.kept[SB_KEPT_ASKED])) return SB_OK;
    double *kept = inst->state.kept, *x = inst->proj.xwork; /* free after initialization */
    const double t = *inst->state.time, h = t - kept[SB_KEPT_T];
    const double *v0 = kept + SB_KEPT_HEAD + n, *a0 = v0 + n;
    kept[SB_KEPT_ASKED] = NAN;
    if (!(h >= 0.0)) return branch_lost(inst, function, t, "the event to put it back is before the state it keeps");
    SbStatus s = carry_kept_state(inst, t, x);
    if (s != SB_OK) return branch_lost(inst, function, t, "the state kept before the passage cannot be carried to here");
    double *carried = inst->dyn.carry + 5 * nx;
    memcpy(carried, x, (size_t)nx * sizeof(double));
    s = sb_reassemble(inst, t, x);
    if (s != SB_OK) {
        char why[sizeof inst->problem + 64];
        snprintf(why, sizeof why, "could not be put back onto it (%s)", inst->problem);
        return branch_lost(inst, function, t, why);
    }
    /* the re-assembly moves the carried state by a small part of the motion in the step, or the kept state does
       not lead onto a branch here (the constraint drift is as large as the distance between the branches) */
    double moved = 0.0, speed = 0.0, change = 0.0, turned = 0.0;
    int worst = 0;
    for (int i = 0; i < n; ++i) {
        const double dv = fabs(x[n + i] - carried[n + i]);
        moved = fmax(moved, fabs(x[i] - carried[i]));
        speed = fmax(speed, fabs(v0[i]));
        change = fmax(change, h * fabs(a0[i]));
        if (dv > turned) turned = dv;
        if (fabs(x[n + i] - inst->state.x[n + i]) > fabs(x[n + worst] - inst->state.x[n + worst])) worst = i;
    }
    if (!(moved <= SB_BRANCH_JUMP * h * (speed + change)) || !(turned <= SB_BRANCH_JUMP * (speed + change)))
        return branch_lost(inst, function, t,
                           "the state carried from the one kept before the passage does not re-assemble next to it");
    const double was = inst->state.x[n + worst];
    memcpy(inst->state.x, x, (size_t)nx * sizeof(double)); /* (the first-order states as carried) */
    sb_changed(inst);
    *restored = 1; /* the continuous states changed, whatever follows */
    kept[SB_KEPT_FIRED] = 0.0;
    s = sb_update(inst);
    if (s != SB_OK) return s;
    int row;
    const int near = sb_scaled_rows_hold(inst, inst->dyn.D, &row) < SB_BRANCH_NEAR;
    sb_log(inst, SB_OK, SB_LOG_EVENTS,
           "%s: t = %.17g: the state had left its assembly branch at the singular position of constraint row '%s' "
           "(rate of coordinate '%s' %.6g): put back onto the branch of the motion (rate %.6g), re-assembled from the "
           "state kept at t = %.17g; the continuous states changed",
           function, t, m->constraint_names[(int)kept[SB_KEPT_ROW]], m->coordinate_names[worst], was,
           inst->state.x[n + worst], kept[SB_KEPT_T]);
    keep_state(inst, t, near); /* (next to the singular position still: the next accepted state after it checks) */
    kept[SB_KEPT_WORK] = 0.0;
    kept[SB_KEPT_WORK_T] = NAN;
    kept[SB_KEPT_STEP_WORK] = 0.0;
    kept[SB_KEPT_STEP_T] = t;
    return SB_OK;
}
