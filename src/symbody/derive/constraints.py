"""Constraint derivatives: the position, velocity and acceleration rows of the constraints.

For holonomic rows ``Phi(q, t) = 0`` and velocity (non-holonomic) rows ``A_nh(q, t) q' - b = 0``::

    D = [Phi_q; A_nh]          beta = [-Phi_t; -(rows at q' = 0)]
    gamma = -d/dt(D q' - beta) at q'' = 0

and the initial-position rows ``Phi_init = [Phi; initial conditions]`` with their Jacobian.

Example:
    >>> import symbody as sb
    >>> s = sb.System("rail"); x, y = s.coordinate("x"), s.coordinate("y")
    >>> _ = s.constraint("rail", y - x**2)
    >>> rows = constraint_rows(s)
    >>> rows.Phi_q, rows.gamma
    ([[-2*x, 1]], [2*dx**2])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ModelError
from ..model.constraints import ConstraintRow
from ..model.expressions import explicit_rate
from ..symbolic.calculus import jacobian, subs_many, time_derivative
from ..symbolic.expr import ZERO, Expr, neg
from .records import ConstraintInfo

if TYPE_CHECKING:
    from ..model.system import System


@dataclass(frozen=True)
class ConstraintRows:
    """The constraint blocks of a system (fields as in :class:`symbody.Equations`)."""

    Phi: list[Expr]
    Phi_q: list[list[Expr]]
    A_nh: list[list[Expr]]
    D: list[list[Expr]]
    beta: list[Expr]
    gamma: list[Expr]
    Phi_init: list[Expr]
    Phi_init_q: list[list[Expr]]
    constraint_rows: list[ConstraintInfo]
    initial_rows: list[ConstraintInfo]
    lam: list[Expr]


def constraint_rows(system: System) -> ConstraintRows:
    """The holonomic, velocity and initial-position rows of ``system`` and their derivatives."""
    hol = [r for r in system.constraints if r.kind == "holonomic"]
    vel = [r for r in system.constraints if r.kind == "velocity"]
    init = [r for r in system.constraints if r.kind == "initial"]
    q = [c.q for c in system.coordinates]
    dq = [c.dq for c in system.coordinates]
    ctx = system.ctx
    Phi = [r.expr for r in hol]
    Phi_q = jacobian(Phi, q)
    A_nh = jacobian([r.expr for r in vel], dq)
    beta_h = [neg(explicit_rate(system, e)) for e in Phi]
    beta_nh = [neg(e) for e in subs_many([r.expr for r in vel], {s: ZERO for s in dq})]
    phidot = [time_derivative(e, ctx, accelerations=False) for e in Phi]
    gamma = [neg(time_derivative(e, ctx, accelerations=False)) for e in phidot] + [
        neg(time_derivative(r.expr, ctx, accelerations=False)) for r in vel
    ]
    Phi_init = Phi + [r.expr for r in init]
    return ConstraintRows(
        Phi=Phi,
        Phi_q=Phi_q,
        A_nh=A_nh,
        D=Phi_q + A_nh,
        beta=beta_h + beta_nh,
        gamma=gamma,
        Phi_init=Phi_init,
        Phi_init_q=jacobian(Phi_init, q),
        constraint_rows=[ConstraintInfo(r.name, r.kind, r.group, r.multiplier) for r in hol + vel],
        initial_rows=[ConstraintInfo(r.name, r.kind, r.group, None) for r in init],
        lam=[_multiplier(r) for r in hol + vel],
    )


__all__ = ["ConstraintRows", "constraint_rows"]


def _multiplier(row: ConstraintRow) -> Expr:
    """The Lagrange multiplier symbol of a holonomic or velocity row (every such row has one)."""
    if row.multiplier is None:
        raise ModelError(f"constraint row {row.name!r} has no Lagrange multiplier")
    return row.multiplier
