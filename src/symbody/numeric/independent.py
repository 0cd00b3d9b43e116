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
from .dependent import SINGULAR_RANK_TOL, position_converged, ranks_here_and_near
from .inputs import InputFunction
from .kinematics import coordinate_indices, dependent_preference, split_coordinates
from .linalg import (
    Partition,
    dependent_condition,
    leading_rows,
    null_space_basis,
    partition,
    select_columns,
    solve_dependent,
)
from .model import NumericModel
from .saddle import solve_saddle

#: the sets of dependent coordinates one swap away are compared once the current one's condition has grown
#: by this factor since the last comparison
DEGRADED = 1.05


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
        self._ranks: tuple[int, int] | None = None  # of D and Phi_q on the constraints (the initial state)

    # -- partitions ---------------------------------------------------------------
    def choose(
        self,
        t: float,
        q: np.ndarray,
        ahead: tuple[float, np.ndarray] | None = None,
        dependent: list[int] | None = None,
    ) -> None:
        """Choose the independent velocities (partition of D) and positions (partition of Phi_q).

        The choice is ``dependent`` (the dependent coordinates) or, by QR with column pivoting, a well
        conditioned one at ``q``, or at the state ``ahead`` the next step is predicted to reach.
        """
        ta, qa = ahead if ahead is not None else (t, q)
        self._refuse_singular(t, q)
        self.pv, position = self._split(ta, qa, dependent)
        self.dep_h = position.dependent
        self.rows_h = position.rows
        self.ip = position.independent  # position-independent
        self.iv = self.pv.independent  # velocity-independent
        self._searched_condition = self.pv.condition  # of the current set when neighbours were last compared
        self.q_last = q.copy()
        self._predictor: np.ndarray | None = None  # d q_dep / d z at q_last
        self.history.append((t, [self.eq.coordinates[i].name for i in self.iv]))

    def _split(self, t: float, q: np.ndarray, dependent: list[int] | None = None) -> tuple[Partition, Partition]:
        """The partitions of ``D`` (velocities) and ``Phi_q`` (positions) at ``q``.

        The first one, at the consistent initial state, fixes the ranks of the rows; later ones (also at
        states predicted a step ahead, off the constraints by the step's error) take that many rows, the
        best conditioned: redundant rows, independent off the constraints at the level of the drift, would
        otherwise count as independent and ask the coordinates for a rank the constraints do not have.
        """
        if self._ranks is None:
            split = split_coordinates(self.nm, q, t, self.fixed_choice)
            self._ranks = (len(split.velocity.rows), len(split.position.rows))
            return split.velocity, split.position
        eq, n = self.eq, self.n
        D = self._fD(t, q, np.zeros(n), eq.u0, self.nm.p)[0]
        names = [c.name for c in eq.coordinates]
        independent = self.fixed_choice if dependent is None else [i for i in range(n) if i not in dependent]
        pv = partition(D, independent, dependent_preference(eq), names=names, rows=leading_rows(D, self._ranks[0]))
        if not eq.nh:
            return pv, Partition([], list(range(n)), [], 0, 1.0)
        Phi_q = D[: eq.nh]
        rows_h = leading_rows(Phi_q, self._ranks[1])
        dep_h = select_columns(Phi_q[rows_h], [pv.dependent])
        cond = dependent_condition(Phi_q, rows_h, dep_h)
        return pv, Partition(dep_h, [i for i in range(n) if i not in dep_h], rows_h, len(rows_h), cond)

    def _refuse_singular(self, t: float, q: np.ndarray) -> None:
        """Raise if the constraint rows are dependent at ``q`` but not next to it (a singular position).

        There the number of degrees of freedom changes for an instant and no choice of independent
        coordinates determines the others on both sides; redundant rows, dependent everywhere, pass.
        """
        zero, p = np.zeros(self.n), self.nm.p
        u = self.u(t, q, zero)  # motion inputs move the constraints
        rank_here, rank_near = ranks_here_and_near(lambda x: self._fD(t, x, zero, u, p)[0], q)
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
        rows = leading_rows(D_ahead, cur.rank)
        best, best_cond = self._best_dependent(D_ahead, rows, cur, cond)
        if cond > self.switch_ratio * best_cond and (best, rows) != (cur.dependent, cur.rows):
            x = self.states(y)
            self.choose(t, q, ahead, best)
            return self.state0(q, dq, x), "restart"
        return y, None

    def _best_dependent(self, D: np.ndarray, rows: list[int], cur: Partition, cond: float) -> tuple[list[int], float]:
        """The best conditioned set of dependent coordinates near the current one and its condition.

        QR with column pivoting (with the preference for auxiliary coordinates, and without) does not
        always find it: a set that degrades towards a singularity of its chart (the disc of the double
        pendulum stretching out while its end is independent) can stay better than the pivoted choice
        until the integrator's stages meet the chart's large higher derivatives (the energy of an RK4 run at
        h = 1e-3 jumped by 8e-7 J within 60 ms).  Whenever the current set has degraded by
        :data:`DEGRADED` since the last comparison, the sets one swap away from it are compared as well.
        """
        candidates = [
            partition(D, None, dependent_preference(self.eq), rows=rows).dependent,
            partition(D, None, None, rows=rows).dependent,
        ]
        if cond > DEGRADED * self._searched_condition:
            self._searched_condition = cond
            dep = set(cur.dependent)
            candidates += [sorted(dep - {i} | {j}) for i in cur.dependent for j in cur.independent]
        scored = [(dependent_condition(D, rows, c), c) for c in candidates if len(c) == len(rows)]
        best_cond, best = min(scored, key=lambda sc: sc[0])
        return best, best_cond

    def output(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        q, dq, _ = self.full_state(t, y)
        return q, dq, self.states(y)

    def describe(self) -> list[tuple[float, list[str]]]:
        return list(self.history)

    def output_accelerations(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, x: np.ndarray | None = None):
        """Accelerations and multipliers at a consistent state (independent of the partition)."""
        M, d, D, g, _ = self._fdyn(t, q, dq, u, self.nm.p, None, None, self.eq.x0 if x is None else x)
        return solve_saddle(M, D, d, g)


__all__ = ["DEGRADED", "SINGULAR_RANK_TOL", "IndependentCoordinates"]
