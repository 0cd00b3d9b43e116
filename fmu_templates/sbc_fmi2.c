/*
 * sbc_fmi2.c -- FMI 2.0 Co-Simulation interface of a symbody controller FMU.
 * Controller independent: it translates FMI 2 calls into sbc_runtime.h; every
 * call is checked against the states it is allowed in.  The Model Exchange
 * functions exist (importers may look them up) and return Error.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "sbc_runtime.h"

/* the host's logger takes a printf format: '%' in our messages is escaped */
static void fmi2_logger(SbcInstance *inst, SbcStatus status, const char *category, const char *message)
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

static fmi2Status st(SbcStatus s) { return (fmi2Status)s; }

#define ENTER(fn, call)                                                                                              \
    SbcInstance *inst = (SbcInstance *)c;                                                                            \
    if (!inst) return fmi2Error;                                                                                     \
    if (!sbc_allowed(inst, #fn, (call))) return fmi2Error;

/* a function of the Model Exchange interface, which this FMU does not have */
#define UNSUPPORTED(fn) ENTER(fn, SBC_CALL_UNSUPPORTED) return fmi2Error;

/* ---------------------------------------------------------------- common */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    ENTER(fmi2SetDebugLogging, SBC_CALL_ANY)
    return st(sbc_set_debug_logging(inst, loggingOn != 0, nCategories, categories));
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn)
{
    (void)fmuResourceLocation;
    (void)visible;
    if (!functions) return NULL;
    if (fmuType != fmi2CoSimulation) {
        if (functions->logger)
            functions->logger(functions->componentEnvironment, instanceName ? instanceName : "symbody", fmi2Error,
                              "logStatusError", "fmi2Instantiate: this FMU has the Co-Simulation interface only");
        return NULL;
    }
    fmi2CallbackFunctions *cb = malloc(sizeof *cb);
    if (!cb) return NULL;
    *cb = *functions;
    SbcInstance *inst = sbc_instantiate(&sbc_controller, instanceName, fmuGUID, fmi2_logger, cb, loggingOn != 0);
    if (!inst) free(cb);
    return inst;
}

void fmi2FreeInstance(fmi2Component c)
{
    SbcInstance *inst = (SbcInstance *)c;
    if (!inst) return;
    void *cb = (void *)inst->host;
    sbc_free(inst);
    free(cb);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    ENTER(fmi2SetupExperiment, SBC_CALL_SETUP)
    (void)toleranceDefined;
    (void)tolerance;
    (void)stopTimeDefined;
    (void)stopTime;
    return st(sbc_setup(inst, "fmi2SetupExperiment", startTime));
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    ENTER(fmi2EnterInitializationMode, SBC_CALL_SETUP)
    return st(sbc_enter_initialization(inst, "fmi2EnterInitializationMode"));
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    ENTER(fmi2ExitInitializationMode, SBC_CALL_EXIT_INIT)
    return st(sbc_exit_initialization(inst, "fmi2ExitInitializationMode"));
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    ENTER(fmi2Terminate, SBC_CALL_TERMINATE)
    inst->mode = SBC_TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c)
{
    ENTER(fmi2Reset, SBC_CALL_ANY)
    sbc_reset(inst);
    return fmi2OK;
}

/* ------------------------------------------------------ get and set values */

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    ENTER(fmi2GetReal, SBC_CALL_GET)
    return st(sbc_get_real(inst, "fmi2GetReal", vr, nvr, value));
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[])
{
    ENTER(fmi2SetReal, SBC_CALL_SET)
    return st(sbc_set_real(inst, "fmi2SetReal", vr, nvr, value));
}

#define NO_SUCH_TYPE(fn, type, call, ...)                                                                            \
    fmi2Status fn(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, __VA_ARGS__)                           \
    {                                                                                                                \
        ENTER(fn, call)                                                                                              \
        (void)value;                                                                                                 \
        return st(sbc_no_variables(inst, #fn, type, vr, nvr));                                                     \
    }

NO_SUCH_TYPE(fmi2GetInteger, "Integer", SBC_CALL_GET, fmi2Integer value[])
NO_SUCH_TYPE(fmi2GetBoolean, "Boolean", SBC_CALL_GET, fmi2Boolean value[])
NO_SUCH_TYPE(fmi2GetString, "String", SBC_CALL_GET, fmi2String value[])
NO_SUCH_TYPE(fmi2SetInteger, "Integer", SBC_CALL_SET, const fmi2Integer value[])
NO_SUCH_TYPE(fmi2SetBoolean, "Boolean", SBC_CALL_SET, const fmi2Boolean value[])
NO_SUCH_TYPE(fmi2SetString, "String", SBC_CALL_SET, const fmi2String value[])

/* --------------------------------------------------------------- FMU state */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    ENTER(fmi2GetFMUstate, SBC_CALL_ANY)
    if (!FMUstate) return st(sbc_fail(inst, "fmi2GetFMUstate", "FMUstate is NULL"));
    SbcSnapshot *s = sbc_snapshot(inst, (SbcSnapshot *)*FMUstate);
    if (!s) return st(sbc_fail(inst, "fmi2GetFMUstate", "out of memory"));
    *FMUstate = s;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    ENTER(fmi2SetFMUstate, SBC_CALL_ANY)
    return st(sbc_restore(inst, (const SbcSnapshot *)FMUstate));
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    ENTER(fmi2FreeFMUstate, SBC_CALL_ANY)
    if (!FMUstate) return fmi2OK;
    free(*FMUstate);
    *FMUstate = NULL;
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    ENTER(fmi2SerializedFMUstateSize, SBC_CALL_ANY)
    if (!size || !FMUstate) return st(sbc_fail(inst, "fmi2SerializedFMUstateSize", "NULL argument"));
    *size = sbc_snapshot_size((const SbcSnapshot *)FMUstate);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size)
{
    ENTER(fmi2SerializeFMUstate, SBC_CALL_ANY)
    return st(sbc_serialize(inst, (const SbcSnapshot *)FMUstate, (unsigned char *)serializedState, size));
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate *FMUstate)
{
    ENTER(fmi2DeSerializeFMUstate, SBC_CALL_ANY)
    if (!FMUstate) return st(sbc_fail(inst, "fmi2DeSerializeFMUstate", "FMUstate is NULL"));
    SbcSnapshot *s = sbc_deserialize(inst, (const unsigned char *)serializedState, size);
    if (!s) return fmi2Error;
    free(*FMUstate);
    *FMUstate = s;
    return fmi2OK;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    (void)vUnknown_ref, (void)nUnknown, (void)vKnown_ref, (void)nKnown, (void)dvKnown, (void)dvUnknown;
    UNSUPPORTED(fmi2GetDirectionalDerivative)
}

/* --------------------------------------------------- Model Exchange: none */

fmi2Status fmi2EnterEventMode(fmi2Component c) { UNSUPPORTED(fmi2EnterEventMode) }

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *eventInfo)
{
    (void)eventInfo;
    UNSUPPORTED(fmi2NewDiscreteStates)
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) { UNSUPPORTED(fmi2EnterContinuousTimeMode) }

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation)
{
    (void)noSetFMUStatePriorToCurrentPoint, (void)enterEventMode, (void)terminateSimulation;
    UNSUPPORTED(fmi2CompletedIntegratorStep)
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
    (void)time;
    UNSUPPORTED(fmi2SetTime)
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    (void)x, (void)nx;
    UNSUPPORTED(fmi2SetContinuousStates)
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
    (void)derivatives, (void)nx;
    UNSUPPORTED(fmi2GetDerivatives)
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni)
{
    (void)eventIndicators, (void)ni;
    UNSUPPORTED(fmi2GetEventIndicators)
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    (void)x, (void)nx;
    UNSUPPORTED(fmi2GetContinuousStates)
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
    (void)x_nominal, (void)nx;
    UNSUPPORTED(fmi2GetNominalsOfContinuousStates)
}

/* ----------------------------------------------------------- Co-Simulation */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[])
{
    ENTER(fmi2SetRealInputDerivatives, SBC_CALL_SET)
    (void)vr, (void)order, (void)value;
    if (nvr == 0) return fmi2OK;
    return st(sbc_fail(inst, "fmi2SetRealInputDerivatives", "not supported (canInterpolateInputs = false)"));
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[])
{
    ENTER(fmi2GetRealOutputDerivatives, SBC_CALL_STATUS)
    (void)vr, (void)order, (void)value;
    if (nvr == 0) return fmi2OK;
    return st(sbc_fail(inst, "fmi2GetRealOutputDerivatives", "not supported (maxOutputDerivativeOrder = 0)"));
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentCommunicationPoint)
{
    ENTER(fmi2DoStep, SBC_CALL_STEP)
    (void)noSetFMUStatePriorToCurrentCommunicationPoint;
    return st(sbc_do_step(inst, "fmi2DoStep", currentCommunicationPoint, communicationStepSize));
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
    ENTER(fmi2CancelStep, SBC_CALL_STEP)
    return st(sbc_fail(inst, "fmi2CancelStep", "doStep is synchronous; there is no step to cancel"));
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    ENTER(fmi2GetStatus, SBC_CALL_STATUS)
    (void)value;
    return st(sbc_fail(inst, "fmi2GetStatus", "doStep is synchronous: no pending status (kind %d)", (int)s));
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    ENTER(fmi2GetRealStatus, SBC_CALL_STATUS)
    if (s == fmi2LastSuccessfulTime && value) {
        *value = *inst->time;
        return fmi2OK;
    }
    return st(sbc_fail(inst, "fmi2GetRealStatus", "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    ENTER(fmi2GetIntegerStatus, SBC_CALL_STATUS)
    (void)value;
    return st(sbc_fail(inst, "fmi2GetIntegerStatus", "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    ENTER(fmi2GetBooleanStatus, SBC_CALL_STATUS)
    if (s == fmi2Terminated && value) {
        *value = fmi2False;
        return fmi2OK;
    }
    return st(sbc_fail(inst, "fmi2GetBooleanStatus", "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    ENTER(fmi2GetStringStatus, SBC_CALL_STATUS)
    (void)value;
    return st(sbc_fail(inst, "fmi2GetStringStatus", "status kind %d is not available", (int)s));
}
