"""Assembly, velocity and acceleration problems and kinematic simulation (symbody.numeric.kinematics).

Checked against closed-form geometry and against finite differences of positions.
"""

import math

import numpy as np
import pytest

import symbody as sb
from symbody.numeric import (
    HeldCoordinateWarning,
    NumericModel,
    assemble,
    kinematic_simulation,
    solve_accelerations,
    solve_velocities,
)

from support import example

FOUR_BAR = "four_bar"

# some models here are redundant on purpose (the dynamics chapter's sine/cosine rows, conflicting drivers)
pytestmark = pytest.mark.filterwarnings("ignore:.*redundant at the initial configuration")


def four_bar_eq():
    return example(FOUR_BAR).derive()


def load_four_bar_module():
    import importlib.util

    from support import EXAMPLES

    spec = importlib.util.spec_from_file_location("fb", EXAMPLES / "four_bar.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------
# assembly
# ---------------------------------------------------------------------------


def test_four_bar_assembles_from_a_guess_holding_the_crank():
    eq = four_bar_eq()
    fb = load_four_bar_module()
    q_guess = eq.q0 + np.array([0.0, 0.15, -0.2])  # crank exact, the others off
    res = assemble(eq, q_guess)
    th2, th3 = fb.closed_angles(0.4, 2.0, 1.2, 1.6, eq.q0[0])
    assert res["theta1"] == pytest.approx(eq.q0[0], abs=1e-12)
    assert res["theta2"] == pytest.approx(th2, abs=1e-10)
    assert res["theta3"] == pytest.approx(th3, abs=1e-10)
    assert res.residual <= 1e-10 and res.dof == 1 and res.redundant == []
    assert res.rows == ["loop_x", "loop_z", "theta1_init"]


def test_slider_crank_assembles_from_a10():
    import importlib.util

    from support import EXAMPLES

    spec = importlib.util.spec_from_file_location("sc", EXAMPLES / "slider_crank.py")
    sc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sc)
    eq = example("slider_crank").derive()
    with pytest.warns(HeldCoordinateWarning, match="'a1'"):
        res = assemble(eq, [0.5, 0.3])  # far from the solution; Cpini1 holds a1 = a10 = pi/3
    assert res["a1"] == pytest.approx(math.pi / 3, abs=1e-12)
    assert res["a2"] == pytest.approx(sc.closing_rod_angle(4.0, 10.0, math.pi / 3), abs=1e-10)
    # the slider is on the guide
    assert 4 * math.sin(res["a1"]) + 10 * math.sin(res["a2"]) == pytest.approx(0.0, abs=1e-10)
    # with a fixed relaxation factor (3D_MEC's relax) it converges to the same point
    with pytest.warns(HeldCoordinateWarning):
        res2 = assemble(eq, [0.5, 0.3], relax=0.5, max_iter=200)
    np.testing.assert_allclose(res2.q, res.q, atol=1e-9)


def redundant_pendulum():
    """A pendulum in (x, y, phi) with the dynamics chapter's redundant pair: distance and sine/cosine rows (rank 2, 3 rows)."""
    s = sb.System("redundant_pendulum")
    L = s.parameter("L", 2.0)
    x, y, phi = s.coordinate("x", 2.0), s.coordinate("y", 0.0), s.coordinate("phi", math.pi / 2)
    s.particle("m", s.point("P", s.origin, (x, y, 0)), 1.0)
    s.gravity((0, -9.81, 0))
    s.constraint("dist", x**2 + y**2 - L**2)
    s.constraint("sine_row", x - L * sb.sin(phi))
    s.constraint("cosine_row", y + L * sb.cos(phi))
    return s


def test_assembly_with_redundant_constraints():
    eq = redundant_pendulum().derive()
    res = assemble(eq, [1.5, -1.0, 0.9], fixed={"phi": 0.7})
    assert res["x"] == pytest.approx(2 * math.sin(0.7), abs=1e-11)
    assert res["y"] == pytest.approx(-2 * math.cos(0.7), abs=1e-11)
    assert res.rank == 3 and len(res.redundant) == 1  # 4 rows (3 constraints + hold) of rank 3
    assert res.dof == 1


def test_assembly_reports_inconsistent_constraints():
    s = sb.System("bad")
    x = s.coordinate("x", 0.0)
    s.particle("m", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.constraint("at_one", x - 1)
    s.constraint("at_two", x - 2)
    with pytest.raises(sb.NumericalError, match="cannot all be satisfied.*at_"):
        assemble(s.derive(check=False))  # derive itself refuses it (ModelError)


def test_assembly_reports_unreachable_configuration():
    eq = four_bar_eq()
    # lengths that cannot close the loop: l4 longer than l1 + l2 + l3
    with pytest.raises(sb.NumericalError, match="assembly of 'four_bar' failed.*loop_"):
        assemble(NumericModel(eq, {"l4": 5.0}))


# ---------------------------------------------------------------------------
# velocity and acceleration problems vs finite differences
# ---------------------------------------------------------------------------


def four_bar_positions(eq, theta1):
    """Assembled coordinates of the four-bar with the crank at theta1 (held)."""
    return assemble(eq, [theta1, *eq.q0[1:]], use_initial=False, fixed={"theta1": theta1}).q


def test_four_bar_velocities_and_accelerations_match_finite_differences():
    eq = four_bar_eq()
    nm = NumericModel(eq)
    th1, w1, al1 = eq.q0[0] + 0.3, 1.7, -0.8
    q = four_bar_positions(eq, th1)
    v = solve_velocities(nm, q, independent=["theta1"], values=[w1])
    assert v.independent == ["theta1"] and v.dependent == ["theta2", "theta3"]
    h = 1e-5
    dq_fd = (four_bar_positions(eq, th1 + h) - four_bar_positions(eq, th1 - h)) / (2 * h) * w1
    np.testing.assert_allclose(v.dq, dq_fd, rtol=1e-8, atol=1e-8)
    # accelerations: d/dt dq along the motion theta1(t) = th1 + w1 t + al1 t^2 / 2
    a = solve_accelerations(nm, q, v.dq, independent=["theta1"], values={"theta1": al1})

    def dq_at(tau):
        th = th1 + w1 * tau + 0.5 * al1 * tau**2
        qq = four_bar_positions(eq, th)
        return solve_velocities(nm, qq, independent=["theta1"], values=[w1 + al1 * tau]).dq

    ddq_fd = (dq_at(h) - dq_at(-h)) / (2 * h)
    np.testing.assert_allclose(a.ddq, ddq_fd, rtol=1e-6, atol=1e-6)
    assert a.residual < 1e-12


def test_velocity_partition_is_chosen_automatically_and_held_coordinates_preferred():
    eq = four_bar_eq()
    v = solve_velocities(eq, eq.q0, dq=[1.0, 0.0, 0.0])
    assert v.independent == ["theta1"]  # theta1 is held by the initial conditions: natural independent
    assert v["theta1"] == 1.0


def test_velocity_problem_detects_wrong_or_incompatible_data():
    eq = four_bar_eq()
    with pytest.raises(sb.NumericalError, match="2 independent coordinates given.*1 degrees of freedom"):
        solve_velocities(eq, eq.q0, independent=["theta1", "theta2"], values=[1.0, 0.0])
    with pytest.raises(sb.NumericalError, match="not an independent coordinate"):
        solve_velocities(eq, eq.q0, independent=["theta1"], values={"theta2": 1.0})
    # redundant rheonomic rows that disagree at velocity level: x = t and x = 2 t (both hold at t = 0)
    s = sb.System("conflict")
    x = s.coordinate("x", 0.0)
    s.particle("m", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.constraint("drive1", x - s.t)
    s.constraint("drive2", x - 2 * s.t)
    eqc = s.derive()
    assert assemble(eqc).residual == 0.0
    with pytest.raises(sb.NumericalError, match="incompatible velocity data"):
        solve_velocities(eqc, [0.0])


def test_redundant_velocity_problem_is_consistent():
    eq = redundant_pendulum().derive()
    q = assemble(eq, [1.5, -1.0, 0.9], fixed={"phi": 0.7}, use_initial=False).q
    v = solve_velocities(eq, q, independent=["phi"], values=[2.0])
    np.testing.assert_allclose(v.dq, [2 * math.cos(0.7) * 2.0, 2 * math.sin(0.7) * 2.0, 2.0], atol=1e-12)
    assert v.residual < 1e-12


# ---------------------------------------------------------------------------
# kinematic simulation
# ---------------------------------------------------------------------------


def test_kinematic_simulation_of_the_slider_crank_matches_closed_form():
    eq = example("slider_crank").derive()
    l1, l2 = 4.0, 10.0
    ts = np.linspace(0.0, 3.0, 61)
    a10 = math.pi / 3
    res = kinematic_simulation(eq, ts, {"a1": a10 + 2.0 * eq.t + 0.3 * sb.sin(3 * eq.t)})
    a1 = a10 + 2.0 * ts + 0.3 * np.sin(3 * ts)
    xc = l1 * np.cos(a1) + np.sqrt(l2**2 - (l1 * np.sin(a1)) ** 2)
    np.testing.assert_allclose(res["a1"], a1, atol=1e-12)
    np.testing.assert_allclose(res["x_c"], xc, atol=1e-9)
    np.testing.assert_allclose(res["da1"], 2.0 + 0.9 * np.cos(3 * ts), atol=1e-12)
    np.testing.assert_allclose(res["dda1"], -2.7 * np.sin(3 * ts), atol=1e-12)
    assert np.all(np.isnan(res["F_guide"]))  # an output of the multiplier: not known kinematically
    assert res.residual.max() <= 1e-10


def test_kinematic_simulation_matches_finite_differences_of_positions():
    eq = four_bar_eq()
    th0 = eq.q0[0]
    law = (
        lambda t: th0 + 0.5 * math.sin(2 * t),
        lambda t: math.cos(2 * t),
        lambda t: -2 * math.sin(2 * t),
    )
    h = 1e-4
    ts = np.array([0.1, 0.7, 1.3])
    grid = np.sort(np.concatenate([ts - h, ts, ts + h]))
    res = kinematic_simulation(eq, grid, {"theta1": law})
    q = res.q.reshape(len(ts), 3, -1)
    dq = res.dq.reshape(len(ts), 3, -1)
    np.testing.assert_allclose(dq[:, 1], (q[:, 2] - q[:, 0]) / (2 * h), rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(res.ddq.reshape(len(ts), 3, -1)[:, 1], (dq[:, 2] - dq[:, 0]) / (2 * h), atol=1e-6)
    # the output C (position of the loop point) moves with the computed velocities
    assert res["C_x"][1] == pytest.approx(1.6, abs=1e-10)


def test_kinematic_simulation_needs_enough_drivers():
    eq = four_bar_eq()
    with pytest.raises(sb.NumericalError, match="1 more driver.*candidates: theta1"):
        kinematic_simulation(eq, [0.0, 0.1])


def test_kinematic_simulation_with_rheonomic_constraint_needs_no_driver():
    s = sb.System("driven")
    a = s.coordinate("a", 0.0)
    s.particle("m", s.point("P", s.origin, (sb.cos(a), sb.sin(a), 0)), 1.0)
    w = s.parameter("w", 3.0)
    s.prescribe("motor", a, w * s.t)
    res = kinematic_simulation(s.derive(), [0.0, 1.0, 2.0])
    np.testing.assert_allclose(res["a"], [0.0, 3.0, 6.0], atol=1e-10)
    np.testing.assert_allclose(res["da"], [3.0, 3.0, 3.0], atol=1e-12)


def test_kinematic_simulation_reports_leaving_the_workspace():
    eq = four_bar_eq()
    nm = NumericModel(eq, {"l4": 2.9})  # the loop cannot close when the crank points away from O2 (|A O2| > l2 + l3)
    q0 = assemble(nm, eq.q0).q
    ts = np.linspace(0.0, 2.0, 41)
    # |A - O2| reaches l2 + l3 = 3.2 when theta1 = -pi/2 - 1.5 t is about -2.39 (t = 0.55)
    with pytest.raises(sb.NumericalError, match=r"position problem failed at t = 0\.55.*reachable workspace"):
        kinematic_simulation(nm, ts, {"theta1": eq.q0[0] - 1.5 * eq.t}, q=q0)
