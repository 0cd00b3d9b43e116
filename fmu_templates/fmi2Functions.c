/*
 * fmi2Functions.c -- FMI 2.0 Model Exchange and Co-Simulation interface of a
 * symbody FMU.  Model independent: it translates FMI 2 calls into the
 * runtime declared in sb_runtime.h and sb_solver.h, which uses the generated
 * model.c; every call is checked against the state table of sb_calls.c.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "sb_calls.h"
#include "sb_events.h"
#include "sb_solver.h"

/* logger: the host's logger takes a printf format; escape '%' in our messages */
static void fmi2_logger(SbInstance *inst, SbStatus status, const char *category, const char *message)
{
    const fmi2CallbackFunctions *cb = inst->host;
    if (!cb || !cb->logger) return;
    char buf[2048];
    size_t j = 0;
    for (size_t i = 0; message[i] && j + 2 < sizeof buf; ++i) {
        if (message[i] == '%') buf[j++] = '%';
        buf[j++] = message[i];
    }
    buf[j] = '\0';
    cb->logger(cb->componentEnvironment, inst->name, (fmi2Status)status, category, buf);
}

static fmi2Status st(SbStatus s) { return (fmi2Status)s; }

/* Common entry checks: a valid instance, an allowed mode, the right interface. */
#define ENTER(fn, call)                                                                                              \
    SbInstance *inst = (SbInstance *)c;                                                                              \
    if (!inst) return fmi2Error;                                                                                     \
    if (inst->log_mask & SB_LOG_CALLS) /* no variadic call per FMI call when the category is off */                  \
        sb_log(inst, SB_OK, SB_LOG_CALLS, "%s", #fn);                                                                \
    if (!sb_allowed(inst, #fn, (call))) return fmi2Error;

#define NEED(iface, fn)                                                                                              \
    if (inst->interface != (iface))                                                                                  \
        return st(sb_fail(inst, #fn, "only available in %s", (iface) == SB_ME ? "Model Exchange" : "Co-Simulation"));

/* ---------------------------------------------------------------- common */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    ENTER(fmi2SetDebugLogging, SB_CALL_ANY_STATE)
    return st(sb_set_debug_logging(inst, loggingOn != 0, nCategories, categories));
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn)
{
    (void)fmuResourceLocation;
    (void)visible;
    if (!functions) return NULL; /* no logger to report to */
    if (fmuType != fmi2ModelExchange && fmuType != fmi2CoSimulation) {
        if (functions->logger)
            functions->logger(functions->componentEnvironment, instanceName ? instanceName : "symbody", fmi2Error,
                              "logStatusError", "fmi2Instantiate: unknown fmuType %d", (int)fmuType);
        return NULL;
    }
    fmi2CallbackFunctions *cb = malloc(sizeof *cb);
    if (!cb) return NULL;
    *cb = *functions;
    SbInterface iface = fmuType == fmi2ModelExchange ? SB_ME : SB_CS;
    SbInstance *inst =
        sb_instantiate(&sb_model, iface, instanceName, fmuGUID, functions->componentEnvironment, fmi2_logger, cb,
                       loggingOn != 0);
    if (!inst) free(cb);
    return inst;
}

void fmi2FreeInstance(fmi2Component c)
{
    SbInstance *inst = (SbInstance *)c;
    if (!inst) return;
    void *cb = (void *)inst->host;
    sb_free(inst);
    free(cb);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    ENTER(fmi2SetupExperiment, SB_CALL_SETUP_EXPERIMENT)
    return st(sb_setup_experiment(inst, "fmi2SetupExperiment", toleranceDefined != 0, tolerance, startTime,
                                  stopTimeDefined != 0, stopTime));
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    ENTER(fmi2EnterInitializationMode, SB_CALL_ENTER_INITIALIZATION)
    return st(sb_enter_initialization(inst));
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    ENTER(fmi2ExitInitializationMode, SB_CALL_EXIT_INITIALIZATION)
    return st(sb_exit_initialization(inst));
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    ENTER(fmi2Terminate, SB_CALL_TERMINATE)
    inst->state.mode = SB_MODE_TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c)
{
    ENTER(fmi2Reset, SB_CALL_ANY_STATE)
    sb_reset(inst);
    return fmi2OK;
}

/* ------------------------------------------------------ get and set values */

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    ENTER(fmi2GetReal, SB_CALL_GET_VALUES)
    return st(sb_get_real(inst, "fmi2GetReal", vr, nvr, value));
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[])
{
    ENTER(fmi2GetInteger, SB_CALL_GET_VALUES)
    if (nvr > 0 && (!vr || !value)) return st(sb_fail(inst, "fmi2GetInteger", "NULL argument"));
    for (size_t k = 0; k < nvr; ++k) {
        long long v;
        SbStatus s = sb_get_int(inst, "fmi2GetInteger", &vr[k], 1, &v);
        if (s != SB_OK) return st(s);
        value[k] = (fmi2Integer)v;
    }
    return fmi2OK;
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[])
{
    ENTER(fmi2GetBoolean, SB_CALL_GET_VALUES)
    return st(sb_get_bool(inst, "fmi2GetBoolean", vr, nvr, value));
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[])
{
    ENTER(fmi2GetString, SB_CALL_GET_VALUES)
    (void)value;
    if (nvr == 0) return fmi2OK;
    return st(sb_fail(inst, "fmi2GetString", "this FMU has no String variables (value reference %u)", vr ? vr[0] : 0));
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[])
{
    ENTER(fmi2SetReal, SB_CALL_SET_VALUES)
    return st(sb_set_real(inst, "fmi2SetReal", vr, nvr, value));
}

static double integer_at(const void *values, size_t k) { return (double)((const fmi2Integer *)values)[k]; }

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[])
{
    ENTER(fmi2SetInteger, SB_CALL_SET_DISCRETE_VALUES)
    return st(sb_set_values(inst, "fmi2SetInteger", vr, nvr, SB_TYPE_ENUM, value, integer_at));
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[])
{
    ENTER(fmi2SetBoolean, SB_CALL_SET_DISCRETE_VALUES)
    return st(sb_set_bool(inst, "fmi2SetBoolean", vr, nvr, value));
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[])
{
    ENTER(fmi2SetString, SB_CALL_SET_DISCRETE_VALUES)
    (void)value;
    if (nvr == 0) return fmi2OK;
    return st(sb_fail(inst, "fmi2SetString", "this FMU has no String variables (value reference %u)", vr ? vr[0] : 0));
}

/* --------------------------------------------------------------- FMU state */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    ENTER(fmi2GetFMUstate, SB_CALL_GET_FMU_STATE)
    if (!FMUstate) return st(sb_fail(inst, "fmi2GetFMUstate", "FMUstate is NULL"));
    SbSnapshot *s = sb_snapshot(inst, (SbSnapshot *)*FMUstate);
    if (!s) return st(sb_fail(inst, "fmi2GetFMUstate", "out of memory"));
    *FMUstate = s;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    ENTER(fmi2SetFMUstate, SB_CALL_FMU_STATE)
    return st(sb_restore(inst, (const SbSnapshot *)FMUstate));
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    ENTER(fmi2FreeFMUstate, SB_CALL_FMU_STATE)
    if (!FMUstate) return fmi2OK;
    free(*FMUstate);
    *FMUstate = NULL;
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    ENTER(fmi2SerializedFMUstateSize, SB_CALL_FMU_STATE)
    (void)FMUstate;
    if (!size) return st(sb_fail(inst, "fmi2SerializedFMUstateSize", "size is NULL"));
    *size = sb_snapshot_size(inst);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size)
{
    ENTER(fmi2SerializeFMUstate, SB_CALL_FMU_STATE)
    return st(sb_serialize(inst, (const SbSnapshot *)FMUstate, (unsigned char *)serializedState, size));
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate *FMUstate)
{
    ENTER(fmi2DeSerializeFMUstate, SB_CALL_FMU_STATE)
    if (!FMUstate) return st(sb_fail(inst, "fmi2DeSerializeFMUstate", "FMUstate is NULL"));
    SbSnapshot *s = sb_deserialize(inst, (const unsigned char *)serializedState, size);
    if (!s) return fmi2Error;
    free(*FMUstate);
    *FMUstate = s;
    return fmi2OK;
}

/* ------------------------------------------------- directional derivatives */

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    ENTER(fmi2GetDirectionalDerivative, SB_CALL_DERIVATIVES)
    return st(sb_directional_derivative(inst, "fmi2GetDirectionalDerivative", vUnknown_ref, nUnknown, vKnown_ref,
                                        nKnown, dvKnown, dvUnknown));
}

/* --------------------------------------------------------- Model Exchange */

fmi2Status fmi2EnterEventMode(fmi2Component c)
{
    ENTER(fmi2EnterEventMode, SB_CALL_STAY_IN_EVENT_MODE)
    NEED(SB_ME, fmi2EnterEventMode)
    inst->state.mode = SB_MODE_EVENT;
    return fmi2OK;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *eventInfo)
{
    ENTER(fmi2NewDiscreteStates, SB_CALL_UPDATE_DISCRETE_STATES)
    NEED(SB_ME, fmi2NewDiscreteStates)
    if (!eventInfo) return st(sb_fail(inst, "fmi2NewDiscreteStates", "eventInfo is NULL"));
    eventInfo->newDiscreteStatesNeeded = fmi2False;
    eventInfo->terminateSimulation = fmi2False;
    eventInfo->nominalsOfContinuousStatesChanged = fmi2False;
    eventInfo->valuesOfContinuousStatesChanged = fmi2False;
    eventInfo->nextEventTimeDefined = fmi2False;
    eventInfo->nextEventTime = 0.0;
    int changed = 0; /* impacts and contact modes (sb_events.c) */
    SbStatus s = sb_events_resolve(inst, "fmi2NewDiscreteStates", &changed);
    eventInfo->valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False;
    return st(s);
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c)
{
    ENTER(fmi2EnterContinuousTimeMode, SB_CALL_ENTER_CONTINUOUS_MODE)
    NEED(SB_ME, fmi2EnterContinuousTimeMode)
    inst->state.mode = SB_MODE_CONTINUOUS;
    return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation)
{
    ENTER(fmi2CompletedIntegratorStep, SB_CALL_COMPLETED_STEP)
    NEED(SB_ME, fmi2CompletedIntegratorStep)
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!enterEventMode || !terminateSimulation)
        return st(sb_fail(inst, "fmi2CompletedIntegratorStep", "NULL argument"));
    *enterEventMode = fmi2False;
    *terminateSimulation = fmi2False;
    if (inst->state.flags & SB_FLAG_BRANCH_LOST) /* the branch guard fired (sb_singular.c) */
        return st(sb_fail(inst, "fmi2CompletedIntegratorStep", "%s", inst->problem));
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
    ENTER(fmi2SetTime, SB_CALL_SET_TIME_OR_STATES)
    NEED(SB_ME, fmi2SetTime)
    if (!isfinite(time)) return st(sb_fail(inst, "fmi2SetTime", "time %g is not finite", time));
    *inst->state.time = time;
    sb_changed(inst);
    return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    ENTER(fmi2SetContinuousStates, SB_CALL_SET_TIME_OR_STATES)
    NEED(SB_ME, fmi2SetContinuousStates)
    return st(sb_set_continuous_states(inst, "fmi2SetContinuousStates", x, nx));
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
    ENTER(fmi2GetDerivatives, SB_CALL_DERIVATIVES)
    NEED(SB_ME, fmi2GetDerivatives)
    return st(sb_get_derivatives(inst, "fmi2GetDerivatives", derivatives, nx));
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni)
{
    ENTER(fmi2GetEventIndicators, SB_CALL_CONTINUOUS_STATES)
    NEED(SB_ME, fmi2GetEventIndicators)
    if (ni > 0 && !eventIndicators) return st(sb_fail(inst, "fmi2GetEventIndicators", "NULL argument"));
    return st(sb_event_indicators(inst, "fmi2GetEventIndicators", eventIndicators, ni, 1));
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    ENTER(fmi2GetContinuousStates, SB_CALL_CONTINUOUS_STATES)
    NEED(SB_ME, fmi2GetContinuousStates)
    return st(sb_get_continuous_states(inst, "fmi2GetContinuousStates", x, nx));
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
    ENTER(fmi2GetNominalsOfContinuousStates, SB_CALL_NOMINALS)
    NEED(SB_ME, fmi2GetNominalsOfContinuousStates)
    return st(sb_get_nominals(inst, "fmi2GetNominalsOfContinuousStates", x_nominal, nx));
}

/* ----------------------------------------------------------- Co-Simulation */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[])
{
    ENTER(fmi2SetRealInputDerivatives, SB_CALL_INPUT_DERIVATIVES)
    NEED(SB_CS, fmi2SetRealInputDerivatives)
    return st(sb_set_input_derivatives(inst, "fmi2SetRealInputDerivatives", vr, nvr, order, value));
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[])
{
    ENTER(fmi2GetRealOutputDerivatives, SB_CALL_OUTPUT_DERIVATIVES)
    NEED(SB_CS, fmi2GetRealOutputDerivatives)
    (void)vr;
    (void)order;
    (void)value;
    if (nvr == 0) return fmi2OK;
    return st(sb_fail(inst, "fmi2GetRealOutputDerivatives", "not supported (maxOutputDerivativeOrder = 0)"));
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentCommunicationPoint)
{
    ENTER(fmi2DoStep, SB_CALL_STEP)
    NEED(SB_CS, fmi2DoStep)
    (void)noSetFMUStatePriorToCurrentCommunicationPoint;
    return st(sb_do_step(inst, currentCommunicationPoint, communicationStepSize));
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
    ENTER(fmi2CancelStep, SB_CALL_STEP)
    NEED(SB_CS, fmi2CancelStep)
    return st(sb_fail(inst, "fmi2CancelStep", "doStep is synchronous; there is no step to cancel"));
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    ENTER(fmi2GetStatus, SB_CALL_STATUS)
    NEED(SB_CS, fmi2GetStatus)
    (void)s;
    (void)value;
    return st(sb_fail(inst, "fmi2GetStatus", "doStep is synchronous: no pending status"));
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    ENTER(fmi2GetRealStatus, SB_CALL_STATUS)
    NEED(SB_CS, fmi2GetRealStatus)
    if (s == fmi2LastSuccessfulTime && value) {
        *value = *inst->state.time;
        return fmi2OK;
    }
    return st(sb_fail(inst, "fmi2GetRealStatus", "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    ENTER(fmi2GetIntegerStatus, SB_CALL_STATUS)
    NEED(SB_CS, fmi2GetIntegerStatus)
    (void)value;
    return st(sb_fail(inst, "fmi2GetIntegerStatus", "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    ENTER(fmi2GetBooleanStatus, SB_CALL_STATUS)
    NEED(SB_CS, fmi2GetBooleanStatus)
    if (s == fmi2Terminated && value) { /* true after a discarded step that no smaller step can repeat */
        *value = (inst->state.flags & SB_FLAG_TERMINATE) ? fmi2True : fmi2False;
        return fmi2OK;
    }
    return st(sb_fail(inst, "fmi2GetBooleanStatus", "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    ENTER(fmi2GetStringStatus, SB_CALL_STATUS)
    NEED(SB_CS, fmi2GetStringStatus)
    (void)value;
    return st(sb_fail(inst, "fmi2GetStringStatus", "status kind %d is not available", (int)s));
}
