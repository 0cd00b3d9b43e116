"""Events that hold in every FMI master (FMI 2 and 3, Model Exchange and Co-Simulation), checked against exact
solutions and against symbody's own simulation:

* Model Exchange with events found only at the ends of fixed steps of 1 ms (explicit Euler and rk4, as the FMU
  Compliance Checker, fmusim ``--solver euler`` and real-time hosts), rk4 with bisection on the indicators, and
  fmpy's CVode at rtol 1e-4, 1e-6 and 1e-8 (masters of ``tests/support/event_masters.py``);
* Co-Simulation with every embedded solver at the importer's tolerances 1e-3 and 1e-4 (passed to the
  experiment and as ``solver.rtol``) and communication steps of 0.25 and 1 s.

A master that finds an event late hands over a state past it: the FMU handles it there (the contact projected
back onto its surface, the impact law applied with the rate at which it entered), so the physics holds to the
master's accuracy, never below the floor by more than one of its steps, and accumulations of impacts end.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pytest

from symbody.fmu import export_fmu
from symbody.fmu.testing import fmu_simulation

from support.contact_models import (
    GRAZE_DEPTH,
    G,
    ball_impacts,
    ball_motion,
    ball_rest,
    bouncing_ball,
    grazing_oscillator,
    grazing_oscillator_motion,
)
from support.event_masters import (
    CS_MASTERS,
    FIXED_STEP,
    ME_MASTERS,
    SOLVERS,
    Master,
    ModelExchange,
    _ptr,
    master_step_error,
)
from support.friction_models import incline

H0, E, M = 1.0, 0.8, 2.0
VERSIONS = pytest.mark.parametrize("version", (2, 3))
ALL = pytest.mark.parametrize("master", ME_MASTERS + CS_MASTERS, ids=lambda m: m.name)


@pytest.fixture(scope="module")
def ball(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ball_masters")
    return {v: export_fmu(bouncing_ball(H0, E, M), folder / f"ball{v}.fmu", fmi_version=v, kind="both") for v in (2, 3)}


def event_rows(trace) -> list[int]:
    """The rows just after an event (a master records the event time twice, before and after) of a trace or of
    its times."""
    t = getattr(trace, "time", trace)
    return [i for i in range(1, t.size) if t[i] == t[i - 1]]


def ball_tolerances(master: Master) -> dict[str, float]:
    """What a master's accuracy lets the bouncing ball miss by.

    ``time``: an impact time (k-th impact: k + 1 times it, the delays of late detections add up); ``apex``: the
    relative error of an apex height (from the rebound speed; Euler: ``None``, see below); ``below``: how far
    under the floor the master may see the ball; ``rest``: how long after the exact end of the accumulation the
    ball may still bounce (Euler: ``None``, its flights grow with the energy it gains and the impacts it finds
    are each up to ``time`` late, so the end by one ``time`` for each impact it found and one more).
    """
    h = master.step
    if master.kind == "cs":  # located inside doStep
        return {"time": 1e-8, "apex": 1e-8, "below": 1e-8, "rest": 0.0}
    if master.method == "euler":  # first order: its energy grows by g^2 h^2 / 2 a step, and events come late
        return {"time": 10 * h, "apex": None, "below": master_step_error(4.5, G, h), "rest": None}
    if master.method == "rk4":  # exact on parabolas: events late by up to one step each
        return {"time": h, "apex": 1e-5, "below": master_step_error(4.5, G, h), "rest": 10 * h}
    tol = 1e-7 if master.method == "bisection" else 100 * (master.rtol or 0.0)  # located: bisection, CVode
    return {"time": tol, "apex": 10 * tol, "below": 1e-8, "rest": 1e-3}


@VERSIONS
@ALL
def test_bouncing_ball_in_every_master(ball, version, master):
    """h0 = 1 m, e = 0.8: the impacts at their exact times, the apex heights e^(2k) h0, never below the floor by
    more than the master's step, at rest after 4.064 s with the contact force m g."""
    check_bouncing_ball(master, ball[version])


@pytest.mark.parametrize("master", CS_MASTERS, ids=lambda m: m.name)
def test_bouncing_ball_python_backend_in_every_master(ball_py, master):
    """The same in the Python (pythonfmu) backend, Co-Simulation."""
    check_bouncing_ball(master, ball_py)


@pytest.fixture(scope="module")
def ball_py(tmp_path_factory):
    return export_fmu(bouncing_ball(H0, E, M), tmp_path_factory.mktemp("ball_py") / "ball_py.fmu", backend="python")


def check_bouncing_ball(master: Master, fmu) -> None:
    tol = ball_tolerances(master)
    trace = master.run(fmu, 5.0, ["y", "dy", "N"])
    t, y, dy = trace.time, trace["y"], trace["dy"]
    impacts = ball_impacts(H0, E, 6)
    found = trace.events[:6]
    assert len(found) == 6
    for k, (te, exact) in enumerate(zip(found, impacts)):
        assert abs(te - exact) <= (k + 1) * tol["time"], (k, te, exact)
    if master.kind == "me":  # the rebound speeds: apex heights e^(2(k+1)) h0
        after = [i for i in event_rows(trace) if abs(dy[i] - dy[i - 1]) > 1e-6][:6]
        apex, exact_apex = dy[after] ** 2 / (2 * G), np.array([E ** (2 * (k + 1)) * H0 for k in range(6)])
        if tol["apex"] is None:  # Euler: what its energy gain of g^2 h / 2 per unit time adds to the height
            assert np.all(np.abs(apex - exact_apex) <= G * master.step * t[after] / 2)
        else:
            assert np.allclose(apex, exact_apex, rtol=tol["apex"], atol=0)
    else:  # every communication point on the exact motion
        exact = np.array([ball_motion(float(ti), H0, E) for ti in t])
        assert np.allclose(y, exact[:, 0], rtol=0, atol=1e-8) and np.allclose(dy, exact[:, 1], rtol=0, atol=1e-7)
    assert y.min() >= -tol["below"]
    rest_tol = tol["rest"] if tol["rest"] is not None else (len(trace.events) + 1) * tol["time"]
    rest = t > ball_rest(H0, E) + rest_tol
    assert rest.any()
    assert np.all(np.abs(y[rest]) <= 1e-8) and np.all(np.abs(dy[rest]) <= 1e-8)
    assert np.allclose(trace["N"][rest], M * G, rtol=1e-9)
    assert np.all(trace["N"][t < impacts[0] - tol["time"]] == 0.0)  # open in flight


@VERSIONS
@pytest.mark.parametrize("method", ("euler", "rk4"))
@pytest.mark.parametrize("step", (0.02, 0.01))
def test_the_flights_a_fixed_step_master_resolves_are_kept(ball, version, method, step):
    """Coarse steps that find every impact late (0.02 s: the FMU Compliance Checker's explicit Euler for a 10 s
    experiment and its 500 output points): each flight that lasts FLIGHT_STEPS steps or more bounces (with
    e times the speed at which the ball entered the floor; under Euler, after the first, with e times the rate
    at which the flight began, without the speed Euler gained in it), only the shorter ones of the end of the
    accumulation are taken as plastic.  (The first impact was plastic there: the ball lay on the floor from
    0.48 s, where it should rise 0.64 m and bounce until 4.06 s.)"""
    from symbody.numeric.event_laws import FLIGHT_STEPS

    from support.event_masters import ModelExchange

    run = ModelExchange(ball[version]).run(8.0, method, step, ["y", "dy", "N"])
    t, dy = run.time, run["dy"]
    v1 = math.sqrt(2 * G * H0)
    flights = [2 * E ** (k + 1) * v1 / G for k in range(60)]
    resolved = sum(f >= FLIGHT_STEPS * step for f in flights)
    assert len(run.events) >= resolved + 1, (run.events, resolved)
    after = [i for i in event_rows(run) if dy[i] > dy[i - 1]][:resolved]
    assert len(after) == resolved
    seen = -dy[np.array(after) - 1]  # (past the floor: the ball entered it slower, by up to a step of g)
    kept = slice(0, None) if method == "rk4" else slice(0, 1)  # (rk4: no gain in a flight)
    assert np.all(dy[after][kept] >= E * (seen[kept] - G * step)) and np.all(dy[after] <= E * seen + 1e-12)
    if method == "euler":
        assert np.allclose(dy[after][1:] / dy[after][:-1], E, rtol=1e-9, atol=0)
    moving = np.flatnonzero((run["N"] == 0.0) | (np.abs(dy) > 1e-9))
    t_rest = t[moving[-1]]
    # no earlier than the exact end less the flights shorter than FLIGHT_STEPS steps (a geometric tail)
    assert t_rest >= ball_rest(H0, E) - FLIGHT_STEPS * step / (1 - E), t_rest
    rest = t > t_rest
    assert rest.any() and np.allclose(run["N"][rest], M * G, rtol=1e-9) and np.all(np.abs(run["y"][rest]) <= 1e-8)


@VERSIONS
@pytest.mark.parametrize(
    "e, step",
    [(0.8, 1e-3), (0.8, 1e-2), (0.9, 1e-3), (0.95, 1e-3), (0.98, 1e-3)]
    + [pytest.param(e, 1e-3, marks=pytest.mark.slow) for e in (0.99, 0.995)],
)
def test_an_accumulation_ends_under_euler_with_located_events(ball, version, e, step):
    """Explicit Euler whose events are located (OMSimulator's Model Exchange Euler): v^2 gains g^2 h^2 a step,
    which balanced the loss (1 - e^2) v^2 of each impact in a cycle of flights of about 4 / (1 - e^2) steps
    (the ball still bounced at 10 s after 682 impacts at h = 1 ms, e = 0.8; with e >= 0.98, whose cycle has
    flights of 100 steps and more, for ever).  Each impact takes the rate at which its flight began, without
    Euler's gain: the rebounds decay as e^k, exactly, and the impact whose rebound would fly less than a step
    is plastic.  Each flight ends up to a step late (Euler's parabola through the floor a step after the exact
    one), so the ball rests with the contact force m g no earlier than the exact end less the exact tail after
    a flight of one step, h / (1 - e), and no later than a step an impact after it (h = 1 ms: 4.096 s against
    4.064 s for e = 0.8, 181.5 s against 180.2 s for e = 0.995)."""
    from support.event_masters import ModelExchange

    t_exact = ball_rest(H0, e)
    run = ModelExchange(ball[version], {"e": e}).run(t_exact * 1.05 + 0.5, "euler_bisection", step, ["y", "dy", "N"])
    t, dy = run.time, run["dy"]
    impacts = ball_impacts(H0, e, 6)
    assert all(0.0 <= te - exact <= 2 * (k + 1) * step for k, (te, exact) in enumerate(zip(run.events, impacts)))
    after = [i for i in event_rows(run) if dy[i] > 0.0]  # the rebounds
    assert len(after) >= 10 and np.allclose(dy[after][1:] / dy[after][:-1], e, rtol=1e-9, atol=0)
    moving = np.flatnonzero((run["N"] == 0.0) | (np.abs(dy) > 1e-9))
    t_rest = t[moving[-1]]
    assert t_exact - step / (1 - e) <= t_rest <= t_exact + (len(run.events) + 1) * step, (t_rest, t_exact)
    rest = t > t_rest
    assert rest.any() and np.allclose(run["N"][rest], M * G, rtol=1e-9) and np.all(np.abs(run["y"][rest]) <= 1e-8)
    assert run["y"].min() >= -1e-8  # located: never below the floor


NEAR_ELASTIC = [0.9, 0.95, 0.98] + [pytest.param(e, marks=pytest.mark.slow) for e in (0.99, 0.995)]


@VERSIONS
@pytest.mark.parametrize("e", NEAR_ELASTIC)
@pytest.mark.parametrize("method", ("euler", "rk4"))
def test_an_accumulation_ends_with_events_at_step_ends(ball, version, method, e):
    """Events found at the ends of steps of 1 ms, restitution up to 0.995 (flights of 900 steps at first, of 400
    in explicit Euler's cycle): the ball rests with the contact force m g, never more than a step under the
    floor.  The flights shorter than FLIGHT_STEPS steps end as plastic impacts, so it rests no earlier than the
    exact end less their exact tail, 10 h / (1 - e); each impact is found up to a step late, so no later than
    two steps an impact after the exact end (rk4 at e = 0.995: 178.6 s against 180.2 s; Euler, whose rebounds
    keep the rate their flights began with, 179.7 s)."""
    from symbody.numeric.event_laws import FLIGHT_STEPS

    from support.event_masters import ModelExchange

    step, t_exact = 1e-3, ball_rest(H0, e)
    run = ModelExchange(ball[version], {"e": e}).run(t_exact * 1.05 + 0.5, method, step, ["y", "dy", "N"])
    t, dy = run.time, run["dy"]
    moving = np.flatnonzero((run["N"] == 0.0) | (np.abs(dy) > 1e-9))
    t_rest = t[moving[-1]]
    assert t_exact - FLIGHT_STEPS * step / (1 - e) <= t_rest <= t_exact + 2 * (len(run.events) + 1) * step
    rest = t > t_rest
    assert rest.any() and np.allclose(run["N"][rest], M * G, rtol=1e-9) and np.all(np.abs(run["y"][rest]) <= 1e-8)
    assert run["y"].min() >= -master_step_error(math.sqrt(2 * G * H0), G, step)


@VERSIONS
@pytest.mark.parametrize("e", (0.99, 0.995))
@pytest.mark.parametrize("master", [m for m in ME_MASTERS if m.method in ("bisection", "cvode")], ids=lambda m: m.name)
def test_accurate_masters_keep_their_rebounds_near_elastic(ball, version, master, e):
    """rk4 with bisection and CVode at rtol 1e-4 to 1e-8 gain far less than explicit Euler in a flight: with e
    near 1 (flights of hundreds of steps) no impact is taken without the master's error, and the first ten
    impacts and apex heights e^(2k) h0 are exact to the master's accuracy."""
    from symbody.fmu.testing import fmu_simulation

    from support.event_masters import ModelExchange

    tol, stop = ball_tolerances(master), 10.0
    log: list[str] = []
    if master.method == "bisection":
        run = ModelExchange(ball[version], {"e": e}, debug_logging=True).run(stop, "bisection", master.step, ["dy"])
        t, dy, log = run.time, run["dy"], run.log
    else:
        res = fmu_simulation(ball[version], stop, 0.01, fmi_type="ModelExchange", relative_tolerance=master.rtol,
                             output=["dy"], start_values={"e": e}, debug_logging=True,
                             logger=lambda *a: log.append(str(a[-1])))  # fmt: skip
        t, dy = res["time"], res["dy"]
    impacts = [m for m in log if "impact of contact" in m]
    assert len(impacts) >= 10 and not any("importer's error" in m or "plastic" in m for m in impacts)
    found = [float(t[i]) for i in event_rows(t) if t[i] > 0.0][:10]  # (not the event iteration at the start)
    exact = ball_impacts(H0, e, 10)
    assert all(abs(te - ex) <= (k + 1) * tol["time"] for k, (te, ex) in enumerate(zip(found, exact)))
    after = [i for i in event_rows(t) if dy[i] > 0.0][:10]
    apex = dy[after] ** 2 / (2 * G)
    assert np.allclose(apex, [e ** (2 * (k + 1)) * H0 for k in range(10)], rtol=tol["apex"], atol=0)


@VERSIONS
@pytest.mark.parametrize("method", FIXED_STEP)
def test_outputs_before_the_first_event_iteration_see_the_modes(ball, version, method):
    """A ball resting on the floor: the contact is closed from ExitInitializationMode on (outputs read before
    the master's first event iteration carry the weight), and it stays at rest in every master."""
    from support.event_masters import ModelExchange

    run = ModelExchange(ball[version], {"y": 0.0}).run(0.1, method, 1e-3, ["y", "N"])
    assert run.values["N"][0] == pytest.approx(M * G, rel=1e-12)  # (the row before the first event iteration)
    assert np.all(run.values["y"] == 0.0) and np.allclose(run.values["N"], M * G, rtol=1e-12)
    assert run.events == []


# -- the overhead crane with its end stops and the ground ---------------------------------------------------

#: the trolley driven into its upper stop, the payload paid out onto the ground (examples/overhead_crane.py)
G0, M_PAYLOAD = 9.80665, 4000.0
CRANE_INPUTS = {"F_trolley": 20e3, "F_hoist": 0.8 * M_PAYLOAD * G0}
CRANE_STOP = 10.0
GRID = 1e-3


@pytest.fixture(scope="module")
def crane(tmp_path_factory):
    from symbody.numeric import simulate

    from support import example

    system = example("overhead_crane", end_stops=True, ground=True)
    folder = tmp_path_factory.mktemp("crane_masters")
    fmus = {v: export_fmu(system, folder / f"crane{v}.fmu", fmi_version=v, kind="both") for v in (2, 3)}
    grid = np.linspace(0.0, CRANE_STOP, int(round(CRANE_STOP / GRID)) + 1)
    ref = simulate(system.derive(), CRANE_STOP, t_eval=grid, inputs=CRANE_INPUTS, rtol=1e-10, atol=1e-10)
    return fmus, ref


def crane_tolerance(master: Master) -> float:
    """How far (m, rad) a master's positions may be from the reference: fixed steps find each of the crane's
    events up to one step late (at trolley speeds of 10 m/s), and Euler is of first order; CVode holds the
    tolerance it is given to a few hundred times it over the run, the adaptive embedded solvers to some ten
    times it; the embedded rk4 takes its own steps of 1 ms."""
    if master.kind == "cs":
        return 1e-6 if master.method == "rk4" else 100 * (master.rtol or 0.0)
    if master.method in ("euler", "euler_bisection"):
        return 0.1
    if master.method == "rk4":
        return 0.03
    if master.method == "bisection":
        return 1e-6
    return 1e3 * (master.rtol or 0.0)


@VERSIONS
@ALL
def test_overhead_crane_with_end_stops_and_ground_in_every_master(crane, version, master):
    """F_trolley = 20 kN drives the trolley into its upper stop while the payload, held at 0.8 m g, lands on
    the ground; the impacts of the trolley pass through the rope to the payload and back (an accumulation of
    alternating impacts at 4.235 s): no pass-through, no Error, the motion of symbody.numeric.simulate."""
    fmus, ref = crane
    check_crane(master, fmus[version], ref)


@VERSIONS
def test_overhead_crane_under_euler_with_located_events(crane, version):
    """The crane's trolley driven into its stop under Euler with located events: its alternating impacts
    (trolley and payload, through the rope) end and the motion stays within Euler's first-order error of
    symbody.numeric.simulate (the rule for flights held up by the master's error is not one for balls)."""
    fmus, ref = crane
    check_crane(Master("euler_bisection", "me", "euler_bisection", 1e-3), fmus[version], ref)


PY_CRANE = [m for m in CS_MASTERS if m.method == "dopri5"] + [
    pytest.param(m, marks=pytest.mark.slow) for m in CS_MASTERS if m.method != "dopri5" and m.step == 1.0
]


@pytest.fixture(scope="module")
def crane_py(tmp_path_factory):
    from support import example

    system = example("overhead_crane", end_stops=True, ground=True)
    return export_fmu(system, tmp_path_factory.mktemp("crane_py") / "crane_py.fmu", backend="python")


@pytest.mark.parametrize("master", PY_CRANE, ids=lambda m: getattr(m, "name", None))
def test_overhead_crane_python_backend(crane, crane_py, master):
    """The same in the Python backend (rk4 and rosenbrock23 take tens of seconds in numpy: slow)."""
    check_crane(master, crane_py, crane[1])


def check_crane(master: Master, fmu, ref) -> None:
    tol = crane_tolerance(master)
    trace = master.run(fmu, CRANE_STOP, ["x", "l", "theta", "z_payload"], CRANE_INPUTS)
    t = trace.time
    k = np.round(t / GRID).astype(int)
    on_grid = np.abs(t - k * GRID) <= 1e-9
    for name in ("x", "l", "theta"):
        err = np.abs(trace[name][on_grid] - ref[name][k[on_grid]])
        assert err.max() <= tol, (name, err.max())
    assert trace["x"].max() <= 20.0 + tol and trace["z_payload"].min() >= -15.0 - tol


# -- a block on an incline: stick, slide, stop --------------------------------------------------------------


class Incline(NamedTuple):
    """A block on an incline (support.friction_models.incline) and its exact motion ``s(t)``."""

    alpha: float
    mu: float
    mu_static: float
    v0: float
    stop: float
    events: list[float]
    s: Callable[[np.ndarray], np.ndarray]


def incline_case(case: str) -> Incline:
    """Stuck below the friction angle, sliding above it, launched downhill to a stop, launched uphill to a stop
    where static friction cannot hold it (it slides back at once)."""
    if case == "stick":
        return Incline(math.radians(10), 0.4, 0.5, 0.0, 1.0, [], lambda t: 0.0 * t)
    if case == "slide":
        alpha, mu = math.radians(30), 0.4
        a = G * (math.sin(alpha) - mu * math.cos(alpha))
        return Incline(alpha, mu, 0.5, 0.0, 1.0, [], lambda t: a * t * t / 2)
    if case == "stop":
        alpha, mu, v0 = math.radians(15), 0.5, 2.0
        a = G * (math.sin(alpha) - mu * math.cos(alpha))
        ts = -v0 / a
        return Incline(alpha, mu, 0.6, v0, 2.0, [ts], lambda t: np.where(t < ts, v0 * t + a * t * t / 2, v0 * ts / 2))
    alpha, mu, v0 = math.radians(35), 0.4, -1.0
    a1, a2 = G * (math.sin(alpha) + mu * math.cos(alpha)), G * (math.sin(alpha) - mu * math.cos(alpha))
    t1 = -v0 / a1
    s1 = v0 * t1 / 2

    def s(t: np.ndarray) -> np.ndarray:
        return np.where(t < t1, v0 * t + a1 * t * t / 2, s1 + a2 * (t - t1) ** 2 / 2)

    return Incline(alpha, mu, 0.5, v0, 2.0, [t1], s)


def incline_tolerances(master: Master, stop: float) -> tuple[float, float]:
    """(event time, position) tolerances: fixed steps find an event up to a step late and Euler is of first
    order (its position lags by a h t / 2 at an acceleration a of at most g); the located masters hold their
    tolerances."""
    if master.kind == "cs":
        return 1e-8, (1e-9 if master.method == "rk4" else 10 * (master.rtol or 0.0))
    if master.method in ("euler", "rk4"):
        return master.step, G * master.step * stop
    if master.method == "bisection":
        return 1e-9, 1e-9
    return 100 * (master.rtol or 0.0), 10 * (master.rtol or 0.0)


@pytest.fixture(scope="module")
def inclines(tmp_path_factory):
    folder = tmp_path_factory.mktemp("incline_masters")
    fmus = {}
    for case in ("stick", "slide", "stop", "uphill"):
        c = incline_case(case)
        for v in (2, 3):
            system = incline(c.alpha, c.mu, c.mu_static, c.v0)
            fmus[case, v] = export_fmu(system, folder / f"{case}{v}.fmu", fmi_version=v, kind="both")
    return fmus


@VERSIONS
@ALL
@pytest.mark.parametrize("case", ("stick", "slide", "stop", "uphill"))
def test_incline_in_every_master(inclines, version, master, case):
    """Stuck (no creep; friction m g sin(alpha)), sliding with g (sin - mu cos), launched downhill to a stop at
    v0 / |a| (and held there), launched uphill to a stop where it turns and slides back at once."""
    c = incline_case(case)
    alpha, events, exact = c.alpha, c.events, c.s
    t_tol, s_tol = incline_tolerances(master, c.stop)
    trace = master.run(inclines[case, version], c.stop, ["s", "ds", "F_t", "N"])
    t = trace.time
    friction_events = [te for te in trace.events if te > 1e-12]
    assert len(friction_events) == len(events), friction_events
    assert np.allclose(friction_events, events, rtol=0, atol=t_tol)
    assert np.allclose(trace["s"], exact(t), rtol=0, atol=s_tol)
    m = 3.0
    assert np.allclose(trace["N"], m * G * math.cos(alpha), rtol=1e-6)
    if case == "stick":
        assert np.all(np.abs(trace["s"]) <= 1e-12) and np.all(np.abs(trace["ds"]) <= 1e-12)  # no creep
        assert np.allclose(trace["F_t"], -m * G * math.sin(alpha), rtol=1e-9)
    if case == "stop":  # held where it stopped, exactly
        held = t > events[0] + t_tol
        assert np.all(trace["ds"][held] == 0.0) and np.ptp(trace["s"][held]) == 0.0
        assert np.allclose(trace["F_t"][held], -m * G * math.sin(alpha), rtol=1e-9)


# -- a grazing impact inside one step, whatever tolerance the importer passes --------------------------------


@pytest.fixture(scope="module")
def oscillator(tmp_path_factory):
    folder = tmp_path_factory.mktemp("graze_masters")
    fmus = {v: export_fmu(grazing_oscillator(), folder / f"osc{v}.fmu", fmi_version=v, kind="cs") for v in (2, 3)}
    fmus["python"] = export_fmu(grazing_oscillator(), folder / "osc_py.fmu", backend="python")
    return fmus


@pytest.mark.parametrize("version", (2, 3, "python"))
@pytest.mark.parametrize("method", SOLVERS)
@pytest.mark.parametrize("step", (0.25, 1.0))
def test_grazing_impact_is_found_whatever_the_importers_tolerance(oscillator, version, method, step):
    """The free motion would go 1e-7 into the wall for 9e-4 s, inside one internal step of a solver at the
    importer's tolerance: every solver finds the impact (the time of a graze moves with the square root of the
    error of the motion: to 1e-6 s here), at tolerances 1e-3, 1e-4 and the FMU's default alike.  The approach to
    the wall runs at the event tolerance whatever the importer asks (the first steps of a loose solver already
    carry more than 1e-7 of error): the same motion up to the impact; the rebound, moving away from the wall,
    runs at the tolerance asked for (rosenbrock23, of order 2, ends within 25 rtol)."""
    t_hit = math.asin(1.0 - GRAZE_DEPTH)
    runs = []
    for rtol in (1e-3, 1e-4, None):
        start = {"solver.method": SOLVERS[method]}
        if rtol is not None:
            start["solver.rtol"] = rtol
        log: list[str] = []

        def logger(*args, log=log) -> None:
            if args[-2] == b"logEvents" and b"impact of contact" in args[-1]:
                log.append(args[-1].decode())

        res = fmu_simulation(oscillator[version], 3.0, step, start_values=start, relative_tolerance=rtol,
                             output=["x", "dx"], logger=logger, debug_logging=True)  # fmt: skip
        impacts = [float(m.split(": t = ")[1].split(":")[0]) for m in log]
        assert impacts == pytest.approx([t_hit], abs=1e-6), (rtol, impacts)
        exact = np.array([grazing_oscillator_motion(float(t)) for t in res["time"]])
        before = res["time"] < t_hit
        tol = np.where(before, 1e-5, 1e-5 + 50 * (rtol or 1e-6))
        assert np.all(np.abs(res["x"] - exact[:, 0]) <= tol) and np.all(np.abs(res["dx"] - exact[:, 1]) <= tol)
        runs.append(res["x"][before])
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[1], runs[2])


@VERSIONS
@pytest.mark.parametrize("method", ("euler", "rk4"))
def test_a_stop_found_late_holds_where_the_block_stopped(inclines, version, method):
    """Launched downhill, the block stops between two step ends: the master sees its rate reversed.  It sticks
    there (it slipped backwards, with friction the wrong way, for a step: it ended 5e-5 m off), taken back by
    the way it went past the stop: rk4, exact on the constant deceleration, ends exactly where it stopped;
    Euler as close as its own first-order error, v0 h / 2 and a step of deceleration."""
    from support.event_masters import ModelExchange

    c = incline_case("stop")
    run = ModelExchange(inclines["stop", version], debug_logging=True).run(c.stop, method, 1e-3, ["s", "ds"])
    assert len(run.events) == 1 and 0.0 <= run.events[0] - c.events[0] <= 1e-3
    assert any("went past its stop" in m for m in run.log) and not any("slips backward" in m for m in run.log)
    after = run.time >= run.events[0]
    assert np.all(run["ds"][after][1:] == 0.0) and np.ptp(run["s"][after][1:]) == 0.0
    tol = 1e-9 if method == "rk4" else c.v0 * 1e-3 / 2 + G * 1e-6
    assert abs(run["s"][-1] - c.s(np.array(c.stop))) <= tol


# -- a kink in a constraint ---------------------------------------------------------------------------------

T_KINK = 1.03


def kinked_drive(form: str = "abs"):
    """x driven by the constraint x = -(t - t_k)|t - t_k| (its acceleration jumps from 2 to -2 at t_k), y pulled
    towards it by a spring: y'' = 4 (x - y).  ``form`` ``"sign"`` writes it x = -(t - t_k)^2 sign(t - t_k)."""
    import symbody as sb

    s = sb.System("kinked_drive")
    x = s.coordinate("x", T_KINK**2, dq0=-2 * T_KINK)
    y = s.coordinate("y", T_KINK**2, dq0=-2 * T_KINK)
    s.particle("a", s.point("A", s.origin, (x, 0, 0)), 1.0)
    s.particle("b", s.point("B", s.origin, (0, y, 0)), 1.0)
    kink = (s.t - T_KINK) * sb.Abs(s.t - T_KINK) if form == "abs" else (s.t - T_KINK) ** 2 * sb.sign(s.t - T_KINK)
    s.constraint("drive", x + kink)
    s.generalized_force("spring", y, 4.0 * (x - y))
    return s


def kinked_drive_y(t: float) -> float:
    """y of :func:`kinked_drive`: y = (t - t_k)^2 - 1/2 + cos(2 t) / 2 before t_k, then the particular solution
    -(t - t_k)^2 + 1/2 with the homogeneous part that keeps y and y' continuous."""
    if t < T_KINK:
        return (t - T_KINK) ** 2 - 0.5 + math.cos(2 * t) / 2
    a, b = -1.0 + math.cos(2 * T_KINK) / 2, -math.sin(2 * T_KINK) / 2
    tau = t - T_KINK
    return -(tau**2) + 0.5 + a * math.cos(2 * tau) + b * math.sin(2 * tau)


@VERSIONS
@pytest.mark.parametrize("form", ("abs", "sign"))
def test_a_kink_in_a_constraint_is_located_as_an_event(tmp_path, version, form):
    """The argument of Abs (or sign) in a constraint switches like one in a load: an event indicator in Model
    Exchange, a switch located inside doStep, so that rk4 keeps its fourth order through it (a step holding the
    kink was refused as not trustworthy, or taken with an error of the order of the step)."""
    system = kinked_drive(form)
    assert [str(e) for e in system.derive().switches] in (["t - 1.03"], ["1.03 - t"])  # (a - b and b - a: one atom)
    fmu = export_fmu(system, tmp_path / f"kink{form}{version}.fmu", fmi_version=version, kind="both")
    errors = []
    for h in (0.0125, 0.00625):
        res = fmu_simulation(fmu, 2.0, 0.5, start_values={"solver.method": 1, "solver.step": h}, output=["y"])
        errors.append(abs(res["y"][-1] - kinked_drive_y(2.0)))
    assert errors[0] / errors[1] > 12 and errors[1] < 1e-8  # fourth order (2^4 = 16)
    me = fmu_simulation(fmu, 2.0, 0.5, fmi_type="ModelExchange", relative_tolerance=1e-10, output=["y"])
    t = me["time"]
    assert [float(t[i]) for i in range(1, t.size) if t[i] == t[i - 1]] == pytest.approx([T_KINK], abs=1e-8)
    assert abs(me["y"][-1] - kinked_drive_y(2.0)) < 1e-6


class DriftingOut(ModelExchange):
    """rk4 with bisection whose steps leave the crane's closed ground contact ``DRIFT`` out of its surface (the
    payload above the ground, as OMSimulator's CVode at rtol 1e-6 leaves it): the error of an importer that
    integrates the contact's constraint at the acceleration level, of either sign."""

    DRIFT = 2e-5

    def _step(self, fmu, t, x, h, method, calls):
        x_new = super()._step(fmu, t, x, h, method, calls)
        z_payload, f_ground = self._get(fmu, ["z_payload", "F_ground"])
        if f_ground > 0.0:  # closed: l moved so that the payload is DRIFT above the ground (z = -l cos(theta))
            names = [d.variable.derivative.name for d in self.md.derivatives]
            il, ith = names.index("l"), names.index("theta")
            x_new[il] += (z_payload - (-15.0 + self.DRIFT)) / math.cos(x_new[ith])
            fmu.setContinuousStates(_ptr(x_new), self.nx)
        return x_new


@VERSIONS
def test_a_closed_contact_drifted_out_of_its_surface_takes_part_in_an_impact(crane, version):
    """The trolley hits its stop while the payload rests on the ground, the ground contact closed but DRIFT above
    its surface: the impact is resolved with the ground contact held (one event, as symbody.numeric.events), not
    with the contact opened and the payload thrown at the ground for a second impact 4e-5 s later (x then off by
    3.4e-2 m until the trolley rests on its stop)."""
    fmus, ref = crane
    output = ["x", "l", "theta", "F_ground"]
    run = DriftingOut(fmus[version], CRANE_INPUTS).run(4.0, "bisection", 1e-3, output)
    t = run.time
    k = np.round(t / GRID).astype(int)
    on_grid = np.abs(t - k * GRID) <= 1e-9
    err = np.abs(run["x"][on_grid] - ref["x"][k[on_grid]])
    assert err.max() <= 1e-3, err.max()
    stop = [e for e in run.events if 2.4 < e < 2.6]
    assert len(stop) == 1, run.events  # the stop's impact; the ground contact stays closed through it
    assert run["F_ground"][(t > 2.4) & (t < 2.6)].min() > 0.0
