/*
 * sbc_controller.h -- the interface between the generated controller.c of a
 * symbody controller FMU and the generic controller runtime (sbc_runtime.c,
 * sbc_laws.c, sbc_fmi2.c, sbc_fmi3.c).
 *
 * controller.c holds data only: one SbcController describing the control law
 * (its kind, sizes, coefficients and which parameter or input sets each
 * coefficient) and the variables' names.  Value references are laid out as
 *
 *     0                      time
 *     1 .. nu                the law's inputs (measured signals)
 *     nu+1 .. nu+nr          reference inputs (each sets one coefficient)
 *     nu+nr+1 .. +ny         outputs
 *     then np                parameters (each sets one coefficient)
 *
 * Coefficients of each kind of law (see sbc_laws.c for the laws themselves):
 *
 *     SBC_LINEAR  A (nx*nx), B (nx*nu), C (ny*nx), D (ny*nu) row-major, then the
 *                 input operating point u_ref (nu) and the output one y_ref (ny):
 *                 y = y_ref + C x + D (u - u_ref),  x' = A x + B (u - u_ref)
 *                 (continuous when sample_time == 0, else x[k+1] = A x[k] + ...)
 *     SBC_PID     kp, ki, kd, tf, kt, u_min, u_max, reference (nu = ny = 1)
 *     SBC_SHAPER  the n impulses' amplitudes, their delays, the input before the
 *                 start time (nu = ny = 1, n = (nc - 1) / 2)
 */
#ifndef SBC_CONTROLLER_H
#define SBC_CONTROLLER_H

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SBC_VISIBILITY_PUSHED_CONTROLLER
#endif

typedef enum { SBC_LINEAR = 1, SBC_PID = 2, SBC_SHAPER = 3 } SbcKind;

/* PID coefficients */
enum { SBC_KP = 0, SBC_KI, SBC_KD, SBC_TF, SBC_KT, SBC_UMIN, SBC_UMAX, SBC_REF, SBC_PID_COEFFICIENTS };

typedef struct {
    const char *name;         /* the controller's name (modelName) */
    const char *token;        /* instantiation token (GUID) */
    SbcKind kind;
    int nu, nr, ny, np;       /* law inputs, reference inputs, outputs, parameters */
    int nx;                   /* states of a linear law */
    int nc;                   /* coefficients */
    double sample_time;       /* 0: continuous-time law */
    const double *coefficients;      /* nc start values (structural zeros stay zero) */
    const int *parameter_slot;       /* np: the coefficient each parameter sets */
    const int *parameter_fixed;      /* np: 1 = settable before initialization only */
    const double *parameter_min;     /* np: lower bounds (-INFINITY: none) */
    const double *parameter_max;     /* np: upper bounds */
    const double *parameter_scale;   /* np: coefficient = scale * parameter (a gain K sets D = -K) */
    const int *reference_slot;       /* nr: the coefficient each reference input sets */
    const double *input_start;       /* nu + nr start values of the inputs */
    const char *const *names;        /* 1 + nu + nr + ny + np variable names by value reference */
} SbcController;

/* The one controller of this FMU (controller.c). */
extern const SbcController sbc_controller;

#ifdef SBC_VISIBILITY_PUSHED_CONTROLLER
#pragma GCC visibility pop
#undef SBC_VISIBILITY_PUSHED_CONTROLLER
#endif

#endif /* SBC_CONTROLLER_H */
