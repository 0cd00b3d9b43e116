"""The model container: :class:`System`, a facade over the modules of the model.

A :class:`System` holds everything a 3D_MEC user can define: parameters,
coordinates, inputs, time functions, bases, points, frames, solids, loads,
constraints, joints and outputs.  Its methods are thin: each delegates to the
module of its concept (:mod:`.quantities`, :mod:`.geometry`, :mod:`.motion`,
:mod:`.bodies`, :mod:`.loading`, :mod:`.constraints`, :mod:`.joints`) and every
factory runs in a transaction of the name :class:`~.registry.Registry`: a call
that fails leaves the system exactly as it was.  :meth:`System.derive` turns
it into an :class:`symbody.Equations`.

Example:
    >>> import symbody as sb
    >>> s = sb.System("pendulum")
    >>> g = s.parameter("g", 9.81, unit="m/s2")
    >>> l = s.parameter("l", 1.0, unit="m")
    >>> m = s.parameter("m", 1.0, unit="kg")
    >>> th = s.coordinate("theta", 0.1, unit="rad")
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> P = s.point("P", s.origin, sb.Vector(B, 0, -l, 0))
    >>> bob = s.particle("bob", P, m)
    >>> s.gravity(sb.Vector(s.ground_base, 0, -g, 0))
    >>> eq = s.derive()
    >>> eq.M[0][0], eq.delta[0]
    (m*l**2, -m*l*g*sin(theta))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ModelError
from ..symbolic.calculus import set_time_rate, time_derivative
from ..symbolic.expr import ONE, Context, Expr
from ..symbolic.kinematics import Kinematics
from . import bodies, constraints, geometry, loading, motion, quantities
from . import expressions as ex
from .base import Base, EulerAngles, Matrix3, Rotation
from .joints import (
    CylindricalJoint,
    DistanceJoint,
    GenericJoint,
    Joint,
    PrismaticJoint,
    RevoluteJoint,
    SphericalJoint,
    UniversalJoint,
)
from .loads import CoulombFriction, Load, ScalarForce, SpringDamper, TorsionSpringDamper, Wrench
from .point import Frame, Point
from .registry import Registry, atomic, check_identifier
from .shapes import Shape, ShapeAttachment, attach_shape
from .solid import Solid
from .symbols import ConstraintRow, Coordinate, Input, Output, Parameter, check_text
from .vector import Vector

MAX_MODEL_NAME = 128


class System:
    """A multibody model.

    Args:
        name: model name (a valid identifier of at most 128 characters; it names the FMU).
        description: free text carried into exported files.

    Attributes:
        ground_base: the inertial base ``xyz``.
        origin: the fixed origin point ``O``.
        ground: the ground frame ``abs`` (origin, ground base).
        t: the time symbol.
        registry: every name of the model (:class:`symbody.model.registry.Registry`).

    Example:
        >>> s = System("cart")
        >>> x = s.coordinate("x")
        >>> try:
        ...     s.coordinate("x")
        ... except ModelError as e:
        ...     print(e)
        duplicate name 'x': already used by coordinate 'x'
        >>> s
        System('cart': 1 coordinates, 0 solids, 0 loads, 0 constraint rows)
    """

    def __init__(self, name: str = "model", description: str = ""):
        check_identifier(name, "system")
        if len(name) > MAX_MODEL_NAME:
            raise ModelError(
                f"system name {name[:40]!r}... is {len(name)} characters long: at most {MAX_MODEL_NAME}"
                " (it names the FMU and its files)"
            )
        self.name = name
        self.description = description  # checked by the property
        self.ctx = Context()
        self.kinematics = Kinematics(self)
        self.registry = Registry()
        self.parameters: dict[str, Parameter] = {}
        self.coordinates: list[Coordinate] = []
        self.inputs: dict[str, Input] = {}
        self.outputs: dict[str, Output] = {}
        self.time_functions: dict[str, Expr] = {}
        self.bases: dict[str, Base] = {}
        self.points: dict[str, Point] = {}
        self.frames: dict[str, Frame] = {}
        self.solids: dict[str, Solid] = {}
        self.loads: list[Load] = []
        self.constraints: list[ConstraintRow] = []
        self.joints: dict[str, Joint] = {}
        self._multipliers: dict[str, Expr] = {}
        self.shapes: list[ShapeAttachment] = []
        self.registry.track(
            self.parameters, self.coordinates, self.inputs, self.outputs, self.time_functions, self.bases,
            self.points, self.frames, self.solids, self.loads, self.constraints, self.joints, self._multipliers,
            self.shapes, self.ctx.symbols, self.ctx.by_name, self.ctx.time_rates,
        )  # fmt: skip
        self.registry.claim("t", "time")
        self.t = self.ctx.symbol("t", "time")
        set_time_rate(self.ctx, self.t, ONE, ONE)
        self.registry.claim("xyz", "base")
        self.ground_base = Base(self, "xyz", None, None)
        self.bases["xyz"] = self.ground_base
        self.registry.claim("O", "point")
        self.origin = Point(self, "O", None, None)
        self.points["O"] = self.origin
        self.registry.claim("abs", "frame")
        self.ground = Frame(self, "abs", self.origin, self.ground_base)
        self.frames["abs"] = self.ground

    def __repr__(self) -> str:
        return (
            f"System({self.name!r}: {len(self.coordinates)} coordinates, {len(self.solids)} solids, "
            f"{len(self.loads)} loads, {len(self.constraints)} constraint rows)"
        )

    @property
    def description(self) -> str:
        """Free text carried into exported files (checked like every description: :func:`check_text`)."""
        return self._description

    @description.setter
    def description(self, text: str) -> None:
        self._description = check_text(text, f"system {self.name!r} description")

    # -- expressions (used by the model's own modules) --------------------
    def _expr(self, x: Any, what: str = "expression") -> Expr:
        return ex.to_expr(self, x, what)

    def _require(self, what: str, exprs: Any, allowed: tuple[str, ...]) -> None:
        ex.require(self, what, exprs, allowed)

    def _state_mask(self) -> int:
        return ex.state_mask(self)

    def _default_value(self, e: Expr) -> float:
        return ex.default_value(self, e)

    def _claim(self, name: str, what: str) -> None:
        self.registry.claim(name, what)

    def _base(self, b: Base | str | None, what: str = "base") -> Base:
        return geometry.resolve_base(self, b, what)

    def _point(self, p: Point | str, what: str = "point") -> Point:
        return geometry.resolve_point(self, p, what)

    def _solid(self, s: Solid | str | None, what: str = "solid") -> Solid | None:
        return geometry.resolve_solid(self, s, what)

    def _vector(self, v: Any, base: Base | str | None, what: str) -> Vector:
        return geometry.resolve_vector(self, v, base, what)

    def _frame_args(self, frame: Frame | Point | str, base: Base | str | None, what: str) -> tuple[Point, Base]:
        return geometry.resolve_frame(self, frame, base, what)

    def symbol(self, name: str) -> Expr:
        """The symbol called ``name`` (parameter, coordinate, velocity, input, time, ...)."""
        return ex.symbol_named(self, name)

    def default_values(self) -> dict[Expr, float]:
        """Values of every symbol at the defaults: parameters, initial state, inputs, ``t = 0``."""
        return ex.default_values(self)

    # -- named quantities (module quantities) ------------------------------
    @atomic
    def parameter(
        self, name: str, value: float = 0.0, unit: str | None = None, description: str = "",
        min: float | None = None, max: float | None = None,
    ) -> Expr:  # fmt: skip
        """Declare a parameter (a tunable constant) and return its symbol.

        ``min``/``max`` bound the values an FMU accepts for it.  ``unit`` must be a
        unit of :mod:`symbody.units` and ``description`` text that XML can carry
        (:class:`ModelError` otherwise); the same holds for coordinates, inputs and outputs.
        """
        return quantities.declare_parameter(self, name, value, unit, description, min, max)

    @atomic
    def parameters_(self, spec: str, value: float = 0.0, unit: str | None = None) -> tuple[Expr, ...]:
        """Declare several parameters with the same default: ``s.parameters_("m1 m2 m3", 1.0)``."""
        return tuple(self.parameter(n, value, unit) for n in spec.split())

    @atomic
    def coordinate(
        self, name: str, q0: float = 0.0, dq0: float = 0.0, unit: str | None = None, description: str = "",
        aux: bool = False,
    ) -> Expr:  # fmt: skip
        """Declare a generalized coordinate and return its position symbol.

        The velocity ``d<name>`` and acceleration ``dd<name>`` symbols are created
        too; get them with :meth:`dt` (``s.dt(q)`` is ``dq``).  ``aux=True`` marks an
        auxiliary coordinate (defined by constraints from the others).
        """
        return quantities.declare_coordinate(self, name, q0, dq0, unit, description, aux)

    def aux_coordinate(
        self, name: str, q0: float = 0.0, dq0: float = 0.0, unit: str | None = None, description: str = ""
    ) -> Expr:
        """Declare an auxiliary coordinate (3D_MEC ``new_aux_q``)."""
        return self.coordinate(name, q0, dq0, unit, description, aux=True)

    def coordinate_of(self, symbol: Expr | str) -> Coordinate:
        """The :class:`Coordinate` record of a position, velocity or acceleration symbol."""
        return quantities.coordinate_record(self, symbol)

    @atomic
    def input(
        self, name: str, value: float = 0.0, unit: str | None = None, description: str = "",
        min: float | None = None, max: float | None = None,
    ) -> Expr:  # fmt: skip
        """Declare an input (actuator force/torque or excitation) and return its symbol."""
        return quantities.declare_input(self, name, value, unit, description, min, max)

    @atomic
    def time_function(self, name: str, expr: Any) -> Expr:
        """A named function of time ``z(t)`` (a prescribed motion law); returns the expression.

        Its derivatives are taken symbolically when needed (``s.dt(z)``).
        """
        return quantities.declare_time_function(self, name, expr)

    def dt(self, expr: Any) -> Expr:
        """Total time derivative of an expression (``dt(q) = dq``, ``dt(dq) = ddq``)."""
        return time_derivative(self._expr(expr), self.ctx, accelerations=True)

    @atomic
    def output(self, name: str, expr: Any, unit: str | None = None, description: str = "") -> Expr:
        """Declare a named output: any expression of time, state, inputs and multipliers."""
        return quantities.declare_output(self, name, expr, unit, description)

    @atomic
    def output_vector(
        self, name: str, vector: Vector, base: Base | str | None = None, unit: str | None = None, description: str = ""
    ) -> list[Expr]:
        """Declare outputs ``<name>_x``, ``<name>_y``, ``<name>_z``: the components of ``vector`` in ``base``."""
        b = self._base(base, f"base of outputs {name!r}")
        comps = self._vector(vector, None, f"outputs {name!r}").components(b)
        return [self.output(f"{name}_{ax}", c, unit, description) for ax, c in zip("xyz", comps)]

    # -- geometry (module geometry) and kinematic queries (module motion) ---
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
        """
        return geometry.create_base(self, name, parent, rotation, angle)

    @atomic
    def point(self, name: str, parent: Point | str, vector: Any, base: Base | str | None = None) -> Point:
        """Create a point from its parent point and the vector joining them.

        ``vector`` is a :class:`Vector` or three components in ``base`` (default: ground base).
        """
        return geometry.create_point(self, name, parent, vector, base)

    @atomic
    def frame(self, name: str, point: Point | str, base: Base | str) -> Frame:
        """Create a frame (reference): a point and a base."""
        return geometry.create_frame(self, name, point, base)

    def position(self, a: Point | str, b: Point | str | None = None) -> Vector:
        """Position vector of ``a`` from the origin, or from ``a`` to ``b``.

        The vector from ``a`` to ``b`` is summed from their deepest common
        ancestor in the point tree, so the shared part of their chains cancels
        exactly (a point defined from ``a`` by a constant vector gives that vector).
        """
        return motion.position(self, a, b)

    def angular_velocity(self, base: Base | str, relative_to: Base | str | None = None) -> Vector:
        """Angular velocity of ``base`` relative to ``relative_to`` (default: ground)."""
        return motion.angular_velocity(self, base, relative_to)

    def angular_acceleration(self, base: Base | str, relative_to: Base | str | None = None) -> Vector:
        """Angular acceleration of ``base`` relative to the base ``relative_to`` (default: ground)."""
        return motion.angular_acceleration(self, base, relative_to)

    def velocity(
        self, point: Point | str, frame: Frame | str | None = None, solid: Solid | str | None = None
    ) -> Vector:
        """Velocity of a point relative to a frame (default: ground).

        With ``solid``, the velocity of the material point of that solid that coincides with ``point``.
        """
        return motion.velocity(self, point, frame, solid)

    def acceleration(self, point: Point | str, frame: Frame | str | None = None) -> Vector:
        """Acceleration of a point relative to a frame (default: ground), accelerations included."""
        return motion.acceleration(self, point, frame)

    def rotation_matrix(self, a: Base | str, b: Base | str) -> Matrix3:
        """Matrix mapping components in base ``a`` to components in base ``b``."""
        return motion.rotation_matrix(self, a, b)

    # -- bodies (module bodies) --------------------------------------------
    @atomic
    def solid(
        self, name: str, frame: Frame | Point | str, base: Base | str | None = None, *, mass: Any,
        com: Any = (0, 0, 0), inertia: Any = None, inertia_at: str | Point = "com",
        inertia_base: Base | str | None = None,
    ) -> Solid:  # fmt: skip
        """Create a rigid body attached to a frame (or a point and a base).

        Args:
            mass: mass (number, parameter or expression); must be non-negative.
            com: centre of mass from the frame's point: components in the body base, or a Vector.
            inertia: inertia tensor (3x3, diagonal 3-tuple or :func:`inertia`), or a :class:`Tensor`.
            inertia_at: ``"com"`` (default), ``"origin"`` (the frame's point) or a point fixed to the body.
            inertia_base: base of the inertia components (default: the body base); must be fixed to the body.
        """
        return bodies.create_solid(
            self, name, frame, base, mass=mass, com=com, inertia=inertia, inertia_at=inertia_at,
            inertia_base=inertia_base,
        )  # fmt: skip

    @atomic
    def particle(self, name: str, point: Point | str, mass: Any) -> Solid:
        """Create a point mass."""
        return bodies.create_particle(self, name, point, mass)

    # -- loads (module loading) --------------------------------------------
    @atomic
    def gravity(self, g: Any, base: Base | str | None = None, name: str = "gravity") -> None:
        """Apply a uniform gravity field to every solid: a Vector or 3 components (default: ground base)."""
        loading.apply_gravity(self, g, base, name)

    @atomic
    def force(
        self, name: str, solid: Solid | str | None, point: Point | str, force: Any = None, moment: Any = None,
        base: Base | str | None = None, reaction: Solid | str | None = None,
    ) -> Wrench:  # fmt: skip
        """Apply a force at a point of a solid (and optionally a moment on it).

        ``force``/``moment`` are Vectors or 3 components in ``base`` (default: ground).
        With ``reaction``, the opposite wrench acts on that solid (action-reaction).
        """
        return loading.apply_force(self, name, solid, point, force, moment, base, reaction)

    @atomic
    def torque(
        self, name: str, solid: Solid | str, moment: Any, base: Base | str | None = None,
        reaction: Solid | str | None = None,
    ) -> Wrench:  # fmt: skip
        """Apply a moment on a solid (and its reaction on another solid)."""
        return loading.apply_torque(self, name, solid, moment, base, reaction)

    @atomic
    def generalized_force(self, name: str, coordinate: Any, force: Any) -> ScalarForce:
        """A force (or torque) acting along a coordinate or along an expression ``s(q, t)``.

        Adds ``force * d(ds/dt)/d(dq_i)`` to the generalized forces; for a coordinate
        it is simply added to that coordinate's equation.
        """
        return loading.apply_generalized_force(self, name, coordinate, force)

    @atomic
    def spring_damper(
        self, name: str, point1: Point | str, point2: Point | str, k: Any = 0, rest_length: Any = 0,
        damping: Any = 0, actuator: Any = 0, solid1: Solid | str | None = None, solid2: Solid | str | None = None,
    ) -> SpringDamper:  # fmt: skip
        """Linear spring-damper (and optional actuator force) between two points.

        Force along the line, positive pushing the points apart:
        ``f = -k (d - rest_length) - damping dd/dt + actuator``.
        """
        return loading.apply_spring_damper(
            self, name, point1, point2, k, rest_length, damping, actuator, solid1, solid2
        )

    @atomic
    def torsion_spring_damper(
        self, name: str, angle: Any, k: Any = 0, rest_angle: Any = 0, damping: Any = 0,
        base1: Base | str | None = None, base2: Base | str | None = None, axis: Any = None,
    ) -> TorsionSpringDamper:  # fmt: skip
        """Rotational spring-damper ``tau = -k (angle - rest_angle) - damping d(angle)/dt``.

        ``angle`` is a coordinate or an angle expression.  Alternatively give
        ``angle=None`` with two bases related only by rotations about ``axis``:
        the angle is then the sum of those rotations.
        """
        return loading.apply_torsion_spring_damper(self, name, angle, k, rest_angle, damping, base1, base2, axis)

    @atomic
    def viscous_friction(
        self, name: str, coordinate: Any = None, c: Any = 0, *, base1: Base | str | None = None,
        base2: Base | str | None = None, axis: Vector | None = None,
    ) -> Load:  # fmt: skip
        """Viscous friction: ``-c * rate`` on a coordinate/expression, or ``-c (w2 - w1)`` between two bases."""
        return loading.apply_viscous_friction(self, name, coordinate, c, base1=base1, base2=base2, axis=axis)

    @atomic
    def coulomb_friction(self, name: str, coordinate: Any, force: Any, smoothing: Any = 1e-3) -> CoulombFriction:
        """Smoothed Coulomb friction ``-force * tanh(rate / smoothing)`` on a coordinate or expression rate."""
        return loading.apply_coulomb_friction(self, name, coordinate, force, smoothing)

    # -- constraints (module constraints) ----------------------------------
    @atomic
    def constraint(
        self, name: str, expr: Any, base: Base | str | None = None, components: str | None = None
    ) -> list[ConstraintRow]:
        """Holonomic constraint ``Phi(q, t) = 0``: an expression, a list, or a Vector (its components in ``base``)."""
        return constraints.add_constraint(self, name, expr, base, components, "holonomic")

    @atomic
    def velocity_constraint(
        self, name: str, expr: Any, base: Base | str | None = None, components: str | None = None
    ) -> list[ConstraintRow]:
        """Non-holonomic constraint, linear in the velocities: ``A(q, t) dq + b(q, t) = 0``."""
        return constraints.add_constraint(self, name, expr, base, components, "velocity")

    @atomic
    def initial_constraint(
        self, name: str, expr: Any, base: Base | str | None = None, components: str | None = None
    ) -> list[ConstraintRow]:
        """Initial-position condition, used only to assemble the initial configuration."""
        return constraints.add_constraint(self, name, expr, base, components, "initial")

    @atomic
    def fix_initial(self, coordinate: Any, name: str | None = None) -> list[ConstraintRow]:
        """Hold a coordinate at its initial value while assembling (3D_MEC ``Cpini``)."""
        return constraints.fix_initial(self, coordinate, name)

    @atomic
    def prescribe(self, name: str, coordinate: Any, motion: Any) -> list[ConstraintRow]:
        """Rheonomic constraint ``q - z(t) = 0`` (its multiplier is the driving effort)."""
        return constraints.prescribe(self, name, coordinate, motion)

    def multiplier(self, row: str) -> Expr:
        """The Lagrange multiplier symbol of a constraint row (usable in outputs)."""
        return constraints.multiplier(self, row)

    # -- joints (module joints) --------------------------------------------
    @atomic
    def spherical_joint(
        self, name: str, point1: Point | str, point2: Point | str, base: Base | str | None = None
    ) -> Joint:
        """Coincident points (3 equations ``r_P2 - r_P1 = 0`` in ``base``); reactions Fx, Fy, Fz.

        The reaction is the force on the body of ``point2`` from the body of ``point1``:
        ``F_k = -lambda_k``.  Rows that vanish identically (planar models) are dropped.
        """
        return SphericalJoint(name, point1, point2, base).add_to(self)

    @atomic
    def revolute_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, axis: Any = "z"
    ) -> Joint:
        """Revolute joint: coincident points and the ``axis`` of ``base2`` kept along the same axis of ``base1``.

        Reactions: Fx, Fy, Fz (in ``base1``) and the two moments normal to the axis.
        """
        return RevoluteJoint(name, point1, base1, point2, base2, axis).add_to(self)

    @atomic
    def prismatic_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, axis: Any = "x"
    ) -> Joint:
        """Prismatic joint: ``point2`` slides along ``axis`` of ``base1``; no relative rotation."""
        return PrismaticJoint(name, point1, base1, point2, base2, axis).add_to(self)

    @atomic
    def cylindrical_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, axis: Any = "z"
    ) -> Joint:
        """Cylindrical joint: ``point2`` on the ``axis`` line of ``base1``; the axes stay parallel."""
        return CylindricalJoint(name, point1, base1, point2, base2, axis).add_to(self)

    @atomic
    def universal_joint(
        self, name: str, point1: Point | str, base1: Base | str, axis1: Any, point2: Point | str, base2: Base | str,
        axis2: Any,
    ) -> Joint:  # fmt: skip
        """Universal (Cardan) joint: coincident points, ``axis1`` (of base1) perpendicular to ``axis2`` (of base2)."""
        return UniversalJoint(name, point1, base1, axis1, point2, base2, axis2).add_to(self)

    @atomic
    def distance_joint(self, name: str, point1: Point | str, point2: Point | str, length: Any) -> Joint:
        """Fixed distance (massless bar): ``|r_P1P2|^2 - length^2 = 0``; reaction: bar tension.

        The tension (positive pulling the points together) is ``2 length lambda``.
        """
        return DistanceJoint(name, point1, point2, length).add_to(self)

    @atomic
    def generic_joint(self, name: str, equations: Sequence[Any], reactions: Sequence[str] | None = None) -> Joint:
        """A joint given by its own constraint equations; ``reactions`` names their multipliers."""
        return GenericJoint(name, equations, reactions).add_to(self)

    # -- visual geometry and derivation ------------------------------------
    @atomic
    def shape(
        self, shape: Shape, on: Any = None, offset: Any = (0, 0, 0), rotation: Any = None, color: Any = None,
        opacity: float = 1.0, name: str | None = None,
    ) -> ShapeAttachment:  # fmt: skip
        """Attach a visual shape (:class:`symbody.Box`, ``Cylinder``, ``Sphere``, ``Line``, ``Axes``, ``Mesh``).

        ``on`` is a solid, frame, base, point or ``(point, base)`` (default: the ground frame);
        ``offset`` (components in that base) and ``rotation`` (``sb.Rx(...)`` or a 3x3 matrix) are
        constant.  Shapes only draw the model (``symbody animate``); they do not change its equations.
        """
        return attach_shape(self, shape, on, offset, rotation, color, opacity, name)

    def derive(
        self,
        progress: bool | Callable[[int, int, str], None] | None = None,
        check: bool = True,
        formulation: str = "auto",
    ) -> Any:
        """Derive the equations of motion: returns an :class:`symbody.Equations`.

        Args:
            progress: ``True`` to show a progress bar for derivations that take more
                than two seconds, or a callable ``(done, total, what)``.
            check: run the model checks (undeclared symbols, empty model, ...).
            formulation: ``"auto"`` (default: the recursive formulation for trees of
                relative joints, keeping the virtual-power one where it gives shorter
                code), ``"recursive"`` or ``"virtual_power"``.
        """
        from ..equations import derive_equations

        return derive_equations(self, progress=progress, check=check, formulation=formulation)

    @property
    def q(self) -> list[Expr]:
        """The coordinate symbols, in order."""
        return [c.q for c in self.coordinates]

    @property
    def dq(self) -> list[Expr]:
        """The velocity symbols, in order."""
        return [c.dq for c in self.coordinates]

    @property
    def ddq(self) -> list[Expr]:
        """The acceleration symbols, in order."""
        return [c.ddq for c in self.coordinates]


__all__ = ["System"]
