/*
 * sbc_calls.c -- the logic the FMI 2 and FMI 3 wrappers of a controller FMU
 * share (see sbc_calls.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sbc_calls.h"

SbcInstance *sbc_enter(void *instance, const char *function, SbcCall call)
{
    SbcInstance *inst = instance;
    if (!inst) return NULL;
    return sbc_allowed(inst, function, call) ? inst : NULL;
}

SbcInstance *sbc_instantiate_hosted(const char *name, const char *token, SbcLogger logger, const void *host,
                                    size_t size, int logging_on)
{
    void *copy = malloc(size);
    if (!copy) return NULL;
    memcpy(copy, host, size);
    SbcInstance *inst = sbc_instantiate(&sbc_controller, name, token, logger, copy, logging_on);
    if (!inst) free(copy);
    return inst;
}

void sbc_free_hosted(void *instance)
{
    SbcInstance *inst = instance;
    if (!inst) return;
    void *host = (void *)inst->host;
    sbc_free(inst);
    free(host);
}

SbcStatus sbc_terminate(SbcInstance *inst)
{
    inst->mode = SBC_TERMINATED;
    return SBC_OK;
}

/* ------------------------------------------------------------------------------------------ FMU states */

SbcStatus sbc_get_fmu_state(SbcInstance *inst, const char *function, void **state)
{
    if (!state) return sbc_fail(inst, function, "the FMU state argument is NULL");
    SbcSnapshot *s = sbc_snapshot(inst, *state);
    if (!s) return sbc_fail(inst, function, "out of memory");
    *state = s;
    return SBC_OK;
}

SbcStatus sbc_free_fmu_state(void **state)
{
    if (!state) return SBC_OK;
    free(*state);
    *state = NULL;
    return SBC_OK;
}

SbcStatus sbc_serialized_size(SbcInstance *inst, const char *function, const void *state, size_t *size)
{
    if (!size || !state) return sbc_fail(inst, function, "NULL argument");
    *size = sbc_snapshot_size(state);
    return SBC_OK;
}

SbcStatus sbc_deserialize_fmu_state(SbcInstance *inst, const char *function, const unsigned char *bytes, size_t size,
                                    void **state)
{
    if (!state) return sbc_fail(inst, function, "the FMU state argument is NULL");
    SbcSnapshot *s = sbc_deserialize(inst, bytes, size);
    if (!s) return SBC_ERROR;
    free(*state);
    *state = s;
    return SBC_OK;
}
