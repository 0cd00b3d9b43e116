"""Arithmetic constructors: sums, products, negation and powers in canonical form.

Each constructor applies a handful of cheap local simplifications and then looks
the node up in the atom table (:mod:`symbody.symbolic.atoms`).  Canonical forms
that make the table catch more repetitions:

* ``a + b`` and ``a * b`` store their operands sorted by creation id.
* Negation is always pulled outwards: ``(-a) * b`` is ``-(a * b)``,
  ``(-a) + (-b)`` is ``-(a + b)``, and a subtraction ``a - b`` is stored so that
  ``a - b`` and ``b - a`` share one node (one is the negation of the other).
* Numeric coefficients are pulled to the front of products: ``(2 a) b`` is
  ``2 (a b)``.

Example:
    >>> from symbody.symbolic.atoms import Context
    >>> ctx = Context()
    >>> x, y = ctx.symbol("x"), ctx.symbol("y")
    >>> (x - y) is -(y - x), (2 * x) * y is 2 * (x * y), x + x is 2 * x
    (True, True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from .atoms import (
    ADD,
    MUL,
    NEG,
    NUM,
    ONE,
    POW,
    TWO,
    ZERO,
    Expr,
    Number,
    as_expr,
    as_number,
    binary_atom,
    num,
    unary_atom,
)


def neg(a: Expr) -> Expr:
    """``-a``.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x = Context().symbol("x")
        >>> neg(neg(x)) is x, neg(num(2))
        (True, -2)
    """
    op = a.op
    if op == NEG:
        return a.args[0]
    if op == NUM:
        return num(-a.value)
    return unary_atom(NEG, a)


def add(a: Expr, b: Expr) -> Expr:
    """``a + b`` with canonical ordering and sign normalization.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> add(x, y) is add(y, x), add(x, neg(x)), add(2 * x, x)
        (True, 0, 3*x)
    """
    ao = a.op
    bo = b.op
    if ao == NUM:
        if bo == NUM:
            return num(a.value + b.value)
        if a.value == 0:
            return b
    elif bo == NUM and b.value == 0:
        return a
    an = ao == NEG or (ao == NUM and a.value < 0)
    bn = bo == NEG or (bo == NUM and b.value < 0)
    if an:
        if bn:
            return neg(add(neg(a), neg(b)))
        pos, ng = b, neg(a)
    elif bn:
        pos, ng = a, neg(b)
    else:
        if a is b:
            return mul(TWO, a)
        # c1*x + c2*x -> (c1 + c2)*x and x + c*x -> (1 + c)*x
        ca, xa = (a.args[0].value, a.args[1]) if ao == MUL and a.args[0].op == NUM else (1, a)
        cb, xb = (b.args[0].value, b.args[1]) if bo == MUL and b.args[0].op == NUM else (1, b)
        if xa is xb:
            return mul(num(ca + cb), xa)
        if a.id > b.id:
            a, b = b, a
        return binary_atom(ADD, a, b)
    return _difference(pos, ng)


def _difference(pos: Expr, ng: Expr) -> Expr:
    """``pos - ng`` for non-negative operands, stored so that ``a - b`` and ``b - a`` share a node."""
    if pos is ng:
        return ZERO
    # a - (a - b) = b, a - (b + a) = -b, (a + b) - a = b
    if ng.op == ADD:
        u, v = ng.args
        if u is pos:
            return neg(v)
        if v is pos:
            return neg(u)
    if pos.op == ADD:
        u, v = pos.args
        if u is ng:
            return v
        if v is ng:
            return u
    if pos.id > ng.id:
        return neg(binary_atom(ADD, ng, neg(pos)))
    return binary_atom(ADD, pos, neg(ng))


def sub(a: Expr, b: Expr) -> Expr:
    """``a - b``.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> sub(x, y) is neg(sub(y, x)), sub(x + y, y) is x
        (True, True)
    """
    return add(a, neg(b))


def mul_pair(a: Expr, b: Expr) -> Expr:
    """``a * b`` as one product node of the two operands (no regrouping of squares).

    Used by the export optimizer, which chooses the grouping itself.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> mul(x, mul(x, y)), mul_pair(x, mul(x, y))
        (y*x**2, x*x*y)
    """
    if a.op == NUM or b.op == NUM or a.op == NEG or b.op == NEG or a is b:
        return mul(a, b)
    if a.id > b.id:
        a, b = b, a
    return binary_atom(MUL, a, b)


def mul(a: Expr, b: Expr) -> Expr:
    """``a * b`` with numeric folding, sign extraction and canonical ordering.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> mul(neg(x), y) is neg(mul(x, y)), mul(x, x), mul(num(3), 2 * y)
        (True, x**2, 6*y)
    """
    ao = a.op
    bo = b.op
    if bo == NUM and ao != NUM:
        a, b = b, a
        ao, bo = bo, ao
    if ao == NUM:
        return _scale(a, b)
    if ao == NEG:
        if bo == NEG:
            return mul(a.args[0], b.args[0])
        return neg(mul(a.args[0], b))
    if bo == NEG:
        return neg(mul(a, b.args[0]))
    if a is b:
        return pow_(a, 2)
    # x * (x * y) -> x**2 * y, so that squares are shared
    if bo == MUL:
        b0, b1 = b.args
        if b0 is a:
            return mul(pow_(a, 2), b1)
        if b1 is a:
            return mul(pow_(a, 2), b0)
    if ao == MUL:
        a0, a1 = a.args
        if a0 is b:
            return mul(pow_(b, 2), a1)
        if a1 is b:
            return mul(pow_(b, 2), a0)
    if ao == MUL and a.args[0].op == NUM:
        return mul(a.args[0], mul(a.args[1], b))
    if bo == MUL and b.args[0].op == NUM:
        return mul(b.args[0], mul(a, b.args[1]))
    if a.id > b.id:
        a, b = b, a
    return binary_atom(MUL, a, b)


def _scale(a: Expr, b: Expr) -> Expr:
    """``a * b`` for a number ``a``: the coefficient stays in front and non-negative."""
    av = a.value
    bo = b.op
    if bo == NUM:
        return num(av * b.value)
    if av == 0:
        return ZERO
    if av == 1:
        return b
    if av == -1:
        return neg(b)
    if bo == NEG:
        return neg(mul(a, b.args[0]))
    if av < 0:
        return neg(mul(num(-av), b))
    if bo == MUL and b.args[0].op == NUM:
        return mul(num(av * b.args[0].value), b.args[1])
    return binary_atom(MUL, a, b)


def _exact_pow(v: Number, n: Number) -> Number | None:
    """``v ** n``, exact when both are exact; ``None`` when it is not a real number."""
    try:
        if isinstance(n, int) and isinstance(v, (int, Fraction)):
            if v == 0 and n < 0:
                return None
            return Fraction(v) ** n
        if v < 0 and not (isinstance(n, int) or float(n).is_integer()):
            return None
        if v == 0 and n < 0:
            return None
        return float(v) ** float(n)
    except (OverflowError, ZeroDivisionError):
        return None


def pow_(a: Expr, n: object) -> Expr:
    """``a ** n`` for a numeric exponent ``n`` (int, Fraction or float).

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x = Context().symbol("x")
        >>> pow_(pow_(x, 2), 3), pow_(neg(x), 3), pow_(num(4), Fraction(1, 2))
        (x**6, -x**3, 2)
    """
    n = as_number(n)
    if n == 0:
        return ONE
    if n == 1:
        return a
    op = a.op
    if op == NUM:
        v = _exact_pow(a.value, n)
        if v is not None:
            return num(v)
    elif op == NEG and isinstance(n, int):
        p = pow_(a.args[0], n)
        return p if n % 2 == 0 else neg(p)
    elif op == POW and isinstance(n, int):
        return pow_(a.args[0], a.args[1].value * n)
    elif op == MUL and a.args[0].op == NUM and isinstance(n, int):
        c = _exact_pow(a.args[0].value, n)
        if c is not None:
            return mul(num(c), pow_(a.args[1], n))
    if a.ctx is None:  # negative number to a fractional power
        raise ValueError(f"cannot raise {a.value} to the power {n}")
    return binary_atom(POW, a, num(n))


def div(a: Expr, b: Expr) -> Expr:
    """``a / b``.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> div(x, num(2)), div(x, y), div(num(1.5), num(3))
        (1/2*x, x/y, 0.5)
    """
    if b.op == NUM:
        if b.value == 0:
            raise ZeroDivisionError("division of an expression by zero")
        v = b.value
        inv = Fraction(1, v) if isinstance(v, int) else (1 / v)
        return mul(a, num(inv))
    return mul(a, pow_(b, -1))


def sqrt(a: object) -> Expr:
    """Square root.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x = Context().symbol("x")
        >>> sqrt(x * x), sqrt(9)
        (sqrt(x**2), 3)
    """
    return pow_(as_expr(a), Fraction(1, 2))


def sum_exprs(terms: Iterable[Expr]) -> Expr:
    """Left-to-right sum of expressions (``0`` for no terms).

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> sum_exprs([x, y, -x]), sum_exprs([])
        (y, 0)
    """
    acc = ZERO
    for t in terms:
        acc = add(acc, t)
    return acc


def dot3(a: Sequence[Expr], b: Sequence[Expr]) -> Expr:
    """Dot product of two 3-tuples of expressions (zero-aware).

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> dot3((x, ZERO, ONE), (y, x, y))
        y + x*y
    """
    return add(add(mul(a[0], b[0]), mul(a[1], b[1])), mul(a[2], b[2]))
