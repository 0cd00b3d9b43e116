/*
 * sbc_calls.h -- what the FMI 2 and the FMI 3 wrapper of a controller FMU
 * share (sbc_calls.c): the entry of every call, the instance holding a copy of
 * the wrapper's callbacks, and the logic of the calls both standards have
 * (Terminate, FMU states); each wrapper keeps only what its standard's
 * types and names need.  The plant FMUs' wrappers share theirs the same way
 * (sb_calls.h).
 *
 * Every FMI function taking an instance starts with SBC_ENTER(instance, call):
 * a call in a state sbc_allowed does not list for `call` returns Error with a
 * message naming the function (__func__) and the state, and changes nothing.
 */
#ifndef SBC_CALLS_H
#define SBC_CALLS_H

#include <stddef.h>

#include "sbc_runtime.h"

#if defined(__GNUC__) && __GNUC__ >= 4 && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(hidden)
#define SBC_VISIBILITY_PUSHED_CALLS
#endif

/* The instance of a call of `function`, or NULL when there is none or `call` is not allowed in its state (an
   Error naming the function and the state is logged).  Logs the call in the category logCalls. */
SbcInstance *sbc_enter(void *instance, const char *function, SbcCall call);

/* The first line of every FMI function of an instance, which names the function once (__func__): `inst`, the
   instance of the argument `instance`, or a return of Error.  The wrapper defines SBC_STATUS(s), its status
   type's value of an SbcStatus. */
#define SBC_ENTER(instance, call)                                                                                    \
    SbcInstance *const inst = sbc_enter((instance), __func__, (call));                                               \
    if (!inst) return SBC_STATUS(SBC_ERROR)

/* An instance holding a copy of the wrapper's `size` bytes of host data (its callbacks), freed with it. */
SbcInstance *sbc_instantiate_hosted(const char *name, const char *token, SbcLogger logger, const void *host,
                                    size_t size, int logging_on);
/* Free an instance of sbc_instantiate_hosted and its host data (NULL: nothing to free). */
void sbc_free_hosted(void *instance);

/* Terminate: the instance is terminated. */
SbcStatus sbc_terminate(SbcInstance *inst);

/* FMU states: a snapshot into *state (reusing the one there), freed, its serialized size, one deserialized into
   *state (freeing the one there); sbc_restore and sbc_serialize (sbc_runtime.h) restore and serialize one. */
SbcStatus sbc_get_fmu_state(SbcInstance *inst, const char *function, void **state);
SbcStatus sbc_free_fmu_state(void **state);
SbcStatus sbc_serialized_size(SbcInstance *inst, const char *function, const void *state, size_t *size);
SbcStatus sbc_deserialize_fmu_state(SbcInstance *inst, const char *function, const unsigned char *bytes, size_t size,
                                    void **state);

#ifdef SBC_VISIBILITY_PUSHED_CALLS
#pragma GCC visibility pop
#undef SBC_VISIBILITY_PUSHED_CALLS
#endif

#endif /* SBC_CALLS_H */
