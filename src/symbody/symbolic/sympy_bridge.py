"""Conversion between symbody expressions and SymPy.

``to_sympy`` de-atomizes (optionally keeping chosen nodes as SymPy symbols, which
is how operation counts of emitted code are taken); ``from_sympy`` lets users
write model expressions with SymPy, resolving symbol names in a context.

Example:
    >>> import sympy
    >>> from symbody.symbolic.expr import Context
    >>> ctx = Context(); x = ctx.symbol("x")
    >>> from_sympy(sympy.sin(sympy.Symbol("x")) ** 2, ctx) is sin(x) ** 2
    True
    >>> to_sympy(from_sympy(sympy.Symbol("x") + 1, ctx))
    x + 1
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy

from ..errors import UndeclaredSymbolError
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
    PI,
    POW,
    SIGN,
    SIN,
    SYM,
    TAN,
    TANH,
    Abs,
    Context,
    Expr,
    Number,
    acos,
    add,
    asin,
    atan,
    atan2,
    cos,
    exp,
    log,
    mul,
    num,
    pow_,
    sign,
    sin,
    tan,
    tanh,
)

if TYPE_CHECKING:
    from sympy import Basic as SympyExpr  # no type information: Any to mypy, a name for the reader


_SYMPY_FUNCS: dict[int, Callable[[SympyExpr], SympyExpr]] = {
    SIN: sympy.sin,
    COS: sympy.cos,
    TAN: sympy.tan,
    EXP: sympy.exp,
    LOG: sympy.log,
    TANH: sympy.tanh,
    ABS: sympy.Abs,
    SIGN: sympy.sign,
    ASIN: sympy.asin,
    ACOS: sympy.acos,
    ATAN: sympy.atan,
}


def _sympy_number(v: Number) -> SympyExpr:
    if isinstance(v, int):
        return sympy.Integer(v)
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    if v == math.pi:
        return sympy.pi
    return sympy.Float(v)


def to_sympy(
    e: Expr,
    names: Mapping[Expr, str] | None = None,
    symbols: Mapping[Expr, SympyExpr] | None = None,
    cache: dict[Expr, SympyExpr] | None = None,
) -> SympyExpr:
    """SymPy expression of ``e``.

    Args:
        names: nodes to represent by a SymPy symbol of the given name (e.g. temporaries).
        symbols: optional map from symbol node to SymPy object (defaults to ``Symbol(name)``).
        cache: memo shared between calls converting related expressions.

    Example:
        >>> ctx = Context(); x = ctx.symbol("x")
        >>> s = sin(x) + 1
        >>> to_sympy(s * s, names={s: "a0"})
        a0**2
    """
    names = names or {}
    symbols = symbols if symbols is not None else {}
    cache = cache if cache is not None else {}
    return _to(e, names, symbols, cache)


def _to(
    e: Expr, names: Mapping[Expr, str], symbols: Mapping[Expr, SympyExpr], cache: dict[Expr, SympyExpr]
) -> SympyExpr:
    r = cache.get(e)
    if r is not None:
        return r
    n = names.get(e)
    if n is not None:
        r = sympy.Symbol(n, real=True)
    else:
        op = e.op
        if op == NUM:
            r = _sympy_number(e.value)
        elif op == SYM:
            r = symbols.get(e)
            if r is None:
                r = sympy.Symbol(e.name, real=True)
        elif op == ADD:
            r = sympy.Add(_to(e.args[0], names, symbols, cache), _to(e.args[1], names, symbols, cache))
        elif op == MUL:
            r = sympy.Mul(_to(e.args[0], names, symbols, cache), _to(e.args[1], names, symbols, cache))
        elif op == NEG:
            r = -_to(e.args[0], names, symbols, cache)
        elif op == POW:
            r = sympy.Pow(_to(e.args[0], names, symbols, cache), _sympy_number(e.args[1].value))
        elif op == ATAN2:
            r = sympy.atan2(_to(e.args[0], names, symbols, cache), _to(e.args[1], names, symbols, cache))
        else:
            r = _SYMPY_FUNCS[op](_to(e.args[0], names, symbols, cache))
    cache[e] = r
    return r


_FROM_FUNCS: dict[SympyExpr, Callable[[Expr], Expr]] = {
    sympy.sin: sin,
    sympy.cos: cos,
    sympy.tan: tan,
    sympy.exp: exp,
    sympy.log: log,
    sympy.tanh: tanh,
    sympy.Abs: Abs,
    sympy.sign: sign,
    sympy.asin: asin,
    sympy.acos: acos,
    sympy.atan: atan,
}


def from_sympy(x: object, ctx: Context | None) -> Expr:
    """Convert a SymPy expression (or anything ``sympy.sympify`` accepts), resolving symbols by name in ``ctx``.

    Raises:
        UndeclaredSymbolError: a symbol is not declared in ``ctx``.

    Example:
        >>> ctx = Context(); x = ctx.symbol("x")
        >>> from_sympy("2*x + pi", ctx) is 2 * x + PI
        True
    """
    return _from(sympy.sympify(x), ctx, {})


def _from(x: SympyExpr, ctx: Context | None, cache: dict[SympyExpr, Expr]) -> Expr:
    r = cache.get(x)
    if r is not None:
        return r
    if x.is_Number:
        if x.is_Integer:
            r = num(int(x))
        elif x.is_Rational:
            r = num(Fraction(int(x.p), int(x.q)))
        else:
            r = num(float(x))
    elif x is sympy.pi:
        r = PI
    elif x is sympy.E:
        r = num(math.e)
    elif x.is_Symbol or isinstance(x, sympy.Function) and x.func.__class__ is sympy.core.function.UndefinedFunction:
        name = x.name if x.is_Symbol else x.func.__name__
        s = ctx.by_name.get(name) if ctx is not None else None
        if s is None:
            raise UndeclaredSymbolError(name)
        r = s
    elif x.is_Add:
        r = num(0)
        for a in x.args:
            r = add(r, _from(a, ctx, cache))
    elif x.is_Mul:
        r = num(1)
        for a in x.args:
            r = mul(r, _from(a, ctx, cache))
    elif x.is_Pow:
        base, e = x.args
        if not e.is_Number:
            if base is sympy.E:
                r = exp(_from(e, ctx, cache))
            else:
                raise TypeError(f"symbolic exponent in {x}: use exp/log")
        else:
            ev = int(e) if e.is_Integer else (Fraction(int(e.p), int(e.q)) if e.is_Rational else float(e))
            r = pow_(_from(base, ctx, cache), ev)
    elif isinstance(x, sympy.atan2):
        r = atan2(_from(x.args[0], ctx, cache), _from(x.args[1], ctx, cache))
    elif x.func in _FROM_FUNCS:
        r = _FROM_FUNCS[x.func](_from(x.args[0], ctx, cache))
    elif x.is_Number is False and x.is_number:
        r = num(float(x))
    else:
        raise TypeError(f"unsupported SymPy expression {x!r}")
    cache[x] = r
    return r


def count_ops(e: SympyExpr) -> int:
    """``sympy.count_ops`` of a SymPy expression (integer).

    Example:
        >>> count_ops(sympy.sin(sympy.Symbol("x")) + 1)
        2
    """
    return int(sympy.count_ops(e, visual=False))


__all__ = ["to_sympy", "from_sympy", "count_ops", "UndeclaredSymbolError"]
