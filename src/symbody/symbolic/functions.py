"""Elementary functions of expressions, and rebuilding a node with new children.

The functions fold numbers (trigonometric functions of multiples of pi/2 to
exact values) and pull signs outwards where the function is odd or even:
``sin(-x) = -sin(x)``, ``cos(-x) = cos(x)``, ``abs(-x) = abs(x)``.

Example:
    >>> from symbody.symbolic.atoms import Context, PI
    >>> x = Context().symbol("x")
    >>> sin(-x) is -sin(x), cos(-x) is cos(x), cos(PI), sin(PI / 2)
    (True, True, -1, 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .arithmetic import add, mul, neg, pow_
from .atoms import (
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
    ONE,
    POW,
    SIGN,
    SIN,
    TAN,
    TANH,
    ZERO,
    Expr,
    as_expr,
    binary_atom,
    num,
    unary_atom,
)


def _pi_multiple(v: float) -> int | None:
    """k if v is (numerically) k*pi/2, else None."""
    k = v / (math.pi / 2)
    r = round(k)
    if abs(k - r) < 1e-12 and abs(r) < 1e6:
        return int(r)
    return None


def sin(a: object) -> Expr:
    """Sine.

    Example:
        >>> sin(0), sin(1.0)
        (0, 0.8414709848078965)
    """
    x = as_expr(a)
    if x.op == NUM:
        k = _pi_multiple(float(x.value))
        if k is not None:
            return num((0, 1, 0, -1)[k % 4])
        return num(math.sin(x.value))
    if x.op == NEG:
        return neg(sin(x.args[0]))
    return unary_atom(SIN, x)


def cos(a: object) -> Expr:
    """Cosine.

    Example:
        >>> from symbody.symbolic.atoms import PI
        >>> cos(0), cos(3 * PI / 2)
        (1, 0)
    """
    x = as_expr(a)
    if x.op == NUM:
        k = _pi_multiple(float(x.value))
        if k is not None:
            return num((1, 0, -1, 0)[k % 4])
        return num(math.cos(x.value))
    if x.op == NEG:
        return cos(x.args[0])
    return unary_atom(COS, x)


def tan(a: object) -> Expr:
    """Tangent.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x = Context().symbol("x")
        >>> tan(-x) is -tan(x)
        True
    """
    x = as_expr(a)
    if x.op == NUM:
        return num(math.tan(x.value))
    if x.op == NEG:
        return neg(tan(x.args[0]))
    return unary_atom(TAN, x)


def exp(a: object) -> Expr:
    """Exponential.

    Example:
        >>> exp(0), exp(1.0)
        (1, 2.718281828459045)
    """
    x = as_expr(a)
    if x.op == NUM:
        return num(math.exp(x.value)) if x.value != 0 else ONE
    return unary_atom(EXP, x)


def log(a: object) -> Expr:
    """Natural logarithm.

    Example:
        >>> log(1)
        0
        >>> log(-1)
        Traceback (most recent call last):
        ...
        ValueError: log of non-positive number -1
    """
    x = as_expr(a)
    if x.op == NUM:
        if x.value <= 0:
            raise ValueError(f"log of non-positive number {x.value}")
        return num(math.log(x.value)) if x.value != 1 else ZERO
    return unary_atom(LOG, x)


def tanh(a: object) -> Expr:
    """Hyperbolic tangent (used for smoothed Coulomb friction).

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> v = Context().symbol("v")
        >>> tanh(-v / 2)
        -tanh(1/2*v)
    """
    x = as_expr(a)
    if x.op == NUM:
        return num(math.tanh(x.value))
    if x.op == NEG:
        return neg(tanh(x.args[0]))
    return unary_atom(TANH, x)


def Abs(a: object) -> Expr:
    """Absolute value.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x = Context().symbol("x")
        >>> Abs(-x) is Abs(Abs(x)), Abs(-3)
        (True, 3)
    """
    x = as_expr(a)
    if x.op == NUM:
        return num(abs(x.value))
    if x.op == NEG:
        return Abs(x.args[0])
    if x.op == ABS:
        return x
    return unary_atom(ABS, x)


def sign(a: object) -> Expr:
    """Sign function (-1, 0 or 1).

    Example:
        >>> sign(-2.5), sign(0), sign(7)
        (-1, 0, 1)
    """
    x = as_expr(a)
    if x.op == NUM:
        return num((x.value > 0) - (x.value < 0))
    if x.op == NEG:
        return neg(sign(x.args[0]))
    return unary_atom(SIGN, x)


def asin(a: object) -> Expr:
    """Arc sine.

    Example:
        >>> asin(1.0)
        1.5707963267948966
    """
    x = as_expr(a)
    if x.op == NUM:
        return num(math.asin(x.value))
    if x.op == NEG:
        return neg(asin(x.args[0]))
    return unary_atom(ASIN, x)


def acos(a: object) -> Expr:
    """Arc cosine.

    Example:
        >>> acos(1)
        0
    """
    x = as_expr(a)
    if x.op == NUM:
        return num(math.acos(x.value))
    return unary_atom(ACOS, x)


def atan(a: object) -> Expr:
    """Arc tangent.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x = Context().symbol("x")
        >>> atan(-x), atan(0)
        (-atan(x), 0)
    """
    x = as_expr(a)
    if x.op == NUM:
        return num(math.atan(x.value))
    if x.op == NEG:
        return neg(atan(x.args[0]))
    return unary_atom(ATAN, x)


def atan2(y: object, x: object) -> Expr:
    """Two-argument arc tangent ``atan2(y, x)``.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> s, c = (Context().symbol(n) for n in "sc")
        >>> atan2(s, c), atan2(1.0, 0)
        (atan2(s, c), 1.5707963267948966)
    """
    ey = as_expr(y)
    ex = as_expr(x)
    if ey.op == NUM and ex.op == NUM:
        return num(math.atan2(ey.value, ex.value))
    return binary_atom(ATAN2, ey, ex)


#: the constructor of each function operation code (``atan2`` takes two arguments)
FUNCTION_BUILDERS: dict[int, Callable[..., Expr]] = {
    SIN: sin,
    COS: cos,
    TAN: tan,
    EXP: exp,
    LOG: log,
    TANH: tanh,
    ABS: Abs,
    SIGN: sign,
    ASIN: asin,
    ACOS: acos,
    ATAN: atan,
    ATAN2: atan2,
}


def rebuild(e: Expr, args: tuple[Expr, ...]) -> Expr:
    """Rebuild a node of the same operation with new children (re-atomized).

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> rebuild(sin(x) ** 2, (sin(y),)) is sin(y) ** 2, rebuild(x * y, (y, y))
        (True, y**2)
    """
    op = e.op
    if op == ADD:
        return add(args[0], args[1])
    if op == MUL:
        return mul(args[0], args[1])
    if op == NEG:
        return neg(args[0])
    if op == POW:
        return pow_(args[0], e.args[1].value)
    if op == ATAN2:
        return atan2(args[0], args[1])
    if op >= SIN:
        return FUNCTION_BUILDERS[op](args[0])
    return e
