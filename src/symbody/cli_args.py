"""Parsing and checking what users type on the command line, for every ``symbody`` command.

Each function turns text into values or raises :class:`ArgumentError` with one
line that names the argument and says what would be accepted.  The commands
(``simulate``, ``validate``, ``sweep``, ``animate``, ...) share them:

=============================  ==========================================================
:func:`parse_bool`             ``true/false/yes/no/on/off/1/0`` (any case)
:func:`parse_option_value`     ``--option KEY=VALUE`` of a model file's ``build(**options)``
:func:`parse_model_options`    all ``--option`` items, checked against ``build``'s signature
:func:`parse_assignments`      ``NAME=VALUE`` items into ``{name: text}``
:func:`parse_start_values`     ``--set NAME=VALUE`` typed by an FMU's model description
:func:`check_time_range`       ``--start-time``, ``--stop-time``, ``--interval``
:func:`check_variable_names`   ``--output NAME`` against the FMU's variables (close matches)
:func:`read_input_file`        ``--input-file CSV`` as fmpy reads it, names checked
:func:`check_output_file`      ``-o FILE`` before any work: not a folder, suffix, folder exists
=============================  ==========================================================

This module imports neither SymPy nor fmpy: simulating an FMU stays quick.

Example:
    >>> parse_bool("No"), parse_option_value("spring", "false"), parse_option_value("n", "5")
    (False, False, 5)
    >>> parse_assignments(["m=2", "solver.method = rk4"], "--set")
    {'m': '2', 'solver.method': 'rk4'}
    >>> check_variable_names(["theta", "thetta"], ["theta", "dtheta"], "--output")
    Traceback (most recent call last):
    ...
    symbody.cli_args.ArgumentError: --output 'thetta': no such variable (did you mean theta, dtheta?)
"""

from __future__ import annotations

import ast
import difflib
import inspect
import math
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import SymbodyError

__all__ = [
    "ArgumentError",
    "parse_bool",
    "parse_option_value",
    "parse_model_options",
    "parse_assignments",
    "parse_start_values",
    "check_time_range",
    "check_variable_names",
    "read_input_file",
    "check_output_file",
]

TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")


class ArgumentError(SymbodyError, ValueError):
    """A command-line value that cannot be used; the message names it and what is accepted."""


def parse_bool(text: str, what: str = "value") -> bool:
    """``true/yes/on/1`` or ``false/no/off/0`` (case-insensitive); anything else is refused.

    >>> parse_bool("TRUE"), parse_bool("0")
    (True, False)
    """
    word = str(text).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ArgumentError(f"{what} {text!r} is not a boolean: use true/false, yes/no, on/off or 1/0")


def _is_bool_parameter(parameter: inspect.Parameter | None) -> bool:
    if parameter is None:
        return False
    annotation = parameter.annotation
    return isinstance(parameter.default, bool) or annotation is bool or annotation == "bool"


def parse_option_value(key: str, text: str, parameter: inspect.Parameter | None = None) -> Any:
    """The value of ``--option KEY=TEXT``.

    A parameter of ``build`` declared ``bool`` (by annotation or default) takes
    only boolean words (:func:`parse_bool`).  Otherwise ``TEXT`` is a Python
    literal; ``true``/``false`` in any case are booleans; anything else stays
    a string.

    >>> parse_option_value("n", "[1, 2]"), parse_option_value("name", "crane"), parse_option_value("k", "FALSE")
    ([1, 2], 'crane', False)
    """
    if _is_bool_parameter(parameter):
        return parse_bool(text, f"--option {key}:")
    stripped = text.strip()
    if stripped.lower() in ("true", "false"):
        return stripped.lower() == "true"
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def parse_assignments(items: Iterable[str] | None, flag: str) -> dict[str, str]:
    """``NAME=VALUE`` strings into ``{NAME: VALUE}`` (text, stripped); a repeated name is refused."""
    out: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ArgumentError(f"{flag} {item!r} is not of the form NAME=VALUE")
        if name in out:
            raise ArgumentError(f"{flag} {name} is given twice")
        out[name] = value.strip()
    return out


def parse_model_options(items: Iterable[str] | None, build: Callable[..., Any] | None = None) -> dict[str, Any]:
    """``--option KEY=VALUE`` items as keyword arguments of ``build`` (typed by its signature when given).

    >>> def build(n: int = 2, spring: bool = True): ...
    >>> parse_model_options(["n=3", "spring=no"], build)
    {'n': 3, 'spring': False}
    """
    texts = parse_assignments(items, "--option")
    parameters: dict[str, inspect.Parameter] = {}
    if build is not None:
        try:
            parameters = dict(inspect.signature(build).parameters)
        except (TypeError, ValueError):
            parameters = {}
    out = {}
    for key, text in texts.items():
        if not key.isidentifier():
            raise ArgumentError(f"--option name {key!r} is not an identifier")
        out[key] = parse_option_value(key, text, parameters.get(key))
    return out


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


def _typed_value(variable: Any, text: str, names: dict[str, int]) -> Any:
    what = f"--set {variable.name}:"
    kind = variable.type
    if kind == "Boolean":
        return parse_bool(text, what)
    if kind in ("String",):
        return text
    if kind in ("Enumeration", "Integer") or kind.startswith(("Int", "UInt")):
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
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
    symbody.cli_args.ArgumentError: --stop-time -1 must be later than the start time 0
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


def read_input_file(path: str | Path, inputs: Sequence[str]) -> np.ndarray:
    """Read ``--input-file``: a CSV with a header, ``time`` first, then input columns (fmpy's format).

    Returns the structured array fmpy's ``simulate_fmu(input=...)`` takes.  The
    column names must be inputs of the FMU (``inputs``); times must be finite
    and non-decreasing (a repeated time is a step change); values finite.
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
        if name not in inputs:
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


def check_output_file(text: str | Path, suffixes: Sequence[str], flag: str) -> Path:
    """The file an option names for writing, checked before any work: not a folder, right suffix, folder exists.

    >>> check_output_file("results/", (".csv",), "-o")
    Traceback (most recent call last):
    ...
    symbody.cli_args.ArgumentError: -o 'results/' is a folder: give a file name ending in .csv
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
