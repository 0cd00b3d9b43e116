"""Parsing and checking what users type for a simulation: start values, times, names, input files, outputs.

Each function turns text into values or raises :class:`symbody.errors.ArgumentError`
with one line that names the argument and says what would be accepted.  The
commands that run FMUs (``simulate``, ``validate``, ``sweep``, ``animate``) share them;
``--option`` values of model files are parsed by :mod:`symbody.loader`.

=============================  ==========================================================
:func:`parse_start_values`     ``--set NAME=VALUE`` typed by an FMU's model description
:func:`check_time_range`       ``--start-time``, ``--stop-time``, ``--interval``
:func:`check_variable_names`   ``--output NAME`` against the FMU's variables (close matches)
:func:`read_input_file`        ``--input-file CSV`` as fmpy reads it, names checked
:func:`add_motion_rates`       the velocity and acceleration columns of motion inputs the file gives
:func:`check_output_file`      ``-o FILE`` before any work: not a folder, suffix, folder exists
:func:`add_model_options`      ``--option KEY=VALUE`` of the commands that read model files
=============================  ==========================================================

This module imports neither SymPy nor fmpy: simulating an FMU stays quick.

Example:
    >>> check_time_range(0.0, 10.0, interval=0.01)
    >>> check_variable_names(["theta", "thetta"], ["theta", "dtheta"], "--output")
    Traceback (most recent call last):
    ...
    symbody.errors.ArgumentError: --output 'thetta': no such variable (did you mean theta, dtheta?)
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ArgumentError
from ..loader import parse_assignments, parse_bool

#: Prefix of the settings of a symbody Co-Simulation FMU's own solver (they mean nothing in Model Exchange).
COSIMULATION_SOLVER = "solver."

__all__ = [
    "parse_assignments",  # from symbody.loader, for the commands' convenience
    "parse_start_values",
    "check_time_range",
    "check_variable_names",
    "check_recorded_names",
    "read_input_file",
    "input_file_gap",
    "add_motion_rates",
    "check_output_file",
    "add_model_options",
]


# ---------------------------------------------------------------------------
# start values typed by the model description
# ---------------------------------------------------------------------------


def _enumeration_items(variable: Any) -> dict[str, int]:
    """Names of an Enumeration's items, or ``name = value`` / ``value: name`` pairs in its description."""
    declared = getattr(variable, "declaredType", None)
    items = {str(i.name): int(i.value) for i in getattr(declared, "items", None) or ()}
    if items:
        return items
    text = getattr(variable, "description", None) or ""
    for name, value in re.findall(r"([A-Za-z_][\w.]*)\s*[=(]\s*(-?\d+)\)?", text):
        items[name] = int(value)
    for value, name in re.findall(r"(-?\d+)\s*[:=]\s*([A-Za-z_][\w.]*)", text):
        items.setdefault(name, int(value))
    return items


def _in_range(variable: Any, value: int, what: str) -> int:
    """``value`` if it fits the variable's integer type (fmpy's ctypes would wrap it around silently)."""
    kind = variable.type
    sized = re.fullmatch(r"U?Int(\d+)", kind)
    bits = int(sized.group(1)) if sized else 32  # FMI 2 Integer and Enumeration: fmi2Integer (int)
    lo, hi = (0, 2**bits - 1) if kind.startswith("UInt") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if not lo <= value <= hi:
        raise ArgumentError(f"{what} {value} is outside the range of {kind} [{lo}, {hi}]")
    return value


def _typed_value(variable: Any, text: str, names: dict[str, int]) -> Any:
    what = f"--set {variable.name}:"
    kind = variable.type
    if kind == "Boolean":
        return parse_bool(text, what)
    if kind in ("String",):
        return text
    if kind in ("Enumeration", "Integer") or kind.startswith(("Int", "UInt")):
        if re.fullmatch(r"[+-]?\d+", text):
            return _in_range(variable, int(text), what)
        if text in names:
            return names[text]
        choices = ", ".join(f"{n} ({v})" for n, v in names.items())
        raise ArgumentError(f"{what} {text!r} is not an integer" + (f" or one of {choices}" if choices else ""))
    try:
        value = float(text)
    except ValueError:
        raise ArgumentError(f"{what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ArgumentError(f"{what} {text!r} is not a finite number")
    return value


def parse_start_values(
    items: Iterable[str] | None,
    variables: Sequence[Any],
    known_names: dict[str, dict[str, int]] | None = None,
) -> dict[str, Any]:
    """``--set NAME=VALUE`` items typed by the FMU's variables (fmpy's ``modelVariables``).

    Booleans take :func:`parse_bool`'s words; Integer and Enumeration variables
    take an integer or the name of a value (Enumeration items, ``name = value``
    pairs in the variable's description, or ``known_names[variable]``); Real
    ones a finite number.  An unknown name is refused with close matches.
    """
    texts = parse_assignments(items, "--set")
    by_name = {v.name: v for v in variables}
    check_variable_names(list(texts), list(by_name), "--set")
    out: dict[str, Any] = {}
    for name, text in texts.items():
        names = {**(known_names or {}).get(name, {}), **_enumeration_items(by_name[name])}
        out[name] = _typed_value(by_name[name], text, names)
    return out


# ---------------------------------------------------------------------------
# times and names
# ---------------------------------------------------------------------------


def check_time_range(start: float, stop: float, interval: float | None = None) -> None:
    """Refuse non-finite times, ``stop <= start`` and a non-positive or too large ``interval``.

    >>> check_time_range(0.0, -1.0)
    Traceback (most recent call last):
    ...
    symbody.errors.ArgumentError: --stop-time -1 must be later than the start time 0
    """
    for flag, value in (("--start-time", start), ("--stop-time", stop), ("--interval", interval)):
        if value is not None and not math.isfinite(value):
            raise ArgumentError(f"{flag} {value:g} is not a finite number")
    if stop <= start:
        raise ArgumentError(f"--stop-time {stop:g} must be later than the start time {start:g}")
    if interval is not None:
        if interval <= 0:
            raise ArgumentError(f"--interval {interval:g} must be positive")
        if interval > stop - start:
            raise ArgumentError(f"--interval {interval:g} is longer than the simulated time {stop - start:g}")
        if (stop - start) / interval > 1e7:
            raise ArgumentError(f"--interval {interval:g} gives more than 10 million output points")


def check_variable_names(names: Iterable[str], available: Sequence[str], flag: str) -> list[str]:
    """Return ``names`` if every one is in ``available``; otherwise name the first unknown one and close matches."""
    names = list(names)
    known = set(available)
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, list(available), n=3, cutoff=0.6)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise ArgumentError(f"{flag} {name!r}: no such variable{hint}")
    return names


def check_recorded_names(names: Iterable[str], variables: Sequence[Any]) -> list[str]:
    """``--output`` names: variables of the FMU other than the time, which is always the first column.

    >>> from types import SimpleNamespace as V
    >>> check_recorded_names(["time"], [V(name="time", causality="independent"), V(name="x", causality="output")])
    Traceback (most recent call last):
    ...
    symbody.errors.ArgumentError: --output 'time': the time is always the first column; name the variables to record
    """
    names = list(names)
    for name in names:
        if any(v.name == name and v.causality == "independent" for v in variables):
            raise ArgumentError(f"--output {name!r}: the time is always the first column; name the variables to record")
    return check_variable_names(names, [v.name for v in variables if v.causality != "independent"], "--output")


def read_input_file(path: str | Path, inputs: Sequence[str] | None) -> np.ndarray:
    """Read ``--input-file``: a CSV with a header, ``time`` first, then input columns (fmpy's format).

    Returns the structured array fmpy's ``simulate_fmu(input=...)`` takes.  The
    column names must be inputs of the FMU (``inputs``; ``None`` checks the file's
    form only); times must be finite and non-decreasing (a repeated time is a step
    change); values finite.
    """
    path = Path(path)
    if not path.is_file():
        raise ArgumentError(f"--input-file {str(path)!r} not found")
    try:
        lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError) as e:
        raise ArgumentError(f"--input-file {str(path)!r} cannot be read: {e}") from None
    if len(lines) < 2:
        raise ArgumentError(f"--input-file {path.name}: needs a header line and at least one row")
    header = [h.strip().strip('"') for h in lines[0].split(",")]
    if header[0] != "time":
        raise ArgumentError(f"--input-file {path.name}: the first column must be 'time', not {header[0]!r}")
    if len(header) < 2:
        raise ArgumentError(f"--input-file {path.name}: no input columns after 'time'")
    if len(set(header)) != len(header):
        raise ArgumentError(f"--input-file {path.name}: a column name is repeated")
    for name in header[1:]:
        if inputs is not None and name not in inputs:
            close = difflib.get_close_matches(name, list(inputs), n=3, cutoff=0.6)
            hint = f"did you mean {', '.join(close)}?" if close else f"the inputs are {', '.join(inputs) or 'none'}"
            raise ArgumentError(f"--input-file {path.name}: column {name!r} is not an input of the FMU ({hint})")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split(",")
        try:
            values = [float(c) for c in cells]
        except ValueError:
            raise ArgumentError(f"--input-file {path.name}, line {number}: not a number in {line!r}") from None
        if len(values) != len(header):
            counts = f"{len(values)} values for {len(header)} columns"
            raise ArgumentError(f"--input-file {path.name}, line {number}: {counts}")
        if not all(math.isfinite(v) for v in values):
            raise ArgumentError(f"--input-file {path.name}, line {number}: a value is not finite")
        rows.append(tuple(values))
    data = np.array(rows, dtype=[(name, np.float64) for name in header])
    if np.any(np.diff(data["time"]) < 0):
        raise ArgumentError(f"--input-file {path.name}: the times must not decrease")
    return data


def add_motion_rates(data: np.ndarray, inputs: Sequence[str], name: str) -> tuple[np.ndarray, list[str]]:
    """Give an input file the velocity and acceleration columns of the motion inputs it drives.

    A motion input ``z`` is the three FMU inputs ``z``, ``dz``, ``ddz``
    (:meth:`symbody.System.motion_input`).  When the file ``name`` has a ``z`` column but neither
    ``dz`` nor ``ddz``, they are the first and second derivatives of the cubic spline through its
    samples (not-a-knot ends, as ``Sampled(kind="cubic")``), so that the three stay consistent.
    Returns the data and the names of the motion inputs completed.

    Raises:
        ArgumentError: a motion input column with repeated times (a position cannot jump), or a
            file with one of ``dz``, ``ddz`` but not the other.

    >>> data = np.array([(t, t * t) for t in (0.0, 1.0, 2.0, 3.0)], dtype=[("time", float), ("z", float)])
    >>> out, done = add_motion_rates(data, ["z", "dz", "ddz"], "f.csv")
    >>> done, out.dtype.names, [round(float(v), 9) + 0.0 for v in out["dz"]], [round(float(v), 9) for v in out["ddz"]]
    (['z'], ('time', 'z', 'dz', 'ddz'), [0.0, 2.0, 4.0, 6.0], [2.0, 2.0, 2.0, 2.0])
    """
    names = list(data.dtype.names or ())
    motions = [n for n in names[1:] if f"d{n}" in inputs and f"dd{n}" in inputs]
    missing = []
    for n in motions:
        given = [d for d in (f"d{n}", f"dd{n}") if d in names]
        if len(given) == 1:
            raise ArgumentError(
                f"--input-file {name}: {given[0]!r} without its pair: give both d{n} and dd{n} of the motion "
                f"input {n!r}, or neither (they are then the derivatives of the spline through {n})"
            )
        if not given:
            missing.append(n)
    if not missing:
        return data, []
    t = np.asarray(data["time"], dtype=float)
    if np.any(np.diff(t) <= 0):
        raise ArgumentError(
            f"--input-file {name}: repeated times, but the motion input {missing[0]!r} cannot jump "
            f"(give d{missing[0]} and dd{missing[0]} columns, or strictly increasing times)"
        )
    columns: list[tuple[str, np.ndarray]] = [(n, np.asarray(data[n], dtype=float)) for n in names]
    for n in missing:
        d1, d2 = _spline_rates(t, np.asarray(data[n], dtype=float))
        columns += [(f"d{n}", d1), (f"dd{n}", d2)]
    out = np.empty(t.size, dtype=[(n, np.float64) for n, _ in columns])
    for n, v in columns:
        out[n] = v
    return out, missing


def _spline_rates(t: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first and second derivatives at ``t`` of the cubic spline through ``(t, v)`` (zero for one sample)."""
    if t.size < 2:
        return np.zeros_like(v), np.zeros_like(v)
    from scipy.interpolate import CubicSpline, make_interp_spline

    spline = make_interp_spline(t, v, k=t.size - 1) if t.size < 4 else CubicSpline(t, v)
    return np.asarray(spline(t, 1), dtype=float), np.asarray(spline(t, 2), dtype=float)


def input_file_gap(inputs: np.ndarray, start: float, stop: float, name: str) -> str | None:
    """What the simulated span ``[start, stop]`` takes from outside an input file's times, or ``None``.

    Outside its times the inputs keep the file's first and last values (fmpy's rule); a
    file that ends early is said so rather than silently extended.

    >>> data = np.array([(0.0, 0.0), (30.0, 1.0)], dtype=[("time", float), ("F", float)])
    >>> input_file_gap(data, 0.0, 60.0, "f.csv")
    '--input-file f.csv covers t = 0 to 30 s, the run 0 to 60 s: the inputs keep their last values after 30 s'
    """
    first, last = float(inputs["time"][0]), float(inputs["time"][-1])
    slack = 8.0 * math.ulp(max(1.0, abs(start), abs(stop)))  # rounding only, also at large times
    before, after = start < first - slack, stop > last + slack
    if not (before or after):
        return None
    held = [f"their first values before {first:.12g} s"] * before + [f"their last values after {last:.12g} s"] * after
    return (
        f"--input-file {name} covers t = {first:.12g} to {last:.12g} s, the run {start:.12g} to {stop:.12g} s: "
        f"the inputs keep {' and '.join(held)}"
    )


def check_output_file(text: str | Path, suffixes: Sequence[str], flag: str) -> Path:
    """The file an option names for writing, checked before any work: not a folder, right suffix, folder exists.

    >>> check_output_file("results/", (".csv",), "-o")
    Traceback (most recent call last):
    ...
    symbody.errors.ArgumentError: -o 'results/' is a folder: give a file name ending in .csv
    """
    raw = str(text)
    path = Path(raw)
    wanted = " or ".join(suffixes)
    if raw.endswith(("/", "\\")) or path.is_dir():
        raise ArgumentError(f"{flag} {raw!r} is a folder: give a file name ending in {wanted}")
    if path.suffix.lower() not in suffixes:
        raise ArgumentError(f"{flag} {raw!r}: the output file must end in {wanted}")
    folder = path.resolve().parent
    if not folder.is_dir():
        raise ArgumentError(f"{flag} {raw!r}: output folder {str(folder)!r} does not exist")
    return path


def add_model_options(parser: Any) -> None:
    """Give ``parser`` (an ``argparse`` parser of a command that reads model files) the repeatable
    ``--option KEY=VALUE`` of the model's ``build(**options)`` (parsed by :func:`symbody.loader.load_model_file`).

    Example:
        >>> import argparse
        >>> p = argparse.ArgumentParser()
        >>> add_model_options(p)
        >>> p.parse_args(["--option", "falls=2", "--option", "flexible=true"]).option
        ['falls=2', 'flexible=true']
    """
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="option passed to the model's build(**options); VALUE is a Python literal or true/false (repeatable)",
    )
