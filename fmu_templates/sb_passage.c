/*
 * sb_passage.c -- the accelerations of a mechanism passing a singular position, in the symbody FMU
 * runtime (the Model Exchange derivatives and every stage of the Co-Simulation solvers).
 *
 * On the way through a singular position (a slider-crank at its dead point, the N-four-bar of the
 * IFToMM benchmark A02 lying flat) constraint rows vanish or become dependent.  The branch the
 * mechanism moves on needs forces along them that grow like the inverse of the distance to the
 * singular instant while their lever arms shrink as much: the accelerations stay finite and smooth,
 * the multipliers do not.  The filtered multipliers of sb_singular.c are bounded, so they cannot
 * carry these forces: within 1e-3 rad of the flat position of the A02 mechanism they lose a
 * generalized force of 1.3 rad/s^2, and 1e-4 of its kinetic energy at every passage.  Here:
 *   - next to a singular position the accelerations are the exact solution at the state, by LU of the
 *     augmented matrix (accurate where the multipliers grow without bound; the range-space solve that
 *     the filter needs squares the condition number and loses them to rounding);
 *   - within a zone around the singular instant, where the exact solution amplifies the drift of the
 *     state and at the instant itself only the limit along the motion is right, they are bridged:
 *     interpolated between the exact accelerations at states predicted before and after the instant
 *     along the motion, put on the constraints there, where the rows are regular again;
 *   - the adaptive solvers step towards the instant no faster than the time to it (the motions off the
 *     constraints that the exact solution carries there are as fast as the inverse of that time).
 * The multipliers and the factorization the callers see stay the filtered ones at the state (bounded
 * reactions with their warnings, the branch guard of Model Exchange).
 */
#include <math.h>
#include <string.h>

#include "sb_internal.h"
#include "sb_linalg.h"
#include "sb_runtime.h"

#define SB_PASSAGE_ZONE 1.5e-3    /* zone of a singular instant: the time the coordinates take to move this far
                                     (rad or m) */
#define SB_PASSAGE_REACH 8.0      /* the bridge predicts states this many zones from the state, and twice */
#define SB_PASSAGE_CANDIDATE 0.1  /* modes whose relative singular value is below this may be vanishing */
#define SB_PASSAGE_NEWTON 8       /* Newton iterations that put a predicted state on the constraints */
#define SB_PASSAGE_STEP 2.0       /* an adaptive step no longer than this many times the time to the instant */
#define SB_PASSAGE_DRIFT 0.1      /* a state whose drift blurs the branches beyond this part of the distance to the
                                     instant coasts */

/* c = the correction of least kinetic energy with J c = r: [M J^T; J 0] [c; mu] = [0; r], M in
   inst->dyn.M, J (rows x nq) and r (rows), by complete-pivoting LU (accurate where rows are nearly
   dependent: no normal equations).  The augmented matrix goes to inst->dyn.A.  Returns 0 when the
   correction is not finite. */
static int least_energy_correction(SbInstance *inst, int rows, const double *J, const double *r, double *c)
{
    const int n = inst->m->nq, na = n + rows;
    double *A = inst->dyn.A, *b = inst->dyn.rhs, *z = inst->dyn.sol;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) A[i * na + j] = inst->dyn.M[i * n + j];
        for (int k = 0; k < rows; ++k) A[i * na + n + k] = J[k * n + i];
        b[i] = 0.0;
    }
    for (int k = 0; k < rows; ++k) {
        for (int j = 0; j < n; ++j) A[(n + k) * na + j] = J[k * n + j];
        for (int l = 0; l < rows; ++l) A[(n + k) * na + n + l] = 0.0;
        b[n + k] = r[k];
    }
    const int rank = sb_lu_factor(na, A, inst->dyn.prow, inst->dyn.pcol, 1e-13);
    sb_lu_solve(na, A, inst->dyn.prow, inst->dyn.pcol, rank, b, z);
    memcpy(c, z, (size_t)n * sizeof(double));
    return sb_all_finite(n, c);
}

/* A predicted state xs put on the constraints at t: positions by Newton with least-energy corrections
   until they stall at the rounding of Phi (next to a singular position |Phi| sees the errors along the
   rows that vanish only times the distance to the instant: however small |Phi| is, the positions are
   corrected, so that the accelerations there do not follow a drift the state came with), each
   correction at most leap (a larger one would lead to another assembly); then velocities consistent,
   D dq = beta, by the least-energy correction.  Returns 0 when that fails. */
static int put_on_constraints(SbInstance *inst, double t, double *xs, double leap)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, nh = m->nh;
    double *J = inst->proj.Jrows, *r = inst->proj.rrows, *c = inst->proj.dx;
    SbPoint pt = sb_point(inst, t, xs, NULL, NULL);
    sb_M_delta(&pt, inst->dyn.M, inst->dyn.delta);
    const double size = 1.0 + sb_norm_inf(n, xs);
    double err = 0.0, last = INFINITY;
    for (int it = 0; it <= SB_PASSAGE_NEWTON && nh > 0; ++it) {
        sb_Phi_Phi_q(&pt, J, r);
        err = sb_norm_inf(nh, r);
        if (it == SB_PASSAGE_NEWTON || err == 0.0) break;
        for (int k = 0; k < nh; ++k) r[k] = -r[k];
        if (!least_energy_correction(inst, nh, J, r, c)) return 0;
        const double step = sb_norm_inf(n, c);
        if (!(step <= leap)) return 0;
        if (!(step < 0.5 * last)) break; /* stalled at the rounding of Phi */
        for (int i = 0; i < n; ++i) xs[i] += c[i];
        last = step;
    }
    if (!(err <= 1e-12 * size)) return 0;
    sb_D_beta(&pt, J, r);
    for (int k = 0; k < nc; ++k)
        for (int j = 0; j < n; ++j) r[k] -= J[k * n + j] * xs[n + j];
    if (!least_energy_correction(inst, nc, J, r, c)) return 0;
    for (int i = 0; i < n; ++i) xs[n + i] += c[i];
    return 1;
}

/* How long before or after the singular instant the state is, and the zone of the instant, both in
   time, from the filtered factorization at x (E D M^-1 D^T E = V diag(s) V^T, E the rows scaled by
   the largest norms they have had).  A vanishing mode k has a singular value sqrt(s_k) that changes at
   the rate |V_k^T E D'|_{M^-1} along the motion (D' = dD/dt by a central difference along dq): the instant
   is sqrt(s_k) / |V_k^T E D'|_{M^-1} away, the same for every mode that vanishes there, however stiff and
   however its rows are scaled.  The zone is the time the fastest coordinate takes to move SB_PASSAGE_ZONE.
   Modes above SB_PASSAGE_CANDIDATE (relative) and modes that do not change along the motion (rows that
   stay dependent) do not count; both are INFINITY when no mode vanishes or nothing moves. */
static void instant_time(SbInstance *inst, double t, const double *x, double *time, double *zone)
{
    const int n = inst->m->nq, nc = inst->m->nc;
    const double *q = x, *dq = x + n;
    double *xs = inst->dyn.bridge, *c = inst->dyn.bridge + 2 * n, *Dd = inst->dyn.bridge + 5 * n;
    double *Dm = inst->proj.Jrows, *r = inst->proj.rrows;
    const double qn = sb_norm_inf(n, q), vn = sb_norm_inf(n, dq);
    double smax = 0.0;
    for (int k = 0; k < nc; ++k) smax = fmax(smax, inst->dyn.sw[k]);
    *time = *zone = INFINITY;
    if (!(vn > 0.0) || !(smax > 0.0)) return;
    const double h = 1e-6 * (1.0 + qn) / vn;
    SbPoint pt = sb_point(inst, t, xs, NULL, NULL);
    memcpy(xs + n, dq, (size_t)n * sizeof(double));
    for (int i = 0; i < n; ++i) xs[i] = q[i] + h * dq[i];
    sb_D_beta(&pt, Dd, r);
    for (int i = 0; i < n; ++i) xs[i] = q[i] - h * dq[i];
    sb_D_beta(&pt, Dm, r);
    for (int k = 0; k < nc * n; ++k) Dd[k] = (Dd[k] - Dm[k]) / (2.0 * h);
    for (int k = 0; k < nc; ++k) {
        const double s = fmax(inst->dyn.sw[k], 0.0);
        if (!(s < SB_PASSAGE_CANDIDATE * SB_PASSAGE_CANDIDATE * smax)) continue;
        for (int j = 0; j < n; ++j) c[j] = 0.0;
        for (int row = 0; row < nc; ++row) {
            double v = 0.0; /* (E V_k)_row */
            for (int j = 0; j < n; ++j) v += inst->dyn.D[row * n + j] * inst->dyn.D[row * n + j];
            v = inst->dyn.Sf[row * nc + k] / sqrt(fmax(fmax(v, inst->state.row_ref[row]), 1e-300));
            for (int j = 0; j < n; ++j) c[j] += v * Dd[row * n + j];
        }
        memcpy(c + n, c, (size_t)n * sizeof(double));
        sb_ldlt_solve(n, inst->dyn.Mf, c + n);
        double rate2 = 0.0;
        for (int j = 0; j < n; ++j) rate2 += c[j] * c[n + j];
        if (!(rate2 > 1e-12 * smax * vn * vn)) continue;
        *time = fmin(*time, sqrt(s / rate2));
    }
    if (isfinite(*time)) *zone = SB_PASSAGE_ZONE / vn;
}

/* The weight of the bridge at time d from the instant: 1 within the zone, 0 beyond twice it, a C1 step
   between. */
static double bridge_weight(double d, double zone)
{
    const double r = d / zone - 1.0;
    if (r <= 0.0) return 1.0;
    if (r >= 1.0) return 0.0;
    return 1.0 - r * r * (3.0 - 2.0 * r);
}

/* The accelerations a at the state x bridged over the singular instant with weight w: the exact
   accelerations at the states predicted along the motion a time e before and after, x +- e dq with the
   velocities dq, put on the constraints, for e = eps and 2 eps; Richardson's combination
   (4 mean(eps) - mean(2 eps)) / 3 of their means differs from the accelerations at x by eps^4 / 6 of their
   fourth derivative (the offsets of the predictions, second order in e, cancel with the rest).
   Returns 0 when the velocity does not carry the state across the zone within eps (a mechanism at
   rest at the singular position: acc, the size of the accelerations, changes it by half within 2 eps)
   or a prediction cannot be put on the constraints. */
static int bridge(SbInstance *inst, double t, const double *x, double eps, double w, double acc, double *a)
{
    static const double radius[4] = {-1.0, 1.0, -2.0, 2.0}, weight[4] = {2.0 / 3.0, 2.0 / 3.0, -1.0 / 6.0, -1.0 / 6.0};
    const int n = inst->m->nq;
    double *xs = inst->dyn.bridge, *mean = inst->dyn.bridge + 2 * n, *as = inst->dyn.bridge + 3 * n;
    const double v = sb_norm_inf(n, x + n);
    if (!(2.0 * eps * acc < v)) return 0;
    for (int i = 0; i < n; ++i) mean[i] = 0.0;
    for (int side = 0; side < 4; ++side) {
        const double e = radius[side] * eps;
        for (int i = 0; i < n; ++i) {
            xs[i] = x[i] + e * x[n + i];
            xs[n + i] = x[n + i];
        }
        /* the assemblies of two branches are about |e dq| apart there */
        if (!put_on_constraints(inst, t + e, xs, 0.1 * fabs(e) * v) ||
            sb_accelerations(inst, t + e, xs, as, NULL) != SB_OK)
            return 0;
        for (int i = 0; i < n; ++i) mean[i] += weight[side] * as[i];
    }
    for (int i = 0; i < n; ++i) a[i] = (1.0 - w) * a[i] + w * mean[i];
    sb_log(inst, SB_OK, SB_LOG_SOLVER, "t = %.17g: accelerations bridged over a singular instant (eps = %g s)", t,
           eps);
    return 1;
}

/* How far from the assembly the state's drift puts it, in coordinate units, judged from the rows at the
   state (D, beta, Phi of the last evaluation) scaled by the largest norms they have had: sqrt |E Phi|,
   where the branches of a singular position that the drift has turned into one curve come that close
   (Phi along a vanishing row is about the product of the distances to either branch), and
   |E (D dq - beta)| / |dq|, how far the velocity error carries the state off the branch while it moves
   a unit along it. */
static double drift_distance(const SbInstance *inst, const double *x)
{
    const int n = inst->m->nq, nc = inst->m->nc, nh = inst->m->nh;
    const double *dq = x + n;
    double p = 0.0, v = 0.0;
    for (int r = 0; r < nc; ++r) {
        double d2 = 0.0, vr = -inst->dyn.beta[r];
        for (int j = 0; j < n; ++j) {
            d2 += inst->dyn.D[r * n + j] * inst->dyn.D[r * n + j];
            vr += inst->dyn.D[r * n + j] * dq[j];
        }
        const double e = 1.0 / sqrt(fmax(fmax(d2, inst->state.row_ref[r]), 1e-300));
        if (r < nh) p = fmax(p, e * fabs(inst->dyn.Phi[r]));
        v = fmax(v, e * fabs(vr));
    }
    const double speed = sb_norm_inf(n, dq);
    return sqrt(p) + (speed > 0.0 ? v / speed : INFINITY);
}

SbStatus sb_singular_accelerations(SbInstance *inst, double t, const double *x)
{
    const int n = inst->m->nq;
    double *a = inst->dyn.bridge + 4 * n;
    double time, zone;
    instant_time(inst, t, x, &time, &zone);
    /* a drift as large as a part of the distance to the instant blurs the branches there (a loose tolerance
       of the host): the filtered solution, which lets the mechanism coast through the singular position on
       its momentum */
    if (!(drift_distance(inst, x) < SB_PASSAGE_DRIFT * fmax(time * sb_norm_inf(n, x + n), SB_PASSAGE_ZONE)))
        return SB_OK;
    const double w = bridge_weight(time, zone);
    inst->dyn.step_cap = fmin(inst->dyn.step_cap, SB_PASSAGE_STEP * fmax(time, zone));
    char why[sizeof inst->problem];
    memcpy(why, inst->problem, sizeof why);
    /* the size of the accelerations from the filtered solution (bounded where the exact one is not) */
    const double acc = sb_norm_inf(n, inst->dyn.sol);
    inst->dyn.passage = SB_PASSAGE_EXACT;
    int ok = sb_accelerations(inst, t, x, a, NULL) == SB_OK;
    if (w == 1.0) ok = 1; /* deep in the zone the bridge replaces it */
    ok = ok && (w == 0.0 || bridge(inst, t, x, SB_PASSAGE_REACH * zone, w, acc, a));
    inst->dyn.passage = SB_PASSAGE_RESTORE; /* the filtered factorization at the state, for the callers */
    SbStatus s = sb_accelerations(inst, t, x, NULL, NULL);
    inst->dyn.passage = SB_PASSAGE_NONE;
    memcpy(inst->problem, why, sizeof why);
    if (s == SB_OK && ok) memcpy(inst->dyn.sol, a, (size_t)n * sizeof(double));
    return s;
}
