"""Which formulation derives ``M`` and ``delta``: the recursions on trees, the virtual-power loop otherwise.

``"recursive"`` (composite-rigid-body and Newton-Euler recursions, :mod:`symbody.derive.recursive`)
applies to trees of relative joints; ``"virtual_power"`` (:mod:`symbody.derive.virtual_power`) to
any model; ``"auto"`` takes the recursion on trees and, on small trees, the shorter ``[M|delta]``
of the two.

Example:
    >>> from symbody.models import pendulum
    >>> M, delta, used = mass_and_forces(pendulum(), None, "auto")
    >>> used, M[0][0]
    ('virtual_power', 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ModelError
from ..symbolic.expr import NEG, NUM, SYM, Expr, walk
from ..symbolic.plan import ExportPlan
from .recursive import assemble_recursive, tree_of
from .virtual_power import assemble

FORMULATIONS = ("auto", "recursive", "virtual_power")

# Trees with at most this many coordinates are derived both ways and the shorter [M|delta] is
# kept (the virtual-power loop is then fast and sometimes shorter: planar chains of two or three
# bodies, the n-link pendulum on a cart up to n = 4); on larger trees the recursion wins (3-D and
# planar chains, the n-link pendulum from n = 5, see benchmarks/bench_recursive.py).  The count is
# the export plan's when both are small, the number of atoms otherwise.
COMPARE_UP_TO = 8
EXACT_COUNT_UP_TO = 400

Progress = Callable[[int, int, str], None]


def mass_and_forces(system: Any, progress: Progress | None, formulation: str) -> tuple[list, list, str]:
    """``M``, ``delta`` and the formulation used (see the module docstring)."""
    if formulation not in FORMULATIONS:
        raise ModelError(f"unknown formulation {formulation!r}: use one of {', '.join(FORMULATIONS)}")
    tree = tree_of(system) if formulation != "virtual_power" else None
    if tree is None:
        if formulation == "recursive":
            raise ModelError(
                f"model {system.name!r} is not a tree of relative joints (a coordinate moves more than one "
                f"solid relative to its parent, or an input enters a joint): use formulation='virtual_power'"
            )
        return (*assemble(system, progress), "virtual_power")
    rec = assemble_recursive(system, tree, progress)
    if formulation == "recursive" or len(system.coordinates) > COMPARE_UP_TO:
        return (*rec, "recursive")
    vp = assemble(system)  # small tree: fast, no progress to report twice
    sizes = [atom_count(*rec), atom_count(*vp)]
    if max(sizes) <= EXACT_COUNT_UP_TO:
        sizes = [export_op_count(*rec, system), export_op_count(*vp, system)]
    return (*vp, "virtual_power") if sizes[1] < sizes[0] else (*rec, "recursive")


def atom_count(M: list[list[Expr]], delta: list[Expr]) -> int:
    """Operations of the atoms of ``M`` (upper triangle) and ``delta`` (negations are free in sums).

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); x = ctx.symbol("x")
        >>> atom_count([[x * x + 1]], [-(x * x)])
        2
    """
    n = len(M)
    roots = [M[i][j] for i in range(n) for j in range(i, n)] + list(delta)
    return sum(e.op not in (SYM, NUM, NEG) for e in walk(roots))


def export_op_count(M: list[list[Expr]], delta: list[Expr], system: Any) -> int:
    """The size-optimal export plan's operation count of ``[M|delta]`` (upper triangle of ``M``)."""
    n = len(M)
    blocks = {"M": [M[i][j] for i in range(n) for j in range(i, n)], "delta": list(delta)}
    return ExportPlan(blocks, {s: s.name for s in system.ctx.symbols}).op_count()


__all__ = ["COMPARE_UP_TO", "EXACT_COUNT_UP_TO", "FORMULATIONS", "atom_count", "export_op_count", "mass_and_forces"]
