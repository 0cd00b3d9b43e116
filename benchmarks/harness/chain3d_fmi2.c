/*
 * chain3d_fmi2.c -- accelerations of the 3-D chain through the FMI 2 Model Exchange interface.
 *
 * Linked with the generated model.c of the chain, the FMU runtime of fmu_templates/ and its FMI 2
 * wrapper (fmi2Functions.c), compiled with the flags of a native FMU: what an importer that
 * integrates the FMU's equations pays per evaluation.  One evaluation is fmi2SetContinuousStates
 * followed by fmi2GetDerivatives (the states checked, the cache invalidated, sb_accelerations_direct or
 * sb_accelerations, the derivatives copied out).  The parameters are set with fmi2SetReal before
 * initialization, in the model's order through chain3d_parameter_index (the -D option CHAIN3D_ORDER).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "chain3d_loop.h"
#include "fmi2Functions.h"
#include "sb_runtime.h"

static const int chain3d_parameter_index[] = {CHAIN3D_ORDER};

static fmi2Component comp = NULL;
static double *xdot = NULL;

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status, fmi2String category,
                   fmi2String message, ...)
{
    (void)env;
    (void)name;
    (void)status;
    (void)category;
    (void)message;
}

static const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};

int chain_init(int n, const double *p)
{
    chain_free();
    const int np = (int)(sizeof chain3d_parameter_index / sizeof chain3d_parameter_index[0]);
    if (3 * n != sb_model.nq || sb_model.nc != 0 || np != sb_model.np) return 1;
    comp = fmi2Instantiate("chain3d", fmi2ModelExchange, sb_model.token, "", &callbacks, fmi2False, fmi2False);
    xdot = malloc(2 * (size_t)sb_model.nq * sizeof(double));
    if (!comp || !xdot) return 2;
    for (int i = 0; i < sb_model.nvars; ++i) { /* the parameters by value reference */
        const SbVariable *v = &sb_model.variables[i];
        if (v->kind != SB_VAR_P) continue;
        const fmi2ValueReference vr = (fmi2ValueReference)i;
        const fmi2Real value = p[chain3d_parameter_index[v->index]];
        if (fmi2SetReal(comp, &vr, 1, &value) != fmi2OK) return 3;
    }
    if (fmi2SetupExperiment(comp, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK) return 4;
    if (fmi2EnterInitializationMode(comp) != fmi2OK || fmi2ExitInitializationMode(comp) != fmi2OK) return 5;
    fmi2EventInfo info;
    if (fmi2NewDiscreteStates(comp, &info) != fmi2OK || fmi2EnterContinuousTimeMode(comp) != fmi2OK) return 6;
    return 0;
}

/* One evaluation through the interface: the states set, the derivatives read. */
static int evaluate(const double *x, double *ddq)
{
    const size_t nx = 2 * (size_t)sb_model.nq;
    if (fmi2SetContinuousStates(comp, x, nx) != fmi2OK) return 1;
    if (fmi2GetDerivatives(comp, xdot, nx) != fmi2OK) return 2;
    memcpy(ddq, xdot + sb_model.nq, (size_t)sb_model.nq * sizeof(double));
    return 0;
}

int chain_ddq(const double *x, double *ddq) { return comp ? evaluate(x, ddq) : 1; }

double chain_loop(int nstates, const double *X, long iterations, double *checksum)
{
    if (!comp || nstates < 1) return -1.0;
    const int nx = 2 * sb_model.nq, nq = sb_model.nq;
    double sum = 0.0;
    int bad = 0, k = 0;
    const double t0 = bench_now();
    for (long i = 0; i < iterations; ++i) {
        bad |= fmi2SetContinuousStates(comp, X + (size_t)k * nx, (size_t)nx) != fmi2OK;
        bad |= fmi2GetDerivatives(comp, xdot, (size_t)nx) != fmi2OK;
        sum += xdot[nx - 1];
        if (++k == nstates) k = 0;
    }
    const double elapsed = bench_now() - t0;
    (void)nq;
    *checksum = sum;
    return bad ? -1.0 : elapsed / (double)iterations;
}

void chain_free(void)
{
    if (comp) fmi2FreeInstance(comp);
    comp = NULL;
    free(xdot);
    xdot = NULL;
}
