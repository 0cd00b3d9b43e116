/*
 * sb_ltdl.h -- factorization of a tree-structured mass matrix that keeps the tree's sparsity.
 *
 * In a kinematic tree, M(i, j) = 0 unless coordinate j is coordinate i itself or one of its
 * ancestors (or descendants): the coordinates that move body i's subtree are the only ones
 * whose inertia couples with i.  Numbered so that every coordinate's parent lambda(i) comes
 * before it (lambda(i) < i, -1 for a root), M = L^T D L with L unit lower triangular and
 * nonzero only where M is (no fill-in): Featherstone's LTDL factorization (R. Featherstone,
 * Rigid Body Dynamics Algorithms, Springer, 2008, sec. 6.5).  It costs the sum over
 * coordinates of their depth squared instead of n^3 / 6, and a solve the sum of depths
 * instead of n^2.
 *
 * model.c defines sb_mass_parent (symbody_model.h): the parent array, or NULL when M has no such structure
 * (closed loops, constraints): sb_mass_factor / sb_mass_solve then use the dense L D L^T.
 */
#ifndef SB_LTDL_H
#define SB_LTDL_H

#include "sb_runtime.h"

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SB_VISIBILITY_PUSHED_LTDL
#endif

/* M = L^T D L in place (row-major n x n; the strict lower triangle along the tree holds L, the
   diagonal 1/D; other entries are left alone).  Returns 0, or k + 1 when the pivot of
   coordinate k is not positive (M is not positive definite). */
int sb_ltdl(int n, const int *parent, double *A);

/* Solve L^T D L x = b in place (b becomes x) with a factorization of sb_ltdl. */
void sb_ltdl_solve(int n, const int *parent, const double *F, double *b);

/* The factorization of the model's mass matrix without constraints: sb_ltdl along
   sb_mass_parent, else the dense sb_ldlt (also when compiled with -DSB_MASS_DENSE).
   Same return value as sb_ldlt. */
int sb_mass_factor(int n, double *A);

/* Solve with a factorization of sb_mass_factor (b becomes x). */
void sb_mass_solve(int n, const double *F, double *b);

/* The accelerations of an unconstrained model without factoring M: model.c's sb_accelerations_direct
   (the articulated-body algorithm, R. Featherstone, Rigid Body Dynamics Algorithms, Springer, 2008,
   ch. 7, or the symbolic elimination of a small M) into ddq.  Returns 1 when the model has them (SbModel.has_direct), has no unilateral contacts
   (their forces need the factorization of M), every pivot is positive (M positive definite) and every
   acceleration is finite; else 0 and ddq untouched: the caller then factors M, which also names any
   problem.  It leaves no factorization of M for sb_solve_factored: callers that solve with it after
   the accelerations ask for none (ddq NULL). */
int sb_direct_accelerations(SbInstance *inst, const SbPoint *pt, double *ddq);

#ifdef SB_VISIBILITY_PUSHED_LTDL
#pragma GCC visibility pop
#undef SB_VISIBILITY_PUSHED_LTDL
#endif

#endif /* SB_LTDL_H */
