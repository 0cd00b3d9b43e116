"""Kinematic queries on a model: positions, velocities, accelerations and rotations.

Relative quantities follow the usual rules of relative motion: the velocity of
a point seen from a moving frame removes the frame's transport velocity, the
acceleration also the transport and Coriolis terms.

Example:
    >>> import symbody as sb
    >>> s = sb.System("m")
    >>> th = s.coordinate("th"); l = s.parameter("l", 1.0)
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> P = s.point("P", s.origin, sb.Vector(B, l, 0, 0))
    >>> F = s.frame("F", s.origin, B)
    >>> velocity(s, P, F).is_zero, angular_velocity(s, B).components(B)
    (True, (0, 0, dth))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ModelError
from .base import Base, Matrix3
from .bodies import Solid, resolve_solid
from .geometry import Frame, Point, relative_position, resolve_base, resolve_point
from .registry import Facet
from .vector import Vector

if TYPE_CHECKING:
    from .system import System


def position(system: System, a: Point | str, b: Point | str | None = None) -> Vector:
    """Position vector of ``a`` from the origin, or from ``a`` to ``b``.

    The body of :meth:`symbody.System.position` (documented there, with an example).
    """
    pa = resolve_point(system, a)
    if b is None:
        return system.kinematics.position(pa)
    return relative_position(system.kinematics, pa, resolve_point(system, b))


def angular_velocity(system: System, base: Base | str, relative_to: Base | str | None = None) -> Vector:
    """Angular velocity of ``base`` relative to ``relative_to`` (default: ground).

    The body of :meth:`symbody.System.angular_velocity` (documented there, with an example).
    """
    w = system.kinematics.omega(resolve_base(system, base))
    if relative_to is not None:
        w = w - system.kinematics.omega(resolve_base(system, relative_to))
    return w


def angular_acceleration(system: System, base: Base | str, relative_to: Base | str | None = None) -> Vector:
    """Angular acceleration of ``base`` relative to the base ``relative_to`` (default: ground).

    The body of :meth:`symbody.System.angular_acceleration` (documented there, with an example).
    """
    b = resolve_base(system, base)
    if relative_to is None:
        return system.kinematics.alpha(b)
    r = resolve_base(system, relative_to)
    wrel = angular_velocity(system, b, r)
    return wrel.dt() - system.kinematics.omega(r).cross(wrel)


def _frame(system: System, frame: Frame | str) -> Frame:
    if isinstance(frame, Frame):
        return frame
    f = system.frames.get(frame)
    if f is None:
        raise ModelError(f"frame {frame!r} does not exist in system {system.name!r}")
    return f


def velocity(
    system: System, point: Point | str, frame: Frame | str | None = None, solid: Solid | str | None = None
) -> Vector:
    """Velocity of a point relative to a frame (default: ground).

    The body of :meth:`symbody.System.velocity` (documented there, with an example).
    """
    p = resolve_point(system, point)
    kin = system.kinematics
    if solid is None:
        v = kin.velocity(p)
    else:
        s = resolve_solid(system, solid)
        if s is None:  # the material point of the ground is at rest
            v = Vector.zero(kin)
        else:
            v = kin.velocity(s.point) + kin.omega(s.base).cross(relative_position(kin, s.point, p))
    if frame is None:
        return v
    f = _frame(system, frame)
    r = relative_position(kin, f.point, p)
    return v - kin.velocity(f.point) - kin.omega(f.base).cross(r)


def acceleration(system: System, point: Point | str, frame: Frame | str | None = None) -> Vector:
    """Acceleration of a point relative to a frame (default: ground), accelerations included.

    The body of :meth:`symbody.System.acceleration` (documented there, with an example).
    """
    p = resolve_point(system, point)
    kin = system.kinematics
    a = kin.acceleration(p)
    if frame is None:
        return a
    f = _frame(system, frame)
    r = relative_position(kin, f.point, p)
    w = kin.omega(f.base)
    vrel = velocity(system, p, f)
    return a - kin.acceleration(f.point) - kin.alpha(f.base).cross(r) - w.cross(w.cross(r)) - (w.cross(vrel) * 2)


def rotation_matrix(system: System, a: Base | str, b: Base | str) -> Matrix3:
    """Matrix mapping components in base ``a`` to components in base ``b``.

    The body of :meth:`symbody.System.rotation_matrix` (documented there, with an example).
    """
    return system.kinematics.rotation(resolve_base(system, a), resolve_base(system, b))


class MotionMixin(Facet):
    """The methods of :class:`symbody.System` that query the kinematics:
    positions, velocities, accelerations, rotations."""

    def position(self, a: Point | str, b: Point | str | None = None) -> Vector:
        """Position vector of ``a`` from the origin, or from ``a`` to ``b``.

        The vector from ``a`` to ``b`` is summed from their deepest common
        ancestor in the point tree, so the shared part of their chains cancels
        exactly (a point defined from ``a`` by a constant vector gives that vector).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("p")
            >>> x = s.coordinate("x"); l = s.parameter("l", 1.0)
            >>> A = s.point("A", s.origin, (x, 0, 0)); B = s.point("B", A, (l, 0, 0))
            >>> s.position(A, B).components(s.ground_base)
            (l, 0, 0)
        """
        return position(self._system, a, b)

    def angular_velocity(self, base: Base | str, relative_to: Base | str | None = None) -> Vector:
        """Angular velocity of ``base`` relative to ``relative_to`` (default: ground).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("av")
            >>> a, b = s.coordinate("a"), s.coordinate("b")
            >>> A = s.base("A", s.ground_base, sb.Rz(a)); B = s.base("B", A, sb.Rz(b))
            >>> s.angular_velocity(B, A).components(B)
            (0, 0, db)
        """
        return angular_velocity(self._system, base, relative_to)

    def angular_acceleration(self, base: Base | str, relative_to: Base | str | None = None) -> Vector:
        """Angular acceleration of ``base`` relative to the base ``relative_to`` (default: ground).

        Relative to a moving base this is the derivative, seen from that base, of the relative angular velocity.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("aa")
            >>> th = s.coordinate("th")
            >>> B = s.base("B", s.ground_base, sb.Rz(th))
            >>> s.angular_acceleration(B).components(B)
            (0, 0, ddth)
        """
        return angular_acceleration(self._system, base, relative_to)

    def velocity(
        self, point: Point | str, frame: Frame | str | None = None, solid: Solid | str | None = None
    ) -> Vector:
        """Velocity of a point relative to a frame (default: ground).

        With ``solid``, the velocity of the material point of that solid that coincides with ``point``.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("v")
            >>> x, th = s.coordinate("x"), s.coordinate("th")
            >>> B = s.base("B", s.ground_base, sb.Rz(th))
            >>> body = s.solid("body", s.origin, B, mass=1)
            >>> P = s.point("P", s.origin, (x, 0, 0))
            >>> s.velocity(P).components(s.ground_base), s.velocity(P, solid=body).components(s.ground_base)
            ((dx, 0, 0), (0, x*dth, 0))
        """
        return velocity(self._system, point, frame, solid)

    def acceleration(self, point: Point | str, frame: Frame | str | None = None) -> Vector:
        """Acceleration of a point relative to a frame (default: ground), accelerations included.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("ac")
            >>> x = s.coordinate("x")
            >>> P = s.point("P", s.origin, (x, 0, 0))
            >>> s.acceleration(P).components(s.ground_base)
            (ddx, 0, 0)
        """
        return acceleration(self._system, point, frame)

    def rotation_matrix(self, a: Base | str, b: Base | str) -> Matrix3:
        """Matrix mapping components in base ``a`` to components in base ``b``.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("rm")
            >>> th = s.coordinate("th")
            >>> B = s.base("B", s.ground_base, sb.Rz(th))
            >>> s.rotation_matrix(B, s.ground_base)[0]
            (cos(th), -sin(th), 0)
        """
        return rotation_matrix(self._system, a, b)
