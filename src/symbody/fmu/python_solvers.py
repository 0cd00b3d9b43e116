"""Co-Simulation solvers of symbody's Python (pythonfmu) FMUs: rk4, dopri5 and rosenbrock23.

The numpy counterpart of ``fmu_templates/sb_solver.c`` and ``sb_rk4.c``, copied into the FMU (as
``symbody_python_solvers.py``) next to :mod:`symbody.fmu.python_runtime`, whose ``Model`` takes them as a base
class; it imports only numpy, math and the files copied with it, never symbody.  Each solver advances
``Model.x`` from ``t0`` to ``tend`` through ``Model.derivatives``, projecting onto the constraints after each
step (``Model.project``); a failure raises ``StepFailure`` (the step is discarded).

Example (a step of rk4 on x' = -x from 1 over h = 0.1: the Taylor series to h^4):
    >>> import numpy as np
    >>> class Decay(Solvers):
    ...     settings = [1, 0.1, 1e-6, 1e-8, 0.0, 0, 1e-10, 0.0, 0.0, 0]
    ...     x = np.ones(1)
    ...     def derivatives(self, t, x): return -x
    ...     def project(self, t, x): pass
    >>> m = Decay(); m.integrate(0.0, 0.1)
    >>> abs(float(m.x[0]) - (1 - 0.1 + 0.1**2 / 2 - 0.1**3 / 6 + 0.1**4 / 24)) < 1e-15
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

try:  # copied into the FMU next to this file
    import symbody_python_contacts as contacts  # type: ignore[import-not-found,unused-ignore]
    import symbody_python_settings as setting  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # imported from the package (tests, documentation)
    from . import python_contacts as contacts
    from . import python_settings as setting

StepFailure = contacts.StepFailure  # a numerical problem during a step (the step is discarded)
# errors of Python arithmetic inside the generated blocks: math domain errors (ValueError), overflow
# and division by zero (ArithmeticError); numpy's raise as FloatingPointError
NUMERICAL_ERRORS = (StepFailure, np.linalg.LinAlgError, ArithmeticError, ValueError)

MAX_STEPS = 1000000
RK4_UNSTABLE = 3.0  # estimate of h |lambda| beyond rk4's stability limit (2.785 on the real axis)
RK4_POWER = (8, 48)  # power iterations (multiples of 4) of the spectral radius before it may clear a step, refuse one
RK4_RECHECK = 16  # flagged rk4 steps an estimate that cleared the step stands for
RK4_ADVICE = "set a smaller solver.step, or solver.method = 2 (dopri5) or 3 (rosenbrock23, for stiff models)"


class Solvers:
    """The solvers of a ``Model`` (its ``settings``, ``x``, ``derivatives``, ``project``, ``state_jacobian``,
    ``events`` and ``h_next``, the step the adaptive solvers propose next)."""

    settings: list[float]
    x: np.ndarray
    nc = 0
    events: Any = None
    h_next = 0.0
    _underflow_at = math.nan
    _rk4_dir: np.ndarray | None = None  # direction of the last spectral radius estimate (warm start)
    _rk4_radius = 0.0
    _rk4_left = 0  # flagged rk4 steps _rk4_radius still stands for
    derivatives: Callable[[float, np.ndarray], np.ndarray]  # [dq; ddq; rates] at (t, x)
    project: Callable[[float, np.ndarray], None]  # x onto the constraints, in place
    state_jacobian: Callable[[float, np.ndarray], tuple[np.ndarray, np.ndarray]]  # d derivatives / d(x, t)

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
        """h |lambda| of the fastest excited motion from the stage differences; a large one is checked by the
        spectral radius of the Jacobian at the start of the step (``_rk4_spectral_radius``), which stands for
        ``RK4_RECHECK`` flagged steps of a communication step (sb_rk4.c: rk4_unstable)."""
        v = k2 - k1
        den = float(np.sum(v**2))
        if not (den > 1e-20 * float(np.sum(k1**2)) and den > 0.0):
            return
        if not 2.0 * math.sqrt(float(np.sum((k3 - k2) ** 2)) / den) > RK4_UNSTABLE:
            return
        if self._rk4_left > 0 and hh * self._rk4_radius <= RK4_UNSTABLE:
            self._rk4_left -= 1
            return
        v = v / math.sqrt(den)
        start = v if self._rk4_dir is None else self._rk4_dir + 0.1 * v
        lam = self._rk4_spectral_radius(t, hh, y, k1, start)
        self._rk4_radius, self._rk4_left = lam, RK4_RECHECK
        if hh * lam > RK4_UNSTABLE:
            raise StepFailure(
                f"rk4 is unstable at t = {t!r}: solver.step = {hh:g} is beyond its stability limit for the "
                f"model's fastest motion (|lambda| ~ {lam:.3g} 1/s needs solver.step < {2.78 / lam:.3g}); {RK4_ADVICE}"
            )

    def _rk4_spectral_radius(self, t: float, hh: float, y, k1, u) -> float:
        """The spectral radius of the Jacobian at (t, y) by power iteration on difference quotients from u:
        the geometric mean of the growth |J u| / |u| over the later half of the iterations, which converges
        to it however non-normal J is (|J u| / |u| alone is bounded by the norm of J only); from
        ``RK4_POWER[0]`` iterations on until h times it is within ``RK4_UNSTABLE``, at most ``RK4_POWER[1]``.
        0 when an evaluation fails or J u vanishes (not confirmed: the step itself shows what happens)."""
        eps = 1e-7 * (1.0 + float(np.linalg.norm(y)))
        logs: list[float] = []
        radius = 0.0
        self._rk4_dir = None
        for it in range(1, RK4_POWER[1] + 1):
            try:
                ju = (self.derivatives(t, y + eps * u / np.linalg.norm(u)) - k1) / eps
            except NUMERICAL_ERRORS:
                return 0.0
            g = float(np.linalg.norm(ju))
            if not (g > 0.0 and math.isfinite(g)):
                return 0.0
            u = ju
            logs.append(math.log(g))
            if it >= RK4_POWER[0] and it % 4 == 0:  # an even window: exact for an oscillator's q and dq
                radius = math.exp(sum(logs[it // 2 :]) / (it // 2))
                if not hh * radius > RK4_UNSTABLE:
                    break
        self._rk4_dir = u / np.linalg.norm(u)
        return radius

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
