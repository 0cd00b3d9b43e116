"""Loads: wrenches on solids and scalar force elements, and applying them to a model.

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

Each function that applies a load checks what the load depends on (parameters, state, time and
inputs: :data:`symbody.model.expressions.LOADS`), then claims the load's name and appends the
:class:`Load` to the system; spring-dampers and friction loads are applied in
:mod:`symbody.model.springs`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import ModelError
from ..symbolic.calculus import time_derivative
from ..symbolic.expr import ZERO, Expr, mul, neg, sub
from .base import Base
from .bodies import Solid, resolve_solid
from .deprecation import formerly_positional
from .expressions import GEOMETRY, LOADS, require, to_expr
from .geometry import Point, relative_position, resolve_point, resolve_vector
from .registry import Facet, atomic

if TYPE_CHECKING:
    from .kinematics import Kinematics
    from .power import VirtualPower as Assembler
    from .system import System
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
        if self.force is None or moment or self.reaction is not None or not fixed_in(kin, self.point, self.solid):
            return None, self
        if self.solid is not None and self.solid.mass is None:  # on the ground: no work
            return ZERO, None
        if depends_on_state(kin, *self.force.components(kin.system.ground_base)):
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


def depends_on_state(kin: Kinematics, *exprs: Expr) -> bool:
    """True if an expression depends on coordinates, velocities, accelerations or inputs."""
    system = kin.system
    mask = 0
    for c in system.coordinates:
        mask |= c.q.mask | c.dq.mask | c.ddq.mask
    for u in system.inputs.values():
        mask |= u.symbol.mask
    return any(e.mask & mask for e in exprs)


def fixed_in(kin: Kinematics, point: Point, solid: Solid | None) -> bool:
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


class LoadsMixin(Facet):
    """The methods of :class:`symbody.System` that apply loads: gravity, wrenches, generalized forces."""

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
