"""Operation counts taken on the expression DAG equal ``sympy.count_ops`` (the definition).

The count of docs/explanation/architecture.md is ``sympy.count_ops`` of every emitted right-hand
side after SymPy's evaluation; :mod:`symbody.symbolic.opcount` reproduces that evaluation
without SymPy.  The tests compare, right-hand side by right-hand side, with SymPy itself
(:mod:`symbody.symbolic.sympy_count`) on every example model, on random expressions built
to meet each evaluation rule (like terms, distribution of numbers, powers, signs of odd
functions, floats and fractions), and check that the four-bar keeps its 132 operations.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import sympy

from symbody.codegen.counts import export_plan, stats
from symbody.symbolic import expr as X
from symbody.symbolic import opcount
from symbody.symbolic.plan import ExportPlan
from symbody.symbolic.sympy_count import sympy_rhs, sympy_rhs_op_count

from support import example

BLOCKS = ("M", "delta", "Phi", "Phi_q", "D", "beta", "gamma", "outputs")


def assignments(plan: ExportPlan):
    """``(node, is_temporary)`` of every right-hand side the plan emits."""
    yield from ((e, True) for e in plan.temps)
    for exprs in plan.blocks.values():
        yield from ((e, False) for e in exprs if e.op not in (X.SYM, X.NUM) and e not in plan.names)


def compare_plan(plan: ExportPlan) -> tuple[int, int]:
    """Assert DAG count == SymPy count for each right-hand side; (assignments, SymPy fallbacks)."""
    cache: dict = {}
    n = fallbacks = 0
    for e, top in assignments(plan):
        d = opcount.dag_op_count(e, plan.names, top)
        s = sympy_rhs_op_count(e, plan.names, cache)
        n += 1
        if d is None:
            fallbacks += 1
        else:
            assert d == s, f"{sympy_rhs(e, plan.names, {})}: DAG count {d}, sympy.count_ops {s}"
    return n, fallbacks


def example_plans(name: str):
    eq = example(name).derive()
    for trig in ("fold", "expand"):
        for block in BLOCKS:
            if block in eq.blocks():
                yield export_plan(eq, block, trig=trig)
    yield export_plan(eq, "M", "delta")


@pytest.mark.parametrize("name", ["four_bar", "double_pendulum_square_disc", "slider_crank"])
def test_example_counts_equal_sympy(name):
    n = fallbacks = 0
    for plan in example_plans(name):
        a, f = compare_plan(plan)
        n, fallbacks = n + a, fallbacks + f
    assert n > 20
    assert fallbacks == 0  # the examples need no SymPy at all


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["crank_rod_disc", "n_link_pendulum_on_cart", "overhead_crane", "tower_crane", "simple_pendulum"]
)
def test_all_example_counts_equal_sympy(name):
    fallbacks = sum(compare_plan(plan)[1] for plan in example_plans(name))
    assert fallbacks == 0


@pytest.mark.parametrize(("formulation", "ops"), [("virtual_power", 132), ("recursive", 128)])
def test_four_bar_keeps_its_operation_counts(formulation, ops):
    """132 is lib_3D_MEC-GiNaC's listing B.6 (Plaza Puértolas, 2015) of the same model."""
    eq = example("four_bar", spring=False).derive(formulation=formulation)
    plan = export_plan(eq, "M", "delta")
    cache: dict = {}
    by_sympy = sum(sympy_rhs_op_count(e, plan.names, cache) for e, _ in assignments(plan))
    assert plan.op_count() == by_sympy == ops
    assert stats(eq)["ops"]["M_delta"] == ops


# -- random expressions -------------------------------------------------------------------
NUMBERS = [2, 3, -1, -2, Fraction(1, 2), Fraction(-3, 4), 0.5, -2.5, 1.5, X.PI]
FUNCTIONS = [X.sin, X.cos, X.tan, X.asin, X.acos, X.atan, X.tanh]
UNSUPPORTED = [X.exp, X.log, X.Abs, X.sign]


def random_expr(rng: random.Random, symbols: list, depth: int, functions: list) -> X.Expr:
    if depth == 0 or rng.random() < 0.2:
        return rng.choice(symbols) if rng.random() < 0.75 else X.as_expr(rng.choice(NUMBERS))
    r = rng.random()
    sub = lambda: random_expr(rng, symbols, depth - 1, functions)  # noqa: E731
    if r < 0.3:
        return sub() + sub()
    if r < 0.45:
        return sub() - sub()
    if r < 0.7:
        return sub() * sub()
    if r < 0.78:
        return -sub()
    a = sub()
    if a.op == X.NUM:
        return a
    if r < 0.9:
        return a ** rng.choice([2, 3, -1, -2, Fraction(1, 2), Fraction(-1, 2), Fraction(3, 2)])
    return rng.choice(functions)(a)


def random_plans(seed: int, count: int, functions: list):
    rng = random.Random(seed)
    ctx = X.Context()
    symbols = [ctx.symbol(n) for n in ("a", "b", "c", "q10", "q2", "t1")]
    for _ in range(count):
        try:
            exprs = [random_expr(rng, symbols, rng.randint(1, 6), functions) for _ in range(rng.randint(1, 4))]
            exprs = [e for e in exprs if e.op not in (X.SYM, X.NUM)]
            if exprs:
                for optimize in (False, True):
                    yield ExportPlan({"f": exprs}, {s: s.name for s in symbols}, optimize=optimize)
        except (ValueError, ZeroDivisionError):  # a random constant outside a function's domain
            continue


@pytest.mark.parametrize("seed", range(4))
def test_random_expressions_count_as_sympy(seed):
    n = fallbacks = 0
    for plan in random_plans(seed, 150, FUNCTIONS):
        a, f = compare_plan(plan)
        n, fallbacks = n + a, fallbacks + f
    assert n > 300
    assert fallbacks < 0.25 * n  # most right-hand sides are counted without SymPy


def test_unsupported_rules_fall_back_to_sympy():
    """exp, log, Abs, sign, atan2 and functions of functions: the total still equals SymPy's."""
    for plan in random_plans(11, 60, FUNCTIONS + UNSUPPORTED):
        cache: dict = {}
        expected = sum(sympy_rhs_op_count(e, plan.names, cache) for e, _ in assignments(plan))
        assert plan.op_count() == expected
    ctx = X.Context()
    x, y = ctx.symbol("x"), ctx.symbol("y")
    for e in (X.exp(x) * X.exp(y), X.tan(X.asin(x)), -X.tan(-X.asin(x - y)), X.atan2(-y, x), X.sin(x + X.PI)):
        assert opcount.dag_op_count(e, {}) is None
        assert opcount.rhs_op_count(e, {}, {}) == int(sympy.count_ops(sympy_rhs(e, {}, {})))


@pytest.mark.parametrize(
    ("build", "count"),
    [
        (lambda x, y: 2 * (x + y), 3),  # 2*x + 2*y: a number is distributed over a sum
        (lambda x, y: X.sin(y - x), 3),  # -sin(x - y): the first name keeps the plus sign
        (lambda x, y: X.sin(x - y), 2),
        (lambda x, y: X.cos(y - x), 2),
        (lambda x, y: 1 / (2 * (x + y)), 4),  # 1/(2*x + 2*y)
        (lambda x, y: x / 2 - y, 2),  # x/2 - y: DIV and SUB, no NEG
        (lambda x, y: (x * y**2) ** 2 * x, 3),  # x**3*y**4
        (lambda x, y: 0.5 * (x + Fraction(1, 2)) + 0.5 * x, 2),  # 1.0*x + 0.25
        (lambda x, y: -x - y, 2),  # NEG + SUB
        (lambda x, y: X.sqrt(x) * y, 3),  # MUL + POW + DIV (the exponent 1/2)
    ],
)
def test_known_counts(build, count):
    ctx = X.Context()
    x, y = ctx.symbol("x"), ctx.symbol("y")
    e = build(x, y)
    assert opcount.dag_op_count(e, {}, top=False) == count
    assert int(sympy.count_ops(sympy_rhs(e, {}, {}))) == count
