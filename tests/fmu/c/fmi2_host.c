/*
 * fmi2_host.c -- a test host for symbody FMUs, FMI 2.0 (Co-Simulation and
 * Model Exchange).  It calls every FMI 2 function, the right way and the
 * wrong way (NULL instance and arrays, unknown value references, wrong types,
 * NaN, infinite and out-of-range values, calls in the wrong state, corrupted
 * FMU states, numerical faults), and checks the returned status, the log
 * message and that a failed call leaves the state as it was.
 *
 *   fmi2_host abuse [mass=NAME] [length=NAME] [discard=NAME:VALUE:TEXT ...]
 *   fmi2_host long      a long simulation of every interface and solver (valgrind)
 *   fmi2_host threads   instances in parallel threads give the single-thread results
 *
 * mass/length name parameters with min = 0; each discard names a parameter
 * value that must make the next step fail with fmi2Discard and TEXT in the
 * message.  Exit status 0 when every check passed.
 */
#include "fmi2Functions.h"
#include "sb_runtime.h"

static const char *const HOST = "fmi2_host";

#include "host_checks.h"

static void logger(fmi2ComponentEnvironment env, fmi2String instanceName, fmi2Status status, fmi2String category,
                   fmi2String message, ...)
{
    (void)instanceName;
    char buf[2048];
    va_list ap;
    va_start(ap, message);
    vsnprintf(buf, sizeof buf, message ? message : "(null)", ap);
    va_end(ap);
    log_add((HostLog *)env, (int)status, category, buf);
}

static fmi2CallbackFunctions callbacks(HostLog *log)
{
    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, log};
    return cb;
}

static fmi2Component instantiate(fmi2Type type, HostLog *log, const fmi2CallbackFunctions *cb)
{
    log_clear(log);
    fmi2Component c = fmi2Instantiate("host", type, sb_model.token, "file:///nonexistent", cb, fmi2False, fmi2False);
    CHECK(c != NULL, "fmi2Instantiate failed; log:\n%s", log->text);
    if (!c) exit(1);
    return c;
}

/* All Real variables (time, states, accelerations, inputs, parameters, outputs, settings). */
static void get_all_reals(fmi2Component c, HostLog *log, double *values)
{
    for (int i = 0; i < sb_model.nvars; ++i) {
        const unsigned vr = vr_at(i);
        values[i] = 0.0;
        if (sb_model.variables[i].type == SB_TYPE_REAL) EXPECT(log, fmi2OK, NULL, fmi2GetReal(c, &vr, 1, &values[i]));
    }
}

/* ------------------------------------------------------------------------ */

static void test_versions(void)
{
    CHECK(strcmp(fmi2GetVersion(), "2.0") == 0, "fmi2GetVersion() = %s", fmi2GetVersion());
    CHECK(strcmp(fmi2GetTypesPlatform(), "default") == 0, "fmi2GetTypesPlatform() = %s", fmi2GetTypesPlatform());
}

static void test_instantiate(void)
{
    HostLog log;
    log_clear(&log);
    fmi2CallbackFunctions cb = callbacks(&log);
    CHECK(fmi2Instantiate("x", fmi2CoSimulation, sb_model.token, "", NULL, 0, 0) == NULL, "no callbacks");
    CHECK(fmi2Instantiate("x", fmi2CoSimulation, "{not-the-token}", "", &cb, 0, 0) == NULL, "wrong GUID accepted");
    CHECK(strstr(log.text, "token") != NULL, "wrong GUID: log:\n%s", log.text);
    log_clear(&log);
    /* format directives in the name and GUID reach the logger as text (the FMI 2 logger is printf-like) */
    CHECK(fmi2Instantiate("%s%n%s", fmi2CoSimulation, "{%s%n%x}", "", &cb, 0, 0) == NULL, "wrong GUID accepted");
    CHECK(strstr(log.text, "'{%s%n%x}'") != NULL, "GUID with format directives: log:\n%s", log.text);
    log_clear(&log);
    CHECK(fmi2Instantiate("x", (fmi2Type)7, sb_model.token, "", &cb, 0, 0) == NULL, "fmuType 7 accepted");
    CHECK(strstr(log.text, "fmuType") != NULL, "fmuType 7: log:\n%s", log.text);

    /* NULL name, NULL GUID, NULL resource location: allowed, the instance works */
    fmi2Component c = fmi2Instantiate(NULL, fmi2CoSimulation, NULL, NULL, &cb, fmi2False, fmi2True);
    CHECK(c != NULL, "NULL name and GUID: log:\n%s", log.text);
    if (c) {
        unsigned bad = 100000;
        double v;
        EXPECT(&log, fmi2Error, "unknown value reference 100000", fmi2GetReal(c, &bad, 1, &v));
        initialize(c, &log);
        EXPECT(&log, fmi2OK, NULL, fmi2DoStep(c, 0.0, 0.01, fmi2True));
        fmi2FreeInstance(c);
    }

    /* no logger: errors are silent but still reported by status */
    fmi2CallbackFunctions quiet = {NULL, calloc, free, NULL, NULL};
    c = fmi2Instantiate("quiet", fmi2ModelExchange, sb_model.token, "", &quiet, fmi2False, fmi2True);
    CHECK(c != NULL, "no logger");
    if (c) {
        unsigned bad = vr_at(sb_model.nvars);
        double v;
        CHECK(fmi2GetReal(c, &bad, 1, &v) == fmi2Error, "unknown value reference without a logger");
        CHECK(fmi2DoStep(c, 0.0, 0.1, fmi2False) == fmi2Error, "doStep on Model Exchange");
        fmi2FreeInstance(c);
    }
    fmi2FreeInstance(NULL);
}

/* Every function with a NULL instance returns fmi2Error and does not crash. */
static void test_null_instance(void)
{
    fmi2Real r = 0.0;
    fmi2Integer i = 0;
    fmi2Boolean b = 0;
    fmi2String s = NULL;
    fmi2ValueReference vr = 0;
    fmi2FMUstate state = NULL;
    size_t size = 0;
    fmi2Byte bytes[8];
    fmi2EventInfo info;
    fmi2Status status;
    const fmi2Status E = fmi2Error;
    CHECK(fmi2SetDebugLogging(NULL, fmi2True, 0, NULL) == E, "SetDebugLogging");
    CHECK(fmi2SetupExperiment(NULL, 0, 0.0, 0.0, 0, 0.0) == E, "SetupExperiment");
    CHECK(fmi2EnterInitializationMode(NULL) == E, "EnterInitializationMode");
    CHECK(fmi2ExitInitializationMode(NULL) == E, "ExitInitializationMode");
    CHECK(fmi2Terminate(NULL) == E, "Terminate");
    CHECK(fmi2Reset(NULL) == E, "Reset");
    CHECK(fmi2GetReal(NULL, &vr, 1, &r) == E, "GetReal");
    CHECK(fmi2GetInteger(NULL, &vr, 1, &i) == E, "GetInteger");
    CHECK(fmi2GetBoolean(NULL, &vr, 1, &b) == E, "GetBoolean");
    CHECK(fmi2GetString(NULL, &vr, 1, &s) == E, "GetString");
    CHECK(fmi2SetReal(NULL, &vr, 1, &r) == E, "SetReal");
    CHECK(fmi2SetInteger(NULL, &vr, 1, &i) == E, "SetInteger");
    CHECK(fmi2SetBoolean(NULL, &vr, 1, &b) == E, "SetBoolean");
    CHECK(fmi2SetString(NULL, &vr, 1, &s) == E, "SetString");
    CHECK(fmi2GetFMUstate(NULL, &state) == E, "GetFMUstate");
    CHECK(fmi2SetFMUstate(NULL, state) == E, "SetFMUstate");
    CHECK(fmi2FreeFMUstate(NULL, &state) == E, "FreeFMUstate");
    CHECK(fmi2SerializedFMUstateSize(NULL, state, &size) == E, "SerializedFMUstateSize");
    CHECK(fmi2SerializeFMUstate(NULL, state, bytes, sizeof bytes) == E, "SerializeFMUstate");
    CHECK(fmi2DeSerializeFMUstate(NULL, bytes, sizeof bytes, &state) == E, "DeSerializeFMUstate");
    CHECK(fmi2GetDirectionalDerivative(NULL, &vr, 1, &vr, 1, &r, &r) == E, "GetDirectionalDerivative");
    CHECK(fmi2EnterEventMode(NULL) == E, "EnterEventMode");
    CHECK(fmi2NewDiscreteStates(NULL, &info) == E, "NewDiscreteStates");
    CHECK(fmi2EnterContinuousTimeMode(NULL) == E, "EnterContinuousTimeMode");
    CHECK(fmi2CompletedIntegratorStep(NULL, fmi2True, &b, &b) == E, "CompletedIntegratorStep");
    CHECK(fmi2SetTime(NULL, 0.0) == E, "SetTime");
    CHECK(fmi2SetContinuousStates(NULL, &r, 1) == E, "SetContinuousStates");
    CHECK(fmi2GetDerivatives(NULL, &r, 1) == E, "GetDerivatives");
    CHECK(fmi2GetEventIndicators(NULL, &r, 0) == E, "GetEventIndicators");
    CHECK(fmi2GetContinuousStates(NULL, &r, 1) == E, "GetContinuousStates");
    CHECK(fmi2GetNominalsOfContinuousStates(NULL, &r, 1) == E, "GetNominalsOfContinuousStates");
    CHECK(fmi2SetRealInputDerivatives(NULL, &vr, 1, &i, &r) == E, "SetRealInputDerivatives");
    CHECK(fmi2GetRealOutputDerivatives(NULL, &vr, 1, &i, &r) == E, "GetRealOutputDerivatives");
    CHECK(fmi2DoStep(NULL, 0.0, 0.1, fmi2False) == E, "DoStep");
    CHECK(fmi2CancelStep(NULL) == E, "CancelStep");
    CHECK(fmi2GetStatus(NULL, fmi2DoStepStatus, &status) == E, "GetStatus");
    CHECK(fmi2GetRealStatus(NULL, fmi2LastSuccessfulTime, &r) == E, "GetRealStatus");
    CHECK(fmi2GetIntegerStatus(NULL, fmi2DoStepStatus, &i) == E, "GetIntegerStatus");
    CHECK(fmi2GetBooleanStatus(NULL, fmi2Terminated, &b) == E, "GetBooleanStatus");
    CHECK(fmi2GetStringStatus(NULL, fmi2PendingStatus, &s) == E, "GetStringStatus");
    fmi2FreeInstance(NULL);
}

/* Get/Set with bad arguments: unknown value references, NULL arrays, wrong types, bad values. */
static void test_values(fmi2Component c, HostLog *log, const HostArgs *args)
{
    const unsigned unknown[] = {vr_at(sb_model.nvars), vr_at(sb_model.nvars) + 1000u, 0xFFFFFFFFu};
    double r = 0.0;
    fmi2Integer i = 0;
    fmi2Boolean b = 0;
    fmi2String s = NULL;
    for (int k = 0; k < 3; ++k) {
        const unsigned *vr = &unknown[k];
        EXPECT(log, fmi2Error, "unknown value reference", fmi2GetReal(c, vr, 1, &r));
        EXPECT(log, fmi2Error, "unknown value reference", fmi2SetReal(c, vr, 1, &r));
        EXPECT(log, fmi2Error, "unknown value reference", fmi2GetInteger(c, vr, 1, &i));
        EXPECT(log, fmi2Error, "unknown value reference", fmi2SetInteger(c, vr, 1, &i));
        EXPECT(log, fmi2Error, "unknown value reference", fmi2GetBoolean(c, vr, 1, &b));
        EXPECT(log, fmi2Error, "unknown value reference", fmi2SetBoolean(c, vr, 1, &b));
        EXPECT(log, fmi2Error, NULL, fmi2GetString(c, vr, 1, &s));
        EXPECT(log, fmi2Error, NULL, fmi2SetString(c, vr, 1, &s));
    }
    /* a good value and a bad one in the same call: error, and nothing is set */
    const int in = first_of_kind(SB_VAR_U);
    if (in >= 0) {
        const unsigned pair[2] = {(unsigned)in, unknown[0]}, pair2[2] = {(unsigned)in, (unsigned)in};
        const double before = get_real(c, log, (unsigned)in), vals[2] = {before + 1.0, 0.0};
        const double vals2[2] = {before + 1.0, NAN};
        EXPECT(log, fmi2Error, "unknown value reference", fmi2SetReal(c, pair, 2, vals));
        EXPECT(log, fmi2Error, "not finite", fmi2SetReal(c, pair2, 2, vals2));
        const double after = get_real(c, log, (unsigned)in);
        CHECK(after == before, "a rejected SetReal changed '%s' to %g", var_of((unsigned)in)->name, after);
    }

    /* NULL arrays: an error when values are asked for, fine when there are none */
    const unsigned t = vr_of("time");
    EXPECT(log, fmi2Error, "NULL", fmi2GetReal(c, NULL, 1, &r));
    EXPECT(log, fmi2Error, "NULL", fmi2GetReal(c, &t, 1, NULL));
    EXPECT(log, fmi2Error, "NULL", fmi2SetReal(c, NULL, 1, &r));
    EXPECT(log, fmi2Error, "NULL", fmi2SetReal(c, &t, 1, NULL));
    EXPECT(log, fmi2Error, "NULL", fmi2GetInteger(c, NULL, 1, &i));
    EXPECT(log, fmi2Error, "NULL", fmi2SetInteger(c, &t, 1, NULL));
    EXPECT(log, fmi2Error, "NULL", fmi2GetBoolean(c, &t, 1, NULL));
    EXPECT(log, fmi2Error, "NULL", fmi2SetBoolean(c, NULL, 1, &b));
    EXPECT(log, fmi2OK, NULL, fmi2GetReal(c, NULL, 0, NULL));
    EXPECT(log, fmi2OK, NULL, fmi2SetReal(c, NULL, 0, NULL));
    EXPECT(log, fmi2OK, NULL, fmi2GetInteger(c, NULL, 0, NULL));
    EXPECT(log, fmi2OK, NULL, fmi2SetInteger(c, NULL, 0, NULL));
    EXPECT(log, fmi2OK, NULL, fmi2GetBoolean(c, NULL, 0, NULL));
    EXPECT(log, fmi2OK, NULL, fmi2SetBoolean(c, NULL, 0, NULL));
    EXPECT(log, fmi2OK, NULL, fmi2GetString(c, NULL, 0, NULL));
    EXPECT(log, fmi2OK, NULL, fmi2SetString(c, NULL, 0, NULL));

    /* calculated variables cannot be set */
    const double one = 1.0;
    EXPECT(log, fmi2Error, "'time'", fmi2SetReal(c, &t, 1, &one));
    const unsigned ddq = (unsigned)first_of_kind(SB_VAR_DDQ);
    EXPECT(log, fmi2Error, var_of(ddq)->name, fmi2SetReal(c, &ddq, 1, &one));
    const int y = first_of_kind(SB_VAR_Y);
    if (y >= 0) {
        const unsigned vy = (unsigned)y;
        EXPECT(log, fmi2Error, var_of((unsigned)y)->name, fmi2SetReal(c, &vy, 1, &one));
    }

    /* non-finite values: inputs, parameters, states, settings; the old value stays */
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int v = 0; v < sb_model.nvars; ++v) {
        const SbVariable *var = &sb_model.variables[v];
        if (var->type != SB_TYPE_REAL || !(var->kind == SB_VAR_U || var->kind == SB_VAR_P ||
                                           var->kind == SB_VAR_Q || var->kind == SB_VAR_DQ ||
                                           var->kind == SB_VAR_SETTING))
            continue;
        const unsigned vr = vr_at(v);
        const double before = get_real(c, log, vr);
        for (int k = 0; k < 3; ++k) EXPECT(log, fmi2Error, var->name, fmi2SetReal(c, &vr, 1, &bad[k]));
        double after = get_real(c, log, vr);
        CHECK(memcmp(&before, &after, sizeof after) == 0, "'%s' changed by a rejected value", var->name);
    }

    /* out-of-range parameters and settings */
    const double neg = -1.0, zero = 0.0;
    if (args->mass) {
        const unsigned vr = vr_of(args->mass);
        EXPECT(log, fmi2Error, args->mass, fmi2SetReal(c, &vr, 1, &neg));
        EXPECT(log, fmi2Error, "outside its range", fmi2SetReal(c, &vr, 1, &neg));
    }
    if (args->length) {
        const unsigned vr = vr_of(args->length);
        EXPECT(log, fmi2Error, args->length, fmi2SetReal(c, &vr, 1, &neg));
    }
    const unsigned step = vr_of("solver.step"), rtol = vr_of("solver.rtol"), atol = vr_of("solver.atol");
    const unsigned hmax = vr_of("solver.max_step"), method = vr_of("solver.method");
    EXPECT(log, fmi2Error, "'solver.step'", fmi2SetReal(c, &step, 1, &zero));
    EXPECT(log, fmi2Error, "'solver.step'", fmi2SetReal(c, &step, 1, &neg));
    EXPECT(log, fmi2Error, "'solver.rtol'", fmi2SetReal(c, &rtol, 1, &zero));
    EXPECT(log, fmi2Error, "'solver.atol'", fmi2SetReal(c, &atol, 1, &neg));
    EXPECT(log, fmi2Error, "'solver.max_step'", fmi2SetReal(c, &hmax, 1, &neg));
    const fmi2Integer methods[] = {0, 4, -1, 2147483647};
    for (int k = 0; k < 4; ++k) EXPECT(log, fmi2Error, "'solver.method'", fmi2SetInteger(c, &method, 1, &methods[k]));

    /* wrong types */
    EXPECT(log, fmi2Error, "'solver.method'", fmi2SetReal(c, &method, 1, &one));
    EXPECT(log, fmi2Error, "'solver.method'", fmi2GetReal(c, &method, 1, &r));
    EXPECT(log, fmi2Error, "'time'", fmi2GetInteger(c, &t, 1, &i));
    EXPECT(log, fmi2Error, "'time'", fmi2SetBoolean(c, &t, 1, &b));
    EXPECT(log, fmi2Error, "'time'", fmi2GetBoolean(c, &t, 1, &b));
    EXPECT(log, fmi2OK, NULL, fmi2GetInteger(c, &method, 1, &i));
    CHECK(i == 2, "solver.method = %d after rejected values", (int)i);

    /* input derivatives of what is no input (time); output derivatives, which symbody FMUs do not have */
    EXPECT(log, fmi2Error, NULL, fmi2SetRealInputDerivatives(c, &t, 1, &i, &r));
    EXPECT(log, fmi2Error, NULL, fmi2GetRealOutputDerivatives(c, &t, 1, &i, &r));
    EXPECT(log, fmi2OK, NULL, fmi2SetRealInputDerivatives(c, NULL, 0, NULL, NULL));
    /* output derivatives only in step mode and terminated (FMI 2.0.4 table 4.2.4) */
    EXPECT(log, fmi2Error, "not allowed", fmi2GetRealOutputDerivatives(c, NULL, 0, NULL, NULL));
    fmi2Status status;
    EXPECT(log, fmi2Error, NULL, fmi2GetStatus(c, fmi2DoStepStatus, &status));
    EXPECT(log, fmi2Error, NULL, fmi2GetIntegerStatus(c, fmi2DoStepStatus, &i));
    EXPECT(log, fmi2Error, NULL, fmi2GetStringStatus(c, fmi2PendingStatus, &s));
    EXPECT(log, fmi2Error, NULL, fmi2GetRealStatus(c, fmi2LastSuccessfulTime, NULL));
    EXPECT(log, fmi2Error, NULL, fmi2GetBooleanStatus(c, fmi2Terminated, NULL));
    EXPECT(log, fmi2Error, NULL, fmi2CancelStep(c));
}

/* FMU state: NULL pointers, short buffers, corrupted bytes. */
static void test_fmu_state(fmi2Component c, HostLog *log, const HostArgs *args)
{
    fmi2FMUstate state = NULL, other = NULL;
    size_t size = 0;
    EXPECT(log, fmi2Error, "NULL", fmi2GetFMUstate(c, NULL));
    EXPECT(log, fmi2OK, NULL, fmi2GetFMUstate(c, &state));
    EXPECT(log, fmi2OK, NULL, fmi2GetFMUstate(c, &state)); /* reuses the allocation */
    EXPECT(log, fmi2Error, NULL, fmi2SetFMUstate(c, NULL));
    EXPECT(log, fmi2Error, "NULL", fmi2SerializedFMUstateSize(c, state, NULL));
    EXPECT(log, fmi2OK, NULL, fmi2SerializedFMUstateSize(c, state, &size));
    CHECK(size > 20, "serialized size %zu", size);
    unsigned char *bytes = calloc(size + 8, 1);
    EXPECT(log, fmi2Error, "too small", fmi2SerializeFMUstate(c, state, (fmi2Byte *)bytes, size - 1));
    EXPECT(log, fmi2Error, NULL, fmi2SerializeFMUstate(c, state, NULL, size));
    EXPECT(log, fmi2Error, NULL, fmi2SerializeFMUstate(c, NULL, (fmi2Byte *)bytes, size));
    EXPECT(log, fmi2OK, NULL, fmi2SerializeFMUstate(c, state, (fmi2Byte *)bytes, size));
    EXPECT(log, fmi2Error, NULL, fmi2DeSerializeFMUstate(c, (fmi2Byte *)bytes, size - 1, &other));
    EXPECT(log, fmi2Error, NULL, fmi2DeSerializeFMUstate(c, (fmi2Byte *)bytes, size + 8, &other));
    EXPECT(log, fmi2Error, NULL, fmi2DeSerializeFMUstate(c, NULL, size, &other));
    EXPECT(log, fmi2Error, "NULL", fmi2DeSerializeFMUstate(c, (fmi2Byte *)bytes, size, NULL));
    CHECK(other == NULL, "a failed deserialization returned a state");
    unsigned char *corrupt = malloc(size);
    memcpy(corrupt, bytes, size);
    corrupt[0] ^= 0xFF; /* magic */
    EXPECT(log, fmi2Error, NULL, fmi2DeSerializeFMUstate(c, (fmi2Byte *)corrupt, size, &other));
    memset(corrupt, 0xFF, size);
    EXPECT(log, fmi2Error, NULL, fmi2DeSerializeFMUstate(c, (fmi2Byte *)corrupt, size, &other));
    /* every single corrupted byte, anywhere (header, values, checksum), is refused */
    int accepted = 0;
    for (size_t k = 0; k < size; ++k)
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(corrupt, bytes, size);
            corrupt[k] ^= (unsigned char)(1u << bit);
            if (fmi2DeSerializeFMUstate(c, (fmi2Byte *)corrupt, size, &other) == fmi2OK) {
                ++accepted;
                fmi2FreeFMUstate(c, &other);
            }
        }
    CHECK(accepted == 0, "%d corrupted serialized states accepted", accepted);
    EXPECT(log, fmi2Error, "checksum", fmi2DeSerializeFMUstate(c, (fmi2Byte *)corrupt, size, &other));
    /* states with a valid checksum: another model's identity, values that Set refuses */
    memcpy(corrupt, bytes, size);
    corrupt[8] ^= 1;
    reseal(corrupt, size);
    EXPECT(log, fmi2Error, "another model", fmi2DeSerializeFMUstate(c, (fmi2Byte *)corrupt, size, &other));
    const double nan = NAN, neg = -1.0;
    const unsigned q = (unsigned)first_of_kind(SB_VAR_Q);
    memcpy(corrupt, bytes, size);
    memcpy(corrupt + serialized_offset(q), &nan, sizeof nan);
    reseal(corrupt, size);
    EXPECT(log, fmi2Error, "not finite", fmi2DeSerializeFMUstate(c, (fmi2Byte *)corrupt, size, &other));
    const unsigned method = vr_of("solver.method");
    memcpy(corrupt, bytes, size);
    memcpy(corrupt + serialized_offset(method), &neg, sizeof neg);
    reseal(corrupt, size);
    EXPECT(log, fmi2Error, "solver.method", fmi2DeSerializeFMUstate(c, (fmi2Byte *)corrupt, size, &other));
    if (args->mass) {
        memcpy(corrupt, bytes, size);
        memcpy(corrupt + serialized_offset(vr_of(args->mass)), &neg, sizeof neg);
        reseal(corrupt, size);
        EXPECT(log, fmi2Error, "outside its range", fmi2DeSerializeFMUstate(c, (fmi2Byte *)corrupt, size, &other));
        CHECK(strstr(log->text, args->mass) != NULL, "negative mass: log:\n%s", log->text);
    }
    CHECK(other == NULL, "a refused state was returned");
    free(corrupt);
    /* in memory: a snapshot of another model (identity), or with a value Set refuses */
    SbSnapshot *snap = (SbSnapshot *)state;
    snap->identity ^= 1;
    EXPECT(log, fmi2Error, "another model", fmi2SetFMUstate(c, state));
    snap->identity ^= 1;
    if (args->mass) {
        double *slot = (double *)((unsigned char *)snap->S + serialized_offset(vr_of(args->mass)) - 32);
        const double mass = *slot;
        *slot = -1.0;
        EXPECT(log, fmi2Error, args->mass, fmi2SetFMUstate(c, state));
        *slot = mass;
    }
    EXPECT(log, fmi2OK, NULL, fmi2SetFMUstate(c, state));
    EXPECT(log, fmi2OK, NULL, fmi2DeSerializeFMUstate(c, (fmi2Byte *)bytes, size, &other));
    EXPECT(log, fmi2OK, NULL, fmi2SetFMUstate(c, other));
    EXPECT(log, fmi2OK, NULL, fmi2FreeFMUstate(c, &other));
    CHECK(other == NULL, "FreeFMUstate did not clear the pointer");
    EXPECT(log, fmi2OK, NULL, fmi2FreeFMUstate(c, &other)); /* freeing NULL */
    EXPECT(log, fmi2OK, NULL, fmi2FreeFMUstate(c, NULL));
    EXPECT(log, fmi2OK, NULL, fmi2FreeFMUstate(c, &state));
    free(bytes);
}

static void test_directional_derivatives(fmi2Component c, HostLog *log)
{
    const unsigned ddq = (unsigned)first_of_kind(SB_VAR_DDQ), q = (unsigned)first_of_kind(SB_VAR_Q);
    const unsigned p = (unsigned)first_of_kind(SB_VAR_P), bad = vr_at(sb_model.nvars);
    const double one = 1.0, nan = NAN;
    double d = 0.0;
    EXPECT(log, fmi2OK, NULL, fmi2GetDirectionalDerivative(c, &ddq, 1, &q, 1, &one, &d));
    CHECK(isfinite(d), "d ddq / d q = %g", d);
    EXPECT(log, fmi2OK, NULL, fmi2GetDirectionalDerivative(c, NULL, 0, NULL, 0, NULL, NULL));
    EXPECT(log, fmi2Error, "unknown value reference", fmi2GetDirectionalDerivative(c, &bad, 1, &q, 1, &one, &d));
    EXPECT(log, fmi2Error, "unknown value reference", fmi2GetDirectionalDerivative(c, &ddq, 1, &bad, 1, &one, &d));
    if (first_of_kind(SB_VAR_P) >= 0)
        EXPECT(log, fmi2Error, var_of(p)->name, fmi2GetDirectionalDerivative(c, &ddq, 1, &p, 1, &one, &d));
    EXPECT(log, fmi2Error, "not finite", fmi2GetDirectionalDerivative(c, &ddq, 1, &q, 1, &nan, &d));
    EXPECT(log, fmi2Error, "NULL", fmi2GetDirectionalDerivative(c, &ddq, 1, &q, 1, NULL, &d));
    EXPECT(log, fmi2Error, "NULL", fmi2GetDirectionalDerivative(c, &ddq, 1, &q, 1, &one, NULL));
    EXPECT(log, fmi2Error, "NULL", fmi2GetDirectionalDerivative(c, NULL, 1, &q, 1, &one, &d));
}

/* A parameter value that makes the step fail: Discard, the state stays at the start of the step,
   and the same step succeeds once the value is restored. */
static fmi2Boolean terminated(fmi2Component c, HostLog *log)
{
    fmi2Boolean b = 7;
    EXPECT(log, fmi2OK, NULL, fmi2GetBooleanStatus(c, fmi2Terminated, &b));
    return b;
}

/* A parameter value that makes the step fail: Discard, the state stays at the start of the step,
   and the same step succeeds once the value is restored.  fmi2Terminated tells the master whether
   retrying can help: not when the state at the communication point is inadmissible (faults that
   are not specific to Co-Simulation), nor after SB_MAX_RETRIES discards in a row. */
static void test_discard(fmi2Component c, HostLog *log, const Fault *f, double h)
{
    const unsigned vr = vr_of(f->name), method = vr_of("solver.method"), step = vr_of("solver.step");
    double before[512], after[512], t = get_real(c, log, vr_of("time")), last = NAN;
    const double old = get_real(c, log, vr);
    const fmi2Integer rk4 = 1, dopri5 = 2;
    if (f->rk4) { /* one internal rk4 step */
        EXPECT(log, fmi2OK, NULL, fmi2SetInteger(c, &method, 1, &rk4));
        h = get_real(c, log, step);
    }
    EXPECT(log, fmi2OK, NULL, fmi2SetReal(c, &vr, 1, &f->value));
    get_state(c, log, before);
    EXPECT(log, fmi2Discard, f->text, fmi2DoStep(c, t, h, fmi2False));
    CHECK(log->worst == fmi2Discard, "discarded step logged status %d", log->worst);
    get_state(c, log, after);
    CHECK(same_values(before, after), "the state changed in a discarded step (%s = %g)", f->name, f->value);
    EXPECT(log, fmi2OK, NULL, fmi2GetRealStatus(c, fmi2LastSuccessfulTime, &last));
    CHECK(last == t, "last successful time %g, expected %g", last, t);
    CHECK(terminated(c, log) == !f->cs_only, "fmi2Terminated = %d after '%s' = %g", !f->cs_only, f->name, f->value);
    if (f->cs_only) { /* a master that retries the same step forever is told to stop */
        for (int k = 2; k <= 10; ++k) {
            EXPECT(log, fmi2Discard, f->text, fmi2DoStep(c, t, h, fmi2False));
            CHECK((strstr(log->text, "terminate the simulation") != NULL) == (k == 10),
                  "request to terminate after %d discards: log:\n%s", k, log->text);
            CHECK(terminated(c, log) == (k == 10), "fmi2Terminated after %d discards at t = %g", k, t);
        }
    }
    EXPECT(log, fmi2OK, NULL, fmi2SetReal(c, &vr, 1, &old));
    EXPECT(log, fmi2OK, NULL, fmi2DoStep(c, t, h, fmi2False));
    CHECK(!terminated(c, log), "fmi2Terminated after a successful step");
    if (f->rk4) EXPECT(log, fmi2OK, NULL, fmi2SetInteger(c, &method, 1, &dopri5));
}

static void test_co_simulation(const HostArgs *args)
{
    HostLog log;
    fmi2CallbackFunctions cb = callbacks(&log);
    fmi2Component c = instantiate(fmi2CoSimulation, &log, &cb);
    const unsigned t = vr_of("time");
    fmi2EventInfo info;
    double r = 0.0;

    /* instantiated: nothing that needs an initialized FMU */
    EXPECT(&log, fmi2Error, "fmi2DoStep", fmi2DoStep(c, 0.0, 0.1, fmi2False));
    EXPECT(&log, fmi2Error, "fmi2ExitInitializationMode", fmi2ExitInitializationMode(c));
    EXPECT(&log, fmi2Error, "fmi2Terminate", fmi2Terminate(c));
    EXPECT(&log, fmi2Error, NULL, fmi2GetDirectionalDerivative(c, &t, 1, &t, 1, &r, &r));
    EXPECT(&log, fmi2Error, NULL, fmi2GetDerivatives(c, &r, 1));
    EXPECT(&log, fmi2Error, NULL, fmi2NewDiscreteStates(c, &info));
    EXPECT(&log, fmi2Error, NULL, fmi2EnterContinuousTimeMode(c));
    EXPECT(&log, fmi2Error, NULL, fmi2SetTime(c, 1.0));
    EXPECT(&log, fmi2Error, "startTime", fmi2SetupExperiment(c, fmi2False, 0.0, NAN, fmi2False, 0.0));
    test_logging(c, &log);
    test_values(c, &log, args);

    /* initialization mode */
    EXPECT(&log, fmi2OK, NULL, fmi2SetupExperiment(c, fmi2True, 1e-6, 0.0, fmi2False, 0.0));
    EXPECT(&log, fmi2OK, NULL, fmi2EnterInitializationMode(c));
    EXPECT(&log, fmi2Error, NULL, fmi2EnterInitializationMode(c));
    EXPECT(&log, fmi2Error, NULL, fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    EXPECT(&log, fmi2Error, "fmi2DoStep", fmi2DoStep(c, 0.0, 0.1, fmi2False));
    const unsigned q = (unsigned)first_of_kind(SB_VAR_Q);
    const double nan = NAN, q0 = sb_model.q0[0];
    EXPECT(&log, fmi2Error, var_of(q)->name, fmi2SetReal(c, &q, 1, &nan));
    EXPECT(&log, fmi2OK, NULL, fmi2SetReal(c, &q, 1, &q0));
    EXPECT(&log, fmi2OK, NULL, fmi2ExitInitializationMode(c));

    /* step mode */
    EXPECT(&log, fmi2Error, "step mode", fmi2SetReal(c, &q, 1, &q0));
    EXPECT(&log, fmi2Error, NULL, fmi2ExitInitializationMode(c));
    EXPECT(&log, fmi2Error, "currentCommunicationPoint", fmi2DoStep(c, 1.0, 0.1, fmi2False));
    EXPECT(&log, fmi2Error, "currentCommunicationPoint", fmi2DoStep(c, NAN, 0.1, fmi2False));
    EXPECT(&log, fmi2Error, "communicationStepSize", fmi2DoStep(c, 0.0, -0.1, fmi2False));
    EXPECT(&log, fmi2Error, "communicationStepSize", fmi2DoStep(c, 0.0, NAN, fmi2False));
    EXPECT(&log, fmi2Error, "communicationStepSize", fmi2DoStep(c, 0.0, INFINITY, fmi2False));
    double before[512], after[512];
    get_state(c, &log, before);
    EXPECT(&log, fmi2OK, NULL, fmi2DoStep(c, 0.0, 0.0, fmi2False)); /* an empty step changes nothing */
    get_state(c, &log, after);
    CHECK(same_values(before, after), "an empty step changed the state");
    for (int k = 0; k < 5; ++k) EXPECT(&log, fmi2OK, NULL, fmi2DoStep(c, 0.02 * k, 0.02, fmi2False));
    double all[512];
    get_all_reals(c, &log, all);
    for (int v = 0; v < sb_model.nvars; ++v)
        CHECK(isfinite(all[v]), "'%s' = %g after 5 steps", sb_model.variables[v].name, all[v]);
    double tnow;
    test_directional_derivatives(c, &log);
    test_fmu_state(c, &log, args);

    /* numerical faults: Discard, state kept, the retry succeeds */
    for (int k = 0; k < args->n_faults; ++k) test_discard(c, &log, &args->faults[k], 0.05);
    const unsigned method = vr_of("solver.method"), step = vr_of("solver.step");
    const fmi2Integer rk4 = 1, dopri5 = 2;
    const double tiny = 1e-12, h = 1e-3;
    EXPECT(&log, fmi2OK, NULL, fmi2SetInteger(c, &method, 1, &rk4));
    EXPECT(&log, fmi2OK, NULL, fmi2SetReal(c, &step, 1, &tiny));
    tnow = get_real(c, &log, t);
    get_state(c, &log, before);
    EXPECT(&log, fmi2Discard, "internal steps", fmi2DoStep(c, tnow, 1.0, fmi2False));
    get_state(c, &log, after);
    CHECK(same_values(before, after), "the state changed in a discarded rk4 step");
    EXPECT(&log, fmi2OK, NULL, fmi2SetReal(c, &step, 1, &h));
    EXPECT(&log, fmi2OK, NULL, fmi2DoStep(c, tnow, 0.01, fmi2False));
    EXPECT(&log, fmi2OK, NULL, fmi2SetInteger(c, &method, 1, &dopri5));

    /* terminated: values can be read, not set; reset starts over */
    EXPECT(&log, fmi2OK, NULL, fmi2Terminate(c));
    EXPECT(&log, fmi2Error, NULL, fmi2Terminate(c));
    tnow = get_real(c, &log, t);
    EXPECT(&log, fmi2Error, "fmi2DoStep", fmi2DoStep(c, tnow, 0.01, fmi2False));
    const int u = first_of_kind(SB_VAR_U);
    if (u >= 0) {
        const unsigned vu = (unsigned)u;
        EXPECT(&log, fmi2Error, "terminated", fmi2SetReal(c, &vu, 1, &r));
    }
    EXPECT(&log, fmi2OK, NULL, fmi2Reset(c));
    CHECK(get_real(c, &log, t) == 0.0, "time after reset");
    initialize(c, &log);
    EXPECT(&log, fmi2OK, NULL, fmi2DoStep(c, 0.0, 0.01, fmi2True));
    fmi2FreeInstance(c);
}

static void test_model_exchange(const HostArgs *args)
{
    HostLog log;
    fmi2CallbackFunctions cb = callbacks(&log);
    fmi2Component c = instantiate(fmi2ModelExchange, &log, &cb);
    const size_t nx = 2 * (size_t)sb_model.nq + (size_t)sb_model.ns;
    double x[256], dx[256], x2[256], r = 0.0;
    fmi2Boolean enter = 0, terminate = 0;
    fmi2EventInfo info;

    EXPECT(&log, fmi2Error, NULL, fmi2GetDerivatives(c, dx, nx));
    EXPECT(&log, fmi2Error, NULL, fmi2EnterEventMode(c));
    EXPECT(&log, fmi2Error, "fmi2DoStep", fmi2DoStep(c, 0.0, 0.1, fmi2False));
    initialize(c, &log); /* event mode */
    EXPECT(&log, fmi2Error, "fmi2DoStep", fmi2DoStep(c, 0.0, 0.1, fmi2False));
    EXPECT(&log, fmi2Error, "eventInfo", fmi2NewDiscreteStates(c, NULL));
    EXPECT(&log, fmi2OK, NULL, fmi2NewDiscreteStates(c, &info));
    EXPECT(&log, fmi2Error, NULL, fmi2CompletedIntegratorStep(c, fmi2True, &enter, &terminate));
    EXPECT(&log, fmi2OK, NULL, fmi2EnterContinuousTimeMode(c));

    /* continuous-time mode: parameters are fixed, states come from the host */
    const unsigned p = (unsigned)first_of_kind(SB_VAR_P);
    const double pv = get_real(c, &log, p);
    EXPECT(&log, fmi2Error, "continuous-time mode", fmi2SetReal(c, &p, 1, &pv));
    EXPECT(&log, fmi2Error, "time", fmi2SetTime(c, NAN));
    EXPECT(&log, fmi2Error, "expected", fmi2GetContinuousStates(c, x, nx + 1));
    EXPECT(&log, fmi2Error, "expected", fmi2GetContinuousStates(c, NULL, nx));
    EXPECT(&log, fmi2OK, NULL, fmi2GetContinuousStates(c, x, nx));
    EXPECT(&log, fmi2Error, "expected", fmi2SetContinuousStates(c, x, nx - 1));
    EXPECT(&log, fmi2Error, "expected", fmi2SetContinuousStates(c, NULL, nx));
    memcpy(x2, x, nx * sizeof(double));
    x2[nx - 1] = NAN;
    EXPECT(&log, fmi2Error, "not finite", fmi2SetContinuousStates(c, x2, nx));
    x2[nx - 1] = INFINITY;
    const char *last = sb_model.ns ? sb_model.state_names[sb_model.ns - 1] : sb_model.coordinate_names[sb_model.nq - 1];
    EXPECT(&log, fmi2Error, last, fmi2SetContinuousStates(c, x2, nx));
    EXPECT(&log, fmi2OK, NULL, fmi2GetContinuousStates(c, x2, nx));
    CHECK(memcmp(x, x2, nx * sizeof(double)) == 0, "rejected states were stored");
    EXPECT(&log, fmi2Error, "expected", fmi2GetDerivatives(c, dx, nx + 3));
    EXPECT(&log, fmi2Error, "expected", fmi2GetDerivatives(c, NULL, nx));
    EXPECT(&log, fmi2Error, "expected", fmi2GetNominalsOfContinuousStates(c, dx, 1));
    EXPECT(&log, fmi2OK, NULL, fmi2GetNominalsOfContinuousStates(c, dx, nx));
    EXPECT(&log, fmi2Error, "event indicators", fmi2GetEventIndicators(c, dx, 1));
    EXPECT(&log, fmi2OK, NULL, fmi2GetEventIndicators(c, NULL, 0));
    EXPECT(&log, fmi2Error, "NULL", fmi2CompletedIntegratorStep(c, fmi2True, NULL, &terminate));
    EXPECT(&log, fmi2Error, NULL, fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    EXPECT(&log, fmi2Error, NULL, fmi2GetRealStatus(c, fmi2DoStepStatus, &r));

    /* explicit Euler by the host */
    double t = 0.0;
    const double h = 1e-3;
    for (int k = 0; k < 200; ++k) {
        EXPECT(&log, fmi2OK, NULL, fmi2GetDerivatives(c, dx, nx));
        for (size_t i = 0; i < nx; ++i) x[i] += h * dx[i];
        t += h;
        EXPECT(&log, fmi2OK, NULL, fmi2SetTime(c, t));
        EXPECT(&log, fmi2OK, NULL, fmi2SetContinuousStates(c, x, nx));
        EXPECT(&log, fmi2OK, NULL, fmi2CompletedIntegratorStep(c, fmi2True, &enter, &terminate));
        CHECK(!enter && !terminate, "CompletedIntegratorStep asks for an event");
    }
    for (size_t i = 0; i < nx; ++i) CHECK(isfinite(x[i]), "state %zu = %g", i, x[i]);

    /* numerical faults: derivatives are discarded, the states stay those the host set */
    for (int k = 0; k < args->n_faults; ++k) {
        const Fault *f = &args->faults[k];
        const unsigned vr = vr_of(f->name);
        const double old = get_real(c, &log, vr);
        EXPECT(&log, fmi2OK, NULL, fmi2EnterEventMode(c));
        EXPECT(&log, fmi2OK, NULL, fmi2SetReal(c, &vr, 1, &f->value));
        EXPECT(&log, fmi2OK, NULL, fmi2EnterContinuousTimeMode(c));
        if (f->cs_only) { /* e.g. the projection: Model Exchange has none, the values stay computable */
            EXPECT(&log, fmi2OK, NULL, fmi2GetDerivatives(c, dx, nx));
        } else {
            EXPECT(&log, fmi2Discard, f->text, fmi2GetDerivatives(c, dx, nx));
            const unsigned ddq = (unsigned)first_of_kind(SB_VAR_DDQ);
            EXPECT(&log, fmi2Discard, f->text, fmi2GetReal(c, &ddq, 1, &r));
        }
        EXPECT(&log, fmi2OK, NULL, fmi2GetContinuousStates(c, x2, nx));
        CHECK(memcmp(x, x2, nx * sizeof(double)) == 0, "a discarded evaluation changed the states");
        EXPECT(&log, fmi2OK, NULL, fmi2EnterEventMode(c));
        EXPECT(&log, fmi2OK, NULL, fmi2SetReal(c, &vr, 1, &old));
        EXPECT(&log, fmi2OK, NULL, fmi2EnterContinuousTimeMode(c));
        EXPECT(&log, fmi2OK, NULL, fmi2GetDerivatives(c, dx, nx));
    }

    /* FMU states of the other interface are refused */
    fmi2FMUstate state = NULL;
    EXPECT(&log, fmi2OK, NULL, fmi2GetFMUstate(c, &state));
    fmi2Component cs = instantiate(fmi2CoSimulation, &log, &cb);
    EXPECT(&log, fmi2Error, "Model Exchange", fmi2SetFMUstate(cs, state));
    fmi2FreeInstance(cs);
    EXPECT(&log, fmi2OK, NULL, fmi2SetFMUstate(c, state));
    EXPECT(&log, fmi2OK, NULL, fmi2FreeFMUstate(c, &state));

    EXPECT(&log, fmi2OK, NULL, fmi2Terminate(c));
    EXPECT(&log, fmi2OK, NULL, fmi2GetDerivatives(c, dx, nx)); /* values can still be inspected */
    EXPECT(&log, fmi2Error, NULL, fmi2SetContinuousStates(c, x, nx));
    fmi2FreeInstance(c);
}

/* ------------------------------------------------ the host's FMI (host_checks.h) */

static HostFmu h_instantiate(int me, HostLog *log)
{
    const fmi2CallbackFunctions cb = callbacks(log); /* the FMU keeps a copy */
    return instantiate(me ? fmi2ModelExchange : fmi2CoSimulation, log, &cb);
}

static int h_enter_initialization(HostFmu c, double start, int stop_defined, double stop)
{
    const fmi2Status s = fmi2SetupExperiment(c, fmi2False, 0.0, start, stop_defined, stop);
    return s != fmi2OK ? (int)s : (int)fmi2EnterInitializationMode(c);
}

static int h_set_debug_logging(HostFmu c, int on, size_t n, const char *const categories[])
{
    return fmi2SetDebugLogging(c, on, n, categories);
}
static int h_exit_initialization(HostFmu c) { return fmi2ExitInitializationMode(c); }
static int h_terminate(HostFmu c) { return fmi2Terminate(c); }
static void h_free(HostFmu c) { fmi2FreeInstance(c); }
static int h_get_real(HostFmu c, unsigned vr, double *v) { return fmi2GetReal(c, &vr, 1, v); }
static int h_set_real(HostFmu c, unsigned vr, double v) { return fmi2SetReal(c, &vr, 1, &v); }
static int h_set_int(HostFmu c, unsigned vr, long long v)
{
    const fmi2Integer i = (fmi2Integer)v;
    return fmi2SetInteger(c, &vr, 1, &i);
}
static int h_do_step(HostFmu c, double t, double h) { return fmi2DoStep(c, t, h, fmi2False); }
static int h_enter_continuous(HostFmu c) { return fmi2EnterContinuousTimeMode(c); }
static int h_set_time(HostFmu c, double t) { return fmi2SetTime(c, t); }
static int h_set_states(HostFmu c, const double *x, size_t n) { return fmi2SetContinuousStates(c, x, n); }
static int h_get_states(HostFmu c, double *x, size_t n) { return fmi2GetContinuousStates(c, x, n); }
static int h_get_derivatives(HostFmu c, double *dx, size_t n) { return fmi2GetDerivatives(c, dx, n); }
static int h_get_fmu_state(HostFmu c, void **s) { return fmi2GetFMUstate(c, s); }
static int h_set_fmu_state(HostFmu c, void *s) { return fmi2SetFMUstate(c, s); }
static int h_free_fmu_state(HostFmu c, void **s) { return fmi2FreeFMUstate(c, s); }
static int h_serialized_size(HostFmu c, void *s, size_t *size) { return fmi2SerializedFMUstateSize(c, s, size); }
static int h_serialize(HostFmu c, void *s, unsigned char *bytes, size_t size)
{
    return fmi2SerializeFMUstate(c, s, (fmi2Byte *)bytes, size);
}
static int h_deserialize(HostFmu c, const unsigned char *bytes, size_t size, void **s)
{
    return fmi2DeSerializeFMUstate(c, (const fmi2Byte *)bytes, size, s);
}
static int h_directional(HostFmu c, unsigned unknown, unsigned known, double seed, double *d)
{
    return fmi2GetDirectionalDerivative(c, &unknown, 1, &known, 1, &seed, d);
}

/* ------------------------------------------------------------------------ */

static void abuse(const HostArgs *args)
{
    test_versions();
    test_instantiate();
    test_null_instance();
    if (sb_model.has_cs) test_co_simulation(args);
    if (sb_model.has_me) test_model_exchange(args);
}

int main(int argc, char **argv) { return host_main(argc, argv, abuse); }
