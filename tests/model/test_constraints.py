"""Constraint machinery: rheonomic and velocity constraints, prescribed motions, joint helpers.

* A model with a time function, a moving holonomic constraint, a prescribed
  coordinate and a time-dependent velocity constraint: ``beta`` and ``gamma``
  against the exact time derivatives of the constraints (SymPy), the velocity
  row written independently in the test.
* Joint helpers between two free bodies (three translations and three Euler
  angles each): ``Phi`` vanishes on configurations that the joint allows,
  built with rotation matrices from scipy, and not on others; rows and rank as
  expected; reaction signs checked on static hanging bodies.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sm
from scipy.spatial.transform import Rotation

import symbody as sb
from symbody.numeric import NumericModel

from support.constraint_checks import check_jacobian, check_time_derivatives


# ---------------------------------------------------------------------------
# rheonomic and velocity constraints
# ---------------------------------------------------------------------------
def rheonomic_model() -> sb.System:
    s = sb.System("rheonomic")
    A, w, v, a = s.parameter("A", 0.3), s.parameter("w", 2.0), s.parameter("v", 0.5), s.parameter("a", 0.4)
    U, B = s.parameter("U", 1.5), s.parameter("B", 0.2)
    m, g = s.parameter("m", 2.0), s.parameter("g", 9.81)
    x, y, th, ph = s.coordinate("x"), s.coordinate("y"), s.coordinate("theta"), s.coordinate("phi")
    z = s.time_function("z", A * sb.sin(w * s.t) + v * s.t)
    P = s.point("P", s.origin, (x, y, 0))
    s.particle("bead", P, m)
    rod = s.base("rod", s.ground_base, sb.Rz(th))
    s.solid("bar", P, rod, mass=m, com=(1, 0, 0), inertia=(0.1, 0.2, 0.3))
    s.base("wheel", rod, sb.Rx(ph))
    s.gravity((0, -g, 0))
    s.constraint("track", y - a * x**2 - z)  # the bead on a parabola that moves up and down
    s.prescribe("drive", th, U * s.t + B * sb.cos(w * s.t))
    # knife edge whose allowed speed varies in time: v_P . (cos th, sin th) = U sin(w t) + phi'
    s.velocity_constraint("knife", s.dt(x) * sb.cos(th) + s.dt(y) * sb.sin(th) - U * sb.sin(w * s.t) - s.dt(ph))
    return s


def knife_row(q, dq, P):
    x, y, th, ph = q
    dx, dy, dth, dph = dq
    t = sm.Symbol("t", real=True)
    U, w = P[sm.Symbol("U", real=True)], P[sm.Symbol("w", real=True)]
    return [dx * sm.cos(th) + dy * sm.sin(th) - U * sm.sin(w * t) - dph]


def test_rheonomic_constraints_beta_and_gamma():
    eq = rheonomic_model().derive()
    assert [r.name for r in eq.constraint_rows] == ["track", "drive", "knife"]
    assert [r.kind for r in eq.constraint_rows] == ["holonomic", "holonomic", "velocity"]
    rng = np.random.default_rng(31)
    for _ in range(5):
        q = rng.uniform(-1, 1, 4)
        p = {"A": rng.uniform(0.1, 1), "w": rng.uniform(1, 3), "U": rng.uniform(0.5, 2)}
        check_jacobian(eq, p, q, t=rng.uniform(0, 2))
        check_time_derivatives(eq, p, rng, q, velocity_rows=knife_row)
    # beta of the prescribed motion is the velocity of the law, of the track the rate of z
    nm = NumericModel(eq, {"A": 0.3, "w": 2.0, "v": 0.5, "U": 1.5, "B": 0.2})
    t = 0.7
    beta = nm.beta(np.zeros(4), t=t)
    assert beta[0] == pytest.approx(0.3 * 2.0 * math.cos(2.0 * t) + 0.5, rel=1e-13)
    assert beta[1] == pytest.approx(1.5 - 0.2 * 2.0 * math.sin(2.0 * t), rel=1e-13)
    assert beta[2] == pytest.approx(1.5 * math.sin(2.0 * t), rel=1e-13)


def test_time_function_rates():
    s = sb.System("tf")
    A, w = s.parameter("A", 0.3), s.parameter("w", 2.0)
    s.coordinate("x")
    z = s.time_function("z", A * sb.sin(w * s.t))
    from symbody.symbolic.evaluate import evaluate

    vals = s.default_values() | {s.t: 0.4}
    assert evaluate(s.dt(z), vals) == pytest.approx(0.3 * 2 * math.cos(0.8), rel=1e-14)
    assert evaluate(s.dt(s.dt(z)), vals) == pytest.approx(-0.3 * 4 * math.sin(0.8), rel=1e-14)


# ---------------------------------------------------------------------------
# joint helpers between two free bodies
# ---------------------------------------------------------------------------
A_OFF = np.array([0.3, -0.2, 0.5])  # joint point on body 1, body-1 components
B_OFF = np.array([-0.4, 0.1, 0.25])  # joint point on body 2, body-2 components


def two_free_bodies():
    s = sb.System("two_bodies")
    frames = []
    for k in (1, 2):
        x = [s.coordinate(f"{a}{k}") for a in "xyz"]
        ang = [s.coordinate(f"{a}{k}") for a in ("psi", "theta", "phi")]
        P = s.point(f"O{k}", s.origin, x)
        B = s.base(f"B{k}", s.ground_base, sb.EulerAngles("zyx", ang))
        s.solid(f"body{k}", P, B, mass=1.0, inertia=(1, 2, 3))
        frames.append((P, B))
    (P1, B1), (P2, B2) = frames
    J1 = s.point("J1", P1, sb.Vector(B1, *A_OFF))
    J2 = s.point("J2", P2, sb.Vector(B2, *B_OFF))
    return s, J1, B1, J2, B2


def coordinates(p1, R1, p2, R2) -> np.ndarray:
    """Coordinates of the two bodies from their frame points and rotation matrices (body -> ground)."""
    e1 = Rotation.from_matrix(R1).as_euler("ZYX")
    e2 = Rotation.from_matrix(R2).as_euler("ZYX")
    return np.concatenate([p1, e1, p2, e2])


def rot(axis: str, angle: float) -> np.ndarray:
    return Rotation.from_euler(axis, angle).as_matrix()


def allowed_configuration(kind: str, rng: np.random.Generator):
    """A random configuration that the joint allows (body 2 placed from body 1)."""
    R1 = Rotation.random(random_state=rng).as_matrix()
    p1 = rng.uniform(-1, 1, 3)
    J1 = p1 + R1 @ A_OFF
    a, b, d = rng.uniform(-1.2, 1.2, 3)
    if kind == "revolute":  # about z of body 1
        R2, J2 = R1 @ rot("z", a), J1
    elif kind == "spherical":
        R2, J2 = Rotation.random(random_state=rng).as_matrix(), J1
    elif kind == "prismatic":  # along x of body 1, no relative rotation
        R2, J2 = R1, J1 + d * R1[:, 0]
    elif kind == "cylindrical":  # along and about z of body 1
        R2, J2 = R1 @ rot("z", a), J1 + d * R1[:, 2]
    elif kind == "universal":  # x of body 1 perpendicular to y of body 2
        R2, J2 = R1 @ rot("x", a) @ rot("y", b), J1
    elif kind == "distance":
        n = rng.normal(size=3)
        R2, J2 = Rotation.random(random_state=rng).as_matrix(), J1 + 0.8 * n / np.linalg.norm(n)
    else:
        raise ValueError(kind)
    p2 = J2 - R2 @ B_OFF
    return coordinates(p1, R1, p2, R2)


def add_joint(s, kind, J1, B1, J2, B2):
    if kind == "revolute":
        return s.revolute_joint("j", J1, B1, J2, B2, axis="z")
    if kind == "spherical":
        return s.spherical_joint("j", J1, J2)
    if kind == "prismatic":
        return s.prismatic_joint("j", J1, B1, J2, B2, axis="x")
    if kind == "cylindrical":
        return s.cylindrical_joint("j", J1, B1, J2, B2, axis="z")
    if kind == "universal":
        return s.universal_joint("j", J1, B1, J2, B2, axis1="x", axis2="y")
    return s.distance_joint("j", J1, J2, 0.8)


ROWS = {"revolute": 5, "spherical": 3, "prismatic": 5, "cylindrical": 4, "universal": 4, "distance": 1}


@pytest.mark.parametrize("kind", list(ROWS))
def test_joint_helpers(kind):
    s, J1, B1, J2, B2 = two_free_bodies()
    joint = add_joint(s, kind, J1, B1, J2, B2)
    assert joint.kind == kind and len(joint.rows) == ROWS[kind]
    eq = s.derive()
    assert eq.nh == ROWS[kind]
    nm = NumericModel(eq)
    rng = np.random.default_rng(41)
    for _ in range(10):
        q = allowed_configuration(kind, rng)
        np.testing.assert_allclose(nm.Phi(q), 0.0, atol=1e-12)
        assert np.linalg.matrix_rank(nm.Phi_q(q), tol=1e-9) == ROWS[kind]
        check_jacobian(eq, {}, q + rng.normal(0, 0.1, 12))
    # a configuration the joint forbids
    q = allowed_configuration(kind, rng)
    q[6:9] += 0.3  # move body 2 away
    q[9:] += 0.2  # and turn it
    assert np.abs(nm.Phi(q)).max() > 1e-3


def hanging_body(kind: str):
    """One free body hanging from the ground by a joint at the origin, centre of mass below it."""
    s = sb.System("hanging")
    m, g = s.parameter("m", 2.0), s.parameter("g", 9.81)
    x = [s.coordinate(f"{a}", v) for a, v in zip("xyz", (0.0, -1.0, 0.0))]
    ang = [s.coordinate(n) for n in ("psi", "theta", "phi")]
    P = s.point("G", s.origin, x)
    B = s.base("B", s.ground_base, sb.EulerAngles("zyx", ang))
    s.solid("body", P, B, mass=m, inertia=(1, 2, 3))
    top = s.point("top", P, sb.Vector(B, 0, 1, 0))
    s.gravity((0, -g, 0))
    if kind == "spherical":
        joint = s.spherical_joint("pin", s.origin, top)
    else:
        joint = s.revolute_joint("pin", s.origin, s.ground_base, top, B, axis="z")
    return s, joint


@pytest.mark.parametrize("kind", ["spherical", "revolute"])
def test_joint_reaction_sign(kind):
    """At rest in equilibrium the joint carries the weight: reaction on the body = +m g along y."""
    s, joint = hanging_body(kind)
    eq = s.derive()
    ddq, lam = NumericModel(eq).accelerations(eq.q0, eq.dq0)
    np.testing.assert_allclose(ddq, 0.0, atol=1e-12)
    info = {j.name: j for j in eq.joints}["pin"]
    rows = [r.name for r in eq.constraint_rows]
    reaction = {}
    for comp, (row, sign, _base) in info.reactions.items():
        reaction[comp] = sign * lam[rows.index(row)]
    assert reaction["Fy"] == pytest.approx(2.0 * 9.81, rel=1e-12)
    assert reaction["Fx"] == pytest.approx(0.0, abs=1e-12) and reaction["Fz"] == pytest.approx(0.0, abs=1e-12)


def test_distance_joint_tension():
    """A particle hanging at rest from a massless bar: the bar's tension is its weight."""
    s = sb.System("bar")
    x, y = s.coordinate("x", 0.0), s.coordinate("y", -1.5)
    m, g, L = s.parameter("m", 2.0), s.parameter("g", 9.81), s.parameter("L", 1.5)
    P = s.point("P", s.origin, (x, y, 0))
    s.particle("bob", P, m)
    s.gravity((0, -g, 0))
    s.distance_joint("bar", s.origin, P, L)
    eq = s.derive()
    ddq, lam = NumericModel(eq).accelerations(eq.q0, eq.dq0)
    np.testing.assert_allclose(ddq, 0.0, atol=1e-12)
    row, factor, _ = {j.name: j for j in eq.joints}["bar"].reactions["tension"]
    from symbody.symbolic.evaluate import evaluate

    tension = evaluate(factor, s.default_values()) * lam[0]
    assert tension == pytest.approx(2.0 * 9.81, rel=1e-12)
