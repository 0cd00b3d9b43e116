"""Kinematic problems: assembly (position), velocity and acceleration problems, kinematic simulation.

These are the numeric templates ``solve_initial_position``,
``solve_initial_velocity`` and ``kinematic_simulation_num`` of 3D_MEC_MATLAB
(Gil Soto, 2005) and the position/velocity/acceleration problems of the kinematics slides:

- :func:`~symbody.numeric.assemble` (module :mod:`symbody.numeric.assembly`):
  Newton-Raphson on ``Phi(q, t) = 0`` and the initial-position conditions.
- :func:`solve_velocities`, :func:`solve_accelerations`: ``D dq = beta`` and
  ``D ddq = gamma``, dependent entries from independent ones, the split
  chosen by QR with column pivoting; incompatible data are detected.
- :func:`kinematic_simulation`: independent coordinates driven by functions
  of time; position, velocity and acceleration at each time (non-holonomic
  models integrate the rates of the velocity problem).

Example (a four-bar linkage, the crank held at its initial angle while assembling):
    >>> import math, symbody as sb
    >>> from symbody.numeric import assemble, solve_velocities
    >>> s = sb.System("fourbar")
    >>> a, b, c = (s.coordinate(n, v) for n, v in (("a", 1.0), ("b", 0.0), ("c", -1.0)))
    >>> A = s.point("A", s.origin, (sb.cos(a), sb.sin(a), 0))
    >>> B = s.point("B", A, (2 * sb.cos(b), 2 * sb.sin(b), 0))
    >>> C = s.point("C", B, (2 * sb.cos(c), 2 * sb.sin(c), 0))
    >>> _ = s.particle("m", B, 1.0)
    >>> _ = s.constraint("loop", s.position(C) - sb.Vector(s.ground_base, 2.5, 0, 0), components="xy")
    >>> _ = s.fix_initial(a)
    >>> eq = s.derive()
    >>> res = assemble(eq)
    >>> res.converged, round(res["a"], 12), res.residual < 1e-10
    (True, 1.0, True)
    >>> v = solve_velocities(eq, res.q, independent=["a"], values=[1.0])
    >>> v.independent, abs(v.residual) < 1e-12
    (['a'], True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.integrate import solve_ivp

from ..codegen.evaluators import evaluator as compiled_evaluator
from ..errors import NumericalError
from ..model.deprecation import formerly_positional
from ..symbolic.expr import Expr
from .assembly import newton_least_squares
from .blocks import model_blocks
from .inputs import input_function
from .linalg import (
    RANK_TOL,
    Partition,
    dependent_condition,
    independent_rows,
    numerical_rank,
    partition,
    select_columns,
    solve_dependent,
)
from .model import NumericModel, as_numeric, coordinate_indices
from .results import TimeHistory

if TYPE_CHECKING:
    from ..equations import Equations

# ---------------------------------------------------------------------------
# names and preferences
# ---------------------------------------------------------------------------


def dependent_preference(eq: Equations) -> list[list[int]]:
    """Groups of coordinates in order of preference for the dependent set.

    Auxiliary coordinates first, then ordinary ones; coordinates held by the
    initial-position conditions come last (they are natural independent ones).
    """
    held_mask = 0
    for e in eq.Phi_init[eq.nh :]:
        held_mask |= e.mask
    aux = [i for i, c in enumerate(eq.coordinates) if c.aux]
    held = [i for i, c in enumerate(eq.coordinates) if not c.aux and c.q.mask & held_mask]
    plain = [i for i in range(eq.nq) if i not in aux and i not in held]
    return [aux, plain, held]


def _names(eq: Equations, idx: Sequence[int]) -> list[str]:
    return [eq.coordinates[i].name for i in idx]


# ---------------------------------------------------------------------------
# velocity and acceleration problems
# ---------------------------------------------------------------------------


@dataclass
class LinearKinematicsResult:
    """Result of :func:`solve_velocities` / :func:`solve_accelerations`.

    Attributes:
        values: the full vector (velocities ``dq`` or accelerations ``ddq``).
        independent: names of the independent coordinates (whose entries were given).
        dependent: names of the dependent coordinates (solved).
        residual: ``max |D x - rhs|`` over every row, redundant ones included.
        condition: condition number of the dependent block of ``D``.
        coordinate_names: names of all coordinates (``res["theta"]`` gives one entry).
    """

    values: np.ndarray
    independent: list[str]
    dependent: list[str]
    residual: float
    condition: float
    coordinate_names: list[str] = field(default_factory=list)

    def __getitem__(self, name: str) -> float:
        return float(self.values[self.coordinate_names.index(name)])

    @property
    def dq(self) -> np.ndarray:
        """Alias of ``values`` for velocity results."""
        return self.values

    @property
    def ddq(self) -> np.ndarray:
        """Alias of ``values`` for acceleration results."""
        return self.values


def _partition_for(nm: NumericModel, D: np.ndarray, independent: Any) -> Partition:
    eq = nm.eq
    idx = coordinate_indices(eq, independent)
    return partition(D, idx, prefer_dependent=dependent_preference(eq), names=[c.name for c in eq.coordinates])


@dataclass(frozen=True)
class CoordinateSplit:
    """Independent coordinates at velocity level (partition of ``D``) and at position level (of ``Phi_q``).

    For holonomic systems both coincide.  With non-holonomic rows the
    position-independent set is larger: it also holds the coordinates that only
    velocity constraints tie.  The velocity-independent set is always a subset.
    """

    velocity: Partition
    position: Partition


def split_coordinates(
    nm: NumericModel, q: np.ndarray, t: float = 0.0, independent: Any = None, u: Any = None
) -> CoordinateSplit:
    """Choose independent coordinates at ``q`` (QR with column pivoting; see :func:`partition`)."""
    eq = nm.eq
    n = eq.nq
    names = [c.name for c in eq.coordinates]
    if not eq.nc:
        full = Partition([], list(range(n)), [], 0, 1.0)
        return CoordinateSplit(full, full)
    D = nm.D(q, t=t, u=u)
    pv = partition(D, coordinate_indices(eq, independent), dependent_preference(eq), names=names)
    if eq.nh:
        Phi_q = D[: eq.nh]
        rows_h = independent_rows(Phi_q)
        dep_h = select_columns(Phi_q, [pv.dependent])
        cond = dependent_condition(Phi_q, rows_h, dep_h)
        ph = Partition(dep_h, [i for i in range(n) if i not in dep_h], rows_h, len(rows_h), cond)
    else:
        ph = Partition([], list(range(n)), [], 0, 1.0)
    return CoordinateSplit(pv, ph)


def _independent_values(eq: Equations, part: Partition, values: Any, guess: np.ndarray) -> np.ndarray:
    x = np.array(guess, dtype=float)
    ind = part.independent
    if values is None:
        return x
    if isinstance(values, dict):
        cn = [c.name for c in eq.coordinates]
        for k, v in values.items():
            if k not in cn:
                raise KeyError(f"{k!r} is not a coordinate of {eq.name!r}")
            i = cn.index(k)
            if i not in ind:
                raise NumericalError(
                    f"{k!r} is not an independent coordinate here (independent: {', '.join(_names(eq, ind)) or 'none'})"
                )
            x[i] = float(v)
        return x
    arr = np.asarray(values, dtype=float).reshape(-1)
    if arr.size != len(ind):
        raise ValueError(f"expected {len(ind)} independent values ({', '.join(_names(eq, ind))}), got {arr.size}")
    x[ind] = arr
    return x


def _linear_problem(nm: NumericModel, D, rhs, independent, values, guess, what, check) -> LinearKinematicsResult:
    eq = nm.eq
    part = _partition_for(nm, D, independent)
    x = _independent_values(eq, part, values, guess)
    x, err = solve_dependent(D, rhs, x, part, check=check, what=what)
    return LinearKinematicsResult(
        x,
        _names(eq, part.independent),
        _names(eq, part.dependent),
        err,
        part.condition,
        [c.name for c in eq.coordinates],
    )


@formerly_positional("t", where="symbody.numeric")
def solve_velocities(
    model: Equations | NumericModel,
    q: Any,
    *,
    t: float = 0.0,
    independent: Sequence[str] | None = None,
    values: Any = None,
    dq: Any = None,
    check: float | None = 1e-8,
    u: Any = None,
    p: Any = None,
) -> LinearKinematicsResult:
    """Velocity problem ``D(q, t) dq = beta(q, t)``: dependent velocities from independent ones.

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        q: assembled coordinates.
        t: time.
        independent: names of the independent coordinates (as many as degrees of
            freedom); ``None`` chooses them by QR with column pivoting (held and
            ordinary coordinates preferred over auxiliary ones).
        values: independent velocities: a dict by name or an array in the order of
            ``independent``; ``None`` takes them from ``dq``.
        dq: guess whose independent entries are kept (default: model's initial velocities).
        check: relative tolerance on the residual of every row (redundant ones
            included); ``None`` disables the check.
        u: input values (dict by name or array; default: the model's): the motion inputs and their
            rates move the constraints.

    Raises:
        NumericalError: wrong number of independent coordinates, a set that does not
            determine the others, or incompatible data (redundant rows violated).
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    q = np.asarray(q, dtype=float)
    guess = eq.dq0 if dq is None else np.asarray(dq, dtype=float)
    if eq.nc == 0:
        x = _independent_values(eq, Partition([], list(range(eq.nq)), [], 0, 1.0), values, guess)
        return LinearKinematicsResult(
            x, [c.name for c in eq.coordinates], [], 0.0, 1.0, [c.name for c in eq.coordinates]
        )
    uu = nm.input_vector(u)
    return _linear_problem(nm, nm.D(q, t=t, u=uu), nm.beta(q, t=t, u=uu), independent, values, guess, "velocity", check)


@formerly_positional("t", where="symbody.numeric")
def solve_accelerations(
    model: Equations | NumericModel,
    q: Any,
    dq: Any,
    *,
    t: float = 0.0,
    independent: Sequence[str] | None = None,
    values: Any = None,
    ddq: Any = None,
    check: float | None = 1e-8,
    u: Any = None,
    p: Any = None,
) -> LinearKinematicsResult:
    """Acceleration problem ``D(q, t) ddq = gamma(q, dq, t)``: dependent accelerations from independent ones.

    Arguments as :func:`solve_velocities`; ``ddq`` is the guess whose independent
    entries are kept (default zeros).
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    q = np.asarray(q, dtype=float)
    dq = np.asarray(dq, dtype=float)
    guess = np.zeros(eq.nq) if ddq is None else np.asarray(ddq, dtype=float)
    if eq.nc == 0:
        x = _independent_values(eq, Partition([], list(range(eq.nq)), [], 0, 1.0), values, guess)
        return LinearKinematicsResult(
            x, [c.name for c in eq.coordinates], [], 0.0, 1.0, [c.name for c in eq.coordinates]
        )
    uu = nm.input_vector(u)
    return _linear_problem(
        nm, nm.D(q, t=t, u=uu), nm.gamma(q, dq, t=t, u=uu), independent, values, guess, "acceleration", check
    )


# ---------------------------------------------------------------------------
# kinematic simulation
# ---------------------------------------------------------------------------


@dataclass(repr=False)
class KinematicResult(TimeHistory):
    """Result of :func:`kinematic_simulation`: ``t, q, dq, ddq, y`` (see :class:`TimeHistory`).

    Attributes:
        drivers: names of the driven coordinates.
        residual: ``max |Phi|`` at each time.
        iterations: Newton iterations at each time.
    """

    drivers: list[str] = field(default_factory=list)
    residual: np.ndarray | None = None
    iterations: np.ndarray | None = None


def _driver_evaluator(eq: Equations, laws: tuple) -> Callable:
    """Compiled values, rates and accelerations of symbolic driving laws (cached per model and laws)."""
    cache = model_blocks(eq).functions
    key = ("drivers",) + laws
    f = cache.get(key)
    if f is None:
        exprs = []
        for z in laws:
            dz = eq.time_derivative(z)
            exprs.append((z, dz, eq.time_derivative(dz)))
        flat = [e[j] for j in range(3) for e in exprs]
        f = cache[key] = compiled_evaluator(eq, "drivers", extra={"drivers": (flat, (3, len(laws)))})
    return f


def _driver_functions(nm: NumericModel, drivers: dict) -> tuple[list[int], Callable[[float], np.ndarray]]:
    """Coordinates driven and ``f(t) -> (3, k)`` array of values, rates and accelerations."""
    eq = nm.eq
    idx = coordinate_indices(eq, list(drivers))
    specs = list(drivers.values())
    symbolic = [k for k, s in enumerate(specs) if isinstance(s, Expr)]
    numeric = [k for k, s in enumerate(specs) if not isinstance(s, Expr)]
    state_mask = 0
    for c in eq.coordinates:
        state_mask |= c.q.mask | c.dq.mask | c.ddq.mask
    for u in eq.inputs:
        state_mask |= u.symbol.mask
    fsym = None
    if symbolic:
        for k in symbolic:
            if specs[k].mask & state_mask:
                raise ValueError(f"driver of {eq.coordinates[idx[k]].name!r} must depend on time and parameters only")
        fsym = _driver_evaluator(eq, tuple(specs[k] for k in symbolic))
    for k in numeric:
        s = specs[k]
        if not (isinstance(s, (tuple, list)) and len(s) == 3 and all(callable(f) for f in s)):
            raise TypeError(
                f"driver of {eq.coordinates[idx[k]].name!r}: give a symbody expression of time "
                "(e.g. 0.5 * sb.sin(eq.t)) or three callables (z, dz/dt, d2z/dt2)"
            )
    zeros_q = np.zeros(eq.nq)

    def f(t: float) -> np.ndarray:
        out = np.zeros((3, len(specs)))
        if fsym is not None:
            out[:, symbolic] = fsym(float(t), zeros_q, zeros_q, eq.u0, nm.p)[0]
        for k in numeric:
            out[:, k] = [float(fn(t)) for fn in specs[k]]
        return out

    return idx, f


def kinematic_simulation(
    model: Equations | NumericModel,
    times: Any,
    drivers: dict[str, Any] | None = None,
    *,
    q: Any = None,
    tol: float = 1e-10,
    max_iter: int = 50,
    rtol: float = 1e-11,
    atol: float = 1e-12,
    inputs: Any = None,
    p: Any = None,
) -> KinematicResult:
    """Kinematic simulation (Gil Soto, 2005: ``kinematic_simulation_num``).

    The independent coordinates follow prescribed functions of time (the
    ``drivers``; rheonomic constraints of the model such as ``s.prescribe`` act
    too); at each time the position problem is solved by Newton-Raphson from
    the extrapolated previous solution, then the velocity and acceleration
    problems.

    With non-holonomic (velocity) constraints the positions do not follow from
    the drivers alone: a rolling disc's contact point depends on the whole
    history of its rolling.  The coordinates are then integrated, from one
    output time to the next, with the rates ``dq(q, t)`` of the velocity problem
    (constraints ``D`` and the drivers' rates; scipy's DOP853 with ``rtol`` and
    ``atol``), and projected at each output time on the holonomic constraints
    and the drivers' positions (minimum-norm Newton correction, which leaves the
    coordinates that only velocity constraints tie as integrated).  Those
    coordinates start from the guess ``q``.

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        times: increasing times.
        drivers: ``{coordinate name: law}``; a law is a symbody expression of
            ``eq.t`` and parameters (differentiated symbolically) or a tuple of
            three callables ``(z(t), dz(t), ddz(t))``.
        q: guess at the first time (default: the model's initial coordinates).
        tol: position tolerance ``max |Phi|``.
        rtol, atol: tolerances of the integration of the rates (non-holonomic models only).
        inputs: input signals of time (:mod:`symbody.numeric.inputs`): motion inputs move the
            constraints (``s.prescribe(name, coordinate, z)`` drives a coordinate by a signal) and
            the outputs.

    Returns:
        :class:`KinematicResult` (outputs that depend on multipliers are NaN).

    Raises:
        NumericalError: drivers and constraints do not fix the motion (too few
            drivers), conflict with each other, or the position problem fails.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("crank"); a = s.coordinate("a", 0.0)
        >>> _ = s.particle("m", s.point("P", s.origin, (sb.cos(a), sb.sin(a), 0)), 1.0)
        >>> eq = s.derive()
        >>> res = kinematic_simulation(eq, [0.0, 0.5, 1.0], {"a": 2.0 * eq.t})
        >>> res["a"].tolist(), res["da"].tolist()
        ([0.0, 1.0, 2.0], [2.0, 2.0, 2.0])
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    n = eq.nq
    ts = np.asarray(times, dtype=float).reshape(-1)
    if ts.size == 0 or np.any(np.diff(ts) <= 0):
        raise ValueError("times must be a non-empty increasing sequence")
    drivers = drivers or {}
    didx, zfun = _driver_functions(nm, drivers) if drivers else ([], lambda t: np.zeros((3, 0)))
    E = np.zeros((len(didx), n))
    for k, i in enumerate(didx):
        E[k, i] = 1.0
    nh = eq.nh
    nonholonomic = eq.nc > nh
    ufun = input_function(eq, inputs)
    if ufun.depends_on_state:
        raise ValueError("kinematic_simulation: inputs are signals of time here, not feedback laws f(t, q, dq)")
    zero = np.zeros(n)

    def pos(x: np.ndarray, t: float, z: np.ndarray, u: np.ndarray) -> np.ndarray:
        return np.concatenate([nm.Phi(x, t=t, u=u) if nh else np.zeros(0), x[didx] - z[0]])

    def pos_q(x: np.ndarray, t: float, u: np.ndarray) -> np.ndarray:
        return np.vstack([nm.Phi_q(x, t=t, u=u) if nh else np.zeros((0, n)), E])

    def rates(t: float, x: np.ndarray) -> np.ndarray:
        """Velocities of the velocity problem at any ``x`` (minimum-norm least squares, unchecked)."""
        D, beta = nm._fn("D", "beta")(*nm._args(x, None, t, ufun(t, x, zero)))
        A = np.vstack([D, E])
        return np.linalg.lstsq(A, np.concatenate([beta, zfun(t)[1]]), rcond=RANK_TOL)[0]

    qk = np.array(eq.q0 if q is None else q, dtype=float)
    Q = np.zeros((ts.size, n))
    DQ = np.zeros_like(Q)
    DDQ = np.zeros_like(Q)
    res = np.zeros(ts.size)
    its = np.zeros(ts.size, dtype=int)
    U = np.zeros((ts.size, eq.nu))
    names = [c.name for c in eq.coordinates]
    for k, t in enumerate(ts):
        z = zfun(t)
        U[k] = uk = ufun(t, zero, zero)
        if k > 0 and nonholonomic:
            qk = _integrate_rates(rates, ts[k - 1], t, Q[k - 1], rtol, atol, eq.name)
        elif k > 0:
            h = t - ts[k - 1]
            qk = Q[k - 1] + h * DQ[k - 1] + 0.5 * h * h * DDQ[k - 1]
        sol = newton_least_squares(partial(pos, t=t, z=z, u=uk), partial(pos_q, t=t, u=uk), qk, tol, max_iter)
        if not sol.converged:
            r = np.abs(sol.residual)
            raise NumericalError(
                f"kinematic simulation of {eq.name!r}: the position problem failed at t = {t:g} "
                f"(residual {r.max():.3g}); the drivers may lead out of the reachable workspace or conflict"
            )
        qk = sol.x
        A = np.vstack([nm.D(qk, t=t, u=uk) if eq.nc else np.zeros((0, n)), E])
        if k == 0:
            r = numerical_rank(A) if A.size else 0
            if r < n:
                sugg = (
                    partition(nm.D(qk, t=t, u=uk), prefer_dependent=dependent_preference(eq)).independent
                    if eq.nc
                    else range(n)
                )
                free = [names[i] for i in sugg if i not in didx]
                raise NumericalError(
                    f"kinematic simulation of {eq.name!r}: {n - r} more driver(s) needed to fix the motion "
                    f"(drivers: {', '.join(names[i] for i in didx) or 'none'}; candidates: {', '.join(free)})"
                )
        beta = np.concatenate([nm.beta(qk, t=t, u=uk) if eq.nc else np.zeros(0), z[1]])
        dqk = _solve_full(A, beta, "velocity", t)
        gamma = np.concatenate([nm.gamma(qk, dqk, t=t, u=uk) if eq.nc else np.zeros(0), z[2]])
        ddqk = _solve_full(A, gamma, "acceleration", t)
        Q[k], DQ[k], DDQ[k] = qk, dqk, ddqk
        res[k] = float(np.max(np.abs(sol.residual))) if sol.residual.size else 0.0
        its[k] = sol.iterations
    Y = _outputs_without_multipliers(nm, ts, Q, DQ, DDQ, U)
    return KinematicResult(
        eq, ts, Q, DQ, DDQ, None, U, Y, drivers=[names[i] for i in didx], residual=res, iterations=its
    )


def _integrate_rates(
    rates: Callable[[float, np.ndarray], np.ndarray],
    t0: float,
    t1: float,
    q0: np.ndarray,
    rtol: float,
    atol: float,
    name: str,
) -> np.ndarray:
    """``q(t1)`` from ``dq/dt = rates(t, q)``, ``q(t0) = q0`` (DOP853)."""
    sol = solve_ivp(rates, (t0, t1), q0, method="DOP853", rtol=rtol, atol=atol)
    if not sol.success or not np.all(np.isfinite(sol.y[:, -1])):
        raise NumericalError(
            f"kinematic simulation of {name!r}: integrating the non-holonomic rates failed between "
            f"t = {t0:g} and {t1:g}: {sol.message}"
        )
    return sol.y[:, -1]


def _solve_full(A: np.ndarray, b: np.ndarray, what: str, t: float) -> np.ndarray:
    x, *_ = np.linalg.lstsq(A, b, rcond=RANK_TOL)
    err = float(np.max(np.abs(A @ x - b))) if b.size else 0.0
    scale = max(1.0, float(np.max(np.abs(b))) if b.size else 0.0)
    if err > 1e-8 * scale:
        raise NumericalError(f"incompatible {what} data at t = {t:g}: the drivers conflict with the constraints")
    return x


def _outputs_without_multipliers(nm: NumericModel, ts, Q, DQ, DDQ, U) -> np.ndarray:
    eq = nm.eq
    ny = len(eq.outputs)
    Y = np.full((ts.size, ny), np.nan)
    if not ny:
        return Y
    lam_mask = 0
    for lam in eq.lam:
        lam_mask |= lam.mask
    for x in eq.states:  # the states are not part of the kinematics
        lam_mask |= x.symbol.mask
    ok = [i for i, o in enumerate(eq.outputs) if not (o.expr.mask & lam_mask)]
    if not ok:
        return Y
    for k, t in enumerate(ts):
        Y[k, ok] = nm.outputs(Q[k], DQ[k], t=t, u=U[k], ddq=DDQ[k], lam=None)[ok]
    return Y


__all__ = [
    "solve_velocities",
    "solve_accelerations",
    "LinearKinematicsResult",
    "kinematic_simulation",
    "KinematicResult",
    "coordinate_indices",
    "CoordinateSplit",
    "split_coordinates",
    "dependent_preference",
]
