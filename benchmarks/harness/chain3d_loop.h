/*
 * chain3d_loop.h -- the interface of the 3-D chain harnesses
 * (benchmarks/bench_chain3d.py loads each one with ctypes).
 *
 * The 3-D chain of benchmarks/bench_recursive.py: n rigid bodies, body k
 * hanging from the end of body k-1 (from the ground for k = 0) by a spherical
 * joint parametrized by intrinsic Z-Y-X Euler angles (z, y, x), a centre of
 * mass off every axis, a full inertia tensor at the centre of mass, gravity
 * along -z.  Both harnesses use the same coordinates: q = [z0, y0, x0, z1, ...],
 * dq their time derivatives, so their accelerations compare entry by entry.
 *
 * Parameters p (1 + 11 n entries): g, then for every body k
 *   m, cx, cy, cz, Ixx, Iyy, Izz, Ixy, Iyz, Ixz, l
 * (centre of mass and inertia tensor entries in the body's frame; l is the
 * distance along the body's x axis to the next joint, unused for the last).
 */
#ifndef CHAIN3D_LOOP_H
#define CHAIN3D_LOOP_H

#ifdef __cplusplus
extern "C" {
#endif

/* Set up the chain of n bodies with parameters p (layout above).  Returns 0 on success. */
int chain_init(int n, const double *p);

/* One evaluation: ddq (3 n entries) at x = [q; dq] (6 n entries).  Returns 0 on success. */
int chain_ddq(const double *x, double *ddq);

/* Tight loop: `iterations` evaluations cycling through the `nstates` states
   stored one after the other in X; returns the wall time per evaluation in
   seconds (monotonic clock) and a checksum of the results in *checksum.
   Returns a negative value on failure. */
double chain_loop(int nstates, const double *X, long iterations, double *checksum);

/* Release what chain_init allocated. */
void chain_free(void);

#ifdef __cplusplus
}
#endif

#endif /* CHAIN3D_LOOP_H */
