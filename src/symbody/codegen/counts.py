"""Operation counts of the exported blocks of an :class:`~symbody.Equations` (``symbody info``).

:func:`stats` counts the size-optimal export (:class:`symbody.symbolic.plan.ExportPlan`
with ``trig="fold"``); :func:`export_ops` counts the code the C export (``model.c``) and the
MATLAB export write for their functions (:data:`EXPORTED_FUNCTIONS`, ``trig="expand"``), both
from the entries :func:`exported_entries` lists; definitions in docs/explanation/architecture.md.

Example:
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> op_count(eq, "M", "delta"), stats(eq)["ops"]["M_delta"], export_ops(eq)["M_delta"]
    (3, 3, 3)
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from ..equations import Equations
from ..symbolic.expr import NUM, Expr, symbol_name
from ..symbolic.plan import ExportPlan

_STATS: WeakKeyDictionary[Equations, dict[str, Any]] = WeakKeyDictionary()

# the entries of stats()["ops"]: name -> blocks exported jointly
STAT_BLOCKS = {
    "M": ("M",),
    "delta": ("delta",),
    "M_delta": ("M", "delta"),
    "Phi": ("Phi",),
    "Phi_q": ("Phi_q",),
    "Phi_Phi_q": ("Phi_q", "Phi"),
    "D": ("D",),
    "beta": ("beta",),
    "gamma": ("gamma",),
    "outputs": ("outputs",),
    "ddq": ("accelerations", "pivots"),  # the closed-form accelerations' hot path (0 without them)
}


def export_plan(eq: Equations, *names: str, symmetric_M: bool = True, trig: str = "fold") -> ExportPlan:
    """The :class:`~symbody.symbolic.plan.ExportPlan` of the named blocks exported jointly.

    ``trig="fold"`` is the size-optimal export (the counts of :func:`stats`);
    ``trig="expand"`` is the speed-optimal one the C and Python emitters use.
    ``symmetric_M`` exports the upper triangle of ``M`` only.
    """
    available = eq.blocks()
    sel = {}
    for name in names:
        exprs = available[name][0]
        if name == "M" and symmetric_M:
            n = eq.nq
            exprs = [eq.M[i][j] for i in range(n) for j in range(i, n)]
        sel[name] = exprs
    return ExportPlan(sel, {s: symbol_name(s) for s in eq.ctx.symbols}, trig=trig)


def op_count(eq: Equations, *names: str, trig: str = "fold") -> int:
    """Operation count (sum of ``sympy.count_ops`` over emitted assignments) of blocks exported jointly."""
    return export_plan(eq, *names, trig=trig).op_count()


def stats(eq: Equations) -> dict[str, Any]:
    """Sizes, atom and operation counts per block (definitions in docs/explanation/architecture.md).

    Keys: ``name, coordinates, constraints, holonomic, nonholonomic, dof, parameters, inputs,
    outputs, atoms, ops, temps, derive_seconds, formulation, accelerations`` (how the closed-form
    accelerations were derived, ``""`` without them); ``ops`` holds ``M, delta, M_delta,
    Phi, Phi_q, gamma`` (and ``Phi_Phi_q, D, beta, outputs``, and ``ddq``: the accelerations and pivots
    in closed form, 0 without them); ``temps`` holds the number of
    temporaries emitted per block.  Computed once per equations.
    """
    cached = _STATS.get(eq)
    if cached is not None:
        return cached
    ops: dict[str, int] = {}
    temps: dict[str, int] = {}
    for key, names in STAT_BLOCKS.items():
        plan = export_plan(eq, *names)
        ops[key] = plan.op_count()
        temps[key] = plan.n_temps
    out = _STATS[eq] = {
        "name": eq.name,
        "coordinates": eq.nq,
        "constraints": eq.nc,
        "holonomic": eq.nh,
        "nonholonomic": eq.nc - eq.nh,
        "dof": eq.dof,
        "parameters": len(eq.parameters),
        "inputs": len(eq.inputs),
        "outputs": len(eq.outputs),
        "atoms": eq.n_atoms,
        "ops": ops,
        "temps": temps,
        "derive_seconds": eq.derive_seconds,
        "formulation": eq.formulation,
        "accelerations": eq.accelerations_method,
    }
    return out


#: The functions of the exported code (``sb_<name>`` in the FMU's ``model.c``, ``<model>_<file>.m`` in the MATLAB
#: export) and the blocks each evaluates jointly, in the order their entries enter its export plan.
EXPORTED_FUNCTIONS = {
    "M_delta": ("M", "delta"),
    "constraints": ("D", "beta", "gamma", "Phi"),
    "outputs": ("outputs",),
    "ddq": ("accelerations", "pivots"),  # sb_accelerations_direct (none without closed-form accelerations)
}


def exported_entries(eq: Equations, block: str) -> list[tuple[tuple[int, ...], Expr]]:
    """The entries the exported code assigns for ``block``: ``(index, expression)`` of the nonzero entries, in
    row-major order, 0-based; of ``M`` only the upper triangle (the code mirrors it).

    Example:
        >>> from symbody.models import pendulum
        >>> exported_entries(pendulum().derive(), "M")
        [((0, 0), 1)]
    """
    exprs, shape = eq.blocks()[block]
    out: list[tuple[tuple[int, ...], Expr]] = []
    for k, e in enumerate(exprs):
        if e.op == NUM and e.value == 0:
            continue
        index: tuple[int, ...] = divmod(k, shape[1]) if len(shape) == 2 else (k,)
        if block == "M" and index[0] > index[1]:
            continue
        out.append((index, e))
    return out


def export_ops(eq: Equations) -> dict[str, int]:
    """Operation count of each of :data:`EXPORTED_FUNCTIONS` as the C and MATLAB exports write it (the shared
    temporaries and the assignments of :func:`exported_entries`, planned with ``trig="expand"``); computed once
    per equations.
    """
    cached = _EXPORT_OPS.get(eq)
    if cached is None:
        names = {s: symbol_name(s) for s in eq.ctx.symbols}
        cached = _EXPORT_OPS[eq] = {
            function: ExportPlan(
                {"all": [e for block in blocks for _, e in exported_entries(eq, block)]}, names, trig="expand"
            ).op_count()
            for function, blocks in EXPORTED_FUNCTIONS.items()
        }
    return cached


_EXPORT_OPS: WeakKeyDictionary[Equations, dict[str, int]] = WeakKeyDictionary()

__all__ = ["EXPORTED_FUNCTIONS", "STAT_BLOCKS", "export_ops", "export_plan", "exported_entries", "op_count", "stats"]
