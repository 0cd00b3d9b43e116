"""Small ready-made models for documentation examples and quick experiments.

The examples of the project live in ``examples/`` as model files; these
functions return the smallest systems that the docstrings of the package use,
so that every example starts from the same model.

Example:
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> eq.M, eq.delta
    ([[1]], [T - 9.81*sin(theta)])
"""

from __future__ import annotations

from .model.base import Rz
from .model.system import System


def pendulum(theta0: float = 0.3) -> System:
    """A unit point mass on a unit massless rod, gravity 9.81 along -y, a motor torque input ``T``.

    Coordinate ``theta`` (rad, from the downward vertical, about z); no parameters, so
    that the FMU variables of the examples are few: ``theta``, ``dtheta``, ``ddtheta``, ``T``.
    """
    s = System("pendulum")
    th = s.coordinate("theta", theta0, unit="rad")
    B = s.base("B", s.ground_base, Rz(th))
    s.particle("bob", s.point("P", s.origin, (0, -1, 0), base=B), 1.0)
    s.gravity((0, -9.81, 0))
    s.generalized_force("motor", th, s.input("T"))
    return s
