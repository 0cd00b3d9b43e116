/*
 * symbody_model.h -- the interface between one generated model.c and the
 * generic symbody FMU runtime (sb_*.c and the FMI 2 / FMI 3 wrappers).
 *
 * The generated model.c defines `sb_model` (sizes, variable table, start
 * values) and the block functions declared below.  The settings and the block
 * prototypes are written from symbody/fmu/contract.py, the one table of the
 * runtime contract (a test checks that this file holds what it writes).  Everything else in the FMU
 * is model independent: sizes are read from `sb_model` at run time, so the
 * generic sources compile once for every model.
 *
 * Equations of motion (all coordinates q, multipliers lam, one per row of D, first-order states xs):
 *
 *     M(q,t) ddq + D(q,t)^T lam = delta(q,dq,u,xs,t)   dynamics
 *     Phi(q,t) = 0                                     holonomic rows (nh)
 *     D dq = beta,   D ddq = gamma                     velocity / acceleration level (nc rows)
 *     dxs/dt = rates(q,dq,u,xs,lam,t)                  first-order states (ns)
 *
 * Inputs as the generated code reads them (Co-Simulation interpolates them inside a communication
 * step; tau is the time since the step began, 0 in Model Exchange and between steps):
 *     a motion input z, dz, ddz (inputs k, k + 1, k + 2):  z + dz tau + ddz tau^2 / 2,  dz + ddz tau,  ddz
 *     any other input j:  u_j + u'_j tau + u''_j tau^2 / 2 with the derivatives an FMI 2 importer set
 *     (fmi2SetRealInputDerivatives; zero otherwise)
 */
#ifndef SYMBODY_MODEL_H
#define SYMBODY_MODEL_H

#include <math.h>

/* Only the FMI functions are exported: everything declared here stays inside
   the FMU's library, so that two symbody FMUs loaded into one process (even
   with RTLD_GLOBAL) never bind to each other's model or runtime. */
#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_MODEL
#endif

/* Linkage of the functions that model.c shares between its files (model_<k>.c) without exporting them. */
#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#define SB_MODEL_LOCAL __attribute__((visibility("hidden")))
#else
#define SB_MODEL_LOCAL
#endif

/* The hot functions of model.c (the accelerations, M and delta) are compiled twice where GCC targets
   x86-64 Linux: for any x86-64 processor and, as avx2_<name>, for AVX2 processors, whose three-operand
   encoding of the same scalar operations runs faster; the code calls the clone where sb_cpu_avx2().  The
   two give the same values bit for bit (the same double operations in the same order: AVX2 has no FMA
   and the ISO C mode of the build contracts no multiply-add).  -DSB_NO_AVX2 keeps the plain ones only
   (symbody/codegen/c_isa.py). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(SB_NO_AVX2)
#define SB_AVX2 __attribute__((target("avx2")))
#define SB_INLINE __attribute__((always_inline))
static inline int sb_cpu_avx2(void)
{
    static int avx2 = -1; /* the same value whichever thread writes it first */
    if (avx2 < 0) {
        __builtin_cpu_init();
        avx2 = __builtin_cpu_supports("avx2") != 0;
    }
    return avx2;
}
#else
#define SB_INLINE
#endif

/* sign function of the generated code */
static inline double sb_sign(double x) { return (double)((x > 0) - (x < 0)); }

/* ---- generated from symbody/fmu/contract.py (python -m symbody.fmu.contract): do not edit ---- */

/* A point at which blocks are evaluated.  Vectors follow the order of the model's coordinates, inputs,
   parameters and constraint rows. */
typedef struct {
    double t;          /* time */
    const double *q;   /* positions (nq) */
    const double *dq;  /* velocities (nq) */
    const double *u;   /* inputs (nu), then their first and second time derivatives (nu each) */
    const double *p;   /* parameters (np) */
    const double *ddq; /* accelerations (nq), used by outputs and residual Jacobians */
    const double *lam; /* multipliers (nc), then the contact forces (nk) and the friction forces (nf); used by
                          outputs, Jacobians, the normal forces of friction and the rates */
    const double *xs;  /* first-order states (ns) */
    double tau;        /* time since the inputs were set (inside a Co-Simulation step), else 0 */
    const double *c;   /* the constants block (SbModel.nconst): parameter-only subexpressions of the block
                          functions, filled from p by sb_constants whenever the parameters change */
} SbPoint;

/* What an FMU variable is. */
typedef enum {
    SB_VAR_TIME = 0,    /* the independent variable */
    SB_VAR_Q = 1,       /* coordinate position (state) */
    SB_VAR_DQ = 2,      /* coordinate velocity (state) */
    SB_VAR_DDQ = 3,     /* coordinate acceleration */
    SB_VAR_U = 4,       /* input */
    SB_VAR_P = 5,       /* model parameter (tunable) */
    SB_VAR_Y = 6,       /* user output */
    SB_VAR_SETTING = 7, /* solver or stabilization setting (index: SbSetting) */
    SB_VAR_EVENT = 8,   /* event indicator (index: the contacts, the switching functions, the friction elements) */
    SB_VAR_X = 9,       /* first-order state (continuous state) */
    SB_VAR_DX = 10,     /* rate of a first-order state, der(<state>) */
} SbVarKind;

/* FMI types of variables. */
typedef enum {
    SB_TYPE_REAL = 0,    /* FMI 2 Real / FMI 3 Float64 */
    SB_TYPE_ENUM = 1,    /* an integer code: FMI 2 Integer / FMI 3 Int64 */
    SB_TYPE_BOOLEAN = 2, /* FMI 2 / FMI 3 Boolean */
} SbVarType;

/* One FMU variable; its value reference is its index in sb_model.variables (FMI 2), the index + 1 (FMI 3). */
typedef struct {
    const char *name; /* its name in modelDescription.xml */
    SbVarKind kind;   /* what it is */
    int index;        /* index in its vector (q, u, p, y, ...) or the SbSetting */
    SbVarType type;   /* its FMI type */
    double min;       /* smallest accepted value (inclusive); -INFINITY when unbounded */
    double max;       /* largest accepted value (inclusive); INFINITY when unbounded */
} SbVariable;

/* The model: sizes, variables, start values and names (model.c). */
typedef struct {
    const char *name;                    /* model name */
    const char *token;                   /* instantiation token (FMI 3) / GUID (FMI 2) */
    int nq;                              /* coordinates */
    int nc;                              /* constraint rows of D (holonomic first) */
    int nh;                              /* holonomic rows */
    int ninit;                           /* rows of Phi_init (Phi followed by initial conditions) */
    int nu;                              /* inputs */
    int np;                              /* parameters */
    int ny;                              /* outputs */
    int has_me;                          /* 1: the Model Exchange interface is compiled into this FMU */
    int has_cs;                          /* 1: the Co-Simulation interface is compiled into this FMU */
    int nvars;                           /* FMU variables */
    const SbVariable *variables;         /* the FMU variables (nvars), in the order of their value references */
    const double *q0;                    /* start positions (nq) */
    const double *dq0;                   /* start velocities (nq) */
    const double *u0;                    /* start inputs (nu) */
    const double *p0;                    /* parameter values (np) */
    const double *settings0;             /* default settings (SB_N_SETTINGS) */
    const int *init_fix;                 /* per Phi_init row: coordinate held at its start value, or -1 */
    const unsigned char *independent;    /* per coordinate: 1 when its start velocity is independent at the
                                            model's start configuration (sb_assembly.c, initial velocities) */
    const char *const *coordinate_names; /* names of the coordinates (nq) */
    const char *const *constraint_names; /* names of the rows of D (nc) */
    const char *const *init_names;       /* names of the rows of Phi_init (ninit) */
    int nk;                              /* unilateral contacts (sb_contacts; sb_events.c) */
    const char *const *contact_names;    /* their names (nk) */
    int nsw;                             /* switching functions of the loads (sb_switches) */
    int nf;                              /* stick-slip friction elements (sb_frictions; sb_events.c) */
    const char *const *friction_names;   /* their names (nf) */
    int friction_implicit;               /* 1: some normal force depends on multipliers or event forces */
    int has_direct;                      /* 1: sb_accelerations_direct gives ddq (closed form) */
    int ns;                              /* first-order states (sb_rates), after q and dq in the state */
    const double *s0;                    /* their start values (ns) */
    const char *const *state_names;      /* their names (ns) */
    int nmotion;                         /* motion inputs */
    const int *motion;                   /* per motion input: the index of its position z in u (dz, ddz follow) */
    int nconst;                          /* entries of the constants block (sb_constants) */
} SbModel;

/* sb_model: the model's description */
extern const SbModel sb_model;

/* sb_mass_parent: parent of each coordinate in the tree of the mass matrix (-1: a root), or NULL when M is
   not factored along a tree (sb_ltdl.h) */
extern const int *const sb_mass_parent;

/* Solver and stabilization settings, exposed as FMU parameters with dotted names (solver.method,
   baumgarte.alpha, ...) that cannot clash with model names; the index of the settings vector. */
typedef enum {
    /* solver.method: Co-Simulation solver: 1 = rk4 (fixed step solver.step), 2 = dopri5 (adaptive,
       solver.rtol and solver.atol), 3 = rosenbrock23 (adaptive, stiff models) */
    SB_SET_METHOD = 0,
    /* solver.step: internal step of rk4 [s] */
    SB_SET_STEP = 1,
    /* solver.rtol: relative tolerance of dopri5 and rosenbrock23 */
    SB_SET_RTOL = 2,
    /* solver.atol: absolute tolerance of dopri5 and rosenbrock23 */
    SB_SET_ATOL = 3,
    /* solver.max_step: largest step of dopri5 and rosenbrock23 (0: unbounded) [s] */
    SB_SET_MAX_STEP = 4,
    /* solver.projection: project positions and velocities onto the constraints after each step */
    SB_SET_PROJECTION = 5,
    /* solver.projection_tol: tolerance on |Phi| of the position projection and assembly */
    SB_SET_PROJ_TOL = 6,
    /* baumgarte.alpha: Baumgarte damping: the constraint rows get 2 alpha (D dq - beta) [1/s] */
    SB_SET_ALPHA = 7,
    /* baumgarte.beta: Baumgarte frequency: the holonomic rows get beta^2 Phi [1/s] */
    SB_SET_BETA = 8,
    /* solver.ignore_external_tolerance: true: solver.rtol is kept when the importer passes a tolerance
       (fmi2SetupExperiment, fmi3EnterInitializationMode); false: that tolerance replaces solver.rtol unless
       solver.rtol is set */
    SB_SET_IGNORE_TOL = 9,
    SB_N_SETTINGS
} SbSetting;

/* codes of solver.method */
enum { SB_METHOD_RK4 = 1, SB_METHOD_DOPRI5 = 2, SB_METHOD_ROSENBROCK23 = 3 };

/* Whether a finite value is valid for a setting. */
static inline int sb_setting_ok(SbSetting s, double value)
{
    switch (s) {
    case SB_SET_METHOD: return value == 1.0 || value == 2.0 || value == 3.0;
    case SB_SET_STEP: return value > 0.0;
    case SB_SET_RTOL: return value > 0.0;
    case SB_SET_ATOL: return value > 0.0;
    case SB_SET_MAX_STEP: return value >= 0.0;
    case SB_SET_PROJECTION: return value == 0.0 || value == 1.0;
    case SB_SET_PROJ_TOL: return value > 0.0;
    case SB_SET_ALPHA: return value >= 0.0;
    case SB_SET_BETA: return value >= 0.0;
    case SB_SET_IGNORE_TOL: return value == 0.0 || value == 1.0;
    default: return 0;
    }
}

/* What a setting accepts, for the message that refuses a value. */
static inline const char *sb_setting_rule(SbSetting s)
{
    switch (s) {
    case SB_SET_METHOD: return "1 (rk4), 2 (dopri5) or 3 (rosenbrock23)";
    case SB_SET_STEP: return "positive";
    case SB_SET_RTOL: return "positive";
    case SB_SET_ATOL: return "positive";
    case SB_SET_MAX_STEP: return "zero or positive";
    case SB_SET_PROJECTION: return "true or false";
    case SB_SET_PROJ_TOL: return "positive";
    case SB_SET_ALPHA: return "zero or positive";
    case SB_SET_BETA: return "zero or positive";
    case SB_SET_IGNORE_TOL: return "true or false";
    default: return "a known setting";
    }
}

/* ---- block functions generated in model.c (matrices row-major) ---- */

/* [M | delta]: mass matrix (nq x nq, symmetric) and generalized forces (nq). */
void sb_M_delta(const SbPoint *in, double *M, double *delta);

/* Accelerations ddq = M^-1 delta (nq) in closed form (articulated-body algorithm or symbolic elimination);
   returns 1 when they hold (every pivot of the algorithm positive, ddq finite), else 0 (ddq then undefined).
   Generated where SbModel.has_direct is 1 (unconstrained models), else always 0. */
int sb_accelerations_direct(const SbPoint *in, double *ddq);

/* [D | beta | gamma | Phi]: velocity/acceleration-level constraints (nc x nq, nc, nc) and the holonomic
   residual (nh) used by Baumgarte stabilization. */
void sb_constraints(const SbPoint *in, double *D, double *beta, double *gamma, double *Phi);

/* [Phi_q | Phi]: holonomic constraints and their Jacobian (projection). */
void sb_Phi_Phi_q(const SbPoint *in, double *Phi_q, double *Phi);

/* [D | beta]: velocity-level constraints (velocity projection). */
void sb_D_beta(const SbPoint *in, double *D, double *beta);

/* [Phi_init_q | Phi_init]: assembly of the initial configuration (ninit rows). */
void sb_Phi_init(const SbPoint *in, double *Phi_init_q, double *Phi_init);

/* User outputs (ny); may use ddq and lam (nc multipliers, then the nk contact forces and the nf friction
   forces). */
void sb_outputs(const SbPoint *in, double *y);

/* Rates dx/dt of the first-order states (ns); may use lam (nc multipliers, then the nk contact forces and the
   nf friction forces) and the states themselves. */
void sb_rates(const SbPoint *in, double *rates);

/* [gap | gap_q | gap_beta | gap_gamma | restitution]: unilateral contacts (nk): gaps g >= 0, their Jacobian
   rows (nk x nq), g_q dq - gap_beta the gap rates, g_q ddq - gap_gamma the gap accelerations, Newton's
   coefficients of restitution. */
void sb_contacts(const SbPoint *in, double *gap, double *gap_q, double *gap_beta, double *gap_gamma,
                 double *restitution);

/* [fr_A | fr_beta | fr_gamma | fr_mu | fr_mu_static]: stick-slip friction elements (nf): rate rows (nf x nq),
   fr_A dq - fr_beta the sliding rates, fr_A ddq - fr_gamma their derivatives, the sliding and the static
   coefficients. */
void sb_frictions(const SbPoint *in, double *fr_A, double *fr_beta, double *fr_gamma, double *fr_mu,
                  double *fr_mu_static);

/* Normal forces pressing the friction elements (nf; the runtime takes their magnitude); may use lam (nc
   multipliers, the nk contact forces, then the nf friction forces). */
void sb_friction_normals(const SbPoint *in, double *fr_normal);

/* Switching functions of the loads (nsw): the arguments of Abs and sign in delta, whose zeros are events. */
void sb_switches(const SbPoint *in, double *sw);

/* The constants block: the parameter-only subexpressions of the other blocks (SbModel.nconst entries), from
   in->p alone.  The runtime calls it whenever the parameters change (sb_parameters_changed: instantiation,
   reset, a parameter set, an FMU state restored); the other blocks read the values from in->c instead of
   computing them at every call. */
void sb_constants(const SbPoint *in, double *c);

/* Exact Jacobians of the residual R = [M ddq + D^T lam - delta; D ddq - gamma] ((nq + nc) rows) with respect
   to q (nq columns), dq (nq), u (nu) and t (1), at the given ddq and lam. */
void sb_residual_jacobians(const SbPoint *in, double *R_q, double *R_dq, double *R_u, double *R_t);

/* Jacobians of the velocity residual V = D dq - beta (nc rows) with respect to q and t. */
void sb_velocity_jacobians(const SbPoint *in, double *V_q, double *V_t);

/* Jacobians of the outputs (ny rows) with respect to q, dq, u, t, ddq and lam. */
void sb_output_jacobians(const SbPoint *in, double *Y_q, double *Y_dq, double *Y_u, double *Y_t, double *Y_ddq,
                         double *Y_lam);

/* ---- end of the part generated from symbody/fmu/contract.py ---- */

#ifdef SB_VISIBILITY_PUSHED_MODEL
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_MODEL
#endif

#endif /* SYMBODY_MODEL_H */
