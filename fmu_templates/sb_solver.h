/*
 * sb_solver.h -- embedded Co-Simulation solvers of a symbody FMU.
 *
 * Chosen at run time by the parameter solver.method (no rebuild):
 *   1 rk4           classic fixed-step Runge-Kutta 4, internal step solver.step
 *   2 dopri5        adaptive Dormand-Prince 5(4), solver.rtol / solver.atol
 *   3 rosenbrock23  adaptive linearly implicit Rosenbrock 2(3) (Shampine-Reichelt,
 *                   L-stable) using the exact symbolic Jacobian, for stiff models
 * After every accepted internal step the state is projected onto the
 * constraints (solver.projection).  A failed communication step leaves the
 * state at its start and returns SB_DISCARD.
 */
#ifndef SB_SOLVER_H
#define SB_SOLVER_H

#include "sb_runtime.h"

/* Only the FMI functions are exported: everything declared here stays inside
   the FMU's library, so that two symbody FMUs loaded into one process (even
   with RTLD_GLOBAL) never bind to each other's model or runtime. */
#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_SOLVER
#endif

#define SB_MAX_STEPS 1000000L /* internal steps per communication step */

/* The work arrays of the solvers (sb_solver.c, sb_rk4.c), the instance's `solver`. */
typedef struct {
    int nx;
    double *k[7];         /* stages (dopri5: k1..k7; rk4, rosenbrock23: k1..k4) */
    double *y1, *ytmp, *err;
    double *J, *W, *T, *F0, *F1, *F2;
    int *wrow, *wcol;
    double *backup;       /* instance state at the start of the communication step */
    double t_reached;     /* time of the last accepted internal step */
    int underflow;        /* the adaptive step size fell below its limit */
    double *rk4_dir;      /* rk4: the direction of its spectral radius estimate, warm start of the next one */
    int rk4_dir_set;      /* whether rk4_dir holds one */
    double rk4_radius;    /* rk4: the last estimate of the spectral radius of the Jacobian */
    int rk4_left;         /* rk4: flagged steps rk4_radius still stands for (0: estimate again) */
} SbSolver;

/* Whether accepted internal steps are projected onto the constraints and the surfaces of the closed contacts
   (solver.projection). */
static inline int sb_projecting(const SbInstance *inst)
{
    if (inst->state.set[SB_SET_PROJECTION] == 0.0) return 0;
    if (inst->m->nc > 0) return 1;
    for (int i = 0; i < inst->m->nk; ++i)
        if (inst->state.closed[i] != 0.0) return 1;
    return 0;
}

SbStatus sb_solver_alloc(SbInstance *inst);
void sb_solver_free(SbInstance *inst);

/* Integrate the state of the instance from t0 to tend with solver.method, in the current contact modes
   (no event handling: sb_events_integrate). */
SbStatus sb_integrate(SbInstance *inst, double t0, double tend);

/* rk4 with the fixed internal step solver.step from t0 to tend (sb_rk4.c). */
SbStatus sb_rk4(SbInstance *inst, double t0, double tend);

/* Advance the instance from t0 (its current time) by H >= 0 (0: nothing happens). */
SbStatus sb_do_step(SbInstance *inst, double t0, double H);

#ifdef SB_VISIBILITY_PUSHED_SOLVER
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_SOLVER
#endif

#endif /* SB_SOLVER_H */
