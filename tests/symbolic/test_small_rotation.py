"""Small (differential) rotations: R = I + [a~], angular velocity da/dt, first-order kinematics."""

import numpy as np
import pytest

import symbody as sb
from symbody.symbolic.evaluate import evaluate_many


def small_body(a0=(1e-3, -2e-3, 1.5e-3)):
    s = sb.System("small")
    ax, ay, az = (s.coordinate(f"a{k}", v) for k, v in zip("xyz", a0))
    B = s.base("B", s.ground_base, sb.SmallRotation(ax, ay, az))
    P = s.point("P", s.origin, sb.Vector(B, 1.0, 2.0, -0.5))
    return s, (ax, ay, az), B, P


def values(s, q, dq):
    vals = s.default_values()
    for c, v, w in zip(s.coordinates, q, dq):
        vals[c.q], vals[c.dq] = v, w
    return vals


def test_matrix_is_identity_plus_skew():
    s, a, B, _ = small_body()
    R = s.rotation_matrix(B, s.ground_base)
    vals = values(s, [0.01, -0.02, 0.03], [0, 0, 0])
    got = np.array(evaluate_many([x for row in R for x in row], vals)).reshape(3, 3)
    ax, ay, az = 0.01, -0.02, 0.03
    want = np.eye(3) + np.array([[0, -az, ay], [az, 0, -ax], [-ay, ax, 0]])
    np.testing.assert_allclose(got, want, atol=1e-15)


def test_angular_velocity_is_the_rate_of_the_angles():
    s, a, B, _ = small_body()
    w = s.angular_velocity(B).components(s.ground_base)
    vals = values(s, [1e-3, 2e-3, -1e-3], [0.3, -0.2, 0.7])
    got = evaluate_many(w, vals)
    # expressed in the ground base, w = R (da/dt): equal to da/dt to first order in the angles
    np.testing.assert_allclose(got, [0.3, -0.2, 0.7], atol=2e-3)
    wb = evaluate_many(s.angular_velocity(B).components(B), vals)
    np.testing.assert_allclose(wb, [0.3, -0.2, 0.7], rtol=0, atol=1e-15)


@pytest.mark.parametrize("scale", [1e-2, 1e-4])
def test_point_velocity_matches_finite_differences_to_first_order(scale):
    """The velocity omega x r differs from d(Rc)/dt by terms of order |a| |da/dt|."""
    s, a, B, P = small_body()
    pos = s.position(P).components(s.ground_base)
    vel = s.velocity(P).components(s.ground_base)
    q = scale * np.array([1.0, -2.0, 1.5])
    dq = np.array([0.3, -0.2, 0.7])
    h = 1e-7
    fd = (
        np.array(evaluate_many(pos, values(s, q + h * dq, dq)))
        - np.array(evaluate_many(pos, values(s, q - h * dq, dq)))
    ) / (2 * h)
    v = np.array(evaluate_many(vel, values(s, q, dq)))
    assert np.max(np.abs(v - fd)) <= 10 * scale * np.max(np.abs(dq)) * 3.0  # first order in the angles
    assert np.max(np.abs(v - fd)) < 0.2 * np.max(np.abs(fd))  # and the velocities themselves agree


def test_a_body_on_small_rotations_derives_and_simulates():
    s, a, B, P = small_body()
    m = s.parameter("m", 2.0, unit="kg")
    s.solid("plate", s.origin, B, mass=m, com=(0.1, 0, 0), inertia=sb.inertia(0.2, 0.3, 0.4))
    for k, ak in enumerate(a):
        s.torsion_spring_damper(f"spring{k}", ak, k=100.0, damping=1.0)
    eq = s.derive()
    from symbody.numeric import modal_analysis, static_equilibrium

    res = static_equilibrium(eq)
    assert np.max(np.abs(res.q)) < 1e-12
    modes = modal_analysis(eq, res.q)
    # inertia about the frame point (Steiner): diag(0.2, 0.3 + m 0.1^2, 0.4 + m 0.1^2); springs k = 100
    expected = np.sqrt(100.0 / np.array([0.2, 0.32, 0.42]))
    np.testing.assert_allclose(np.sort(modes.omega), np.sort(expected), rtol=1e-9)
