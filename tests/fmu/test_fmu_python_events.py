"""Unilateral contacts and switching loads in Python (pythonfmu) Co-Simulation FMUs, located inside
``doStep`` by every embedded solver and checked against exact solutions: the bouncing ball (impact times,
apex heights ``e^(2k) h0``, at rest with the force ``m g`` after the accumulation of impacts), a grazing
impact inside one internal step, a spring-mass with a Coulomb force (a switching load)."""

from __future__ import annotations

import math

import fmpy
import numpy as np
import pytest

import symbody as sb
from symbody.errors import ExportError
from symbody.fmu import export_fmu
from symbody.fmu.run import restore_fmi2_message_proxy

from support.contact_models import T_HIT, V0, H, bouncing_ball, thrown_ball, thrown_ball_motion

G = 9.81
SOLVERS = {"rk4": 1, "dopri5": 2, "rosenbrock23": 3}


def run(fmu, stop: float, interval: float, start: dict, output: list[str], log: list[str] | None = None):
    def logger(*args):  # (..., category, message)
        if log is not None and args[-2] == b"logEvents":
            log.append(args[-1].decode())

    try:
        return fmpy.simulate_fmu(
            str(fmu), fmi_type="CoSimulation", stop_time=stop, output_interval=interval, output=output,
            start_values=start, logger=logger, debug_logging=log is not None,
        )  # fmt: skip
    finally:  # the logger must not outlive the run in fmpy's process-wide FMI 2 message proxy
        restore_fmi2_message_proxy()


def impacts_in(log: list[str]) -> list[float]:
    return [float(m.split("t = ")[1].split(":")[0]) for m in log if "impact of contact" in m]


@pytest.fixture(scope="module")
def ball_fmu(tmp_path_factory):
    path = tmp_path_factory.mktemp("pyev") / "ball_py.fmu"
    return export_fmu(bouncing_ball(1.0, 0.8, 2.0), path, backend="python")


@pytest.mark.parametrize("method", SOLVERS)
def test_bouncing_ball_python_fmu(ball_fmu, method):
    """Communication steps of 0.5 s hold several impacts each (rk4: internal steps of 0.05 s, exact for the
    parabolic flights)."""
    h0, e, m = 1.0, 0.8, 2.0
    v1, t1 = math.sqrt(2 * G * h0), math.sqrt(2 * h0 / G)
    impacts = [t1 + 2 * v1 / G * sum(e**j for j in range(1, k + 1)) for k in range(12)]
    apexes = [tk + e ** (k + 1) * v1 / G for k, tk in enumerate(impacts)]
    t_rest = t1 + 2 * v1 / G * e / (1 - e)
    start = {"solver.method": SOLVERS[method], "solver.step": 0.05, "solver.rtol": 1e-10, "solver.atol": 1e-12}
    log: list[str] = []
    res = run(ball_fmu, math.ceil(t_rest + 1.0), 0.5, start, ["y", "dy", "N"], log)
    assert np.allclose(impacts_in(log)[:12], impacts, rtol=0, atol=1e-6)
    assert max(impacts_in(log)) < t_rest + 1e-4  # none after the accumulation
    rest = res["time"] > t_rest
    assert np.allclose(res["y"][rest], 0.0, atol=1e-8) and np.allclose(res["dy"][rest], 0.0, atol=1e-8)
    assert np.allclose(res["N"][rest], m * G, rtol=1e-9)  # the closed contact carries the weight
    assert np.all(res["N"][res["time"] < t_rest - 0.1] == 0.0)
    for k in (0, 2):  # one communication step to an apex: height e^(2(k+1)) h0, at rest there
        end = run(ball_fmu, apexes[k], apexes[k], start, ["y", "dy"])[-1]
        assert abs(end["y"] - e ** (2 * (k + 1)) * h0) < 1e-8 and abs(end["dy"]) < 1e-7


@pytest.mark.parametrize("method", SOLVERS)
def test_grazing_impact_python_fmu(tmp_path, method):
    fmu = export_fmu(thrown_ball(), tmp_path / "graze_py.fmu", backend="python")
    start = {"solver.method": SOLVERS[method], "solver.step": 1.0, "solver.max_step": 1.0,
             "solver.rtol": 1e-10, "solver.atol": 1e-12}  # fmt: skip
    log: list[str] = []
    res = run(fmu, 1.0, 1.0, start, ["y", "dy"], log)
    assert len(impacts_in(log)) == 1 and abs(impacts_in(log)[0] - T_HIT) < 1e-6
    y, dy = thrown_ball_motion(1.0)
    assert abs(res["y"][-1] - y) < 1e-6 and abs(res["dy"][-1] - dy) < 1e-6


@pytest.mark.parametrize(
    "method, tol",
    # (rk4 as in the C FMU's test, tests/fmu/test_fmu_events.py; rosenbrock23 takes 15 s here: --slow)
    [("dopri5", 1e-9), pytest.param("rosenbrock23", 1e-6, marks=pytest.mark.slow)],
)
def test_switching_load_python_fmu(tmp_path, method, tol):
    """A spring-mass with a Coulomb force -c sign(dx): every half period pi the velocity reverses and the
    amplitude drops by 2 c; the kinks are located inside communication steps of 1 s."""
    c = 0.1
    s = sb.System("coulomb")
    x = s.coordinate("x", 1.0, dq0=-1e-12)  # (leaving rest to the left: sign(dx) = -1 from the start)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("spring", x, -x)
    s.generalized_force("dry", x, -c * sb.sign(s.symbol("dx")))
    fmu = export_fmu(s, tmp_path / "coulomb_py.fmu", backend="python")
    ends = [1.0 - 2 * c * k if k % 2 == 0 else -(1.0 - 2 * c * k) for k in range(4)]

    def exact_x(t: np.ndarray) -> np.ndarray:  # half period k: about the equilibrium c (-1)^k
        k = np.minimum(np.floor(t / math.pi), 3).astype(int)
        e = c * (-1.0) ** k
        return e + (np.array(ends)[k] - e) * np.cos(t - k * math.pi)

    start = {"solver.method": SOLVERS[method], "solver.rtol": 1e-10, "solver.atol": 1e-12}
    res = run(fmu, 3 * math.pi, 1.0, start, ["x"])
    assert np.allclose(res["x"], exact_x(res["time"]), atol=tol)


def test_python_backend_refuses_stick_slip_friction(tmp_path):
    s = sb.System("slide")
    x = s.coordinate("x", 0.0)
    s.particle("c", s.point("Q", s.origin, (x, 0, 0)), 1.0)
    s.stick_slip("slide", x, normal=1.0, mu=0.3)
    with pytest.raises(ExportError, match="stick-slip friction"):
        export_fmu(s, tmp_path / "py.fmu", backend="python")


@pytest.mark.parametrize("method", ["dopri5", pytest.param("rosenbrock23", marks=pytest.mark.slow)])  # (8 s)
def test_load_switched_on_and_off_inside_one_step_python_fmu(tmp_path, method):
    """The soft ceiling of tests/fmu/test_fmu_events_dips.py: both kinks inside one internal step."""
    k = 4.0
    s = sb.System("soft")
    y = s.coordinate("y", 0.0, dq0=V0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.generalized_force("ceiling", y, -k * sb.positive_part(y - H))
    fmu = export_fmu(s, tmp_path / "soft_py.fmu", backend="python")
    v1, w = V0 - G * T_HIT, math.sqrt(k)
    tau = 1.0 - (T_HIT + 2 / w * math.atan(v1 * w / G))
    start = {"solver.method": SOLVERS[method], "solver.max_step": 1.0, "solver.rtol": 1e-10, "solver.atol": 1e-12}
    end = run(fmu, 1.0, 1.0, start, ["y", "dy"])[-1]
    assert abs(end["y"] - (H - v1 * tau - G * tau * tau / 2)) < 1e-6
    assert abs(end["dy"] - (-v1 - G * tau)) < 1e-6


def test_python_events_call_only_generated_blocks():
    """The events and contacts modules inside the FMU call functions the blocks module defines (contacts,
    switches, ...)."""
    import re
    from pathlib import Path

    from symbody.fmu import python_contacts, python_events
    from symbody.fmu.python_backend import blocks_module
    from symbody.fmu.spec import FmuSpec

    defined = set(re.findall(r"^def (\w+)\(", blocks_module(FmuSpec(thrown_ball().derive(), 2, "cs")), re.M))
    sources = [Path(module.__file__).read_text() for module in (python_events, python_contacts)]
    called = {name for text in sources for name in re.findall(r"\.b\.(\w+)\(", text)}
    assert {"contacts", "switches"} <= called <= defined


def test_a_closed_contact_drifted_out_of_its_surface_takes_part_in_an_impact():
    """A unit mass on a floor (closed, its gap y drifted 2e-5 out) slides at 1 m/s into a wall inclined so that
    its impulse pushes the mass into the floor (gap 1 - x - y / 2, e = 1): the floor holds, the mass rebounds
    along it (dq = (-1, 0)); with the floor counted as open the wall throws it down (dq = (-0.6, -0.8))."""
    from symbody.fmu.python_contacts import ContactModes

    class Blocks:
        @staticmethod
        def M_delta(t, q, dq, u, p, x=None):
            return np.eye(2), np.array([0.0, -9.81])

        @staticmethod
        def contacts(t, q, dq, u, p):
            gap = np.array([q[1], 1.0 - q[0] - 0.5 * q[1]])
            G = np.array([[0.0, 1.0], [-1.0, -0.5]])
            return gap, G, np.zeros(2), np.zeros(2), np.array([0.0, 1.0])

    class Model:
        n, nc, nh, b, u, p = 2, 0, 0, Blocks, None, None
        info = dict(nk=2, nsw=0, contact_names=["floor", "wall"])
        settings = np.array([2, 1e-3, 1e-6, 1e-8, 0.0, 1, 1e-10, 10.0, 10.0, 0])

        @staticmethod
        def u_at(t):
            return None

        @staticmethod
        def changed():
            pass

    c = ContactModes(Model)
    Model.accelerations = staticmethod(lambda t, x: c.accelerations(t, x, np.array([0.0, -9.81]), np.zeros(0)))
    c.closed[:] = [True, False]
    drift = 2e-5
    x = np.array([1.0 - 0.5 * drift, drift, 1.0, 0.0])
    c.resolve(0.0, x)
    assert np.allclose(x[2:], [-1.0, 0.0], atol=1e-9), x
    assert list(c.closed) == [True, False]


@pytest.mark.slow  # (13 s)
def test_a_payload_lifting_off_while_the_trolley_rests_at_its_stop_python_fmu(tmp_path):
    """The overhead crane of tests/fmu/test_fmu_events_sweep.py (trolley driven at 50 kN into its upper stop,
    hoist at 0.95 m g): the payload rests on the ground, then lifts off slowly (t = 2.86) while the trolley rests
    at its stop.  The Python FMUs are Co-Simulation FMUs that locate their events inside doStep (no event
    indicators, so no offsets to grow, as the native Model Exchange FMUs must under fmpy's CVode): 26 events in
    6 s with dopri5 at 1e-4 and steps of 0.25 s, the positions within 10 rtol of symbody.numeric.simulate (the
    event tolerance holds only on the way to a switching: x, l, theta 1.7e-4, 4.0e-4 and 3.5e-5 off)."""
    from support import example
    from support.event_masters import Master
    from support.event_sweep import CRANE_GRID, CRANE_OUTPUT, check_crane, crane_reference

    system = example("overhead_crane", end_stops=True, ground=True)
    fmu = export_fmu(system, tmp_path / "crane.fmu", backend="python")
    inputs = {"F_trolley": 50e3, "F_hoist": 0.95 * 4000.0 * 9.80665}
    ref = crane_reference(system, inputs, 6.0)
    master = Master("cs dopri5", "cs", "dopri5", 0.25, 1e-4)
    try:
        assert check_crane(master, fmu, inputs, ref, 6.0) == []
        trace = master.run(fmu, 6.0, CRANE_OUTPUT, inputs)
    finally:
        restore_fmi2_message_proxy()
    assert 20 <= len(trace.events) <= 40
    t = trace.time
    k = np.round(t / CRANE_GRID).astype(int)
    on = (np.abs(t - k * CRANE_GRID) <= 1e-9) & (k < len(ref["x"]))
    for name in ("x", "l", "theta"):
        assert np.abs(trace[name][on] - ref[name][k[on]]).max() <= 10 * master.rtol, name
