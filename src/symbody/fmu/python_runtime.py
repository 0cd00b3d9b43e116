"""Run time of symbody's Python (pythonfmu) FMUs: the numpy counterpart of ``fmu_templates/``.

This file is copied into the FMU's resources next to the generated blocks
module; it imports only numpy, math and the files copied with it, never
symbody.  It mirrors the C runtime: accelerations from
``[M D^T; D 0][ddq; lam] = [delta; gamma_B]`` with Baumgarte terms, the
assembly at initialization and the projection after each step
(:mod:`symbody.fmu.python_assembly`), and the Co-Simulation solvers rk4,
dopri5 and rosenbrock23 (:mod:`symbody.fmu.python_solvers`); the laws it
shares with :mod:`symbody.numeric` are :mod:`symbody.numeric.constraint_laws`
and :mod:`symbody.numeric.event_laws`.  This module orchestrates the FMI
calls: state, inputs, values at the current state, ``do_step``.  A
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
    import symbody_python_assembly as assembly  # type: ignore[import-not-found,unused-ignore]
    import symbody_python_events as events  # type: ignore[import-not-found,unused-ignore]
    import symbody_python_settings as setting  # type: ignore[import-not-found,unused-ignore]
    import symbody_python_solvers as solvers  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # imported from the package (tests, documentation)
    from ..numeric import constraint_laws as claws
    from . import python_assembly as assembly
    from . import python_events as events
    from . import python_settings as setting
    from . import python_solvers as solvers
value_problem = setting.value_problem  # the slave checks the values it is given through this module

MAX_RETRIES = 10  # the same discarded step asked for in a row before the FMU gives up

StepFailure = events.StepFailure  # a numerical problem during a step (the step is discarded)
HostError = setting.HostError  # a call the FMU must refuse (a bad value, a step from the wrong time, ...)


# pythonfmu 0.7 answers an exception with fmi2Fatal and later instantiations in the same process may crash:
# the slave never lets one through.  A refused value is not stored, logged as an error, and every step is
# discarded (with fmi2Terminated) until the host sets a valid value: nothing runs silently with it.


NUMERICAL_ERRORS = solvers.NUMERICAL_ERRORS  # errors of arithmetic in the blocks, failed steps


class Model(assembly.Assembly, solvers.Solvers):
    """State, dynamics and solvers of one FMU instance.

    Args:
        blocks: the generated blocks module (functions ``M_delta``, ``constraints``, ...).
        info: sizes, start values, default settings, ``init_fix`` and ``independent``.
    """

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
        self.rtol_set = False  # solver.rtol set by the host: the importer's tolerance does not replace it
        self.rtol_experiment = False  # solver.rtol holds the importer's tolerance (fmi2SetupExperiment)
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

    def set_setting(self, index: int, value: float) -> None:
        """Set a setting (checked by the caller) as the C runtime does: an explicit ``solver.rtol`` holds against
        the importer's tolerance; ``solver.ignore_external_tolerance`` set after that tolerance undoes it."""
        if index == setting.RTOL:
            self.rtol_set, self.rtol_experiment = True, False
        self.settings[index] = float(value)
        if index == setting.IGNORE_TOL and value and self.rtol_experiment:
            self.settings[setting.RTOL] = float(self.info["settings0"][setting.RTOL])
            self.rtol_experiment = False

    def experiment_tolerance(self, tolerance: float) -> None:
        """The importer's tolerance (``fmi2SetupExperiment``) becomes ``solver.rtol``, unless the host set that
        or ``solver.ignore_external_tolerance``."""
        if not self.rtol_set and self.settings[setting.IGNORE_TOL] == 0.0:
            self.settings[setting.RTOL] = float(tolerance)
            self.rtol_experiment = True

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
            a, b = 2.0 * self.settings[setting.ALPHA], self.settings[setting.BETA] ** 2
            g = gamma - claws.baumgarte_terms(D @ dq - beta, Phi[:nh], a, b)
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

    # -- Co-Simulation ------------------------------------------------------------------------
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
        self._rk4_left = 0  # rk4's stability is estimated anew in each communication step
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
