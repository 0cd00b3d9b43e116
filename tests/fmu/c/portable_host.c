/*
 * portable_host.c -- a small FMI 2 / FMI 3 importer that loads an FMU's shared
 * library at run time (LoadLibrary on Windows, dlopen elsewhere), drives it with
 * a fixed input sequence and prints the outputs with %.17g.  Cross-compiled
 * with mingw-w64 it runs the win64 DLL under wine; cross-compiled for aarch64
 * it runs the aarch64-linux library under qemu-user.  tests/fmu/test_platforms_run.py
 * compares its output with the Linux library driven the same way by fmpy.
 *
 *   portable_host CASES_FILE
 *
 * Each line of CASES_FILE is one case (whitespace separated):
 *
 *   FMI KIND LIBRARY TOKEN H NSTEPS NX NZ METHOD_VR METHOD NU (VR OFFSET AMP)*NU NY VR*NY
 *
 * FMI is 2 or 3, KIND cs or me; METHOD_VR < 0 leaves solver.method at its
 * default, else METHOD is set (fmi2SetInteger / fmi3SetInt64) before
 * initialization.  Input j at t is OFFSET_j + AMP_j sin(1.3 t + j), held over each
 * communication step of length H.  Co-Simulation calls DoStep; Model Exchange
 * integrates with the classic Runge-Kutta 4 method at step H and, with NZ event
 * indicators, sees events only at the ends of its steps, as simple real-time hosts
 * do: when an indicator changed its domain (z > 0 against z <= 0) or the FMU asks
 * for it in CompletedIntegratorStep, it runs the event iteration at the step's end,
 * past the event.  For each case the host prints "case K" and then, at t = 0, H,
 * ..., NSTEPS H, a line "t y_1 ... y_NY".
 * Errors print "error: ..." and end the program with status 1.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2FunctionTypes.h"
#include "fmi3FunctionTypes.h"

#ifdef _WIN32
#include <windows.h>
typedef HMODULE Library;
static Library library_open(const char *path) { return LoadLibraryA(path); }
static void *library_symbol(Library lib, const char *name) { return (void *)GetProcAddress(lib, name); }
static void library_close(Library lib) { FreeLibrary(lib); }
#else
#include <dlfcn.h>
typedef void *Library;
static Library library_open(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static void *library_symbol(Library lib, const char *name) { return dlsym(lib, name); }
static void library_close(Library lib) { dlclose(lib); }
#endif

#define MAXV 64

typedef struct {
    int fmi, me;
    char library[4096], token[256];
    double h;
    int nsteps, nx, nz, method_vr, method, nu, ny;
    unsigned u_vr[MAXV], y_vr[MAXV];
    double offset[MAXV], amp[MAXV];
} Case;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    exit(1);
}

static void *symbol(Library lib, const char *name)
{
    void *f = library_symbol(lib, name);
    if (!f) fail("the library has no function %s", name);
    return f;
}

/* Whether an event indicator changed its domain (z > 0 against z <= 0) from z0 to z1. */
static int crossed(const double *z0, const double *z1, int nz)
{
    for (int i = 0; i < nz; ++i)
        if ((z0[i] > 0.0) != (z1[i] > 0.0)) return 1;
    return 0;
}

static double input(const Case *c, int j, double t) { return c->offset[j] + c->amp[j] * sin(1.3 * t + j); }

/* ------------------------------------------------------------------ FMI 2 */

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status, fmi2String category,
                 fmi2String message, ...)
{
    (void)env;
    (void)name;
    if (status != fmi2OK) printf("log: %s: %s\n", category, message);
}

#define OK2(call)                                                                                                    \
    do {                                                                                                             \
        if ((call) != fmi2OK) fail("%s failed", #call);                                                              \
    } while (0)

typedef struct {
    fmi2SetRealTYPE *set_real;
    fmi2GetRealTYPE *get_real;
    fmi2SetTimeTYPE *set_time;
    fmi2SetContinuousStatesTYPE *set_x;
    fmi2GetContinuousStatesTYPE *get_x;
    fmi2GetDerivativesTYPE *get_dx;
    fmi2GetEventIndicatorsTYPE *get_z;
    fmi2CompletedIntegratorStepTYPE *completed;
    fmi2EnterEventModeTYPE *enter_event;
    fmi2NewDiscreteStatesTYPE *new_discrete;
    fmi2EnterContinuousTimeModeTYPE *enter_ct;
} Fmi2;

/* The event iteration, back in continuous-time mode. */
static void event_iteration2(const Fmi2 *f, fmi2Component comp)
{
    fmi2EventInfo info;
    do {
        OK2(f->new_discrete(comp, &info));
        if (info.terminateSimulation) fail("the FMU asked to terminate");
    } while (info.newDiscreteStatesNeeded);
    OK2(f->enter_ct(comp));
}

static void print_outputs2(const Case *c, const Fmi2 *f, fmi2Component comp, double t)
{
    double y[MAXV];
    OK2(f->get_real(comp, c->y_vr, (size_t)c->ny, y));
    printf("%.17g", t);
    for (int i = 0; i < c->ny; ++i) printf(" %.17g", y[i]);
    putchar('\n');
}

static void set_inputs2(const Case *c, const Fmi2 *f, fmi2Component comp, double t)
{
    double u[MAXV];
    for (int j = 0; j < c->nu; ++j) u[j] = input(c, j, t);
    OK2(f->set_real(comp, c->u_vr, (size_t)c->nu, u));
}

static void derivatives2(const Fmi2 *f, fmi2Component comp, double t, const double *x, double *dx, int nx)
{
    OK2(f->set_time(comp, t));
    OK2(f->set_x(comp, x, (size_t)nx));
    OK2(f->get_dx(comp, dx, (size_t)nx));
}

static void run2(const Case *c, Library lib)
{
    Fmi2 f = {(fmi2SetRealTYPE *)symbol(lib, "fmi2SetReal"), (fmi2GetRealTYPE *)symbol(lib, "fmi2GetReal"),
              (fmi2SetTimeTYPE *)symbol(lib, "fmi2SetTime"),
              (fmi2SetContinuousStatesTYPE *)symbol(lib, "fmi2SetContinuousStates"),
              (fmi2GetContinuousStatesTYPE *)symbol(lib, "fmi2GetContinuousStates"),
              (fmi2GetDerivativesTYPE *)symbol(lib, "fmi2GetDerivatives"),
              (fmi2GetEventIndicatorsTYPE *)symbol(lib, "fmi2GetEventIndicators"),
              (fmi2CompletedIntegratorStepTYPE *)symbol(lib, "fmi2CompletedIntegratorStep"),
              (fmi2EnterEventModeTYPE *)symbol(lib, "fmi2EnterEventMode"),
              (fmi2NewDiscreteStatesTYPE *)symbol(lib, "fmi2NewDiscreteStates"),
              (fmi2EnterContinuousTimeModeTYPE *)symbol(lib, "fmi2EnterContinuousTimeMode")};
    fmi2CallbackFunctions cb = {logger2, calloc, free, NULL, NULL};
    fmi2InstantiateTYPE *instantiate = (fmi2InstantiateTYPE *)symbol(lib, "fmi2Instantiate");
    fmi2Component comp = instantiate("host", c->me ? fmi2ModelExchange : fmi2CoSimulation, c->token,
                                     "file:///nonexistent", &cb, fmi2False, fmi2False);
    if (!comp) fail("fmi2Instantiate failed");
    OK2(((fmi2SetupExperimentTYPE *)symbol(lib, "fmi2SetupExperiment"))(comp, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    if (c->method_vr >= 0) {
        const fmi2ValueReference vr = (fmi2ValueReference)c->method_vr;
        const fmi2Integer value = c->method;
        OK2(((fmi2SetIntegerTYPE *)symbol(lib, "fmi2SetInteger"))(comp, &vr, 1, &value));
    }
    set_inputs2(c, &f, comp, 0.0);
    OK2(((fmi2EnterInitializationModeTYPE *)symbol(lib, "fmi2EnterInitializationMode"))(comp));
    OK2(((fmi2ExitInitializationModeTYPE *)symbol(lib, "fmi2ExitInitializationMode"))(comp));
    double x[MAXV], k1[MAXV], k2[MAXV], k3[MAXV], k4[MAXV], xs[MAXV], z[MAXV], z_new[MAXV];
    if (c->me) {
        event_iteration2(&f, comp);
        if (c->nz > 0) OK2(f.get_z(comp, z, (size_t)c->nz));
    }
    print_outputs2(c, &f, comp, 0.0);
    for (int k = 0; k < c->nsteps; ++k) {
        const double t = k * c->h, h = c->h;
        set_inputs2(c, &f, comp, t);
        if (!c->me) {
            OK2(((fmi2DoStepTYPE *)symbol(lib, "fmi2DoStep"))(comp, t, h, fmi2True));
        } else {
            const int n = c->nx;
            OK2(f.get_x(comp, x, (size_t)n));
            derivatives2(&f, comp, t, x, k1, n);
            for (int i = 0; i < n; ++i) xs[i] = x[i] + 0.5 * h * k1[i];
            derivatives2(&f, comp, t + 0.5 * h, xs, k2, n);
            for (int i = 0; i < n; ++i) xs[i] = x[i] + 0.5 * h * k2[i];
            derivatives2(&f, comp, t + 0.5 * h, xs, k3, n);
            for (int i = 0; i < n; ++i) xs[i] = x[i] + h * k3[i];
            derivatives2(&f, comp, t + h, xs, k4, n);
            for (int i = 0; i < n; ++i) xs[i] = x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            OK2(f.set_time(comp, t + h));
            OK2(f.set_x(comp, xs, (size_t)n));
            fmi2Boolean enter = fmi2False, terminate = fmi2False;
            OK2(f.completed(comp, fmi2True, &enter, &terminate));
            if (terminate) fail("the FMU asked to terminate");
            if (c->nz > 0) OK2(f.get_z(comp, z_new, (size_t)c->nz));
            if (enter || crossed(z, z_new, c->nz)) {
                OK2(f.enter_event(comp));
                event_iteration2(&f, comp);
                if (c->nz > 0) OK2(f.get_z(comp, z_new, (size_t)c->nz));
            }
            memcpy(z, z_new, sizeof(double) * (size_t)c->nz);
        }
        print_outputs2(c, &f, comp, (k + 1) * c->h);
    }
    ((fmi2FreeInstanceTYPE *)symbol(lib, "fmi2FreeInstance"))(comp);
}

/* ------------------------------------------------------------------ FMI 3 */

static void logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category, fmi3String message)
{
    (void)env;
    if (status != fmi3OK) printf("log: %s: %s\n", category, message);
}

#define OK3(call)                                                                                                    \
    do {                                                                                                             \
        if ((call) != fmi3OK) fail("%s failed", #call);                                                              \
    } while (0)

typedef struct {
    fmi3SetFloat64TYPE *set_real;
    fmi3GetFloat64TYPE *get_real;
    fmi3SetTimeTYPE *set_time;
    fmi3SetContinuousStatesTYPE *set_x;
    fmi3GetContinuousStatesTYPE *get_x;
    fmi3GetContinuousStateDerivativesTYPE *get_dx;
    fmi3GetEventIndicatorsTYPE *get_z;
    fmi3CompletedIntegratorStepTYPE *completed;
    fmi3EnterEventModeTYPE *enter_event;
    fmi3UpdateDiscreteStatesTYPE *update_discrete;
    fmi3EnterContinuousTimeModeTYPE *enter_ct;
} Fmi3;

/* The event iteration, back in continuous-time mode. */
static void event_iteration3(const Fmi3 *f, fmi3Instance inst)
{
    fmi3Boolean update = fmi3True, terminate, nominals, values, next_defined;
    fmi3Float64 next;
    while (update) {
        OK3(f->update_discrete(inst, &update, &terminate, &nominals, &values, &next_defined, &next));
        if (terminate) fail("the FMU asked to terminate");
    }
    OK3(f->enter_ct(inst));
}

static void print_outputs3(const Case *c, const Fmi3 *f, fmi3Instance inst, double t)
{
    double y[MAXV];
    OK3(f->get_real(inst, c->y_vr, (size_t)c->ny, y, (size_t)c->ny));
    printf("%.17g", t);
    for (int i = 0; i < c->ny; ++i) printf(" %.17g", y[i]);
    putchar('\n');
}

static void set_inputs3(const Case *c, const Fmi3 *f, fmi3Instance inst, double t)
{
    double u[MAXV];
    for (int j = 0; j < c->nu; ++j) u[j] = input(c, j, t);
    OK3(f->set_real(inst, c->u_vr, (size_t)c->nu, u, (size_t)c->nu));
}

static void derivatives3(const Fmi3 *f, fmi3Instance inst, double t, const double *x, double *dx, int nx)
{
    OK3(f->set_time(inst, t));
    OK3(f->set_x(inst, x, (size_t)nx));
    OK3(f->get_dx(inst, dx, (size_t)nx));
}

static void run3(const Case *c, Library lib)
{
    Fmi3 f = {(fmi3SetFloat64TYPE *)symbol(lib, "fmi3SetFloat64"), (fmi3GetFloat64TYPE *)symbol(lib, "fmi3GetFloat64"),
              (fmi3SetTimeTYPE *)symbol(lib, "fmi3SetTime"),
              (fmi3SetContinuousStatesTYPE *)symbol(lib, "fmi3SetContinuousStates"),
              (fmi3GetContinuousStatesTYPE *)symbol(lib, "fmi3GetContinuousStates"),
              (fmi3GetContinuousStateDerivativesTYPE *)symbol(lib, "fmi3GetContinuousStateDerivatives"),
              (fmi3GetEventIndicatorsTYPE *)symbol(lib, "fmi3GetEventIndicators"),
              (fmi3CompletedIntegratorStepTYPE *)symbol(lib, "fmi3CompletedIntegratorStep"),
              (fmi3EnterEventModeTYPE *)symbol(lib, "fmi3EnterEventMode"),
              (fmi3UpdateDiscreteStatesTYPE *)symbol(lib, "fmi3UpdateDiscreteStates"),
              (fmi3EnterContinuousTimeModeTYPE *)symbol(lib, "fmi3EnterContinuousTimeMode")};
    fmi3Instance inst;
    if (c->me)
        inst = ((fmi3InstantiateModelExchangeTYPE *)symbol(lib, "fmi3InstantiateModelExchange"))(
            "host", c->token, NULL, fmi3False, fmi3False, NULL, logger3);
    else
        inst = ((fmi3InstantiateCoSimulationTYPE *)symbol(lib, "fmi3InstantiateCoSimulation"))(
            "host", c->token, NULL, fmi3False, fmi3False, fmi3False, fmi3False, NULL, 0, NULL, logger3, NULL);
    if (!inst) fail("fmi3Instantiate failed");
    if (c->method_vr >= 0) {
        const fmi3ValueReference vr = (fmi3ValueReference)c->method_vr;
        const fmi3Int64 value = c->method;
        OK3(((fmi3SetInt64TYPE *)symbol(lib, "fmi3SetInt64"))(inst, &vr, 1, &value, 1));
    }
    set_inputs3(c, &f, inst, 0.0);
    OK3(((fmi3EnterInitializationModeTYPE *)symbol(lib, "fmi3EnterInitializationMode"))(inst, fmi3False, 0.0, 0.0,
                                                                                        fmi3False, 0.0));
    OK3(((fmi3ExitInitializationModeTYPE *)symbol(lib, "fmi3ExitInitializationMode"))(inst));
    double x[MAXV], k1[MAXV], k2[MAXV], k3[MAXV], k4[MAXV], xs[MAXV], z[MAXV], z_new[MAXV];
    if (c->me) {
        event_iteration3(&f, inst);
        if (c->nz > 0) OK3(f.get_z(inst, z, (size_t)c->nz));
    }
    print_outputs3(c, &f, inst, 0.0);
    for (int k = 0; k < c->nsteps; ++k) {
        const double t = k * c->h, h = c->h;
        set_inputs3(c, &f, inst, t);
        if (!c->me) {
            fmi3Boolean event, terminate, early;
            fmi3Float64 last;
            OK3(((fmi3DoStepTYPE *)symbol(lib, "fmi3DoStep"))(inst, t, h, fmi3True, &event, &terminate, &early,
                                                              &last));
        } else {
            const int n = c->nx;
            OK3(f.get_x(inst, x, (size_t)n));
            derivatives3(&f, inst, t, x, k1, n);
            for (int i = 0; i < n; ++i) xs[i] = x[i] + 0.5 * h * k1[i];
            derivatives3(&f, inst, t + 0.5 * h, xs, k2, n);
            for (int i = 0; i < n; ++i) xs[i] = x[i] + 0.5 * h * k2[i];
            derivatives3(&f, inst, t + 0.5 * h, xs, k3, n);
            for (int i = 0; i < n; ++i) xs[i] = x[i] + h * k3[i];
            derivatives3(&f, inst, t + h, xs, k4, n);
            for (int i = 0; i < n; ++i) xs[i] = x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            OK3(f.set_time(inst, t + h));
            OK3(f.set_x(inst, xs, (size_t)n));
            fmi3Boolean enter = fmi3False, terminate = fmi3False;
            OK3(f.completed(inst, fmi3True, &enter, &terminate));
            if (terminate) fail("the FMU asked to terminate");
            if (c->nz > 0) OK3(f.get_z(inst, z_new, (size_t)c->nz));
            if (enter || crossed(z, z_new, c->nz)) {
                OK3(f.enter_event(inst));
                event_iteration3(&f, inst);
                if (c->nz > 0) OK3(f.get_z(inst, z_new, (size_t)c->nz));
            }
            memcpy(z, z_new, sizeof(double) * (size_t)c->nz);
        }
        print_outputs3(c, &f, inst, (k + 1) * c->h);
    }
    ((fmi3FreeInstanceTYPE *)symbol(lib, "fmi3FreeInstance"))(inst);
}

/* ------------------------------------------------------------------- main */

static int read_case(FILE *in, Case *c)
{
    char kind[8];
    if (fscanf(in, "%d %7s %4095s %255s %lf %d %d %d %d %d %d", &c->fmi, kind, c->library, c->token, &c->h,
               &c->nsteps, &c->nx, &c->nz, &c->method_vr, &c->method, &c->nu) != 11)
        return 0;
    c->me = strcmp(kind, "me") == 0;
    if (c->nu < 0 || c->nu > MAXV || c->nx < 0 || c->nx > MAXV || c->nz < 0 || c->nz > MAXV)
        fail("too many inputs, states or event indicators");
    for (int j = 0; j < c->nu; ++j)
        if (fscanf(in, "%u %lf %lf", &c->u_vr[j], &c->offset[j], &c->amp[j]) != 3) fail("bad input list");
    if (fscanf(in, "%d", &c->ny) != 1 || c->ny < 0 || c->ny > MAXV) fail("bad output count");
    for (int j = 0; j < c->ny; ++j)
        if (fscanf(in, "%u", &c->y_vr[j]) != 1) fail("bad output list");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) fail("usage: portable_host CASES_FILE");
    FILE *in = fopen(argv[1], "r");
    if (!in) fail("cannot open %s", argv[1]);
    static Case c;
    for (int k = 0; read_case(in, &c); ++k) {
        Library lib = library_open(c.library);
        if (!lib) fail("cannot load %s", c.library);
        printf("case %d\n", k);
        if (c.fmi == 2)
            run2(&c, lib);
        else
            run3(&c, lib);
        library_close(lib);
        fflush(stdout);
    }
    fclose(in);
    return 0;
}
