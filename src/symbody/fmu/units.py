"""Units of FMU variables: SI base-unit exponents for ``<UnitDefinitions>``.

A unit string is a product of factors separated by ``*`` (or ``.``) and ``/``,
each a known symbol with an optional integer exponent (``m2``, ``s-2``,
``m^2``, ``m**2``); ``1`` is allowed (``1/s``).  Division is left associative
(``m/s/s`` is ``m s^-2``).  Units that do not parse are still declared, without
base units.

Example:
    >>> base_units("N*m")
    ({'kg': 1, 'm': 2, 's': -2}, 1.0)
    >>> base_units("kg*m2")
    ({'kg': 1, 'm': 2}, 1.0)
    >>> derivative_unit("rad", 2)
    'rad/s2'
    >>> base_units("furlong") is None
    True
"""

from __future__ import annotations

import math
import re

BASE_ORDER = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")

# symbol -> (base exponents, factor to SI)
_UNITS: dict[str, tuple[dict[str, int], float]] = {
    "1": ({}, 1.0),
    "m": ({"m": 1}, 1.0),
    "mm": ({"m": 1}, 1e-3),
    "cm": ({"m": 1}, 1e-2),
    "km": ({"m": 1}, 1e3),
    "kg": ({"kg": 1}, 1.0),
    "g": ({"kg": 1}, 1e-3),
    "s": ({"s": 1}, 1.0),
    "ms": ({"s": 1}, 1e-3),
    "min": ({"s": 1}, 60.0),
    "h": ({"s": 1}, 3600.0),
    "A": ({"A": 1}, 1.0),
    "K": ({"K": 1}, 1.0),
    "mol": ({"mol": 1}, 1.0),
    "cd": ({"cd": 1}, 1.0),
    "rad": ({"rad": 1}, 1.0),
    "deg": ({"rad": 1}, math.pi / 180.0),
    "N": ({"kg": 1, "m": 1, "s": -2}, 1.0),
    "kN": ({"kg": 1, "m": 1, "s": -2}, 1e3),
    "J": ({"kg": 1, "m": 2, "s": -2}, 1.0),
    "W": ({"kg": 1, "m": 2, "s": -3}, 1.0),
    "kW": ({"kg": 1, "m": 2, "s": -3}, 1e3),
    "Pa": ({"kg": 1, "m": -1, "s": -2}, 1.0),
    "Hz": ({"s": -1}, 1.0),
    "V": ({"kg": 1, "m": 2, "s": -3, "A": -1}, 1.0),
}

_FACTOR = re.compile(r"^([A-Za-z]+|1)(?:\^|\*\*)?(-?\d+)?$")


def base_units(unit: str) -> tuple[dict[str, int], float] | None:
    """SI base-unit exponents and factor of a unit string, or ``None`` if it does not parse."""
    text = unit.strip().replace(" ", "")
    if not text:
        return None
    # split into (sign, factor) keeping '**' inside factors
    tokens = re.split(r"(\*(?!\*)|/|\.)", text.replace("**", "^"))
    exps: dict[str, int] = {}
    factor = 1.0
    sign = 1
    expect_factor = True
    for tok in tokens:
        if tok in ("*", ".", "/"):
            if expect_factor:
                return None
            sign = -1 if tok == "/" else 1
            expect_factor = True
            continue
        m = _FACTOR.match(tok)
        if not m or m.group(1) not in _UNITS:
            return None
        base, f = _UNITS[m.group(1)]
        k = int(m.group(2)) if m.group(2) else 1
        for b, e in base.items():
            exps[b] = exps.get(b, 0) + sign * k * e
        factor *= f ** (sign * k)
        expect_factor = False
    if expect_factor:
        return None
    return {b: exps[b] for b in BASE_ORDER if exps.get(b)}, factor


def derivative_unit(unit: str | None, order: int) -> str | None:
    """Unit of the ``order``-th time derivative (``m`` -> ``m/s``, ``m/s2``)."""
    if unit is None or order == 0:
        return unit
    u = unit if unit not in ("1", "") else "1"
    if "/" in u or "*" in u:
        u = f"({u})" if base_units(u) is None else u
    return f"{u}/s" if order == 1 else f"{u}/s{order}"
