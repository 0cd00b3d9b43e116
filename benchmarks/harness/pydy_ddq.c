/*
 * pydy_ddq.c -- accelerations from PyDy's generated C and the harness's LDL^T solve.
 *
 * PyDy's Cython generator writes `evaluate(q, u, r, p, M, F, qdot)` (SymPy
 * cse of KanesMethod's mass matrix and forcing vector) and wraps it for
 * Python, where numpy solves M udot = F.  Here the same generated function
 * is called from C and M udot = F is solved with the LDL^T of bench_solve.h,
 * exactly as symbody_blocks_ddq.c does with symbody's generated [M | delta],
 * so that the two loops differ only by the generated code.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_loop.h"
#include "bench_solve.h"

/* PyDy's generated function (array parameters of fixed sizes decay to pointers). */
void evaluate(double *q, double *u, double *r, double *p, double *M, double *F, double *qdot);

static int nq = 0, np_ = 0;
static double *P = NULL, *R = NULL, *Mw = NULL, *qdot = NULL;

int bench_init(int n, const double *p, const double *u)
{
    bench_free();
    nq = n + 1;
    np_ = 1 + (n + 1) + n;
    P = malloc((size_t)np_ * sizeof(double));
    R = malloc((size_t)nq * sizeof(double));
    Mw = malloc((size_t)nq * nq * sizeof(double));
    qdot = malloc((size_t)nq * sizeof(double));
    if (!P || !R || !Mw || !qdot) return 2;
    memcpy(P, p, (size_t)np_ * sizeof(double));
    memcpy(R, u, (size_t)nq * sizeof(double));
    return 0;
}

/* evaluate() declares non-const inputs but only reads them. */
static int ddq_at(const double *x, double *ddq)
{
    evaluate((double *)x, (double *)x + nq, R, P, Mw, ddq, qdot);
    return bench_ldlt_solve(nq, Mw, ddq);
}

int bench_ddq(const double *x, double *ddq)
{
    if (!P) return 1;
    return ddq_at(x, ddq);
}

double bench_loop(int nstates, const double *X, long iterations, double *checksum)
{
    if (!P || nstates < 1) return -1.0;
    double *ddq = malloc((size_t)nq * sizeof(double));
    if (!ddq) return -1.0;
    double sum = 0.0;
    int bad = 0, k = 0;
    const double t0 = bench_now();
    for (long i = 0; i < iterations; ++i) {
        bad |= ddq_at(X + (size_t)k * 2 * nq, ddq);
        sum += ddq[nq - 1];
        if (++k == nstates) k = 0;
    }
    const double elapsed = bench_now() - t0;
    free(ddq);
    *checksum = sum;
    return bad ? -1.0 : elapsed / (double)iterations;
}

void bench_free(void)
{
    free(P);
    free(R);
    free(Mw);
    free(qdot);
    P = R = Mw = qdot = NULL;
}
