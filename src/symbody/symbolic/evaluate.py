"""Direct numeric evaluation of expressions (for checks and small computations).

For repeated evaluation use the compiled evaluators of :mod:`symbody.codegen.evaluators`.

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> ctx = Context(); x = ctx.symbol("x")
    >>> round(evaluate(2 * sin(x), {x: 0.5}), 6)
    0.958851
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

from .expr import (
    ABS,
    ACOS,
    ADD,
    ASIN,
    ATAN,
    ATAN2,
    COS,
    EXP,
    LOG,
    MUL,
    NEG,
    NUM,
    POW,
    SIGN,
    SIN,
    SYM,
    TAN,
    TANH,
    Expr,
    walk,
)

_F1: dict[int, Callable[[float], float]] = {
    SIN: math.sin,
    COS: math.cos,
    TAN: math.tan,
    EXP: math.exp,
    LOG: math.log,
    TANH: math.tanh,
    ABS: abs,
    SIGN: lambda x: float((x > 0) - (x < 0)),
    ASIN: math.asin,
    ACOS: math.acos,
    ATAN: math.atan,
}


def evaluate_many(exprs: Iterable[Expr], values: Mapping[Expr, float]) -> list[float]:
    """Evaluate several expressions sharing their atoms.

    Raises:
        KeyError: a symbol has no value.

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); x, y = ctx.symbol("x"), ctx.symbol("y")
        >>> evaluate_many([x + y, x * y, x / 4], {x: 2.0, y: 3.0})
        [5.0, 6.0, 0.5]
        >>> evaluate_many([x + y], {x: 2.0})
        Traceback (most recent call last):
        ...
        KeyError: "no value for symbol 'y'"
    """
    roots = list(exprs)
    val: dict[Expr, float] = {}
    for e in walk(roots):
        op = e.op
        if op == NUM:
            v = float(e.value)
        elif op == SYM:
            try:
                v = float(values[e])
            except KeyError:
                raise KeyError(f"no value for symbol {e.name!r}") from None
        elif op == ADD:
            v = val[e.args[0]] + val[e.args[1]]
        elif op == MUL:
            v = val[e.args[0]] * val[e.args[1]]
        elif op == NEG:
            v = -val[e.args[0]]
        elif op == POW:
            v = val[e.args[0]] ** float(e.args[1].value)
        elif op == ATAN2:
            v = math.atan2(val[e.args[0]], val[e.args[1]])
        else:
            v = _F1[op](val[e.args[0]])
        val[e] = v
    return [val[e] for e in roots]


def evaluate(e: Expr, values: Mapping[Expr, float]) -> float:
    """Numeric value of one expression.

    Example:
        >>> from symbody.symbolic.expr import Context, atan2
        >>> ctx = Context(); x = ctx.symbol("x")
        >>> evaluate(atan2(x, 1) - x ** 2, {x: 0.0})
        0.0
    """
    return evaluate_many([e], values)[0]
