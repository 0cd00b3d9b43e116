"""Geometry of a model: points (a tree rooted at the origin), frames (a point and a base), and finding
and creating the bases, points and frames of a system.

Every factory accepts an object or its name; the ``resolve_*`` functions turn
either into the system's object, or raise a :class:`symbody.errors.ModelError`
naming the role it plays (``"point1 of joint 'J'"``).

Example:
    >>> import symbody as sb
    >>> s = sb.System("g")
    >>> th = s.coordinate("th")
    >>> B = create_base(s, "B", "xyz", sb.Rz(th))
    >>> P = create_point(s, "P", "O", (1, 0, 0), "B")
    >>> resolve_point(s, "P", "hinge") is P, resolve_base(s, None) is s.ground_base
    (True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from .base import AxisRotation, Base, EulerAngles, Rotation
from .expressions import GEOMETRY, coordinate_mask, default_value, require, to_expr
from .kinematics import tree_lca
from .registry import Facet, atomic
from .vector import Vector

if TYPE_CHECKING:
    from .kinematics import Kinematics
    from .system import System


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


def resolve_base(system: System, b: Base | str | None, what: str = "base") -> Base:
    """The base ``b`` (a Base or a base name; ``None`` is the ground base) of ``system``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rb")
        >>> try:
        ...     resolve_base(s, "B1", "base1 of joint 'J'")
        ... except sb.ModelError as e:
        ...     print(e)
        base1 of joint 'J' 'B1' does not exist in system 'rb'
    """
    if b is None:
        return system.ground_base
    if isinstance(b, Base):
        if b.system is not system:
            raise ModelError(f"{what} {b.name!r} belongs to another system")
        return b
    if isinstance(b, str):
        base = system.bases.get(b)
        if base is None:
            raise ModelError(f"{what} {b!r} does not exist in system {system.name!r}")
        return base
    raise ModelError(f"{what}: expected a Base or a base name, got {b!r}")


def resolve_point(system: System, p: Point | str, what: str = "point") -> Point:
    """The point ``p`` (a Point or a point name) of ``system``.

    Example:
        >>> import symbody as sb
        >>> s, other = sb.System("a"), sb.System("b")
        >>> try:
        ...     resolve_point(s, other.origin, "point of load 'F'")
        ... except sb.ModelError as e:
        ...     print(e)
        point of load 'F' 'O' belongs to another system
    """
    if isinstance(p, Point):
        if p.system is not system:
            raise ModelError(f"{what} {p.name!r} belongs to another system")
        return p
    if isinstance(p, str):
        point = system.points.get(p)
        if point is None:
            raise ModelError(f"{what} {p!r} does not exist in system {system.name!r}")
        return point
    raise ModelError(f"{what}: expected a Point or a point name, got {p!r}")


def resolve_vector(system: System, v: Any, base: Base | str | None, what: str) -> Vector:
    """A Vector of ``system``, or the Vector of 3 components ``v`` in ``base`` (default: ground base).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("v")
        >>> resolve_vector(s, (1, 2, 3), None, "offset").components(s.ground_base)
        (1, 2, 3)
    """
    if isinstance(v, Vector):
        if v._kin is not None and v._kin is not system.kinematics:
            raise ModelError(f"{what}: the vector belongs to another system")
        return v
    try:
        comps = list(v)
    except TypeError:
        raise ModelError(f"{what}: expected a Vector or 3 components, got {v!r}") from None
    if len(comps) != 3:
        raise ModelError(f"{what}: expected 3 components, got {len(comps)}")
    b = resolve_base(system, base, f"{what} base")
    return Vector(b, *[to_expr(system, c, what) for c in comps])


def resolve_frame(system: System, frame: Frame | Point | str, base: Base | str | None, what: str) -> tuple[Point, Base]:
    """The point and base of a frame (object or name), or of a point and a base.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rf")
        >>> resolve_frame(s, "abs", None, "solid 'S'") == (s.origin, s.ground_base)
        True
    """
    if isinstance(frame, Frame):
        if frame.system is not system:
            raise ModelError(f"{what}: frame {frame.name!r} belongs to another system")
        return frame.point, frame.base
    if isinstance(frame, str) and frame in system.frames:
        f = system.frames[frame]
        return f.point, f.base
    return resolve_point(system, frame, what), resolve_base(system, base, f"base of {what}")


def create_base(
    system: System,
    name: str,
    parent: Base | str,
    rotation: Rotation | EulerAngles | str | None = None,
    angle: Any = None,
) -> Base:
    """Create a base from its parent and a rotation.

    The body of :meth:`symbody.System.base` (documented there, with an example).
    """
    p = resolve_base(system, parent, f"parent of base {name!r}")
    if isinstance(rotation, (str, int)) and angle is not None:
        rotation = AxisRotation(rotation, angle)
    if isinstance(rotation, EulerAngles):
        return _euler_bases(system, name, p, rotation)
    if not isinstance(rotation, Rotation):
        raise ModelError(f"base {name!r}: expected a rotation (e.g. sb.Rz(angle)), got {rotation!r}")
    system.registry.claim(name, "base")
    try:
        rotation.bind(system)
        R = rotation.matrix()
        require(system, "its rotation", R, GEOMETRY)
    except ModelError as e:
        raise ModelError(f"base {name!r}: {e}") from None
    b = Base(system, name, p, rotation)
    system.registry.on_rollback(lambda: p.children.remove(b))
    b._R = R
    extra = rotation.extra_constraints(b)
    qmask = coordinate_mask(system)
    for cname, expr in extra:
        if not (expr.mask & qmask):  # e.g. Euler parameters given as numbers
            value = default_value(system, expr)
            if abs(value) > 1e-9:
                raise ModelError(f"base {name!r}: condition {cname!r} of its rotation fails ({value:g} != 0)")
    system.bases[name] = b
    for cname, expr in extra:
        if expr.mask & qmask:
            system.constraint(cname, expr)
    return b


def _euler_bases(system: System, name: str, parent: Base, rotation: EulerAngles) -> Base:
    """The intermediate bases ``<name>_1``, ``<name>_2``, ... of a sequence of rotations, and the last one."""
    n = len(rotation.sequence)
    current = parent
    for k, (ax, ang) in enumerate(zip(rotation.sequence, rotation.angles)):
        bname = name if k == n - 1 else f"{name}_{k + 1}"
        current = create_base(system, bname, current, AxisRotation(ax, ang))
    return current


def create_point(system: System, name: str, parent: Point | str, vector: Any, base: Base | str | None = None) -> Point:
    """Create a point from its parent point and the vector joining them.

    The body of :meth:`symbody.System.point` (documented there, with an example).
    """
    p = resolve_point(system, parent, f"parent of point {name!r}")
    v = resolve_vector(system, vector, base, f"point {name!r}")
    require(system, f"the position of point {name!r}", v, GEOMETRY)
    system.registry.claim(name, "point")
    pt = Point(system, name, p, v)
    system.points[name] = pt
    return pt


def create_frame(system: System, name: str, point: Point | str, base: Base | str) -> Frame:
    """Create a frame (reference): a point and a base.

    The body of :meth:`symbody.System.frame` (documented there, with an example).
    """
    pt = resolve_point(system, point, f"point of frame {name!r}")
    b = resolve_base(system, base, f"base of frame {name!r}")
    system.registry.claim(name, "frame")
    f = Frame(system, name, pt, b)
    system.frames[name] = f
    return f


class GeometryMixin(Facet):
    """The methods of :class:`symbody.System` that create bases, points and frames."""

    @atomic
    def base(
        self, name: str, parent: Base | str, rotation: Rotation | EulerAngles | str | None = None, angle: Any = None
    ) -> Base:
        """Create a base from its parent and a rotation.

        ``rotation`` is :func:`Rx`, :func:`Ry`, :func:`Rz`, :class:`AxisAngle`,
        :class:`EulerAngles`, :class:`EulerParameters`, :class:`SmallRotation` or
        :class:`RotationMatrix`; ``s.base("B", parent, "z", theta)`` is short for
        ``s.base("B", parent, sb.Rz(theta))``.  An :class:`EulerAngles` creates the
        intermediate bases ``<name>_1``, ``<name>_2``, ... and returns the last one.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("b")
            >>> a, b = s.coordinate("a"), s.coordinate("b")
            >>> s.base("B", "xyz", sb.EulerAngles("zx", (a, b))).parent.name
            'B_1'
        """
        return create_base(self._system, name, parent, rotation, angle)

    @atomic
    def point(self, name: str, parent: Point | str, vector: Any, base: Base | str | None = None) -> Point:
        """Create a point from its parent point and the vector joining them.

        ``vector`` is a :class:`Vector` or three components in ``base`` (default: ground base).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("pt")
            >>> l = s.parameter("l", 2.0)
            >>> A = s.point("A", s.origin, (l, 0, 0))
            >>> s.point("B", A, sb.Vector(s.ground_base, 0, l, 0)).position().components(s.ground_base)
            (l, l, 0)
        """
        return create_point(self._system, name, parent, vector, base)

    @atomic
    def frame(self, name: str, point: Point | str, base: Base | str) -> Frame:
        """Create a frame (reference): a point and a base.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("f")
            >>> s.frame("F", "O", "xyz")
            Frame('F', point='O', base='xyz')
        """
        return create_frame(self._system, name, point, base)
