"""The derivation layer and the Equations data object: declared fields, checks without the numerics,
evaluators and counts owned by code generation."""

from __future__ import annotations

import dataclasses
import gc
import warnings

import numpy as np
import pytest

import symbody as sb
from symbody.codegen import evaluators
from symbody.codegen.counts import op_count, stats
from symbody.derive.build import derive_fields
from symbody.equations import Equations
from symbody.numeric import NumericModel, assemble

from support import example


def particle_on(name: str, *rows, x0: float = 1.2) -> sb.System:
    """A particle in the plane under gravity, held by the given rows of ``(x, y)``."""
    s = sb.System(name)
    x, y = s.coordinate("x", x0, unit="m"), s.coordinate("y", 0.0, unit="m")
    s.particle("b", s.point("P", s.origin, (x, y, 0)), s.parameter("m", 1.0, unit="kg"))
    s.gravity((0, -9.81, 0))
    for k, row in enumerate(rows):
        s.constraint(f"c{k}", row(x, y))
    return s


def test_every_attribute_of_equations_is_a_declared_field():
    eq = example("four_bar").derive()
    declared = {f.name for f in dataclasses.fields(Equations)}
    assert set(vars(eq)) == declared
    assert set(derive_fields(example("four_bar"))) == declared


def test_redundant_rows_off_the_constraint_warn_when_they_can_be_satisfied():
    """The start (1.2, 0) is off the circle: the consistency check must iterate to find it satisfiable."""
    s = particle_on("circle_twice", lambda x, y: x**2 + y**2 - 1, lambda x, y: 2 * (x**2 + y**2 - 1))
    with pytest.warns(sb.RedundantConstraintWarning, match=r"'c1' are redundant.*rank 1 of 2"):
        eq = s.derive()
    res = assemble(eq)
    assert np.hypot(*res.q) == pytest.approx(1.0, abs=1e-10)


def test_redundant_rows_that_no_configuration_satisfies_are_a_model_error():
    """Concentric circles of radii 1 and 2: parallel rows at the start, no common point."""
    s = particle_on("two_circles", lambda x, y: x**2 + y**2 - 1, lambda x, y: x**2 + y**2 - 4, x0=1.5)
    with pytest.raises(sb.ModelError, match=r"'c1' depend on the others.*inconsistent.*'c[01]' \(1\.[45]\d*\)"):
        s.derive()


def test_dof_and_redundant_rows_agree_with_the_compiled_jacobian():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sb.RedundantConstraintWarning)
        eq = example("crank_rod_disc", rolling="both").derive()
    D = NumericModel(eq).D(eq.q0)
    rank = np.linalg.matrix_rank(D, tol=1e-9 * max(1.0, np.abs(D).max()))
    assert eq.dof == eq.nq - rank
    assert eq.redundant_rows() == eq.redundant_rows(D) != []
    assert example("four_bar").derive().dof == 1


def test_compiled_evaluators_are_cached_per_equations_and_released_with_them():
    eq = example("simple_pendulum").derive()
    f = evaluators.evaluator(eq, "M", "delta")
    assert evaluators.evaluator(eq, "M", "delta") is f
    M, delta = f(0.0, eq.q0, eq.dq0, eq.u0, eq.p0)
    assert M.shape == (1, 1) and delta.shape == (1,)
    with pytest.raises(KeyError, match="unknown block 'Q'"):
        evaluators.evaluator(eq, "Q")
    before = len(evaluators._CACHE)
    del eq, f
    gc.collect()
    assert len(evaluators._CACHE) == before - 1


def test_stats_are_the_export_counts():
    eq = example("four_bar", spring=False).derive()
    st = stats(eq)
    assert stats(eq) is st
    assert st["ops"]["M_delta"] == op_count(eq, "M", "delta") <= 132
    assert st["dof"] == 1 and st["formulation"] == eq.formulation
