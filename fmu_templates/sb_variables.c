/*
 * sb_variables.c -- the variables of a symbody FMU as the host sees them:
 * Get and Set by value reference with the checks of every value (type, mode,
 * finiteness, range, valid settings) before any is stored, and the same checks
 * for the values of an FMU state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_calls.h"
#include "sb_events.h"
#include "sb_internal.h"

const SbVariable *sb_variable(SbInstance *inst, const char *function, unsigned vr)
{
    const unsigned first = inst->first_vr, n = (unsigned)inst->m->nvars;
    if (vr < first || vr - first >= n) {
        sb_fail(inst, function, "unknown value reference %u (this FMU's are %u to %u)", vr, first, first + n - 1);
        return NULL;
    }
    return &inst->m->variables[vr - first];
}

static const char *type_name(SbVarType t)
{
    return t == SB_TYPE_REAL ? "Real/Float64" : (t == SB_TYPE_ENUM ? "Integer/Int64" : "Boolean");
}

static const SbVariable *typed_variable(SbInstance *inst, const char *function, unsigned vr, SbVarType type)
{
    const SbVariable *v = sb_variable(inst, function, vr);
    if (v && v->type != type) {
        sb_fail(inst, function, "variable '%s' (value reference %u) is of type %s, not %s", v->name, vr,
                type_name(v->type), type_name(type));
        return NULL;
    }
    return v;
}

/* Value of a calculated variable: make sure ddq, lam, y belong to the state. */
static SbStatus need_update(SbInstance *inst, const char *function, const SbVariable *v)
{
    SbStatus s = sb_update(inst);
    if (s != SB_OK)
        sb_log(inst, s, s == SB_DISCARD ? SB_LOG_DISCARD : SB_LOG_ERROR, "%s: cannot compute '%s' at t = %g: %s",
               function, v->name, *inst->state.time, inst->problem);
    return s;
}

SbStatus sb_get_real(SbInstance *inst, const char *function, const unsigned *vr, size_t n, double *values)
{
    if (n > 0 && (!vr || !values)) return sb_fail(inst, function, "NULL value reference or value array");
    const int nq = inst->m->nq;
    SbStatus status = SB_OK; /* SB_WARNING: an output depends on undetermined reactions */
    for (size_t k = 0; k < n; ++k) {
        const SbVariable *v = typed_variable(inst, function, vr[k], SB_TYPE_REAL);
        if (!v) return SB_ERROR;
        switch (v->kind) {
        case SB_VAR_TIME: values[k] = *inst->state.time; break;
        case SB_VAR_Q: values[k] = inst->state.x[v->index]; break;
        case SB_VAR_DQ: values[k] = inst->state.x[nq + v->index]; break;
        case SB_VAR_X: values[k] = inst->state.x[2 * nq + v->index]; break;
        case SB_VAR_U: values[k] = inst->state.u[v->index]; break;
        case SB_VAR_P: values[k] = inst->state.p[v->index]; break;
        case SB_VAR_SETTING: values[k] = inst->state.set[v->index]; break;
        case SB_VAR_EVENT: {
            SbStatus s = need_update(inst, function, v);
            if (s != SB_OK) return s;
            values[k] = sb_event_indicator(inst, v->index);
            break;
        }
        case SB_VAR_DDQ:
        case SB_VAR_DX:
        case SB_VAR_Y: {
            SbStatus s = need_update(inst, function, v);
            if (s != SB_OK) return s;
            values[k] = v->kind == SB_VAR_DDQ  ? inst->cache.ddq[v->index]
                        : v->kind == SB_VAR_DX ? inst->cache.rates[v->index]
                                               : inst->cache.y[v->index];
            if (!isfinite(values[k])) { /* an output expression outside its domain (ddq are checked) */
                sb_log(inst, SB_DISCARD, SB_LOG_DISCARD, "%s: output '%s' is not finite at t = %g", function, v->name,
                       *inst->state.time);
                return SB_DISCARD;
            }
            if (inst->cache.undetermined && sb_undetermined_output(inst, function, v) != SB_OK) status = SB_WARNING;
            break;
        }
        }
    }
    return status;
}

/* Which modes allow setting a variable of this kind. */
static unsigned settable_modes(const SbVariable *v)
{
    switch (v->kind) {
    case SB_VAR_Q:
    case SB_VAR_DQ:
    case SB_VAR_X: return SB_IN(SB_MODE_INSTANTIATED) | SB_IN(SB_MODE_INIT);
    case SB_VAR_U:
        return SB_IN(SB_MODE_INSTANTIATED) | SB_IN(SB_MODE_INIT) | SB_IN(SB_MODE_EVENT) | SB_IN(SB_MODE_CONTINUOUS) |
               SB_IN(SB_MODE_STEP);
    case SB_VAR_P:
    case SB_VAR_SETTING:
        return SB_IN(SB_MODE_INSTANTIATED) | SB_IN(SB_MODE_INIT) | SB_IN(SB_MODE_EVENT) | SB_IN(SB_MODE_STEP);
    default: return 0u;
    }
}

static SbStatus check_range(SbInstance *inst, const char *function, const SbVariable *v, double value);

/* Check that a value may be set: mode, finiteness and range. */
static SbStatus check_value(SbInstance *inst, const char *function, const SbVariable *v, double value)
{
    if (!(settable_modes(v) & SB_IN(inst->state.mode))) {
        if (settable_modes(v) == 0u)
            return sb_fail(inst, function, "variable '%s' is calculated by the FMU and cannot be set", v->name);
        return sb_fail(inst, function, "variable '%s' cannot be set in %s", v->name, sb_mode_name(inst->state.mode));
    }
    return check_range(inst, function, v, value);
}

/* Check a value against its variable's rules: finite, inside [min, max], a valid setting. */
static SbStatus check_range(SbInstance *inst, const char *function, const SbVariable *v, double value)
{
    if (!isfinite(value)) return sb_fail(inst, function, "value %g of variable '%s' is not finite", value, v->name);
    if (v->kind == SB_VAR_SETTING) {
        if (!sb_setting_ok((SbSetting)v->index, value))
            return sb_fail(inst, function, "value %g of '%s' is invalid: it must be %s", value, v->name,
                           sb_setting_rule((SbSetting)v->index));
    } else if (value < v->min || value > v->max) {
        return sb_fail(inst, function, "value %g of variable '%s' is outside its range [%g, %g]", value, v->name,
                       v->min, v->max);
    }
    return SB_OK;
}

/* Store a checked value. */
/* Store a checked value; returns 0 when it changed nothing: an input set to the value it holds, bit for
   bit (a co-simulation master sets its inputs before every step; the values computed at the state, such
   as the accelerations the next rk4 step starts from, then stay valid). */
static int store_value(SbInstance *inst, const SbVariable *v, double value)
{
    const int nq = inst->m->nq;
    switch (v->kind) {
    case SB_VAR_Q: inst->state.x[v->index] = value; break;
    case SB_VAR_X: inst->state.x[2 * nq + v->index] = value; break;
    case SB_VAR_DQ:
        inst->state.x[nq + v->index] = value;
        inst->history.dq_set[v->index] = 1; /* a velocity the host chose: kept by the assembly */
        break;
    case SB_VAR_U:
        if (memcmp(&inst->state.u[v->index], &value, sizeof value) == 0) return 0;
        inst->state.u[v->index] = value;
        break;
    case SB_VAR_P:
        inst->state.p[v->index] = value;
        inst->dyn.psd_checked = 0; /* a mass or an inertia may have changed sign */
        break;
    case SB_VAR_SETTING:
        if (v->index == SB_SET_METHOD && inst->state.set[v->index] != value) *inst->state.h_next = 0.0;
        if (v->index == SB_SET_RTOL)
            inst->state.flags = (inst->state.flags | SB_FLAG_RTOL_SET) & ~SB_FLAG_RTOL_EXPERIMENT;
        inst->state.set[v->index] = value;
        if (v->index == SB_SET_IGNORE_TOL && value != 0.0 && (inst->state.flags & SB_FLAG_RTOL_EXPERIMENT)) {
            inst->state.set[SB_SET_RTOL] = inst->m->settings0[SB_SET_RTOL]; /* undo an earlier fmi2SetupExperiment */
            inst->state.flags &= ~SB_FLAG_RTOL_EXPERIMENT;
        }
        break;
    default: break;
    }
    return 1;
}

/* The memory of the branch checks (SbState.kept) as sb_singular.c leaves it: times finite or NAN (none), flags 0 or
   1, a row of the model, a pivot that is not negative (INFINITY: none), finite work and vectors. */
static int kept_valid(const SbModel *m, const double *kept)
{
    const double row = kept[SB_KEPT_ROW], least = kept[SB_KEPT_LEAST];
    int ok = !isinf(kept[SB_KEPT_T]) && !isinf(kept[SB_KEPT_WORK_T]) && !isinf(kept[SB_KEPT_ASKED]);
    ok = ok && !isinf(kept[SB_KEPT_STEP_T]) && isfinite(kept[SB_KEPT_STEP_WORK]);
    ok = ok && isfinite(kept[SB_KEPT_WORK]) && (kept[SB_KEPT_NEAR] == 0.0 || kept[SB_KEPT_NEAR] == 1.0);
    ok = ok && (kept[SB_KEPT_FIRED] == 0.0 || kept[SB_KEPT_FIRED] == 1.0);
    ok = ok && kept[SB_KEPT_RANK] >= 0.0 && kept[SB_KEPT_RANK] <= m->nc && kept[SB_KEPT_RANK] == floor(kept[SB_KEPT_RANK]);
    ok = ok && (isnan(kept[SB_KEPT_ASKED]) || isfinite(kept[SB_KEPT_T])); /* a request needs a kept state */
    ok = ok && row >= 0.0 && row < m->nc && row == floor(row) && least >= 0.0;
    for (int i = SB_KEPT_HEAD; ok && i < sb_kept_size(m); ++i) ok = isfinite(kept[i]);
    return ok;
}

/* The importer's steps and the contacts' departures (SbState.flight) as sb_events_resolve.c leaves them: the ends
   of the steps finite or NAN (none yet), counts and sums of squares finite, not negative and no larger than the
   totals where they were recorded, the times of departures and their rates finite. */
static int flight_valid(const SbModel *m, const double *flight)
{
    const double count = flight[SB_FLIGHT_COUNT], squares = flight[SB_FLIGHT_SQUARES];
    int ok = !isinf(flight[SB_FLIGHT_END0]) && !isinf(flight[SB_FLIGHT_END1]) && isfinite(count) && count >= 0.0;
    ok = ok && isfinite(squares) && squares >= 0.0;
    ok = ok && (flight[SB_FLIGHT_COMPLETING] == 0.0 || flight[SB_FLIGHT_COMPLETING] == 1.0);
    ok = ok && isfinite(flight[SB_FLIGHT_SPAN]) && flight[SB_FLIGHT_SPAN] >= 0.0;
    ok = ok && isfinite(flight[SB_FLIGHT_PEAK]) && flight[SB_FLIGHT_PEAK] >= 0.0;
    const double *left = flight + SB_FLIGHT_HEAD;
    for (int i = 0; ok && i < m->nk; ++i) {
        const double steps = left[SB_LEFT_COUNT * m->nk + i], sum = left[SB_LEFT_SQUARES * m->nk + i];
        ok = isfinite(left[SB_LEFT_TIME * m->nk + i]) && isfinite(left[SB_LEFT_RATE * m->nk + i]) &&
             isfinite(left[SB_LEFT_ALPHA * m->nk + i]) && steps >= 0.0 && steps <= count && sum >= 0.0 &&
             sum <= squares;
    }
    return ok;
}

SbStatus sb_check_state_values(SbInstance *inst, const char *function, const double *S)
{
    const SbModel *m = inst->m;
    const int nq = m->nq, nx = sb_nx(m);
    if (!isfinite(S[0])) return sb_fail(inst, function, "the time %g of the FMU state is not finite", S[0]);
    for (int k = 0; k < m->nvars; ++k) { /* the same rules as a host's Set: finite, in range, valid settings */
        const SbVariable *v = &m->variables[k];
        const double *x = S + 1, *u = x + nx, *p = u + 3 * m->nu, *set = p + m->np;
        double value;
        switch (v->kind) {
        case SB_VAR_Q: /* states come from the integration: finite, not necessarily inside a start range */
        case SB_VAR_DQ:
        case SB_VAR_X:
            value = x[(v->kind == SB_VAR_DQ ? nq : v->kind == SB_VAR_X ? 2 * nq : 0) + v->index];
            if (!isfinite(value))
                return sb_fail(inst, function, "value %g of variable '%s' is not finite", value, v->name);
            continue;
        case SB_VAR_U:
            if (!isfinite(u[m->nu + v->index]) || !isfinite(u[2 * m->nu + v->index]))
                return sb_fail(inst, function, "the time derivatives of input '%s' in the FMU state are not finite",
                               v->name);
            value = u[v->index];
            break;
        case SB_VAR_P: value = p[v->index]; break;
        case SB_VAR_SETTING: value = set[v->index]; break;
        default: continue;
        }
        if (check_range(inst, function, v, value) != SB_OK) return SB_ERROR;
    }
    const double *modes = S + inst->state.nS - m->nk - m->nsw - m->nf - m->nk; /* closed, slip, side, offset */
    for (int i = 0; i < m->nk; ++i) { /* contact modes: open or closed */
        if (modes[i] != 0.0 && modes[i] != 1.0)
            return sb_fail(inst, function, "the mode %g of contact '%s' in the FMU state is invalid", modes[i],
                           m->contact_names[i]);
    }
    for (int j = 0; j < m->nf; ++j) { /* friction modes: sticking or the direction of slip */
        const double slip = modes[m->nk + j];
        if (slip != 0.0 && slip != 1.0 && slip != -1.0)
            return sb_fail(inst, function, "the mode %g of friction '%s' in the FMU state is invalid", slip,
                           m->friction_names[j]);
    }
    for (int j = 0; j < m->nsw; ++j) { /* the sides of the switching functions */
        const double side = modes[m->nk + m->nf + j];
        if (side != 1.0 && side != -1.0)
            return sb_fail(inst, function, "the side %g of switching function %d in the FMU state is invalid", side, j);
    }
    for (int i = 0; i < m->nk; ++i) { /* the offsets of the contacts' event indicators */
        const double offset = modes[m->nk + m->nf + m->nsw + i];
        if (!(offset >= SB_EVENT_HYSTERESIS && isfinite(offset)))
            return sb_fail(inst, function, "the offset %g of the event indicator of contact '%s' in the FMU state is "
                           "invalid", offset, m->contact_names[i]);
    }
    const double *h_next = S + 1 + nx + 3 * m->nu + m->np + SB_N_SETTINGS, *row_ref = h_next + 1,
                 *kept = row_ref + m->nc;
    if (!(isfinite(*h_next) && *h_next >= 0.0))
        return sb_fail(inst, function, "the solver step size %g of the FMU state is invalid", *h_next);
    for (int r = 0; r < m->nc; ++r) /* the largest squared norms of the constraint rows: finite, not negative */
        if (!(isfinite(row_ref[r]) && row_ref[r] >= 0.0))
            return sb_fail(inst, function, "the largest norm %g of constraint row %d in the FMU state is invalid",
                           row_ref[r], r);
    if (m->nc > 0 && !kept_valid(m, kept))
        return sb_fail(inst, function, "the memory of the branch check in the FMU state is invalid (time %g)",
                       kept[SB_KEPT_T]);
    if (m->nk > 0 && !flight_valid(m, kept + sb_kept_size(m)))
        return sb_fail(inst, function, "the records of the importer's steps in the FMU state are invalid");
    return SB_OK;
}

SbStatus sb_set_values(SbInstance *inst, const char *function, const unsigned *vr, size_t n, SbVarType type,
                       const void *values, SbValueAt at)
{
    if (n > 0 && (!vr || !values)) return sb_fail(inst, function, "NULL value reference or value array");
    for (size_t k = 0; k < n; ++k) { /* check everything first: a rejected call sets nothing */
        const SbVariable *v = typed_variable(inst, function, vr[k], type);
        if (!v) return SB_ERROR;
        SbStatus s = check_value(inst, function, v, at(values, k));
        if (s != SB_OK) return s;
    }
    int changed = 0, parameters = 0;
    for (size_t k = 0; k < n; ++k) parameters |= sb_variable(inst, function, vr[k])->kind == SB_VAR_P;
    double *saved = NULL; /* the parameters before, restored when the coefficients of the events are refused */
    if (parameters && inst->m->nk + inst->m->nf > 0) {
        saved = malloc((size_t)(inst->m->np > 0 ? inst->m->np : 1) * sizeof(double));
        if (!saved) return sb_fail(inst, function, "out of memory");
        memcpy(saved, inst->state.p, (size_t)inst->m->np * sizeof(double));
    }
    for (size_t k = 0; k < n; ++k) changed |= store_value(inst, sb_variable(inst, function, vr[k]), at(values, k));
    if (parameters) sb_parameters_changed(inst); /* the constants block follows the parameters */
    if (changed) sb_changed(inst);
    if (saved) {
        const int relations = inst->state.mode != SB_MODE_INSTANTIATED && inst->state.mode != SB_MODE_INIT;
        SbStatus s = sb_check_coefficients(inst, function, relations);
        if (s != SB_OK) {
            memcpy(inst->state.p, saved, (size_t)inst->m->np * sizeof(double));
            sb_parameters_changed(inst);
            sb_changed(inst);
        }
        free(saved);
        return s;
    }
    return SB_OK;
}

static double real_at(const void *values, size_t k) { return ((const double *)values)[k]; }

SbStatus sb_set_real(SbInstance *inst, const char *function, const unsigned *vr, size_t n, const double *values)
{
    return sb_set_values(inst, function, vr, n, SB_TYPE_REAL, values, real_at);
}

SbStatus sb_get_values(SbInstance *inst, const char *function, const unsigned *vr, size_t n, SbVarType type,
                       void *values, SbValuePut put)
{
    if (n > 0 && (!vr || !values)) return sb_fail(inst, function, "NULL value reference or value array");
    for (size_t k = 0; k < n; ++k) {
        const SbVariable *v = typed_variable(inst, function, vr[k], type);
        if (!v) return SB_ERROR;
        put(values, k, inst->state.set[v->index]);
    }
    return SB_OK;
}

/* The name of input j (an index in u). */
static const char *input_name(const SbModel *m, int j)
{
    for (int k = 0; k < m->nvars; ++k)
        if (m->variables[k].kind == SB_VAR_U && m->variables[k].index == j) return m->variables[k].name;
    return "?";
}

/* The motion input whose position, velocity or acceleration is input j (its index in sb_model.motion), or -1;
   *role is 0, 1 or 2. */
static int motion_of(const SbModel *m, int j, int *role)
{
    for (int k = 0; k < m->nmotion; ++k)
        if (j >= m->motion[k] && j < m->motion[k] + 3) {
            *role = j - m->motion[k];
            return k;
        }
    return -1;
}

SbStatus sb_set_input_derivatives(SbInstance *inst, const char *function, const unsigned *vr, size_t n,
                                  const int *order, const double *values)
{
    const SbModel *m = inst->m;
    if (n > 0 && (!vr || !order || !values)) return sb_fail(inst, function, "NULL array argument");
    for (size_t k = 0; k < n; ++k) { /* check everything first: a rejected call sets nothing */
        const SbVariable *v = typed_variable(inst, function, vr[k], SB_TYPE_REAL);
        if (!v) return SB_ERROR;
        if (v->kind != SB_VAR_U)
            return sb_fail(inst, function, "variable '%s' is not an input: it has no input derivatives", v->name);
        if (order[k] < 1 || order[k] > 2)
            return sb_fail(inst, function, "derivative order %d of input '%s' is not supported (1 or 2)", order[k],
                           v->name);
        int role = 0;
        if (motion_of(m, v->index, &role) >= 0 && role > 0)
            return sb_fail(inst, function,
                           "'%s' is a rate of a motion input: give the derivatives of the motion input's position '%s'",
                           v->name, input_name(m, v->index - role));
        if (!isfinite(values[k]))
            return sb_fail(inst, function, "derivative %g of input '%s' is not finite", values[k], v->name);
    }
    for (size_t k = 0; k < n; ++k) {
        const int j = sb_variable(inst, function, vr[k])->index;
        int role = 0;
        if (motion_of(m, j, &role) >= 0) /* a motion input: its rates are the inputs dz and ddz */
            inst->state.u[j + order[k]] = values[k];
        else
            inst->state.u[order[k] * m->nu + j] = values[k];
    }
    sb_changed(inst);
    return SB_OK;
}

void sb_advance_inputs(SbInstance *inst, double H)
{
    const SbModel *m = inst->m;
    const int nu = m->nu;
    double *u = inst->state.u;
    for (int k = 0; k < m->nmotion; ++k) { /* z and dz along the motion's polynomial; ddz stays */
        const int j = m->motion[k];
        u[j] += H * (u[j + 1] + 0.5 * H * u[j + 2]);
        u[j + 1] += H * u[j + 2];
    }
    for (int j = nu; j < 3 * nu; ++j) u[j] = 0.0; /* the other inputs' derivatives held for one step only */
}

/* -- continuous states of Model Exchange: x = [q; dq; xs] ------------------------------------------- */

/* The name of continuous state i, for messages: its coordinate, its velocity or a first-order state. */
static void state_name(const SbModel *m, size_t i, char *buf, size_t size)
{
    const size_t n = (size_t)m->nq;
    if (i < n) snprintf(buf, size, "%s", m->coordinate_names[i]);
    else if (i < 2 * n) snprintf(buf, size, "d%s", m->coordinate_names[i - n]);
    else snprintf(buf, size, "%s", m->state_names[i - 2 * n]);
}

static SbStatus check_count(SbInstance *inst, const char *function, const void *array, size_t n, const char *what)
{
    const size_t nx = (size_t)sb_nx(inst->m);
    if (n != nx || !array)
        return sb_fail(inst, function, "expected %lu %s, got %lu%s", (unsigned long)nx, what, (unsigned long)n,
                       array ? "" : " (NULL array)");
    return SB_OK;
}

SbStatus sb_set_continuous_states(SbInstance *inst, const char *function, const double *x, size_t n)
{
    if (check_count(inst, function, x, n, "states") != SB_OK) return SB_ERROR;
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(x[i])) {
            char name[256];
            state_name(inst->m, i, name, sizeof name);
            return sb_fail(inst, function, "state '%s' is not finite", name);
        }
    memcpy(inst->state.x, x, n * sizeof(double));
    sb_changed(inst);
    return SB_OK;
}

SbStatus sb_get_continuous_states(SbInstance *inst, const char *function, double *x, size_t n)
{
    if (check_count(inst, function, x, n, "states") != SB_OK) return SB_ERROR;
    memcpy(x, inst->state.x, n * sizeof(double));
    return SB_OK;
}

SbStatus sb_get_nominals(SbInstance *inst, const char *function, double *nominals, size_t n)
{
    if (check_count(inst, function, nominals, n, "states") != SB_OK) return SB_ERROR;
    for (size_t i = 0; i < n; ++i) nominals[i] = 1.0;
    return SB_OK;
}

SbStatus sb_get_derivatives(SbInstance *inst, const char *function, double *derivatives, size_t n)
{
    if (check_count(inst, function, derivatives, n, "derivatives") != SB_OK) return SB_ERROR;
    SbStatus s = sb_update(inst);
    if (s != SB_OK) {
        sb_log(inst, s, SB_LOG_DISCARD, "%s: at t = %g: %s", function, *inst->state.time, inst->problem);
        return s;
    }
    const int nq = inst->m->nq;
    memcpy(derivatives, inst->state.x + nq, (size_t)nq * sizeof(double));
    memcpy(derivatives + nq, inst->cache.ddq, (size_t)nq * sizeof(double));
    memcpy(derivatives + 2 * nq, inst->cache.rates, (size_t)inst->m->ns * sizeof(double));
    return SB_OK;
}
