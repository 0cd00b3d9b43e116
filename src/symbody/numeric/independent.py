"""Forward dynamics on independent coordinates: the ``"independent"`` formulation.

Velocity transformation (the dynamics chapter's matrix ``R``): the state holds only the
independent coordinates ``z`` and velocities ``dz`` (and the first-order states ``x``); at every
evaluation the position problem gives the dependent coordinates, ``dq = R dz + ...``, and
``R^T M R ddz = R^T (delta - M (dR dz))``.
The independent coordinates are chosen by QR with column pivoting and changed when they become
ill-conditioned, unless given (see :mod:`symbody.numeric.dynamics`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import NumericalError
from .dependent import position_converged
from .inputs import InputFunction
from .kinematics import coordinate_indices, dependent_preference, split_coordinates
from .linalg import dependent_condition, null_space_basis, partition, solve_dependent, solve_saddle
from .model import NumericModel

#: relative rank tolerance of the independent formulation's check for a start at a singular position
SINGULAR_RANK_TOL = 1e-7


class IndependentCoordinates:
    """State ``y = (z, dz, x)``: position-independent coordinates, independent velocities, first-order states."""

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
        self.nx = eq.nx
        self.u = u
        self.tol = tol
        self.fixed_choice = coordinate_indices(eq, independent)
        self.switch_ratio = switch_ratio
        self._fdyn = nm._fn("M", "delta", "D", "gamma", "beta")
        self._fpos = nm._fn("Phi", "Phi_q") if eq.nh else None
        self._fD = nm._fn("D", "beta")
        self._frates = nm._fn("rates") if eq.nx else None
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
        self._predictor: np.ndarray | None = None  # d q_dep / d z at q_last
        self.history.append((t, [self.eq.coordinates[i].name for i in self.iv]))

    def _refuse_singular(self, t: float, q: np.ndarray) -> None:
        """Raise if the constraint rows are dependent at ``q`` but not next to it (a singular position).

        There the number of degrees of freedom changes for an instant and no choice of independent
        coordinates determines the others on both sides; redundant rows, dependent everywhere, pass.
        """
        zero = np.zeros(self.n)
        D = self._fD(t, q, zero, self.u(t, q, zero), self.nm.p)[0]
        if not D.size:
            return
        # a small step in a fixed, generic direction along the motions the rows allow (rows redundant
        # on the constraint manifold, such as two rolling rows, stay redundant along it)
        _, sv_here, Vt = np.linalg.svd(D)
        tangent = Vt[int(np.sum(sv_here > SINGULAR_RANK_TOL * max(float(sv_here.max()), 1e-300))) :].T
        step = 1e-5 * tangent @ np.cos(np.arange(1, tangent.shape[1] + 1)) * (1.0 + float(np.abs(q).max()))
        sv_near = np.linalg.svd(self._fD(t, q + step, zero, self.u(t, q, zero), self.nm.p)[0], compute_uv=False)
        ref = SINGULAR_RANK_TOL * max(float(sv_near.max()), float(sv_here.max()))
        rank_here, rank_near = int(np.sum(sv_here > ref)), int(np.sum(sv_near > ref))
        if rank_here < rank_near:
            names = [r.name for r in self.eq.constraint_rows]
            raise NumericalError(
                f"singular position at t = {t:.6g}: the constraint rows ({', '.join(names)}) have rank {rank_here} "
                f"here and {rank_near} next to it, so no choice of independent coordinates determines the others "
                f"on both sides; use formulation='baumgarte' or 'projection', which pass singular positions"
            )

    def state0(self, q: np.ndarray, dq: np.ndarray, x: np.ndarray | None = None) -> np.ndarray:
        return np.concatenate([q[self.ip], dq[self.iv], self.eq.x0 if x is None else x])

    def _motion(self, t: float) -> np.ndarray:
        """The inputs at ``t`` where only the motion inputs matter (positions and velocity constraints)."""
        return self.u(t, self.q_last, np.zeros(self.n)) if self.q_last is not None else self.eq.u0

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
        p, u0, zero = self.nm.p, self._motion(t), np.zeros(self.n)
        step = np.inf
        for _ in range(25):
            Phi, Phi_q = self._fpos(t, q, zero, u0, p)
            err = np.max(np.abs(Phi))
            J = Phi_q[rows][:, dep]
            if position_converged(err, step, self.tol, q):
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
        k, kv = len(self.ip), len(self.iv)
        q = self.positions(t, y[:k])
        D, beta = self._fD(t, q, np.zeros(self.n), self._motion(t), self.nm.p)
        dq = np.zeros(self.n)
        dq[self.iv] = y[k : k + kv]
        dq, _ = solve_dependent(D, beta, dq, self.pv, check=None)
        return q, dq, (D, beta)

    def states(self, y: np.ndarray) -> np.ndarray:
        """The first-order states of a state vector."""
        return y[len(self.ip) + len(self.iv) :]

    def accelerations(
        self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, x: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        x = self.eq.x0 if x is None else x
        M, d, D, g, _ = self._fdyn(t, q, dq, u, self.nm.p, None, None, x)
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
            u, x = self.u(t, q, dq), self.states(y)
            ddq, lam = self.accelerations(t, q, dq, u, x)
            dx = self._frates(t, q, dq, u, self.nm.p, None, lam, x)[0] if self._frates is not None else np.zeros(0)
        except (NumericalError, np.linalg.LinAlgError) as e:
            # a trial stage the step-size control will reject (e.g. past a singular position)
            self.last_failure = str(e)
            return np.full(y.shape, np.nan)
        return np.concatenate([dq[self.ip], ddq[self.iv], dx])

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
        D_ahead = self._fD(ahead[0], ahead[1], np.zeros(self.n), self._motion(ahead[0]), self.nm.p)[0] if h > 0 else D
        cond = max(cond, dependent_condition(D_ahead, cur.rows, cur.dependent))
        best = partition(D_ahead, None, dependent_preference(self.eq))
        if cond > self.switch_ratio * best.condition and best.dependent != cur.dependent:
            x = self.states(y)
            self.choose(t, q, ahead)
            return self.state0(q, dq, x), "restart"
        return y, None

    def output(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        q, dq, _ = self.full_state(t, y)
        return q, dq, self.states(y)

    def describe(self) -> list[tuple[float, list[str]]]:
        return list(self.history)

    def output_accelerations(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, x: np.ndarray | None = None):
        """Accelerations and multipliers at a consistent state (independent of the partition)."""
        M, d, D, g, _ = self._fdyn(t, q, dq, u, self.nm.p, None, None, self.eq.x0 if x is None else x)
        return solve_saddle(M, D, d, g)


__all__ = ["SINGULAR_RANK_TOL", "IndependentCoordinates"]
