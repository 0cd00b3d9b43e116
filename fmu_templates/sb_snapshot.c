/*
 * sb_snapshot.c -- FMU states of a symbody FMU: snapshots in memory
 * (Get/Set/FreeFMUstate) and their serialization (see sb_runtime.h).
 *
 * A state is accepted only by an instance of the model that took it: every
 * snapshot carries the model's identity (a hash of its instantiation token),
 * and serialized bytes also a format version and a checksum over everything
 * before it.  The values of a restored state pass the checks a host's Set
 * calls pass (finite, inside the variables' ranges, valid settings): a state
 * from elsewhere can never bring in what Set refuses.
 *
 * Serialized layout (native byte order; states move between instances of one
 * platform):
 *     uint32 magic "SBST", uint32 format version, uint64 model identity,
 *     uint32 nS, uint32 mode, uint32 flags, uint32 0,
 *     nS doubles (time, x, u, p, settings, h_next, the largest norms of the constraint rows, the memory of
 *     the Model Exchange branch checks, the importer's steps and the contacts' last departures from their
 *     surfaces (Model Exchange impact law), contact and friction modes, sides of the switching functions,
 *     offsets of the contacts' event indicators),
 *     uint64 FNV-1a checksum of all the bytes above.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sb_runtime.h"

#define SB_SNAPSHOT_MAGIC 0x53425354u /* "SBST" */
#define SB_SERIAL_VERSION 5u /* 3: the sides of the switching functions; 4: the branch checks' memory; 5: the
                                 offsets of the contacts' event indicators, the first-order states of the state the
                                 branch checks keep, the importer's steps and the contacts' departures (the impact
                                 law's flights), the constraint rows' largest norms */
#define SB_HEADER_BYTES 32u
#define SB_CHECKSUM_BYTES 8u

/* 64-bit FNV-1a hash (Fowler, Noll, Vo, "The FNV Non-Cryptographic Hash Algorithm", IETF draft, 2012). */
unsigned long long sb_fnv1a(const void *data, size_t size, unsigned long long hash)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < size; ++i) {
        hash ^= b[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

#define SB_FNV_BASIS 0xcbf29ce484222325ULL

/* The identity of a model: its instantiation token (a hash of the generated code and variables). */
static unsigned long long model_identity(const SbModel *m)
{
    unsigned long long h = sb_fnv1a(m->token, strlen(m->token), SB_FNV_BASIS);
    return sb_fnv1a(m->name, strlen(m->name), h);
}

static SbSnapshot *allocate(const SbInstance *inst)
{
    return malloc(sizeof(SbSnapshot) + (size_t)inst->state.nS * sizeof(double));
}

SbSnapshot *sb_snapshot(SbInstance *inst, SbSnapshot *reuse)
{
    SbSnapshot *s = reuse;
    if (!s || s->magic != SB_SNAPSHOT_MAGIC || s->identity != model_identity(inst->m) || s->nS != inst->state.nS) {
        s = allocate(inst);
        if (!s) return NULL;
    }
    s->magic = SB_SNAPSHOT_MAGIC;
    s->identity = model_identity(inst->m);
    s->mode = (int)inst->state.mode;
    s->flags = inst->state.flags;
    s->nS = inst->state.nS;
    memcpy(s->S, inst->state.S, (size_t)inst->state.nS * sizeof(double));
    return s;
}

/* Everything but the values: the model, the size, a mode and flags that exist, the interface. */
static SbStatus check_frame(SbInstance *inst, const char *function, unsigned long long identity, long nS, long mode,
                            long flags)
{
    if (identity != model_identity(inst->m))
        return sb_fail(inst, function, "the FMU state belongs to another model, not to '%s'", inst->m->name);
    if (nS != inst->state.nS)
        return sb_fail(inst, function, "the FMU state has %ld values, this model %d", nS, inst->state.nS);
    if (mode < (long)SB_MODE_INSTANTIATED || mode > (long)SB_MODE_TERMINATED || flags < 0 || (flags & ~(long)SB_FLAGS_ALL))
        return sb_fail(inst, function, "the FMU state is corrupted (mode %ld, flags %ld)", mode, flags);
    if ((inst->interface == SB_CS && (mode == SB_MODE_EVENT || mode == SB_MODE_CONTINUOUS)) ||
        (inst->interface == SB_ME && mode == SB_MODE_STEP))
        return sb_fail(inst, function, "the FMU state was taken from a %s instance, this is a %s instance",
                       inst->interface == SB_CS ? "Model Exchange" : "Co-Simulation",
                       inst->interface == SB_CS ? "Co-Simulation" : "Model Exchange");
    return SB_OK;
}

SbStatus sb_restore(SbInstance *inst, const SbSnapshot *s)
{
    if (!s) return sb_fail(inst, "SetFMUState", "the FMU state is NULL");
    if (s->magic != SB_SNAPSHOT_MAGIC)
        return sb_fail(inst, "SetFMUState", "the pointer is not an FMU state of symbody");
    if (check_frame(inst, "SetFMUState", s->identity, s->nS, s->mode, s->flags) != SB_OK) return SB_ERROR;
    if (sb_check_state_values(inst, "SetFMUState", s->S) != SB_OK) return SB_ERROR;
    memcpy(inst->state.S, s->S, (size_t)inst->state.nS * sizeof(double));
    inst->state.mode = (SbMode)s->mode;
    inst->state.flags = s->flags;
    inst->dyn.psd_checked = 0; /* the parameters may differ */
    sb_parameters_changed(inst); /* the constants block is not in the snapshot: recomputed from its parameters */
    inst->history.discards = 0;
    sb_changed(inst);
    return SB_OK;
}

size_t sb_snapshot_size(const SbInstance *inst)
{
    return SB_HEADER_BYTES + (size_t)inst->state.nS * sizeof(double) + SB_CHECKSUM_BYTES;
}

SbStatus sb_serialize(SbInstance *inst, const SbSnapshot *s, unsigned char *bytes, size_t size)
{
    if (!s || s->magic != SB_SNAPSHOT_MAGIC)
        return sb_fail(inst, "SerializeFMUState", "the pointer is not an FMU state of symbody");
    if (check_frame(inst, "SerializeFMUState", s->identity, s->nS, s->mode, s->flags) != SB_OK) return SB_ERROR;
    const size_t need = sb_snapshot_size(inst);
    if (!bytes || size < need)
        return sb_fail(inst, "SerializeFMUState", "buffer of %lu bytes is too small (%lu needed)",
                       (unsigned long)size, (unsigned long)need);
    const uint32_t head[4] = {SB_SNAPSHOT_MAGIC, SB_SERIAL_VERSION, 0u, 0u};
    const uint64_t identity = s->identity;
    const uint32_t tail[4] = {(uint32_t)s->nS, (uint32_t)s->mode, (uint32_t)s->flags, 0u};
    memcpy(bytes, head, 8);
    memcpy(bytes + 8, &identity, 8);
    memcpy(bytes + 16, tail, 16);
    memcpy(bytes + SB_HEADER_BYTES, s->S, (size_t)s->nS * sizeof(double));
    const uint64_t sum = sb_fnv1a(bytes, need - SB_CHECKSUM_BYTES, SB_FNV_BASIS);
    memcpy(bytes + need - SB_CHECKSUM_BYTES, &sum, SB_CHECKSUM_BYTES);
    return SB_OK;
}

SbSnapshot *sb_deserialize(SbInstance *inst, const unsigned char *bytes, size_t size)
{
    const char *fn = "DeserializeFMUState";
    const size_t need = sb_snapshot_size(inst);
    if (!bytes || size < SB_HEADER_BYTES + SB_CHECKSUM_BYTES) {
        sb_fail(inst, fn, "%lu bytes are not a serialized FMU state (expected %lu)",
                (unsigned long)(bytes ? size : 0), (unsigned long)need);
        return NULL;
    }
    uint32_t head[2], tail[4];
    uint64_t identity, sum;
    memcpy(head, bytes, 8);
    memcpy(&identity, bytes + 8, 8);
    memcpy(tail, bytes + 16, 16);
    if (head[0] != SB_SNAPSHOT_MAGIC) {
        sb_fail(inst, fn, "the bytes are not a serialized FMU state of symbody");
        return NULL;
    }
    if (head[1] != SB_SERIAL_VERSION) {
        sb_fail(inst, fn, "serialized FMU state of format version %u, this FMU reads version %u", head[1],
                SB_SERIAL_VERSION);
        return NULL;
    }
    if (check_frame(inst, fn, identity, (long)tail[0], (long)tail[1], (long)tail[2]) != SB_OK) return NULL;
    if (size != need) {
        sb_fail(inst, fn, "serialized state has %lu bytes, expected %lu", (unsigned long)size,
                (unsigned long)need);
        return NULL;
    }
    memcpy(&sum, bytes + need - SB_CHECKSUM_BYTES, SB_CHECKSUM_BYTES);
    if (sum != sb_fnv1a(bytes, need - SB_CHECKSUM_BYTES, SB_FNV_BASIS)) {
        sb_fail(inst, fn, "the serialized FMU state is corrupted (checksum mismatch)");
        return NULL;
    }
    SbSnapshot *s = allocate(inst);
    if (!s) {
        sb_fail(inst, fn, "out of memory");
        return NULL;
    }
    s->magic = SB_SNAPSHOT_MAGIC;
    s->identity = identity;
    s->nS = inst->state.nS;
    s->mode = (int)tail[1];
    s->flags = (int)tail[2];
    memcpy(s->S, bytes + SB_HEADER_BYTES, (size_t)inst->state.nS * sizeof(double));
    if (sb_check_state_values(inst, fn, s->S) != SB_OK) { /* what Set refuses, a state cannot bring in */
        free(s);
        return NULL;
    }
    return s;
}
