"""Run time of symbody's Python (pythonfmu) FMUs: the numpy counterpart of ``fmu_templates/``.

This file is copied into the FMU's resources next to the generated blocks
module; it imports only numpy and math, never symbody.  It mirrors the C
runtime: accelerations from ``[M D^T; D 0][ddq; lam] = [delta; gamma_B]``
with Baumgarte terms, assembly at initialization, and the Co-Simulation
solvers rk4, dopri5 and rosenbrock23 with projection after each step.  A
failed step restores the state, keeps the reason in ``Model.problem`` and
returns False (pythonfmu then returns ``fmi2Discard``).  Host errors (a value
that ``Set`` must refuse, a step that does not start at the FMU's time or
goes past the stop time) raise :class:`HostError`: pythonfmu can only answer
an exception with ``fmi2Fatal``, so the slave logs the reason as an error
first.

Example:
    >>> import numpy as np
    >>> class Blocks:  # x'' = -x as a one-coordinate model (M = 1, delta = -x)
    ...     def M_delta(t, q, dq, u, p, x=None): return np.eye(1), np.array([-q[0]])
    ...     def outputs(t, q, dq, u, p, ddq, lam, x=None): return (np.zeros(0),)
    >>> info = dict(nq=1, nc=0, nh=0, ninit=0, nu=0, ny=0, q0=[1.0], dq0=[0.0], u0=[], p0=[],
    ...             settings0=[1, 1e-3, 1e-6, 1e-8, 0.0, 1, 1e-10, 10.0, 10.0], init_fix=[])
    >>> m = Model(Blocks, info); m.initialize(); m.do_step(0.0, np.pi)
    True
    >>> round(float(m.x[0]), 6)
    -1.0
"""

from __future__ import annotations

import math

import numpy as np

# The laws of the constraints, the settings' order and rules, and the events (contacts, switching loads): files
# copied next to this one.
try:
    import symbody_constraint_laws as claws  # type: ignore[import-not-found,unused-ignore]
    import symbody_python_events as events  # type: ignore[import-not-found,unused-ignore]
    import symbody_python_settings as setting  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # imported from the package (tests, documentation)
    from ..numeric import constraint_laws as claws
    from . import python_events as events
    from . import python_settings as setting
value_problem = setting.value_problem  # the slave checks the values it is given through this module

MAX_STEPS = 1000000


RK4_UNSTABLE = 3.0  # estimate of h |lambda| beyond rk4's stability limit (2.785 on the real axis)
MAX_RETRIES = 10  # the same discarded step asked for in a row before the FMU gives up
RK4_ADVICE = "set a smaller solver.step, or solver.method = 2 (dopri5) or 3 (rosenbrock23, for stiff models)"


StepFailure = events.StepFailure  # a numerical problem during a step (the step is discarded)


class HostError(Exception):
    """A call the FMU must refuse (a bad value, a step from the wrong time or past the stop time)."""


# pythonfmu 0.7 answers an exception with fmi2Fatal and later instantiations in the same process may crash:
# the slave never lets one through.  A refused value is not stored, logged as an error, and every step is
# discarded (with fmi2Terminated) until the host sets a valid value: nothing runs silently with it.


# errors of Python arithmetic inside the generated blocks: math domain errors (ValueError), overflow
# and division by zero (ArithmeticError); numpy's raise as FloatingPointError
NUMERICAL_ERRORS = (StepFailure, np.linalg.LinAlgError, ArithmeticError, ValueError)


class Model:
    """State, dynamics and solvers of one FMU instance.

    Args:
        blocks: the generated blocks module (functions ``M_delta``, ``constraints``, ...).
        info: sizes, start values, default settings, ``init_fix`` and ``independent``.
    """

    DP_C = (0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
    DP_A = (
        (),
        (1 / 5,),
        (3 / 40, 9 / 40),
        (44 / 45, -56 / 15, 32 / 9),
        (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
        (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
        (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84),
    )
    DP_E = (71 / 57600, 0.0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40)

    def __init__(self, blocks, info: dict):
        self.b = blocks
        self.n, self.nc, self.nh = (int(info[key]) for key in ("nq", "nc", "nh"))
        self.ns = int(info.get("ns", 0))  # first-order states, after q and dq in x
        self.motion = list(info.get("motion", ()))  # index in u of each motion input's position (dz, ddz follow)
        self.info = info
        self.reset()

    def reset(self) -> None:
        info = self.info
        self.t = 0.0
        self.x = np.concatenate(
            [np.asarray(info["q0"], float), np.asarray(info["dq0"], float), np.asarray(info.get("s0", []), float)]
        )
        self.u = np.array(info["u0"], dtype=float)
        self.input_time: float | None = None  # inside a step: the motion inputs are polynomials of t - input_time
        self._rates = np.zeros(0)  # the rates of the first-order states at the current state (values())
        self.p = np.array(info["p0"], dtype=float)
        self.undetermined = np.zeros((self.nc, 0))  # multipliers' directions the last solve did not determine
        self.undetermined_outputs: set[int] = set()  # outputs depending on them at the current state
        self.row_ref = np.zeros(self.nc)  # largest squared norm each constraint row has had
        self.rank_ref = 0  # largest number of clearly independent constraint rows met
        self.settings = [float(v) for v in info["settings0"]]
        self.h_next = 0.0
        self._cache: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.stop_time = math.inf
        self.dq_set = np.zeros(self.n, dtype=bool)  # start velocities the host set (kept at initialization)
        self.problem = ""  # why the last step was discarded
        self.warning = ""  # what the last successful step could not vouch for (an output outside its domain)
        self.terminate = False  # no smaller step can continue: the FMU asks the host to stop
        self._discards = (math.nan, math.nan, 0)
        self.refused: dict[str, str] = {}  # variable or call -> why the FMU refused it (steps are discarded)
        self.events = events.Events(self) if info.get("nk", 0) + info.get("nsw", 0) else None  # contact modes

    def changed(self) -> None:
        self._cache = None
        self.undetermined_outputs = set()

    def u_at(self, t: float) -> np.ndarray:
        """The inputs at ``t``: inside a step each motion input follows ``z + dz tau + ddz tau^2 / 2``,
        ``tau = t - input_time`` (its velocity ``dz + ddz tau``), as in the C runtime."""
        if self.input_time is None or not self.motion:
            return self.u
        tau = t - self.input_time
        u = self.u.copy()
        for k in self.motion:
            u[k] = self.u[k] + tau * (self.u[k + 1] + 0.5 * tau * self.u[k + 2])
            u[k + 1] = self.u[k + 1] + tau * self.u[k + 2]
        return u

    def advance_inputs(self, H: float) -> None:
        """The motion inputs where a step of length ``H`` ends (the importer's next values replace them)."""
        for k in self.motion:
            self.u[k] += H * (self.u[k + 1] + 0.5 * H * self.u[k + 2])
            self.u[k + 1] += H * self.u[k + 2]

    # -- dynamics ------------------------------------------------------------------
    def accelerations(self, t: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n, nc, nh = self.n, self.nc, self.nh
        q, dq, u = x[:n], x[n : 2 * n], self.u_at(t)
        M, delta = self.b.M_delta(t, q, dq, u, self.p, x=x[2 * n :])
        self.undetermined = np.zeros((nc, 0))  # directions of the multipliers not determined here
        if nc == 0:
            try:
                ddq = np.linalg.solve(M, delta)
            except np.linalg.LinAlgError:
                raise StepFailure("singular mass matrix") from None
            lam = np.zeros(0)
        else:
            D, beta, gamma, Phi = self.b.constraints(t, q, dq, u, self.p)
            g = gamma - 2.0 * self.settings[setting.ALPHA] * (D @ dq - beta)
            g[:nh] -= self.settings[setting.BETA] ** 2 * Phi
            A = np.zeros((n + nc, n + nc))
            A[:n, :n] = M
            A[:n, n:] = D.T
            A[n:, :n] = D
            rhs = np.concatenate([delta, g])
            self.row_ref = np.maximum(self.row_ref, np.sum(D * D, axis=1))
            sol = claws.range_space_solve(M, D, delta, g, self.row_ref)
            if sol is not None:
                *sol, self.undetermined = sol
            else:  # M singular (coordinates without inertia)
                try:
                    sol = np.split(np.linalg.solve(A, rhs), [n])
                except np.linalg.LinAlgError:
                    x = np.linalg.lstsq(A, rhs, rcond=1e-13)[0]
                    if np.abs(A @ x - rhs).max() > 1e-8 * (1.0 + np.abs(rhs).max()):
                        raise StepFailure("singular augmented matrix [M D^T; D 0]") from None
                    sol = np.split(x, [n])
            ddq, lam = sol
        if self.events is not None:  # the forces of the closed contacts
            ddq, lam = self.events.accelerations(t, x, ddq, lam)
        if not (np.all(np.isfinite(ddq)) and np.all(np.isfinite(lam))):
            raise StepFailure("non-finite accelerations")
        return ddq, lam

    def rates(self, t: float, x: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Rates of the first-order states (they may use the multipliers and the contact forces)."""
        n = self.n
        forces = self.events.forces if self.events is not None else np.zeros(0)
        lam_all = np.concatenate([lam, forces])
        (rates,) = self.b.rates(t, x[:n], x[n : 2 * n], self.u_at(t), self.p, None, lam_all, x[2 * n :])
        if not np.all(np.isfinite(rates)):
            raise StepFailure("non-finite rates of the first-order states")
        return rates

    def derivatives(self, t: float, x: np.ndarray) -> np.ndarray:
        n = self.n
        ddq, lam = self.accelerations(t, x)
        if not self.ns:
            return np.concatenate([x[n : 2 * n], ddq])
        return np.concatenate([x[n : 2 * n], ddq, self.rates(t, x, lam)])

    def state_jacobian(self, t: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """d[dq; ddq]/dx and d/dt from the exact residual Jacobians (models with first-order states: central
        differences of the derivatives; the time derivative of models with motion inputs likewise, as the
        inputs move with time inside a step)."""
        if self.ns:
            return events.difference_jacobian(self.derivatives, t, x)
        n, nc, nh = self.n, self.nc, self.nh
        q, dq, u = x[:n], x[n : 2 * n], self.u_at(t)
        ddq, lam = self.accelerations(t, x)
        R_q, R_dq, R_t = self.b.residual_jacobians(t, q, dq, u, self.p, ddq, lam)
        M, _ = self.b.M_delta(t, q, dq, u, self.p)
        A = M
        if nc:
            D, beta, _, _ = self.b.constraints(t, q, dq, u, self.p)
            V_q, V_t = self.b.velocity_jacobians(t, q, dq, u, self.p)
            Phi_q, _ = self.b.Phi_Phi_q(t, q, dq, u, self.p)
            a, bb = self.settings[setting.ALPHA], self.settings[setting.BETA]
            R_q, R_dq, R_t = R_q.copy(), R_dq.copy(), R_t.copy()
            R_q[n:] += 2 * a * V_q
            R_q[n : n + nh] += bb * bb * Phi_q
            R_dq[n:] += 2 * a * D
            R_t[n:] += 2 * a * V_t
            R_t[n : n + nh] -= bb * bb * beta[:nh]
            A = np.zeros((n + nc, n + nc))
            A[:n, :n] = M
            A[:n, n:] = D.T
            A[n:, :n] = D
        S = -np.linalg.lstsq(A, np.column_stack([R_q, R_dq, R_t]), rcond=1e-13)[0][:n]
        J = np.zeros((2 * n, 2 * n))
        J[:n, n:] = np.eye(n)
        J[n:, :n] = S[:, :n]
        J[n:, n:] = S[:, n : 2 * n]
        T = np.concatenate([np.zeros(n), S[:, 2 * n]])
        if self.motion and self.input_time is not None:  # the inputs move with time inside the step
            h = np.cbrt(np.finfo(float).eps) * max(1.0, abs(t))
            T = (self.derivatives(t + h, x) - self.derivatives(t - h, x)) / (2.0 * h)
        return J, T

    # -- values at the current state --------------------------------------------------
    def values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Accelerations, multipliers and outputs at the current state (the rates: :meth:`state_rates`)."""
        if self._cache is None:
            n, x = self.n, self.x
            ddq, lam = self.accelerations(self.t, x)
            forces = self.events.forces if self.events is not None else np.zeros(0)  # (outputs may use them)
            lam_all = np.concatenate([lam, forces])
            (y,) = self.b.outputs(self.t, x[:n], x[n : 2 * n], self.u, self.p, ddq, lam_all, x[2 * n :])
            self._rates = self.rates(self.t, x, lam) if self.ns else np.zeros(0)
            self._cache = (ddq, lam, y)
            self.undetermined_outputs = self._undetermined_outputs(ddq, lam, np.asarray(y, dtype=float))
        return self._cache

    def state_rates(self) -> np.ndarray:
        """Rates of the first-order states at the current state."""
        self.values()
        return self._rates

    def _undetermined_outputs(self, ddq: np.ndarray, lam: np.ndarray, y: np.ndarray) -> set[int]:
        """Outputs that change with the multipliers along a direction the equations do not determine
        (a singular position; the outputs are linear in the multipliers)."""
        found: set[int] = set()
        n = self.n
        for d in self.undetermined.T:
            step = 1.0 + float(np.abs(lam).max(initial=0.0))
            x = self.x
            (y2,) = self.b.outputs(self.t, x[:n], x[n : 2 * n], self.u, self.p, ddq, lam + step * d, x[2 * n :])
            change = np.abs(np.asarray(y2, dtype=float) - y)
            scale = 1e-8 * step * float(np.abs(d).max()) * (1.0 + np.abs(y))
            found |= {int(i) for i in np.flatnonzero(change > scale)}
        return found

    # -- constraints -----------------------------------------------------------------------
    def near_singular(self, t: float, x: np.ndarray) -> bool:
        """Fewer constraint rows clearly independent than usual (a singular position): no projection."""
        D, _ = self.b.D_beta(t, x[: self.n], x[self.n : 2 * self.n], self.u_at(t), self.p)
        rank = claws.clear_rank(D, max(float(np.max(self.row_ref)), float(np.max(np.sum(D * D, axis=1)))))
        self.rank_ref = max(self.rank_ref, rank)
        return rank < self.rank_ref

    def project(self, t: float, x: np.ndarray) -> None:
        if self.nc == 0 or not self.settings[setting.PROJECTION] or self.near_singular(t, x):
            return
        n, u = self.n, self.u_at(t)
        tol = self.settings[setting.PROJ_TOL]
        if self.nh:
            for _ in range(21):
                Phi_q, Phi = self.b.Phi_Phi_q(t, x[:n], x[n : 2 * n], u, self.p)
                if np.abs(Phi).max() <= tol:
                    break
                x[:n] -= claws.min_norm_step(Phi_q, Phi)
            else:
                raise StepFailure(f"position projection did not converge (|Phi| = {np.abs(Phi).max():.3g})")
        D, beta = self.b.D_beta(t, x[:n], x[n : 2 * n], u, self.p)
        x[n : 2 * n] += claws.min_norm_step(D, beta - D @ x[n : 2 * n])

    def initialize(self) -> None:
        """Assemble the initial configuration (constrained models) as the C runtime does."""
        if self.nc:
            n, fix = self.n, self.info["init_fix"]
            x = self.x.copy()
            start = x.copy()
            tol = self.settings[setting.PROJ_TOL]
            for _ in range(51):
                J, r = self.b.Phi_init(self.t, x[:n], x[n : 2 * n], self.u, self.p)
                for k, i in enumerate(fix):
                    if i >= 0:
                        r[k] = x[i] - start[i]
                if np.abs(r).max() <= 1e-3 * tol:
                    break
                step = claws.min_norm_step(J, r)
                x[:n] -= step
                if np.abs(step).max() <= 1e-15 * (1 + np.abs(x[:n]).max()):
                    break
            self._initial_velocities(x, start[n : 2 * n], [i for i in fix if i >= 0])
            self.x = x
            self._seed_row_reference()
        self.changed()
        self.values()

    def _seed_row_reference(self) -> None:
        """Reference row norms at the initial configuration from the rows next to it (as
        sb_seed_row_reference): a start at or next to a singular position filters the vanishing rows."""
        n = self.n
        q, dq = self.x[:n], self.x[n : 2 * n]
        norms = np.sum(self.b.D_beta(self.t, q, dq, self.u, self.p)[0] ** 2, axis=1)
        near = claws.seed_row_reference(
            lambda qi: np.sum(self.b.D_beta(self.t, qi, dq, self.u, self.p)[0] ** 2, axis=1), q, self.nc
        )
        self.row_ref = np.maximum(np.where(np.isfinite(norms), norms, 0.0), near)

    def _constrained_velocities(self, x: np.ndarray, keep: np.ndarray) -> tuple[float, int]:
        """D dq = beta with the velocities ``keep`` held, the others changed least; (violation, worst row)."""
        n = self.n
        D, beta = self.b.D_beta(self.t, x[:n], x[n : 2 * n], self.u, self.p)
        J = np.where(keep[None, :], 0.0, D)
        x[n : 2 * n] += claws.min_norm_step(J, beta - D @ x[n : 2 * n], reg=0.0)  # initial velocities: exact
        r = D @ x[n : 2 * n] - beta
        scale = max(1.0, float(np.abs(D * x[n : 2 * n]).max(initial=0.0)), float(np.abs(beta).max(initial=0.0)))
        worst = int(np.argmax(np.abs(r))) if r.size else 0
        return (float(np.abs(r).max(initial=0.0)) / scale, worst)

    def _complete_kept(self, x: np.ndarray, keep: np.ndarray, held: list[int]) -> tuple[np.ndarray, bool]:
        """``keep`` completed by the model's start velocities as complete_kept of sb_assembly.c (its independent
        ones, then those of ``held``, then the others, each while the free ones span as many rows as all), and
        whether one of ``held`` was added."""
        D = self.b.D_beta(self.t, x[: self.n], x[self.n : 2 * self.n], self.u, self.p)[0]

        def rank(J: np.ndarray) -> int:  # of J J^T at the tolerance of min_norm_step, relative to D D^T
            return int(np.sum(np.linalg.svd(J, compute_uv=False) ** 2 > 1e-12 * scale))

        scale = float(np.max(np.sum(D * D, axis=1)))
        keep, full, added = keep.copy(), rank(D), False
        for k, group in enumerate((np.asarray(self.info["independent"], bool), np.isin(np.arange(self.n), held), True)):
            for j in np.flatnonzero(group & ~keep):
                keep[j] = True
                keep[j] = rank(np.where(keep[None, :], 0.0, D)) == full
                added |= k == 1 and bool(keep[j])
        return keep, added

    def _initial_velocities(self, x: np.ndarray, start: np.ndarray, held: list[int]) -> None:
        """Start velocities as the C runtime sets them: those the host set are kept (they are the independent
        velocities), the model's complete them (_complete_kept), the others follow."""
        n = self.n
        keep, held_kept = self._complete_kept(x, self.dq_set, held)
        err, worst = self._constrained_velocities(x, keep)
        if not err <= 1e-9 and held_kept:
            x[n : 2 * n] = start
            keep = self._complete_kept(x, self.dq_set, [])[0]
            err, worst = self._constrained_velocities(x, keep)
        changed = self.dq_set & (start != np.asarray(self.info["dq0"], dtype=float))
        if not err <= 1e-9 and not np.array_equal(self.dq_set, changed):  # velocities set to the model's own give way
            x[n : 2 * n] = start
            keep = self._complete_kept(x, changed, [])[0]
            err, worst = self._constrained_velocities(x, keep)
        if not err <= 1e-9:
            names = self.info.get("coordinate_names", [])
            kept = ", ".join(f"'d{names[i]}'" if i < len(names) else str(i) for i in np.flatnonzero(keep)) or "none"
            rows = self.info.get("constraint_names", [])
            row = rows[worst] if worst < len(rows) else str(worst)
            raise HostError(
                f"the start velocities contradict constraint '{row}' (relative violation {err:.3g}): kept "
                f"velocities: {kept}; set only independent velocities, the others are computed from the constraints"
            )

    # -- Co-Simulation ------------------------------------------------------------------------
    def _error_norm(self, err, y0, y1) -> float:
        sc = self.settings[setting.ATOL] + self.settings[setting.RTOL] * np.maximum(np.abs(y0), np.abs(y1))
        return float(np.sqrt(np.mean((err / sc) ** 2))) if err.size else 0.0

    def _initial_step(self, t, y, f0, order, span) -> float:
        s = self.settings
        sc = s[setting.ATOL] + s[setting.RTOL] * np.abs(y)
        d0 = float(np.sqrt(np.mean((y / sc) ** 2)))
        d1 = float(np.sqrt(np.mean((f0 / sc) ** 2)))
        hmax = s[setting.MAX_STEP] if s[setting.MAX_STEP] > 0 else math.inf
        h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
        h0 = min(h0, span, hmax)
        try:
            f1 = self.derivatives(t + h0, y + h0 * f0)
        except StepFailure:
            return h0
        d2 = float(np.sqrt(np.mean(((f1 - f0) / sc) ** 2))) / h0
        dm = max(d1, d2)
        h1 = max(1e-6, h0 * 1e-3) if dm <= 1e-15 else (0.01 / dm) ** (1.0 / (order + 1))
        return min(100 * h0, h1, span, hmax)

    def integrate(self, t0: float, tend: float) -> None:  # the solver alone: no events looked for
        method = int(self.settings[setting.METHOD])
        self._rk4(t0, tend) if method == setting.RK4 else self._adaptive(t0, tend, method)

    def _rk4(self, t0: float, tend: float) -> None:
        H, h = tend - t0, self.settings[setting.STEP]
        N = max(1, math.ceil(H / h * (1 - 1e-12)))
        y = self.x
        for i in range(N):
            t = t0 + H * i / N
            hh = (tend if i == N - 1 else t0 + H * (i + 1) / N) - t
            k1 = self.derivatives(t, y)
            k2 = self.derivatives(t + 0.5 * hh, y + 0.5 * hh * k1)
            k3 = self.derivatives(t + 0.5 * hh, y + 0.5 * hh * k2)
            k4 = self.derivatives(t + hh, y + hh * k3)
            self._rk4_stability(t, hh, y, k1, k2, k3)
            y += hh / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
            if not np.all(np.isfinite(y)):
                raise StepFailure(
                    f"the state is not finite after the rk4 step from t = {t!r} (h = {hh:g}): {RK4_ADVICE}"
                )
            self.project(t + hh, y)

    def _rk4_stability(self, t: float, hh: float, y, k1, k2, k3) -> None:
        """h |lambda| of the fastest excited motion from the stage differences, confirmed by a difference
        quotient of the Jacobian at the start of the step (a switch inside the step is no instability)."""
        v = k2 - k1
        den = float(np.sum(v**2))
        if not (den > 1e-20 * float(np.sum(k1**2)) and den > 0.0):
            return
        if not 2.0 * math.sqrt(float(np.sum((k3 - k2) ** 2)) / den) > RK4_UNSTABLE:
            return
        vnorm = math.sqrt(den)
        eps = 1e-7 * (1.0 + float(np.linalg.norm(y))) / vnorm
        try:
            jv = self.derivatives(t, y + eps * v) - k1
        except NUMERICAL_ERRORS:
            return  # not confirmed: the step itself shows what happens
        lam = float(np.linalg.norm(jv)) / (eps * vnorm)
        if hh * lam > RK4_UNSTABLE:
            raise StepFailure(
                f"rk4 is unstable at t = {t!r}: solver.step = {hh:g} is beyond its stability limit for the "
                f"model's fastest motion (|lambda| ~ {lam:.3g} 1/s needs solver.step < {2.78 / lam:.3g}); {RK4_ADVICE}"
            )

    def _adaptive(self, t: float, tend: float, method: int) -> None:
        y = self.x
        h = self.h_next
        hmax = self.settings[setting.MAX_STEP] if self.settings[setting.MAX_STEP] > 0 else math.inf
        order = 4 if method == setting.DOPRI5 else 2
        k1 = None
        rejected = False
        count = 0
        why = "local error test failed"
        tiny = min(1e-13 * max(1.0, abs(tend)), 1e-3 * (tend - t))  # rounding of tend, never a whole tiny step
        while tend - t > tiny:
            count += 1
            if count > MAX_STEPS:
                raise StepFailure("too many internal steps")
            if k1 is None:
                k1 = self.derivatives(t, y)
            if not h > 0:
                h = self._initial_step(t, y, k1, order, tend - t)
            hprop = min(h, hmax)
            hs, last = hprop, False
            if t + hs >= tend - tiny:
                hs, last = tend - t, True
            try:
                y1, err, k_last = (self._dopri_step if method == setting.DOPRI5 else self._rosenbrock_step)(
                    t, y, k1, hs
                )
                errn = self._error_norm(err, y, y1)
            except NUMERICAL_ERRORS as e:  # a failed evaluation rejects the step (a smaller one may succeed)
                errn, k_last = math.inf, None
                why = str(e) if isinstance(e, StepFailure) else f"{type(e).__name__}: {e}"
            if errn <= 1.0:
                t = tend if last else t + hs
                y[:] = y1
                k1 = k_last
                if self.nc and self.settings[setting.PROJECTION]:
                    self.project(t, y)
                    k1 = None
                expo = -0.2 if method == setting.DOPRI5 else -1 / 3
                safety = 0.9 if method == setting.DOPRI5 else 0.8
                fac = 5.0 if errn == 0 else min(5.0, max(0.2, safety * errn**expo))
                if rejected:
                    fac = min(fac, 1.0)
                h = hs * fac
                if last and hs < hprop:
                    h = max(h, hprop)
                rejected = False
            else:
                expo = -0.2 if method == setting.DOPRI5 else -1 / 3
                h = hs * (max(0.2, 0.9 * errn**expo) if math.isfinite(errn) else 0.25)
                rejected = True
            if h < 1e-14 * max(1.0, abs(t)):
                self._underflow_at = t
                raise StepFailure(f"step size underflow at t = {t!r} ({why})")
        self.h_next = h

    def _dopri_step(self, t, y, k1, h):
        k = [k1]
        for s in range(1, 7):
            ys = y + h * sum(a * kk for a, kk in zip(self.DP_A[s], k) if a != 0.0)
            k.append(self.derivatives(t + self.DP_C[s] * h, ys))
        y1 = ys
        err = h * sum(e * kk for e, kk in zip(self.DP_E, k) if e != 0.0)
        return y1, err, k[6]

    def _rosenbrock_step(self, t, y, F0, h):
        d = 1.0 / (2.0 + math.sqrt(2.0))
        e32 = 6.0 + math.sqrt(2.0)
        J, T = (self.events.jacobian if self.events and self.events.closed.any() else self.state_jacobian)(t, y)
        W = np.eye(y.size) - h * d * J
        k1 = np.linalg.solve(W, F0 + h * d * T)
        F1 = self.derivatives(t + 0.5 * h, y + 0.5 * h * k1)
        k2 = np.linalg.solve(W, F1 - k1) + k1
        y1 = y + h * k2
        F2 = self.derivatives(t + h, y1)
        k3 = np.linalg.solve(W, F2 - e32 * (k2 - F1) - 2.0 * (k1 - F0) + h * d * T)
        return y1, h / 6.0 * (k1 - 2.0 * k2 + k3), F2

    def check_step(self, t0: float, H: float) -> None:
        """Refuse a step that does not start at the FMU's time (up to rounding) or goes past the stop time."""
        if not (math.isfinite(t0) and math.isfinite(H) and H >= 0):
            raise HostError(
                f"DoStep: currentCommunicationPoint {t0!r} and communicationStepSize {H!r} must be finite, H >= 0"
            )
        tol = 64.0 * np.finfo(float).eps * max(abs(self.t), abs(H)) + 1e-9 * H
        if not abs(t0 - self.t) <= tol:
            raise HostError(
                f"DoStep: currentCommunicationPoint {t0!r} does not match the FMU time {self.t!r} "
                f"(difference {t0 - self.t:.3g} s); a step must start where the last one ended"
            )
        if t0 + H > self.stop_time + 64.0 * np.finfo(float).eps * max(abs(t0 + H), abs(H)) + 1e-9 * H:
            raise HostError(
                f"DoStep: the step from t = {t0!r} to {t0 + H!r} goes past the stop time {self.stop_time!r}"
            )

    def _check_result(self) -> None:
        """States and accelerations finite at the end of a step (else StepFailure); an output outside its
        domain leaves the step valid and is named in ``warning``."""
        if not np.all(np.isfinite(self.x)):
            raise StepFailure("the state at the end of the step is not finite")
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            ddq, lam, y = self.values()
        bad = np.flatnonzero(~np.isfinite(np.asarray(y, dtype=float)))
        if bad.size:
            names = self.info.get("output_names", [])
            name = names[bad[0]] if bad[0] < len(names) else str(bad[0])
            self.warning = f"DoStep: output '{name}' is not finite at t = {self.t!r} (outside its domain)"

    def do_step(self, t0: float, H: float) -> bool:
        """Advance from ``t0`` by ``H``; on failure the state is restored, ``problem`` says why, and
        ``terminate`` whether a smaller step can continue; returns False.

        Raises:
            HostError: a step that does not start at the FMU's time or goes past the stop time.
        """
        if self.refused:
            self.problem = "; ".join(self.refused.values())
            self.terminate = True
            return False
        self.check_step(t0, H)
        if H == 0:
            return True
        saved = (self.t, self.x.copy(), self.h_next, None if self.events is None else self.events.closed.copy())
        u_saved = self.u.copy()
        self._underflow_at, self.warning = math.nan, ""
        method = int(self.settings[setting.METHOD])
        try:
            with np.errstate(divide="raise", over="raise", invalid="raise"):
                self.input_time = t0  # the motion inputs are polynomials of t - t0 over the step
                try:
                    (self.integrate if self.events is None else self.events.step)(t0, t0 + H)
                finally:
                    self.input_time = None
                self.advance_inputs(H)
                self.t = t0 + H
                self.changed()
                self._check_result()
        except NUMERICAL_ERRORS as e:
            self.t, self.x, self.h_next = saved[0], saved[1], saved[2]
            self.u[:] = u_saved
            if self.events is not None:
                self.events.closed, self.events.messages = saved[3], []
            self.changed()
            self.problem = str(e) if isinstance(e, StepFailure) else f"{type(e).__name__}: {e}"
            self._after_discard(t0, H, method)
            return False
        self.terminate = False
        self._discards = (math.nan, math.nan, 0)
        return True

    def _after_discard(self, t0: float, H: float, method: int) -> None:
        """Whether a host retrying with smaller steps can get on (the rules of the C runtime)."""
        count = self._discards[2] + 1 if self._discards[:2] == (t0, H) else 1  # the same step asked for again
        self._discards = (t0, H, count)
        stuck = bool(count >= MAX_RETRIES or H <= 4 * np.finfo(float).eps * max(1.0, abs(t0)))
        stuck = stuck or (method != setting.RK4 and self._underflow_at == t0)
        if not stuck:
            try:
                with np.errstate(divide="raise", over="raise", invalid="raise"):
                    self.values()
            except NUMERICAL_ERRORS:
                stuck = True
            self.changed()
        self.terminate = stuck
