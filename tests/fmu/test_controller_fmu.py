"""Controller FMUs (symbody.controller_fmu): each law against an independent reference -- python-control's
zero-order-hold discretization and discrete responses, the documented difference equations of the PID and the
input shaper --, tunable and fixed parameters, references as inputs, FMU states, fmpy's validation, the model
structure's feedthrough, and the errors."""

from __future__ import annotations

import ctypes
import math

import control
import fmpy
import numpy as np
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.validation import validate_fmu

import symbody as sb
from symbody.errors import ExportError
from symbody.fmu.controllers import InputShaper, control_law
from symbody.fmu.platforms import host_platform

from support import example
from support.cosim import Stepper, respond

HOST = [host_platform().name]


def build(tmp_path, controller, name, inputs, outputs, fmi=2, **kw):
    return sb.controller_fmu(controller, tmp_path / f"{name}.fmu", inputs=inputs, outputs=outputs, fmi=fmi,
                             platforms=HOST, **kw)


def signal(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sin(0.7 * np.arange(n) * 0.05) + 0.3 * rng.standard_normal(n)


# ------------------------------------------------------------------------------ linear laws


@pytest.mark.parametrize("fmi", [2, 3])
def test_continuous_transfer_function_is_its_zero_order_hold_discretization(tmp_path, fmi):
    """Inputs held over each communication step: the response of c2d(sys, h, 'zoh') to 1e-8, for two steps h."""
    sys_c = control.tf([2.0, 3.0, 1.0], [1.0, 0.8, 4.0, 0.5])
    fmu = build(tmp_path, sys_c, "lead", ["e"], ["v"], fmi)
    for h in (0.05, 0.2):
        u = signal(150)
        y = respond(fmu, {"e": u}, ["v"], h)[:, 0]
        ref = control.forced_response(control.c2d(sys_c, h, "zoh"), T=np.arange(len(u)) * h, U=u).outputs
        assert np.abs(ref).max() > 0.5
        assert np.abs(y - ref).max() < 1e-8, (h, np.abs(y - ref).max())


def test_stiff_continuous_state_space_stays_exact_over_long_steps(tmp_path):
    """||A h|| far above 1 (scaling and squaring): still the exact discretization."""
    A = np.array([[-400.0, 10.0], [0.0, -0.5]])
    sys_c = control.ss(A, [[1.0], [2.0]], [[1.0, 1.0]], [[0.5]])
    fmu = build(tmp_path, sys_c, "stiff", ["e"], ["v"])
    h, u = 0.5, signal(40, 3)
    y = respond(fmu, {"e": u}, ["v"], h)[:, 0]
    ref = control.forced_response(control.c2d(sys_c, h, "zoh"), T=np.arange(len(u)) * h, U=u).outputs
    assert np.abs(y - ref).max() < 1e-8 * np.abs(ref).max()


def _difference_equation(A, B, C, D, u: np.ndarray) -> np.ndarray:
    x, out = np.zeros(A.shape[0]), []
    for uk in u:
        out.append(C @ x + D @ np.atleast_1d(uk))
        x = A @ x + B @ np.atleast_1d(uk)
    return np.array(out)


@pytest.mark.parametrize("fmi", [2, 3])
def test_discrete_state_space_follows_its_difference_equation_at_its_sample_instants(tmp_path, fmi):
    sys_d = control.c2d(control.tf([1.0, 2.0], [1.0, 0.5, 3.0]), 0.1, "tustin")
    fmu = build(tmp_path, sys_d, "disc", ["e"], ["v"], fmi)
    u = signal(60, 1)
    ss = control.ss(sys_d)
    ref = _difference_equation(ss.A, ss.B, ss.C, ss.D, u)[:, 0]
    # communication step = sample time, and a step dividing it: the samples at t_k read the input set at t_k
    same = respond(fmu, {"e": u}, ["v"], 0.1)[:, 0]
    assert np.abs(same - ref).max() <= 1e-13 * np.abs(ref).max()
    finer = respond(fmu, {"e": np.repeat(u, 4)}, ["v"], 0.025)[:, 0]
    assert np.abs(finer[::4] - ref).max() <= 1e-13 * np.abs(ref).max()
    for k in (1, 2, 3):  # between samples the output is held
        assert np.array_equal(finer[k::4], finer[::4])
    # a step that does not divide the sample time: a sample inside a step reads the input held over it
    h = 0.03
    t = np.arange(200) * h
    u_held = signal(200, 2)
    y = respond(fmu, {"e": u_held}, ["v"], h)[:, 0]
    samples = np.arange(int(t[-1] / 0.1) + 1) * 0.1
    u_at = u_held[np.searchsorted(t, samples + 1e-12, side="right") - 1]
    want = _difference_equation(ss.A, ss.B, ss.C, ss.D, u_at)[:, 0]
    latest = np.searchsorted(samples, t + 1e-12, side="right") - 1  # the last sample at or before each point
    assert np.abs(y[: len(latest)] - want[latest]).max() <= 1e-12


def test_state_feedback_with_operating_point_and_tunable_gain(tmp_path):
    K = np.array([[2.0, 0.5], [0.0, 3.0]])
    fb = sb.StateFeedback(K, x_ref=[1.0, 0.0], u_ref=[10.0, -1.0])
    fmu = build(tmp_path, fb, "sf", ["x", "dx"], ["F", "G"])
    s = Stepper(fmu)
    s.set({"x": 3.0, "dx": -2.0})
    x = np.array([3.0, -2.0])
    assert np.allclose(s.get(["F", "G"]), np.array([10.0, -1.0]) - K @ (x - [1.0, 0.0]), rtol=0, atol=1e-14)
    s.step(0.1)
    s.set({"K[F,x]": 5.0, "x_ref": 0.0})  # tunable in step mode
    assert s.get(["F"]) == [pytest.approx(10.0 - 5.0 * 3.0 - 0.5 * -2.0, abs=1e-14)]
    s.close()
    names = [v.name for v in fmpy.read_model_description(str(fmu)).modelVariables]
    assert "K[G,x]" not in names  # a structural zero is no parameter


def test_references_as_inputs_and_the_declared_feedthrough(tmp_path):
    fmu = build(tmp_path, np.array([[4.0, 1.0]]), "track", ["x", "dx"], ["F"], references="inputs")
    md = fmpy.read_model_description(str(fmu))
    by = {v.name: v for v in md.modelVariables}
    assert {n: by[n].causality for n in ("x_ref", "dx_ref", "F_ref")} == dict.fromkeys(("x_ref", "dx_ref", "F_ref"), "input")
    (out,) = md.outputs
    assert sorted(d.name for d in out.dependencies) == ["F_ref", "dx", "dx_ref", "x", "x_ref"]
    y = respond(fmu, {"x": np.array([1.0, 2.0]), "x_ref": np.array([0.5, 2.5]), "F_ref": np.array([3.0, 3.0])}, ["F"], 0.1)
    assert y[:, 0].tolist() == [3.0 - 4.0 * 0.5, 3.0 + 4.0 * 0.5]
    # a strictly proper transfer function feeds nothing through
    strict = build(tmp_path, control.tf([1.0], [1.0, 1.0]), "lag", ["e"], ["v"])
    (lag,) = fmpy.read_model_description(str(strict)).outputs
    assert lag.dependencies == []


# ------------------------------------------------------------------------------------------ PID


def _pid_reference(meas, kp, ki, kd, tf, kt, ts, u_min, u_max, ref=0.0):
    """The PID's documented difference equations, written out independently of the C runtime."""
    integral, deriv, last, out = 0.0, 0.0, None, []
    for m in meas:
        e = ref - m
        deriv = 0.0 if last is None else (tf * deriv + kd * (e - last)) / (tf + ts)
        v = kp * e + integral + deriv
        u = min(max(v, u_min), u_max)
        integral += ts * (ki * e + kt * (u - v))
        last = e
        out.append(u)
    return np.array(out)


@pytest.mark.parametrize("fmi", [2, 3])
def test_pid_without_limits_is_its_discrete_transfer_function(tmp_path, fmi):
    kp, ki, kd, tf, ts = 2.0, 1.5, 0.3, 0.05, 0.02
    fmu = build(tmp_path, sb.PID(kp, ki, kd, sample_time=ts, tf=tf), "pid", ["y"], ["u"], fmi)
    meas = np.concatenate([[0.0], np.cumsum(0.1 * np.random.default_rng(2).standard_normal(299))])
    out = respond(fmu, {"y": meas}, ["u"], ts)[:, 0]
    z = control.tf([1.0, 0.0], [1.0], ts)
    C = kp + ki * ts / (z - 1) + kd * (z - 1) / ((tf + ts) * z - tf)
    ref = control.forced_response(C, T=np.arange(len(meas)) * ts, U=-meas).outputs
    assert np.abs(out - ref).max() < 1e-10 * np.abs(ref).max()


def test_pid_limits_and_anti_windup(tmp_path, capsys):
    ts = 0.01
    pid = sb.PID(5.0, 4.0, 0.0, sample_time=ts, u_min=-1.0, u_max=1.0, reference=1.0)
    fmu = build(tmp_path, pid, "pidsat", ["y"], ["u"])
    meas = np.zeros(1000)
    meas[250:] = 1.5  # the measurement overshoots the set point: the integrator must unwind
    leaves = {}
    for kt in (pid.anti_windup_gain, 0.0):
        out = respond(fmu, {"y": meas}, ["u"], ts, {"kt": kt})[:, 0]
        ref = _pid_reference(meas, 5.0, 4.0, 0.0, 0.0, kt, ts, -1.0, 1.0, 1.0)
        assert np.abs(out - ref).max() < 1e-12
        assert out.max() <= 1.0 and out.min() >= -1.0
        leaves[kt] = np.flatnonzero(out[250:] < 0.999)[0]  # steps until the output leaves its upper limit
    # back-calculation leaves saturation at once; a wound-up integrator (I = 4 * 0.01 * 250 = 10) keeps
    # v = -2.5 + 10 - 0.02 j above the limit while j <= (7.5 - 1) / 0.02 = 325
    assert leaves[pid.anti_windup_gain] == 0 and leaves[0.0] == 326
    s = Stepper(fmu)
    s.set({"u_min": 2.0})  # crossed limits: refused at the next step
    with pytest.raises(FMICallException, match="DoStep"):
        s.step(ts)
    assert "the output limits are crossed: u_min = 2 > u_max = 1" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------- shaper


def test_zv_shaper_cancels_the_mode_and_delays_as_documented(tmp_path):
    omega, zeta = 2.0, 0.1
    zv = InputShaper.zv(omega, zeta)
    k = math.exp(-zeta * math.pi / math.sqrt(1 - zeta**2))
    assert zv.amplitudes == pytest.approx((1 / (1 + k), k / (1 + k)), abs=0)
    assert zv.times[1] == pytest.approx(math.pi / (omega * math.sqrt(1 - zeta**2)), abs=0)
    # the residual vibration of the mode after the shaped step is zero (the shaper's defining property)
    wd = omega * math.sqrt(1 - zeta**2)
    residual = sum(a * np.exp(zeta * omega * t) * np.exp(1j * wd * t) for a, t in zip(zv.amplitudes, zv.times))
    assert abs(residual) < 1e-12
    fmu = build(tmp_path, zv, "zv", ["r"], ["r_shaped"])
    h = 0.1  # the second impulse (1.5787 s) is no multiple of it
    t = np.arange(60) * h
    r = np.where(t >= 0.5, 1.0, 0.0)
    y = respond(fmu, {"r": r}, ["r_shaped"], h)[:, 0]
    # the documented rule: the value held at t - tau, i.e. the input set at the last point at or before it
    want = [sum(a * (1.0 if s - tau >= 0.5 - 1e-12 else 0.0) for a, tau in zip(zv.amplitudes, zv.times)) for s in t]
    assert np.abs(y - want).max() < 1e-15
    assert y[20] == pytest.approx(zv.amplitudes[0]) and y[21] == pytest.approx(1.0)  # 0.5 + 1.5787 -> 2.1
    # before the start time the input is `initial`: a command at its target from the start is shaped as a step
    y0 = respond(fmu, {"r": np.full(30, 2.0)}, ["r_shaped"], h, {"initial": 0.0})[:, 0]
    assert y0[0] == pytest.approx(2.0 * zv.amplitudes[0]) and y0[-1] == pytest.approx(2.0)
    s = Stepper(fmu)
    s.step(h)
    with pytest.raises(FMICallException):  # delays are fixed: settable before the end of initialization only
        s.set({"t[2]": 1.0})


def test_crane_example_shaper_object_is_accepted(tmp_path):
    """Anything with times and amplitudes (the crane examples' Shaper) is an input shaper."""

    class Shaper:
        times = np.array([0.0, 1.8])
        amplitudes = np.array([0.5, 0.5])

    law = control_law(Shaper(), ["r"], ["rs"])
    assert law.kind == "shaper" and law.coefficients == [0.5, 0.5, 0.0, 1.8, 0.0]


# ------------------------------------------------------------------------------- FMU guarantees


def _drive(s: Stepper, u: np.ndarray, h: float = 0.01) -> list[float]:
    out = []
    for uk in u:
        s.set({"e": uk})
        out.append(s.get(["v"])[0])
        s.step(h)
    return out


@pytest.mark.parametrize("fmi", [2, 3])
def test_fmu_state_restores_and_serializes_every_law(tmp_path, fmi):
    laws = {
        "lin": (control.ss([[-1.0, 2.0], [0.0, -3.0]], [[1.0], [1.0]], [[1.0, 0.0]], [[0.2]]), ["e"], ["v"]),
        "pidst": (sb.PID(1.0, 2.0, 0.1, sample_time=0.03, tf=0.02), ["e"], ["v"]),
        "shp": (InputShaper.zvd(3.0, 0.05), ["e"], ["v"]),
    }
    for name, (law, ins, outs) in laws.items():
        fmu = build(tmp_path, law, f"{name}{fmi}", ins, outs, fmi)
        assert validate_fmu(str(fmu)) == [], name
        s = Stepper(fmu)
        u = signal(80, 4)
        for k in range(40):
            s.set({"e": u[k]})
            s.step(0.01)
        state = s.slave.getFMUState()
        blob = s.slave.serializeFMUState(state)
        first = _drive(s, u[40:])
        for restore in ("state", "bytes"):
            s.slave.setFMUState(state if restore == "state" else s.slave.deserializeFMUState(blob))
            s.time = 0.4
            assert _drive(s, u[40:]) == first, (name, restore)
        s.close()


def test_non_finite_input_is_refused_and_changes_nothing(tmp_path):
    fmu = build(tmp_path, np.array([[1.0]]), "guard", ["x"], ["F"])
    s = Stepper(fmu)
    s.set({"x": 2.0})
    with pytest.raises(FMICallException):
        s.set({"x": float("nan")})
    assert s.get(["x", "F"]) == [2.0, -2.0]
    s.close()


def test_export_errors_name_the_problem(tmp_path):
    with pytest.raises(ExportError, match="2 inputs and 1 outputs"):
        build(tmp_path, control.ss(np.eye(2), np.eye(2), [[1.0, 0.0]], [[0.0, 0.0]]), "x", ["e"], ["v"])
    with pytest.raises(ExportError, match="no sample time"):
        build(tmp_path, control.tf([1.0], [1.0, 0.5], True), "x", ["e"], ["v"])
    with pytest.raises(ExportError, match="used twice"):
        build(tmp_path, np.array([[1.0, 1.0]]), "x", ["x", "x_ref"], ["F"])
    with pytest.raises(ExportError, match="cannot export a controller of type dict"):
        build(tmp_path, {}, "x", ["e"], ["v"])
    eq = example("overhead_crane").derive()
    with pytest.raises(ExportError, match="'F_trolly', which is not an input of the plant 'overhead_crane'"):
        build(tmp_path, np.array([[1.0]]), "x", ["x"], ["F_trolly"], plant=eq)
    assert not list(tmp_path.glob("*.fmu"))


def test_units_come_from_the_plant(tmp_path):
    eq = example("overhead_crane").derive()
    fmu = build(tmp_path, np.array([[2.0, 1.0]]), "units", ["x", "dx"], ["F_trolley"], plant=eq)
    units = {v.name: v.unit for v in fmpy.read_model_description(str(fmu)).modelVariables}
    assert (units["x"], units["dx"], units["F_trolley"]) == ("m", "m/s", "N")
    assert (units["K[F_trolley,x]"], units["K[F_trolley,dx]"]) == ("N/m", "N/m.s")


def test_controller_library_exports_only_the_fmi_functions(tmp_path):
    fmu = build(tmp_path, np.array([[1.0]]), "exports", ["x"], ["F"])
    folder = fmpy.extract(str(fmu))
    lib = ctypes.CDLL(f"{folder}/binaries/linux64/exports.so")
    assert hasattr(lib, "fmi2DoStep") and hasattr(lib, "fmi2GetDerivatives")
    for hidden in ("sbc_do_step", "sbc_controller", "sb_lu_factor"):
        assert not hasattr(lib, hidden), hidden
