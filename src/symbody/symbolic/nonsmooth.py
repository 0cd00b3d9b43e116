"""Non-smooth functions for loads, and the switching functions they define.

``maximum``, ``minimum``, ``positive_part`` and ``step`` are written with ``Abs`` and ``sign``, so
that they print, differentiate and evaluate everywhere expressions do (Python and C) without new
operations.  A spring that only pushes is ``k * positive_part(-x)``, a rope that only pulls
``k * positive_part(stretch)``, a buffer ``k * positive_part(x - x_free)``.

Each ``Abs`` or ``sign`` in the equations of motion has a kink or a jump where its argument crosses
zero: a switching surface.  :func:`switching_functions` lists those arguments; the derivation keeps
them in ``Equations.switches`` and the simulation locates their zeros as events, so that no
integration step straddles a kink.

Example:
    >>> from symbody.symbolic.expr import Context
    >>> from symbody.symbolic.evaluate import evaluate
    >>> ctx = Context(); x = ctx.symbol("x")
    >>> [evaluate(positive_part(x), {x: v}) for v in (-2.0, 3.0)]
    [0.0, 3.0]
    >>> [str(e) for e in switching_functions([maximum(x, 1) + step(x - 2)])]
    ['1 - x', '2 - x']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .expr import ABS, HALF, SIGN, Abs, Expr, as_expr, reachable, sign


def maximum(a: Any, b: Any) -> Expr:
    """``max(a, b) = (a + b + |a - b|) / 2``."""
    a, b = as_expr(a), as_expr(b)
    return HALF * (a + b + Abs(a - b))


def minimum(a: Any, b: Any) -> Expr:
    """``min(a, b) = (a + b - |a - b|) / 2``."""
    a, b = as_expr(a), as_expr(b)
    return HALF * (a + b - Abs(a - b))


def positive_part(a: Any) -> Expr:
    """``max(a, 0) = (a + |a|) / 2``."""
    a = as_expr(a)
    return HALF * (a + Abs(a))


def step(a: Any) -> Expr:
    """Heaviside's step ``(1 + sign(a)) / 2`` (1 for ``a > 0``, 0 for ``a < 0``, 1/2 at 0)."""
    return HALF * (1 + sign(as_expr(a)))


def switching_functions(exprs: Iterable[Expr]) -> list[Expr]:
    """The arguments of the ``Abs`` and ``sign`` nodes below ``exprs`` that are not constant,
    each once, in a reproducible order (by their printed form)."""
    nodes: set[Any] = reachable(exprs)  # (Expr declares its attributes in __slots__ only)
    found = {e.args[0] for e in nodes if e.op in (ABS, SIGN) and e.args[0].mask}
    return sorted(found, key=lambda e: (str(e), e.id))


__all__ = ["maximum", "minimum", "positive_part", "step", "switching_functions"]
