"""Which formulation derives ``M`` and ``delta`` (and, on trees, the accelerations directly).

``"recursive"`` (composite-rigid-body and Newton-Euler recursions, :mod:`symbody.derive.recursive`)
applies to trees of relative joints; ``"virtual_power"`` (:mod:`symbody.derive.virtual_power`) to
any model; ``"articulated"`` is ``"recursive"`` plus the accelerations ``ddq = M^-1 delta`` of the
articulated-body algorithm (:mod:`symbody.derive.articulated`) for trees without constraints, which
the FMU evaluates instead of factoring ``M`` (and ``delta`` by that module's recursion along the
joints, shared with the accelerations).  ``"auto"`` takes the recursion on trees and, on small
trees, the shorter ``[M|delta]`` of the two; on a tree without constraints derived by the recursion
it adds the articulated-body accelerations when they take fewer operations than ``[M|delta]``
and the factorization and solve with ``M`` (:func:`solve_ops`, weighted by :data:`SOLVE_WEIGHT`: the
runtime's loops cost more per operation than straight-line code).  On any other small model without
constraints ``"auto"`` adds ``ddq = M^-1 delta`` in closed form by symbolic elimination
(:mod:`symbody.derive.elimination`) when that takes fewer operations than ``[M|delta]`` and the
runtime's factorization and solve.

Example:
    >>> from symbody.models import pendulum
    >>> dyn = mass_and_forces(pendulum(), None, "auto")
    >>> dyn.used, dyn.M[0][0], dyn.direct, dyn.accelerations
    ('virtual_power', 1, 'symbolic elimination', [T - 9.81*sin(theta)])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import ModelError
from ..symbolic.atoms import symbol_name
from ..symbolic.expr import NEG, NUM, SYM, Expr, walk
from ..symbolic.plan import ExportPlan
from .articulated import applies, articulated_accelerations
from .elimination import eliminated_accelerations
from .recursive import TreeBody, assemble_recursive, tree_of
from .virtual_power import assemble

if TYPE_CHECKING:
    from ..model.system import System


FORMULATIONS = ("auto", "recursive", "virtual_power", "articulated")

# Trees with at most this many coordinates are derived both ways and the shorter [M|delta] is
# kept (the virtual-power loop is then fast and sometimes shorter: planar chains of two or three
# bodies, the n-link pendulum on a cart up to n = 4); on larger trees the recursion wins (3-D and
# planar chains, the n-link pendulum from n = 5, see benchmarks/bench_recursive.py).  The count is
# the export plan's when both are small, the number of atoms otherwise.
COMPARE_UP_TO = 8
EXACT_COUNT_UP_TO = 400
# Models without constraints up to this many coordinates get their accelerations in closed form by
# symbolic elimination where it is shorter (a dense M of 8 coordinates takes ~170 multiply-adds).
ELIMINATE_UP_TO = 8
# An operation of the runtime's factorization and solve of M costs about this many of the straight-line
# code of model.c: loops, M stored and read back, a call per evaluation, the checks of a general matrix.
# Measured with the rk4 step of native FMUs (closed form vs factorization, same model): overhead crane
# 1.75x faster with 51 vs 32 + 26 operations, tower crane 1.49x with 491 vs 395 + 90, double pendulum
# 1.37x with 56 vs 38 + 10, 3-D chain of one body 1.23x with 177 vs 154 + 26.
SOLVE_WEIGHT = 3

Progress = Callable[[int, int, str], None]


@dataclass
class Dynamics:
    """What :func:`mass_and_forces` derives: ``M``, ``delta``, the formulation used and the direct
    accelerations with their pivots (empty lists where there are none) and how they were derived
    (``direct``: ``"articulated-body algorithm"``, ``"symbolic elimination"`` or ``""``)."""

    M: list[list[Expr]]
    delta: list[Expr]
    used: str
    accelerations: list[Expr] = field(default_factory=list)
    pivots: list[Expr] = field(default_factory=list)
    direct: str = ""
    m_delta_ops: int | None = None  # the export count of [M|delta] when the choice of formulation made one


def mass_and_forces(system: System, progress: Progress | None, formulation: str) -> Dynamics:
    """``M``, ``delta``, the formulation used and the direct accelerations (see the module docstring)."""
    dyn = _mass_and_forces(system, progress, formulation)
    if formulation == "auto" and not dyn.accelerations:
        return _with_elimination(system, dyn)
    return dyn


def _mass_and_forces(system: System, progress: Progress | None, formulation: str) -> Dynamics:
    if formulation not in FORMULATIONS:
        raise ModelError(f"unknown formulation {formulation!r}: use one of {', '.join(FORMULATIONS)}")
    tree = tree_of(system) if formulation != "virtual_power" else None
    if tree is None:
        if formulation in ("recursive", "articulated"):
            raise ModelError(
                f"model {system.name!r} is not a tree of relative joints (a coordinate moves more than one "
                f"solid relative to its parent, or an input enters a joint): use formulation='virtual_power'"
            )
        return Dynamics(*assemble(system, progress), "virtual_power")
    if formulation == "articulated" and not applies(system, tree):
        raise ModelError(
            f"model {system.name!r}: the articulated-body accelerations need a tree without constraints, contacts "
            "or stick-slip friction whose joints move every coordinate: use formulation='recursive'"
        )
    rec = assemble_recursive(system, tree, progress)
    if formulation in ("recursive", "articulated") or len(system.coordinates) > COMPARE_UP_TO:
        return _with_accelerations(system, tree, Dynamics(*rec, "recursive"), formulation)
    vp = assemble(system)  # small tree: fast, no progress to report twice
    sizes = [atom_count(*rec), atom_count(*vp)]
    exact = max(sizes) <= EXACT_COUNT_UP_TO
    if exact:
        sizes = [export_op_count(*rec, system), export_op_count(*vp, system)]
    if sizes[1] < sizes[0]:
        return Dynamics(*vp, "virtual_power", m_delta_ops=sizes[1] if exact else None)
    rec_dyn = Dynamics(*rec, "recursive", m_delta_ops=sizes[0] if exact else None)
    return _with_accelerations(system, tree, rec_dyn, formulation)


def _with_accelerations(system: System, tree: list[TreeBody], dyn: Dynamics, formulation: str) -> Dynamics:
    """``dyn`` with the articulated-body accelerations when asked for, or (``"auto"``) when they take
    fewer operations than ``[M|delta]`` plus the factorization and solve with ``M`` (weighted by
    :data:`SOLVE_WEIGHT`)."""
    if formulation == "recursive" or not applies(system, tree):
        return dyn
    ddq, pivots, delta = articulated_accelerations(system, tree, dyn.delta)
    if formulation == "auto":
        direct, m_delta = _direct_and_m_delta_ops({"accelerations": ddq, "pivots": pivots}, dyn, system)
        if direct >= m_delta + SOLVE_WEIGHT * solve_ops(tree, len(dyn.delta)):
            return dyn
    return Dynamics(dyn.M, delta, "articulated", ddq, pivots, "articulated-body algorithm")


def unconstrained(system: System) -> bool:
    """Whether the model's ``ddq`` is ``M^-1 delta``: no constraint rows, unilateral contacts or stick-slip
    friction (their multipliers need ``M`` itself)."""
    if system.unilaterals or system.frictions:
        return False
    return not any(r.kind in ("holonomic", "velocity") for r in system.constraints)


def _with_elimination(system: System, dyn: Dynamics) -> Dynamics:
    """``dyn`` with ``ddq = M^-1 delta`` by symbolic elimination where the model is small and unconstrained
    and that takes fewer operations than ``[M|delta]`` and the runtime's dense factorization and solve
    (weighted by :data:`SOLVE_WEIGHT`)."""
    n = len(dyn.delta)
    if not 0 < n <= ELIMINATE_UP_TO or not unconstrained(system):
        return dyn
    solved = eliminated_accelerations(dyn.M, dyn.delta)
    if solved is None:
        return dyn
    ddq, pivots = solved
    direct, m_delta = _direct_and_m_delta_ops({"accelerations": ddq, "pivots": pivots}, dyn, system)
    if direct >= m_delta + SOLVE_WEIGHT * solve_ops([], n):
        return dyn
    return Dynamics(dyn.M, dyn.delta, dyn.used, ddq, pivots, "symbolic elimination")


def solve_ops(tree: list[TreeBody], n: int) -> int:
    """Operations of factoring ``M`` and solving with it in the runtime (two per multiply-add, one division
    per pivot): the tree's LTDL (Featherstone, "Rigid Body Dynamics Algorithms", 2008, sec. 6.5) where it
    saves three times the work of the dense L D L^T (``n^3 / 6`` multiply-adds), else the dense one.

    Example:
        >>> solve_ops([], 24)   # dense: 2300 multiply-adds to factor, 552 to solve, 24 divisions and scalings
        5752
    """
    depth: dict[int, int] = {}
    last: dict[int, int] = {}  # a body's last coordinate (or its nearest ancestor's), -1 at the root
    for body in tree[1:]:
        above = last.get(id(body.parent), -1)
        for i in body.coordinates:
            depth[i] = 0 if above < 0 else depth[above] + 1
            above = i
        last[id(body)] = above
    ltdl = sum(d * (d + 1) // 2 for d in depth.values())
    dense = (n**3 - n) // 6
    if ltdl and dense >= 3 * ltdl:
        factor, solve = ltdl, 2 * sum(depth.values())
    else:
        factor, solve = dense, n * (n - 1)
    return 2 * (factor + solve + n)


def _m_delta_blocks(M: list[list[Expr]], delta: list[Expr]) -> dict[str, list[Expr]]:
    n = len(M)
    return {"M": [M[i][j] for i in range(n) for j in range(i, n)], "delta": list(delta)}


def _direct_and_m_delta_ops(direct: dict[str, list[Expr]], dyn: Dynamics, system: System) -> tuple[int, int]:
    """Operations of closed-form accelerations and of ``[M|delta]``, counted alike (:func:`block_ops`); the
    export count of ``[M|delta]`` that the choice of formulation made is used again, not recomputed."""
    if dyn.m_delta_ops is not None and _atoms(direct) <= EXACT_COUNT_UP_TO:
        return _plan_ops(direct, system), dyn.m_delta_ops
    counts = block_ops([direct, _m_delta_blocks(dyn.M, dyn.delta)], system)
    return counts[0], counts[1]


def _atoms(blocks: dict[str, list[Expr]]) -> int:
    return sum(e.op not in (SYM, NUM, NEG) for e in walk([e for b in blocks.values() for e in b]))


def _plan_ops(blocks: dict[str, list[Expr]], system: System) -> int:
    return ExportPlan(blocks, {s: symbol_name(s) for s in system.ctx.symbols}).op_count()


def block_ops(alternatives: list[dict[str, list[Expr]]], system: System) -> list[int]:
    """Operations of each alternative (blocks exported jointly): the export plans' counts when all are small,
    else their atoms' (negations are free in sums)."""
    atoms = [_atoms(alt) for alt in alternatives]
    if max(atoms) > EXACT_COUNT_UP_TO:
        return atoms
    return [_plan_ops(alt, system) for alt in alternatives]


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


def export_op_count(M: list[list[Expr]], delta: list[Expr], system: System) -> int:
    """The size-optimal export plan's operation count of ``[M|delta]`` (upper triangle of ``M``)."""
    n = len(M)
    blocks = {"M": [M[i][j] for i in range(n) for j in range(i, n)], "delta": list(delta)}
    return ExportPlan(blocks, {s: symbol_name(s) for s in system.ctx.symbols}).op_count()


__all__ = [
    "COMPARE_UP_TO",
    "EXACT_COUNT_UP_TO",
    "FORMULATIONS",
    "Dynamics",
    "ELIMINATE_UP_TO",
    "SOLVE_WEIGHT",
    "atom_count",
    "block_ops",
    "export_op_count",
    "mass_and_forces",
    "solve_ops",
    "unconstrained",
]
