"""Walks over the expression DAG: every node below some roots, each shared atom once.

Example:
    >>> from symbody.symbolic.atoms import Context
    >>> x, y = (Context().symbol(n) for n in "xy")
    >>> [str(n) for n in walk([(x + y) * (x + y)])]
    ['2', 'x', 'y', 'x + y', '(x + y)**2']
"""

from __future__ import annotations

from collections.abc import Iterable

from .atoms import SYM, Expr


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
