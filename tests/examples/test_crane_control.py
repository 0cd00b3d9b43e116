"""The crane controller-design workflow of ``examples/crane_control``.

Each script's ``main`` runs once per module (it exports and compiles its FMU, runs every
transfer in closed loop with the FMU and the LQR loop on the Python model); the tests
check its results:

* the building blocks against independent references: motion profiles by finite
  differences and quadrature, shapers by the residual vibration they leave, the sampled
  LQR against python-control's ``dlqr``, the flat reference against the linear model, the
  linear model against finite differences of the accelerations;
* the closed loop with the FMU (fmpy, FMI 2 and 3) against the same loop on the Python
  model: plotting accuracy means 1 mm and 0.01 deg; the tests ask for 1e-6 (m, rad);
* overhead crane: the LQR leaves at most 10 % of the open loop's residual swing after a
  10 m transfer, and its feedback (not only its feedforward) removes the swing a wrong
  payload mass excites;
* tower crane, "the closed loop damps the swing": every pole of the sampled loop except
  the (uncontrollable in practice) twist has a damping ratio >= 0.45 while the open-loop
  swing modes have < 0.07, and in the co-simulation the residual swing is under 10 % of
  open loop and under 0.05 deg in the last 5 s of the run.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from scipy.integrate import quad

from symbody.numeric import NumericModel

from support import ROOT

sys.path.insert(0, str(ROOT / "examples" / "crane_control"))

import crane_design  # noqa: E402
import crane_motion  # noqa: E402
import overhead_lqr  # noqa: E402
import tower_lqr  # noqa: E402
from crane_loop import FeedbackLaw, FmuPlant, ModelPlant, run_closed_loop  # noqa: E402

# ---------------------------------------------------------------------------
# the two scripts, run once
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def overhead(tmp_path_factory):
    out = tmp_path_factory.mktemp("overhead")
    return overhead_lqr.main([str(out), "--transfer-plot", str(out / "docs" / "crane_transfer.png")])


@pytest.fixture(scope="module")
def tower(tmp_path_factory):
    return tower_lqr.main([str(tmp_path_factory.mktemp("tower"))])


# ---------------------------------------------------------------------------
# motion profiles, shapers, metrics
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("distance, v, a", [(10.0, 0.5, 0.25), (-3.0, 2.0, 0.5), (0.5, 1.0, 1.0)])
def test_trapezoid_and_its_smoothing(distance, v, a):
    move = crane_motion.trapezoid(distance, v, a, start=1.0)
    ta = min(v / a, math.sqrt(abs(distance) / a))
    assert move.duration == pytest.approx(2 * ta + (abs(distance) - a * ta * ta) / (a * ta))
    assert move.position(move.end + 1) == pytest.approx(distance, abs=1e-12)
    assert max(abs(move.velocity(t)) for t in np.linspace(0, move.end, 301)) <= v + 1e-12
    assert move.acceleration(1.0 + ta / 2) == pytest.approx(math.copysign(a, distance))
    # the moving average is the integral of the position over the window
    s = move.smoothed(0.7)
    for t in (1.3, 2.0, 0.5 * (move.start + move.end), move.end + 0.3):
        assert s.position(t) == pytest.approx(quad(move.position, t - 0.7, t, points=[1.0, move.end])[0] / 0.7)
    # its derivatives are the derivatives of its position
    s2 = s.smoothed(0.4)
    h = 1e-5
    for t in np.linspace(1.01, s2.end - 0.01, 23):
        for k in range(3):
            fd = (s2.derivative(t + h, k) - s2.derivative(t - h, k)) / (2 * h)
            assert fd == pytest.approx(s2.derivative(t, k + 1), rel=1e-5, abs=1e-7)
    assert s2.end == pytest.approx(move.end + 1.1)
    assert [s2.derivative(s2.end + 0.5, k) for k in range(4)] == pytest.approx([distance, 0, 0, 0], abs=1e-9)


def _residual_vibration(shaper, omega, zeta):
    """Amplitude left by the shaper's impulses in an oscillator, relative to one unit impulse."""
    wd = omega * math.sqrt(1 - zeta**2)
    z = sum(
        A * math.exp(zeta * omega * t) * complex(math.cos(wd * t), math.sin(wd * t))
        for t, A in zip(shaper.times, shaper.amplitudes)
    )
    return abs(z) * math.exp(-zeta * omega * shaper.duration)


def test_shapers_cancel_the_vibration_they_are_tuned_for():
    omega, zeta = 1.73, 0.035
    zv, zvd = crane_motion.zv_shaper(omega, zeta), crane_motion.zvd_shaper(omega, zeta)
    for sh in (zv, zvd):
        assert sh.amplitudes.sum() == pytest.approx(1.0)
        assert _residual_vibration(sh, omega, zeta) < 1e-12
    assert zv.duration == pytest.approx(math.pi / (omega * math.sqrt(1 - zeta**2)))
    # ZVD is the robust one: 10 % frequency error leaves far less vibration
    for err in (0.9, 1.1):
        assert _residual_vibration(zvd, err * omega, zeta) < 0.2 * _residual_vibration(zv, err * omega, zeta)
    with pytest.raises(ValueError, match="omega"):
        crane_motion.zv_shaper(0.0)


def test_settling_time_and_metrics():
    t = np.linspace(0, 10, 101)
    err = np.where(t < 4, 1.0, 0.01)
    swing = np.where(t < 6, 0.1, 0.001)
    m = crane_motion.transfer_metrics(t, err, swing, 2 * swing, motion_end=5.0, band=0.05)
    assert m.settling_time == pytest.approx(4.0)
    assert m.max_swing == pytest.approx(math.degrees(0.1))
    assert m.residual_swing == pytest.approx(math.degrees(0.1))  # still swinging at 5 s
    assert m.residual_sway == pytest.approx(0.2)
    assert crane_motion.settling_time(t, np.ones_like(t), 0.05) == math.inf
    with pytest.raises(ValueError, match="before the motion ends"):
        crane_motion.transfer_metrics(t, err, swing, swing, motion_end=11.0)


# ---------------------------------------------------------------------------
# design tools
# ---------------------------------------------------------------------------


def test_sampled_lqr_matches_python_control(overhead):
    import control

    d = overhead["design"]
    Q, R, h = (
        crane_design.bryson(overhead_lqr.TOLERATED_STATES),
        crane_design.bryson(overhead_lqr.TOLERATED_INPUTS),
        overhead_lqr.H,
    )
    Ad, Bd = crane_design.discretize(d.A, d.B, h)
    sysd = control.c2d(control.ss(d.A, d.B, np.eye(6), np.zeros((6, 2))), h, method="zoh")
    assert np.allclose(Ad, sysd.A, atol=1e-12) and np.allclose(Bd, sysd.B, atol=1e-12)
    K_control, _, _ = control.dlqr(sysd.A, sysd.B, Q * h, R * h)
    assert np.allclose(d.K, K_control, rtol=1e-6, atol=1e-6 * np.abs(K_control).max())
    # for a fast sampling the sampled design tends to the continuous one
    K_fast, _ = crane_design.sampled_lqr(d.A, d.B, Q, R, 1e-4)
    K_cont, _, _ = control.lqr(d.A, d.B, Q, R)
    assert np.allclose(K_fast, K_cont, rtol=2e-3, atol=2e-3 * np.abs(K_cont).max())


def test_flat_reference_is_a_trajectory_of_the_linear_model(overhead):
    d = overhead["design"]
    idx = overhead_lqr.TROLLEY_SWING
    A, b = d.A[np.ix_(idx, idx)], d.B[idx, 0]
    h = 1e-4
    for t in np.linspace(0.05, d.move.end - 0.05, 37):
        x, u = d.flat(t)
        dx = (d.flat(t + h)[0] - d.flat(t - h)[0]) / (2 * h)
        assert np.allclose(dx, A @ x + b * u, rtol=1e-5, atol=1e-6)  # the rates are ~0.5 m/s, ~0.02 rad/s
    # at rest before and after, trolley under the payload at its start and target
    assert np.allclose(d.flat(-1.0)[0], 0.0) and d.flat(-1.0)[1] == 0.0
    x_end, u_end = d.flat(d.move.end + 1.0)
    assert np.allclose(x_end, [overhead_lqr.DISTANCE, 0, 0, 0], atol=1e-9) and abs(u_end) < 1e-6
    # the flat output is the payload's horizontal position x + l theta, up to the damping terms
    assert d.flat.c[:2] == pytest.approx([1.0, d.l0], rel=1e-3)
    with pytest.raises(ValueError, match="smooth it more"):
        crane_design.FlatReference(A, b, crane_motion.trapezoid(1.0, 1.0, 1.0))


# ---------------------------------------------------------------------------
# overhead crane
# ---------------------------------------------------------------------------


def test_overhead_equilibrium_and_linear_model(overhead):
    d = overhead["design"]
    p = d.params
    assert d.F_hold == pytest.approx(p["m_payload"] * p["g"], rel=1e-12)
    assert d.q_eq == pytest.approx([0.0, 12.0, 0.0], abs=1e-12)
    hand = math.sqrt(p["g"] / d.l0 * (1 + p["m_payload"] / p["m_trolley"]))
    assert d.swing_omega == pytest.approx(hand, rel=2e-3)
    assert 0 < d.swing_zeta < 0.07
    # A, B against central differences of the accelerations (independent of symbody's Jacobians)
    nm = NumericModel(d.eq)
    q0, u0 = d.q_eq, np.array([0.0, d.F_hold])

    def f(x, u):
        return np.concatenate([x[3:], nm.accelerations(q0 + x[:3], x[3:], t=0.0, u=u0 + u)[0]])

    eps = 1e-6
    A_fd = np.column_stack([(f(eps * e, 0 * u0) - f(-eps * e, 0 * u0)) / (2 * eps) for e in np.eye(6)])
    B_fd = np.column_stack(
        [(f(np.zeros(6), s * e) - f(np.zeros(6), -s * e)) / (2 * s) for e, s in zip(np.eye(2), (1.0, 1.0))]
    )
    assert np.allclose(d.A, A_fd, rtol=1e-6, atol=1e-7)
    assert np.allclose(d.B, B_fd, rtol=1e-6, atol=1e-12)


def test_overhead_sampled_loop_is_stable_and_damps_the_swing(overhead):
    d = overhead["design"]
    Ad, Bd = crane_design.discretize(d.A, d.B, overhead_lqr.H)
    assert np.abs(np.linalg.eigvals(Ad - Bd @ d.K)).max() < 1.0
    _, zeta = crane_design.damping(d.loop_poles)
    assert zeta.min() >= 0.3  # open loop: the swing has zeta = 0.035


def test_overhead_fmu_loop_matches_python_model(overhead):
    fmu_run, py_run = overhead["runs"]["LQR"], overhead["python"]
    assert np.array_equal(fmu_run.t, py_run.t) and fmu_run.t[-1] == pytest.approx(overhead_lqr.T_END)
    assert abs(fmu_run["x_payload"][-1] - overhead_lqr.DISTANCE) < 0.01  # it did move the load
    for name in ("x", "l", "theta", "dx", "dtheta", "x_payload"):
        assert np.max(np.abs(fmu_run[name] - py_run[name])) < 1e-6, name
    assert np.max(np.abs(fmu_run["F_trolley"] - py_run["F_trolley"])) < 1e-2
    # the rope tension output (uses the accelerations) agrees too and equals the weight at rest
    assert np.max(np.abs(fmu_run["rope_tension"] - py_run["rope_tension"])) < 1e-3
    assert fmu_run["rope_tension"][0] == pytest.approx(overhead["design"].F_hold, rel=1e-12)


def test_overhead_lqr_removes_the_residual_swing(overhead):
    m = overhead["metrics"]
    assert m["open loop"].residual_swing > 1.0  # deg: the comparison means something
    assert m["LQR"].residual_swing <= 0.1 * m["open loop"].residual_swing
    assert m["LQR"].settling_time < overhead["design"].move.end + 2.0
    assert m["LQR"].final_error < 0.01
    assert m["ZV shaper"].residual_swing <= 0.05 * m["open loop"].residual_swing
    assert m["PD (no swing feedback)"].residual_swing < m["open loop"].residual_swing
    for name, r in overhead["runs"].items():  # no run leans on the drive limit
        assert np.abs(r["F_trolley"]).max() < 0.5 * overhead_lqr.F_TROLLEY_MAX, name
        assert np.abs(r["l"] - 12.0).max() < 0.01, name  # the hoist loop holds the rope


def test_overhead_feedback_handles_a_wrong_payload_mass(overhead):
    m = overhead["robust_metrics"]
    r = overhead["robust_runs"]["LQR"]
    weight = overhead_lqr.ROBUST_PAYLOAD * overhead["design"].params["g"]
    assert r["F_hoist"][0] == pytest.approx(weight, rel=1e-12) and r["rope_tension"][-1] == pytest.approx(
        weight, rel=1e-3
    )
    assert m["LQR feedforward only"].residual_swing > 0.2  # deg: the model error excites the swing
    assert m["LQR"].residual_swing < 0.2 * m["LQR feedforward only"].residual_swing
    assert m["LQR"].residual_swing < 0.1 * m["open loop"].residual_swing


def test_overhead_loop_with_an_fmi3_fmu(overhead, tmp_path):
    d = overhead["design"]
    fmu3 = overhead_lqr.export_plant(d.eq, tmp_path / "overhead_crane3.fmu", fmi_version=3)
    run = overhead_lqr.run_transfers(d, fmu3, ["LQR"], t_end=10.0)["LQR"]
    ref = overhead["runs"]["LQR"]
    n = len(run.t)
    for name in ("x", "theta", "F_trolley"):
        assert np.max(np.abs(run[name] - ref[name][:n])) < 1e-9, name


def test_overhead_script_writes_its_plots(overhead):
    transfer, comparison = overhead["plots"]
    assert transfer.name == "crane_transfer.png" and transfer.parent.name == "docs"
    for path in (transfer, comparison):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000
    assert overhead["fmu"].exists()


# ---------------------------------------------------------------------------
# tower crane
# ---------------------------------------------------------------------------


@pytest.mark.slow  # the tower crane's workflow (FMU and Python-model transfers in closed loop): 6 s
def test_tower_equilibrium_and_open_loop_modes(tower):
    d = tower["design"]
    p = d.params
    assert d.q_eq[2:] == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)
    r = tower["runs"]["open loop"]
    assert r["rope_tension"][0] == pytest.approx(p["m_payload"] * p["g"], rel=1e-12)
    for name in ("tangential swing", "radial swing"):
        w, z = d.swing_modes[name]
        assert 0.5 * math.sqrt(p["g"] / p["l"]) < w < 3 * math.sqrt(p["g"] / p["l"]) and z < 0.07, name


@pytest.mark.slow  # the tower crane's workflow (FMU and Python-model transfers in closed loop): 6 s
def test_tower_closed_loop_damps_the_swing(tower):
    d = tower["design"]
    w, zeta = crane_design.damping(d.loop_poles)
    twist = np.isclose(w, d.swing_modes["twist"][0], rtol=0.05)
    assert twist.sum() == 2  # the twist pair keeps its open-loop pole
    assert zeta[~twist].min() >= 0.45
    m, runs = tower["metrics"], tower["runs"]
    assert m["LQR"].residual_swing <= 0.1 * m["open loop"].residual_swing
    late = {
        name: np.degrees(tower_lqr.swing_angle(r)[r.t >= r.t[-1] - tower_lqr.LATE_WINDOW].max())
        for name, r in runs.items()
    }
    assert late["open loop"] > 1.0 and late["LQR"] < 0.05
    assert math.isfinite(m["LQR"].settling_time) and m["LQR"].final_error < 0.05
    r = runs["LQR"]
    assert r["theta"][-1] == pytest.approx(tower_lqr.SLEW_ANGLE, abs=2e-3)
    assert r["r"][-1] == pytest.approx(tower_lqr.R0 + tower_lqr.TROLLEY_TRAVEL, abs=0.02)


@pytest.mark.slow  # the tower crane's workflow (FMU and Python-model transfers in closed loop): 6 s
def test_tower_fmu_loop_matches_python_model(tower):
    fmu_run, py_run = tower["runs"]["LQR"], tower["python"]
    n = len(py_run.t)
    assert py_run.t[-1] == pytest.approx(tower_lqr.PYTHON_HORIZON)
    assert np.abs(py_run["theta"]).max() > 0.2  # well into the slew
    for name in ("theta", "r", "beta_r", "beta_t", "gamma", "dtheta", "dbeta_t", "x_payload", "y_payload"):
        assert np.max(np.abs(fmu_run[name][:n] - py_run[name])) < 1e-6, name
    assert np.max(np.abs(fmu_run["tau_slew"][:n] - py_run["tau_slew"])) < 1.0  # N.m, of 2e5


# ---------------------------------------------------------------------------
# the loop's plants
# ---------------------------------------------------------------------------


def test_plants_name_unknown_variables(overhead):
    plant = FmuPlant(overhead["fmu"])
    try:
        with pytest.raises(KeyError, match="no_such_output"):
            plant.read(["x", "no_such_output"])
    finally:
        plant.close()
    model = ModelPlant(overhead["design"].eq)
    with pytest.raises(KeyError, match="F_nothing"):
        model.write(["F_nothing"], [1.0])
    law = FeedbackLaw(["x"], ["F_trolley"], lambda t, y: np.array([1e9]), limits={"F_trolley": (-10.0, 10.0)})
    res = run_closed_loop(model, law, 0.05, 0.01)
    assert np.all(res["F_trolley"] == 10.0) and res["x"][-1] > 0


@pytest.mark.parametrize("module", ["crane_motion", "crane_design", "crane_loop"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
