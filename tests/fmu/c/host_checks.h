/*
 * host_checks.h -- the checks the FMI 2 and the FMI 3 test hosts (fmi2_host.c,
 * fmi3_host.c) have in common: written once against "the host's FMI", a few
 * functions each host defines before including this header, so that both
 * standards run the same checks of the same runtime.
 *
 * A host defines (status: 0 OK, 2 Discard, 3 Error, as in both standards):
 *   HostFmu h_instantiate(int me, HostLog *log)   Co-Simulation (0) or Model Exchange (1); exits on failure
 *   int h_enter_initialization(HostFmu c, double start, int stop_defined, double stop)
 *   int h_exit_initialization(HostFmu c), h_terminate(HostFmu c);  void h_free(HostFmu c)
 *   int h_set_debug_logging(HostFmu c, int on, size_t n, const char *const categories[])
 *   int h_get_real(HostFmu c, unsigned vr, double *v), h_set_real(c, vr, double v), h_set_int(c, vr, long long v)
 *   int h_do_step(HostFmu c, double t, double h)
 *   int h_enter_continuous(c), h_set_time(c, double t), h_set_states(c, const double *x, size_t n),
 *       h_get_states(c, double *x, size_t n), h_get_derivatives(c, double *dx, size_t n)
 *   int h_get_fmu_state(c, void **s), h_set_fmu_state(c, void *s), h_free_fmu_state(c, void **s),
 *       h_serialized_size(c, void *s, size_t *size), h_serialize(c, void *s, unsigned char *bytes, size_t size),
 *       h_deserialize(c, const unsigned char *bytes, size_t size, void **s)
 *   int h_directional(HostFmu c, unsigned unknown, unsigned known, double seed, double *d)
 * and HOST, its name; then host_main runs the checks of both standards around the host's own.
 */
#ifndef SB_HOST_CHECKS_H
#define SB_HOST_CHECKS_H

#include <pthread.h>

#include "host_common.h"

typedef void *HostFmu; /* fmi2Component, fmi3Instance */

static HostFmu h_instantiate(int me, HostLog *log);
static int h_enter_initialization(HostFmu c, double start, int stop_defined, double stop);
static int h_exit_initialization(HostFmu c);
static int h_set_debug_logging(HostFmu c, int on, size_t n, const char *const categories[]);
static int h_terminate(HostFmu c);
static void h_free(HostFmu c);
static int h_get_real(HostFmu c, unsigned vr, double *v);
static int h_set_real(HostFmu c, unsigned vr, double v);
static int h_set_int(HostFmu c, unsigned vr, long long v);
static int h_do_step(HostFmu c, double t, double h);
static int h_enter_continuous(HostFmu c);
static int h_set_time(HostFmu c, double t);
static int h_set_states(HostFmu c, const double *x, size_t n);
static int h_get_states(HostFmu c, double *x, size_t n);
static int h_get_derivatives(HostFmu c, double *dx, size_t n);
static int h_get_fmu_state(HostFmu c, void **s);
static int h_set_fmu_state(HostFmu c, void *s);
static int h_free_fmu_state(HostFmu c, void **s);
static int h_serialized_size(HostFmu c, void *s, size_t *size);
static int h_serialize(HostFmu c, void *s, unsigned char *bytes, size_t size);
static int h_deserialize(HostFmu c, const unsigned char *bytes, size_t size, void **s);
static int h_directional(HostFmu c, unsigned unknown, unsigned known, double seed, double *d);

enum { H_OK = 0, H_DISCARD = 2, H_ERROR = 3 };

/* ---------------------------------------------------------------- helpers */

static void initialize(HostFmu c, HostLog *log)
{
    EXPECT(log, H_OK, NULL, h_enter_initialization(c, 0.0, 0, 0.0));
    EXPECT(log, H_OK, NULL, h_exit_initialization(c));
}

static double get_real(HostFmu c, HostLog *log, unsigned vr)
{
    double v = NAN;
    EXPECT(log, H_OK, NULL, h_get_real(c, vr, &v));
    return v;
}

/* The state: time, positions, velocities, inputs, parameters. */
static void get_state(HostFmu c, HostLog *log, double *values)
{
    for (int i = 0; i < sb_model.nvars; ++i) {
        SbVarKind k = sb_model.variables[i].kind;
        values[i] = 0.0;
        if (k == SB_VAR_TIME || k == SB_VAR_Q || k == SB_VAR_DQ || k == SB_VAR_U || k == SB_VAR_P)
            EXPECT(log, H_OK, NULL, h_get_real(c, vr_at(i), &values[i]));
    }
}

static int same_values(const double *a, const double *b)
{
    for (int i = 0; i < sb_model.nvars; ++i)
        if (memcmp(&a[i], &b[i], sizeof(double)) != 0) return 0;
    return 1;
}

/* Log categories: unknown or NULL ones are errors; logAll, some, all (no category named). */
static void test_logging(HostFmu c, HostLog *log)
{
    const char *const nonsense[] = {"logNonsense"}, *const nulls[] = {NULL}, *const all[] = {"logAll"};
    const char *const some[] = {"logEvents", "logSolver", "logStatusError"};
    EXPECT(log, H_ERROR, "logNonsense", h_set_debug_logging(c, 1, 1, nonsense));
    EXPECT(log, H_ERROR, NULL, h_set_debug_logging(c, 1, 1, nulls));
    EXPECT(log, H_ERROR, "NULL", h_set_debug_logging(c, 1, 2, NULL));
    EXPECT(log, H_OK, NULL, h_set_debug_logging(c, 0, 1, all));
    EXPECT(log, H_OK, NULL, h_set_debug_logging(c, 1, 3, some));
    EXPECT(log, H_OK, NULL, h_set_debug_logging(c, 1, 0, NULL)); /* everything, calls included */
}

/* ------------------------------------------------------- Co-Simulation time */

/* A step past the stop time is an Error that changes nothing; the step to the stop time is fine. */
static void test_stop_time(void)
{
    HostLog log;
    HostFmu c = h_instantiate(0, &log);
    EXPECT(&log, H_ERROR, "stopTime", h_enter_initialization(c, 1.0, 1, 0.5));
    EXPECT(&log, H_ERROR, "stopTime", h_enter_initialization(c, 0.0, 1, NAN));
    EXPECT(&log, H_OK, NULL, h_enter_initialization(c, 0.0, 1, 0.05));
    EXPECT(&log, H_OK, NULL, h_exit_initialization(c));
    EXPECT(&log, H_OK, NULL, h_do_step(c, 0.0, 0.03));
    double before[512], after[512];
    get_state(c, &log, before);
    EXPECT(&log, H_ERROR, "stop time", h_do_step(c, 0.03, 0.03));
    get_state(c, &log, after);
    CHECK(same_values(before, after), "a step refused for the stop time changed the state");
    EXPECT(&log, H_OK, NULL, h_do_step(c, 0.03, 0.02)); /* to the stop time (rounded) */
    const double end = get_real(c, &log, vr_of("time"));
    EXPECT(&log, H_ERROR, "stop time", h_do_step(c, end, 1e-3));
    EXPECT(&log, H_OK, NULL, h_do_step(c, end, 0.0));
    h_free(c);
}

/* The communication point must be the FMU's time up to rounding, however large the time (a tolerance
   relative to |t| would accept seconds of mismatch at t = 1.7e9, a Unix time). */
static void test_communication_point(void)
{
    HostLog log;
    HostFmu c = h_instantiate(0, &log);
    const double t0 = 1.7e9, h = 0.01;
    EXPECT(&log, H_OK, NULL, h_enter_initialization(c, t0, 0, 0.0));
    EXPECT(&log, H_OK, NULL, h_exit_initialization(c));
    EXPECT(&log, H_ERROR, "currentCommunicationPoint", h_do_step(c, t0 + 1.5, h));
    EXPECT(&log, H_ERROR, "currentCommunicationPoint", h_do_step(c, t0 - 1.5, h));
    EXPECT(&log, H_ERROR, "currentCommunicationPoint", h_do_step(c, t0 + 1e-4, h));
    for (int k = 0; k < 5; ++k) /* a master that computes t0 + k h */
        EXPECT(&log, H_OK, NULL, h_do_step(c, t0 + k * h, h));
    double t = get_real(c, &log, vr_of("time"));
    EXPECT(&log, H_ERROR, "currentCommunicationPoint", h_do_step(c, t - h, h)); /* back in time */
    EXPECT(&log, H_OK, NULL, h_do_step(c, t, h));
    t = get_real(c, &log, vr_of("time"));
    EXPECT(&log, H_OK, NULL, h_do_step(c, nextafter(t, 0.0), h)); /* rounding is fine, on either side */
    t = get_real(c, &log, vr_of("time"));
    EXPECT(&log, H_OK, NULL, h_do_step(c, nextafter(t, INFINITY), h));
    h_free(c);
}

/* ------------------------------------------------------------ initialization */

/* Start velocities the host sets are kept by the assembly (the others follow from the constraints);
   start velocities that contradict the constraints are an error naming one. */
static void test_initial_velocities(const HostArgs *args)
{
    HostLog log;
    char name[256];
    snprintf(name, sizeof name, "d%s", args->keep_velocity);
    const unsigned vdq = vr_of(name);
    for (int me = 0; me < 2; ++me) {
        if (!(me ? sb_model.has_me : sb_model.has_cs)) continue;
        const double v = me ? -0.4 : 0.7;
        HostFmu c = h_instantiate(me, &log);
        EXPECT(&log, H_OK, NULL, h_enter_initialization(c, 0.0, 0, 0.0));
        EXPECT(&log, H_OK, NULL, h_set_real(c, vdq, v));
        EXPECT(&log, H_OK, NULL, h_exit_initialization(c));
        const double kept = get_real(c, &log, vdq);
        CHECK(kept == v, "'%s' = %g after initialization, set to %g", name, kept, v);
        /* the other velocities satisfy the velocity constraints D dq = beta */
        double q[128], dq[128], D[4096], beta[128];
        for (int i = 0; i < sb_model.nvars; ++i) {
            const SbVariable *var = &sb_model.variables[i];
            if (var->kind == SB_VAR_Q) q[var->index] = get_real(c, &log, vr_at(i));
            if (var->kind == SB_VAR_DQ) dq[var->index] = get_real(c, &log, vr_at(i));
        }
        double u[3 * 128] = {0.0}; /* the inputs, then their two derivatives (symbody_model.h) */
        for (int j = 0; j < sb_model.nu; ++j) u[j] = sb_model.u0[j];
        /* the blocks read the parameter-only subexpressions from the constants block (sb_constants) */
        double *constants = calloc((size_t)sb_model.nconst + 1, sizeof(double));
        CHECK(constants != NULL, "out of memory for %d constants", sb_model.nconst);
        SbPoint pt = {0.0, q, dq, u, sb_model.p0, NULL, NULL, NULL, 0.0, NULL};
        sb_constants(&pt, constants);
        pt.c = constants;
        sb_D_beta(&pt, D, beta);
        free(constants);
        for (int r = 0; r < sb_model.nc; ++r) {
            double res = -beta[r];
            for (int j = 0; j < sb_model.nq; ++j) res += D[r * sb_model.nq + j] * dq[j];
            CHECK(fabs(res) < 1e-9, "velocity constraint '%s' violated by %g", sb_model.constraint_names[r], res);
        }
        h_free(c);
    }
    /* every velocity set: more than the degrees of freedom, contradicting the constraints */
    for (int me = 0; me < 2; ++me) {
        if (!(me ? sb_model.has_me : sb_model.has_cs)) continue;
        HostFmu c = h_instantiate(me, &log);
        EXPECT(&log, H_OK, NULL, h_enter_initialization(c, 0.0, 0, 0.0));
        for (int i = 0; i < sb_model.nvars; ++i)
            if (sb_model.variables[i].kind == SB_VAR_DQ) EXPECT(&log, H_OK, NULL, h_set_real(c, vr_at(i), 1.0 + 0.1 * i));
        EXPECT(&log, H_ERROR, "contradict constraint", h_exit_initialization(c));
        CHECK(strstr(log.text, name) != NULL, "the conflict does not name '%s':\n%s", name, log.text);
        h_free(c);
    }
}

/* Where the model is not differentiable (a Jacobian entry is infinite), directional derivatives are
   discarded with a message, not returned as inf. */
static void test_nondifferentiable(const HostArgs *args)
{
    HostLog log;
    const unsigned q = vr_of(args->nondiff), ddq = (unsigned)first_of_kind(SB_VAR_DDQ);
    double d = 0.0;
    for (int me = 0; me < 2; ++me) {
        HostFmu c = h_instantiate(me, &log);
        EXPECT(&log, H_OK, NULL, h_enter_initialization(c, 0.0, 0, 0.0));
        EXPECT(&log, H_OK, NULL, h_set_real(c, q, args->nondiff_value));
        EXPECT(&log, H_OK, NULL, h_exit_initialization(c));
        CHECK(isfinite(get_real(c, &log, ddq)), "the acceleration is finite there");
        EXPECT(&log, H_DISCARD, "not finite", h_directional(c, ddq, q, 1.0, &d));
        h_free(c);
    }
}

/* ------------------------------------------------------------ lifecycles */

/* instantiate, initialize, step, snapshot and free many times (LeakSanitizer / valgrind count the leaks) */
static void test_cycles(int n)
{
    HostLog log;
    const size_t nx = 2 * (size_t)sb_model.nq + (size_t)sb_model.ns;
    double dx[256];
    for (int k = 0; k < n; ++k) {
        const int me = k % 2;
        HostFmu c = h_instantiate(me, &log);
        initialize(c, &log);
        void *state = NULL;
        EXPECT(&log, H_OK, NULL, h_get_fmu_state(c, &state));
        if (!me) {
            for (int i = 0; i < 3; ++i) EXPECT(&log, H_OK, NULL, h_do_step(c, 0.01 * i, 0.01));
        } else {
            EXPECT(&log, H_OK, NULL, h_enter_continuous(c));
            EXPECT(&log, H_OK, NULL, h_get_derivatives(c, dx, nx));
        }
        if (k % 4 < 2) EXPECT(&log, H_OK, NULL, h_terminate(c)); /* either interface, terminated or not */
        EXPECT(&log, H_OK, NULL, h_free_fmu_state(c, &state));
        h_free(c);
    }
}

/* ------------------------------------------------------------ long run */

/* Co-Simulation with one solver for `seconds`, or Model Exchange with the host's RK4; returns the final Real
   values in `out` (nvars entries, 0 where not Real). */
static void simulate(int me, int method, double seconds, double input, double *out)
{
    HostLog log;
    HostFmu c = h_instantiate(me, &log);
    const int u = first_of_kind(SB_VAR_U);
    if (!me) EXPECT(&log, H_OK, NULL, h_set_int(c, vr_of("solver.method"), method));
    initialize(c, &log);
    const double H = 0.01;
    const int steps = (int)(seconds / H + 0.5);
    const size_t nx = 2 * (size_t)sb_model.nq + (size_t)sb_model.ns;
    double x[256], k1[256], k2[256], k3[256], k4[256], xt[256];
    if (me) {
        EXPECT(&log, H_OK, NULL, h_enter_continuous(c));
        EXPECT(&log, H_OK, NULL, h_get_states(c, x, nx));
    }
    for (int k = 0; k < steps; ++k) {
        const double t = k * H;
        if (u >= 0) EXPECT(&log, H_OK, NULL, h_set_real(c, (unsigned)u, input * sin(3.0 * t)));
        if (!me) {
            EXPECT(&log, H_OK, NULL, h_do_step(c, t, H));
        } else {
            double *ks[4] = {k1, k2, k3, k4};
            const double a[4] = {0.0, 0.5, 0.5, 1.0};
            for (int s = 0; s < 4; ++s) {
                for (size_t i = 0; i < nx; ++i) xt[i] = x[i] + (s ? a[s] * H * ks[s - 1][i] : 0.0);
                EXPECT(&log, H_OK, NULL, h_set_time(c, t + a[s] * H));
                EXPECT(&log, H_OK, NULL, h_set_states(c, xt, nx));
                EXPECT(&log, H_OK, NULL, h_get_derivatives(c, ks[s], nx));
            }
            for (size_t i = 0; i < nx; ++i) x[i] += H / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            EXPECT(&log, H_OK, NULL, h_set_time(c, t + H));
            EXPECT(&log, H_OK, NULL, h_set_states(c, x, nx));
        }
        if (k % 25 == 0) { /* snapshots and their serialization, derivatives */
            void *s = NULL, *s2 = NULL;
            size_t size = 0;
            EXPECT(&log, H_OK, NULL, h_get_fmu_state(c, &s));
            EXPECT(&log, H_OK, NULL, h_serialized_size(c, s, &size));
            unsigned char *bytes = malloc(size);
            EXPECT(&log, H_OK, NULL, h_serialize(c, s, bytes, size));
            EXPECT(&log, H_OK, NULL, h_deserialize(c, bytes, size, &s2));
            EXPECT(&log, H_OK, NULL, h_set_fmu_state(c, s2));
            EXPECT(&log, H_OK, NULL, h_free_fmu_state(c, &s));
            EXPECT(&log, H_OK, NULL, h_free_fmu_state(c, &s2));
            free(bytes);
            double d;
            const unsigned ddq = (unsigned)first_of_kind(SB_VAR_DDQ), q = (unsigned)first_of_kind(SB_VAR_Q);
            EXPECT(&log, H_OK, NULL, h_directional(c, ddq, q, 1.0, &d));
        }
    }
    for (int v = 0; v < sb_model.nvars; ++v) {
        out[v] = 0.0;
        if (sb_model.variables[v].type == SB_TYPE_REAL) EXPECT(&log, H_OK, NULL, h_get_real(c, vr_at(v), &out[v]));
    }
    EXPECT(&log, H_OK, NULL, h_terminate(c));
    h_free(c);
}

static int run_long(double seconds)
{
    double out[512];
    for (int method = 1; method <= 3; ++method) simulate(0, method, seconds, 0.5, out);
    simulate(1, 0, seconds, 0.5, out);
    for (int v = 0; v < sb_model.nvars; ++v) CHECK(isfinite(out[v]), "'%s' = %g", sb_model.variables[v].name, out[v]);
    test_cycles(50);
    return finish(HOST, "long");
}

/* ------------------------------------------------------------- threads */

#define N_THREADS 4

typedef struct {
    int me, method;
    double input, seconds;
    double out[512];
} Job;

static void *run_job(void *arg)
{
    Job *j = arg;
    simulate(j->me, j->method, j->seconds, j->input, j->out);
    return NULL;
}

/* One instance per thread, all at once: the results equal those of one instance alone, bit for bit. */
static int run_threads(double seconds)
{
    Job jobs[2 * N_THREADS], alone[2 * N_THREADS];
    for (int k = 0; k < 2 * N_THREADS; ++k) {
        Job j = {k % 2, 1 + k % 3, 0.2 * (k / 2), seconds, {0}};
        jobs[k] = alone[k] = j;
    }
    for (int k = 0; k < 2 * N_THREADS; ++k) run_job(&alone[k]);
    for (int round = 0; round < 2; ++round) {
        pthread_t th[2 * N_THREADS];
        for (int k = 0; k < 2 * N_THREADS; ++k) CHECK(pthread_create(&th[k], NULL, run_job, &jobs[k]) == 0, "thread");
        for (int k = 0; k < 2 * N_THREADS; ++k) pthread_join(th[k], NULL);
        for (int k = 0; k < 2 * N_THREADS; ++k)
            CHECK(memcmp(jobs[k].out, alone[k].out, sizeof jobs[k].out) == 0, "job %d differs when run in a thread", k);
    }
    return finish(HOST, "threads");
}

/* ------------------------------------------------------------------------ */

/* The host's command line: the long and threads modes, or the abuse checks: the host's own (`abuse`: every
   function of its standard, the right way and the wrong way), then those both standards share. */
static int host_main(int argc, char **argv, void (*abuse)(const HostArgs *args))
{
    HostArgs args = parse_args(argc, argv);
    if (strcmp(args.mode, "long") == 0) return run_long(args.seconds > 0 ? args.seconds : 10.0);
    if (strcmp(args.mode, "threads") == 0) return run_threads(args.seconds > 0 ? args.seconds : 2.0);
    abuse(&args);
    if (sb_model.has_cs) {
        test_stop_time();
        test_communication_point();
    }
    if (args.keep_velocity) test_initial_velocities(&args);
    if (args.nondiff) test_nondifferentiable(&args);
    test_cycles(1000);
    return finish(HOST, "abuse");
}

#endif /* SB_HOST_CHECKS_H */
