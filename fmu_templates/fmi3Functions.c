/*
 * fmi3Functions.c -- FMI 3.0 Model Exchange and Co-Simulation interface of a
 * symbody FMU.  Model independent: it translates FMI 3 calls into the
 * runtime declared in sb_runtime.h and sb_solver.h, which uses the generated
 * model.c; every call is checked against the state table of sb_calls.c.
 * Scheduled Execution, clocks, configuration mode, adjoint derivatives and
 * event mode in Co-Simulation are not provided; those calls return fmi3Error
 * with a message.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "sb_calls.h"
#include "sb_events.h"
#include "sb_solver.h"

typedef struct {
    fmi3LogMessageCallback log;
} Fmi3Host;

static void fmi3_logger(SbInstance *inst, SbStatus status, const char *category, const char *message)
{
    const Fmi3Host *h = inst->host;
    if (h && h->log) h->log(inst->env, (fmi3Status)status, category, message);
}

static fmi3Status st(SbStatus s) { return (fmi3Status)s; }

#define ENTER(fn, call)                                                                                              \
    SbInstance *inst = (SbInstance *)instance;                                                                       \
    if (!inst) return fmi3Error;                                                                                     \
    if (inst->log_mask & SB_LOG_CALLS) /* no variadic call per FMI call when the category is off */                  \
        sb_log(inst, SB_OK, SB_LOG_CALLS, "%s", #fn);                                                                \
    if (!sb_allowed(inst, #fn, (call))) return fmi3Error;

#define NEED(iface, fn)                                                                                              \
    if (inst->interface != (iface))                                                                                  \
        return st(sb_fail(inst, #fn, "only available in %s", (iface) == SB_ME ? "Model Exchange" : "Co-Simulation"));

#define UNSUPPORTED(fn, what)                                                                                        \
    {                                                                                                                \
        ENTER(fn, SB_CALL_ANY_STATE)                                                                                 \
        return st(sb_fail(inst, #fn, "%s", what));                                                                   \
    }

static fmi3Instance instantiate(SbInterface iface, fmi3String instanceName, fmi3String token, fmi3Boolean loggingOn,
                                fmi3InstanceEnvironment env, fmi3LogMessageCallback logMessage)
{
    Fmi3Host *h = malloc(sizeof *h);
    if (!h) return NULL;
    h->log = logMessage;
    SbInstance *inst = sb_instantiate(&sb_model, iface, instanceName, token, env, fmi3_logger, h, loggingOn);
    if (!inst) free(h);
    return inst;
}

/* ---------------------------------------------------------------- common */

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[])
{
    ENTER(fmi3SetDebugLogging, SB_CALL_ANY_STATE)
    return st(sb_set_debug_logging(inst, loggingOn, nCategories, categories));
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage)
{
    (void)resourcePath;
    (void)visible;
    return instantiate(SB_ME, instanceName, instantiationToken, loggingOn, instanceEnvironment, logMessage);
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken,
                                         fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                         fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate)
{
    (void)resourcePath;
    (void)visible;
    (void)earlyReturnAllowed;
    (void)requiredIntermediateVariables;
    (void)nRequiredIntermediateVariables;
    (void)intermediateUpdate;
    if (eventModeUsed) { /* hasEventMode = false: the standard requires refusing the instance */
        if (logMessage)
            logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                       "fmi3InstantiateCoSimulation: eventModeUsed = true, but this FMU has no event mode "
                       "(hasEventMode = false)");
        return NULL;
    }
    return instantiate(SB_CS, instanceName, instantiationToken, loggingOn, instanceEnvironment, logMessage);
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String instanceName, fmi3String instantiationToken,
                                               fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                               fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
                                               fmi3LockPreemptionCallback lockPreemption,
                                               fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)instanceName;
    (void)instantiationToken;
    (void)resourcePath;
    (void)visible;
    (void)loggingOn;
    (void)clockUpdate;
    (void)lockPreemption;
    (void)unlockPreemption;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "fmi3InstantiateScheduledExecution: this FMU does not provide Scheduled Execution");
    return NULL;
}

void fmi3FreeInstance(fmi3Instance instance)
{
    SbInstance *inst = (SbInstance *)instance;
    if (!inst) return;
    void *h = (void *)inst->host;
    sb_free(inst);
    free(h);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    ENTER(fmi3EnterInitializationMode, SB_CALL_ENTER_INITIALIZATION)
    SbStatus s = sb_setup_experiment(inst, "fmi3EnterInitializationMode", toleranceDefined, tolerance, startTime,
                                     stopTimeDefined, stopTime);
    return st(s != SB_OK ? s : sb_enter_initialization(inst));
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    ENTER(fmi3ExitInitializationMode, SB_CALL_EXIT_INITIALIZATION)
    return st(sb_exit_initialization(inst));
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance)
{
    ENTER(fmi3EnterEventMode, SB_CALL_ENTER_EVENT_MODE)
    NEED(SB_ME, fmi3EnterEventMode)
    inst->state.mode = SB_MODE_EVENT;
    return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance instance)
{
    ENTER(fmi3Terminate, SB_CALL_TERMINATE)
    inst->state.mode = SB_MODE_TERMINATED;
    return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
    ENTER(fmi3Reset, SB_CALL_ANY_STATE)
    sb_reset(inst);
    return fmi3OK;
}

/* ------------------------------------------------------ get and set values */

static int scalar_count(SbInstance *inst, const char *fn, size_t nvr, size_t nValues)
{
    if (nvr != nValues) {
        sb_fail(inst, fn, "nValues = %lu differs from nValueReferences = %lu (all variables are scalars)",
                (unsigned long)nValues, (unsigned long)nvr);
        return 0;
    }
    return 1;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Float64 values[],
                          size_t nValues)
{
    ENTER(fmi3GetFloat64, SB_CALL_GET_VALUES)
    if (!scalar_count(inst, "fmi3GetFloat64", nvr, nValues)) return fmi3Error;
    return st(sb_get_real(inst, "fmi3GetFloat64", vr, nvr, values));
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 values[], size_t nValues)
{
    ENTER(fmi3SetFloat64, SB_CALL_SET_VALUES)
    if (!scalar_count(inst, "fmi3SetFloat64", nvr, nValues)) return fmi3Error;
    return st(sb_set_real(inst, "fmi3SetFloat64", vr, nvr, values));
}

fmi3Status fmi3GetInt64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Int64 values[],
                        size_t nValues)
{
    ENTER(fmi3GetInt64, SB_CALL_GET_VALUES)
    if (!scalar_count(inst, "fmi3GetInt64", nvr, nValues)) return fmi3Error;
    if (nvr > 0 && (!vr || !values)) return st(sb_fail(inst, "fmi3GetInt64", "NULL argument"));
    for (size_t k = 0; k < nvr; ++k) {
        long long v;
        SbStatus s = sb_get_int(inst, "fmi3GetInt64", &vr[k], 1, &v);
        if (s != SB_OK) return st(s);
        values[k] = (fmi3Int64)v;
    }
    return fmi3OK;
}

static double int64_at(const void *values, size_t k) { return (double)((const fmi3Int64 *)values)[k]; }

fmi3Status fmi3SetInt64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3Int64 values[],
                        size_t nValues)
{
    ENTER(fmi3SetInt64, SB_CALL_SET_DISCRETE_VALUES)
    if (!scalar_count(inst, "fmi3SetInt64", nvr, nValues)) return fmi3Error;
    return st(sb_set_values(inst, "fmi3SetInt64", vr, nvr, SB_TYPE_ENUM, values, int64_at));
}

fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Boolean values[],
                          size_t nValues)
{
    ENTER(fmi3GetBoolean, SB_CALL_GET_VALUES)
    if (!scalar_count(inst, "fmi3GetBoolean", nvr, nValues)) return fmi3Error;
    if (nvr > 0 && (!vr || !values)) return st(sb_fail(inst, "fmi3GetBoolean", "NULL argument"));
    for (size_t k = 0; k < nvr; ++k) {
        int v;
        SbStatus s = sb_get_bool(inst, "fmi3GetBoolean", &vr[k], 1, &v);
        if (s != SB_OK) return st(s);
        values[k] = v != 0;
    }
    return fmi3OK;
}

static double boolean_at(const void *values, size_t k) { return ((const fmi3Boolean *)values)[k] ? 1.0 : 0.0; }

fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Boolean values[], size_t nValues)
{
    ENTER(fmi3SetBoolean, SB_CALL_SET_DISCRETE_VALUES)
    if (!scalar_count(inst, "fmi3SetBoolean", nvr, nValues)) return fmi3Error;
    return st(sb_set_values(inst, "fmi3SetBoolean", vr, nvr, SB_TYPE_BOOLEAN, values, boolean_at));
}

/* variable types this FMU does not have: only empty requests succeed */
#define NO_SUCH_TYPE(fn, T, Q, call)                                                                                 \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, Q T values[], size_t nValues)    \
    {                                                                                                                \
        ENTER(fn, call)                                                                                              \
        (void)values;                                                                                                \
        (void)nValues;                                                                                               \
        if (nvr == 0) return fmi3OK;                                                                                 \
        return st(sb_fail(inst, #fn, "value reference %u is not a variable of type " #T, vr ? vr[0] : 0));           \
    }

NO_SUCH_TYPE(fmi3GetFloat32, fmi3Float32, , SB_CALL_GET_VALUES)
NO_SUCH_TYPE(fmi3GetInt8, fmi3Int8, , SB_CALL_GET_VALUES)
NO_SUCH_TYPE(fmi3GetUInt8, fmi3UInt8, , SB_CALL_GET_VALUES)
NO_SUCH_TYPE(fmi3GetInt16, fmi3Int16, , SB_CALL_GET_VALUES)
NO_SUCH_TYPE(fmi3GetUInt16, fmi3UInt16, , SB_CALL_GET_VALUES)
NO_SUCH_TYPE(fmi3GetInt32, fmi3Int32, , SB_CALL_GET_VALUES)
NO_SUCH_TYPE(fmi3GetUInt32, fmi3UInt32, , SB_CALL_GET_VALUES)
NO_SUCH_TYPE(fmi3GetUInt64, fmi3UInt64, , SB_CALL_GET_VALUES)
NO_SUCH_TYPE(fmi3GetString, fmi3String, , SB_CALL_GET_VALUES)
NO_SUCH_TYPE(fmi3SetFloat32, fmi3Float32, const, SB_CALL_SET_VALUES)
NO_SUCH_TYPE(fmi3SetInt8, fmi3Int8, const, SB_CALL_SET_DISCRETE_VALUES)
NO_SUCH_TYPE(fmi3SetUInt8, fmi3UInt8, const, SB_CALL_SET_DISCRETE_VALUES)
NO_SUCH_TYPE(fmi3SetInt16, fmi3Int16, const, SB_CALL_SET_DISCRETE_VALUES)
NO_SUCH_TYPE(fmi3SetUInt16, fmi3UInt16, const, SB_CALL_SET_DISCRETE_VALUES)
NO_SUCH_TYPE(fmi3SetInt32, fmi3Int32, const, SB_CALL_SET_DISCRETE_VALUES)
NO_SUCH_TYPE(fmi3SetUInt32, fmi3UInt32, const, SB_CALL_SET_DISCRETE_VALUES)
NO_SUCH_TYPE(fmi3SetUInt64, fmi3UInt64, const, SB_CALL_SET_DISCRETE_VALUES)
NO_SUCH_TYPE(fmi3SetString, fmi3String, const, SB_CALL_SET_DISCRETE_VALUES)

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, size_t valueSizes[],
                         fmi3Binary values[], size_t nValues)
{
    ENTER(fmi3GetBinary, SB_CALL_GET_VALUES)
    (void)valueSizes;
    (void)values;
    (void)nValues;
    if (nvr == 0) return fmi3OK;
    return st(sb_fail(inst, "fmi3GetBinary", "value reference %u is not a Binary variable", vr ? vr[0] : 0));
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues)
{
    ENTER(fmi3SetBinary, SB_CALL_SET_DISCRETE_VALUES)
    (void)valueSizes;
    (void)values;
    (void)nValues;
    if (nvr == 0) return fmi3OK;
    return st(sb_fail(inst, "fmi3SetBinary", "value reference %u is not a Binary variable", vr ? vr[0] : 0));
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Clock values[])
{
    ENTER(fmi3GetClock, SB_CALL_GET_VALUES)
    (void)values;
    if (nvr == 0) return fmi3OK;
    return st(sb_fail(inst, "fmi3GetClock", "this FMU has no clocks (value reference %u)", vr ? vr[0] : 0));
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3Clock values[])
{
    ENTER(fmi3SetClock, SB_CALL_SET_DISCRETE_VALUES)
    (void)values;
    if (nvr == 0) return fmi3OK;
    return st(sb_fail(inst, "fmi3SetClock", "this FMU has no clocks (value reference %u)", vr ? vr[0] : 0));
}

/* ------------------------------------------------------ variable dependencies */

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
    (void)valueReference;
    (void)nDependencies;
    UNSUPPORTED(fmi3GetNumberOfVariableDependencies, "not provided: see ModelStructure in modelDescription.xml")
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[], fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[], fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies)
{
    (void)dependent;
    (void)elementIndicesOfDependent;
    (void)independents;
    (void)elementIndicesOfIndependents;
    (void)dependencyKinds;
    (void)nDependencies;
    UNSUPPORTED(fmi3GetVariableDependencies, "not provided: see ModelStructure in modelDescription.xml")
}

/* --------------------------------------------------------------- FMU state */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    ENTER(fmi3GetFMUState, SB_CALL_GET_FMU_STATE)
    if (!FMUState) return st(sb_fail(inst, "fmi3GetFMUState", "FMUState is NULL"));
    SbSnapshot *s = sb_snapshot(inst, (SbSnapshot *)*FMUState);
    if (!s) return st(sb_fail(inst, "fmi3GetFMUState", "out of memory"));
    *FMUState = s;
    return fmi3OK;
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    ENTER(fmi3SetFMUState, SB_CALL_FMU_STATE)
    return st(sb_restore(inst, (const SbSnapshot *)FMUState));
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    ENTER(fmi3FreeFMUState, SB_CALL_FMU_STATE)
    if (!FMUState) return fmi3OK;
    free(*FMUState);
    *FMUState = NULL;
    return fmi3OK;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t *size)
{
    ENTER(fmi3SerializedFMUStateSize, SB_CALL_FMU_STATE)
    (void)FMUState;
    if (!size) return st(sb_fail(inst, "fmi3SerializedFMUStateSize", "size is NULL"));
    *size = sb_snapshot_size(inst);
    return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                 size_t size)
{
    ENTER(fmi3SerializeFMUState, SB_CALL_FMU_STATE)
    return st(sb_serialize(inst, (const SbSnapshot *)FMUState, (unsigned char *)serializedState, size));
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                   fmi3FMUState *FMUState)
{
    ENTER(fmi3DeserializeFMUState, SB_CALL_FMU_STATE)
    if (!FMUState) return st(sb_fail(inst, "fmi3DeserializeFMUState", "FMUState is NULL"));
    SbSnapshot *s = sb_deserialize(inst, (const unsigned char *)serializedState, size);
    if (!s) return fmi3Error;
    free(*FMUState);
    *FMUState = s;
    return fmi3OK;
}

/* ------------------------------------------------- directional derivatives */

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[],
                                        size_t nSeed, fmi3Float64 sensitivity[], size_t nSensitivity)
{
    ENTER(fmi3GetDirectionalDerivative, SB_CALL_DERIVATIVES)
    if (nSeed != nKnowns || nSensitivity != nUnknowns)
        return st(sb_fail(inst, "fmi3GetDirectionalDerivative",
                          "nSeed (%lu) and nSensitivity (%lu) must equal nKnowns (%lu) and nUnknowns (%lu)",
                          (unsigned long)nSeed, (unsigned long)nSensitivity, (unsigned long)nKnowns,
                          (unsigned long)nUnknowns));
    return st(sb_directional_derivative(inst, "fmi3GetDirectionalDerivative", unknowns, nUnknowns, knowns, nKnowns,
                                        seed, sensitivity));
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
                                    const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[],
                                    size_t nSeed, fmi3Float64 sensitivity[], size_t nSensitivity)
{
    (void)unknowns;
    (void)nUnknowns;
    (void)knowns;
    (void)nKnowns;
    (void)seed;
    (void)nSeed;
    (void)sensitivity;
    (void)nSensitivity;
    UNSUPPORTED(fmi3GetAdjointDerivative, "not provided (providesAdjointDerivatives = false)")
}

/* ------------------------------------------------ configuration and clocks */

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance)
    UNSUPPORTED(fmi3EnterConfigurationMode, "this FMU has no structural parameters")

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance)
    UNSUPPORTED(fmi3ExitConfigurationMode, "this FMU has no structural parameters")

/* Clock functions: this FMU has no clocks, so any value reference is an error.  The value arrays are
   named in `unused` only to mark them as deliberately unused (-Wextra). */
#define NO_CLOCKS(fn, params, unused)                                                                                \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, params)                          \
    {                                                                                                                \
        ENTER(fn, SB_CALL_ANY_STATE)                                                                                 \
        unused;                                                                                                      \
        if (nvr == 0) return fmi3OK;                                                                                 \
        return st(sb_fail(inst, #fn, "this FMU has no clocks (value reference %u)", vr ? vr[0] : 0));                \
    }
#define ARGS2(a, b) a, b
#define ARGS3(a, b, c) a, b, c

NO_CLOCKS(fmi3GetIntervalDecimal, ARGS2(fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[]),
          (void)intervals; (void)qualifiers)
NO_CLOCKS(fmi3GetIntervalFraction,
          ARGS3(fmi3UInt64 counters[], fmi3UInt64 resolutions[], fmi3IntervalQualifier qualifiers[]),
          (void)counters; (void)resolutions; (void)qualifiers)
NO_CLOCKS(fmi3GetShiftDecimal, fmi3Float64 shifts[], (void)shifts)
NO_CLOCKS(fmi3GetShiftFraction, ARGS2(fmi3UInt64 counters[], fmi3UInt64 resolutions[]),
          (void)counters; (void)resolutions)
NO_CLOCKS(fmi3SetIntervalDecimal, const fmi3Float64 intervals[], (void)intervals)
NO_CLOCKS(fmi3SetIntervalFraction, ARGS2(const fmi3UInt64 counters[], const fmi3UInt64 resolutions[]),
          (void)counters; (void)resolutions)
NO_CLOCKS(fmi3SetShiftDecimal, const fmi3Float64 shifts[], (void)shifts)
NO_CLOCKS(fmi3SetShiftFraction, ARGS2(const fmi3UInt64 counters[], const fmi3UInt64 resolutions[]),
          (void)counters; (void)resolutions)

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance)
{
    ENTER(fmi3EvaluateDiscreteStates, SB_CALL_EVALUATE_DISCRETE_STATES)
    NEED(SB_ME, fmi3EvaluateDiscreteStates)
    return fmi3OK; /* no discrete states */
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation, fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged, fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
    ENTER(fmi3UpdateDiscreteStates, SB_CALL_UPDATE_DISCRETE_STATES)
    if (discreteStatesNeedUpdate) *discreteStatesNeedUpdate = fmi3False;
    if (terminateSimulation) *terminateSimulation = fmi3False;
    if (nominalsOfContinuousStatesChanged) *nominalsOfContinuousStatesChanged = fmi3False;
    if (valuesOfContinuousStatesChanged) *valuesOfContinuousStatesChanged = fmi3False;
    if (nextEventTimeDefined) *nextEventTimeDefined = fmi3False;
    if (nextEventTime) *nextEventTime = 0.0;
    int changed = 0; /* impacts and contact modes (sb_events.c) */
    SbStatus s = inst->interface == SB_ME ? sb_events_resolve(inst, "fmi3UpdateDiscreteStates", &changed) : SB_OK;
    if (valuesOfContinuousStatesChanged) *valuesOfContinuousStatesChanged = changed ? fmi3True : fmi3False;
    return st(s);
}

/* --------------------------------------------------------- Model Exchange */

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance)
{
    ENTER(fmi3EnterContinuousTimeMode, SB_CALL_ENTER_CONTINUOUS_MODE)
    NEED(SB_ME, fmi3EnterContinuousTimeMode)
    inst->state.mode = SB_MODE_CONTINUOUS;
    return fmi3OK;
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation)
{
    ENTER(fmi3CompletedIntegratorStep, SB_CALL_COMPLETED_STEP)
    NEED(SB_ME, fmi3CompletedIntegratorStep)
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!enterEventMode || !terminateSimulation)
        return st(sb_fail(inst, "fmi3CompletedIntegratorStep", "NULL argument"));
    *enterEventMode = fmi3False;
    *terminateSimulation = fmi3False;
    if (inst->state.flags & SB_FLAG_BRANCH_LOST) /* the branch guard fired (sb_singular.c) */
        return st(sb_fail(inst, "fmi3CompletedIntegratorStep", "%s", inst->problem));
    return fmi3OK;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    ENTER(fmi3SetTime, SB_CALL_SET_TIME_OR_STATES)
    NEED(SB_ME, fmi3SetTime)
    if (!isfinite(time)) return st(sb_fail(inst, "fmi3SetTime", "time %g is not finite", time));
    *inst->state.time = time;
    sb_changed(inst);
    return fmi3OK;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    ENTER(fmi3SetContinuousStates, SB_CALL_SET_TIME_OR_STATES)
    NEED(SB_ME, fmi3SetContinuousStates)
    return st(sb_set_continuous_states(inst, "fmi3SetContinuousStates", continuousStates, nContinuousStates));
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates)
{
    ENTER(fmi3GetContinuousStateDerivatives, SB_CALL_DERIVATIVES)
    NEED(SB_ME, fmi3GetContinuousStateDerivatives)
    return st(sb_get_derivatives(inst, "fmi3GetContinuousStateDerivatives", derivatives, nContinuousStates));
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[], size_t nEventIndicators)
{
    ENTER(fmi3GetEventIndicators, SB_CALL_CONTINUOUS_STATES)
    NEED(SB_ME, fmi3GetEventIndicators)
    if (nEventIndicators > 0 && !eventIndicators) return st(sb_fail(inst, "fmi3GetEventIndicators", "NULL argument"));
    return st(sb_event_indicators(inst, "fmi3GetEventIndicators", eventIndicators, nEventIndicators, 1));
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[], size_t nContinuousStates)
{
    ENTER(fmi3GetContinuousStates, SB_CALL_CONTINUOUS_STATES)
    NEED(SB_ME, fmi3GetContinuousStates)
    return st(sb_get_continuous_states(inst, "fmi3GetContinuousStates", continuousStates, nContinuousStates));
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[], size_t nContinuousStates)
{
    ENTER(fmi3GetNominalsOfContinuousStates, SB_CALL_CONTINUOUS_STATES)
    NEED(SB_ME, fmi3GetNominalsOfContinuousStates)
    return st(sb_get_nominals(inst, "fmi3GetNominalsOfContinuousStates", nominals, nContinuousStates));
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    ENTER(fmi3GetNumberOfEventIndicators, SB_CALL_ANY_STATE)
    NEED(SB_ME, fmi3GetNumberOfEventIndicators)
    if (!nEventIndicators) return st(sb_fail(inst, "fmi3GetNumberOfEventIndicators", "NULL argument"));
    *nEventIndicators = (size_t)(inst->m->nk + inst->m->nsw + inst->m->nf);
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    ENTER(fmi3GetNumberOfContinuousStates, SB_CALL_ANY_STATE)
    NEED(SB_ME, fmi3GetNumberOfContinuousStates)
    if (!nContinuousStates) return st(sb_fail(inst, "fmi3GetNumberOfContinuousStates", "NULL argument"));
    *nContinuousStates = (size_t)sb_nx(inst->m);
    return fmi3OK;
}

/* ----------------------------------------------------------- Co-Simulation */

fmi3Status fmi3EnterStepMode(fmi3Instance instance)
    UNSUPPORTED(fmi3EnterStepMode, "event mode is not used in Co-Simulation (hasEventMode = false)")

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                    const fmi3Int32 orders[], fmi3Float64 values[], size_t nValues)
{
    ENTER(fmi3GetOutputDerivatives, SB_CALL_OUTPUT_DERIVATIVES)
    NEED(SB_CS, fmi3GetOutputDerivatives)
    (void)orders;
    (void)values;
    (void)nValues;
    if (nvr == 0) return fmi3OK;
    return st(sb_fail(inst, "fmi3GetOutputDerivatives", "not provided (maxOutputDerivativeOrder = 0), value reference %u",
                      vr ? vr[0] : 0));
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint, fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    /* the outputs are defined whatever the status: no events, no early return, the time reached */
    if (eventHandlingNeeded) *eventHandlingNeeded = fmi3False;
    if (terminateSimulation) *terminateSimulation = fmi3False;
    if (earlyReturn) *earlyReturn = fmi3False;
    if (lastSuccessfulTime && instance) *lastSuccessfulTime = *((SbInstance *)instance)->state.time;
    ENTER(fmi3DoStep, SB_CALL_STEP)
    NEED(SB_CS, fmi3DoStep)
    (void)noSetFMUStatePriorToCurrentPoint;
    SbStatus s = sb_do_step(inst, currentCommunicationPoint, communicationStepSize);
    if (lastSuccessfulTime) *lastSuccessfulTime = *inst->state.time;
    if (terminateSimulation) *terminateSimulation = (inst->state.flags & SB_FLAG_TERMINATE) ? fmi3True : fmi3False;
    return st(s);
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
    (void)clockReference;
    (void)activationTime;
    UNSUPPORTED(fmi3ActivateModelPartition, "this FMU does not provide Scheduled Execution")
}
