"""Joints: named groups of holonomic constraint rows with the reactions they transmit.

A joint is one small class per kind behind one interface: :meth:`Joint.equations`
resolves the joint's points and bases in a system and returns its rows and
reactions; :meth:`Joint.add_to` drops the rows that vanish identically (planar
models), adds the others as holonomic constraints and records the joint.  The
``System.*_joint`` methods build one of these and add it.

A reaction component (``"Fx"``, ``"Mz"``, ``"tension"``) is recorded as
``(row name, factor, base name)``: the component equals ``factor * lambda_row``;
the factor is a number or an expression of parameters (``2 * length`` for a
distance joint); the base is the one its components refer to (``None`` for a
scalar).

Example:
    >>> import symbody as sb
    >>> s = sb.System("j")
    >>> th = s.coordinate("th"); x = s.coordinate("x"); y = s.coordinate("y")
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> C = s.point("C", s.origin, (x, y, 0))
    >>> pin = RevoluteJoint("pin", s.origin, "xyz", C, B, axis="z").add_to(s)
    >>> pin.rows, pin.dropped
    (['pin_x', 'pin_y'], ['pin_z', 'pin_ax', 'pin_ay'])
    >>> pin.reactions
    {'Fx': ('pin_x', -1.0, 'xyz'), 'Fy': ('pin_y', -1.0, 'xyz')}
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.expr import Expr, as_expr, mul, sub
from .base import Base, axis_index
from .constraints import add_rows, constraint_rows
from .deprecation import formerly_positional, warn_deprecated
from .expressions import to_expr
from .geometry import Point, relative_position, resolve_base, resolve_point
from .registry import Facet, atomic

if TYPE_CHECKING:
    from .system import System

Reaction = tuple[str, float | Expr, str | None]
Rows = list[tuple[str, Expr]]

AXES = "xyz"


class Joint(ABC):
    """A joint: its constraint rows (``rows``, those kept), ``dropped`` rows and ``reactions``.

    Subclasses give :meth:`equations`; the base class resolves points and bases
    (:meth:`point`, :meth:`base`) and adds the joint to a system (:meth:`add_to`).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("g")
        >>> x = s.coordinate("x"); y = s.coordinate("y")
        >>> j = GenericJoint("rail", [y - x], reactions=["N"]).add_to(s)
        >>> j.kind, j.rows, j.reactions
        ('generic', ['rail'], {'N': ('rail', 1.0, None)})
    """

    kind = "joint"

    def __init__(self, name: str) -> None:
        self.name = name
        self.rows: list[str] = []
        self.reactions: dict[str, Reaction] = {}
        self.dropped: list[str] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, rows={self.rows!r})"

    @abstractmethod
    def equations(self, system: System) -> tuple[Rows, dict[str, Reaction]]:
        """The joint's named constraint rows and its reactions, in ``system``."""

    def point(self, system: System, p: Point | str, role: str) -> Point:
        """The point playing ``role`` (``"point1"``, ...) in this joint."""
        return resolve_point(system, p, f"{role} of joint {self.name!r}")

    def base(self, system: System, b: Base | str | None, role: str) -> Base:
        """The base playing ``role`` (``"base1"``, ...) in this joint (``None``: the ground base)."""
        return resolve_base(system, b, f"{role} of joint {self.name!r}")

    def add_to(self, system: System) -> Joint:
        """Add the rows that do not vanish identically to ``system`` and record the joint there."""
        rows, reactions = self.equations(system)
        kept = [(r, e) for r, e in rows if not e.is_zero]
        if not kept:
            raise ModelError(f"joint {self.name!r}: all its constraint equations vanish identically")
        add_rows(system, self.name, kept, "holonomic", group=self.name)
        self.dropped = [r for r, e in rows if e.is_zero]
        self.rows = [r for r, _ in kept]
        self.reactions = {k: v for k, v in reactions.items() if v[0] in self.rows}
        system.joints[self.name] = self
        return self


class _PointsJoint(Joint):
    """A joint between two points, with the position rows of ``point2`` from ``point1`` in a base."""

    def __init__(self, name: str, point1: Point | str, point2: Point | str) -> None:
        super().__init__(name)
        self._points = (point1, point2)

    def points(self, system: System) -> tuple[Point, Point]:
        return self.point(system, self._points[0], "point1"), self.point(system, self._points[1], "point2")

    def position_rows(
        self, system: System, p1: Point, p2: Point, base: Base, axes: Sequence[int] = (0, 1, 2)
    ) -> tuple[Rows, dict[str, Reaction]]:
        """Rows ``<name>_<axis>`` of the position of ``p2`` from ``p1`` in ``base`` and their reactions ``F<axis>``.

        The reaction is the force on the body of ``point2`` from the body of ``point1``: ``F = -lambda``.
        """
        r = relative_position(system.kinematics, p1, p2).components(base)
        rows = [(f"{self.name}_{AXES[i]}", r[i]) for i in axes]
        reactions: dict[str, Reaction] = {f"F{AXES[i]}": (f"{self.name}_{AXES[i]}", -1.0, base.name) for i in axes}
        return rows, reactions


class SphericalJoint(_PointsJoint):
    """Coincident points (3 equations ``r_P2 - r_P1 = 0`` in ``base``); reactions Fx, Fy, Fz.

    The reaction is the force on the body of ``point2`` from the body of ``point1``:
    ``F_k = -lambda_k``.  Rows that vanish identically (planar models) are dropped.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("sj")
        >>> x, y = s.coordinate("x"), s.coordinate("y")
        >>> P = s.point("P", s.origin, (x, y, 0))
        >>> j = SphericalJoint("ball", s.origin, P).add_to(s)
        >>> j.rows, j.dropped, j.reactions["Fx"]
        (['ball_x', 'ball_y'], ['ball_z'], ('ball_x', -1.0, 'xyz'))
    """

    kind = "spherical"

    def __init__(self, name: str, point1: Point | str, point2: Point | str, base: Base | str | None = None) -> None:
        super().__init__(name, point1, point2)
        self._base = base

    def equations(self, system: System) -> tuple[Rows, dict[str, Reaction]]:
        p1, p2 = self.points(system)
        return self.position_rows(system, p1, p2, self.base(system, self._base, "base"))


class _FramesJoint(_PointsJoint):
    """A joint between two frames (point and base of each body) about one ``axis``."""

    def __init__(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, axis: Any
    ) -> None:
        super().__init__(name, point1, point2)
        self._bases = (base1, base2)
        self.axis = axis

    def bases(self, system: System) -> tuple[Base, Base]:
        return self.base(system, self._bases[0], "base1"), self.base(system, self._bases[1], "base2")

    def alignment_rows(self, b1: Base, b2: Base, ax: int) -> tuple[Rows, dict[str, Reaction]]:
        """Rows ``<name>_a<i>``: the ``axis`` of base2 normal to the other axes of base1; moments ``M<i>``."""
        u2 = b2.unit(ax)
        rows: Rows = []
        reactions: dict[str, Reaction] = {}
        for i in range(3):
            if i != ax:
                rname = f"{self.name}_a{AXES[i]}"
                rows.append((rname, u2.dot(b1.unit(i))))
                reactions[f"M{AXES[i]}"] = (rname, 1.0, b1.name)
        return rows, reactions


class RevoluteJoint(_FramesJoint):
    """Coincident points; the ``axis`` of ``base2`` kept along the same axis of ``base1``.

    Reactions: Fx, Fy, Fz (in ``base1``) and the two moments normal to the axis.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rj")
        >>> x, y, z = s.coordinate("x"), s.coordinate("y"), s.coordinate("z")
        >>> a, b = s.coordinate("a"), s.coordinate("b")
        >>> B = s.base("B", s.ground_base, sb.EulerAngles("xz", (a, b)))
        >>> P = s.point("P", s.origin, (x, y, z))
        >>> j = RevoluteJoint("hinge", s.origin, "xyz", P, B, axis="z").add_to(s)
        >>> j.rows, j.dropped  # z of B is normal to x of the ground whatever a and b
        (['hinge_x', 'hinge_y', 'hinge_z', 'hinge_ay'], ['hinge_ax'])
        >>> j.reactions["My"]
        ('hinge_ay', 1.0, 'xyz')
    """

    kind = "revolute"

    def equations(self, system: System) -> tuple[Rows, dict[str, Reaction]]:
        p1, p2 = self.points(system)
        b1, b2 = self.bases(system)
        ax = axis_index(self.axis)
        rows, reactions = self.position_rows(system, p1, p2, b1)
        turn_rows, moments = self.alignment_rows(b1, b2, ax)
        return rows + turn_rows, reactions | moments


class PrismaticJoint(_FramesJoint):
    """``point2`` slides along ``axis`` of ``base1``; no relative rotation.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("pj")
        >>> x, y, th = s.coordinate("x"), s.coordinate("y"), s.coordinate("th")
        >>> B = s.base("B", s.ground_base, sb.Rz(th))
        >>> P = s.point("P", s.origin, (x, y, 0))
        >>> PrismaticJoint("rail", s.origin, "xyz", P, B, axis="x").add_to(s).rows
        ['rail_y', 'rail_rxy']
    """

    kind = "prismatic"

    def equations(self, system: System) -> tuple[Rows, dict[str, Reaction]]:
        p1, p2 = self.points(system)
        b1, b2 = self.bases(system)
        ax = axis_index(self.axis)
        rows, reactions = self.position_rows(system, p1, p2, b1, [i for i in range(3) if i != ax])
        for i, k in ((0, 1), (0, 2), (1, 2)):
            rname = f"{self.name}_r{AXES[i]}{AXES[k]}"
            rows.append((rname, b2.unit(i).dot(b1.unit(k))))
            reactions[f"M{AXES[3 - i - k]}"] = (rname, 1.0, b1.name)
        return rows, reactions


class CylindricalJoint(_FramesJoint):
    """``point2`` on the ``axis`` line of ``base1``; the axes stay parallel.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("cj")
        >>> x, y, z = s.coordinate("x"), s.coordinate("y"), s.coordinate("z")
        >>> a, b = s.coordinate("a"), s.coordinate("b")
        >>> B = s.base("B", s.ground_base, sb.EulerAngles("xy", (a, b)))
        >>> P = s.point("P", s.origin, (x, y, z))
        >>> CylindricalJoint("sleeve", s.origin, "xyz", P, B, axis="z").add_to(s).rows
        ['sleeve_x', 'sleeve_y', 'sleeve_ax', 'sleeve_ay']
    """

    kind = "cylindrical"

    def equations(self, system: System) -> tuple[Rows, dict[str, Reaction]]:
        p1, p2 = self.points(system)
        b1, b2 = self.bases(system)
        ax = axis_index(self.axis)
        rows, reactions = self.position_rows(system, p1, p2, b1, [i for i in range(3) if i != ax])
        turn_rows, moments = self.alignment_rows(b1, b2, ax)
        return rows + turn_rows, reactions | moments


class UniversalJoint(_FramesJoint):
    """Coincident points; ``axis1`` (of base1) perpendicular to ``axis2`` (of base2); reactions F and M.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("uj")
        >>> a = s.coordinate("a")
        >>> B = s.base("B", s.ground_base, sb.Rz(a))
        >>> j = UniversalJoint("cardan", s.origin, "xyz", "x", s.origin, B, "x").add_to(s)
        >>> j.rows, j.dropped  # the points coincide by construction
        (['cardan_perp'], ['cardan_x', 'cardan_y', 'cardan_z'])
    """

    kind = "universal"

    def __init__(
        self,
        name: str,
        point1: Point | str,
        base1: Base | str,
        axis1: Any,
        point2: Point | str,
        base2: Base | str,
        axis2: Any,
    ) -> None:
        super().__init__(name, point1, base1, point2, base2, axis1)
        self.axis2 = axis2

    def equations(self, system: System) -> tuple[Rows, dict[str, Reaction]]:
        p1, p2 = self.points(system)
        b1, b2 = self.bases(system)
        rows, reactions = self.position_rows(system, p1, p2, b1)
        rows.append((f"{self.name}_perp", b1.unit(self.axis).dot(b2.unit(self.axis2))))
        reactions["M"] = (f"{self.name}_perp", 1.0, None)
        return rows, reactions


class DistanceJoint(_PointsJoint):
    """Fixed distance (massless bar): ``|r_P1P2|^2 - length^2 = 0``; reaction: the bar tension.

    The tension (positive pulling the points together) is ``2 length lambda``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("dj")
        >>> x, y = s.coordinate("x"), s.coordinate("y"); l = s.parameter("l", 1.0)
        >>> P = s.point("P", s.origin, (x, y, 0))
        >>> j = DistanceJoint("rod", s.origin, P, l).add_to(s)
        >>> j.rows, j.reactions["tension"][0]
        (['rod'], 'rod')
    """

    kind = "distance"

    def __init__(self, name: str, point1: Point | str, point2: Point | str, length: Any) -> None:
        super().__init__(name, point1, point2)
        self.length = length

    def equations(self, system: System) -> tuple[Rows, dict[str, Reaction]]:
        p1, p2 = self.points(system)
        L = to_expr(system, self.length, f"length of joint {self.name!r}")
        r = relative_position(system.kinematics, p1, p2)
        if r.is_zero:
            raise ModelError(f"joint {self.name!r}: its points {p1.name!r} and {p2.name!r} always coincide")
        tension: Reaction = (self.name, mul(as_expr(2), L), None)
        return [(self.name, sub(r.norm2(), mul(L, L)))], {"tension": tension}


class GenericJoint(Joint):
    """A joint given by its own constraint equations; ``reactions`` names their multipliers.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("gj")
        >>> x, y = s.coordinate("x"), s.coordinate("y")
        >>> GenericJoint("slot", [x - y, y], reactions=["N", "T"]).add_to(s).rows
        ['slot_1', 'slot_2']
    """

    kind = "generic"

    def __init__(self, name: str, equations: Sequence[Any], reactions: Sequence[str] | None = None) -> None:
        super().__init__(name)
        self._equations = list(equations)
        self._reaction_names = reactions

    def equations(self, system: System) -> tuple[Rows, dict[str, Reaction]]:
        rows = constraint_rows(system, self.name, self._equations)
        if self._reaction_names is None:
            return rows, {}
        if len(self._reaction_names) != len(rows):
            raise ModelError(
                f"joint {self.name!r}: {len(rows)} equations but {len(self._reaction_names)} reaction names"
            )
        return rows, {r: (row[0], 1.0, None) for r, row in zip(self._reaction_names, rows)}


def _universal_old_order(method: Callable[..., Joint]) -> Callable[..., Joint]:
    """Accept ``universal_joint(name, point1, base1, axis1, point2, base2, axis2)`` (before 0.2), with a warning."""

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Joint:
        if len(args) == 7:
            name, point1, base1, axis1, point2, base2, axis2 = args
            warn_deprecated("System.universal_joint: give the axes by keyword after the bases (axis1=..., axis2=...)")
            return method(self, name, point1, base1, point2, base2, axis1=axis1, axis2=axis2, **kwargs)
        return method(self, *args, **kwargs)

    return run


class JointsMixin(Facet):
    """The methods of :class:`symbody.System` that join bodies: each adds one :class:`Joint` of this module."""

    @atomic
    def spherical_joint(
        self, name: str, point1: Point | str, point2: Point | str, base: Base | str | None = None
    ) -> Joint:
        """Coincident points (3 equations ``r_P2 - r_P1 = 0`` in ``base``); reactions Fx, Fy, Fz.

        The reaction is the force on the body of ``point2`` from the body of ``point1``:
        ``F_k = -lambda_k``.  Rows that vanish identically (planar models) are dropped.
        The joint is a :class:`SphericalJoint`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("ball_joint")
            >>> x, y = s.coordinate("x"), s.coordinate("y")
            >>> P = s.point("P", s.origin, (x, y, 0))
            >>> j = s.spherical_joint("ball", s.origin, P)
            >>> j.rows, j.dropped, [r.expr for r in s.constraints]  # planar: the row along z vanishes
            (['ball_x', 'ball_y'], ['ball_z'], [x, y])
        """
        return SphericalJoint(name, point1, point2, base).add_to(self._system)

    @atomic
    @formerly_positional("axis")
    def revolute_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, *,
        axis: Any = "z",
    ) -> Joint:  # fmt: skip
        """Revolute joint: coincident points and the ``axis`` of ``base2`` kept along the same axis of ``base1``.

        Reactions: Fx, Fy, Fz (in ``base1``) and the two moments normal to the axis.  The joint is a
        :class:`RevoluteJoint`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("hinge")
            >>> x, y, th = s.coordinate("x"), s.coordinate("y"), s.coordinate("th")
            >>> B = s.base("B", s.ground_base, sb.Rz(th))
            >>> C = s.point("C", s.origin, (x, y, 0))
            >>> pin = s.revolute_joint("pin", s.origin, s.ground_base, C, B, axis="z")
            >>> pin.rows, sorted(pin.reactions)  # planar: the rows along z and the tilts vanish
            (['pin_x', 'pin_y'], ['Fx', 'Fy'])
        """
        return RevoluteJoint(name, point1, base1, point2, base2, axis).add_to(self._system)

    @atomic
    @formerly_positional("axis")
    def prismatic_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, *,
        axis: Any = "x",
    ) -> Joint:  # fmt: skip
        """Prismatic joint: ``point2`` slides along ``axis`` of ``base1``; no relative rotation.

        The joint is a :class:`PrismaticJoint`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("slider")
            >>> x, y, th = s.coordinate("x"), s.coordinate("y"), s.coordinate("th")
            >>> B = s.base("B", s.ground_base, sb.Rz(th))
            >>> P = s.point("P", s.origin, (x, y, 0))
            >>> s.prismatic_joint("rail", s.origin, s.ground_base, P, B, axis="x").rows
            ['rail_y', 'rail_rxy']
        """
        return PrismaticJoint(name, point1, base1, point2, base2, axis).add_to(self._system)

    @atomic
    @formerly_positional("axis")
    def cylindrical_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, *,
        axis: Any = "z",
    ) -> Joint:  # fmt: skip
        """Cylindrical joint: ``point2`` on the ``axis`` line of ``base1``; the axes stay parallel.

        The joint is a :class:`CylindricalJoint`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("sleeve")
            >>> x, y, z = s.coordinate("x"), s.coordinate("y"), s.coordinate("z")
            >>> a, b = s.coordinate("a"), s.coordinate("b")
            >>> B = s.base("B", s.ground_base, sb.EulerAngles("xy", (a, b)))
            >>> P = s.point("P", s.origin, (x, y, z))
            >>> s.cylindrical_joint("sleeve", s.origin, s.ground_base, P, B, axis="z").rows
            ['sleeve_x', 'sleeve_y', 'sleeve_ax', 'sleeve_ay']
        """
        return CylindricalJoint(name, point1, base1, point2, base2, axis).add_to(self._system)

    @atomic
    @_universal_old_order
    def universal_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, *,
        axis1: Any, axis2: Any,
    ) -> Joint:  # fmt: skip
        """Universal (Cardan) joint: coincident points, ``axis1`` (of base1) perpendicular to ``axis2`` (of base2).

        The joint is a :class:`UniversalJoint`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("cardan")
            >>> a = s.coordinate("a")
            >>> B = s.base("B", s.ground_base, sb.Rz(a))
            >>> j = s.universal_joint("cross", s.origin, s.ground_base, s.origin, B, axis1="x", axis2="x")
            >>> j.rows, j.dropped  # the points coincide by construction
            (['cross_perp'], ['cross_x', 'cross_y', 'cross_z'])
        """
        return UniversalJoint(name, point1, base1, axis1, point2, base2, axis2).add_to(self._system)

    @atomic
    def distance_joint(self, name: str, point1: Point | str, point2: Point | str, length: Any) -> Joint:
        """Fixed distance (massless bar): ``|r_P1P2|^2 - length^2 = 0``; reaction: bar tension.

        The tension (positive pulling the points together) is ``2 length lambda``.  The joint is a
        :class:`DistanceJoint`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("rod")
            >>> x, y = s.coordinate("x"), s.coordinate("y"); l = s.parameter("l", 1.0)
            >>> P = s.point("P", s.origin, (x, y, 0))
            >>> j = s.distance_joint("rod", s.origin, P, l)
            >>> s.constraints[0].expr, j.reactions["tension"][1]
            (x**2 + y**2 - l**2, 2*l)
        """
        return DistanceJoint(name, point1, point2, length).add_to(self._system)

    @atomic
    @formerly_positional("reactions")
    def generic_joint(self, name: str, equations: Sequence[Any], *, reactions: Sequence[str] | None = None) -> Joint:
        """A joint given by its own constraint equations; ``reactions`` names their multipliers.

        The joint is a :class:`GenericJoint`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("slot")
            >>> x, y = s.coordinate("x"), s.coordinate("y")
            >>> j = s.generic_joint("slot", [x - y, y], reactions=["N", "T"])
            >>> j.rows, j.reactions["T"]
            (['slot_1', 'slot_2'], ('slot_2', 1.0, None))
        """
        return GenericJoint(name, equations, reactions).add_to(self._system)
