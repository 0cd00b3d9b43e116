"""Closed-form accelerations of small unconstrained models by symbolic elimination (``symbody.derive.elimination``).

* on random symmetric matrices with structural zeros (symbols for the entries) the atoms of ``ddq``
  equal numpy's solve, and all pivots are positive exactly where numpy finds the matrix positive
  definite (Cholesky), also for indefinite ones;
* the order fills nothing on a chain and a star, and eliminates a coupling graph's leaves first;
* the planar overhead crane gets them under ``"auto"`` and they are the closed form a person writes by
  hand (trolley, rope length and swing eliminated as in ``benchmarks/harness/crane_fmu.c``), equal to
  numpy's solve of the crane's ``M`` and ``delta`` at random states;
* constrained models, contacts and explicit formulations never get them; a structurally singular
  ``M`` gets none.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symbody as sb
from symbody.derive.elimination import eliminated_accelerations, elimination_order
from symbody.symbolic.evaluate import evaluate_many
from symbody.symbolic.expr import ZERO, Context

from support import example
from support.closed_form import assert_solves


def symbolic_matrix(ctx: Context, pattern: np.ndarray):
    """A symmetric matrix of symbols ``a_ij`` where ``pattern`` is true (and on the diagonal), else zero."""
    n = len(pattern)
    entries = {}
    for i in range(n):
        for j in range(i, n):
            if i == j or pattern[i, j]:
                entries[i, j] = entries[j, i] = ctx.symbol(f"a{i}_{j}")
    return [[entries.get((i, j), ZERO) for j in range(n)] for i in range(n)]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_accelerations_equal_numpys_solve_and_pivots_tell_positive_definite(n):
    rng = np.random.default_rng(n)
    for trial in range(4):
        pattern = rng.random((n, n)) < 0.5
        pattern = pattern | pattern.T
        ctx = Context()
        M = symbolic_matrix(ctx, pattern)
        delta = [ctx.symbol(f"d{i}") for i in range(n)]
        solved = eliminated_accelerations(M, delta)
        assert solved is not None
        ddq, pivots = solved
        for definite in (True, False):
            A = rng.normal(size=(n, n)) * np.where(pattern, 1.0, 0.0)
            A = A + A.T
            # positive definite: shifted by more than its most negative eigenvalue; else shifted below it
            shift = -np.linalg.eigvalsh(A).min() + (0.5 if definite else -0.3)
            A = A + shift * np.eye(n)
            b = rng.normal(size=n)
            values = {M[i][j]: A[i, j] for i in range(n) for j in range(n) if not M[i][j].is_zero}
            values.update({delta[i]: b[i] for i in range(n)})
            piv = np.array(evaluate_many(pivots, values))
            assert bool(np.all(piv > 0.0)) == definite, (trial, definite, piv)
            if np.all(np.abs(piv) > 1e-6):  # every pivot nonzero: M^-1 delta
                got = np.array(evaluate_many(ddq, values))
                np.testing.assert_allclose(got, np.linalg.solve(A, b), rtol=1e-9, atol=1e-9)


def test_the_order_fills_nothing_on_chains_and_stars():
    n = 6
    chain = symbolic_matrix(Context(), np.abs(np.subtract.outer(np.arange(n), np.arange(n))) == 1)
    assert elimination_order(chain) == [5, 4, 3, 2, 1, 0]  # from the end of the chain
    star = np.zeros((n, n), dtype=bool)
    star[0, 1:] = star[1:, 0] = True
    order = elimination_order(symbolic_matrix(Context(), star))
    assert order[-1] == 0 or order[-2] == 0  # the centre goes last (or with the last leaf)
    ctx = Context()
    solved = eliminated_accelerations(symbolic_matrix(ctx, star), [ctx.symbol(f"b{i}") for i in range(n)])
    assert solved is not None
    ddq, pivots = solved
    # no fill: every leaf's pivot is its own diagonal entry
    assert [p.name for p in pivots[1:]] == [f"a{i}_{i}" for i in range(1, n)]


def test_a_structurally_singular_mass_matrix_gets_none():
    ctx = Context()
    a = ctx.symbol("a")
    assert eliminated_accelerations([[a, ZERO], [ZERO, ZERO]], [a, a]) is None


def crane_closed_form(p: dict, q, dq, u):
    """The crane's accelerations as ``benchmarks/harness/crane_fmu.c`` writes them by hand."""
    mt, mp, mw, g = p["m_trolley"], p["m_payload"], p["m_winch"], p["g"]
    l, s, c = q[1], math.sin(q[2]), math.cos(q[2])
    dx, dl, dth = dq
    d_x = u[0] - p["b_x"] * dx - 2.0 * mp * c * dl * dth + mp * l * s * dth * dth
    d_l = -u[1] - p["b_l"] * dl + mp * l * dth * dth + mp * g * c
    d_th = -p["c_theta"] * dth - 2.0 * mp * l * dl * dth - mp * g * l * s
    mpw = mp + mw
    ddx = (d_x - mp * s * d_l / mpw - c * d_th / l) / (mt + mp * s * s * mw / mpw)
    return [ddx, (d_l - mp * s * ddx) / mpw, (d_th - mp * l * c * ddx) / (mp * l * l)]


def test_the_crane_gets_its_closed_form():
    eq = example("overhead_crane").derive()
    assert eq.accelerations_method == "symbolic elimination" and len(eq.accelerations) == 3
    assert eq.formulation == "virtual_power"
    rng = np.random.default_rng(3)
    params = {p.name: p.value * rng.uniform(0.8, 1.25) for p in eq.parameters}
    for _ in range(8):
        q = [rng.uniform(-5, 5), rng.uniform(2.0, 20.0), rng.uniform(-1.2, 1.2)]
        dq = list(rng.uniform(-2, 2, 3))
        u = [rng.uniform(-8e3, 8e3), rng.uniform(3e4, 5e4)]
        values = {eq.t: 0.0, **dict(zip(eq.q, q)), **dict(zip(eq.dq, dq))}
        values.update({p.symbol: params[p.name] for p in eq.parameters})
        values.update({i.symbol: v for i, v in zip(eq.inputs, u)})
        got = evaluate_many(eq.accelerations, values)
        np.testing.assert_allclose(got, crane_closed_form(params, q, dq, u), rtol=1e-11, atol=1e-12)
        M = np.array(evaluate_many([e for row in eq.M for e in row], values)).reshape(3, 3)
        np.testing.assert_allclose(got, np.linalg.solve(M, evaluate_many(eq.delta, values)), rtol=1e-11, atol=1e-12)
        assert min(evaluate_many(eq.pivots, values)) > 0.0
    # a rope of length zero: M singular, the pivot of the swing is zero (the FMU then factors M; the pivot
    # of the travel divides by it and is not a number there)
    values[eq.q[1]] = 0.0
    assert evaluate_many([eq.pivots[2]], values)[0] == 0.0


@pytest.mark.parametrize(
    ("name", "options"),
    [("double_pendulum_square_disc", {}), ("n_link_pendulum_on_cart", {"n": 3}), ("tower_crane", {})],
)
def test_small_examples_get_them_and_they_equal_numpys_solve(name, options):
    eq = example(name, **options).derive()
    assert eq.accelerations_method == "symbolic elimination", eq.accelerations_method
    rng = np.random.default_rng(11)
    for _ in range(5):
        values = {eq.t: rng.uniform(0, 2)}
        values.update({s: rng.uniform(-1.0, 1.0) for s in [*eq.q, *eq.dq]})
        values.update({p.symbol: p.value * rng.uniform(0.8, 1.25) for p in eq.parameters})
        values.update({i.symbol: rng.uniform(-2.0, 2.0) * (abs(i.value) + 1.0) for i in eq.inputs})
        assert_solves(eq, values)


def test_only_auto_adds_them_and_only_without_constraints_or_contacts():
    assert example("overhead_crane").derive(formulation="virtual_power").accelerations == []
    assert example("four_bar").derive().accelerations == []
    s = sb.System("ball_on_floor")
    y = s.coordinate("y", 1.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.gravity((0, -9.81, 0))
    s.unilateral("floor", y, restitution=0.5)
    assert s.derive().accelerations == []
    free = sb.System("free_mass")
    x = free.coordinate("x", 0.0)
    free.particle("b", free.point("P", free.origin, (x, 0, 0)), free.parameter("m", 2.0))
    free.generalized_force("push", x, free.parameter("F", 1.0))
    eq = free.derive()  # a tree of one prismatic joint: either closed form
    assert eq.accelerations_method in ("symbolic elimination", "articulated-body algorithm")
    values = {eq.t: 0.0, eq.q[0]: 0.3, eq.dq[0]: 0.1, **{p.symbol: p.value for p in eq.parameters}}
    assert evaluate_many(eq.accelerations, values) == pytest.approx([0.5], rel=1e-15)
