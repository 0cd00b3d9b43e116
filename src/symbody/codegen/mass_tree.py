"""The tree along which a mass matrix factors without fill-in (Featherstone's LTDL).

In a kinematic tree the mass matrix entry ``M(i, j)`` is structurally zero unless one of the
coordinates ``i``, ``j`` is an ancestor of the other.  :func:`mass_parents` reads that tree off
the exact zeros of the symbolic ``M``: the parent of coordinate ``i`` is the last coordinate
``j < i`` with ``M(i, j) != 0``, and the structure holds when every nonzero of row ``i`` lies
on the chain of ``i``'s ancestors.  The FMU runtime then factors ``M = L^T D L`` along that
parent array (``fmu_templates/sb_ltdl.c``; R. Featherstone, Rigid Body Dynamics Algorithms,
Springer, 2008, sec. 6.5) instead of a dense ``L D L^T``.

Example:
    >>> from symbody.symbolic.expr import Context, ZERO
    >>> ctx = Context(); a, b = ctx.symbol("a"), ctx.symbol("b")
    >>> mass_parents([[a, b, b], [b, a, ZERO], [b, ZERO, a]])   # coordinates 1 and 2 branch off 0
    [-1, 0, 0]
    >>> mass_parents([[a, ZERO, b], [ZERO, a, b], [b, b, a]]) is None   # 2 under both 0 and 1
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..symbolic.expr import Expr

if TYPE_CHECKING:
    from ..equations import Equations


def mass_parents(M: Sequence[Sequence[Expr]]) -> list[int] | None:
    """Parent of each coordinate (``-1``: a root) in the tree of ``M``'s sparsity, or ``None``.

    ``None`` when some nonzero ``M(i, j)``, ``j < i``, is not on the chain of ``i``'s ancestors
    (closed loops, or a numbering where a child comes before its parent).
    """
    parent: list[int] = []
    for i, row in enumerate(M):
        coupled = [j for j in range(i) if not (row[j].is_zero and M[j][i].is_zero)]
        p = coupled[-1] if coupled else -1
        parent.append(p)
        ancestors = set()
        while p >= 0:
            ancestors.add(p)
            p = parent[p]
        if not ancestors.issuperset(coupled):
            return None
    return parent


def factorization_work(parents: Sequence[int]) -> tuple[int, int]:
    """Multiply-adds of LTDL along ``parents`` (the sum of depth (depth + 1) / 2) and of a dense L D L^T.

    Example:
        >>> factorization_work([-1, 0, 0, 0])   # a star: no coupling between the branches
        (3, 10)
    """
    depth: list[int] = []
    for p in parents:
        depth.append(0 if p < 0 else depth[p] + 1)
    n = len(parents)
    return sum(d * (d + 1) // 2 for d in depth), (n**3 - n) // 6


#: LTDL follows the tree with indirect indexing, about three times slower per multiply-add than the
#: dense loops (benchmarks/bench_ltdl.py): it is used where it saves at least that factor of work.
MIN_SAVING = 3.0


def mass_tree_source(eq: Equations, min_saving: float = MIN_SAVING) -> str:
    """The definition of ``sb_mass_parent`` for ``model.c``: the tree where LTDL saves ``min_saving``
    times the work of the dense factorization, else ``NULL`` (constraints, no tree, a chain)."""
    parents = mass_parents(eq.M) if eq.nc == 0 else None
    head = "\n"  # declared in symbody_model.h, which model.c includes
    why = "constraints" if eq.nc else "no tree structure"
    if parents is not None:
        work, dense = factorization_work(parents)
        if dense < min_saving * work:
            parents, why = None, f"a tree too deep to save work: {work} vs {dense} multiply-adds"
    if parents is None:
        return head + f"/* mass matrix factored densely ({why}) */\nconst int *const sb_mass_parent = NULL;\n"
    names = [c.name.replace("*/", "* /") for c in eq.coordinates]
    rows = "".join(f"    {p}, /* {names[i]} <- {names[p] if p >= 0 else 'root'} */\n" for i, p in enumerate(parents))
    return (
        head + "/* parent of each coordinate in the tree of the mass matrix: M(i, j) = 0 unless one is an\n"
        "   ancestor of the other, so M = L^T D L factors without fill-in (sb_ltdl.c) */\n"
        f"static const int mass_parent[] = {{\n{rows}}};\n"
        "const int *const sb_mass_parent = mass_parent;\n"
    )
