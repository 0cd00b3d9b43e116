"""The articulated-body accelerations (``symbody.derive.articulated``) and their choice by ``"auto"``.

* on trees of several shapes (3-D chain, branched tree of spherical joints, a mixed tree of
  revolute, prismatic and spherical joints with offsets off the axes, input forces, a spring-damper,
  viscous friction and gravity) the atoms of ``ddq`` equal numpy's solve of the virtual-power
  formulation's ``M`` and ``delta`` (an independent derivation) at random states and parameters;
* the pivots are positive at physical parameters and one is not for a negative mass;
* ``"auto"`` chooses them on large trees only (fewer operations than ``[M|delta]`` and a solve),
  never on closed loops, and ``"recursive"`` never adds them.
"""

from __future__ import annotations

import numpy as np
import pytest

from symbody.codegen.counts import op_count
from symbody.derive.formulation import SOLVE_WEIGHT, solve_ops
from symbody.derive.recursive import tree_of
from symbody.errors import ModelError
from symbody.symbolic.evaluate import evaluate_many

from support import example
from support.closed_form import assert_solves
from support.trees import branched, chain_3d, mixed, turntable


def random_values(eq, rng: np.random.Generator) -> dict:
    values = {eq.t: 0.3}
    for q, dq in zip(eq.q, eq.dq):
        values[q], values[dq] = rng.uniform(-1.2, 1.2), rng.uniform(-2.0, 2.0)
    for p in eq.parameters:
        values[p.symbol] = p.value * rng.uniform(0.8, 1.25)
    for u in eq.inputs:
        values[u.symbol] = rng.uniform(-2.0, 2.0)
    return values


@pytest.mark.parametrize(
    "model",
    [lambda: chain_3d(3), branched, mixed, turntable, lambda: example("n_link_pendulum_on_cart", n=5)],
    ids=["chain", "branched", "mixed", "turntable", "n-link on cart"],
)
def test_accelerations_equal_the_solve_of_the_virtual_power_equations(model):
    # check=False: the turntable's numbers carry no units next to its time function (units are not the subject)
    aba = model().derive(formulation="articulated", check=False)
    vp = model().derive(formulation="virtual_power", check=False)
    assert aba.formulation == "articulated" and len(aba.accelerations) == len(aba.pivots) == aba.nq
    rng = np.random.default_rng(5)
    for _ in range(6):
        values = random_values(aba, rng)
        by_name = {s.name: v for s, v in values.items()}
        other = {
            s: by_name[s.name]
            for s in [vp.t, *vp.q, *vp.dq, *(p.symbol for p in vp.parameters), *(u.symbol for u in vp.inputs)]
        }
        assert_solves(aba, values, reference=vp, reference_values=other)


def test_a_negative_mass_gives_a_pivot_that_is_not_positive():
    eq = chain_3d(2).derive(formulation="articulated")
    values = random_values(eq, np.random.default_rng(1))
    values[next(p.symbol for p in eq.parameters if p.name == "m1")] = -1.0
    assert min(evaluate_many(eq.pivots, values)) < 0.0


def test_auto_chooses_the_articulated_body_algorithm_where_it_is_shorter():
    large = chain_3d(6).derive()
    assert large.formulation == "articulated" and len(large.accelerations) == 18
    direct = op_count(large, "accelerations", "pivots")
    assert direct < op_count(large, "M", "delta") + SOLVE_WEIGHT * solve_ops(tree_of(chain_3d(6)), 18)
    assert chain_3d(6).derive(formulation="recursive").accelerations == []


def test_closed_loops_keep_m_and_delta():
    eq = example("four_bar").derive()
    assert eq.formulation != "articulated" and eq.accelerations == []
    with pytest.raises(ModelError, match="articulated-body accelerations need a tree without constraints"):
        example("four_bar").derive(formulation="articulated")
