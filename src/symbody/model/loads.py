"""Loads: wrenches on solids and scalar force elements.

Every load contributes to the generalized force vector ``delta`` through the
virtual power principle: a force ``F`` at a point adds ``F . dv_P/d(dq_i)``, a
moment ``T`` on a body adds ``T . d(omega)/d(dq_i)``, and a scalar element of
force ``f`` along a rate ``ds/dt`` (a spring length, a joint angle) adds
``f d(ds/dt)/d(dq_i)``.  Loads are applied when the system is derived.

Gravity, the elastic forces of springs and forces of constant direction and
magnitude also declare their potential energy
(:meth:`Load.potential_split`): the energy of a motion is then exact instead of
an integral of their work along sampled paths.

Example:
    >>> import symbody as sb
    >>> s = sb.System("osc")
    >>> x = s.coordinate("x"); k = s.parameter("k", 4.0)
    >>> P = s.point("P", s.origin, (x, 0, 0))
    >>> _ = s.particle("m", P, 1.0)
    >>> spring = s.generalized_force("spring", x, -k * x)
    >>> isinstance(spring, ScalarForce), s.derive().delta[0] is spring.force
    (True, True)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from ..symbolic.calculus import time_derivative
from ..symbolic.expr import HALF, ONE, ZERO, Expr, add, div, mul, neg, pow_, sqrt, sub, tanh
from .geometry import relative_position

if TYPE_CHECKING:
    from .base import Base
    from .bodies import Solid
    from .geometry import Point
    from .kinematics import Kinematics
    from .power import VirtualPower as Assembler
    from .vector import Vector


class Load(ABC):
    """Base class of loads: :meth:`apply` adds the load's virtual power to the generalized forces.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ld")
        >>> s.gravity((0, 0, -9.81))
        >>> isinstance(s.loads[0], Load), s.loads[0].kind
        (True, 'gravity')
    """

    name: str = ""
    kind: str = "load"

    @abstractmethod
    def apply(self, asm: Assembler) -> None:
        """Add the load's virtual power to the generalized forces of ``asm``."""

    def potential_split(self, kin: Kinematics) -> tuple[Expr | None, Load | None]:
        """The load's potential energy ``V(q, t)`` and the load that remains beyond it.

        ``(None, self)`` for a load without a potential (the default); ``(V, None)`` for a
        purely conservative one; ``(V, rest)`` when only part of it derives from ``V``
        (a spring with a damper): ``-dV/dq`` plus the generalized forces of ``rest``
        are the load's generalized forces.
        """
        return None, self


class Wrench(Load):
    """A force applied at a point of a solid and a moment applied on the solid.

    With ``reaction`` set, the opposite force and moment act on that solid at
    the same point (action-reaction pair).
    """

    kind = "wrench"

    def __init__(
        self,
        name: str,
        solid: Solid | None,
        point: Point,
        force: Vector | None,
        moment: Vector | None,
        reaction: Solid | None = None,
    ):
        self.name = name
        self.solid = solid
        self.point = point
        self.force = force
        self.moment = moment
        self.reaction = reaction

    def _on(self, asm: Assembler, solid: Solid | None, sign: int) -> None:
        if solid is not None and solid.mass is None:  # ground
            return
        if self.force is not None and not self.force.is_zero:
            v = asm.point_velocity(self.point, solid)
            for i, J in asm.partials(v).items():
                for t in J.dot_terms(self.force):
                    asm.add_delta(i, t if sign > 0 else neg(t))
        if self.moment is not None and not self.moment.is_zero:
            if solid is None:
                raise ValueError(f"load {self.name!r}: a moment needs a solid")
            w = asm.kin.omega(solid.base)
            for i, J in asm.partials(w).items():
                for t in J.dot_terms(self.moment):
                    asm.add_delta(i, t if sign > 0 else neg(t))

    def apply(self, asm: Assembler) -> None:
        self._on(asm, self.solid, 1)
        if self.reaction is not None:
            self._on(asm, self.reaction, -1)

    def potential_split(self, kin: Kinematics) -> tuple[Expr | None, Load | None]:
        """``V = -F . r_P`` for a force of fixed direction and magnitude (laws of time allowed)
        acting at a point fixed in its solid, without moment or reaction; otherwise none."""
        moment = self.moment is not None and not self.moment.is_zero
        if self.force is None or moment or self.reaction is not None or not _fixed_in(kin, self.point, self.solid):
            return None, self
        if self.solid is not None and self.solid.mass is None:  # on the ground: no work
            return ZERO, None
        if _depends_on_state(kin, *self.force.components(kin.system.ground_base)):
            return None, self
        return neg(kin.position(self.point).dot(self.force)), None


class Gravity(Load):
    """Uniform gravity field ``g`` (a vector, usually in the ground base) on every solid."""

    kind = "gravity"

    def __init__(self, name: str, g: Vector):
        self.name = name
        self.g = g

    def apply(self, asm: Assembler) -> None:
        kin = asm.kin
        for solid in asm.system.solids.values():
            if solid.mass.is_zero:
                continue
            v = kin.velocity(solid.point)
            for i, J in asm.partials(v).items():
                for t in J.dot_terms(self.g):
                    asm.add_delta(i, t, solid.mass)
            if not solid.is_particle and any(c is not ZERO for c in solid.first_moment):
                from .vector import Vector

                mr = Vector._from_parts(kin, {})
                kin.add_part(mr.parts, solid.base, solid.first_moment)
                tau = mr.cross(self.g)
                w = kin.omega(solid.base)
                for i, J in asm.partials(w).items():
                    for t in J.dot_terms(tau):
                        asm.add_delta(i, t)

    def potential_split(self, kin: Kinematics) -> tuple[Expr | None, Load | None]:
        """``V = -sum m g . r_G`` over the solids (``g`` is constant: parameters only)."""
        V = ZERO
        for solid in kin.system.solids.values():
            if solid.mass.is_zero:
                continue
            V = sub(V, mul(solid.mass, kin.position(solid.point).dot(self.g)))
            if not solid.is_particle and any(c is not ZERO for c in solid.first_moment):
                parts: dict = {}
                kin.add_part(parts, solid.base, solid.first_moment)
                V = sub(V, kin.vector(parts).dot(self.g))
        return V, None


def _depends_on_state(kin: Kinematics, *exprs: Expr) -> bool:
    """True if an expression depends on coordinates, velocities, accelerations or inputs."""
    system = kin.system
    mask = 0
    for c in system.coordinates:
        mask |= c.q.mask | c.dq.mask | c.ddq.mask
    for u in system.inputs.values():
        mask |= u.symbol.mask
    return any(e.mask & mask for e in exprs)


def _fixed_in(kin: Kinematics, point: Point, solid: Solid | None) -> bool:
    """True if ``point`` is fixed in ``solid`` (or no solid is given: the point itself is loaded)."""
    if solid is None or solid.point is point:
        return True
    r = relative_position(kin, solid.point, point)
    return (kin.dt(r, accelerations=False) - kin.omega(solid.base).cross(r)).is_zero


class ScalarForce(Load):
    """A force ``f`` acting along a scalar rate ``ds/dt`` (linear in the velocities).

    Adds ``f * d(ds/dt)/d(dq_i)`` to ``delta_i``.  Springs, dampers, joint
    friction and actuators on coordinates are built on it.
    """

    kind = "scalar force"

    def __init__(self, name: str, rate: Expr, force: Expr):
        self.name = name
        self.rate = rate
        self.force = force

    def apply(self, asm: Assembler) -> None:
        for i, p in asm.scalar_partials(self.rate).items():
            asm.add_delta(i, mul(self.force, p))


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
        if self.k.is_zero or _depends_on_state(kin, self.k, self.l0):
            return None, self
        if not (_fixed_in(kin, self.p1, self.solid1) and _fixed_in(kin, self.p2, self.solid2)):
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
        if self.k.is_zero or _depends_on_state(kin, self.k, self.a0):
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


__all__ = [
    "Load",
    "Wrench",
    "Gravity",
    "ScalarForce",
    "SpringDamper",
    "TorsionSpringDamper",
    "RelativeDamper",
    "CoulombFriction",
    "ONE",
    "pow_",
]
