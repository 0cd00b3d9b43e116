"""Operation counts of the exported blocks of an :class:`~symbody.Equations` (``symbody info``).

The counts are those of the size-optimal export (:class:`symbody.symbolic.plan.ExportPlan`
with ``trig="fold"``); definitions in docs/guide/architecture.md.

Example:
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> op_count(eq, "M", "delta"), stats(eq)["ops"]["M_delta"]
    (3, 3)
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from ..equations import Equations
from ..symbolic.expr import symbol_name
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
    """Sizes, atom and operation counts per block (definitions in docs/guide/architecture.md).

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


__all__ = ["STAT_BLOCKS", "export_plan", "op_count", "stats"]
