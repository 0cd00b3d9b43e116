"""Coulomb friction with stick and slip in native FMUs (FMI 2 and 3, Model Exchange under fmpy's CVode with
its event iteration, Co-Simulation with every embedded solver) against exact solutions and against
symbody's own Python simulation of the same model:

- a block on an incline (the normal force is the force of a unilateral contact) stays stuck below the
  friction angle (no creep; the friction force ``m g sin(alpha)`` as an output) and slides above it with
  ``g (sin(alpha) - mu cos(alpha))``; launched downhill on a gentle slope it comes to rest at ``v0 / |a|``;
- a block pushed by a triangular force breaks away when the force reaches ``mu_static N`` and sticks
  again once the force has fallen and the velocity returns to zero, both at their exact times, with the
  normal force ``m g`` given, from a unilateral contact, or from a bilateral constraint's multiplier.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

import symbody as sb
from symbody.errors import ExportError
from symbody.fmu import export_fmu
from symbody.fmu.description import model_description
from symbody.fmu.run import restore_fmi2_message_proxy
from symbody.fmu.spec import FmuSpec
from symbody.fmu.testing import fmu_simulation
from symbody.numeric import simulate

from support.friction_models import incline, sine_push_events, sine_pushed_block

G = 9.81
VERSIONS = pytest.mark.parametrize("version", (2, 3))
SOLVERS = {"rk4": 1, "dopri5": 2, "rosenbrock23": 3}


# the pushed block: m x'' = P(t) + F, P = k max(0, t1 - |t - t1|), |N| = m g
M, K, T1, MU, MU_S = 2.0, 4.0, 2.6, 0.3, 0.5


def pushed(normal: str) -> sb.System:
    s = sb.System(f"pushed_{normal}")
    x = s.coordinate("x")
    if normal == "given":
        s.particle("b", s.point("P", s.origin, (x, 0, 0)), M)
        n = M * G
    else:
        y = s.coordinate("y")
        s.particle("b", s.point("P", s.origin, (x, y, 0)), M)
        s.gravity((0, -G, 0))
        if normal == "contact":
            n = s.unilateral("floor", y).force
        else:
            s.constraint("rail", y)
            n = s.multiplier("rail")
    s.generalized_force("push", x, K * sb.maximum(0, T1 - sb.Abs(s.t - T1)))
    f = s.stick_slip("friction", x, normal=n, mu=MU, mu_static=MU_S)
    s.output("F_t", f.force)
    return s


def pushed_exact() -> tuple[float, float, float]:
    """Breakaway time (``k t = mu_s m g``), the time it sticks again (the velocity, piecewise quadratic in
    time, back to zero while the force falls) and where it stops."""
    fk = MU * M * G
    tb = MU_S * M * G / K
    v1 = (K * (T1**2 - tb**2) / 2 - fk * (T1 - tb)) / M  # at the peak of the force
    x1 = (K * ((T1**3 - tb**3) / 6 - tb**2 * (T1 - tb) / 2) - fk * (T1 - tb) ** 2 / 2) / M
    c2, c1 = -K / (2 * M), (K * T1 - fk) / M  # v = v1 + c1 tau + c2 tau^2 after the peak
    tau = (-c1 - math.sqrt(c1 * c1 - 4 * c2 * v1)) / (2 * c2)
    assert 0 < tau < T1 and K * (T1 - tau) < MU_S * M * G  # it stops while pushed, and the push cannot move it
    return tb, T1 + tau, x1 + v1 * tau + ((K * T1 - fk) * tau**2 / 2 - K * tau**3 / 6) / M


def me_run(system: sb.System, tmp_path, version: int, stop: float, interval: float, output: list[str]):
    fmu = export_fmu(system, tmp_path / f"{system.name}{version}.fmu", fmi_version=version, kind="both")
    res = fmu_simulation(fmu, stop, interval, fmi_type="ModelExchange", relative_tolerance=1e-10, output=output)
    return fmu, res


def cs_run(fmu, stop: float, interval: float, method: str, output: list[str], log: list[str] | None = None):
    def logger(*args):  # (..., category, message): the mode changes are logged under logEvents
        if log is not None and args[-2] == b"logEvents":
            log.append(args[-1].decode())

    start = {"solver.method": SOLVERS[method], "solver.step": 1e-3, "solver.rtol": 1e-10, "solver.atol": 1e-12}
    return fmu_simulation(
        fmu, stop, interval, start_values=start, output=output, logger=logger, debug_logging=log is not None
    )


def event_rows(t: np.ndarray) -> list[float]:
    """The times fmpy recorded twice (before and after an event)."""
    return [float(t[i]) for i in range(1, t.size) if t[i] == t[i - 1]]


def logged(log: list[str], what: str, name: str = "friction") -> list[float]:
    """The times of the logged mode changes of a friction element (``sticks``, ``slips forward``, ...)."""
    return [float(m.split("t = ")[1].split(":")[0]) for m in log if f"friction '{name}' {what}" in m]


@VERSIONS
@pytest.mark.parametrize("alpha_deg", [10.0, 25.0])
def test_block_sticks_below_the_friction_angle(tmp_path, version, alpha_deg):
    alpha, m = math.radians(alpha_deg), 3.0
    assert math.tan(alpha) < 0.5
    system = incline(alpha, 0.4, 0.5)
    out = ["s", "ds", "n", "F_t", "N"]
    fmu, me = me_run(system, tmp_path, version, 2.0, 0.25, out)
    runs = [me] + [cs_run(fmu, 2.0, 0.5, method, out) for method in SOLVERS]
    py = simulate(system.derive(), 2.0, dt=0.25)
    for res in runs:
        assert np.all(np.abs(res["s"]) <= 1e-12) and np.all(np.abs(res["ds"]) <= 1e-12)  # stuck: no creep
        assert np.allclose(res["F_t"], -m * G * math.sin(alpha), rtol=1e-9)  # holds it up the slope
        assert np.allclose(res["N"], m * G * math.cos(alpha), rtol=1e-9)
    assert np.allclose(me["F_t"], py["friction"], rtol=1e-7)


@VERSIONS
@pytest.mark.parametrize("alpha_deg", [30.0, 50.0])
def test_block_slides_above_the_friction_angle(tmp_path, version, alpha_deg):
    alpha, mu, m = math.radians(alpha_deg), 0.4, 3.0
    a = G * (math.sin(alpha) - mu * math.cos(alpha))
    system = incline(alpha, mu, 0.5)
    out = ["s", "ds", "dds", "F_t"]
    fmu, me = me_run(system, tmp_path, version, 2.0, 0.25, out)
    py = simulate(system.derive(), 2.0, dt=0.25)
    for name, res in [("me", me)] + [(method, cs_run(fmu, 2.0, 0.5, method, out)) for method in SOLVERS]:
        t = res["time"]
        assert np.allclose(res["s"], 0.5 * a * t**2, rtol=1e-8, atol=1e-12), name
        assert np.allclose(res["ds"], a * t, rtol=1e-8, atol=1e-12), name
        assert np.allclose(res["dds"], a, rtol=1e-9), name
        assert np.allclose(res["F_t"], -mu * m * G * math.cos(alpha), rtol=1e-9), name
    assert np.allclose(me["s"], np.interp(me["time"], py.t, py["s"]), rtol=1e-8, atol=1e-12)


@VERSIONS
def test_block_launched_downhill_comes_to_rest_and_sticks(tmp_path, version):
    alpha, mu, v0, m = math.radians(15), 0.5, 2.0, 3.0
    a = G * (math.sin(alpha) - mu * math.cos(alpha))
    t_stop, s_stop = -v0 / a, -v0 * v0 / (2 * a)
    system = incline(alpha, mu, 0.6, v0=v0)
    out = ["s", "ds", "F_t"]
    fmu, me = me_run(system, tmp_path, version, 3.0, 0.5, out)
    assert event_rows(me["time"]) == pytest.approx([t_stop], abs=1e-9)
    log: list[str] = []
    runs = {"me": me} | {method: cs_run(fmu, 3.0, 1.5, method, out, log) for method in SOLVERS}
    assert np.allclose(logged(log, "sticks"), t_stop, rtol=0, atol=1e-8)
    for name, res in runs.items():
        rest = res["time"] > t_stop + 1e-6  # (fmpy records the event twice: before and after it)
        assert np.allclose(res["s"][rest], s_stop, rtol=1e-9), name
        assert np.all(res["ds"][rest] == 0.0), name  # stopped exactly, and held
        assert np.allclose(res["F_t"][rest], -m * G * math.sin(alpha), rtol=1e-9), name
    py = simulate(system.derive(), 3.0, dt=0.5)
    assert [ev.time for ev in py.events if ev.kind == "stick"] == pytest.approx([t_stop], abs=1e-9)


@VERSIONS
def test_block_launched_uphill_stops_and_slides_back(tmp_path, version):
    """On a slope steeper than the friction angle: up with g (sin + mu cos) of deceleration, a stop where
    static friction cannot hold it (the mode reverses at once), then down with g (sin - mu cos)."""
    alpha, mu, v0 = math.radians(35), 0.4, -1.0
    a1, a2 = G * (math.sin(alpha) + mu * math.cos(alpha)), G * (math.sin(alpha) - mu * math.cos(alpha))
    t1 = -v0 / a1
    s1 = v0 * t1 + a1 * t1**2 / 2

    def exact(t: np.ndarray) -> np.ndarray:
        return np.where(t < t1, v0 * t + a1 * t**2 / 2, s1 + a2 * (t - t1) ** 2 / 2)

    system = incline(alpha, mu, 0.5, v0=v0)
    fmu, me = me_run(system, tmp_path, version, 2.0, 0.25, ["s", "ds"])
    assert event_rows(me["time"]) == pytest.approx([t1], abs=1e-9)
    assert np.allclose(me["s"], exact(me["time"]), rtol=1e-8, atol=1e-9)
    for method in SOLVERS:
        log: list[str] = []
        cs = cs_run(fmu, 2.0, 1.0, method, ["s"], log)
        assert logged(log, "slips forward") == pytest.approx([t1], abs=1e-8), method
        assert np.allclose(cs["s"], exact(cs["time"]), rtol=1e-6 if method == "rosenbrock23" else 1e-9), method
    py = simulate(system.derive(), 2.0, dt=0.25)
    assert np.allclose(py["s"], exact(py.t), rtol=1e-8, atol=1e-9)


def test_block_dropped_on_a_moving_belt_is_carried_along(tmp_path):
    """Friction on the rate relative to a belt moving at V (``x - V t``: the rate has a time term): the block
    slips with mu g until it moves with the belt at t = V / (mu g), then sticks and is carried along."""
    m, V, mu = 2.0, 1.5, 0.3
    s = sb.System("belt")
    x = s.coordinate("x")
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), m)
    f = s.stick_slip("belt", x - V * s.t, normal=m * G, mu=mu, mu_static=0.4)
    s.output("F_t", f.force)
    t_c = V / (mu * G)

    def exact(t: np.ndarray) -> np.ndarray:
        return np.where(t < t_c, mu * G * t**2 / 2, V * t_c / 2 + V * (t - t_c))

    fmu, me = me_run(s, tmp_path, 2, 2.0, 0.5, ["x", "dx", "F_t"])
    assert event_rows(me["time"]) == pytest.approx([t_c], abs=1e-9)
    for res in [me] + [cs_run(fmu, 2.0, 1.0, method, ["x", "dx", "F_t"]) for method in SOLVERS]:
        t = res["time"]
        assert np.allclose(res["x"], exact(t), rtol=1e-9, atol=1e-12)
        carried = t > t_c + 1e-6
        assert np.all(res["dx"][carried] == V) and np.all(res["F_t"][carried] == 0.0)
        assert np.allclose(res["F_t"][t < t_c - 1e-6], mu * m * G, rtol=1e-12)
    py = simulate(s.derive(), 2.0, dt=0.5)
    assert np.allclose(py["x"], exact(py.t), rtol=1e-9)


def test_breakaway_under_a_smooth_push_is_found_by_every_solver(tmp_path):
    """The push 10 sin(t) exceeds the static limit for 0.39 s while the block is stuck: the adaptive solvers
    would step over it (the stuck states do not limit their steps; dopri5 used to miss it in 6 s steps)."""
    events = sine_push_events()
    fmu, me = me_run(sine_pushed_block(), tmp_path, 2, 6.0, 3.0, ["x"])
    assert event_rows(me["time"]) == pytest.approx(events, abs=1e-8)
    for method in SOLVERS:
        log: list[str] = []
        cs_run(fmu, 6.0, 6.0, method, ["x"], log)
        found = sorted(logged(log, what, "floor") for what in ("slips forward", "sticks", "slips backward"))
        found = [t for times in found for t in times]
        # (rosenbrock23's Jacobian does not see the friction force: the held velocity creeps ~1e-7 at rtol 1e-10)
        assert found == pytest.approx(events, abs=1e-5 if method == "rosenbrock23" else 1e-8), method


@pytest.mark.parametrize(
    "normal, version",
    [("contact", 2), ("multiplier", 3)]
    + [pytest.param(n, v, marks=pytest.mark.slow) for n, v in (("contact", 3), ("given", 2), ("given", 3))]
    + [pytest.param("multiplier", 2, marks=pytest.mark.slow)],
)
def test_pushed_block_breaks_away_and_sticks_again_at_the_exact_times(tmp_path, version, normal):
    """The normal force ``m g``: given, the force of a unilateral contact on the floor, or the multiplier of
    a rail; the ME event times from fmpy's CVode, the CS ones inside 8 s communication steps."""
    t_break, t_stick, x_stop = pushed_exact()
    system = pushed(normal)
    fmu, me = me_run(system, tmp_path, version, 8.0, 0.5, ["x", "dx", "F_t"])
    # the events: the breakaway, the peak of the push (a kink), the stop, the end of the push (a kink)
    assert event_rows(me["time"]) == pytest.approx([t_break, T1, t_stick, 2 * T1], abs=1e-8)
    t = me["time"]
    before, after = t < t_break - 1e-6, t > t_stick + 1e-6
    assert np.all(me["x"][before] == 0.0) and np.allclose(me["F_t"][before], -K * t[before], rtol=1e-9)
    assert np.allclose(me["x"][after], x_stop, rtol=1e-7) and np.all(me["dx"][after] == 0.0)
    push = K * np.maximum(0.0, T1 - np.abs(t[after] - T1))
    assert np.allclose(me["F_t"][after], -push, rtol=1e-9, atol=1e-9)  # held by static friction, then 0
    for method in SOLVERS:
        log: list[str] = []
        cs = cs_run(fmu, 8.0, 8.0, method, ["x", "dx"], log)
        end = {name: cs[name][-1] for name in ("x", "dx")}
        # rosenbrock23 is of second order (accuracy rtol^(2/3)), and its Jacobian does not see the friction
        # force: the time derivative of the push leaves a held velocity of the order of 1e-12
        tol, v_tol = (1e-6, 1e-10) if method == "rosenbrock23" else (1e-8, 0.0)
        assert logged(log, "slips forward") == pytest.approx([t_break], abs=tol), method
        assert logged(log, "sticks") == pytest.approx([t_stick], abs=tol), method
        assert abs(end["x"] - x_stop) < 1e3 * tol * x_stop and abs(end["dx"]) <= v_tol, method
    py = simulate(system.derive(), 8.0, dt=0.5)
    assert [(ev.kind, round(ev.time, 7)) for ev in py.events if ev.name == "friction"] == [
        ("slip", round(t_break, 7)),
        ("stick", round(t_stick, 7)),
    ]
    assert abs(py["x"][-1] - x_stop) < 1e-7


@VERSIONS
def test_friction_mode_is_part_of_the_fmu_state(tmp_path, version):
    """A Co-Simulation FMU saved while the block slides continues identically after the state is restored
    (also serialized), and so does one saved while it sticks; a serialized state with an invalid friction
    mode is refused."""
    from fmpy import extract, instantiate_fmu, read_model_description

    fmu = export_fmu(pushed("given"), tmp_path / f"state{version}.fmu", fmi_version=version, kind="cs")
    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    messages: list[str] = []
    inst = instantiate_fmu(
        extract(str(fmu)), md, fmi_type="CoSimulation", logger=lambda *args: messages.append(args[-1].decode())
    )
    if version == 2:
        inst.setupExperiment(startTime=0.0)
        get = inst.getReal
    else:
        get = inst.getFloat64
    inst.enterInitializationMode()
    inst.exitInitializationMode()

    def step(t0: float, t1: float) -> list[float]:
        inst.doStep(t0, t1 - t0)
        return list(get([vr["x"], vr["dx"], vr["F_t"]]))

    for t_save in (1.0, 3.0):  # sticking, sliding
        t = 0.0 if t_save == 1.0 else 1.0
        step(t, t_save)
        state = inst.getFMUState()
        blob = inst.serializeFMUState(state)
        first = step(t_save, 6.0)
        inst.setFMUState(state)
        assert step(t_save, 6.0) == first
        inst.setFMUState(inst.deserializeFMUState(blob))
        assert step(t_save, 6.0) == first
        inst.setFMUState(state)
        inst.freeFMUState(state)
    # a serialized state whose friction mode (before the sides of the two switching functions of the push, the
    # last values) is neither 0 nor +-1 is refused
    state = inst.getFMUState()
    blob = bytearray(inst.serializeFMUState(state))
    mode = len(blob) - 8 - 3 * 8
    assert struct.unpack_from("<d", blob, mode)[0] == 1.0  # (restored to t = 3: it slides forward)
    struct.pack_into("<d", blob, mode, 0.5)
    struct.pack_into("<Q", blob, len(blob) - 8, fnv1a(bytes(blob[:-8])))  # a valid checksum
    with pytest.raises(Exception, match="error"):
        inst.deserializeFMUState(bytes(blob))
    assert "the mode 0.5 of friction 'friction' in the FMU state is invalid" in messages[-1]
    inst.freeFMUState(state)
    inst.terminate()
    inst.freeInstance()
    restore_fmi2_message_proxy()  # (the logger given to fmpy above dies with this test)


def fnv1a(data: bytes) -> int:
    """The 64-bit FNV-1a hash the FMU states carry as checksum."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def test_event_indicators_and_refusals(tmp_path):
    """FMI 3 lists the friction's event indicator and the dependencies of the friction force; the Python
    backend refuses stick-slip friction, naming it."""
    from fmpy import extract, instantiate_fmu, read_model_description

    fmu = export_fmu(pushed("contact"), tmp_path / "ind.fmu", fmi_version=3, kind="me")
    md = read_model_description(str(fmu))
    names = {v.valueReference: v.name for v in md.modelVariables}
    # the contact, the switching functions of the push (its kinks), then the friction element
    assert [names[e.variable.valueReference] for e in md.eventIndicators] == [
        "floor.indicator",
        "switch0.indicator",
        "switch1.indicator",
        "friction.indicator",
    ]
    inst = instantiate_fmu(extract(str(fmu)), md, fmi_type="ModelExchange")
    assert inst.getNumberOfEventIndicators() == 4  # (it used to count the contacts only)
    inst.freeInstance()
    # the friction force follows the modes: it depends on every state and on time (not on nothing)
    out = [o for o in md.outputs if names[o.variable.valueReference] == "F_t"][0]
    assert {d.name for d in out.dependencies} == {"time", "x", "y", "dx", "dy"}
    assert FmuSpec(pushed("given").derive(), 2, "cs").source.text.count("sb_frictions") == 1
    with pytest.raises(ExportError, match=r"stick-slip friction.*the Python backend does not handle"):
        export_fmu(pushed("given"), tmp_path / "py.fmu", backend="python")
    with pytest.raises(ExportError, match=r"stick-slip friction \(friction\): the Python backend"):
        FmuSpec(pushed("given").derive(), 2, "cs", backend="python")
    # no directional derivatives through the friction forces
    xml = model_description(FmuSpec(pushed("given").derive(), 3, "both")).decode()
    assert 'providesDirectionalDerivatives="false"' in xml and 'providesDirectionalDerivatives="true"' not in xml
