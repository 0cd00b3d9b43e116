"""Mechanisms passing through singular positions, where constraint rows become dependent for an instant.

Two mechanisms of ``tests/models/`` turn for ever in a horizontal plane without
friction:

* a parallelogram four-bar linkage, which lies flat twice per turn (the two loop
  rows become dependent; the anti-parallelogram branch crosses there);
* a slider-crank whose rod is as long as its crank, whose guide row vanishes
  when the slider passes the crank pivot (the branch with the slider at rest
  crosses there).

The simulations (Python ``simulate``, and the FMUs with every embedded solver and
under fmpy's CVode) must stay on the branch the motion is on, checked against
minimal-coordinate models of that branch written here by hand: for the
parallelogram the crank turns at constant speed and the coupler translates; for
the slider-crank ``J(a1) a1'^2 / 2`` is conserved.  The multipliers stay bounded
and match hand-derived reactions away from the singular instants.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from test_robustness_c import FLAVORS, HOSTS, _need, run_host

import symbody as sb
from symbody.codegen.c_eval import c_compiler
from symbody.fmu.build import fmi_headers_dir, template_dir
from symbody.fmu.spec import GENERIC_SOURCES, FmuSpec
from symbody.fmu.testing import FmuSession, cached_equations, cached_fmu, fmu_simulation
from symbody.numeric import NumericModel, simulate

from support import MODELS

PARALLELOGRAM = str(MODELS / "parallelogram.py")
SLIDER_CRANK = str(MODELS / "equal_slider_crank.py")
OMEGA_P = 2.0  # crank speed of the parallelogram (model default)
PHI0 = 1e-7  # start next to the flat position
OMEGA_S = 3.0  # crank speed of the slider-crank (model default)
A10 = math.pi / 2  # start at the dead point


def parallelogram(phi0: float = PHI0):
    return cached_equations(PARALLELOGRAM, (("phi0", phi0),))


def slider_crank(a10: float = A10):
    return cached_equations(SLIDER_CRANK, (("a10", a10),))


# ---------------------------------------------------------------------------
# references on the branch (minimal coordinates, by hand)
# ---------------------------------------------------------------------------


def parallelogram_reference(t, phi0=PHI0):
    """Coupler translating: no potential, inertia about the crank angle constant, so phi1 = phi0 + w t.

    The coupler (mass m2 = 2, its centre on a circle of radius b = 1) needs the centripetal force
    m2 b w^2 along -(cos phi1, sin phi1); crank and rocker are two-force members at constant speed,
    and the coupler's moment balance shares that force equally between A and B (except when the
    bars are aligned, where the share is not determined).  The multipliers of the loop rows
    (B on the coupler minus B on the rocker) are minus the force on the coupler at B.
    """
    phi = phi0 + OMEGA_P * np.asarray(t)
    half = 2.0 * 1.0 * OMEGA_P**2 / 2
    return phi, half * np.cos(phi), half * np.sin(phi)


L_, M1, J1, M2, J2, M3 = 1.0, 1.0, 0.1, 0.5, 0.03, 2.0  # slider-crank parameters (model defaults)


def crank_inertia(a):
    """J(a1) of the slider-crank on the branch a2 = -a1 (crank about O, rod, slider at x = 2 L cos a1)."""
    s2, c2 = np.sin(a) ** 2, np.cos(a) ** 2
    return M1 * L_**2 / 4 + J1 + M2 * L_**2 * (9 * s2 + c2) / 4 + J2 + 4 * M3 * L_**2 * s2


def crank_inertia_slope(a):
    return (4 * M2 * L_**2 + 8 * M3 * L_**2) * np.sin(a) * np.cos(a)


def slider_crank_reference(t, a10=A10):
    """a1(t), da1, dda1 from energy conservation J(a1) da1^2 / 2 = E (the crank never stops)."""
    E = 0.5 * crank_inertia(a10) * OMEGA_S**2
    sol = solve_ivp(
        lambda _, y: [math.sqrt(2 * E / crank_inertia(y[0]))],
        (0.0, float(t[-1])),
        [a10],
        t_eval=t,
        rtol=1e-12,
        atol=1e-12,
    )
    a = sol.y[0]
    da = np.sqrt(2 * E / crank_inertia(a))
    dda = -0.5 * crank_inertia_slope(a) / crank_inertia(a) * da**2
    return a, da, dda


def guide_force(a, da, dda):
    """Guide force N (+y) on the slider: moment balance of rod + slider about the crank pin b.

    N (x_c - x_b) = (r_e - r_b) x m2 a_e + J2 a2'' + (r_c - r_b) x m3 a_c, with a2 = -a1 and
    x_c - x_b = L cos a1 (not determined at the dead point, where the arm vanishes).
    """
    u1, n1 = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    u2, n2 = np.array([np.cos(a), -np.sin(a)]), np.array([np.sin(a), np.cos(a)])  # rod at -a1
    ab = L_ * (dda * n1 - da**2 * u1)
    a_rod = -dda * n2 - da**2 * u2  # d2/dt2 of u2(a2) with a2' = -da, a2'' = -dda
    a_e, a_c = ab + 0.5 * L_ * a_rod, ab + L_ * a_rod
    rel_e, rel_c = 0.5 * L_ * u2, L_ * u2

    def cross(r, f):
        return r[0] * f[1] - r[1] * f[0]

    moment = cross(rel_e, M2 * a_e) + J2 * (-dda) + cross(rel_c, M3 * a_c)
    return moment / rel_c[0]


# ---------------------------------------------------------------------------
# checks shared by the Python and FMU runs
# ---------------------------------------------------------------------------


def check_parallelogram(t, phi1, phi2, phi3, dphi1, dphi3, lam_x, lam_y, tol, phi0=PHI0):
    phi, lx, ly = parallelogram_reference(t, phi0)
    # on the branch: the crank follows the reference, the coupler translates, the rocker follows the crank
    np.testing.assert_allclose(phi1, phi, atol=tol)
    np.testing.assert_allclose(phi3, phi1, atol=tol)
    np.testing.assert_allclose(phi2, 0.0, atol=tol)
    # no velocity jump: the speed is constant on this branch (the anti-parallelogram would change it)
    np.testing.assert_allclose(dphi1, OMEGA_P, atol=10 * tol)
    np.testing.assert_allclose(dphi3, OMEGA_P, atol=10 * tol)
    # bounded multipliers that match the reactions wherever the configuration determines them (at
    # the flat start the share of the force along the bars between A and B is not determined)
    assert np.max(np.hypot(lam_x, lam_y)) < 1.25 * 4.0
    away = np.abs(np.sin(phi)) > 0.05
    assert away.sum() > 0.8 * len(t)
    np.testing.assert_allclose(lam_x[away], lx[away], atol=1e3 * tol)
    np.testing.assert_allclose(lam_y[away], ly[away], atol=1e3 * tol)
    passed = np.floor(phi[-1] / math.pi) - np.floor(phi[0] / math.pi)
    assert passed >= 2  # it went through at least two flat positions (after its start next to one)


def check_slider_crank(t, a1, a2, da1, da2, N, tol, a10=A10):
    a, da, dda = slider_crank_reference(t, a10)
    np.testing.assert_allclose(a1, a, atol=tol)
    np.testing.assert_allclose(a2, -a1, atol=tol)
    np.testing.assert_allclose(da1, da, atol=30 * tol)
    np.testing.assert_allclose(da2, -da1, atol=30 * tol)  # the branch a2 = -a1 (a velocity ~3 rad/s)
    Nref = guide_force(a, da, dda)
    away = np.abs(np.cos(a)) > 0.1
    assert away.sum() > 0.8 * len(t)
    np.testing.assert_allclose(N[away], Nref[away], atol=1e3 * tol * np.abs(Nref[away]).max())
    assert np.max(np.abs(N)) < 1.5 * np.abs(Nref[away]).max()
    assert np.floor((a[-1] - math.pi / 2) / math.pi) - np.floor((a[0] - math.pi / 2) / math.pi) >= 2  # two dead points


PY_CASES = [
    pytest.param(f, m, kw, tol, id=f"{f}-{m}", marks=[pytest.mark.slow] if slow else [])
    for f in ("baumgarte", "projection")
    for m, kw, tol, slow in (
        ("DOP853", {"rtol": 1e-10, "atol": 1e-10}, 1e-6, False),
        ("RK45", {"rtol": 1e-10, "atol": 1e-10}, 1e-6, False),
        # Radau's finite-difference Jacobians and RK4's thousands of fixed Python steps take 5-15 s each
        ("Radau", {"rtol": 1e-9, "atol": 1e-10}, 1e-5, True),
        ("RK4", {"step": 1e-3}, 5e-6, True),
    )
]


@pytest.mark.parametrize("formulation,method,kw,tol", PY_CASES)
def test_python_parallelogram_stays_on_its_branch_through_flat_positions(formulation, method, kw, tol):
    eq = parallelogram()
    res = simulate(eq, 3.5, dt=0.01, formulation=formulation, method=method, **kw)
    q, dq = res.q, res.dq
    check_parallelogram(res.t, q[:, 0], q[:, 1], q[:, 2], dq[:, 0], dq[:, 2], res["lam_x"], res["lam_y"], tol)
    assert res.energy.relative_drift < 1e-6


@pytest.mark.parametrize("formulation,method,kw,tol", PY_CASES)
def test_python_slider_crank_passes_its_dead_points(formulation, method, kw, tol):
    eq = slider_crank()
    res = simulate(eq, 2.5, dt=0.01, formulation=formulation, method=method, **kw)
    q, dq = res.q, res.dq
    check_slider_crank(res.t, q[:, 0], q[:, 1], dq[:, 0], dq[:, 1], res["N"], tol)
    assert res.energy.relative_drift < 1e-6


def test_accelerations_at_and_next_to_the_dead_point_are_the_branch_limit():
    """At the dead point the guide row vanishes: the accelerations are still those of the branch."""
    nm = NumericModel(slider_crank())
    for e in (0.0, 1e-12, 1e-9, 1e-6, 1e-3, 0.3):
        a = math.pi / 2 + e
        da = OMEGA_S
        dda = -0.5 * crank_inertia_slope(a) / crank_inertia(a) * da**2
        ddq, lam = nm.accelerations([a, -a], [da, -da])
        np.testing.assert_allclose(ddq, [dda, -dda], atol=1e-9)
        assert abs(lam[0]) < 10.0  # bounded (3e17 came back before)


def test_independent_coordinates_refuse_a_singular_start_with_a_clear_error():
    """At the start the rows are dependent: no partition determines the others on both sides."""
    for eq in (parallelogram(0.0), slider_crank(A10)):
        with pytest.raises(sb.NumericalError, match=r"singular position at t = 0: .* rank \d here and \d next to it"):
            simulate(eq, 1.0, dt=0.01, formulation="independent")


@pytest.mark.parametrize(
    "method,kw",
    [
        ("DOP853", {"rtol": 1e-10, "atol": 1e-10}),
        # 6000 fixed steps of the Python integrator: half a minute
        pytest.param("RK4", {"step": 1e-3}, marks=pytest.mark.slow),
    ],
)
def test_independent_coordinates_pass_singular_positions_in_operation(method, kw):
    res = simulate(parallelogram(math.pi / 2), 3.5, dt=0.01, formulation="independent", method=method, **kw)
    q, dq = res.q, res.dq
    check_parallelogram(
        res.t, q[:, 0], q[:, 1], q[:, 2], dq[:, 0], dq[:, 2], res["lam_x"], res["lam_y"], 5e-6, math.pi / 2
    )
    res = simulate(slider_crank(1.2), 2.5, dt=0.01, formulation="independent", method=method, **kw)
    q, dq = res.q, res.dq
    check_slider_crank(res.t, q[:, 0], q[:, 1], dq[:, 0], dq[:, 1], res["N"], 5e-6, a10=1.2)


# (model, start of the crank, perturbed state q0, dq0, row): started 0.05 rad before a singular position with the
# coupler (rod) turned off its assembly by d, so that Baumgarte's terms must correct a position error of the size
# of the distance between the branches while the rows lose their hold: the Baumgarte ODE itself, integrated
# accurately (rtol 1e-8), turns onto the other branch (d from 1e-4 to 2e-3 all do; the test does not rely on
# the rounding of a loose integration, which decides the branch on one CPU and not on another)
PY_BRANCH_CHANGES = [
    (PARALLELOGRAM, (("phi0", -0.05),), [-0.05, 1e-3, -0.05], [OMEGA_P, 0.0, OMEGA_P], "loop_x"),
    (SLIDER_CRANK, (("a10", A10 - 0.05),), [A10 - 0.05, -(A10 - 0.05) + 5e-4], [OMEGA_S, -OMEGA_S], "guide"),
    (SLIDER_CRANK, (("a10", A10 - 0.05),), [A10 - 0.05, -(A10 - 0.05) - 5e-4], [OMEGA_S, -OMEGA_S], "guide"),
]


@pytest.mark.parametrize("model,options,q0,dq0,row", PY_BRANCH_CHANGES)
def test_python_branch_change_is_an_error(model, options, q0, dq0, row):
    """The same guard as the FMU's: the constraint forces doing work in a passage of a singular position
    stop the simulation with an error naming the row (it returned the other branch without one)."""
    eq = cached_equations(model, options)
    with pytest.raises(sb.NumericalError, match=rf"leaving its assembly branch .* constraint row '{row}'"):
        simulate(eq, 0.5, dt=0.01, q0=q0, dq0=dq0, consistency_tol=1.0, method="DOP853", rtol=1e-8, atol=1e-8)


LOOSE_PASSAGES = [  # loose tolerances: the drift of the integration may or may not turn the motion (by rounding)
    (PARALLELOGRAM, (("phi0", PHI0),), 3.5, "DOP853", 1e-4),
    (PARALLELOGRAM, (("phi0", PHI0),), 3.5, "DOP853", 1e-3),
    (PARALLELOGRAM, (("phi0", -PHI0),), 3.5, "DOP853", 1e-3),
    (PARALLELOGRAM, (("phi0", PHI0),), 3.5, "RK45", 1e-3),
    (SLIDER_CRANK, (("a10", A10),), 2.5, "DOP853", 1e-4),
    (SLIDER_CRANK, (("a10", A10),), 2.5, "DOP853", 1e-3),
]


@pytest.mark.parametrize("model,options,stop,method,rtol", LOOSE_PASSAGES)
def test_python_loose_passage_keeps_its_branch_or_says_it_left(model, options, stop, method, rtol):
    """At loose tolerances the motion either stays on its branch (checked against the reference on the
    branch, to the accuracy the tolerance allows) or stops with the guard's error: never another branch
    silently (parallelogram at rtol 1e-3: 20 % of the energy gone, slider-crank at 1e-4: a1 off by 1 rad)."""
    eq = cached_equations(model, options)
    try:
        res = simulate(eq, stop, dt=0.01, formulation="baumgarte", method=method, rtol=rtol, atol=rtol)
    except sb.NumericalError as e:
        assert "leaving its assembly branch" in str(e)
        return
    # the other branches differ by O(1) rad within the run (the anti-parallelogram turns the coupler, the
    # slider stops at the pivot); near a dead point a loose integration strays by 0.1 rad in a1 and 0.3 rad in
    # a2 + a1 (the constraint determines them poorly there; `position_violation` reports it) and comes back
    if model == PARALLELOGRAM:
        np.testing.assert_allclose(res.q[:, 0], parallelogram_reference(res.t, dict(options)["phi0"])[0], atol=0.5)
        np.testing.assert_allclose(res.q[:, 1], 0.0, atol=0.5)
    else:
        np.testing.assert_allclose(res.q[:, 0], slider_crank_reference(res.t, dict(options)["a10"])[0], atol=0.5)
        np.testing.assert_allclose(res.q[:, 1], -res.q[:, 0], atol=0.5)


@pytest.mark.parametrize("formulation", ["baumgarte", "projection"])
def test_python_branch_guard_is_quiet_on_the_branch_at_loose_tolerance(formulation):
    """Passages that keep the branch at loose tolerances: no error, the motion on its branch."""
    for phi0 in (-PHI0, 0.0, PHI0):
        res = simulate(parallelogram(phi0), 3.5, dt=0.01, formulation=formulation, method="RK45", rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(res.q[:, 0], parallelogram_reference(res.t, phi0)[0], atol=1e-4)
        np.testing.assert_allclose(res.dq[:, 0], OMEGA_P, atol=1e-4)
        np.testing.assert_allclose(res.q[:, 1], 0.0, atol=1e-5)
    for a10 in (A10, 1.2):
        res = simulate(slider_crank(a10), 2.5, dt=0.01, formulation=formulation, method="DOP853", rtol=1e-6, atol=1e-6)
        a, da, _ = slider_crank_reference(res.t, a10)
        np.testing.assert_allclose(res.q[:, 0], a, atol=1e-3)
        np.testing.assert_allclose(res.dq[:, 0], da, atol=1e-2)
        np.testing.assert_allclose(res.q[:, 1], -res.q[:, 0], atol=1e-4)


# ---------------------------------------------------------------------------
# FMUs: C runtime (FMI 2 and 3, Co-Simulation with each solver, Model Exchange under CVode)
# ---------------------------------------------------------------------------

FMU_CASES = [(v, method) for v in (2, 3) for method in (1, 2, 3)]
TIGHT = {"solver.rtol": 1e-10, "solver.atol": 1e-10, "solver.step": 1e-3}


def _fmu_runs(model, options, stop, **kw):
    return fmu_simulation(cached_fmu(model, kw.pop("version"), kw.pop("kind"), options=options), stop, 0.01, **kw)


@pytest.mark.parametrize("version,method", FMU_CASES, ids=[f"fmi{v}-{m}" for v, m in FMU_CASES])
def test_fmu_cs_parallelogram_stays_on_its_branch(version, method):
    r = _fmu_runs(
        PARALLELOGRAM,
        (("phi0", PHI0),),
        3.5,
        version=version,
        kind="cs",
        start_values={"solver.method": method, **TIGHT},
    )
    check_parallelogram(
        r["time"], r["phi1"], r["phi2"], r["phi3"], r["dphi1"], r["dphi3"], r["lam_x"], r["lam_y"], 1e-6
    )


@pytest.mark.parametrize("version,method", FMU_CASES, ids=[f"fmi{v}-{m}" for v, m in FMU_CASES])
def test_fmu_cs_slider_crank_passes_its_dead_points(version, method):
    r = _fmu_runs(
        SLIDER_CRANK, (("a10", A10),), 2.5, version=version, kind="cs", start_values={"solver.method": method, **TIGHT}
    )
    # rosenbrock23 is of order 3 only: its error at rtol 1e-10 is larger
    check_slider_crank(r["time"], r["a1"], r["a2"], r["da1"], r["da2"], r["N"], 1e-5 if method == 3 else 1e-6)


@pytest.mark.parametrize("version", [2, 3])
def test_fmu_me_under_cvode_passes_singular_positions(version):
    kw = dict(fmi_type="ModelExchange", solver="CVode", relative_tolerance=1e-10)
    # Model Exchange has no projection: started from the crank upright, the linkage passes two flat positions
    r = _fmu_runs(PARALLELOGRAM, (("phi0", math.pi / 2),), 3.5, version=version, kind="me", **kw)
    check_parallelogram(
        r["time"], r["phi1"], r["phi2"], r["phi3"], r["dphi1"], r["dphi3"], r["lam_x"], r["lam_y"], 1e-5, math.pi / 2
    )
    r = _fmu_runs(SLIDER_CRANK, (("a10", 1.2),), 2.5, version=version, kind="me", **kw)
    check_slider_crank(r["time"], r["a1"], r["a2"], r["da1"], r["da2"], r["N"], 1e-5, a10=1.2)


@pytest.mark.slow
@pytest.mark.parametrize("method", [1, 2, 3])
def test_python_backend_fmu_passes_singular_positions(method):
    """In a fresh Python process: pythonfmu keeps process-wide state that breaks when one process loads
    Python FMUs through several hosts (the rest of the suite), see tests/fmu/test_fmu_python.py."""
    code = (
        f"import sys; sys.path[:0] = {[str(Path(__file__).parent), str(MODELS.parent)]!r}; "
        f"import {Path(__file__).stem} as m; m._python_backend_scenario({method})"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"


def _python_backend_scenario(method):
    sv = {"solver.method": method, **TIGHT}
    r = fmu_simulation(cached_fmu(PARALLELOGRAM, 2, "cs", "python", (("phi0", PHI0),)), 3.5, 0.01, start_values=sv)
    check_parallelogram(
        r["time"], r["phi1"], r["phi2"], r["phi3"], r["dphi1"], r["dphi3"], r["lam_x"], r["lam_y"], 1e-6
    )
    r = fmu_simulation(cached_fmu(SLIDER_CRANK, 2, "cs", "python", (("a10", A10),)), 2.5, 0.01, start_values=sv)
    check_slider_crank(r["time"], r["a1"], r["a2"], r["da1"], r["da2"], r["N"], 1e-5 if method == 3 else 1e-6)


# ---------------------------------------------------------------------------
# Model Exchange at a loose host tolerance: the branch guard of the C runtime
# ---------------------------------------------------------------------------


def _me_run_logged(model, options, stop, version, rtol, debug_logging=False):
    """fmpy's CVode at relative tolerance rtol: (results or the exception raised, the FMU's log messages)."""
    log: list[str] = []

    def logger(*args):  # (..., status, category, message) for FMI 2 and 3
        log.append(args[-1].decode())

    try:
        r = fmu_simulation(
            cached_fmu(model, version, "me", options=options),
            stop,
            0.01,
            fmi_type="ModelExchange",
            solver="CVode",
            relative_tolerance=rtol,
            logger=logger,
            debug_logging=debug_logging,
        )
    except Exception as exc:  # noqa: BLE001 - fmpy raises FMICallException or RuntimeError (CVode)
        return exc, log
    return r, log


BRANCH_CHANGES = [  # (model, options, stop, rtol, constraint row, flat or dead-point times where it may leave)
    # started at the dead point: at the next one (t = 0.71) the slider stopped following the crank (a1 off by 5 rad)
    (SLIDER_CRANK, (("a10", A10),), 2.5, 1e-6, "guide", [0.7088]),
]


def _check_branch_put_back(log: list[str], row: str, passages, late: float = 1e-3) -> None:
    """The FMU saw the state leave its branch at one of the passages (the work of the constraint forces there, or
    the velocity after it), named the row, and put the state back in the event it asked for; no Error."""
    first = [m for m in log if "leaving its assembly branch" in m or "an event is requested" in m]
    assert first, log[-5:]
    assert f"constraint row '{row}'" in first[0], first[0]
    t_left = float(first[0].split("t = ")[1].split(":")[0])
    assert any(tp - 0.05 < t_left < tp + late for tp in passages), t_left
    assert any("put back onto the branch of the motion" in m for m in log), log[-5:]
    assert not [m for m in log if "rror" in m], log[-3:]


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("model,options,stop,rtol,row,passages", BRANCH_CHANGES, ids=["slider"])
def test_fmu_me_branch_change_at_loose_tolerance_is_put_back(version, model, options, stop, rtol, row, passages):
    """Under CVode at a loose tolerance the constraint drift grows to the separation of the branches at a
    singular position, and the mechanism used to continue on another branch with no message.  The
    Baumgarte terms then drive the filtered multipliers, which do work (they never do on the motion): the
    FMU sees it before the velocities have jumped, asks for an event at the next accepted step and puts the
    state back onto the branch there; the run ends on it (CVode's phase error at rtol 1e-6 through four
    dead points: 3e-3 rad where the crank turns at 12 rad/s; the other branch is 5 rad away)."""
    r, log = _me_run_logged(model, options, stop, version, rtol, debug_logging=True)
    assert not isinstance(r, Exception), log[-3:]
    _check_branch_put_back(log, row, passages)
    a1 = slider_crank_reference(np.unique(r["time"]), options[0][1])[0]
    np.testing.assert_allclose(r["a1"][-1], a1[-1], atol=1e-2)
    np.testing.assert_allclose(r["a2"][-1], -r["a1"][-1], atol=1e-6)


def _rk4_host(fmu, stop: float, h: float, kick: dict[int, float], events: bool):
    """A Model Exchange host stepping classic RK4 from the initialized state changed by kick (state index:
    increment), entering event mode when CompletedIntegratorStep asks (events) or not: (the exception that
    stopped it or None, the FMU's log messages, the last states)."""
    log: list[str] = []
    s = FmuSession(fmu, "ModelExchange", logger=lambda *args: log.append(args[-1].decode()), debug_logging=True)
    x = None
    try:
        s.initialize()
        x = s.states()
        for i, dx in kick.items():
            x[i] += dx

        def f(t, y):
            s.fmu.setTime(t)
            s.set_states(list(y))
            return s.derivatives()

        t = 0.0
        while t < stop - 1e-12:
            k1 = f(t, x)
            k2 = f(t + h / 2, x + h / 2 * k1)
            k3 = f(t + h / 2, x + h / 2 * k2)
            k4 = f(t + h, x + h * k3)
            x, t = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4), t + h
            s.fmu.setTime(t)
            s.set_states(list(x))
            entered, _ = s.fmu.completedIntegratorStep()[:2]
            if entered and events:
                s.fmu.enterEventMode()
                s.fmu.updateDiscreteStates() if s.fmi3 else s.fmu.newDiscreteStates()
                s.fmu.enterContinuousTimeMode()
                x = s.states()
    except Exception as exc:  # noqa: BLE001 - fmpy raises FMICallException
        return exc, log, x
    finally:
        s.close()
    return None, log, x


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("events", [True, False], ids=["event", "no-event"])
def test_fmu_me_branch_change_of_a_perturbed_state_is_put_back(version, events):
    """A branch change built deterministically: 0.05 rad before the flat position the host's state gets a
    coupler velocity of 1e-3 rad/s off the branch (its velocity error, which the motion would not have).
    Baumgarte's terms carry it into the passage, where the constraint forces turn the linkage onto the
    anti-parallelogram branch as it passes (t = 0.025): the FMU asks for an event and puts the state back on
    the parallelogram branch (coupler translating: phi2 = 0, phi3 = phi1, the crank at 2 rad/s); a host that
    does not enter event mode gets an Error naming the row."""
    fmu = cached_fmu(PARALLELOGRAM, version, "me", options=(("phi0", -0.05),))
    exc, log, x = _rk4_host(fmu, 0.2, 1e-3, {4: 1e-3}, events)  # states: phi1, phi2, phi3, dphi1, dphi2, dphi3
    if not events:
        assert exc is not None, "no error"
        said = [m for m in log if "went on without the event" in m or "completed another step without" in m]
        assert said and "constraint row 'loop_x'" in said[0] and "tighter tolerance" in said[0], log[-3:]
        return
    assert exc is None, log[-3:]
    _check_branch_put_back(log, "loop_x", [0.025], late=5e-3)  # within the host's steps through the passage
    np.testing.assert_allclose(x[1], 0.0, atol=1e-3)  # the coupler: its 1e-3 rad/s velocity error decays
    np.testing.assert_allclose(x[2], x[0], atol=1e-3)
    np.testing.assert_allclose(x[3], 2.0, atol=1e-3)


QUIET = [  # (model, options, stop, rtol): loose tolerances where the motion keeps its branch
    (PARALLELOGRAM, (("phi0", PHI0),), 3.5, 1e-6),  # 1e-7 rad past the flat position
    (PARALLELOGRAM, (("phi0", 0.0),), 3.5, 1e-6),  # at it
    (PARALLELOGRAM, (("phi0", math.pi / 2),), 3.5, 1e-6),
    (PARALLELOGRAM, (("phi0", -PHI0),), 3.5, 1e-8),  # a passage whose constraint work is 1e-4 of T
    # 1e-7 rad before it: the filtered multipliers turned it onto the anti-parallelogram branch after t = pi
    # (rtol 1e-6) or pi / 2 (rtol 1e-7); with the accelerations bridged over the singular instants it keeps
    # its branch within 2e-7 rad/s
    (PARALLELOGRAM, (("phi0", -PHI0),), 3.5, 1e-6),
    (PARALLELOGRAM, (("phi0", -PHI0),), 3.5, 1e-7),
    (SLIDER_CRANK, (("a10", 1.2),), 2.5, 1e-6),
    (SLIDER_CRANK, (("a10", 1.2),), 2.5, 1e-8),  # 1e-5 of T at its last dead point
    (SLIDER_CRANK, (("a10", 0.5),), 2.5, 1e-6),
]


@pytest.mark.parametrize("version", [2, 3])
def test_fmu_me_branch_guard_is_quiet_on_the_branch_at_loose_tolerance(version):
    """Passages of singular positions that keep the branch, at loose tolerances: no error, and the motion
    follows the branch (to the accuracy the tolerance gives)."""
    for model, options, stop, rtol in QUIET:
        r, log = _me_run_logged(model, options, stop, version, rtol)
        assert not isinstance(r, Exception), (options, rtol, r, log[-3:])
        assert not any("assembly branch" in m for m in log)
        x0 = options[0][1]
        if model == PARALLELOGRAM:
            # another branch is O(1) away; the passage at rtol 1e-8 leaves phi1 2e-4 behind
            np.testing.assert_allclose(r["phi1"], parallelogram_reference(r["time"], x0)[0], atol=1e-3)
            np.testing.assert_allclose(r["phi3"], r["phi1"], atol=1e-4)
            np.testing.assert_allclose(r["phi2"], 0.0, atol=1e-4)
            np.testing.assert_allclose(r["dphi1"], OMEGA_P, atol=1e-2)
        else:
            a, da, _ = slider_crank_reference(r["time"], x0)
            np.testing.assert_allclose(r["a1"], a, atol=1e-3)
            np.testing.assert_allclose(r["da1"], da, atol=2e-2)
            np.testing.assert_allclose(r["a2"], -r["a1"], atol=1e-3)


@pytest.mark.parametrize("omega", [0.0, 1e-4])
def test_fmu_me_branch_guard_is_quiet_at_rest_and_crawling_at_singular_positions(omega):
    """A mechanism at rest (or crawling at 1e-4 rad/s) at a singular position gets its kinetic energy from
    the Baumgarte corrections of the assembly residual alone: the constraint forces do work of the order
    of the kinetic energy, but the constraint errors hold as much energy as the motion, so there is no
    motion to judge (the first guard stopped the parallelogram at rest at t = 5e-10)."""
    for model, options in (
        (PARALLELOGRAM, (("omega", omega), ("phi0", -PHI0))),
        (SLIDER_CRANK, (("a10", A10), ("omega", omega))),
    ):
        r, log = _me_run_logged(model, options, 10.0, 2, 1e-6)
        assert not isinstance(r, Exception), (options, r, log[-3:])
        assert not any("assembly branch" in m for m in log)
        if model == PARALLELOGRAM:
            np.testing.assert_allclose(r["phi1"], -PHI0 + omega * r["time"], atol=1e-7)
            np.testing.assert_allclose(r["phi2"], 0.0, atol=1e-7)
            np.testing.assert_allclose(r["dphi1"], omega, atol=1e-6)
        else:  # within 1e-3 rad of the dead point J(a1) is constant to 1e-6: the crank turns uniformly
            np.testing.assert_allclose(r["a1"], A10 + omega * r["time"], atol=1e-7)
            np.testing.assert_allclose(r["a2"], -r["a1"], atol=1e-7)
            np.testing.assert_allclose(r["da1"], omega, atol=1e-6)


@pytest.mark.parametrize("version", [2, 3])
def test_fmu_me_branch_guard_state_is_restored_with_the_fmu_state(version):
    """The guard's verdict is part of the FMU state: every evaluation after it is an Error (also
    CompletedIntegratorStep), and restoring a state from before it continues normally.  Driven by
    hand: a drifted state next to the flat position evaluated at two times 10 s apart, so that the
    constraint forces' power through the velocity error sums to more than 1e-3 of the kinetic energy."""
    log: list[str] = []
    s = FmuSession(
        cached_fmu(PARALLELOGRAM, version, "me", options=(("phi0", math.pi / 2),)),
        "ModelExchange",
        logger=lambda *a: log.append(a[-1].decode()),
    )
    try:
        s.initialize()
        before = s.get_state()
        drifted = [1e-4, 0.0, 1e-4 + 1e-5, OMEGA_P, 0.0, OMEGA_P + 1e-3]
        s.fmu.setTime(1.0)
        s.set_states(drifted)
        ok = s.derivatives()
        assert np.all(np.isfinite(ok))
        s.fmu.setTime(11.0)
        s.set_states(drifted)
        with pytest.raises(Exception, match="status 3"):
            s.derivatives()
        assert any("leaving its assembly branch" in m and "'loop_x'" in m for m in log)
        with pytest.raises(Exception, match="status 3"):
            s.fmu.completedIntegratorStep()
        s.set_state(before)
        dx = s.derivatives()
        np.testing.assert_allclose(dx[:3], [OMEGA_P, 0.0, OMEGA_P], atol=1e-12)  # upright: translating coupler
        np.testing.assert_allclose(dx[3:], 0.0, atol=1e-9)
        s.free_state(before)
    finally:
        s.close()


CONSTRAINED_EXAMPLES = ["four_bar.py", "slider_crank.py", "crank_rod_disc.py"]  # the last with rolling (non-holonomic)


@pytest.mark.parametrize("name", CONSTRAINED_EXAMPLES)
def test_fmu_me_branch_guard_is_quiet_on_the_examples_at_loose_tolerance(name):
    """The constrained examples under CVode at rtol 1e-4 and 1e-6 for 5 s: no branch error."""
    model = str(MODELS.parent.parent / "examples" / name)
    for rtol in (1e-4, 1e-6):
        log: list[str] = []
        r = fmu_simulation(
            cached_fmu(model, 2, "me"),
            5.0,
            0.01,
            fmi_type="ModelExchange",
            relative_tolerance=rtol,
            logger=lambda *a, log=log: log.append(a[-1].decode()),
        )
        assert r["time"][-1] == pytest.approx(5.0)
        assert not any("assembly branch" in m for m in log), log[-3:]


@pytest.mark.slow
@pytest.mark.parametrize("flavor", ["asan", "plain"])
def test_branch_guard_in_a_c_host_under_sanitizers(flavor, tmp_path, tmp_path_factory):
    """``tests/fmu/c/branch_host.c`` linked with the parallelogram's model.c and the runtime, under
    AddressSanitizer + UndefinedBehaviorSanitizer (and valgrind when installed): the guard fires,
    names the row, persists through serialized states and clears with an earlier state or a reset."""
    wrapper: tuple[str, ...] = ()
    if flavor == "asan":
        _need("asan", tmp_path_factory)
    elif shutil.which("valgrind"):
        wrapper = ("valgrind", "--error-exitcode=3", "--leak-check=full", "--errors-for-leak-kinds=definite")
    model = tmp_path / "model.c"
    model.write_text(FmuSpec(parallelogram(math.pi / 2), 2, "both").source.text)
    sources = [template_dir() / s for s in (*GENERIC_SOURCES, "fmi2Functions.c")] + [model, HOSTS / "branch_host.c"]
    flags = ["-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-unused-function", *FLAVORS[flavor]]
    includes = [f"-I{template_dir()}", f"-I{fmi_headers_dir()}", f"-I{HOSTS}"]
    exe = tmp_path / "branch_host"
    cmd = [c_compiler(), *flags, *includes, *map(str, sources), "-o", str(exe), "-lm", "-pthread"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    out = run_host(exe, wrapper=wrapper)
    assert "branch_host guard:" in out
