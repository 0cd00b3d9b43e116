"""Forward dynamics on all coordinates: the ``"baumgarte"`` and ``"projection"`` formulations.

The state is ``y = (q, dq, x)`` (``x``: the first-order states, integrated with their rates); the
accelerations solve the index-1 system ``[M D^T; D 0][ddq; lam] = [delta; gamma - 2 xi w dPhi - w^2 Phi]``
with Baumgarte's terms (``dPhi = D dq - beta``), and the ``"projection"`` formulation brings the state back onto
``Phi = 0`` and ``D dq = beta`` after every accepted step (see :mod:`symbody.numeric.dynamics`).
"""

from __future__ import annotations

import numpy as np

from ..errors import NumericalError
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
from .linalg import regularized_correction, solve_saddle
from .model import NumericModel

#: a constraint row counts as independent for the projections while its singular value exceeds
#: this fraction of the largest row norm met (closer to dependence: a singular position)
SINGULAR_GAP = 1e-2


def position_converged(err: float, step: float, tol: float, q: np.ndarray) -> bool:
    """Newton on ``Phi = 0`` converged: residual below ``tol``, or stalled at round-off just above it
    (a tolerance set too tight for the size of the model's coordinates)."""
    return err <= tol or (step <= 1e-14 * (1.0 + float(np.max(np.abs(q)))) and err <= 1e3 * tol)


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

    def state0(self, q: np.ndarray, dq: np.ndarray, x: np.ndarray | None = None) -> np.ndarray:
        return np.concatenate([q, dq, self.eq.x0 if x is None else x])

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
        sv = np.linalg.svd(D, compute_uv=False)
        rank = int(np.sum(sv > SINGULAR_GAP * np.sqrt(self.row_scale)))
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

    def after_step(self, t: float, y: np.ndarray) -> tuple[np.ndarray, str | None]:
        if not self.eq.nc:
            return y, None
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


__all__ = ["SINGULAR_GAP", "DependentCoordinates", "position_converged"]
