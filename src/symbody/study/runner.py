"""One run of a parameter study: an FMU loaded once, its instance reset and reused, every failure recorded.

:class:`FmuRunner` extracts an FMU (given as bytes, so no shared file system
is needed), instantiates it on the first run and calls ``fmi2Reset`` /
``fmi3Reset`` before each further run, so a worker pays the load and
instantiation once per study.  A run either simulates the FMU with fmpy's
``simulate_fmu`` (start values, optional input signal) or, with a
:class:`RunSettings.controller`, drives it in a sampled closed loop: every
``sample_period`` seconds the controller reads its measured outputs, sets the
inputs (held until the next sample) and the FMU makes one ``doStep``; an input
signal may drive the inputs the controller leaves alone.

The row of a run holds, for each requested output, ``NAME.final``,
``NAME.min`` and ``NAME.max``; the user metrics (callables on the trajectory);
``status`` (``ok``, ``error``, ``discard``, ``timeout``) and ``message`` (the
FMU's log or the exception), and ``elapsed`` (seconds of the run).  A failed
run never raises: its instance is freed and the next run instantiates afresh.

Example:
    >>> import tempfile, pathlib
    >>> from symbody.models import pendulum
    >>> from symbody.fmu import export_fmu
    >>> fmu = export_fmu(pendulum().derive(), pathlib.Path(tempfile.mkdtemp()) / "p.fmu", kind="cs")
    >>> runner = FmuRunner(fmu.read_bytes())
    >>> settings = RunSettings(stop_time=1.0, outputs=("theta",), interval=0.01)
    >>> row = runner.run({"theta": 0.1}, settings)
    >>> row["status"], round(row["theta.max"], 6)
    ('ok', 0.1)
    >>> runner.run({"no_such_variable": 1.0}, settings)["status"]
    'error'
    >>> runner.close()
"""

from __future__ import annotations

import atexit
import copy
import hashlib
import math
import os
import shutil
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

OK, ERROR, DISCARD, TIMEOUT = "ok", "error", "discard", "timeout"
STALLED_STEPS = 1  # communication steps without progress (discarded, state kept) after which a run is given up


@dataclass
class RunSettings:
    """What every run of a study shares.

    Attributes:
        stop_time: end time of each run (s).
        outputs: variables summarized as ``NAME.final``, ``NAME.min``, ``NAME.max``.
        fixed: start values set in every run (``--set``); a case's own values win.
        interval: output interval, and communication step of plain runs (default: fmpy's choice).
        kind: ``"cs"`` (Co-Simulation) or ``"me"`` (Model Exchange, fmpy's CVode).
        inputs: fmpy input signal (structured array: ``time`` then input names, as
            :func:`symbody.fmu.arguments.read_input_file` reads it from a CSV file), or None.
        controller: a sampled controller in the loop (attributes ``measured``, ``inputs``, call
            ``controller(t, y) -> u``), or a factory ``controller(case) -> controller``; None for plain runs.
        sample_period: the controller's sampling period = communication step (s).
        metrics: ``{name: f(trajectory)}``; ``f`` returns a number (column ``name``) or a dict of
            numbers (columns ``name.key``).  The trajectory is a structured array with ``time`` and
            the recorded variables (``traj["theta"]``).
        record: further variables to record for the metrics.
        timeout: wall-clock seconds a run may take (checked between communication steps).
        keep_trajectory: return the trajectory with the row (``"_trajectory"``).
    """

    stop_time: float
    outputs: tuple[str, ...] = ()
    fixed: Mapping[str, float] = field(default_factory=dict)
    interval: float | None = None
    kind: str = "cs"
    inputs: np.ndarray | None = None
    controller: Any = None
    sample_period: float | None = None
    metrics: Mapping[str, Callable[[np.ndarray], Any]] = field(default_factory=dict)
    record: tuple[str, ...] = ()
    timeout: float | None = None
    keep_trajectory: bool = False

    def recorded(self) -> list[str]:
        """Variables a plain run records: the outputs, then the extra ones for the metrics."""
        return list(dict.fromkeys([*self.outputs, *self.record]))


def check_disjoint_drives(controlled: Sequence[str], signals: np.ndarray | None) -> None:
    """Refuse an input that both the controller and the input file drive (``ValueError`` naming it).

    Example:
        >>> signals = np.zeros(2, dtype=[("time", float), ("F_hoist", float)])
        >>> check_disjoint_drives(["F_trolley"], signals)
        >>> check_disjoint_drives(["F_trolley", "F_hoist"], signals)
        Traceback (most recent call last):
        ...
        ValueError: the controller and the input file both drive 'F_hoist': let one of them drive it
    """
    names = [] if signals is None else [n for n in signals.dtype.names or () if n != "time"]
    both = [n for n in controlled if n in names]
    if both:
        raise ValueError(
            f"the controller and the input file both drive {both[0]!r}: let one of them drive it"
            + (f" (also {', '.join(repr(n) for n in both[1:])})" if both[1:] else "")
        )


class RunFailure(Exception):
    """A run stopped short: ``status`` is ``discard`` or ``timeout``."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


def fmu_hash(data: bytes) -> str:
    """SHA-256 of an FMU's bytes (the key under which workers cache it)."""
    return hashlib.sha256(data).hexdigest()


class FmuRunner:
    """An FMU extracted once, with one instance reset and reused across runs.

    Args:
        data: the bytes of the ``.fmu`` file.
    """

    def __init__(self, data: bytes):
        import fmpy

        self._dir = Path(tempfile.mkdtemp(prefix="symbody_study_"))
        self._closed = False
        try:
            archive = self._dir / "model.fmu"
            archive.write_bytes(data)
            with zipfile.ZipFile(archive) as z:
                z.extractall(self._dir / "unzipped")
            self.unzipdir = str(self._dir / "unzipped")
            self.md = fmpy.read_model_description(self.unzipdir)
        except BaseException:
            shutil.rmtree(self._dir, ignore_errors=True)
            raise
        self.fmi3 = self.md.fmiVersion.startswith("3")
        self.variables = {v.name: v for v in self.md.modelVariables}
        self.messages: list[str] = []
        self._instance: Any = None
        self._callbacks: Any = None
        self._kind: str | None = None
        self.runs = 0  # runs made by this runner (instantiations are fewer: reset between runs)
        self.instantiations = 0

    # -- instance life cycle ------------------------------------------------

    def _log(self, *args) -> None:
        # FMI 3: (env, status, category, message)
        status, message = args[-3], args[-1]
        if status >= 1:
            text = message.decode(errors="replace") if isinstance(message, bytes) else str(message)
            self.messages.append(text)

    def _fresh_instance(self, kind: str):
        """The cached instance, reset, or a new one."""
        if self._instance is not None and self._kind == kind:
            self._instance.reset()
            return self._instance
        self._free()
        self._instance = self._instantiate_fmi3(kind) if self.fmi3 else self._instantiate_fmi2(kind)
        self._kind = kind
        self.instantiations += 1
        return self._instance

    def _instantiate_fmi2(self, kind: str):
        """An FMI 2 instance whose logger is this runner's own callback.

        fmpy's ``instantiate_fmu(logger=...)`` routes FMI 2 messages through a native proxy that
        keeps one logger for the whole process: two instances alive in one worker (threads) would
        swap messages, and freeing one leaves the other calling a freed callback.  The callback
        here gets the message as the FMU passes it, a printf format ('%%' for a percent sign).
        """
        from fmpy import calloc, free
        from fmpy.fmi2 import (
            FMU2Model,
            FMU2Slave,
            fmi2CallbackAllocateMemoryTYPE,
            fmi2CallbackFreeMemoryTYPE,
            fmi2CallbackFunctions,
            fmi2CallbackLoggerTYPE,
        )

        callbacks = fmi2CallbackFunctions()
        callbacks.logger = fmi2CallbackLoggerTYPE(self._log_fmi2)
        callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        interface = self.md.coSimulation if kind == "cs" else self.md.modelExchange
        cls = FMU2Slave if kind == "cs" else FMU2Model
        fmu = cls(guid=self.md.guid, unzipDirectory=self.unzipdir, modelIdentifier=interface.modelIdentifier)
        fmu.instantiate(callbacks=callbacks)
        self._callbacks = callbacks  # alive as long as the instance
        return fmu

    def _instantiate_fmi3(self, kind: str):
        from fmpy.simulation import instantiate_fmu

        fmi_type = "CoSimulation" if kind == "cs" else "ModelExchange"
        return instantiate_fmu(self.unzipdir, self.md, fmi_type, logger=self._log)

    def _log_fmi2(self, env, instance_name, status, category, message) -> None:
        if status >= 1 and message:
            self.messages.append(message.decode(errors="replace").replace("%%", "%"))

    def _free(self) -> None:
        if self._instance is not None:
            try:
                self._instance.freeInstance()
            except Exception:  # noqa: BLE001 - an instance in error may refuse; it is dropped anyway
                pass
            self._instance = None

    def close(self) -> None:
        """Free the instance and delete the extracted files."""
        if not self._closed:
            self._free()
            shutil.rmtree(self._dir, ignore_errors=True)
            self._closed = True

    # -- one run --------------------------------------------------------------

    def run(self, case: Mapping[str, float], settings: RunSettings) -> dict[str, Any]:
        """Simulate one case; returns its row (never raises for a failing run)."""
        t0 = time.perf_counter()
        self.messages.clear()
        self.runs += 1
        row: dict[str, Any] = {}
        try:
            start = {**settings.fixed, **case}
            if settings.controller is not None:
                traj = self._closed_loop(start, case, settings)
            else:
                traj = self._simulate(start, settings)
            row.update(summarize(traj, settings.outputs))
            row.update(evaluate_metrics(traj, settings.metrics))
            row["status"], row["message"] = OK, ""
            if settings.keep_trajectory:
                row["_trajectory"] = traj
        except RunFailure as e:
            self._free()
            row["status"], row["message"] = e.status, self._message(str(e))
        except Exception as e:  # noqa: BLE001 - a failing run is recorded, never stops the study
            self._free()
            row["status"], row["message"] = ERROR, self._message(f"{type(e).__name__}: {e}")
        row["elapsed"] = time.perf_counter() - t0
        return row

    def _message(self, text: str) -> str:
        log = [m for m in dict.fromkeys(self.messages) if m and m not in text]
        return "; ".join([text.strip(), *log[-3:]]) if log else text.strip()

    def _simulate(self, start: dict[str, float], settings: RunSettings) -> np.ndarray:
        import fmpy

        instance = self._fresh_instance(settings.kind)
        watch = _Watch(settings.timeout)
        result = fmpy.simulate_fmu(
            self.unzipdir,
            model_description=self.md,
            fmu_instance=instance,
            fmi_type="CoSimulation" if settings.kind == "cs" else "ModelExchange",
            start_values=start,
            stop_time=settings.stop_time,
            output_interval=settings.interval,
            output=settings.recorded() or None,
            input=settings.inputs,
            step_finished=watch,
        )
        watch.raise_if_stopped()
        end = float(result["time"][-1]) if len(result) else 0.0
        if end < settings.stop_time - 1e-9 * max(1.0, abs(settings.stop_time)):
            raise RunFailure(DISCARD, f"the FMU stopped at t = {end:g} s before the stop time {settings.stop_time:g} s")
        return result

    def _closed_loop(self, start: dict[str, float], case: Mapping[str, float], settings: RunSettings) -> np.ndarray:
        controller = settings.controller
        controller = copy.deepcopy(controller) if hasattr(controller, "measured") else controller(dict(case))
        h = settings.sample_period
        if h is None or not h > 0:
            raise ValueError("a controller in the loop needs a positive sample_period")
        if settings.kind != "cs":
            raise ValueError("a controller in the loop needs the Co-Simulation interface")
        measured, inputs = list(controller.measured), list(controller.inputs)
        check_disjoint_drives(inputs, settings.inputs)
        names = list(dict.fromkeys([*measured, *(n for n in settings.recorded() if n not in inputs)]))
        vr_read, vr_write = self._refs(names), self._refs(inputs)
        fmu = self._fresh_instance("cs")
        signal = self._signal(fmu, settings.inputs)
        self._initialize(fmu, start, signal)
        n = int(round(settings.stop_time / h))
        if abs(n * h - settings.stop_time) > 1e-9 * max(1.0, settings.stop_time):
            raise ValueError(f"the stop time {settings.stop_time:g} s is not a multiple of the sample period {h:g} s")
        ys = np.zeros((n + 1, len(names)))
        us = np.zeros((n + 1, len(inputs)))
        watch = _Watch(settings.timeout)
        get = fmu.getFloat64 if self.fmi3 else fmu.getReal
        put = fmu.setFloat64 if self.fmi3 else fmu.setReal
        for k in range(n + 1):
            t = k * h
            if signal is not None:  # the input file's inputs at t, held by the FMU over the step as in fmpy's master
                signal.apply(t, after_event=True)
            y = np.array(get(vr_read), dtype=float)
            u = np.asarray(controller(t, y[: len(measured)]), dtype=float).reshape(-1)
            if u.shape != (len(inputs),) or not np.all(np.isfinite(u)):
                raise ValueError(f"the controller returned {u!r} at t = {t:g} s for the inputs {inputs}")
            put(vr_write, [float(v) for v in u])
            ys[k], us[k] = y, u
            if k < n:
                self._do_step(fmu, t, h)
                if not watch(t + h, None):
                    watch.raise_if_stopped()
        fmu.terminate()
        columns = [("time", h * np.arange(n + 1))] + [(nm, ys[:, j]) for j, nm in enumerate(names)]
        columns += [(nm, us[:, j]) for j, nm in enumerate(inputs) if nm not in names]
        return _structured(columns)

    def _refs(self, names: Sequence[str]) -> list[int]:
        missing = [n for n in names if n not in self.variables]
        if missing:
            raise KeyError(f"{missing[0]!r} is not a variable of the FMU")
        return [self.variables[n].valueReference for n in names]

    def _signal(self, fmu, inputs: np.ndarray | None):
        """fmpy's setter of the input file's signals on ``fmu`` (None without a file).

        fmpy warns on standard output about every input the file leaves out: in a closed loop
        those are the controller's, so the warnings are dropped.
        """
        if inputs is None:
            return None
        import contextlib
        import io

        from fmpy.simulation import Input

        with contextlib.redirect_stdout(io.StringIO()):
            return Input(fmu, self.md, inputs)

    def _initialize(self, fmu, start: Mapping[str, float], signal: Any = None) -> None:
        if not self.fmi3:
            fmu.setupExperiment(startTime=0.0)
        for name, value in start.items():
            self._set(fmu, name, value)
        if signal is not None:
            signal.apply(0.0)
        if self.fmi3:
            fmu.enterInitializationMode(startTime=0.0)
        else:
            fmu.enterInitializationMode()
        fmu.exitInitializationMode()

    def _set(self, fmu, name: str, value: float) -> None:
        (vr,) = self._refs([name])
        kind = self.variables[name].type
        if kind in ("Real", "Float64", "Float32"):
            (fmu.setFloat64 if self.fmi3 else fmu.setReal)([vr], [float(value)])
        elif kind in ("Integer", "Enumeration", "Int64", "Int32"):
            if float(value) != int(value):
                raise ValueError(f"{name!r} is an integer variable, not {value!r}")
            (fmu.setInt64 if self.fmi3 else fmu.setInteger)([vr], [int(value)])
        elif kind == "Boolean":
            fmu.setBoolean([vr], [bool(value)])
        else:
            raise TypeError(f"cannot set {name!r} of type {kind}")

    def _do_step(self, fmu, t: float, h: float) -> None:
        from fmpy.fmi1 import FMICallException
        from fmpy.fmi2 import fmi2Discard

        try:
            out = fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)
        except FMICallException as e:
            if e.status == fmi2Discard:  # fmi3Discard has the same value
                raise RunFailure(DISCARD, f"doStep discarded the step at t = {t:g} s") from None
            raise
        if self.fmi3 and (out[1] or (out[2] and out[3] < t + h)):  # terminateSimulation, or an early return
            raise RunFailure(DISCARD, f"the FMU ended the simulation at t = {t:g} s")


class _Watch:
    """fmpy's ``step_finished`` callback: stops a run past its timeout or stuck on discarded steps."""

    def __init__(self, timeout: float | None):
        self.deadline = None if timeout is None else time.perf_counter() + timeout
        self.timeout = timeout
        self.last_time = -math.inf
        self.stalled = 0
        self.failure: RunFailure | None = None

    def __call__(self, t: float, recorder) -> bool:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.failure = RunFailure(TIMEOUT, f"run exceeded its timeout of {self.timeout:g} s at t = {t:g} s")
            return False
        self.stalled = self.stalled + 1 if t <= self.last_time else 0
        self.last_time = max(self.last_time, t)
        if self.stalled >= STALLED_STEPS:
            self.failure = RunFailure(DISCARD, f"the FMU discarded the step at t = {t:g} s")
            return False
        return True

    def raise_if_stopped(self) -> None:
        if self.failure is not None:
            raise self.failure


def _structured(columns: Sequence[tuple[str, np.ndarray]]) -> np.ndarray:
    out = np.zeros(len(columns[0][1]), dtype=[(name, float) for name, _ in columns])
    for name, values in columns:
        out[name] = values
    return out


def summarize(traj: np.ndarray, outputs: Sequence[str]) -> dict[str, float]:
    """``NAME.final``, ``NAME.min``, ``NAME.max`` of each output over the trajectory."""
    row: dict[str, float] = {}
    for name in outputs:
        values = np.asarray(traj[name], dtype=float)
        if not np.all(np.isfinite(values)):
            raise ValueError(f"output {name!r} is not finite in the trajectory")
        row[f"{name}.final"] = float(values[-1])
        row[f"{name}.min"] = float(values.min())
        row[f"{name}.max"] = float(values.max())
    return row


def evaluate_metrics(traj: np.ndarray, metrics: Mapping[str, Callable[[np.ndarray], Any]]) -> dict[str, float]:
    """The user metrics of a trajectory as columns (a dict result gives ``name.key`` columns)."""
    row: dict[str, float] = {}
    for name, fn in metrics.items():
        try:
            value = fn(traj)
        except Exception as e:
            raise RuntimeError(f"metric {name!r} raised {type(e).__name__}: {e}") from e
        items = value.items() if isinstance(value, Mapping) else [(None, value)]
        for key, v in items:
            column = name if key is None else f"{name}.{key}"
            try:
                row[column] = float(v)
            except (TypeError, ValueError):
                raise RuntimeError(f"metric {column!r} returned {v!r}, not a number") from None
    return row


# ---------------------------------------------------------------------------
# worker side: one runner per FMU and thread, reused by every run of a study
# ---------------------------------------------------------------------------

_RUNNERS: dict[tuple[str, int], FmuRunner] = {}
_LOCK = threading.Lock()
RUNNERS_PER_THREAD = 4  # FMUs a worker thread keeps loaded; the least recently used beyond are closed


def cached_runner(data: bytes, key: str) -> FmuRunner:
    """The runner of the FMU ``data`` (hash ``key``) for the calling thread, created on first use.

    A long-lived worker serving study after study keeps the last ``RUNNERS_PER_THREAD`` FMUs.
    """
    thread = threading.get_ident()
    slot = (key, thread)
    with _LOCK:
        runner = _RUNNERS.pop(slot, None)
        if runner is None:
            if fmu_hash(data) != key:
                raise ValueError("the FMU bytes do not match their hash")
            runner = FmuRunner(data)
            mine = [s for s in _RUNNERS if s[1] == thread]  # oldest first (dicts keep insertion order)
            for old in mine[: max(0, len(mine) - RUNNERS_PER_THREAD + 1)]:
                _RUNNERS.pop(old).close()
        _RUNNERS[slot] = runner  # most recently used last
        return runner


def run_cases(
    data: bytes, key: str, settings: RunSettings, cases: Sequence[tuple[str, Mapping[str, float]]]
) -> list[tuple[str, dict[str, Any]]]:
    """A batch of runs on a worker (the task a sweep submits): ``(run id, row)`` per case.

    Each row also tells the worker and how many instances its runner has created.
    """
    runner = cached_runner(data, key)
    out = []
    for rid, case in cases:
        row = runner.run(case, settings)
        row["_instantiations"], row["_worker"] = runner.instantiations, (os.getpid(), threading.get_ident())
        out.append((rid, row))
    return out


@atexit.register
def _close_runners() -> None:
    for runner in _RUNNERS.values():
        runner.close()
    _RUNNERS.clear()
