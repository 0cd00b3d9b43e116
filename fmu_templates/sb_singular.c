/*
 * sb_singular.c -- singular positions of constrained mechanisms in the symbody FMU runtime.
 *
 * At a singular position (a slider-crank at its dead point, a parallelogram linkage lying flat)
 * rows of the constraint Jacobian D become dependent or vanish for an instant.  The exact
 * solution of [M D^T; D 0] then has multipliers that grow like the inverse of the smallest
 * eigenvalue of D M^-1 D^T with the drift of the integration, and the velocity rows turn with
 * the tiny position errors along the direction that loses its row.  Two remedies, used by
 * sb_dynamics.c and sb_assembly.c only near such positions:
 *   - filtered multipliers (Tikhonov's regularization of the range-space system, on rows scaled
 *     by the largest norm each has had);
 *   - no projection while fewer rows are clearly independent than usual.
 * The reference row norms start from the rows next to the initial configuration (a mechanism
 * started at a singular position), and reading an output that depends on reactions the equations
 * do not determine there returns a warning.  In Model Exchange, where the host's tolerance decides
 * the drift, a change of assembly branch is detected by the work of the constraint forces in a
 * passage (sb_branch_guard, here) and at the accepted steps (sb_branch.c), where the state is put back.
 */
#include <math.h>
#include <string.h>

#include "sb_internal.h"
#include "sb_linalg.h"
#include "sb_runtime.h"

#define SB_FILTER_LEVEL 1e-6 /* filter level tau, relative to the regular eigenvalues of E D M^-1 D^T E */
#define SB_SINGULAR_GAP 1e-2 /* rows independent for the projection: singular value above this part of |D| */
#define SB_UNDETERMINED 1e3   /* a filtered mode with eigenvalue below this many tau: its multiplier is not
                                   determined (the filter changes it by more than (1 / SB_UNDETERMINED)^2) */
#define SB_SEED_STEP 0.1     /* change of each coordinate for the reference row norms at initialization */
#define SB_SEED_SHARE 1e-2   /* part of the squared row norms met there taken as reference */
#define SB_SEED_VANISHED 1e-4 /* a start row below this part of its reference: a singular start (as sb_runtime.c) */
#define SB_BRANCH_WORK 1e-3 /* branch guard: work of the constraint forces in a passage, part of T */
#define SB_BRANCH_RESOLVED 1e-2 /* ... only while the constraint errors' energy is below this part of T */


/* Reference row norms at initialization (row_ref), before the motion has shown the norms the rows
   have: a mechanism started at or next to a singular position has rows that vanish there, and
   without a reference they would be taken as small by their units, so that the first steps solve
   the nearly dependent rows exactly (multipliers growing like the inverse of the distance to the
   singular position, and a jump to another assembly branch under an adaptive solver).  The norms of
   the rows at the configurations q0 +- SB_SEED_STEP e_i (each coordinate changed in turn; D does
   not need the constraints satisfied) show what the rows are next to the start; SB_SEED_SHARE of
   them is the reference, so that a row is taken as vanishing only far below the norms it has a
   tenth of a unit away (a coordinate in metres of a millimetre mechanism overestimates the norms by
   less than that share).  The motion raises the reference as it meets larger norms. */
void sb_seed_row_reference(SbInstance *inst, double t)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc;
    if (nc == 0) return;
    sb_branch_reset(inst); /* no passage of a singular position yet (sb_branch_guard) */
    double *x = inst->proj.xwork, *J = inst->proj.Jrows, *r = inst->proj.rrows, *near = inst->dyn.stmp; /* free after assembly */
    memcpy(x, inst->state.x, (size_t)sb_nx(m) * sizeof(double));
    SbPoint pt;
    memset(&pt, 0, sizeof pt);
    pt.t = t;
    pt.q = x;
    pt.dq = x + n;
    pt.u = inst->state.u;
    pt.p = inst->state.p;
    pt.c = inst->constants;
    pt.xs = x + 2 * n;
    sb_D_beta(&pt, J, r);
    for (int k = 0; k < nc; ++k) {
        double v = 0.0;
        for (int j = 0; j < n; ++j) v += J[k * n + j] * J[k * n + j];
        inst->state.row_ref[k] = isfinite(v) ? v : 0.0;
        near[k] = 0.0;
    }
    for (int i = 0; i < n; ++i)
        for (int side = -1; side <= 1; side += 2) {
            x[i] = inst->state.x[i] + side * SB_SEED_STEP;
            sb_D_beta(&pt, J, r);
            for (int k = 0; k < nc; ++k) {
                double v = 0.0;
                for (int j = 0; j < n; ++j) v += J[k * n + j] * J[k * n + j];
                if (isfinite(v)) near[k] = fmax(near[k], v);
            }
            x[i] = inst->state.x[i];
        }
    int worst = -1;
    double least = 1.0;
    for (int k = 0; k < nc; ++k) {
        const double seed = SB_SEED_SHARE * near[k];
        if (inst->state.row_ref[k] < SB_SEED_VANISHED * seed && inst->state.row_ref[k] < least * seed) {
            least = inst->state.row_ref[k] / seed;
            worst = k;
        }
        inst->state.row_ref[k] = fmax(inst->state.row_ref[k], seed);
    }
    /* the usual number of rows that hold clearly (the branch check, scaled_rows_hold): the most met next to the
       start, so that a start at a singular position is one */
    for (int i = 0; i < n; ++i)
        for (int side = -1; side <= 1; side += 2) {
            int row;
            x[i] = inst->state.x[i] + side * SB_SEED_STEP;
            sb_D_beta(&pt, J, r);
            (void)sb_scaled_rows_hold(inst, J, &row);
            x[i] = inst->state.x[i];
        }
    if (worst >= 0)
        sb_log(inst, SB_OK, SB_LOG_EVENTS,
               "t = %.17g: the initial configuration is at or next to a singular position: constraint row '%s' "
               "has %.3g of the norm it has next to it; its multiplier is filtered there",
               t, m->constraint_names[worst], sqrt(least * SB_SEED_SHARE));
}

/* 1 / sqrt of the reference squared norm of constraint row r: the largest it has had */
static double row_weight(const SbInstance *inst, int r)
{
    const int n = inst->m->nq;
    double v = 0.0;
    for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * inst->dyn.D[r * n + j];
    v = fmax(v, inst->state.row_ref[r]);
    return v > 0.0 ? 1.0 / sqrt(v) : 1.0;
}

/* lam <- E V diag(s / (s^2 + tau^2)) V^T E lam (SB_FACT_FILTER, tau = inst->dyn.filter_tau);
   inst->dyn.A is free in this mode. */
void sb_filter_multipliers(SbInstance *inst, double *lam)
{
    const int nc = inst->m->nc;
    double *c = inst->dyn.A, *e = inst->dyn.A + nc;
    for (int r = 0; r < nc; ++r) e[r] = row_weight(inst, r);
    sb_filter_apply(nc, inst->dyn.Sf, inst->dyn.sw, e, inst->dyn.filter_tau, lam, c);
}

/* Filtered multipliers at a singular position (rows of D nearly dependent or vanishing): with Mf
   and X = Mf^-1 D^T left by factor_schur, the eigen-decomposition of E S E, S = D X, the rows
   scaled by the largest norm each has had (a row small by its units is not a vanishing one).
   The accelerations are continuous and the multipliers bounded where the exact solution of
   [M D^T; D 0] has multipliers growing like the inverse of S's smallest eigenvalue. */
void sb_factor_filter(SbInstance *inst, double t)
{
    const int n = inst->m->nq, nc = inst->m->nc;
    double *S = inst->dyn.A, *e = inst->dyn.stmp; /* both free in this mode */
    for (int r = 0; r < nc; ++r) e[r] = row_weight(inst, r);
    for (int r = 0; r < nc; ++r)
        for (int c = r; c < nc; ++c) {
            double v = 0.0;
            for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * inst->dyn.X[c * n + j];
            S[r * nc + c] = S[c * nc + r] = e[r] * v * e[c];
        }
    /* the scale of a regular mode: the largest eigenvalue, or about the smallest of M^-1 (1 / max M_ii)
       when every row vanishes at once (a single row at a dead point) */
    double mmax = 0.0;
    for (int i = 0; i < n; ++i) mmax = fmax(mmax, inst->dyn.M[i * n + i]);
    const double least = inst->dyn.rho == 0.0 && mmax > 0.0 ? 1.0 / mmax : 0.0;
    inst->dyn.filter_tau = sb_filter_modes(nc, S, inst->dyn.Sf, inst->dyn.sw, SB_FILTER_LEVEL, least);
    inst->dyn.fact = SB_FACT_FILTER;
    inst->dyn.rank = inst->dyn.na;
    sb_log(inst, SB_OK, SB_LOG_SOLVER,
           "t = %.17g: constraint rows nearly dependent (singular position), filtered multipliers", t);
}

/* 1 when fewer constraint rows are clearly independent at x than usual: singular values of D
   above SB_SINGULAR_GAP times the largest row norm met, compared with the most counted so far
   (redundant rows never count). */
int sb_near_singular(SbInstance *inst, double t, const double *x)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc;
    SbPoint pt;
    memset(&pt, 0, sizeof pt);
    pt.t = t;
    pt.q = x;
    pt.dq = x + n;
    pt.u = inst->state.u;
    pt.p = inst->state.p;
    pt.c = inst->constants;
    pt.xs = x + 2 * n;
    double *J = inst->proj.Jrows, *r = inst->proj.rrows, *V = inst->dyn.A, *w = inst->dyn.stmp, ref = 0.0;
    sb_D_beta(&pt, J, r);
    sb_gram(nc, n, J, inst->proj.G);
    for (int k = 0; k < nc; ++k) ref = fmax(ref, fmax(inst->state.row_ref[k], inst->proj.G[k * nc + k]));
    const int rank = sb_clear_rank(nc, inst->proj.G, V, w, ref, SB_SINGULAR_GAP);
    if (rank > inst->dyn.rank_ref) inst->dyn.rank_ref = rank;
    return rank < inst->dyn.rank_ref;
}

/* 1 when the factorization left by sb_accelerations has multipliers the equations do not determine:
   filtered modes whose eigenvalue s is below SB_UNDETERMINED tau, where the filtered value
   s / (s^2 + tau^2) departs from the exact 1 / s by more than 1e-6 of it, up to the singular instant
   itself, where the rows are dependent and any multiple of the dependent direction solves the
   equations (the filter returns the minimum-norm choice: that component is zero). */
int sb_multipliers_undetermined(const SbInstance *inst)
{
    if (inst->dyn.fact != SB_FACT_FILTER) return 0;
    for (int k = 0; k < inst->m->nc; ++k)
        if (inst->dyn.sw[k] < SB_UNDETERMINED * inst->dyn.filter_tau) return 1;
    return 0;
}

/* Reading output v at a state whose multipliers are partly undetermined (inst->cache.undetermined, set by
   sb_update): SB_WARNING with a message when v depends on the multipliers along an undetermined
   direction E V_k (the output Jacobian Y_lam at the current state), else SB_OK.  The factorization
   is made again at the current state: the solvers' evaluations since sb_update have replaced it. */
SbStatus sb_undetermined_output(SbInstance *inst, const char *function, const SbVariable *v)
{
    const SbModel *m = inst->m;
    const int nc = m->nc, i = v->index;
    if (!inst->cache.undetermined || v->kind != SB_VAR_Y) return SB_OK;
    char why[sizeof inst->problem];
    memcpy(why, inst->problem, sizeof why);
    SbStatus s = sb_accelerations(inst, *inst->state.time, inst->state.x, NULL, NULL);
    memcpy(inst->problem, why, sizeof why);
    if (s != SB_OK || inst->dyn.fact != SB_FACT_FILTER) return SB_OK;
    SbPoint pt;
    memset(&pt, 0, sizeof pt);
    pt.t = *inst->state.time;
    pt.q = inst->state.x;
    pt.dq = inst->state.x + m->nq;
    pt.u = inst->state.u;
    pt.p = inst->state.p;
    pt.c = inst->constants;
    pt.ddq = inst->cache.ddq;
    pt.lam = inst->cache.lam;
    pt.xs = inst->state.x + 2 * m->nq;
    sb_output_jacobians(&pt, inst->jac.Y_q, inst->jac.Y_dq, inst->jac.Y_u, inst->jac.Y_t, inst->jac.Y_ddq, inst->jac.Y_lam);
    const double *y_lam = inst->jac.Y_lam + (size_t)i * nc;
    double scale = 0.0;
    for (int r = 0; r < nc; ++r) scale += fabs(y_lam[r]) * row_weight(inst, r);
    if (!(scale > 0.0)) return SB_OK; /* no multiplier in this output */
    for (int k = 0; k < nc; ++k) {
        if (!(inst->dyn.sw[k] < SB_UNDETERMINED * inst->dyn.filter_tau)) continue;
        double w = 0.0, big = 0.0;
        int row = 0;
        for (int r = 0; r < nc; ++r) {
            const double d = row_weight(inst, r) * inst->dyn.Sf[r * nc + k]; /* undetermined direction E V_k */
            w += y_lam[r] * d;
            if (fabs(d) > big) big = fabs(d), row = r;
        }
        if (!(fabs(w) > 1e-8 * scale * big)) continue;
        sb_log(inst, SB_WARNING, SB_LOG_WARNING,
               "%s: output '%s' at t = %.17g depends on constraint reactions the equations do not determine "
               "here: a singular position, where constraint row '%s' vanishes or becomes dependent on the "
               "others; the value is the bounded filtered one (the reaction along the dependent rows is "
               "damped to zero), not the physical reaction, which needs the motion before and after",
               function, v->name, *inst->state.time, m->constraint_names[row]);
        return SB_WARNING;
    }
    return SB_OK;
}

/* The energy of the constraint errors: E_v = v^T S~ v / 2 of the velocity error v = D dq - beta and
   E_p = beta_b^2 Phi^T S~ Phi / 2 of the position error (Baumgarte's spring), S~ = E V diag(s / (s^2 +
   tau^2)) V^T E the filtered inverse of D M^-1 D^T (SB_FACT_FILTER): the least kinetic energy of a
   velocity with that error, and what Baumgarte's terms exchange correcting the errors.  A state whose
   motion is not much more than that (a mechanism at rest: all its kinetic energy comes from the
   corrections) gives the branch guard no motion to judge.  inst->dyn.A is free in this mode. */
static double drift_energy(SbInstance *inst, const double *dq)
{
    const int n = inst->m->nq, nc = inst->m->nc, nh = inst->m->nh;
    double *e = inst->dyn.A, *v = inst->dyn.A + nc;
    for (int r = 0; r < nc; ++r) {
        e[r] = row_weight(inst, r);
        double w = -inst->dyn.beta[r];
        for (int j = 0; j < n; ++j) w += inst->dyn.D[r * n + j] * dq[j];
        v[r] = w;
    }
    const double tau = inst->dyn.filter_tau, bb = inst->state.set[SB_SET_BETA];
    double ev = 0.0, ep = 0.0;
    for (int k = 0; k < nc; ++k) {
        double cv = 0.0, cp = 0.0;
        for (int r = 0; r < nc; ++r) {
            cv += inst->dyn.Sf[r * nc + k] * e[r] * v[r];
            if (r < nh) cp += inst->dyn.Sf[r * nc + k] * e[r] * inst->dyn.Phi[r];
        }
        const double sk = inst->dyn.sw[k], f = sk > 0.0 ? sk / (sk * sk + tau * tau) : 0.0;
        ev += 0.5 * f * cv * cv;
        ep += 0.5 * f * cp * cp;
    }
    return ev + bb * bb * ep;
}

/* Branch guard (Model Exchange): at a singular position the branches of the assembly cross, and a
   state whose constraint drift is as large as their separation near the crossing continues on
   either.  The host owns the integrator and its tolerance, so the FMU cannot keep the drift below
   that separation; it detects the change instead, by the power balance.  On the motion the
   constraint forces do no work beyond that of prescribed motions: their power through the
   velocity error, P = lam^T (D dq - beta), is of the order of the drift.  A branch change needs the
   multipliers to turn the velocity within the short passage, and they then do work: the kinetic
   energy changes by a share of itself (a parallelogram linkage turning onto the anti-parallelogram
   branch loses 1.2 % of it).  While the multipliers are filtered (a singular position) the guard
   sums the work P dt over the times of the evaluations the host asks for, in increasing order
   (trial points of a rejected step count as well: P is continuous in the state), and fires when
   |W| > SB_BRANCH_WORK (T + T_f), T = dq^T M dq / 2, T_f = delta^T M^-1 delta / (2 w^2) the kinetic
   energy the applied forces give within a Baumgarte time 1 / w, w = max(alpha, beta) (a mechanism
   held at rest by loads), while the energy of the constraint errors (drift_energy) is below
   SB_BRANCH_RESOLVED of T + T_f: a mechanism at rest next to a singular position gets all its kinetic
   energy from the Baumgarte corrections, there is no motion to judge.  Passages on the branch at loose
   tolerances do 1e-5 to 1e-4 of T; branch changes reach 1e-3 of it before the velocities have jumped,
   with constraint errors of energy below 3e-3 of it.  The sum restarts with each passage.  Once
   it fires, the state flag SB_FLAG_BRANCH_LOST makes every evaluation an Error until the host
   restores an earlier FMU state or resets: the run stops instead of continuing on another branch. */
SbStatus sb_branch_guard(SbInstance *inst, SbStatus s)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc;
    const double t = *inst->state.time;
    if (inst->state.flags & SB_FLAG_BRANCH_LOST)
        return sb_problem(inst, SB_ERROR,
                          "the motion changed its assembly branch at a singular position earlier in this run (see the "
                          "first message); restore an FMU state from before it or reset");
    if (inst->interface != SB_ME || nc == 0) return s;
    double *kept = inst->state.kept;
    if (!isnan(kept[SB_KEPT_ASKED]) && inst->state.mode == SB_MODE_CONTINUOUS && t != kept[SB_KEPT_ASKED])
        return sb_branch_not_restored(inst, t);
    if (s != SB_OK) return s;
    sb_branch_mark(inst);
    const double *dq = inst->state.x + n, *lam = inst->cache.lam, *M = inst->dyn.M;
    double *a = inst->dyn.stmp; /* free after the solve */
    double T = 0.0, P = 0.0, Tf = 0.0;
    for (int i = 0; i < n; ++i) {
        double v = 0.0;
        for (int j = 0; j < n; ++j) v += M[i * n + j] * dq[j];
        T += 0.5 * dq[i] * v;
        a[i] = inst->dyn.delta[i];
    }
    /* the power of the constraint forces that move the mechanism, (delta - M ddq)^T dq - lam^T beta:
       lam^T (D dq - beta) where the multipliers carry them, and also next to a singular instant, where the
       accelerations are those of the motion (sb_passage.c) and the filtered multipliers are not theirs */
    const double *ddq = inst->cache.ddq;
    for (int i = 0; i < n; ++i) {
        double v = inst->dyn.delta[i];
        for (int j = 0; j < n; ++j) v -= M[i * n + j] * ddq[j];
        P += v * dq[i];
    }
    for (int r = 0; r < nc; ++r) P -= lam[r] * inst->dyn.beta[r];
    /* the work of a step (sb_branch_step): the power of the bilateral constraint forces alone, lam^T (D dq - beta)
       (contacts and friction do work on the motion) */
    double Pc = 0.0;
    for (int r = 0; r < nc; ++r) {
        double v = -inst->dyn.beta[r];
        for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * dq[j];
        Pc += lam[r] * v;
    }
    if (t > kept[SB_KEPT_STEP_T]) kept[SB_KEPT_STEP_WORK] += Pc * (t - kept[SB_KEPT_STEP_T]);
    if (!(t <= kept[SB_KEPT_STEP_T])) kept[SB_KEPT_STEP_T] = t;
    if (inst->dyn.fact != SB_FACT_FILTER) { /* no singular position: the next passage starts afresh */
        kept[SB_KEPT_WORK] = 0.0;
        kept[SB_KEPT_WORK_T] = NAN;
        return s;
    }
    if (!(t > kept[SB_KEPT_WORK_T])) { /* the first evaluation of a passage, or one at an earlier time */
        if (isnan(kept[SB_KEPT_WORK_T])) kept[SB_KEPT_WORK_T] = t;
        return s;
    }
    kept[SB_KEPT_WORK] += P * (t - kept[SB_KEPT_WORK_T]);
    kept[SB_KEPT_WORK_T] = t;
    const double w = fmax(fmax(inst->state.set[SB_SET_ALPHA], inst->state.set[SB_SET_BETA]), SB_BRANCH_RATE);
    sb_ldlt_solve(n, inst->dyn.Mf, a); /* M^-1 delta (M + rho D^T D for massless coordinates: less) */
    for (int i = 0; i < n; ++i) Tf += 0.5 * a[i] * inst->dyn.delta[i];
    Tf /= w * w;
    const double scale = T + fabs(Tf);
    if (!(fabs(kept[SB_KEPT_WORK]) > SB_BRANCH_WORK * scale) || !(drift_energy(inst, dq) < SB_BRANCH_RESOLVED * scale))
        return s;
    /* the row of the dependent direction: the mode with the smallest eigenvalue of E S E */
    int k = 0, row = 0;
    for (int j = 1; j < nc; ++j)
        if (inst->dyn.sw[j] < inst->dyn.sw[k]) k = j;
    double big = -1.0;
    for (int r = 0; r < nc; ++r) {
        const double d = fabs(row_weight(inst, r) * inst->dyn.Sf[r * nc + k]);
        if (d > big) big = d, row = r;
    }
    const double work = kept[SB_KEPT_WORK];
    kept[SB_KEPT_WORK] = 0.0; /* (a state restored from before has its own) */
    kept[SB_KEPT_WORK_T] = NAN;
    if (!isnan(kept[SB_KEPT_T]) && kept[SB_KEPT_FIRED] == 0.0) { /* the next accepted step asks for an event */
        kept[SB_KEPT_FIRED] = 1.0;
        kept[SB_KEPT_ROW] = row;
        sb_log(inst, SB_OK, SB_LOG_EVENTS,
               "t = %.17g: the motion is leaving its assembly branch at a singular position, where constraint row "
               "'%s' vanishes or becomes dependent on the others: the constraint forces have done work %.3g there "
               "(kinetic energy %.3g, the model's units); the next completed integrator step asks for an event to "
               "put the state back onto the branch of the state kept at t = %.17g",
               t, m->constraint_names[row], work, T, kept[SB_KEPT_T]);
        return s;
    }
    if (kept[SB_KEPT_FIRED] != 0.0) return s;
    inst->state.flags |= SB_FLAG_BRANCH_LOST;
    sb_log(inst, SB_ERROR, SB_LOG_ERROR,
           "t = %.17g: the motion is leaving its assembly branch at a singular position, where constraint row '%s' "
           "vanishes or becomes dependent on the others: the constraint forces have done work %.3g there "
           "(kinetic energy %.3g, the model's units), which they do not on the motion; the constraint drift of the integration is as "
           "large as the distance between the branches.  Integrate with a tighter tolerance; the run stops here "
           "instead of continuing on another branch",
           t, m->constraint_names[row], work, T);
    return sb_problem(inst, SB_ERROR,
                      "the motion left its assembly branch at the singular position of constraint row '%s' (constraint "
                      "forces doing work; integrate with a tighter tolerance)",
                      m->constraint_names[row]);
}
