"""Forward dynamics on all coordinates: the ``"baumgarte"`` and ``"projection"`` formulations.

The state is ``y = (q, dq, x)`` (``x``: the first-order states, integrated with their rates); the
accelerations solve the index-1 system ``[M D^T; D 0][ddq; lam] = [delta; gamma - 2 xi w dPhi - w^2 Phi]``
with Baumgarte's terms (``dPhi = D dq - beta``), and the ``"projection"`` formulation brings the state back onto
``Phi = 0`` and ``D dq = beta`` after every accepted step (see :mod:`symbody.numeric.dynamics`).

Redundant constraint rows (dependent on the constraint manifold, as the dynamics chapter's sine and
cosine closure rows) are only nearly dependent off it: the drift of the integration makes them
independent at its own level, with Baumgarte's terms that disagree by as much, and the system then asks
for accelerations of the drift divided by the drift.  Such models solve with as many rows as the
constraints have rank on the manifold (measured at the consistent initial state), the best conditioned
set, chosen after every step for the step ahead (:class:`ConstraintRows`); the rows left out hold on the
manifold because the kept ones do.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.linalg import qr

from ..errors import NumericalError
from . import constraint_laws
from .branch_guard import (
    RESOLVED,
    PassageWork,
    branch_message,
    constraint_power,
    drift_energy,
    energy_scale,
    guard_rate,
    vanishing_row,
)
from .inputs import InputFunction
from .model import NumericModel
from .saddle import regularized_correction, solve_saddle

#: a constraint row counts as independent for the projections while its singular value exceeds
#: this fraction of the largest row norm met (closer to dependence: a singular position)
SINGULAR_GAP = constraint_laws.SINGULAR_GAP


#: a redundant model keeps its set of constraint rows until the best set is this much better conditioned
ROW_SWITCH = 2.0
#: relative rank tolerance of the constraint rows at and next to the initial state
SINGULAR_RANK_TOL = 1e-7


def ranks_here_and_near(D_at: Callable[[np.ndarray], np.ndarray], q: np.ndarray) -> tuple[int, int]:
    """Ranks of the constraint rows ``D_at(q)`` at ``q`` and a small step away along the motions they allow.

    Redundant rows (dependent on the constraint manifold, such as a closure's sine and cosine rows, or two
    rolling rows) have the same rank on both; at a singular position the rank is lower at ``q`` than next
    to it, where the number of degrees of freedom returns to its regular value.

    Example (a pendulum's distance row and its sine and cosine rows: rank 2 here and near):
        >>> D_at = lambda q: np.array([[q[0], q[1]], [1.0, 0.0], [0.0, 1.0]])
        >>> ranks_here_and_near(D_at, np.array([0.0, -1.0]))
        (2, 2)
    """
    D = D_at(q)
    if not D.size:
        return 0, 0
    _, sv_here, Vt = np.linalg.svd(D)
    # a small step in a fixed, generic direction along the motions the rows allow (redundant rows stay
    # redundant along the manifold)
    tangent = Vt[int(np.sum(sv_here > SINGULAR_RANK_TOL * max(float(sv_here.max()), 1e-300))) :].T
    step = 1e-5 * tangent @ np.cos(np.arange(1, tangent.shape[1] + 1)) * (1.0 + float(np.abs(q).max()))
    sv_near = np.linalg.svd(D_at(q + step), compute_uv=False)
    ref = SINGULAR_RANK_TOL * max(float(sv_near.max()), float(sv_here.max()))
    return int(np.sum(sv_here > ref)), int(np.sum(sv_near > ref))


class ConstraintRows:
    """The constraint rows a model with redundant rows solves with: ``rank`` of them, the best conditioned.

    The rows are scaled by the largest norm each has had, and chosen by QR with column pivoting of the
    scaled ``D^T``; a set is kept while its least singular value is within :data:`ROW_SWITCH` of the best
    set's, so that the equations do not change at every step.

    Example (a pendulum of unit length hanging down, coordinates ``x, y, phi``: its distance row and its
    sine and cosine rows ``x = sin phi``, ``y = -cos phi``, rank 2 of 3; the distance and cosine rows are
    parallel here, so the sine row is kept with one of them):

    >>> D = np.array([[0.0, -2.0, 0.0], [1.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
    >>> ConstraintRows(2).choose(D, np.zeros(3))
    [0, 1]
    """

    def __init__(self, rank: int):
        self.rank = rank
        self.rows: list[int] | None = None

    @staticmethod
    def _scaled(D: np.ndarray, row_ref: np.ndarray) -> np.ndarray:
        ref = np.maximum(np.sum(D * D, axis=1), row_ref)
        return D / np.sqrt(np.where(ref > 0, ref, 1.0))[:, None]

    def _least(self, E: np.ndarray, rows: list[int]) -> float:
        return float(np.linalg.svd(E[rows], compute_uv=False)[-1])

    def choose(self, D: np.ndarray, row_ref: np.ndarray, ahead: np.ndarray | None = None) -> list[int]:
        """The rows for the step ahead, from ``D`` now and (optionally) at the state predicted after it."""
        E = self._scaled(D, row_ref)
        checks = [E] if ahead is None else [E, self._scaled(ahead, row_ref)]
        _, _, piv = qr(checks[-1].T, mode="economic", pivoting=True)
        best = sorted(int(i) for i in piv[: self.rank])
        if self.rows is None or any(self._least(F, self.rows) * ROW_SWITCH < self._least(F, best) for F in checks):
            self.rows = best
        return self.rows


def position_converged(err: float, step: float, tol: float, q: np.ndarray) -> bool:
    """Newton on ``Phi = 0`` converged: residual below ``tol``, or stalled at round-off just above it
    (a tolerance set too tight for the size of the model's coordinates)."""
    return err <= tol or (step <= 1e-14 * (1.0 + float(np.max(np.abs(q)))) and err <= 1e3 * tol)


#: the FMU runtime's SB_SEED_STEP and SB_SEED_SHARE (:mod:`symbody.numeric.constraint_laws`)
SEED_STEP, SEED_SHARE = constraint_laws.SEED_STEP, constraint_laws.SEED_SHARE


class DependentCoordinates:
    """State ``y = (q, dq, x)``; index-1 accelerations with Baumgarte terms, optional projection."""

    def __init__(
        self, nm: NumericModel, u: InputFunction, baumgarte: tuple[float, float] | None, project: bool, tol: float
    ):
        self.nm = nm
        self.eq = nm.eq
        self.n = nm.eq.nq
        self.nx = nm.eq.nx
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
        self._frates = nm._fn("rates") if eq.nx else None
        self.last_failure: str | None = None
        self.row_ref = np.zeros(nm.eq.nc)  # largest squared norm of each constraint row met
        self.row_scale = 0.0  # ... of any row
        self.rank_ref = 0  # largest number of clearly independent constraint rows met
        self.passage = PassageWork()  # work of the constraint forces in a passage of a singular position
        self.guard_rate = guard_rate(self.a / 2.0, float(np.sqrt(self.b)))
        self.redundant: ConstraintRows | None = None  # set at the first evaluation when rows are redundant
        self._checked = not eq.nc
        self._t_step: float | None = None

    def state0(self, q: np.ndarray, dq: np.ndarray, x: np.ndarray | None = None) -> np.ndarray:
        return np.concatenate([q, dq, self.eq.x0 if x is None else x])

    def seed_row_reference(self, t: float, q: np.ndarray) -> None:
        """Reference row norms at the start from the rows next to it, as the FMU runtime does.

        A mechanism started at or next to a singular position has rows that vanish there; with
        no reference they would be taken as small by their units and solved exactly (multipliers
        growing like the inverse of the distance to the singular position).  ``SEED_SHARE`` of the
        squared norms each row has at ``q +- SEED_STEP e_i`` is its first reference (see
        ``sb_seed_row_reference`` in ``fmu_templates/sb_singular.c``); the motion raises it.
        """
        if self._fvel is None:
            return
        fvel, z, p, u0 = self._fvel, np.zeros(self.n), self.nm.p, self.eq.u0
        near = constraint_laws.seed_row_reference(
            lambda qi: np.sum(fvel(t, qi, z, u0, p)[0] ** 2, axis=1), np.asarray(q, dtype=float), self.eq.nc
        )
        self.row_ref = np.maximum(self.row_ref, near)

    def split(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(q, dq, x)`` of a state vector."""
        n = self.n
        return y[:n], y[n : 2 * n], y[2 * n :]

    def accelerations(
        self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, x: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        p = self.nm.p
        x = self.eq.x0 if x is None else x
        if not self.eq.nc:
            M, d = self._f(t, q, dq, u, p, None, None, x)
            return solve_saddle(M, np.zeros((0, self.n)), d, np.zeros(0))
        M, d, D, g, Phi, beta = self._f(t, q, dq, u, p, None, None, x)
        if self.a or self.b:
            g = g - constraint_laws.baumgarte_terms(D @ dq - beta, Phi, self.a, self.b)
        # the largest constraint row met so far tells a row that vanishes (a singular position)
        self.row_ref = np.maximum(self.row_ref, np.sum(D * D, axis=1))
        self.row_scale = max(self.row_scale, float(np.max(self.row_ref)))
        if not self._checked:  # the first evaluation: the consistent initial state
            self._checked = True
            # the rank next to it: a start at a singular position has fewer rows here, not redundant ones
            fvel, zero = self._fvel, np.zeros(self.n)
            assert fvel is not None
            _, rank = ranks_here_and_near(lambda x: fvel(t, x, zero, u, p)[0], q)
            if rank < D.shape[0]:
                self.redundant = ConstraintRows(rank)
                self.redundant.choose(D, self.row_ref)
        if self.redundant is not None and self.redundant.rows is not None:
            try:
                ddq, lam = solve_saddle(M, D, d, g, rows=self.redundant.rows)
                if np.all(np.isfinite(ddq)):
                    return ddq, lam
            except NumericalError:
                pass  # the chosen rows lose rank here (a singular position): all rows, as below
        try:
            return solve_saddle(M, D, d, g, row_scale=self.row_ref)
        except NumericalError as e:
            raise NumericalError(f"{e} at t = {t:.6g}, q = {q}") from None

    def rates(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, lam: np.ndarray, x: np.ndarray):
        """Rates of the first-order states (an empty array without states)."""
        if self._frates is None:
            return np.zeros(0)
        return self._frates(t, q, dq, u, self.nm.p, None, lam, x)[0]

    def rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        q, dq, x = self.split(y)
        if not np.all(np.isfinite(y)):
            return np.full(y.shape, np.nan)
        try:
            u = self.u(t, q, dq)
            ddq, lam = self.accelerations(t, q, dq, u, x)
            dx = self.rates(t, q, dq, u, lam, x)
        except (NumericalError, np.linalg.LinAlgError) as e:
            # a trial stage the step-size control will reject; reported if the integration fails
            self.last_failure = str(e)
            return np.full(y.shape, np.nan)
        return np.concatenate([dq, ddq, dx])

    def near_singular(self, t: float, q: np.ndarray, u: np.ndarray | None = None) -> bool:
        """Whether fewer constraint rows are clearly independent at ``q`` than usual (a singular position).

        Rows count when their singular value exceeds ``SINGULAR_GAP`` times the largest row norm
        met; the usual count is the largest seen along the simulation (redundant rows never count).
        """
        if self._fvel is None:
            return False
        D = self._fvel(t, q, np.zeros(self.n), self.eq.u0 if u is None else u, self.nm.p)[0]
        self.row_scale = max(self.row_scale, float(np.max(np.sum(D * D, axis=1))))
        rank = constraint_laws.clear_rank(D, self.row_scale)
        self.rank_ref = max(self.rank_ref, rank)
        return rank < self.rank_ref

    def _project(self, t: float, y: np.ndarray) -> np.ndarray:
        n = self.n
        q, dq = y[:n].copy(), y[n : 2 * n].copy()
        p, u0 = self.nm.p, self.u(t, q, dq)  # motion inputs move the constraints
        z = np.zeros(n)
        if self.near_singular(t, q, u0):
            # near a singular position the constraint values barely see the errors along the
            # directions that lose their rows, and the velocity rows turn with those errors: the
            # projection is left to the steps on either side (Baumgarte's terms hold the drift)
            return y
        if self._fpos is not None:
            step = np.inf
            for _ in range(20):
                Phi, Phi_q = self._fpos(t, q, z, u0, p)
                if position_converged(float(np.max(np.abs(Phi))), step, self.tol, q):
                    break
                dx = regularized_correction(Phi_q, Phi)
                q -= dx
                step = float(np.max(np.abs(dx)))
            else:
                raise NumericalError(
                    f"position projection did not reach {self.tol:g} at t = {t:.6g} (residual {np.abs(Phi).max():.3g})"
                )
        if self._fvel is not None:
            D, beta = self._fvel(t, q, z, u0, p)
            dq -= regularized_correction(D, D @ dq - beta)
        return np.concatenate([q, dq, y[2 * n :]])

    def check_branch(self, t: float, y: np.ndarray) -> None:
        """Raise when the constraint forces have done work in a passage of a singular position: the
        motion is changing its assembly branch (:mod:`symbody.numeric.branch_guard`)."""
        q, dq, x = self.split(y)
        u = self.u(t, q, dq)
        if not self.near_singular(t, q, u):
            self.passage.reset()
            return
        M, d, D, _, Phi, beta = self._f(t, q, dq, u, self.nm.p, None, None, x)
        _, lam = self.accelerations(t, q, dq, u, x)
        self.passage.add(t, constraint_power(lam[: D.shape[0]], D, dq, beta))
        scale = energy_scale(M, d, dq, self.guard_rate)
        if self.passage.exceeds(scale) and drift_energy(M, D, D @ dq - beta, Phi, self.row_ref, np.sqrt(self.b)) < (
            RESOLVED * scale
        ):
            row = self.eq.constraint_rows[vanishing_row(D, self.row_ref)].name
            raise NumericalError(branch_message(t, row, self.passage.work, 0.5 * float(dq @ M @ dq)))

    def choose_rows(self, t: float, y: np.ndarray) -> None:
        """The constraint rows of a redundant model for the step ahead (its length that of the last one)."""
        if self.redundant is None or self._fvel is None:
            return
        q, dq, _ = self.split(y)
        h, self._t_step = (t - self._t_step if self._t_step is not None else 0.0), t
        z, u = np.zeros(self.n), self.u(t, q, dq)  # motion inputs move the constraints
        D = self._fvel(t, q, z, u, self.nm.p)[0]
        ahead = self._fvel(t + h, q + h * dq, z, u, self.nm.p)[0] if h > 0 else None
        self.redundant.choose(D, self.row_ref, ahead)

    def after_step(self, t: float, y: np.ndarray) -> tuple[np.ndarray, str | None]:
        if not self.eq.nc:
            return y, None
        self.choose_rows(t, y)
        self.check_branch(t, y)
        if not self.project:
            return y, None
        return self._project(t, y), "corrected"

    def output(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self.project and self.eq.nc:
            y = self._project(t, y)
        return self.split(y)

    def describe(self) -> list[tuple[float, list[str]]]:
        return []

    def output_accelerations(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, x: np.ndarray | None = None):
        """Accelerations and multipliers reported at output times (those the integrator used)."""
        return self.accelerations(t, q, dq, u, x)


__all__ = [
    "SINGULAR_GAP",
    "ROW_SWITCH",
    "SINGULAR_RANK_TOL",
    "ConstraintRows",
    "DependentCoordinates",
    "position_converged",
    "ranks_here_and_near",
]
