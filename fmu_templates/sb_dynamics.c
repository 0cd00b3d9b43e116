/*
 * sb_dynamics.c -- the dynamics of a symbody FMU: accelerations and
 * multipliers from [M D^T; D 0][ddq; lam] = [delta; gamma] with Baumgarte's
 * terms, by the factorization that fits the state (L D L^T of M, the
 * range-space method, complete-pivoting LU, filtered multipliers at singular
 * positions in sb_singular.c), and solves with that factorization.
 */
#include <string.h>

#include "sb_events.h"
#include "sb_internal.h"
#include "sb_linalg.h"
#include "sb_ltdl.h"

#define SB_RANK_RTOL 1e-13     /* relative pivot threshold of the augmented matrix */
#define SB_FILTER_SWITCH 1e-4  /* D M^-1 D^T with a pivot below this (relative): filtered multipliers */
#define SB_VANISHING_ROW 1e-4  /* ... also when a row's squared norm falls below this part of its largest */

int sb_first_nonfinite(int n, const double *v)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i])) return i;
    return -1;
}

/* Discard naming the first non-finite entry of the blocks sb_accelerations evaluated, or SB_OK. */
static SbStatus nonfinite_blocks(SbInstance *inst)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, nh = m->nh;
    int bad;
    if ((bad = sb_first_nonfinite(n * n, inst->dyn.M)) >= 0)
        return sb_problem(inst, SB_DISCARD, "mass matrix entry M(%s, %s) is not finite", m->coordinate_names[bad / n],
                       m->coordinate_names[bad % n]);
    if ((bad = sb_first_nonfinite(n, inst->dyn.delta)) >= 0)
        return sb_problem(inst, SB_DISCARD, "generalized force delta(%s) is not finite", m->coordinate_names[bad]);
    if (nc == 0) return SB_OK;
    if ((bad = sb_first_nonfinite(nc * n, inst->dyn.D)) >= 0)
        return sb_problem(inst, SB_DISCARD, "constraint Jacobian row '%s' is not finite", m->constraint_names[bad / n]);
    if ((bad = sb_first_nonfinite(nc, inst->dyn.gamma)) >= 0 || (bad = sb_first_nonfinite(nc, inst->dyn.beta)) >= 0 ||
        (bad = sb_first_nonfinite(nh, inst->dyn.Phi)) >= 0)
        return sb_problem(inst, SB_DISCARD, "constraint '%s' is not finite", m->constraint_names[bad]);
    return SB_OK;
}

/* Solve A z = b with the factorization left by sb_accelerations (b and z may alias):
   SB_FACT_LDLT: A = M = L D L^T (no constraints);
   SB_FACT_SCHUR: range-space method, X = M^-1 D^T, S = D X = L D L^T:
       y = M^-1 b1, lam = S^-1 (D y - b2), z1 = y - X lam, z2 = lam;
       when M is singular (coordinates without inertia, e.g. contact parameters) the same with
       M + rho D^T D in place of M and b1 + rho D^T b2 in place of b1 (augmented Lagrangian):
       positive definite whenever the motions the constraints allow all have inertia;
   SB_FACT_LU: complete-pivoting LU of [M D^T; D 0] (singular M or redundant constraints);
   SB_FACT_FILTER: as SB_FACT_SCHUR with S = V diag(s) V^T and S^-1 replaced by V diag(s / (s^2 + tau^2)) V^T,
       tau = 1e-6 max(s) (sb_singular.c): the exact multipliers where s >> tau, bounded ones where rows of D
       become dependent (a singular position) instead of growing like 1 / s (Tikhonov's regularization). */
void sb_solve_factored(SbInstance *inst, const double *b, double *z)
{
    const int n = inst->m->nq, nc = inst->m->nc, na = inst->dyn.na;
    switch (inst->dyn.fact) {
    case SB_FACT_LDLT:
        if (z != b) memcpy(z, b, (size_t)na * sizeof(double));
        sb_mass_solve(n, inst->dyn.Mf, z);
        break;
    case SB_FACT_SCHUR:
    case SB_FACT_FILTER: {
        double *y = inst->dyn.stmp, *lam = inst->dyn.stmp + n;
        memcpy(y, b, (size_t)n * sizeof(double));
        if (inst->dyn.rho != 0.0) /* [M + rho D^T D, D^T; D, 0] z = [b1 + rho D^T b2; b2]: the same solution */
            for (int r = 0; r < nc; ++r)
                for (int j = 0; j < n; ++j) y[j] += inst->dyn.rho * inst->dyn.D[r * n + j] * b[n + r];
        sb_ldlt_solve(n, inst->dyn.Mf, y);
        for (int r = 0; r < nc; ++r) {
            double v = -b[n + r];
            for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * y[j];
            lam[r] = v;
        }
        if (inst->dyn.fact == SB_FACT_SCHUR) sb_ldlt_solve(nc, inst->dyn.Sf, lam);
        else sb_filter_multipliers(inst, lam);
        for (int i = 0; i < n; ++i) {
            double v = y[i];
            for (int r = 0; r < nc; ++r) v -= inst->dyn.X[r * n + i] * lam[r];
            z[i] = v;
        }
        memcpy(z + n, lam, (size_t)nc * sizeof(double));
        break;
    }
    default: sb_lu_solve(na, inst->dyn.A, inst->dyn.prow, inst->dyn.pcol, inst->dyn.rank, b, z); break;
    }
}

/* Range-space factorization of [M D^T; D 0].  Returns 1 on success, 0 if M is
   not positive definite and -1 if D M^-1 D^T is not (redundant constraints). */
/* Mf = M + rho D^T D with rho = weight max|M_ii| / max_j |D[:, j]|^2 (both terms weigh alike
   for weight 1).  Returns rho, or 0 when D vanishes. */
static double augment_mass(SbInstance *inst, double weight)
{
    const int n = inst->m->nq, nc = inst->m->nc;
    double mmax = 0.0, dmax2 = 0.0;
    memcpy(inst->dyn.Mf, inst->dyn.M, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; ++i) mmax = fmax(mmax, fabs(inst->dyn.M[i * n + i]));
    for (int j = 0; j < n; ++j) {
        double s2 = 0.0;
        for (int r = 0; r < nc; ++r) s2 += inst->dyn.D[r * n + j] * inst->dyn.D[r * n + j];
        dmax2 = fmax(dmax2, s2);
    }
    if (!(dmax2 > 0.0)) return 0.0;
    const double rho = weight * (mmax > 0.0 ? mmax : 1.0) / dmax2;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s2 = 0.0;
            for (int r = 0; r < nc; ++r) s2 += inst->dyn.D[r * n + i] * inst->dyn.D[r * n + j];
            inst->dyn.Mf[i * n + j] += rho * s2;
        }
    return rho;
}

static int factor_schur(SbInstance *inst, int augmented)
{
    const int n = inst->m->nq, nc = inst->m->nc;
    memcpy(inst->dyn.Mf, inst->dyn.M, (size_t)n * n * sizeof(double));
    inst->dyn.rho = 0.0;
    if (augmented && !((inst->dyn.rho = augment_mass(inst, 1.0)) > 0.0)) return 0;
    if (sb_ldlt(n, inst->dyn.Mf)) {
        inst->dyn.rho = 0.0;
        return 0;
    }
    for (int r = 0; r < nc; ++r) { /* X[r] = M^-1 D[r]^T */
        memcpy(inst->dyn.X + (size_t)r * n, inst->dyn.D + (size_t)r * n, (size_t)n * sizeof(double));
        sb_ldlt_solve(n, inst->dyn.Mf, inst->dyn.X + (size_t)r * n);
    }
    for (int r = 0; r < nc; ++r)
        for (int c = r; c < nc; ++c) {
            double v = 0.0;
            for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * inst->dyn.X[c * n + j];
            inst->dyn.Sf[r * nc + c] = inst->dyn.Sf[c * nc + r] = v;
        }
    /* a nearly singular S (redundant constraints) goes to the rank-revealing LU */
    double dmax = 0.0;
    for (int r = 0; r < nc; ++r) dmax = fmax(dmax, fabs(inst->dyn.Sf[r * nc + r]));
    inst->dyn.least_pivot = 0.0;
    if (sb_ldlt(nc, inst->dyn.Sf)) return -1;
    double least = INFINITY;
    for (int r = 0; r < nc; ++r) least = fmin(least, 1.0 / inst->dyn.Sf[r * nc + r]);
    inst->dyn.least_pivot = least / dmax;
    return inst->dyn.least_pivot > SB_FILTER_SWITCH ? 1 : -1;
}

/* A mass matrix that is not positive semi-definite (a negative mass or moment
   of inertia) gives accelerations without physical meaning: name the coordinate. */
static SbStatus check_semidefinite(SbInstance *inst)
{
    const int n = inst->m->nq;
    memcpy(inst->dyn.Mf, inst->dyn.M, (size_t)n * n * sizeof(double));
    int bad = sb_semidefinite(n, inst->dyn.Mf, 1e-9);
    if (bad < 0) return SB_OK;
    return sb_problem(inst, SB_DISCARD,
                   "the mass matrix is not positive semi-definite at coordinate '%s': a mass or moment of inertia "
                   "is negative",
                   inst->m->coordinate_names[bad]);
}

static void factor_lu(SbInstance *inst)
{
    const int n = inst->m->nq, nc = inst->m->nc, na = inst->dyn.na;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) inst->dyn.A[i * na + j] = inst->dyn.M[i * n + j];
        for (int r = 0; r < nc; ++r) inst->dyn.A[i * na + n + r] = inst->dyn.D[r * n + i];
    }
    for (int r = 0; r < nc; ++r) {
        for (int j = 0; j < n; ++j) inst->dyn.A[(n + r) * na + j] = inst->dyn.D[r * n + j];
        for (int c = 0; c < nc; ++c) inst->dyn.A[(n + r) * na + n + c] = 0.0;
    }
    inst->dyn.fact = SB_FACT_LU;
    inst->dyn.rank = sb_lu_factor(na, inst->dyn.A, inst->dyn.prow, inst->dyn.pcol, SB_RANK_RTOL);
}

/* The end of sb_accelerations: a Discard naming the first non-finite acceleration or multiplier
   (or the block entry it comes from), else ddq and lam (either may be NULL) from the solution. */
#if defined(__GNUC__)
__attribute__((always_inline)) /* on the hot path of every evaluation */
#endif
static inline SbStatus finish_accelerations(SbInstance *inst, const SbPoint *pt, int blocks_kept, double *ddq,
                                           double *lam)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, na = inst->dyn.na;
    if (SB_CONTACTS(m) > 0) { /* the forces of the closed unilateral contacts and of friction */
        SbStatus s = sb_contact_accelerations(inst, pt->t, pt->q);
        if (s != SB_OK) return s;
    }
    const double *sol = inst->dyn.sol;
    /* a NaN or an infinity among the entries makes their sum non-finite (a sum of finite entries
       that overflows only costs the scan that then finds none) */
    double sum = 0.0;
    for (int i = 0; i < na; ++i) sum += sol[i];
    int bad = isfinite(sum) ? -1 : sb_first_nonfinite(na, sol);
    if (bad >= 0) {
        if (!blocks_kept) /* the hot path did not keep M and delta: the same point gives the same values */
            sb_M_delta(pt, inst->dyn.M, inst->dyn.delta);
        SbStatus s = nonfinite_blocks(inst);
        if (s != SB_OK) return s;
        return sb_problem(inst, SB_DISCARD, "%s '%s' is not finite", bad < n ? "acceleration of" : "multiplier of",
                       bad < n ? m->coordinate_names[bad] : m->constraint_names[bad - n]);
    }
    if (ddq)
        for (int i = 0; i < n; ++i) ddq[i] = sol[i];
    if (lam)
        for (int r = 0; r < nc; ++r) lam[r] = sol[n + r];
    if (lam && SB_CONTACTS(m)) sb_contact_forces(inst, lam + nc);
    return SB_OK;
}

SbStatus sb_accelerations(SbInstance *inst, double t, const double *x, double *ddq, double *lam)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, nh = m->nh, na = inst->dyn.na;
    const double *dq = x + n;
    SbPoint pt = sb_point(inst, t, x, NULL, NULL);
    int schur = 0; /* schur < 0: Mf and X hold a factorization for filtered multipliers */

    /* Non-finite block entries are not scanned here (that costs as much as a small model's
       evaluation): they propagate into the factorization or the solution, and every failure path
       below calls nonfinite_blocks() first to name the entry at fault. */
    if (nc == 0) {
        /* trees: ddq from model.c without M when only the accelerations are asked for (sb_ltdl.c) */
        if (ddq && sb_direct_accelerations(inst, &pt, ddq)) return SB_OK;
        /* the hot path of unconstrained models: M is evaluated into Mf and factored in place,
           delta into sol and solved in place; M and delta themselves are only needed when the
           factorization fails, and are then evaluated again (same point, same values) */
        sb_M_delta(&pt, inst->dyn.Mf, inst->dyn.sol);
        inst->dyn.fact = SB_FACT_LDLT;
        inst->dyn.rank = n;
        int k = sb_mass_factor(n, inst->dyn.Mf); /* along the tree where model.c gives one (sb_ltdl.c) */
        if (k == 0) {
            sb_mass_solve(n, inst->dyn.Mf, inst->dyn.sol);
            return finish_accelerations(inst, &pt, 0, ddq, lam);
        }
        { /* not positive definite: singular, indefinite or not finite */
            sb_M_delta(&pt, inst->dyn.M, inst->dyn.delta);
            memcpy(inst->dyn.rhs, inst->dyn.delta, (size_t)n * sizeof(double));
            SbStatus s = nonfinite_blocks(inst);
            if (s != SB_OK) return s;
            s = check_semidefinite(inst);
            if (s != SB_OK) return s;
            factor_lu(inst);
            if (inst->dyn.rank < n)
                return sb_problem(inst, SB_DISCARD, "singular mass matrix (rank %d of %d; check coordinate '%s')",
                               inst->dyn.rank, n, m->coordinate_names[k - 1]);
        }
    } else {
        sb_M_delta(&pt, inst->dyn.M, inst->dyn.delta);
        memcpy(inst->dyn.rhs, inst->dyn.delta, (size_t)n * sizeof(double));
        sb_constraints(&pt, inst->dyn.D, inst->dyn.beta, inst->dyn.gamma, inst->dyn.Phi);
        /* rhs = [delta; gamma - 2 alpha (D dq - beta) - beta_b^2 Phi]  (Baumgarte) */
        const double alpha = inst->state.set[SB_SET_ALPHA], bb = inst->state.set[SB_SET_BETA];
        for (int r = 0; r < nc; ++r) {
            double v = -inst->dyn.beta[r];
            for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * dq[j];
            double g = inst->dyn.gamma[r] - 2.0 * alpha * v;
            if (r < nh) g -= bb * bb * inst->dyn.Phi[r];
            inst->dyn.rhs[n + r] = g;
        }
        /* A coordinate without inertia (contact parameters, auxiliary coordinates) has an exact
           zero on the diagonal of M at every state: such models factor M + rho D^T D directly.
           The choice depends on the state only, so a restored FMU state continues bit-identically.
           Semi-definiteness is checked once per parameter set (a negative mass or inertia is a
           parameter's doing; physical inertia is positive semi-definite at every configuration). */
        int massless = 0;
        for (int i = 0; i < n; ++i)
            if (inst->dyn.M[i * n + i] == 0.0) {
                massless = 1;
                break;
            }
        if (massless && !inst->dyn.psd_checked) {
            SbStatus s = nonfinite_blocks(inst);
            if (s != SB_OK) return s;
            s = check_semidefinite(inst);
            if (s != SB_OK) return s;
            inst->dyn.psd_checked = 1;
        }
        /* the exact solution at a consistent state next to a singular position (sb_passage.c): by LU */
        schur = inst->dyn.passage == SB_PASSAGE_EXACT ? -3 : factor_schur(inst, massless);
        /* a row whose norm falls far below the largest it has had vanishes: a singular position */
        int vanishing = 0;
        for (int r = 0; r < nc; ++r) {
            double v = 0.0;
            for (int j = 0; j < n; ++j) v += inst->dyn.D[r * n + j] * inst->dyn.D[r * n + j];
            if (v > inst->state.row_ref[r]) inst->state.row_ref[r] = v;
            if (v < SB_VANISHING_ROW * inst->state.row_ref[r]) vanishing = 1;
        }
        if (schur == 0 && !massless) { /* M is singular here, indefinite or not finite */
            SbStatus s = nonfinite_blocks(inst);
            if (s != SB_OK) return s;
            if (!inst->dyn.psd_checked) {
                s = check_semidefinite(inst);
                if (s != SB_OK) return s;
                inst->dyn.psd_checked = 1;
            }
            schur = factor_schur(inst, 1);
        }
        if (vanishing && schur != 0 && schur != -3) schur = -2; /* straight to the filtered multipliers */
        if (schur > 0) {
            inst->dyn.fact = SB_FACT_SCHUR;
            inst->dyn.rank = na;
        } else if (schur == -2) {
            sb_factor_filter(inst, t);
        } else {
            SbStatus s = nonfinite_blocks(inst);
            if (s != SB_OK) return s;
            factor_lu(inst); /* redundant constraints, or motions without inertia (rank-revealing) */
            /* D M^-1 D^T nearly singular with no row exactly dependent: a singular position */
            if (inst->dyn.rank == na && schur == -1) sb_factor_filter(inst, t);
        }
    }
    sb_solve_factored(inst, inst->dyn.rhs, inst->dyn.sol);
    if (inst->dyn.rank < na) {
        SbStatus s = nonfinite_blocks(inst);
        if (s != SB_OK) return s;
        /* redundant constraints: accept only a consistent system (residual check) */
        double res = 0.0, scale = sb_norm_inf(na, inst->dyn.rhs) + 1.0;
        for (int i = 0; i < n; ++i) {
            double r = -inst->dyn.delta[i];
            for (int j = 0; j < n; ++j) r += inst->dyn.M[i * n + j] * inst->dyn.sol[j];
            for (int c = 0; c < nc; ++c) r += inst->dyn.D[c * n + i] * inst->dyn.sol[n + c];
            if (fabs(r) > res) res = fabs(r);
        }
        for (int c = 0; c < nc; ++c) {
            double r = -inst->dyn.rhs[n + c];
            for (int j = 0; j < n; ++j) r += inst->dyn.D[c * n + j] * inst->dyn.sol[j];
            if (fabs(r) > res) res = fabs(r);
        }
        /* rows dependent only at this instant (a singular position) with a drift the dropped rows
           cannot follow: the augmented Lagrangian continues through it */
        if (!(res <= 1e-8 * scale) && schur == -1) {
            sb_factor_filter(inst, t);
            sb_solve_factored(inst, inst->dyn.rhs, inst->dyn.sol);
        } else if (!(res <= 1e-8 * scale))
            return sb_problem(inst, SB_DISCARD,
                           "singular augmented matrix [M D^T; D 0] (rank %d of %d): the constraints are "
                           "inconsistent or the mass matrix is singular",
                           inst->dyn.rank, na);
        /* the accelerations are unique only if every null vector [v; mu] has v = 0 (redundant
           constraint rows); a v != 0 is a motion allowed by the constraints that has no inertia */
        for (int k = 0; k < na - inst->dyn.rank; ++k) {
            double *z = inst->dyn.stmp;
            sb_lu_null_vector(na, inst->dyn.A, inst->dyn.pcol, inst->dyn.rank, k, z);
            int worst = 0;
            for (int i = 1; i < n; ++i)
                if (fabs(z[i]) > fabs(z[worst])) worst = i;
            if (!(fabs(z[worst]) <= 1e-6 * sb_norm_inf(na, z)))
                return sb_problem(inst, SB_DISCARD,
                               "singular mass matrix on the motions the constraints allow (rank %d of %d of "
                               "[M D^T; D 0]): the motion of coordinate '%s' has no inertia",
                               inst->dyn.rank, na, m->coordinate_names[worst]);
        }
    }
    if (inst->dyn.fact == SB_FACT_FILTER && inst->dyn.passage == SB_PASSAGE_NONE) {
        SbStatus s = sb_singular_accelerations(inst, t, x); /* next to a singular position (sb_passage.c) */
        if (s != SB_OK) return s;
    }
    return finish_accelerations(inst, &pt, 1, ddq, lam);
}

SbStatus sb_free_accelerations(SbInstance *inst, double t, const double *x, double *ddq)
{
    /* M into Mf, factored in place; delta straight into ddq, solved in place: no copies, and no
       bookkeeping of the factorization that only the general path and its users (Jacobians,
       events) read.  A failure goes to sb_accelerations at the same point: the same values, the
       same checks and messages.  The caller checks that ddq is finite (sb_solver.c, rk4_stage). */
    const int n = inst->m->nq;
    SbPoint pt = sb_point(inst, t, x, NULL, NULL);
    if (inst->m->has_direct && sb_direct_accelerations(inst, &pt, ddq)) return SB_OK; /* trees: no M (sb_ltdl.c) */
    sb_M_delta(&pt, inst->dyn.Mf, ddq);
    if (sb_mass_factor(n, inst->dyn.Mf) != 0) return sb_accelerations(inst, t, x, ddq, NULL);
    sb_mass_solve(n, inst->dyn.Mf, ddq);
    inst->dyn.fact = SB_FACT_LDLT;
    inst->dyn.rank = n;
    return SB_OK;
}

SbStatus sb_update(SbInstance *inst)
{
    if (inst->cache.valid) return inst->cache.status;
    const SbModel *m = inst->m;
    SbPoint pt = sb_point(inst, *inst->state.time, inst->state.x, inst->cache.ddq, inst->cache.lam);
    SbStatus s;
    /* the accelerations in closed form where model.c has them and they hold (the end of every Co-Simulation
       step of such models comes here, and rk4 starts the next step from them), else the general path */
    if (m->has_direct && m->nc == 0 && SB_CONTACTS(m) == 0 && sb_accelerations_direct(&pt, inst->cache.ddq)) {
        s = SB_OK;
        inst->cache.undetermined = 0;
    } else {
        s = sb_accelerations(inst, *inst->state.time, inst->state.x, inst->cache.ddq, inst->cache.lam);
        inst->cache.undetermined = s == SB_OK && sb_multipliers_undetermined(inst);
    }
    if (s == SB_OK && m->ns > 0) s = sb_state_rates(inst, &pt, inst->cache.rates);
    if (s == SB_OK && m->ny > 0) sb_outputs(&pt, inst->cache.y);
    inst->cache.valid = 1;
    /* a branch change at a singular position (sb_singular.c): guarded in Model Exchange, remembered after */
    const int guarded = inst->interface == SB_ME || (inst->state.flags & SB_FLAG_BRANCH_LOST);
    inst->cache.status = guarded ? sb_branch_guard(inst, s) : s;
    return inst->cache.status;
}

SbStatus sb_state_rates(SbInstance *inst, const SbPoint *pt, double *rates)
{
    const SbModel *m = inst->m;
    sb_rates(pt, rates);
    const int bad = sb_first_nonfinite(m->ns, rates);
    if (bad >= 0) return sb_problem(inst, SB_DISCARD, "the rate of state '%s' is not finite", m->state_names[bad]);
    return SB_OK;
}

SbStatus sb_derivatives(SbInstance *inst, double t, const double *x, double *xdot)
{
    const SbModel *m = inst->m;
    const int n = m->nq;
    memmove(xdot, x + n, (size_t)n * sizeof(double));
    /* x and xdot may not alias beyond this point: x + n was read above */
    SbStatus s = SB_DISCARD;
    double *lam = m->ns > 0 ? inst->dyn.lam_work : NULL; /* the rates may use the multipliers and forces */
    if (m->nc == 0 && SB_CONTACTS(m) == 0) { /* the lean evaluation (the stages of dopri5, rosenbrock23) */
        s = sb_free_accelerations(inst, t, x, xdot + n);
        double sum = 0.0; /* a NaN or an infinity makes the sum non-finite */
        for (int i = 0; i < n; ++i) sum += xdot[n + i];
        if (s == SB_OK && !isfinite(sum)) s = SB_DISCARD;
        else if (s != SB_OK) return s;
    }
    if (s != SB_OK) s = sb_accelerations(inst, t, x, xdot + n, lam);
    if (s != SB_OK || m->ns == 0) return s;
    SbPoint pt = sb_point(inst, t, x, xdot + n, lam);
    return sb_state_rates(inst, &pt, xdot + 2 * n);
}
