"""Time stepping: scipy's ``solve_ivp`` methods step by step, and a fixed-step RK4.

The dynamic formulations need control after every accepted step (to project
the state onto the constraints, or to change the independent coordinates
when they become ill-conditioned), which ``solve_ivp`` does not give.  The
driver here uses scipy's public step-by-step solvers (``RK45``, ``DOP853``,
``Radau``, ``BDF``, ...) the way ``solve_ivp`` does, with dense output
between steps, and calls the formulation after each step.

A formulation is any object with:

- ``rhs(t, y) -> dy/dt``;
- ``after_step(t, y) -> (y, action)``, ``action`` one of ``None`` (unchanged),
  ``"corrected"`` (the state was moved, e.g. projected) or ``"restart"`` (the
  state vector changed meaning, e.g. new independent coordinates);
- ``output(t, y) -> (q, dq)`` or ``(q, dq, x)`` giving the full state at a time, the first-order
  states ``x`` included (interpolated states are passed through it too, so they get projected).

The breakpoints of the inputs (:attr:`symbody.numeric.inputs.InputFunction.breakpoints`: jumps and
kinks of sampled signals) end the steps: each stretch between two of them is integrated on its own
(:class:`Stretches`), so that no step spans a jump.

Example:
    >>> import numpy as np
    >>> class Oscillator:
    ...     def rhs(self, t, y): return np.array([y[1], -y[0]])
    ...     def after_step(self, t, y): return y, None
    ...     def output(self, t, y): return y[:1], y[1:]
    >>> tr = integrate(Oscillator(), 0.0, np.pi, np.array([1.0, 0.0]), "RK4", t_eval=[np.pi], step=1e-2)
    >>> round(float(tr.q[-1][0]), 8)
    -1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, Radau

from ..errors import NumericalError

#: solve_ivp methods usable step by step
SCIPY_METHODS = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853, "Radau": Radau, "BDF": BDF, "LSODA": LSODA}
#: fixed-step methods
FIXED_STEP_METHODS = ("RK4",)
METHODS = tuple(SCIPY_METHODS) + FIXED_STEP_METHODS


@dataclass
class Trajectory:
    """Recorded full states and integration statistics."""

    t: list[float] = field(default_factory=list)
    q: list[np.ndarray] = field(default_factory=list)
    dq: list[np.ndarray] = field(default_factory=list)
    x: list[np.ndarray] = field(default_factory=list)
    nfev: int = 0
    nsteps: int = 0
    corrections: int = 0
    restarts: int = 0

    def record(self, t: float, state: tuple[np.ndarray, ...]) -> None:
        self.t.append(float(t))
        self.q.append(np.array(state[0], dtype=float))
        self.dq.append(np.array(state[1], dtype=float))
        self.x.append(np.array(state[2] if len(state) > 2 else (), dtype=float))


class Stretches:
    """The stretches between the breakpoints of the inputs inside ``(t0, tf)``: where a solver started at
    ``t`` must stop (:meth:`end`), with the inputs told so (their values at a jump are those before it).

    Example:
        >>> st = Stretches(0.0, 3.0, None)
        >>> st.end(0.0)
        3.0
        >>> from symbody.numeric.inputs import InputFunction
        >>> u = InputFunction(lambda t, q, dq: np.zeros(0), 0, False, breakpoints=[-1.0, 1.0, 2.0, 5.0])
        >>> st = Stretches(0.0, 3.0, u)
        >>> [st.end(0.0), st.end(1.0), st.end(2.5)]
        [1.0, 2.0, 3.0]
    """

    def __init__(self, t0: float, tf: float, inputs: Any):
        self.tf = tf
        self.inputs = inputs
        scale = max(abs(t0), abs(tf), 1.0)
        b = np.zeros(0) if inputs is None else np.asarray(inputs.breakpoints, dtype=float)
        self.points = b[(b > t0 + 1e-12 * scale) & (b < tf - 1e-12 * scale)]
        self._scale = scale

    def end(self, t: float) -> float:
        """The end of the stretch that starts at ``t`` (the inputs evaluated as on it)."""
        k = int(np.searchsorted(self.points, t + 1e-12 * self._scale, side="right"))
        end = float(self.points[k]) if k < self.points.size else self.tf
        if self.inputs is not None:
            self.inputs.segment(end if end < self.tf else None)
        return end

    def done(self) -> None:
        """The integration is over: the inputs evaluated as given again."""
        if self.inputs is not None:
            self.inputs.segment(None)


def _set_state(solver: Any, y: np.ndarray) -> None:
    """Replace the current state of a scipy step solver (after a projection)."""
    solver.y = np.array(y, dtype=float)
    if isinstance(solver, (RK23, RK45, DOP853, Radau)):
        solver.f = solver.fun(solver.t, solver.y)  # first-same-as-last derivative
    elif isinstance(solver, BDF):
        solver.D[0] = solver.y  # D[0] is the current point of the backward differences
    else:  # pragma: no cover - guarded by check_method
        raise NumericalError(f"cannot correct the state of a {type(solver).__name__} solver")


def check_method(method: str, corrects_state: bool) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown integration method {method!r}; choose one of {', '.join(METHODS)}")
    if corrects_state and method == "LSODA":
        raise ValueError("LSODA keeps its state in Fortran and cannot be projected or restarted; use BDF or Radau")


def integrate(
    form: Any,
    t0: float,
    tf: float,
    y0: np.ndarray,
    method: str = "DOP853",
    *,
    t_eval: Sequence[float] | None = None,
    rtol: float = 1e-8,
    atol: float = 1e-10,
    max_step: float = np.inf,
    first_step: float | None = None,
    step: float | None = None,
    inputs: Any = None,
) -> Trajectory:
    """Integrate ``form.rhs`` from ``t0`` to ``tf`` calling ``form.after_step`` after each step.

    Args:
        form: the formulation (see module docstring).
        method: a ``solve_ivp`` method name or ``"RK4"`` (fixed step ``step``).
        t_eval: output times in ``[t0, tf]``; ``None`` records every step.
        rtol, atol, max_step, first_step: as in ``solve_ivp`` (variable-step methods).
        step: step size of ``"RK4"`` (outputs at ``t_eval`` and the breakpoints of the inputs are hit
            exactly by shortening the steps of each interval evenly).
        inputs: the :class:`~symbody.numeric.inputs.InputFunction` the formulation evaluates; its
            breakpoints end the steps.

    Raises:
        NumericalError: the solver fails (step size too small, non-finite derivatives).
    """
    check_method(method, corrects_state=True if method != "LSODA" else False)
    if not tf > t0:
        raise ValueError(f"the final time ({tf}) must be greater than the initial time ({t0})")
    te = None if t_eval is None else np.asarray(t_eval, dtype=float).reshape(-1)
    if te is not None:
        if te.size == 0 or np.any(np.diff(te) <= 0) or te[0] < t0 - 1e-12 or te[-1] > tf + 1e-12:
            raise ValueError("t_eval must be increasing and inside the integration interval")
    tr = Trajectory()
    if method == "RK4":
        if step is None or not step > 0:
            raise ValueError("method 'RK4' needs a positive fixed step: pass step=...")
        _integrate_rk4(form, t0, tf, np.asarray(y0, dtype=float), te, float(step), tr, Stretches(t0, tf, inputs))
        return tr
    stretches = Stretches(t0, tf, inputs)
    try:
        _integrate_scipy(
            form, t0, tf, np.asarray(y0, dtype=float), method, te, rtol, atol, max_step, first_step, tr, stretches
        )
    finally:
        stretches.done()
    return tr


def _last_failure(form: Any) -> str:
    msg = getattr(form, "last_failure", None)
    return f"; last failure: {msg}" if msg else ""


def _close(a: float, b: float, scale: float) -> bool:
    return abs(a - b) <= 1e-12 * max(1.0, scale)


def _integrate_scipy(
    form, t0, tf, y0, method, te, rtol, atol, max_step, first_step, tr: Trajectory, stretches: Stretches
) -> None:
    cls = SCIPY_METHODS[method]
    scale = max(abs(t0), abs(tf))
    opts: dict[str, Any] = {"rtol": rtol, "atol": atol, "max_step": max_step}
    if first_step is not None:
        opts["first_step"] = first_step

    def new_solver(t: float, y: np.ndarray, h: float | None):
        o = dict(opts)
        end = stretches.end(t)
        if h is not None and "first_step" not in opts:
            o["first_step"] = min(h, end - t) if end - t > 0 else None
            if o["first_step"] is None or o["first_step"] <= 0:
                o.pop("first_step")
        elif "first_step" in o:
            o["first_step"] = min(o["first_step"], end - t)
        try:
            return cls(form.rhs, t, y, end, **o)
        except NumericalError:
            raise
        except Exception as e:  # noqa: BLE001 - surface scipy's own messages as numerical errors
            raise NumericalError(f"{method}: cannot start at t = {t:g}: {e}") from e

    solver = new_solver(t0, y0, None)
    k_eval = 0
    if te is None or _close(te[0], t0, scale):
        tr.record(t0, form.output(t0, y0))
        k_eval = 1 if te is not None else 0
    while solver.status == "running":
        msg = solver.step()
        if solver.status == "failed":
            tr.nfev += solver.nfev
            raise NumericalError(f"{method} failed at t = {solver.t:.6g}: {msg}{_last_failure(form)}")
        tr.nsteps += 1
        t_old, t_new = solver.t_old, solver.t
        if te is not None:
            dense = None
            while k_eval < te.size and te[k_eval] < t_new and not _close(te[k_eval], t_new, scale):
                if dense is None:
                    dense = solver.dense_output()
                tp = te[k_eval]
                tr.record(tp, form.output(tp, dense(tp)))
                k_eval += 1
        y_new, action = form.after_step(t_new, solver.y)
        if action == "restart":
            tr.restarts += 1
            tr.nfev += solver.nfev
            h = abs(t_new - t_old)
            if solver.status == "running":
                solver = new_solver(t_new, y_new, h)
        elif action == "corrected":
            tr.corrections += 1
            _set_state(solver, y_new)
        if te is None:
            tr.record(t_new, form.output(t_new, y_new))
        elif k_eval < te.size and _close(te[k_eval], t_new, scale):
            tr.record(te[k_eval], form.output(t_new, y_new))
            k_eval += 1
        if solver.status == "finished" and not (t_new >= tf or _close(t_new, tf, scale)):
            tr.nfev += solver.nfev  # a breakpoint of the inputs: the next stretch
            solver = new_solver(t_new, y_new, abs(t_new - t_old))
    tr.nfev += solver.nfev
    if te is not None and k_eval < te.size:  # pragma: no cover - the loop ends at tf
        raise NumericalError(f"{method} stopped at t = {solver.t:g} before the last output time")


def _integrate_rk4(form, t0, tf, y0, te, h, tr: Trajectory, stretches: Stretches) -> None:
    if te is None:
        n = int(np.ceil((tf - t0) / h - 1e-9))
        grid = np.linspace(t0, tf, n + 1)
        te_rec = grid
    else:
        grid = np.unique(np.concatenate([[t0], te, [tf]]))
        te_rec = te
    grid = np.unique(np.concatenate([grid, stretches.points]))
    rec = iter(te_rec)
    nxt = next(rec, None)
    scale = max(abs(t0), abs(tf))
    y = y0.copy()
    t = t0
    if nxt is not None and _close(nxt, t0, scale):
        tr.record(t0, form.output(t0, y))
        nxt = next(rec, None)
    for ta, tb in zip(grid[:-1], grid[1:]):
        stretches.end(ta)
        nsub = max(1, int(np.ceil((tb - ta) / h - 1e-9)))
        hs = (tb - ta) / nsub
        for j in range(nsub):
            t = ta + j * hs
            k1 = form.rhs(t, y)
            k2 = form.rhs(t + hs / 2, y + hs / 2 * k1)
            k3 = form.rhs(t + hs / 2, y + hs / 2 * k2)
            k4 = form.rhs(t + hs, y + hs * k3)
            tr.nfev += 4
            y = y + hs / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            if not np.all(np.isfinite(y)):
                raise NumericalError(
                    f"RK4: non-finite state at t = {t + hs:.6g} (step {hs:g} too large?){_last_failure(form)}"
                )
            tr.nsteps += 1
            y, action = form.after_step(t + hs, y)
            if action == "restart":
                tr.restarts += 1
            elif action == "corrected":
                tr.corrections += 1
        if nxt is not None and _close(nxt, tb, scale):
            stretches.done()
            tr.record(tb, form.output(tb, y))
            nxt = next(rec, None)
    stretches.done()


__all__ = ["integrate", "Stretches", "Trajectory", "METHODS", "SCIPY_METHODS", "FIXED_STEP_METHODS", "check_method"]
