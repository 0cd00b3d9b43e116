"""Forward dynamics (symbody.numeric.simulate): formulations, integrators, inputs, energy, constraints.

Independent checks: the same mechanism in relative and natural coordinates,
energy computed by hand from the gravity definitions, the exact period of the
pendulum (elliptic integral), closed-form linear responses, and the slider's
normal force from a Newton-Euler balance of the rod and slider.
"""

import math

import numpy as np
import pytest
import scipy.special

import symbody as sb
from symbody.numeric import HeldCoordinateWarning, NumericModel, Sampled, assemble, simulate

from support import example

G = 9.81

# some models here are redundant on purpose (Gil Soto's (2005) two rolling rows, the dynamics chapter's sine/cosine rows)
pytestmark = pytest.mark.filterwarnings("ignore:.*redundant at the initial configuration")

# ---------------------------------------------------------------------------
# Problemas dinámicos: square-and-disc double pendulum, relative vs natural coordinates
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def double_pendulum_reference():
    eq = example("double_pendulum_square_disc", coordinates="relative").derive()
    return simulate(eq, 10.0, dt=0.01, rtol=1e-11, atol=1e-11)


def hand_energy_natural(res, m=1.0, r=1.0):
    """T = 0.5 dq^T M dq with the dynamics chapter's constant M (eq. 68); V = m g (y_G1 + y_G2), G from the basic points."""
    x1, y1, x2, y2 = res.q.T
    M = m * np.array([[25 / 24, 0, 1 / 8, 0], [0, 25 / 24, 0, 1 / 8], [1 / 8, 0, 3 / 8, 0], [0, 1 / 8, 0, 3 / 8]])
    T = 0.5 * np.einsum("ki,ij,kj->k", res.dq, M, res.dq)
    # square: G at local (r, r) from point 0 with x axis 0->1: r_G = (x1 - y1, y1 + x1) r / L
    yG1 = (y1 * r + x1 * r) / (2 * r)
    yG2 = (y1 + y2) / 2  # disc centre: midpoint of 1-2
    V = m * G * (yG1 + yG2)
    return T + V, np.max(np.abs(V - V[0]))


@pytest.mark.parametrize(
    "formulation", ["baumgarte", "projection", pytest.param("independent", marks=pytest.mark.slow)]
)
def test_double_pendulum_natural_coordinates_match_relative(double_pendulum_reference, formulation):
    ref = double_pendulum_reference
    eq = example("double_pendulum_square_disc", coordinates="natural").derive()
    res = simulate(eq, 10.0, dt=0.01, formulation=formulation, rtol=1e-10, atol=1e-10, projection_tol=1e-10)
    # same motion: points 1 and 2 (natural coordinates vs outputs of the relative model)
    for name in ("x1", "y1", "x2", "y2"):
        np.testing.assert_allclose(res[name], ref[name], atol=2e-6)
    # energy constant: our helper and a hand computation from the dynamics chapter's M and the gravity definition
    assert res.energy.relative_drift < 1e-6
    E, swing = hand_energy_natural(res)
    assert swing > 30.0  # the pendulum falls through most of its 39.24 J range
    assert np.max(np.abs(E - E[0])) / swing < 1e-6
    np.testing.assert_allclose(res.energy.total - res.energy.total[0], E - E[0], atol=1e-9)
    # constraint violation
    if formulation == "projection":
        assert res.position_violation.max() <= 1e-10
        assert res.corrections == res.nsteps
    elif formulation == "independent":
        assert res.position_violation.max() <= 1e-12
        assert len(res.independent) > 2  # the independent coordinates changed while swinging
    else:
        assert res.position_violation.max() < 1e-7


def test_double_pendulum_relative_energy(double_pendulum_reference):
    ref = double_pendulum_reference
    assert ref.energy.relative_drift < 1e-6
    assert ref.energy.conservative


# ---------------------------------------------------------------------------
# simple pendulum: exact period, integrators
# ---------------------------------------------------------------------------


def cartesian_pendulum():
    s = sb.System("cartesian_pendulum")
    x, y = s.coordinate("x", 1.0), s.coordinate("y", 0.0)
    s.particle("m", s.point("P", s.origin, (x, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.constraint("rod", x**2 + y**2 - 1)
    return s


def exact_period(theta0, length):
    k = math.sin(theta0 / 2)
    return 4 * math.sqrt(length / G) * scipy.special.ellipk(k * k)


def test_simple_pendulum_period_matches_elliptic_integral():
    eq = example("simple_pendulum", theta0=1.0, damping=False).derive()
    T = exact_period(1.0, 1.0)
    res = simulate(eq, T, t_eval=[T / 4, T / 2, T], rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(res["theta"], [0.0, -1.0, 1.0], atol=1e-8)


@pytest.mark.parametrize(
    "method,kw,tol",
    [
        ("RK45", {}, 1e-6),
        ("DOP853", {}, 1e-8),
        ("Radau", {}, 1e-6),
        ("BDF", {"rtol": 1e-9, "atol": 1e-10}, 5e-5),
        ("RK4", {"step": 2e-3}, 1e-7),
    ],
)
@pytest.mark.parametrize("formulation", ["baumgarte", "projection", "independent"])
def test_integrators_and_formulations_agree_on_a_constrained_pendulum(method, kw, tol, formulation):
    # a quarter period from the horizontal: the bob at the bottom at T/4
    T = exact_period(math.pi / 2, 1.0)
    eq = cartesian_pendulum().derive()
    opts = {"rtol": 1e-9, "atol": 1e-11} | kw
    res = simulate(eq, T / 4, t_eval=[T / 8, T / 4], formulation=formulation, method=method, **opts)
    assert res["x"][-1] == pytest.approx(0.0, abs=tol)
    assert res["y"][-1] == pytest.approx(-1.0, abs=tol)
    assert res["dx"][-1] == pytest.approx(-math.sqrt(2 * G), rel=tol)
    # the rod tension from the multiplier: T_rod = m (v^2 / l + g) at the bottom, lambda = T_rod / (2 l)
    assert res["rod"][-1] == pytest.approx(3 * G / 2, rel=max(tol, 1e-7) * 10)
    if formulation == "baumgarte":
        assert res.position_violation.max() < 1e-6
    else:
        assert res.position_violation.max() <= 1e-10


def test_lsoda_without_projection_and_refused_with_it():
    eq = cartesian_pendulum().derive()
    res = simulate(eq, 0.3, dt=0.1, method="LSODA")
    assert res.position_violation.max() < 1e-6
    with pytest.raises(ValueError, match="LSODA"):
        simulate(eq, 0.3, method="LSODA", formulation="projection")


# ---------------------------------------------------------------------------
# inputs: constant, function of time, feedback, sampled
# ---------------------------------------------------------------------------


def forced_mass():
    s = sb.System("forced_mass")
    x = s.coordinate("x", 0.0)
    m = s.parameter("m", 2.0)
    s.particle("body", s.point("P", s.origin, (x, 0, 0)), m)
    F = s.input("F", 0.0)
    s.generalized_force("push", x, F)
    s.output("momentum", m * s.dt(x))
    return s


def test_inputs_constant_time_function_sampled_and_feedback():
    eq = forced_mass().derive()
    ts = np.linspace(0, 2, 5)
    # constant force: x = F t^2 / (2 m)
    res = simulate(eq, 2.0, t_eval=ts, inputs=[3.0])
    np.testing.assert_allclose(res["x"], 3.0 * ts**2 / 4, atol=1e-10)
    np.testing.assert_allclose(res["F"], 3.0)
    np.testing.assert_allclose(res["momentum"], 3.0 * ts, atol=1e-10)
    # a function of time: F = 6 t gives x = t^3 / 2 (m = 2)
    res = simulate(eq, 2.0, t_eval=ts, inputs={"F": lambda t: 6.0 * t})
    np.testing.assert_allclose(res["x"], ts**3 / 2, atol=1e-10)
    # the same force as samples (exact for linear interpolation of a linear law)
    res = simulate(eq, 2.0, t_eval=ts, inputs={"F": Sampled([0.0, 2.0], [0.0, 12.0])}, max_step=0.05)
    np.testing.assert_allclose(res["x"], ts**3 / 2, atol=1e-9)
    # zero-order hold: piecewise constant force
    res = simulate(eq, 2.0, t_eval=[1.0, 2.0], inputs={"F": Sampled([0.0, 1.0], [2.0, 4.0], kind="previous")})
    # 0..1: a = 1 -> x = 0.5, v = 1; 1..2: a = 2 -> x = 0.5 + 1 + 1 = 2.5
    np.testing.assert_allclose(res["x"], [0.5, 2.5], atol=1e-9)
    # feedback F = -k x - c dx with k = 8, c = 0: harmonic with omega = 2 from x0 = 1
    res = simulate(eq, 2.0, t_eval=ts, q0=[1.0], inputs={"F": lambda t, q, dq: -8.0 * q[0]}, rtol=1e-10)
    np.testing.assert_allclose(res["x"], np.cos(2 * ts), atol=1e-8)
    np.testing.assert_allclose(res["F"], -8.0 * np.cos(2 * ts), atol=1e-7)
    # a whole-vector feedback callable
    res = simulate(eq, 2.0, t_eval=ts, q0=[1.0], inputs=lambda t, q, dq: [-8.0 * q[0]], rtol=1e-10)
    np.testing.assert_allclose(res["x"], np.cos(2 * ts), atol=1e-8)


@pytest.mark.parametrize("method,kw", [("DOP853", {}), ("RK45", {}), ("RK4", {"step": 0.3})])
def test_sampled_inputs_end_the_steps_at_their_samples(method, kw):
    """A held force that jumps at t = 0.7 and 1.3 and an interpolated one with kinks: the integration stops at
    every sample time and starts afresh, so the piecewise polynomial motion is exact to round-off whatever the
    steps (a step across a jump saw the new value in its last stage: x off by 3e-7 with some BLAS kernels)."""
    eq = forced_mass().derive()  # m = 2
    ts = np.linspace(0.0, 2.0, 9)
    held = Sampled([0.0, 0.7, 1.3], [2.0, -4.0, 6.0], kind="previous")
    res = simulate(eq, 2.0, t_eval=ts, method=method, inputs={"F": held}, **kw)
    x, v, t_prev = np.zeros_like(ts), 0.0, 0.0
    pos = 0.0
    for k, t in enumerate(ts):  # exact: a = F / m constant on each sample interval
        for a_start, a_end, force in ((0.0, 0.7, 2.0), (0.7, 1.3, -4.0), (1.3, np.inf, 6.0)):
            lo, hi = max(t_prev, a_start), min(t, a_end)
            if hi > lo:
                acc = force / 2.0
                pos += v * (hi - lo) + acc * (hi - lo) ** 2 / 2
                v += acc * (hi - lo)
        x[k], t_prev = pos, t
    np.testing.assert_allclose(res["x"], x, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["F"], [held(t) for t in ts])
    # linear interpolation with kinks at 0.5 and 1.1: x is piecewise cubic
    ramp = Sampled([0.0, 0.5, 1.1, 2.0], [0.0, 3.0, -3.0, 0.0])
    res = simulate(eq, 2.0, t_eval=ts, method=method, inputs={"F": ramp}, **({"step": 0.05} if kw else {}))
    fine = np.linspace(0.0, 2.0, 200001)
    acc = np.array([ramp(t) for t in fine]) / 2.0
    vel = np.concatenate([[0.0], np.cumsum((acc[1:] + acc[:-1]) / 2 * np.diff(fine))])
    pos = np.concatenate([[0.0], np.cumsum((vel[1:] + vel[:-1]) / 2 * np.diff(fine))])
    np.testing.assert_allclose(res["x"], np.interp(ts, fine, pos), atol=1e-9)


def test_sampled_input_jump_with_events_is_exact():
    """The same held force on a block that slides on a floor with Coulomb friction (an event simulation):
    the jumps end the steps there too."""
    s = sb.System("pushed")
    x = s.coordinate("x")
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 2.0)
    F = s.input("F", 0.0)
    s.generalized_force("push", x, F)
    s.stick_slip("floor", x, normal=2.0 * 9.81, mu=0.1, mu_static=0.2)
    held = Sampled([0.0, 0.7], [10.0, 5.0], kind="previous")  # breaks away at once, slides on
    res = simulate(s.derive(), 1.5, t_eval=[0.7, 1.5], inputs={"F": held})
    fk = 0.1 * 2.0 * 9.81
    a1, a2 = (10.0 - fk) / 2.0, (5.0 - fk) / 2.0
    x1, v1 = a1 * 0.7**2 / 2, a1 * 0.7
    np.testing.assert_allclose(res["x"], [x1, x1 + v1 * 0.8 + a2 * 0.8**2 / 2], rtol=0, atol=1e-12)


def test_input_errors_are_clear():
    eq = forced_mass().derive()
    with pytest.raises(KeyError, match="unknown input.*'G'.*inputs are: F"):
        simulate(eq, 1.0, inputs={"G": 1.0})
    with pytest.raises(ValueError, match="expected 1 input values"):
        simulate(eq, 1.0, inputs=[1.0, 2.0])
    with pytest.raises(TypeError, match=r"\(t\) or \(t, q, dq\)"):
        simulate(eq, 1.0, inputs={"F": lambda a, b: 0.0})


# ---------------------------------------------------------------------------
# Gil Soto, 2005 example 1: slider-crank, multiplier = slider normal force
# ---------------------------------------------------------------------------


def slider_normal_force_newton_euler(q, dq, ddq, p):
    """Guide force on the slider (+y) from the moment balance of rod + slider about the crank pin b.

    External actions on {rod, slider} besides the pin force at b: gravity on both, the
    spring-damper O-c at c (horizontal: c stays on the x axis), the viscous hinge moment
    -c2 (da2 - da1) on the rod, and the guide force N (along y at c).
    """
    l1, l2, m2, I2, m3, k3, l03, c3, c2 = (p[k] for k in ("l1", "l2", "m2", "Izz2", "m3", "k3", "l03", "c3", "c2"))
    a1, a2 = q
    da1, da2 = dq
    dda1, dda2 = ddq
    u1, u2 = np.array([math.cos(a1), math.sin(a1)]), np.array([math.cos(a2), math.sin(a2)])
    n1, n2 = np.array([-math.sin(a1), math.cos(a1)]), np.array([-math.sin(a2), math.cos(a2)])
    b = l1 * u1
    vb = l1 * da1 * n1
    ab = l1 * (dda1 * n1 - da1**2 * u1)

    def cross(r, f):
        return r[0] * f[1] - r[1] * f[0]

    rel_e, rel_c = 0.5 * l2 * u2, l2 * u2
    a_e = ab + 0.5 * l2 * (dda2 * n2 - da2**2 * u2)
    a_c = ab + l2 * (dda2 * n2 - da2**2 * u2)
    c = b + rel_c
    vc = vb + l2 * da2 * n2
    d = np.linalg.norm(c)
    f_spring = (-k3 * (d - l03) - c3 * (c @ vc) / d) * c / d
    inertia = cross(rel_e, m2 * a_e) + I2 * dda2 + cross(rel_c, m3 * a_c)
    applied = cross(rel_e, [0, -m2 * G]) + cross(rel_c, [0, -m3 * G]) + cross(rel_c, f_spring) - c2 * (da2 - da1)
    return (inertia - applied) / rel_c[0]


def test_slider_crank_assembles_simulates_and_its_multiplier_is_the_normal_force():
    eq = example("slider_crank").derive()
    with pytest.warns(HeldCoordinateWarning, match="'a1'"):  # Cpini1 holds a1 at pi/3
        q0 = assemble(eq, [1.0, -0.5]).q
    assert q0[0] == pytest.approx(math.pi / 3, abs=1e-12)
    res = simulate(eq, 10.0, q0=q0, dq0=[0.0, 0.0], dt=0.05, rtol=1e-10, atol=1e-10)
    assert res.t[-1] == 10.0 and np.all(np.isfinite(res.q))
    assert res.position_violation.max() < 1e-8
    p = {x.name: x.value for x in eq.parameters}
    N = np.array([slider_normal_force_newton_euler(res.q[k], res.dq[k], res.ddq[k], p) for k in range(len(res))])
    assert np.ptp(N) > 10.0  # a varying force, not a trivial one
    np.testing.assert_allclose(res["F_guide"], N, rtol=1e-7, atol=1e-7 * np.abs(N).max())
    np.testing.assert_allclose(-res["Cp1"], N, rtol=1e-7, atol=1e-7 * np.abs(N).max())
    # the same motion with the independent-coordinates formulation
    res2 = simulate(eq, 10.0, q0=q0, dt=0.05, rtol=1e-10, atol=1e-10, formulation="independent")
    np.testing.assert_allclose(res2.q, res.q, atol=1e-6)
    np.testing.assert_allclose(res2["F_guide"], res["F_guide"], atol=1e-5 * np.abs(N).max())


# ---------------------------------------------------------------------------
# Gil Soto, 2005 example 3: crank-rod-disc rolling on a parabola (non-holonomic)
# ---------------------------------------------------------------------------


def rolling_checks(res, p):
    a1, a2, a3, xpg, ypg = res.q.T
    da1, da2, da3, dxpg, dypg = res.dq.T
    l1, l2 = p["l1"], p["l2"]
    # velocity of the disc's material point at Pg: v_c + w3 x (Pg - c) must vanish
    xc = l1 * np.cos(a1) + l2 * np.cos(a2)
    yc = l1 * np.sin(a1) + l2 * np.sin(a2)
    vxc = -l1 * np.sin(a1) * da1 - l2 * np.sin(a2) * da2
    vyc = l1 * np.cos(a1) * da1 + l2 * np.cos(a2) * da2
    vx = vxc - da3 * (ypg - yc)
    vy = vyc + da3 * (xpg - xc)
    # energy: T from the solver's M, V from the gravity definition
    V = G * (p["m1"] * l1 / 2 * np.sin(a1) + p["m2"] * (l1 * np.sin(a1) + l2 / 2 * np.sin(a2)) + p["m3"] * yc)
    return np.hypot(vx, vy), V


@pytest.mark.parametrize("rolling", ["tangential", "both"])
@pytest.mark.parametrize("formulation", ["baumgarte", "projection", "independent"])
def test_crank_rod_disc_rolls_with_constraints_satisfied(rolling, formulation):
    eq = example("crank_rod_disc", rolling=rolling).derive()
    assert eq.dof == 1
    res = simulate(eq, 3.0, dt=0.05, formulation=formulation, rtol=1e-10, atol=1e-10)
    p = {x.name: x.value for x in eq.parameters}
    slip, V = rolling_checks(res, p)
    assert np.ptp(res["a3"]) > 0.5  # the disc does roll
    tol = 1e-10 if formulation != "baumgarte" else 1e-7
    assert res.position_violation.max() <= tol
    assert res.velocity_violation.max() <= tol * 10
    assert slip.max() <= tol * 10
    T = res.energy.kinetic
    E = T + V
    assert np.max(np.abs(E - E[0])) / np.max(np.abs(V - V[0])) < 1e-6
    np.testing.assert_allclose(res.energy.potential, V - V[0], atol=1e-8 * np.abs(V).max())


# ---------------------------------------------------------------------------
# failure modes
# ---------------------------------------------------------------------------


def test_inconsistent_initial_state_is_refused_with_advice():
    eq = cartesian_pendulum().derive()
    with pytest.raises(sb.NumericalError, match="violate constraint 'rod'.*assemble"):
        simulate(eq, 1.0, q0=[1.1, 0.0])
    with pytest.raises(sb.NumericalError, match="initial velocities violate constraint 'rod'"):
        simulate(eq, 1.0, dq0=[1.0, 0.0])


def test_bad_options_are_refused():
    eq = cartesian_pendulum().derive()
    with pytest.raises(ValueError, match="unknown formulation"):
        simulate(eq, 1.0, formulation="penalty")
    with pytest.raises(ValueError, match="unknown integration method"):
        simulate(eq, 1.0, method="Euler")
    with pytest.raises(ValueError, match="RK4.*step"):
        simulate(eq, 1.0, method="RK4")


def test_singular_mass_matrix_is_reported():
    # a point at (y^2, 0, 0): the mass matrix 4 m y^2 vanishes at y = 0
    s = sb.System("vanishing_inertia")
    y = s.coordinate("y", 1.0)
    s.particle("m", s.point("P", s.origin, (y**2, 0, 0)), 1.0)
    s.generalized_force("pull", y, -10.0)
    eq = s.derive()
    with pytest.raises(sb.NumericalError, match="singular mass matrix"):
        NumericModel(eq).accelerations([0.0], [0.0])
    with pytest.raises(sb.NumericalError, match="DOP853 failed at t = 0.5"):
        simulate(eq, 2.0, rtol=1e-10)


def test_integrator_failure_is_a_numerical_error():
    s = sb.System("blow_up")
    x = s.coordinate("x", 1.0)
    s.particle("m", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("explode", x, x**3)
    with pytest.raises(sb.NumericalError, match="failed at t ="):
        simulate(s.derive(), 10.0, dq0=[10.0])


def chaplygin_sleigh():
    """A body on a plane with a knife edge at its origin (velocity constraint only), mass centre offset by a."""
    s = sb.System("sleigh")
    x, y, th = s.coordinate("x"), s.coordinate("y"), s.coordinate("theta", 0.0, 1.0)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.solid("body", s.point("P", s.origin, (x, y, 0)), B, mass=2.0, com=(0.5, 0, 0), inertia=(0, 0, 0.3))
    s.velocity_constraint("knife", -sb.sin(th) * s.dt(x) + sb.cos(th) * s.dt(y))
    return s


@pytest.mark.parametrize("formulation", ["baumgarte", "projection", "independent"])
def test_purely_nonholonomic_sleigh(formulation):
    eq = chaplygin_sleigh().derive()
    assert eq.nh == 0 and eq.nc == 1 and eq.dof == 2
    res = simulate(eq, 5.0, dt=0.1, dq0=[0.5, 0.0, 1.0], formulation=formulation, rtol=1e-11, atol=1e-12)
    th, dx, dy = res["theta"], res["dx"], res["dy"]
    assert np.max(np.abs(-np.sin(th) * dx + np.cos(th) * dy)) < 1e-9  # no sideways slip
    assert res.energy.relative_drift < 1e-8  # the knife edge does no work
    # the three formulations agree
    ref = simulate(eq, 5.0, dt=0.1, dq0=[0.5, 0.0, 1.0], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(res.q, ref.q, atol=1e-7)
