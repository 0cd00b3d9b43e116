"""The tolerance of the Co-Simulation solvers in models with events (docs/reference/fmu-export.md).

Unilateral contacts and stick-slip friction change their modes at events only: on the way to a contact's or a
friction element's switching the adaptive solvers hold at least rtol 1e-9, atol 1e-11, and say so once
(logSolver) when that is tighter than the importer asked; elsewhere (a contact receding, or swaying far from its
surface) they run at the tolerance asked for.  The switching functions of the loads (ropes, slings, buffers,
valves) hold no mode: a model with no other event function runs at the importer's tolerance, and its motion is
as accurate as that tolerance says -- a hook dropped on a slack rope (taut and slack again every 0.31 s) against
its closed form.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symbody as sb
from symbody.fmu import export_fmu
from symbody.fmu.testing import FmuSession, fmu_simulation

from support.contact_models import GRAZE_DEPTH, T_HIT, V0, G, H, bouncing_ball, grazing_oscillator
from support.friction_models import sine_pushed_block
from support.hoist_models import FALL, drop_motion, dropped_on_rope
from support.solver_log import logged_solver

RK4, DOPRI5, ROSENBROCK23 = 1, 2, 3
SOFT_K = 4.0  # N/m, the soft ceiling
STEP, STEPS = 0.05, 20  # 1 s: three falls onto the rope and three rebounds
HELD = "the solver runs at rtol"


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("event_tolerance")
    return {
        "rope": export_fmu(dropped_on_rope(1), folder / "rope.fmu", fmi_version=3, kind="cs"),
        "ball": export_fmu(bouncing_ball(1.0, 0.8, 1.0), folder / "ball.fmu", fmi_version=2, kind="cs"),
        "block": export_fmu(sine_pushed_block(), folder / "block.fmu", fmi_version=3, kind="cs"),
        "soft": export_fmu(soft_ceiling(), folder / "soft.fmu", fmi_version=2, kind="cs"),
        "graze": export_fmu(grazed_buffer(), folder / "graze.fmu", fmi_version=3, kind="cs"),
        "sway": export_fmu(swaying(), folder / "sway.fmu", fmi_version=2, kind="cs"),
        "wall": export_fmu(grazing_oscillator(), folder / "wall.fmu", fmi_version=3, kind="cs"),
    }


def soft_ceiling() -> sb.System:
    """The thrown ball of :func:`thrown_ball` under a soft ceiling (a switching load) instead of a contact."""
    s = sb.System("soft")
    y = s.coordinate("y", 0.0, dq0=V0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.generalized_force("ceiling", y, -SOFT_K * sb.positive_part(y - H))
    return s


SWAY = 0.2  # the amplitude of swaying(), far from its end stops at +-1


def swaying() -> sb.System:
    """A unit mass on a unit spring, x = SWAY sin t, between end stops at x = -1 and x = 1 it never reaches."""
    s = sb.System("swaying")
    x = s.coordinate("x", 0.0, dq0=SWAY)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("spring", x, -x)
    s.unilateral("high", 1.0 - x, restitution=0.5)
    s.unilateral("low", 1.0 + x, restitution=0.5)
    return s


def grazed_buffer() -> sb.System:
    """A unit mass on a unit spring, x = sin t, and a buffer (1e4 N/m) at 1 - GRAZE_DEPTH, a switching load."""
    s = sb.System("grazed_buffer")
    x = s.coordinate("x", 0.0, dq0=1.0)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("spring", x, -x)
    s.generalized_force("buffer", x, -1e4 * sb.positive_part(x - (1.0 - GRAZE_DEPTH)))
    return s


def run(fmu, method: int, rtol: float, steps: int = STEPS, step: float = STEP) -> tuple[np.ndarray, list[str]]:
    """The first coordinate at each communication point, and the logSolver messages."""
    with logged_solver(fmu, method, rtol) as (s, messages):
        name = next(n for n in ("y", "x") if n in s.vr)
        values = []
        for _ in range(steps):
            s.step(step)
            values.append(s.get(name)[0])
    return np.array(values), messages


def accepted(messages: list[str]) -> int:
    return sum("accepted step" in m for m in messages)


def test_switching_loads_run_at_the_importers_tolerance(fmus):
    """rtol 1e-4: the closed form to a small multiple of rtol times the hook's distance from the sheave (a missed
    rope tension would leave the hook falling freely, 0.03 m off within a period), at a third of the steps
    the event tolerance takes, and no message."""
    exact = np.array([drop_motion(STEP * (k + 1)) for k in range(STEPS)])
    y, loose = run(fmus["rope"], DOPRI5, 1e-4)
    assert np.max(np.abs(y - exact)) < 10 * 1e-4 * FALL
    y_tight, tight = run(fmus["rope"], DOPRI5, 1e-9)
    assert np.max(np.abs(y_tight - exact)) < 10 * 1e-9 * FALL
    assert accepted(loose) < 0.5 * accepted(tight), (accepted(loose), accepted(tight))
    assert not any(HELD in m for m in loose + tight)


@pytest.mark.parametrize("method", [DOPRI5, ROSENBROCK23], ids=["dopri5", "rosenbrock23"])
def test_a_switching_load_grazed_inside_one_internal_step_at_a_loose_tolerance(fmus, method):
    """The ball thrown up into a soft ceiling -k max(y - H, 0) that it enters and leaves inside one internal step
    (the solver grows its steps to 1 s on the free flight): at solver.rtol 1e-4 the motion at t = 1 is the closed
    form to 10 rtol times the throw's speed (without the ceiling the ball would be 0.023 m and 0.047 m/s off)."""
    rtol = 1e-4
    v1, w = V0 - G * T_HIT, math.sqrt(SOFT_K)
    tau = 1.0 - (T_HIT + 2 / w * math.atan(v1 * w / G))
    s = FmuSession(fmus["soft"])
    try:
        s.initialize(
            **{"solver.method": method, "solver.max_step": 1.0, "solver.rtol": rtol, "solver.atol": rtol * 1e-2}
        )
        s.step(1.0)
        y, dy = s.get("y", "dy")
    finally:
        s.close()
    assert abs(y - (H - v1 * tau - G * tau * tau / 2)) < 10 * rtol * V0
    assert abs(dy - (-v1 - G * tau)) < 10 * rtol * V0


GRAZE_RUNS = [(DOPRI5, 1e-10), (DOPRI5, 1e-4), (ROSENBROCK23, 1e-8)]


@pytest.mark.parametrize("method, rtol", GRAZE_RUNS)
def test_a_buffer_grazed_by_1e7_is_passed_at_any_tolerance(fmus, method, rtol):
    """x = sin t against a buffer at 1 - 1e-7: the switching function crosses zero at 4.5e-4 m/s, so slowly that
    a few ulps of time past its root leave the state's bits as they were (the event used to be found again at
    the same time until "more than 100000 events in the step").  The buffer's push, at most 1e-3 N for 9e-4 s,
    moves the motion by less than 1e-6: sin t to 1e-5 (10 rtol where that is larger) at t = 3."""
    check_grazed_buffer(fmus["graze"], method, rtol)


def check_grazed_buffer(fmu, method: int, rtol: float) -> None:
    s = FmuSession(fmu)
    try:
        s.initialize(**{"solver.method": method, "solver.rtol": rtol, "solver.atol": rtol * 1e-2})
        for _ in range(12):
            s.step(0.25)
        x, dx = s.get("x", "dx")
    finally:
        s.close()
    assert abs(x - math.sin(3.0)) < max(1e-5, 10 * rtol) and abs(dx - math.cos(3.0)) < max(1e-5, 10 * rtol)


@pytest.mark.parametrize("model", ["ball", "block"])
def test_contacts_and_friction_hold_the_event_tolerance_and_say_so_once(fmus, model):
    """The falling ball is on its way to the floor, the block sticks: the event tolerance, said once, naming the
    time it first held and the element on its way to a switching."""
    _, loose = run(fmus[model], DOPRI5, 1e-4)
    told = [m for m in loose if HELD in m]
    assert len(told) == 1, told
    assert "rtol 1e-09, atol 1e-11, not at the solver.rtol 0.0001 and solver.atol 1e-06 asked for" in told[0]
    assert ("contact 'floor' is on its way" if model == "ball" else "friction element") in told[0], told[0]
    _, tight = run(fmus[model], DOPRI5, 1e-10)  # tighter than the event tolerance: nothing to say
    _, fixed = run(fmus[model], RK4, 1e-4)  # rk4's steps are solver.step, whatever the tolerance
    assert not any(HELD in m for m in tight + fixed)


SWAY_STEP, SWAY_STEPS, SWAY_RTOL = 0.25, 80, 1e-6  # 20 s, three periods


@pytest.mark.parametrize("method", [DOPRI5, ROSENBROCK23], ids=["dopri5", "rosenbrock23"])
def test_end_stops_far_away_cost_no_event_tolerance(fmus, method):
    """x = 0.2 sin t between end stops at +-1: never on its way to them, so the solver runs at the solver.rtol 1e-6
    asked for, with less than half the steps it takes at the event tolerance (dopri5 2.6 times, rosenbrock23 9
    times fewer), says nothing, and keeps the closed form to the accuracy of that tolerance (rosenbrock23, of order
    2, within 300 rtol of the amplitude over three periods; a missed or spurious impact would be off by 0.1)."""
    exact = SWAY * np.sin(SWAY_STEP * np.arange(1, SWAY_STEPS + 1))
    x, loose = run(fmus["sway"], method, SWAY_RTOL, SWAY_STEPS, SWAY_STEP)
    x_tight, tight = run(fmus["sway"], method, 1e-9, SWAY_STEPS, SWAY_STEP)
    assert not any(HELD in m for m in loose)
    assert accepted(loose) < 0.5 * accepted(tight), (accepted(loose), accepted(tight))
    assert np.max(np.abs(x - exact)) < 500 * SWAY_RTOL * SWAY
    assert np.max(np.abs(x_tight - exact)) < 1e-5 * SWAY


@pytest.mark.parametrize("method", [DOPRI5, ROSENBROCK23], ids=["dopri5", "rosenbrock23"])
def test_a_grazing_approach_runs_at_the_event_tolerance(fmus, method):
    """x = sin t towards a wall at 1 - 1e-7: on its way to the wall from the start (the first steps of a loose
    solver carry more than the 1e-7 that decide whether it touches), so at solver.rtol 1e-3 it runs at the event
    tolerance from t = 0, says so, and finds the impact at asin(1 - 1e-7) to 1e-6 s, with the same motion up to it
    as at rtol 1e-4 and at the event tolerance itself; receding from the wall it runs at the tolerance asked for
    (fewer steps)."""
    t_hit = math.asin(1.0 - GRAZE_DEPTH)
    impacts: dict[float, list[float]] = {}
    runs, steps = {}, {}
    for rtol, atol in ((1e-3, 1e-5), (1e-4, 1e-6), (1e-9, 1e-11)):
        messages: list[str] = []

        def logger(*args, messages=messages):
            messages.append(args[-1].decode() if isinstance(args[-1], bytes) else args[-1])

        s = FmuSession(fmus["wall"], logger=logger, debug_logging=True)
        try:
            s.initialize(**{"solver.method": method, "solver.rtol": rtol, "solver.atol": atol})
            x = []
            for _ in range(12):
                s.step(0.25)
                x.append(s.get("x")[0])
        finally:
            s.close()
        impacts[rtol] = [float(m.split(": t = ")[1].split(":")[0]) for m in messages if "impact of contact" in m]
        runs[rtol], steps[rtol] = np.array(x), accepted(messages)
        told = [m for m in messages if HELD in m]
        assert len(told) == (1 if rtol > 1e-9 else 0), told
        assert impacts[rtol] == pytest.approx([t_hit], abs=1e-6), (rtol, impacts[rtol])
        if told:
            assert told[0].startswith("DoStep: t = 0:") and "contact 'wall' is on its way" in told[0], told[0]
    before = 0.25 * np.arange(1, 13) < t_hit
    assert np.array_equal(runs[1e-3][before], runs[1e-4][before])
    assert np.array_equal(runs[1e-3][before], runs[1e-9][before])
    assert steps[1e-3] < steps[1e-9]


def test_the_message_names_the_importers_tolerance(fmus):
    """fmi2SetupExperiment's tolerance replaces solver.rtol (unless that was set): the message says whose it is."""
    messages: list[str] = []

    def logger(*args):
        messages.append(args[-1].decode() if isinstance(args[-1], bytes) else args[-1])

    fmu_simulation(fmus["ball"], 0.5, STEP, relative_tolerance=1e-5, output=["y"], logger=logger, debug_logging=True)
    told = [m for m in messages if HELD in m]
    assert len(told) == 1 and "not at the importer's tolerance 1e-05 and solver.atol" in told[0], told


@pytest.fixture(scope="module")
def python_fmus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("event_tolerance_py")
    return {
        "rope": export_fmu(dropped_on_rope(1), folder / "rope_py.fmu", backend="python"),
        "ball": export_fmu(bouncing_ball(1.0, 0.8, 1.0), folder / "ball_py.fmu", backend="python"),
        "graze": export_fmu(grazed_buffer(), folder / "graze_py.fmu", backend="python"),
    }


def test_python_backend_switching_loads_at_the_importers_tolerance(python_fmus):
    exact = np.array([drop_motion(STEP * (k + 1)) for k in range(STEPS)])
    y, messages = run(python_fmus["rope"], DOPRI5, 1e-4)
    assert np.max(np.abs(y - exact)) < 10 * 1e-4 * FALL
    assert not any(HELD in m for m in messages)


def test_python_backend_contacts_hold_the_event_tolerance_and_say_so_once(python_fmus):
    _, loose = run(python_fmus["ball"], DOPRI5, 1e-4)
    told = [m for m in loose if HELD in m]
    assert len(told) == 1, told
    assert "rtol 1e-09, atol 1e-11, not at the solver.rtol 0.0001 and solver.atol 1e-06 asked for" in told[0]
    _, tight = run(python_fmus["ball"], DOPRI5, 1e-10)
    assert not any(HELD in m for m in tight)


@pytest.mark.parametrize("method, rtol", GRAZE_RUNS)
def test_python_backend_passes_a_buffer_grazed_by_1e7(python_fmus, method, rtol):
    check_grazed_buffer(python_fmus["graze"], method, rtol)
