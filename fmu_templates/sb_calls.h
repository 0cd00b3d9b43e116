/*
 * sb_calls.h -- what the FMI 2 and the FMI 3 wrapper share (sb_calls.c): which
 * FMI function may be called in which state of an instance (ONE table), the
 * entry of every call, and the logic of the calls both standards have; each
 * wrapper keeps only what its standard's types and names need.
 *
 * Every FMI function taking an instance starts with SB_ENTER(instance, call):
 * a call in a state the table does not list returns Error with a message
 * naming the function and the state, and changes nothing.  The states are
 * those of SbMode; an FMI 2 and an FMI 3 function that do the same share a
 * row (fmi2SetReal and fmi3SetFloat64 are SB_CALL_SET_VALUES) unless the
 * standards differ (fmi2EnterEventMode is allowed in event mode,
 * fmi3EnterEventMode is not).  The rows follow the tables of FMI 2.0.4 (sections 3.2.3 and 4.2.4) and
 * the "Allowed Function Calls" of each state in FMI 3.0.2 (sections 2.3, 3.2
 * and 4.2).
 */
#ifndef SB_CALLS_H
#define SB_CALLS_H

#include "sb_runtime.h"

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_CALLS
#endif

typedef enum {
    SB_CALL_ANY_STATE = 0,          /* SetDebugLogging, Reset, functions this FMU does not provide */
    SB_CALL_SETUP_EXPERIMENT,       /* fmi2SetupExperiment */
    SB_CALL_ENTER_INITIALIZATION,   /* EnterInitializationMode */
    SB_CALL_EXIT_INITIALIZATION,    /* ExitInitializationMode */
    SB_CALL_TERMINATE,              /* Terminate */
    SB_CALL_GET_VALUES,             /* Get of every variable type (start values in instantiated) */
    SB_CALL_SET_VALUES,             /* Set of Real/Float (each variable's own states are checked too) */
    SB_CALL_GET_FMU_STATE,          /* GetFMUState */
    SB_CALL_FMU_STATE,              /* SetFMUState, FreeFMUState, (De)SerializeFMUState, SerializedFMUStateSize */
    SB_CALL_DERIVATIVES,            /* GetDirectionalDerivative, GetDerivatives: values of an initialized instance */
    SB_CALL_CONTINUOUS_STATES,      /* GetContinuousStates, fmi3 nominals, event indicators */
    SB_CALL_ENTER_EVENT_MODE,       /* fmi3EnterEventMode */
    SB_CALL_UPDATE_DISCRETE_STATES, /* fmi2NewDiscreteStates, fmi3UpdateDiscreteStates */
    SB_CALL_EVALUATE_DISCRETE_STATES, /* fmi3EvaluateDiscreteStates */
    SB_CALL_ENTER_CONTINUOUS_MODE,  /* EnterContinuousTimeMode */
    SB_CALL_COMPLETED_STEP,         /* CompletedIntegratorStep */
    SB_CALL_SET_TIME_OR_STATES,     /* SetTime, SetContinuousStates */
    SB_CALL_INPUT_DERIVATIVES,      /* fmi2SetRealInputDerivatives */
    SB_CALL_OUTPUT_DERIVATIVES,     /* fmi2GetRealOutputDerivatives, fmi3GetOutputDerivatives */
    SB_CALL_STEP,                   /* DoStep, fmi2CancelStep */
    SB_CALL_STATUS,                 /* fmi2GetStatus and its typed variants */
    SB_CALL_SET_DISCRETE_VALUES,    /* Set of the types that cannot be continuous inputs (all but Real/Float) */
    SB_CALL_NOMINALS,               /* fmi2GetNominalsOfContinuousStates: also in instantiated */
    SB_CALL_STAY_IN_EVENT_MODE,     /* fmi2EnterEventMode: also in event mode (FMI 3: continuous-time mode only) */
    SB_N_CALLS
} SbCall;

/* The states (bit SB_IN(mode)) in which a call of each kind is allowed. */
extern const unsigned sb_call_states[SB_N_CALLS];

/* Name of a state, for messages ("step mode"). */
const char *sb_mode_name(SbMode mode);

/* ---- the entry of a call ---- */

/* The instance of a call of `function`, or NULL when there is none or `call` is not allowed in its state (an
   Error naming the function and the state is logged).  Logs the call in the category logCalls. */
SbInstance *sb_enter(void *instance, const char *function, SbCall call);

/* Error: `function` belongs to the interface `needed` only. */
SbStatus sb_wrong_interface(SbInstance *inst, const char *function, SbInterface needed);

/* The first line of every FMI function of an instance, which names the function once (__func__): `inst`, the
   instance of the argument `instance`, or a return of Error.  The wrapper defines SB_STATUS(s), its status
   type's value of an SbStatus. */
#define SB_ENTER(instance, call)                                                                                     \
    SbInstance *const inst = sb_enter((instance), __func__, (call));                                                 \
    if (!inst) return SB_STATUS(SB_ERROR)

/* A function of one interface only (SB_ME or SB_CS), after SB_ENTER: Error in the other. */
#define SB_NEED(iface)                                                                                               \
    if (inst->interface != (iface)) return SB_STATUS(sb_wrong_interface(inst, __func__, (iface)))

/* ---- the calls both standards have ---- */

/* An instance holding a copy of the wrapper's `size` bytes of host data (its callbacks), freed with it. */
SbInstance *sb_instantiate_hosted(SbInterface iface, const char *name, const char *token, void *env, SbLogger logger,
                                  const void *host, size_t size, int logging_on);
/* Free an instance of sb_instantiate_hosted and its host data (NULL: nothing to free). */
void sb_free_hosted(void *instance);

/* Terminate, enter event or continuous-time mode: the instance is in `mode`. */
SbStatus sb_enter_mode(SbInstance *inst, SbMode mode);

/* Get or Set of what this FMU has none of (`what`: "String variables", "clocks", ...): OK for no value
   reference, else an Error naming the first. */
SbStatus sb_no_variables(SbInstance *inst, const char *function, const unsigned *vr, size_t n, const char *what);

/* Output derivatives (maxOutputDerivativeOrder = 0): OK for no value reference, else an Error. */
SbStatus sb_no_output_derivatives(SbInstance *inst, const char *function, const unsigned *vr, size_t n);

/* FMU states: a snapshot into *state (reusing the one there), freed, their serialized size, one deserialized into
   *state (freeing the one there). */
SbStatus sb_get_fmu_state(SbInstance *inst, const char *function, void **state);
SbStatus sb_free_fmu_state(void **state);
SbStatus sb_serialized_size(SbInstance *inst, const char *function, size_t *size);
SbStatus sb_deserialize_fmu_state(SbInstance *inst, const char *function, const unsigned char *bytes, size_t size,
                                  void **state);

/* Model Exchange: the time (finite), the check after an integrator step (*enter_event = 1: the state left its
   assembly branch and an event puts it back; an Error once it cannot, sb_singular.c), the event indicators, and
   the events resolved in event mode (*values_changed: the states changed; nothing to resolve in Co-Simulation). */
SbStatus sb_set_time(SbInstance *inst, const char *function, double time);
SbStatus sb_completed_integrator_step(SbInstance *inst, const char *function, int *enter_event);
SbStatus sb_get_event_indicators(SbInstance *inst, const char *function, double *indicators, size_t n);
SbStatus sb_update_discrete_states(SbInstance *inst, const char *function, int *values_changed);

#ifdef SB_VISIBILITY_PUSHED_CALLS
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_CALLS
#endif

#endif /* SB_CALLS_H */
