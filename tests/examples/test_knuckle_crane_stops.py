"""The knuckle-boom crane of examples/knuckle_crane.py with its four boom end stops, as FMUs driven by 60 s of ship
motion (heave, roll and pitch with their rates, the motion inputs) and cylinder commands that drive each boom into
both of its stops: in Co-Simulation with every embedded solver, and in Model Exchange under fmpy's CVode at rtol
1e-6 with no more than twice the derivative evaluations of the same crane without end stops.  The booms never pass
a stop by more than the contacts' gap tolerance, and CVode's root finding and the Co-Simulation event location find
the first impact at the same time (to the communication step over which fmpy holds the inputs)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symbody.fmu import export_fmu
from symbody.fmu.testing import fmu_simulation
from symbody.numeric import inverse_dynamics

from support import example
from support.event_masters import SOLVERS, cvode_with_inputs

LIMITS = {"luff": (-0.1, 1.3), "fold": (-2.6, 0.0)}  # the example's luff_min, luff_max, fold_min, fold_max
STOPS = ("stop_luff_max", "stop_luff_min", "stop_fold_max", "stop_fold_min")
GAP_TOL = 1e-8  # SB_GAP_TOL: how far a contact may be found inside its surface


def ship_motion(t: float) -> dict[str, float]:
    """Heave 1.5 m at 9 s, roll 0.06 rad at 11 s, pitch 0.02 rad at 7 s, each with its exact rates, at ``t``."""
    row = {}
    for name, amplitude, period in (("heave", 1.5, 9.0), ("roll", 0.06, 11.0), ("pitch", 0.02, 7.0)):
        w = 2 * math.pi / period
        s, c = math.sin(w * t), math.cos(w * t)
        row |= {name: amplitude * s, "d" + name: amplitude * w * c, "dd" + name: -amplitude * w * w * s}
    return row


def commands(duration: float = 60.0, dt: float = 0.05) -> np.ndarray:
    """Ship motion (heave 1.5 m at 9 s, roll 0.06 rad at 11 s, pitch 0.02 rad at 7 s, each with its exact rates)
    and drives (the cylinder forces that hold the booms at rest, scaled: the main boom pushed up into its high stop
    and let down into its low one, the jib folded in and stretched out; a slewing torque), sampled every ``dt``."""
    eq = example("knuckle_crane").derive()
    q = np.array(eq.q0, dtype=float)
    held = inverse_dynamics(
        eq, [0.0], [q], [np.zeros(eq.nq)], [np.zeros(eq.nq)], actuators=["tau_slew", "F_main", "F_jib"]
    ).u[0]
    names = [u.name for u in eq.inputs]
    f_main, f_jib = held[names.index("F_main")], held[names.index("F_jib")]
    rows = []
    for t in np.arange(0.0, duration + dt / 2, dt):
        row = {"time": t} | ship_motion(t)
        row["F_main"] = f_main * (1.6 if 5 <= t < 18 else 0.5 if 30 <= t < 42 else 1.0)
        row["F_jib"] = f_jib * (0.3 if 12 <= t < 26 else 4.0 if 45 <= t < 55 else 1.0)
        row["tau_slew"] = 3.0e4 if 20 <= t < 24 else -3.0e4 if 34 <= t < 38 else 0.0
        rows.append(row)
    columns = list(rows[0])
    return np.array([tuple(r[c] for c in columns) for r in rows], dtype=[(c, float) for c in columns])


@pytest.fixture(scope="module")
def crane(tmp_path_factory):
    """The FMU of the crane ``(version, end_stops)``, built when first asked for, and the commands."""
    folder, fmus = tmp_path_factory.mktemp("knuckle"), {}

    def fmu(version: int, stops: bool):
        if (version, stops) not in fmus:
            path = folder / f"knuckle{version}{stops}.fmu"
            system = example("knuckle_crane", end_stops=stops)
            fmus[version, stops] = export_fmu(system, path, fmi_version=version, kind="both")
        return fmus[version, stops]

    return fmu, commands()


def within_the_stops(res, tol: float = GAP_TOL) -> None:
    """No boom past a stop by more than ``tol``: the FMU's gap tolerance where it integrates (Co-Simulation);
    under Model Exchange a boom resting on its stop drifts by the importer's integration error (CVode's
    tolerance) between the events, which the FMU projects back at the next one."""
    for name, (low, high) in LIMITS.items():
        assert low - tol <= res[name].min() and res[name].max() <= high + tol, name


def impacts(log: list[str]) -> dict[str, list[float]]:
    """The impact times of each stop in a debug log."""
    out: dict[str, list[float]] = {name: [] for name in STOPS}
    for m in log:
        if "impact of contact" in m:
            out[m.split("'")[1]].append(float(m.split("t = ")[1].split(":")[0]))
    return out


def co_simulation(fmu, data, method: str) -> tuple[dict, list[str]]:
    log: list[str] = []
    res = fmu_simulation(fmu, 60.0, 0.05, input=data, start_values={"solver.method": SOLVERS[method]},
                         output=["luff", "fold"], logger=lambda *a: log.append(a[-1].decode()), debug_logging=True)  # fmt: skip
    return res, log


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("method", ["rk4", "dopri5", pytest.param("rosenbrock23", marks=pytest.mark.slow)])
def test_co_simulation_runs_through_the_end_stop_impacts(crane, version, method):
    fmu, data = crane
    res, log = co_simulation(fmu(version, True), data, method)
    assert res["time"][-1] == pytest.approx(60.0)
    assert all(impacts(log).values()), impacts(log)  # every stop hit
    within_the_stops(res)


@pytest.mark.slow  # (four runs of 60 s under CVode: 25 s)
@pytest.mark.parametrize("version", (2, 3))
def test_model_exchange_under_cvode_costs_at_most_twice_the_crane_without_stops(crane, version):
    fmu, data = crane
    stops = cvode_with_inputs(fmu(version, True), 60.0, 1e-6, ["luff", "fold"], data)
    free = cvode_with_inputs(fmu(version, False), 60.0, 1e-6, ["luff", "fold"], data)
    assert stops.time[-1] == pytest.approx(60.0) and len(stops.events) >= 4 and not free.events
    within_the_stops(stops, tol=1e-6)  # CVode's rtol 1e-6 on angles of order 1 rad
    assert free["luff"].max() > LIMITS["luff"][1] + 0.1  # (without stops the booms go well past them)
    assert stops.derivative_calls <= 2 * free.derivative_calls, (stops.derivative_calls, free.derivative_calls)
    # the first impact (the main boom on its high stop) where Co-Simulation puts it, within a communication step:
    # fmpy holds the inputs over each step in Co-Simulation and interpolates them linearly for CVode
    first = impacts(co_simulation(fmu(version, True), data, "dopri5")[1])["stop_luff_max"][0]
    assert min(stops.events) == pytest.approx(first, abs=0.05)


def spool_commands(duration: float = 8.0, dt: float = 0.05) -> np.ndarray:
    """The ship motion of :func:`commands` and the hydraulic crane's main spool fully open from 2 s to 6.5 s
    (the main boom driven by its cylinder into its high stop from 6.23 s), the jib's spool at -1 from 4 s."""
    rows = []
    for t in np.arange(0.0, duration + dt / 2, dt):
        row = {"time": t} | ship_motion(t)
        row["main_cylinder_spool"] = 1.0 if 2 <= t < 6.5 else 0.0
        row["jib_cylinder_spool"] = -1.0 if 4 <= t < 8 else 0.0
        row["tau_slew"] = row["tau_hoist"] = 0.0
        rows.append(row)
    columns = list(rows[0])
    return np.array([tuple(r[c] for c in columns) for r in rows], dtype=[(c, float) for c in columns])


@pytest.fixture(scope="module")
def hydraulic_fmu(tmp_path_factory):
    system = example("knuckle_crane", actuation="hydraulic")
    return export_fmu(system, tmp_path_factory.mktemp("hydraulic") / "knuckle.fmu", fmi_version=2, kind="cs")


@pytest.mark.parametrize("method", ["rk4", "dopri5", pytest.param("rosenbrock23", marks=pytest.mark.slow)])
def test_a_cylinder_drives_the_boom_into_its_stop_in_co_simulation(hydraulic_fmu, method):
    """The hydraulic crane's main cylinder drives the boom into its high stop at full spool: the rebounds
    shrink fivefold (the stop's restitution) at intervals of 1e-2 s down to 2e-12 s, where the stiff cylinder
    pushes the boom back within one ulp of the time ... rk4 found the seventh impact at the start of its chunk
    again and again ("more than 100000 events in the step", a Discard at 6.2 s): the rebound's divided gap counted
    from zero, below which the impact's projection had left it by rounding (-2.2e-16).  Now the impacts end
    with the contact closed, in every solver, the boom never past its stop by more than the gap tolerance."""
    log: list[str] = []
    res = fmu_simulation(hydraulic_fmu, 8.0, 0.05, input=spool_commands(), start_values={"solver.method": SOLVERS[method]},
                         output=["luff"], logger=lambda *a: log.append(a[-1].decode()), debug_logging=True)  # fmt: skip
    assert res["time"][-1] == pytest.approx(8.0), [m for m in log if "iscard" in m][-1:]
    hits = [m for m in log if "impact of contact 'stop_luff_max'" in m]
    assert 3 <= len(hits) <= 30 and any("contact 'stop_luff_max' closes" in m for m in log), hits
    assert res["luff"].max() <= LIMITS["luff"][1] + GAP_TOL
    assert res["luff"][res["time"] >= 6.3].min() >= LIMITS["luff"][1] - 0.05  # (held at the stop to 6.5 s)
