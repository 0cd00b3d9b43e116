"""Constraint blocks of the constrained examples, checked independently.

* ``Phi`` vanishes on configurations assembled by closed-form geometry written
  here (not by symbody's solvers), for many values of the free coordinate and of
  the parameters;
* ``Phi_q`` matches central finite differences of ``Phi``;
* along random smooth motions ``q(t)``, ``D dq - beta`` equals the first and
  ``D ddq - gamma`` the second time derivative of the constraint expressions,
  differentiated exactly by SymPy (holonomic rows: ``Phi(q(t), t)``;
  velocity rows: the constraint written independently in the test);
* the natural-coordinate double pendulum reproduces the dynamics chapter's eqs. (130)-(132).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sympy as sm

import symbody as sb
from symbody.numeric import NumericModel

from support import example
from support.constraint_checks import check_jacobian, check_time_derivatives


# ---------------------------------------------------------------------------
# slider-crank
# ---------------------------------------------------------------------------
def test_slider_crank_constraints():
    eq = example("slider_crank").derive()
    assert (eq.nq, eq.nh, eq.nc, eq.dof) == (2, 1, 1, 1)
    assert [r.name for r in eq.constraint_rows] == ["Cp1"]
    rng = np.random.default_rng(1)
    for k in range(20):
        l1, l2 = rng.uniform(1, 4), rng.uniform(5, 12)
        a1 = rng.uniform(-math.pi, math.pi)
        a2 = -math.asin(l1 * math.sin(a1) / l2)  # c on the x axis
        q = np.array([a1, a2])
        p = {"l1": l1, "l2": l2}
        assert NumericModel(eq, p).Phi(q) == pytest.approx([0.0], abs=1e-12)
        check_jacobian(eq, p, q + rng.normal(0, 0.3, 2))
        if k < 6:
            check_time_derivatives(eq, p, rng, q)
    # initial-position condition a1 = a10 follows the holonomic rows
    nm = NumericModel(eq, {"a10": 0.7})
    np.testing.assert_allclose(nm.Phi_init(np.array([0.9, 0.1])), [4 * math.sin(0.9) + 10 * math.sin(0.1), 0.2])
    assert nm.Phi(eq.q0) == pytest.approx([0.0], abs=1e-12)


# ---------------------------------------------------------------------------
# four-bar (relative angles about y, planar in x-z)
# ---------------------------------------------------------------------------
def four_bar_assembled(l1, l2, l3, l4, th1, elbow):
    """Relative angles closing the loop, from circle intersection (rotation about y: x -> (cos, -sin) in x-z)."""

    def angle(vx, vz):  # absolute angle of a bar direction
        return math.atan2(-vz, vx)

    A = np.array([l1 * math.cos(th1), -l1 * math.sin(th1)])
    C = np.array([l4, 0.0])
    d = np.linalg.norm(C - A)
    a = (l2**2 - l3**2 + d**2) / (2 * d)
    h = math.sqrt(l2**2 - a**2)
    e = (C - A) / d
    B = A + a * e + elbow * h * np.array([-e[1], e[0]])
    phi2, phi3 = angle(*(B - A)), angle(*(C - B))
    return np.array([th1, phi2 - th1, phi3 - phi2])


def test_four_bar_constraints():
    eq = example("four_bar").derive()
    assert (eq.nq, eq.nh, eq.dof) == (3, 2, 1)
    rng = np.random.default_rng(2)
    defaults = {"l1": 0.4, "l2": 2.0, "l3": 1.2, "l4": 1.6}
    count = 0
    while count < 20:
        p = {k: v * rng.uniform(0.8, 1.2) for k, v in defaults.items()}
        th1 = rng.uniform(-math.pi, math.pi)
        try:
            q = four_bar_assembled(p["l1"], p["l2"], p["l3"], p["l4"], th1, rng.choice([-1, 1]))
        except ValueError:  # this crank angle cannot be assembled with these lengths
            continue
        count += 1
        np.testing.assert_allclose(NumericModel(eq, p).Phi(q), 0.0, atol=1e-12)
        check_jacobian(eq, p, q + rng.normal(0, 0.3, 3))
        if count <= 6:
            check_time_derivatives(eq, p, rng, q)
    # the example's own initial configuration is assembled
    np.testing.assert_allclose(NumericModel(eq).Phi(eq.q0), 0.0, atol=1e-12)


# ---------------------------------------------------------------------------
# double pendulum, natural coordinates (Problemas dinámicos eqs. 130-132)
# ---------------------------------------------------------------------------
def test_double_pendulum_natural_constraints_match_dynamics_chapter():
    eq = example("double_pendulum_square_disc", coordinates="natural").derive()
    assert (eq.nq, eq.nh, eq.dof) == (4, 2, 2)
    nm = NumericModel(eq)
    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = rng.uniform(-math.pi, math.pi, 2)
        x1, y1 = 2 * math.cos(a), 2 * math.sin(a)
        q_on = np.array([x1, y1, x1 + 2 * math.cos(b), y1 + 2 * math.sin(b)])
        np.testing.assert_allclose(nm.Phi(q_on), 0.0, atol=1e-13)
        q, dq = rng.uniform(-3, 3, 4), rng.uniform(-3, 3, 4)
        x1, y1, x2, y2 = q
        dx1, dy1, dx2, dy2 = dq
        np.testing.assert_allclose(nm.Phi(q), [x1**2 + y1**2 - 4, (x2 - x1) ** 2 + (y2 - y1) ** 2 - 4], rtol=1e-13)
        np.testing.assert_allclose(
            nm.Phi_q(q),
            [[2 * x1, 2 * y1, 0, 0], [-2 * (x2 - x1), -2 * (y2 - y1), 2 * (x2 - x1), 2 * (y2 - y1)]],
            rtol=1e-13,
        )
        # eq. (132): dPhi_q/dt dq = {2 (dx1^2 + dy1^2), 2 ((dx2 - dx1)^2 + (dy2 - dy1)^2)} = -gamma
        np.testing.assert_allclose(
            -nm.gamma(q, dq), [2 * (dx1**2 + dy1**2), 2 * ((dx2 - dx1) ** 2 + (dy2 - dy1) ** 2)], rtol=1e-13
        )
        assert nm.beta(q) == pytest.approx([0.0, 0.0])
    np.testing.assert_allclose(eq.q0, [2, 0, 4, 0])
    np.testing.assert_allclose(nm.Phi(eq.q0), 0.0, atol=1e-15)
    # joint helper metadata: the distance joints report the bar tensions
    assert {j.name: j.kind for j in eq.joints} == {"bar01": "distance", "bar12": "distance"}


# ---------------------------------------------------------------------------
# crank, rod and disc rolling on a parabola
# ---------------------------------------------------------------------------
def crank_rod_disc_assembled(p: dict, xp: float, elbow: int, a3: float) -> np.ndarray:
    """Contact point at abscissa ``xp`` on the parabola, disc centre along the normal, crank-rod closing the chain."""
    yp = p["y0p"] - p["c0p"] * (xp - p["x0p"]) ** 2
    slope = -2 * p["c0p"] * (xp - p["x0p"])
    n = np.array([-slope, 1.0]) / math.hypot(slope, 1.0)
    c = np.array([xp, yp]) + p["rd"] * n
    d = np.linalg.norm(c)
    cos_alpha = (p["l1"] ** 2 + d**2 - p["l2"] ** 2) / (2 * p["l1"] * d)
    a1 = math.atan2(c[1], c[0]) + elbow * math.acos(cos_alpha)
    b = p["l1"] * np.array([math.cos(a1), math.sin(a1)])
    a2 = math.atan2(*(c - b)[::-1])
    return np.array([a1, a2, a3, xp, yp])


CRD = {"l1": 4.0, "l2": 10.0, "rd": 1.5, "x0p": 12.0, "y0p": 0.0, "c0p": 0.15}


def rolling_rows(q, dq, P, both: bool):
    """The rolling condition written here: velocity of the disc's material point at Pg (SymPy)."""
    a1, a2, a3, xpg, ypg = q
    da1, da2, da3, _, _ = dq
    l1, l2, c0p, x0p = (P[sm.Symbol(n, real=True)] for n in ("l1", "l2", "c0p", "x0p"))
    xc, yc = l1 * sm.cos(a1) + l2 * sm.cos(a2), l1 * sm.sin(a1) + l2 * sm.sin(a2)
    vcx = -l1 * sm.sin(a1) * da1 - l2 * sm.sin(a2) * da2
    vcy = l1 * sm.cos(a1) * da1 + l2 * sm.cos(a2) * da2
    vx, vy = vcx - da3 * (ypg - yc), vcy + da3 * (xpg - xc)
    if both:
        return [vx, vy]
    return [vx * 1 + vy * (-2 * c0p * (xpg - x0p))]  # along the tangent (1, dy/dx) of the parabola


# the redundant variant's SymPy references take 2-4 s more: with --slow
@pytest.mark.slow  # SymPy references: 4-8 s
@pytest.mark.parametrize("rolling", ["tangential", "both"])
def test_crank_rod_disc_constraints(rolling):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sb.RedundantConstraintWarning)  # rolling="both" is redundant by design
        eq = example("crank_rod_disc", rolling=rolling).derive()
    n_vel = 1 if rolling == "tangential" else 2
    assert (eq.nq, eq.nh, eq.nc) == (5, 3, 3 + n_vel)
    assert eq.dof == 1
    rng = np.random.default_rng(4)
    for _ in range(6):
        p = {k: v * rng.uniform(0.9, 1.1) if v else v for k, v in CRD.items()}
        q = crank_rod_disc_assembled(p, rng.uniform(9, 13), rng.choice([-1, 1]), rng.uniform(-3, 3))
        nm = NumericModel(eq, p)
        np.testing.assert_allclose(nm.Phi(q), 0.0, atol=1e-11)
        check_jacobian(eq, p, q + rng.normal(0, 0.2, 5))
        check_time_derivatives(
            eq, p, rng, q, velocity_rows=lambda qs, dqs, P: rolling_rows(qs, dqs, P, rolling == "both")
        )
        # admissible velocities (null space of D): the disc's material point at Pg is at rest
        D = nm.D(q)
        _, s, vt = np.linalg.svd(D)
        dq = vt[-1] * rng.uniform(0.5, 2)
        assert np.linalg.matrix_rank(D, tol=1e-9 * s[0]) == 4
        a1, a2, _, xpg, ypg = q
        da1, da2, da3 = dq[:3]
        xc, yc = p["l1"] * math.cos(a1) + p["l2"] * math.cos(a2), p["l1"] * math.sin(a1) + p["l2"] * math.sin(a2)
        vc = np.array(
            [
                -p["l1"] * math.sin(a1) * da1 - p["l2"] * math.sin(a2) * da2,
                p["l1"] * math.cos(a1) * da1 + p["l2"] * math.cos(a2) * da2,
            ]
        )
        vP = vc + da3 * np.array([-(ypg - yc), xpg - xc])
        np.testing.assert_allclose(vP, 0.0, atol=1e-9 * np.abs(vc).max())
    # the example's initial configuration is assembled and satisfies the assembly rows
    nm = NumericModel(eq)
    np.testing.assert_allclose(nm.Phi_init(eq.q0), 0.0, atol=1e-12)
