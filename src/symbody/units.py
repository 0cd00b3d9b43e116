"""Unit strings: the units symbody knows, their SI base exponents, and the check of a model's units.

A unit string is a product of factors separated by ``*`` (or ``.``) and ``/``,
each a known symbol with an optional integer exponent (``m2``, ``s-2``,
``m^2``, ``m**2``); ``1`` is allowed (``1/s``).  Division is left associative
(``m/s/s`` is ``m s^-2``).  A unit that does not parse is a modelling error:
it would silently switch dimensional checking off and land in the FMU, so
:func:`check_unit` rejects it where the model declares it, with the closest
known units as suggestions.

Example:
    >>> base_units("N*m")
    ({'kg': 1, 'm': 2, 's': -2}, 1.0)
    >>> base_units("kg*m2")
    ({'kg': 1, 'm': 2}, 1.0)
    >>> base_units("furlong") is None
    True
    >>> try:
    ...     check_unit("kgg", "parameter 'm'")
    ... except ModelError as e:
    ...     print(e)
    parameter 'm': unknown unit 'kgg' ('kgg' is not a known unit; did you mean 'kg'?)
"""

from __future__ import annotations

import difflib
import math
import re

from .errors import ModelError

BASE_ORDER = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")

_N = {"kg": 1, "m": 1, "s": -2}
_J = {"kg": 1, "m": 2, "s": -2}
_W = {"kg": 1, "m": 2, "s": -3}
_PA = {"kg": 1, "m": -1, "s": -2}
_V = {"kg": 1, "m": 2, "s": -3, "A": -1}

# symbol -> (base exponents, factor to SI)
UNITS: dict[str, tuple[dict[str, int], float]] = {
    "1": ({}, 1.0),
    "m": ({"m": 1}, 1.0),
    "um": ({"m": 1}, 1e-6),
    "mm": ({"m": 1}, 1e-3),
    "cm": ({"m": 1}, 1e-2),
    "km": ({"m": 1}, 1e3),
    "kg": ({"kg": 1}, 1.0),
    "g": ({"kg": 1}, 1e-3),
    "t": ({"kg": 1}, 1e3),
    "s": ({"s": 1}, 1.0),
    "ms": ({"s": 1}, 1e-3),
    "us": ({"s": 1}, 1e-6),
    "min": ({"s": 1}, 60.0),
    "h": ({"s": 1}, 3600.0),
    "A": ({"A": 1}, 1.0),
    "mA": ({"A": 1}, 1e-3),
    "K": ({"K": 1}, 1.0),
    "mol": ({"mol": 1}, 1.0),
    "cd": ({"cd": 1}, 1.0),
    "rad": ({"rad": 1}, 1.0),
    "mrad": ({"rad": 1}, 1e-3),
    "deg": ({"rad": 1}, math.pi / 180.0),
    "rev": ({"rad": 1}, 2.0 * math.pi),
    "rpm": ({"rad": 1, "s": -1}, 2.0 * math.pi / 60.0),
    "Hz": ({"s": -1}, 1.0),
    "N": (_N, 1.0),
    "mN": (_N, 1e-3),
    "kN": (_N, 1e3),
    "MN": (_N, 1e6),
    "J": (_J, 1.0),
    "kJ": (_J, 1e3),
    "W": (_W, 1.0),
    "kW": (_W, 1e3),
    "MW": (_W, 1e6),
    "Pa": (_PA, 1.0),
    "kPa": (_PA, 1e3),
    "MPa": (_PA, 1e6),
    "GPa": (_PA, 1e9),
    "bar": (_PA, 1e5),
    "V": (_V, 1.0),
    "mV": (_V, 1e-3),
    "kV": (_V, 1e3),
    "Ohm": ({"kg": 1, "m": 2, "s": -3, "A": -2}, 1.0),
    "C": ({"s": 1, "A": 1}, 1.0),
    "T": ({"kg": 1, "s": -2, "A": -1}, 1.0),
    "Wb": ({"kg": 1, "m": 2, "s": -2, "A": -1}, 1.0),
    "H": ({"kg": 1, "m": 2, "s": -2, "A": -2}, 1.0),
}

_FACTOR = re.compile(r"^([A-Za-z]+|1)(?:(?:\^|\*\*)?(-?\d+))?$")
_SEPARATORS = ("*", ".", "/")


def _factors(unit: str) -> list[str] | None:
    """The factor tokens of a unit string with their separators, or ``None`` if malformed."""
    text = unit.strip().replace(" ", "")
    if not text:
        return None
    return [t for t in re.split(r"(\*(?!\*)|/|\.)", text.replace("**", "^")) if t]


def base_units(unit: str) -> tuple[dict[str, int], float] | None:
    """SI base-unit exponents and factor of a unit string, or ``None`` if it does not parse."""
    tokens = _factors(unit)
    if tokens is None:
        return None
    exps: dict[str, int] = {}
    factor = 1.0
    sign = 1
    expect_factor = True
    for tok in tokens:
        if tok in _SEPARATORS:
            if expect_factor:
                return None
            sign = -1 if tok == "/" else 1
            expect_factor = True
            continue
        m = _FACTOR.match(tok)
        if not m or m.group(1) not in UNITS:
            return None
        base, f = UNITS[m.group(1)]
        k = int(m.group(2)) if m.group(2) else 1
        for b, e in base.items():
            exps[b] = exps.get(b, 0) + sign * k * e
        factor *= f ** (sign * k)
        expect_factor = False
    if expect_factor:
        return None
    return {b: exps[b] for b in BASE_ORDER if exps.get(b)}, factor


def _suggest(token: str) -> list[str]:
    """Known unit symbols close to an unknown factor (``kgg`` -> ``kg``, ``Nm`` -> ``N*m``)."""
    m = re.match(r"^([A-Za-z]+)", token)
    word = m.group(1) if m else token
    known = [u for u in UNITS if u != "1"]
    same = [u for u in known if u.lower() == word.lower()]
    if same:
        return same  # a capitalization slip: Kg, KG
    out = difflib.get_close_matches(word, known, n=3, cutoff=0.6)
    if out and difflib.SequenceMatcher(None, word, out[0]).ratio() >= 0.8:
        return out  # a typo of one known symbol
    for i in range(1, len(word)):
        if word[:i] in UNITS and word[i:] in UNITS:
            return [f"{word[:i]}*{word[i:]}", *out]  # a missing separator
    return out


def unit_problem(unit: str) -> str:
    """Why ``unit`` does not parse (empty text if it does)."""
    if base_units(unit) is not None:
        return ""
    tokens = _factors(unit)
    if tokens is None:
        return "the unit is blank"
    expect_factor = True
    for tok in tokens:
        if tok in _SEPARATORS:
            if expect_factor:
                return f"'{tok}' without a unit before it"
            expect_factor = True
            continue
        m = _FACTOR.match(tok)
        if not m or m.group(1) not in UNITS:
            hint = _suggest(tok)
            did = f"; did you mean {' or '.join(repr(h) for h in hint)}?" if hint else ""
            return f"{tok!r} is not a known unit{did}"
        expect_factor = False
    return "it ends with a separator"


def check_unit(unit: object, what: str) -> str | None:
    """``unit`` (without spaces) if it is ``None``, empty or a known unit; else :class:`ModelError` naming ``what``.

    Known symbols: the SI base units and ``rad``, common prefixed and derived
    units (``mm``, ``kN``, ``N``, ``J``, ``W``, ``Pa``, ``bar``, ``V``...), ``deg``, ``rev``,
    ``rpm``, ``min``, ``h`` and ``1``.
    """
    if unit is None:
        return None
    if not isinstance(unit, str):
        raise ModelError(f"{what}: the unit must be a string such as 'kg*m2', not {unit!r}")
    if unit == "":
        return unit
    problem = unit_problem(unit)
    if problem:
        example = "" if "did you mean" in problem else "; write e.g. 'kg*m2/s2', 'N*m/rad' or '1/s'"
        raise ModelError(f"{what}: unknown unit {unit!r} ({problem}{example})")
    return unit.replace(" ", "")  # spaces carry no meaning: ' N * m ' is 'N*m'
