"""The model container: :class:`System`, a facade over the modules of the model.

A :class:`System` holds everything a 3D_MEC user can define: parameters,
coordinates, inputs, motion inputs, first-order states, time functions, bases, points, frames,
solids, loads, constraints, joints and outputs.  Its methods are thin: each delegates to the
module of its concept (:mod:`~symbody.model.quantities`, :mod:`~symbody.model.geometry`,
:mod:`~symbody.model.motion`, :mod:`~symbody.model.bodies`, :mod:`~symbody.model.loads`,
:mod:`~symbody.model.springs`,
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

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import set_time_rate
from ..symbolic.expr import ONE, Context, Expr
from . import bodies, contacts, friction, geometry, loads, reactions
from . import expressions as ex
from .base import Base
from .bodies import BodiesMixin, Solid
from .constraints import ConstraintRow, ConstraintsMixin
from .contacts import ContactsMixin
from .deprecation import formerly_positional
from .expressions import ExpressionsMixin
from .friction import FrictionMixin
from .geometry import Frame, GeometryMixin, Point
from .hydraulics import HydraulicsMixin
from .joints import Joint, JointsMixin
from .kinematics import Kinematics
from .loads import Load, LoadsMixin
from .motion import MotionMixin
from .one_sided import OneSidedMixin
from .quantities import Coordinate, Input, Output, Parameter, QuantitiesMixin, check_text
from .reactions import ReactionsMixin
from .registry import Registry, check_identifier
from .ropes import RopesMixin
from .shapes import ShapeAttachment, ShapesMixin
from .springs import SpringsMixin
from .states import State, StatesMixin
from .winches import WinchesMixin

if TYPE_CHECKING:  # the one upward import of the model, sanctioned by tests/test_layers.py
    from ..equations import Equations

MAX_MODEL_NAME = 128


class System(
    QuantitiesMixin, StatesMixin, ExpressionsMixin, GeometryMixin, MotionMixin, BodiesMixin, LoadsMixin,
    SpringsMixin, RopesMixin, OneSidedMixin, WinchesMixin, HydraulicsMixin, ConstraintsMixin, JointsMixin,
    ReactionsMixin, ContactsMixin, FrictionMixin, ShapesMixin,
):  # fmt: skip
    """A multibody model.

    Its methods come by concept from the mixins of the model's modules (:class:`QuantitiesMixin` in
    :mod:`~symbody.model.quantities`, :class:`JointsMixin` in :mod:`~symbody.model.joints`, ...).

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
        self.elements: dict[str, Any] = {}  # ropes, slings, buffers, winches, hydraulic cylinders by name
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
    _solid = bodies.resolve_solid
    _vector = geometry.resolve_vector
    _frame_args = geometry.resolve_frame
    _rate = loads.rate_of

    def _check_name(self, name: str, what: str) -> None:
        self.registry.check(name, what)

    def _claim(self, name: str, what: str) -> None:
        self.registry.claim(name, what)

    @formerly_positional("progress", "check", "formulation")
    def derive(
        self,
        *,
        progress: bool | Callable[[int, int, str], None] | None = None,
        check: bool = True,
        formulation: str = "auto",
    ) -> Equations:
        """Derive the equations of motion: returns an :class:`symbody.Equations`.

        Args:
            progress: ``True`` to show a progress bar for derivations that take more
                than two seconds, or a callable ``(done, total, what)``.
            check: run the model checks (undeclared symbols, empty model, ...).
            formulation: ``"auto"`` (default: the recursive formulation for trees of
                relative joints, keeping the virtual-power one where it gives shorter
                code, and the articulated-body accelerations where they are shorter than
                ``[M|delta]`` and a solve), ``"recursive"``, ``"virtual_power"`` or ``"articulated"``.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("fall")
            >>> y = s.coordinate("y"); m = s.parameter("m", 2.0)
            >>> _ = s.particle("ball", s.point("P", s.origin, (0, y, 0)), m)
            >>> s.gravity((0, -9.81, 0))
            >>> eq = s.derive(formulation="virtual_power")
            >>> eq.M, eq.delta
            ([[m]], [-9.81*m])
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
