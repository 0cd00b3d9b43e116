"""Mechanisms started at or next to a singular position, and reaction outputs at singular instants.

The FMU runtime tells a constraint row that vanishes (a singular position) from a row small by
its units by the largest norm the row has had.  At the start the motion has shown none: the
reference comes from the rows at configurations next to the start (``sb_seed_row_reference``).
Without it a Model Exchange FMU started next to the flat position of a parallelogram linkage
solved the nearly dependent rows exactly and CVode left the parallelogram branch (crank errors of
0.07 rad and multipliers of 5e4 N at ``rtol = 1e-10``).  The references are the minimal-coordinate
solutions of the branch in ``test_singular_positions``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import test_singular_positions as sp
from test_robustness_fmu import Instance, Unit

from symbody.fmu.testing import cached_fmu, fmu_simulation

ME = dict(fmi_type="ModelExchange", solver="CVode", relative_tolerance=1e-10)


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("phi0", [0.0, 1e-7, -1e-7])
def test_me_fmu_started_at_or_next_to_the_flat_position_stays_on_its_branch(version, phi0):
    fmu = cached_fmu(sp.PARALLELOGRAM, version, "me", options=(("phi0", phi0),))
    r = fmu_simulation(fmu, 3.5, 0.01, **ME)
    t, tol = r["time"], 1e-5
    phi, lam_x, lam_y = sp.parallelogram_reference(t, phi0)
    np.testing.assert_allclose(r["phi1"], phi, atol=tol)
    np.testing.assert_allclose(r["phi3"], r["phi1"], atol=tol)
    np.testing.assert_allclose(r["phi2"], 0.0, atol=tol)
    np.testing.assert_allclose(r["dphi1"], sp.OMEGA_P, atol=10 * tol)  # no velocity jump
    np.testing.assert_allclose(r["dphi3"], sp.OMEGA_P, atol=10 * tol)
    # the reactions where the configuration determines them (next to the flat positions they are
    # flagged as undetermined: test_reactions_at_a_singular_instant_are_flagged_as_undetermined)
    away = np.abs(np.sin(phi)) > 0.05
    np.testing.assert_allclose(r["lam_x"][away], lam_x[away], atol=1e3 * tol)
    np.testing.assert_allclose(r["lam_y"][away], lam_y[away], atol=1e3 * tol)
    assert np.floor(phi[-1] / math.pi) - np.floor(phi[0] / math.pi) >= 2  # two flat positions after the start


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("offset", [0.0, 1e-7, -1e-7])
def test_me_fmu_started_at_or_next_to_the_dead_point_leaves_it_on_its_branch(version, offset):
    """From the dead point to just before the next one (a1 = 3 pi / 2 at t ~ 0.7 s): on the branch
    a2 = -a1 with the speed of energy conservation J(a1) a1'^2 / 2 = E."""
    a10 = sp.A10 + offset
    fmu = cached_fmu(sp.SLIDER_CRANK, version, "me", options=(("a10", a10),))
    r = fmu_simulation(fmu, 0.6, 0.01, **ME)
    a, da, dda = sp.slider_crank_reference(r["time"], a10)
    np.testing.assert_allclose(r["a1"], a, atol=1e-6)
    np.testing.assert_allclose(r["a2"], -r["a1"], atol=1e-6)
    np.testing.assert_allclose(r["da1"], da, atol=3e-5)
    np.testing.assert_allclose(r["da2"], -r["da1"], atol=3e-5)  # the other branch: a2' = +a1' (6 rad/s off)
    away = np.abs(np.cos(a)) > 0.1
    N = sp.guide_force(a, da, dda)
    np.testing.assert_allclose(r["N"][away], N[away], atol=1e-4 * np.abs(N).max())
    assert a[-1] > math.pi  # well past the start and the largest row norm (a1 = pi)


# ---------------------------------------------------------------------------
# reactions at a singular instant: flagged as undetermined (Warning with a message)
# ---------------------------------------------------------------------------

WARNING = 1


def _me_instance(fmu):
    """An ME instance whose statuses and log messages the test sees (test_robustness_fmu's host)."""
    inst = Instance(Unit.open(fmu), "me")
    inst.initialize()
    return inst


@pytest.mark.parametrize("version", [2, 3])
def test_reactions_at_a_singular_instant_are_flagged_as_undetermined(version):
    """At the dead point the guide row vanishes: the guide force is not determined by the equations
    (any value solves them), so reading it returns Warning with a message naming the output and the
    row, and the value is the filtered minimum-norm one (0); the accelerations are determined (the
    branch limit) and read OK.  Away from the singular position the reaction reads OK and is exact."""
    r = _me_instance(cached_fmu(sp.SLIDER_CRANK, version, "me", options=(("a10", 1.2),)))
    try:
        for e, flagged in ((0.0, True), (1e-9, True), (1e-5, True), (0.1, False), (-0.3, False)):
            a = sp.A10 + e
            dda = -0.5 * sp.crank_inertia_slope(a) / sp.crank_inertia(a) * sp.OMEGA_S**2
            r.set_states([a, -a, sp.OMEGA_S, -sp.OMEGA_S])
            since = len(r.messages)
            status, N = r.get_real(r.unit.vr("N"))
            assert status == (WARNING if flagged else 0), (e, status, r.text(since))
            assert abs(N) < 1.5 * abs(sp.guide_force(a, sp.OMEGA_S, dda))  # bounded (3e17 came back once)
            if flagged:
                text = r.text(since)
                assert "'N'" in text and "'guide'" in text and "not determine" in text, text
            else:
                np.testing.assert_allclose(N, sp.guide_force(a, sp.OMEGA_S, dda), rtol=1e-9)
            # the accelerations are determined: the branch limit, within 1e-4 of their scale (a1'^2 = 9 rad/s^2)
            # where the filter damps the reaction of a row that has not quite vanished
            status, value = r.get_real(r.unit.vr("dda1"))
            assert status == 0 and abs(value - dda) < 1e-4 * sp.OMEGA_S**2, (e, status, value, dda)
        r.set_states([sp.A10, -sp.A10, sp.OMEGA_S, -sp.OMEGA_S])
        assert abs(r.get_real(r.unit.vr("N"))[1]) < 1e-12  # the minimum-norm reaction at the singular instant itself
    finally:
        r.free()

    # the flat parallelogram: the loop's x rows vanish, the y rows do not: only lam_x is undetermined
    r = _me_instance(cached_fmu(sp.PARALLELOGRAM, version, "me", options=(("phi0", math.pi / 2),)))
    try:
        r.set_states([0.0, 0.0, 0.0, sp.OMEGA_P, 0.0, sp.OMEGA_P])
        status, lam_x = r.get_real(r.unit.vr("lam_x"))
        assert status == WARNING and "'lam_x'" in r.text(), r.text()
        assert abs(lam_x) <= 4.0 + 1e-9  # bounded by the force that both bars carry together
        status, lam_y = r.get_real(r.unit.vr("lam_y"))
        assert status == 0 and abs(lam_y) < 1e-9  # the centripetal force along the bars has no y part
    finally:
        r.free()


@pytest.mark.parametrize("method", [1, 2, 3])
def test_cs_fmu_started_at_or_next_to_a_singular_position_stays_on_its_branch(method):
    """Co-Simulation with each solver from exactly the flat position and from 1e-7 rad past the dead point
    (test_singular_positions starts next to the flat position and exactly at the dead point)."""
    sv = {"solver.method": method, "solver.rtol": 1e-10, "solver.atol": 1e-10, "solver.step": 1e-3}
    r = fmu_simulation(cached_fmu(sp.PARALLELOGRAM, 2, "cs", options=(("phi0", 0.0),)), 3.5, 0.01, start_values=sv)
    phi, lam_x, lam_y = sp.parallelogram_reference(r["time"], 0.0)
    np.testing.assert_allclose(r["phi1"], phi, atol=1e-6)
    np.testing.assert_allclose(r["phi2"], 0.0, atol=1e-6)
    np.testing.assert_allclose(r["dphi3"], sp.OMEGA_P, atol=1e-5)
    away = np.abs(np.sin(phi)) > 0.05
    np.testing.assert_allclose(r["lam_x"][away], lam_x[away], atol=1e-3)
    a10 = sp.A10 + 1e-7
    r = fmu_simulation(cached_fmu(sp.SLIDER_CRANK, 2, "cs", options=(("a10", a10),)), 2.5, 0.01, start_values=sv)
    tol = 1e-5 if method == 3 else 1e-6  # rosenbrock23 is of order 3 only
    sp.check_slider_crank(r["time"], r["a1"], r["a2"], r["da1"], r["da2"], r["N"], tol, a10=a10)
