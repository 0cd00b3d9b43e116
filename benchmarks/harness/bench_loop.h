/*
 * bench_loop.h -- the interface every evaluation-speed harness exports
 * (benchmarks/bench_eval_speed.py loads each one with ctypes).
 *
 * A harness wraps one way of computing the accelerations ddq of the n-link
 * pendulum on a cart: symbody's generated model.c with the FMU runtime
 * (symbody_ddq.c), symbody's or PyDy's generated code with one shared solve
 * (symbody_blocks_ddq.c, pydy_ddq.c), or Pinocchio's ABA (pinocchio_aba.cpp).
 * States x = [q; dq] are given in the coordinates of that harness (absolute
 * link angles for symbody and PyDy, relative joint angles for Pinocchio).
 */
#ifndef BENCH_LOOP_H
#define BENCH_LOOP_H

#ifdef __cplusplus
extern "C" {
#endif

/* Set up a model with n links, parameters p = [g, m0..mn, l0..l(n-1)] and
   inputs u = [F, T1..Tn] (held for every evaluation).  Returns 0 on success. */
int bench_init(int n, const double *p, const double *u);

/* One evaluation: ddq (n + 1 entries) at x = [q; dq] (2 (n + 1) entries).
   Returns 0 on success. */
int bench_ddq(const double *x, double *ddq);

/* Tight loop: `iterations` evaluations cycling through the `nstates` states
   stored one after the other in X; returns the wall time per evaluation in
   seconds (monotonic clock) and a checksum of the results in *checksum (so
   the compiler cannot drop the work).  Returns a negative value on failure. */
double bench_loop(int nstates, const double *X, long iterations, double *checksum);

/* symbody harness only: the state derivative xdot = [dq; ddq] at x with the
   inputs u and parameters p of this call (what a Model Exchange FMU computes
   after setting u and p), for calls from Python.  Returns 0 on success. */
int bench_rhs(const double *x, const double *u, const double *p, double *xdot);

/* Release what bench_init allocated. */
void bench_free(void);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_LOOP_H */
