"""The atom table: hash-consing, canonical forms, calculus on atoms, printing."""

import math

import numpy as np
import pytest
import sympy

from symbody import pi
from symbody.symbolic.calculus import diff, set_time_rate, subs, time_derivative
from symbody.symbolic.evaluate import evaluate
from symbody.symbolic.expr import ONE, PI, ZERO, Abs, Context, atan2, cos, exp, log, num, sin, sqrt, tanh
from symbody.symbolic.printing import CPrinter, PythonPrinter
from symbody.symbolic.sympy_bridge import from_sympy, to_sympy


@pytest.fixture
def xyz():
    ctx = Context()
    return ctx, ctx.symbol("x"), ctx.symbol("y"), ctx.symbol("z")


def test_hash_consing_and_canonical_forms(xyz):
    ctx, x, y, z = xyz
    assert x + y is y + x
    assert x * y is y * x
    assert (x - y) is -(y - x)
    assert sin(-x) is -sin(x)
    assert cos(-x) is cos(x)
    assert x + 0 is x and x * 1 is x and x * 0 is ZERO
    assert (-x) * (-y) is x * y
    assert (2 * x) * y is 2 * (x * y)
    assert x * x is x**2
    assert x * (x * y) is x**2 * y
    assert x - x is ZERO
    n = len(ctx.table)
    _ = (x + y) * sin(z) + (y + x) * sin(z)
    assert len(ctx.table) == n + 3  # sin z, product, 2*product (x+y exists already)


def test_trig_of_pi_multiples_fold_exactly(xyz):
    assert cos(PI / 2) is ZERO
    assert sin(PI / 2) is ONE
    assert sin(num(3 * math.pi / 2)).value == -1


def test_derivative_matches_sympy(xyz):
    ctx, x, y, z = xyz
    e = sin(x * y) * exp(-z) + sqrt(x**2 + y**2) - atan2(y, x) + tanh(x / z) + log(2 + x**2) * Abs(y)
    X, Y, Z = sympy.symbols("x y z", real=True)
    E = to_sympy(e)
    rng = np.random.default_rng(1)
    for s, S in ((x, X), (y, Y), (z, Z)):
        d = diff(e, s)
        D = sympy.diff(E, S)
        for _ in range(5):
            vals = rng.uniform(0.3, 2.0, 3)
            got = evaluate(d, dict(zip((x, y, z), vals)))
            want = float(D.subs(dict(zip((X, Y, Z), vals))))
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_derivative_reuses_atoms(xyz):
    ctx, x, y, z = xyz
    s = sin(x)
    d = diff(s * y, x)
    assert d is cos(x) * y
    assert diff(y * z, x) is ZERO


def test_time_derivative_with_rates(xyz):
    ctx, q, dq, ddq = xyz
    set_time_rate(ctx, q, dq, dq)
    set_time_rate(ctx, dq, ddq, ZERO)
    e = sin(q) * dq
    assert time_derivative(e, ctx, True) is cos(q) * dq**2 + sin(q) * ddq
    assert time_derivative(e, ctx, False) is cos(q) * dq**2


def test_substitution(xyz):
    ctx, x, y, z = xyz
    e = sin(x) * y + z
    assert subs(e, {y: 0}) is z
    assert subs(e, {x: y}) is sin(y) * y + z


def test_substitutions_sharing_a_memo_do_a_shared_subexpression_once(xyz):
    ctx, x, y, z = xyz
    shared = sin(x) * y + x * z
    first, second = shared * z, shared + y
    cache: dict = {}
    assert subs(first, {x: 0}, cache) is subs(first, {x: 0}) is ZERO
    assert cache[shared] is ZERO
    size = len(cache)
    assert subs(second, {x: 0}, cache) is subs(second, {x: 0}) is y
    assert len(cache) == size + 1  # only the new sum: the shared part came from the memo


def test_printers_agree_numerically(xyz):
    ctx, x, y, z = xyz
    e = -(1 - x) * y / (z + 2) ** 2 + sqrt(x) - 3 * sin(y) ** 3 - x / y
    vals = {x: 0.7, y: 1.3, z: 0.4}
    names = {x: "x", y: "y", z: "z"}
    py = PythonPrinter().expr(e, names)
    got = eval(py, {"math": math}, {"x": 0.7, "y": 1.3, "z": 0.4})
    assert got == pytest.approx(evaluate(e, vals), rel=1e-14)
    c = CPrinter().expr(e, names)
    assert "pow(" in c or "*" in c


def test_sympy_round_trip(xyz):
    ctx, x, y, z = xyz
    X, Y = sympy.symbols("x y")
    e = from_sympy(sympy.sin(X) ** 2 + 3 * X * Y - sympy.pi / 2, ctx)
    assert evaluate(e, {x: 0.3, y: -1.1}) == pytest.approx(math.sin(0.3) ** 2 - 3 * 0.33 - math.pi / 2)
    back = to_sympy(e)
    vals = {sympy.Symbol("x", real=True): 0.3, sympy.Symbol("y", real=True): -1.1}
    assert float(back.subs(vals)) == pytest.approx(math.sin(0.3) ** 2 - 3 * 0.33 - math.pi / 2)
    with pytest.raises(NameError):
        from_sympy(sympy.Symbol("w"), ctx)


def test_pi_constant_value():
    assert float(pi) == pytest.approx(math.pi)


def test_exact_numbers_stay_exact_after_floats_of_equal_value():
    from fractions import Fraction

    import numpy as np

    from symbody.symbolic.expr import num

    assert isinstance(num(np.float64(0.125)).value, float) and type(num(np.float64(0.125)).value) is float
    assert num(Fraction(1, 8)).value == Fraction(1, 8) and isinstance(num(Fraction(1, 8)).value, Fraction)
    assert num(Fraction(1, 8)) is not num(0.125)
    assert num(2.0) is num(2)  # integral floats are integers
