"""Points (a tree rooted at the origin) and frames (a point and a base).

Example:
    >>> import symbody as sb
    >>> s = sb.System("p")
    >>> l = s.parameter("l", 2.0)
    >>> A = s.point("A", s.origin, sb.Vector(s.ground_base, l, 0, 0))
    >>> A.parent.name
    'O'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import Base
    from .system import System
    from .vector import Vector


class Point:
    """A point defined by a vector from its parent point (``None`` for the origin)."""

    def __init__(self, system: System, name: str, parent: Point | None, vector: Vector | None):
        self.system = system
        self.name = name
        self.parent = parent
        self.vector = vector
        self.depth = 0 if parent is None else parent.depth + 1

    def __repr__(self) -> str:
        return f"Point({self.name!r})"

    def position(self) -> Vector:
        """Position vector from the origin."""
        return self.system.kinematics.position(self)

    def velocity(self) -> Vector:
        """Velocity relative to the ground."""
        return self.system.kinematics.velocity(self)

    def acceleration(self) -> Vector:
        """Acceleration relative to the ground."""
        return self.system.kinematics.acceleration(self)


class Frame:
    """A reference frame: a point (origin) and a base (orientation)."""

    def __init__(self, system: System, name: str, point: Point, base: Base):
        self.system = system
        self.name = name
        self.point = point
        self.base = base

    def __repr__(self) -> str:
        return f"Frame({self.name!r}, point={self.point.name!r}, base={self.base.name!r})"
