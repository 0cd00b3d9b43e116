"""Accelerations in one compiled call: the closed form of the equations, or ``[M | delta]`` and the
L D L^T solve in C.

Checked against closed forms (a particle in polar coordinates), against
``numpy.linalg.solve`` of the numpy evaluator's blocks (generated Python, an
independent code path) and against :meth:`NumericModel.accelerations`, on both
call paths (CPython extension module and ctypes); a singular mass matrix and
constrained models are refused by name.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symbody as sb
from symbody.codegen.c_eval import compile_accelerations
from symbody.codegen.evaluators import evaluator
from symbody.errors import ModelError, NumericalError
from symbody.numeric.model import NumericModel

from support import example

PATHS = ["extension", "ctypes"]


def polar_particle() -> sb.Equations:
    """A particle of mass m at (r cos th, r sin th) under gravity -y: M = diag(m, m r^2)."""
    s = sb.System("polar")
    g, m = s.parameter("g", 9.81), s.parameter("m", 2.0)
    r, th = s.coordinate("r", 1.0), s.coordinate("th", 0.3)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, sb.Vector(B, r, 0, 0)), m)
    s.gravity((0, -g, 0))
    return s.derive()


@pytest.mark.parametrize("path", PATHS)
def test_polar_particle_closed_form(path):
    eq = polar_particle()
    f = compile_accelerations(eq, path=path)
    assert f.call_path == path
    rng = np.random.default_rng(3)
    g = 9.81
    for _ in range(10):
        r, th = rng.uniform(0.2, 3.0), rng.uniform(-3, 3)
        dr, dth = rng.normal(size=2)
        ddq = f(0.0, [r, th], [dr, dth], [], eq.p0)
        expected = [r * dth**2 - g * math.sin(th), (-g * math.cos(th) - 2 * dr * dth) / r]
        np.testing.assert_allclose(ddq, expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("path", PATHS)
def test_singular_mass_matrix_is_an_error(path):
    eq = polar_particle()
    f = compile_accelerations(eq, path=path)
    with pytest.raises(
        NumericalError, match=r"mass matrix is not positive definite \(pivot 2 of 2\) at q = \[0\. +0\.3\]"
    ):
        f(0.0, np.array([0.0, 0.3]), [1.0, 1.0], [], eq.p0)
    with pytest.raises(NumericalError, match="pivot 1 of 2"):
        f(0.0, [1.0, 0.3], [0.0, 0.0], [], [9.81, math.nan])  # NaN mass


@pytest.mark.parametrize("formulation", ["auto", "virtual_power"])  # closed form (n = 1, 3: elimination,
@pytest.mark.parametrize("n", [1, 3, 10])  # n = 10: articulated-body algorithm) or the L D L^T solve in C
def test_chain_matches_numpy_solve(n, formulation):
    eq = example("n_link_pendulum_on_cart", n=n).derive(formulation=formulation)
    assert bool(eq.accelerations) == (formulation == "auto")
    blocks = evaluator(eq, "M", "delta")
    fast = {path: compile_accelerations(eq, path=path) for path in PATHS}
    rng = np.random.default_rng(n)
    for _ in range(10):
        q, dq = rng.uniform(-2, 2, size=(2, eq.nq))
        u = rng.normal(size=len(eq.inputs))
        p = eq.p0 * rng.uniform(0.5, 1.5, size=eq.p0.size)
        M, delta = blocks(0.0, q, dq, u, p)
        expected = np.linalg.solve(M, delta)
        scale = 1.0 + np.max(np.abs(expected))
        got = fast["extension"](0.0, q, dq, u, p)
        assert np.max(np.abs(got - expected)) <= 1e-11 * scale * np.linalg.cond(M) ** 0.5
        assert np.array_equal(got, fast["ctypes"](0.0, q, dq, u, p))
        ddq, _ = NumericModel(eq, p).accelerations(q, dq, u=u)
        assert np.max(np.abs(got - ddq)) <= 1e-11 * scale * np.linalg.cond(M) ** 0.5


@pytest.mark.parametrize("path", PATHS)
def test_out_and_argument_checks(path):
    eq = polar_particle()
    f = compile_accelerations(eq, path=path)
    out = np.full(2, 7.0)
    got = f(0.0, [1.0, 0.5], [0.2, 0.1], [], eq.p0, out=out)
    assert got is out
    assert np.array_equal(out, f(0.0, [1.0, 0.5], [0.2, 0.1], [], eq.p0))
    with pytest.raises(TypeError, match=r"out must be a writable C-contiguous float64 array of shape \(2,\)"):
        f(0.0, [1.0, 0.5], [0.2, 0.1], [], eq.p0, out=np.zeros(3))
    with pytest.raises(ValueError, match="dq has 1 values, the model has 2"):
        f(0.0, [1.0, 0.5], [0.2], [], eq.p0)
    with pytest.raises(ValueError, match=r"u has 1 values, the model has 0"):
        f(0.0, [1.0, 0.5], [0.2, 0.1], [1.0], eq.p0)
    with pytest.raises(TypeError, match="at most 5 positional arguments"):
        f(0.0, [1.0, 0.5], [0.2, 0.1], [], eq.p0, None)
    with pytest.raises(TypeError, match="unexpected keyword argument 'ddq'"):
        f(0.0, [1.0, 0.5], [0.2, 0.1], [], eq.p0, ddq=[0.0, 0.0])


def test_constrained_models_are_refused():
    eq = example("four_bar").derive()
    with pytest.raises(ModelError, match="'four_bar' has 2 constraint rows"):
        compile_accelerations(eq)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("formulation", ["auto", "virtual_power"])
def test_large_mass_matrices_use_heap_scratch(path, formulation):
    """66 coordinates: M (66 x 66) does not fit the kernel's stack scratch (the L D L^T path of
    formulation="virtual_power"; "auto" gives the articulated-body closed form); ddq_i = -g for every mass."""
    s = sb.System("falling_masses")
    g = s.parameter("g", 9.81)
    for i in range(66):
        s.particle(f"m{i}", s.point(f"P{i}", s.origin, (s.coordinate(f"x{i}", 0.1 * i), i, 0)), 1.0 + i)
    s.gravity((-g, 0, 0))
    eq = s.derive(formulation=formulation)
    ddq = compile_accelerations(eq, path=path)(0.0, eq.q0, eq.dq0, [], [3.0])
    np.testing.assert_allclose(ddq, np.full(66, -3.0), rtol=1e-14)
