"""Pairs of terms shared by several sums or products become atoms of their own, at export.

Atomization shares identical sub-expressions, but a product ``m1*(l0*c)`` and a
product ``(m1*l0)*g`` do not share ``m1*l0`` because multiplication is binary
and associativity is not exploited while deriving.  Every maximal chain of
additions (or of multiplications) whose inner nodes are used only inside the
chain is flattened into its terms (signed terms for sums, factors with their
multiplicities and a numeric coefficient for products).  Then, greedily, the
pair of terms that occurs in the largest number of chains becomes a new atom
and replaces the pair in all those chains, until no pair occurs twice: the
pairwise common-argument elimination of computer-algebra code optimizers,
applied on top of the atom DAG.

Example:
    >>> from symbody.symbolic.expr import Context, sin, cos
    >>> m, l, q, g = (Context().symbol(n) for n in "mlqg")
    >>> outs = extract_pairs([m * (l * sin(q)), (m * l) * g, m * (l * cos(q))])
    >>> [str(e) for e in outs]
    ['sin(q)*m*l', 'g*m*l', 'm*l*cos(q)']
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Mapping, Sequence
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
    neg,
    num,
    pow_,
    rebuild,
)
from .walks import inner_sums, use_counts


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
#: a pair key, most frequent first: (-number of chains holding it, ids of its terms, sign, key)
HeapEntry: TypeAlias = "tuple[int, int, int, int, PairKey]"


def _tid(t: Term) -> int:
    return t.id


#: chains with more shared terms than this are cut into segments for pair counting ...
SEGMENT_FROM = 64
#: ... of this many terms on average (at most twice as many)
SEGMENT = 8


def _cut_here(t: Term) -> bool:
    """Content-defined segment boundary: the same terms cut two sums at the same places."""
    return ((t.id * 2654435761) >> 8) % SEGMENT == 0


def _entry(key: PairKey, chains: int) -> HeapEntry:
    return (-chains, key[0].id, key[1].id, key[2], key)


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
            pieces = self._cut(ch, shared)
            self.chains[ci] = pieces[0]
            idx = [ci]
            for piece in pieces[1:]:
                self.chains.append(piece)
                idx.append(len(self.chains) - 1)
            parts[ci] = idx
        return parts

    def _cut(self, ch: Chain, shared: list[Term]) -> list[Chain]:
        """The chain ``ch`` as its unshared terms followed by segments of its ``shared`` terms."""
        pieces: list[Chain] = [{t: v for t, v in ch.items() if self.count[t] < 2}]
        current: Chain = {}
        for t in shared:
            current[t] = ch[t]
            if _cut_here(t) or len(current) >= 2 * SEGMENT:
                pieces.append(current)
                current = {}
        if current:
            pieces.append(current)
        return pieces

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
        heap = [_entry(k, len(v)) for k, v in occ.items() if len(v) >= 2]
        heapq.heapify(heap)
        while heap:
            negc, _, _, _, key = heapq.heappop(heap)
            cur = occ.get(key)
            if not cur or len(cur) < 2:
                continue
            if len(cur) != -negc:
                heapq.heappush(heap, _entry(key, len(cur)))
                continue
            self._replace(key, cur)
            for ci in list(cur):
                self._recount(ci, chain_keys, occ, heap)
            occ.pop(key, None)

    def _replace(self, key: PairKey, holders: set[int]) -> None:
        """A new pair term for ``key`` in place of its two terms in the chains ``holders``."""
        t1, t2, s = key
        p = _Pair(self.op, t1, t2, s, self.next_id)
        self.next_id += 1
        count = self.count
        for ci in list(holders):
            ch = self.chains[ci]
            if self.op == ADD:
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

    def _recount(
        self, ci: int, chain_keys: list[set[PairKey]], occ: dict[PairKey, set[int]], heap: list[HeapEntry]
    ) -> None:
        """Update the pair occurrences after chain ``ci`` changed."""
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
                heapq.heappush(heap, _entry(k, len(o)))


def extract_pairs(outputs: Sequence[Expr]) -> list[Expr]:
    """Rewrite expressions so that pairs of terms shared by several sums or products become atoms.

    Example:
        >>> from symbody.symbolic.expr import Context, reachable
        >>> a, b, c, d = (Context().symbol(n) for n in "abcd")
        >>> (a + c) in reachable([a + b + c])
        False
        >>> outs = extract_pairs([a + b + c, (c + a) - d])
        >>> [str(e) for e in outs], all((a + c) in reachable([e]) for e in outs)
        (['b + a + c', 'a + c - d'], True)
    """
    outputs = list(outputs)
    if not outputs:
        return outputs
    return _PairExtraction(outputs).rewrite(outputs)


class _PairExtraction:
    """The chains of the DAG below some outputs, their shared pairs, and the rewritten nodes."""

    def __init__(self, outputs: Sequence[Expr]):
        self.order, self.uses = use_counts(outputs)
        # chain nodes absorbed by their single parent of the same operation
        self.absorbed = inner_sums(self.order, self.uses)
        for e in self.order:
            if e.op == MUL:
                for a in e.args:
                    if self.uses[a] == 1 and a.op == MUL:
                        self.absorbed.add(a)
        next_id = max(e.id for e in self.order) + 1
        self.sums = _Chains(ADD, next_id)
        self.prods = _Chains(MUL, next_id + 10**9)
        self.root_chain: dict[Expr, tuple[_Chains, int, Expr]] = {}
        self.new: dict[Term, Expr] = {}

    def rewrite(self, outputs: Sequence[Expr]) -> list[Expr]:
        """``outputs`` with the shared pairs of their chains made atoms."""
        self._collect_chains()
        sum_parts, prod_parts = self.sums.segment(), self.prods.segment()
        self.sums.run()
        self.prods.run()
        new = self.new
        for e in self.order:
            rc = self.root_chain.get(e)
            if rc is not None:
                chains, ci, coef = rc
                new[e] = self._build_chain(
                    chains, chains.items(ci, sum_parts if chains is self.sums else prod_parts), coef
                )
            elif e.op in (SYM, NUM):
                new[e] = e
            elif e in self.absorbed:
                new[e] = _rebuild_absorbed(e, new)
            else:
                new[e] = rebuild(e, tuple(new[a] for a in e.args))
        return [new[e] for e in outputs]

    def _collect_chains(self) -> None:
        """Flatten the chain rooted at every node that is not absorbed by a parent of its operation."""
        for e in self.order:
            if e in self.absorbed:
                continue
            if e.op == ADD:
                terms: Chain = {}
                self._flat_add(e, 1, terms)
                if len(terms) >= 2 and all(v in (1, -1) for v in terms.values()):
                    self.root_chain[e] = (self.sums, self.sums.add_chain(terms), ONE)
            elif e.op == MUL:
                factors: Chain = {}
                product: list[Number] = [1]
                self._flat_mul(e, factors, product)
                if sum(factors.values()) >= 2:
                    self.root_chain[e] = (self.prods, self.prods.add_chain(factors), num(product[0]))

    def _flat_add(self, e: Expr, sign: int, terms: Chain) -> None:
        """Collect the signed terms of the sum chain ``e``."""
        for a in e.args:
            if a in self.absorbed and a.op == ADD:
                self._flat_add(a, sign, terms)
            elif a in self.absorbed and a.op == NEG:
                self._flat_add(a.args[0], -sign, terms)
            elif a.op == NEG:
                _put(terms, a.args[0], -sign)
            elif a.op == NUM and a.value < 0:
                _put(terms, num(-a.value), -sign)
            else:
                _put(terms, a, sign)

    def _flat_mul(self, e: Expr, factors: Chain, coef: list[Number]) -> None:
        """Collect the factors of the product chain ``e``; ``coef[0]`` accumulates its numbers."""
        for a in e.args:
            if a in self.absorbed and a.op == MUL:
                self._flat_mul(a, factors, coef)
            elif a.op == NUM:
                coef[0] = coef[0] * a.value
            elif a.op == POW and a.args[1].value in (2, 3) and self.uses[a] == 1:
                factors[a.args[0]] = factors.get(a.args[0], 0) + a.args[1].value
            else:
                factors[a] = factors.get(a, 0) + 1

    def _build_chain(self, chains: _Chains, terms: list[tuple[Term, int]], coef: Expr) -> Expr:
        """The sum or product of the (pair-extracted) ``terms`` of one chain."""
        items = sorted(terms, key=lambda kv: _tid(kv[0]))
        acc: Expr
        if chains.op == ADD:
            acc = ZERO
            # start with a positive term when there is one, so that subtractions print naturally
            items.sort(key=lambda kv: (kv[1] < 0, _tid(kv[0])))
            for t, s in items:
                bt = self._build_term(t)
                acc = add(acc, bt if s > 0 else neg(bt))
            return acc
        acc = ONE
        for t, k in items:
            bt = self._build_term(t)
            bt = bt if k == 1 else pow_(bt, k)
            acc = bt if acc is ONE else mul_pair(acc, bt)
        return mul(coef, acc)

    def _build_pair(self, p: _Pair) -> Expr:
        r = self.new.get(p)
        if r is None:
            a, b = self._build_term(p.a), self._build_term(p.b)
            if p.op == ADD:
                r = add(a, b) if p.s > 0 else add(a, neg(b))
            elif p.a is p.b:
                r = pow_(a, 2)
            else:
                r = mul_pair(a, b)
            self.new[p] = r
        return r

    def _build_term(self, t: Term) -> Expr:
        if isinstance(t, _Pair):
            return self._build_pair(t)
        if t.op == NUM:
            return t
        return self.new[t]


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
