/*
 * symbody_blocks_ddq.c -- accelerations from symbody's generated [M | delta]
 * alone, solved with the harness's own LDL^T (bench_solve.h).
 *
 * The twin of pydy_ddq.c: both call their generated code and then the same
 * solve, so the two loops differ only by the generated evaluation of the
 * mass matrix and the generalized forces.  (symbody_ddq.c times the full
 * FMU path, sb_accelerations, instead.)
 */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_loop.h"
#include "bench_solve.h"
#include "symbody_model.h"

static int nq = 0;
static double *P = NULL, *U = NULL, *Mw = NULL, *C = NULL; /* C: the constants block of model.c */

int bench_init(int n, const double *p, const double *u)
{
    bench_free();
    if (n + 1 != sb_model.nq || sb_model.nc != 0) return 1;
    nq = sb_model.nq;
    P = malloc((size_t)sb_model.np * sizeof(double));
    U = malloc((size_t)sb_model.nu * sizeof(double));
    Mw = malloc((size_t)nq * nq * sizeof(double));
    C = malloc((size_t)(sb_model.nconst > 0 ? sb_model.nconst : 1) * sizeof(double));
    if (!P || !U || !Mw || !C) return 2;
    memcpy(P, p, (size_t)sb_model.np * sizeof(double));
    memcpy(U, u, (size_t)sb_model.nu * sizeof(double));
    SbPoint pt = {.t = 0.0, .p = P};
    sb_constants(&pt, C); /* once per parameter change, as the FMU runtime does */
    return 0;
}

static int ddq_at(const double *x, double *ddq)
{
    SbPoint pt = {.t = 0.0, .q = x, .dq = x + nq, .u = U, .p = P, .ddq = NULL, .lam = NULL, .c = C};
    sb_M_delta(&pt, Mw, ddq);
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
    free(U);
    free(Mw);
    free(C);
    P = U = Mw = C = NULL;
}
