"""Kinematic operators against finite differences along random smooth motions, and vector/tensor algebra.

On random 3-D trees (revolute, prismatic and spherical joints; the Euler-parameter
joint moves on the unit sphere), ``q(t)`` is a random smooth motion with exact
derivatives (SymPy).  Each operator of :class:`symbody.System` is evaluated at
``(q, dq, ddq)(t)`` and compared with 4th-order central differences in time of
the quantity it differentiates:

* ``velocity(P)``, ``acceleration(P)``: derivatives of ``position(P)``;
* ``velocity(P, frame)``, ``acceleration(P, frame)``: derivatives of the
  components, in the frame's base, of the vector from the frame's point to ``P``;
* ``velocity(P, solid=S)``: derivative of the position of the point fixed to
  ``S`` that coincides with ``P`` at the instant;
* ``angular_velocity(B[, A])``: ``[w~] = dR/dt R^T`` with ``R`` the rotation
  from ``B`` to the ground (to ``A``), components in the ground (in ``A``);
* ``angular_acceleration(B[, A])``: derivative of those components.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sm
from test_random_trees_vs_kane import build_symbody, random_tree

import symbody as sb
from symbody.symbolic.evaluate import evaluate_many

H = 1e-3  # time step of the finite differences


def d_dt(f, t: float, h: float = H):
    """4th-order central difference."""
    return (-f(t + 2 * h) + 8 * f(t + h) - 8 * f(t - h) + f(t - 2 * h)) / (12 * h)


class Motion:
    """A random smooth motion of every coordinate, with exact first and second derivatives."""

    def __init__(self, system: sb.System, rng: np.random.Generator, quaternions: list[list[int]]):
        t = sm.Symbol("t")
        exprs: list = []
        in_quat = {i for block in quaternions for i in block}
        for i in range(len(system.coordinates)):
            if i in in_quat:
                exprs.append(None)
                continue
            c, v, a, b = rng.uniform(-1, 1, 4)
            w, f = rng.uniform(0.5, 2.0), rng.uniform(0, 2 * np.pi)
            exprs.append(c + v * t + a * t**2 + b * sm.sin(w * t + f))
        for block in quaternions:  # a unit quaternion: product of two rotations about random axes
            quats = []
            for _ in range(2):
                n = rng.normal(size=3)
                n /= np.linalg.norm(n)
                ang = rng.uniform(-2, 2) + rng.uniform(-1, 1) * t + rng.uniform(-1, 1) * sm.sin(t)
                quats.append(sm.Quaternion(sm.cos(ang / 2), *(sm.sin(ang / 2) * x for x in n)))
            p = quats[0] * quats[1]
            for i, e in zip(block, (p.a, p.b, p.c, p.d)):
                exprs[i] = e
        self._f = sm.lambdify(t, [exprs, [e.diff(t) for e in exprs], [e.diff(t, 2) for e in exprs]])
        self.system = system

    def values(self, t: float) -> dict:
        q, dq, ddq = (np.array(x, dtype=float) for x in self._f(t))
        vals = self.system.default_values()
        vals[self.system.t] = t
        for c, a, b, d in zip(self.system.coordinates, q, dq, ddq):
            vals[c.q], vals[c.dq], vals[c.ddq] = a, b, d
        return vals


def evaluator(motion: Motion, exprs: list) -> callable:
    """``t -> numpy array`` of expressions (a vector's components, a flattened matrix, ...)."""
    exprs = list(exprs)
    return lambda t: np.array(evaluate_many(exprs, motion.values(t)))


def comps(v: sb.Vector, base: sb.Base) -> list:
    return list(v.components(base))


def rotation(system: sb.System, a: sb.Base, b: sb.Base) -> list:
    return [x for row in system.rotation_matrix(a, b) for x in row]


def assert_close(got, want, rtol=1e-7):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(1.0, float(np.abs(want).max())))


TREES = [
    (21, ["R", "S_euler", "P", "Raxis", "S_ep"]),
    (22, ["S_euler", "P", "R", "S_euler"]),
    (23, ["Raxis", "S_ep", "P", "R", "R"]),
]


@pytest.fixture(scope="module", params=TREES, ids=[f"seed{s}" for s, _ in TREES])
def built_tree(request):
    """The tree and its motion, built once per module (the symbolic motion takes seconds); the state of
    the random generator after drawing the motion."""
    seed, joints = request.param
    spec = random_tree(seed, len(joints), joints)
    system, _ = build_symbody(spec)
    quats, i = [], 0
    for b in spec.bodies:
        n = {"R": 1, "Raxis": 1, "P": 1, "S_euler": 3, "S_ep": 4}[b.joint]
        if b.joint == "S_ep":
            quats.append(list(range(i, i + 4)))
        i += n
    rng = np.random.default_rng(seed)
    motion = Motion(system, rng, quats)
    return system, motion, rng.bit_generator.state


@pytest.fixture
def tree(built_tree):
    """System, motion, and a random generator in the state it had after drawing the motion (each test
    draws the same numbers as if it had built the tree itself)."""
    system, motion, state = built_tree
    rng = np.random.default_rng()
    rng.bit_generator.state = state
    return system, motion, rng


def test_point_velocity_and_acceleration(tree):
    s, motion, rng = tree
    ground = s.ground_base
    for P in list(s.points.values())[1:]:
        r = evaluator(motion, comps(s.position(P), ground))
        v = evaluator(motion, comps(s.velocity(P), ground))
        a = evaluator(motion, comps(s.acceleration(P), ground))
        t = rng.uniform(0, 2)
        assert_close(v(t), d_dt(r, t))
        assert_close(a(t), d_dt(v, t))


def test_relative_point_kinematics(tree):
    s, motion, rng = tree
    points = list(s.points.values())
    bases = list(s.bases.values())
    for k in range(6):
        F = s.frame(f"frame{k}", points[rng.integers(len(points))], bases[rng.integers(len(bases))])
        P = points[rng.integers(1, len(points))]
        r = evaluator(motion, comps(s.position(F.point, P), F.base))
        v = evaluator(motion, comps(s.velocity(P, F), F.base))
        a = evaluator(motion, comps(s.acceleration(P, F), F.base))
        t = rng.uniform(0, 2)
        assert_close(v(t), d_dt(r, t))
        assert_close(a(t), d_dt(v, t))
        # the relative position is the difference of absolute positions
        rabs = evaluator(motion, comps(s.position(P), F.base) + comps(s.position(F.point), F.base))
        assert_close(r(t), rabs(t)[:3] - rabs(t)[3:], rtol=1e-12)


def test_velocity_of_material_point_of_a_solid(tree):
    s, motion, rng = tree
    ground = s.ground_base
    points = list(s.points.values())
    for solid in s.solids.values():
        P = points[rng.integers(1, len(points))]
        t0 = rng.uniform(0, 2)
        R0 = evaluator(motion, rotation(s, ground, solid.base))(t0).reshape(3, 3)  # ground -> body components
        rel0 = R0 @ (
            evaluator(motion, comps(s.position(P), ground))(t0)
            - evaluator(motion, comps(s.position(solid.point), ground))(t0)
        )
        O = evaluator(motion, comps(s.position(solid.point), ground))
        R = evaluator(motion, rotation(s, solid.base, ground))

        def fixed(t, O=O, R=R, rel0=rel0):  # the point of the solid that is at P at t0
            return O(t) + R(t).reshape(3, 3) @ rel0

        v = evaluator(motion, comps(s.velocity(P, solid=solid), ground))
        assert_close(v(t0), d_dt(fixed, t0))


def test_angular_velocity_and_acceleration(tree):
    s, motion, rng = tree
    ground = s.ground_base
    bases = list(s.bases.values())
    for B in bases[1:]:
        R = evaluator(motion, rotation(s, B, ground))
        w = evaluator(motion, comps(s.angular_velocity(B), ground))
        alpha = evaluator(motion, comps(s.angular_acceleration(B), ground))
        t = rng.uniform(0, 2)
        Rt = R(t).reshape(3, 3)
        W = d_dt(R, t).reshape(3, 3) @ Rt.T
        assert_close(W, -W.T, rtol=1e-7)  # skew: R stays a rotation along the motion
        assert_close(w(t), [W[2, 1], W[0, 2], W[1, 0]])
        assert_close(alpha(t), d_dt(w, t))
    for _ in range(8):
        A, B = (bases[i] for i in rng.choice(len(bases), 2, replace=False))
        R = evaluator(motion, rotation(s, B, A))  # B components -> A components
        w = evaluator(motion, comps(s.angular_velocity(B, A), A))
        alpha = evaluator(motion, comps(s.angular_acceleration(B, A), A))
        t = rng.uniform(0, 2)
        W = d_dt(R, t).reshape(3, 3) @ R(t).reshape(3, 3).T
        assert_close(w(t), [W[2, 1], W[0, 2], W[1, 0]])
        assert_close(alpha(t), d_dt(w, t))


def test_rotation_matrices_compose_and_are_orthonormal(tree):
    s, motion, rng = tree
    bases = list(s.bases.values())
    t = rng.uniform(0, 2)
    for _ in range(8):
        A, B, C = (bases[i] for i in rng.choice(len(bases), 3, replace=False))
        Rab, Rbc, Rac = (evaluator(motion, rotation(s, x, y))(t).reshape(3, 3) for x, y in ((A, B), (B, C), (A, C)))
        assert_close(Rbc @ Rab, Rac, rtol=1e-12)
        assert_close(Rab @ Rab.T, np.eye(3), rtol=1e-12)
        assert np.linalg.det(Rab) == pytest.approx(1.0, rel=1e-12)


def test_vector_and_tensor_algebra(tree):
    s, motion, rng = tree
    ground = s.ground_base
    bases = list(s.bases.values())
    t = rng.uniform(0, 2)
    for _ in range(8):
        A, B, C = (bases[i] for i in rng.choice(len(bases), 3, replace=False))
        a, b = rng.uniform(-2, 2, 3), rng.uniform(-2, 2, 3)
        k = float(rng.uniform(-2, 2))
        u, v = sb.Vector(A, *a), sb.Vector(B, *b)
        RA, RB, RC = (evaluator(motion, rotation(s, X, ground))(t).reshape(3, 3) for X in (A, B, C))
        ua, vb = RA @ a, RB @ b  # ground components
        w = u * k - v + u.cross(v)
        got = evaluator(motion, comps(w, C) + [u.dot(v), (u + v).norm()])(t)
        assert_close(got[:3], RC.T @ (k * ua - vb + np.cross(ua, vb)), rtol=1e-12)
        assert got[3] == pytest.approx(ua @ vb, rel=1e-12, abs=1e-12)
        assert got[4] == pytest.approx(np.linalg.norm(ua + vb), rel=1e-12)
        Tm = rng.uniform(-1, 1, (3, 3))
        T = sb.Tensor(A, Tm.tolist())
        Tv = evaluator(motion, comps(T @ v, C) + [x for row in T.components(C) for x in row])(t)
        T_ground = RA @ Tm @ RA.T
        assert_close(Tv[:3], RC.T @ T_ground @ vb, rtol=1e-12)
        assert_close(Tv[3:].reshape(3, 3), RC.T @ T_ground @ RC, rtol=1e-12)
