/*
 * sbc_runtime.h -- the FMI-version independent part of a symbody controller
 * FMU (Co-Simulation only): one instance and the functions the FMI 2 and
 * FMI 3 wrappers (sbc_fmi2.c, sbc_fmi3.c) translate their calls into.
 *
 *   sbc_runtime.c   lifecycle, logging, the states each call is allowed in,
 *                   Get/Set with their checks, the communication step, FMU states
 *   sbc_laws.c      the control laws: outputs at the current time, the law's
 *                   update over a communication step (sample instants inside it)
 *   sbc_calls.c     what the FMI 2 and FMI 3 wrappers share: the entry of a
 *                   call, the hosted instance, Terminate, FMU states (sbc_calls.h)
 *
 * Nothing here aborts: a failed call returns Error with a message naming the
 * call, variable or value at fault, and changes nothing.
 */
#ifndef SBC_RUNTIME_H
#define SBC_RUNTIME_H

#include <stddef.h>

#include "sbc_controller.h"

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SBC_VISIBILITY_PUSHED_RUNTIME
#endif

typedef enum { SBC_OK = 0, SBC_WARNING, SBC_DISCARD, SBC_ERROR, SBC_FATAL } SbcStatus;

typedef enum { SBC_INSTANTIATED = 0, SBC_INITIALIZATION, SBC_STEPPING, SBC_TERMINATED } SbcMode;

/* the states (bit sets of SbcMode) each kind of call is allowed in */
typedef enum {
    SBC_CALL_ANY = 0,    /* SetDebugLogging, Reset, FMU states */
    SBC_CALL_SETUP,      /* fmi2SetupExperiment, EnterInitializationMode */
    SBC_CALL_EXIT_INIT,  /* ExitInitializationMode */
    SBC_CALL_GET,        /* Get of any type */
    SBC_CALL_SET,        /* Set of any type (each variable's own rule is checked too) */
    SBC_CALL_STEP,       /* DoStep */
    SBC_CALL_TERMINATE,  /* Terminate */
    SBC_CALL_STATUS,     /* fmi2Get*Status */
    SBC_CALL_UNSUPPORTED /* a function of an interface this FMU does not have: Error in every state */
} SbcCall;

/* log categories (bit masks), named as in modelDescription.xml (symbody/fmu/contract.py LOG_CATEGORIES) */
enum {
    SBC_LOG_EVENTS = 1,
    SBC_LOG_WARNING = 2,
    SBC_LOG_DISCARD = 4,
    SBC_LOG_ERROR = 8,
    SBC_LOG_FATAL = 16,
    SBC_LOG_SOLVER = 32,
    SBC_LOG_CALLS = 64,
    SBC_LOG_ALL = 127
};

typedef struct SbcInstance SbcInstance;

/* Forwards a formatted message to the FMI logger of the wrapper. */
typedef void (*SbcLogger)(SbcInstance *inst, SbcStatus status, const char *category, const char *message);

struct SbcInstance {
    const SbcController *c;
    char *name;
    const void *host; /* the wrapper's callbacks */
    SbcLogger logger;
    unsigned log_mask;
    unsigned first_vr; /* value reference of the first variable (time), set by the wrapper: 0 in FMI 2, 1 in
                          FMI 3 (its value references are the 1-based positions in ModelVariables) */
    SbcMode mode;
    /* Everything that determines the future of the instance, in one array (FMU states copy it):
       [time, start, next, step, in (nu + nr), coef (nc), x (ns), held (ny), count, history (2 cap)] */
    int nS;
    double *S;
    double *time;  /* the current communication point */
    double *start; /* the start time: sample instants are start + k sample_time */
    double *next;  /* k of the next sample instant (a discrete law) */
    double *step;  /* the last communication step size (0 before the first) */
    double *in;    /* the inputs: the law's, then the reference inputs */
    double *coef;  /* the coefficients (parameters and references written in) */
    double *x;     /* the law's states (linear: nx; PID: integral, derivative, last error, started) */
    double *held;  /* outputs of a discrete law, held since its last sample instant */
    double *count; /* entries of the shaper's input history */
    double *history; /* the shaper's input history: (time, value) pairs, oldest first */
    int ns;        /* states of the law */
    int cap;       /* capacity of the history (pairs) */
    /* derived from the state, rebuilt on demand (not part of FMU states) */
    int discrete_valid; /* Ad, Bd belong to `discrete_step` and the current coefficients */
    double discrete_step;
    double *Ad, *Bd;    /* the zero-order-hold discretization of a continuous linear law */
    double *work;       /* workspace of the matrix exponential */
    int *pivots;
};

/* Snapshot of the state array (FMU states). */
typedef struct {
    unsigned magic;
    unsigned long long identity;
    int mode;
    int nS;
    int cap;
    double S[];
} SbcSnapshot;

/* sbc_runtime.c */
SbcInstance *sbc_instantiate(const SbcController *c, const char *name, const char *token, SbcLogger logger,
                             const void *host, int logging_on);
void sbc_free(SbcInstance *inst);
void sbc_reset(SbcInstance *inst);
void sbc_log(SbcInstance *inst, SbcStatus status, unsigned category, const char *fmt, ...);
SbcStatus sbc_fail(SbcInstance *inst, const char *function, const char *fmt, ...);
SbcStatus sbc_set_debug_logging(SbcInstance *inst, int on, size_t n, const char *const categories[]);
int sbc_allowed(SbcInstance *inst, const char *function, SbcCall call);
SbcStatus sbc_setup(SbcInstance *inst, const char *function, double start_time);
SbcStatus sbc_enter_initialization(SbcInstance *inst, const char *function);
SbcStatus sbc_exit_initialization(SbcInstance *inst, const char *function);
SbcStatus sbc_get_real(SbcInstance *inst, const char *function, const unsigned vr[], size_t n, double values[]);
SbcStatus sbc_set_real(SbcInstance *inst, const char *function, const unsigned vr[], size_t n, const double values[]);
SbcStatus sbc_no_variables(SbcInstance *inst, const char *function, const char *type, const unsigned vr[], size_t n);
SbcStatus sbc_do_step(SbcInstance *inst, const char *function, double t, double h);
SbcSnapshot *sbc_snapshot(SbcInstance *inst, SbcSnapshot *reuse);
SbcStatus sbc_restore(SbcInstance *inst, const SbcSnapshot *s);
size_t sbc_snapshot_size(const SbcSnapshot *s);
SbcStatus sbc_serialize(SbcInstance *inst, const SbcSnapshot *s, unsigned char *bytes, size_t size);
SbcSnapshot *sbc_deserialize(SbcInstance *inst, const unsigned char *bytes, size_t size);

/* sbc_laws.c */
int sbc_law_states(const SbcController *c);
/* Times closer than this count as equal (communication points and sample instants, shaper delays). */
double sbc_time_tolerance(const SbcInstance *inst);
/* The coefficients are valid for the law (finite, limits ordered, ...); else Error naming the one at fault. */
SbcStatus sbc_law_check(SbcInstance *inst, const char *function);
/* The outputs at the current time from the current inputs (a sample due now is taken, not committed). */
SbcStatus sbc_law_outputs(SbcInstance *inst, const char *function, double *y);
/* Advance the law from the current time over h: sample instants inside, the state of a continuous law. */
SbcStatus sbc_law_step(SbcInstance *inst, const char *function, double h);
/* A reference input or a coefficient changed: derived data must be rebuilt. */
void sbc_law_changed(SbcInstance *inst);
/* Make room in the shaper's history for one more entry (may move the state array). */
SbcStatus sbc_history_reserve(SbcInstance *inst, int pairs);
void sbc_bind_state(SbcInstance *inst);

#ifdef SBC_VISIBILITY_PUSHED_RUNTIME
#pragma GCC visibility pop
#undef SBC_VISIBILITY_PUSHED_RUNTIME
#endif

#endif /* SBC_RUNTIME_H */
