"""Simulating and validating FMUs with fmpy (behind ``symbody simulate`` and ``symbody validate``).

:func:`simulate` drives fmpy's masters with one output grid for Co-Simulation
and Model Exchange, and guards them: a step that makes no progress (an FMU
that discards a step and cannot recover), too many steps, too much wall-clock
time or a run that ends before the stop time all raise
:class:`SimulationError` with the FMU's own messages, never a hang or a short
result.  This module imports neither SymPy nor the code generation.

Example:
    >>> from symbody.fmu.run import simulate, write_csv, plot  # doctest: +SKIP
    >>> res = simulate("four_bar.fmu", stop_time=2.0, interval=0.01, start_values={"My2": 1.0})  # doctest: +SKIP
    >>> write_csv(res, "four_bar.csv")  # doctest: +SKIP
"""

from __future__ import annotations

import math
import tempfile
import time as clock
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SymbodyError
from .arguments import COSIMULATION_SOLVER, check_variable_names
from .files import write_atomically
from .variables import SOLVER_METHODS, method_code

METHOD_VALUES = {name: value for value, (name, _) in SOLVER_METHODS.items()}
#: Most points in a default output grid (as fmpy: the interval doubles until the grid fits).
MAX_DEFAULT_POINTS = 1000
#: Master-loop iterations allowed per output point before the run is stopped as runaway.
STEPS_PER_POINT = 50
#: What a run needs from the archive (not the sources, not the documentation).
RUN_FILES = ("modelDescription.xml", "binaries/", "resources/")
#: Consecutive master steps without progress in time after which the FMU is taken as stuck.
STALLED_STEPS = 3


class SimulationError(SymbodyError, RuntimeError):
    """fmpy could not simulate the FMU (the message carries the FMU's own log).

    Attributes:
        refused_by: who stopped the run for a reason of its own: ``"fmu"`` (the FMU returned an
            error or discard status and logged why, e.g. a solver setting it cannot run the model
            with), ``"solver"`` (fmpy's integrator gave up, e.g. CVode's step limit), or ``None``
            (anything else: bad arguments, an FMU failing without saying why, a time limit).
    """

    def __init__(self, message: str, refused_by: str | None = None):
        super().__init__(message)
        self.refused_by = refused_by


def _interfaces(md) -> list[str]:
    out = []
    if md.coSimulation is not None:
        out.append("cs")
    if md.modelExchange is not None:
        out.append("me")
    return out


def check_fmu_file(fmu: str | Path) -> Path:
    """``fmu`` as a Path if it is a readable FMU archive; otherwise a one-line :class:`SimulationError`."""
    path = Path(fmu)
    if not path.is_file():
        what = "is a folder, not an FMU file" if path.is_dir() else "not found"
        raise SimulationError(f"FMU {str(path)!r} {what}")
    if not zipfile.is_zipfile(path):
        hint = ""
        if path.suffix.lower() == ".py":
            hint = " (a model file: check it with `symbody info MODEL.py`, export it with `symbody export`)"
        raise SimulationError(f"{str(path)!r} is not an FMU (not a zip archive){hint}")
    try:
        with zipfile.ZipFile(path) as zf:
            if "modelDescription.xml" not in zf.namelist():
                raise SimulationError(f"{str(path)!r} is not an FMU (no modelDescription.xml)")
    except zipfile.BadZipFile as e:
        raise SimulationError(f"{str(path)!r} is not a readable FMU: {e}") from None
    return path


def read_description(fmu: str | Path):
    """fmpy's model description of an FMU file, with a one-line error for anything that is not an FMU."""
    import fmpy

    path = check_fmu_file(fmu)
    try:
        return fmpy.read_model_description(str(path))
    except Exception as e:  # noqa: BLE001 - fmpy raises plain exceptions for malformed XML
        raise SimulationError(f"{path.name}: cannot read its modelDescription.xml: {e}") from None


def output_interval(md, start: float, stop: float, interval: float | None = None) -> float:
    """The output grid of a run: ``interval``, else the default experiment's step, else a round step.

    The grid ``start + k * interval`` must end at ``stop``: the same grid then
    serves Co-Simulation (communication points) and Model Exchange (output
    points), so both give the same time column.  A default step is shortened
    to divide the simulated time (at most :data:`MAX_DEFAULT_POINTS` + 1
    points); a given ``interval`` that does not divide it is refused.
    """
    span = stop - start
    if interval is not None:
        count = span / interval
        if abs(count - round(count)) > 1e-9 * max(1.0, count):
            near = span / max(1, round(count))
            raise SimulationError(
                f"the output interval {interval:g} s does not divide the simulated time {span:g} s "
                f"(the last point would miss the stop time): use e.g. {near:.6g}"
            )
        return float(interval)
    experiment = md.defaultExperiment
    step = float(experiment.stepSize) if experiment is not None and experiment.stepSize else None
    if step is None or not step > 0:
        step = 10.0 ** (round(math.log10(span)) - 3)
    while span / step > MAX_DEFAULT_POINTS:
        step *= 2
    return span / math.ceil(span / step - 1e-9)


def time_range(md, start_time: float | None = None, stop_time: float | None = None) -> tuple[float, float]:
    """Start and stop time of a run: the given ones, else the FMU's default experiment, else 0 and 1."""
    experiment = md.defaultExperiment
    start = start_time if start_time is not None else float(getattr(experiment, "startTime", None) or 0.0)
    if stop_time is None:
        stop_time = float(experiment.stopTime) if experiment is not None and experiment.stopTime else start + 1.0
    if not (math.isfinite(start) and math.isfinite(stop_time)):
        raise SimulationError(f"start and stop time must be finite numbers, not {start:g} and {stop_time:g}")
    if stop_time <= start:
        raise SimulationError(f"the stop time {stop_time:g} must be later than the start time {start:g}")
    return start, float(stop_time)


@dataclass
class _Guard:
    """fmpy's ``step_finished`` callback: stops a run that makes no progress, runs away or takes too long."""

    max_steps: int
    timeout: float | None
    started: float = field(default_factory=clock.monotonic)
    last_time: float = -math.inf
    stalled: int = 0
    steps: int = 0
    reason: str = ""
    timed_out: bool = False

    def __call__(self, time: float, recorder: Any) -> bool:
        self.steps += 1
        self.stalled = self.stalled + 1 if time <= self.last_time else 0
        self.last_time = max(self.last_time, time)
        if self.stalled >= STALLED_STEPS:
            self.reason = f"the FMU makes no progress at t = {time:g} s (a step it discarded is retried in vain)"
        elif self.steps > self.max_steps:
            self.reason = f"stopped at t = {time:g} s after {self.steps} master steps (more than the output grid needs)"
        elif self.timeout is not None and clock.monotonic() - self.started > self.timeout:
            self.reason = f"stopped at t = {time:g} s after the time limit of {self.timeout:g} s (--timeout)"
            self.timed_out = True
        return not self.reason


def simulate(
    fmu: str | Path,
    *,
    kind: str | None = None,
    start_time: float | None = None,
    stop_time: float | None = None,
    interval: float | None = None,
    solver: str | None = None,
    method: str | None = None,
    rtol: float | None = None,
    start_values: dict[str, Any] | None = None,
    outputs: list[str] | None = None,
    inputs: np.ndarray | None = None,
    timeout: float | None = None,
) -> np.ndarray:
    """Simulate an FMU with fmpy and return its structured result array (``time`` first).

    Args:
        fmu: the ``.fmu`` file.
        kind: ``"cs"`` or ``"me"`` (default: Co-Simulation when available).
        start_time, stop_time: the simulated interval (default: the FMU's default experiment).
        interval: output interval, the same grid for both kinds (default: :func:`output_interval`).
        solver: ``"CVode"`` (default) or ``"Euler"``: fmpy's integrator of a Model Exchange run.
        method: ``"rk4"``, ``"dopri5"`` or ``"rosenbrock23"``: the Co-Simulation FMU's own solver
            (sets ``solver.method``); refused with ``kind="me"``, where fmpy integrates.
        rtol: relative tolerance (CVode, or ``solver.rtol`` in Co-Simulation).
        start_values: start values by variable name (typed: see :func:`symbody.fmu.arguments.parse_start_values`).
        outputs: variables to record (default: all outputs).
        inputs: input signals, a structured array with ``time`` and input names (fmpy's format).
        timeout: wall-clock limit in seconds (default: none; a stuck FMU is stopped anyway).

    Raises:
        SimulationError: bad arguments, or fmpy or the FMU failed, stopped making progress or ended
            early; the FMU's error messages are included.
    """
    import fmpy

    md = read_description(fmu)
    name = Path(fmu).name
    available = _interfaces(md)
    kind = kind or available[0]
    if kind not in available:
        what = "Co-Simulation" if kind == "cs" else "Model Exchange"
        raise SimulationError(f"{name} has no {what} interface")
    start, stop = time_range(md, start_time, stop_time)
    if interval is not None and not (math.isfinite(interval) and 0 < interval <= stop - start):
        raise SimulationError(f"the output interval {interval:g} must be positive and at most {stop - start:g}")
    step = output_interval(md, start, stop, interval)
    variables = {v.name: v for v in md.modelVariables}
    sv = dict(start_values or {})
    check_variable_names(list(sv), list(variables), "start value")
    if isinstance(sv.get("solver.method"), str):  # a method name: its integer code
        try:
            sv["solver.method"] = method_code(sv["solver.method"])
        except SymbodyError as e:
            raise SimulationError(str(e)) from None
    if outputs:
        check_variable_names(list(outputs), list(variables), "output")
    if inputs is not None:
        names = [n for n in inputs.dtype.names or () if n != "time"]
        check_variable_names(names, [n for n, v in variables.items() if v.causality == "input"], "input")
    kw: dict[str, Any] = dict(
        fmi_type="CoSimulation" if kind == "cs" else "ModelExchange",
        start_time=start,
        stop_time=stop,
        output_interval=step,
        output=outputs,
        input=inputs,
        model_description=md,
    )
    if kind == "cs":
        if solver is not None:
            raise SimulationError(f"--solver {solver} chooses fmpy's Model Exchange integrator: use it with --kind me")
        _choose_method(sv, method, variables)
        if rtol is not None and "solver.rtol" in variables:
            sv.setdefault("solver.rtol", rtol)
    else:
        if method is not None:
            raise SimulationError(
                f"--method {method} chooses the Co-Simulation FMU's solver; with --kind me fmpy integrates "
                "(choose it with --solver CVode|Euler)"
            )
        cs_only = [n for n in sv if n.startswith(COSIMULATION_SOLVER)]
        if cs_only:
            raise SimulationError(
                f"--set {cs_only[0]} sets the Co-Simulation FMU's solver; with --kind me fmpy integrates "
                "(choose it with --solver CVode|Euler, --rtol)"
            )
        kw["solver"] = solver or "CVode"
        kw["record_events"] = False  # keep the output grid: the same rows as Co-Simulation
        if rtol is not None:
            kw["relative_tolerance"] = rtol
        if kw["solver"] == "Euler":
            kw["step_size"] = step
    kw["start_values"] = sv
    return _run(fmpy, Path(fmu), kw, start, stop, step, timeout)


def _choose_method(sv: dict[str, Any], method: str | None, variables: dict[str, Any]) -> None:
    if method is None:
        return
    if method not in METHOD_VALUES:
        raise SimulationError(f"unknown solver method {method!r}: use {', '.join(METHOD_VALUES)}")
    if "solver.method" not in variables:
        raise SimulationError(f"--method {method}: this FMU has no solver.method parameter")
    if "solver.method" in sv and sv["solver.method"] != METHOD_VALUES[method]:
        raise SimulationError(f"--method {method} contradicts --set solver.method={sv['solver.method']}")
    sv["solver.method"] = METHOD_VALUES[method]


def _run(fmpy, fmu: Path, kw: dict[str, Any], start: float, stop: float, step: float, timeout: float | None):
    messages: list[str] = []

    def logger(*args) -> None:
        # FMI 2: (env, instanceName, status, category, message); FMI 3: (env, status, category, message)
        status, message = args[-3], args[-1]
        if status >= 2:
            messages.append(message.decode(errors="replace") if isinstance(message, bytes) else str(message))

    def detail() -> str:
        return f" ({'; '.join(dict.fromkeys(messages[-3:]))})" if messages else ""

    points = math.ceil((stop - start) / step) + 1
    events = 0 if kw.get("input") is None else len(kw["input"])
    guard = _Guard(max_steps=STEPS_PER_POINT * (points + events) + 100, timeout=timeout)
    # extracted here, not by fmpy, so that a failure or an interruption leaves no folder behind
    with tempfile.TemporaryDirectory(prefix="symbody_run_") as unzipdir:
        try:
            fmpy.extract(str(fmu), unzipdir, include=lambda n: n.startswith(RUN_FILES))
            try:
                result = fmpy.simulate_fmu(unzipdir, logger=logger, step_finished=guard, **kw)
            finally:
                restore_fmi2_message_proxy()
        except Exception as e:  # noqa: BLE001 - fmpy raises plain exceptions
            text = str(e).strip().splitlines()
            first = text[0] if text else type(e).__name__
            by = "fmu" if messages else "solver" if first.startswith("CVode error") else None
            raise SimulationError(f"simulation of {fmu.name} failed: {first}{detail()}", by) from e
    if guard.reason:
        by = "fmu" if messages and not guard.timed_out else None
        raise SimulationError(f"simulation of {fmu.name} failed: {guard.reason}{detail()}", by)
    result = _on_grid(result, start, step)
    end = float(result["time"][-1]) if len(result) else start
    if end < stop - _rounding(stop, step):
        early = f"the FMU stopped at t = {end:.12g} s, before the stop time {stop:.12g} s"
        if math.isclose(end, stop):  # fmpy's master ends a run at a time math.isclose to the stop time
            early = (
                f"fmpy's master ended at t = {end:.12g} s, before the stop time {stop:.12g} s: it takes times "
                f"within 1e-9 of each other (relative) for equal, {1e-9 * abs(stop):.3g} s at this time"
            )
        raise SimulationError(f"simulation of {fmu.name} failed: {early}{detail()}", "fmu" if messages else None)
    return result


_FMI2_DEFAULT_LOGGER: list = []  # fmpy's default FMI 2 callbacks with their own thunk, alive for the process


def restore_fmi2_message_proxy() -> None:
    """Point fmpy's process-wide FMI 2 message proxy back at a logger that lives as long as the process.

    fmpy formats FMI 2 messages in a native proxy that holds ONE Python logger for the whole
    process; ``simulate_fmu(logger=...)`` points it at a callback that lives only as long as that
    run.  An FMI 2 instance logging after the run (any instance of the process: they all log through
    the proxy) would call freed memory and crash the host.  After every run the proxy gets fmpy's
    message printer back, through callbacks kept here for the life of the process.
    """
    from ctypes import byref

    try:
        from fmpy import fmi2
        from fmpy.logging import addLoggerProxy
    except (ImportError, OSError):  # no native proxy on this platform: nothing was re-pointed
        return
    if not _FMI2_DEFAULT_LOGGER:
        _FMI2_DEFAULT_LOGGER.extend([fmi2.fmi2CallbackFunctions(), fmi2.fmi2CallbackLoggerTYPE(fmi2.printLogMessage)])
    callbacks, printer = _FMI2_DEFAULT_LOGGER
    callbacks.logger = printer  # the proxy replaces it by itself: set the printer again every time
    addLoggerProxy(byref(callbacks))


def _rounding(t, step: float):
    """Rounding allowance of times near ``t`` on a grid of ``step``: a few ulps of ``t`` (it must not grow
    into whole steps at large ``t``, such as a Unix time) and a millionth of the step."""
    return 8.0 * np.spacing(np.maximum(1.0, np.abs(t))) + 1e-6 * step


def _on_grid(result: np.ndarray, start: float, step: float) -> np.ndarray:
    """The rows at ``start + k * step`` (one per ``k``, the last): a Co-Simulation master also stops at
    the times where an input jumps, a Model Exchange one does not; the result keeps the same rows."""
    t = np.asarray(result["time"], dtype=float)
    k = np.round((t - start) / step)
    rows = np.flatnonzero(np.abs(t - (start + k * step)) <= _rounding(t, step))
    last = np.ones(len(rows), dtype=bool)
    last[:-1] = k[rows][:-1] != k[rows][1:]
    return result[rows[last]]


def variable_units(md) -> dict[str, str]:
    """Units of an FMU's variables by name (from the variable or its declared type)."""
    out = {}
    for v in md.modelVariables:
        unit = v.unit or getattr(v.declaredType, "unit", None)
        if unit:
            out[v.name] = unit
    return out


def write_csv(result: np.ndarray, path: str | Path) -> Path:
    """Write a result array as CSV (header with the variable names), atomically."""
    names = result.dtype.names or ()
    data = np.column_stack([np.asarray(result[n], dtype=float) for n in names])
    header = ",".join(names)
    return write_atomically(
        Path(path), lambda tmp: np.savetxt(tmp, data, delimiter=",", header=header, comments="", fmt="%.17g")
    )
