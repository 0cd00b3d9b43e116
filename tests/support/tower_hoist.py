"""Closed forms of the tower crane's reeved hook on a hoist winch (``examples/tower_crane.py``, ``falls=2|4``),
shared by the Python and FMU tests: the rope's unstretched length at the static start, and the line pull and
drive torque of steady hoisting at constant drum acceleration."""

from __future__ import annotations

G0 = 9.80665
M = 2000.0 + 300.0  # kg, payload and hook block
EA, R, J, LEAD, SLING, L0_HOOK = 1.2e7, 0.3, 150.0, 62.0, 2.0, 20.0
ALPHA = 0.5  # rad/s2


def unstretched(falls: int, l0: float = L0_HOOK) -> float:
    """The rope's unstretched length: the static balance of the hook load at the start."""
    return (LEAD + falls * (l0 - SLING)) / (1 + M * G0 / falls / EA)


def hoisting_pull(falls: int) -> float:
    """The line pull at constant drum acceleration ``ALPHA``."""
    return M * (G0 + ALPHA * R / falls) / (falls - M * ALPHA * R / (falls * EA))


def hoisting_torque(falls: int) -> float:
    """``tau_hoist`` beyond the holding torque that accelerates the drum at ``ALPHA`` in steady hoisting."""
    return J * ALPHA + (hoisting_pull(falls) - M * G0 / falls) * R
