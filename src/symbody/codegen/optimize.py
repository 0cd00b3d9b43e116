"""Export-time optimization: common pairs in sums and products.

Atomization shares identical sub-expressions, but a product ``m1*(l0*c)`` and a
product ``(m1*l0)*g`` do not share ``m1*l0`` because multiplication is
binary and associativity is not exploited while deriving.  Before code is
emitted, every maximal chain of additions (or of multiplications) whose inner
nodes are used only inside the chain is flattened into a list of terms
(signed terms for sums, factors and a numeric coefficient for products).
Then, greedily, the pair of terms that occurs in the largest number of chains
becomes a new atom and replaces the pair in all those chains, until no pair
occurs twice.  This is the pairwise common-argument elimination used by
computer-algebra code optimizers, applied on top of the atom DAG.

Example:
    >>> from symbody.symbolic.expr import Context, sin, cos
    >>> ctx = Context()
    >>> m, l, q, g = (ctx.symbol(n) for n in "mlqg")
    >>> outs = optimize_outputs([m * (l * sin(q)), (m * l) * g, m * (l * cos(q))])
    >>> [str(e) for e in outs]
    ['sin(q)*m*l', 'g*m*l', 'm*l*cos(q)']
    >>> ml = m * l
    >>> all(ml in e.args for e in outs)
    True
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TypeAlias

from ..symbolic.expr import (
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
    neg,
    num,
    pow_,
    rebuild,
)
from .trig import expand_trig


def _uses(outputs: Sequence[Expr]) -> tuple[list[Expr], dict[Expr, int]]:
    nodes: dict[Expr, None] = {}
    stack = list(outputs)
    while stack:
        e = stack.pop()
        if e in nodes:
            continue
        nodes[e] = None
        stack.extend(e.args)
    order = sorted(nodes, key=lambda n: n.id)
    uses: dict[Expr, int] = defaultdict(int)
    for e in order:
        for a in e.args:
            uses[a] += 1
    for e in outputs:
        uses[e] += 1
    return order, uses


class _Pair:
    """A new atom made of two terms (ADD with relative sign, or MUL)."""

    __slots__ = ("op", "a", "b", "s", "id")

    def __init__(self, op: int, a: Term, b: Term, s: int, ident: int):
        self.op, self.a, self.b, self.s, self.id = op, a, b, s, ident


#: a term of a chain: a node of the DAG or a pair extracted from chains
Term: TypeAlias = "Expr | _Pair"
#: the terms of a sum with their signs, or the factors of a product with their multiplicities
Chain: TypeAlias = "dict[Term, int]"
#: two terms and their relative sign (sums) or 1 (products)
PairKey: TypeAlias = "tuple[Term, Term, int]"
#: a term of a sum being factored: its numeric coefficient and its factors with their multiplicities
Item: TypeAlias = "tuple[Number, dict[Expr, int]]"


def _tid(t: Term) -> int:
    return t.id


#: chains with more shared terms than this are cut into segments for pair counting ...
SEGMENT_FROM = 64
#: ... of this many terms on average (at most twice as many)
SEGMENT = 8


def _cut_here(t: Term) -> bool:
    """Content-defined segment boundary: the same terms cut two sums at the same places."""
    return ((t.id * 2654435761) >> 8) % SEGMENT == 0


class _Chains:
    """Greedy pair extraction over the chains of one operation (ADD or MUL).

    A sum chain maps each term to its sign (+1/-1); a product chain maps each
    factor to its multiplicity (``x**2`` counts as ``x`` twice).

    Only terms present in at least two chains can form a pair that occurs twice,
    so pairs are counted among those *shared* terms only (a long sum of distinct
    terms costs linear time).  A chain with more than ``SEGMENT_FROM`` shared terms
    is cut into segments of about ``SEGMENT`` terms at content-defined boundaries (:func:`_cut_here`, so that
    sums sharing a run of terms are cut alike) and pairs are counted inside each
    segment: the work per chain is then linear in its length instead of quadratic,
    at the price of pairs that straddle two segments.
    """

    def __init__(self, op: int, next_id: int):
        self.op = op
        self.chains: list[Chain] = []
        self.next_id = next_id
        self.count: dict[Term, int] = defaultdict(int)  # term -> number of chains holding it

    def add_chain(self, terms: Chain) -> int:
        """Add a chain; returns its index."""
        self.chains.append(terms)
        return len(self.chains) - 1

    def items(self, ci: int, parts: Mapping[int, list[int]]) -> list[tuple[Term, int]]:
        """The terms of chain ``ci`` with their signs or multiplicities, its segments merged."""
        if ci not in parts:
            return list(self.chains[ci].items())
        merged: Chain = {}
        for part in parts[ci]:
            for t, v in self.chains[part].items():
                merged[t] = merged.get(t, 0) + v
        return [(t, v) for t, v in merged.items() if v != 0]

    def segment(self) -> dict[int, list[int]]:
        """Cut the chains with many shared terms; returns chain index -> indices of its parts."""
        count = self.count
        for ch in self.chains:
            for t in ch:
                count[t] += 1
        parts: dict[int, list[int]] = {}
        for ci in range(len(self.chains)):
            ch = self.chains[ci]
            shared = sorted((t for t in ch if count[t] >= 2), key=_tid)
            if len(shared) <= SEGMENT_FROM:
                continue
            pieces: list[Chain] = [{t: v for t, v in ch.items() if count[t] < 2}]
            current: Chain = {}
            for t in shared:
                current[t] = ch[t]
                if _cut_here(t) or len(current) >= 2 * SEGMENT:
                    pieces.append(current)
                    current = {}
            if current:
                pieces.append(current)
            self.chains[ci] = pieces[0]
            idx = [ci]
            for piece in pieces[1:]:
                self.chains.append(piece)
                idx.append(len(self.chains) - 1)
            parts[ci] = idx
        return parts

    def _pairs(self, ch: Chain) -> set[PairKey]:
        """The pairs of shared terms of one chain (segment)."""
        count = self.count
        items = sorted(((t, s) for t, s in ch.items() if count[t] >= 2), key=lambda kv: kv[0].id)
        keys: set[PairKey] = set()
        add_op = self.op == ADD
        for i, (t1, s1) in enumerate(items):
            if not add_op and s1 >= 2:
                keys.add((t1, t1, 1))
            for t2, s2 in items[i + 1 :]:
                keys.add((t1, t2, s1 * s2 if add_op else 1))
        return keys

    def run(self) -> None:
        """Turn the pair found in most chains into a new term of those chains, until no pair occurs twice."""
        occ: dict[PairKey, set[int]] = defaultdict(set)
        chain_keys: list[set[PairKey]] = []
        for ci, ch in enumerate(self.chains):
            ks = self._pairs(ch)
            chain_keys.append(ks)
            for k in ks:
                occ[k].add(ci)
        heap = [(-len(v), k[0].id, k[1].id, k[2], k) for k, v in occ.items() if len(v) >= 2]
        heapq.heapify(heap)
        add_op = self.op == ADD
        count = self.count
        while heap:
            negc, _, _, _, key = heapq.heappop(heap)
            cur = occ.get(key)
            if not cur or len(cur) < 2:
                continue
            if len(cur) != -negc:
                heapq.heappush(heap, (-len(cur), key[0].id, key[1].id, key[2], key))
                continue
            t1, t2, s = key
            p = _Pair(self.op, t1, t2, s, self.next_id)
            self.next_id += 1
            for ci in list(cur):
                ch = self.chains[ci]
                if add_op:
                    s1 = ch.pop(t1)
                    del ch[t2]
                    ch[p] = s1
                    count[t1] -= 1
                    count[t2] -= 1
                else:
                    for t in {t1, t2}:
                        ch[t] -= 1 if t1 is not t2 else 2
                        if ch[t] == 0:
                            del ch[t]
                            count[t] -= 1
                    ch[p] = ch.get(p, 0) + 1
                count[p] += 1
            for ci in list(cur):
                old = chain_keys[ci]
                newk = self._pairs(self.chains[ci])
                chain_keys[ci] = newk
                for k in old - newk:
                    o = occ.get(k)
                    if o is not None:
                        o.discard(ci)
                for k in newk - old:
                    o = occ[k]
                    o.add(ci)
                    if len(o) >= 2:
                        heapq.heappush(heap, (-len(o), k[0].id, k[1].id, k[2], k))
            occ.pop(key, None)


def optimize_outputs(outputs: Sequence[Expr]) -> list[Expr]:
    """Factor common factors out of sums, then turn pairs shared by several chains into atoms (twice)."""
    out = extract_pairs(factor_sums(outputs))
    return extract_pairs(factor_sums(out))


def _sum_chain_roots(order: list[Expr], uses: Mapping[Expr, int]) -> set[Expr]:
    """ADD/NEG nodes absorbed into an enclosing sum chain."""
    absorbed: set[Expr] = set()
    for e in order:
        if e.op == ADD:
            for a in e.args:
                if uses[a] == 1 and (a.op == ADD or (a.op == NEG and a.args[0].op == ADD and uses[a.args[0]] == 1)):
                    absorbed.add(a)
                    if a.op == NEG:
                        absorbed.add(a.args[0])
    return absorbed


def factor_sums(outputs: Sequence[Expr]) -> list[Expr]:
    """Greedy common-factor extraction in sums: ``a x + a y + b`` -> ``a (x + y) + b``.

    Only products used once are opened; a factor is pulled out when at least two
    products of the same sum contain it, the most frequent factor first.
    """
    outputs = list(outputs)
    if not outputs:
        return outputs
    order, uses = _uses(outputs)
    absorbed = _sum_chain_roots(order, uses)
    new: dict[Expr, Expr] = {}

    def terms_of(e: Expr, sign: int, out: list[Item]) -> None:
        for a in e.args:
            if a in absorbed and a.op == ADD:
                terms_of(a, sign, out)
            elif a in absorbed and a.op == NEG:
                terms_of(a.args[0], -sign, out)
            elif a.op == NEG:
                out.append(_item(a.args[0], -sign))
            else:
                out.append(_item(a, sign))

    def _item(t: Expr, sign: int) -> Item:
        coef: Number = sign
        factors: dict[Expr, int] = {}
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

    def build_item(coef: Number, factors: dict[Expr, int]) -> Expr:
        acc = ONE
        for f, k in sorted(factors.items(), key=lambda kv: kv[0].id):
            nf = new[f]
            nf = nf if k == 1 else pow_(nf, k)
            acc = nf if acc is ONE else mul_pair(acc, nf)
        return mul(num(coef), acc)

    def factor_groups(items: list[Item]) -> tuple[list[Expr], list[Item]]:
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
            group: list[Item] = []
            for i in holders[best]:
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
            inner = build_sum(group)
            heads.append(mul_pair(new[best], inner) if inner.op not in (NUM, NEG) else mul(new[best], inner))
        return heads, [it for i, it in enumerate(items) if alive[i]]

    def coefficient_groups(items: list[Item]) -> tuple[list[Expr], list[Item]]:
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
            heads.append(mul(num(c), build_sum(group)))
        return heads, items

    def build_sum(items: list[Item]) -> Expr:
        heads, rest = factor_groups(items)
        more, rest = coefficient_groups(rest)
        heads += more
        acc: Expr | None = None
        if rest:
            acc = ZERO
            for coef, factors in sorted(rest, key=lambda it: it[0] < 0):
                acc = add(acc, build_item(coef, factors))
        for head in reversed(heads):
            acc = head if acc is None else add(head, acc)
        return ZERO if acc is None else acc

    for e in order:
        if e.op in (SYM, NUM):
            new[e] = e
        elif e.op == ADD and e not in absorbed:
            items: list[Item] = []
            terms_of(e, 1, items)
            new[e] = build_sum(items)
        else:
            new[e] = rebuild(e, tuple(new[a] for a in e.args))
    return [new[e] for e in outputs]


def extract_pairs(outputs: Sequence[Expr]) -> list[Expr]:
    """Rewrite expressions so that pairs of terms shared by several sums or products become atoms."""
    outputs = list(outputs)
    if not outputs:
        return outputs
    order, uses = _uses(outputs)
    # chain nodes absorbed by their single parent of the same operation
    absorbed = _sum_chain_roots(order, uses)
    for e in order:
        if e.op == MUL:
            for a in e.args:
                if uses[a] == 1 and a.op == MUL:
                    absorbed.add(a)
    next_id = max(e.id for e in order) + 1
    sums = _Chains(ADD, next_id)
    prods = _Chains(MUL, next_id + 10**9)
    root_chain: dict[Expr, tuple[_Chains, int, Expr]] = {}

    def flat_add(e: Expr, sign: int, terms: Chain) -> None:
        for a in e.args:
            if a in absorbed and a.op == ADD:
                flat_add(a, sign, terms)
            elif a in absorbed and a.op == NEG:
                flat_add(a.args[0], -sign, terms)
            elif a.op == NEG:
                _put(terms, a.args[0], -sign)
            elif a.op == NUM and a.value < 0:
                _put(terms, num(-a.value), -sign)
            else:
                _put(terms, a, sign)

    def flat_mul(e: Expr, factors: Chain, coef: list[Number]) -> None:
        """Collect the factors of the product chain ``e``; ``coef[0]`` accumulates its numbers."""
        for a in e.args:
            if a in absorbed and a.op == MUL:
                flat_mul(a, factors, coef)
            elif a.op == NUM:
                coef[0] = coef[0] * a.value
            elif a.op == POW and a.args[1].value in (2, 3) and uses[a] == 1:
                factors[a.args[0]] = factors.get(a.args[0], 0) + a.args[1].value
            else:
                factors[a] = factors.get(a, 0) + 1

    for e in order:
        if e in absorbed:
            continue
        if e.op == ADD:
            terms: Chain = {}
            flat_add(e, 1, terms)
            if len(terms) >= 2 and all(v in (1, -1) for v in terms.values()):
                root_chain[e] = (sums, sums.add_chain(terms), ONE)
        elif e.op == MUL:
            factors: Chain = {}
            product: list[Number] = [1]
            flat_mul(e, factors, product)
            if sum(factors.values()) >= 2:
                root_chain[e] = (prods, prods.add_chain(factors), num(product[0]))
    sum_parts, prod_parts = sums.segment(), prods.segment()
    sums.run()
    prods.run()

    new: dict[Term, Expr] = {}

    def build_pair(p: _Pair) -> Expr:
        r = new.get(p)
        if r is None:
            a, b = build_term(p.a), build_term(p.b)
            if p.op == ADD:
                r = add(a, b) if p.s > 0 else add(a, neg(b))
            elif p.a is p.b:
                r = pow_(a, 2)
            else:
                r = mul_pair(a, b)
            new[p] = r
        return r

    def build_term(t: Term) -> Expr:
        if isinstance(t, _Pair):
            return build_pair(t)
        if t.op == NUM:
            return t
        return new[t]

    for e in order:
        rc = root_chain.get(e)
        if rc is not None:
            chains, ci, coef = rc
            items = sorted(chains.items(ci, sum_parts if chains is sums else prod_parts), key=lambda kv: _tid(kv[0]))
            acc: Expr
            if chains.op == ADD:
                acc = ZERO
                # start with a positive term when there is one, so that subtractions print naturally
                items.sort(key=lambda kv: (kv[1] < 0, _tid(kv[0])))
                for t, s in items:
                    bt = build_term(t)
                    acc = add(acc, bt if s > 0 else neg(bt))
            else:
                acc = ONE
                for t, k in items:
                    bt = build_term(t)
                    bt = bt if k == 1 else pow_(bt, k)
                    acc = bt if acc is ONE else mul_pair(acc, bt)
                acc = mul(coef, acc)
            new[e] = acc
        elif e.op in (SYM, NUM):
            new[e] = e
        elif e in absorbed:
            new[e] = _rebuild_absorbed(e, new)
        else:
            new[e] = rebuild(e, tuple(new[a] for a in e.args))
    return [new[e] for e in outputs]


def _magnitude(v: Number) -> Number:
    """``abs(v)``, typed as a number."""
    return -v if v < 0 else v


def _div(a: Number, b: Number) -> Number:
    """``a / b`` exactly."""
    r = Fraction(a) / Fraction(b)
    return r.numerator if r.denominator == 1 else r


def _rebuild_absorbed(e: Expr, new: Mapping[Term, Expr]) -> Expr:
    """``e`` with the children that were rewritten replaced."""
    args = []
    for a in e.args:
        v = new.get(a)
        args.append(v if v is not None else a)
    return rebuild(e, tuple(args))


def _put(terms: Chain, t: Expr, sign: int) -> None:
    old = terms.get(t)
    terms[t] = sign if old is None else old + sign
    if terms[t] == 0:
        del terms[t]


__all__ = ["optimize_outputs", "factor_sums", "extract_pairs", "expand_trig"]
