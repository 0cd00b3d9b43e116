"""Forward dynamics of constrained multibody systems: :func:`simulate`.

The equations are ``M ddq + D^T lam = delta``, ``Phi(q, t) = 0`` and
``D dq = beta`` (holonomic and non-holonomic rows).  Three formulations:

``"baumgarte"``
    Index-1: the constraints differentiated to acceleration level and solved
    with the dynamics, ``[M D^T; D 0][ddq; lam] = [delta; gamma - 2 xi w dPhi - w^2 Phi]``
    (Problemas dinámicos, eq. 91; ``dPhi = D dq - beta``).  The state is ``(q, dq)``;
    Baumgarte's terms keep the drift bounded.  ``baumgarte=None`` drops them
    (plain index-1, the drift grows).
``"projection"``
    The same, and after every accepted step the state is projected back onto
    the constraints: positions by minimum-norm Newton corrections until
    ``max |Phi| <= projection_tol``, then velocities onto ``D dq = beta``
    (3D_MEC_MATLAB's "integrador ... con corrección de posición y velocidad").
``"independent"``
    Velocity transformation (the dynamics chapter's matrix R): the state holds only the
    independent coordinates ``z`` and velocities ``dz``; at every evaluation
    the position problem gives the dependent coordinates, ``dq = R dz + ...``,
    and ``R^T M R ddz = R^T (delta - M (dR dz))``.  The constraints hold to the
    position tolerance.  The independent coordinates are chosen by QR with
    column pivoting and changed automatically when they become ill-conditioned
    (unless given explicitly).  Non-holonomic systems keep the position
    coordinates the holonomic constraints leave free and only the independent
    velocities.

Integrators: ``"RK45"``, ``"DOP853"``, ``"Radau"``, ``"BDF"`` (and ``"RK23"``,
``"LSODA"`` without projection) from scipy, stepped one by one, and
``"RK4"`` with a fixed ``step``.  Inputs: see :mod:`symbody.numeric.inputs`.

Example (a pendulum written in Cartesian coordinates with a distance constraint):
    >>> import numpy as np, symbody as sb
    >>> s = sb.System("pend")
    >>> x, y = s.coordinate("x", 1.0), s.coordinate("y", 0.0)
    >>> _ = s.particle("m", s.point("P", s.origin, (x, y, 0)), 1.0)
    >>> s.gravity((0, -9.81, 0))
    >>> _ = s.constraint("rod", x**2 + y**2 - 1)
    >>> res = simulate(s.derive(), 2.0, formulation="projection", dt=0.5)
    >>> res.t.tolist()
    [0.0, 0.5, 1.0, 1.5, 2.0]
    >>> bool(res.position_violation.max() < 1e-10)
    True
    >>> bool(abs(res.energy.total - res.energy.total[0]).max() < 1e-6)
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ..errors import NumericalError
from .energy import EnergyResult, energy
from .inputs import InputFunction, input_function
from .integrators import METHODS, integrate
from .kinematics import coordinate_indices, dependent_preference, split_coordinates
from .linalg import (
    dependent_condition,
    null_space_basis,
    partition,
    regularized_correction,
    solve_dependent,
    solve_saddle,
)
from .model import NumericModel, as_numeric
from .results import TimeHistory

FORMULATIONS = ("baumgarte", "projection", "independent")
#: a constraint row counts as independent for the projections while its singular value exceeds
#: this fraction of the largest row norm met (closer to dependence: a singular position)
SINGULAR_GAP = 1e-2
#: relative rank tolerance of the independent formulation's check for a start at a singular position
SINGULAR_RANK_TOL = 1e-7


def _converged(err: float, step: float, tol: float, q: np.ndarray) -> bool:
    """Newton on ``Phi = 0`` converged: residual below ``tol``, or stalled at round-off just above it
    (a tolerance set too tight for the size of the model's coordinates)."""
    return err <= tol or (step <= 1e-14 * (1.0 + float(np.max(np.abs(q)))) and err <= 1e3 * tol)


# ---------------------------------------------------------------------------
# dependent-coordinate formulations (Baumgarte, projection)
# ---------------------------------------------------------------------------


class _Dependent:
    """State ``y = (q, dq)``; index-1 accelerations with Baumgarte terms, optional projection."""

    def __init__(
        self, nm: NumericModel, u: InputFunction, baumgarte: tuple[float, float] | None, project: bool, tol: float
    ):
        self.nm = nm
        self.eq = nm.eq
        self.n = nm.eq.nq
        self.u = u
        self.project = project
        self.tol = tol
        if baumgarte is None:
            self.a, self.b = 0.0, 0.0
        else:
            xi, w = baumgarte
            self.a, self.b = 2.0 * xi * w, w * w
        eq = self.eq
        self._f = nm._fn("M", "delta", "D", "gamma", "Phi", "beta") if eq.nc else nm._fn("M", "delta")
        self._fpos = nm._fn("Phi", "Phi_q") if eq.nh else None
        self._fvel = nm._fn("D", "beta") if eq.nc else None
        self.last_failure: str | None = None
        self.row_ref = np.zeros(nm.eq.nc)  # largest squared norm of each constraint row met
        self.row_scale = 0.0  # ... of any row
        self.rank_ref = 0  # largest number of clearly independent constraint rows met

    def state0(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        return np.concatenate([q, dq])

    def accelerations(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = self.nm.p
        if not self.eq.nc:
            M, d = self._f(t, q, dq, u, p)
            return solve_saddle(M, np.zeros((0, self.n)), d, np.zeros(0))
        M, d, D, g, Phi, beta = self._f(t, q, dq, u, p)
        if self.a or self.b:
            g = g - self.a * (D @ dq - beta)
            if Phi.size:
                g[: Phi.size] -= self.b * Phi
        # the largest constraint row met so far tells a row that vanishes (a singular position)
        self.row_ref = np.maximum(self.row_ref, np.sum(D * D, axis=1))
        self.row_scale = max(self.row_scale, float(np.max(self.row_ref)))
        try:
            return solve_saddle(M, D, d, g, row_scale=self.row_ref)
        except NumericalError as e:
            raise NumericalError(f"{e} at t = {t:.6g}, q = {q}") from None

    def rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        n = self.n
        q, dq = y[:n], y[n:]
        if not np.all(np.isfinite(y)):
            return np.full(y.shape, np.nan)
        try:
            ddq, _ = self.accelerations(t, q, dq, self.u(t, q, dq))
        except (NumericalError, np.linalg.LinAlgError) as e:
            # a trial stage the step-size control will reject; reported if the integration fails
            self.last_failure = str(e)
            return np.full(y.shape, np.nan)
        return np.concatenate([dq, ddq])

    def near_singular(self, t: float, q: np.ndarray) -> bool:
        """Whether fewer constraint rows are clearly independent at ``q`` than usual (a singular position).

        Rows count when their singular value exceeds ``SINGULAR_GAP`` times the largest row norm
        met; the usual count is the largest seen along the simulation (redundant rows never count).
        """
        D = self._fvel(t, q, np.zeros(self.n), self.eq.u0, self.nm.p)[0]
        self.row_scale = max(self.row_scale, float(np.max(np.sum(D * D, axis=1))))
        sv = np.linalg.svd(D, compute_uv=False)
        rank = int(np.sum(sv > SINGULAR_GAP * np.sqrt(self.row_scale)))
        self.rank_ref = max(self.rank_ref, rank)
        return rank < self.rank_ref

    def _project(self, t: float, y: np.ndarray) -> np.ndarray:
        n = self.n
        q, dq = y[:n].copy(), y[n:].copy()
        p, u0 = self.nm.p, self.eq.u0
        z = np.zeros(n)
        if self.near_singular(t, q):
            # near a singular position the constraint values barely see the errors along the
            # directions that lose their rows, and the velocity rows turn with those errors: the
            # projection is left to the steps on either side (Baumgarte's terms hold the drift)
            return y
        if self._fpos is not None:
            step = np.inf
            for _ in range(20):
                Phi, Phi_q = self._fpos(t, q, z, u0, p)
                if _converged(float(np.max(np.abs(Phi))), step, self.tol, q):
                    break
                dx = regularized_correction(Phi_q, Phi, row_scale=self.row_scale)
                q -= dx
                step = float(np.max(np.abs(dx)))
            else:
                raise NumericalError(
                    f"position projection did not reach {self.tol:g} at t = {t:.6g} (residual {np.abs(Phi).max():.3g})"
                )
        if self._fvel is not None:
            D, beta = self._fvel(t, q, z, u0, p)
            dq -= regularized_correction(D, D @ dq - beta, row_scale=self.row_scale)
        return np.concatenate([q, dq])

    def after_step(self, t: float, y: np.ndarray) -> tuple[np.ndarray, str | None]:
        if not self.project or not self.eq.nc:
            return y, None
        return self._project(t, y), "corrected"

    def output(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.project and self.eq.nc:
            y = self._project(t, y)
        return y[: self.n], y[self.n :]

    def describe(self) -> list[tuple[float, list[str]]]:
        return []

    def output_accelerations(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray):
        """Accelerations and multipliers reported at output times (those the integrator used)."""
        return self.accelerations(t, q, dq, u)


# ---------------------------------------------------------------------------
# independent coordinates (velocity transformation, matrix R)
# ---------------------------------------------------------------------------


class _Independent:
    """State ``y = (z, dz)``: position-independent coordinates and independent velocities."""

    def __init__(
        self,
        nm: NumericModel,
        u: InputFunction,
        independent: Sequence[str] | None,
        tol: float,
        switch_ratio: float,
    ):
        self.nm = nm
        self.eq = eq = nm.eq
        self.n = eq.nq
        self.u = u
        self.tol = tol
        self.fixed_choice = coordinate_indices(eq, independent)
        self.switch_ratio = switch_ratio
        self._fdyn = nm._fn("M", "delta", "D", "gamma", "beta")
        self._fpos = nm._fn("Phi", "Phi_q") if eq.nh else None
        self._fD = nm._fn("D", "beta")
        self.history: list[tuple[float, list[str]]] = []
        self.q_last: np.ndarray | None = None
        self.last_failure: str | None = None
        self._t_step: float | None = None  # time of the last accepted step

    # -- partitions ---------------------------------------------------------------
    def choose(self, t: float, q: np.ndarray, ahead: tuple[float, np.ndarray] | None = None) -> None:
        """Choose the independent velocities (partition of D) and positions (partition of Phi_q).

        The choice is the best conditioned one at ``q``, or at the state ``ahead`` the next
        step is predicted to reach.
        """
        ta, qa = ahead if ahead is not None else (t, q)
        self._refuse_singular(t, q)
        split = split_coordinates(self.nm, qa, ta, self.fixed_choice)
        self.pv = split.velocity
        self.dep_h = split.position.dependent
        self.rows_h = split.position.rows
        self.ip = split.position.independent  # position-independent
        self.iv = self.pv.independent  # velocity-independent
        self.q_last = q.copy()
        self._predictor = None  # d q_dep / d z at q_last
        self.history.append((t, [self.eq.coordinates[i].name for i in self.iv]))

    def _refuse_singular(self, t: float, q: np.ndarray) -> None:
        """Raise if the constraint rows are dependent at ``q`` but not next to it (a singular position).

        There the number of degrees of freedom changes for an instant and no choice of independent
        coordinates determines the others on both sides; redundant rows, dependent everywhere, pass.
        """
        zero = np.zeros(self.n)
        D = self._fD(t, q, zero, self.eq.u0, self.nm.p)[0]
        if not D.size:
            return
        # a small step in a fixed, generic direction along the motions the rows allow (rows redundant
        # on the constraint manifold, such as two rolling rows, stay redundant along it)
        _, sv_here, Vt = np.linalg.svd(D)
        tangent = Vt[int(np.sum(sv_here > SINGULAR_RANK_TOL * max(float(sv_here.max()), 1e-300))) :].T
        step = 1e-5 * tangent @ np.cos(np.arange(1, tangent.shape[1] + 1)) * (1.0 + float(np.abs(q).max()))
        sv_near = np.linalg.svd(self._fD(t, q + step, zero, self.eq.u0, self.nm.p)[0], compute_uv=False)
        ref = SINGULAR_RANK_TOL * max(float(sv_near.max()), float(sv_here.max()))
        rank_here, rank_near = int(np.sum(sv_here > ref)), int(np.sum(sv_near > ref))
        if rank_here < rank_near:
            names = [r.name for r in self.eq.constraint_rows]
            raise NumericalError(
                f"singular position at t = {t:.6g}: the constraint rows ({', '.join(names)}) have rank {rank_here} "
                f"here and {rank_near} next to it, so no choice of independent coordinates determines the others "
                f"on both sides; use formulation='baumgarte' or 'projection', which pass singular positions"
            )

    def state0(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        return np.concatenate([q[self.ip], dq[self.iv]])

    # -- kinematics from the independent state ---------------------------------------
    def positions(self, t: float, z: np.ndarray) -> np.ndarray:
        """Dependent coordinates from the independent ones: Newton-Raphson on ``Phi = 0``.

        Starts from the last solution moved along the constraint tangent (``dq_dep/dz``),
        so that one or two iterations usually suffice.
        """
        q = self.q_last.copy()  # type: ignore[union-attr]
        if self._fpos is None or not self.dep_h:
            q[self.ip] = z
            return q
        dep, rows = self.dep_h, self.rows_h
        if self._predictor is not None:
            q[dep] += self._predictor @ (z - q[self.ip])
        q[self.ip] = z
        p, u0, zero = self.nm.p, self.eq.u0, np.zeros(self.n)
        step = np.inf
        for _ in range(25):
            Phi, Phi_q = self._fpos(t, q, zero, u0, p)
            err = np.max(np.abs(Phi))
            J = Phi_q[rows][:, dep]
            if _converged(err, step, self.tol, q):
                self.q_last = q
                try:
                    self._predictor = -np.linalg.solve(J, Phi_q[rows][:, self.ip])
                except np.linalg.LinAlgError:
                    self._predictor = None
                return q
            try:
                dx = np.linalg.solve(J, Phi[rows])
            except np.linalg.LinAlgError:
                break
            q[dep] -= dx
            step = float(np.max(np.abs(dx)))
        raise NumericalError(
            f"independent coordinates {', '.join(self.history[-1][1])}: the position problem does not converge "
            f"at t = {t:.6g} (residual {err:.3g}); the mechanism may be at a singular position"
        )

    def full_state(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple]:
        k = len(self.ip)
        q = self.positions(t, y[:k])
        D, beta = self._fD(t, q, np.zeros(self.n), self.eq.u0, self.nm.p)
        dq = np.zeros(self.n)
        dq[self.iv] = y[k:]
        dq, _ = solve_dependent(D, beta, dq, self.pv, check=None)
        return q, dq, (D, beta)

    def accelerations(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        M, d, D, g, _ = self._fdyn(t, q, dq, u, self.nm.p)
        pv = self.pv
        ddq_p, _ = solve_dependent(D, g, np.zeros(self.n), pv, check=None)  # dR dz: accelerations with ddz = 0
        S = null_space_basis(D, pv)
        Mr = S.T @ M @ S
        try:
            ddz = np.linalg.solve(Mr, S.T @ (d - M @ ddq_p))
        except np.linalg.LinAlgError:
            raise NumericalError(f"singular reduced mass matrix R^T M R at t = {t:.6g}") from None
        ddq = ddq_p + S @ ddz
        lam = np.zeros(self.eq.nc)
        if pv.rows:
            Dr = D[pv.rows]
            lam[pv.rows] = np.linalg.lstsq(Dr.T, d - M @ ddq, rcond=None)[0]
        return ddq, lam

    def rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        if not np.all(np.isfinite(y)):
            return np.full(y.shape, np.nan)
        try:
            q, dq, _ = self.full_state(t, y)
            ddq, _ = self.accelerations(t, q, dq, self.u(t, q, dq))
        except (NumericalError, np.linalg.LinAlgError) as e:
            # a trial stage the step-size control will reject (e.g. past a singular position)
            self.last_failure = str(e)
            return np.full(y.shape, np.nan)
        return np.concatenate([dq[self.ip], ddq[self.iv]])

    def after_step(self, t: float, y: np.ndarray) -> tuple[np.ndarray, str | None]:
        q, dq, (D, _) = self.full_state(t, y)
        cur = self.pv
        cond = dependent_condition(D, cur.rows, cur.dependent)
        if self.fixed_choice is not None:
            if cond > 1e10:
                raise NumericalError(
                    f"the independent coordinates {', '.join(self.history[-1][1])} no longer determine the others at "
                    f"t = {t:.6g} (condition {cond:.3g}); let symbody choose them (independent=None)"
                )
            return y, None
        # look one step ahead: a partition that degrades within the next step is left now,
        # before the integrator's stages run into its ill-conditioned region
        h, self._t_step = (t - self._t_step if self._t_step is not None else 0.0), t
        ahead = (t + h, q + h * dq)
        D_ahead = self._fD(ahead[0], ahead[1], np.zeros(self.n), self.eq.u0, self.nm.p)[0] if h > 0 else D
        cond = max(cond, dependent_condition(D_ahead, cur.rows, cur.dependent))
        best = partition(D_ahead, None, dependent_preference(self.eq))
        if cond > self.switch_ratio * best.condition and best.dependent != cur.dependent:
            self.choose(t, q, ahead)
            return self.state0(q, dq), "restart"
        return y, None

    def output(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q, dq, _ = self.full_state(t, y)
        return q, dq

    def describe(self) -> list[tuple[float, list[str]]]:
        return list(self.history)

    def output_accelerations(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray):
        """Accelerations and multipliers at a consistent state (independent of the partition)."""
        M, d, D, g, _ = self._fdyn(t, q, dq, u, self.nm.p)
        return solve_saddle(M, D, d, g)


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------


@dataclass(repr=False)
class SimulationResult(TimeHistory):
    """Result of :func:`simulate` (see :class:`~symbody.numeric.results.TimeHistory` for the arrays).

    Attributes:
        formulation: ``"baumgarte"``, ``"projection"`` or ``"independent"``.
        method: integration method.
        position_violation: ``max |Phi|`` at each output time.
        velocity_violation: ``max |D dq - beta|`` at each output time.
        independent: for the ``"independent"`` formulation, ``(time, names)`` of each
            choice of independent coordinates.
        nfev: number of right-hand-side evaluations.
        nsteps: number of accepted steps.
        corrections: number of projections applied after steps.
        p: parameter values used.
    """

    formulation: str = ""
    method: str = ""
    position_violation: np.ndarray | None = None
    velocity_violation: np.ndarray | None = None
    independent: list = field(default_factory=list)
    nfev: int = 0
    nsteps: int = 0
    corrections: int = 0
    p: np.ndarray | None = None

    @property
    def reactions(self) -> dict:
        """Joint reaction components over time (see :func:`symbody.numeric.joint_reactions`)."""
        from .inverse import joint_reactions

        return joint_reactions(self.eq, self.lam, self.p)

    @cached_property
    def energy(self) -> EnergyResult:
        """Kinetic, potential and total energy (see :func:`symbody.numeric.energy`), computed on first use."""
        return energy(NumericModel(self.eq, self.p), self.t, self.q, self.dq)


# ---------------------------------------------------------------------------
# simulate
# ---------------------------------------------------------------------------


def _times(t_span: Any, t_eval: Any, dt: float | None) -> tuple[float, float, np.ndarray | None]:
    if np.isscalar(t_span):
        t0, tf = 0.0, float(t_span)  # type: ignore[arg-type]
    else:
        t0, tf = (float(x) for x in t_span)
    if t_eval is not None and dt is not None:
        raise ValueError("give t_eval or dt, not both")
    if dt is not None:
        if not dt > 0:
            raise ValueError("dt must be positive")
        eps = 1e-9 * dt
        te = t0 + dt * np.arange(int(np.floor((tf - t0) / dt + 1e-9)) + 1)
        te = te[te <= tf + eps]
        if tf - te[-1] > eps:
            te = np.append(te, tf)  # the final time is always an output
        te[-1] = tf
        return t0, tf, te
    return t0, tf, None if t_eval is None else np.asarray(t_eval, dtype=float)


def check_consistency(nm: NumericModel, t: float, q: np.ndarray, dq: np.ndarray, tol: float) -> None:
    """Raise :class:`NumericalError` if ``(q, dq)`` violates the constraints by more than ``tol``."""
    eq = nm.eq
    names = [r.name for r in eq.constraint_rows]
    if eq.nh:
        Phi = nm.Phi(q, t)
        k = int(np.argmax(np.abs(Phi)))
        if abs(Phi[k]) > tol:
            raise NumericalError(
                f"the initial coordinates violate constraint {names[k]!r} by {abs(Phi[k]):.3g}: assemble them first "
                f"(symbody.numeric.assemble) or pass consistent q0"
            )
    if eq.nc:
        r = nm.D(q, t) @ dq - nm.beta(q, t)
        k = int(np.argmax(np.abs(r)))
        if abs(r[k]) > tol:
            raise NumericalError(
                f"the initial velocities violate constraint {names[k]!r} by {abs(r[k]):.3g}: solve them first "
                f"(symbody.numeric.solve_velocities) or pass consistent dq0"
            )


def simulate(
    model: Any,
    t_span: float | tuple[float, float],
    *,
    t_eval: Sequence[float] | None = None,
    dt: float | None = None,
    q0: Any = None,
    dq0: Any = None,
    inputs: Any = None,
    formulation: str = "baumgarte",
    method: str = "DOP853",
    rtol: float = 1e-8,
    atol: float = 1e-10,
    max_step: float = np.inf,
    first_step: float | None = None,
    step: float | None = None,
    baumgarte: tuple[float, float] | None = (1.0, 10.0),
    projection_tol: float = 1e-10,
    position_tol: float = 1e-12,
    independent: Sequence[str] | None = None,
    switch_ratio: float = 1.2,
    consistency_tol: float = 1e-8,
    p: Any = None,
) -> SimulationResult:
    """Forward dynamics: integrate the equations of motion (see the module docstring).

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        t_span: final time, or ``(t0, tf)``.
        t_eval, dt: output times, or a uniform output interval; neither records every step.
        q0, dq0: initial state (default: the model's); must satisfy the constraints
            within ``consistency_tol`` (use :func:`symbody.numeric.assemble` and
            :func:`symbody.numeric.solve_velocities` to make them so).
        inputs: constants, functions of time or state, sampled data (:mod:`symbody.numeric.inputs`).
        formulation: ``"baumgarte"``, ``"projection"`` or ``"independent"``.
        method: ``"RK45"``, ``"DOP853"``, ``"Radau"``, ``"BDF"``, ``"RK23"``, ``"LSODA"`` or ``"RK4"``.
        rtol, atol, max_step, first_step: tolerances and step limits of the variable-step methods.
        step: fixed step of ``"RK4"``.
        baumgarte: ``(xi, omega)`` of Baumgarte's stabilization ``Phi'' + 2 xi omega Phi' + omega^2 Phi = 0``
            (Problemas dinámicos uses ``(1, 10)``); ``None`` disables it.
        projection_tol: ``max |Phi|`` after each projection (``"projection"``).
        position_tol: ``max |Phi|`` of the position problems (``"independent"``).  Both are
            absolute; when round-off of large coordinates keeps ``|Phi|`` just above them
            (at most 1000 times), the Newton iterations stop once their steps stall.
        independent: independent coordinates of the ``"independent"`` formulation
            (default: chosen, and re-chosen when they become ill-conditioned).
        switch_ratio: the choice changes when its condition number, now or at the state
            predicted one step ahead, exceeds this factor times the best one there (a low
            ratio keeps fixed-step integration accurate: each switch costs an adaptive
            method a restart, a poorly conditioned choice costs every method accuracy).
        p: parameter values (when ``model`` is an ``Equations``).

    Returns:
        :class:`SimulationResult` with ``t, q, dq, ddq, lam, u, y``, constraint
        violations and, on demand, ``energy``.

    Raises:
        NumericalError: inconsistent initial state, singular matrices, failed
            position problems or integrator failure.
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of {', '.join(FORMULATIONS)}")
    if method not in METHODS:
        raise ValueError(f"unknown integration method {method!r}; choose one of {', '.join(METHODS)}")
    if method == "LSODA" and formulation != "baumgarte" and eq.nc:
        raise ValueError("LSODA cannot be combined with projection or independent coordinates; use BDF or Radau")
    t0, tf, te = _times(t_span, t_eval, dt)
    q = np.array(eq.q0 if q0 is None else q0, dtype=float).reshape(-1)
    dq = np.array(eq.dq0 if dq0 is None else dq0, dtype=float).reshape(-1)
    if q.size != eq.nq or dq.size != eq.nq:
        raise ValueError(f"expected {eq.nq} coordinates and velocities, got {q.size} and {dq.size}")
    check_consistency(nm, t0, q, dq, consistency_tol)
    u = input_function(eq, inputs)
    if formulation == "independent" and eq.nc:
        form: Any = _Independent(nm, u, independent, position_tol, switch_ratio)
        form.choose(t0, q)
    else:
        form = _Dependent(nm, u, baumgarte, formulation == "projection", projection_tol)
    y0 = form.state0(q, dq)
    tr = integrate(
        form, t0, tf, y0, method, t_eval=te, rtol=rtol, atol=atol, max_step=max_step, first_step=first_step, step=step
    )
    return _postprocess(nm, form, u, tr, formulation, method)


def _postprocess(nm: NumericModel, form: Any, u: InputFunction, tr, formulation: str, method: str) -> SimulationResult:
    eq = nm.eq
    T = np.array(tr.t)
    Q = np.array(tr.q).reshape(len(T), eq.nq)
    DQ = np.array(tr.dq).reshape(len(T), eq.nq)
    nt = len(T)
    DDQ = np.zeros_like(Q)
    LAM = np.zeros((nt, eq.nc))
    U = np.zeros((nt, eq.nu))
    Y = np.zeros((nt, len(eq.outputs)))
    pv = np.zeros(nt)
    vv = np.zeros(nt)
    for k in range(nt):
        t, q, dq = T[k], Q[k], DQ[k]
        U[k] = u(t, q, dq)
        DDQ[k], LAM[k] = form.output_accelerations(t, q, dq, U[k])
        if eq.outputs:
            Y[k] = nm.outputs(q, dq, t, U[k], DDQ[k], LAM[k])
        if eq.nh:
            pv[k] = np.max(np.abs(nm.Phi(q, t)))
        if eq.nc:
            vv[k] = np.max(np.abs(nm.D(q, t) @ dq - nm.beta(q, t)))
    return SimulationResult(
        eq,
        T,
        Q,
        DQ,
        DDQ,
        LAM,
        U,
        Y,
        formulation=formulation,
        method=method,
        position_violation=pv,
        velocity_violation=vv,
        independent=form.describe(),
        nfev=tr.nfev,
        nsteps=tr.nsteps,
        corrections=tr.corrections,
        p=nm.p.copy(),
    )


__all__ = ["simulate", "SimulationResult", "FORMULATIONS", "check_consistency"]
