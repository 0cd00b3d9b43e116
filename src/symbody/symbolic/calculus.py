"""Differentiation, time derivatives and substitution on atomized expressions.

These are the recursive algorithms of Plaza Puértolas, 2015 (figs. 3.6-3.8): they walk the
atom DAG without expanding it, reuse every atom whose result is unchanged and
return re-atomized results.  Each node is visited at most once per operation
(results are memoized per context), and the dependency bit mask of a node lets
a whole sub-DAG be skipped when it does not contain the variable.

Example:
    >>> from symbody.symbolic.expr import Context, sin, cos
    >>> from symbody.symbolic.calculus import diff
    >>> ctx = Context()
    >>> x = ctx.symbol("x")
    >>> diff(sin(x) * x, x) is cos(x) * x + sin(x)
    True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

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
    ONE,
    POW,
    SIGN,
    SIN,
    SYM,
    TAN,
    TANH,
    ZERO,
    Context,
    Expr,
    add,
    as_expr,
    cos,
    div,
    mul,
    neg,
    num,
    pow_,
    rebuild,
    sign,
    sin,
    sqrt,
    sub,
    tan,
    tanh,
)


def _chain(e: Expr, x: Expr, dx: Expr) -> Expr:
    """Derivative of the one-argument function node ``e = f(x)`` given ``dx``."""
    op = e.op
    if op == SIN:
        return mul(cos(x), dx)
    if op == COS:
        return neg(mul(sin(x), dx))
    if op == TAN:
        return mul(add(ONE, pow_(tan(x), 2)), dx)
    if op == EXP:
        return mul(e, dx)
    if op == LOG:
        return div(dx, x)
    if op == TANH:
        return mul(sub(ONE, pow_(tanh(x), 2)), dx)
    if op == ABS:
        return mul(sign(x), dx)
    if op == SIGN:
        return ZERO
    if op == ASIN:
        return div(dx, sqrt(sub(ONE, pow_(x, 2))))
    if op == ACOS:
        return neg(div(dx, sqrt(sub(ONE, pow_(x, 2)))))
    if op == ATAN:
        return div(dx, add(ONE, pow_(x, 2)))
    raise AssertionError(f"no derivative rule for operation {op}")  # pragma: no cover - every op has one


def _derive(e: Expr, leaf: Callable[[Expr], Expr], mask: int, cache: dict[Expr, Expr]) -> Expr:
    """Generic recursive derivative; ``leaf(sym)`` gives the derivative of a symbol."""
    if not (e.mask & mask):
        return ZERO
    r = cache.get(e)
    if r is not None:
        return r
    op = e.op
    if op == SYM:
        r = leaf(e)
    elif op == ADD:
        a, b = e.args
        r = add(_derive(a, leaf, mask, cache), _derive(b, leaf, mask, cache))
    elif op == MUL:
        a, b = e.args
        r = add(mul(_derive(a, leaf, mask, cache), b), mul(a, _derive(b, leaf, mask, cache)))
    elif op == NEG:
        r = neg(_derive(e.args[0], leaf, mask, cache))
    elif op == POW:
        x, n = e.args
        nv = n.value
        dx = _derive(x, leaf, mask, cache)
        r = mul(mul(num(nv), pow_(x, nv - 1)), dx)
    elif op == ATAN2:
        y, x = e.args
        dy = _derive(y, leaf, mask, cache)
        dx = _derive(x, leaf, mask, cache)
        r = div(sub(mul(x, dy), mul(y, dx)), add(pow_(x, 2), pow_(y, 2)))
    else:
        x = e.args[0]
        r = _chain(e, x, _derive(x, leaf, mask, cache))
    cache[e] = r
    return r


def diff(e: Expr, symbol: Expr) -> Expr:
    """Partial derivative of ``e`` with respect to ``symbol``.

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); x = ctx.symbol("x"); y = ctx.symbol("y")
        >>> diff(x * y + x, x) is y + 1
        True
    """
    if symbol.op != SYM:
        raise TypeError("can only differentiate with respect to a symbol")
    if not (e.mask & symbol.mask):
        return ZERO
    ctx = symbol.ctx
    if ctx is None:  # pragma: no cover - a symbol always belongs to a context
        raise AssertionError("symbol without a context")
    cache = ctx.diff_cache.get(symbol)
    if cache is None:
        cache = ctx.diff_cache[symbol] = {}
    return _derive(e, lambda s: ONE, symbol.mask, cache)


def directional_derivative(exprs: Sequence[Expr], direction: dict[Expr, Expr]) -> list[Expr]:
    """Forward-mode derivative of ``exprs`` along ``direction`` (symbol -> its rate, e.g. a direction symbol).

    One memoized walk of the atom DAG for all expressions: the result is linear in
    the size of ``exprs`` (``d(f(a, b)) = f_a da + f_b db`` per atom), unlike a
    Jacobian, which has one entry per pair of expression and symbol.

    Example:
        >>> from symbody.symbolic.expr import Context, sin
        >>> ctx = Context(); x = ctx.symbol("x"); y = ctx.symbol("y"); v = ctx.symbol("v")
        >>> directional_derivative([x * y + sin(x)], {x: v}) == [v * y + cos(x) * v]
        True
    """
    mask = 0
    for s in direction:
        if s.op != SYM:
            raise TypeError("can only differentiate with respect to symbols")
        mask |= s.mask
    cache: dict[Expr, Expr] = {}
    return [_derive(e, lambda s: direction[s], mask, cache) for e in exprs]


def set_time_rate(ctx: Context, symbol: Expr, with_acc: Expr, without_acc: Expr) -> None:
    """Declare ``d symbol/dt`` (with and without accelerations) for :func:`time_derivative`.

    The system declares ``dq/dt = dq`` for coordinates, ``d(dq)/dt = ddq`` (or 0
    when accelerations are dropped) for velocities and ``dt/dt = 1`` for time.

    Example:
        >>> from symbody.symbolic.expr import Context, ONE, ZERO
        >>> ctx = Context(); t, q, dq, ddq = (ctx.symbol(n) for n in ("t", "q", "dq", "ddq"))
        >>> set_time_rate(ctx, t, ONE, ONE); set_time_rate(ctx, q, dq, dq); set_time_rate(ctx, dq, ddq, ZERO)
        >>> time_derivative(q * dq, ctx), time_derivative(q * dq, ctx, accelerations=False)
        (dq**2 + q*ddq, dq**2)
    """
    ctx.time_rates[symbol] = (with_acc, without_acc)
    ctx.dt_cache = {True: {}, False: {}}
    ctx.dt_masks = {}


def _rate_mask(ctx: Context, accelerations: bool) -> int:
    m = 0
    idx = 0 if accelerations else 1
    for s, rates in ctx.time_rates.items():
        rate = rates[idx]
        if rate is not None and not rate.is_zero:
            m |= s.mask
    return m


def time_derivative(e: Expr | float, ctx: Context, accelerations: bool = True) -> Expr:
    """Total time derivative of ``e``.

    With ``accelerations=False`` the accelerations are set to zero, which gives
    the velocity-dependent part of an acceleration (``J_q qdot + J_t``) or the
    ``-gamma`` of a velocity constraint.  Symbols without a declared rate
    (:func:`set_time_rate`) are constant.

    Example:
        >>> from symbody.symbolic.expr import Context, ONE, sin
        >>> ctx = Context(); t, k = ctx.symbol("t"), ctx.symbol("k")
        >>> set_time_rate(ctx, t, ONE, ONE)
        >>> time_derivative(sin(k * t), ctx)
        k*cos(t*k)
    """
    if isinstance(e, (int, float)):
        return ZERO
    idx = 0 if accelerations else 1
    cache = ctx.dt_cache[accelerations]
    mask = ctx.dt_masks.get(accelerations)
    if mask is None:
        mask = ctx.dt_masks[accelerations] = _rate_mask(ctx, accelerations)
    rates = ctx.time_rates

    def leaf(s: Expr) -> Expr:
        r = rates.get(s)
        rate = None if r is None else r[idx]
        return ZERO if rate is None else rate

    return _derive(e, leaf, mask, cache)


def subs(e: Expr, mapping: Mapping[Expr, object], cache: dict[Expr, Expr] | None = None) -> Expr:
    """Substitute symbols by expressions in an atomized expression.

    Atoms that do not contain any substituted symbol are returned unchanged.  ``cache`` is a memo
    that calls with the same ``mapping`` may share (shared subexpressions then done once).

    Example:
        >>> from symbody.symbolic.expr import Context, sin
        >>> ctx = Context(); x, y = ctx.symbol("x"), ctx.symbol("y")
        >>> e = sin(x) * y + y
        >>> subs(e, {x: 0}), subs(e, {y: 2})
        (y, 2 + 2*sin(x))
    """
    if not mapping:
        return e
    m, mask = _substitution(mapping)
    return _subs(e, m, mask, {} if cache is None else cache)


def _substitution(mapping: Mapping[Expr, object]) -> tuple[dict[Expr, Expr], int]:
    """The substituted symbols with their expressions, and the mask of the symbols.

    Raises:
        TypeError: a key is not a symbol (an atom or a name would be ignored by the walk).
    """
    m: dict[Expr, Expr] = {}
    mask = 0
    for k, v in mapping.items():
        if not isinstance(k, Expr) or k.op != SYM:
            raise TypeError(f"can only substitute symbols, got {k!r}")
        m[k] = as_expr(v, k.ctx)
        mask |= k.mask
    return m, mask


def _subs(e: Expr, m: Mapping[Expr, Expr], mask: int, cache: dict[Expr, Expr]) -> Expr:
    if not (e.mask & mask):
        return e
    r = cache.get(e)
    if r is not None:
        return r
    if e.op == SYM:
        r = m.get(e, e)
    else:
        r = rebuild(e, tuple(_subs(a, m, mask, cache) for a in e.args))
    cache[e] = r
    return r


def subs_many(exprs: Iterable[Expr], mapping: Mapping[Expr, object]) -> list[Expr]:
    """Substitute in several expressions sharing one memo (shared atoms done once).

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); x, y = ctx.symbol("x"), ctx.symbol("y")
        >>> subs_many([x + y, x * y], {x: 3})
        [3 + y, 3*y]
    """
    m, mask = _substitution(mapping)
    cache: dict[Expr, Expr] = {}
    return [_subs(e, m, mask, cache) for e in exprs]


def jacobian(exprs: Sequence[Expr], symbols: Sequence[Expr]) -> list[list[Expr]]:
    """Matrix of partial derivatives ``d exprs[i] / d symbols[j]``.

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); x, y = ctx.symbol("x"), ctx.symbol("y")
        >>> jacobian([x * y, x + 1], [x, y])
        [[y, x], [1, 0]]
    """
    return [[diff(e, s) if e.mask & s.mask else ZERO for s in symbols] for e in exprs]


def is_linear_in(e: Expr, symbols: Sequence[Expr]) -> bool:
    """True if ``e`` is (structurally) linear in ``symbols``: its gradient does not depend on them.

    Example:
        >>> from symbody.symbolic.expr import Context, sin
        >>> ctx = Context(); x, y = ctx.symbol("x"), ctx.symbol("y")
        >>> is_linear_in(sin(y) * x + y, [x]), is_linear_in(x * y, [x, y])
        (True, False)
    """
    mask = 0
    for s in symbols:
        mask |= s.mask
    for s in symbols:
        if e.mask & s.mask and diff(e, s).mask & mask:
            return False
    return True


__all__ = [
    "diff",
    "directional_derivative",
    "time_derivative",
    "set_time_rate",
    "subs",
    "subs_many",
    "jacobian",
    "is_linear_in",
]
