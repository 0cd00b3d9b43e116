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

from .kinematics import tree_lca

if TYPE_CHECKING:
    from .base import Base
    from .kinematics import Kinematics
    from .system import System
    from .vector import Vector


class Point:
    """A point defined by a vector from its parent point (``None`` for the origin).

    Created with :meth:`symbody.System.point`.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("pt")
        >>> x = s.coordinate("x")
        >>> P = s.point("P", s.origin, (x, 0, 0))
        >>> P.velocity().components(s.ground_base), P.depth
        ((dx, 0, 0), 1)
    """

    def __init__(self, system: System, name: str, parent: Point | None, vector: Vector | None):
        self.system = system
        self.name = name
        self.parent = parent
        self.vector = vector
        self.depth: int = 0 if parent is None else parent.depth + 1

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
    """A reference frame: a point (origin) and a base (orientation).

    Created with :meth:`symbody.System.frame`; ``s.ground`` is the ground frame.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("fr")
        >>> s.ground
        Frame('abs', point='O', base='xyz')
    """

    def __init__(self, system: System, name: str, point: Point, base: Base):
        self.system = system
        self.name = name
        self.point = point
        self.base = base

    def __repr__(self) -> str:
        return f"Frame({self.name!r}, point={self.point.name!r}, base={self.base.name!r})"


def common_ancestor(a: Point, b: Point) -> Point:
    """Deepest common ancestor of two points in the point tree (the origin at worst).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ca")
        >>> A = s.point("A", s.origin, (1, 0, 0))
        >>> B, C = s.point("B", A, (0, 1, 0)), s.point("C", A, (0, 0, 1))
        >>> common_ancestor(B, C).name, common_ancestor(B, s.origin).name
        ('A', 'O')
    """
    return tree_lca(a, b)


def _chain_vector(kin: Kinematics, top: Point, p: Point) -> Vector:
    """Sum of the defining vectors from ``top`` down to ``p`` (``p`` descends from ``top``)."""
    chain = []
    while p is not top:
        chain.append(p)
        p = p.parent  # type: ignore[assignment]
    parts: dict = {}
    for x in reversed(chain):
        for base, comps in x.vector.parts.items():  # type: ignore[union-attr]
            kin.add_part(parts, base, comps)
    return kin.vector(parts)


def relative_position(kin: Kinematics, a: Point, b: Point) -> Vector:
    """Vector from point ``a`` to point ``b``, summed from their deepest common ancestor.

    The part of the two chains above the common ancestor never enters, so a
    point defined from ``a`` by a constant vector is exactly that vector away
    (no ``(q + l) - q`` left for a simplifier to cancel).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rp")
        >>> x = s.coordinate("x"); l = s.parameter("l", 1.0)
        >>> A = s.point("A", s.origin, (x, 0, 0)); B = s.point("B", A, (l, 0, 0))
        >>> relative_position(s.kinematics, A, B).components(s.ground_base)
        (l, 0, 0)
    """
    c = common_ancestor(a, b)
    if c.parent is None:
        return kin.position(b) - kin.position(a)
    return _chain_vector(kin, c, b) - _chain_vector(kin, c, a)
