"""The model container: :class:`System`.

A :class:`System` holds everything a 3D_MEC user can define: parameters,
coordinates, inputs, time functions, bases, points, frames, solids, loads,
constraints, joints and outputs.  :meth:`System.derive` turns it into an
:class:`symbody.Equations`.

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

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ModelError
from ..symbolic.calculus import set_time_rate, time_derivative
from ..symbolic.expr import ONE, ZERO, Context, Expr, as_expr, mul, neg, sub
from ..symbolic.kinematics import Kinematics
from ..symbolic.sympy_bridge import UndeclaredSymbolError
from .base import AxisRotation, Base, EulerAngles, Rotation, axis_index
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
from .point import Frame, Point, relative_position
from .shapes import Shape, ShapeAttachment, attach_shape
from .solid import Solid, as_inertia_rows
from .symbols import (
    ConstraintRow,
    Coordinate,
    Input,
    Joint,
    Output,
    Parameter,
    check_text,
    check_unit_and_description,
)
from .vector import Tensor, Vector

MAX_MODEL_NAME = 128
_IDENT_OK = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

_C_RESERVED = {
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "int",
    "long",
    "register",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "inline",
    "restrict",
    "sin",
    "cos",
    "tan",
    "exp",
    "log",
    "sqrt",
    "pow",
    "fabs",
    "tanh",
    "atan2",
    "math",
    "np",
    "t",
    "M",
    "delta",
    "self",
    "lambda",
    "None",
    "True",
    "False",
    "and",
    "or",
    "not",
    "in",
    "is",
    "def",
    "class",
    "import",
    "from",
    "pass",
    "with",
    "yield",
    "try",
    "except",
    "raise",
    "global",
    "nonlocal",
    "assert",
    "del",
    "elif",
    "finally",
    "as",
    "async",
    "await",
}


def _mask_of(x: Any) -> int:
    """Bit mask of the symbols an expression, a Vector or a nested sequence of them depends on."""
    if isinstance(x, Expr):
        return x.mask
    if isinstance(x, Vector):
        return x.mask
    if isinstance(x, (list, tuple)):
        m = 0
        for y in x:
            m |= _mask_of(y)
        return m
    return 0


GEOMETRY = ("parameter", "coordinate", "time")
LOADS = ("parameter", "coordinate", "velocity", "time", "input")


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
    """

    def __init__(self, name: str = "model", description: str = ""):
        self._check_identifier(name, "system")
        if len(name) > MAX_MODEL_NAME:
            raise ModelError(
                f"system name {name[:40]!r}... is {len(name)} characters long: at most {MAX_MODEL_NAME}"
                " (it names the FMU and its files)"
            )
        self.name = name
        self.description = description  # checked by the property
        self.ctx = Context()
        self.kinematics = Kinematics(self)
        self._names: dict[str, str] = {}
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
        self._claim("t", "time")
        self.t = self.ctx.symbol("t", "time")
        set_time_rate(self.ctx, self.t, ONE, ONE)
        self._claim("xyz", "base")
        self.ground_base = Base(self, "xyz", None, None)
        self.bases["xyz"] = self.ground_base
        self._claim("O", "point")
        self.origin = Point(self, "O", None, None)
        self.points["O"] = self.origin
        self._claim("abs", "frame")
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

    # ------------------------------------------------------------------
    # names and expressions
    # ------------------------------------------------------------------
    @staticmethod
    def _check_identifier(name: Any, what: str) -> None:
        if not isinstance(name, str) or not name or name[0].isdigit() or not set(name) <= _IDENT_OK:
            raise ModelError(f"invalid {what} name {name!r}: use letters, digits and '_' (not starting with a digit)")

    def _check_name(self, name: str, what: str) -> None:
        """Raise ModelError if ``name`` is invalid or taken (without claiming it)."""
        self._check_identifier(name, what)
        if name in self._names:
            raise ModelError(f"duplicate name {name!r}: already used by {self._names[name]} {name!r}")
        if name in _C_RESERVED and what not in ("time", "base", "point", "frame"):
            raise ModelError(f"invalid {what} name {name!r}: it is reserved in generated code")

    def _claim(self, name: str, what: str) -> None:
        self._check_name(name, what)
        self._names[name] = what

    def _expr(self, x: Any, what: str = "expression") -> Expr:
        """Convert user input to an expression of this system, or raise ModelError."""
        try:
            e = as_expr(x, self.ctx)
        except UndeclaredSymbolError as err:
            raise ModelError(
                f"{what}: symbol {err.name!r} is used but never declared in system {self.name!r}"
            ) from None
        except (TypeError, ModelError) as err:  # not an expression; an infinite or NaN number
            raise ModelError(f"{what}: {err}") from None
        if e.ctx is not None and e.ctx is not self.ctx:
            raise ModelError(f"{what}: the expression {e} belongs to another system")
        return e

    def symbol(self, name: str) -> Expr:
        """The symbol called ``name`` (parameter, coordinate, velocity, input, time, ...)."""
        s = self.ctx.by_name.get(name)
        if s is None:
            raise ModelError(f"no symbol named {name!r} in system {self.name!r}")
        return s

    def _state_mask(self) -> int:
        m = self.t.mask
        for c in self.coordinates:
            m |= c.q.mask | c.dq.mask | c.ddq.mask
        return m

    _KIND_WORDS = {
        "time": "time",
        "parameter": "parameters",
        "coordinate": "coordinates",
        "velocity": "velocities",
        "acceleration": "accelerations",
        "input": "inputs",
        "multiplier": "multipliers",
    }

    def _require(self, what: str, exprs: Any, allowed: tuple[str, ...]) -> None:
        """Raise a ModelError naming the first symbol of ``exprs`` whose kind is not in ``allowed``.

        ``exprs`` is an expression, a Vector or a (nested) sequence of them; kinds are
        those of :meth:`symbody.symbolic.expr.Context.symbol` (``"parameter"``, ``"coordinate"``, ...).
        """
        mask = _mask_of(exprs)
        if not mask:
            return
        for s in self.ctx.symbols:
            if s.mask & mask and s.kind not in allowed:
                kind = {"velocity": "velocity", "acceleration": "acceleration"}.get(s.kind, s.kind)
                words = [self._KIND_WORDS[k] for k in allowed if k in self._KIND_WORDS]
                only = ", ".join(words[:-1]) + (" and " if len(words) > 1 else "") + words[-1] if words else "numbers"
                raise ModelError(f"{what} depends on the {kind} {s.name!r}; it may depend only on {only}")

    def default_values(self) -> dict[Expr, float]:
        """Values of every symbol at the defaults: parameters, initial state, inputs, ``t = 0``."""
        vals: dict[Expr, float] = {self.t: 0.0}
        for p in self.parameters.values():
            vals[p.symbol] = p.value
        for c in self.coordinates:
            vals[c.q] = c.q0
            vals[c.dq] = c.dq0
            vals[c.ddq] = 0.0
        for u in self.inputs.values():
            vals[u.symbol] = u.value
        for lam in self._multipliers.values():
            vals[lam] = 0.0
        return vals

    def _default_value(self, e: Expr) -> float:
        from ..symbolic.evaluate import evaluate

        return evaluate(e, self.default_values())

    # ------------------------------------------------------------------
    # symbols
    # ------------------------------------------------------------------
    def parameter(
        self,
        name: str,
        value: float = 0.0,
        unit: str | None = None,
        description: str = "",
        min: float | None = None,
        max: float | None = None,
    ) -> Expr:
        """Declare a parameter (a tunable constant) and return its symbol.

        ``min``/``max`` bound the values an FMU accepts for it.  ``unit`` must be a
        unit of :mod:`symbody.units` and ``description`` text that XML can carry
        (:class:`ModelError` otherwise); the same holds for coordinates, inputs and outputs.
        """
        self._check_name(name, "parameter")
        unit, description = check_unit_and_description(unit, description, f"parameter {name!r}")
        value = self._number(value, f"parameter {name!r}")
        self._claim(name, "parameter")
        s = self.ctx.symbol(name, "parameter")
        p = Parameter(name, s, value, unit, description, min, max)
        s.value = p
        self.parameters[name] = p
        return s

    def parameters_(self, spec: str, value: float = 0.0, unit: str | None = None) -> tuple[Expr, ...]:
        """Declare several parameters with the same default: ``s.parameters_("m1 m2 m3", 1.0)``."""
        return tuple(self.parameter(n, value, unit) for n in spec.split())

    @staticmethod
    def _number(v: Any, what: str) -> float:
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise ModelError(f"{what}: value {v!r} is not a number") from None
        if not math.isfinite(f):
            raise ModelError(f"{what}: value {v!r} is not finite")
        return f

    def coordinate(
        self,
        name: str,
        q0: float = 0.0,
        dq0: float = 0.0,
        unit: str | None = None,
        description: str = "",
        aux: bool = False,
    ) -> Expr:
        """Declare a generalized coordinate and return its position symbol.

        The velocity ``d<name>`` and acceleration ``dd<name>`` symbols are created
        too; get them with :meth:`dt` (``s.dt(q)`` is ``dq``).  ``aux=True`` marks an
        auxiliary coordinate (defined by constraints from the others).
        """
        dname, ddname = "d" + name, "dd" + name
        self._check_name(name, "coordinate")
        self._check_name(dname, "velocity")
        self._check_name(ddname, "acceleration")
        unit, description = check_unit_and_description(unit, description, f"coordinate {name!r}")
        q0 = self._number(q0, f"coordinate {name!r} initial position")
        dq0 = self._number(dq0, f"coordinate {name!r} initial velocity")
        self._claim(name, "coordinate")
        self._claim(dname, "velocity")
        self._claim(ddname, "acceleration")
        q = self.ctx.symbol(name, "coordinate")
        dq = self.ctx.symbol(dname, "velocity")
        ddq = self.ctx.symbol(ddname, "acceleration")
        c = Coordinate(name, q, dq, ddq, q0, dq0, unit, description, aux, len(self.coordinates))
        q.value = dq.value = ddq.value = c
        self.coordinates.append(c)
        set_time_rate(self.ctx, q, dq, dq)
        set_time_rate(self.ctx, dq, ddq, ZERO)
        return q

    def aux_coordinate(
        self, name: str, q0: float = 0.0, dq0: float = 0.0, unit: str | None = None, description: str = ""
    ) -> Expr:
        """Declare an auxiliary coordinate (3D_MEC ``new_aux_q``)."""
        return self.coordinate(name, q0, dq0, unit, description, aux=True)

    def coordinate_of(self, symbol: Expr) -> Coordinate:
        """The :class:`Coordinate` record of a position, velocity or acceleration symbol."""
        if isinstance(symbol, Expr) and isinstance(symbol.value, Coordinate):
            return symbol.value
        if isinstance(symbol, str):
            for c in self.coordinates:
                if c.name == symbol:
                    return c
        raise ModelError(f"{symbol!r} is not a coordinate of system {self.name!r}")

    def input(
        self,
        name: str,
        value: float = 0.0,
        unit: str | None = None,
        description: str = "",
        min: float | None = None,
        max: float | None = None,
    ) -> Expr:
        """Declare an input (actuator force/torque or excitation) and return its symbol."""
        self._check_name(name, "input")
        unit, description = check_unit_and_description(unit, description, f"input {name!r}")
        value = self._number(value, f"input {name!r}")
        self._claim(name, "input")
        s = self.ctx.symbol(name, "input")
        u = Input(name, s, value, unit, description, min, max)
        s.value = u
        self.inputs[name] = u
        return s

    def time_function(self, name: str, expr: Any) -> Expr:
        """A named function of time ``z(t)`` (a prescribed motion law); returns the expression.

        Its derivatives are taken symbolically when needed (``s.dt(z)``).
        """
        self._claim(name, "time function")
        e = self._expr(expr, f"time function {name!r}")
        self._require(f"time function {name!r}", e, ("parameter", "time"))
        self.time_functions[name] = e
        return e

    def dt(self, expr: Any) -> Expr:
        """Total time derivative of an expression (``dt(q) = dq``, ``dt(dq) = ddq``)."""
        return time_derivative(self._expr(expr), self.ctx, accelerations=True)

    def output(self, name: str, expr: Any, unit: str | None = None, description: str = "") -> Expr:
        """Declare a named output: any expression of time, state, inputs and multipliers."""
        self._check_name(name, "output")
        unit, description = check_unit_and_description(unit, description, f"output {name!r}")
        e = self._expr(expr, f"output {name!r}")
        self._claim(name, "output")
        self.outputs[name] = Output(name, e, unit, description)
        return e

    def output_vector(
        self, name: str, vector: Vector, base: Base | str | None = None, unit: str | None = None, description: str = ""
    ) -> list[Expr]:
        """Declare outputs ``<name>_x``, ``<name>_y``, ``<name>_z``: the components of ``vector`` in ``base``."""
        b = self._base(base, f"base of outputs {name!r}") if base is not None else self.ground_base
        comps = self._vector(vector, None, f"outputs {name!r}").components(b)
        return [self.output(f"{name}_{ax}", c, unit, description) for ax, c in zip("xyz", comps)]

    # ------------------------------------------------------------------
    # geometry
    # ------------------------------------------------------------------
    def _base(self, b: Base | str | None, what: str = "base") -> Base:
        if b is None:
            return self.ground_base
        if isinstance(b, Base):
            if b.system is not self:
                raise ModelError(f"{what} {b.name!r} belongs to another system")
            return b
        if isinstance(b, str):
            base = self.bases.get(b)
            if base is None:
                raise ModelError(f"{what} {b!r} does not exist in system {self.name!r}")
            return base
        raise ModelError(f"{what}: expected a Base or a base name, got {b!r}")

    def _point(self, p: Point | str, what: str = "point") -> Point:
        if isinstance(p, Point):
            if p.system is not self:
                raise ModelError(f"{what} {p.name!r} belongs to another system")
            return p
        if isinstance(p, str):
            point = self.points.get(p)
            if point is None:
                raise ModelError(f"{what} {p!r} does not exist in system {self.name!r}")
            return point
        raise ModelError(f"{what}: expected a Point or a point name, got {p!r}")

    def _solid(self, s: Solid | str | None, what: str = "solid") -> Solid | None:
        if s is None:
            return None
        if isinstance(s, Solid):
            if self.solids.get(s.name) is not s and s.name != "ground":
                raise ModelError(f"{what} {s.name!r} belongs to another system")
            return s
        if isinstance(s, str):
            if s == "ground":
                return None
            solid = self.solids.get(s)
            if solid is None:
                raise ModelError(f"{what} {s!r} does not exist in system {self.name!r}")
            return solid
        raise ModelError(f"{what}: expected a Solid or a solid name, got {s!r}")

    def _vector(self, v: Any, base: Base | str | None, what: str) -> Vector:
        if isinstance(v, Vector):
            if v._kin is not None and v._kin is not self.kinematics:
                raise ModelError(f"{what}: the vector belongs to another system")
            return v
        try:
            comps = list(v)
        except TypeError:
            raise ModelError(f"{what}: expected a Vector or 3 components, got {v!r}") from None
        if len(comps) != 3:
            raise ModelError(f"{what}: expected 3 components, got {len(comps)}")
        b = self._base(base, f"{what} base")
        return Vector(b, *[self._expr(c, what) for c in comps])

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
        p = self._base(parent, f"parent of base {name!r}")
        if isinstance(rotation, (str, int)) and angle is not None:
            rotation = AxisRotation(rotation, angle)
        if isinstance(rotation, EulerAngles):
            n = len(rotation.sequence)
            current = p
            for k, (ax, ang) in enumerate(zip(rotation.sequence, rotation.angles)):
                bname = name if k == n - 1 else f"{name}_{k + 1}"
                current = self.base(bname, current, AxisRotation(ax, ang))
            return current
        if not isinstance(rotation, Rotation):
            raise ModelError(f"base {name!r}: expected a rotation (e.g. sb.Rz(angle)), got {rotation!r}")
        self._claim(name, "base")
        try:
            rotation.bind(self)
            R = rotation.matrix()
            self._require("its rotation", R, GEOMETRY)
        except ModelError as e:
            del self._names[name]
            raise ModelError(f"base {name!r}: {e}") from None
        b = Base(self, name, p, rotation)
        b._R = R
        extra = rotation.extra_constraints(b)
        for cname, expr in extra:
            if not (expr.mask & self._coordinate_mask()):  # e.g. Euler parameters given as numbers
                value = self._default_value(expr)
                if abs(value) > 1e-9:
                    del self._names[name]
                    raise ModelError(f"base {name!r}: condition {cname!r} of its rotation fails ({value:g} != 0)")
        self.bases[name] = b
        for cname, expr in extra:
            if expr.mask & self._coordinate_mask():
                self.constraint(cname, expr)
        return b

    def point(self, name: str, parent: Point | str, vector: Any, base: Base | str | None = None) -> Point:
        """Create a point from its parent point and the vector joining them.

        ``vector`` is a :class:`Vector` or three components in ``base`` (default: ground base).
        """
        p = self._point(parent, f"parent of point {name!r}")
        v = self._vector(vector, base, f"point {name!r}")
        self._require(f"the position of point {name!r}", v, GEOMETRY)
        self._claim(name, "point")
        pt = Point(self, name, p, v)
        self.points[name] = pt
        return pt

    def frame(self, name: str, point: Point | str, base: Base | str) -> Frame:
        """Create a frame (reference): a point and a base."""
        pt = self._point(point, f"point of frame {name!r}")
        b = self._base(base, f"base of frame {name!r}")
        self._claim(name, "frame")
        f = Frame(self, name, pt, b)
        self.frames[name] = f
        return f

    def _frame_args(self, frame: Frame | Point | str, base: Base | str | None, what: str) -> tuple[Point, Base]:
        if isinstance(frame, Frame):
            if frame.system is not self:
                raise ModelError(f"{what}: frame {frame.name!r} belongs to another system")
            return frame.point, frame.base
        if isinstance(frame, str) and frame in self.frames:
            f = self.frames[frame]
            return f.point, f.base
        return self._point(frame, what), self._base(base, f"base of {what}")

    # ------------------------------------------------------------------
    # kinematic operators
    # ------------------------------------------------------------------
    def position(self, a: Point | str, b: Point | str | None = None) -> Vector:
        """Position vector of ``a`` from the origin, or from ``a`` to ``b``.

        The vector from ``a`` to ``b`` is summed from their deepest common
        ancestor in the point tree, so the shared part of their chains cancels
        exactly (a point defined from ``a`` by a constant vector gives that vector).
        """
        pa = self._point(a)
        if b is None:
            return self.kinematics.position(pa)
        return relative_position(self.kinematics, pa, self._point(b))

    def angular_velocity(self, base: Base | str, relative_to: Base | str | None = None) -> Vector:
        """Angular velocity of ``base`` relative to ``relative_to`` (default: ground)."""
        w = self.kinematics.omega(self._base(base))
        if relative_to is not None:
            w = w - self.kinematics.omega(self._base(relative_to))
        return w

    def angular_acceleration(self, base: Base | str, relative_to: Base | str | None = None) -> Vector:
        """Angular acceleration of ``base`` relative to the base ``relative_to`` (default: ground).

        Relative to a moving base this is the derivative, seen from that base, of the relative angular velocity.
        """
        b = self._base(base)
        if relative_to is None:
            return self.kinematics.alpha(b)
        r = self._base(relative_to)
        wrel = self.angular_velocity(b, r)
        return wrel.dt() - self.kinematics.omega(r).cross(wrel)

    def velocity(
        self, point: Point | str, frame: Frame | str | None = None, solid: Solid | str | None = None
    ) -> Vector:
        """Velocity of a point relative to a frame (default: ground).

        With ``solid``, the velocity of the material point of that solid that coincides with ``point``.
        """
        p = self._point(point)
        kin = self.kinematics
        if solid is not None:
            s = self._solid(solid)
            r = relative_position(kin, s.point, p)  # type: ignore[union-attr,arg-type]
            v = kin.velocity(s.point) + kin.omega(s.base).cross(r)  # type: ignore[union-attr]
        else:
            v = kin.velocity(p)
        if frame is None:
            return v
        f = self.frames[frame] if isinstance(frame, str) else frame
        r = relative_position(kin, f.point, p)
        return v - kin.velocity(f.point) - kin.omega(f.base).cross(r)

    def acceleration(self, point: Point | str, frame: Frame | str | None = None) -> Vector:
        """Acceleration of a point relative to a frame (default: ground), accelerations included."""
        p = self._point(point)
        kin = self.kinematics
        a = kin.acceleration(p)
        if frame is None:
            return a
        f = self.frames[frame] if isinstance(frame, str) else frame
        r = relative_position(kin, f.point, p)
        w = kin.omega(f.base)
        vrel = self.velocity(p, f)
        return a - kin.acceleration(f.point) - kin.alpha(f.base).cross(r) - w.cross(w.cross(r)) - (w.cross(vrel) * 2)

    def rotation_matrix(self, a: Base | str, b: Base | str) -> tuple:
        """Matrix mapping components in base ``a`` to components in base ``b``."""
        return self.kinematics.rotation(self._base(a), self._base(b))

    # ------------------------------------------------------------------
    # bodies
    # ------------------------------------------------------------------
    def solid(
        self,
        name: str,
        frame: Frame | Point | str,
        base: Base | str | None = None,
        *,
        mass: Any,
        com: Any = (0, 0, 0),
        inertia: Any = None,
        inertia_at: str | Point = "com",
        inertia_base: Base | str | None = None,
    ) -> Solid:
        """Create a rigid body attached to a frame (or a point and a base).

        Args:
            mass: mass (number, parameter or expression); must be non-negative.
            com: centre of mass from the frame's point: components in the body base, or a Vector.
            inertia: inertia tensor (3x3, diagonal 3-tuple or :func:`inertia`), or a :class:`Tensor`.
            inertia_at: ``"com"`` (default), ``"origin"`` (the frame's point) or a point fixed to the body.
            inertia_base: base of the inertia components (default: the body base); must be fixed to the body.
        """
        point, b = self._frame_args(frame, base, f"solid {name!r}")
        m = self._expr(mass, f"mass of solid {name!r}")
        self._claim(name, "solid")
        try:
            self._check_mass(name, m)
            com_v = self._vector(com, b, f"centre of mass of solid {name!r}")
            com_c = com_v.components(b)
            self._require(f"the centre of mass of solid {name!r} (components in its base)", com_c, ("parameter",))
            I_given, at_origin = None, False
            if inertia is not None:
                I_given, at_origin = self._inertia_at_com(name, point, b, m, com_c, inertia, inertia_at, inertia_base)
            solid = Solid(
                name,
                point,
                b,
                m,
                com_c,
                I_given,
                frame=frame if isinstance(frame, Frame) else None,
                inertia_at_origin=at_origin,
            )
            if inertia is not None:
                self._check_inertia(name, solid.inertia_com)
        except ModelError:
            del self._names[name]
            raise
        self.solids[name] = solid
        return solid

    def particle(self, name: str, point: Point | str, mass: Any) -> Solid:
        """Create a point mass."""
        p = self._point(point, f"point of particle {name!r}")
        m = self._expr(mass, f"mass of particle {name!r}")
        self._check_mass(name, m)
        self._claim(name, "particle")
        solid = Solid(name, p, self.ground_base, m, (ZERO, ZERO, ZERO), None, is_particle=True)
        self.solids[name] = solid
        return solid

    def _inertia_at_com(self, name, point, b, m, com_c, inertia, inertia_at, inertia_base):
        """Inertia tensor in the body base, and whether it is given at the reference point (else at G)."""
        from .vector import steiner

        if isinstance(inertia, Tensor):
            T = inertia
        else:
            try:
                rows = as_inertia_rows(inertia)
            except (ValueError, TypeError) as e:
                raise ModelError(f"inertia of solid {name!r}: {e}") from None
            except ModelError:  # an infinite or NaN component
                raise ModelError(f"inertia tensor of solid {name!r} is not finite") from None
            ib = self._base(inertia_base, f"inertia base of solid {name!r}") if inertia_base is not None else b
            T = Tensor(ib, [[self._expr(x, f"inertia of solid {name!r}") for x in r] for r in rows])
        if T.base is not b:
            for row in self.kinematics.rotation(T.base, b):
                for x in row:
                    if x.mask & self._state_mask():
                        raise ModelError(f"solid {name!r}: the inertia base must be fixed to the body base")
        I = T.components(b)
        if isinstance(inertia_at, str) and inertia_at == "com":
            return I, False
        if isinstance(inertia_at, str) and inertia_at == "origin":
            return I, True
        if isinstance(inertia_at, str) and inertia_at not in self.points:
            raise ModelError(
                f"solid {name!r}: inertia_at={inertia_at!r} is neither 'com', 'origin' "
                f"nor a point of system {self.name!r}"
            )
        p = self._point(inertia_at, f"inertia point of solid {name!r}")
        if p is point:
            return I, True
        r_op = self.position(point, p).components(b)
        for c in r_op:
            if c.mask & self._state_mask():
                raise ModelError(
                    f"solid {name!r}: the inertia point {p.name!r} must be fixed in the body "
                    f"(define it from point {point.name!r} by a vector in a base fixed to the body)"
                )
        d = tuple(sub(r_op[i], com_c[i]) for i in range(3))  # from G to the point
        return steiner(I, m, d, sign=-1), False

    def _check_mass(self, name: str, m: Expr) -> None:
        self._require(f"mass of {name!r}", m, ("parameter",))
        try:
            v = self._default_value(m)
        except (ValueError, ZeroDivisionError, OverflowError) as e:
            raise ModelError(f"mass of {name!r} cannot be evaluated: {e}") from None
        if not math.isfinite(v) or v < 0:
            raise ModelError(f"mass of {name!r} is negative or not finite ({v:g})")
        # a parameter that is a mass cannot be negative: declare it (FMUs then refuse negative values)
        if m.op == 0 and m.kind == "parameter" and m.value.min is None:
            m.value.min = 0.0

    def _check_inertia(self, name: str, I: tuple) -> None:
        import numpy as np

        self._require(f"inertia tensor of solid {name!r}", I, ("parameter",))
        for i in range(3):
            for j in range(i + 1, 3):
                if I[i][j] is not I[j][i]:
                    a, b = self._default_value(I[i][j]), self._default_value(I[j][i])
                    if abs(a - b) > 1e-12 * max(1.0, abs(a), abs(b)):
                        ij, ji = "xyz"[i] + "xyz"[j], "xyz"[j] + "xyz"[i]
                        raise ModelError(
                            f"inertia tensor of solid {name!r} is not symmetric (I{ij} = {a:g} but I{ji} = {b:g})"
                        )
        vals = np.array([[self._default_value(x) for x in row] for row in I])
        if not np.all(np.isfinite(vals)):
            raise ModelError(f"inertia tensor of solid {name!r} is not finite")
        ev = np.linalg.eigvalsh(0.5 * (vals + vals.T))
        scale = max(1.0, float(np.max(np.abs(ev))))
        if ev.min() < -1e-9 * scale:
            raise ModelError(
                f"inertia tensor of solid {name!r} is not positive semi-definite (eigenvalue {ev.min():g})"
            )

    # ------------------------------------------------------------------
    # loads
    # ------------------------------------------------------------------
    def _add_load(self, name: str, load: Load) -> Load:
        self._claim(name, load.kind)
        self.loads.append(load)
        return load

    def gravity(self, g: Any, base: Base | str | None = None, name: str = "gravity") -> None:
        """Apply a uniform gravity field to every solid: a Vector or 3 components (default: ground base)."""
        v = self._vector(g, base, f"gravity {name!r}")
        self._require(f"gravity {name!r}", v.components(self.ground_base), ("parameter",))
        self._add_load(name, Gravity(name, v))

    def force(
        self,
        name: str,
        solid: Solid | str | None,
        point: Point | str,
        force: Any = None,
        moment: Any = None,
        base: Base | str | None = None,
        reaction: Solid | str | None = None,
    ) -> Wrench:
        """Apply a force at a point of a solid (and optionally a moment on it).

        ``force``/``moment`` are Vectors or 3 components in ``base`` (default: ground).
        With ``reaction``, the opposite wrench acts on that solid (action-reaction).
        """
        s = self._solid(solid, f"solid of load {name!r}")
        p = self._point(point, f"point of load {name!r}")
        f = self._vector(force, base, f"force {name!r}") if force is not None else None
        mo = self._vector(moment, base, f"moment {name!r}") if moment is not None else None
        self._require(f"load {name!r}", [f, mo], LOADS)
        if mo is not None and s is None:
            raise ModelError(f"load {name!r}: a moment must act on a solid")
        r = self._solid(reaction, f"reaction solid of load {name!r}")
        return self._add_load(name, Wrench(name, s, p, f, mo, r))  # type: ignore[return-value]

    def torque(
        self,
        name: str,
        solid: Solid | str,
        moment: Any,
        base: Base | str | None = None,
        reaction: Solid | str | None = None,
    ) -> Wrench:
        """Apply a moment on a solid (and its reaction on another solid)."""
        s = self._solid(solid, f"solid of torque {name!r}")
        if s is None:
            raise ModelError(f"torque {name!r}: needs a solid")
        mo = self._vector(moment, base, f"torque {name!r}")
        self._require(f"torque {name!r}", mo, LOADS)
        r = self._solid(reaction, f"reaction solid of torque {name!r}")
        return self._add_load(name, Wrench(name, s, s.point, None, mo, r))  # type: ignore[return-value]

    def _rate(self, what: Any, name: str) -> Expr:
        """The rate (linear in velocities) of a coordinate or an expression."""
        if isinstance(what, Expr) and what.op == 0 and what.kind == "coordinate":
            return what.value.dq
        e = self._expr(what, f"load {name!r}")
        self._require(f"the expression that load {name!r} acts along", e, GEOMETRY)
        return time_derivative(e, self.ctx, accelerations=False)

    def generalized_force(self, name: str, coordinate: Any, force: Any) -> ScalarForce:
        """A force (or torque) acting along a coordinate or along an expression ``s(q, t)``.

        Adds ``force * d(ds/dt)/d(dq_i)`` to the generalized forces; for a coordinate
        it is simply added to that coordinate's equation.
        """
        rate = self._rate(coordinate, name)
        f = self._expr(force, f"force of {name!r}")
        self._require(f"force of {name!r}", f, LOADS)
        return self._add_load(name, ScalarForce(name, rate, f))  # type: ignore[return-value]

    def spring_damper(
        self,
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

        Force along the line, positive pushing the points apart:
        ``f = -k (d - rest_length) - damping dd/dt + actuator``.
        """
        p1 = self._point(point1, f"spring {name!r}")
        p2 = self._point(point2, f"spring {name!r}")
        k_ = self._expr(k, f"stiffness of {name!r}")
        l0 = self._expr(rest_length, f"rest length of {name!r}")
        c = self._expr(damping, f"damping of {name!r}")
        a = self._expr(actuator, f"actuator of {name!r}")
        s1 = self._solid(solid1, f"solid of spring {name!r}")
        s2 = self._solid(solid2, f"solid of spring {name!r}")
        self._require(f"spring {name!r}", [k_, l0, c, a], LOADS)
        r = self.position(p1, p2)
        if r.is_zero:
            raise ModelError(f"spring {name!r}: its points {p1.name!r} and {p2.name!r} always coincide")
        if self._default_value(r.norm2()) == 0.0:
            raise ModelError(
                f"spring {name!r}: its points {p1.name!r} and {p2.name!r} coincide at the initial configuration, "
                "where the direction of its force is undefined"
            )
        return self._add_load(name, SpringDamper(name, p1, p2, k_, l0, c, a, s1, s2))  # type: ignore[return-value]

    def torsion_spring_damper(
        self,
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

        ``angle`` is a coordinate or an angle expression.  Alternatively give
        ``angle=None`` with two bases related only by rotations about ``axis``:
        the angle is then the sum of those rotations.
        """
        if angle is None:
            angle = self._relative_angle(name, base1, base2, axis)
        a = self._expr(angle, f"angle of {name!r}")
        self._require(f"the angle of {name!r}", a, GEOMETRY)
        k_ = self._expr(k, f"stiffness of {name!r}")
        a0 = self._expr(rest_angle, f"rest angle of {name!r}")
        c = self._expr(damping, f"damping of {name!r}")
        self._require(f"torsion spring {name!r}", [k_, a0, c], LOADS)
        return self._add_load(name, TorsionSpringDamper(name, a, k_, a0, c, self.ctx))  # type: ignore[return-value]

    def _relative_angle(self, name: str, base1: Any, base2: Any, axis: Any) -> Expr:
        b1 = self._base(base1, f"base of {name!r}")
        b2 = self._base(base2, f"base of {name!r}")
        steps = self.kinematics.steps(b2, b1)
        if not steps:
            return ZERO
        ax = axis_index(axis) if axis is not None else None
        if len(steps) != 1 or steps[0][0] != "e" or (ax is not None and steps[0][1] != ax):
            raise ModelError(f"{name!r}: bases {b1.name!r} and {b2.name!r} are not related by rotations about one axis")
        return steps[0][2]

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
        """Viscous friction: ``-c * rate`` on a coordinate/expression, or ``-c (w2 - w1)`` between two bases."""
        c_ = self._expr(c, f"damping of {name!r}")
        self._require(f"damping of {name!r}", c_, LOADS)
        if coordinate is not None:
            rate = self._rate(coordinate, name)
            return self._add_load(name, ScalarForce(name, rate, neg(mul(c_, rate))))
        b1 = self._base(base1, f"base of {name!r}")
        b2 = self._base(base2, f"base of {name!r}")
        return self._add_load(name, RelativeDamper(name, b1, b2, c_, axis))

    def coulomb_friction(self, name: str, coordinate: Any, force: Any, smoothing: Any = 1e-3) -> CoulombFriction:
        """Smoothed Coulomb friction ``-force * tanh(rate / smoothing)`` on a coordinate or expression rate."""
        rate = self._rate(coordinate, name)
        f = self._expr(force, f"friction force of {name!r}")
        v = self._expr(smoothing, f"smoothing of {name!r}")
        self._require(f"Coulomb friction {name!r}", [f, v], LOADS)
        return self._add_load(name, CoulombFriction(name, rate, f, v))  # type: ignore[return-value]

    # ------------------------------------------------------------------
    # constraints
    # ------------------------------------------------------------------
    def _rows(self, name: str, exprs: Any, base: Base | str | None, components: str | None) -> list[tuple[str, Expr]]:
        if isinstance(exprs, Vector):
            b = self._base(base, f"base of constraint {name!r}")
            comps = exprs.components(b)
            axes = components or "xyz"
            return [(f"{name}_{ax}", comps["xyz".index(ax)]) for ax in axes]
        if isinstance(exprs, (list, tuple)):
            if len(exprs) == 1:
                return [(name, self._expr(exprs[0], f"constraint {name!r}"))]
            return [(f"{name}_{k + 1}", self._expr(e, f"constraint {name!r}")) for k, e in enumerate(exprs)]
        return [(name, self._expr(exprs, f"constraint {name!r}"))]

    def _add_rows(
        self, name: str, rows: list[tuple[str, Expr]], kind: str, group: str = "", drop_trivial: bool = False
    ) -> list[ConstraintRow]:
        from ..symbolic.calculus import is_linear_in

        allowed = GEOMETRY + ("velocity",) if kind == "velocity" else GEOMETRY
        qmask = self._coordinate_mask()
        if kind == "velocity":
            for c in self.coordinates:
                qmask |= c.dq.mask
        rows = [(r, e) for r, e in rows if not (drop_trivial and e.is_zero)]
        # validate everything first: a failing row leaves the system unchanged
        names = [(name, f"{kind} constraint")]
        for rname, e in rows:
            self._require(f"{kind} constraint {rname!r}", e, allowed)
            if not (e.mask & qmask):
                raise ModelError(f"{kind} constraint {rname!r} contains no coordinate")
            if kind == "velocity" and not is_linear_in(e, [c.dq for c in self.coordinates]):
                raise ModelError(f"velocity constraint {rname!r} must be linear in the velocities")
            if rname != name:
                names.append((rname, f"{kind} constraint row"))
            if kind != "initial":
                names.append((f"lambda_{rname}", "multiplier"))
        seen = set()
        for n, what in names:
            self._check_name(n, what)
            if n in seen:
                raise ModelError(f"duplicate name {n!r} in constraint {name!r}")
            seen.add(n)
        for n, what in names:
            self._claim(n, what)
        out = []
        for rname, e in rows:
            lam = None
            if kind != "initial":
                lam = self.ctx.symbol(f"lambda_{rname}", "multiplier")
                self._multipliers[rname] = lam
            row = ConstraintRow(rname, e, kind, lam, group or name)
            self.constraints.append(row)
            out.append(row)
        return out

    def _coordinate_mask(self) -> int:
        m = 0
        for c in self.coordinates:
            m |= c.q.mask
        return m

    def _param_mask(self) -> int:
        m = 0
        for p in self.parameters.values():
            m |= p.symbol.mask
        return m

    def constraint(
        self, name: str, expr: Any, base: Base | str | None = None, components: str | None = None
    ) -> list[ConstraintRow]:
        """Holonomic constraint ``Phi(q, t) = 0``: an expression, a list, or a Vector (its components in ``base``)."""
        return self._add_rows(name, self._rows(name, expr, base, components), "holonomic")

    def velocity_constraint(
        self, name: str, expr: Any, base: Base | str | None = None, components: str | None = None
    ) -> list[ConstraintRow]:
        """Non-holonomic constraint, linear in the velocities: ``A(q, t) dq + b(q, t) = 0``."""
        return self._add_rows(name, self._rows(name, expr, base, components), "velocity")

    def initial_constraint(
        self, name: str, expr: Any, base: Base | str | None = None, components: str | None = None
    ) -> list[ConstraintRow]:
        """Initial-position condition, used only to assemble the initial configuration."""
        return self._add_rows(name, self._rows(name, expr, base, components), "initial")

    def fix_initial(self, coordinate: Any, name: str | None = None) -> list[ConstraintRow]:
        """Hold a coordinate at its initial value while assembling (3D_MEC ``Cpini``)."""
        c = self.coordinate_of(coordinate)
        return self.initial_constraint(name or f"{c.name}_init", sub(c.q, as_expr(c.q0)))

    def prescribe(self, name: str, coordinate: Any, motion: Any) -> list[ConstraintRow]:
        """Rheonomic constraint ``q - z(t) = 0`` (its multiplier is the driving effort)."""
        try:
            c = self.coordinate_of(coordinate)
        except ModelError as e:
            raise ModelError(f"prescribed motion {name!r}: {e}") from None
        z = self._expr(motion, f"motion of {name!r}")
        self._require(f"the motion law of {name!r}", z, ("parameter", "time"))
        return self.constraint(name, sub(c.q, z))

    def multiplier(self, row: str) -> Expr:
        """The Lagrange multiplier symbol of a constraint row (usable in outputs)."""
        lam = self._multipliers.get(row)
        if lam is None:
            raise ModelError(f"no constraint row named {row!r}")
        return lam

    # ------------------------------------------------------------------
    # joints
    # ------------------------------------------------------------------
    def _joint(self, name: str, kind: str, rows: list[tuple[str, Expr]], reactions: dict) -> Joint:
        j = Joint(name, kind)
        kept = [(r, e) for r, e in rows if not e.is_zero]
        j.dropped = [r for r, e in rows if e.is_zero]
        if not kept:
            raise ModelError(f"joint {name!r}: all its constraint equations vanish identically")
        self._add_rows(name, kept, "holonomic", group=name)
        j.rows = [r for r, _ in kept]
        j.reactions = {k: v for k, v in reactions.items() if v[0] in j.rows}
        self.joints[name] = j
        return j

    def spherical_joint(
        self, name: str, point1: Point | str, point2: Point | str, base: Base | str | None = None
    ) -> Joint:
        """Coincident points (3 equations ``r_P2 - r_P1 = 0`` in ``base``); reactions Fx, Fy, Fz.

        The reaction is the force on the body of ``point2`` from the body of ``point1``:
        ``F_k = -lambda_k``.  Rows that vanish identically (planar models) are dropped.
        """
        point1 = self._point(point1, f"point1 of joint {name!r}")
        point2 = self._point(point2, f"point2 of joint {name!r}")
        b = self._base(base, f"base of joint {name!r}")
        r = self.position(point1, point2).components(b)
        rows = [(f"{name}_{ax}", c) for ax, c in zip("xyz", r)]
        reactions = {f"F{ax}": (f"{name}_{ax}", -1.0, b.name) for ax in "xyz"}
        return self._joint(name, "spherical", rows, reactions)

    def revolute_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, axis: Any = "z"
    ) -> Joint:
        """Revolute joint: coincident points and the ``axis`` of ``base2`` kept along the same axis of ``base1``.

        Reactions: Fx, Fy, Fz (in ``base1``) and the two moments normal to the axis.
        """
        point1 = self._point(point1, f"point1 of joint {name!r}")
        point2 = self._point(point2, f"point2 of joint {name!r}")
        b1 = self._base(base1, f"base1 of joint {name!r}")
        b2 = self._base(base2, f"base2 of joint {name!r}")
        ax = axis_index(axis)
        rows = [(f"{name}_{a}", c) for a, c in zip("xyz", self.position(point1, point2).components(b1))]
        u2 = b2.unit(ax)
        others = [i for i in range(3) if i != ax]
        names = "xyz"
        reactions = {f"F{a}": (f"{name}_{a}", -1.0, b1.name) for a in "xyz"}
        for i in others:
            rname = f"{name}_a{names[i]}"
            rows.append((rname, u2.dot(b1.unit(i))))
            reactions[f"M{names[i]}"] = (rname, 1.0, b1.name)
        return self._joint(name, "revolute", rows, reactions)

    def prismatic_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, axis: Any = "x"
    ) -> Joint:
        """Prismatic joint: ``point2`` slides along ``axis`` of ``base1``; no relative rotation."""
        point1 = self._point(point1, f"point1 of joint {name!r}")
        point2 = self._point(point2, f"point2 of joint {name!r}")
        b1 = self._base(base1, f"base1 of joint {name!r}")
        b2 = self._base(base2, f"base2 of joint {name!r}")
        ax = axis_index(axis)
        r = self.position(point1, point2).components(b1)
        names = "xyz"
        rows = [(f"{name}_{names[i]}", r[i]) for i in range(3) if i != ax]
        reactions = {f"F{names[i]}": (f"{name}_{names[i]}", -1.0, b1.name) for i in range(3) if i != ax}
        pairs = [(0, 1), (0, 2), (1, 2)]
        for i, k in pairs:
            rname = f"{name}_r{names[i]}{names[k]}"
            rows.append((rname, b2.unit(i).dot(b1.unit(k))))
            reactions[f"M{names[3 - i - k]}"] = (rname, 1.0, b1.name)
        return self._joint(name, "prismatic", rows, reactions)

    def cylindrical_joint(
        self, name: str, point1: Point | str, base1: Base | str, point2: Point | str, base2: Base | str, axis: Any = "z"
    ) -> Joint:
        """Cylindrical joint: ``point2`` on the ``axis`` line of ``base1``; the axes stay parallel."""
        point1 = self._point(point1, f"point1 of joint {name!r}")
        point2 = self._point(point2, f"point2 of joint {name!r}")
        b1 = self._base(base1, f"base1 of joint {name!r}")
        b2 = self._base(base2, f"base2 of joint {name!r}")
        ax = axis_index(axis)
        r = self.position(point1, point2).components(b1)
        names = "xyz"
        rows = [(f"{name}_{names[i]}", r[i]) for i in range(3) if i != ax]
        reactions = {f"F{names[i]}": (f"{name}_{names[i]}", -1.0, b1.name) for i in range(3) if i != ax}
        u2 = b2.unit(ax)
        for i in range(3):
            if i != ax:
                rname = f"{name}_a{names[i]}"
                rows.append((rname, u2.dot(b1.unit(i))))
                reactions[f"M{names[i]}"] = (rname, 1.0, b1.name)
        return self._joint(name, "cylindrical", rows, reactions)

    def universal_joint(
        self,
        name: str,
        point1: Point | str,
        base1: Base | str,
        axis1: Any,
        point2: Point | str,
        base2: Base | str,
        axis2: Any,
    ) -> Joint:
        """Universal (Cardan) joint: coincident points, ``axis1`` (of base1) perpendicular to ``axis2`` (of base2)."""
        point1 = self._point(point1, f"point1 of joint {name!r}")
        point2 = self._point(point2, f"point2 of joint {name!r}")
        b1 = self._base(base1, f"base1 of joint {name!r}")
        b2 = self._base(base2, f"base2 of joint {name!r}")
        rows = [(f"{name}_{a}", c) for a, c in zip("xyz", self.position(point1, point2).components(b1))]
        reactions = {f"F{a}": (f"{name}_{a}", -1.0, b1.name) for a in "xyz"}
        rows.append((f"{name}_perp", b1.unit(axis1).dot(b2.unit(axis2))))
        reactions["M"] = (f"{name}_perp", 1.0, None)
        return self._joint(name, "universal", rows, reactions)

    def distance_joint(self, name: str, point1: Point | str, point2: Point | str, length: Any) -> Joint:
        """Fixed distance (massless bar): ``|r_P1P2|^2 - length^2 = 0``; reaction: bar tension.

        The tension (positive pulling the points together) is ``2 length lambda``.
        """
        point1 = self._point(point1, f"point1 of joint {name!r}")
        point2 = self._point(point2, f"point2 of joint {name!r}")
        L = self._expr(length, f"length of joint {name!r}")
        r = self.position(point1, point2)
        if r.is_zero:
            raise ModelError(f"joint {name!r}: its points {point1.name!r} and {point2.name!r} always coincide")
        e = sub(r.norm2(), mul(L, L))
        return self._joint(name, "distance", [(name, e)], {"tension": (name, mul(as_expr(2), L), None)})

    def generic_joint(self, name: str, equations: Sequence[Any], reactions: Sequence[str] | None = None) -> Joint:
        """A joint given by its own constraint equations; ``reactions`` names their multipliers."""
        rows = self._rows(name, list(equations), None, None)
        react = {}
        if reactions is not None:
            if len(reactions) != len(rows):
                raise ModelError(f"joint {name!r}: {len(rows)} equations but {len(reactions)} reaction names")
            react = {r: (row[0], 1.0, None) for r, row in zip(reactions, rows)}
        return self._joint(name, "generic", rows, react)

    # ------------------------------------------------------------------
    # visual geometry
    # ------------------------------------------------------------------
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

    # ------------------------------------------------------------------
    # derivation
    # ------------------------------------------------------------------
    def derive(
        self,
        progress: bool | Callable[[int, int, str], None] | None = None,
        check: bool = True,
        formulation: str = "auto",
    ):
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

    # convenience for iterating symbols
    @property
    def q(self) -> list[Expr]:
        return [c.q for c in self.coordinates]

    @property
    def dq(self) -> list[Expr]:
        return [c.dq for c in self.coordinates]

    @property
    def ddq(self) -> list[Expr]:
        return [c.ddq for c in self.coordinates]


__all__ = ["System"]
