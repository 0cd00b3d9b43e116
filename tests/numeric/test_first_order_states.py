"""First-order states: declaration, derivation and every Python analysis against closed forms.

A first-order lag, a DC motor (the current a state, back EMF, torque on a joint), states whose rates use
multipliers and contact forces, every formulation, static equilibrium (rates zero) and the linearization
(states appended to ``A, B, C, D``) against finite differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symbody as sb
from symbody.numeric import NumericModel, Sampled, inverse_dynamics, linearize, simulate, static_equilibrium

from support.motion_models import IND, KT, TAU, B, J, R, dc_motor, dc_motor_response, lag, tied_carts


def test_a_state_has_a_rate_and_its_derivative_is_the_rate():
    s = sb.System("st")
    u = s.input("u")
    x = s.state("x", 2.0, unit="V", description="filtered u")
    with pytest.raises(sb.ModelError, match="needs the rate of state 'x'"):
        s.dt(x)
    s.rate(x, u - x)
    assert s.dt(x * x) == 2 * x * (u - x)
    with pytest.raises(sb.ModelError, match="already has a rate"):
        s.rate(x, u)
    with pytest.raises(sb.ModelError, match="'y' is not a state"):
        s.rate("y", u)
    with pytest.raises(sb.ModelError, match="acceleration 'ddc'"):
        c = s.coordinate("c")
        s.state("z", rate=s.dt(s.dt(c)))
    assert "z" not in s.states and "z" not in s.registry  # the failed call left nothing behind
    with pytest.raises(sb.ModelError, match="a first-order state moves nothing by itself"):
        s.point("P", s.origin, (x, 0, 0))


def test_a_state_without_rate_and_a_rate_in_the_wrong_unit_are_named():
    s = lag()
    s.state("forgotten", 0.0)
    with pytest.raises(sb.ModelError, match=r"state 'forgotten' has no rate: give it with System.rate\(forgotten"):
        s.derive()
    s = sb.System("units")
    x = s.state("x", 0.0, unit="V")
    s.rate(x, s.input("u", unit="V"))  # V, not V/s
    p = s.coordinate("p", unit="m")
    s.particle("cart", s.point("P", s.origin, (p, 0, 0)), s.parameter("m", 1.0, unit="kg"))
    with pytest.raises(sb.ModelError, match=r"the rate of state 'x' is declared in 'V/s'"):
        s.derive()


def test_first_order_lag_follows_its_closed_form():
    eq = lag().derive()
    assert eq.nx == 1 and eq.index("x") == ("x", 0) and eq.index("der(x)") == ("dx", 0)
    res = simulate(eq, 2.0, dt=0.1, inputs={"u": 3.0}, rtol=1e-11, atol=1e-13)
    exact = 3.0 * (1.0 - np.exp(-res.t / TAU))
    assert res["x"] == pytest.approx(exact, abs=1e-9)
    assert res["der(x)"] == pytest.approx(3.0 / TAU * np.exp(-res.t / TAU), abs=1e-8)
    assert res["y"] == pytest.approx(2 * exact, abs=1e-9)
    # a ramp through samples: x = k (t - T (1 - exp(-t / T)))
    ramp = simulate(eq, 1.0, dt=0.5, inputs={"u": Sampled([0.0, 5.0], [0.0, 5.0])}, x0=[0.0], rtol=1e-11)
    assert ramp["x"] == pytest.approx(ramp.t - TAU * (1 - np.exp(-ramp.t / TAU)), abs=1e-8)


@pytest.mark.parametrize("method", ["DOP853", "Radau", "RK4"])
def test_dc_motor_current_and_speed_follow_the_matrix_exponential(method):
    eq = dc_motor().derive()
    opts = {"step": 1e-3} if method == "RK4" else {"rtol": 1e-10, "atol": 1e-12}
    res = simulate(eq, 1.0, dt=0.05, inputs={"V": 12.0}, method=method, **opts)
    i, w = dc_motor_response(res.t, 12.0)
    assert res["i"] == pytest.approx(i, abs=1e-7) and res["speed"] == pytest.approx(w, abs=1e-6)
    assert res["current"] == pytest.approx(res["i"], abs=0)
    # held at rest (the rate of the current zero): i = V / R, and the hold takes the motor torque k i
    held = static_equilibrium(eq, u={"V": 12.0}, fixed=["phi"])
    assert held["i"] == pytest.approx(12.0 / R, rel=1e-12)
    assert held.holding["phi"] == pytest.approx(-KT * 12.0 / R, rel=1e-12)
    lin = linearize(eq, u={"V": 12.0}, x=[12.0 / R], outputs=["speed", "i", "der(i)"])
    assert lin.states == ["phi", "dphi", "i"]
    A = np.array([[0, 1, 0], [0, -B / J, KT / J], [0, -KT / IND, -R / IND]])
    assert lin.A == pytest.approx(A, rel=1e-12, abs=1e-12)
    assert lin.B[:, 0] == pytest.approx([0, 0, 1 / IND], rel=1e-12)
    assert lin.C == pytest.approx(np.vstack([[0, 1, 0], [0, 0, 1], A[2]]), rel=1e-12, abs=1e-12)
    assert lin.D[:, 0] == pytest.approx([0, 0, 1 / IND], rel=1e-12)


def test_linearization_with_states_matches_finite_differences_of_the_reduced_dynamics():
    eq = tied_carts().derive()
    nm = NumericModel(eq)
    u0 = np.array([0.3, 0.2, 0.1, 0.4])
    z, dz = u0[0], u0[1]

    def full(y, u):  # reduced state (x1, th, dx1, dth, tension, i) -> the full one
        q = np.array([y[0], y[0] + 1 + u[0] ** 2, y[1]])
        dq = np.array([y[2], y[2] + 2 * u[0] * u[1], y[3]])
        return q, dq, y[4:]

    def f(y, u):
        q, dq, x = full(y, u)
        ddq, lam = nm.accelerations(q, dq, t=0.0, u=u, x=x)
        return np.concatenate([dq[[0, 2]], ddq[[0, 2]], nm.rates(q, dq, t=0.0, u=u, lam=lam, x=x)])

    y0 = np.array([0.1, 0.2, 0.3, -0.1, 0.3, -0.2])
    q, dq, x = full(y0, u0)
    lin = linearize(eq, q, dq, u=u0, x=x, independent=["x1", "th"], outputs=["tension", "der(i)", "ddx2"])
    assert lin.states == ["x1", "th", "dx1", "dth", "tension", "i"]
    h = 1e-6
    A_fd = np.array([(f(y0 + h * e, u0) - f(y0 - h * e, u0)) / (2 * h) for e in np.eye(6)]).T
    B_fd = np.array([(f(y0, u0 + h * e) - f(y0, u0 - h * e)) / (2 * h) for e in np.eye(4)]).T
    assert lin.A == pytest.approx(A_fd, abs=1e-7)
    assert lin.B == pytest.approx(B_fd, abs=1e-7)
    assert lin.C[0] == pytest.approx(np.eye(6)[4]) and lin.C[1] == pytest.approx(A_fd[5], abs=1e-7)
    assert (z, dz) == (0.3, 0.2)
    # the mechanical second-order form is that of the coordinates alone
    assert lin.second_order.coordinates == ["x1", "th"] and lin.second_order.M.shape == (2, 2)


@pytest.mark.parametrize("formulation", ["baumgarte", "projection", "independent"])
def test_every_formulation_integrates_states_whose_rates_use_multipliers(formulation):
    eq = tied_carts().derive()
    inputs = {"z": lambda t: (0.3 * t, 0.3, 0.0), "v": 1.0}  # a rope paid out at a constant rate
    q0, dq0 = [0.1, 1.1, 0.2], [0.0, 0.0, 0.0]  # z = 0 at the start: x2 = x1 + 1, dx2 = dx1
    res = simulate(eq, 1.0, dt=0.25, q0=q0, dq0=dq0, inputs=inputs, formulation=formulation, rtol=1e-10, atol=1e-12)
    ref = simulate(eq, 1.0, dt=0.25, q0=q0, dq0=dq0, inputs=inputs, formulation="projection", rtol=1e-12, atol=1e-14)
    assert res.x == pytest.approx(ref.x, abs=1e-6)
    # the rate of the tension state is 5 (lambda - tension): checked on the recorded multipliers
    assert res["der(tension)"] == pytest.approx(5 * (res["rope"] - res["tension"]), abs=1e-9)


def test_states_pass_impacts_unchanged_and_rates_may_use_contact_forces():
    s = sb.System("ball")
    y = s.coordinate("y", 1.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.gravity((0, -9.81, 0))
    floor = s.unilateral("floor", y, restitution=0.0)
    impulse = s.state("impulse", 0.0, rate=floor.force)  # the integral of the contact force
    s.state("clock", 0.0, rate=1.0)
    eq = s.derive()
    res = simulate(eq, 2.0, dt=0.5, rtol=1e-10, atol=1e-12)
    assert [e.kind for e in res.events] == ["impact", "close"]
    t_hit = math.sqrt(2 / 9.81)
    assert res["clock"] == pytest.approx(res.t, abs=1e-9)
    # resting from t_hit on, the floor carries the weight: its integral grows as 9.81 (t - t_hit)
    assert res["impulse"][-1] == pytest.approx(9.81 * (2.0 - t_hit), rel=1e-6)
    assert impulse.name == "impulse"


def test_inverse_dynamics_takes_the_states_of_the_motion():
    eq = dc_motor().derive()
    res = simulate(eq, 0.5, dt=0.1, inputs={"V": 12.0}, rtol=1e-11, atol=1e-13)
    inv = inverse_dynamics(eq, res, actuators=[])  # the motor torque k i comes from the recorded current
    assert inv.residual.max() < 1e-8
