/*
 * symbody_ddq.c -- accelerations of a symbody model through the FMU runtime.
 *
 * Linked with the generated model.c and the runtime in fmu_templates/ (sb_dynamics.c,
 * sb_solver.c, sb_linalg.c), compiled with the flags of a native FMU.  Each
 * evaluation is one call of sb_accelerations(), the function behind every
 * derivative of the Model Exchange and Co-Simulation interfaces: [M | delta]
 * from model.c, finiteness checks, factorization of M (L D L^T) and solve.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_loop.h"
#include "sb_runtime.h"

static SbInstance *inst = NULL;

int bench_init(int n, const double *p, const double *u)
{
    bench_free();
    if (n + 1 != sb_model.nq || sb_model.nc != 0) return 1;
    inst = sb_instantiate(&sb_model, SB_ME, "bench", NULL, NULL, NULL, NULL, 0);
    if (!inst) return 2;
    memcpy(inst->state.p, p, (size_t)sb_model.np * sizeof(double));
    sb_parameters_changed(inst); /* the constants block of model.c follows the parameters */
    memcpy(inst->state.u, u, (size_t)sb_model.nu * sizeof(double));
    return 0;
}

int bench_ddq(const double *x, double *ddq)
{
    if (!inst) return 1;
    return sb_accelerations(inst, 0.0, x, ddq, NULL) == SB_OK ? 0 : 2;
}

int bench_rhs(const double *x, const double *u, const double *p, double *xdot)
{
    if (!inst) return 1;
    memcpy(inst->state.p, p, (size_t)sb_model.np * sizeof(double));
    sb_parameters_changed(inst); /* the constants block of model.c follows the parameters */
    memcpy(inst->state.u, u, (size_t)sb_model.nu * sizeof(double));
    return sb_derivatives(inst, 0.0, x, xdot) == SB_OK ? 0 : 2;
}

double bench_loop(int nstates, const double *X, long iterations, double *checksum)
{
    if (!inst || nstates < 1) return -1.0;
    const int nx = 2 * sb_model.nq, last = sb_model.nq - 1;
    double *ddq = malloc((size_t)sb_model.nq * sizeof(double));
    if (!ddq) return -1.0;
    double sum = 0.0;
    int bad = 0, k = 0;
    const double t0 = bench_now();
    for (long i = 0; i < iterations; ++i) {
        bad |= sb_accelerations(inst, 0.0, X + (size_t)k * nx, ddq, NULL) != SB_OK;
        sum += ddq[last];
        if (++k == nstates) k = 0;
    }
    const double elapsed = bench_now() - t0;
    free(ddq);
    *checksum = sum;
    return bad ? -1.0 : elapsed / (double)iterations;
}

void bench_free(void)
{
    sb_free(inst);
    inst = NULL;
}
