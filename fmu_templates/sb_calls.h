/*
 * sb_calls.h -- which FMI function may be called in which state of an
 * instance: ONE table for the FMI 2 and the FMI 3 wrapper (sb_calls.c).
 *
 * Every FMI function taking an instance starts with sb_allowed(inst, name,
 * call): a call in a state the table does not list returns Error with a
 * message naming the function and the state, and changes nothing.  The states
 * are those of SbMode; an FMI 2 and an FMI 3 function that do the same share a
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

/* 1 if `call` is allowed in the instance's state; else logs an Error naming the function and the state
   and returns 0. */
int sb_allowed(SbInstance *inst, const char *function, SbCall call);

#ifdef SB_VISIBILITY_PUSHED_CALLS
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_CALLS
#endif

#endif /* SB_CALLS_H */
