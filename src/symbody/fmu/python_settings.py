"""Settings of symbody's Python (pythonfmu) FMUs: their order, the rules a value must follow.

The runtime contract's settings (``symbody.fmu.contract.SETTINGS``) as the Python runtime needs them.
Like ``python_runtime.py`` this file is copied into the FMU (as ``symbody_python_settings.py``) and
imports only the standard library; tests/fmu/test_contract.py keeps it equal to the contract table.

Example:
    >>> SETTING_RULES[STEP]
    ('solver.step', 'positive')
"""

from __future__ import annotations

import math


class HostError(Exception):
    """A call the FMU must refuse (a bad value, a step from the wrong time or past the stop time)."""


#: The settings of the runtime contract (``symbody.fmu.contract.SETTINGS``): (name, rule) in SbSetting
#: order.  This file runs inside the FMU and cannot import symbody: tests/fmu/test_contract.py keeps the two equal.
SETTING_RULES = (
    ("solver.method", "method"),
    ("solver.step", "positive"),
    ("solver.rtol", "positive"),
    ("solver.atol", "positive"),
    ("solver.max_step", "nonnegative"),
    ("solver.projection", "boolean"),
    ("solver.projection_tol", "positive"),
    ("baumgarte.alpha", "nonnegative"),
    ("baumgarte.beta", "nonnegative"),
    ("solver.ignore_external_tolerance", "boolean"),
)
METHOD, STEP, RTOL, ATOL, MAX_STEP, PROJECTION, PROJ_TOL, ALPHA, BETA, IGNORE_TOL = range(len(SETTING_RULES))
RK4, DOPRI5, ROSENBROCK23 = 1, 2, 3
#: what each rule accepts, for the message that refuses a value (``symbody.fmu.contract.RULES``)
RULES = {
    "method": "1 (rk4), 2 (dopri5) or 3 (rosenbrock23)",
    "positive": "positive",
    "nonnegative": "zero or positive",
    "boolean": "true or false",
}


def value_problem(kind: str, index: int, value: float, lo: float | None, hi: float | None) -> str | None:
    """Why ``Set`` must refuse ``value`` for a variable, or None (the C runtime's rules).

    Example:
        >>> value_problem("p", 0, float("nan"), 0.0, None)
        'is not finite'
        >>> value_problem("p", 0, -1.0, 0.0, None)
        'is outside its range [0, inf]'
        >>> value_problem("setting", METHOD, 4.0, None, None)
        'is invalid: it must be 1 (rk4), 2 (dopri5) or 3 (rosenbrock23)'
    """
    if not math.isfinite(value):
        return "is not finite"
    if kind == "setting":
        rule = SETTING_RULES[index][1]
        accepted = {
            "method": value in (RK4, DOPRI5, ROSENBROCK23),
            "positive": value > 0.0,
            "nonnegative": value >= 0.0,
            "boolean": value in (0.0, 1.0),
        }[rule]
        return None if accepted else f"is invalid: it must be {RULES[rule]}"
    low = -math.inf if lo is None else float(lo)
    high = math.inf if hi is None else float(hi)
    if not low <= value <= high:
        return f"is outside its range [{low:g}, {high:g}]"
    return None
