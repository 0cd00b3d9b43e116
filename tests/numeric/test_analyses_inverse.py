"""Inverse dynamics and joint reactions (symbody.numeric.inverse).

Checks: inverse dynamics fed back into forward dynamics reproduces the
prescribed motion (open chain with several actuators, closed loop through a
kinematic simulation); a prescribed (rheonomic) motion's multiplier is the
hand-computed driving torque; revolute-joint reactions equal Newton's law for
the bar; failures are reported.
"""

import math

import numpy as np
import pytest

import symbody as sb
from symbody.numeric import inverse_dynamics, joint_reactions, kinematic_simulation, simulate

from support import example

G = 9.81


def cart_motion(t):
    """A smooth motion of the 2-link pendulum on a cart hanging down: q, dq, ddq."""
    t = np.asarray(t, dtype=float)
    q = np.stack([0.3 * np.sin(t), -np.pi / 2 + 0.4 * np.sin(2 * t), -np.pi / 2 + 0.3 * np.cos(t) - 0.3], -1)
    dq = np.stack([0.3 * np.cos(t), 0.8 * np.cos(2 * t), -0.3 * np.sin(t)], -1)
    ddq = np.stack([-0.3 * np.sin(t), -1.6 * np.sin(2 * t), -0.3 * np.cos(t)], -1)
    return q, dq, ddq


@pytest.fixture(scope="module")
def cart_eq():
    return example("n_link_pendulum_on_cart", n=2).derive()


@pytest.mark.slow  # long: with --slow (CI)
def test_inverse_dynamics_fed_back_reproduces_the_motion(cart_eq):
    eq = cart_eq

    def efforts(t):
        q, dq, ddq = cart_motion([t])
        return inverse_dynamics(eq, [t], q, dq, ddq).u[0]

    ts = np.linspace(0.0, 3.0, 31)
    q, dq, ddq = cart_motion(ts)
    inv = inverse_dynamics(eq, ts, q, dq, ddq)
    assert inv.actuators == ["F", "T1", "T2"]
    assert inv.residual.max() < 1e-10
    assert np.ptp(inv["T1"]) > 1.0  # the actuators do work
    res = simulate(eq, 3.0, t_eval=ts, q0=q[0], dq0=dq[0], inputs=efforts, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(res.q, q, atol=1e-8)
    np.testing.assert_allclose(res.dq, dq, atol=1e-8)
    np.testing.assert_allclose(res.u, inv.u, atol=1e-7)
    # the same efforts as sampled signals (linear interpolation every 2 ms)
    fine = np.linspace(0.0, 3.0, 1501)
    qf, dqf, ddqf = cart_motion(fine)
    invf = inverse_dynamics(eq, fine, qf, dqf, ddqf)
    res = simulate(eq, 3.0, t_eval=ts, q0=q[0], dq0=dq[0], inputs=invf.input_signals(), max_step=2e-3)
    np.testing.assert_allclose(res.q, q, atol=2e-5)


def test_inverse_dynamics_of_a_closed_loop_from_a_kinematic_simulation():
    # the four-bar near theta1 = -pi/2 is unstable (eigenvalues about +-5.6 1/s): open-loop efforts must be exact
    eq = example("four_bar", spring=True).derive()
    th0 = eq.q0[0]
    law = {"theta1": th0 + 0.4 * sb.sin(1.5 * eq.t)}
    ts = np.linspace(0.0, 1.0, 201)
    motion = kinematic_simulation(eq, ts, law)
    inv = inverse_dynamics(eq, motion, actuators=["Fz2"])
    assert np.all(inv["Fx2"] == 0.0) and np.all(inv["My2"] == 0.0)  # the other inputs keep their defaults
    assert inv["Fz2"].min() > 30.0

    def efforts(t):
        guess = np.array([np.interp(t, ts, motion.q[:, i]) for i in range(3)])
        m = kinematic_simulation(eq, [t], law, q=guess)
        return inverse_dynamics(eq, m, actuators=["Fz2"]).u[0]

    res = simulate(eq, 1.0, t_eval=ts[::20], q0=motion.q[0], dq0=motion.dq[0], inputs=efforts, rtol=1e-10)
    np.testing.assert_allclose(res.q, motion.q[::20], atol=1e-7)
    np.testing.assert_allclose(res.lam, inv.lam[::20], rtol=1e-6, atol=1e-6 * np.abs(inv.lam).max())
    # a force along bar 3 through the loop point cannot move the linkage
    with pytest.raises(sb.NumericalError, match="Fx3 cannot be told apart"):
        inverse_dynamics(eq, motion, actuators=["Fx3"])


def test_prescribed_motion_multiplier_is_the_driving_torque():
    s = sb.System("driven_pendulum")
    m, l = s.parameter("m", 2.0), s.parameter("l", 1.5)
    w = s.parameter("w", 2.0, unit="1/s")
    th = s.coordinate("theta", 0.0, 1.0)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, sb.Vector(B, 0, -l, 0)), m)
    s.gravity((0, -G, 0))
    s.prescribe("motor", th, 0.5 * sb.sin(w * s.t))
    eq = s.derive()
    ts = np.linspace(0, 2, 21)
    motion = kinematic_simulation(eq, ts)
    inv = inverse_dynamics(eq, motion)
    theta, ddtheta = 0.5 * np.sin(2 * ts), -2.0 * np.sin(2 * ts)
    tau = 2.0 * 1.5**2 * ddtheta + 2.0 * G * 1.5 * np.sin(theta)  # m l^2 th'' + m g l sin(th)
    np.testing.assert_allclose(-inv["motor"], tau, atol=1e-10)
    # forward dynamics of the same model gives the same multiplier
    res = simulate(eq, 2.0, t_eval=ts, q0=[0.0], dq0=[1.0], rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(-res["motor"], tau, atol=1e-6)


def hinged_bar():
    """A bar in (x, y, theta) of its centre, hinged at its end to the origin by a revolute joint."""
    s = sb.System("hinged_bar")
    m, L, I = s.parameter("m", 3.0), s.parameter("L", 2.0), s.parameter("I", 1.0)
    x, y, th = s.coordinate("x", 1.0), s.coordinate("y", 0.0), s.coordinate("theta", 0.0)
    B = s.base("B", s.ground_base, sb.Rz(th))
    G_ = s.point("G", s.origin, (x, y, 0))
    end = s.point("E", G_, sb.Vector(B, -L / 2, 0, 0))
    s.solid("bar", G_, B, mass=m, inertia=(0, 0, I))
    s.gravity((0, -G, 0))
    s.revolute_joint("hinge", s.origin, s.ground_base, end, B, axis="z")
    return s


def test_revolute_joint_reactions_are_newtons_law():
    eq = hinged_bar().derive()
    assert [j.name for j in eq.joints] == ["hinge"]
    res = simulate(eq, 1.5, dt=0.05, formulation="projection", rtol=1e-10, atol=1e-12)
    r = joint_reactions(eq, res.lam)["hinge"]
    assert set(r.components) == {"Fx", "Fy"}  # planar: the z force and the tilting moments vanish identically
    assert r.bases["Fx"] == "xyz"
    Fx = 3.0 * res["ddx"]
    Fy = 3.0 * res["ddy"] + 3.0 * G
    np.testing.assert_allclose(r["Fx"], Fx, atol=1e-7)
    np.testing.assert_allclose(r["Fy"], Fy, atol=1e-7)
    assert np.ptp(r["Fy"]) > 10.0
    # inverse dynamics on the simulated motion: same multipliers and reactions
    inv = inverse_dynamics(eq, res)
    np.testing.assert_allclose(inv.reactions["hinge"]["Fy"], Fy, atol=1e-6)
    with pytest.raises(KeyError, match="no reaction component 'Mz'"):
        r["Mz"]


def test_too_few_actuators_are_reported(cart_eq):
    q, dq, ddq = cart_motion([0.5])
    with pytest.raises(sb.NumericalError, match="actuators F cannot produce the prescribed motion"):
        inverse_dynamics(cart_eq, [0.5], q, dq, ddq, actuators=["F"])


def test_actuator_along_a_constrained_direction_is_reported():
    s = sb.System("blocked")
    x, y = s.coordinate("x"), s.coordinate("y")
    s.particle("m", s.point("P", s.origin, (x, y, 0)), 1.0)
    F = s.input("F")
    s.generalized_force("push", x, F)
    s.constraint("rail", x)
    eq = s.derive()
    with pytest.raises(sb.NumericalError, match="cannot be told apart from the constraint reactions"):
        inverse_dynamics(eq, [0.0], [[0.0, 0.0]], [[0.0, 1.0]], [[0.0, 0.0]])


def two_drives(gain_x: float, gain_y: float, same_coordinate: bool = False):
    """Two particles on rails, each driven by an input of its own gain (both on x with ``same_coordinate``)."""
    s = sb.System("two_drives")
    x, y = s.coordinate("x"), s.coordinate("y")
    s.particle("m1", s.point("P", s.origin, (x, 0, 0)), 2.0)
    s.particle("m2", s.point("Q", s.origin, (0, y, 0)), 3.0)
    s.generalized_force("valve", x, gain_x * s.input("u1"))
    s.generalized_force("motor", x if same_coordinate else y, gain_y * s.input("u2"))
    return s.derive()


@pytest.mark.parametrize("gain", [1.6e11, 1.0, 1e-11])
def test_actuators_of_very_different_gains_are_told_apart(gain):
    # the rank test sees each effort in a unit of its own: a gain of 1.6e11 (Pa per unit of valve
    # opening) next to one of 1 is no dependence; Newton's law m a = gain u gives the efforts
    eq = two_drives(gain, 1.0)
    inv = inverse_dynamics(eq, [0.0, 1.0], [[0.0, 0.0]] * 2, [[0.0, 0.0]] * 2, [[1.0, -2.0], [0.5, 4.0]])
    np.testing.assert_allclose(inv["u1"], np.array([2.0, 1.0]) / gain, rtol=1e-12)
    np.testing.assert_allclose(inv["u2"], [-6.0, 12.0], rtol=1e-12)


def test_actuators_of_very_different_gains_acting_alike_are_reported():
    eq = two_drives(1.6e11, 1.0, same_coordinate=True)
    with pytest.raises(sb.NumericalError, match="cannot be told apart"):
        inverse_dynamics(eq, [0.0], [[0.0, 0.0]], [[0.0, 0.0]], [[1.0, 0.0]])


def test_motion_violating_the_constraints_is_reported():
    eq = example("four_bar").derive()
    with pytest.raises(sb.NumericalError, match="violates the velocity constraint 'loop_"):
        inverse_dynamics(eq, [0.0], [eq.q0], [[1.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]], actuators=["My2"])


def test_inverse_dynamics_input_validation(cart_eq):
    q, dq, ddq = cart_motion([0.5])
    with pytest.raises(KeyError, match="'Q' is not an input"):
        inverse_dynamics(cart_eq, [0.5], q, dq, ddq, actuators=["Q"])
    with pytest.raises(ValueError, match="shape"):
        inverse_dynamics(cart_eq, [0.5, 0.6], q, dq, ddq)


def test_reactions_use_the_sign_recorded_by_the_joint():
    eq = hinged_bar().derive()
    lam = np.arange(eq.nc, dtype=float) + 1.0
    r = joint_reactions(eq, lam)["hinge"]
    rows = [c.name for c in eq.constraint_rows]
    assert r["Fx"] == -lam[rows.index("hinge_x")]
    assert math.isclose(r["Fy"], -lam[rows.index("hinge_y")])


def test_distance_joint_tension_is_the_force_along_the_bar():
    # the tension factor 2 L is a parameter expression, evaluated with the model's parameters
    # Problemas dinámicos in natural coordinates, hanging at rest: point 2 carries half the disc's weight,
    # so the lower bar (L = 2 r = 2) holds it with tension m g / 2
    from symbody.numeric import static_equilibrium

    eq = example("double_pendulum_square_disc", coordinates="natural").derive()
    res = static_equilibrium(eq, [0.8, -1.7, 1.0, -3.5])
    assert res.reactions["bar12"]["tension"] == pytest.approx(G / 2, rel=1e-10)
