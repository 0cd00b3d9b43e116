/*
 * sbc_fmi3.c -- FMI 3.0 Co-Simulation interface of a symbody controller FMU.
 * Controller independent: it translates FMI 3 calls into sbc_runtime.h; every
 * call is checked against the states it is allowed in.  The functions of the
 * interfaces this FMU does not have (Model Exchange, Scheduled Execution,
 * clocks, configuration mode) exist and return Error.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "sbc_calls.h"

typedef struct {
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback log;
} Fmi3Host;

static void fmi3_logger(SbcInstance *inst, SbcStatus status, const char *category, const char *message)
{
    const Fmi3Host *h = inst->host;
    if (h && h->log) h->log(h->env, (fmi3Status)status, category, message);
}

#define SBC_STATUS(s) ((fmi3Status)(s))

/* a function of an interface or feature this FMU does not have: Error in every state */
#define UNSUPPORTED                                                                                                  \
    {                                                                                                                \
        SBC_ENTER(instance, SBC_CALL_UNSUPPORTED);                                                                   \
        return fmi3Error;                                                                                            \
    }

/* ---------------------------------------------------------------- common */

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[])
{
    SBC_ENTER(instance, SBC_CALL_ANY);
    return SBC_STATUS(sbc_set_debug_logging(inst, loggingOn, nCategories, categories));
}

static void refuse(fmi3InstanceEnvironment env, fmi3LogMessageCallback log, const char *message)
{
    if (log) log(env, fmi3Error, "logStatusError", message);
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage)
{
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible, (void)loggingOn;
    refuse(instanceEnvironment, logMessage, "fmi3InstantiateModelExchange: this FMU has the Co-Simulation interface only");
    return NULL;
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
    (void)resourcePath, (void)visible, (void)earlyReturnAllowed, (void)requiredIntermediateVariables;
    (void)nRequiredIntermediateVariables, (void)intermediateUpdate;
    if (eventModeUsed) { /* hasEventMode = false: the standard requires refusing the instance */
        refuse(instanceEnvironment, logMessage,
               "fmi3InstantiateCoSimulation: eventModeUsed = true, but this FMU has no event mode (hasEventMode = false)");
        return NULL;
    }
    const Fmi3Host host = {instanceEnvironment, logMessage};
    SbcInstance *inst =
        sbc_instantiate_hosted(instanceName, instantiationToken, fmi3_logger, &host, sizeof host, loggingOn);
    if (inst) inst->first_vr = 1u; /* FMI 3 value references: the 1-based positions in ModelVariables, as in
                                      the plant FMUs (fmi3Functions.c) */
    return inst;
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String instanceName, fmi3String instantiationToken,
                                               fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                               fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
                                               fmi3LockPreemptionCallback lockPreemption,
                                               fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible, (void)loggingOn;
    (void)clockUpdate, (void)lockPreemption, (void)unlockPreemption;
    refuse(instanceEnvironment, logMessage,
           "fmi3InstantiateScheduledExecution: this FMU has the Co-Simulation interface only");
    return NULL;
}

void fmi3FreeInstance(fmi3Instance instance) { sbc_free_hosted(instance); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    SBC_ENTER(instance, SBC_CALL_SETUP);
    (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
    if (sbc_setup(inst, __func__, startTime) != SBC_OK) return fmi3Error;
    return SBC_STATUS(sbc_enter_initialization(inst, __func__));
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    SBC_ENTER(instance, SBC_CALL_EXIT_INIT);
    return SBC_STATUS(sbc_exit_initialization(inst, __func__));
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) UNSUPPORTED

fmi3Status fmi3Terminate(fmi3Instance instance)
{
    SBC_ENTER(instance, SBC_CALL_TERMINATE);
    return SBC_STATUS(sbc_terminate(inst));
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
    SBC_ENTER(instance, SBC_CALL_ANY);
    sbc_reset(inst);
    return fmi3OK;
}

/* ------------------------------------------------------ get and set values */

static int scalars(SbcInstance *inst, const char *fn, size_t nvr, size_t nValues)
{
    if (nvr == nValues) return 1;
    sbc_fail(inst, fn, "%lu value references but %lu values (this FMU has scalar variables only)", (unsigned long)nvr,
             (unsigned long)nValues);
    return 0;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Float64 values[],
                          size_t nValues)
{
    SBC_ENTER(instance, SBC_CALL_GET);
    if (!scalars(inst, __func__, nvr, nValues)) return fmi3Error;
    return SBC_STATUS(sbc_get_real(inst, __func__, vr, nvr, values));
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 values[], size_t nValues)
{
    SBC_ENTER(instance, SBC_CALL_SET);
    if (!scalars(inst, __func__, nvr, nValues)) return fmi3Error;
    return SBC_STATUS(sbc_set_real(inst, __func__, vr, nvr, values));
}

/* variable types this FMU does not have: only empty requests succeed */
#define NO_SUCH_TYPE(fn, T, Q, call)                                                                                 \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, Q T values[], size_t nValues)    \
    {                                                                                                                \
        SBC_ENTER(instance, call);                                                                                   \
        (void)values, (void)nValues;                                                                                 \
        return SBC_STATUS(sbc_no_variables(inst, __func__, #T, vr, nvr));                                            \
    }

NO_SUCH_TYPE(fmi3GetFloat32, fmi3Float32, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3GetInt8, fmi3Int8, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3GetUInt8, fmi3UInt8, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3GetInt16, fmi3Int16, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3GetUInt16, fmi3UInt16, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3GetInt32, fmi3Int32, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3GetUInt32, fmi3UInt32, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3GetInt64, fmi3Int64, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3GetUInt64, fmi3UInt64, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3GetBoolean, fmi3Boolean, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3GetString, fmi3String, , SBC_CALL_GET)
NO_SUCH_TYPE(fmi3SetFloat32, fmi3Float32, const, SBC_CALL_SET)
NO_SUCH_TYPE(fmi3SetInt8, fmi3Int8, const, SBC_CALL_SET)
NO_SUCH_TYPE(fmi3SetUInt8, fmi3UInt8, const, SBC_CALL_SET)
NO_SUCH_TYPE(fmi3SetInt16, fmi3Int16, const, SBC_CALL_SET)
NO_SUCH_TYPE(fmi3SetUInt16, fmi3UInt16, const, SBC_CALL_SET)
NO_SUCH_TYPE(fmi3SetInt32, fmi3Int32, const, SBC_CALL_SET)
NO_SUCH_TYPE(fmi3SetUInt32, fmi3UInt32, const, SBC_CALL_SET)
NO_SUCH_TYPE(fmi3SetInt64, fmi3Int64, const, SBC_CALL_SET)
NO_SUCH_TYPE(fmi3SetUInt64, fmi3UInt64, const, SBC_CALL_SET)
NO_SUCH_TYPE(fmi3SetBoolean, fmi3Boolean, const, SBC_CALL_SET)
NO_SUCH_TYPE(fmi3SetString, fmi3String, const, SBC_CALL_SET)

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, size_t valueSizes[],
                         fmi3Binary values[], size_t nValues)
{
    SBC_ENTER(instance, SBC_CALL_GET);
    (void)valueSizes, (void)values, (void)nValues;
    return SBC_STATUS(sbc_no_variables(inst, __func__, "Binary", vr, nvr));
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues)
{
    SBC_ENTER(instance, SBC_CALL_SET);
    (void)valueSizes, (void)values, (void)nValues;
    return SBC_STATUS(sbc_no_variables(inst, __func__, "Binary", vr, nvr));
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Clock values[])
{
    SBC_ENTER(instance, SBC_CALL_GET);
    (void)values;
    return SBC_STATUS(sbc_no_variables(inst, __func__, "Clock", vr, nvr));
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3Clock values[])
{
    SBC_ENTER(instance, SBC_CALL_SET);
    (void)values;
    return SBC_STATUS(sbc_no_variables(inst, __func__, "Clock", vr, nvr));
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
    (void)valueReference, (void)nDependencies;
    UNSUPPORTED
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[], fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[], fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies)
{
    (void)dependent, (void)elementIndicesOfDependent, (void)independents, (void)elementIndicesOfIndependents;
    (void)dependencyKinds, (void)nDependencies;
    UNSUPPORTED
}

/* --------------------------------------------------------------- FMU state */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    SBC_ENTER(instance, SBC_CALL_ANY);
    return SBC_STATUS(sbc_get_fmu_state(inst, __func__, FMUState));
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    SBC_ENTER(instance, SBC_CALL_ANY);
    return SBC_STATUS(sbc_restore(inst, FMUState));
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    SBC_ENTER(instance, SBC_CALL_ANY);
    return SBC_STATUS(sbc_free_fmu_state(FMUState));
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t *size)
{
    SBC_ENTER(instance, SBC_CALL_ANY);
    return SBC_STATUS(sbc_serialized_size(inst, __func__, FMUState, size));
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                 size_t size)
{
    SBC_ENTER(instance, SBC_CALL_ANY);
    return SBC_STATUS(sbc_serialize(inst, FMUState, (unsigned char *)serializedState, size));
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                   fmi3FMUState *FMUState)
{
    SBC_ENTER(instance, SBC_CALL_ANY);
    return SBC_STATUS(
        sbc_deserialize_fmu_state(inst, __func__, (const unsigned char *)serializedState, size, FMUState));
}

/* ---------------------------------------------------- not provided: derivatives, clocks, configuration */

#define DERIVATIVE(fn)                                                                                               \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,                      \
                  const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,         \
                  fmi3Float64 sensitivity[], size_t nSensitivity)                                                    \
    {                                                                                                                \
        (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;                       \
        (void)sensitivity, (void)nSensitivity;                                                                       \
        UNSUPPORTED                                                                                                  \
    }

DERIVATIVE(fmi3GetDirectionalDerivative)
DERIVATIVE(fmi3GetAdjointDerivative)

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) UNSUPPORTED

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) UNSUPPORTED

#define ARGS2(a, b) a, b
#define ARGS3(a, b, c) a, b, c
#define NO_CLOCKS(fn, params, unused)                                                                                \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, params)                          \
    {                                                                                                                \
        (void)vr, (void)nvr;                                                                                         \
        unused;                                                                                                      \
        UNSUPPORTED                                                                                                  \
    }

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

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) UNSUPPORTED

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation, fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged, fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
    (void)discreteStatesNeedUpdate, (void)terminateSimulation, (void)nominalsOfContinuousStatesChanged;
    (void)valuesOfContinuousStatesChanged, (void)nextEventTimeDefined, (void)nextEventTime;
    UNSUPPORTED
}

/* --------------------------------------------------- Model Exchange: none */

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) UNSUPPORTED

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation)
{
    (void)noSetFMUStatePriorToCurrentPoint, (void)enterEventMode, (void)terminateSimulation;
    UNSUPPORTED
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    (void)time;
    UNSUPPORTED
}

#define STATE_ARRAY(fn, Q)                                                                                           \
    fmi3Status fn(fmi3Instance instance, Q fmi3Float64 values[], size_t n)                                           \
    {                                                                                                                \
        (void)values, (void)n;                                                                                       \
        UNSUPPORTED                                                                                                  \
    }

STATE_ARRAY(fmi3SetContinuousStates, const)
STATE_ARRAY(fmi3GetContinuousStateDerivatives, )
STATE_ARRAY(fmi3GetEventIndicators, )
STATE_ARRAY(fmi3GetContinuousStates, )
STATE_ARRAY(fmi3GetNominalsOfContinuousStates, )

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    (void)nEventIndicators;
    UNSUPPORTED
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    (void)nContinuousStates;
    UNSUPPORTED
}

/* ----------------------------------------------------------- Co-Simulation */

fmi3Status fmi3EnterStepMode(fmi3Instance instance) UNSUPPORTED

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                    const fmi3Int32 orders[], fmi3Float64 values[], size_t nValues)
{
    SBC_ENTER(instance, SBC_CALL_STATUS);
    (void)orders, (void)values, (void)nValues;
    if (nvr == 0) return fmi3OK;
    return SBC_STATUS(sbc_fail(inst, __func__, "not provided (maxOutputDerivativeOrder = 0), value reference %u",
                       vr ? vr[0] : 0u));
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint, fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    /* the outputs are defined whatever the status: no events, no early return, the time reached */
    if (eventHandlingNeeded) *eventHandlingNeeded = fmi3False;
    if (terminateSimulation) *terminateSimulation = fmi3False;
    if (earlyReturn) *earlyReturn = fmi3False;
    if (lastSuccessfulTime && instance) *lastSuccessfulTime = *((SbcInstance *)instance)->time;
    SBC_ENTER(instance, SBC_CALL_STEP);
    (void)noSetFMUStatePriorToCurrentPoint;
    SbcStatus s = sbc_do_step(inst, __func__, currentCommunicationPoint, communicationStepSize);
    if (lastSuccessfulTime) *lastSuccessfulTime = *inst->time;
    return SBC_STATUS(s);
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
    (void)clockReference, (void)activationTime;
    UNSUPPORTED
}
