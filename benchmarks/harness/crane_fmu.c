/*
 * crane_fmu.c -- a hand-written FMI 2.0 Co-Simulation FMU of the planar overhead crane
 * (examples/overhead_crane.py), the reference of benchmarks/fmu_crane_hand.py.
 *
 * Coordinates x (trolley travel), l (rope length), theta (swing from the vertical); payload at
 * (x + l sin(theta), 0, -l cos(theta)); winch inertia m_winch on the rope-length motion.  With
 * s = sin(theta), c = cos(theta), Lagrange's equations are M ddq = delta:
 *
 *   M = [ mt + mp     mp s        mp l c ]     delta = [ F_trolley - b_x dx - 2 mp c dl dtheta + mp l s dtheta^2 ]
 *       [ mp s        mp + mw     0      ]             [ -F_hoist - b_l dl + mp l dtheta^2 + mp g c           ]
 *       [ mp l c      0           mp l^2 ]             [ -c_theta dtheta - 2 mp l dl dtheta - mp g l s        ]
 *
 * solved in closed form by eliminating ddl and ddtheta:
 *   ddx = (delta_x - mp s delta_l / (mp + mw) - c delta_theta / l) / (mt + mp s^2 mw / (mp + mw)),
 *   ddl = (delta_l - mp s ddx) / (mp + mw),  ddtheta = (delta_theta - mp l c ddx) / (mp l^2).
 *
 * Fixed-step classical Runge-Kutta (rk4) with the parameter solver.step, the internal steps of a
 * communication step placed as the symbody runtime places them.  The value references are those of
 * symbody's FMU of the same model.  Outputs (accelerations, payload position, rope tension) are
 * computed when read.  A step whose end state is not finite is discarded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

enum {
    VR_TIME, VR_X, VR_L, VR_THETA, VR_DX, VR_DL, VR_DTHETA, VR_DDX, VR_DDL, VR_DDTHETA,
    VR_F_TROLLEY, VR_F_HOIST, VR_G, VR_M_TROLLEY, VR_M_PAYLOAD, VR_M_WINCH, VR_B_X, VR_B_L, VR_C_THETA,
    VR_X_PAYLOAD, VR_Z_PAYLOAD, VR_ROPE_TENSION, VR_METHOD, VR_STEP, NVR
};

typedef struct {
    double v[NVR];
    fmi2CallbackFunctions cb;
} Crane;

static const double START[NVR] = {
    [VR_L] = 12.0, [VR_F_HOIST] = 4000.0 * 9.80665, [VR_G] = 9.80665, [VR_M_TROLLEY] = 1500.0,
    [VR_M_PAYLOAD] = 4000.0, [VR_M_WINCH] = 300.0, [VR_B_X] = 250.0, [VR_B_L] = 120.0,
    [VR_C_THETA] = 40.0, [VR_METHOD] = 1.0, [VR_STEP] = 1e-3,
};

/* xdot = [dq; ddq] at y = [x, l, theta, dx, dl, dtheta] */
static void derivatives(const double *p, const double *y, double *xdot)
{
    const double mt = p[VR_M_TROLLEY], mp = p[VR_M_PAYLOAD], mw = p[VR_M_WINCH], g = p[VR_G];
    const double l = y[1], s = sin(y[2]), c = cos(y[2]), dx = y[3], dl = y[4], dth = y[5];
    const double d_x = p[VR_F_TROLLEY] - p[VR_B_X] * dx - 2.0 * mp * c * dl * dth + mp * l * s * dth * dth;
    const double d_l = -p[VR_F_HOIST] - p[VR_B_L] * dl + mp * l * dth * dth + mp * g * c;
    const double d_th = -p[VR_C_THETA] * dth - 2.0 * mp * l * dl * dth - mp * g * l * s;
    const double mpw = mp + mw;
    const double ddx = (d_x - mp * s * d_l / mpw - c * d_th / l) / (mt + mp * s * s * mw / mpw);
    xdot[0] = dx;
    xdot[1] = dl;
    xdot[2] = dth;
    xdot[3] = ddx;
    xdot[4] = (d_l - mp * s * ddx) / mpw;
    xdot[5] = (d_th - mp * l * c * ddx) / (mp * l * l);
}

static fmi2Status rk4(Crane *m, double t0, double H)
{
    double *y = m->v + VR_X, k[4][6], tmp[6];
    const double h = m->v[VR_STEP];
    double nd = ceil(H / h * (1.0 - 1e-12));
    if (nd < 1.0) nd = 1.0;
    const long N = (long)nd;
    for (long i = 0; i < N; ++i) {
        const double t = t0 + H * (double)i / (double)N;
        const double hh = (i == N - 1 ? t0 + H : t0 + H * (double)(i + 1) / (double)N) - t;
        derivatives(m->v, y, k[0]);
        for (int j = 0; j < 6; ++j) tmp[j] = y[j] + 0.5 * hh * k[0][j];
        derivatives(m->v, tmp, k[1]);
        for (int j = 0; j < 6; ++j) tmp[j] = y[j] + 0.5 * hh * k[1][j];
        derivatives(m->v, tmp, k[2]);
        for (int j = 0; j < 6; ++j) tmp[j] = y[j] + hh * k[2][j];
        derivatives(m->v, tmp, k[3]);
        for (int j = 0; j < 6; ++j) y[j] += hh / 6.0 * (k[0][j] + 2.0 * k[1][j] + 2.0 * k[2][j] + k[3][j]);
    }
    for (int j = 0; j < 6; ++j)
        if (!isfinite(y[j])) return fmi2Discard;
    m->v[VR_TIME] = t0 + H;
    return fmi2OK;
}

static double output(const Crane *m, fmi2ValueReference vr)
{
    const double *y = m->v + VR_X;
    double xdot[6];
    derivatives(m->v, y, xdot);
    switch (vr) {
    case VR_DDX: return xdot[3];
    case VR_DDL: return xdot[4];
    case VR_DDTHETA: return xdot[5];
    case VR_X_PAYLOAD: return y[0] + y[1] * sin(y[2]);
    case VR_Z_PAYLOAD: return -y[1] * cos(y[2]);
    default: return m->v[VR_F_HOIST] + m->v[VR_B_L] * y[4] + m->v[VR_M_WINCH] * xdot[4]; /* rope tension */
    }
}

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }
fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n, const fmi2String cat[])
{
    (void)c, (void)on, (void)n, (void)cat;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid, fmi2String location,
                              const fmi2CallbackFunctions *cb, fmi2Boolean visible, fmi2Boolean logging)
{
    (void)name, (void)guid, (void)location, (void)visible, (void)logging;
    if (type != fmi2CoSimulation) return NULL;
    Crane *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    memcpy(m->v, START, sizeof START);
    if (cb) m->cb = *cb;
    return m;
}

void fmi2FreeInstance(fmi2Component c) { free(c); }
fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tol_defined, fmi2Real tol, fmi2Real start,
                               fmi2Boolean stop_defined, fmi2Real stop)
{
    (void)tol_defined, (void)tol, (void)stop_defined, (void)stop;
    ((Crane *)c)->v[VR_TIME] = start;
    return fmi2OK;
}
fmi2Status fmi2EnterInitializationMode(fmi2Component c) { return c ? fmi2OK : fmi2Error; }
fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    const Crane *m = c;
    return m->v[VR_STEP] > 0.0 && m->v[VR_METHOD] == 1.0 ? fmi2OK : fmi2Error; /* rk4 only */
}
fmi2Status fmi2Terminate(fmi2Component c) { return c ? fmi2OK : fmi2Error; }
fmi2Status fmi2Reset(fmi2Component c)
{
    memcpy(((Crane *)c)->v, START, sizeof START);
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Real value[])
{
    const Crane *m = c;
    for (size_t i = 0; i < n; ++i) {
        if (vr[i] >= NVR) return fmi2Error;
        const int computed = (vr[i] >= VR_DDX && vr[i] <= VR_DDTHETA) || (vr[i] >= VR_X_PAYLOAD && vr[i] <= VR_ROPE_TENSION);
        value[i] = computed ? output(m, vr[i]) : m->v[vr[i]];
    }
    return fmi2OK;
}
fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Real value[])
{
    Crane *m = c;
    for (size_t i = 0; i < n; ++i) {
        if (vr[i] >= NVR) return fmi2Error;
        m->v[vr[i]] = value[i];
    }
    return fmi2OK;
}
fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Integer value[])
{
    const Crane *m = c;
    for (size_t i = 0; i < n; ++i) {
        if (vr[i] != VR_METHOD) return fmi2Error;
        value[i] = (fmi2Integer)m->v[VR_METHOD];
    }
    return fmi2OK;
}
fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Integer value[])
{
    Crane *m = c;
    for (size_t i = 0; i < n; ++i) {
        if (vr[i] != VR_METHOD) return fmi2Error;
        m->v[VR_METHOD] = value[i];
    }
    return fmi2OK;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean no_prior)
{
    (void)no_prior;
    return rk4(c, t, h);
}

/* ---- not supported by this reference FMU (the modelDescription.xml does not declare them) ---- */
fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2Boolean v[])
{
    (void)c, (void)vr, (void)v;
    return n ? fmi2Error : fmi2OK;
}
fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t n, fmi2String v[])
{
    (void)c, (void)vr, (void)v;
    return n ? fmi2Error : fmi2OK;
}
fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2Boolean v[])
{
    (void)c, (void)vr, (void)v;
    return n ? fmi2Error : fmi2OK;
}
fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t n, const fmi2String v[])
{
    (void)c, (void)vr, (void)v;
    return n ? fmi2Error : fmi2OK;
}
fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *s) { (void)c, (void)s; return fmi2Error; }
fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate s) { (void)c, (void)s; return fmi2Error; }
fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *s) { (void)c, (void)s; return fmi2Error; }
fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate s, size_t *n)
{
    (void)c, (void)s, (void)n;
    return fmi2Error;
}
fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate s, fmi2Byte b[], size_t n)
{
    (void)c, (void)s, (void)b, (void)n;
    return fmi2Error;
}
fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte b[], size_t n, fmi2FMUstate *s)
{
    (void)c, (void)b, (void)n, (void)s;
    return fmi2Error;
}
fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference u[], size_t nu,
                                        const fmi2ValueReference z[], size_t nz, const fmi2Real dv[], fmi2Real dz[])
{
    (void)c, (void)u, (void)nu, (void)z, (void)nz, (void)dv, (void)dz;
    return fmi2Error;
}
fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                       const fmi2Integer order[], const fmi2Real v[])
{
    (void)c, (void)vr, (void)n, (void)order, (void)v;
    return fmi2Error;
}
fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                        const fmi2Integer order[], fmi2Real v[])
{
    (void)c, (void)vr, (void)n, (void)order, (void)v;
    return fmi2Error;
}
fmi2Status fmi2CancelStep(fmi2Component c) { (void)c; return fmi2Error; }
fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind k, fmi2Status *v)
{
    (void)c, (void)k, (void)v;
    return fmi2Error;
}
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind k, fmi2Real *v)
{
    (void)c, (void)k, (void)v;
    return fmi2Error;
}
fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind k, fmi2Integer *v)
{
    (void)c, (void)k, (void)v;
    return fmi2Error;
}
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind k, fmi2Boolean *v)
{
    (void)c, (void)k, (void)v;
    return fmi2Error;
}
fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind k, fmi2String *v)
{
    (void)c, (void)k, (void)v;
    return fmi2Error;
}
