"""Operation count of one emitted right-hand side through SymPy (the definition itself).

:mod:`symbody.symbolic.opcount` counts on the expression DAG and calls this only for the
right-hand sides whose SymPy evaluation it does not reproduce; tests compare both.

Example:
    >>> from symbody.symbolic.expr import Context
    >>> ctx = Context(); x = ctx.symbol("x")
    >>> sympy_rhs_op_count(2 * (x + 1), {}, {})
    2
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy

from .expr import ADD, ATAN2, MUL, NEG, NUM, POW, SYM, Expr
from .sympy_bridge import _SYMPY_FUNCS, _sympy_number, _to, count_ops


def sympy_rhs(e: Expr, names: Mapping[Expr, str], cache: dict) -> Any:
    """SymPy expression of the right-hand side ``e`` (its operands by name where named)."""

    def conv(a: Expr) -> Any:
        return _to(a, dict(names) if not isinstance(names, dict) else names, {}, cache)

    op = e.op
    if op == NUM:
        return _sympy_number(e.value)
    if op == SYM:
        return sympy.Symbol(e.name)
    if op == ADD:
        return sympy.Add(conv(e.args[0]), conv(e.args[1]))
    if op == MUL:
        return sympy.Mul(conv(e.args[0]), conv(e.args[1]))
    if op == NEG:
        return -conv(e.args[0])
    if op == POW:
        return sympy.Pow(conv(e.args[0]), _sympy_number(e.args[1].value))
    if op == ATAN2:
        return sympy.atan2(conv(e.args[0]), conv(e.args[1]))
    return _SYMPY_FUNCS[op](conv(e.args[0]))


def sympy_rhs_op_count(e: Expr, names: Mapping[Expr, str], cache: dict) -> int:
    """``sympy.count_ops`` of the right-hand side ``e`` (``cache`` shared between calls)."""
    return count_ops(sympy_rhs(e, names, cache))
