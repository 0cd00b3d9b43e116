/*
 * sbc_runtime.c -- one instance of a symbody controller FMU: lifecycle and
 * logging, the states each FMI call is allowed in, Get and Set with their
 * checks, the communication step, FMU states (see sbc_runtime.h).
 *
 * Serialized FMU state (native byte order):
 *     uint32 magic "SBCS", uint32 format version, uint64 identity (hash of the token and name),
 *     uint32 nS, uint32 mode, uint32 history capacity, uint32 0,
 *     nS doubles (the state array), uint64 FNV-1a checksum of all the bytes above.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbc_runtime.h"

#define SBC_SNAPSHOT_MAGIC 0x53424353u /* "SBCS" */
#define SBC_SERIAL_VERSION 1u
#define SBC_HEADER_BYTES 32u
#define SBC_CHECKSUM_BYTES 8u
#define SBC_FIXED 4 /* time, start, next, step */

static const char *const category_names[7] = {"logEvents",      "logStatusWarning", "logStatusDiscard", "logStatusError",
                                              "logStatusFatal", "logSolver",        "logCalls"};

/* ------------------------------------------------------------------------ */
/* logging                                                                  */
/* ------------------------------------------------------------------------ */

static void vlog(SbcInstance *inst, SbcStatus status, unsigned category, const char *fmt, va_list ap)
{
    if (!inst || !inst->logger || !(inst->log_mask & category)) return;
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    const char *name = "logEvents";
    for (int i = 0; i < 7; ++i)
        if (category == (1u << i)) name = category_names[i];
    inst->logger(inst, status, name, buf);
}

void sbc_log(SbcInstance *inst, SbcStatus status, unsigned category, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(inst, status, category, fmt, ap);
    va_end(ap);
}

SbcStatus sbc_fail(SbcInstance *inst, const char *function, const char *fmt, ...)
{
    char buf[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sbc_log(inst, SBC_ERROR, SBC_LOG_ERROR, "%s: %s", function, buf);
    return SBC_ERROR;
}

SbcStatus sbc_set_debug_logging(SbcInstance *inst, int on, size_t n, const char *const categories[])
{
    if (n == 0) {
        inst->log_mask = on ? SBC_LOG_ALL : 0u;
        return SBC_OK;
    }
    if (!categories) return sbc_fail(inst, "SetDebugLogging", "categories is NULL but nCategories = %lu", (unsigned long)n);
    unsigned mask = inst->log_mask;
    for (size_t k = 0; k < n; ++k) {
        int found = -1;
        for (int i = 0; i < 7; ++i)
            if (categories[k] && strcmp(categories[k], category_names[i]) == 0) found = i;
        if (found < 0)
            return sbc_fail(inst, "SetDebugLogging", "unknown log category '%s'", categories[k] ? categories[k] : "(null)");
        mask = on ? (mask | 1u << found) : (mask & ~(1u << found));
    }
    inst->log_mask = mask;
    return SBC_OK;
}

/* ------------------------------------------------------------------------ */
/* the states each call is allowed in                                       */
/* ------------------------------------------------------------------------ */

#define IN(mode) (1u << (mode))

static const unsigned allowed_states[] = {
    [SBC_CALL_ANY] = IN(SBC_INSTANTIATED) | IN(SBC_INITIALIZATION) | IN(SBC_STEPPING) | IN(SBC_TERMINATED),
    [SBC_CALL_SETUP] = IN(SBC_INSTANTIATED),
    [SBC_CALL_EXIT_INIT] = IN(SBC_INITIALIZATION),
    [SBC_CALL_GET] = IN(SBC_INSTANTIATED) | IN(SBC_INITIALIZATION) | IN(SBC_STEPPING) | IN(SBC_TERMINATED),
    [SBC_CALL_SET] = IN(SBC_INSTANTIATED) | IN(SBC_INITIALIZATION) | IN(SBC_STEPPING),
    [SBC_CALL_STEP] = IN(SBC_STEPPING),
    [SBC_CALL_TERMINATE] = IN(SBC_STEPPING),
    [SBC_CALL_STATUS] = IN(SBC_STEPPING) | IN(SBC_TERMINATED),
    [SBC_CALL_UNSUPPORTED] = 0u,
};

static const char *const mode_names[] = {"instantiated", "initialization mode", "step mode", "terminated"};

int sbc_allowed(SbcInstance *inst, const char *function, SbcCall call)
{
    if (inst->log_mask & SBC_LOG_CALLS) sbc_log(inst, SBC_OK, SBC_LOG_CALLS, "%s", function);
    if (allowed_states[call] & IN(inst->mode)) return 1;
    if (call == SBC_CALL_UNSUPPORTED)
        sbc_fail(inst, function, "not provided: this FMU is a Co-Simulation controller");
    else
        sbc_fail(inst, function, "not allowed in %s", mode_names[inst->mode]);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* lifecycle                                                                */
/* ------------------------------------------------------------------------ */

static int state_size(const SbcController *c, int ns, int cap)
{
    return SBC_FIXED + c->nu + c->nr + c->nc + ns + c->ny + 1 + 2 * cap;
}

void sbc_bind_state(SbcInstance *inst)
{
    const SbcController *c = inst->c;
    double *S = inst->S;
    inst->time = S;
    inst->start = S + 1;
    inst->next = S + 2;
    inst->step = S + 3;
    inst->in = S + SBC_FIXED;
    inst->coef = inst->in + c->nu + c->nr;
    inst->x = inst->coef + c->nc;
    inst->held = inst->x + inst->ns;
    inst->count = inst->held + c->ny;
    inst->history = inst->count + 1;
}

static unsigned long long fnv1a(const void *data, size_t size, unsigned long long hash)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < size; ++i) {
        hash ^= b[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

#define FNV_BASIS 0xcbf29ce484222325ULL

static unsigned long long identity(const SbcController *c)
{
    return fnv1a(c->name, strlen(c->name), fnv1a(c->token, strlen(c->token), FNV_BASIS));
}

SbcInstance *sbc_instantiate(const SbcController *c, const char *name, const char *token, SbcLogger logger,
                             const void *host, int logging_on)
{
    SbcInstance probe; /* for messages before the instance exists */
    memset(&probe, 0, sizeof probe);
    probe.c = c;
    probe.name = (char *)(name ? name : "symbody");
    probe.logger = logger;
    probe.host = host;
    probe.log_mask = SBC_LOG_ERROR | SBC_LOG_FATAL;
    if (token && strcmp(token, c->token) != 0) {
        sbc_fail(&probe, "Instantiate", "instantiation token '%s' does not match the FMU's '%s'", token, c->token);
        return NULL;
    }
    SbcInstance *inst = calloc(1, sizeof *inst);
    if (!inst) {
        sbc_fail(&probe, "Instantiate", "out of memory");
        return NULL;
    }
    *inst = probe;
    inst->log_mask = logging_on ? SBC_LOG_ALL : (SBC_LOG_WARNING | SBC_LOG_DISCARD | SBC_LOG_ERROR | SBC_LOG_FATAL);
    inst->name = malloc(strlen(probe.name) + 1);
    inst->ns = sbc_law_states(c);
    inst->cap = c->kind == SBC_SHAPER ? 8 : 0;
    inst->nS = state_size(c, inst->ns, inst->cap);
    inst->S = calloc((size_t)inst->nS, sizeof(double));
    const int n = c->kind == SBC_LINEAR ? c->nx + c->nu : 0; /* the augmented matrix of the discretization */
    inst->Ad = calloc((size_t)(c->nx * c->nx + 1), sizeof(double));
    inst->Bd = calloc((size_t)(c->nx * c->nu + 1), sizeof(double));
    inst->work = calloc((size_t)(8 * n * n + n + 1), sizeof(double)); /* M, E, then the work of expm */
    inst->pivots = calloc((size_t)(2 * n + 1), sizeof(int));
    if (!inst->name || !inst->S || !inst->Ad || !inst->Bd || !inst->work || !inst->pivots) {
        sbc_fail(&probe, "Instantiate", "out of memory");
        sbc_free(inst);
        return NULL;
    }
    strcpy(inst->name, probe.name);
    sbc_reset(inst);
    return inst;
}

void sbc_free(SbcInstance *inst)
{
    if (!inst) return;
    free(inst->name);
    free(inst->S);
    free(inst->Ad);
    free(inst->Bd);
    free(inst->work);
    free(inst->pivots);
    free(inst);
}

void sbc_reset(SbcInstance *inst)
{
    const SbcController *c = inst->c;
    memset(inst->S, 0, (size_t)inst->nS * sizeof(double));
    sbc_bind_state(inst);
    memcpy(inst->in, c->input_start, (size_t)(c->nu + c->nr) * sizeof(double));
    memcpy(inst->coef, c->coefficients, (size_t)c->nc * sizeof(double));
    for (int j = 0; j < c->nr; ++j) inst->coef[c->reference_slot[j]] = inst->in[c->nu + j];
    inst->mode = SBC_INSTANTIATED;
    sbc_law_changed(inst);
}

SbcStatus sbc_history_reserve(SbcInstance *inst, int pairs)
{
    if (pairs <= inst->cap) return SBC_OK;
    int cap = inst->cap > 0 ? inst->cap : 8;
    while (cap < pairs) cap *= 2;
    const int nS = state_size(inst->c, inst->ns, cap);
    double *S = realloc(inst->S, (size_t)nS * sizeof(double));
    if (!S) return SBC_ERROR;
    memset(S + inst->nS, 0, (size_t)(nS - inst->nS) * sizeof(double));
    inst->S = S;
    inst->nS = nS;
    inst->cap = cap;
    sbc_bind_state(inst);
    return SBC_OK;
}

/* ------------------------------------------------------------------------ */
/* initialization                                                           */
/* ------------------------------------------------------------------------ */

SbcStatus sbc_setup(SbcInstance *inst, const char *function, double start_time)
{
    if (!isfinite(start_time)) return sbc_fail(inst, function, "start time %g is not finite", start_time);
    *inst->time = start_time;
    *inst->start = start_time;
    return SBC_OK;
}

SbcStatus sbc_enter_initialization(SbcInstance *inst, const char *function)
{
    (void)function;
    inst->mode = SBC_INITIALIZATION;
    return SBC_OK;
}

SbcStatus sbc_exit_initialization(SbcInstance *inst, const char *function)
{
    if (sbc_law_check(inst, function) != SBC_OK) return SBC_ERROR;
    *inst->next = 0.0;
    *inst->step = 0.0;
    inst->mode = SBC_STEPPING;
    sbc_log(inst, SBC_OK, SBC_LOG_EVENTS, "%s: '%s' starts at t = %g", function, inst->c->name, *inst->time);
    return SBC_OK;
}

/* ------------------------------------------------------------------------ */
/* variables                                                                */
/* ------------------------------------------------------------------------ */

static int n_variables(const SbcController *c) { return 1 + c->nu + c->nr + c->ny + c->np; }

/* The position of the variable with value reference vr (0: time), or n_variables when there is none. */
static unsigned position(const SbcInstance *inst, unsigned vr)
{
    const unsigned n = (unsigned)n_variables(inst->c);
    return vr >= inst->first_vr && vr - inst->first_vr < n ? vr - inst->first_vr : n;
}

SbcStatus sbc_get_real(SbcInstance *inst, const char *function, const unsigned vr[], size_t n, double values[])
{
    const SbcController *c = inst->c;
    if (n > 0 && (!vr || !values)) return sbc_fail(inst, function, "NULL argument");
    const unsigned first_output = 1u + (unsigned)(c->nu + c->nr), first_parameter = first_output + (unsigned)c->ny;
    double y[64];
    double *outputs = c->ny <= 64 ? y : malloc((size_t)c->ny * sizeof(double));
    if (!outputs) return sbc_fail(inst, function, "out of memory");
    int computed = 0;
    SbcStatus status = SBC_OK;
    for (size_t k = 0; k < n && status == SBC_OK; ++k) {
        const unsigned r = position(inst, vr[k]);
        if (r == 0)
            values[k] = *inst->time;
        else if (r < first_output)
            values[k] = inst->in[r - 1];
        else if (r < first_parameter) {
            if (!computed) {
                status = sbc_law_outputs(inst, function, outputs);
                computed = 1;
            }
            values[k] = outputs[r - first_output];
        } else if (r < (unsigned)n_variables(c))
            values[k] = inst->coef[c->parameter_slot[r - first_parameter]] / c->parameter_scale[r - first_parameter];
        else
            status = sbc_fail(inst, function, "no Real variable has value reference %u", vr[k]);
    }
    if (outputs != y) free(outputs);
    return status;
}

static const char *parameter_refused(const SbcController *c, int p, double v, char *buf, size_t size);

/* The reason a value may not be set into the variable at position vr now, or NULL. */
static const char *set_refused(const SbcInstance *inst, unsigned vr, double v, char *buf, size_t size)
{
    const SbcController *c = inst->c;
    const unsigned first_output = 1u + (unsigned)(c->nu + c->nr), first_parameter = first_output + (unsigned)c->ny;
    if (vr == 0) return "time is the independent variable; it cannot be set";
    if (vr >= (unsigned)n_variables(c)) return "no Real variable has this value reference";
    const char *name = c->names[vr];
    if (vr >= first_output && vr < first_parameter) {
        snprintf(buf, size, "'%s' is an output; it cannot be set", name);
        return buf;
    }
    if (vr < first_output) {
        if (!isfinite(v)) {
            snprintf(buf, size, "input '%s' = %g is not finite", name, v);
            return buf;
        }
        return NULL;
    }
    const int p = (int)(vr - first_parameter);
    if (c->parameter_fixed[p] && inst->mode != SBC_INSTANTIATED && inst->mode != SBC_INITIALIZATION) {
        snprintf(buf, size, "parameter '%s' is fixed: it can be set before the end of initialization only", name);
        return buf;
    }
    return parameter_refused(c, p, v, buf, size);
}

/* The reason parameter p cannot take the value v (not finite, out of its range), or NULL. */
static const char *parameter_refused(const SbcController *c, int p, double v, char *buf, size_t size)
{
    const char *name = c->names[1 + c->nu + c->nr + c->ny + p];
    if (!isfinite(v)) {
        snprintf(buf, size, "parameter '%s' = %g is not finite", name, v);
        return buf;
    }
    if (v < c->parameter_min[p] || v > c->parameter_max[p]) {
        snprintf(buf, size, "parameter '%s' = %g is outside [%g, %g]", name, v, c->parameter_min[p],
                 c->parameter_max[p]);
        return buf;
    }
    return NULL;
}

SbcStatus sbc_set_real(SbcInstance *inst, const char *function, const unsigned vr[], size_t n, const double values[])
{
    const SbcController *c = inst->c;
    if (n > 0 && (!vr || !values)) return sbc_fail(inst, function, "NULL argument");
    char buf[300];
    for (size_t k = 0; k < n; ++k) { /* every value is checked before any is set */
        const char *why = set_refused(inst, position(inst, vr[k]), values[k], buf, sizeof buf);
        if (why) return sbc_fail(inst, function, "value reference %u: %s", vr[k], why);
    }
    const unsigned first_output = 1u + (unsigned)(c->nu + c->nr), first_parameter = first_output + (unsigned)c->ny;
    for (size_t k = 0; k < n; ++k) {
        const unsigned r = position(inst, vr[k]);
        if (r < first_output) {
            inst->in[r - 1] = values[k];
            if ((int)r > c->nu) inst->coef[c->reference_slot[r - 1 - (unsigned)c->nu]] = values[k];
        } else {
            inst->coef[c->parameter_slot[r - first_parameter]] = c->parameter_scale[r - first_parameter] * values[k];
            sbc_law_changed(inst);
        }
    }
    return SBC_OK;
}

SbcStatus sbc_no_variables(SbcInstance *inst, const char *function, const char *type, const unsigned vr[], size_t n)
{
    if (n == 0) return SBC_OK;
    return sbc_fail(inst, function, "this FMU has no %s variables (value reference %u)", type, vr ? vr[0] : 0u);
}

/* ------------------------------------------------------------------------ */
/* the communication step                                                   */
/* ------------------------------------------------------------------------ */

SbcStatus sbc_do_step(SbcInstance *inst, const char *function, double t, double h)
{
    if (!isfinite(t) || !isfinite(h) || h < 0.0)
        return sbc_fail(inst, function, "communication point %g and step size %g must be finite, the step >= 0", t, h);
    const double tol = sbc_time_tolerance(inst);
    if (fabs(t - *inst->time) > tol + 1e-6 * h)
        return sbc_fail(inst, function, "the communication point %.17g is not this FMU's time %.17g", t, *inst->time);
    if (h == 0.0) return SBC_OK; /* a step of zero changes nothing */
    if (sbc_law_check(inst, function) != SBC_OK) return SBC_ERROR;
    if (sbc_law_step(inst, function, h) != SBC_OK) return SBC_ERROR;
    *inst->time = t + h;
    *inst->step = h;
    return SBC_OK;
}

/* ------------------------------------------------------------------------ */
/* FMU states                                                               */
/* ------------------------------------------------------------------------ */

SbcSnapshot *sbc_snapshot(SbcInstance *inst, SbcSnapshot *reuse)
{
    SbcSnapshot *s = reuse;
    if (!s || s->magic != SBC_SNAPSHOT_MAGIC || s->nS != inst->nS) {
        s = malloc(sizeof(SbcSnapshot) + (size_t)inst->nS * sizeof(double));
        if (!s) return NULL;
        if (reuse) free(reuse);
    }
    s->magic = SBC_SNAPSHOT_MAGIC;
    s->identity = identity(inst->c);
    s->mode = (int)inst->mode;
    s->nS = inst->nS;
    s->cap = inst->cap;
    memcpy(s->S, inst->S, (size_t)inst->nS * sizeof(double));
    return s;
}

static int whole(double v, double lo, double hi) { return v >= lo && v <= hi && v == floor(v); }

/* Everything a state could bring in that Set would refuse, or that no run produces. */
static SbcStatus check_state(SbcInstance *inst, const char *function, unsigned long long id, long mode, long nS,
                             long cap, const double *S)
{
    const SbcController *c = inst->c;
    if (id != identity(c)) return sbc_fail(inst, function, "the FMU state belongs to another FMU, not to '%s'", c->name);
    if (mode < SBC_INSTANTIATED || mode > SBC_TERMINATED || cap < 0 || cap > (1L << 24) ||
        nS != state_size(c, inst->ns, (int)cap))
        return sbc_fail(inst, function, "the FMU state is corrupted (mode %ld, %ld values)", mode, nS);
    const int nin = c->nu + c->nr;
    for (int i = 0; i < SBC_FIXED + nin; ++i)
        if (!isfinite(S[i])) return sbc_fail(inst, function, "the FMU state holds a non-finite time or input");
    if (!whole(S[2], 0.0, 9.0e15) || !(S[3] >= 0.0))
        return sbc_fail(inst, function, "the FMU state is corrupted (sample count %g, step %g)", S[2], S[3]);
    const double *coef = S + SBC_FIXED + nin;
    char buf[300];
    for (int p = 0; p < c->np; ++p) {
        const char *why = parameter_refused(c, p, coef[c->parameter_slot[p]] / c->parameter_scale[p], buf, sizeof buf);
        if (why) return sbc_fail(inst, function, "the FMU state holds a value Set refuses: %s", why);
    }
    const double *rest = coef + c->nc;
    const int nrest = inst->ns + c->ny;
    for (int i = 0; i < nrest; ++i)
        if (!isfinite(rest[i])) return sbc_fail(inst, function, "the FMU state holds a non-finite law state");
    const double count = rest[nrest];
    if (!whole(count, 0.0, (double)cap)) return sbc_fail(inst, function, "the FMU state is corrupted (history)");
    for (int i = 0; i < 2 * (int)count; ++i)
        if (!isfinite(rest[nrest + 1 + i])) return sbc_fail(inst, function, "the FMU state holds a non-finite history");
    return SBC_OK;
}

SbcStatus sbc_restore(SbcInstance *inst, const SbcSnapshot *s)
{
    const char *fn = "SetFMUState";
    if (!s) return sbc_fail(inst, fn, "the FMU state is NULL");
    if (s->magic != SBC_SNAPSHOT_MAGIC) return sbc_fail(inst, fn, "the pointer is not an FMU state of symbody");
    if (check_state(inst, fn, s->identity, s->mode, s->nS, s->cap, s->S) != SBC_OK) return SBC_ERROR;
    if (s->cap != inst->cap) {
        double *S = malloc((size_t)s->nS * sizeof(double));
        if (!S) return sbc_fail(inst, fn, "out of memory");
        free(inst->S);
        inst->S = S;
        inst->nS = s->nS;
        inst->cap = s->cap;
    }
    memcpy(inst->S, s->S, (size_t)s->nS * sizeof(double));
    sbc_bind_state(inst);
    const SbcController *c = inst->c;
    for (int j = 0; j < c->nr; ++j) inst->coef[c->reference_slot[j]] = inst->in[c->nu + j];
    inst->mode = (SbcMode)s->mode;
    sbc_law_changed(inst);
    return SBC_OK;
}

size_t sbc_snapshot_size(const SbcSnapshot *s)
{
    return SBC_HEADER_BYTES + (size_t)s->nS * sizeof(double) + SBC_CHECKSUM_BYTES;
}

SbcStatus sbc_serialize(SbcInstance *inst, const SbcSnapshot *s, unsigned char *bytes, size_t size)
{
    const char *fn = "SerializeFMUState";
    if (!s || s->magic != SBC_SNAPSHOT_MAGIC) return sbc_fail(inst, fn, "the pointer is not an FMU state of symbody");
    const size_t need = sbc_snapshot_size(s);
    if (!bytes || size < need)
        return sbc_fail(inst, fn, "buffer of %lu bytes is too small (%lu needed)", (unsigned long)size,
                        (unsigned long)need);
    const uint32_t head[2] = {SBC_SNAPSHOT_MAGIC, SBC_SERIAL_VERSION};
    const uint64_t id = s->identity;
    const uint32_t tail[4] = {(uint32_t)s->nS, (uint32_t)s->mode, (uint32_t)s->cap, 0u};
    memcpy(bytes, head, 8);
    memcpy(bytes + 8, &id, 8);
    memcpy(bytes + 16, tail, 16);
    memcpy(bytes + SBC_HEADER_BYTES, s->S, (size_t)s->nS * sizeof(double));
    const uint64_t sum = fnv1a(bytes, need - SBC_CHECKSUM_BYTES, FNV_BASIS);
    memcpy(bytes + need - SBC_CHECKSUM_BYTES, &sum, SBC_CHECKSUM_BYTES);
    return SBC_OK;
}

SbcSnapshot *sbc_deserialize(SbcInstance *inst, const unsigned char *bytes, size_t size)
{
    const char *fn = "DeserializeFMUState";
    if (!bytes || size < SBC_HEADER_BYTES + SBC_CHECKSUM_BYTES) {
        sbc_fail(inst, fn, "%lu bytes are not a serialized FMU state", (unsigned long)(bytes ? size : 0));
        return NULL;
    }
    uint32_t head[2], tail[4];
    uint64_t id, sum;
    memcpy(head, bytes, 8);
    memcpy(&id, bytes + 8, 8);
    memcpy(tail, bytes + 16, 16);
    if (head[0] != SBC_SNAPSHOT_MAGIC || head[1] != SBC_SERIAL_VERSION) {
        sbc_fail(inst, fn, "the bytes are not a serialized FMU state of a symbody controller (format %u)", head[1]);
        return NULL;
    }
    const size_t need = SBC_HEADER_BYTES + (size_t)tail[0] * sizeof(double) + SBC_CHECKSUM_BYTES;
    if (size != need) {
        sbc_fail(inst, fn, "serialized state has %lu bytes, expected %lu", (unsigned long)size, (unsigned long)need);
        return NULL;
    }
    memcpy(&sum, bytes + need - SBC_CHECKSUM_BYTES, SBC_CHECKSUM_BYTES);
    if (sum != fnv1a(bytes, need - SBC_CHECKSUM_BYTES, FNV_BASIS)) {
        sbc_fail(inst, fn, "the serialized FMU state is corrupted (checksum mismatch)");
        return NULL;
    }
    SbcSnapshot *s = malloc(sizeof(SbcSnapshot) + (size_t)tail[0] * sizeof(double));
    if (!s) {
        sbc_fail(inst, fn, "out of memory");
        return NULL;
    }
    s->magic = SBC_SNAPSHOT_MAGIC;
    s->identity = id;
    s->nS = (int)tail[0];
    s->mode = (int)tail[1];
    s->cap = (int)tail[2];
    memcpy(s->S, bytes + SBC_HEADER_BYTES, (size_t)s->nS * sizeof(double));
    if (check_state(inst, fn, s->identity, s->mode, s->nS, s->cap, s->S) != SBC_OK) {
        free(s);
        return NULL;
    }
    return s;
}
