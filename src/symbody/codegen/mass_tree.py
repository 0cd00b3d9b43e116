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

from ..symbolic.expr import Expr


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


def mass_tree_source(eq) -> str:
    """The definition of ``sb_mass_parent`` for ``model.c`` (``NULL`` with constraints or no tree)."""
    parents = mass_parents(eq.M) if eq.nc == 0 else None
    head = '\n#include "sb_ltdl.h"\n\n'
    if parents is None:
        why = "constraints" if eq.nc else "no tree structure"
        return head + f"/* mass matrix factored densely ({why}) */\nconst int *const sb_mass_parent = NULL;\n"
    names = [c.name.replace("*/", "* /") for c in eq.coordinates]
    rows = "".join(f"    {p}, /* {names[i]} <- {names[p] if p >= 0 else 'root'} */\n" for i, p in enumerate(parents))
    return (
        head + "/* parent of each coordinate in the tree of the mass matrix: M(i, j) = 0 unless one is an\n"
        "   ancestor of the other, so M = L^T D L factors without fill-in (sb_ltdl.c) */\n"
        f"static const int mass_parent[] = {{\n{rows}}};\n"
        "const int *const sb_mass_parent = mass_parent;\n"
    )
