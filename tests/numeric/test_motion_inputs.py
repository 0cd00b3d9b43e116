"""Motion inputs: the model, the derivation and the Python analyses against closed forms.

A pendulum on an accelerating pivot (relative equilibrium ``atan(a/g)``, small oscillations at
``sqrt(sqrt(g^2 + a^2) / l)``), Kapitza's pendulum (the inverted position is stable when
``a^2 w^2 > 2 g l``), a coordinate prescribed by a motion input (its driving effort is that of inverse
dynamics and of the closed form), signals with their derivatives (callables, cubic and Hermite samples),
and the refusals that name what is wrong.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symbody as sb
from symbody.numeric import (
    Sampled,
    assemble,
    inverse_dynamics,
    kinematic_simulation,
    linearize,
    simulate,
    solve_velocities,
    static_equilibrium,
)
from symbody.numeric.inputs import input_function

from support.motion_models import G, L, M, driven_pendulum, driven_torque, pivot_pendulum, torque_pendulum

A_PIVOT = 3.0  # horizontal pivot acceleration (m/s2)


def accelerating(a: float):
    """The motion of a pivot that accelerates uniformly from rest: ``(a t^2 / 2, a t, a)``."""
    return lambda t: (0.5 * a * t * t, a * t, a)


def test_motion_input_is_three_inputs_and_a_symbol_with_rates():
    s = sb.System("m")
    z = s.motion_input("heave", unit="m", description="ship heave")
    assert [u.name for u in s.inputs.values()] == ["heave", "dheave", "ddheave"]
    assert [u.unit for u in s.inputs.values()] == ["m", "m/s", "m/s2"]
    assert s.dt(z) is s.symbol("dheave") and s.dt(s.dt(z)) is s.symbol("ddheave")
    with pytest.raises(sb.ModelError, match="acceleration 'ddheave'"):
        s.dt(s.symbol("ddheave"))
    with pytest.raises(sb.ModelError, match="duplicate name 'dheave'"):
        s.motion_input("dheave")
    with pytest.raises(sb.ModelError, match="duplicate name 'heave'"):
        s.input("heave")


def test_the_pendulum_on_a_moving_pivot_has_the_pivots_acceleration_in_its_equation():
    eq = pivot_pendulum().derive()
    th, (xp, dxp, ddxp, yp, dyp, ddyp) = eq.q[0], eq.u_symbols
    # m l^2 th'' = -m l (ddxp cos th + (g + ddyp) sin th)
    expected = -M * L * ((ddxp * sb.cos(th)) + (G + ddyp) * sb.sin(th))
    vals = {eq.t: 0.0, th: 0.4, eq.dq[0]: 0.7, xp: 0.3, dxp: -2.0, ddxp: 1.5, yp: 0.1, dyp: 0.2, ddyp: -0.8}
    vals.update({p.symbol: p.value for p in eq.parameters})
    from symbody.symbolic.evaluate import evaluate

    assert evaluate(eq.delta[0], vals) == pytest.approx(evaluate(expected, vals), rel=1e-14)


def test_a_rotation_and_a_point_accept_motion_inputs_but_not_plain_inputs():
    s = sb.System("ship")
    roll = s.motion_input("roll", unit="rad")
    F = s.input("F")
    deck = s.base("deck", s.ground_base, sb.Rx(roll))
    assert deck.rotation.angle is roll
    with pytest.raises(sb.ModelError, match=r"input 'F'.*motion input: System.motion_input"):
        s.base("bad", s.ground_base, sb.Rx(F))
    with pytest.raises(sb.ModelError, match="motion velocity .droll.; it may depend only on"):
        s.point("P", s.origin, (s.dt(roll), 0, 0))


def test_relative_equilibrium_and_frequency_on_a_uniformly_accelerating_pivot():
    eq = pivot_pendulum(-0.1).derive()
    u = {"xp": 0.0, "dxp": 0.0, "ddxp": A_PIVOT}
    res = static_equilibrium(eq, [-0.1], u=u)
    assert res["theta"] == pytest.approx(-math.atan(A_PIVOT / G), abs=1e-12)
    lin = linearize(eq, res.q, u=u)
    w = math.sqrt(math.hypot(G, A_PIVOT) / L)
    assert np.sort(lin.poles().imag) == pytest.approx([-w, w], rel=1e-12)
    assert lin.inputs == ["xp", "dxp", "ddxp", "yp", "dyp", "ddyp"]
    # the pivot's acceleration is an input of the linear model: d th'' / d ddxp = -cos(th) / l
    assert lin.B[1, 2] == pytest.approx(-math.cos(res["theta"]) / L, rel=1e-12)


def test_simulation_on_a_uniformly_accelerating_pivot_oscillates_about_the_tilted_equilibrium():
    theta_e = -math.atan(A_PIVOT / G)
    w = math.sqrt(math.hypot(G, A_PIVOT) / L)
    eq = pivot_pendulum(theta_e + 0.01).derive()
    T = 2 * math.pi / w
    res = simulate(eq, T, dt=T / 4, inputs={"xp": accelerating(A_PIVOT)}, rtol=1e-11, atol=1e-13)
    # small oscillations: theta - theta_e = 0.01 cos(w t) up to terms of the order of the amplitude squared
    assert res["theta"] - theta_e == pytest.approx(0.01 * np.cos(w * res.t), abs=2e-5)
    assert res["ddxp"] == pytest.approx(A_PIVOT) and res["xp"][-1] == pytest.approx(0.5 * A_PIVOT * T * T)
    assert res["bob_x"] == pytest.approx(res["xp"] + L * np.sin(res["theta"]), abs=1e-12)


@pytest.mark.parametrize("factor, stable", [(1.5, True), (1 / 1.5, False)])
def test_kapitza_pendulum_is_stable_upside_down_above_the_boundary(factor, stable):
    a = 0.05 * L  # a / l = 0.05: the leading-order boundary a^2 w^2 = 2 g l holds
    w = factor * math.sqrt(2 * G * L) / a

    def vibration(t):
        return 0.0, 0.0, 0.0

    eq = pivot_pendulum(math.pi - 0.1).derive()
    inputs = {
        "xp": vibration,
        "yp": lambda t: (a * math.cos(w * t), -a * w * math.sin(w * t), -a * w * w * math.cos(w * t)),
    }
    # the slow motion about the top: theta'' = -(g/l) (a^2 w^2 / (2 g l) - 1) (theta - pi); 3 s span it
    res = simulate(eq, 3.0, dt=0.01, inputs=inputs, rtol=1e-9, atol=1e-11)
    excursion = float(np.max(np.abs(res["theta"] - math.pi)))
    if stable:
        assert excursion < 0.2
    else:
        assert excursion > 1.0


def test_the_driving_effort_of_a_prescribed_motion_equals_inverse_dynamics_and_the_closed_form():
    w, amp = 2.0, 0.6

    def law(t):
        return amp * math.sin(w * t), amp * w * math.cos(w * t), -amp * w * w * math.sin(w * t)

    eq = driven_pendulum().derive()
    res = simulate(eq, 2.0, dt=0.1, inputs={"z": law}, dq0=[amp * w], rtol=1e-10, atol=1e-12, formulation="projection")
    z, ddz = res["z"], res["ddz"]
    assert res["theta"] == pytest.approx(z, abs=1e-9)
    assert res["torque"] == pytest.approx(driven_torque(z, ddz), rel=1e-7, abs=1e-7)
    inv = inverse_dynamics(torque_pendulum().derive(), res.t, res.q, res.dq, res.ddq)
    assert inv["T"] == pytest.approx(res["torque"], rel=1e-7, abs=1e-7)
    own = inverse_dynamics(eq, res)  # the prescribed model itself: no actuator, the multiplier is the effort
    assert own.actuators == [] and -own["drive"] == pytest.approx(res["torque"], rel=1e-9, abs=1e-9)


def test_every_formulation_follows_a_prescribed_motion_input():
    law = Sampled(np.linspace(0.0, 1.0, 21), 0.5 * np.sin(np.linspace(0.0, 1.0, 21)), kind="cubic")
    eq = driven_pendulum().derive()
    for formulation in ("baumgarte", "projection", "independent"):
        res = simulate(
            eq, 1.0, dt=0.25, inputs={"z": law}, dq0=[law.derivative(0.0)], formulation=formulation, rtol=1e-10,
            atol=1e-12,
        )  # fmt: skip
        assert res["theta"] == pytest.approx([law(t) for t in res.t], abs=1e-7), formulation
        assert res["dtheta"] == pytest.approx([law.derivative(t) for t in res.t], abs=1e-7), formulation


def test_kinematics_assembly_and_velocities_follow_the_motion_inputs():
    eq = driven_pendulum().derive()
    a = assemble(eq, [0.0], u={"z": 0.7})
    assert a["theta"] == pytest.approx(0.7, abs=1e-12)
    v = solve_velocities(eq, a.q, u={"z": 0.7, "dz": -1.5})
    assert v["theta"] == pytest.approx(-1.5, abs=1e-12)
    ks = kinematic_simulation(eq, [0.0, 0.5, 1.0], inputs={"z": lambda t: (t * t, 2 * t, 2.0)})
    assert ks["theta"] == pytest.approx([0.0, 0.25, 1.0]) and ks["ddtheta"] == pytest.approx([2.0] * 3)


def test_cubic_and_hermite_samples_drive_a_motion_input_with_consistent_rates():
    t = np.linspace(0.0, 2.0, 41)
    cubic = Sampled(t, np.sin(3 * t), kind="cubic")
    hermite = Sampled(t, np.sin(3 * t), derivatives=(3 * np.cos(3 * t), -9 * np.sin(3 * t)))
    eq = pivot_pendulum().derive()
    for signal, tol in ((cubic, 0.05), (hermite, 1e-3)):
        u = input_function(eq, {"yp": signal})
        z, dz, ddz = u(0.77, np.zeros(1), np.zeros(1))[3:]
        assert (z, dz, ddz) == pytest.approx((math.sin(2.31), 3 * math.cos(2.31), -9 * math.sin(2.31)), abs=tol)
        assert u.breakpoints.tolist() == t.tolist()  # the steps end at the samples
    assert hermite(0.05) == pytest.approx(math.sin(0.15), abs=1e-6)


def test_signals_without_usable_rates_are_refused_with_the_reason():
    eq = pivot_pendulum().derive()
    with pytest.raises(ValueError, match="no usable acceleration ddxp: use kind='cubic'"):
        input_function(eq, {"xp": Sampled([0.0, 1.0], [0.0, 1.0])})
    with pytest.raises(ValueError, match=r"must return \(z, dz, ddz\)"):
        input_function(eq, {"xp": math.sin})(0.0, np.zeros(1), np.zeros(1))
    with pytest.raises(KeyError, match="'dxp' is the velocity of motion input 'xp'"):
        input_function(eq, {"dxp": 1.0})
    with pytest.raises(TypeError, match="a motion input is a signal of time"):
        input_function(eq, {"xp": lambda t, q, dq: (0.0, 0.0, 0.0)})
    held = input_function(eq, {"xp": 0.25})(3.0, np.zeros(1), np.zeros(1))
    assert held[:3].tolist() == [0.25, 0.0, 0.0]


def test_an_unused_motion_input_is_named():
    s = sb.System("idle")
    s.motion_input("heave")
    x = s.coordinate("x")
    s.particle("m", s.point("P", s.origin, (x, 0, 0)), 1.0)
    with pytest.raises(sb.ModelError, match="motion input 'heave' is never used"):
        s.derive()


def test_recursive_and_articulated_formulations_agree_with_virtual_power_on_a_moving_base():
    from support.motion_models import ship_crane_arm

    values = {}
    for formulation in ("virtual_power", "recursive", "articulated"):
        eq = ship_crane_arm().derive(formulation=formulation)
        assert eq.formulation == formulation
        u = np.array([0.2, -0.3, 0.5, 0.05, 0.1, -0.4, -0.03, 0.2, 0.6])
        values[formulation] = sb.numeric.NumericModel(eq).accelerations([0.3, 0.2, -0.4], [0.5, -0.2, 0.1], t=0.3, u=u)[
            0
        ]
    assert values["recursive"] == pytest.approx(values["virtual_power"], rel=1e-12, abs=1e-12)
    assert values["articulated"] == pytest.approx(values["virtual_power"], rel=1e-12, abs=1e-12)


def test_a_floor_moved_by_a_motion_input_through_a_contact_gap_only():
    """A ball above a floor whose height is the motion input ``zf``, which enters the model through the contact's
    gap ``y - zf`` alone (it was refused: "motion input 'zf' is never used").  On a floor accelerating upwards
    at a = 2 m/s^2 the ball falls relative to it as the flat bouncing ball with g + a: impact times, and at rest
    moving with the floor pressed by m (g + a)."""
    from support.contact_models import ball_impacts, ball_rest
    from support.floor_sweep import MASS, Floor, floor_ball

    floor = Floor(a=2.0)
    g = 9.81 + floor.a
    res = simulate(floor_ball(0.5).derive(), 3.0, t_eval=[2.5, 3.0], inputs={"zf": floor.at}, rtol=1e-10, atol=1e-12)
    impacts = [ev.time for ev in res.events if ev.kind == "impact"]
    assert impacts[:4] == pytest.approx(ball_impacts(1.0, 0.5, 4, g), abs=1e-7)
    assert ball_rest(1.0, 0.5, g) < 2.5  # (1.23 s)
    z = np.array([floor.at(t) for t in res.t])
    assert np.allclose(res["y"], z[:, 0], atol=1e-8) and np.allclose(res["dy"], z[:, 1], atol=1e-8)
    assert np.allclose(res["N"], MASS * g, rtol=1e-8)
