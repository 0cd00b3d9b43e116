"""Simulating and validating FMUs with fmpy (behind ``symbody simulate`` and ``symbody validate``).

Example:
    >>> from symbody.fmu.run import simulate, write_csv, plot  # doctest: +SKIP
    >>> res = simulate("four_bar.fmu", stop_time=2.0, interval=0.01, start_values={"My2": 1.0})  # doctest: +SKIP
    >>> write_csv(res, "four_bar.csv"); plot(res, "four_bar.png")  # doctest: +SKIP
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SymbodyError
from .files import write_atomically
from .variables import SOLVER_METHODS

METHOD_VALUES = {name: value for value, (name, _) in SOLVER_METHODS.items()}


class SimulationError(SymbodyError, RuntimeError):
    """fmpy could not simulate the FMU (the message carries the FMU's own log)."""


def _interfaces(md) -> list[str]:
    out = []
    if md.coSimulation is not None:
        out.append("cs")
    if md.modelExchange is not None:
        out.append("me")
    return out


def simulate(
    fmu: str | Path,
    *,
    kind: str | None = None,
    stop_time: float | None = None,
    interval: float | None = None,
    solver: str = "CVode",
    method: str | None = None,
    rtol: float | None = None,
    start_values: dict[str, Any] | None = None,
    outputs: list[str] | None = None,
    inputs: np.ndarray | None = None,
) -> np.ndarray:
    """Simulate an FMU with fmpy and return its structured result array (``time`` first).

    Args:
        fmu: the ``.fmu`` file.
        kind: ``"cs"`` or ``"me"`` (default: Co-Simulation when available).
        stop_time, interval: end time and output interval (default: the FMU's default experiment).
        solver: ``"CVode"`` or ``"Euler"`` (Model Exchange).
        method: ``"rk4"``, ``"dopri5"`` or ``"rosenbrock23"`` (Co-Simulation; sets ``solver.method``).
        rtol: relative tolerance (CVode, or ``solver.rtol`` in Co-Simulation).
        start_values: start values by variable name.
        outputs: variables to record (default: all outputs).
        inputs: fmpy input signal (structured array with ``time`` and input names).

    Raises:
        SimulationError: fmpy or the FMU failed; the FMU's error messages are included.
    """
    import fmpy

    md = fmpy.read_model_description(str(fmu))
    available = _interfaces(md)
    kind = kind or available[0]
    if kind not in available:
        what = "Co-Simulation" if kind == "cs" else "Model Exchange"
        raise SimulationError(f"{Path(fmu).name} has no {what} interface")
    sv = dict(start_values or {})
    names = {v.name for v in md.modelVariables}
    for name in sv:
        if name not in names:
            raise SimulationError(f"{Path(fmu).name} has no variable {name!r}")
    if kind == "cs":
        if method is not None:
            if method not in METHOD_VALUES:
                raise SimulationError(f"unknown solver method {method!r}: use {', '.join(METHOD_VALUES)}")
            sv["solver.method"] = METHOD_VALUES[method]
        if rtol is not None and "solver.rtol" in names:
            sv.setdefault("solver.rtol", rtol)
    messages: list[str] = []

    def logger(*args) -> None:
        # FMI 2: (env, instanceName, status, category, message); FMI 3: (env, status, category, message)
        status, message = args[-3], args[-1]
        if status >= 2:
            messages.append(message.decode(errors="replace") if isinstance(message, bytes) else str(message))

    kw: dict[str, Any] = dict(
        fmi_type="CoSimulation" if kind == "cs" else "ModelExchange",
        start_values=sv,
        output=outputs,
        input=inputs,
        logger=logger,
    )
    if stop_time is not None:
        kw["stop_time"] = stop_time
    if interval is not None:
        kw["output_interval"] = interval
    if kind == "me":
        kw["solver"] = solver
        if rtol is not None:
            kw["relative_tolerance"] = rtol
        if solver == "Euler" and interval is not None:
            kw["step_size"] = interval
    try:
        return fmpy.simulate_fmu(str(fmu), **kw)
    except Exception as e:  # noqa: BLE001 - fmpy raises plain exceptions
        detail = "; ".join(messages[-3:])
        raise SimulationError(f"simulation of {Path(fmu).name} failed: {e}" + (f" ({detail})" if detail else "")) from e


def write_csv(result: np.ndarray, path: str | Path) -> Path:
    """Write a result array as CSV (header with the variable names), atomically."""
    names = result.dtype.names
    data = np.column_stack([np.asarray(result[n], dtype=float) for n in names])
    header = ",".join(names)
    return write_atomically(
        Path(path), lambda tmp: np.savetxt(tmp, data, delimiter=",", header=header, comments="", fmt="%.17g")
    )


def plot(result: np.ndarray, path: str | Path, names: list[str] | None = None, title: str = "") -> Path:
    """Plot variables against time into a PNG (one panel per variable, at most 12), written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in (names or result.dtype.names) if n != "time"][:12]
    if not names:
        raise SimulationError("nothing to plot: the result has no variables")
    ncols = 1 if len(names) <= 4 else 2
    nrows = math.ceil(len(names) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(8 * ncols, 2.0 * nrows + 0.6), sharex=True, squeeze=False)
    t = result["time"]
    for ax, name in zip(axes.flat, names):
        ax.plot(t, result[name], lw=1.2)
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(names) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    try:
        return write_atomically(Path(path), lambda tmp: fig.savefig(tmp, dpi=110, format="png"))
    finally:
        plt.close(fig)


@dataclass
class ValidationReport:
    """Result of :func:`validate`: model-description problems and simulation smoke tests."""

    fmu: str
    problems: list[str] = field(default_factory=list)
    checks: list[tuple[str, bool, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and all(ok for _, ok, _ in self.checks)

    def lines(self) -> list[str]:
        out = [f"{self.fmu}: {'valid' if self.ok else 'INVALID'}"]
        out += [f"  problem: {p}" for p in self.problems]
        for name, ok, detail in self.checks:
            out.append(f"  {'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail else ""))
        return out


def validate(fmu: str | Path, stop_time: float = 1.0, interval: float = 0.01) -> ValidationReport:
    """fmpy's validation of ``fmu`` plus a short simulation with every interface and solver it offers."""
    import fmpy
    from fmpy.validation import validate_fmu

    path = Path(fmu)
    report = ValidationReport(str(path))
    if not path.is_file():
        report.problems.append(f"file {str(path)!r} not found")
        return report
    report.problems.extend(validate_fmu(str(path)))
    if report.problems:
        return report
    md = fmpy.read_model_description(str(path))
    names = {v.name for v in md.modelVariables}
    runs: list[tuple[str, dict]] = []
    if md.coSimulation is not None:
        if "solver.method" in names:
            runs += [(f"Co-Simulation, {m}", {"kind": "cs", "method": m}) for m in METHOD_VALUES]
        else:
            runs.append(("Co-Simulation", {"kind": "cs"}))
    if md.modelExchange is not None:
        runs += [(f"Model Exchange, {s}", {"kind": "me", "solver": s}) for s in ("CVode", "Euler")]
    for label, kw in runs:
        try:
            res = simulate(path, stop_time=stop_time, interval=interval, **kw)
            finite = all(np.all(np.isfinite(res[n])) for n in res.dtype.names)
            steps = len(res) - 1
            report.checks.append((label, finite, f"{steps} steps" + ("" if finite else ", non-finite values")))
        except SymbodyError as e:
            report.checks.append((label, False, str(e)))
    return report
