/*
 * sb_runtime.h -- the FMI-version independent part of a symbody FMU: one
 * instance and the functions the FMI 2 and FMI 3 wrappers translate their
 * calls into.  The runtime is split by concern:
 *
 *   sb_instance.c   lifecycle of an instance (instantiate, free, reset) and logging
 *   sb_calls.c      the states each FMI function may be called in, the entry of a call and the calls both
 *                   standards have (sb_calls.h)
 *   sb_variables.c  Get and Set of variables with their checks
 *   sb_dynamics.c   accelerations and multipliers, the factorizations, solves with them
 *   sb_ltdl.c       the factorization of a tree-structured mass matrix, the direct accelerations (sb_ltdl.h)
 *   sb_linalg.c     dense linear algebra: L D L^T, pivoted LU, symmetric eigenvalues (sb_linalg.h)
 *   sb_singular.c   filtered multipliers and no projection next to singular positions
 *   sb_passage.c    the exact accelerations bridged over a singular instant
 *   sb_branch.c     the branch checks of Model Exchange and the state put back onto its branch
 *   sb_assembly.c   experiment setup, assembly of the initial configuration, projection
 *   sb_jacobians.c  state Jacobian and directional derivatives
 *   sb_tangents.c   Jacobian columns of models exported without exact Jacobian code (sb_tangents.h)
 *   sb_snapshot.c   FMU state snapshots and their serialization
 *   sb_solver.c     the embedded Co-Simulation solvers (sb_solver.h)
 *   sb_rk4.c        their fixed-step rk4 with its error estimate (sb_solver.h)
 *   sb_events.c     unilateral contacts, friction and switching functions: indicators, impacts, modes
 *   sb_events_cs.c  the events located inside a Co-Simulation step (sb_events.h)
 *   sb_events_resolve.c  the modes and impulses at an event: contacts, friction, switches (sb_events.h)
 *   sb_flights.c         the importer's steps and the contacts' flights the event laws keep (ME)
 *   sb_event_laws.c the event laws: complementarity of contacts and friction, kept forces (sb_event_laws.h)
 *
 * sb_internal.h holds what these files share and the wrappers never call; the model's side
 * is symbody_model.h.
 */
#ifndef SB_RUNTIME_H
#define SB_RUNTIME_H

#include <stddef.h>
#include "symbody_model.h"

/* Only the FMI functions are exported: everything declared here stays inside
   the FMU's library, so that two symbody FMUs loaded into one process (even
   with RTLD_GLOBAL) never bind to each other's model or runtime. */
#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_RUNTIME
#endif

typedef enum { SB_OK = 0, SB_WARNING, SB_DISCARD, SB_ERROR, SB_FATAL } SbStatus;

typedef enum {
    SB_MODE_INSTANTIATED = 0,
    SB_MODE_INIT,        /* initialization mode */
    SB_MODE_EVENT,       /* event mode (Model Exchange) */
    SB_MODE_CONTINUOUS,  /* continuous-time mode (Model Exchange) */
    SB_MODE_STEP,        /* step mode (Co-Simulation) */
    SB_MODE_TERMINATED
} SbMode; /* FMI 2's "error" state is not one of them: a call that fails changes nothing (see sb_fail) */

typedef enum { SB_ME = 1, SB_CS = 2 } SbInterface;

/* How the last dynamics evaluation solved [M D^T; D 0][ddq; lam] = rhs. */
typedef enum {
    SB_FACT_LDLT = 1,  /* no constraints: L D L^T of M */
    SB_FACT_SCHUR,     /* range space: L D L^T of M and of D M^-1 D^T (the usual case) */
    SB_FACT_LU,        /* complete-pivoting LU of the augmented matrix (singular M, redundant constraints) */
    SB_FACT_FILTER     /* range space with filtered multipliers: eigenvectors of D M^-1 D^T (singular positions) */
} SbFactorization;

/* What sb_accelerations evaluates for sb_singular_accelerations (sb_passage.c). */
typedef enum {
    SB_PASSAGE_NONE = 0, /* the dynamics at the state (next to a singular position: sb_singular_accelerations) */
    SB_PASSAGE_EXACT,    /* the exact solution at a consistent state: LU of the augmented matrix */
    SB_PASSAGE_RESTORE   /* the filtered factorization at the state again, for the callers */
} SbPassage;

/* log categories (bit masks); names as in modelDescription.xml (LOG_CATEGORIES of symbody/fmu/contract.py) */
enum {
    SB_LOG_EVENTS = 1,    /* logEvents: initialization, assembly, mode changes */
    SB_LOG_WARNING = 2,   /* logStatusWarning */
    SB_LOG_DISCARD = 4,   /* logStatusDiscard */
    SB_LOG_ERROR = 8,     /* logStatusError */
    SB_LOG_FATAL = 16,    /* logStatusFatal */
    SB_LOG_SOLVER = 32,   /* logSolver: steps, rejections, projection */
    SB_LOG_CALLS = 64,    /* logCalls: every FMI call */
    SB_LOG_ALL = 127
};

extern const char *const sb_log_category_names[7];

typedef struct SbInstance SbInstance;

/* Forwards a formatted message to the FMI logger of the wrapper. */
typedef void (*SbLogger)(SbInstance *inst, SbStatus status, const char *category, const char *message);

/* Snapshot of everything that determines the future of an instance (sb_snapshot.c).
   `identity` is a hash of the model's instantiation token: a snapshot of another
   model, even one of the same size, is refused. */
typedef struct {
    unsigned magic;
    unsigned long long identity;
    int mode;
    int flags;
    int nS;
    double S[]; /* time, x, u (with the input derivatives), p, settings, solver memory */
} SbSnapshot;

/* instance flags (part of the state) */
enum {
    SB_FLAG_RTOL_SET = 1,     /* solver.rtol set explicitly: the experiment tolerance does not override it */
    SB_FLAG_INITIALIZED = 2,  /* initialization completed */
    SB_FLAG_TERMINATE = 4,    /* the last step failed where no smaller step can succeed: the FMU asks the
                                 host to end the simulation (fmi2Terminated, terminateSimulation) */
    SB_FLAG_RTOL_EXPERIMENT = 8, /* solver.rtol holds the importer's experiment tolerance */
    SB_FLAG_BRANCH_LOST = 16, /* Model Exchange: the motion changed its assembly branch at a singular position
                                 (sb_branch_guard): every evaluation is an Error */
    SB_FLAGS_ALL = 31
};

/* The head of SbState.kept (Model Exchange branch checks, sb_branch.c), before q, dq, ddq of the kept state. */
enum {
    SB_KEPT_T = 0,     /* the time of the last accepted state kept (NAN: none) */
    SB_KEPT_NEAR,      /* 1: a state next to a singular position was evaluated since then */
    SB_KEPT_ROW,       /* the constraint row that lost its hold most there */
    SB_KEPT_LEAST,     /* ... how clearly the usual rows held there (INFINITY: not measured) */
    SB_KEPT_RANK,      /* the most constraint rows met that hold clearly (sb_scaled_rows_hold) */
    SB_KEPT_WORK,      /* work of the constraint forces in the current passage (sb_branch_guard) */
    SB_KEPT_WORK_T,    /* ... the latest time it counts to (NAN: no passage) */
    SB_KEPT_STEP_WORK, /* work of the constraint forces since the last accepted state (sb_branch_guard) */
    SB_KEPT_STEP_T,    /* ... the latest time it counts to (NAN: none) */
    SB_KEPT_FIRED,     /* 1: the work of the constraint forces in a passage showed the state leaving the branch
                          (sb_branch_guard); the next accepted step asks for the event */
    SB_KEPT_ASKED,     /* the time of the accepted step whose state left the branch, where an event was requested to
                          put it back (sb_branch_restore; NAN: none) */
    SB_KEPT_HEAD
};

/* The head of SbState.flight (Model Exchange, models with unilateral contacts): the importer's steps as the
   impact law sees them (sb_error_free_rate, sb_unresolved_flight; sb_events_resolve.c), before the records of
   each contact's last departure from its surface (SB_LEFT_* blocks of nk values each). */
enum {
    SB_FLIGHT_END0 = 0,   /* the last two ends of the importer's steps and events (NAN: none yet) */
    SB_FLIGHT_END1,
    SB_FLIGHT_COUNT,      /* the importer's steps so far */
    SB_FLIGHT_SQUARES,    /* the sum of their squared spans */
    SB_FLIGHT_COMPLETING, /* 1: the importer calls CompletedIntegratorStep, whose times alone end its steps; 0: the
                             times it advances to (SetTime past the latest seen) do */
    SB_FLIGHT_SPAN,       /* the span of the importer's step before the last one (0: none yet) */
    SB_FLIGHT_PEAK,       /* the largest |gap_gamma| of the closed contacts (velocities zeroed) at the ends of the
                             importer's completed steps while contacts are closed (sb_rest_rate) */
    SB_FLIGHT_HEAD
};
/* ... then per contact (blocks of nk): its last departure's time, SB_FLIGHT_COUNT and SB_FLIGHT_SQUARES then, its
   rate (0: none since, or an impulse changed it in flight) and gap acceleration. */
enum { SB_LEFT_TIME = 0, SB_LEFT_COUNT, SB_LEFT_SQUARES, SB_LEFT_RATE, SB_LEFT_ALPHA, SB_LEFT_BLOCKS };

/* Everything that determines the future of an instance: exactly what FMU state snapshots copy
   (sb_snapshot.c).  The values live in one array so that a snapshot is one copy. */
typedef struct {
    SbMode mode;
    int flags;           /* SB_FLAG_* */
    int nS;
    double *S;           /* [time, x (2 nq + ns), u (3 nu), p (np), settings, h_next, row_ref (nc),
                            kept (sb_kept_size), flight (sb_flight_size), closed (nk), slip (nf), side (nsw),
                            offset (nk)] */
    double *time;        /* S + 0 */
    double *x;           /* q = x, dq = x + nq, the first-order states xs = x + 2 nq */
    double *u;           /* inputs (nu) at the FMU's time, then their first and second time derivatives (nu each:
                            fmi2SetRealInputDerivatives; a motion input's rates are the inputs dz and ddz) */
    double *p, *set;     /* parameters, settings (SbSetting) */
    double *h_next;      /* step size proposed by the adaptive solvers */
    double *row_ref;     /* largest squared norm each constraint row has had (nc): E = diag(row_ref)^-1/2 scales the
                            rows (sb_dynamics.c, sb_singular.c, sb_passage.c, the branch check of sb_branch.c) */
    double *kept;        /* Model Exchange, models with constraints: what the branch checks remember between calls
                            (sb_branch.c): SB_KEPT_* then q, dq and ddq at the last accepted state kept (3 nq),
                            then its first-order states (ns) */
    double *flight;      /* Model Exchange, models with contacts: the importer's steps and the contacts' last
                            departures from their surfaces (SB_FLIGHT_*, then SB_LEFT_* blocks; sb_flights.c) */
    double *closed;      /* per unilateral contact: 1 closed, 0 open (its mode; sb_events.c) */
    double *slip;        /* per friction element: 0 sticking, +1 or -1 the direction it slips (closed + nk) */
    double *side;        /* per switching function of the loads: +1 or -1, its side at the last event (the
                            hysteresis of its event indicator in Model Exchange; slip + nf) */
    double *offset;      /* per unilateral contact: the offset of its event indicator while it is open in Model
                            Exchange, SB_EVENT_HYSTERESIS grown while the importer finds it again where it left
                            its surface (sb_events.h; side + nsw) */
} SbState;

/* Values at the current state, computed on demand by sb_update (sb_dynamics.c). */
typedef struct {
    int valid;           /* ddq, lam, y, rates and the factorization belong to the current state */
    SbStatus status;
    double *ddq, *lam, *y; /* lam: the nc multipliers, then the nk contact forces and the nf friction forces */
    double *rates;       /* rates of the first-order states (ns) */
    int undetermined;    /* some multipliers at the current state are not determined (a singular position) */
} SbCache;

/* The blocks and the factorization of the last dynamics evaluation (sb_dynamics.c, sb_singular.c),
   and what the dynamics remember across evaluations (rank_ref, psd_checked; the largest norms of the constraint
   rows, SbState.row_ref, are part of the FMU state). */
typedef struct {
    int na;              /* nq + nc */
    double *M, *delta, *D, *beta, *gamma, *Phi, *Phi_q;
    int fact;            /* SbFactorization of the last dynamics evaluation */
    double rho;          /* SB_FACT_SCHUR/FILTER with a singular M: the factored block is M + rho D^T D */
    int psd_checked;     /* M found positive semi-definite since the parameters last changed */
    double *Mf;          /* L D L^T factors of M */
    double *X, *Sf;      /* M^-1 D^T (nc rows of nq) and the L D L^T factors of D M^-1 D^T */
    double *stmp;        /* (nq + nc) */
    double *sw;          /* SB_FACT_FILTER: eigenvalues of E D M^-1 D^T E (nc); Sf holds the eigenvectors */
    int rank_ref;        /* largest number of clearly independent constraint rows met (projection) */
    double *branch_G;    /* branch check (Model Exchange, sb_branch.c): the scaled Gram matrix of the rows (nc x nc),
                            its eigenvectors (nc x nc) and eigenvalues (nc);
                            what the checks remember is part of the state (SbState.kept) */
    double *carry;       /* ... the kept state carried to the present by rk4 (sb_branch_restore): 6 (2 nq + ns) */
    double filter_tau;   /* SB_FACT_FILTER: the filter level tau */
    double least_pivot;  /* SB_FACT_SCHUR: the least pivot of D M^-1 D^T relative to its largest diagonal entry */
    int passage;         /* SbPassage: what sb_accelerations evaluates for sb_singular_accelerations */
    double step_cap;     /* the longest step the evaluations since it was reset allow (sb_passage.c): an
                            adaptive solver steps to a singular instant no faster than the distance to it */
    double *bridge;      /* work of sb_singular_accelerations (sb_passage.c): 5 nq, then dD/dt (nc x nq) */
    double *A;           /* augmented matrix [M D^T; D 0], LU factors (fallback) */
    int *prow, *pcol;
    int rank;
    double *rhs, *sol;   /* right-hand side and solution [ddq; lam] (nq + nc) */
    double *lam_work;    /* multipliers and event forces (nc + nk + nf) for the rates of sb_derivatives */
} SbDynamics;

/* Work of the Jacobians (sb_jacobians.c): the model's exact block Jacobians and the seeds. */
typedef struct {
    double *R_q, *R_dq, *R_u, *R_t, *V_q, *V_t;
    double *Y_q, *Y_dq, *Y_u, *Y_t, *Y_ddq, *Y_lam;
    double *sq, *sdq, *su, *dsol;  /* directional derivative seeds and result */
} SbJacobianWork;

/* Work of the projection and the assembly (sb_assembly.c, sb_singular.c). */
typedef struct {
    int nrows;           /* most rows of a projection or assembly problem */
    double *Jrows, *rrows; /* their Jacobian (nrows x nq) and residual */
    double *G;           /* Gram matrix J J^T (nrows x nrows) and its pivots */
    int *gprow, *gpcol;
    double *ytmp;        /* (nrows) */
    double *dx;          /* correction (nq) */
    double *xwork;       /* trial state (2 nq + ns) */
    double *qfix;        /* start values [q; dq; xs] held by the assembly (2 nq + ns) */
} SbProjectionWork;

/* The experiment and what the host did (not part of FMU states). */
typedef struct {
    int stop_defined;    /* the host defined a stop time: steps past it are errors */
    double stop_time;
    unsigned char *dq_set; /* per coordinate: the host set its start velocity (it is kept at initialization) */
    double discard_t, discard_h; /* the last discarded step, and how often in a row it was asked for */
    long discards;
    double floor_told[2]; /* the solver.rtol and solver.atol the event tolerance last replaced in a message
                             (sb_events_cs.c; 0: none yet) */
} SbHistory;

struct SbInstance {
    const SbModel *m;
    SbInterface interface;
    char *name;
    void *env;           /* component / instance environment of the host */
    SbLogger logger;     /* set by the wrapper */
    const void *host;    /* wrapper data (FMI 2 callback functions) */
    unsigned log_mask;   /* enabled categories */
    int logging_on;
    unsigned first_vr;   /* value reference of m->variables[0], set by the wrapper: 0 in FMI 2 (its
                            ModelStructure indices are the value references + 1), 1 in FMI 3 (the value
                            references are the 1-based positions in ModelVariables, as FMI 2's indices) */

    SbState state;       /* copied by FMU state snapshots */
    double *constants;   /* the constants block (SbModel.nconst): a function of state.p, recomputed by
                            sb_parameters_changed whenever the parameters change (never part of a snapshot) */
    SbCache cache;
    SbDynamics dyn;
    SbJacobianWork jac;
    SbProjectionWork proj;
    SbHistory history;
    void *solver;        /* solver workspace (sb_solver.c) */
    void *events;        /* unilateral contacts workspace (sb_events.c) */
    int interpolating;   /* inside sb_do_step: the inputs are polynomials of tau = t - input_time */
    double input_time;   /* the communication point the inputs were set at */
    char problem[512];   /* last numerical problem, for the message of a discarded call */
};

/* ---- lifecycle ---- */
SbInstance *sb_instantiate(const SbModel *m, SbInterface interface, const char *name, const char *token, void *env,
                           SbLogger logger, const void *host, int logging_on);
void sb_free(SbInstance *inst);
void sb_reset(SbInstance *inst);    /* back to the start values, mode instantiated */
/* The parameters in inst->state.p changed (set, reset, restored from an FMU state): recompute the constants
   block the block functions read (sb_constants of model.c).  Whatever writes state.p calls it. */
void sb_parameters_changed(SbInstance *inst);

/* ---- logging ---- */
void sb_log(SbInstance *inst, SbStatus status, unsigned category, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
SbStatus sb_set_debug_logging(SbInstance *inst, int on, size_t n, const char *const categories[]);

/* Error in a call of `function`: logs "function: message" (printf `fmt` and its arguments) in the category
   logStatusError and returns SB_ERROR.  The instance is left as it was: every check precedes any change, so a
   refused call changes nothing and the instance stays usable (FMI 3 has no error state; the importer decides
   whether to go on, reset or restore a state). */
SbStatus sb_fail(SbInstance *inst, const char *function, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4), cold))
#endif
    ;

/* Bit of a state in state masks (sb_calls.h). */
#define SB_IN(mode) (1u << (mode))

/* ---- variables ---- */
const SbVariable *sb_variable(SbInstance *inst, const char *function, unsigned vr);
SbStatus sb_get_real(SbInstance *inst, const char *function, const unsigned *vr, size_t n, double *values);
SbStatus sb_set_real(SbInstance *inst, const char *function, const unsigned *vr, size_t n, const double *values);

/* Get n values of one type (Integer/Int64 or Boolean: the settings); value k is stored by put(values, k, value),
   the wrapper's conversion to its FMI type. */
typedef void (*SbValuePut)(void *values, size_t k, double value);
SbStatus sb_get_values(SbInstance *inst, const char *function, const unsigned *vr, size_t n, SbVarType type,
                       void *values, SbValuePut put);

/* Set n values of one type; value k is at(values, k).  Every value is checked
   (type, mode, finiteness, range) before any is stored: a call that fails
   changes nothing. */
typedef double (*SbValueAt)(const void *values, size_t k);
SbStatus sb_set_values(SbInstance *inst, const char *function, const unsigned *vr, size_t n, SbVarType type,
                       const void *values, SbValueAt at);

/* Check the values of a state vector laid out as SbState.S (time, x, u, p, settings, h_next, kept, modes) as
   sb_set_values checks the values a host sets: finite, inside the variables' ranges, valid
   settings.  Logs an error naming the first bad variable. */
SbStatus sb_check_state_values(SbInstance *inst, const char *function, const double *S);

/* Continuous states x = [q; dq; xs] of Model Exchange and their derivatives [dq; ddq; rates] (n: their count,
   2 nq + ns, checked; states checked finite). */
SbStatus sb_set_continuous_states(SbInstance *inst, const char *function, const double *x, size_t n);
SbStatus sb_get_continuous_states(SbInstance *inst, const char *function, double *x, size_t n);
SbStatus sb_get_nominals(SbInstance *inst, const char *function, double *nominals, size_t n);
SbStatus sb_get_derivatives(SbInstance *inst, const char *function, double *derivatives, size_t n);

/* ---- initialization ---- */
/* stop_defined: DoStep refuses to go past stop_time (FMI 2.0 and 3.0: fmiError). */
SbStatus sb_setup_experiment(SbInstance *inst, const char *function, int tolerance_defined, double tolerance,
                             double start_time, int stop_defined, double stop_time);
SbStatus sb_enter_initialization(SbInstance *inst);
SbStatus sb_exit_initialization(SbInstance *inst);

/* ---- dynamics ---- */
/* Accelerations and multipliers at (t, x = [q; dq; xs]) with the instance's inputs
   and parameters, Baumgarte-stabilized constraint rows.  Leaves the factorized
   augmented matrix in inst->dyn.A.  lam may be NULL. */
SbStatus sb_accelerations(SbInstance *inst, double t, const double *x, double *ddq, double *lam);

/* Make ddq, lam, y and the rates valid for the current state. */
SbStatus sb_update(SbInstance *inst);

/* State derivative [dq; ddq; rates] at (t, x) (solvers; 2 nq + ns entries). */
SbStatus sb_derivatives(SbInstance *inst, double t, const double *x, double *xdot);

/* Jacobian of [dq; ddq; rates] with respect to x (nx x nx, nx = 2 nq + ns, row-major) and t, at
   (t, x) (implicit solver); J_t may be NULL. */
SbStatus sb_state_jacobian(SbInstance *inst, double t, const double *x, double *J, double *J_t);

/* Directional derivative: sensitivity = d(unknowns)/d(knowns) * seed at the current state. */
SbStatus sb_directional_derivative(SbInstance *inst, const char *function, const unsigned *unknowns, size_t n_unknowns,
                                   const unsigned *knowns, size_t n_knowns, const double *seed, double *sensitivity);

/* Singular positions (sb_singular.c): filtered multipliers from the factorization left by the
   range-space method (Mf, X), applied to lam in place; and whether fewer constraint rows are clearly
   independent at x than usual (no projection there). */
void sb_factor_filter(SbInstance *inst, double t);
void sb_filter_multipliers(SbInstance *inst, double *lam);
int sb_near_singular(SbInstance *inst, double t, const double *x);
/* Next to a singular position (the filtered factorization at x just made): the exact accelerations at x,
   bridged over the singular instant, into inst->dyn.sol (sb_passage.c); the factorization and the
   multipliers left are the filtered ones at x. */
SbStatus sb_singular_accelerations(SbInstance *inst, double t, const double *x);
/* Reference row norms (row_ref) at the assembled initial configuration, from the rows next to it. */
void sb_seed_row_reference(SbInstance *inst, double t);
/* Whether the last factorization left undetermined multipliers; and the status of reading output v
   at the current state (SB_WARNING with a message when it depends on them). */
int sb_multipliers_undetermined(const SbInstance *inst);
SbStatus sb_undetermined_output(SbInstance *inst, const char *function, const SbVariable *v);
/* the status of sb_update after the branch guard of Model Exchange (sb_singular.c) */
SbStatus sb_branch_guard(SbInstance *inst, SbStatus s);
/* the branch check of Model Exchange at an accepted state (sb_branch.c): the velocity through a passage of a
   singular position continues that before it, else *enter_event = 1 (the state is put back in event mode,
   sb_branch_restore) */
SbStatus sb_branch_step(SbInstance *inst, const char *function, int *enter_event);
/* forget the accepted state the branch check compares with (after an event changed the velocities) */
void sb_branch_forget(SbInstance *inst);
/* forget it and the work of a passage (reset, initialization) */
void sb_branch_reset(SbInstance *inst);
/* in event mode of Model Exchange: a state that left its branch at the last accepted step put back onto the branch
   of the kept state (*restored = 1), or an Error when it cannot be (sb_branch.c) */
SbStatus sb_branch_restore(SbInstance *inst, const char *function, int *restored);

/* ---- constraint projection ---- */
/* Newton on Phi(q, t) = 0 with minimum-norm steps (positions) and D dq = beta (velocities). */
SbStatus sb_project(SbInstance *inst, double t, double *x);

/* ---- state snapshots (sb_snapshot.c) ---- */
SbSnapshot *sb_snapshot(SbInstance *inst, SbSnapshot *reuse);
SbStatus sb_restore(SbInstance *inst, const SbSnapshot *s);
size_t sb_snapshot_size(const SbInstance *inst);
SbStatus sb_serialize(SbInstance *inst, const SbSnapshot *s, unsigned char *bytes, size_t size);
SbSnapshot *sb_deserialize(SbInstance *inst, const unsigned char *bytes, size_t size);

/* 64-bit FNV-1a hash of `size` bytes continuing from `hash` (serialized-state checksum, model identity). */
unsigned long long sb_fnv1a(const void *data, size_t size, unsigned long long hash);

/* Invalidate the values computed at the current state (after a change of x, u, p or t). */
static inline void sb_changed(SbInstance *inst) { inst->cache.valid = 0; }

/* Size of the continuous state x = [q; dq; xs]. */
static inline int sb_nx(const SbModel *m) { return 2 * m->nq + m->ns; }

/* Size of SbState.kept: the memory of the Model Exchange branch checks (models with constraints only). */
static inline int sb_kept_size(const SbModel *m) { return m->nc > 0 ? SB_KEPT_HEAD + 3 * m->nq + m->ns : 0; }

/* Size of SbState.flight: the importer's steps and the flights of the contacts (models with contacts only). */
static inline int sb_flight_size(const SbModel *m) { return m->nk > 0 ? SB_FLIGHT_HEAD + SB_LEFT_BLOCKS * m->nk : 0; }

/* Set the time derivatives of order `order` (1 or 2) of the inputs vr (fmi2SetRealInputDerivatives): a motion
   input's position takes them as its inputs dz and ddz; any other input keeps them for the next communication
   step (they are cleared after it). */
SbStatus sb_set_input_derivatives(SbInstance *inst, const char *function, const unsigned *vr, size_t n,
                                  const int *order, const double *values);

/* The inputs at the end of a communication step of length H (sb_do_step): each motion input's position and
   velocity along the polynomial of the step (the importer's next values replace them); the derivatives of
   the other inputs cleared. */
void sb_advance_inputs(SbInstance *inst, double H);

#ifdef SB_VISIBILITY_PUSHED_RUNTIME
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_RUNTIME
#endif

#endif /* SB_RUNTIME_H */
