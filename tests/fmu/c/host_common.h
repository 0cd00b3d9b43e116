/*
 * host_common.h -- shared parts of the FMI 2 and FMI 3 test hosts
 * (fmi2_host.c, fmi3_host.c): a per-instance log, checks, variable lookup in
 * the linked model's table and the command line.
 *
 * The hosts are linked directly with a generated model.c and the runtime of
 * fmu_templates/ (no dlopen), so that the whole FMU and the host run under
 * AddressSanitizer, UndefinedBehaviorSanitizer, LeakSanitizer or valgrind.
 * tests/fmu/test_robustness_c.py builds and runs them.
 */
#ifndef SB_HOST_COMMON_H
#define SB_HOST_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbody_model.h"

/* ---------------------------------------------------------------- logging */

/* Messages an instance sent to the host since the last log_clear (one log per
   instance, passed as the instance environment: safe with one instance per thread). */
typedef struct {
    int count;       /* messages with a status other than OK */
    int worst;       /* highest status of those */
    char text[8192]; /* those messages, one per line (the latest ones when too many) */
} HostLog;

static void log_clear(HostLog *log)
{
    log->count = 0;
    log->worst = 0;
    log->text[0] = '\0';
}

static void log_add(HostLog *log, int status, const char *category, const char *message)
{
    if (!log || status == 0) return; /* OK messages: calls, events, solver steps */
    log->count += 1;
    if (status > log->worst) log->worst = status;
    size_t used = strlen(log->text), need = strlen(category) + strlen(message) + 4;
    if (used + need >= sizeof log->text) { /* keep the latest messages */
        log->text[0] = '\0';
        used = 0;
    }
    snprintf(log->text + used, sizeof log->text - used, "%s: %s\n", category ? category : "(null)",
             message ? message : "(null)");
}

/* ----------------------------------------------------------------- checks */

static int n_checks, n_failed; /* counted atomically: the threads mode checks from several threads */

#define CHECK(cond, ...)                                                                                             \
    do {                                                                                                             \
        __atomic_add_fetch(&n_checks, 1, __ATOMIC_RELAXED);                                                          \
        if (!(cond)) {                                                                                               \
            __atomic_add_fetch(&n_failed, 1, __ATOMIC_RELAXED);                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                                \
            fprintf(stderr, __VA_ARGS__);                                                                            \
            fputc('\n', stderr);                                                                                     \
        }                                                                                                            \
    } while (0)

/* `call` returns `want`; a status other than OK comes with a log message
   containing `expected` (any message when it is NULL). */
#define EXPECT(lg, want, expected, call)                                                                             \
    do {                                                                                                             \
        log_clear(lg);                                                                                               \
        int got_ = (int)(call);                                                                                      \
        CHECK(got_ == (int)(want), "%s returned %d, expected %d; log:\n%s", #call, got_, (int)(want), (lg)->text);   \
        if ((int)(want) != 0) {                                                                                      \
            const char *expected_ = (expected);                                                                      \
            CHECK((lg)->count > 0, "%s returned %d without a log message", #call, got_);                             \
            if (expected_)                                                                                           \
                CHECK(strstr((lg)->text, expected_) != NULL, "%s: no '%s' in the log:\n%s", #call, expected_,        \
                      (lg)->text);                                                                                   \
        }                                                                                                            \
    } while (0)

static int finish(const char *host, const char *mode)
{
    printf("%s %s: %d checks, %d failed\n", host, mode, n_checks, n_failed);
    return n_failed == 0 ? 0 : 1;
}

/* ------------------------------------------------------------- variables */

/* The value reference of sb_model.variables[0]: 0 in FMI 2, 1 in FMI 3 (whose value references are the
   1-based positions in ModelVariables, symbody/fmu/description.py); the FMI 3 host defines it as 1. */
#ifndef HOST_FIRST_VR
#define HOST_FIRST_VR 0u
#endif

/* Value reference of variable i of sb_model.variables. */
static unsigned vr_at(int i) { return HOST_FIRST_VR + (unsigned)i; }

/* The variable with value reference vr (a valid one). */
static const SbVariable *var_of(unsigned vr) { return &sb_model.variables[vr - HOST_FIRST_VR]; }

/* Value reference of a variable of the linked model (exits when missing: a test setup error). */
static unsigned vr_of(const char *name)
{
    for (int i = 0; i < sb_model.nvars; ++i)
        if (strcmp(sb_model.variables[i].name, name) == 0) return vr_at(i);
    fprintf(stderr, "the model has no variable '%s'\n", name);
    exit(2);
}

/* Value reference of the first variable of a kind, or -1. */
static int first_of_kind(SbVarKind kind)
{
    for (int i = 0; i < sb_model.nvars; ++i)
        if (sb_model.variables[i].kind == kind) return (int)vr_at(i);
    return -1;
}

/* ------------------------------------------------------- serialized states */

/* The layout of sb_snapshot.c: a 32-byte header (magic, version, model identity at byte 8, nS, mode,
   flags), nS doubles, then the FNV-1a checksum of everything before it. */
unsigned long long sb_fnv1a(const void *data, size_t size, unsigned long long hash);

/* Byte offset of the value of variable `vr` in a serialized state (time, q, dq, states, u with its two derivatives, p, settings, h_next). */
static size_t serialized_offset(unsigned vr)
{
    const SbVariable *v = var_of(vr);
    const size_t nx = 2 * (size_t)sb_model.nq + (size_t)sb_model.ns, nu = 3 * (size_t)sb_model.nu;
    const size_t np = (size_t)sb_model.np;
    size_t slot = 0;
    switch (v->kind) {
    case SB_VAR_Q: slot = 1 + (size_t)v->index; break;
    case SB_VAR_DQ: slot = 1 + (size_t)sb_model.nq + (size_t)v->index; break;
    case SB_VAR_X: slot = 1 + 2 * (size_t)sb_model.nq + (size_t)v->index; break;
    case SB_VAR_U: slot = 1 + nx + (size_t)v->index; break;
    case SB_VAR_P: slot = 1 + nx + nu + (size_t)v->index; break;
    case SB_VAR_SETTING: slot = 1 + nx + nu + np + (size_t)v->index; break;
    default: break;
    }
    return 32 + slot * sizeof(double);
}

/* Write a valid checksum after modifying serialized bytes (a forged state). */
static void reseal(unsigned char *bytes, size_t size)
{
    unsigned long long sum = sb_fnv1a(bytes, size - 8, 0xcbf29ce484222325ULL);
    memcpy(bytes + size - 8, &sum, 8);
}

/* ----------------------------------------------------------- command line */

/* A parameter value that must make a step fail with Discard (and TEXT in the message). */
typedef struct {
    const char *name;
    double value;
    const char *text;
    int cs_only; /* a fault of the Co-Simulation solvers (projection): Model Exchange evaluates fine */
    int rk4;     /* a fault of fixed-step rk4: the step is one internal step of solver.method = rk4 */
} Fault;

typedef struct {
    const char *mode;   /* abuse, long or threads */
    const char *mass;   /* a parameter with min = 0 (negative values are rejected), or NULL */
    const char *length; /* another such parameter, or NULL */
    double seconds;     /* simulated time of the long and threads modes (0: their default) */
    int n_faults;
    Fault faults[8];
    const char *keep_velocity; /* a coordinate whose start velocity the host sets: kept by the assembly */
    const char *nondiff;       /* a coordinate at whose value `nondiff_value` the model is not differentiable */
    double nondiff_value;
} HostArgs;

/* host MODE [seconds=T] [mass=NAME] [length=NAME] [discard=NAME:VALUE:TEXT ...] [cs-discard=NAME:VALUE:TEXT ...]
        [rk4-discard=NAME:VALUE:TEXT ...] [keep-velocity=COORDINATE] [nondiff=COORDINATE:VALUE] */
static HostArgs parse_args(int argc, char **argv)
{
    static char storage[4096]; /* the names and texts point here */
    HostArgs a;
    memset(&a, 0, sizeof a);
    a.mode = argc > 1 ? argv[1] : "abuse";
    size_t used = 0;
    for (int i = 2; i < argc; ++i) {
        const char *arg = argv[i];
        size_t len = strlen(arg) + 1;
        if (used + len > sizeof storage) break;
        char *copy = storage + used;
        memcpy(copy, arg, len);
        used += len;
        if (strncmp(copy, "mass=", 5) == 0) {
            a.mass = copy + 5;
        } else if (strncmp(copy, "length=", 7) == 0) {
            a.length = copy + 7;
        } else if (strncmp(copy, "seconds=", 8) == 0) {
            a.seconds = strtod(copy + 8, NULL);
        } else if (strncmp(copy, "keep-velocity=", 14) == 0) {
            a.keep_velocity = copy + 14;
        } else if (strncmp(copy, "nondiff=", 8) == 0 && strchr(copy, ':')) {
            a.nondiff = copy + 8;
            *strchr(copy, ':') = '\0';
            a.nondiff_value = strtod(copy + strlen(copy) + 1, NULL);
        } else if ((strncmp(copy, "discard=", 8) == 0 || strncmp(copy, "cs-discard=", 11) == 0 ||
                    strncmp(copy, "rk4-discard=", 12) == 0) &&
                   a.n_faults < 8) {
            const int cs_only = copy[0] == 'c' || copy[0] == 'r', rk4 = copy[0] == 'r';
            char *name = strchr(copy, '=') + 1, *value = strchr(name, ':'), *text = value ? strchr(value + 1, ':') : NULL;
            if (!value || !text) {
                fprintf(stderr, "bad argument '%s': expected discard=NAME:VALUE:TEXT\n", arg);
                exit(2);
            }
            *value++ = '\0';
            *text++ = '\0';
            Fault *f = &a.faults[a.n_faults++];
            f->name = name;
            f->value = strtod(value, NULL);
            f->text = text;
            f->cs_only = cs_only;
            f->rk4 = rk4;
        } else {
            fprintf(stderr, "unknown argument '%s'\n", arg);
            exit(2);
        }
    }
    return a;
}

#endif /* SB_HOST_COMMON_H */
