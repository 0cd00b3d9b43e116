/*
 * fmi2Functions.c -- FMI 2.0 Model Exchange and Co-Simulation interface of a
 * symbody FMU.  Model independent and thin: each call is checked against the
 * state table and handled by the runtime both wrappers share (sb_calls.h,
 * sb_runtime.h, sb_solver.h), which uses the generated model.c; only what FMI 2's
 * types and functions need is here.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "sb_calls.h"
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

/* the FMI 2 status of an SbStatus (same values), for SB_ENTER and SB_NEED */
#define SB_STATUS(s) ((fmi2Status)(s))

/* ---------------------------------------------------------------- common */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    SB_ENTER(c, SB_CALL_ANY_STATE);
    return SB_STATUS(sb_set_debug_logging(inst, loggingOn != 0, nCategories, categories));
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
    return sb_instantiate_hosted(fmuType == fmi2ModelExchange ? SB_ME : SB_CS, instanceName, fmuGUID,
                                 functions->componentEnvironment, fmi2_logger, functions, sizeof *functions,
                                 loggingOn != 0);
}

void fmi2FreeInstance(fmi2Component c) { sb_free_hosted(c); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    SB_ENTER(c, SB_CALL_SETUP_EXPERIMENT);
    return SB_STATUS(sb_setup_experiment(inst, __func__, toleranceDefined != 0, tolerance, startTime,
                                         stopTimeDefined != 0, stopTime));
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    SB_ENTER(c, SB_CALL_ENTER_INITIALIZATION);
    return SB_STATUS(sb_enter_initialization(inst));
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    SB_ENTER(c, SB_CALL_EXIT_INITIALIZATION);
    return SB_STATUS(sb_exit_initialization(inst));
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    SB_ENTER(c, SB_CALL_TERMINATE);
    return SB_STATUS(sb_enter_mode(inst, SB_MODE_TERMINATED));
}

fmi2Status fmi2Reset(fmi2Component c)
{
    SB_ENTER(c, SB_CALL_ANY_STATE);
    sb_reset(inst);
    return fmi2OK;
}

/* ------------------------------------------------------ get and set values */

static void integer_put(void *values, size_t k, double v) { ((fmi2Integer *)values)[k] = (fmi2Integer)v; }
static void boolean_put(void *values, size_t k, double v) { ((fmi2Boolean *)values)[k] = v != 0.0; }
static double integer_at(const void *values, size_t k) { return (double)((const fmi2Integer *)values)[k]; }
static double boolean_at(const void *values, size_t k) { return ((const fmi2Boolean *)values)[k] ? 1.0 : 0.0; }

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    SB_ENTER(c, SB_CALL_GET_VALUES);
    return SB_STATUS(sb_get_real(inst, __func__, vr, nvr, value));
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[])
{
    SB_ENTER(c, SB_CALL_GET_VALUES);
    return SB_STATUS(sb_get_values(inst, __func__, vr, nvr, SB_TYPE_ENUM, value, integer_put));
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[])
{
    SB_ENTER(c, SB_CALL_GET_VALUES);
    return SB_STATUS(sb_get_values(inst, __func__, vr, nvr, SB_TYPE_BOOLEAN, value, boolean_put));
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[])
{
    SB_ENTER(c, SB_CALL_GET_VALUES);
    (void)value;
    return SB_STATUS(sb_no_variables(inst, __func__, vr, nvr, "String variables"));
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[])
{
    SB_ENTER(c, SB_CALL_SET_VALUES);
    return SB_STATUS(sb_set_real(inst, __func__, vr, nvr, value));
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[])
{
    SB_ENTER(c, SB_CALL_SET_DISCRETE_VALUES);
    return SB_STATUS(sb_set_values(inst, __func__, vr, nvr, SB_TYPE_ENUM, value, integer_at));
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[])
{
    SB_ENTER(c, SB_CALL_SET_DISCRETE_VALUES);
    return SB_STATUS(sb_set_values(inst, __func__, vr, nvr, SB_TYPE_BOOLEAN, value, boolean_at));
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[])
{
    SB_ENTER(c, SB_CALL_SET_DISCRETE_VALUES);
    (void)value;
    return SB_STATUS(sb_no_variables(inst, __func__, vr, nvr, "String variables"));
}

/* --------------------------------------------------------------- FMU state */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    SB_ENTER(c, SB_CALL_GET_FMU_STATE);
    return SB_STATUS(sb_get_fmu_state(inst, __func__, FMUstate));
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    SB_ENTER(c, SB_CALL_FMU_STATE);
    return SB_STATUS(sb_restore(inst, FMUstate));
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    SB_ENTER(c, SB_CALL_FMU_STATE);
    return SB_STATUS(sb_free_fmu_state(FMUstate));
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    SB_ENTER(c, SB_CALL_FMU_STATE);
    (void)FMUstate;
    return SB_STATUS(sb_serialized_size(inst, __func__, size));
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size)
{
    SB_ENTER(c, SB_CALL_FMU_STATE);
    return SB_STATUS(sb_serialize(inst, FMUstate, (unsigned char *)serializedState, size));
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate *FMUstate)
{
    SB_ENTER(c, SB_CALL_FMU_STATE);
    return SB_STATUS(sb_deserialize_fmu_state(inst, __func__, (const unsigned char *)serializedState, size, FMUstate));
}

/* ------------------------------------------------- directional derivatives */

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    SB_ENTER(c, SB_CALL_DERIVATIVES);
    return SB_STATUS(
        sb_directional_derivative(inst, __func__, vUnknown_ref, nUnknown, vKnown_ref, nKnown, dvKnown, dvUnknown));
}

/* --------------------------------------------------------- Model Exchange */

fmi2Status fmi2EnterEventMode(fmi2Component c)
{
    SB_ENTER(c, SB_CALL_STAY_IN_EVENT_MODE);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_enter_mode(inst, SB_MODE_EVENT));
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *eventInfo)
{
    SB_ENTER(c, SB_CALL_UPDATE_DISCRETE_STATES);
    SB_NEED(SB_ME);
    if (!eventInfo) return SB_STATUS(sb_fail(inst, __func__, "eventInfo is NULL"));
    int changed;
    SbStatus s = sb_update_discrete_states(inst, __func__, &changed);
    const fmi2EventInfo info = {.valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False};
    *eventInfo = info; /* no new discrete states, no termination, the nominals kept, no time event */
    return SB_STATUS(s);
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c)
{
    SB_ENTER(c, SB_CALL_ENTER_CONTINUOUS_MODE);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_enter_mode(inst, SB_MODE_CONTINUOUS));
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation)
{
    SB_ENTER(c, SB_CALL_COMPLETED_STEP);
    SB_NEED(SB_ME);
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!enterEventMode || !terminateSimulation) return SB_STATUS(sb_fail(inst, __func__, "NULL argument"));
    *terminateSimulation = fmi2False;
    int enter = 0;
    const SbStatus s = sb_completed_integrator_step(inst, __func__, &enter);
    *enterEventMode = enter ? fmi2True : fmi2False;
    return SB_STATUS(s);
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
    SB_ENTER(c, SB_CALL_SET_TIME_OR_STATES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_set_time(inst, __func__, time));
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    SB_ENTER(c, SB_CALL_SET_TIME_OR_STATES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_set_continuous_states(inst, __func__, x, nx));
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
    SB_ENTER(c, SB_CALL_DERIVATIVES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_get_derivatives(inst, __func__, derivatives, nx));
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni)
{
    SB_ENTER(c, SB_CALL_CONTINUOUS_STATES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_get_event_indicators(inst, __func__, eventIndicators, ni));
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    SB_ENTER(c, SB_CALL_CONTINUOUS_STATES);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_get_continuous_states(inst, __func__, x, nx));
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
    SB_ENTER(c, SB_CALL_NOMINALS);
    SB_NEED(SB_ME);
    return SB_STATUS(sb_get_nominals(inst, __func__, x_nominal, nx));
}

/* ----------------------------------------------------------- Co-Simulation */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[])
{
    SB_ENTER(c, SB_CALL_INPUT_DERIVATIVES);
    SB_NEED(SB_CS);
    return SB_STATUS(sb_set_input_derivatives(inst, __func__, vr, nvr, order, value));
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[])
{
    SB_ENTER(c, SB_CALL_OUTPUT_DERIVATIVES);
    SB_NEED(SB_CS);
    (void)order;
    (void)value;
    return SB_STATUS(sb_no_output_derivatives(inst, __func__, vr, nvr));
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentCommunicationPoint)
{
    SB_ENTER(c, SB_CALL_STEP);
    SB_NEED(SB_CS);
    (void)noSetFMUStatePriorToCurrentCommunicationPoint;
    return SB_STATUS(sb_do_step(inst, currentCommunicationPoint, communicationStepSize));
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
    SB_ENTER(c, SB_CALL_STEP);
    SB_NEED(SB_CS);
    return SB_STATUS(sb_fail(inst, __func__, "doStep is synchronous; there is no step to cancel"));
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    SB_ENTER(c, SB_CALL_STATUS);
    SB_NEED(SB_CS);
    (void)s;
    (void)value;
    return SB_STATUS(sb_fail(inst, __func__, "doStep is synchronous: no pending status"));
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    SB_ENTER(c, SB_CALL_STATUS);
    SB_NEED(SB_CS);
    if (s == fmi2LastSuccessfulTime && value) {
        *value = *inst->state.time;
        return fmi2OK;
    }
    return SB_STATUS(sb_fail(inst, __func__, "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    SB_ENTER(c, SB_CALL_STATUS);
    SB_NEED(SB_CS);
    (void)value;
    return SB_STATUS(sb_fail(inst, __func__, "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    SB_ENTER(c, SB_CALL_STATUS);
    SB_NEED(SB_CS);
    if (s == fmi2Terminated && value) { /* true after a discarded step that no smaller step can repeat */
        *value = (inst->state.flags & SB_FLAG_TERMINATE) ? fmi2True : fmi2False;
        return fmi2OK;
    }
    return SB_STATUS(sb_fail(inst, __func__, "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    SB_ENTER(c, SB_CALL_STATUS);
    SB_NEED(SB_CS);
    (void)value;
    return SB_STATUS(sb_fail(inst, __func__, "status kind %d is not available", (int)s));
}
