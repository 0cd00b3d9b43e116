/*
 * controller_host.c -- a test host for symbody's controller FMUs: linked with a
 * generated controller.c and the controller runtime (sbc_*.c, sb_linalg.c,
 * sbc_fmi2.c) directly, it calls the FMI 2 functions the right way and the
 * wrong way (NULL arguments, unknown value references, outputs and non-finite
 * values set, calls in the wrong state, a wrong communication point, corrupted
 * and truncated FMU states, the Model Exchange functions), checks the status,
 * the log message and that a failed call changes nothing, runs the law with
 * FMU states saved and restored, and instantiates and frees 1000 times.
 * tests/fmu/test_controller_robustness.py builds it per law, plain and under
 * AddressSanitizer + UndefinedBehaviorSanitizer, and runs it.
 *
 * Prints "checks N failed M" and exits with status 1 when a check failed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "sbc_controller.h"

static int n_checks, n_failed;
static char last_message[2048];
static int last_status;

#define CHECK(cond, ...)                                                                                             \
    do {                                                                                                             \
        ++n_checks;                                                                                                  \
        if (!(cond)) {                                                                                               \
            ++n_failed;                                                                                              \
            printf("FAILED line %d: ", __LINE__);                                                                    \
            printf(__VA_ARGS__);                                                                                     \
            printf(" (last message: %s)\n", last_message);                                                           \
        }                                                                                                            \
    } while (0)

/* a call's status, and the message naming `text` (unless NULL) */
#define EXPECT(status, text, call) expect((status), (text), #call, (last_message[0] = '\0', (int)(call)), __LINE__)

static void expect(int want, const char *text, const char *call, int got, int line)
{
    ++n_checks;
    if (got != want || (text && !strstr(last_message, text))) {
        ++n_failed;
        printf("FAILED line %d: %s returned %d, expected %d with '%s' (last message: %s)\n", line, call, got, want,
               text ? text : "", last_message);
    }
}

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status, fmi2String category,
                   fmi2String message, ...)
{
    (void)env, (void)name, (void)category;
    if (status == fmi2OK) return;
    va_list ap;
    va_start(ap, message);
    vsnprintf(last_message, sizeof last_message, message, ap);
    va_end(ap);
    last_status = (int)status;
}

static const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};

static const SbcController *C = &sbc_controller;
static unsigned input_vr(int j) { return 1u + (unsigned)j; }
static unsigned output_vr(int i) { return 1u + (unsigned)(C->nu + C->nr + i); }
static unsigned parameter_vr(int p) { return 1u + (unsigned)(C->nu + C->nr + C->ny + p); }

static fmi2Component started(void)
{
    fmi2Component c = fmi2Instantiate("host", fmi2CoSimulation, C->token, "", &callbacks, fmi2False, fmi2False);
    CHECK(c != NULL, "fmi2Instantiate failed");
    EXPECT(fmi2OK, NULL, fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    EXPECT(fmi2OK, NULL, fmi2EnterInitializationMode(c));
    EXPECT(fmi2OK, NULL, fmi2ExitInitializationMode(c));
    return c;
}

/* one step: the inputs at t set, the outputs read into y, doStep */
static fmi2Status drive(fmi2Component c, double t, double h, double *y)
{
    for (int j = 0; j < C->nu; ++j) {
        const fmi2ValueReference vr = input_vr(j);
        const double u = sin(1.3 * t + j) + 0.2 * j;
        fmi2SetReal(c, &vr, 1, &u);
    }
    for (int i = 0; i < C->ny; ++i) {
        const fmi2ValueReference vr = output_vr(i);
        fmi2GetReal(c, &vr, 1, &y[i]);
    }
    return fmi2DoStep(c, t, h, fmi2True);
}

static void instantiation(void)
{
    CHECK(fmi2Instantiate("x", fmi2CoSimulation, C->token, "", NULL, 0, 0) == NULL, "no callbacks accepted");
    CHECK(fmi2Instantiate("x", fmi2CoSimulation, "{wrong}", "", &callbacks, 0, 0) == NULL, "wrong GUID accepted");
    CHECK(strstr(last_message, "does not match") != NULL, "no message for the wrong GUID");
    CHECK(fmi2Instantiate("x", fmi2ModelExchange, C->token, "", &callbacks, 0, 0) == NULL, "ME accepted");
    fmi2Component c = fmi2Instantiate(NULL, fmi2CoSimulation, NULL, NULL, &callbacks, 0, 1); /* NULLs allowed */
    CHECK(c != NULL, "NULL name and GUID refused");
    fmi2FreeInstance(c);
    fmi2FreeInstance(NULL);
    for (int k = 0; k < 1000; ++k) { /* leaks show under LeakSanitizer */
        c = fmi2Instantiate("many", fmi2CoSimulation, C->token, "", &callbacks, 0, 0);
        fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0);
        fmi2EnterInitializationMode(c);
        fmi2ExitInitializationMode(c);
        double y[64];
        drive(c, 0.0, 0.01, y);
        fmi2FreeInstance(c);
    }
}

static void wrong_calls(void)
{
    fmi2Component c = fmi2Instantiate("host", fmi2CoSimulation, C->token, "", &callbacks, 0, 0);
    EXPECT(fmi2Error, "not allowed in instantiated", fmi2DoStep(c, 0.0, 0.1, fmi2True));
    EXPECT(fmi2Error, "not allowed in instantiated", fmi2ExitInitializationMode(c));
    EXPECT(fmi2Error, "not provided", fmi2GetDerivatives(c, NULL, 0));
    EXPECT(fmi2Error, "not provided", fmi2SetTime(c, 0.0));
    EXPECT(fmi2Error, "not finite", fmi2SetupExperiment(c, fmi2False, 0.0, NAN, fmi2False, 0.0));
    fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0);
    fmi2EnterInitializationMode(c);
    fmi2ExitInitializationMode(c);
    const fmi2ValueReference in = input_vr(0), out = output_vr(0), time_vr = 0, bad = 100000;
    double before, after, v = 0.5;
    fmi2SetReal(c, &in, 1, &v);
    fmi2GetReal(c, &out, 1, &before);
    const double nan = NAN, inf = INFINITY;
    EXPECT(fmi2Error, "is not finite", fmi2SetReal(c, &in, 1, &nan));
    EXPECT(fmi2Error, "is not finite", fmi2SetReal(c, &in, 1, &inf));
    EXPECT(fmi2Error, "is an output", fmi2SetReal(c, &out, 1, &v));
    EXPECT(fmi2Error, "independent variable", fmi2SetReal(c, &time_vr, 1, &v));
    EXPECT(fmi2Error, "no Real variable", fmi2GetReal(c, &bad, 1, &v));
    EXPECT(fmi2Error, "NULL argument", fmi2GetReal(c, NULL, 1, &v));
    EXPECT(fmi2Error, "no Integer variables", fmi2SetInteger(c, &in, 1, (const fmi2Integer[]){1}));
    const fmi2ValueReference two[2] = {in, out};
    const double pair[2] = {2.0, 3.0};
    EXPECT(fmi2Error, "is an output", fmi2SetReal(c, two, 2, pair)); /* checked before any is set */
    fmi2GetReal(c, &out, 1, &after);
    CHECK(after == before, "a refused Set changed the output: %g -> %g", before, after);
    if (C->np > 0) {
        const fmi2ValueReference p = parameter_vr(0);
        EXPECT(fmi2Error, "is not finite", fmi2SetReal(c, &p, 1, &nan));
    }
    EXPECT(fmi2Error, "is not this FMU's time", fmi2DoStep(c, 1.0, 0.1, fmi2True));
    EXPECT(fmi2Error, "step >= 0", fmi2DoStep(c, 0.0, -0.1, fmi2True));
    EXPECT(fmi2Error, "step >= 0", fmi2DoStep(c, 0.0, NAN, fmi2True));
    EXPECT(fmi2OK, NULL, fmi2DoStep(c, 0.0, 0.0, fmi2True)); /* a step of zero changes nothing */
    fmi2Real t = -1.0;
    EXPECT(fmi2OK, NULL, fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &t));
    CHECK(t == 0.0, "the zero step moved time to %g", t);
    EXPECT(fmi2Error, "unknown log category", fmi2SetDebugLogging(c, fmi2True, 1, (const fmi2String[]){"logNope"}));
    EXPECT(fmi2OK, NULL, fmi2SetDebugLogging(c, fmi2True, 1, (const fmi2String[]){"logCalls"}));
    EXPECT(fmi2OK, NULL, fmi2Terminate(c));
    EXPECT(fmi2Error, "not allowed in terminated", fmi2DoStep(c, 0.0, 0.1, fmi2True));
    EXPECT(fmi2OK, NULL, fmi2Reset(c));
    fmi2FreeInstance(c);
}

static void states(void)
{
    const double h = 0.013; /* no divisor of any sample time: samples fall inside steps */
    fmi2Component c = started();
    static double first[200][8], again[200][8];
    double y[64];
    for (int k = 0; k < 100; ++k) drive(c, k * h, h, y);
    fmi2FMUstate s = NULL;
    EXPECT(fmi2OK, NULL, fmi2GetFMUstate(c, &s));
    size_t size = 0;
    EXPECT(fmi2OK, NULL, fmi2SerializedFMUstateSize(c, s, &size));
    fmi2Byte *bytes = malloc(size), *broken = malloc(size);
    EXPECT(fmi2OK, NULL, fmi2SerializeFMUstate(c, s, bytes, size));
    EXPECT(fmi2Error, "too small", fmi2SerializeFMUstate(c, s, bytes, size - 1));
    for (int k = 100; k < 200; ++k) {
        CHECK(drive(c, k * h, h, y) == fmi2OK, "doStep at %g failed", k * h);
        for (int i = 0; i < C->ny && i < 8; ++i) first[k][i] = y[i];
    }
    for (int round = 0; round < 2; ++round) {
        if (round == 0) {
            EXPECT(fmi2OK, NULL, fmi2SetFMUstate(c, s));
        } else {
            fmi2FMUstate d = NULL;
            EXPECT(fmi2OK, NULL, fmi2DeSerializeFMUstate(c, bytes, size, &d));
            EXPECT(fmi2OK, NULL, fmi2SetFMUstate(c, d));
            fmi2FreeFMUstate(c, &d);
        }
        for (int k = 100; k < 200; ++k) {
            drive(c, k * h, h, y);
            for (int i = 0; i < C->ny && i < 8; ++i) again[k][i] = y[i];
        }
        CHECK(memcmp(first[100], again[100], sizeof(double) * 8 * 100) == 0, "restored run differs (round %d)", round);
    }
    memcpy(broken, bytes, size);
    broken[size / 2] ^= 0x5a;
    fmi2FMUstate d = NULL;
    EXPECT(fmi2Error, "checksum", fmi2DeSerializeFMUstate(c, broken, size, &d));
    EXPECT(fmi2Error, "expected", fmi2DeSerializeFMUstate(c, bytes, size - 8, &d));
    EXPECT(fmi2Error, "not a serialized", fmi2DeSerializeFMUstate(c, bytes, 4, &d));
    CHECK(d == NULL, "a refused state was returned");
    EXPECT(fmi2Error, "NULL", fmi2SetFMUstate(c, NULL));
    fmi2FreeFMUstate(c, &s);
    CHECK(s == NULL, "FreeFMUstate left the pointer");
    free(bytes);
    free(broken);
    fmi2FreeInstance(c);
}

int main(void)
{
    instantiation();
    wrong_calls();
    states();
    printf("checks %d failed %d\n", n_checks, n_failed);
    return n_failed ? 1 : 0;
}
