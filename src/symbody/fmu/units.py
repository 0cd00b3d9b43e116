"""Units of FMU variables: SI base-unit exponents for ``<UnitDefinitions>``.

The unit strings themselves are those of :mod:`symbody.units` (checked when
the model declares them); this module adds what the FMU needs: the unit of a
time derivative.

Example:
    >>> base_units("N*m")
    ({'kg': 1, 'm': 2, 's': -2}, 1.0)
    >>> derivative_unit("rad", 2)
    'rad/s2'
    >>> derivative_unit("m/s", 1)
    'm/s/s'
"""

from __future__ import annotations

from ..units import BASE_ORDER, base_units

__all__ = ["BASE_ORDER", "base_units", "derivative_unit"]


def derivative_unit(unit: str | None, order: int) -> str | None:
    """Unit of the ``order``-th time derivative (``m`` -> ``m/s``, ``m/s2``)."""
    if unit is None or order == 0:
        return unit
    u = unit if unit not in ("1", "") else "1"
    if "/" in u or "*" in u:
        u = f"({u})" if base_units(u) is None else u
    return f"{u}/s" if order == 1 else f"{u}/s{order}"
