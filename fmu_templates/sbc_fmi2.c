/*
 * sbc_fmi2.c -- FMI 2.0 Co-Simulation interface of a symbody controller FMU.
 * Controller independent: it translates FMI 2 calls into sbc_runtime.h; every
 * call is checked against the states it is allowed in.  The Model Exchange
 * functions exist (importers may look them up) and return Error.
 */
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "sbc_calls.h"

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

#define SBC_STATUS(s) ((fmi2Status)(s))

/* a function of the Model Exchange interface, which this FMU does not have */
#define UNSUPPORTED                                                                                                  \
    SBC_ENTER(c, SBC_CALL_UNSUPPORTED);                                                                              \
    return fmi2Error;

/* ---------------------------------------------------------------- common */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    SBC_ENTER(c, SBC_CALL_ANY);
    return SBC_STATUS(sbc_set_debug_logging(inst, loggingOn != 0, nCategories, categories));
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
    return sbc_instantiate_hosted(instanceName, fmuGUID, fmi2_logger, functions, sizeof *functions, loggingOn != 0);
}

void fmi2FreeInstance(fmi2Component c) { sbc_free_hosted(c); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    SBC_ENTER(c, SBC_CALL_SETUP);
    (void)toleranceDefined;
    (void)tolerance;
    (void)stopTimeDefined;
    (void)stopTime;
    return SBC_STATUS(sbc_setup(inst, __func__, startTime));
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    SBC_ENTER(c, SBC_CALL_SETUP);
    return SBC_STATUS(sbc_enter_initialization(inst, __func__));
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    SBC_ENTER(c, SBC_CALL_EXIT_INIT);
    return SBC_STATUS(sbc_exit_initialization(inst, __func__));
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    SBC_ENTER(c, SBC_CALL_TERMINATE);
    return SBC_STATUS(sbc_terminate(inst));
}

fmi2Status fmi2Reset(fmi2Component c)
{
    SBC_ENTER(c, SBC_CALL_ANY);
    sbc_reset(inst);
    return fmi2OK;
}

/* ------------------------------------------------------ get and set values */

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    SBC_ENTER(c, SBC_CALL_GET);
    return SBC_STATUS(sbc_get_real(inst, __func__, vr, nvr, value));
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[])
{
    SBC_ENTER(c, SBC_CALL_SET);
    return SBC_STATUS(sbc_set_real(inst, __func__, vr, nvr, value));
}

#define NO_SUCH_TYPE(fn, type, call, ...)                                                                            \
    fmi2Status fn(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, __VA_ARGS__)                           \
    {                                                                                                                \
        SBC_ENTER(c, call);                                                                                          \
        (void)value;                                                                                                 \
        return SBC_STATUS(sbc_no_variables(inst, __func__, type, vr, nvr));                                          \
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
    SBC_ENTER(c, SBC_CALL_ANY);
    return SBC_STATUS(sbc_get_fmu_state(inst, __func__, FMUstate));
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    SBC_ENTER(c, SBC_CALL_ANY);
    return SBC_STATUS(sbc_restore(inst, FMUstate));
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    SBC_ENTER(c, SBC_CALL_ANY);
    return SBC_STATUS(sbc_free_fmu_state(FMUstate));
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    SBC_ENTER(c, SBC_CALL_ANY);
    return SBC_STATUS(sbc_serialized_size(inst, __func__, FMUstate, size));
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size)
{
    SBC_ENTER(c, SBC_CALL_ANY);
    return SBC_STATUS(sbc_serialize(inst, FMUstate, (unsigned char *)serializedState, size));
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate *FMUstate)
{
    SBC_ENTER(c, SBC_CALL_ANY);
    return SBC_STATUS(
        sbc_deserialize_fmu_state(inst, __func__, (const unsigned char *)serializedState, size, FMUstate));
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    (void)vUnknown_ref, (void)nUnknown, (void)vKnown_ref, (void)nKnown, (void)dvKnown, (void)dvUnknown;
    UNSUPPORTED
}

/* --------------------------------------------------- Model Exchange: none */

fmi2Status fmi2EnterEventMode(fmi2Component c) { UNSUPPORTED }

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *eventInfo)
{
    (void)eventInfo;
    UNSUPPORTED
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) { UNSUPPORTED }

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation)
{
    (void)noSetFMUStatePriorToCurrentPoint, (void)enterEventMode, (void)terminateSimulation;
    UNSUPPORTED
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
    (void)time;
    UNSUPPORTED
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    (void)x, (void)nx;
    UNSUPPORTED
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
    (void)derivatives, (void)nx;
    UNSUPPORTED
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni)
{
    (void)eventIndicators, (void)ni;
    UNSUPPORTED
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    (void)x, (void)nx;
    UNSUPPORTED
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
    (void)x_nominal, (void)nx;
    UNSUPPORTED
}

/* ----------------------------------------------------------- Co-Simulation */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[])
{
    SBC_ENTER(c, SBC_CALL_SET);
    (void)vr, (void)order, (void)value;
    if (nvr == 0) return fmi2OK;
    return SBC_STATUS(sbc_fail(inst, __func__, "not supported (canInterpolateInputs = false)"));
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[])
{
    SBC_ENTER(c, SBC_CALL_STATUS);
    (void)vr, (void)order, (void)value;
    if (nvr == 0) return fmi2OK;
    return SBC_STATUS(sbc_fail(inst, __func__, "not supported (maxOutputDerivativeOrder = 0)"));
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentCommunicationPoint)
{
    SBC_ENTER(c, SBC_CALL_STEP);
    (void)noSetFMUStatePriorToCurrentCommunicationPoint;
    return SBC_STATUS(sbc_do_step(inst, __func__, currentCommunicationPoint, communicationStepSize));
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
    SBC_ENTER(c, SBC_CALL_STEP);
    return SBC_STATUS(sbc_fail(inst, __func__, "doStep is synchronous; there is no step to cancel"));
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    SBC_ENTER(c, SBC_CALL_STATUS);
    (void)value;
    return SBC_STATUS(sbc_fail(inst, __func__, "doStep is synchronous: no pending status (kind %d)", (int)s));
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    SBC_ENTER(c, SBC_CALL_STATUS);
    if (s == fmi2LastSuccessfulTime && value) {
        *value = *inst->time;
        return fmi2OK;
    }
    return SBC_STATUS(sbc_fail(inst, __func__, "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    SBC_ENTER(c, SBC_CALL_STATUS);
    (void)value;
    return SBC_STATUS(sbc_fail(inst, __func__, "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    SBC_ENTER(c, SBC_CALL_STATUS);
    if (s == fmi2Terminated && value) {
        *value = fmi2False;
        return fmi2OK;
    }
    return SBC_STATUS(sbc_fail(inst, __func__, "status kind %d is not available", (int)s));
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    SBC_ENTER(c, SBC_CALL_STATUS);
    (void)value;
    return SBC_STATUS(sbc_fail(inst, __func__, "status kind %d is not available", (int)s));
}
