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
    beams,
    bodies,
    bushings,
    constraints,
    contacts,
    flexible,
    friction,
    geometry,
    loading,
    motion,
    quantities,
    reactions,
    states,
)
from . import expressions as ex
from .base import Base
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
from .point import Frame, Point
from .registry import Registry, atomic, check_identifier
from .shapes import ShapeAttachment, attach_shape
from .solid import Solid
from .symbols import ConstraintRow, Coordinate, Input, Output, Parameter, State, check_text

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
        self.flexible_bodies: dict[str, flexible.FlexibleBeam] = {}
        self.registry.track(
            self.parameters, self.coordinates, self.inputs, self.outputs, self.time_functions, self.bases,
            self.points, self.frames, self.solids, self.loads, self.constraints, self.joints, self._multipliers,
            self.shapes, self.unilaterals, self.frictions, self.reactions, self.ctx.symbols, self.ctx.by_name,
            self.ctx.time_rates, self.states, self.flexible_bodies,
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

    # -- elastic elements (modules bushings, beams, flexible) ---------------
    def bushing(
        self, name: str, frame1: Frame | str, frame2: Frame | str, *, stiffness: Any, damping: Any = None,
        preload: Any = None,
    ) -> bushings.Bushing:  # fmt: skip
        """A six-component spring-damper (elastic mount) between two frames; its wrench as outputs.

        On the deflection ``s = (d, theta)`` of frame 2 in frame 1's basis (position of frame 2's
        origin, small-rotation vector of ``R1^T R2``) and its rate ``s'`` (``d d/dt``,
        ``omega_2 - omega_1``), the wrench on frame 2's body at its origin, in frame 1's basis, is
        ``preload - K s - C s'``; frame 1's body takes the opposite wrench at the same point.
        ``stiffness`` and ``damping`` are 6 values (a diagonal) or 6 rows of 6 on
        ``(x, y, z, rx, ry, rz)``; ``preload`` is ``(Fx, Fy, Fz, Mx, My, Mz)``.  The outputs
        ``<name>_Fx`` ... ``<name>_Mz`` give the wrench (:mod:`symbody.model.bushings`).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("mount")
            >>> z = s.coordinate("z")
            >>> top = s.frame("top", s.point("P", s.origin, (0, 0, z)), s.ground_base)
            >>> _ = s.particle("m", top.point, 2.0)
            >>> b = s.bushing("rubber", s.ground, top, stiffness=[4e4] * 3 + [50] * 3, preload=(0, 0, 19.62, 0, 0, 0))
            >>> s.gravity((0, 0, -9.81))
            >>> s.derive().delta[0]  # the preload carries the weight
            -40000*z
        """
        with self.registry.transaction():
            return bushings.add_bushing(
                self, name, frame1, frame2, stiffness=stiffness, damping=damping, preload=preload
            )

    def beam(
        self, name: str, frame1: Frame | str, frame2: Frame | str, *, E: Any = None, G: Any = None, area: Any = None,
        Iy: Any = None, Iz: Any = None, J: Any = None, length: Any = None, stiffness: Any = None, damping: Any = None,
    ) -> beams.Beam:  # fmt: skip
        """A massless beam element from frame 1 (clamped end, beam along its x axis) to frame 2; wrench as outputs.

        Euler-Bernoulli with the section ``E, G, area, Iy, Iz, J`` (``Iy``, ``Iz`` about frame 1's y
        and z axes) and ``length`` (default: the frames' distance at the initial configuration), or a
        generalized beam with ``stiffness`` a 6x6 matrix (numbers become parameters
        ``<name>_K<i>_<j>``; :func:`~symbody.model.beams.end_stiffness` extracts it from a 12x12
        finite-element matrix).  The wrench on frame 2's body is ``-K s - C s'`` with
        ``s = (d - (L, 0, 0), theta)`` as for :meth:`bushing`; relative rotations must stay small.
        Outputs ``<name>_Fx`` ... ``<name>_Mz`` (:mod:`symbody.model.beams`).

        Example (the free end of a cantilever 1 mm down: ``12 E Iy / L^3 z`` and ``6 E Iy / L^2 z`` hold it):
            >>> import symbody as sb
            >>> from symbody.model.expressions import default_value
            >>> s = sb.System("cantilever")
            >>> z, ry = s.coordinate("z", 1e-3), s.coordinate("ry")
            >>> tip = s.frame("tip", s.point("P", s.origin, (2.0, 0, z)), s.base("B", s.ground_base, sb.Ry(ry)))
            >>> b = s.beam("b", s.ground, tip, E=2e11, G=8e10, area=1e-3, Iy=2e-7, Iz=3e-7, J=4e-7, length=2.0)
            >>> [round(default_value(s, b.wrench(s.kinematics)[i]), 9) for i in (2, 4)]  # Fz, My
            [-60.0, -60.0]
        """
        with self.registry.transaction():
            return beams.add_beam(
                self, name, frame1, frame2, E=E, G=G, area=area, Iy=Iy, Iz=Iz, J=J, length=length,
                stiffness=stiffness, damping=damping,
            )  # fmt: skip

    def flexible_beam(
        self, name: str, root_frame: Frame | str, *, length: Any, segments: int, E: Any, G: Any, rho: Any, area: Any,
        Iy: Any, Iz: Any, J: Any, damping: Any = None, axial: bool = True, torsion: bool = True,
    ) -> Frame:  # fmt: skip
        """A flexible beam along the x axis of ``root_frame``, as rigid segments joined by springs; its tip frame.

        The rigid finite element method with Kruszewski's division: ``segments`` springs, each at the
        middle of a segment of length ``length / segments`` with that segment's stiffness
        (``E A``, ``G J``, ``E Iy``, ``E Iz`` over its length), and rigid elements between them with
        the mass ``rho A`` per length and its rotary inertia; the first half segment is fixed to the
        root frame.  ``Iy`` and ``Iz`` are about the root frame's y and z axes; ``damping`` is a
        stiffness-proportional factor (s); ``axial=False``/``torsion=False`` leave those degrees of
        freedom out.  The chain of relative coordinates keeps the equations linear in ``segments``
        (recursive formulation).  ``s.flexible_bodies[name]`` records what was built
        (:mod:`symbody.model.flexible`).

        Example (a steel cantilever of 10 segments under its weight):
            >>> import symbody as sb
            >>> s = sb.System("boom")
            >>> tip = s.flexible_beam("boom", s.ground, length=3.0, segments=10, E=2.1e11, G=8.1e10, rho=7850,
            ...                       area=2e-3, Iy=4e-6, Iz=6e-6, J=8e-6, axial=False, torsion=False)
            >>> s.gravity((0, 0, -9.81))
            >>> len(s.coordinates), s.flexible_bodies["boom"].segments, tip.name
            (20, 10, 'boom_tip')
        """
        with self.registry.transaction():
            return flexible.add_flexible_beam(
                self, name, root_frame, length=length, segments=segments, E=E, G=G, rho=rho, area=area, Iy=Iy, Iz=Iz,
                J=J, damping=damping, axial=axial, torsion=torsion,
            )  # fmt: skip

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
