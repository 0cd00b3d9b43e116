"""Unilateral contacts in Model Exchange FMUs, simulated by fmpy (CVode with its event iteration) and
checked against exact solutions: the bouncing ball (impact times, apex heights ``e^(2k) h0``, rest with
the force ``m g`` after the accumulation), a pendulum on a rod hitting a wall (``e^2`` of the kinetic
energy left), Newton's cradle (simultaneous impacts), a resting block lifted off (the force as event
indicator); friction: the native FMUs accept it (its tests: test_fmu_friction.py), the Python backend
refuses it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import ellipk

import symbody as sb
from symbody.errors import ExportError
from symbody.fmu import export_fmu
from symbody.fmu.spec import FmuSpec
from symbody.fmu.testing import fmu_simulation

from support.contact_models import G
from support.contact_models import bouncing_ball as ball

VERSIONS = pytest.mark.parametrize("version", (2, 3))


def simulate_me(
    system: sb.System, tmp_path, stop: float, version: int, interval: float = 0.01, **kw
) -> dict[str, np.ndarray]:
    fmu = export_fmu(system, tmp_path / f"{system.name}{version}.fmu", fmi_version=version, kind="me")
    return fmu_simulation(fmu, stop, interval, fmi_type="ModelExchange", relative_tolerance=1e-10, **kw)


def jumps(t: np.ndarray, v: np.ndarray) -> list[int]:
    """Indices of the rows just after a velocity jump (fmpy records an event before and after)."""
    return [i for i in range(1, t.size) if t[i] == t[i - 1] and abs(v[i] - v[i - 1]) > 1e-6]


@VERSIONS
def test_bouncing_ball_me_fmu_impacts_apexes_and_rest(tmp_path, version):
    h0, e, m = 1.0, 0.8, 2.0
    v1, t1 = math.sqrt(2 * G * h0), math.sqrt(2 * h0 / G)
    impacts = [t1 + 2 * v1 / G * sum(e**j for j in range(1, k + 1)) for k in range(12)]
    t_rest = t1 + 2 * v1 / G * e / (1 - e)
    res = simulate_me(ball(h0, e, m), tmp_path, t_rest + 1.0, version, output=["y", "dy", "N"])
    t, dy = res["time"], res["dy"]
    after = jumps(t, dy)
    assert np.allclose(t[after[:12]], impacts, rtol=0, atol=1e-6)
    # approach speeds e^k v1, rebound speeds e^(k+1) v1: apex heights e^(2(k+1)) h0
    assert np.allclose(dy[[i - 1 for i in after[:12]]], [-(e**k) * v1 for k in range(12)], rtol=1e-6)
    apex = dy[after[:12]] ** 2 / (2 * G)
    assert np.allclose(apex, [e ** (2 * (k + 1)) * h0 for k in range(12)], rtol=1e-6)
    assert np.all(res["N"][t < impacts[0]] == 0.0)  # open in flight
    rest = t > t_rest + 1e-3
    assert np.all(t[after] < t_rest + 1e-4)  # no impact after the accumulation
    assert np.allclose(res["y"][rest], 0.0, atol=1e-8) and np.allclose(dy[rest], 0.0, atol=1e-8)
    assert np.allclose(res["N"][rest], m * G, rtol=1e-9)  # the closed contact carries the weight


@VERSIONS
def test_pendulum_on_a_rod_hits_a_wall_me_fmu(tmp_path, version):
    """The rod is a bilateral constraint held by the impulse; e^2 of the kinetic energy is left."""
    th0, thw, e, l = math.radians(60), math.radians(-20), 0.6, 1.5
    s = sb.System("pend_wall")
    x = s.coordinate("x", l * math.sin(th0))
    y = s.coordinate("y", -l * math.cos(th0))
    s.particle("b", s.point("P", s.origin, (x, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.constraint("rod", x**2 + y**2 - l**2)
    s.unilateral("wall", x - l * math.sin(thw), restitution=e)
    res = simulate_me(s, tmp_path, 1.5, version, output=["x", "y", "dx", "dy"])
    t = res["time"]
    after = jumps(t, res["dx"])
    w2 = G / l
    beyond, _ = quad(lambda a: 1 / math.sqrt(2 * w2 * (math.cos(a) - math.cos(th0))), 0, -thw)
    assert abs(t[after[0]] - (ellipk(math.sin(th0 / 2) ** 2) / math.sqrt(w2) + beyond)) < 1e-6
    k = after[0]
    ke = [0.5 * (res["dx"][j] ** 2 + res["dy"][j] ** 2) for j in (k - 1, k)]
    assert abs(ke[1] - e**2 * ke[0]) < 1e-7 * ke[0]
    # the velocity after the impact stays tangent to the rod
    assert abs(res["x"][k] * res["dx"][k] + res["y"][k] * res["dy"][k]) < 1e-7


@pytest.mark.parametrize(
    "e, expected", [(1.0, (-1 / 3, 2 / 3, 2 / 3)), (0.5, (0.0, 0.5, 0.5)), (0.0, (1 / 3, 1 / 3, 1 / 3))]
)
@VERSIONS
def test_newtons_cradle_me_fmu(tmp_path, e, expected, version):
    """Ball 0 hits the touching balls 1 and 2 at once: both contacts take impulses (the LCP of
    Newton's law, W = [[2, -1], [-1, 2]]), momentum kept, energy kept for e = 1."""
    v, r = 1.0, 0.1
    s = sb.System("cradle")
    x = [s.coordinate(f"x{i}", 2 * r * i - (0.05 if i == 0 else 0.0), dq0=v if i == 0 else 0.0) for i in range(3)]
    for i in range(3):
        s.particle(f"b{i}", s.point(f"P{i}", s.origin, (x[i], 0, 0)), 1.0)
    for i in range(2):
        s.unilateral(f"c{i}", x[i + 1] - x[i] - 2 * r, restitution=e)
    res = simulate_me(s, tmp_path, 0.2, version)
    t = res["time"]
    assert abs(t[jumps(t, res["dx0"])[0]] - 0.05 / v) < 1e-9
    end = np.array([res[f"dx{i}"][-1] for i in range(3)])
    assert np.allclose(end, expected, atol=1e-9)
    assert abs(end.sum() - v) < 1e-12  # momentum
    if e == 1.0:
        assert abs(0.5 * end @ end - 0.5 * v * v) < 1e-9  # elastic: energy kept
    gaps = [res[f"x{i + 1}"][-1] - res[f"x{i}"][-1] - 2 * r for i in range(2)]
    assert min(gaps) >= -1e-9


@VERSIONS
def test_resting_block_lifts_off_where_the_force_vanishes_me_fmu(tmp_path, version):
    """Closed at the start (the initial event iteration), open when the force indicator m g - k t
    reaches zero; then y = k (t - t_lift)^3 / (6 m)."""
    m, k = 2.0, 5.0
    s = sb.System("lift")
    y = s.coordinate("y", 0.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), m)
    s.gravity((0, -G, 0))
    s.generalized_force("pull", y, k * s.t)
    c = s.unilateral("floor", y)
    s.output("N", c.force)
    res = simulate_me(s, tmp_path, 6.0, version, interval=0.5, output=["y", "N"])
    t, t_lift = res["time"], m * G / k
    on, off = t < t_lift - 1e-9, t > t_lift + 1e-9
    assert np.allclose(res["N"][on], m * G - k * t[on], rtol=1e-9)
    assert np.allclose(res["y"][off], k * (t[off] - t_lift) ** 3 / (6 * m), rtol=1e-6)
    assert np.all(res["N"][off] == 0.0)


def test_friction_native_fmus_accept_the_python_backend_refuses(tmp_path):
    s = ball(1.0, 0.5, 1.0)  # (the Python backend handles contacts: tests/fmu/test_fmu_python_events.py)
    x = s.coordinate("x", 0.0)
    s.particle("c", s.point("Q", s.origin, (x, 0, 0)), 1.0)
    s.stick_slip("slide", x, normal=1.0, mu=0.3)
    for version in (2, 3):  # the native FMUs handle stick-slip friction (tests/fmu/test_fmu_friction.py)
        assert FmuSpec(s.derive(), fmi_version=version, kind="me").eq.frictions
    with pytest.raises(ExportError, match=r"stick-slip friction \(slide\): the Python backend"):
        FmuSpec(s.derive(), 2, "cs", backend="python")


def test_contact_mode_is_part_of_the_fmu_state(tmp_path):
    """A ball resting on the floor (closed at the initial event iteration) is lifted by setting its
    states: the event opens the contact; restoring the FMU state (also serialized) closes it again."""
    from ctypes import POINTER, c_double

    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Model

    buf = np.zeros(2)
    ptr = buf.ctypes.data_as(POINTER(c_double))

    def indicator() -> float:
        model.getEventIndicators(ptr, 1)
        return float(buf[0])

    def acceleration() -> float:
        model.getDerivatives(ptr, 2)
        return float(buf[1])

    def lift() -> None:  # the ball set 0.5 above the floor, at rest: the event opens the contact
        x = np.array([0.5, 0.0])
        model.setContinuousStates(x.ctypes.data_as(POINTER(c_double)), 2)
        model.enterEventMode()
        model.newDiscreteStates()
        model.enterContinuousTimeMode()

    m = 2.0
    fmu = export_fmu(ball(0.0, 0.5, m), tmp_path / "rest.fmu", fmi_version=2, kind="me")
    md = read_model_description(str(fmu))
    assert md.numberOfEventIndicators == 1
    vr = {v.name: v.valueReference for v in md.modelVariables}
    model = FMU2Model(guid=md.guid, unzipDirectory=extract(str(fmu)), modelIdentifier=md.modelExchange.modelIdentifier)
    model.instantiate()
    model.setupExperiment(startTime=0.0)
    model.enterInitializationMode()
    model.exitInitializationMode()
    model.newDiscreteStates()  # the initial event iteration closes the contact
    model.enterContinuousTimeMode()
    assert model.getReal([vr["N"]])[0] == pytest.approx(m * G, rel=1e-12)
    assert indicator() == pytest.approx(m * G, rel=1e-12)  # the force while closed
    resting = model.getFMUState()
    saved = model.serializeFMUState(resting)
    lift()
    assert model.getReal([vr["N"]])[0] == 0.0  # opened: the gap is the indicator
    assert indicator() == pytest.approx(0.5)
    assert acceleration() == pytest.approx(-G)
    model.setFMUState(resting)
    assert model.getReal([vr["N"]])[0] == pytest.approx(m * G, rel=1e-12)
    assert acceleration() == pytest.approx(0.0, abs=1e-12)
    lift()
    model.setFMUState(model.deserializeFMUState(saved))
    assert model.getReal([vr["N"]])[0] == pytest.approx(m * G, rel=1e-12)
    model.freeFMUState(resting)
    model.terminate()
    model.freeInstance()


# -- Co-Simulation: the events inside doStep, with every embedded solver --------------------------------

SOLVERS = {"rk4": 1, "dopri5": 2, "rosenbrock23": 3}
CS_SETTINGS = {"solver.step": 1e-3, "solver.rtol": 1e-10, "solver.atol": 1e-12}


def cs_run(
    fmu, stop: float, interval: float, method: str, output: list[str], log: list[str] | None = None, step: float = 1e-3
):
    import fmpy

    def logger(*args):  # (..., category, message); the impacts are logged under logEvents
        if log is not None and args[-2] == b"logEvents":
            log.append(args[-1].decode())

    start = dict(CS_SETTINGS, **{"solver.method": SOLVERS[method], "solver.step": step})
    return fmpy.simulate_fmu(
        str(fmu), fmi_type="CoSimulation", stop_time=stop, output_interval=interval, output=output,
        start_values=start, logger=logger, debug_logging=log is not None,
    )  # fmt: skip


def logged_impacts(log: list[str]) -> list[float]:
    return [float(m.split("t = ")[1].split(":")[0]) for m in log if "impact of contact" in m]


@VERSIONS
@pytest.mark.parametrize("method", SOLVERS)
def test_bouncing_ball_cs_fmu_with_half_second_steps(tmp_path, version, method):
    """Communication steps of 0.5 s hold several impacts each: all are found inside doStep."""
    h0, e, m = 1.0, 0.8, 2.0
    v1, t1 = math.sqrt(2 * G * h0), math.sqrt(2 * h0 / G)
    impacts = [t1 + 2 * v1 / G * sum(e**j for j in range(1, k + 1)) for k in range(12)]
    apexes = [tk + e ** (k + 1) * v1 / G for k, tk in enumerate(impacts)]
    t_rest = t1 + 2 * v1 / G * e / (1 - e)
    fmu = export_fmu(ball(h0, e, m), tmp_path / f"ball{version}.fmu", fmi_version=version, kind="cs")
    log: list[str] = []
    res = cs_run(fmu, math.ceil(t_rest + 1.0), 0.5, method, ["y", "dy", "N"], log)
    assert np.allclose(logged_impacts(log)[:12], impacts, rtol=0, atol=1e-6)
    assert max(logged_impacts(log)) < t_rest + 1e-4  # none after the accumulation
    rest = res["time"] > t_rest
    assert np.allclose(res["y"][rest], 0.0, atol=1e-8) and np.allclose(res["dy"][rest], 0.0, atol=1e-8)
    assert np.allclose(res["N"][rest], m * G, rtol=1e-9)
    assert np.all(res["N"][res["time"] < t_rest - 0.1] == 0.0)
    for k in (0, 1, 2, 5):  # one communication step to each apex: height e^(2(k+1)) h0, at rest
        end = cs_run(fmu, apexes[k], apexes[k], method, ["y", "dy"])[-1]
        assert abs(end["y"] - e ** (2 * (k + 1)) * h0) < 1e-8 and abs(end["dy"]) < 1e-7


@VERSIONS
def test_pendulum_and_cradle_cs_fmu(tmp_path, version):
    th0, thw, e, l = math.radians(60), math.radians(-20), 0.6, 1.5
    s = sb.System("pend_wall")
    x = s.coordinate("x", l * math.sin(th0))
    y = s.coordinate("y", -l * math.cos(th0))
    s.particle("b", s.point("P", s.origin, (x, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.constraint("rod", x**2 + y**2 - l**2)
    s.unilateral("wall", x - l * math.sin(thw), restitution=e)
    fmu = export_fmu(s, tmp_path / f"pend{version}.fmu", fmi_version=version, kind="cs")
    w2 = G / l
    beyond, _ = quad(lambda a: 1 / math.sqrt(2 * w2 * (math.cos(a) - math.cos(th0))), 0, -thw)
    t_hit = ellipk(math.sin(th0 / 2) ** 2) / math.sqrt(w2) + beyond
    log: list[str] = []
    cs_run(fmu, 1.0, 1.0, "dopri5", ["x"], log)
    assert abs(logged_impacts(log)[0] - t_hit) < 1e-6
    ke = []
    for t in (t_hit - 1e-7, t_hit + 1e-7):
        end = cs_run(fmu, t, t, "dopri5", ["dx", "dy"])[-1]
        ke.append(0.5 * (end["dx"] ** 2 + end["dy"] ** 2))
    assert abs(ke[1] - e**2 * ke[0]) < 1e-5 * ke[0]  # (gravity works 2e-7 s around the impact)

    v, r = 1.0, 0.1
    c = sb.System("cradle")
    xs = [c.coordinate(f"x{i}", 2 * r * i - (0.05 if i == 0 else 0.0), dq0=v if i == 0 else 0.0) for i in range(3)]
    for i in range(3):
        c.particle(f"b{i}", c.point(f"P{i}", c.origin, (xs[i], 0, 0)), 1.0)
    for i in range(2):
        c.unilateral(f"c{i}", xs[i + 1] - xs[i] - 2 * r, restitution=1.0)
    fmu = export_fmu(c, tmp_path / f"cradle{version}.fmu", fmi_version=version, kind="cs")
    end = cs_run(fmu, 0.2, 0.2, "rk4", ["dx0", "dx1", "dx2"])[-1]
    assert np.allclose([end["dx0"], end["dx1"], end["dx2"]], (-1 / 3, 2 / 3, 2 / 3), atol=1e-9)


@VERSIONS
def test_switching_load_is_an_event_indicator(tmp_path, version):
    """A spring-mass with a Coulomb force -c sign(dx) (a switching load, no stick): every half period
    pi the velocity reverses and the amplitude drops by 2 c; the zeros of dx are located as events in
    Model Exchange (an event indicator) and inside Co-Simulation steps of 1 s."""
    c = 0.1
    s = sb.System("coulomb")
    x = s.coordinate("x", 1.0, dq0=-1e-12)  # (leaving rest to the left: sign(dx) = -1 from the start)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("spring", x, -x)
    s.generalized_force("dry", x, -c * sb.sign(s.symbol("dx")))
    fmu = export_fmu(s, tmp_path / f"coulomb{version}.fmu", fmi_version=version, kind="both")
    from fmpy import read_model_description

    md = read_model_description(str(fmu))
    assert len(md.eventIndicators) == 1 if version == 3 else md.numberOfEventIndicators == 1
    ends = [1.0 - 2 * c * k if k % 2 == 0 else -(1.0 - 2 * c * k) for k in range(4)]
    me = fmu_simulation(fmu, 3 * math.pi, math.pi, fmi_type="ModelExchange", relative_tolerance=1e-10)
    k = np.round(me["time"] / math.pi).astype(int)  # (the events at k pi are recorded twice)
    assert np.allclose(me["time"], k * math.pi, atol=1e-7) and sorted(set(k)) == [0, 1, 2, 3]
    assert np.allclose(me["x"], np.array(ends)[k], atol=1e-7)

    def exact(t: np.ndarray) -> np.ndarray:  # half period k: about the equilibrium c (-1)^k
        k = np.minimum(np.floor(t / math.pi), 3).astype(int)
        e = c * (-1.0) ** k
        return e + (np.array(ends)[k] - e) * np.cos(t - k * math.pi)

    # Co-Simulation steps of 1 s: the kinks fall inside steps and are located there.  The generated code
    # evaluates sign() as it stands, so the last stage of a step ending at a kink may see either side:
    # rk4 keeps an error of the order of step * jump (1e-3 * 0.2 here), the adaptive solvers control it.
    for method, tol in (("rk4", 5e-5), ("dopri5", 1e-9), ("rosenbrock23", 1e-6)):
        cs = cs_run(fmu, 3 * math.pi, 1.0, method, ["x"])
        assert np.allclose(cs["x"], exact(cs["time"]), atol=tol), method


def test_overhead_crane_with_end_stops_and_floor_exports(tmp_path):
    """The example's end stops and floor export (its docstring once said the FMU export refused them):
    the CS FMU's trolley rebounds from the stop and comes to rest against it, as symbody.numeric has it."""
    from symbody.numeric import simulate

    from support import example

    s = example("overhead_crane", end_stops=True, ground=True, x0=16.0)
    fmu = export_fmu(s, tmp_path / "crane_stops.fmu", kind="cs")
    tight = {"F_trolley": 20000.0, "solver.rtol": 1e-10, "solver.atol": 1e-12}
    res = fmu_simulation(fmu, 6.0, 0.05, start_values=tight)
    ref = simulate(s.derive(), 6.0, t_eval=res["time"], inputs={"F_trolley": 20000.0}, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["x"], ref["x"], atol=1e-8)
    np.testing.assert_allclose(res["theta"], ref["theta"], atol=1e-8)
    assert res["x"].max() <= 20.0 + 1e-8  # never through the stop at x_max = 20 m
    assert res["x"][-1] == pytest.approx(20.0, abs=1e-8) and res["F_stop_high"][-1] > 0.0  # held against it


# -- the offsets of the contacts' event indicators (Model Exchange) ----------------------------------------


class _MeInstance:
    """A Model Exchange instance of fmpy's raw FMI 2 or 3 calls with one state pair (y, dy) and one indicator."""

    def __init__(self, fmu, version: int) -> None:
        from fmpy import extract, read_model_description

        md = read_model_description(str(fmu))
        self.version, self.buf = version, np.zeros(2)
        args = {"unzipDirectory": extract(str(fmu)), "modelIdentifier": md.modelExchange.modelIdentifier}
        if version == 2:
            from fmpy.fmi2 import FMU2Model

            self.fmu = FMU2Model(guid=md.guid, **args)
            self.fmu.instantiate()
            self.fmu.setupExperiment(tolerance=1e-6, startTime=0.0)
            self.fmu.enterInitializationMode()
        else:
            from fmpy.fmi3 import FMU3Model

            self.fmu = FMU3Model(guid=md.guid, **args)
            self.fmu.instantiate()
            self.fmu.enterInitializationMode(tolerance=1e-6, startTime=0.0)
        self.fmu.exitInitializationMode()
        self.event()

    def event(self) -> None:
        if self.version == 2:
            self.fmu.newDiscreteStates()
        else:
            self.fmu.updateDiscreteStates()
        self.fmu.enterContinuousTimeMode()

    def found_at(self, y: float, dy: float) -> None:
        """The host hands over the state (y, dy) and the event iteration resolves it."""
        from ctypes import POINTER, c_double

        x = np.array([y, dy])
        self.fmu.setContinuousStates(x.ctypes.data_as(POINTER(c_double)), 2)
        self.fmu.enterEventMode()
        self.event()

    def indicator(self) -> float:
        from ctypes import POINTER, c_double

        self.fmu.getEventIndicators(self.buf.ctypes.data_as(POINTER(c_double)), 1)
        return float(self.buf[0])

    def close(self) -> None:
        self.fmu.terminate()
        self.fmu.freeInstance()


@VERSIONS
def test_an_open_contacts_indicator_offset_grows_where_it_is_found_again_and_is_part_of_the_fmu_state(
    tmp_path, version
):
    """A free body on a floor (no load: at rest on it the contact is open, its indicator the gap + 1e-10).
    Found at its offset inside (the error of the host's next step) the offset grows tenfold each time, up to the
    error the tolerance 1e-6 allows in the gap y = 2 (1e-6 (1 + 2)); getFMUState, setFMUState and
    (de)serialization restore it; an impact sets it back to 1e-10."""
    s = sb.System("free_on_floor")
    y = s.coordinate("y", 2.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.unilateral("floor", y - 2.0, restitution=0.5)
    fmu = export_fmu(s, tmp_path / f"free{version}.fmu", fmi_version=version, kind="me")
    me = _MeInstance(fmu, version)
    assert me.indicator() == pytest.approx(1e-10, rel=1e-6)
    for offset in (1e-9, 1e-8, 1e-7, 1e-6, 3e-6, 3e-6):  # (bound 1e-6 (1 + |1 * 2|))
        me.found_at(2.0 - me.indicator(), 0.0)  # found at its offset inside, at rest
        assert me.indicator() == pytest.approx(offset, rel=1e-6)
        if offset == 1e-7:
            kept = me.fmu.getFMUState()
            blob = me.fmu.serializeFMUState(kept)
    me.fmu.setFMUState(kept)
    assert me.indicator() == pytest.approx(1e-7, rel=1e-6)
    me.found_at(2.0 - 1e-7, 0.0)
    assert me.indicator() == pytest.approx(1e-6, rel=1e-6)
    me.fmu.setFMUState(me.fmu.deserializeFMUState(blob))
    assert me.indicator() == pytest.approx(1e-7, rel=1e-6)
    me.found_at(2.0 - 1e-7, -1.0)  # an impact: back to the first offset (rebound at 0.5)
    assert me.indicator() == pytest.approx(1e-10, rel=1e-6)
    me.found_at(2.0 - 1e-10, 1e-3)  # leaving where it was located: grows, and keeps its rate
    assert me.indicator() == pytest.approx(1e-9, rel=1e-6)
    me.found_at(2.5, 1e-3)  # an event that finds it away from its surface: back to the first offset
    assert me.indicator() == pytest.approx(0.5 + 1e-10, rel=1e-9)
    me.fmu.freeFMUState(kept)
    me.close()
