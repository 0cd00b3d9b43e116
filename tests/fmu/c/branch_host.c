/*
 * branch_host.c -- the branch guard of Model Exchange (fmu_templates/sb_singular.c) under the sanitizers.
 *
 * Linked with the model.c of tests/models/parallelogram.py (started upright) and the runtime, as the
 * hosts of host_common.h.  A state next to the flat position with a velocity error is evaluated at
 * t = 1 and t = 11: the constraint forces' power through the velocity error, summed over the ten
 * seconds between, is more than 1e-3 of the kinetic energy, which they never do on the motion.  The
 * second evaluation is an Error naming the vanishing constraint row; so is every later evaluation and
 * fmi2CompletedIntegratorStep, also in a serialized and restored copy of that state, and restoring a
 * state from before continues normally.  tests/fmu/test_singular_positions.py builds and runs it.
 */
#include "fmi2Functions.h"
#include "host_common.h"

static void logger(fmi2ComponentEnvironment env, fmi2String instanceName, fmi2Status status, fmi2String category,
                   fmi2String message, ...)
{
    (void)instanceName;
    char buf[2048];
    va_list ap;
    va_start(ap, message);
    vsnprintf(buf, sizeof buf, message ? message : "(null)", ap);
    va_end(ap);
    log_add((HostLog *)env, (int)status, category, buf);
}

#define NX 6 /* phi1, phi2, phi3 and their rates */

int main(void)
{
    HostLog log;
    log_clear(&log);
    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, &log};
    CHECK(sb_model.nq * 2 == NX && sb_model.nc == 2, "expected the parallelogram (3 coordinates, 2 loop rows)");
    if (n_failed) return finish("branch_host", "setup");
    fmi2Component c = fmi2Instantiate("branch", fmi2ModelExchange, sb_model.token, "", &cb, fmi2False, fmi2False);
    CHECK(c != NULL, "fmi2Instantiate failed; log:\n%s", log.text);
    if (!c) return finish("branch_host", "setup");
    EXPECT(&log, fmi2OK, NULL, fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    EXPECT(&log, fmi2OK, NULL, fmi2EnterInitializationMode(c));
    EXPECT(&log, fmi2OK, NULL, fmi2ExitInitializationMode(c));
    fmi2EventInfo info;
    EXPECT(&log, fmi2OK, NULL, fmi2NewDiscreteStates(c, &info));
    EXPECT(&log, fmi2OK, NULL, fmi2EnterContinuousTimeMode(c));
    fmi2FMUstate before = NULL, after = NULL;
    EXPECT(&log, fmi2OK, NULL, fmi2GetFMUstate(c, &before));

    /* crank and rocker 1e-4 rad above the ground line (the loop rows nearly dependent), the rocker
       1e-5 rad ahead and 1e-3 rad/s faster than the crank: a drifted state next to the flat position */
    const double drifted[NX] = {1e-4, 0.0, 1e-4 + 1e-5, 2.0, 0.0, 2.0 + 1e-3};
    double dx[NX];
    fmi2Boolean enter_event = fmi2False, terminate = fmi2False;
    EXPECT(&log, fmi2OK, NULL, fmi2SetTime(c, 1.0));
    EXPECT(&log, fmi2OK, NULL, fmi2SetContinuousStates(c, drifted, NX));
    EXPECT(&log, fmi2OK, NULL, fmi2GetDerivatives(c, dx, NX));
    EXPECT(&log, fmi2OK, NULL, fmi2SetTime(c, 11.0));
    EXPECT(&log, fmi2OK, NULL, fmi2SetContinuousStates(c, drifted, NX));
    EXPECT(&log, fmi2Error, "leaving its assembly branch at a singular position, where constraint row 'loop_x'",
           fmi2GetDerivatives(c, dx, NX));
    EXPECT(&log, fmi2Error, "assembly branch", fmi2GetDerivatives(c, dx, NX));
    EXPECT(&log, fmi2Error, "assembly branch",
           fmi2CompletedIntegratorStep(c, fmi2True, &enter_event, &terminate));

    /* the verdict is part of the FMU state, serialized with it */
    EXPECT(&log, fmi2OK, NULL, fmi2GetFMUstate(c, &after));
    size_t size = 0;
    EXPECT(&log, fmi2OK, NULL, fmi2SerializedFMUstateSize(c, after, &size));
    char *bytes = (char *)malloc(size);
    CHECK(bytes != NULL, "malloc");
    if (bytes) {
        EXPECT(&log, fmi2OK, NULL, fmi2SerializeFMUstate(c, after, bytes, size));
        EXPECT(&log, fmi2OK, NULL, fmi2SetFMUstate(c, before));
        EXPECT(&log, fmi2OK, NULL, fmi2GetDerivatives(c, dx, NX));
        CHECK(fabs(dx[0] - 2.0) < 1e-12 && fabs(dx[3]) < 1e-9, "upright: dphi1 = %g, ddphi1 = %g", dx[0], dx[3]);
        EXPECT(&log, fmi2OK, NULL, fmi2CompletedIntegratorStep(c, fmi2True, &enter_event, &terminate));
        fmi2FMUstate restored = NULL;
        EXPECT(&log, fmi2OK, NULL, fmi2DeSerializeFMUstate(c, bytes, size, &restored));
        EXPECT(&log, fmi2OK, NULL, fmi2SetFMUstate(c, restored));
        EXPECT(&log, fmi2Error, "assembly branch", fmi2GetDerivatives(c, dx, NX));
        EXPECT(&log, fmi2OK, NULL, fmi2FreeFMUstate(c, &restored));
        free(bytes);
    }
    /* a reset starts afresh */
    EXPECT(&log, fmi2OK, NULL, fmi2Reset(c));
    EXPECT(&log, fmi2OK, NULL, fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    EXPECT(&log, fmi2OK, NULL, fmi2EnterInitializationMode(c));
    EXPECT(&log, fmi2OK, NULL, fmi2ExitInitializationMode(c));
    EXPECT(&log, fmi2OK, NULL, fmi2NewDiscreteStates(c, &info));
    EXPECT(&log, fmi2OK, NULL, fmi2EnterContinuousTimeMode(c));
    EXPECT(&log, fmi2OK, NULL, fmi2GetDerivatives(c, dx, NX));
    EXPECT(&log, fmi2OK, NULL, fmi2FreeFMUstate(c, &before));
    EXPECT(&log, fmi2OK, NULL, fmi2FreeFMUstate(c, &after));
    fmi2FreeInstance(c);
    return finish("branch_host", "guard");
}
