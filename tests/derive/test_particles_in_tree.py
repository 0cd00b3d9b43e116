"""Particles in the recursive and articulated formulations.

A particle has no orientation: in the tree it is a body without rotational inertia in the deepest base
its point moves with, so a particle on a body of a chain joins that body (or carries its own joint)
instead of breaking the tree.  Checked against closed forms (the double pendulum of point masses, a bead
sliding on a spinning rod) and against the dense virtual-power equations (a 3-D chain with particles).
"""

from __future__ import annotations

import numpy as np
import pytest

import symbody as sb
from symbody.derive.recursive import tree_of
from symbody.symbolic.evaluate import evaluate_many

from support.trees import chain_3d


def _values(eq, q, dq, p: dict | None = None) -> dict:
    values = {eq.t: 0.0}
    values.update(zip(eq.q, q))
    values.update(zip(eq.dq, dq))
    values.update({v.symbol: (p or {}).get(v.name, v.value) for v in eq.parameters})
    return values


def direct_ddq(eq, q, dq, p: dict | None = None) -> np.ndarray:
    """The articulated-body accelerations of ``eq`` (atoms, evaluated)."""
    assert eq.formulation == "articulated" and eq.accelerations
    return np.array(evaluate_many(list(eq.accelerations), _values(eq, q, dq, p)))


def dense_ddq(eq, q, dq, p: dict | None = None) -> np.ndarray:
    """``M^-1 delta`` of ``eq`` by numpy."""
    values, n = _values(eq, q, dq, p), len(eq.q)
    M = np.array(evaluate_many([e for row in eq.M for e in row], values)).reshape(n, n)
    return np.linalg.solve(M, evaluate_many(list(eq.delta), values))


def double_pendulum() -> sb.System:
    """Two point masses on massless rods, relative angles ``a`` and ``b`` from the downward vertical."""
    s = sb.System("double")
    a, b = s.coordinate("a"), s.coordinate("b")
    g, l1, l2 = s.parameter("g", 9.81), s.parameter("l1", 0.8), s.parameter("l2", 0.6)
    m1, m2 = s.parameter("m1", 1.3), s.parameter("m2", 0.7)
    B1 = s.base("B1", s.ground_base, sb.Rz(a))
    B2 = s.base("B2", B1, sb.Rz(b))
    P1 = s.point("P1", s.origin, sb.Vector(B1, 0, -l1, 0))
    P2 = s.point("P2", P1, sb.Vector(B2, 0, -l2, 0))
    s.particle("bob1", P1, m1)
    s.particle("bob2", P2, m2)
    s.gravity((0, -g, 0))
    return s


def double_pendulum_closed_form(q, dq, g=9.81, l1=0.8, l2=0.6, m1=1.3, m2=0.7) -> np.ndarray:
    """The textbook accelerations in the absolute angles ``p1 = a``, ``p2 = a + b``, as ``(a'', b'')``."""
    p1, p2 = q[0], q[0] + q[1]
    w1, w2 = dq[0], dq[0] + dq[1]
    den = 2 * m1 + m2 - m2 * np.cos(2 * (p1 - p2))
    dd1 = (
        -g * (2 * m1 + m2) * np.sin(p1)
        - m2 * g * np.sin(p1 - 2 * p2)
        - 2 * np.sin(p1 - p2) * m2 * (w2**2 * l2 + w1**2 * l1 * np.cos(p1 - p2))
    ) / (l1 * den)
    dd2 = (
        2 * np.sin(p1 - p2) * (w1**2 * l1 * (m1 + m2) + g * (m1 + m2) * np.cos(p1) + w2**2 * l2 * m2 * np.cos(p1 - p2))
    ) / (l2 * den)
    return np.array([dd1, dd2 - dd1])


def test_particles_make_a_tree():
    order = tree_of(double_pendulum())
    assert order is not None
    bob1, bob2 = order[1], order[2]
    assert (bob1.solid.name, bob1.base.name, bob1.coordinates) == ("bob1", "B1", [0])
    assert (bob2.solid.name, bob2.base.name, bob2.coordinates, bob2.parent) == ("bob2", "B2", [1], bob1)


def test_double_pendulum_of_particles_closed_form():
    eq = double_pendulum().derive(formulation="articulated")
    rec = double_pendulum().derive(formulation="recursive")
    rng = np.random.default_rng(5)
    for _ in range(6):
        q, dq = rng.uniform(-2.5, 2.5, 2), rng.uniform(-3, 3, 2)
        expected = double_pendulum_closed_form(q, dq)
        tol = 1e-12 * (1 + np.abs(expected).max())
        np.testing.assert_allclose(direct_ddq(eq, q, dq), expected, rtol=0, atol=tol)
        np.testing.assert_allclose(dense_ddq(rec, q, dq), expected, rtol=0, atol=tol)


def bead_on_rod() -> sb.System:
    """A rod spinning about the vertical z axis (inertia J at the axis) and a bead sliding along it."""
    s = sb.System("bead")
    th, r = s.coordinate("th"), s.coordinate("r", 0.5)
    J, m = s.parameter("J", 0.4), s.parameter("m", 0.3)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.solid("rod", s.origin, B, mass=1.0, com=(0, 0, 0), inertia=(0.1, 0.1, J))
    s.particle("bead", s.point("P", s.origin, sb.Vector(B, r, 0, 0)), m)
    return s


def test_bead_on_a_spinning_rod_closed_form():
    """``(J + m r^2) th'' = -2 m r r' th'`` (angular momentum), ``r'' = r th'^2`` (no force along the rod)."""
    order = tree_of(bead_on_rod())
    assert order is not None and [b.coordinates for b in order[1:]] == [[0], [1]]
    assert order[2].parent is order[1] and order[2].base.name == "B"
    eq = bead_on_rod().derive(formulation="articulated")
    J, m = 0.4, 0.3
    rng = np.random.default_rng(6)
    for _ in range(6):
        q, dq = np.array([rng.uniform(-3, 3), rng.uniform(0.1, 2)]), rng.uniform(-3, 3, 2)
        r, dth, dr = q[1], dq[0], dq[1]
        expected = np.array([-2 * m * r * dr * dth / (J + m * r * r), r * dth**2])
        np.testing.assert_allclose(direct_ddq(eq, q, dq), expected, rtol=0, atol=1e-12 * (1 + abs(expected).max()))


def chain_with_particles(n: int) -> sb.System:
    """The 3-D Z-Y-X chain with a particle at every joint point after the first body and one at the tip."""
    s = chain_3d(n)
    for k in range(1, n):
        s.particle(f"joint_mass{k}", f"P{k}", 0.2 + 0.1 * k)
    last = s.bases[f"B{n - 1}"]
    s.particle("tip_mass", s.point("tip", f"P{n - 1}", sb.Vector(last, 0.4, 0.1, -0.2)), 0.35)
    return s


def test_chain_with_particles_uses_the_recursion():
    """``auto`` takes the articulated-body accelerations (the dense formulation before) and they equal the
    virtual-power ones at random states and parameters."""
    n = 3
    eq = chain_with_particles(n).derive()
    assert tree_of(chain_with_particles(n)) is not None
    assert eq.formulation == "articulated"
    vp = chain_with_particles(n).derive(formulation="virtual_power")
    rng = np.random.default_rng(7)
    for _ in range(5):
        q, dq = rng.uniform(-1.2, 1.2, 3 * n), rng.uniform(-2, 2, 3 * n)
        p = {v.name: v.value * rng.uniform(0.8, 1.25) for v in vp.parameters}
        expected = dense_ddq(vp, q, dq, p)
        tol = 1e-11 * (1 + np.abs(expected).max())
        np.testing.assert_allclose(direct_ddq(eq, q, dq, p), expected, rtol=0, atol=tol)
        np.testing.assert_allclose(dense_ddq(eq, q, dq, p), expected, rtol=0, atol=tol)


@pytest.mark.parametrize("formulation", ["recursive", "articulated"])
def test_particle_on_two_branches_is_not_a_tree(formulation):
    """A point placed by vectors in two sibling bases moves with neither: no tree, a clear error."""
    s = sb.System("split")
    a, b = s.coordinate("a"), s.coordinate("b")
    B1 = s.base("B1", s.ground_base, sb.Rz(a))
    B2 = s.base("B2", s.ground_base, sb.Rx(b))
    s.solid("s1", s.origin, B1, mass=1, com=(0.5, 0, 0), inertia=(0.1, 0.1, 0.1))
    s.solid("s2", s.origin, B2, mass=1, com=(0, 0.5, 0), inertia=(0.1, 0.1, 0.1))
    P = s.point("P", s.point("Q", s.origin, sb.Vector(B1, 1, 0, 0)), sb.Vector(B2, 0, 1, 0))
    s.particle("p", P, 1.0)
    assert tree_of(s) is None
    with pytest.raises(sb.ModelError, match="not a tree"):
        s.derive(formulation=formulation)
