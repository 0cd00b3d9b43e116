"""Masters of our own that drive FMUs the way other importers do, for the tests of events in every master.

Model Exchange (FMI 2 and 3, through fmpy's low-level classes), fixed steps:

* ``"euler"`` and ``"rk4"``: events found only at the ends of the steps (a change of an indicator's domain,
  ``z > 0`` against ``z <= 0``, as the FMI standard defines a state event), as the FMU Compliance Checker,
  fmusim ``--solver euler``, fmpy's ``Euler`` and real-time hosts do: the event iteration runs at the state
  where the step ended, past the event;
* ``"bisection"``: rk4 steps whose events are located by bisection on the domains of the indicators (the
  state at a time inside the step by one rk4 step from its start), as simple hosts do;
* ``"euler_bisection"``: the same with explicit Euler steps, as OMSimulator's Model Exchange Euler (first
  order, its energy grows by ``g^2 h^2 / 2`` a step of a falling body, but its events are located).

``ModelExchange(..., completed_steps=False)`` never calls ``CompletedIntegratorStep``, as a host may where the
FMU declares it not needed (``completedIntegratorStepNotNeeded``, ``needsCompletedIntegratorStep="false"``).

Every row of a :class:`Run` is recorded at a step end before the event iteration there, and once more after
it; the first row is read right after ``ExitInitializationMode``, before the first event iteration.

:func:`cvode` runs fmpy's CVode (root finding on the indicators) and :func:`co_simulation` fmpy's
Co-Simulation loop with the tolerance passed to the FMU (``fmi2SetupExperiment``,
``fmi3EnterInitializationMode``) and ``solver.rtol``.

Example (a ball dropped from 1 m, events at step ends of 1 ms):
    >>> run = ModelExchange(fmu).run(2.0, "euler", 1e-3, ["y", "dy"])  # doctest: +SKIP
    >>> run.events[0]  # doctest: +SKIP
    0.452
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from symbody.fmu.run import restore_fmi2_message_proxy
from symbody.fmu.testing import fmu_simulation

#: the fixed-step Model Exchange masters
FIXED_STEP = ("euler", "rk4", "bisection", "euler_bisection")
#: the methods that locate their events by bisection, and the step each bisects with
LOCATING = {"bisection": "rk4", "euler_bisection": "euler"}
#: bisection stops when the bracket is this short (relative to the step)
BISECTION_TOL = 1e-12

#: inputs given as functions of time: ``signals(t)`` is ``{input name: value}`` (a motion input's ``z``, ``dz``
#: and ``ddz`` together), set by the masters at every time they evaluate the FMU
Signals = Callable[[float], dict[str, float]]


class MasterError(Exception):
    """The FMU returned an error status or asked to terminate (the message has the FMU's log)."""


@cache
def _unpacked(fmu: str) -> tuple[Any, str]:
    from fmpy import extract, read_model_description

    return read_model_description(fmu), extract(fmu)


@dataclass
class Run:
    """What a master recorded: ``time`` and the variables by name at every row, the event times, the number of
    derivative evaluations and the FMU's log messages."""

    time: np.ndarray
    values: dict[str, np.ndarray]
    events: list[float] = field(default_factory=list)
    derivative_calls: int = 0
    log: list[str] = field(default_factory=list)
    first: Run | None = None  # ModelExchange.run(rewind_at=...): the rows of the first pass after the rewind point

    def __getitem__(self, name: str) -> np.ndarray:
        return self.time if name == "time" else self.values[name]


class ModelExchange:
    """One Model Exchange FMU (FMI 2 or 3) driven by the fixed-step masters (module docstring)."""

    def __init__(
        self,
        fmu: str | Path,
        start_values: dict[str, Any] | None = None,
        tolerance: float | None = None,
        debug_logging: bool = False,
        completed_steps: bool = True,
        signals: Signals | None = None,
    ):
        self.md, self.unzipdir = _unpacked(str(fmu))
        self.completed_steps = completed_steps  # False: never calls CompletedIntegratorStep (FMI allows it)
        self.version = int(self.md.fmiVersion[0])
        self.start_values = dict(start_values or {}) | (signals(0.0) if signals else {})
        self.signals = signals
        self.tolerance = tolerance
        self.debug_logging = debug_logging
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.nx, self.nz = self.md.numberOfContinuousStates, self.md.numberOfEventIndicators

    # -- the instance ----------------------------------------------------------------------------
    def _start(self, log: list[str]):
        from fmpy.simulation import apply_start_values, instantiate_fmu, settable_in_initialization_mode

        def logger(*args) -> None:  # (..., status, category, message) in both versions
            log.append(args[-1].decode() if isinstance(args[-1], bytes) else str(args[-1]))

        fmu = instantiate_fmu(self.unzipdir, self.md, "ModelExchange", debug_logging=self.debug_logging, logger=logger)
        start = apply_start_values(fmu, self.md, self.start_values)
        if self.version == 2:
            fmu.setupExperiment(tolerance=self.tolerance, startTime=0.0)
            fmu.enterInitializationMode()
        else:
            fmu.enterInitializationMode(tolerance=self.tolerance, startTime=0.0)
        apply_start_values(fmu, self.md, start, settable=settable_in_initialization_mode)
        fmu.exitInitializationMode()
        return fmu

    def _set_time(self, fmu, t: float) -> None:
        """The time and the inputs at it."""
        fmu.setTime(t)
        if self.signals is not None:
            u = self.signals(t)
            vrs, values = [self.vr[n] for n in u], list(u.values())
            (fmu.setReal if self.version == 2 else fmu.setFloat64)(vrs, values)

    def _get(self, fmu, names: list[str]) -> list[float]:
        vrs = [self.vr[n] for n in names]
        return list(fmu.getReal(vrs) if self.version == 2 else fmu.getFloat64(vrs))

    def _event_iteration(self, fmu) -> None:
        while True:
            if self.version == 2:
                needed, terminate, *_ = fmu.newDiscreteStates()
            else:
                needed, terminate, *_ = fmu.updateDiscreteStates()
            if terminate:
                raise MasterError("the FMU asked to terminate in its event iteration")
            if not needed:
                break
        fmu.enterContinuousTimeMode()

    # -- the integration -----------------------------------------------------------------------
    def run(self, stop: float, method: str, step: float, output: list[str], rewind_at: float | None = None) -> Run:
        """Integrate from 0 to ``stop`` with ``method`` (:data:`FIXED_STEP`) and steps of ``step``.

        ``rewind_at``: at the first row at or after that time the master takes the FMU state (``GetFMUState``,
        serialized), runs on to ``stop``, sets the state back (deserialized) with its own state there and runs
        again to ``stop``; the :class:`Run` has the rows of the second pass, those of the first in ``first``."""
        if method not in FIXED_STEP:
            raise ValueError(f"unknown master {method!r}: use one of {FIXED_STEP}")
        log: list[str] = []
        rows: list[list[float]] = []
        times: list[float] = []
        events: list[float] = []
        fmu = None
        calls = [0]
        first: Run | None = None
        try:
            fmu = self._start(log)
            times.append(0.0)
            rows.append(self._get(fmu, output))  # before the first event iteration
            self._event_iteration(fmu)
            x, z = self._states(fmu), self._indicators(fmu)
            t = 0.0
            times.append(t)
            rows.append(self._get(fmu, output))
            n, k = int(round(stop / step)), 1
            kept = None
            while True:
                if rewind_at is not None and kept is None and t >= rewind_at:
                    kept = (self._serialized_state(fmu), t, x.copy(), z.copy(), k, len(times), len(events))
                if k > n:
                    if kept is None or first is not None:
                        break
                    data, t, x, z, k, mark, marked = kept
                    first = _rows(times[mark:], rows[mark:], events[marked:], output)
                    del times[mark:], rows[mark:], events[marked:]
                    self._set_serialized_state(fmu, data)
                    continue
                grid = k * step if k < n else stop
                x_new = self._step(fmu, t, x, grid - t, method, calls)
                z_new = self._indicators(fmu)
                t_end = grid
                if method in LOCATING and _crossed(z, z_new):
                    t_end, x_new, z_new = self._bisect(fmu, t, x, z, grid - t, LOCATING[method], calls)
                if t_end >= grid:
                    k += 1
                entered, terminate = self._completed(fmu)
                if terminate:
                    raise MasterError(f"the FMU asked to terminate at t = {t_end}")
                times.append(t_end)
                rows.append(self._get(fmu, output))
                t, x = t_end, x_new
                if entered or _crossed(z, z_new):
                    events.append(t)
                    fmu.enterEventMode()
                    self._event_iteration(fmu)
                    x, z_new = self._states(fmu), self._indicators(fmu)
                    times.append(t)
                    rows.append(self._get(fmu, output))
                z = z_new
            fmu.terminate()
        except MasterError:
            raise
        except Exception as e:  # fmpy raises on Error status: the FMU's message is in the log
            raise MasterError(f"{e} at t = {times[-1] if times else 0.0}: {' | '.join(log[-3:])}") from e
        finally:
            if fmu is not None:
                fmu.freeInstance()
            restore_fmi2_message_proxy()
        run = _rows(times, rows, events, output)
        run.derivative_calls, run.log, run.first = calls[0], log, first
        return run

    def _serialized_state(self, fmu) -> bytes:
        state = fmu.getFMUState()
        data = bytes(fmu.serializeFMUState(state))
        fmu.freeFMUState(state)
        return data

    def _set_serialized_state(self, fmu, data: bytes) -> None:
        state = fmu.deserializeFMUState(data)
        fmu.setFMUState(state)
        fmu.freeFMUState(state)

    def _completed(self, fmu) -> tuple[bool, bool]:
        if not self.completed_steps:
            return False, False
        res = fmu.completedIntegratorStep()
        return bool(res[0]), bool(res[1])

    def _states(self, fmu) -> np.ndarray:
        x = np.zeros(self.nx)
        fmu.getContinuousStates(_ptr(x), self.nx)
        return x

    def _indicators(self, fmu) -> np.ndarray:
        z = np.zeros(self.nz)
        if self.nz:
            fmu.getEventIndicators(_ptr(z), self.nz)
        return z

    def _derivatives(self, fmu, t: float, x: np.ndarray, calls: list[int]) -> np.ndarray:
        self._set_time(fmu, t)
        fmu.setContinuousStates(_ptr(x), self.nx)
        dx = np.zeros(self.nx)
        (fmu.getDerivatives if self.version == 2 else fmu.getContinuousStateDerivatives)(_ptr(dx), self.nx)
        calls[0] += 1
        return dx

    def _step(self, fmu, t: float, x: np.ndarray, h: float, method: str, calls: list[int]) -> np.ndarray:
        """One step from (t, x); leaves the FMU at its end."""
        if method in ("euler", "euler_bisection"):
            x_new = x + h * self._derivatives(fmu, t, x, calls)
        else:
            k1 = self._derivatives(fmu, t, x, calls)
            k2 = self._derivatives(fmu, t + h / 2, x + h / 2 * k1, calls)
            k3 = self._derivatives(fmu, t + h / 2, x + h / 2 * k2, calls)
            k4 = self._derivatives(fmu, t + h, x + h * k3, calls)
            x_new = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        self._set_time(fmu, t + h)
        fmu.setContinuousStates(_ptr(x_new), self.nx)
        return x_new

    def _bisect(self, fmu, t: float, x: np.ndarray, z: np.ndarray, h: float, method: str, calls: list[int]):
        """The earliest change of domain in (t, t + h]: bisection on the state reached by one step of ``method``
        from t; returns the time just past it, the state and the indicators there (the FMU left there)."""
        lo, hi = 0.0, h
        while hi - lo > BISECTION_TOL * max(h, abs(t)):
            mid = 0.5 * (lo + hi)
            self._step(fmu, t, x, mid, method, calls)
            if _crossed(z, self._indicators(fmu)):
                hi = mid
            else:
                lo = mid
        x_new = self._step(fmu, t, x, hi, method, calls)
        return t + hi, x_new, self._indicators(fmu)


def _rows(times: list[float], rows: list[list[float]], events: list[float], output: list[str]) -> Run:
    values = {name: np.array([r[i] for r in rows]) for i, name in enumerate(output)}
    return Run(np.array(times), values, list(events))


def _ptr(a: np.ndarray):
    from ctypes import POINTER, c_double

    return a.ctypes.data_as(POINTER(c_double))


def _crossed(z0: np.ndarray, z1: np.ndarray) -> bool:
    """Whether an indicator changed its domain (``z > 0`` against ``z <= 0``)."""
    return bool(np.any((z0 > 0.0) != (z1 > 0.0)))


def cvode(fmu: str | Path, stop: float, rtol: float, output: list[str], interval: float = 0.01, **kw: Any):
    """fmpy's CVode (root finding on the indicators) at ``rtol``, events recorded before and after."""
    return fmu_simulation(fmu, stop, interval, fmi_type="ModelExchange", relative_tolerance=rtol, output=output, **kw)


def co_simulation(
    fmu: str | Path,
    stop: float,
    step: float,
    method: int,
    rtol: float,
    output: list[str],
    start_values: dict[str, Any] | None = None,
    **kw: Any,
) -> dict[str, np.ndarray]:
    """fmpy's Co-Simulation loop with communication steps ``step``, ``solver.method`` and the tolerance ``rtol``
    passed both to the FMU's experiment and as ``solver.rtol``."""
    start = {"solver.method": method, "solver.rtol": rtol, **(start_values or {})}
    return fmu_simulation(fmu, stop, step, start_values=start, relative_tolerance=rtol, output=output, **kw)


def master_step_error(speed: float, acceleration: float, step: float) -> float:
    """How far past an event a master with steps ``step`` may get before it sees it: one step at the speed and
    acceleration there."""
    return speed * step + 0.5 * abs(acceleration) * step * step + math.ulp(1.0)


@dataclass
class Trace:
    """One run of any master: ``time`` and the variables at every recorded row, the times of the events it
    found (ME: its event iterations; CS: the mode changes the FMU logged inside ``doStep``)."""

    time: np.ndarray
    values: dict[str, np.ndarray]
    events: list[float]

    def __getitem__(self, name: str) -> np.ndarray:
        return self.time if name == "time" else self.values[name]


#: Co-Simulation solvers by ``solver.method``
SOLVERS = {"rk4": 1, "dopri5": 2, "rosenbrock23": 3}


@dataclass(frozen=True)
class Master:
    """An importer as the tests run it: ``kind`` ``"me"`` (``method`` one of :data:`FIXED_STEP` with steps
    ``step``, or ``"cvode"`` at ``rtol``) or ``"cs"`` (``method`` a ``solver.method`` name, communication steps
    ``step``, tolerance ``rtol`` passed to the experiment and as ``solver.rtol``)."""

    name: str
    kind: str
    method: str
    step: float
    rtol: float | None = None

    def run(
        self,
        fmu: str | Path,
        stop: float,
        output: list[str],
        start_values: dict[str, Any] | None = None,
        signals: Signals | None = None,
    ):
        """Simulate ``fmu`` from 0 to ``stop``; a :class:`Trace`.  ``signals`` gives inputs as functions of time
        (Model Exchange: set at every evaluation; Co-Simulation: at every communication point)."""
        start = dict(start_values or {})
        if self.kind == "me" and self.method in FIXED_STEP:
            run = ModelExchange(fmu, start, signals=signals).run(stop, self.method, self.step, output)
            return Trace(run.time, run.values, run.events)
        if self.kind == "me" and signals is not None:
            run = cvode_with_inputs(fmu, stop, self.rtol or 1e-6, output, signals, 0.01, start)
            return Trace(run.time, run.values, run.events)
        if self.kind == "me":
            res = cvode(fmu, stop, self.rtol or 1e-6, output, start_values=start)
            t = res["time"]
            return Trace(t, res, [float(t[i]) for i in range(1, t.size) if t[i] == t[i - 1]])
        log: list[str] = []

        def logger(*args) -> None:  # (..., category, message): "DoStep: t = <time>: <mode change>"
            if args[-2] == b"logEvents" and b": t = " in args[-1]:
                log.append(args[-1].decode())

        extra: dict[str, Any] = {} if signals is None else {"input": sampled(signals, stop, self.step)}
        res = co_simulation(
            fmu, stop, self.step, SOLVERS[self.method], self.rtol or 1e-6, output, start, logger=logger,
            debug_logging=True, **extra,
        )  # fmt: skip
        events = sorted({float(m.split(": t = ")[1].split(":")[0]) for m in log})
        return Trace(res["time"], res, events)


#: the Model Exchange masters: events at step ends (Euler, rk4), rk4 with bisection, fmpy's CVode
ME_MASTERS = [Master(m, "me", m, 1e-3) for m in ("euler", "rk4", "bisection")] + [
    Master(f"cvode rtol={r:g}", "me", "cvode", 0.01, r) for r in (1e-4, 1e-6, 1e-8)
]
#: the Co-Simulation masters: every solver at tolerances 1e-3 and 1e-4, communication steps of 0.25 and 1 s
CS_MASTERS = [
    Master(f"cs {m} rtol={r:g} step={h:g}", "cs", m, h, r) for m in SOLVERS for r in (1e-3, 1e-4) for h in (0.25, 1.0)
]
MASTERS = ME_MASTERS + CS_MASTERS


def sampled(signals: Signals, stop: float, step: float) -> np.ndarray:
    """``signals`` at the communication points of steps ``step`` as fmpy's structured input array (exact there:
    fmpy interpolates between the samples)."""
    times = np.append(np.arange(0.0, stop, step), stop)
    names = list(signals(0.0))
    rows = [(t, *(signals(float(t))[n] for n in names)) for t in times]
    return np.array(rows, dtype=[("time", np.float64)] + [(n, np.float64) for n in names])


class _SignalSetter:
    """Sets ``signals(t)`` on an instance (the ``apply(t)`` of fmpy's ``Input`` that CVodeSolver calls)."""

    def __init__(self, inst, md, signals: Signals):
        self.inst, self.signals = inst, signals
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.set = inst.setReal if int(md.fmiVersion[0]) == 2 else inst.setFloat64

    def apply(self, t: float, **_: Any) -> None:
        u = self.signals(t)
        self.set([self.vr[n] for n in u], list(u.values()))


def cvode_with_inputs(
    fmu: str | Path,
    stop: float,
    rtol: float,
    output: list[str],
    inputs: np.ndarray | Signals,
    interval: float = 0.1,
    start_values: dict[str, Any] | None = None,
    debug_logging: bool = False,
) -> Run:
    """fmpy's CVode (BDF, root finding on the indicators, restarted after every event) on a Model Exchange FMU
    whose inputs follow ``inputs`` (a structured array: ``time`` and the inputs, interpolated linearly; or
    :data:`Signals`), set at the time of every evaluation.  (fmpy's own ``simulate_fmu(input=...)`` sets them only where it evaluates the
    event indicators: the derivatives between see the inputs of the last root check, a jump at every step of
    CVode, which makes an FMU with event indicators, not one without, take steps of 1e-4 s behind a stiff
    servo.)  Returns the :class:`Run` with the number of derivative evaluations."""
    from fmpy.simulation import Input, apply_start_values, instantiate_fmu, settable_in_initialization_mode
    from fmpy.sundials import CVodeSolver

    md, unzipdir = _unpacked(str(fmu))
    version = int(md.fmiVersion[0])
    log: list[str] = []
    inst = instantiate_fmu(
        unzipdir, md, "ModelExchange", logger=lambda *a: log.append(str(a[-1])), debug_logging=debug_logging
    )
    vr = {v.name: v.valueReference for v in md.modelVariables}
    get = inst.getReal if version == 2 else inst.getFloat64
    calls = [0]
    try:
        signals = _SignalSetter(inst, md, inputs) if callable(inputs) else Input(inst, md, inputs)
        start = apply_start_values(inst, md, dict(start_values or {}))
        if version == 2:
            inst.setupExperiment(startTime=0.0)
            inst.enterInitializationMode()
        else:
            inst.enterInitializationMode(startTime=0.0)
        apply_start_values(inst, md, start, settable=settable_in_initialization_mode)
        signals.apply(0.0)
        inst.exitInitializationMode()
        update = inst.newDiscreteStates if version == 2 else inst.updateDiscreteStates

        def event_iteration() -> None:
            while True:
                needed, terminate, *_ = update()
                if terminate:
                    raise MasterError("the FMU asked to terminate")
                if not needed:
                    break
            inst.enterContinuousTimeMode()

        event_iteration()

        def set_time(t: float) -> None:
            inst.setTime(t)
            signals.apply(t)

        def get_dx(dx, nx) -> None:
            calls[0] += 1
            (inst.getDerivatives if version == 2 else inst.getContinuousStateDerivatives)(dx, nx)

        solver = CVodeSolver(
            nx=md.numberOfContinuousStates, nz=md.numberOfEventIndicators, get_x=inst.getContinuousStates,
            set_x=inst.setContinuousStates, get_dx=get_dx, get_z=inst.getEventIndicators,
            get_nominals=inst.getNominalsOfContinuousStates, set_time=set_time, input=signals, startTime=0.0,
            maxStep=stop / 50.0, relativeTolerance=rtol,
        )  # fmt: skip
        times, rows, events = [0.0], [list(get([vr[n] for n in output]))], []
        t, k = 0.0, 1
        while t < stop - 1e-12:
            t_next = min(k * interval, stop)
            state_event, _, t = solver.step(t, t_next)
            set_time(t)
            entered, terminate = inst.completedIntegratorStep()[:2]
            if terminate:
                raise MasterError(f"the FMU asked to terminate at t = {t}")
            times.append(t)
            rows.append(list(get([vr[n] for n in output])))
            if state_event or entered:
                events.append(t)
                inst.enterEventMode()
                event_iteration()
                solver.reset(t)
                times.append(t)
                rows.append(list(get([vr[n] for n in output])))
            if t >= t_next - 1e-12:
                k += 1
        inst.terminate()
    except MasterError:
        raise
    except Exception as e:  # fmpy raises on an Error status, CVode on its failures
        raise MasterError(f"{e}: {' | '.join(log[-3:])}") from e
    finally:
        inst.freeInstance()
        restore_fmi2_message_proxy()
    values = {name: np.array([r[i] for r in rows]) for i, name in enumerate(output)}
    return Run(np.array(times), values, events, calls[0], log)
