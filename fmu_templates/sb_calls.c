/*
 * sb_calls.c -- the table of the instance states in which each FMI function
 * may be called, shared by fmi2Functions.c and fmi3Functions.c (see sb_calls.h),
 * and the check of a call against it.
 */
#include "sb_calls.h"

#define SB_ANY_STATE (SB_IN(SB_MODE_INSTANTIATED) | SB_IN(SB_MODE_INIT) | SB_IN(SB_MODE_EVENT) | \
                      SB_IN(SB_MODE_CONTINUOUS) | SB_IN(SB_MODE_STEP) | SB_IN(SB_MODE_TERMINATED) | \
                      SB_IN(SB_MODE_ERROR))
#define SB_LIVE (SB_ANY_STATE & ~SB_IN(SB_MODE_ERROR))

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
    [SB_CALL_GET_VALUES] = SB_LIVE,
    /* continuous inputs in continuous-time mode; nothing once terminated */
    [SB_CALL_SET_VALUES] = SB_SETTABLE,
    [SB_CALL_GET_FMU_STATE] = SB_LIVE,
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
                                         "step mode",    "terminated",          "error"};

const char *sb_mode_name(SbMode mode)
{
    return (unsigned)mode < sizeof mode_names / sizeof mode_names[0] ? mode_names[mode] : "an unknown state";
}

int sb_allowed(SbInstance *inst, const char *function, SbCall call)
{
    if ((unsigned)call < SB_N_CALLS && (sb_call_states[call] & SB_IN(inst->state.mode))) return 1;
    sb_log(inst, SB_ERROR, SB_LOG_ERROR, "%s: not allowed in %s", function, sb_mode_name(inst->state.mode));
    return 0;
}
