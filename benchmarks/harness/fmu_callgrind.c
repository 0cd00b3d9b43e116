/*
 * fmu_callgrind.c -- instruction counts of an FMI 2.0 Co-Simulation FMU of the planar overhead crane
 * (symbody's or harness/crane_fmu.c) under callgrind, for the rows "instructions per rk4 step" of
 * benchmarks/RESULTS.md: instruction counts, unlike timings, do not depend on the machine's load.
 *
 * Build:  gcc -O2 -I<fmi2 headers> fmu_callgrind.c -o fmu_callgrind -ldl
 * Run:    valgrind --tool=callgrind --toggle-collect=fmi2DoStep \
 *             ./fmu_callgrind <unzipped FMU>/binaries/linux64/<id>.so 100 <guid> file://<unzipped FMU>/resources
 *         callgrind_annotate callgrind.out.<pid>
 * 100 communication steps of 10 ms with solver.method = 1 (rk4) and solver.step = 1 ms: 1000 rk4 steps
 * (divide the total by 1000) of the trolley force pulse of benchmarks/fmu_crane_hand.py's move.
 * The value references are those of export_fmu(examples/overhead_crane.py): F_trolley 10, F_hoist 11,
 * solver.method 22, solver.step 23, the states 1..6 (the hand-written FMU uses symbody's modelDescription.xml).
 * Prints the six states at the end so that two FMUs can be compared.
 *
 * Other models: ./fmu_callgrind lib steps guid uri method_vr,step_vr,method,nstates vr:base:pulse ...
 * (solver.method's and solver.step's value references, the method (1 rk4, 2 dopri5), the number of
 * states, read from value references 1..nstates at the end; each input vr holds base + pulse for
 * t < 2 s, base - pulse for 6 <= t < 8 s, base otherwise).  The tower crane of examples/tower_crane.py:
 *     ... 40,41,1,10 16:0:150000 17:0:1500
 * With the environment variable SB_EXCHANGE set, the states are read at every step (a co-simulation
 * master's loop: --toggle-collect=fmi2SetReal --toggle-collect=fmi2GetReal count those calls too).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmi2Functions.h"

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status, fmi2String category,
                   fmi2String message, ...)
{
    (void)env, (void)name, (void)category;
    va_list ap;
    va_start(ap, message);
    fprintf(stderr, "[%d] ", (int)status);
    vfprintf(stderr, message, ap);
    fputc('\n', stderr);
    va_end(ap);
}

#define SYMBOL(name)                                                                                                   \
    name##TYPE *name = (name##TYPE *)dlsym(lib, #name);                                                               \
    if (!name) {                                                                                                       \
        fprintf(stderr, "the library has no %s\n", #name);                                                            \
        return 1;                                                                                                      \
    }

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s library.so communication_steps guid resource_uri\n", argv[0]);
        return 1;
    }
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    const int steps = atoi(argv[2]);
    SYMBOL(fmi2Instantiate)
    SYMBOL(fmi2SetupExperiment)
    SYMBOL(fmi2EnterInitializationMode)
    SYMBOL(fmi2ExitInitializationMode)
    SYMBOL(fmi2DoStep)
    SYMBOL(fmi2SetReal)
    SYMBOL(fmi2GetReal)
    SYMBOL(fmi2SetInteger)
    SYMBOL(fmi2FreeInstance)
    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    fmi2Component c = fmi2Instantiate("crane", fmi2CoSimulation, argv[3], argv[4], &callbacks, fmi2False, fmi2False);
    if (!c) return 2;
    /* the overhead crane's value references unless given */
    fmi2ValueReference vr_method = 22, vr_step = 23, vr_in[16] = {10, 11}, vr_x[64];
    fmi2Integer method = 1;
    int nx = 6, nin = 2;
    double base[16] = {0.0, 4000.0 * 9.80665}, pulse[16] = {8000.0, 0.0};
    if (argc > 5) {
        unsigned a, b;
        if (sscanf(argv[5], "%u,%u,%d,%d", &a, &b, &method, &nx) != 4 || nx < 1 || nx > 64) {
            fprintf(stderr, "bad settings '%s' (method_vr,step_vr,method,nstates)\n", argv[5]);
            return 1;
        }
        vr_method = a, vr_step = b;
        nin = 0;
        for (int i = 6; i < argc && nin < 16; ++i, ++nin)
            if (sscanf(argv[i], "%u:%lf:%lf", &a, &base[nin], &pulse[nin]) != 3) {
                fprintf(stderr, "bad input '%s' (vr:base:pulse)\n", argv[i]);
                return 1;
            } else
                vr_in[nin] = a;
    }
    for (int i = 0; i < nx; ++i) vr_x[i] = (fmi2ValueReference)(i + 1);
    const fmi2Real h = 1e-3;
    const int exchange = getenv("SB_EXCHANGE") != NULL; /* read the states at every step too */
    fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0);
    fmi2SetInteger(c, &vr_method, 1, &method);
    fmi2SetReal(c, &vr_step, 1, &h);
    fmi2EnterInitializationMode(c);
    fmi2ExitInitializationMode(c);
    for (int k = 0; k < steps; ++k) {
        const double t = k * 0.01;
        double u[16];
        for (int i = 0; i < nin; ++i) u[i] = base[i] + (t < 2.0 ? pulse[i] : (t >= 6.0 && t < 8.0) ? -pulse[i] : 0.0);
        fmi2SetReal(c, vr_in, (size_t)nin, u);
        if (exchange) { /* a co-simulation master's loop: the states read at every step */
            double xs[64];
            fmi2GetReal(c, vr_x, (size_t)nx, xs);
        }
        if (fmi2DoStep(c, t, 0.01, fmi2True) != fmi2OK) {
            fprintf(stderr, "doStep failed at t = %g\n", t);
            return 3;
        }
    }
    double x[64];
    fmi2GetReal(c, vr_x, (size_t)nx, x);
    for (int i = 0; i < nx; ++i) printf("%.17g%c", x[i], i == nx - 1 ? '\n' : ' ');
    fmi2FreeInstance(c);
    return 0;
}
