/*
 * chain3d_symbody.c -- accelerations of the 3-D chain through the FMU runtime.
 *
 * Linked with the generated model.c of the chain and the runtime of
 * fmu_templates/, compiled with the flags of a native FMU.  One evaluation is
 * one sb_accelerations() call (ddq straight from model.c for the articulated
 * formulation; otherwise [M | delta] from model.c, factorization of M, solve),
 * the function behind every derivative of the FMU.  The parameters of
 * chain3d_loop.h are copied into the model's own order through the table
 * chain3d_parameter_index (from the -D option CHAIN3D_ORDER, written by the
 * benchmark from the model's parameter names).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "chain3d_loop.h"
#include "sb_runtime.h"

/* model parameter i takes entry chain3d_parameter_index[i] of the harness layout */
static const int chain3d_parameter_index[] = {CHAIN3D_ORDER};

static SbInstance *inst = NULL;

int chain_init(int n, const double *p)
{
    chain_free();
    const int np = (int)(sizeof chain3d_parameter_index / sizeof chain3d_parameter_index[0]);
    if (3 * n != sb_model.nq || sb_model.nc != 0 || np != sb_model.np) return 1;
    inst = sb_instantiate(&sb_model, SB_ME, "chain3d", NULL, NULL, NULL, NULL, 0);
    if (!inst) return 2;
    for (int i = 0; i < np; ++i) inst->state.p[i] = p[chain3d_parameter_index[i]];
    sb_parameters_changed(inst); /* the constants block of model.c follows the parameters */
    return 0;
}

int chain_ddq(const double *x, double *ddq)
{
    if (!inst) return 1;
    return sb_accelerations(inst, 0.0, x, ddq, NULL) == SB_OK ? 0 : 2;
}

double chain_loop(int nstates, const double *X, long iterations, double *checksum)
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

void chain_free(void)
{
    sb_free(inst);
    inst = NULL;
}
