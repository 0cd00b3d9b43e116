"""The position problem: Newton-Raphson assembly (3D_MEC ``solve_initial_position``).

:func:`assemble` solves ``Phi(q, t) = 0`` together with the model's
initial-position conditions ``Phi_init`` (e.g. ``s.fix_initial(theta)``) by
Newton-Raphson with relaxation or a backtracking line search; each step is
the minimum-norm least-squares correction, so redundant constraints
(rank-deficient Jacobian) and under-determined systems are handled, and an
unsatisfiable system is reported as such.

Held coordinates: an initial-position condition of the form ``q_i - c(t) = 0``
(what ``fix_initial`` creates) holds ``q_i`` at ``c``, and that value wins over
the guess passed to :func:`assemble`; a guess that differs is reported with a
:class:`HeldCoordinateWarning` naming the coordinates.  To assemble with another
value, list the coordinate in ``fixed`` (``fixed={"a": 1.2}``, or
``fixed=["a"]`` to hold the guess): an explicit ``fixed`` value replaces the
model's condition on that coordinate.

Example (a crank held at its initial angle, a guess elsewhere is overridden):
    >>> import warnings, symbody as sb
    >>> s = sb.System("crank"); a = s.coordinate("a", 1.0)
    >>> _ = s.particle("m", s.point("P", s.origin, (sb.cos(a), sb.sin(a), 0)), 1.0)
    >>> _ = s.fix_initial(a)
    >>> eq = s.derive()
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     res = assemble(eq, [0.5])
    >>> res["a"], w[0].category.__name__
    (1.0, 'HeldCoordinateWarning')
    >>> print(str(w[0].message).split("; ")[0])
    assemble 'crank': the guess for coordinate 'a' (0.5) differs from the value 1 held by initial condition 'a_init'

    >>> assemble(eq, [0.5], fixed=["a"])["a"]
    0.5
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NumericalError, caller_stacklevel
from ..model.deprecation import formerly_positional
from .linalg import RANK_TOL, independent_rows, numerical_rank
from .model import NumericModel, as_numeric, coordinate_indices

if TYPE_CHECKING:
    from ..equations import Equations


class HeldCoordinateWarning(UserWarning):
    """The guess of a coordinate held by an initial-position condition differs from the held value."""


@dataclass
class _Newton:
    x: np.ndarray
    residual: np.ndarray
    iterations: int
    converged: bool


def newton_least_squares(
    fun: Callable[[np.ndarray], np.ndarray],
    jac: Callable[[np.ndarray], np.ndarray],
    x0: np.ndarray,
    tol: float = 1e-10,
    max_iter: int = 50,
    relax: float | None = None,
    step: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> _Newton:
    """Gauss-Newton with minimum-norm steps for ``fun(x) = 0``.

    ``relax`` is a fixed step fraction (3D_MEC's relaxation); ``None`` uses a
    backtracking line search on ``|fun|`` (full steps near the solution).
    ``step(x, J, r)`` computes the correction ``dx`` with ``J dx ~ -r`` (default: the
    minimum-norm least-squares one; a caller whose unknowns mix units passes a scaled
    solve, :mod:`symbody.numeric.scaling`).  Converged when ``max |fun(x)| <= tol``.
    """
    x = np.array(x0, dtype=float)
    r = fun(x)
    norm = float(np.max(np.abs(r))) if r.size else 0.0
    for k in range(max_iter):
        if norm <= tol:
            return _Newton(x, r, k, True)
        J = jac(x)
        dx = -np.linalg.lstsq(J, r, rcond=RANK_TOL)[0] if step is None else step(x, J, r)
        if not np.all(np.isfinite(dx)):
            break
        if relax is not None:
            x = x + relax * dx
            r = fun(x)
            norm = float(np.max(np.abs(r)))
            continue
        alpha, l2 = 1.0, float(r @ r)
        while True:
            xn = x + alpha * dx
            rn = fun(xn)
            if np.all(np.isfinite(rn)) and float(rn @ rn) <= (1.0 - 1e-4 * alpha) * l2:
                break
            alpha *= 0.5
            if alpha < 1e-4:
                break
        if alpha < 1e-4:  # no decrease: a least-squares minimum that is not a solution
            return _Newton(x, r, k + 1, False)
        x, r = xn, rn
        norm = float(np.max(np.abs(r)))
    return _Newton(x, r, max_iter, norm <= tol)


# ---------------------------------------------------------------------------
# assembly
# ---------------------------------------------------------------------------


@dataclass
class AssemblyResult:
    """Result of :func:`assemble`.

    Attributes:
        q: the assembled coordinates.
        t: time of the assembly.
        converged: always ``True`` (a failure raises :class:`symbody.NumericalError`).
        iterations: Newton iterations taken.
        residual: ``max |rows|`` at ``q`` (constraints, initial conditions and held values).
        rows: names of the rows solved.
        rank: rank of their Jacobian at ``q``.
        redundant: rows dependent on the others at ``q`` (redundant constraints).
        dof: degrees of freedom left by the constraints ``D`` at ``q``.
        coordinate_names: names of the coordinates (``res["theta"]`` gives one value).
    """

    q: np.ndarray
    t: float
    converged: bool
    iterations: int
    residual: float
    rows: list[str]
    rank: int
    redundant: list[str]
    dof: int
    coordinate_names: list[str] = field(default_factory=list)

    def __getitem__(self, name: str) -> float:
        return float(self.q[self.coordinate_names.index(name)])


def held_rows(eq: Equations) -> dict[int, int]:
    """Initial-position rows that hold one coordinate: ``{row index in Phi_init: coordinate index}``.

    Such a row is ``a q_i + c(t) = 0`` with ``a = +-1`` (``fix_initial`` creates ``q_i - q_i0``).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("held"); x, y = s.coordinate("x", 0.5), s.coordinate("y")
        >>> _ = s.particle("m", s.point("P", s.origin, (x, y, 0)), 1.0)
        >>> _ = s.fix_initial(y); _ = s.initial_constraint("on_circle", x**2 + y**2 - 1)
        >>> held_rows(s.derive())        # row 0 holds y; the circle holds no single coordinate
        {0: 1}
    """
    out = {}
    for k in range(eq.nh, len(eq.Phi_init)):
        nz = [j for j, e in enumerate(eq.Phi_init_q[k]) if not e.is_zero]
        if len(nz) == 1 and eq.Phi_init_q[k][nz[0]].is_number and abs(float(eq.Phi_init_q[k][nz[0]])) == 1.0:
            out[k] = nz[0]
    return out


def _held_values(nm: NumericModel, q: np.ndarray, t: float, u: Any = None) -> dict[int, tuple[int, float]]:
    """``{row: (coordinate, held value)}`` of the rows of :func:`held_rows` (exact: the rows are linear)."""
    eq = nm.eq
    rows = held_rows(eq)
    if not rows:
        return {}
    r = nm.Phi_init(q, t=t, u=u)
    return {k: (j, float(q[j] - r[k] / float(eq.Phi_init_q[k][j]))) for k, j in rows.items()}


def warn_overridden_guess(
    nm: NumericModel,
    q: np.ndarray,
    t: float,
    fixed: dict[int, float],
    tol: float,
    analysis: str = "assemble",
    u: Any = None,
) -> None:
    """Warn (:class:`HeldCoordinateWarning`) when the guess ``q`` of a coordinate held by an
    initial-position condition, and not listed in ``fixed``, differs from the held value."""
    eq = nm.eq
    conflicts = [
        (eq.coordinates[j].name, q[j], v, eq.initial_rows[k - eq.nh].name)
        for k, (j, v) in _held_values(nm, q, t, u).items()
        if j not in fixed and abs(q[j] - v) > tol
    ]
    if not conflicts:
        return
    detail = "; ".join(
        f"the guess for coordinate {c!r} ({g:.6g}) differs from the value {v:.6g} held by initial condition {r!r}"
        for c, g, v, r in conflicts
    )
    names = ", ".join(repr(c) for c, *_ in conflicts)
    remedy = f"fixed=[{names}]" if analysis == "assemble" else f"use_initial=False and fixed=[{names}]"
    warnings.warn(
        f"{analysis} {eq.name!r}: {detail}; the held value wins (to start from the guess, pass {remedy})",
        HeldCoordinateWarning,
        stacklevel=caller_stacklevel(),
    )


def _position_rows(nm: NumericModel, use_initial: bool, fixed: dict[int, float], u: Any = None):
    """Names, residual and Jacobian of the rows solved: ``Phi`` (or ``Phi_init``) and the ``fixed`` values.

    Initial-position rows that hold a coordinate listed in ``fixed`` are left out:
    the explicit value replaces them.
    """
    eq = nm.eq
    nh = eq.nh
    keep = list(range(nh))
    if use_initial:
        dropped = {k for k, j in held_rows(eq).items() if j in fixed}
        keep += [k for k in range(nh, len(eq.Phi_init)) if k not in dropped]
    names = [r.name for r in eq.constraint_rows[:nh]] + [eq.initial_rows[k - nh].name for k in keep[nh:]]
    fixed_items = sorted(fixed.items())
    names += [f"{eq.coordinates[i].name} = {v:g}" for i, v in fixed_items]
    n = eq.nq

    def fun(q: np.ndarray, t: float) -> np.ndarray:
        parts = [nm.Phi_init(q, t=t, u=u)[keep] if use_initial else nm.Phi(q, t=t, u=u)]
        if fixed_items:
            parts.append(np.array([q[i] - v for i, v in fixed_items]))
        return np.concatenate(parts) if parts else np.zeros(0)

    def jac(q: np.ndarray, t: float) -> np.ndarray:
        parts = [nm.Phi_init_q(q, t=t, u=u)[keep] if use_initial else nm.Phi_q(q, t=t, u=u)]
        if fixed_items:
            E = np.zeros((len(fixed_items), n))
            for k, (i, _) in enumerate(fixed_items):
                E[k, i] = 1.0
            parts.append(E)
        return np.vstack(parts) if parts else np.zeros((0, n))

    return names, fun, jac


def _as_fixed(eq: Equations, fixed: Any, q: np.ndarray) -> dict[int, float]:
    if fixed is None:
        return {}
    if isinstance(fixed, dict):
        idx = coordinate_indices(eq, list(fixed))
        return {i: float(v) for i, v in zip(idx, fixed.values())}
    idx = coordinate_indices(eq, fixed)
    return {i: float(q[i]) for i in idx}


@formerly_positional("t", where="symbody.numeric")
def assemble(
    model: Equations | NumericModel,
    q: Any = None,
    *,
    t: float = 0.0,
    use_initial: bool = True,
    fixed: Sequence[str] | dict[str, float] | None = None,
    tol: float = 1e-10,
    max_iter: int = 100,
    relax: float | None = None,
    u: Any = None,
    p: Any = None,
) -> AssemblyResult:
    """Solve the position problem ``Phi(q, t) = 0`` from a guess (3D_MEC ``solve_initial_position``).

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        q: initial guess (default: the model's initial coordinates).
        t: time.
        use_initial: also impose the model's initial-position conditions ``Phi_init``
            (e.g. ``s.fix_initial(theta1)``); ``False`` solves ``Phi = 0`` alone,
            staying as close to the guess as the minimum-norm steps allow.
        fixed: coordinates held during assembly: names (held at the guess) or
            ``{name: value}``.
        tol: absolute tolerance on ``max |Phi|``.
        max_iter: maximum Newton iterations.
        relax: fixed step fraction in ``(0, 1]``; ``None`` (default) uses a line search.
        u: input values (dict by name or array; default: the model's): the motion inputs move the constraints.
        p: parameter values (when ``model`` is an ``Equations``).

    Returns:
        :class:`AssemblyResult`.

    Warns:
        HeldCoordinateWarning: the guess of a held coordinate differs from its held value.

    Raises:
        NumericalError: no convergence, or the rows cannot be satisfied together
            (inconsistent constraints / initial conditions); the message names the
            worst violated rows.
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    q0 = np.array(eq.q0 if q is None else q, dtype=float).reshape(-1)
    if q0.size != eq.nq:
        raise ValueError(f"expected {eq.nq} coordinates, got {q0.size}")
    if relax is not None and not 0.0 < relax <= 1.0:
        raise ValueError(f"relax must be in (0, 1], got {relax}")
    fx = _as_fixed(eq, fixed, q0)
    uu = nm.input_vector(u)
    if q is not None and use_initial:
        warn_overridden_guess(nm, q0, t, fx, tol, u=uu)
    names, fun, jac = _position_rows(nm, use_initial, fx, uu)
    sol = newton_least_squares(lambda x: fun(x, t), lambda x: jac(x, t), q0, tol, max_iter, relax)
    if not sol.converged:
        r = np.abs(sol.residual)
        worst = np.argsort(-r)[:3]
        detail = ", ".join(f"{names[i]!r} ({r[i]:.3g})" for i in worst if r[i] > tol)
        why = "the rows cannot all be satisfied (inconsistent constraints or conditions)"
        if sol.iterations >= max_iter:
            why = f"no convergence in {max_iter} iterations"
        raise NumericalError(f"assembly of {eq.name!r} failed: {why}; largest residuals: {detail}")
    J = jac(sol.x, t)
    rank = numerical_rank(J) if J.size else 0
    keep = set(independent_rows(J)) if J.size else set()
    redundant = [names[i] for i in range(len(names)) if i not in keep]
    D = nm.D(sol.x, t=t, u=uu) if eq.nc else np.zeros((0, eq.nq))
    dof = eq.nq - (numerical_rank(D) if D.size else 0)
    res = float(np.max(np.abs(sol.residual))) if sol.residual.size else 0.0
    return AssemblyResult(
        sol.x, t, True, sol.iterations, res, names, rank, redundant, dof, [c.name for c in eq.coordinates]
    )


__all__ = [
    "assemble",
    "AssemblyResult",
    "HeldCoordinateWarning",
    "held_rows",
    "newton_least_squares",
]
