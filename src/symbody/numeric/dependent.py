"""Forward dynamics on all coordinates: the ``"baumgarte"`` and ``"projection"`` formulations.

The state is ``y = (q, dq)``; the accelerations solve the index-1 system
``[M D^T; D 0][ddq; lam] = [delta; gamma - 2 xi w dPhi - w^2 Phi]`` with Baumgarte's terms
(``dPhi = D dq - beta``), and the ``"projection"`` formulation brings the state back onto
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


#: the FMU runtime's SB_SEED_STEP (a change of each coordinate) and SB_SEED_SHARE (a share of the squared
#: row norms met there) for the reference row norms at the start (fmu_templates/sb_singular.c)
SEED_STEP, SEED_SHARE = 0.1, 1e-2


class DependentCoordinates:
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
        self.passage = PassageWork()  # work of the constraint forces in a passage of a singular position
        self.guard_rate = guard_rate(self.a / 2.0, float(np.sqrt(self.b)))

    def state0(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        return np.concatenate([q, dq])

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
        z, near = np.zeros(self.n), np.zeros(self.eq.nc)
        for i in range(self.n):
            for side in (-1.0, 1.0):
                qi = np.array(q, dtype=float)
                qi[i] += side * SEED_STEP
                try:  # a configuration outside the model's domain tells nothing
                    with np.errstate(all="ignore"):
                        v = np.sum(self._fvel(t, qi, z, self.eq.u0, self.nm.p)[0] ** 2, axis=1)
                except (ArithmeticError, ValueError):
                    continue
                near = np.maximum(near, np.where(np.isfinite(v), v, 0.0))
        self.row_ref = np.maximum(self.row_ref, SEED_SHARE * near)

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
        if self._fvel is None:
            return False
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
        return np.concatenate([q, dq])

    def check_branch(self, t: float, y: np.ndarray) -> None:
        """Raise when the constraint forces have done work in a passage of a singular position: the
        motion is changing its assembly branch (:mod:`symbody.numeric.branch_guard`)."""
        n = self.n
        q, dq = y[:n], y[n:]
        if not self.near_singular(t, q):
            self.passage.reset()
            return
        u = self.u(t, q, dq)
        M, d, D, _, Phi, beta = self._f(t, q, dq, u, self.nm.p)
        _, lam = self.accelerations(t, q, dq, u)
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

    def output(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.project and self.eq.nc:
            y = self._project(t, y)
        return y[: self.n], y[self.n :]

    def describe(self) -> list[tuple[float, list[str]]]:
        return []

    def output_accelerations(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray):
        """Accelerations and multipliers reported at output times (those the integrator used)."""
        return self.accelerations(t, q, dq, u)


__all__ = ["SINGULAR_GAP", "DependentCoordinates", "position_converged"]
