"""Case tables of a parameter study: full factorial grids, Latin-hypercube samples, stable run ids.

A *case* is a ``{variable name: value}`` dict, the start values one run sets on
top of the study's fixed ones.  :func:`factorial` crosses value lists,
:func:`latin_hypercube` samples ranges (McKay, Beckman and Conover, "A
comparison of three methods for selecting values of input variables in the
analysis of output from a computer code", 1979; via ``scipy.stats.qmc``),
:func:`cross` combines both, and :func:`run_id` names a case by its values so
that a resumed study recognizes the runs it has already done.

Example:
    >>> factorial({"m": [1.0, 2.0], "l": parse_values("5:15:3")})  # doctest: +NORMALIZE_WHITESPACE
    [{'m': 1.0, 'l': 5.0}, {'m': 1.0, 'l': 10.0}, {'m': 1.0, 'l': 15.0},
     {'m': 2.0, 'l': 5.0}, {'m': 2.0, 'l': 10.0}, {'m': 2.0, 'l': 15.0}]
    >>> cases = latin_hypercube({"m": (1.0, 2.0)}, 4, seed=1)
    >>> sorted(int(c["m"] * 4 - 4) for c in cases)  # one sample in each quarter of the range
    [0, 1, 2, 3]
    >>> run_id({"m": 1.0, "l": 5}) == run_id({"l": 5.0, "m": 1.0})
    True
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import SymbodyError

Case = dict[str, float]


class StudyError(SymbodyError, ValueError):
    """A parameter study is ill-posed (bad value list, empty design, unknown variable, foreign results file)."""


def parse_values(text: str) -> list[float]:
    """Values of a ``--param``: ``"v1,v2,..."`` or ``"start:stop:count"`` (``count`` evenly spaced, ends included).

    Example:
        >>> parse_values("1, 2.5,4"), parse_values("0:1:5")
        ([1.0, 2.5, 4.0], [0.0, 0.25, 0.5, 0.75, 1.0])
    """
    text = text.strip()
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise StudyError(f"range {text!r} is not of the form start:stop:count")
        start, stop = _number(parts[0], text), _number(parts[1], text)
        count = _number(parts[2], text)
        if count != int(count) or count < 1:
            raise StudyError(f"range {text!r}: count {parts[2].strip()!r} is not a positive integer")
        if count == 1 and start != stop:
            raise StudyError(f"range {text!r}: one value cannot span {start:g} to {stop:g}")
        return [float(v) for v in np.linspace(start, stop, int(count))]
    values = [_number(v, text) for v in text.split(",") if v.strip()]
    if not values:
        raise StudyError(f"no values in {text!r}")
    if len(set(values)) != len(values):
        raise StudyError(f"values {text!r} repeat a value")
    return values


def parse_range(text: str) -> tuple[float, float]:
    """Range of a ``--sample``: ``"low:high"`` with ``low < high``.

    Example:
        >>> parse_range("1000:8000")
        (1000.0, 8000.0)
    """
    parts = text.split(":")
    if len(parts) != 2:
        raise StudyError(f"range {text!r} is not of the form low:high")
    low, high = _number(parts[0], text), _number(parts[1], text)
    if not low < high:
        raise StudyError(f"range {text!r}: low must be below high")
    return low, high


def _number(text: str, context: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise StudyError(f"{text.strip()!r} in {context!r} is not a number") from None
    if not math.isfinite(value):
        raise StudyError(f"{text.strip()!r} in {context!r} is not a finite number")
    return value


def factorial(values: Mapping[str, Sequence[float]]) -> list[Case]:
    """Every combination of the value lists (the last name varies fastest); ``[{}]`` without names."""
    names = list(values)
    for name in names:
        if len(values[name]) == 0:
            raise StudyError(f"parameter {name!r} has no values")
    grid = itertools.product(*(values[n] for n in names))
    return [{n: float(v) for n, v in zip(names, combo)} for combo in grid]


def latin_hypercube(ranges: Mapping[str, tuple[float, float]], n: int, seed: int | None = 0) -> list[Case]:
    """``n`` cases sampling the ranges by a Latin hypercube: each range cut in ``n`` strata, one sample in each.

    The same ``seed`` gives the same cases.
    """
    from scipy.stats import qmc

    if n < 1:
        raise StudyError(f"the number of samples must be positive, not {n}")
    names = list(ranges)
    if not names:
        return [{} for _ in range(n)]
    low = np.array([ranges[k][0] for k in names], dtype=float)
    high = np.array([ranges[k][1] for k in names], dtype=float)
    if np.any(low >= high):
        bad = [k for k in names if ranges[k][0] >= ranges[k][1]]
        raise StudyError(f"sample range of {bad[0]!r} is empty (low must be below high)")
    unit = qmc.LatinHypercube(d=len(names), rng=np.random.default_rng(seed)).random(n)
    points = qmc.scale(unit, low, high)
    return [{k: float(v) for k, v in zip(names, row)} for row in points]


def cross(a: Sequence[Case], b: Sequence[Case]) -> list[Case]:
    """Every case of ``a`` combined with every case of ``b`` (a name in both is an error)."""
    if a and b and set(a[0]) & set(b[0]):
        raise StudyError(f"{sorted(set(a[0]) & set(b[0]))[0]!r} is both swept and sampled")
    return [{**x, **y} for x in a for y in b]


def run_id(case: Mapping[str, float]) -> str:
    """A stable name of a case: a hash of its values (independent of their order and of int/float spelling)."""
    text = json.dumps(sorted((str(k), float(v).hex()) for k, v in case.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_unique(cases: Sequence[Case]) -> None:
    """Refuse a design that repeats a case (two runs would share one run id)."""
    seen: dict[str, int] = {}
    for i, case in enumerate(cases):
        rid = run_id(case)
        if rid in seen:
            raise StudyError(f"cases {seen[rid]} and {i} are the same: {case}")
        seen[rid] = i
