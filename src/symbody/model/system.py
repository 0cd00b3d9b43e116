"""The model container: :class:`System`, a facade over the modules of the model.

A :class:`System` holds everything a 3D_MEC user can define: parameters,
coordinates, inputs, motion inputs, first-order states, time functions, bases, points, frames,
solids, loads, constraints, joints and outputs.  Its methods are thin: each delegates to the
module of its concept (:mod:`~symbody.model.quantities`, :mod:`~symbody.model.geometry`,
:mod:`~symbody.model.motion`, :mod:`~symbody.model.bodies`, :mod:`~symbody.model.loading`,
:mod:`~symbody.model.constraints`, :mod:`~symbody.model.joints`, :mod:`~symbody.model.reactions`) and every
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
from ..symbolic.calculus import set_time_rate
from ..symbolic.expr import ONE, Context, Expr
from . import (
    bodies,
    constraints,
    contacts,
    friction,
    geometry,
    hydraulics,
    loading,
    motion,
    one_sided,
    quantities,
    reactions,
    ropes,
    states,
    winches,
)
from . import expressions as ex
from .base import Base
from .hydraulics import HydraulicCylinder
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
from .kinematics import Kinematics
from .loads import Load
from .one_sided import OneSidedSpring
from .point import Frame, Point
from .registry import Registry, atomic, check_identifier
from .ropes import Rope
from .shapes import ShapeAttachment, attach_shape
from .solid import Solid
from .symbols import ConstraintRow, Coordinate, Input, Output, Parameter, State, check_text
from .winches import Winch

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
        if isinstance(name, str) and len(name) > MAX_MODEL_NAME:
            raise ModelError(
                f"system name {name[:40]!r}... is {len(name)} characters long: at most {MAX_MODEL_NAME}"
                " (it names the FMU and its files)"
            )
        check_identifier(name, "system")
        self.name = name
        self.description = description  # checked by the property
        self.ctx = Context()
        self.kinematics = Kinematics(self)
        self.registry = Registry()
        self.parameters: dict[str, Parameter] = {}
        self.coordinates: list[Coordinate] = []
        self.inputs: dict[str, Input] = {}
        self.states: dict[str, State] = {}
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
        self.unilaterals: list[contacts.Unilateral] = []
        self.frictions: list[friction.StickSlip] = []
        self.reactions: list[reactions.JointWrench] = []
        self.elements: dict[str, Any] = {}  # ropes, slings, buffers, winches, hydraulic cylinders by name
        self.registry.track(
            self.parameters, self.coordinates, self.inputs, self.outputs, self.time_functions, self.bases,
            self.points, self.frames, self.solids, self.loads, self.constraints, self.joints, self._multipliers,
            self.shapes, self.unilaterals, self.frictions, self.reactions, self.ctx.symbols, self.ctx.by_name,
            self.ctx.time_rates, self.states, self.elements,
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

    # -- what the model's own modules reach through the system -----------
    _expr = ex.to_expr
    _require = ex.require
    _state_mask = ex.state_mask
    _default_value = ex.default_value
    _base = geometry.resolve_base
    _point = geometry.resolve_point
    _solid = geometry.resolve_solid
    _vector = geometry.resolve_vector
    _frame_args = geometry.resolve_frame
    _rate = loading.rate_of

    def _check_name(self, name: str, what: str) -> None:
        self.registry.check(name, what)

    def _claim(self, name: str, what: str) -> None:
        self.registry.claim(name, what)

    # -- symbols and named quantities (modules expressions, quantities) ----
    symbol = ex.symbol_named
    default_values = ex.default_values
    dt = ex.total_derivative
    parameter = atomic(quantities.declare_parameter)
    parameters_ = atomic(quantities.declare_parameters)
    coordinate = atomic(quantities.declare_coordinate)
    aux_coordinate = atomic(quantities.declare_aux_coordinate)
    coordinate_of = quantities.coordinate_record
    input = atomic(quantities.declare_input)
    motion_input = atomic(quantities.declare_motion_input)
    state = atomic(states.declare_state)
    rate = atomic(states.set_rate)
    time_function = atomic(quantities.declare_time_function)
    output = atomic(quantities.declare_output)
    output_vector = atomic(quantities.declare_output_vector)

    # -- geometry (module geometry) and kinematic queries (module motion) ---
    base = atomic(geometry.create_base)
    point = atomic(geometry.create_point)
    frame = atomic(geometry.create_frame)
    position = motion.position
    angular_velocity = motion.angular_velocity
    angular_acceleration = motion.angular_acceleration
    velocity = motion.velocity
    acceleration = motion.acceleration
    rotation_matrix = motion.rotation_matrix

    # -- bodies (module bodies) and loads (module loading) ------------------
    solid = atomic(bodies.create_solid)
    particle = atomic(bodies.create_particle)
    gravity = atomic(loading.apply_gravity)
    force = atomic(loading.apply_force)
    torque = atomic(loading.apply_torque)
    generalized_force = atomic(loading.apply_generalized_force)
    spring_damper = atomic(loading.apply_spring_damper)
    torsion_spring_damper = atomic(loading.apply_torsion_spring_damper)
    viscous_friction = atomic(loading.apply_viscous_friction)
    coulomb_friction = atomic(loading.apply_coulomb_friction)

    # -- ropes and one-sided spring-dampers (modules ropes, one_sided) -------
    @atomic
    def rope(
        self,
        name: str,
        path: Sequence[Point | str],
        *,
        stiffness: Any,
        unstretched_length: Any,
        damping: Any = 0,
        falls: int = 1,
        outputs: bool = True,
    ) -> Rope:
        """An elastic rope from its anchor through ``path`` to its end; it pulls and never pushes.

        ``stiffness`` is the axial stiffness ``EA`` (N), ``damping`` ``c`` (N s/m) and
        ``unstretched_length`` ``L0`` (m; an expression of coordinates and states pays rope out, as a
        winch does).  The tension is ``max(0, EA (L - L0) / L0 + c d(L - L0)/dt)``, with ``L`` the sum
        of the segments between consecutive points; the points of the path may be fixed or on bodies
        (sheaves: frictionless pulleys of negligible radius).  ``falls=n`` reeves the last segment (upper
        block to hook block) ``n`` times.  Going slack or taut is an event located exactly in time.
        Outputs ``<name>_tension``, ``<name>_stretch`` and ``<name>_length`` unless ``outputs=False``.
        See :mod:`symbody.model.ropes`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("crane_hook")
            >>> y = s.coordinate("y", -3.0, unit="m")
            >>> hook = s.point("hook", s.origin, (0, y, 0))
            >>> _ = s.particle("payload", hook, 500.0)
            >>> s.gravity((0, -9.81, 0))
            >>> line = s.rope("hoist", [s.origin, hook], stiffness=2e6, unstretched_length=3.0, falls=2)
            >>> line.length, s.derive().switches
            (2*sqrt(y**2), [2000000/3*(3 - 2*sqrt(y**2))])
        """
        return ropes.add_rope(
            self, name, path, stiffness=stiffness, unstretched_length=unstretched_length, damping=damping,
            falls=falls, outputs=outputs,
        )  # fmt: skip

    @atomic
    def winch(
        self,
        name: str,
        rope: Rope | str,
        *,
        radius: Any,
        inertia: Any,
        drive: str = "torque",
        torque: Any = None,
        speed: Any = None,
        speed_gain: Any = None,
        motor_time_constant: Any = 0,
        point: Point | str | None = None,
        base: Base | str | None = None,
    ) -> Winch:
        """A winch whose drum angle ``name`` (rad, positive heaving in) sets the rope's unstretched length.

        The rope's unstretched length becomes ``L0 - radius * angle`` (``L0`` as the rope was given);
        the drum (``inertia`` about axis z of ``base`` at ``point``) is driven by a torque
        (``drive="torque"``: ``torque``, by default the input ``<name>_torque``) or by a speed
        controller (``drive="speed"``: ``speed_gain (w_m - d angle/dt)``, the motor speed ``w_m``
        following ``speed``, by default the input ``<name>_speed_ref``, through a first-order lag of
        ``motor_time_constant`` when it is positive: the state ``<name>_motor_speed``).  Output
        ``<name>_drive_torque``.  See :mod:`symbody.model.winches`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("winch_demo")
            >>> y = s.coordinate("y", -4.0)
            >>> hook = s.point("hook", s.origin, (0, y, 0))
            >>> _ = s.particle("payload", hook, 100.0)
            >>> s.gravity((0, -9.81, 0))
            >>> line = s.rope("line", [s.origin, hook], stiffness=5e5, damping=2e3, unstretched_length=4.0)
            >>> drum = s.winch("drum", line, radius=0.2, inertia=1.5, drive="speed", speed_gain=2e3,
            ...                motor_time_constant=0.2)
            >>> sorted(s.derive().inputs[k].name for k in range(1)), [x.name for x in s.derive().states]
            (['drum_speed_ref'], ['drum_motor_speed'])
        """
        return winches.add_winch(
            self, name, rope, radius=radius, inertia=inertia, drive=drive, torque=torque, speed=speed,
            speed_gain=speed_gain, motor_time_constant=motor_time_constant, point=point, base=base,
        )  # fmt: skip

    @atomic
    def hydraulic_cylinder(
        self,
        name: str,
        point1: Point | str,
        point2: Point | str,
        *,
        piston_area: Any,
        rod_area: Any,
        stroke: Any,
        retracted_length: Any,
        dead_volume: Any,
        bulk_modulus: Any,
        valve: Any = None,
        flow_gain: Any = 0,
        supply_pressure: Any = 2.0e7,
        tank_pressure: Any = 1.0e5,
        leakage: Any = 0,
        friction: Any = 0,
        laminar_pressure: Any = 1.0e4,
        cavitation_pressure: Any = 2.0e4,
        initial_pressures: tuple[float, float] = (1.0e5, 1.0e5),
        restitution: Any = 0.0,
    ) -> HydraulicCylinder:
        """A differential hydraulic cylinder, barrel at ``point1``, rod end at ``point2``, fed by a valve.

        Its two chamber pressures are first-order states (``<name>_p1`` cap side, ``<name>_p2`` rod
        side, absolute, Pa) with the oil's compressibility (``bulk_modulus``) in the chamber volumes of
        the current extension ``x = distance - retracted_length`` (``dead_volume``: one value or the
        pair), flows from a critical-centre proportional valve (spool ``valve`` in [-1, 1], by default
        the input ``<name>_spool``; orifice law ``flow_gain |u| sign(dp) sqrt(|dp|)``, laminar within
        ``laminar_pressure`` of ``dp = 0``), ``leakage`` across the piston (m^3/s/Pa) and viscous
        ``friction`` (N s/m).  End-of-stroke stops are the unilateral contacts ``<name>_retracted``
        and ``<name>_extended``; the bulk modulus vanishes near zero absolute pressure
        (``cavitation_pressure``), so no pressure becomes negative.  Outputs ``<name>_extension``,
        ``<name>_force``, ``<name>_flow1``, ``<name>_flow2``.  See :mod:`symbody.model.hydraulics`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("boom_lift")
            >>> y = s.coordinate("y", 1.2)
            >>> rod_end = s.point("rod_end", s.origin, (0, y, 0)); _ = s.particle("boom", rod_end, 800.0)
            >>> s.gravity((0, -9.81, 0))
            >>> lift = s.hydraulic_cylinder("lift", s.origin, rod_end, piston_area=8e-3, rod_area=3e-3,
            ...     stroke=0.6, retracted_length=1.0, dead_volume=2e-4, bulk_modulus=1.4e9, flow_gain=2e-7,
            ...     supply_pressure=2.1e7, initial_pressures=(1.2e6, 1e5))
            >>> eq = s.derive()
            >>> [x.name for x in eq.states], [u.name for u in eq.inputs]
            (['lift_p1', 'lift_p2'], ['lift_spool'])
        """
        return hydraulics.add_hydraulic_cylinder(
            self, name, point1, point2, piston_area=piston_area, rod_area=rod_area, stroke=stroke,
            retracted_length=retracted_length, dead_volume=dead_volume, bulk_modulus=bulk_modulus, valve=valve,
            flow_gain=flow_gain, supply_pressure=supply_pressure, tank_pressure=tank_pressure, leakage=leakage,
            friction=friction, laminar_pressure=laminar_pressure, cavitation_pressure=cavitation_pressure,
            initial_pressures=initial_pressures, restitution=restitution,
        )  # fmt: skip

    @atomic
    def sling(
        self, name: str, point1: Point | str, point2: Point | str, *, k: Any, rest_length: Any, damping: Any = 0
    ) -> OneSidedSpring:
        """A spring-damper that only pulls the points together: ``max(0, k (d - rest_length) + c dd/dt)``.

        ``k`` in N/m, ``damping`` in N s/m; slack when the distance ``d`` is short.  See
        :mod:`symbody.model.one_sided`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("tether")
            >>> x = s.coordinate("x", 1.5)
            >>> P = s.point("P", s.origin, (x, 0, 0)); _ = s.particle("buoy", P, 10.0)
            >>> tether = s.sling("tether", s.origin, P, k=1e3, rest_length=1.0, damping=5.0)
            >>> tether.distance, s.derive().switches
            (sqrt(x**2), [1000*(1 - sqrt(x**2)) - 5*x*dx/sqrt(x**2)])
        """
        return one_sided.add_sling(self, name, point1, point2, k=k, rest_length=rest_length, damping=damping)

    @atomic
    def buffer(
        self, name: str, point1: Point | str, point2: Point | str, *, k: Any, free_length: Any, damping: Any = 0
    ) -> OneSidedSpring:
        """A spring-damper that only pushes the points apart: ``max(0, k (free_length - d) - c dd/dt)``.

        ``k`` in N/m, ``damping`` in N s/m; free when the distance ``d`` is long.  See
        :mod:`symbody.model.one_sided`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("stop")
            >>> x = s.coordinate("x", 1.0, unit="m")
            >>> P = s.point("P", s.origin, (x, 0, 0)); _ = s.particle("trolley", P, 10.0)
            >>> s.buffer("end_stop", s.origin, P, k=1e5, free_length=0.1).kind
            'buffer'
        """
        return one_sided.add_buffer(self, name, point1, point2, k=k, free_length=free_length, damping=damping)

    # -- constraints (module constraints) ----------------------------------
    constraint = atomic(constraints.holonomic_constraint)
    velocity_constraint = atomic(constraints.velocity_constraint)
    initial_constraint = atomic(constraints.initial_constraint)
    fix_initial = atomic(constraints.fix_initial)
    prescribe = atomic(constraints.prescribe)
    multiplier = constraints.multiplier
    joint_reaction = atomic(reactions.joint_reaction)

    # -- events (modules contacts, friction) -------------------------------
    unilateral = atomic(contacts.add_unilateral)
    stick_slip = atomic(friction.add_stick_slip)

    # -- joints (module joints) --------------------------------------------
    @atomic
    def spherical_joint(
        self, name: str, point1: Point | str, point2: Point | str, base: Base | str | None = None
    ) -> Joint:
        """Coincident points (3 equations ``r_P2 - r_P1 = 0`` in ``base``); reactions Fx, Fy, Fz.

        The reaction is the force on the body of ``point2`` from the body of ``point1``:
        ``F_k = -lambda_k``.  Rows that vanish identically (planar models) are dropped.
        Example: :class:`~symbody.model.joints.SphericalJoint`.
        """
        return SphericalJoint(name, point1, point2, base).add_to(self)

    @atomic
    def revolute_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, axis: Any = "z"
    ) -> Joint:
        """Revolute joint: coincident points and the ``axis`` of ``base2`` kept along the same axis of ``base1``.

        Reactions: Fx, Fy, Fz (in ``base1``) and the two moments normal to the axis.
        Example: :class:`~symbody.model.joints.RevoluteJoint`.
        """
        return RevoluteJoint(name, point1, base1, point2, base2, axis).add_to(self)

    @atomic
    def prismatic_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, axis: Any = "x"
    ) -> Joint:
        """Prismatic joint: ``point2`` slides along ``axis`` of ``base1``; no relative rotation.

        Example: :class:`~symbody.model.joints.PrismaticJoint`.
        """
        return PrismaticJoint(name, point1, base1, point2, base2, axis).add_to(self)

    @atomic
    def cylindrical_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, axis: Any = "z"
    ) -> Joint:
        """Cylindrical joint: ``point2`` on the ``axis`` line of ``base1``; the axes stay parallel.

        Example: :class:`~symbody.model.joints.CylindricalJoint`.
        """
        return CylindricalJoint(name, point1, base1, point2, base2, axis).add_to(self)

    @atomic
    def universal_joint(
        self, name: str, point1: Point | str, base1: Base | str, axis1: Any, point2: Point | str, base2: Base | str,
        axis2: Any,
    ) -> Joint:  # fmt: skip
        """Universal (Cardan) joint: coincident points, ``axis1`` (of base1) perpendicular to ``axis2`` (of base2).

        Example: :class:`~symbody.model.joints.UniversalJoint`.
        """
        return UniversalJoint(name, point1, base1, axis1, point2, base2, axis2).add_to(self)

    @atomic
    def distance_joint(self, name: str, point1: Point | str, point2: Point | str, length: Any) -> Joint:
        """Fixed distance (massless bar): ``|r_P1P2|^2 - length^2 = 0``; reaction: bar tension.

        The tension (positive pulling the points together) is ``2 length lambda``.
        Example: :class:`~symbody.model.joints.DistanceJoint`.
        """
        return DistanceJoint(name, point1, point2, length).add_to(self)

    @atomic
    def generic_joint(self, name: str, equations: Sequence[Any], reactions: Sequence[str] | None = None) -> Joint:
        """A joint given by its own constraint equations; ``reactions`` names their multipliers.

        Example: :class:`~symbody.model.joints.GenericJoint`.
        """
        return GenericJoint(name, equations, reactions).add_to(self)

    # -- visual geometry (module shapes) and derivation --------------------
    shape = atomic(attach_shape)

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
                code, and the articulated-body accelerations where they are shorter than
                ``[M|delta]`` and a solve), ``"recursive"``, ``"virtual_power"`` or ``"articulated"``.
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
