/*
 * fmi3Functions.c -- FMI 3.0 Model Exchange and Co-Simulation interface of a
 * symbody FMU.  Model independent and thin: each call is checked against the
 * state table and handled by the runtime both wrappers share (sb_calls.h,
 * sb_runtime.h, sb_solver.h), which uses the generated model.c; only what FMI 3's
 * types and functions need is here.
 * Scheduled Execution, clocks, configuration mode, adjoint derivatives and
 * event mode in Co-Simulation are not provided; those calls return fmi3Error
 * with a message.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "sb_calls.h"
#include "sb_solver.h"

typedef struct {
    fmi3LogMessageCallback log;
} Fmi3Host;

static void fmi3_logger(SbInstance *inst, SbStatus status, const char *category, const char *message)
{
    const Fmi3Host *h = inst->host;
    if (h && h->log) h->log(inst->env, (fmi3Status)status, category, message);
}

/* The value reference of the first variable: FMI 3 value references are the 1-based positions of the
   variables in ModelVariables (symbody/fmu/description.py, FMI3_FIRST_VALUE_REFERENCE), the indices FMI 2
   gives them; importers that read FMI 3 dependencies as FMI 2 indices name the right variables. */
#define SB_FMI3_FIRST_VR 1u

/* the FMI 3 status of an SbStatus (same values), for SB_ENTER and SB_NEED */
#define SB_STATUS(s) ((fmi3Status)(s))

/* a function this FMU does not provide: Error in any state, with `what` as the message */
#define UNSUPPORTED(what)                                                                                            \
    {                                                                                                                \
        SB_ENTER(instance, SB_CALL_ANY_STATE);                                                                       \
        return SB_STATUS(sb_fail(inst, __func__, "%s", what));                                                       \
    }

static fmi3Instance instantiate(SbInterface iface, fmi3String instanceName, fmi3String token, fmi3Boolean loggingOn,
                                fmi3InstanceEnvironment env, fmi3LogMessageCallback logMessage)
{
    const Fmi3Host host = {logMessage};
    SbInstance *inst =
        sb_instantiate_hosted(iface, instanceName, token, env, fmi3_logger, &host, sizeof host, loggingOn);
    if (inst) inst->first_vr = SB_FMI3_FIRST_VR;
    return inst;
}

/* ---------------------------------------------------------------- common */

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[])
{
    SB_ENTER(instance, SB_CALL_ANY_STATE);
    return SB_STATUS(sb_set_debug_logging(inst, loggingOn, nCategories, categories));
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

void fmi3FreeInstance(fmi3Instance instance) { sb_free_hosted(instance); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    SB_ENTER(instance, SB_CALL_ENTER_INITIALIZATION);
    SbStatus s = sb_setup_experiment(inst, __func__, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime);
    return SB_STATUS(s != SB_OK ? s : sb_enter_initialization(inst));
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    SB_ENTER(instance, SB_CALL_EXIT_INITIALIZATION);
    return SB_STATUS(sb_exit_initialization(inst));
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance)
{
    SB_ENTER(instance, SB_CALL_ENTER_EVENT_MODE);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_enter_mode(inst, SB_MODE_EVENT));
}

fmi3Status fmi3Terminate(fmi3Instance instance)
{
    SB_ENTER(instance, SB_CALL_TERMINATE);
    return SB_STATUS(sb_enter_mode(inst, SB_MODE_TERMINATED));
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
    SB_ENTER(instance, SB_CALL_ANY_STATE);
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

static void int64_put(void *values, size_t k, double v) { ((fmi3Int64 *)values)[k] = (fmi3Int64)v; }
static void boolean_put(void *values, size_t k, double v) { ((fmi3Boolean *)values)[k] = v != 0.0; }
static double int64_at(const void *values, size_t k) { return (double)((const fmi3Int64 *)values)[k]; }
static double boolean_at(const void *values, size_t k) { return ((const fmi3Boolean *)values)[k] ? 1.0 : 0.0; }

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Float64 values[],
                          size_t nValues)
{
    SB_ENTER(instance, SB_CALL_GET_VALUES);
    if (!scalar_count(inst, __func__, nvr, nValues)) return fmi3Error;
    return SB_STATUS(sb_get_real(inst, __func__, vr, nvr, values));
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 values[], size_t nValues)
{
    SB_ENTER(instance, SB_CALL_SET_VALUES);
    if (!scalar_count(inst, __func__, nvr, nValues)) return fmi3Error;
    return SB_STATUS(sb_set_real(inst, __func__, vr, nvr, values));
}

fmi3Status fmi3GetInt64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Int64 values[],
                        size_t nValues)
{
    SB_ENTER(instance, SB_CALL_GET_VALUES);
    if (!scalar_count(inst, __func__, nvr, nValues)) return fmi3Error;
    return SB_STATUS(sb_get_values(inst, __func__, vr, nvr, SB_TYPE_ENUM, values, int64_put));
}

fmi3Status fmi3SetInt64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3Int64 values[],
                        size_t nValues)
{
    SB_ENTER(instance, SB_CALL_SET_DISCRETE_VALUES);
    if (!scalar_count(inst, __func__, nvr, nValues)) return fmi3Error;
    return SB_STATUS(sb_set_values(inst, __func__, vr, nvr, SB_TYPE_ENUM, values, int64_at));
}

fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Boolean values[],
                          size_t nValues)
{
    SB_ENTER(instance, SB_CALL_GET_VALUES);
    if (!scalar_count(inst, __func__, nvr, nValues)) return fmi3Error;
    return SB_STATUS(sb_get_values(inst, __func__, vr, nvr, SB_TYPE_BOOLEAN, values, boolean_put));
}

fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Boolean values[], size_t nValues)
{
    SB_ENTER(instance, SB_CALL_SET_DISCRETE_VALUES);
    if (!scalar_count(inst, __func__, nvr, nValues)) return fmi3Error;
    return SB_STATUS(sb_set_values(inst, __func__, vr, nvr, SB_TYPE_BOOLEAN, values, boolean_at));
}

/* variable types this FMU does not have: only empty requests succeed */
#define NO_SUCH_TYPE(fn, T, Q, call)                                                                                 \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, Q T values[], size_t nValues)    \
    {                                                                                                                \
        SB_ENTER(instance, call);                                                                                    \
        (void)values;                                                                                                \
        (void)nValues;                                                                                               \
        return SB_STATUS(sb_no_variables(inst, __func__, vr, nvr, #T " variables"));                                 \
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
    SB_ENTER(instance, SB_CALL_GET_VALUES);
    (void)valueSizes;
    (void)values;
    (void)nValues;
    return SB_STATUS(sb_no_variables(inst, __func__, vr, nvr, "Binary variables"));
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues)
{
    SB_ENTER(instance, SB_CALL_SET_DISCRETE_VALUES);
    (void)valueSizes;
    (void)values;
    (void)nValues;
    return SB_STATUS(sb_no_variables(inst, __func__, vr, nvr, "Binary variables"));
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Clock values[])
{
    SB_ENTER(instance, SB_CALL_GET_VALUES);
    (void)values;
    return SB_STATUS(sb_no_variables(inst, __func__, vr, nvr, "clocks"));
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3Clock values[])
{
    SB_ENTER(instance, SB_CALL_SET_DISCRETE_VALUES);
    (void)values;
    return SB_STATUS(sb_no_variables(inst, __func__, vr, nvr, "clocks"));
}

/* ------------------------------------------------------ variable dependencies */

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
    (void)valueReference;
    (void)nDependencies;
    UNSUPPORTED("not provided: see ModelStructure in modelDescription.xml")
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
    UNSUPPORTED("not provided: see ModelStructure in modelDescription.xml")
}

/* --------------------------------------------------------------- FMU state */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    SB_ENTER(instance, SB_CALL_GET_FMU_STATE);
    return SB_STATUS(sb_get_fmu_state(inst, __func__, FMUState));
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    SB_ENTER(instance, SB_CALL_FMU_STATE);
    return SB_STATUS(sb_restore(inst, FMUState));
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    SB_ENTER(instance, SB_CALL_FMU_STATE);
    return SB_STATUS(sb_free_fmu_state(FMUState));
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t *size)
{
    SB_ENTER(instance, SB_CALL_FMU_STATE);
    (void)FMUState;
    return SB_STATUS(sb_serialized_size(inst, __func__, size));
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                 size_t size)
{
    SB_ENTER(instance, SB_CALL_FMU_STATE);
    return SB_STATUS(sb_serialize(inst, FMUState, (unsigned char *)serializedState, size));
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                   fmi3FMUState *FMUState)
{
    SB_ENTER(instance, SB_CALL_FMU_STATE);
    return SB_STATUS(sb_deserialize_fmu_state(inst, __func__, (const unsigned char *)serializedState, size, FMUState));
}

/* ------------------------------------------------- directional derivatives */

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[],
                                        size_t nSeed, fmi3Float64 sensitivity[], size_t nSensitivity)
{
    SB_ENTER(instance, SB_CALL_DERIVATIVES);
    if (nSeed != nKnowns || nSensitivity != nUnknowns)
        return SB_STATUS(sb_fail(inst, __func__,
                                 "nSeed (%lu) and nSensitivity (%lu) must equal nKnowns (%lu) and nUnknowns (%lu)",
                                 (unsigned long)nSeed, (unsigned long)nSensitivity, (unsigned long)nKnowns,
                                 (unsigned long)nUnknowns));
    return SB_STATUS(
        sb_directional_derivative(inst, __func__, unknowns, nUnknowns, knowns, nKnowns, seed, sensitivity));
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
    UNSUPPORTED("not provided (providesAdjointDerivatives = false)")
}

/* ------------------------------------------------ configuration and clocks */

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance)
    UNSUPPORTED("this FMU has no structural parameters")

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance)
    UNSUPPORTED("this FMU has no structural parameters")

/* Clock functions: this FMU has no clocks, so any value reference is an error.  The value arrays are
   named in `unused` only to mark them as deliberately unused (-Wextra). */
#define NO_CLOCKS(fn, params, unused)                                                                                \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, params)                          \
    {                                                                                                                \
        SB_ENTER(instance, SB_CALL_ANY_STATE);                                                                       \
        unused;                                                                                                      \
        return SB_STATUS(sb_no_variables(inst, __func__, vr, nvr, "clocks"));                                        \
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
    SB_ENTER(instance, SB_CALL_EVALUATE_DISCRETE_STATES);
    SB_NEED(SB_ME);
    return fmi3OK; /* no discrete states */
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation, fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged, fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
    SB_ENTER(instance, SB_CALL_UPDATE_DISCRETE_STATES);
    int changed;
    SbStatus s = sb_update_discrete_states(inst, __func__, &changed);
    if (valuesOfContinuousStatesChanged) *valuesOfContinuousStatesChanged = changed ? fmi3True : fmi3False;
    if (discreteStatesNeedUpdate) *discreteStatesNeedUpdate = fmi3False; /* no discrete states */
    if (terminateSimulation) *terminateSimulation = fmi3False;
    if (nominalsOfContinuousStatesChanged) *nominalsOfContinuousStatesChanged = fmi3False;
    if (nextEventTimeDefined) *nextEventTimeDefined = fmi3False; /* no time events */
    if (nextEventTime) *nextEventTime = 0.0;
    return SB_STATUS(s);
}

/* --------------------------------------------------------- Model Exchange */

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance)
{
    SB_ENTER(instance, SB_CALL_ENTER_CONTINUOUS_MODE);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_enter_mode(inst, SB_MODE_CONTINUOUS));
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation)
{
    SB_ENTER(instance, SB_CALL_COMPLETED_STEP);
    SB_NEED(SB_ME);
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!enterEventMode || !terminateSimulation) return SB_STATUS(sb_fail(inst, __func__, "NULL argument"));
    *terminateSimulation = fmi3False;
    int enter = 0;
    const SbStatus s = sb_completed_integrator_step(inst, __func__, &enter);
    *enterEventMode = enter ? fmi3True : fmi3False;
    return SB_STATUS(s);
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    SB_ENTER(instance, SB_CALL_SET_TIME_OR_STATES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_set_time(inst, __func__, time));
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    SB_ENTER(instance, SB_CALL_SET_TIME_OR_STATES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_set_continuous_states(inst, __func__, continuousStates, nContinuousStates));
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates)
{
    SB_ENTER(instance, SB_CALL_DERIVATIVES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_get_derivatives(inst, __func__, derivatives, nContinuousStates));
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[], size_t nEventIndicators)
{
    SB_ENTER(instance, SB_CALL_CONTINUOUS_STATES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_get_event_indicators(inst, __func__, eventIndicators, nEventIndicators));
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[], size_t nContinuousStates)
{
    SB_ENTER(instance, SB_CALL_CONTINUOUS_STATES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_get_continuous_states(inst, __func__, continuousStates, nContinuousStates));
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[], size_t nContinuousStates)
{
    SB_ENTER(instance, SB_CALL_CONTINUOUS_STATES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_get_nominals(inst, __func__, nominals, nContinuousStates));
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    SB_ENTER(instance, SB_CALL_ANY_STATE);
    SB_NEED(SB_ME);
    if (!nEventIndicators) return SB_STATUS(sb_fail(inst, __func__, "NULL argument"));
    *nEventIndicators = (size_t)(inst->m->nk + inst->m->nsw + inst->m->nf);
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    SB_ENTER(instance, SB_CALL_ANY_STATE);
    SB_NEED(SB_ME);
    if (!nContinuousStates) return SB_STATUS(sb_fail(inst, __func__, "NULL argument"));
    *nContinuousStates = (size_t)sb_nx(inst->m);
    return fmi3OK;
}

/* ----------------------------------------------------------- Co-Simulation */

fmi3Status fmi3EnterStepMode(fmi3Instance instance)
    UNSUPPORTED("event mode is not used in Co-Simulation (hasEventMode = false)")

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                    const fmi3Int32 orders[], fmi3Float64 values[], size_t nValues)
{
    SB_ENTER(instance, SB_CALL_OUTPUT_DERIVATIVES);
    SB_NEED(SB_CS);
    (void)orders;
    (void)values;
    (void)nValues;
    return SB_STATUS(sb_no_output_derivatives(inst, __func__, vr, nvr));
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
    SB_ENTER(instance, SB_CALL_STEP);
    SB_NEED(SB_CS);
    (void)noSetFMUStatePriorToCurrentPoint;
    SbStatus s = sb_do_step(inst, currentCommunicationPoint, communicationStepSize);
    if (lastSuccessfulTime) *lastSuccessfulTime = *inst->state.time;
    if (terminateSimulation) *terminateSimulation = (inst->state.flags & SB_FLAG_TERMINATE) ? fmi3True : fmi3False;
    return SB_STATUS(s);
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
    (void)clockReference;
    (void)activationTime;
    UNSUPPORTED("this FMU does not provide Scheduled Execution")
}
