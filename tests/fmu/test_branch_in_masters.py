"""Singular positions in every master: the motion stays on its assembly branch, or the FMU says it left it.

The slider-crank whose rod is as long as its crank (``tests/models/equal_slider_crank.py``) passes a dead
point at ``a1 = pi/2 + k pi``, where the branch it moves on (``a2 = -a1``, slider at ``x_c = 2 L cos a1``)
crosses the branch with the slider at rest at the pivot (``a2 = a1 + pi``, ``x_c = 0``).  A master at a loose
tolerance brings a constraint drift as large as the distance between the branches into the dead point, and the
Baumgarte terms may then turn the mechanism onto the other branch: fmpy's CVode at rtol 1e-3 used to finish OK
with ``|x_c - 2 cos a1| = 2`` (the slider stopped at the pivot, the crank reversed, the kinetic energy kept).
In Model Exchange the FMU now asks for an event at the step that left the branch and puts the state back there
(``tests/fmu/test_branch_restore.py`` checks that against the exact motion); the rows a master recorded inside
the passage before that event (between the state the FMU kept and the event, both named in its log) may be on
the other branch, by at most the distance between the branches at the edge of the passage.

Every master of ``tests/support/event_masters.py`` (FMI 2 and 3): Model Exchange with explicit Euler and rk4 at
fixed steps of 1 ms, rk4 with bisection, fmpy's CVode at rtol 1e-3, 1e-4 and 1e-6, and Co-Simulation with each
solver at ``solver.rtol`` 1e-3 and 1e-4 and communication steps of 0.25 and 1 s.  The Model Exchange masters
enter event mode when asked: each run ends with OK on the branch to the master's accuracy (the crank angle
against the minimal-coordinate reference of the branch, closer to the branch than to the other one, the crank
never reversed).  Co-Simulation is on the branch, or a step is discarded with a message (rk4 at its default
step); never another branch with OK.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import test_singular_positions as sp

from symbody.fmu.testing import cached_fmu

from support.event_masters import CS_MASTERS, FIXED_STEP, SOLVERS, ModelExchange, co_simulation, cvode

OUT = ["a1", "a2", "da1", "da2", "x_c"]
STOP = 2.5  # three or four dead points
STARTS = [sp.A10, 1.2]  # at a dead point, and 0.37 rad before one
ME_CASES = [(m, 1e-3) for m in FIXED_STEP] + [("cvode", r) for r in (1e-3, 1e-4, 1e-6)]


def on_branch_tolerance(method: str, rtol: float) -> float:
    """How far the crank angle may be off the branch's reference: rk4 at 1 ms is exact to 1e-6 here, Euler to
    first order (its energy drifts by a part of 1e-3 a step), CVode by its phase through the dead points, where
    the crank turns at 12 rad/s (through four of them: 3e-3 rad at rtol 1e-6, 0.1 at 1e-4, 0.65 at 1e-3, where
    its drift changes the energy by a third before the FMU puts the state back); the other branch, or a crank
    turning back, is 1 to 10 rad away within the run."""
    if method in ("rk4", "bisection"):
        return 1e-5
    if method == "euler":
        return 0.05
    return min(5e3 * rtol, 1.0)


def check_branch(a1, a2, x_c, tol: float) -> None:
    """The relations of the branch ``a2 = -a1``: the other one has ``x_c = 0``, ``2 |cos a1|`` away."""
    np.testing.assert_allclose(x_c, 2 * sp.L_ * np.cos(a1), atol=tol)
    np.testing.assert_allclose(np.cos(a2), np.cos(a1), atol=tol)
    np.testing.assert_allclose(np.sin(a2), -np.sin(a1), atol=tol)


def reference_angle(t, a10: float) -> np.ndarray:
    tu = np.unique(t)  # the masters record the time of an event twice
    return np.interp(t, tu, sp.slider_crank_reference(tu, a10)[0]) if tu.size > 1 else np.full(np.shape(t), a10)


PUT_BACK = re.compile(r"t = ([-+.\deE]+): the state had left its assembly branch .* kept at t = ([-+.\deE]+);")


def put_back(log: list[str]) -> list[tuple[float, float]]:
    """The FMU's logEvents messages of a state put back onto its branch: (the time of the state it kept before the
    passage, the time of the event)."""
    return [(float(m[2]), float(m[1])) for m in map(PUT_BACK.search, log) if m]


def outside_passages(t, windows: list[tuple[float, float]]) -> np.ndarray:
    """The rows not recorded inside a passage before the event that put the state back: those after the kept
    state and before the event (at the event's time the first of its two rows)."""
    t = np.asarray(t)
    keep = np.ones(t.size, bool)
    for kept, event in windows:
        keep &= ~((t > kept) & (t < event))
        at = np.flatnonzero(t == event)
        if at.size > 1:
            keep[at[0]] = False
    return keep


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("a10", STARTS, ids=["dead-point", "before"])
@pytest.mark.parametrize("method,rtol", ME_CASES, ids=[f"{m}-{r:g}" for m, r in ME_CASES])
@pytest.mark.parametrize("redundant", [False, True], ids=["", "guide-twice"])
def test_model_exchange_master_keeps_the_branch(version, a10, method, rtol, redundant):
    """Also with the guide's row given twice (a row always dependent on the other, the augmented matrix solved
    by LU): under CVode at rtol 1e-3 from the dead point it ended on the other branch with OK (the crank
    reversed at t = 0.65: no work test without the factors of M; then at t = 2.15 its rows were seen next to
    the dead point only half as far from it, and the host's drift carried the motion across smoothly, its
    accelerations of up to 650 explaining its velocities).  Now the work test runs on M factored for it, a row
    given twice counts as the row, and a passage's end compares with the kept state carried along the motion."""
    options = (("a10", a10),) + ((("redundant", True),) if redundant else ())
    fmu = cached_fmu(sp.SLIDER_CRANK, version, "me", options=options)
    log: list[str] = []
    if method == "cvode":
        r = cvode(fmu, STOP, rtol, OUT, logger=lambda *a: log.append(a[-1].decode()), debug_logging=True)
    else:
        run = ModelExchange(fmu, debug_logging=True).run(STOP, method, 1e-3, OUT)
        log, r = run.log, run
    assert r["time"][-1] == pytest.approx(STOP)
    assert not [m for m in log if "rror" in m], log[-3:]
    k = outside_passages(r["time"], put_back(log))
    t, a1, a2, x_c, da1 = (np.asarray(r[name])[k] for name in ("time", "a1", "a2", "x_c", "da1"))
    tol = on_branch_tolerance(method, rtol)
    np.testing.assert_allclose(a1, reference_angle(t, a10), atol=tol)
    assert np.all(da1 > 0.0), (t[da1 <= 0.0], da1[da1 <= 0.0])  # the crank never turns back (2.8 rad/s at least)
    branch, other = np.abs(x_c - 2 * sp.L_ * np.cos(a1)), np.abs(x_c)  # the other branch has x_c = 0
    assert np.all(branch < np.maximum(0.5 * other, 2 * tol)), np.max(branch)
    np.testing.assert_allclose(np.sin(a2), -np.sin(a1), atol=max(2 * tol, 0.1))


PARALLELOGRAM_OUT = ["phi1", "phi2", "phi3", "dphi1"]


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("phi0", [sp.PHI0, -sp.PHI0], ids=["after", "before"])
@pytest.mark.parametrize("method,rtol", ME_CASES, ids=[f"{m}-{r:g}" for m, r in ME_CASES])
def test_parallelogram_in_model_exchange_masters(version, phi0, method, rtol):
    """The parallelogram four-bar started 1e-7 rad from its flat position passes it four times: the crank
    turns at 2 rad/s and the coupler translates (the anti-parallelogram branch turns it, and reverses the
    crank: CVode at rtol 1e-3 did so at t = 3.1 with no message; now the FMU puts the state back there), to
    1e3 times the master's tolerance (rk4 and Euler: exact here, the motion is uniform)."""
    fmu = cached_fmu(sp.PARALLELOGRAM, version, "me", options=(("phi0", phi0),))
    log: list[str] = []
    if method == "cvode":
        r = cvode(fmu, 3.5, rtol, PARALLELOGRAM_OUT, logger=lambda *a: log.append(a[-1].decode()), debug_logging=True)
    else:
        run = ModelExchange(fmu, debug_logging=True).run(3.5, method, 1e-3, PARALLELOGRAM_OUT)
        log, r = run.log, run
    assert r["time"][-1] == pytest.approx(3.5)
    assert not [m for m in log if "rror" in m], log[-3:]
    k = outside_passages(r["time"], put_back(log))
    t, phi1, phi2, phi3, dphi1 = (np.asarray(r[name])[k] for name in ("time", *PARALLELOGRAM_OUT))
    tol = min(1e3 * rtol, 0.1) if method == "cvode" else on_branch_tolerance(method, rtol)
    np.testing.assert_allclose(phi1, phi0 + sp.OMEGA_P * t, atol=tol)
    np.testing.assert_allclose(phi2, 0.0, atol=tol)
    np.testing.assert_allclose(phi3, phi1, atol=tol)
    np.testing.assert_allclose(dphi1, sp.OMEGA_P, atol=tol)


def test_cvode_at_loose_tolerance_does_not_finish_on_the_other_branch():
    """The case that finished OK on the other branch: fmpy's CVode at rtol 1e-3 from a1 = 1.2 (the slider
    stopped at the pivot after the third dead point, t = 1.62).  Now CompletedIntegratorStep asks for an event
    at the first step after that passage (its log names the row and the coordinate whose rate jumped), the state
    is put back there, and the run ends on the branch."""
    log: list[str] = []
    r = cvode(cached_fmu(sp.SLIDER_CRANK, 2, "me", options=(("a10", 1.2),)), STOP, 1e-3, OUT,
              logger=lambda *a: log.append(a[-1].decode()), debug_logging=True)  # fmt: skip
    said = [m for m in log if "left its assembly branch" in m and "an event is requested" in m]
    assert len(said) == 1 and "constraint row 'guide'" in said[0] and "coordinate 'a" in said[0], log[-3:]
    (kept, event), *_ = put_back(log)
    dead_points = [math.pi / 2 + k * math.pi for k in range(1, 4)]
    a_event = sp.slider_crank_reference(np.array([0.0, event]), 1.2)[0][-1]
    assert min(abs(a_event - d) for d in dead_points) < 0.5, (event, a_event)
    assert event - kept < 0.1
    k = outside_passages(r["time"], put_back(log))
    check_branch(r["a1"][k], r["a2"][k], r["x_c"][k], 1e-2)
    assert r["time"][-1] == pytest.approx(STOP) and abs(r["x_c"][-1] - 2 * math.cos(r["a1"][-1])) < 1e-2


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("master", CS_MASTERS, ids=lambda m: m.name)
def test_co_simulation_keeps_the_branch_at_loose_tolerances(version, master):
    """Each embedded solver at the importer's loose tolerance, communication steps up to 1 s: on the branch
    (projected after every internal step) to rounding, or a step discarded with a message (rk4 at its default
    solver.step declares itself unstable next to a dead point); never the other branch.  The energy
    ``J(a1) a1'^2 / 2`` is kept to 200 times solver.rtol (dopri5 at 1e-4 and 1e-3 loses 1.3 % and 9 % of it
    through the dead points: an error of the loose solver, not another branch, which keeps it exactly)."""
    fmu = cached_fmu(sp.SLIDER_CRANK, version, "cs", options=(("a10", 1.2),))
    log: list[str] = []
    try:
        r = co_simulation(fmu, STOP, master.step, SOLVERS[master.method], master.rtol, OUT,
                          logger=lambda *a: log.append(a[-1].decode()))  # fmt: skip
    except Exception:  # noqa: BLE001 - fmpy raises on a Discard of FMI 3 (FMI 2: it ends the run)
        assert any("discarded" in m for m in log), log[-3:]
        return
    t = r["time"]
    if t[-1] < STOP - 1e-9:  # a discarded step: the FMU said why
        assert any("discarded" in m for m in log), log[-3:]
    check_branch(r["a1"], r["a2"], r["x_c"], 1e-8)
    energy = 0.5 * sp.crank_inertia(r["a1"]) * r["da1"] ** 2
    np.testing.assert_allclose(energy, 0.5 * sp.crank_inertia(1.2) * sp.OMEGA_S**2, rtol=200 * master.rtol)


def _python_backend_scenario() -> None:
    fmu = cached_fmu(sp.SLIDER_CRANK, 2, "cs", "python", (("a10", 1.2),))
    for master in CS_MASTERS:
        r = co_simulation(fmu, STOP, master.step, SOLVERS[master.method], master.rtol, OUT)
        # (pythonfmu ends the run at a Discard: rk4 at its default solver.step, as the native FMU)
        assert r["time"][-1] == pytest.approx(STOP) or master.method == "rk4", master.name
        check_branch(r["a1"], r["a2"], r["x_c"], 1e-8)
        energy = 0.5 * sp.crank_inertia(r["a1"]) * r["da1"] ** 2
        np.testing.assert_allclose(energy, 0.5 * sp.crank_inertia(1.2) * sp.OMEGA_S**2, rtol=200 * master.rtol)


@pytest.mark.slow  # a Python FMU in a child process (pythonfmu at exit, see test_fmu_python)
def test_python_backend_keeps_the_branch_at_loose_tolerances():
    """The Python backend (Co-Simulation) with every solver at the loose tolerances and steps of the masters."""
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent
    code = (
        f"import sys; sys.path[:0] = {[str(here), str(here.parent)]!r}; import {Path(__file__).stem} as m; "
        "m._python_backend_scenario(); import os; sys.stdout.flush(); sys.stderr.flush(); os._exit(0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"
