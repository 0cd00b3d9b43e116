"""Validating an FMU (behind ``symbody validate``): the standard, and runs with settings the model allows.

:func:`validate` runs fmpy's validation of the archive and model description, then a short
simulation with every interface and solver the FMU offers (its own Co-Simulation methods, fmpy's
CVode and Euler for Model Exchange).  It tells two kinds of findings apart:

- **the FMU breaks the standard**: fmpy's validation finds problems; an instance does not
  instantiate, initialize or give its variables at the start (whatever the solver setting: a
  tampered description, a wrong value reference); a run fails without the FMU saying why or
  returns non-finite values with an OK status; or no solver setting tried runs the model at all:
  the FMU is INVALID;
- **a solver setting cannot simulate this model**: the FMU refuses a step with its own message
  (rk4 beyond its stability limit on a stiff model, a fixed-step Euler master that steps deep
  into a contact) or fmpy's integrator gives up (CVode's step limit).  That is a finding about
  the setting, not about the FMU: the run is tried again with a smaller step (rk4's
  ``solver.step``, Euler's step, CVode's output interval), the setting that ran is reported, and a
  setting that runs at no step tried is listed as such without making the FMU invalid.

Example:
    >>> from symbody.fmu.validation import validate
    >>> report = validate("ball.fmu")  # doctest: +SKIP
    >>> print("\\n".join(report.lines()))  # doctest: +SKIP
    ball.fmu: valid
      ok   Co-Simulation, rk4: 100 steps
      ...
      --   Model Exchange, Euler: this setting cannot simulate the model (step 0.01, 0.001, 0.0001 s) ...
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .run import (
    METHOD_VALUES,
    RUN_FILES,
    SimulationError,
    check_fmu_file,
    read_description,
    restore_fmi2_message_proxy,
    simulate,
)

#: each refused setting is tried again with a step this many times smaller, this many times
STEP_DIVISOR, RETRIES = 10, 2
#: longest FMU message quoted for a refused setting
QUOTE = 300


@dataclass
class ValidationReport:
    """Result of :func:`validate`.

    Attributes:
        fmu: the file validated.
        problems: fmpy's validation problems (the archive or model description breaks the standard).
        checks: ``(run, ok, detail)`` of each simulation: ``ok`` with the setting that ran, or a
            failure that makes the FMU invalid.
        settings: ``(run, detail)`` of each solver setting that cannot simulate this model at any
            step tried (the FMU's or the solver's own reason): findings about the setting.
    """

    fmu: str
    problems: list[str] = field(default_factory=list)
    checks: list[tuple[str, bool, str]] = field(default_factory=list)
    settings: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and all(ok for _, ok, _ in self.checks)

    def lines(self) -> list[str]:
        out = [f"{self.fmu}: {'valid' if self.ok else 'INVALID'}"]
        out += [f"  problem: {p}" for p in self.problems]
        for name, ok, detail in self.checks:
            out.append(f"  {'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail else ""))
        out += [f"  --   {name}: {detail}" for name, detail in self.settings]
        return out


@dataclass
class _Run:
    """One solver of one interface and the settings tried in turn (the first is the default)."""

    interface: str
    label: str
    kw: dict[str, Any]
    attempts: list[tuple[str, dict[str, Any]]]  # (setting text, arguments of simulate)


def _runs(md, stop_time: float, interval: float) -> Iterator[_Run]:
    variables = {v.name: v for v in md.modelVariables}
    if md.coSimulation is not None:
        if "solver.method" in variables:
            step = variables.get("solver.step")
            h = float(step.start) if step is not None and step.start else None
            for m in METHOD_VALUES:
                attempts: list[tuple[str, dict[str, Any]]] = [("", {})]
                if m == "rk4" and h:  # the fixed step is the setting a stiff model refuses
                    smaller = [h / STEP_DIVISOR**k for k in range(1, RETRIES + 1)]
                    attempts += [(f"solver.step = {s:g} s", {"start_values": {"solver.step": s}}) for s in smaller]
                yield _Run("Co-Simulation", f"Co-Simulation, {m}", {"kind": "cs", "method": m}, attempts)
        else:
            yield _Run("Co-Simulation", "Co-Simulation", {"kind": "cs"}, [("", {})])
    if md.modelExchange is not None:
        for solver, what in (("CVode", "output interval"), ("Euler", "step")):
            # fmpy's Euler steps on the output grid; its CVode allows a bounded number of steps per interval
            attempts = [("", {})] + [
                (f"{what} {interval / STEP_DIVISOR**k:g} s", {"interval": _grid(stop_time, interval / STEP_DIVISOR**k)})
                for k in range(1, RETRIES + 1)
            ]
            yield _Run("Model Exchange", f"Model Exchange, {solver}", {"kind": "me", "solver": solver}, attempts)


def _grid(stop_time: float, interval: float) -> float:
    """The largest step of at most ``interval`` that ends a grid at ``stop_time``."""
    return stop_time / math.ceil(stop_time / interval - 1e-9)


def _quote(error: SimulationError, fmu: str) -> str:
    text = str(error).replace(f"simulation of {fmu} failed: ", "")
    return text if len(text) <= QUOTE else text[: QUOTE - 3] + "..."


def _try(path: Path, run: _Run, stop_time: float, step: float, timeout: float | None):
    """``(True, detail)`` for the first setting that runs, ``(False, detail)`` for a failure that breaks
    the standard, ``(None, detail)`` when every setting was refused for a reason of its own."""
    refused: list[str] = []
    last = ""
    for setting, extra in run.attempts:
        kw = {**run.kw, "interval": step, **extra}
        try:
            res = simulate(path, stop_time=stop_time, timeout=timeout, **kw)
        except SimulationError as e:
            if e.refused_by is None:  # not a refusal of the setting: the run failed
                return False, str(e)
            refused.append(setting or "the default setting")
            last = _quote(e, path.name)
            continue
        detail = f"{len(res) - 1} steps" + (f" with {setting}" if setting else "")
        if not all(np.all(np.isfinite(res[n])) for n in res.dtype.names or ()):
            return False, f"{detail}: non-finite values with an OK status"
        if refused:
            detail += f" (refused with {', '.join(refused)}: {last})"
        return True, detail
    tried = ", ".join(s for s, _ in run.attempts if s)
    return None, f"this setting cannot simulate the model (also tried: {tried or 'nothing else'}): {last}"


def _initializes(path: Path, md, interface: str) -> str | None:
    """Why an instance of ``interface`` does not instantiate, initialize and give its Real variables at
    the start (``None`` when it does): what every run needs, whatever its solver setting."""
    import tempfile

    import fmpy
    from fmpy.simulation import instantiate_fmu

    messages: list[str] = []

    def logger(*args) -> None:  # FMI 2: (env, instanceName, status, category, message); FMI 3: no instanceName
        if args[-3] >= 2:
            messages.append(args[-1].decode(errors="replace") if isinstance(args[-1], bytes) else str(args[-1]))

    fmi3 = md.fmiVersion.startswith("3")
    reals = [v.valueReference for v in md.modelVariables if v.type in ("Real", "Float64")]
    instance = None
    with tempfile.TemporaryDirectory(prefix="symbody_validate_") as unzipdir:
        try:
            fmpy.extract(str(path), unzipdir, include=lambda n: n.startswith(RUN_FILES))
            fmi_type = "CoSimulation" if interface == "Co-Simulation" else "ModelExchange"
            instance = instantiate_fmu(unzipdir, md, fmi_type, logger=logger)
            if fmi3:
                instance.enterInitializationMode(startTime=0.0)
            else:
                instance.setupExperiment(startTime=0.0)
                instance.enterInitializationMode()
            instance.exitInitializationMode()
            values = (instance.getFloat64 if fmi3 else instance.getReal)(reals)
            instance.terminate()
        except Exception as e:  # noqa: BLE001 - fmpy raises plain exceptions
            text = (str(e).strip().splitlines() or [type(e).__name__])[0]
            return text + (f" ({'; '.join(dict.fromkeys(messages[-3:]))})" if messages else "")
        finally:
            if instance is not None:
                try:
                    instance.freeInstance()
                except Exception:  # noqa: BLE001 - an instance in error may refuse; it is dropped anyway
                    pass
            restore_fmi2_message_proxy()
    if not np.all(np.isfinite(np.asarray(values, dtype=float))):
        return "non-finite values at the start"
    return None


def validate(
    fmu: str | Path, stop_time: float = 1.0, interval: float = 0.01, timeout: float | None = None
) -> ValidationReport:
    """fmpy's validation of ``fmu`` plus a short simulation with every interface and solver it offers.

    A solver setting the FMU refuses with its own message (or fmpy's integrator gives up on) is tried
    again with smaller steps; one that runs at no step tried is a finding about the setting
    (:attr:`ValidationReport.settings`), not an FMI violation, unless no setting of an interface runs.
    ``timeout`` limits each simulation's wall-clock time in seconds (one that runs longer fails).

    Raises:
        SimulationError: ``fmu`` is not an FMU file (missing, a folder, a model file, not a zip archive).
    """
    from fmpy.validation import validate_fmu

    path = check_fmu_file(fmu)
    report = ValidationReport(str(path))
    report.problems.extend(validate_fmu(str(path)))
    if report.problems:
        return report
    md = read_description(path)
    step = _grid(stop_time, interval)  # at most interval, ends at stop_time
    ran: dict[str, bool] = {}
    broken: dict[str, str | None] = {}
    for run in _runs(md, stop_time, step):
        if run.interface not in broken:
            broken[run.interface] = why = _initializes(path, md, run.interface)
            if why:  # no setting matters: the FMU breaks the standard before any step
                report.checks.append((f"{run.interface}, instantiation and initialization", False, why))
        if broken[run.interface]:
            continue
        ok, detail = _try(path, run, stop_time, step, timeout)
        ran[run.interface] = ran.get(run.interface, False) or ok is True
        if ok is None:
            report.settings.append((run.label, detail))
        else:
            report.checks.append((run.label, ok, detail))
    for interface, any_ran in ran.items():  # an interface that runs with no setting tried
        failed = any(name.startswith(interface) and not ok for name, ok, _ in report.checks)
        if not (any_ran or failed):
            report.checks.append((interface, False, "no solver setting tried simulates the model (see below)"))
    return report


__all__ = ["ValidationReport", "validate"]
