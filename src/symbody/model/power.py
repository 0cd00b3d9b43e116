"""What a load needs to add its virtual power: the interface of the generalized-force accumulator.

Loads (:mod:`symbody.model.loads`) contribute to ``delta`` through
:meth:`~symbody.model.loads.Load.apply`; the derivation layer
(:class:`symbody.derive.virtual_power.Assembler`) implements this interface, so the
model states what it uses without importing the layer that derives it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..symbolic.expr import Expr
    from .bodies import Solid
    from .geometry import Point
    from .kinematics import Kinematics
    from .system import System
    from .vector import Vector


class VirtualPower(Protocol):
    """Partial velocities of a system and the accumulator of its generalized forces."""

    system: System
    kin: Kinematics

    def partials(self, v: Vector) -> dict[int, Vector]:
        """``{i: dv/d(dq_i)}`` for the velocities ``v`` depends on."""
        ...

    def scalar_partials(self, e: Expr) -> dict[int, Expr]:
        """``{i: de/d(dq_i)}`` for the velocities ``e`` depends on."""
        ...

    def point_velocity(self, point: Point, solid: Solid | None = None) -> Vector:
        """Velocity of ``point``, or of the material point of ``solid`` that coincides with it."""
        ...

    def add_delta(self, i: int, key: Expr, coef: Expr = ...) -> None:
        """Add ``coef * key`` to ``delta[i]``."""
        ...


__all__ = ["VirtualPower"]
