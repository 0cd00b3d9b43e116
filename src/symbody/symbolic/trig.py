"""Export-time expansion of sines and cosines of sums of angles, for speed.

A compiled ``sin`` or ``cos`` costs tens of arithmetic operations.  The angles of
chained rigid bodies are sums (``q1 + q2``, ``q1 + q2 - q3``) whose terms usually
have their own sine and cosine computed anyway; the addition formulas then
replace each call by three arithmetic operations.  This trades operation count
for speed: the size-optimal export keeps the folded form.

Example:
    >>> from symbody.symbolic.expr import Context, sin, cos
    >>> ctx = Context(); a, b = ctx.symbol("a"), ctx.symbol("b")
    >>> [str(e) for e in expand_trig([sin(a + b), sin(a), cos(b)])]
    ['sin(a)*cos(b) + cos(a)*sin(b)', 'sin(a)', 'cos(b)']
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from .expr import ADD, COS, NEG, NUM, SIN, SYM, Expr, add, cos, mul, neg, rebuild, sin, walk


def angle_terms(angles: Iterable[Expr]) -> set[Expr]:
    """The terms of the sums ``angles``, signs dropped: ``a - b + c`` -> ``{a, b, c}``.

    One walk for all the angles (a shared partial sum is visited once), so that the
    cumulative angles ``q1``, ``q1 + q2``, ... of a chain cost linear time.

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); a, b, c = ctx.symbol("a"), ctx.symbol("b"), ctx.symbol("c")
        >>> sorted(str(t) for t in angle_terms([-(a - 2 * b), a + b + c]))
        ['2*b', 'a', 'b', 'c']
    """
    out: set[Expr] = set()
    seen: set[Expr] = set()
    stack = list(angles)
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if e.op in (ADD, NEG):
            stack.extend(e.args)
        else:
            out.add(e)
    return out


class _Expandable:
    """Whether an angle is a sum (or negation) of numbers and angles whose sine or cosine is available.

    Memoized over the shared partial sums, so that deciding for every angle of a chain costs linear time.
    """

    def __init__(self, available: Collection[Expr]) -> None:
        self.available = available
        self.memo: dict[Expr, bool] = {}

    def __call__(self, arg: Expr) -> bool:
        return arg.op in (ADD, NEG) and self._terms_available(arg)

    def _terms_available(self, x: Expr) -> bool:
        if x.op not in (ADD, NEG):
            return x.op == NUM or x in self.available
        r = self.memo.get(x)
        if r is None:
            r = all(self._terms_available(a) for a in x.args)
            self.memo[x] = r
        return r


class _AdditionFormulas:
    """``(cos x, sin x)`` of angles, expanded over their sums and negations (memoized)."""

    def __init__(self) -> None:
        self.memo: dict[Expr, tuple[Expr, Expr]] = {}

    def __call__(self, x: Expr) -> tuple[Expr, Expr]:
        r = self.memo.get(x)
        if r is None:
            if x.op == ADD:
                ca, sa = self(x.args[0])
                cb, sb = self(x.args[1])
                r = (add(mul(ca, cb), neg(mul(sa, sb))), add(mul(sa, cb), mul(ca, sb)))
            elif x.op == NEG:
                c, s = self(x.args[0])
                r = (c, neg(s))
            else:
                r = (cos(x), sin(x))
            self.memo[x] = r
        return r


def expand_trig(outputs: Sequence[Expr]) -> list[Expr]:
    """Rewrite ``sin``/``cos`` of sums of angles with the addition formulas, for speed.

    ``cos(a - b)`` becomes ``cos(a) cos(b) + sin(a) sin(b)`` when ``sin`` or ``cos``
    of every angle of the sum is already computed elsewhere: the expansion then
    replaces a transcendental call by three arithmetic operations.  Sums whose
    angles are not otherwise available are left alone (expanding them would add
    calls), and nothing is expanded unless fewer distinct angles remain (a compiler
    evaluates sin and cos of one angle together).

    Example:
        >>> from symbody.symbolic.expr import Context, sin, cos
        >>> ctx = Context(); a, b = ctx.symbol("a"), ctx.symbol("b")
        >>> [str(e) for e in expand_trig([cos(a - b), sin(a), cos(b)])]
        ['cos(b)*cos(a) + sin(a)*sin(b)', 'sin(a)', 'cos(b)']
        >>> [str(e) for e in expand_trig([cos(a - b)])]
        ['cos(a - b)']
    """
    outputs = list(outputs)
    order = walk(outputs)
    before = {e.args[0] for e in order if e.op in (SIN, COS)}
    expandable = _Expandable(before)
    sums = [x for x in before if expandable(x)]
    after = {v for v in angle_terms(sums) if v.op != NUM} | (before - set(sums))
    if len(after) >= len(before):
        return outputs
    formulas = _AdditionFormulas()
    new: dict[Expr, Expr] = {}
    for e in order:
        if e.op in (SYM, NUM):
            new[e] = e
        elif e.op in (SIN, COS) and expandable(e.args[0]):
            c, s = formulas(e.args[0])
            new[e] = c if e.op == COS else s
        else:
            new[e] = rebuild(e, tuple(new[a] for a in e.args))
    return [new[e] for e in outputs]
