"""The algebra core: one module per concept behind ``symbody.symbolic.expr``, and substitution that says when it cannot.

Independent truth here is the definition of each operation: a name imported from
``symbody.symbolic.expr`` is the very object its concept module defines, and a
substitution either replaces symbols or refuses (it never ignores a key).
"""

from __future__ import annotations

import math

import pytest

from symbody.symbolic import arithmetic, atoms, expr, functions, walks
from symbody.symbolic.calculus import subs, subs_many
from symbody.symbolic.evaluate import evaluate
from symbody.symbolic.expr import Context, cos, sin

# what the rest of the package imports from symbody.symbolic.expr
USED_NAMES = """ABS ACOS ADD ASIN ATAN ATAN2 COS EXP FUNCTION_NAMES HALF LOG MUL NEG NUM ONE PI POW SIGN SIN SYM TAN
TANH ZERO Abs Context Expr acos add as_expr asin atan atan2 cos div exp free_symbols log mul mul_pair neg num pow_
rebuild sign sin sqrt sub sum_exprs tan tanh walk""".split()


def test_expr_gathers_the_concept_modules():
    for name in USED_NAMES:
        owners = [m for m in (atoms, arithmetic, functions, walks) if name in vars(m)]
        assert owners, name
        assert getattr(expr, name) is getattr(owners[0], name), name
    assert set(USED_NAMES) <= set(expr.__all__)


def test_operators_build_the_same_atoms_as_the_constructors():
    ctx = Context()
    x, y = ctx.symbol("x"), ctx.symbol("y")
    assert x + y is arithmetic.add(x, y)
    assert x - y is arithmetic.sub(x, y)
    assert x * y is arithmetic.mul(x, y)
    assert x / y is arithmetic.div(x, y)
    assert x**3 is arithmetic.pow_(x, 3)
    assert -x is arithmetic.neg(x)
    vals = {x: 0.7, y: -1.3}
    assert evaluate((x - y) * (x + y) / y, vals) == pytest.approx((0.7**2 - 1.3**2) / -1.3, rel=1e-14)


@pytest.mark.parametrize("substitute", [lambda e, m: subs(e, m), lambda e, m: subs_many([e], m)[0]])
def test_substitution_refuses_a_key_that_is_not_a_symbol(substitute):
    """``subs_many`` ignored such a key and returned the expression unchanged, as if it had substituted."""
    ctx = Context()
    x = ctx.symbol("x")
    e = sin(x) + cos(x)
    with pytest.raises(TypeError, match="can only substitute symbols"):
        substitute(e, {sin(x): 0.5})
    with pytest.raises(TypeError, match="can only substitute symbols"):
        substitute(e, {"x": 0.5})
    assert evaluate(substitute(e, {x: 0.25}), {}) == pytest.approx(math.sin(0.25) + math.cos(0.25), rel=1e-15)


def test_folding_finite_numbers_into_a_non_finite_one_is_refused():
    """Overflow while folding constants, a non-finite exponent or SymPy's infinity gave ``inf*x`` or ``x**(nan)``."""
    import sympy

    from symbody.errors import ModelError
    from symbody.symbolic.sympy_bridge import from_sympy

    ctx = Context()
    x = ctx.symbol("x")
    for build in (
        lambda: x * 1e308 * 1e308,
        lambda: x / 1e-320,
        lambda: x ** float("nan"),
        lambda: x ** float("inf"),
        lambda: from_sympy(sympy.oo * sympy.Symbol("x"), ctx),
    ):
        with pytest.raises(ModelError, match="not finite and cannot be part of a model expression"):
            build()
    assert evaluate(x * 1e300 * 1e7, {x: 1e-300}) == pytest.approx(1e7, rel=1e-12)
