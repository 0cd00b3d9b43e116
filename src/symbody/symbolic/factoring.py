"""Common factors of the terms of sums, pulled out at export: ``a x + a y + b`` -> ``a (x + y) + b``.

Derivation leaves sums of products whose terms share factors (a mass, a length,
the sine of an angle).  Each sum chain is flattened into its terms, each term
into a numeric coefficient and its factors (only products used once are opened);
then, greedily, the factor held by most terms is pulled out of them, and a
numeric coefficient shared by several terms likewise.  Counts are kept up to
date as terms leave a group (a heap with lazy updates), so a sum of ``k`` terms
costs ``O(k log k)``.

Example:
    >>> from symbody.symbolic.expr import Context
    >>> a, b, x, y = (Context().symbol(n) for n in "abxy")
    >>> factor_sums([a * x + a * y + 2 * b + 2 * x])
    [a*(x + y) + 2*(b + x)]
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction
from typing import TypeAlias

from .expr import (
    ADD,
    MUL,
    NEG,
    NUM,
    ONE,
    POW,
    SYM,
    ZERO,
    Expr,
    Number,
    add,
    mul,
    mul_pair,
    num,
    pow_,
    rebuild,
)
from .walks import inner_sums, use_counts

#: a term of a sum being factored: its numeric coefficient and its factors with their multiplicities
Item: TypeAlias = "tuple[Number, dict[Expr, int]]"


def factor_sums(outputs: Sequence[Expr]) -> list[Expr]:
    """Greedy common-factor extraction in sums: ``a x + a y + b`` -> ``a (x + y) + b``.

    Only products used once are opened; a factor is pulled out when at least two
    products of the same sum contain it, the most frequent factor first.

    Example:
        >>> from symbody.symbolic.expr import Context, sin
        >>> m, l, q, g = (Context().symbol(n) for n in "mlqg")
        >>> factor_sums([m * l * sin(q) + m * g + l])
        [l + m*(g + l*sin(q))]
    """
    outputs = list(outputs)
    if not outputs:
        return outputs
    return _SumFactoring(outputs).rewrite(outputs)


class _SumFactoring:
    """The sum chains of the DAG below some outputs and their rewritten, factored nodes."""

    def __init__(self, outputs: Sequence[Expr]):
        self.order, self.uses = use_counts(outputs)
        self.absorbed = inner_sums(self.order, self.uses)
        self.new: dict[Expr, Expr] = {}

    def rewrite(self, outputs: Sequence[Expr]) -> list[Expr]:
        """``outputs`` with the common factors of every sum chain pulled out."""
        new = self.new
        for e in self.order:
            if e.op in (SYM, NUM):
                new[e] = e
            elif e.op == ADD and e not in self.absorbed:
                items: list[Item] = []
                self._terms_of(e, 1, items)
                new[e] = self._build_sum(items)
            else:
                new[e] = rebuild(e, tuple(new[a] for a in e.args))
        return [new[e] for e in outputs]

    def _terms_of(self, e: Expr, sign: int, out: list[Item]) -> None:
        """Append the terms of the sum chain ``e`` to ``out``."""
        for a in e.args:
            if a in self.absorbed and a.op == ADD:
                self._terms_of(a, sign, out)
            elif a in self.absorbed and a.op == NEG:
                self._terms_of(a.args[0], -sign, out)
            elif a.op == NEG:
                out.append(self._item(a.args[0], -sign))
            else:
                out.append(self._item(a, sign))

    def _item(self, t: Expr, sign: int) -> Item:
        """The coefficient and factors of the term ``sign * t`` (a product used elsewhere stays whole)."""
        coef: Number = sign
        factors: dict[Expr, int] = {}
        uses = self.uses
        if t.op == MUL and uses[t] == 1:
            stack = [t]
            while stack:
                x = stack.pop()
                for a in x.args:
                    if a.op == MUL and uses[a] == 1:
                        stack.append(a)
                    elif a.op == NUM:
                        coef = coef * a.value
                    elif a.op == POW and a.args[1].value in (2, 3) and uses[a] == 1:
                        factors[a.args[0]] = factors.get(a.args[0], 0) + a.args[1].value
                    else:
                        factors[a] = factors.get(a, 0) + 1
        elif t.op == NUM:
            coef = coef * t.value
        else:
            factors[t] = 1
        return coef, factors

    def _build_item(self, coef: Number, factors: dict[Expr, int]) -> Expr:
        acc = ONE
        for f, k in sorted(factors.items(), key=lambda kv: kv[0].id):
            nf = self.new[f]
            nf = nf if k == 1 else pow_(nf, k)
            acc = nf if acc is ONE else mul_pair(acc, nf)
        return mul(num(coef), acc)

    def _build_sum(self, items: list[Item]) -> Expr:
        """The sum of ``items``, its common factors and coefficients pulled out."""
        heads, rest = self._factor_groups(items)
        more, rest = self._coefficient_groups(rest)
        heads += more
        acc: Expr | None = None
        if rest:
            acc = ZERO
            for coef, factors in sorted(rest, key=lambda it: it[0] < 0):
                acc = add(acc, self._build_item(coef, factors))
        for head in reversed(heads):
            acc = head if acc is None else add(head, acc)
        return ZERO if acc is None else acc

    def _factor_groups(self, items: list[Item]) -> tuple[list[Expr], list[Item]]:
        """Pull out shared factors, the most frequent first: ``(a (x + y), ...)`` and the items left.

        Counts are kept up to date as items leave (a heap with lazy updates), so a sum
        of k terms costs O(k log k) instead of recounting all of them after each group.
        """
        counts: dict[Expr, int] = defaultdict(int)
        holders: dict[Expr, list[int]] = defaultdict(list)
        for i, (_coef, factors) in enumerate(items):
            if sum(factors.values()) >= 2:
                for f in factors:
                    counts[f] += 1
                    holders[f].append(i)
        heap = [(-c, f.id, f) for f, c in counts.items() if c >= 2]
        heapq.heapify(heap)
        alive = [True] * len(items)
        heads: list[Expr] = []
        while heap:
            negc, _, best = heapq.heappop(heap)
            c = counts[best]
            if c < 2:
                continue
            if c != -negc:
                heapq.heappush(heap, (-c, best.id, best))
                continue
            inner = self._build_sum(_take_group(best, items, holders[best], alive, counts))
            head = self.new[best]
            heads.append(mul_pair(head, inner) if inner.op not in (NUM, NEG) else mul(head, inner))
        return heads, [it for i, it in enumerate(items) if alive[i]]

    def _coefficient_groups(self, items: list[Item]) -> tuple[list[Expr], list[Item]]:
        """A numeric coefficient shared by several terms: ``2 a + 2 b`` -> ``2 (a + b)``, the most frequent first."""
        ncount: dict[Number, int] = defaultdict(int)
        for coef, factors in items:
            if abs(coef) != 1 and factors:
                ncount[_magnitude(coef)] += 1
        heads: list[Expr] = []
        for c in sorted((c for c in ncount if ncount[c] >= 2), key=lambda c: (-ncount[c], c)):
            group = [
                (coef / c if isinstance(coef, float) else _div(coef, c), f) for coef, f in items if abs(coef) == c and f
            ]
            items = [(coef, f) for coef, f in items if not (abs(coef) == c and f)]
            heads.append(mul(num(c), self._build_sum(group)))
        return heads, items


def _take_group(
    best: Expr, items: list[Item], holders: list[int], alive: list[bool], counts: dict[Expr, int]
) -> list[Item]:
    """The items left among ``holders`` with the factor ``best`` divided out; they leave the sum."""
    group: list[Item] = []
    for i in holders:
        if not alive[i]:
            continue
        alive[i] = False
        coef, factors = items[i]
        for f in factors:
            counts[f] -= 1
        f2 = dict(factors)
        f2[best] -= 1
        if f2[best] == 0:
            del f2[best]
        group.append((coef, f2))
    return group


def _magnitude(v: Number) -> Number:
    """``abs(v)``, typed as a number."""
    return -v if v < 0 else v


def _div(a: Number, b: Number) -> Number:
    """``a / b`` exactly."""
    r = Fraction(a) / Fraction(b)
    return r.numerator if r.denominator == 1 else r
