/*
 * sb_calls.c -- what fmi2Functions.c and fmi3Functions.c share (see sb_calls.h):
 * the table of the instance states in which each FMI function may be called,
 * the entry of a call checked against it, and the calls both standards have.
 */
#include <stdlib.h>
#include <string.h>

#include "sb_calls.h"
#include "sb_events.h"

#define SB_ANY_STATE (SB_IN(SB_MODE_INSTANTIATED) | SB_IN(SB_MODE_INIT) | SB_IN(SB_MODE_EVENT) | \
                      SB_IN(SB_MODE_CONTINUOUS) | SB_IN(SB_MODE_STEP) | SB_IN(SB_MODE_TERMINATED))

#define SB_RUNNING (SB_IN(SB_MODE_EVENT) | SB_IN(SB_MODE_CONTINUOUS) | SB_IN(SB_MODE_STEP))
#define SB_INITIALIZING_OR_AFTER (SB_IN(SB_MODE_INIT) | SB_RUNNING | SB_IN(SB_MODE_TERMINATED))
#define SB_SETTABLE (SB_IN(SB_MODE_INSTANTIATED) | SB_IN(SB_MODE_INIT) | SB_RUNNING)

/* FMI 2: the tables of FMI 2.0.4 sections 3.2.3 (ME) and 4.2.4 (CS); stepComplete is step mode, the
   CS-only and ME-only functions check the interface besides.  FMI 3: the "Allowed Function Calls"
   of each state, FMI 3.0.2 sections 2.3, 3.2 and 4.2. */
const unsigned sb_call_states[SB_N_CALLS] = {
    [SB_CALL_ANY_STATE] = SB_ANY_STATE,
    [SB_CALL_SETUP_EXPERIMENT] = SB_IN(SB_MODE_INSTANTIATED),
    [SB_CALL_ENTER_INITIALIZATION] = SB_IN(SB_MODE_INSTANTIATED),
    [SB_CALL_EXIT_INITIALIZATION] = SB_IN(SB_MODE_INIT),
    /* not in initialization mode (FMI 3: only in the super state Initialized) */
    [SB_CALL_TERMINATE] = SB_RUNNING,
    /* FMI 3 start values in instantiated; FMI 2 lists no Get there, symbody answers alike */
    [SB_CALL_GET_VALUES] = SB_ANY_STATE,
    /* continuous inputs in continuous-time mode; nothing once terminated */
    [SB_CALL_SET_VALUES] = SB_SETTABLE,
    [SB_CALL_GET_FMU_STATE] = SB_ANY_STATE,
    [SB_CALL_FMU_STATE] = SB_ANY_STATE,
    [SB_CALL_DERIVATIVES] = SB_INITIALIZING_OR_AFTER,
    [SB_CALL_CONTINUOUS_STATES] = SB_INITIALIZING_OR_AFTER,
    [SB_CALL_ENTER_EVENT_MODE] = SB_IN(SB_MODE_CONTINUOUS),
    [SB_CALL_UPDATE_DISCRETE_STATES] = SB_IN(SB_MODE_EVENT),
    [SB_CALL_EVALUATE_DISCRETE_STATES] = SB_IN(SB_MODE_EVENT),
    [SB_CALL_ENTER_CONTINUOUS_MODE] = SB_IN(SB_MODE_EVENT),
    [SB_CALL_COMPLETED_STEP] = SB_IN(SB_MODE_CONTINUOUS),
    /* FMI 2 allows SetTime in event mode for pure discrete-time FMUs only */
    [SB_CALL_SET_TIME_OR_STATES] = SB_IN(SB_MODE_CONTINUOUS),
    [SB_CALL_INPUT_DERIVATIVES] = SB_IN(SB_MODE_INSTANTIATED) | SB_IN(SB_MODE_INIT) | SB_IN(SB_MODE_STEP),
    [SB_CALL_OUTPUT_DERIVATIVES] = SB_IN(SB_MODE_STEP) | SB_IN(SB_MODE_TERMINATED),
    [SB_CALL_STEP] = SB_IN(SB_MODE_STEP),
    [SB_CALL_STATUS] = SB_IN(SB_MODE_STEP) | SB_IN(SB_MODE_TERMINATED),
    [SB_CALL_SET_DISCRETE_VALUES] = SB_SETTABLE & ~SB_IN(SB_MODE_CONTINUOUS),
    [SB_CALL_NOMINALS] = SB_IN(SB_MODE_INSTANTIATED) | SB_INITIALIZING_OR_AFTER,
    [SB_CALL_STAY_IN_EVENT_MODE] = SB_IN(SB_MODE_EVENT) | SB_IN(SB_MODE_CONTINUOUS),
};

static const char *const mode_names[] = {"instantiated", "initialization mode", "event mode", "continuous-time mode",
                                         "step mode",    "terminated"};

const char *sb_mode_name(SbMode mode)
{
    return (unsigned)mode < sizeof mode_names / sizeof mode_names[0] ? mode_names[mode] : "an unknown state";
}

SbInstance *sb_enter(void *instance, const char *function, SbCall call)
{
    SbInstance *inst = instance;
    if (!inst) return NULL;
    if (inst->log_mask & SB_LOG_CALLS) /* no variadic call per FMI call when the category is off */
        sb_log(inst, SB_OK, SB_LOG_CALLS, "%s", function);
    if ((unsigned)call < SB_N_CALLS && (sb_call_states[call] & SB_IN(inst->state.mode))) return inst;
    sb_log(inst, SB_ERROR, SB_LOG_ERROR, "%s: not allowed in %s", function, sb_mode_name(inst->state.mode));
    return NULL;
}

SbStatus sb_wrong_interface(SbInstance *inst, const char *function, SbInterface needed)
{
    return sb_fail(inst, function, "only available in %s", needed == SB_ME ? "Model Exchange" : "Co-Simulation");
}

/* ------------------------------------------------------------------------------------------ lifecycle */

SbInstance *sb_instantiate_hosted(SbInterface iface, const char *name, const char *token, void *env, SbLogger logger,
                                  const void *host, size_t size, int logging_on)
{
    void *copy = malloc(size);
    if (!copy) return NULL;
    memcpy(copy, host, size);
    SbInstance *inst = sb_instantiate(&sb_model, iface, name, token, env, logger, copy, logging_on);
    if (!inst) free(copy);
    return inst;
}

void sb_free_hosted(void *instance)
{
    SbInstance *inst = instance;
    if (!inst) return;
    void *host = (void *)inst->host;
    sb_free(inst);
    free(host);
}

SbStatus sb_enter_mode(SbInstance *inst, SbMode mode)
{
    inst->state.mode = mode;
    return SB_OK;
}

/* ------------------------------------------------------------------------------------------ variables */

SbStatus sb_no_variables(SbInstance *inst, const char *function, const unsigned *vr, size_t n, const char *what)
{
    if (n == 0) return SB_OK;
    return sb_fail(inst, function, "this FMU has no %s (value reference %u)", what, vr ? vr[0] : 0);
}

SbStatus sb_no_output_derivatives(SbInstance *inst, const char *function, const unsigned *vr, size_t n)
{
    if (n == 0) return SB_OK;
    return sb_fail(inst, function, "not provided (maxOutputDerivativeOrder = 0), value reference %u", vr ? vr[0] : 0);
}

/* ------------------------------------------------------------------------------------------ FMU states */

SbStatus sb_get_fmu_state(SbInstance *inst, const char *function, void **state)
{
    if (!state) return sb_fail(inst, function, "the FMU state argument is NULL");
    SbSnapshot *s = sb_snapshot(inst, *state);
    if (!s) return sb_fail(inst, function, "out of memory");
    *state = s;
    return SB_OK;
}

SbStatus sb_free_fmu_state(void **state)
{
    if (!state) return SB_OK;
    free(*state);
    *state = NULL;
    return SB_OK;
}

SbStatus sb_serialized_size(SbInstance *inst, const char *function, size_t *size)
{
    if (!size) return sb_fail(inst, function, "size is NULL");
    *size = sb_snapshot_size(inst);
    return SB_OK;
}

SbStatus sb_deserialize_fmu_state(SbInstance *inst, const char *function, const unsigned char *bytes, size_t size,
                                  void **state)
{
    if (!state) return sb_fail(inst, function, "the FMU state argument is NULL");
    SbSnapshot *s = sb_deserialize(inst, bytes, size);
    if (!s) return SB_ERROR;
    free(*state);
    *state = s;
    return SB_OK;
}

/* ------------------------------------------------------------------------------------------ Model Exchange */

SbStatus sb_set_time(SbInstance *inst, const char *function, double time)
{
    if (!isfinite(time)) return sb_fail(inst, function, "time %g is not finite", time);
    *inst->state.time = time;
    sb_events_time_set(inst); /* (the ends of the importer's steps for the impact law) */
    sb_changed(inst);
    return SB_OK;
}

SbStatus sb_completed_integrator_step(SbInstance *inst, const char *function, int *enter_event)
{
    *enter_event = 0;
    if (inst->state.flags & SB_FLAG_BRANCH_LOST) /* the branch guard fired (sb_singular.c) */
        return sb_fail(inst, function, "%s", inst->problem);
    sb_events_step_completed(inst);
    /* the velocity continues through a singular position, else an event puts the state back (sb_branch.c) */
    return sb_branch_step(inst, function, enter_event);
}

SbStatus sb_get_event_indicators(SbInstance *inst, const char *function, double *indicators, size_t n)
{
    if (n > 0 && !indicators) return sb_fail(inst, function, "NULL argument");
    return sb_event_indicators(inst, function, indicators, n, 1);
}

SbStatus sb_update_discrete_states(SbInstance *inst, const char *function, int *values_changed)
{
    *values_changed = 0; /* impacts and contact modes (sb_events.c) */
    if (inst->interface != SB_ME) return SB_OK;
    int restored; /* a state that left its assembly branch, put back (sb_branch.c) */
    SbStatus s = sb_branch_restore(inst, function, &restored);
    *values_changed = restored;
    if (s != SB_OK) return s;
    s = sb_events_resolve(inst, function, values_changed);
    if (*values_changed) sb_branch_forget(inst); /* an impact changes the velocities */
    *values_changed |= restored;
    return s;
}
