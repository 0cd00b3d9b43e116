"""Checks on a model and on its derived equations, with messages that name the objects at fault.

Before the derivation (:func:`check_system`): the system has coordinates and mass.  After it
(:func:`check_equations`): units are consistent, every input is used, every coordinate appears in
an equation, the mass matrix and the constraint Jacobian are finite at the initial state, redundant
constraint rows are consistent (then only a :class:`RedundantConstraintWarning`) and the mass
matrix is regular on the admissible motions.

Example:
    >>> import symbody as sb
    >>> s = sb.System("idle"); x = s.coordinate("x")
    >>> check_system(s)
    Traceback (most recent call last):
    ...
    symbody.errors.ModelError: system 'idle' has no solid or particle with mass
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..dimensions import CheckedEquations, check_dimensions
from ..errors import ModelError, caller_stacklevel
from ..model.reactions import check_reactions
from ..symbolic.evaluate import evaluate_many
from ..symbolic.expr import Expr
from .records import ConstraintInfo, CoordinateInfo, InputInfo, OutputInfo, ParameterInfo, StateInfo

if TYPE_CHECKING:
    from ..model.contacts import ContactInfo
    from ..model.friction import FrictionInfo
    from ..model.system import System

RANK_TOL = 1e-9


class DerivedEquations(CheckedEquations, Protocol):
    """What the checks read of :class:`symbody.Equations` (this layer sits below it and does not import it).

    ``Equations`` has every field named here (mypy checks it where :func:`check_equations` is called).
    """

    name: str
    parameters: list[ParameterInfo]
    inputs: list[InputInfo]
    coordinates: list[CoordinateInfo]
    outputs: list[OutputInfo]
    states: list[StateInfo]
    constraint_rows: list[ConstraintInfo]
    initial_rows: list[ConstraintInfo]
    D: list[list[Expr]]
    Phi_init_q: list[list[Expr]]
    lam: list[Expr]
    contacts: list[ContactInfo]
    frictions: list[FrictionInfo]

    @property
    def nc(self) -> int: ...


class RedundantConstraintWarning(UserWarning):
    """Constraint rows are linearly dependent at the initial configuration."""


def check_system(system: System) -> None:
    """The model has coordinates, at least one solid or particle with mass, and a rate for every state."""
    if not system.coordinates:
        raise ModelError(f"system {system.name!r} has no coordinates")
    for x in system.states.values():
        if x.rate is None:
            raise ModelError(f"state {x.name!r} has no rate: give it with System.rate({x.name}, ...)")
    # outputs may use state, inputs, parameters, time, multipliers: all declared symbols by construction
    if not any(s.has_inertia for s in system.solids.values()):
        raise ModelError(f"system {system.name!r} has no solid or particle with mass")
    check_reactions(system)  # every joint reaction saw the whole model


def default_values(eq: DerivedEquations) -> dict[Expr, float]:
    """The symbol values of the initial state: ``t = 0``, default parameters and inputs, ``ddq = lam = 0``."""
    vals = {eq.t: 0.0}
    for p in eq.parameters:
        vals[p.symbol] = p.value
    for c in eq.coordinates:
        vals[c.q], vals[c.dq], vals[c.ddq] = c.q0, c.dq0, 0.0
    for u in eq.inputs:
        vals[u.symbol] = u.value
    for x in eq.states:
        vals[x.symbol] = x.x0
    for lam in eq.lam:
        vals[lam] = 0.0
    return vals


def evaluate_matrix(rows: list[list[Expr]], ncols: int, values: dict[Expr, float]) -> np.ndarray:
    """A matrix of expressions evaluated at ``values`` (interpreted: for checks, not for loops)."""
    flat = [e for row in rows for e in row]
    return np.array(evaluate_many(flat, values), dtype=float).reshape(len(rows), ncols)


def redundant_rows(names: list[str], D: np.ndarray, tol: float = RANK_TOL) -> list[str]:
    """Names of the rows of ``D`` that depend linearly on the rows before them (greedy, in order).

    Example:
        >>> redundant_rows(["a", "b", "c"], np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]]))
        ['b']
    """
    out, kept = [], np.zeros((0, D.shape[1]))
    scale = max(1.0, float(np.abs(D).max())) if D.size else 1.0
    for name, row in zip(names, D):
        trial = np.vstack([kept, row])
        if np.linalg.matrix_rank(trial, tol=tol * scale) > kept.shape[0]:
            kept = trial
        else:
            out.append(name)
    return out


def check_equations(eq: DerivedEquations) -> None:
    """Checks on the derived equations (see the module docstring); ``eq`` is a :class:`symbody.Equations`.

    Redundant constraints only warn (the assembly and the analyses handle them with
    pseudo-inverses); ``eq.redundant_rows()`` names them.
    """
    check_dimensions(eq)
    _check_used(eq)
    n = eq.nq
    vals = default_values(eq)
    try:
        Mv = evaluate_matrix(eq.M, n, vals)
        Dv = evaluate_matrix(eq.D, n, vals)
    except (ValueError, ZeroDivisionError, OverflowError) as err:
        raise ModelError(
            f"the mass matrix or the constraint Jacobian cannot be evaluated at the initial state: {err}"
        ) from None
    if not (np.all(np.isfinite(Mv)) and np.all(np.isfinite(Dv))):
        raise ModelError("the mass matrix or the constraint Jacobian is not finite at the initial state")
    if eq.nc:
        _, sv, vt = np.linalg.svd(Dv)
        tol = RANK_TOL * max(1.0, float(sv.max()) if sv.size else 1.0)
        rank = int((sv > tol).sum())
        if rank < eq.nc:
            names = ", ".join(repr(r) for r in redundant_rows([r.name for r in eq.constraint_rows], Dv))
            _check_consistent(eq, names, vals)
            warnings.warn(
                f"model {eq.name!r}: constraint rows {names} are redundant at the initial configuration "
                f"(rank {rank} of {eq.nc}); the assembly uses pseudo-inverses, but an FMU needs independent rows",
                RedundantConstraintWarning,
                stacklevel=caller_stacklevel(),
            )
        Z = vt[rank:].T  # basis of the null space of D: admissible velocities
    else:
        Z = np.eye(n)
    if Z.shape[1]:
        _check_inertia(eq, Mv, Z)


def _check_used(eq: DerivedEquations) -> None:
    """Every input enters an equation (a motion input through its position or a rate, a contact's gap or a
    friction's rate); every coordinate has inertia or a constraint."""
    used = 0
    for e in [e for row in eq.M + eq.D for e in row] + eq.delta + eq.Phi_init + eq.beta + eq.gamma + eq.rates:
        used |= e.mask
    for o in eq.outputs:
        used |= o.expr.mask
    for contact in eq.contacts:  # a floor moved by a motion input enters through the gap of its contacts
        used |= contact.gap.mask | contact.beta.mask | contact.gamma.mask
    for friction in eq.frictions:
        used |= friction.beta.mask | friction.gamma.mask | friction.normal.mask
    signals: dict[str, int] = {}
    for u in eq.inputs:
        if u.motion:
            signals[u.signal] = signals.get(u.signal, 0) | u.symbol.mask
    for u in eq.inputs:
        if u.motion and not (signals[u.signal] & used):
            raise ModelError(
                f"motion input {u.signal!r} is never used: no position, load, constraint, rate or output depends on it"
            )
        if not u.motion and not (u.symbol.mask & used):
            raise ModelError(f"input {u.name!r} is never used: no load, constraint, rate or output depends on it")
    for j, c in enumerate(eq.coordinates):
        inertia = any(not eq.M[i][j].is_zero for i in range(eq.nq))
        constrained = any(not eq.D[i][j].is_zero for i in range(eq.nc))
        if not inertia and not constrained:
            raise ModelError(
                f"coordinate {c.name!r} appears in no equation: it has no inertia and no constraint involves it"
            )


def _check_inertia(eq: DerivedEquations, Mv: np.ndarray, Z: np.ndarray) -> None:
    """The mass matrix is positive definite on the admissible motions (the columns of ``Z``)."""
    scale = max(1.0, float(np.abs(Mv).max()))
    Mr = Z.T @ Mv @ Z
    ev = np.linalg.eigvalsh(0.5 * (Mr + Mr.T))
    if ev.min() <= 1e-12 * scale:
        bad = [c.name for c, col in zip(eq.coordinates, np.abs(Z @ np.linalg.eigh(Mr)[1][:, 0])) if col > 1e-6]
        raise ModelError(
            f"the mass matrix of {eq.name!r} is singular at the initial state (on the admissible motions); "
            f"the motion of {', '.join(repr(b) for b in bad) or 'some coordinates'} has no inertia "
            "(if these are rotation angles, the start is a singularity of the angle parametrization: "
            "change the initial angles or use Euler parameters)"
        )


def _check_consistent(eq: DerivedEquations, redundant: str, vals: dict[Expr, float], tol: float = 1e-10) -> None:
    """Redundant rows must still be satisfiable together: Gauss-Newton on ``Phi_init`` from the start values.

    Minimum-norm least-squares steps with a backtracking line search; when no step decreases
    ``|Phi_init|`` before the rows vanish, no configuration satisfies them together.
    """
    vals = dict(vals)
    rows = eq.Phi_init
    names = [r.name for r in eq.constraint_rows[: eq.nh]] + [r.name for r in eq.initial_rows]
    q = np.array([vals[c.q] for c in eq.coordinates])

    def residual(x: np.ndarray) -> np.ndarray:
        vals.update(zip((c.q for c in eq.coordinates), x.tolist()))
        return np.array(evaluate_many(rows, vals), dtype=float)

    r = residual(q)
    for _ in range(50):
        if not r.size or float(np.max(np.abs(r))) <= tol:
            return
        J = evaluate_matrix(eq.Phi_init_q, eq.nq, vals)
        dx = -np.linalg.lstsq(J, r, rcond=RANK_TOL)[0]
        alpha, l2 = 1.0, float(r @ r)
        while alpha >= 1e-4:
            rn = residual(q + alpha * dx)
            if np.all(np.isfinite(rn)) and float(rn @ rn) <= (1.0 - 1e-4 * alpha) * l2:
                break
            alpha *= 0.5
        if alpha < 1e-4:
            break
        q, r = q + alpha * dx, rn
    r = np.abs(residual(q))
    worst = ", ".join(f"{names[i]!r} ({r[i]:.3g})" for i in np.argsort(-r)[:3] if r[i] > tol)
    raise ModelError(
        f"the constraints of {eq.name!r} are redundant ({redundant} depend on the others at the initial "
        f"configuration) and inconsistent: no configuration satisfies them together; largest residuals "
        f"at the closest configuration: {worst}"
    )


__all__ = [
    "DerivedEquations",
    "RedundantConstraintWarning",
    "check_equations",
    "check_system",
    "default_values",
    "evaluate_matrix",
    "redundant_rows",
]
