"""Walks over the expression DAG: every node below some roots, each shared atom once.

Example:
    >>> from symbody.symbolic.atoms import Context
    >>> x, y = (Context().symbol(n) for n in "xy")
    >>> [str(n) for n in walk([(x + y) * (x + y)])]
    ['2', 'x', 'y', 'x + y', '(x + y)**2']
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from .atoms import ADD, NEG, SYM, Expr


def reachable(exprs: Iterable[Expr]) -> set[Expr]:
    """Every node of the expression DAG below ``exprs`` (each shared atom once).

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> len(reachable([x * y + x]))
        4
    """
    seen: set[Expr] = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e not in seen:
            seen.add(e)
            stack.extend(e.args)
    return seen


def free_symbols(exprs: Iterable[Expr]) -> set[Expr]:
    """The symbols (parameters, coordinates, inputs, time) the expressions ``exprs`` depend on.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> sorted(str(e.name) for e in free_symbols([x * y + x]))
        ['x', 'y']
    """
    return {e for e in reachable(exprs) if e.op == SYM}


def walk(roots: Iterable[Expr]) -> list[Expr]:
    """All nodes reachable from ``roots``, sorted by id (a valid evaluation order).

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x = Context().symbol("x")
        >>> [str(n) for n in walk([2 * x + 1])]
        ['1', '2', 'x', '2*x', '1 + 2*x']
    """
    seen: set[int] = set()
    out: list[Expr] = []
    stack = list(roots)
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        out.append(e)
        stack.extend(e.args)
    out.sort(key=lambda n: n.id)
    return out


def use_counts(outputs: Sequence[Expr]) -> tuple[list[Expr], dict[Expr, int]]:
    """The nodes below ``outputs`` in evaluation order, and how often each is used.

    A node is used once by each parent and once for each time it is an output.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> from symbody.symbolic.functions import sin
        >>> x = Context().symbol("x")
        >>> s = sin(x)
        >>> order, uses = use_counts([s * s + s, s])
        >>> len(order), uses[s], uses[x]
        (5, 3, 1)
    """
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


def inner_sums(order: Sequence[Expr], uses: Mapping[Expr, int]) -> set[Expr]:
    """The sums (and negated sums) used only inside one enclosing sum: the inner nodes of sum chains.

    ``order`` and ``uses`` are those of :func:`use_counts`.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x, y, z = (Context().symbol(n) for n in "xyz")
        >>> inner = x + y
        >>> [str(e) for e in inner_sums(*use_counts([inner + z]))]
        ['x + y']
        >>> inner_sums(*use_counts([inner + z, inner]))
        set()
    """
    absorbed: set[Expr] = set()
    for e in order:
        if e.op == ADD:
            for a in e.args:
                if uses[a] == 1 and (a.op == ADD or (a.op == NEG and a.args[0].op == ADD and uses[a.args[0]] == 1)):
                    absorbed.add(a)
                    if a.op == NEG:
                        absorbed.add(a.args[0])
    return absorbed
