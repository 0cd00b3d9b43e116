"""Motion inputs and first-order states through FMI 2 and 3 FMUs (C and Python backends) against closed forms.

A first-order lag and a DC motor (closed forms), the pendulum on a uniformly accelerating pivot
(relative equilibrium and frequency), Kapitza's pendulum (stable upside down above ``a^2 w^2 = 2 g l``),
the driving torque of a motion prescribed by a motion input, a motion input driven by its position and the
input derivatives of FMI 2, FMU states and directional derivatives, and the wrench of a moving base.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
import zipfile

import fmpy
import numpy as np
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.validation import validate_fmu

from symbody.fmu import export_fmu
from symbody.fmu.testing import FmuSession, fmu_simulation
from symbody.numeric import NumericModel

from support.motion_models import (
    TAU,
    G,
    L,
    dc_motor,
    dc_motor_response,
    driven_pendulum,
    driven_torque,
    lag,
    pivot_pendulum,
    ship_crane_arm,
    tied_carts,
)

MODELS = {
    "lag": lag,
    "dc_motor": dc_motor,
    "pivot": pivot_pendulum,
    "driven": driven_pendulum,
    "ship_arm": ship_crane_arm,
    "tied": tied_carts,
}
A_PIVOT = 3.0


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """``build(model, version, kind, backend="c")``: the FMU of a model of tests/support/motion_models.py."""
    folder = tmp_path_factory.mktemp("motion_fmus")
    built: dict[tuple, object] = {}

    def get(model: str, version: int, kind: str, backend: str = "c"):
        key = (model, version, kind, backend)
        if key not in built:
            path = folder / f"{model}_{version}_{kind}_{backend}.fmu"
            built[key] = export_fmu(MODELS[model]().derive(), path, fmi_version=version, kind=kind, backend=backend)
        return built[key]

    return get


KINDS = [(2, "CoSimulation"), (3, "CoSimulation"), (2, "ModelExchange"), (3, "ModelExchange")]
IDS = [f"fmi{v}-{'cs' if k == 'CoSimulation' else 'me'}" for v, k in KINDS]


@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
def test_dc_motor_and_lag_follow_their_closed_forms(build, version, fmi_type):
    fmu = build("dc_motor", version, "both")
    res = fmu_simulation(fmu, 1.0, 0.05, fmi_type=fmi_type, start_values={"V": 12.0}, relative_tolerance=1e-9,
                         output=["i", "speed", "current", "der(i)"])  # fmt: skip
    i, w = dc_motor_response(res["time"], 12.0)
    assert res["i"] == pytest.approx(i, abs=2e-6) and res["speed"] == pytest.approx(w, abs=5e-6)
    assert res["current"] == pytest.approx(res["i"], abs=0)
    fmu = build("lag", version, "both")
    res = fmu_simulation(fmu, 1.0, 0.1, fmi_type=fmi_type, start_values={"u": 3.0}, relative_tolerance=1e-9,
                         output=["x", "y", "der(x)"])  # fmt: skip
    exact = 3.0 * (1.0 - np.exp(-res["time"] / TAU))
    assert res["x"] == pytest.approx(exact, abs=1e-6) and res["y"] == pytest.approx(2 * exact, abs=2e-6)
    assert res["der(x)"] == pytest.approx(3.0 / TAU * np.exp(-res["time"] / TAU), abs=1e-5)


@pytest.mark.parametrize("method", [1, 2, 3])
def test_every_cosimulation_solver_and_the_python_backend_integrate_states(build, method):
    for fmu in (build("dc_motor", 3, "cs"), build("dc_motor", 2, "cs", "python")):
        res = fmu_simulation(fmu, 0.5, 0.05, start_values={"V": 12.0, "solver.method": method, "solver.step": 1e-3,
                                                          "solver.rtol": 1e-9})  # fmt: skip
        i, w = dc_motor_response(res["time"], 12.0)
        tol = 2e-5 if method == 3 else 1e-6  # rosenbrock23: second order, errors of rtol^(2/3)
        assert res["i"] == pytest.approx(i, abs=tol) and res["speed"] == pytest.approx(w, abs=5 * tol)


def test_states_have_derivative_variables_and_model_structure(build):
    fmu = build("dc_motor", 2, "me")
    md = fmpy.read_model_description(str(fmu))
    derivatives = {d.variable.name: d for d in md.derivatives}
    assert list(derivatives) == ["dphi", "ddphi", "der(i)"]
    der_i = derivatives["der(i)"]
    assert der_i.variable.derivative.name == "i" and der_i.variable.causality == "local"
    assert {v.name for v in der_i.dependencies} == {"dphi", "i", "V"}
    assert {v.name for v in derivatives["ddphi"].dependencies} == {"dphi", "i"}
    assert not validate_fmu(str(fmu))


@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
def test_pendulum_on_a_uniformly_accelerating_pivot(build, version, fmi_type):
    theta_e = -math.atan(A_PIVOT / G)
    w = math.sqrt(math.hypot(G, A_PIVOT) / L)
    T = 2 * math.pi / w
    start = {"theta": theta_e + 0.01}
    kw = {}
    if fmi_type == "CoSimulation":  # the acceleration set once: the motion follows its polynomial step by step
        start["ddxp"] = A_PIVOT
    else:  # Model Exchange: the importer gives the motion at every time
        t = np.linspace(0.0, T, 4001)
        zero = np.zeros_like(t)
        kw["input"] = np.array(
            list(zip(t, 0.5 * A_PIVOT * t * t, A_PIVOT * t, A_PIVOT + zero, zero, zero, zero)),
            dtype=[(n, float) for n in ("time", "xp", "dxp", "ddxp", "yp", "dyp", "ddyp")],
        )
    res = fmu_simulation(build("pivot", version, "both"), T, T / 8, fmi_type=fmi_type, start_values=start,
                         relative_tolerance=1e-10, output=["theta", "xp", "bob_x"], **kw)  # fmt: skip
    assert res["theta"] - theta_e == pytest.approx(0.01 * np.cos(w * res["time"]), abs=2e-5)
    assert res["xp"] == pytest.approx(0.5 * A_PIVOT * res["time"] ** 2, abs=1e-9)
    assert res["bob_x"] == pytest.approx(res["xp"] + L * np.sin(res["theta"]), abs=1e-12)


@pytest.mark.parametrize("factor, stable", [(1.5, True), (1 / 1.5, False)])
@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
def test_kapitza_pendulum_through_fmus(build, version, fmi_type, factor, stable):
    """The inverted pendulum on a pivot vibrating as ``a cos(w t)`` (a/l = 0.05) stays up 1.5 times above the
    boundary ``a^2 w^2 = 2 g l`` and falls 1.5 times below it, in Co-Simulation (the exact vibration at each
    communication point, a polynomial inside) and in Model Exchange (set at every stage of the integrator)."""
    a = 0.05 * L
    w = factor * math.sqrt(2 * G * L) / a

    def vibration(t: float) -> dict[str, float]:
        c, sn = math.cos(w * t), math.sin(w * t)
        return {"yp": a * c, "dyp": -a * w * sn, "ddyp": -a * w * w * c}

    s = FmuSession(build("pivot", version, "both"), fmi_type)
    h = 2e-3 if fmi_type == "CoSimulation" else 1e-3
    try:
        cs = {"solver.method": 2, "solver.rtol": 1e-8} if fmi_type == "CoSimulation" else {}
        s.initialize(theta=math.pi - 0.1, **vibration(0.0), **cs)
        if fmi_type == "CoSimulation":
            theta = []
            for k in range(1, round(3.0 / h) + 1):
                s.step(h)
                s.set(**vibration(k * h))
                theta.append(float(s.get("theta")[0]))
        else:
            theta = [r["theta"] for r in _me_rk4(s, vibration, 3.0, h, ["theta"])]
    finally:
        s.close()
    excursion = float(np.max(np.abs(np.array(theta) - math.pi)))
    assert (excursion < 0.2) if stable else (excursion > 1.0)


def _fmi2_slave(fmu):
    md = fmpy.read_model_description(str(fmu))
    unzipped = fmpy.extract(str(fmu))
    slave = fmpy.fmi2.FMU2Slave(guid=md.guid, unzipDirectory=unzipped, modelIdentifier=md.coSimulation.modelIdentifier)
    slave.instantiate()
    return md, slave, {v.name: v.valueReference for v in md.modelVariables}


def test_fmi2_input_derivatives_drive_a_motion_input_by_its_position(build):
    fmu = build("pivot", 2, "cs")
    root = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))
    assert root.find("CoSimulation").get("canInterpolateInputs") == "true"
    theta_e, w = -math.atan(A_PIVOT / G), math.sqrt(math.hypot(G, A_PIVOT) / L)
    md, slave, vr = _fmi2_slave(fmu)
    try:
        slave.setupExperiment(startTime=0.0)
        slave.setReal([vr["theta"], vr["solver.rtol"]], [theta_e + 0.01, 1e-10])
        slave.enterInitializationMode()
        slave.exitInitializationMode()
        h = 0.05
        for k in range(40):  # only the position is set: its derivatives come by fmi2SetRealInputDerivatives
            t = k * h
            slave.setReal([vr["xp"]], [0.5 * A_PIVOT * t * t])
            slave.setRealInputDerivatives([vr["xp"], vr["xp"]], [1, 2], [A_PIVOT * t, A_PIVOT])
            slave.doStep(t, h)
        t = 40 * h
        theta, xp, dxp, ddxp = slave.getReal([vr["theta"], vr["xp"], vr["dxp"], vr["ddxp"]])
        assert theta - theta_e == pytest.approx(0.01 * math.cos(w * t), abs=2e-5)
        assert (xp, dxp, ddxp) == pytest.approx((0.5 * A_PIVOT * t * t, A_PIVOT * t, A_PIVOT), abs=1e-9)
        with pytest.raises(FMICallException):  # the rates of a motion input take no derivatives of their own
            slave.setRealInputDerivatives([vr["dxp"]], [1], [1.0])
        with pytest.raises(FMICallException):
            slave.setRealInputDerivatives([vr["xp"]], [3], [1.0])
    finally:
        slave.terminate()
        slave.freeInstance()


def _law(t: float) -> dict[str, float]:
    """The prescribed angle ``0.6 sin(2 t)`` with its rates: the motion input ``z`` of the driven pendulum."""
    return {"z": 0.6 * math.sin(2 * t), "dz": 1.2 * math.cos(2 * t), "ddz": -2.4 * math.sin(2 * t)}


def _me_rk4(s: FmuSession, signal, stop: float, h: float, names: list[str]) -> list[dict[str, float]]:
    """Model Exchange integrated by the classic Runge-Kutta 4 with the inputs set at every stage's time (an
    importer that holds its inputs over a step would feed a prescribed motion a staircase); ``names`` recorded
    after each step."""

    def f(t, x):
        s.fmu.setTime(t)
        s.set(**signal(t))
        s.set_states(x)
        return s.derivatives()

    x, t, out = s.states(), 0.0, []
    for _ in range(round(stop / h)):
        k1 = f(t, x)
        k2 = f(t + h / 2, x + h / 2 * k1)
        k3 = f(t + h / 2, x + h / 2 * k2)
        k4 = f(t + h, x + h * k3)
        x, t = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4), t + h
        f(t, x)
        out.append(dict(zip(names, s.get(*names))))
    return out


@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
def test_the_driving_torque_of_a_motion_input_is_the_closed_form(build, version, fmi_type):
    s = FmuSession(build("driven", version, "both"), fmi_type)
    try:
        s.initialize(**_law(0.0), **({"solver.rtol": 1e-10} if fmi_type == "CoSimulation" else {}))
        if fmi_type == "CoSimulation":  # the exact motion at each communication point, a polynomial inside
            rows = []
            for k in range(1, 201):
                s.step(0.01)
                rows.append(dict(zip(("theta", "z", "ddz", "torque"), s.get("theta", "z", "ddz", "torque"))))
                s.set(**_law(k * 0.01))
        else:
            rows = _me_rk4(s, _law, 2.0, 1e-3, ["theta", "z", "ddz", "torque"])
    finally:
        s.close()
    theta, z, ddz, torque = (np.array([r[k] for r in rows]) for k in ("theta", "z", "ddz", "torque"))
    assert theta == pytest.approx(z, abs=1e-7)
    assert torque == pytest.approx(driven_torque(z, ddz), abs=1e-6)
    assert np.ptp(torque) > 1.0  # (a torque that varies)


def test_directional_derivatives_of_states_are_those_of_the_linear_model(build):
    from support.motion_models import IND, KT, J, R
    from support.motion_models import B as FRICTION

    for version in (2, 3):
        s = FmuSession(build("dc_motor", version, "me"), "ModelExchange")
        try:
            s.initialize(V=12.0, i=1.5)
            unknowns = ["ddphi", "der(i)", "speed"]
            jac = np.array([s.directional(unknowns, [k], [1.0]) for k in ("dphi", "i", "V")]).T
            exact = np.array([[-FRICTION / J, KT / J, 0.0], [-KT / IND, -R / IND, 1 / IND], [1.0, 0.0, 0.0]])
            assert jac == pytest.approx(exact, rel=1e-7, abs=1e-7)
        finally:
            s.close()


@pytest.mark.parametrize("model, start", [("dc_motor", {"V": 12.0}), ("pivot", {"ddxp": 2.0, "dyp": 0.3})])
def test_fmu_state_holds_first_order_states_and_motion_inputs(build, model, start):
    for version in (2, 3):
        s = FmuSession(build(model, version, "cs"))
        names = [v.name for v in s.md.modelVariables if v.causality == "output"]
        try:
            s.initialize(**start)
            for _ in range(5):
                s.step(0.02)
            state, t0 = s.get_state(), s.time
            data = s.serialize(state)
            for _ in range(5):
                s.step(0.02)
            end = s.get(*names)
            s.set_state(s.deserialize(data))
            s.time = t0
            for _ in range(5):
                s.step(0.02)
            assert np.array_equal(s.get(*names), end)
        finally:
            s.close()


def test_the_wrench_on_the_moving_base_is_that_of_the_python_model(build):
    eq = ship_crane_arm().derive()
    nm = NumericModel(eq)
    q, dq = np.array([0.5, 0.3, -0.8]), np.array([0.2, -0.4, 0.6])
    u = np.array([0.3, -0.5, 0.8, 0.05, 0.1, -0.2, -0.03, 0.04, 0.3])
    ddq, lam = nm.accelerations(q, dq, t=0.0, u=u)
    names = [o.name for o in eq.outputs]
    expected = nm.outputs(q, dq, t=0.0, u=u, ddq=ddq, lam=lam)
    for version in (2, 3):
        s = FmuSession(build("ship_arm", version, "cs"))
        try:
            values = dict(zip(["slew", "luff", "fold"], q)) | dict(zip(["dslew", "dluff", "dfold"], dq))
            values |= dict(zip([i.name for i in eq.inputs], u))
            s.initialize(**values)
            assert s.get(*names) == pytest.approx(expected, rel=1e-10, abs=1e-8)
        finally:
            s.close()


@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
def test_states_whose_rates_use_multipliers_follow_the_python_simulation(build, version, fmi_type):
    """The rope's length grows at a constant rate (z = 0.3 t: dz held, z moves with it inside every step)."""
    from symbody.numeric import simulate

    start = {"dz": 0.3, "v": 1.0, "dx2": 0.0}
    ref = simulate(tied_carts().derive(), 1.0, dt=0.25, inputs={"z": lambda t: (0.3 * t, 0.3, 0.0), "v": 1.0},
                   rtol=1e-12, atol=1e-14, formulation="projection")  # fmt: skip
    if fmi_type == "CoSimulation":
        res = fmu_simulation(build("tied", version, "both"), 1.0, 0.25, start_values={**start, "solver.rtol": 1e-10},
                             output=["x1", "x2", "tension", "i", "tension_lag"])  # fmt: skip
    else:
        s = FmuSession(build("tied", version, "both"), "ModelExchange")
        try:
            s.initialize(**start)
            rows = _me_rk4(s, lambda t: {"z": 0.3 * t, "dz": 0.3}, 1.0, 1e-3, ["x1", "x2", "tension", "i"])
        finally:
            s.close()
        res = {k: np.array([r[k] for r in rows[249::250]]) for k in ("x1", "x2", "tension", "i")}
        res["time"] = np.array([0.25, 0.5, 0.75, 1.0])
    for name in ("x1", "x2", "tension", "i"):
        expected = np.interp(res["time"], ref.t, ref[name])
        assert res[name] == pytest.approx(expected, abs=1e-6), name


def test_python_backend_follows_a_motion_input(build):
    theta_e = -math.atan(A_PIVOT / G)
    w = math.sqrt(math.hypot(G, A_PIVOT) / L)
    T = 2 * math.pi / w
    res = fmu_simulation(build("pivot", 2, "cs", "python"), T, T / 8,
                         start_values={"theta": theta_e + 0.01, "ddxp": A_PIVOT, "solver.rtol": 1e-10},
                         output=["theta", "xp"])  # fmt: skip
    assert res["theta"] - theta_e == pytest.approx(0.01 * np.cos(w * res["time"]), abs=2e-5)
    assert res["xp"] == pytest.approx(0.5 * A_PIVOT * res["time"] ** 2, abs=1e-9)


@pytest.mark.parametrize("model", ["dc_motor", "tied", "pivot", "driven"])
@pytest.mark.parametrize("version", [2, 3])
def test_fmus_with_motion_inputs_and_states_validate(build, model, version):
    fmu = build(model, version, "both")
    assert validate_fmu(str(fmu)) == []
    md = fmpy.read_model_description(str(fmu))
    states = [d.variable.derivative.name for d in md.derivatives]
    eq = MODELS[model]().derive()
    assert states == eq_states(eq)


def eq_states(eq) -> list[str]:
    """The continuous states of a Model Exchange FMU: positions, velocities, first-order states."""
    return [c.name for c in eq.coordinates] + [c.dq.name for c in eq.coordinates] + [x.name for x in eq.states]
