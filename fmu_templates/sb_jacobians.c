/*
 * sb_jacobians.c -- derivatives of a symbody FMU from the model's exact
 * symbolic Jacobians: the state Jacobian of the implicit solver and the
 * directional derivatives of FMI, d[ddq; lam]/dx = -[M D^T; D 0]^-1 dR/dx with
 * the factorization of the dynamics, Baumgarte's terms added, outputs by the
 * chain rule through ddq and lam.
 */
#include <string.h>

#include "sb_internal.h"
#include "sb_linalg.h"

/* Residual Jacobians at (t, x) with inst->dyn.sol = [ddq; lam], including the
   Baumgarte terms of the constraint rows. */
static void residual_jacobians(SbInstance *inst, double t, const double *x)
{
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, nh = m->nh, nu = m->nu;
    SbPoint pt = sb_point(inst, t, x, inst->dyn.sol, inst->dyn.sol + n);
    (void)nu;
    sb_residual_jacobians(&pt, inst->jac.R_q, inst->jac.R_dq, inst->jac.R_u, inst->jac.R_t);
    if (nc == 0) return;
    const double alpha = inst->state.set[SB_SET_ALPHA], bb = inst->state.set[SB_SET_BETA];
    if (alpha == 0.0 && bb == 0.0) return;
    sb_velocity_jacobians(&pt, inst->jac.V_q, inst->jac.V_t);
    if (nh > 0) sb_Phi_Phi_q(&pt, inst->dyn.Phi_q, inst->dyn.Phi);
    /* inst->dyn.D and inst->dyn.beta hold the values at this point (sb_accelerations) */
    for (int r = 0; r < nc; ++r) {
        double *Rq = inst->jac.R_q + (size_t)(n + r) * n, *Rdq = inst->jac.R_dq + (size_t)(n + r) * n;
        for (int j = 0; j < n; ++j) {
            Rq[j] += 2.0 * alpha * inst->jac.V_q[r * n + j];
            Rdq[j] += 2.0 * alpha * inst->dyn.D[r * n + j];
            if (r < nh) Rq[j] += bb * bb * inst->dyn.Phi_q[r * n + j];
        }
        inst->jac.R_t[n + r] += 2.0 * alpha * inst->jac.V_t[r];
        if (r < nh) inst->jac.R_t[n + r] -= bb * bb * inst->dyn.beta[r]; /* Phi_t = -beta */
    }
}

SbStatus sb_state_jacobian(SbInstance *inst, double t, const double *x, double *J, double *J_t)
{
    const int n = inst->m->nq, na = inst->dyn.na, nx = 2 * n;
    SbStatus s = sb_accelerations(inst, t, x, NULL, NULL);
    if (s != SB_OK) return s;
    residual_jacobians(inst, t, x);
    memset(J, 0, (size_t)nx * nx * sizeof(double));
    for (int i = 0; i < n; ++i) J[i * nx + n + i] = 1.0;
    double *b = inst->jac.dsol;
    for (int c = 0; c < nx; ++c) { /* column c: d/dq_c or d/ddq_(c-n) */
        const double *R = c < n ? inst->jac.R_q : inst->jac.R_dq;
        int j = c < n ? c : c - n;
        for (int r = 0; r < na; ++r) b[r] = -R[r * n + j];
        sb_solve_factored(inst, b, b);
        for (int i = 0; i < n; ++i) J[(n + i) * nx + c] = b[i];
    }
    if (J_t) {
        for (int r = 0; r < na; ++r) b[r] = -inst->jac.R_t[r];
        sb_solve_factored(inst, b, b);
        for (int i = 0; i < n; ++i) {
            J_t[i] = 0.0;
            J_t[n + i] = b[i];
        }
    }
    if (!sb_all_finite(nx * nx, J)) return sb_problem(inst, SB_DISCARD, "the state Jacobian is not finite");
    return SB_OK;
}

SbStatus sb_directional_derivative(SbInstance *inst, const char *function, const unsigned *unknowns, size_t n_unknowns,
                                   const unsigned *knowns, size_t n_knowns, const double *seed, double *sensitivity)
{
    if (inst->m->nk > 0) /* the contact forces of the closed contacts are not differentiated */
        return sb_fail(inst, function, "directional derivatives of a model with unilateral contacts are not provided");
    if (inst->m->nf > 0) /* nor the friction forces */
        return sb_fail(inst, function, "directional derivatives of a model with stick-slip friction are not provided");
    const SbModel *m = inst->m;
    const int n = m->nq, nc = m->nc, nu = m->nu, ny = m->ny, na = inst->dyn.na;
    if ((n_unknowns && (!unknowns || !sensitivity)) || (n_knowns && (!knowns || !seed)))
        return sb_fail(inst, function, "NULL array argument");
    memset(inst->jac.sq, 0, (size_t)n * sizeof(double));
    memset(inst->jac.sdq, 0, (size_t)n * sizeof(double));
    if (nu) memset(inst->jac.su, 0, (size_t)nu * sizeof(double));
    for (size_t k = 0; k < n_knowns; ++k) {
        const SbVariable *v = sb_variable(inst, function, knowns[k]);
        if (!v) return SB_ERROR;
        if (!isfinite(seed[k])) return sb_fail(inst, function, "seed of '%s' is not finite", v->name);
        switch (v->kind) {
        case SB_VAR_Q: inst->jac.sq[v->index] += seed[k]; break;
        case SB_VAR_DQ: inst->jac.sdq[v->index] += seed[k]; break;
        case SB_VAR_U: inst->jac.su[v->index] += seed[k]; break;
        default:
            return sb_fail(inst, function, "'%s' is not a known of directional derivatives (states and inputs are)",
                           v->name);
        }
    }
    int need_dyn = 0, need_y = 0;
    for (size_t k = 0; k < n_unknowns; ++k) {
        const SbVariable *v = sb_variable(inst, function, unknowns[k]);
        if (!v) return SB_ERROR;
        if (v->kind == SB_VAR_DDQ) need_dyn = 1;
        else if (v->kind == SB_VAR_Y) need_dyn = need_y = 1;
        else if (v->kind != SB_VAR_Q && v->kind != SB_VAR_DQ)
            return sb_fail(inst, function,
                           "'%s' is not an unknown of directional derivatives (states, accelerations and outputs are)",
                           v->name);
    }
    if (need_dyn) {
        SbStatus s = sb_accelerations(inst, *inst->state.time, inst->state.x, NULL, NULL);
        if (s != SB_OK) {
            sb_log(inst, s, SB_LOG_DISCARD, "%s: %s", function, inst->problem);
            return s;
        }
        residual_jacobians(inst, *inst->state.time, inst->state.x);
        /* A d[ddq; lam] = -(R_q sq + R_dq sdq + R_u su) */
        sb_matvec(na, n, inst->jac.R_q, inst->jac.sq, inst->dyn.rhs, 0);
        sb_matvec(na, n, inst->jac.R_dq, inst->jac.sdq, inst->dyn.rhs, 1);
        if (nu) sb_matvec(na, nu, inst->jac.R_u, inst->jac.su, inst->dyn.rhs, 1);
        for (int i = 0; i < na; ++i) inst->dyn.rhs[i] = -inst->dyn.rhs[i];
        sb_solve_factored(inst, inst->dyn.rhs, inst->jac.dsol);
        if (need_y) {
            SbPoint pt = sb_point(inst, *inst->state.time, inst->state.x, inst->dyn.sol, inst->dyn.sol + n);
            SbJacobianWork *j = &inst->jac;
            sb_output_jacobians(&pt, j->Y_q, j->Y_dq, j->Y_u, j->Y_t, j->Y_ddq, j->Y_lam);
        }
    }
    for (size_t k = 0; k < n_unknowns; ++k) {
        const SbVariable *v = &m->variables[unknowns[k]];
        const int i = v->index;
        double d = 0.0;
        switch (v->kind) {
        case SB_VAR_Q: d = inst->jac.sq[i]; break;
        case SB_VAR_DQ: d = inst->jac.sdq[i]; break;
        case SB_VAR_DDQ: d = inst->jac.dsol[i]; break;
        case SB_VAR_Y:
            for (int j = 0; j < n; ++j)
                d += inst->jac.Y_q[i * n + j] * inst->jac.sq[j] + inst->jac.Y_dq[i * n + j] * inst->jac.sdq[j] +
                     inst->jac.Y_ddq[i * n + j] * inst->jac.dsol[j];
            for (int j = 0; j < nu; ++j) d += inst->jac.Y_u[i * nu + j] * inst->jac.su[j];
            for (int j = 0; j < nc; ++j) d += inst->jac.Y_lam[i * nc + j] * inst->jac.dsol[n + j];
            break;
        default: break;
        }
        sensitivity[k] = d;
        if (!isfinite(d)) { /* a Jacobian entry outside its domain (e.g. the derivative of sqrt at 0) */
            sb_log(inst, SB_DISCARD, SB_LOG_DISCARD,
                   "%s: the derivative of '%s' is not finite at t = %g (the model's equations are not "
                   "differentiable at this state)",
                   function, v->name, *inst->state.time);
            return SB_DISCARD;
        }
    }
    (void)ny;
    return SB_OK;
}
