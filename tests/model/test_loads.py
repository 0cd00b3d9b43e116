"""Loads not covered by the random trees, against hand formulas: Coulomb friction, viscous friction about an
axis between two bases, torsion springs on the angle between two bases, actuators of spring-dampers."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symbody as sb
from symbody.numeric import NumericModel


def test_coulomb_friction_on_a_sliding_block():
    s = sb.System("block")
    x = s.coordinate("x")
    F, vs = s.parameter("F", 3.0), s.parameter("vs", 0.01)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 2.0)
    s.coulomb_friction("friction", x, F, smoothing=vs)
    nm = NumericModel(s.derive())
    for v in (-1.0, -0.003, 0.0, 0.004, 2.0):
        assert nm.delta([0.0], [v])[0] == pytest.approx(-3.0 * math.tanh(v / 0.01), rel=1e-14, abs=1e-15)


def two_hinged_bars():
    """Bar 1 about z of the ground (angle a), bar 2 about z of bar 1 (relative angle b), both with inertia."""
    s = sb.System("bars")
    a, b = s.coordinate("a", 0.2), s.coordinate("b", -0.4)
    B1 = s.base("B1", s.ground_base, sb.Rz(a))
    B2 = s.base("B2", B1, sb.Rz(b))
    P = s.point("P", s.origin, sb.Vector(B1, 1.0, 0, 0))
    s.solid("bar1", s.origin, B1, mass=1.0, com=(0.5, 0, 0), inertia=(0.1, 0.1, 0.1))
    s.solid("bar2", P, B2, mass=1.0, com=(0.5, 0, 0), inertia=(0.1, 0.1, 0.1))
    return s, B1, B2


def test_viscous_friction_about_an_axis_between_bases():
    s, B1, B2 = two_hinged_bars()
    eq0 = s.derive()
    s2, B1b, B2b = two_hinged_bars()
    s2.viscous_friction("hinge", c=0.7, base1=B1b, base2=B2b, axis=B1b.unit("z"))
    eq = s2.derive()
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, dq = rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2)
        extra = NumericModel(eq).delta(q, dq) - NumericModel(eq0).delta(q, dq)
        np.testing.assert_allclose(extra, [0.0, -0.7 * dq[1]], atol=1e-13)


def test_torsion_spring_between_bases():
    s, B1, B2 = two_hinged_bars()
    eq0 = s.derive()
    s2, B1b, B2b = two_hinged_bars()
    s2.torsion_spring_damper("spring", None, k=5.0, rest_angle=0.3, damping=0.2, base1=B1b, base2=B2b, axis="z")
    eq = s2.derive()
    rng = np.random.default_rng(4)
    for _ in range(5):
        q, dq = rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2)
        extra = NumericModel(eq).delta(q, dq) - NumericModel(eq0).delta(q, dq)
        np.testing.assert_allclose(extra, [0.0, -5.0 * (q[1] - 0.3) - 0.2 * dq[1]], atol=1e-12)


def test_spring_damper_actuator_and_sign():
    """Point mass on x joined to the origin: f = -k (d - l0) - c dd/dt + actuator pushes the points apart."""
    s = sb.System("spring")
    x = s.coordinate("x", 2.0)
    u = s.input("u")
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.spring_damper("sd", s.origin, "P", k=10.0, rest_length=1.5, damping=0.5, actuator=u)
    nm = NumericModel(s.derive())
    for xv, v, uv in ((2.0, 0.3, 1.0), (3.0, -1.0, -2.0), (-2.5, 0.7, 0.5)):
        d, ddot = abs(xv), math.copysign(1.0, xv) * v
        f = -10.0 * (d - 1.5) - 0.5 * ddot + uv
        assert nm.delta([xv], [v], t=0.0, u=[uv])[0] == pytest.approx(f * math.copysign(1.0, xv), rel=1e-13)
