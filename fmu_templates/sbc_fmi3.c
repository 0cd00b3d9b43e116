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
#include "sbc_runtime.h"

typedef struct {
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback log;
} Fmi3Host;

static void fmi3_logger(SbcInstance *inst, SbcStatus status, const char *category, const char *message)
{
    const Fmi3Host *h = inst->host;
    if (h && h->log) h->log(h->env, (fmi3Status)status, category, message);
}

static fmi3Status st(SbcStatus s) { return (fmi3Status)s; }

#define ENTER(fn, call)                                                                                              \
    SbcInstance *inst = (SbcInstance *)instance;                                                                     \
    if (!inst) return fmi3Error;                                                                                     \
    if (!sbc_allowed(inst, #fn, (call))) return fmi3Error;

/* a function of an interface or feature this FMU does not have: Error in every state */
#define UNSUPPORTED(fn)                                                                                              \
    {                                                                                                                \
        ENTER(fn, SBC_CALL_UNSUPPORTED)                                                                              \
        return fmi3Error;                                                                                            \
    }

/* ---------------------------------------------------------------- common */

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[])
{
    ENTER(fmi3SetDebugLogging, SBC_CALL_ANY)
    return st(sbc_set_debug_logging(inst, loggingOn, nCategories, categories));
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
    Fmi3Host *h = malloc(sizeof *h);
    if (!h) return NULL;
    h->env = instanceEnvironment;
    h->log = logMessage;
    SbcInstance *inst = sbc_instantiate(&sbc_controller, instanceName, instantiationToken, fmi3_logger, h, loggingOn);
    if (!inst) free(h);
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

void fmi3FreeInstance(fmi3Instance instance)
{
    SbcInstance *inst = (SbcInstance *)instance;
    if (!inst) return;
    void *h = (void *)inst->host;
    sbc_free(inst);
    free(h);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    ENTER(fmi3EnterInitializationMode, SBC_CALL_SETUP)
    (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
    if (sbc_setup(inst, "fmi3EnterInitializationMode", startTime) != SBC_OK) return fmi3Error;
    return st(sbc_enter_initialization(inst, "fmi3EnterInitializationMode"));
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    ENTER(fmi3ExitInitializationMode, SBC_CALL_EXIT_INIT)
    return st(sbc_exit_initialization(inst, "fmi3ExitInitializationMode"));
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) UNSUPPORTED(fmi3EnterEventMode)

fmi3Status fmi3Terminate(fmi3Instance instance)
{
    ENTER(fmi3Terminate, SBC_CALL_TERMINATE)
    inst->mode = SBC_TERMINATED;
    return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
    ENTER(fmi3Reset, SBC_CALL_ANY)
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
    ENTER(fmi3GetFloat64, SBC_CALL_GET)
    if (!scalars(inst, "fmi3GetFloat64", nvr, nValues)) return fmi3Error;
    return st(sbc_get_real(inst, "fmi3GetFloat64", vr, nvr, values));
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                          const fmi3Float64 values[], size_t nValues)
{
    ENTER(fmi3SetFloat64, SBC_CALL_SET)
    if (!scalars(inst, "fmi3SetFloat64", nvr, nValues)) return fmi3Error;
    return st(sbc_set_real(inst, "fmi3SetFloat64", vr, nvr, values));
}

/* variable types this FMU does not have: only empty requests succeed */
#define NO_SUCH_TYPE(fn, T, Q, call)                                                                                 \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, Q T values[], size_t nValues)    \
    {                                                                                                                \
        ENTER(fn, call)                                                                                              \
        (void)values, (void)nValues;                                                                                 \
        return st(sbc_no_variables(inst, #fn, #T, vr, nvr));                                                        \
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
    ENTER(fmi3GetBinary, SBC_CALL_GET)
    (void)valueSizes, (void)values, (void)nValues;
    return st(sbc_no_variables(inst, "fmi3GetBinary", "Binary", vr, nvr));
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues)
{
    ENTER(fmi3SetBinary, SBC_CALL_SET)
    (void)valueSizes, (void)values, (void)nValues;
    return st(sbc_no_variables(inst, "fmi3SetBinary", "Binary", vr, nvr));
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Clock values[])
{
    ENTER(fmi3GetClock, SBC_CALL_GET)
    (void)values;
    return st(sbc_no_variables(inst, "fmi3GetClock", "Clock", vr, nvr));
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, const fmi3Clock values[])
{
    ENTER(fmi3SetClock, SBC_CALL_SET)
    (void)values;
    return st(sbc_no_variables(inst, "fmi3SetClock", "Clock", vr, nvr));
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
    (void)valueReference, (void)nDependencies;
    UNSUPPORTED(fmi3GetNumberOfVariableDependencies)
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[], fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[], fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies)
{
    (void)dependent, (void)elementIndicesOfDependent, (void)independents, (void)elementIndicesOfIndependents;
    (void)dependencyKinds, (void)nDependencies;
    UNSUPPORTED(fmi3GetVariableDependencies)
}

/* --------------------------------------------------------------- FMU state */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    ENTER(fmi3GetFMUState, SBC_CALL_ANY)
    if (!FMUState) return st(sbc_fail(inst, "fmi3GetFMUState", "FMUState is NULL"));
    SbcSnapshot *s = sbc_snapshot(inst, (SbcSnapshot *)*FMUState);
    if (!s) return st(sbc_fail(inst, "fmi3GetFMUState", "out of memory"));
    *FMUState = s;
    return fmi3OK;
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    ENTER(fmi3SetFMUState, SBC_CALL_ANY)
    return st(sbc_restore(inst, (const SbcSnapshot *)FMUState));
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    ENTER(fmi3FreeFMUState, SBC_CALL_ANY)
    if (!FMUState) return fmi3OK;
    free(*FMUState);
    *FMUState = NULL;
    return fmi3OK;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t *size)
{
    ENTER(fmi3SerializedFMUStateSize, SBC_CALL_ANY)
    if (!size || !FMUState) return st(sbc_fail(inst, "fmi3SerializedFMUStateSize", "NULL argument"));
    *size = sbc_snapshot_size((const SbcSnapshot *)FMUState);
    return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                 size_t size)
{
    ENTER(fmi3SerializeFMUState, SBC_CALL_ANY)
    return st(sbc_serialize(inst, (const SbcSnapshot *)FMUState, (unsigned char *)serializedState, size));
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                   fmi3FMUState *FMUState)
{
    ENTER(fmi3DeserializeFMUState, SBC_CALL_ANY)
    if (!FMUState) return st(sbc_fail(inst, "fmi3DeserializeFMUState", "FMUState is NULL"));
    SbcSnapshot *s = sbc_deserialize(inst, (const unsigned char *)serializedState, size);
    if (!s) return fmi3Error;
    free(*FMUState);
    *FMUState = s;
    return fmi3OK;
}

/* ---------------------------------------------------- not provided: derivatives, clocks, configuration */

#define DERIVATIVE(fn)                                                                                               \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,                      \
                  const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,         \
                  fmi3Float64 sensitivity[], size_t nSensitivity)                                                    \
    {                                                                                                                \
        (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;                       \
        (void)sensitivity, (void)nSensitivity;                                                                       \
        UNSUPPORTED(fn)                                                                                              \
    }

DERIVATIVE(fmi3GetDirectionalDerivative)
DERIVATIVE(fmi3GetAdjointDerivative)

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) UNSUPPORTED(fmi3EnterConfigurationMode)

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) UNSUPPORTED(fmi3ExitConfigurationMode)

#define ARGS2(a, b) a, b
#define ARGS3(a, b, c) a, b, c
#define NO_CLOCKS(fn, params, unused)                                                                                \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, params)                          \
    {                                                                                                                \
        (void)vr, (void)nvr;                                                                                         \
        unused;                                                                                                      \
        UNSUPPORTED(fn)                                                                                              \
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

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) UNSUPPORTED(fmi3EvaluateDiscreteStates)

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation, fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged, fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
    (void)discreteStatesNeedUpdate, (void)terminateSimulation, (void)nominalsOfContinuousStatesChanged;
    (void)valuesOfContinuousStatesChanged, (void)nextEventTimeDefined, (void)nextEventTime;
    UNSUPPORTED(fmi3UpdateDiscreteStates)
}

/* --------------------------------------------------- Model Exchange: none */

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) UNSUPPORTED(fmi3EnterContinuousTimeMode)

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation)
{
    (void)noSetFMUStatePriorToCurrentPoint, (void)enterEventMode, (void)terminateSimulation;
    UNSUPPORTED(fmi3CompletedIntegratorStep)
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    (void)time;
    UNSUPPORTED(fmi3SetTime)
}

#define STATE_ARRAY(fn, Q)                                                                                           \
    fmi3Status fn(fmi3Instance instance, Q fmi3Float64 values[], size_t n)                                           \
    {                                                                                                                \
        (void)values, (void)n;                                                                                       \
        UNSUPPORTED(fn)                                                                                              \
    }

STATE_ARRAY(fmi3SetContinuousStates, const)
STATE_ARRAY(fmi3GetContinuousStateDerivatives, )
STATE_ARRAY(fmi3GetEventIndicators, )
STATE_ARRAY(fmi3GetContinuousStates, )
STATE_ARRAY(fmi3GetNominalsOfContinuousStates, )

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    (void)nEventIndicators;
    UNSUPPORTED(fmi3GetNumberOfEventIndicators)
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    (void)nContinuousStates;
    UNSUPPORTED(fmi3GetNumberOfContinuousStates)
}

/* ----------------------------------------------------------- Co-Simulation */

fmi3Status fmi3EnterStepMode(fmi3Instance instance) UNSUPPORTED(fmi3EnterStepMode)

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                    const fmi3Int32 orders[], fmi3Float64 values[], size_t nValues)
{
    ENTER(fmi3GetOutputDerivatives, SBC_CALL_STATUS)
    (void)orders, (void)values, (void)nValues;
    if (nvr == 0) return fmi3OK;
    return st(sbc_fail(inst, "fmi3GetOutputDerivatives", "not provided (maxOutputDerivativeOrder = 0), value reference %u",
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
    ENTER(fmi3DoStep, SBC_CALL_STEP)
    (void)noSetFMUStatePriorToCurrentPoint;
    SbcStatus s = sbc_do_step(inst, "fmi3DoStep", currentCommunicationPoint, communicationStepSize);
    if (lastSuccessfulTime) *lastSuccessfulTime = *inst->time;
    return st(s);
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
    (void)clockReference, (void)activationTime;
    UNSUPPORTED(fmi3ActivateModelPartition)
}
