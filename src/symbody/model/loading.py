"""Applying loads to a model: gravity, wrenches, scalar forces, springs, dampers and friction.

Each function checks what the load depends on (parameters, state, time and
inputs: :data:`symbody.model.expressions.LOADS`), then claims the load's name
and appends the :class:`symbody.model.loads.Load` to the system.

Example:
    >>> import symbody as sb
    >>> s = sb.System("l")
    >>> x = s.coordinate("x"); k = s.parameter("k", 10.0)
    >>> P = s.point("P", s.origin, (x, 0, 0))
    >>> A = s.point("A", s.origin, (-1, 0, 0))
    >>> spring = apply_spring_damper(s, "spring", A, P, k=k, rest_length=1)
    >>> spring.kind, s.loads[-1] is spring
    ('spring-damper', True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import ModelError
from ..symbolic.calculus import time_derivative
from ..symbolic.expr import ZERO, Expr, mul, neg
from .base import Base, axis_index
from .bodies import Solid, resolve_solid
from .deprecation import formerly_positional
from .expressions import GEOMETRY, LOADS, default_value, require, to_expr
from .geometry import Point, relative_position, resolve_base, resolve_point, resolve_vector
from .loads import (
    CoulombFriction,
    Gravity,
    Load,
    RelativeDamper,
    ScalarForce,
    SpringDamper,
    TorsionSpringDamper,
    Wrench,
)
from .registry import Facet, atomic
from .vector import Vector

if TYPE_CHECKING:
    from .system import System

L = TypeVar("L", bound=Load)


def add_load(system: System, name: str, load: L) -> L:
    """Claim the load's name and append it to the system.

    Example:
        >>> import symbody as sb
        >>> from symbody.model.loads import ScalarForce
        >>> s = sb.System("al")
        >>> x = s.coordinate("x"); F = s.input("F")
        >>> add_load(s, "push", ScalarForce("push", s.dt(x), F)) is s.loads[0]
        True
    """
    system.registry.claim(name, load.kind)
    system.loads.append(load)
    return load


def apply_gravity(system: System, g: Any, base: Base | str | None = None, name: str = "gravity") -> None:
    """Apply a uniform gravity field to every solid: a Vector or 3 components (default: ground base).

    The body of :meth:`symbody.System.gravity` (documented there, with an example).
    """
    v = resolve_vector(system, g, base, f"gravity {name!r}")
    require(system, f"gravity {name!r}", v.components(system.ground_base), ("parameter",))
    add_load(system, name, Gravity(name, v))


def apply_force(
    system: System,
    name: str,
    solid: Solid | str | None,
    point: Point | str,
    force: Any = None,
    moment: Any = None,
    base: Base | str | None = None,
    reaction: Solid | str | None = None,
) -> Wrench:
    """Apply a force at a point of a solid (and optionally a moment on it).

    The body of :meth:`symbody.System.force` (documented there, with an example).
    """
    s = resolve_solid(system, solid, f"solid of load {name!r}")
    p = resolve_point(system, point, f"point of load {name!r}")
    f = resolve_vector(system, force, base, f"force {name!r}") if force is not None else None
    mo = resolve_vector(system, moment, base, f"moment {name!r}") if moment is not None else None
    require(system, f"load {name!r}", [f, mo], LOADS)
    if mo is not None and s is None:
        raise ModelError(f"load {name!r}: a moment must act on a solid")
    r = resolve_solid(system, reaction, f"reaction solid of load {name!r}")
    return add_load(system, name, Wrench(name, s, p, f, mo, r))


def apply_torque(
    system: System,
    name: str,
    solid: Solid | str,
    moment: Any,
    base: Base | str | None = None,
    reaction: Solid | str | None = None,
) -> Wrench:
    """Apply a moment on a solid (and its reaction on another solid).

    The body of :meth:`symbody.System.torque` (documented there, with an example).
    """
    s = resolve_solid(system, solid, f"solid of torque {name!r}")
    if s is None:
        raise ModelError(f"torque {name!r}: needs a solid")
    mo = resolve_vector(system, moment, base, f"torque {name!r}")
    require(system, f"torque {name!r}", mo, LOADS)
    r = resolve_solid(system, reaction, f"reaction solid of torque {name!r}")
    return add_load(system, name, Wrench(name, s, s.point, None, mo, r))


def rate_of(system: System, what: Any, name: str) -> Expr:
    """The rate (linear in the velocities) of a coordinate or of an expression ``s(q, t)``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("r")
        >>> x = s.coordinate("x")
        >>> rate_of(s, x, "f"), rate_of(s, x * x, "f")
        (dx, 2*x*dx)
    """
    if isinstance(what, Expr) and what.op == 0 and what.kind == "coordinate":
        return what.value.dq
    e = to_expr(system, what, f"load {name!r}")
    require(system, f"the expression that load {name!r} acts along", e, GEOMETRY)
    return time_derivative(e, system.ctx, accelerations=False)


def apply_generalized_force(system: System, name: str, coordinate: Any, force: Any) -> ScalarForce:
    """A force (or torque) acting along a coordinate or along an expression ``s(q, t)``.

    The body of :meth:`symbody.System.generalized_force` (documented there, with an example).
    """
    rate = rate_of(system, coordinate, name)
    f = to_expr(system, force, f"force of {name!r}")
    require(system, f"force of {name!r}", f, LOADS)
    return add_load(system, name, ScalarForce(name, rate, f))


def apply_spring_damper(
    system: System,
    name: str,
    point1: Point | str,
    point2: Point | str,
    k: Any = 0,
    rest_length: Any = 0,
    damping: Any = 0,
    actuator: Any = 0,
    solid1: Solid | str | None = None,
    solid2: Solid | str | None = None,
) -> SpringDamper:
    """Linear spring-damper (and optional actuator force) between two points.

    The body of :meth:`symbody.System.spring_damper` (documented there, with an example).
    """
    p1 = resolve_point(system, point1, f"spring {name!r}")
    p2 = resolve_point(system, point2, f"spring {name!r}")
    k_ = to_expr(system, k, f"stiffness of {name!r}")
    l0 = to_expr(system, rest_length, f"rest length of {name!r}")
    c = to_expr(system, damping, f"damping of {name!r}")
    a = to_expr(system, actuator, f"actuator of {name!r}")
    s1 = resolve_solid(system, solid1, f"solid of spring {name!r}")
    s2 = resolve_solid(system, solid2, f"solid of spring {name!r}")
    require(system, f"spring {name!r}", [k_, l0, c, a], LOADS)
    r = relative_position(system.kinematics, p1, p2)
    if r.is_zero:
        raise ModelError(f"spring {name!r}: its points {p1.name!r} and {p2.name!r} always coincide")
    if default_value(system, r.norm2()) == 0.0:
        raise ModelError(
            f"spring {name!r}: its points {p1.name!r} and {p2.name!r} coincide at the initial configuration, "
            "where the direction of its force is undefined"
        )
    return add_load(system, name, SpringDamper(name, p1, p2, k_, l0, c, a, s1, s2))


def apply_torsion_spring_damper(
    system: System,
    name: str,
    angle: Any,
    k: Any = 0,
    rest_angle: Any = 0,
    damping: Any = 0,
    base1: Base | str | None = None,
    base2: Base | str | None = None,
    axis: Any = None,
) -> TorsionSpringDamper:
    """Rotational spring-damper ``tau = -k (angle - rest_angle) - damping d(angle)/dt``.

    The body of :meth:`symbody.System.torsion_spring_damper` (documented there, with an example).
    """
    if angle is None:
        angle = relative_angle(system, name, base1, base2, axis)
    a = to_expr(system, angle, f"angle of {name!r}")
    require(system, f"the angle of {name!r}", a, GEOMETRY)
    k_ = to_expr(system, k, f"stiffness of {name!r}")
    a0 = to_expr(system, rest_angle, f"rest angle of {name!r}")
    c = to_expr(system, damping, f"damping of {name!r}")
    require(system, f"torsion spring {name!r}", [k_, a0, c], LOADS)
    return add_load(system, name, TorsionSpringDamper(name, a, k_, a0, c, system.ctx))


def relative_angle(system: System, name: str, base1: Any, base2: Any, axis: Any) -> Expr:
    """The angle of ``base2`` from ``base1`` when one rotation about ``axis`` relates them.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ra")
        >>> th = s.coordinate("th")
        >>> B = s.base("B", s.ground_base, sb.Rz(th))
        >>> relative_angle(s, "spring", s.ground_base, B, "z")
        th
    """
    b1 = resolve_base(system, base1, f"base of {name!r}")
    b2 = resolve_base(system, base2, f"base of {name!r}")
    steps = system.kinematics.steps(b2, b1)
    if not steps:
        return ZERO
    ax = axis_index(axis) if axis is not None else None
    if len(steps) != 1 or steps[0][0] != "e" or (ax is not None and steps[0][1] != ax):
        raise ModelError(f"{name!r}: bases {b1.name!r} and {b2.name!r} are not related by rotations about one axis")
    angle: Expr = steps[0][2]
    return angle


def apply_viscous_friction(
    system: System,
    name: str,
    coordinate: Any = None,
    c: Any = 0,
    *,
    base1: Base | str | None = None,
    base2: Base | str | None = None,
    axis: Vector | None = None,
) -> Load:
    """Viscous friction: ``-c * rate`` on a coordinate or expression, or ``-c (w2 - w1)`` between two bases.

    The body of :meth:`symbody.System.viscous_friction` (documented there, with an example).
    """
    c_ = to_expr(system, c, f"damping of {name!r}")
    require(system, f"damping of {name!r}", c_, LOADS)
    if coordinate is not None:
        rate = rate_of(system, coordinate, name)
        return add_load(system, name, ScalarForce(name, rate, neg(mul(c_, rate))))
    b1 = resolve_base(system, base1, f"base of {name!r}")
    b2 = resolve_base(system, base2, f"base of {name!r}")
    return add_load(system, name, RelativeDamper(name, b1, b2, c_, axis))


def apply_coulomb_friction(
    system: System, name: str, coordinate: Any, force: Any, smoothing: Any = 1e-3
) -> CoulombFriction:
    """Smoothed Coulomb friction ``-force * tanh(rate / smoothing)`` on a coordinate or expression rate.

    The body of :meth:`symbody.System.coulomb_friction` (documented there, with an example).
    """
    rate = rate_of(system, coordinate, name)
    f = to_expr(system, force, f"friction force of {name!r}")
    v = to_expr(system, smoothing, f"smoothing of {name!r}")
    require(system, f"Coulomb friction {name!r}", [f, v], LOADS)
    return add_load(system, name, CoulombFriction(name, rate, f, v))


class LoadingMixin(Facet):
    """The methods of :class:`symbody.System` that apply loads:
    gravity, wrenches, generalized forces, springs, dampers, friction."""

    @atomic
    @formerly_positional("name")
    def gravity(self, g: Any, base: Base | str | None = None, *, name: str = "gravity") -> None:
        """Apply a uniform gravity field to every solid: a Vector or 3 components (default: ground base).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("g")
            >>> s.gravity((0, -9.81, 0))
            >>> s.loads[0].g.components(s.ground_base)
            (0, -9.81, 0)
        """
        return apply_gravity(self._system, g, base, name)

    @atomic
    @formerly_positional("base", "reaction")
    def force(
        self,
        name: str,
        solid: Solid | str | None,
        point: Point | str,
        force: Any = None,
        moment: Any = None,
        *,
        base: Base | str | None = None,
        reaction: Solid | str | None = None,
    ) -> Wrench:
        """Apply a force at a point of a solid (and optionally a moment on it).

        ``force``/``moment`` are Vectors or 3 components in ``base`` (default: ground).
        With ``reaction``, the opposite wrench acts on that solid (action-reaction).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("f")
            >>> x = s.coordinate("x"); F = s.input("F")
            >>> P = s.point("P", s.origin, (x, 0, 0))
            >>> cart = s.particle("cart", P, 1.0)
            >>> s.force("push", cart, P, (F, 0, 0)).force.components(s.ground_base)
            (F, 0, 0)
        """
        return apply_force(self._system, name, solid, point, force, moment, base, reaction)

    @atomic
    @formerly_positional("base", "reaction")
    def torque(
        self,
        name: str,
        solid: Solid | str,
        moment: Any,
        *,
        base: Base | str | None = None,
        reaction: Solid | str | None = None,
    ) -> Wrench:
        """Apply a moment on a solid (and its reaction on another solid).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("tq")
            >>> th = s.coordinate("th"); T = s.input("T")
            >>> B = s.base("B", s.ground_base, sb.Rz(th))
            >>> wheel = s.solid("wheel", s.origin, B, mass=1, inertia=(1, 1, 1))
            >>> s.torque("motor", wheel, (0, 0, T)).moment.components(s.ground_base)
            (0, 0, T)
        """
        return apply_torque(self._system, name, solid, moment, base, reaction)

    @atomic
    def generalized_force(self, name: str, coordinate: Any, force: Any) -> ScalarForce:
        """A force (or torque) acting along a coordinate or along an expression ``s(q, t)``.

        Adds ``force * d(ds/dt)/d(dq_i)`` to the generalized forces; for a coordinate
        it is simply added to that coordinate's equation.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("gf")
            >>> x = s.coordinate("x"); F = s.input("F")
            >>> s.generalized_force("drive", x, F).rate
            dx
        """
        return apply_generalized_force(self._system, name, coordinate, force)

    @atomic
    @formerly_positional("k", "rest_length", "damping", "actuator", "solid1", "solid2")
    def spring_damper(
        self,
        name: str,
        point1: Point | str,
        point2: Point | str,
        *,
        k: Any = 0,
        rest_length: Any = 0,
        damping: Any = 0,
        actuator: Any = 0,
        solid1: Solid | str | None = None,
        solid2: Solid | str | None = None,
    ) -> SpringDamper:
        """Linear spring-damper (and optional actuator force) between two points.

        Force along the line, positive pushing the points apart:
        ``f = -k (d - rest_length) - damping dd/dt + actuator``.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("sd")
            >>> x = s.coordinate("x", 1.0); k = s.parameter("k", 10.0)
            >>> P = s.point("P", s.origin, (x, 0, 0))
            >>> s.spring_damper("spring", s.origin, P, k=k, rest_length=0.5).length(s.kinematics)
            sqrt(x**2)
        """
        return apply_spring_damper(
            self._system, name, point1, point2, k, rest_length, damping, actuator, solid1, solid2
        )

    @atomic
    @formerly_positional("k", "rest_angle", "damping", "base1", "base2", "axis")
    def torsion_spring_damper(
        self,
        name: str,
        angle: Any,
        *,
        k: Any = 0,
        rest_angle: Any = 0,
        damping: Any = 0,
        base1: Base | str | None = None,
        base2: Base | str | None = None,
        axis: Any = None,
    ) -> TorsionSpringDamper:
        """Rotational spring-damper ``tau = -k (angle - rest_angle) - damping d(angle)/dt``.

        ``angle`` is a coordinate or an angle expression.  Alternatively give
        ``angle=None`` with two bases related only by rotations about ``axis``:
        the angle is then the sum of those rotations.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("ts")
            >>> th = s.coordinate("th")
            >>> B = s.base("B", s.ground_base, sb.Rz(th))
            >>> s.torsion_spring_damper("coil", None, k=2.0, base1=s.ground_base, base2=B, axis="z").angle
            th
        """
        return apply_torsion_spring_damper(self._system, name, angle, k, rest_angle, damping, base1, base2, axis)

    @atomic
    def viscous_friction(
        self,
        name: str,
        coordinate: Any = None,
        c: Any = 0,
        *,
        base1: Base | str | None = None,
        base2: Base | str | None = None,
        axis: Vector | None = None,
    ) -> Load:
        """Viscous friction: ``-c * rate`` on a coordinate or expression, or ``-c (w2 - w1)`` between two bases.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("vf")
            >>> x = s.coordinate("x"); c = s.parameter("c", 0.5)
            >>> s.viscous_friction("drag", x, c).force
            -dx*c
        """
        return apply_viscous_friction(self._system, name, coordinate, c, base1=base1, base2=base2, axis=axis)

    @atomic
    @formerly_positional("smoothing")
    def coulomb_friction(self, name: str, coordinate: Any, force: Any, *, smoothing: Any = 1e-3) -> CoulombFriction:
        """Smoothed Coulomb friction ``-force * tanh(rate / smoothing)`` on a coordinate or expression rate.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("cf")
            >>> x = s.coordinate("x")
            >>> s.coulomb_friction("dry", x, 3.0).magnitude
            3
        """
        return apply_coulomb_friction(self._system, name, coordinate, force, smoothing)
