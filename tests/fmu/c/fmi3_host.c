/*
 * fmi3_host.c -- a test host for symbody FMUs, FMI 3.0 (Co-Simulation and
 * Model Exchange).  It calls every FMI 3 function, the right way and the
 * wrong way (NULL instance and arrays, unknown value references, wrong types
 * and counts, NaN, infinite and out-of-range values, calls in the wrong state,
 * corrupted FMU states, unsupported interfaces, numerical faults), and checks
 * the returned status, the log message and that a failed call leaves the
 * state as it was.
 *
 *   fmi3_host abuse [mass=NAME] [length=NAME] [discard=NAME:VALUE:TEXT ...] [cs-discard=...]
 *   fmi3_host long      a long simulation of every interface and solver (valgrind)
 *   fmi3_host threads   instances in parallel threads give the single-thread results
 *
 * Exit status 0 when every check passed (see fmi2_host.c for the arguments).
 */
#include "fmi3Functions.h"

#define HOST_FIRST_VR 1u /* FMI 3 value references: the 1-based positions (host_common.h) */
#include "sb_runtime.h"

static const char *const HOST = "fmi3_host";

#include "host_checks.h"

static void logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category, fmi3String message)
{
    log_add((HostLog *)env, (int)status, category, message);
}

static fmi3Instance instantiate_cs(HostLog *log)
{
    log_clear(log);
    fmi3Instance c = fmi3InstantiateCoSimulation("host", sb_model.token, "/nonexistent", fmi3False, fmi3False,
                                                 fmi3False, fmi3False, NULL, 0, log, logger, NULL);
    CHECK(c != NULL, "fmi3InstantiateCoSimulation failed; log:\n%s", log->text);
    if (!c) exit(1);
    return c;
}

static fmi3Instance instantiate_me(HostLog *log)
{
    log_clear(log);
    fmi3Instance c = fmi3InstantiateModelExchange("host", sb_model.token, NULL, fmi3False, fmi3False, log, logger);
    CHECK(c != NULL, "fmi3InstantiateModelExchange failed; log:\n%s", log->text);
    if (!c) exit(1);
    return c;
}

/* ------------------------------------------------------------------------ */

static void test_instantiate(void)
{
    HostLog log;
    log_clear(&log);
    CHECK(strcmp(fmi3GetVersion(), "3.0") == 0, "fmi3GetVersion() = %s", fmi3GetVersion());
    CHECK(fmi3InstantiateCoSimulation("x", "{not-the-token}", NULL, 0, 0, 0, 0, NULL, 0, &log, logger, NULL) == NULL,
          "wrong token accepted");
    CHECK(strstr(log.text, "token") != NULL, "wrong token: log:\n%s", log.text);
    log_clear(&log);
    CHECK(fmi3InstantiateModelExchange("%s%n", "{%s%n%x}", NULL, 0, 0, &log, logger) == NULL, "wrong token accepted");
    CHECK(strstr(log.text, "'{%s%n%x}'") != NULL, "token with format directives: log:\n%s", log.text);
    log_clear(&log);
    CHECK(fmi3InstantiateScheduledExecution("x", sb_model.token, NULL, 0, 0, &log, logger, NULL, NULL, NULL) == NULL,
          "Scheduled Execution instantiated");
    CHECK(strstr(log.text, "Scheduled Execution") != NULL, "Scheduled Execution: log:\n%s", log.text);
    CHECK(fmi3InstantiateScheduledExecution("x", sb_model.token, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL) == NULL,
          "Scheduled Execution without a logger");

    /* NULL name, token, environment and logger: the instance works, silently */
    fmi3Instance c = fmi3InstantiateModelExchange(NULL, NULL, NULL, fmi3False, fmi3True, NULL, NULL);
    CHECK(c != NULL, "NULL name, token and logger");
    if (c) {
        unsigned bad = vr_at(sb_model.nvars);
        double v;
        CHECK(fmi3GetFloat64(c, &bad, 1, &v, 1) == fmi3Error, "unknown value reference without a logger");
        CHECK(fmi3DoStep(c, 0.0, 0.1, fmi3False, NULL, NULL, NULL, NULL) == fmi3Error, "doStep on Model Exchange");
        fmi3FreeInstance(c);
    }
    /* eventModeUsed needs hasEventMode = true: refused (FMI 3.0, 4.3.1); earlyReturnAllowed is ignored */
    log_clear(&log);
    c = fmi3InstantiateCoSimulation("cs", sb_model.token, NULL, 0, 0, fmi3True, fmi3False, NULL, 0, &log, logger, NULL);
    CHECK(c == NULL, "eventModeUsed = true accepted without event mode");
    CHECK(strstr(log.text, "hasEventMode") != NULL, "eventModeUsed: log:\n%s", log.text);
    if (c) fmi3FreeInstance(c);
    CHECK(fmi3InstantiateCoSimulation("cs", sb_model.token, NULL, 0, 0, fmi3True, fmi3False, NULL, 0, NULL, NULL,
                                      NULL) == NULL,
          "eventModeUsed without a logger");
    c = fmi3InstantiateCoSimulation("cs", sb_model.token, NULL, 0, 0, fmi3False, fmi3True, NULL, 0, &log, logger, NULL);
    CHECK(c != NULL, "earlyReturnAllowed");
    if (c) {
        initialize(c, &log);
        fmi3Boolean event = 1, terminate = 1, early = 1;
        double last = -1.0;
        EXPECT(&log, fmi3OK, NULL, fmi3DoStep(c, 0.0, 0.01, fmi3False, &event, &terminate, &early, &last));
        CHECK(!event && !terminate && !early && last == 0.01, "doStep outputs %d %d %d %g", event, terminate, early,
              last);
        EXPECT(&log, fmi3OK, NULL, fmi3DoStep(c, 0.01, 0.01, fmi3False, NULL, NULL, NULL, NULL));
        fmi3FreeInstance(c);
    }
    fmi3FreeInstance(NULL);
}

/* Every function with a NULL instance returns fmi3Error and does not crash. */
static void test_null_instance(void)
{
    double r = 0.0;
    fmi3Int64 i64 = 0;
    fmi3UInt64 u64 = 0;
    fmi3Boolean b = 0;
    fmi3String s = NULL;
    fmi3ValueReference vr = 0;
    fmi3FMUState state = NULL;
    size_t size = 0;
    fmi3Byte bytes[8];
    fmi3IntervalQualifier qual;
    fmi3Clock clk = 0;
    fmi3Binary bin = NULL;
    fmi3Float32 f32 = 0;
    fmi3Int32 i32 = 0;
    fmi3DependencyKind kind;
    const fmi3Status E = fmi3Error;
    CHECK(fmi3SetDebugLogging(NULL, fmi3True, 0, NULL) == E, "SetDebugLogging");
    CHECK(fmi3EnterInitializationMode(NULL, 0, 0.0, 0.0, 0, 0.0) == E, "EnterInitializationMode");
    CHECK(fmi3ExitInitializationMode(NULL) == E, "ExitInitializationMode");
    CHECK(fmi3EnterEventMode(NULL) == E, "EnterEventMode");
    CHECK(fmi3Terminate(NULL) == E, "Terminate");
    CHECK(fmi3Reset(NULL) == E, "Reset");
    CHECK(fmi3GetFloat64(NULL, &vr, 1, &r, 1) == E, "GetFloat64");
    CHECK(fmi3SetFloat64(NULL, &vr, 1, &r, 1) == E, "SetFloat64");
    CHECK(fmi3GetFloat32(NULL, &vr, 1, &f32, 1) == E, "GetFloat32");
    CHECK(fmi3SetInt32(NULL, &vr, 1, &i32, 1) == E, "SetInt32");
    CHECK(fmi3GetInt64(NULL, &vr, 1, &i64, 1) == E, "GetInt64");
    CHECK(fmi3SetInt64(NULL, &vr, 1, &i64, 1) == E, "SetInt64");
    CHECK(fmi3GetUInt64(NULL, &vr, 1, &u64, 1) == E, "GetUInt64");
    CHECK(fmi3GetBoolean(NULL, &vr, 1, &b, 1) == E, "GetBoolean");
    CHECK(fmi3SetBoolean(NULL, &vr, 1, &b, 1) == E, "SetBoolean");
    CHECK(fmi3GetString(NULL, &vr, 1, &s, 1) == E, "GetString");
    CHECK(fmi3SetString(NULL, &vr, 1, &s, 1) == E, "SetString");
    CHECK(fmi3GetBinary(NULL, &vr, 1, &size, &bin, 1) == E, "GetBinary");
    CHECK(fmi3SetBinary(NULL, &vr, 1, &size, &bin, 1) == E, "SetBinary");
    CHECK(fmi3GetClock(NULL, &vr, 1, &clk) == E, "GetClock");
    CHECK(fmi3SetClock(NULL, &vr, 1, &clk) == E, "SetClock");
    CHECK(fmi3GetNumberOfVariableDependencies(NULL, vr, &size) == E, "GetNumberOfVariableDependencies");
    CHECK(fmi3GetVariableDependencies(NULL, vr, &size, &vr, &size, &kind, 1) == E, "GetVariableDependencies");
    CHECK(fmi3GetFMUState(NULL, &state) == E, "GetFMUState");
    CHECK(fmi3SetFMUState(NULL, state) == E, "SetFMUState");
    CHECK(fmi3FreeFMUState(NULL, &state) == E, "FreeFMUState");
    CHECK(fmi3SerializedFMUStateSize(NULL, state, &size) == E, "SerializedFMUStateSize");
    CHECK(fmi3SerializeFMUState(NULL, state, bytes, sizeof bytes) == E, "SerializeFMUState");
    CHECK(fmi3DeserializeFMUState(NULL, bytes, sizeof bytes, &state) == E, "DeserializeFMUState");
    CHECK(fmi3GetDirectionalDerivative(NULL, &vr, 1, &vr, 1, &r, 1, &r, 1) == E, "GetDirectionalDerivative");
    CHECK(fmi3GetAdjointDerivative(NULL, &vr, 1, &vr, 1, &r, 1, &r, 1) == E, "GetAdjointDerivative");
    CHECK(fmi3EnterConfigurationMode(NULL) == E, "EnterConfigurationMode");
    CHECK(fmi3ExitConfigurationMode(NULL) == E, "ExitConfigurationMode");
    CHECK(fmi3GetIntervalDecimal(NULL, &vr, 1, &r, &qual) == E, "GetIntervalDecimal");
    CHECK(fmi3GetIntervalFraction(NULL, &vr, 1, &u64, &u64, &qual) == E, "GetIntervalFraction");
    CHECK(fmi3GetShiftDecimal(NULL, &vr, 1, &r) == E, "GetShiftDecimal");
    CHECK(fmi3GetShiftFraction(NULL, &vr, 1, &u64, &u64) == E, "GetShiftFraction");
    CHECK(fmi3SetIntervalDecimal(NULL, &vr, 1, &r) == E, "SetIntervalDecimal");
    CHECK(fmi3SetIntervalFraction(NULL, &vr, 1, &u64, &u64) == E, "SetIntervalFraction");
    CHECK(fmi3SetShiftDecimal(NULL, &vr, 1, &r) == E, "SetShiftDecimal");
    CHECK(fmi3SetShiftFraction(NULL, &vr, 1, &u64, &u64) == E, "SetShiftFraction");
    CHECK(fmi3EvaluateDiscreteStates(NULL) == E, "EvaluateDiscreteStates");
    CHECK(fmi3UpdateDiscreteStates(NULL, &b, &b, &b, &b, &b, &r) == E, "UpdateDiscreteStates");
    CHECK(fmi3EnterContinuousTimeMode(NULL) == E, "EnterContinuousTimeMode");
    CHECK(fmi3CompletedIntegratorStep(NULL, fmi3True, &b, &b) == E, "CompletedIntegratorStep");
    CHECK(fmi3SetTime(NULL, 0.0) == E, "SetTime");
    CHECK(fmi3SetContinuousStates(NULL, &r, 1) == E, "SetContinuousStates");
    CHECK(fmi3GetContinuousStateDerivatives(NULL, &r, 1) == E, "GetContinuousStateDerivatives");
    CHECK(fmi3GetEventIndicators(NULL, &r, 0) == E, "GetEventIndicators");
    CHECK(fmi3GetContinuousStates(NULL, &r, 1) == E, "GetContinuousStates");
    CHECK(fmi3GetNominalsOfContinuousStates(NULL, &r, 1) == E, "GetNominalsOfContinuousStates");
    CHECK(fmi3GetNumberOfEventIndicators(NULL, &size) == E, "GetNumberOfEventIndicators");
    CHECK(fmi3GetNumberOfContinuousStates(NULL, &size) == E, "GetNumberOfContinuousStates");
    CHECK(fmi3EnterStepMode(NULL) == E, "EnterStepMode");
    CHECK(fmi3GetOutputDerivatives(NULL, &vr, 1, &i32, &r, 1) == E, "GetOutputDerivatives");
    CHECK(fmi3DoStep(NULL, 0.0, 0.1, fmi3False, &b, &b, &b, &r) == E, "DoStep");
    CHECK(fmi3ActivateModelPartition(NULL, vr, 0.0) == E, "ActivateModelPartition");
    fmi3FreeInstance(NULL);
}

/* Get/Set with bad arguments: unknown value references, NULL arrays, wrong counts and types, bad values. */
static void test_values(fmi3Instance c, HostLog *log, const HostArgs *args)
{
    const unsigned unknown[] = {0u, vr_at(sb_model.nvars), vr_at(sb_model.nvars) + 1000u, 0xFFFFFFFFu};
    double r = 0.0;
    fmi3Int64 i = 0;
    fmi3Boolean b = 0;
    for (int k = 0; k < 4; ++k) {
        const unsigned *vr = &unknown[k];
        EXPECT(log, fmi3Error, "unknown value reference", fmi3GetFloat64(c, vr, 1, &r, 1));
        EXPECT(log, fmi3Error, "unknown value reference", fmi3SetFloat64(c, vr, 1, &r, 1));
        EXPECT(log, fmi3Error, "unknown value reference", fmi3GetInt64(c, vr, 1, &i, 1));
        EXPECT(log, fmi3Error, "unknown value reference", fmi3SetInt64(c, vr, 1, &i, 1));
        EXPECT(log, fmi3Error, "unknown value reference", fmi3GetBoolean(c, vr, 1, &b, 1));
        EXPECT(log, fmi3Error, "unknown value reference", fmi3SetBoolean(c, vr, 1, &b, 1));
    }
    /* types this FMU has no variables of, clocks, binaries */
    const unsigned t = vr_of("time");
    fmi3Float32 f32 = 0;
    fmi3Int8 i8 = 0;
    fmi3UInt8 u8 = 0;
    fmi3Int16 i16 = 0;
    fmi3UInt16 u16 = 0;
    fmi3Int32 i32 = 0;
    fmi3UInt32 u32 = 0;
    fmi3UInt64 u64 = 0;
    fmi3String s = NULL;
    fmi3Binary bin = NULL;
    fmi3Clock clk = 0;
    size_t size = 0;
    fmi3IntervalQualifier qual;
    EXPECT(log, fmi3Error, "Float32", fmi3GetFloat32(c, &t, 1, &f32, 1));
    EXPECT(log, fmi3Error, "Float32", fmi3SetFloat32(c, &t, 1, &f32, 1));
    EXPECT(log, fmi3Error, "Int8", fmi3GetInt8(c, &t, 1, &i8, 1));
    EXPECT(log, fmi3Error, "UInt8", fmi3SetUInt8(c, &t, 1, &u8, 1));
    EXPECT(log, fmi3Error, "Int16", fmi3GetInt16(c, &t, 1, &i16, 1));
    EXPECT(log, fmi3Error, "UInt16", fmi3SetUInt16(c, &t, 1, &u16, 1));
    EXPECT(log, fmi3Error, "Int32", fmi3GetInt32(c, &t, 1, &i32, 1));
    EXPECT(log, fmi3Error, "UInt32", fmi3SetUInt32(c, &t, 1, &u32, 1));
    EXPECT(log, fmi3Error, "UInt64", fmi3GetUInt64(c, &t, 1, &u64, 1));
    EXPECT(log, fmi3Error, "UInt64", fmi3SetUInt64(c, &t, 1, &u64, 1));
    EXPECT(log, fmi3Error, "Int8", fmi3SetInt8(c, &t, 1, &i8, 1));
    EXPECT(log, fmi3Error, "UInt8", fmi3GetUInt8(c, &t, 1, &u8, 1));
    EXPECT(log, fmi3Error, "Int16", fmi3SetInt16(c, &t, 1, &i16, 1));
    EXPECT(log, fmi3Error, "UInt16", fmi3GetUInt16(c, &t, 1, &u16, 1));
    EXPECT(log, fmi3Error, "Int32", fmi3SetInt32(c, &t, 1, &i32, 1));
    EXPECT(log, fmi3Error, "UInt32", fmi3GetUInt32(c, &t, 1, &u32, 1));
    EXPECT(log, fmi3Error, "Float32", fmi3SetFloat32(c, &t, 1, &f32, 1));
    EXPECT(log, fmi3Error, "String", fmi3GetString(c, &t, 1, &s, 1));
    EXPECT(log, fmi3Error, "String", fmi3SetString(c, &t, 1, &s, 1));
    EXPECT(log, fmi3Error, "Binary", fmi3GetBinary(c, &t, 1, &size, &bin, 1));
    EXPECT(log, fmi3Error, "Binary", fmi3SetBinary(c, &t, 1, &size, &bin, 1));
    EXPECT(log, fmi3Error, "clocks", fmi3GetClock(c, &t, 1, &clk));
    EXPECT(log, fmi3Error, "clocks", fmi3SetClock(c, &t, 1, &clk));
    EXPECT(log, fmi3Error, "clocks", fmi3GetIntervalDecimal(c, &t, 1, &r, &qual));
    EXPECT(log, fmi3Error, "clocks", fmi3GetIntervalFraction(c, &t, 1, &u64, &u64, &qual));
    EXPECT(log, fmi3Error, "clocks", fmi3GetShiftDecimal(c, &t, 1, &r));
    EXPECT(log, fmi3Error, "clocks", fmi3GetShiftFraction(c, &t, 1, &u64, &u64));
    EXPECT(log, fmi3Error, "clocks", fmi3SetIntervalDecimal(c, &t, 1, &r));
    EXPECT(log, fmi3Error, "clocks", fmi3SetIntervalFraction(c, &t, 1, &u64, &u64));
    EXPECT(log, fmi3Error, "clocks", fmi3SetShiftDecimal(c, &t, 1, &r));
    EXPECT(log, fmi3Error, "clocks", fmi3SetShiftFraction(c, &t, 1, &u64, &u64));
    EXPECT(log, fmi3OK, NULL, fmi3GetFloat32(c, NULL, 0, NULL, 0));
    EXPECT(log, fmi3OK, NULL, fmi3SetString(c, NULL, 0, NULL, 0));
    EXPECT(log, fmi3OK, NULL, fmi3GetBinary(c, NULL, 0, NULL, NULL, 0));
    EXPECT(log, fmi3OK, NULL, fmi3GetClock(c, NULL, 0, NULL));
    EXPECT(log, fmi3OK, NULL, fmi3SetIntervalDecimal(c, NULL, 0, NULL));
    fmi3DependencyKind kind;
    EXPECT(log, fmi3Error, "ModelStructure", fmi3GetNumberOfVariableDependencies(c, t, &size));
    EXPECT(log, fmi3Error, "ModelStructure", fmi3GetVariableDependencies(c, t, &size, &u32, &size, &kind, 1));
    EXPECT(log, fmi3Error, "structural parameters", fmi3EnterConfigurationMode(c));
    EXPECT(log, fmi3Error, "structural parameters", fmi3ExitConfigurationMode(c));
    EXPECT(log, fmi3Error, "Scheduled Execution", fmi3ActivateModelPartition(c, t, 0.0));

    /* counts and NULL arrays */
    double two[2];
    EXPECT(log, fmi3Error, "nValues", fmi3GetFloat64(c, &t, 1, two, 2));
    EXPECT(log, fmi3Error, "nValues", fmi3SetFloat64(c, &t, 1, two, 0));
    EXPECT(log, fmi3Error, "nValues", fmi3GetInt64(c, &t, 1, &i, 3));
    EXPECT(log, fmi3Error, "nValues", fmi3SetBoolean(c, &t, 1, &b, 2));
    EXPECT(log, fmi3Error, "NULL", fmi3GetFloat64(c, NULL, 1, &r, 1));
    EXPECT(log, fmi3Error, "NULL", fmi3GetFloat64(c, &t, 1, NULL, 1));
    EXPECT(log, fmi3Error, "NULL", fmi3SetFloat64(c, &t, 1, NULL, 1));
    EXPECT(log, fmi3Error, "NULL", fmi3GetInt64(c, NULL, 1, &i, 1));
    EXPECT(log, fmi3Error, "NULL", fmi3SetInt64(c, &t, 1, NULL, 1));
    EXPECT(log, fmi3Error, "NULL", fmi3GetBoolean(c, &t, 1, NULL, 1));
    EXPECT(log, fmi3Error, "NULL", fmi3SetBoolean(c, NULL, 1, &b, 1));
    EXPECT(log, fmi3OK, NULL, fmi3GetFloat64(c, NULL, 0, NULL, 0));
    EXPECT(log, fmi3OK, NULL, fmi3SetFloat64(c, NULL, 0, NULL, 0));
    EXPECT(log, fmi3OK, NULL, fmi3GetInt64(c, NULL, 0, NULL, 0));
    EXPECT(log, fmi3OK, NULL, fmi3SetBoolean(c, NULL, 0, NULL, 0));

    /* calculated variables cannot be set */
    const double one = 1.0;
    EXPECT(log, fmi3Error, "'time'", fmi3SetFloat64(c, &t, 1, &one, 1));
    const unsigned ddq = (unsigned)first_of_kind(SB_VAR_DDQ);
    EXPECT(log, fmi3Error, var_of(ddq)->name, fmi3SetFloat64(c, &ddq, 1, &one, 1));

    /* non-finite values; the old value stays, also when a good value comes first in the call */
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int v = 0; v < sb_model.nvars; ++v) {
        const SbVariable *var = &sb_model.variables[v];
        if (var->type != SB_TYPE_REAL || !(var->kind == SB_VAR_U || var->kind == SB_VAR_P ||
                                           var->kind == SB_VAR_Q || var->kind == SB_VAR_DQ ||
                                           var->kind == SB_VAR_SETTING))
            continue;
        const unsigned vr = vr_at(v), pair[2] = {vr, vr};
        const double before = get_real(c, log, vr);
        for (int k = 0; k < 3; ++k) {
            const double vals[2] = {before + 0.5, bad[k]};
            EXPECT(log, fmi3Error, var->name, fmi3SetFloat64(c, &vr, 1, &bad[k], 1));
            EXPECT(log, fmi3Error, var->name, fmi3SetFloat64(c, pair, 2, vals, 2));
        }
        const double after = get_real(c, log, vr);
        CHECK(memcmp(&before, &after, sizeof after) == 0, "'%s' changed by a rejected value", var->name);
    }

    /* out-of-range parameters and settings */
    const double neg = -1.0, zero = 0.0;
    if (args->mass) {
        const unsigned vr = vr_of(args->mass);
        EXPECT(log, fmi3Error, "outside its range", fmi3SetFloat64(c, &vr, 1, &neg, 1));
        EXPECT(log, fmi3Error, args->mass, fmi3SetFloat64(c, &vr, 1, &neg, 1));
    }
    if (args->length) {
        const unsigned vr = vr_of(args->length);
        EXPECT(log, fmi3Error, args->length, fmi3SetFloat64(c, &vr, 1, &neg, 1));
    }
    const unsigned step = vr_of("solver.step"), rtol = vr_of("solver.rtol"), method = vr_of("solver.method");
    EXPECT(log, fmi3Error, "'solver.step'", fmi3SetFloat64(c, &step, 1, &zero, 1));
    EXPECT(log, fmi3Error, "'solver.rtol'", fmi3SetFloat64(c, &rtol, 1, &neg, 1));
    const fmi3Int64 methods[] = {0, 4, -1, INT64_MAX, INT64_MIN};
    for (int k = 0; k < 5; ++k) EXPECT(log, fmi3Error, "'solver.method'", fmi3SetInt64(c, &method, 1, &methods[k], 1));
    EXPECT(log, fmi3Error, "'solver.method'", fmi3SetFloat64(c, &method, 1, &one, 1));
    EXPECT(log, fmi3Error, "'time'", fmi3GetInt64(c, &t, 1, &i, 1));
    EXPECT(log, fmi3Error, "'time'", fmi3SetBoolean(c, &t, 1, &b, 1));
    EXPECT(log, fmi3OK, NULL, fmi3GetInt64(c, &method, 1, &i, 1));
    CHECK(i == 2, "solver.method = %lld after rejected values", (long long)i);

    /* output derivatives, adjoints */
    EXPECT(log, fmi3Error, NULL, fmi3GetOutputDerivatives(c, &t, 1, &i32, &r, 1));
    /* only in step mode and terminated (FMI 3.0.2 sections 4.2.1, 2.3.9) */
    EXPECT(log, fmi3Error, "not allowed", fmi3GetOutputDerivatives(c, NULL, 0, NULL, NULL, 0));
    EXPECT(log, fmi3Error, "Adjoint", fmi3GetAdjointDerivative(c, &t, 1, &t, 1, &r, 1, &r, 1));
}

static void test_fmu_state(fmi3Instance c, HostLog *log, const HostArgs *args)
{
    fmi3FMUState state = NULL, other = NULL;
    size_t size = 0;
    EXPECT(log, fmi3Error, "NULL", fmi3GetFMUState(c, NULL));
    EXPECT(log, fmi3OK, NULL, fmi3GetFMUState(c, &state));
    EXPECT(log, fmi3OK, NULL, fmi3GetFMUState(c, &state));
    EXPECT(log, fmi3Error, NULL, fmi3SetFMUState(c, NULL));
    EXPECT(log, fmi3Error, "NULL", fmi3SerializedFMUStateSize(c, state, NULL));
    EXPECT(log, fmi3OK, NULL, fmi3SerializedFMUStateSize(c, state, &size));
    unsigned char *bytes = calloc(size + 8, 1);
    EXPECT(log, fmi3Error, "too small", fmi3SerializeFMUState(c, state, bytes, size - 1));
    EXPECT(log, fmi3Error, NULL, fmi3SerializeFMUState(c, state, NULL, size));
    EXPECT(log, fmi3Error, NULL, fmi3SerializeFMUState(c, NULL, bytes, size));
    EXPECT(log, fmi3OK, NULL, fmi3SerializeFMUState(c, state, bytes, size));
    EXPECT(log, fmi3Error, NULL, fmi3DeserializeFMUState(c, bytes, size - 1, &other));
    EXPECT(log, fmi3Error, NULL, fmi3DeserializeFMUState(c, bytes, size + 8, &other));
    EXPECT(log, fmi3Error, NULL, fmi3DeserializeFMUState(c, NULL, size, &other));
    EXPECT(log, fmi3Error, "NULL", fmi3DeserializeFMUState(c, bytes, size, NULL));
    CHECK(other == NULL, "a failed deserialization returned a state");
    unsigned char *corrupt = malloc(size);
    const double inf = INFINITY, neg = -1.0;
    /* every single corrupted byte, anywhere (header, values, checksum), is refused */
    int accepted = 0;
    for (size_t k = 0; k < size; ++k)
        for (int bit = 1; bit < 8; bit += 3) {
            memcpy(corrupt, bytes, size);
            corrupt[k] ^= (unsigned char)(1u << bit);
            if (fmi3DeserializeFMUState(c, corrupt, size, &other) == fmi3OK) {
                ++accepted;
                fmi3FreeFMUState(c, &other);
            }
        }
    CHECK(accepted == 0, "%d corrupted serialized states accepted", accepted);
    memcpy(corrupt, bytes, size);
    corrupt[size / 2] ^= 0x10;
    EXPECT(log, fmi3Error, "checksum", fmi3DeserializeFMUState(c, corrupt, size, &other));
    /* states with a valid checksum: another model's identity, values that Set refuses */
    memcpy(corrupt, bytes, size);
    corrupt[15] ^= 0x80;
    reseal(corrupt, size);
    EXPECT(log, fmi3Error, "another model", fmi3DeserializeFMUState(c, corrupt, size, &other));
    const int u = first_of_kind(SB_VAR_U);
    const unsigned finite_var = u >= 0 ? (unsigned)u : (unsigned)first_of_kind(SB_VAR_DQ);
    memcpy(corrupt, bytes, size);
    memcpy(corrupt + serialized_offset(finite_var), &inf, sizeof inf);
    reseal(corrupt, size);
    EXPECT(log, fmi3Error, "not finite", fmi3DeserializeFMUState(c, corrupt, size, &other));
    memcpy(corrupt, bytes, size);
    memcpy(corrupt + serialized_offset(vr_of("solver.step")), &neg, sizeof neg);
    reseal(corrupt, size);
    EXPECT(log, fmi3Error, "solver.step", fmi3DeserializeFMUState(c, corrupt, size, &other));
    if (args->mass) {
        memcpy(corrupt, bytes, size);
        memcpy(corrupt + serialized_offset(vr_of(args->mass)), &neg, sizeof neg);
        reseal(corrupt, size);
        EXPECT(log, fmi3Error, "outside its range", fmi3DeserializeFMUState(c, corrupt, size, &other));
        CHECK(strstr(log->text, args->mass) != NULL, "negative mass: log:\n%s", log->text);
    }
    CHECK(other == NULL, "a refused state was returned");
    free(corrupt);
    /* in memory: a snapshot of another model (identity), or with a value Set refuses */
    SbSnapshot *snap = (SbSnapshot *)state;
    snap->identity ^= 1ULL << 40;
    EXPECT(log, fmi3Error, "another model", fmi3SetFMUState(c, state));
    snap->identity ^= 1ULL << 40;
    if (args->mass) {
        double *slot = (double *)((unsigned char *)snap->S + serialized_offset(vr_of(args->mass)) - 32);
        const double mass = *slot;
        *slot = -1.0;
        EXPECT(log, fmi3Error, args->mass, fmi3SetFMUState(c, state));
        *slot = mass;
    }
    EXPECT(log, fmi3OK, NULL, fmi3SetFMUState(c, state));
    EXPECT(log, fmi3OK, NULL, fmi3DeserializeFMUState(c, bytes, size, &other));
    EXPECT(log, fmi3OK, NULL, fmi3SetFMUState(c, other));
    EXPECT(log, fmi3OK, NULL, fmi3FreeFMUState(c, &other));
    EXPECT(log, fmi3OK, NULL, fmi3FreeFMUState(c, &other));
    EXPECT(log, fmi3OK, NULL, fmi3FreeFMUState(c, NULL));
    EXPECT(log, fmi3OK, NULL, fmi3FreeFMUState(c, &state));
    free(bytes);
}

static void test_directional_derivatives(fmi3Instance c, HostLog *log)
{
    const unsigned ddq = (unsigned)first_of_kind(SB_VAR_DDQ), q = (unsigned)first_of_kind(SB_VAR_Q);
    const unsigned p = (unsigned)first_of_kind(SB_VAR_P), bad = vr_at(sb_model.nvars);
    const double one = 1.0, nan = NAN;
    double d = 0.0;
    EXPECT(log, fmi3OK, NULL, fmi3GetDirectionalDerivative(c, &ddq, 1, &q, 1, &one, 1, &d, 1));
    CHECK(isfinite(d), "d ddq / d q = %g", d);
    EXPECT(log, fmi3Error, "nSeed", fmi3GetDirectionalDerivative(c, &ddq, 1, &q, 1, &one, 2, &d, 1));
    EXPECT(log, fmi3Error, "nSeed", fmi3GetDirectionalDerivative(c, &ddq, 1, &q, 1, &one, 1, &d, 0));
    EXPECT(log, fmi3Error, "unknown value reference", fmi3GetDirectionalDerivative(c, &bad, 1, &q, 1, &one, 1, &d, 1));
    EXPECT(log, fmi3Error, "unknown value reference", fmi3GetDirectionalDerivative(c, &ddq, 1, &bad, 1, &one, 1, &d, 1));
    if (first_of_kind(SB_VAR_P) >= 0)
        EXPECT(log, fmi3Error, var_of(p)->name, fmi3GetDirectionalDerivative(c, &ddq, 1, &p, 1, &one, 1, &d, 1));
    EXPECT(log, fmi3Error, "not finite", fmi3GetDirectionalDerivative(c, &ddq, 1, &q, 1, &nan, 1, &d, 1));
    EXPECT(log, fmi3Error, "NULL", fmi3GetDirectionalDerivative(c, &ddq, 1, &q, 1, NULL, 1, &d, 1));
    EXPECT(log, fmi3Error, "NULL", fmi3GetDirectionalDerivative(c, &ddq, 1, &q, 1, &one, 1, NULL, 1));
    EXPECT(log, fmi3OK, NULL, fmi3GetDirectionalDerivative(c, NULL, 0, NULL, 0, NULL, 0, NULL, 0));
}

/* A parameter value that makes the step fail: Discard, the state stays at the start of the step, and
   the same step succeeds once the value is restored.  terminateSimulation tells the importer whether
   retrying can help: not when the state at the communication point is inadmissible (faults that are
   not specific to Co-Simulation), nor after SB_MAX_RETRIES discards in a row. */
static void test_discard(fmi3Instance c, HostLog *log, const Fault *f, double h)
{
    const unsigned vr = vr_of(f->name), method = vr_of("solver.method"), step = vr_of("solver.step");
    double before[512], after[512], t = get_real(c, log, vr_of("time")), last = NAN;
    const double old = get_real(c, log, vr);
    const fmi3Int64 rk4 = 1, dopri5 = 2;
    fmi3Boolean event = 1, terminate = 1, early = 1;
    if (f->rk4) { /* one internal rk4 step */
        EXPECT(log, fmi3OK, NULL, fmi3SetInt64(c, &method, 1, &rk4, 1));
        h = get_real(c, log, step);
    }
    EXPECT(log, fmi3OK, NULL, fmi3SetFloat64(c, &vr, 1, &f->value, 1));
    get_state(c, log, before);
    EXPECT(log, fmi3Discard, f->text, fmi3DoStep(c, t, h, fmi3False, &event, &terminate, &early, &last));
    CHECK(log->worst == fmi3Discard, "discarded step logged status %d", log->worst);
    CHECK(last == t && !early, "discarded step: lastSuccessfulTime %g (expected %g)", last, t);
    CHECK(terminate == !f->cs_only, "terminateSimulation = %d after '%s' = %g", terminate, f->name, f->value);
    get_state(c, log, after);
    CHECK(same_values(before, after), "the state changed in a discarded step (%s = %g)", f->name, f->value);
    if (f->cs_only) { /* an importer that retries the same step forever is told to stop */
        for (int k = 2; k <= 10; ++k) {
            EXPECT(log, fmi3Discard, f->text, fmi3DoStep(c, t, h, fmi3False, &event, &terminate, &early, &last));
            CHECK(terminate == (k == 10), "terminateSimulation = %d after %d discards at t = %g", terminate, k, t);
        }
    }
    EXPECT(log, fmi3OK, NULL, fmi3SetFloat64(c, &vr, 1, &old, 1));
    EXPECT(log, fmi3OK, NULL, fmi3DoStep(c, t, h, fmi3False, &event, &terminate, &early, &last));
    CHECK(last == t + h && !terminate, "lastSuccessfulTime %g after a successful step to %g", last, t + h);
    if (f->rk4) EXPECT(log, fmi3OK, NULL, fmi3SetInt64(c, &method, 1, &dopri5, 1));
}

static void test_co_simulation(const HostArgs *args)
{
    HostLog log;
    fmi3Instance c = instantiate_cs(&log);
    const unsigned t = vr_of("time");
    double r = 0.0, x[256];
    size_t n = 0;

    /* instantiated */
    EXPECT(&log, fmi3Error, "fmi3DoStep", fmi3DoStep(c, 0.0, 0.1, fmi3False, NULL, NULL, NULL, NULL));
    EXPECT(&log, fmi3Error, "fmi3ExitInitializationMode", fmi3ExitInitializationMode(c));
    EXPECT(&log, fmi3Error, "fmi3Terminate", fmi3Terminate(c));
    EXPECT(&log, fmi3Error, NULL, fmi3GetDirectionalDerivative(c, &t, 1, &t, 1, &r, 1, &r, 1));
    EXPECT(&log, fmi3Error, NULL, fmi3GetContinuousStateDerivatives(c, x, 2));
    EXPECT(&log, fmi3Error, NULL, fmi3EnterContinuousTimeMode(c));
    EXPECT(&log, fmi3Error, NULL, fmi3EnterEventMode(c));
    EXPECT(&log, fmi3Error, NULL, fmi3UpdateDiscreteStates(c, NULL, NULL, NULL, NULL, NULL, NULL));
    EXPECT(&log, fmi3Error, NULL, fmi3SetTime(c, 1.0));
    EXPECT(&log, fmi3Error, "hasEventMode", fmi3EnterStepMode(c));
    EXPECT(&log, fmi3Error, "startTime", fmi3EnterInitializationMode(c, fmi3False, 0.0, NAN, fmi3False, 0.0));
    EXPECT(&log, fmi3Error, "startTime", fmi3EnterInitializationMode(c, fmi3False, 0.0, -INFINITY, fmi3False, 0.0));
    test_logging(c, &log);
    test_values(c, &log, args);

    /* initialization mode */
    EXPECT(&log, fmi3OK, NULL, fmi3EnterInitializationMode(c, fmi3True, 1e-6, 0.0, fmi3False, 0.0));
    EXPECT(&log, fmi3Error, NULL, fmi3EnterInitializationMode(c, fmi3False, 0.0, 0.0, fmi3False, 0.0));
    EXPECT(&log, fmi3Error, "fmi3DoStep", fmi3DoStep(c, 0.0, 0.1, fmi3False, NULL, NULL, NULL, NULL));
    const unsigned q = (unsigned)first_of_kind(SB_VAR_Q);
    const double inf = INFINITY, q0 = sb_model.q0[0];
    EXPECT(&log, fmi3Error, var_of(q)->name, fmi3SetFloat64(c, &q, 1, &inf, 1));
    EXPECT(&log, fmi3OK, NULL, fmi3SetFloat64(c, &q, 1, &q0, 1));
    EXPECT(&log, fmi3OK, NULL, fmi3ExitInitializationMode(c));

    /* step mode */
    EXPECT(&log, fmi3Error, "step mode", fmi3SetFloat64(c, &q, 1, &q0, 1));
    EXPECT(&log, fmi3Error, "currentCommunicationPoint", fmi3DoStep(c, 0.5, 0.1, fmi3False, NULL, NULL, NULL, NULL));
    EXPECT(&log, fmi3Error, "communicationStepSize", fmi3DoStep(c, 0.0, -1e-3, fmi3False, NULL, NULL, NULL, NULL));
    EXPECT(&log, fmi3Error, "communicationStepSize", fmi3DoStep(c, 0.0, NAN, fmi3False, NULL, NULL, NULL, NULL));
    EXPECT(&log, fmi3Error, "communicationStepSize", fmi3DoStep(c, 0.0, INFINITY, fmi3False, NULL, NULL, NULL, NULL));
    for (int k = 0; k < 5; ++k)
        EXPECT(&log, fmi3OK, NULL, fmi3DoStep(c, 0.02 * k, 0.02, fmi3False, NULL, NULL, NULL, NULL));
    for (int v = 0; v < sb_model.nvars; ++v) {
        if (sb_model.variables[v].type != SB_TYPE_REAL) continue;
        const double val = get_real(c, &log, vr_at(v));
        CHECK(isfinite(val), "'%s' = %g after 5 steps", sb_model.variables[v].name, val);
    }
    EXPECT(&log, fmi3Error, NULL, fmi3GetNumberOfContinuousStates(c, NULL));
    EXPECT(&log, fmi3Error, "Model Exchange", fmi3GetNumberOfEventIndicators(c, &n)); /* ME only (2.3.2) */
    test_directional_derivatives(c, &log);
    test_fmu_state(c, &log, args);

    for (int k = 0; k < args->n_faults; ++k) test_discard(c, &log, &args->faults[k], 0.05);
    const unsigned method = vr_of("solver.method"), step = vr_of("solver.step");
    const fmi3Int64 rk4 = 1, dopri5 = 2;
    const double tiny = 1e-12, h = 1e-3;
    double before[512], after[512];
    EXPECT(&log, fmi3OK, NULL, fmi3SetInt64(c, &method, 1, &rk4, 1));
    EXPECT(&log, fmi3OK, NULL, fmi3SetFloat64(c, &step, 1, &tiny, 1));
    double tnow = get_real(c, &log, t);
    get_state(c, &log, before);
    EXPECT(&log, fmi3Discard, "internal steps", fmi3DoStep(c, tnow, 1.0, fmi3False, NULL, NULL, NULL, NULL));
    get_state(c, &log, after);
    CHECK(same_values(before, after), "the state changed in a discarded rk4 step");
    EXPECT(&log, fmi3OK, NULL, fmi3SetFloat64(c, &step, 1, &h, 1));
    EXPECT(&log, fmi3OK, NULL, fmi3DoStep(c, tnow, 0.01, fmi3False, NULL, NULL, NULL, NULL));
    EXPECT(&log, fmi3OK, NULL, fmi3SetInt64(c, &method, 1, &dopri5, 1));

    EXPECT(&log, fmi3OK, NULL, fmi3Terminate(c));
    tnow = get_real(c, &log, t);
    EXPECT(&log, fmi3Error, "fmi3DoStep", fmi3DoStep(c, tnow, 0.01, fmi3False, NULL, NULL, NULL, NULL));
    EXPECT(&log, fmi3OK, NULL, fmi3Reset(c));
    CHECK(get_real(c, &log, t) == 0.0, "time after reset");
    initialize(c, &log);
    EXPECT(&log, fmi3OK, NULL, fmi3DoStep(c, 0.0, 0.01, fmi3True, NULL, NULL, NULL, NULL));
    fmi3FreeInstance(c);
}

static void test_model_exchange(const HostArgs *args)
{
    HostLog log;
    fmi3Instance c = instantiate_me(&log);
    const size_t nx = 2 * (size_t)sb_model.nq + (size_t)sb_model.ns;
    double x[256], dx[256], x2[256], r = 0.0;
    fmi3Boolean enter = 0, terminate = 0, b = 0;
    size_t n = 0;

    EXPECT(&log, fmi3Error, NULL, fmi3GetContinuousStateDerivatives(c, dx, nx));
    EXPECT(&log, fmi3Error, NULL, fmi3EnterEventMode(c));
    EXPECT(&log, fmi3Error, "fmi3DoStep", fmi3DoStep(c, 0.0, 0.1, fmi3False, NULL, NULL, NULL, NULL));
    initialize(c, &log); /* event mode */
    EXPECT(&log, fmi3Error, "fmi3DoStep", fmi3DoStep(c, 0.0, 0.1, fmi3False, &b, &b, &b, &r));
    EXPECT(&log, fmi3OK, NULL, fmi3UpdateDiscreteStates(c, NULL, NULL, NULL, NULL, NULL, NULL));
    EXPECT(&log, fmi3OK, NULL, fmi3UpdateDiscreteStates(c, &b, &b, &b, &b, &b, &r));
    EXPECT(&log, fmi3OK, NULL, fmi3EvaluateDiscreteStates(c));
    EXPECT(&log, fmi3Error, NULL, fmi3CompletedIntegratorStep(c, fmi3True, &enter, &terminate));
    EXPECT(&log, fmi3OK, NULL, fmi3GetNumberOfContinuousStates(c, &n));
    CHECK(n == nx, "%zu continuous states, expected %zu", n, nx);
    EXPECT(&log, fmi3OK, NULL, fmi3EnterContinuousTimeMode(c));
    EXPECT(&log, fmi3Error, NULL, fmi3UpdateDiscreteStates(c, NULL, NULL, NULL, NULL, NULL, NULL));

    /* continuous-time mode */
    const unsigned p = (unsigned)first_of_kind(SB_VAR_P);
    const double pv = get_real(c, &log, p);
    EXPECT(&log, fmi3Error, "continuous-time mode", fmi3SetFloat64(c, &p, 1, &pv, 1));
    EXPECT(&log, fmi3Error, "time", fmi3SetTime(c, INFINITY));
    EXPECT(&log, fmi3Error, "expected", fmi3GetContinuousStates(c, x, nx + 1));
    EXPECT(&log, fmi3Error, "expected", fmi3GetContinuousStates(c, NULL, nx));
    EXPECT(&log, fmi3OK, NULL, fmi3GetContinuousStates(c, x, nx));
    EXPECT(&log, fmi3Error, "expected", fmi3SetContinuousStates(c, x, 0));
    EXPECT(&log, fmi3Error, "expected", fmi3SetContinuousStates(c, NULL, nx));
    memcpy(x2, x, nx * sizeof(double));
    x2[0] = NAN;
    EXPECT(&log, fmi3Error, sb_model.coordinate_names[0], fmi3SetContinuousStates(c, x2, nx));
    EXPECT(&log, fmi3OK, NULL, fmi3GetContinuousStates(c, x2, nx));
    CHECK(memcmp(x, x2, nx * sizeof(double)) == 0, "rejected states were stored");
    EXPECT(&log, fmi3Error, "expected", fmi3GetContinuousStateDerivatives(c, dx, nx - 1));
    EXPECT(&log, fmi3Error, "expected", fmi3GetContinuousStateDerivatives(c, NULL, nx));
    EXPECT(&log, fmi3Error, "expected", fmi3GetNominalsOfContinuousStates(c, dx, nx + 1));
    EXPECT(&log, fmi3OK, NULL, fmi3GetNominalsOfContinuousStates(c, dx, nx));
    EXPECT(&log, fmi3Error, "event indicators", fmi3GetEventIndicators(c, dx, 2));
    EXPECT(&log, fmi3OK, NULL, fmi3GetEventIndicators(c, NULL, 0));
    EXPECT(&log, fmi3Error, "NULL", fmi3CompletedIntegratorStep(c, fmi3True, &enter, NULL));
    EXPECT(&log, fmi3Error, "NULL", fmi3GetNumberOfEventIndicators(c, NULL));

    double t = 0.0;
    const double h = 1e-3;
    for (int k = 0; k < 200; ++k) {
        EXPECT(&log, fmi3OK, NULL, fmi3GetContinuousStateDerivatives(c, dx, nx));
        for (size_t i = 0; i < nx; ++i) x[i] += h * dx[i];
        t += h;
        EXPECT(&log, fmi3OK, NULL, fmi3SetTime(c, t));
        EXPECT(&log, fmi3OK, NULL, fmi3SetContinuousStates(c, x, nx));
        EXPECT(&log, fmi3OK, NULL, fmi3CompletedIntegratorStep(c, fmi3True, &enter, &terminate));
        CHECK(!enter && !terminate, "CompletedIntegratorStep asks for an event");
    }
    for (size_t i = 0; i < nx; ++i) CHECK(isfinite(x[i]), "state %zu = %g", i, x[i]);

    for (int k = 0; k < args->n_faults; ++k) {
        const Fault *f = &args->faults[k];
        const unsigned vr = vr_of(f->name);
        const double old = get_real(c, &log, vr);
        EXPECT(&log, fmi3OK, NULL, fmi3EnterEventMode(c));
        EXPECT(&log, fmi3OK, NULL, fmi3SetFloat64(c, &vr, 1, &f->value, 1));
        EXPECT(&log, fmi3OK, NULL, fmi3EnterContinuousTimeMode(c));
        if (f->cs_only) {
            EXPECT(&log, fmi3OK, NULL, fmi3GetContinuousStateDerivatives(c, dx, nx));
        } else {
            EXPECT(&log, fmi3Discard, f->text, fmi3GetContinuousStateDerivatives(c, dx, nx));
            const int y = first_of_kind(SB_VAR_Y);
            const unsigned vy = y >= 0 ? (unsigned)y : (unsigned)first_of_kind(SB_VAR_DDQ);
            EXPECT(&log, fmi3Discard, f->text, fmi3GetFloat64(c, &vy, 1, &r, 1));
        }
        EXPECT(&log, fmi3OK, NULL, fmi3GetContinuousStates(c, x2, nx));
        CHECK(memcmp(x, x2, nx * sizeof(double)) == 0, "a discarded evaluation changed the states");
        EXPECT(&log, fmi3OK, NULL, fmi3EnterEventMode(c));
        EXPECT(&log, fmi3OK, NULL, fmi3SetFloat64(c, &vr, 1, &old, 1));
        EXPECT(&log, fmi3OK, NULL, fmi3EnterContinuousTimeMode(c));
        EXPECT(&log, fmi3OK, NULL, fmi3GetContinuousStateDerivatives(c, dx, nx));
    }

    fmi3FMUState state = NULL;
    EXPECT(&log, fmi3OK, NULL, fmi3GetFMUState(c, &state));
    HostLog log2;
    fmi3Instance cs = instantiate_cs(&log2);
    EXPECT(&log2, fmi3Error, "Model Exchange", fmi3SetFMUState(cs, state));
    fmi3FreeInstance(cs);
    EXPECT(&log, fmi3OK, NULL, fmi3SetFMUState(c, state));
    EXPECT(&log, fmi3OK, NULL, fmi3FreeFMUState(c, &state));
    EXPECT(&log, fmi3OK, NULL, fmi3Terminate(c));
    EXPECT(&log, fmi3Error, NULL, fmi3SetContinuousStates(c, x, nx));
    EXPECT(&log, fmi3OK, NULL, fmi3Reset(c));
    fmi3FreeInstance(c);
}

/* A step refused for the stop time reports the time it started from as lastSuccessfulTime. */
static void test_last_successful_time(void)
{
    HostLog log;
    fmi3Instance c = instantiate_cs(&log);
    EXPECT(&log, fmi3OK, NULL, fmi3EnterInitializationMode(c, fmi3False, 0.0, 0.0, fmi3True, 0.05));
    EXPECT(&log, fmi3OK, NULL, fmi3ExitInitializationMode(c));
    EXPECT(&log, fmi3OK, NULL, fmi3DoStep(c, 0.0, 0.03, fmi3False, NULL, NULL, NULL, NULL));
    double last = NAN;
    EXPECT(&log, fmi3Error, "stop time", fmi3DoStep(c, 0.03, 0.03, fmi3False, NULL, NULL, NULL, &last));
    CHECK(last == 0.03, "lastSuccessfulTime = %g after a step refused for the stop time", last);
    fmi3FreeInstance(c);
}

/* ------------------------------------------------ the host's FMI (host_checks.h) */

static HostFmu h_instantiate(int me, HostLog *log) { return me ? instantiate_me(log) : instantiate_cs(log); }

static int h_enter_initialization(HostFmu c, double start, int stop_defined, double stop)
{
    return fmi3EnterInitializationMode(c, fmi3False, 0.0, start, stop_defined != 0, stop);
}

static int h_set_debug_logging(HostFmu c, int on, size_t n, const char *const categories[])
{
    return fmi3SetDebugLogging(c, on, n, categories);
}
static int h_exit_initialization(HostFmu c) { return fmi3ExitInitializationMode(c); }
static int h_terminate(HostFmu c) { return fmi3Terminate(c); }
static void h_free(HostFmu c) { fmi3FreeInstance(c); }
static int h_get_real(HostFmu c, unsigned vr, double *v) { return fmi3GetFloat64(c, &vr, 1, v, 1); }
static int h_set_real(HostFmu c, unsigned vr, double v) { return fmi3SetFloat64(c, &vr, 1, &v, 1); }
static int h_set_int(HostFmu c, unsigned vr, long long v)
{
    const fmi3Int64 i = v;
    return fmi3SetInt64(c, &vr, 1, &i, 1);
}
static int h_do_step(HostFmu c, double t, double h) { return fmi3DoStep(c, t, h, fmi3False, NULL, NULL, NULL, NULL); }
static int h_enter_continuous(HostFmu c) { return fmi3EnterContinuousTimeMode(c); }
static int h_set_time(HostFmu c, double t) { return fmi3SetTime(c, t); }
static int h_set_states(HostFmu c, const double *x, size_t n) { return fmi3SetContinuousStates(c, x, n); }
static int h_get_states(HostFmu c, double *x, size_t n) { return fmi3GetContinuousStates(c, x, n); }
static int h_get_derivatives(HostFmu c, double *dx, size_t n) { return fmi3GetContinuousStateDerivatives(c, dx, n); }
static int h_get_fmu_state(HostFmu c, void **s) { return fmi3GetFMUState(c, s); }
static int h_set_fmu_state(HostFmu c, void *s) { return fmi3SetFMUState(c, s); }
static int h_free_fmu_state(HostFmu c, void **s) { return fmi3FreeFMUState(c, s); }
static int h_serialized_size(HostFmu c, void *s, size_t *size) { return fmi3SerializedFMUStateSize(c, s, size); }
static int h_serialize(HostFmu c, void *s, unsigned char *bytes, size_t size)
{
    return fmi3SerializeFMUState(c, s, (fmi3Byte *)bytes, size);
}
static int h_deserialize(HostFmu c, const unsigned char *bytes, size_t size, void **s)
{
    return fmi3DeserializeFMUState(c, (const fmi3Byte *)bytes, size, s);
}
static int h_directional(HostFmu c, unsigned unknown, unsigned known, double seed, double *d)
{
    return fmi3GetDirectionalDerivative(c, &unknown, 1, &known, 1, &seed, 1, d, 1);
}

/* ------------------------------------------------------------------------ */

static void abuse(const HostArgs *args)
{
    test_instantiate();
    test_null_instance();
    if (sb_model.has_cs) test_co_simulation(args);
    if (sb_model.has_me) test_model_exchange(args);
    if (sb_model.has_cs) test_last_successful_time();
}

int main(int argc, char **argv) { return host_main(argc, argv, abuse); }
