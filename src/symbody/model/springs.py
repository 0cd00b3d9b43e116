"""Spring-dampers and friction loads: linear and torsion spring-dampers, viscous and smoothed Coulomb friction.

Each is a scalar force element along a rate (a spring's length, an angle, a coordinate): its force
``f`` adds ``f d(ds/dt)/d(dq_i)`` to the generalized forces (:mod:`symbody.model.loads`), and a
spring with constant stiffness and rest length also declares its potential energy.

Example:
    >>> import symbody as sb
    >>> s = sb.System("l")
    >>> x = s.coordinate("x"); k = s.parameter("k", 10.0)
    >>> P = s.point("P", s.origin, (x, 0, 0))
    >>> A = s.point("A", s.origin, (-1, 0, 0))
    >>> spring = s.spring_damper("spring", A, P, k=k, rest_length=1)
    >>> spring.kind, s.loads[-1] is spring
    ('spring-damper', True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import time_derivative
from ..symbolic.expr import HALF, ZERO, Expr, add, div, mul, neg, pow_, sqrt, sub, tanh
from .base import Base, axis_index
from .bodies import Solid, resolve_solid
from .deprecation import formerly_positional
from .expressions import GEOMETRY, LOADS, default_value, require, to_expr
from .geometry import Point, relative_position, resolve_base, resolve_point
from .loads import Load, ScalarForce, add_load, depends_on_state, fixed_in, rate_of
from .registry import Facet, atomic
from .vector import Vector

if TYPE_CHECKING:
    from .kinematics import Kinematics
    from .power import VirtualPower as Assembler
    from .system import System


class SpringDamper(Load):
    """Linear spring-damper between two points: ``f = -k (d - l0) - c dd/dt`` along the line.

    A positive ``f`` pushes the points apart.  ``actuator`` adds an extra
    (e.g. input) force along the same line.
    """

    kind = "spring-damper"

    def __init__(
        self,
        name: str,
        p1: Point,
        p2: Point,
        k: Expr,
        l0: Expr,
        c: Expr,
        actuator: Expr = ZERO,
        solid1: Solid | None = None,
        solid2: Solid | None = None,
    ):
        self.name = name
        self.p1, self.p2 = p1, p2
        self.k, self.l0, self.c = k, l0, c
        self.actuator = actuator
        self.solid1, self.solid2 = solid1, solid2

    def length(self, kin) -> Expr:
        r = relative_position(kin, self.p1, self.p2)
        return sqrt(r.norm2())

    def apply(self, asm: Assembler) -> None:
        kin = asm.kin
        r = relative_position(kin, self.p1, self.p2)
        d2 = r.norm2()
        d = sqrt(d2)
        vrel = asm.point_velocity(self.p2, self.solid2) - asm.point_velocity(self.p1, self.solid1)
        # dd/dt = r . v_rel / d ; partials: r . dv_rel/d(dq_i) / d
        rv = r.dot(vrel)
        ddot = div(rv, d)
        f = add(neg(mul(self.k, sub(d, self.l0))), self.actuator)
        if not self.c.is_zero:
            f = sub(f, mul(self.c, ddot))
        coef = div(f, d)
        for i, J in asm.partials(vrel).items():
            for t in r.dot_terms(J):
                asm.add_delta(i, mul(coef, t))

    def potential_split(self, kin: Kinematics) -> tuple[Expr | None, Load | None]:
        """``V = 1/2 k (d - l0)^2``; the damper and the actuator remain (a spring-damper with ``k = 0``).

        No potential when the stiffness or the rest length depend on the state, or when an
        end acts on a solid at a point that moves on that solid (the force then does
        work the length does not account for).
        """
        if self.k.is_zero or depends_on_state(kin, self.k, self.l0):
            return None, self
        if not (fixed_in(kin, self.p1, self.solid1) and fixed_in(kin, self.p2, self.solid2)):
            return None, self
        V = mul(HALF, mul(self.k, pow_(sub(self.length(kin), self.l0), 2)))
        if self.c.is_zero and self.actuator.is_zero:
            return V, None
        rest = SpringDamper(self.name, self.p1, self.p2, ZERO, self.l0, self.c, self.actuator, self.solid1, self.solid2)
        return V, rest


class TorsionSpringDamper(Load):
    """Rotational spring-damper on an angle expression: ``tau = -k (a - a0) - c da/dt``."""

    kind = "torsion spring-damper"

    def __init__(self, name: str, angle: Expr, k: Expr, a0: Expr, c: Expr, ctx):
        self.name = name
        self.angle = angle
        self.k, self.a0, self.c = k, a0, c
        self.ctx = ctx

    def apply(self, asm: Assembler) -> None:
        rate = time_derivative(self.angle, self.ctx, accelerations=False)
        tau = neg(mul(self.k, sub(self.angle, self.a0)))
        if not self.c.is_zero:
            tau = sub(tau, mul(self.c, rate))
        ScalarForce(self.name, rate, tau).apply(asm)

    def potential_split(self, kin: Kinematics) -> tuple[Expr | None, Load | None]:
        """``V = 1/2 k (a - a0)^2``; the damper remains (a torsion spring-damper with ``k = 0``)."""
        if self.k.is_zero or depends_on_state(kin, self.k, self.a0):
            return None, self
        V = mul(HALF, mul(self.k, pow_(sub(self.angle, self.a0), 2)))
        if self.c.is_zero:
            return V, None
        return V, TorsionSpringDamper(self.name, self.angle, ZERO, self.a0, self.c, self.ctx)


class RelativeDamper(Load):
    """Viscous friction between two bodies: moment ``-c (w2 - w1)`` on body 2 (and its reaction)."""

    kind = "viscous friction"

    def __init__(self, name: str, base1: Base, base2: Base, c: Expr, axis: Vector | None = None):
        self.name = name
        self.base1, self.base2 = base1, base2
        self.c = c
        self.axis = axis

    def apply(self, asm: Assembler) -> None:
        kin = asm.kin
        wrel = kin.omega(self.base2) - kin.omega(self.base1)
        if self.axis is not None:
            rate = wrel.dot(self.axis)
            ScalarForce(self.name, rate, neg(mul(self.c, rate))).apply(asm)
            return
        for i, J in asm.partials(wrel).items():
            for t in J.dot_terms(wrel):
                asm.add_delta(i, neg(mul(self.c, t)))


class CoulombFriction(Load):
    """Smoothed Coulomb friction on a rate: ``f = -F_c tanh(ds/dt / v_s)``."""

    kind = "Coulomb friction"

    def __init__(self, name: str, rate: Expr, magnitude: Expr, smoothing: Expr):
        self.name = name
        self.rate = rate
        self.magnitude = magnitude
        self.smoothing = smoothing

    def apply(self, asm: Assembler) -> None:
        f = neg(mul(self.magnitude, tanh(div(self.rate, self.smoothing))))
        ScalarForce(self.name, self.rate, f).apply(asm)


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


class SpringsMixin(Facet):
    """The methods of :class:`symbody.System` that apply spring-dampers and friction loads."""

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
