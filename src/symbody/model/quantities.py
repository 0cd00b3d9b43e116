"""The named quantities of a model: parameters, coordinates, inputs, time functions, outputs.

The user manipulates the symbols (:class:`symbody.symbolic.expr.Expr`); the records of this module
(:class:`Parameter`, :class:`Coordinate`, :class:`Input`, :class:`Output`) keep what the symbols stand
for: default value, unit, description, bounds, initial conditions.

Each function checks everything (name, unit, description, value) before it
claims the name and creates the symbol; the methods of :class:`QuantitiesMixin` (of
:class:`symbody.System`) call them inside a transaction of the system's registry.

Example:
    >>> import symbody as sb
    >>> s = sb.System("q")
    >>> th = declare_coordinate(s, "th", 0.5, unit="rad")
    >>> s.coordinate_of(th).q0, s.dt(th)
    (0.5, dth)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import set_time_rate
from ..symbolic.expr import ZERO, Context, Expr
from ..units import check_unit
from .base import Base
from .deprecation import formerly_positional, warn_deprecated
from .expressions import require, to_expr, to_number
from .geometry import resolve_base, resolve_vector
from .registry import Facet, atomic
from .vector import Vector

if TYPE_CHECKING:
    from .system import System


# characters XML 1.0 cannot carry, even as references (modelDescription.xml must stay parseable)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def check_text(text: object, what: str) -> str:
    r"""Free text of a model object (a description), or :class:`ModelError` naming ``what``.

    Any string is accepted except characters that an XML 1.0 document cannot hold
    (control characters other than tab, line feed and carriage return; lone
    surrogates; U+FFFE, U+FFFF): the text goes into ``modelDescription.xml``.
    Generated C receives only a sanitized copy in comments.  ``None`` is ``""``.

    Example:
        >>> check_text("bob's mass <kg> & \"more\"", "parameter 'm' description")
        'bob\'s mass <kg> & "more"'
        >>> try:
        ...     check_text("bell\x07", "parameter 'm' description")
        ... except ModelError as e:
        ...     print(e)
        parameter 'm' description: contains the control character U+0007, which modelDescription.xml cannot hold
    """
    if text is None:
        return ""
    if not isinstance(text, str):
        raise ModelError(f"{what}: expected a string, got {text!r}")
    bad = _NOT_XML.search(text)
    if bad:
        code = ord(bad.group())
        kind = "surrogate" if 0xD800 <= code <= 0xDFFF else "noncharacter" if code > 0xFFFD else "control character"
        raise ModelError(f"{what}: contains the {kind} U+{code:04X}, which modelDescription.xml cannot hold")
    return text


def check_unit_and_description(unit: object, description: object, what: str) -> tuple[str | None, str]:
    """The checked ``(unit, description)`` of the model object ``what`` (see :func:`check_text`).

    Example:
        >>> check_unit_and_description("m/s", "trolley speed", "output 'v'")
        ('m/s', 'trolley speed')
    """
    return check_unit(unit, what), check_text(description, f"{what} description")


@dataclass
class Parameter:
    """A constant of the model (tunable in the FMU).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("pm")
        >>> _ = s.parameter("m", 2.0, unit="kg", description="mass")
        >>> s.parameters["m"]
        Parameter(name='m', symbol=m, value=2.0, unit='kg', description='mass', min=None, max=None)
    """

    name: str
    symbol: Expr
    value: float
    unit: str | None = None
    description: str = ""
    min: float | None = None
    max: float | None = None


@dataclass
class Coordinate:
    """A generalized coordinate with its velocity and acceleration symbols.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("cd")
        >>> c = s.coordinate_of(s.coordinate("th", 0.1, unit="rad"))
        >>> c.q, c.dq, c.ddq, c.q0, c.acceleration_unit
        (th, dth, ddth, 0.1, 'rad/s2')
    """

    name: str
    q: Expr
    dq: Expr
    ddq: Expr
    q0: float
    dq0: float
    unit: str | None = None
    description: str = ""
    aux: bool = False
    index: int = 0

    @property
    def velocity_unit(self) -> str | None:
        return None if self.unit is None else (f"{self.unit}/s" if self.unit else "1/s")

    @property
    def acceleration_unit(self) -> str | None:
        return None if self.unit is None else (f"{self.unit}/s2" if self.unit else "1/s2")


@dataclass
class Input:
    """An external action given at run time (actuator force, torque, excitation).

    The three inputs of a motion input (:meth:`symbody.System.motion_input`) carry its name in
    ``signal`` and their ``motion`` role: ``"position"`` (``z``), ``"velocity"`` (``dz``) or
    ``"acceleration"`` (``ddz``); plain inputs have ``motion == ""``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("in")
        >>> _ = s.input("F", unit="N", min=-10, max=10)
        >>> s.inputs["F"].min, s.inputs["F"].max
        (-10, 10)
        >>> _ = s.motion_input("heave", unit="m")
        >>> s.inputs["ddheave"].motion, s.inputs["ddheave"].signal, s.inputs["ddheave"].unit
        ('acceleration', 'heave', 'm/s2')
    """

    name: str
    symbol: Expr
    value: float = 0.0
    unit: str | None = None
    description: str = ""
    min: float | None = None
    max: float | None = None
    motion: str = ""
    signal: str = ""


#: the roles of the three inputs of a motion input, in their order in ``System.inputs``
MOTION_ROLES = ("position", "velocity", "acceleration")


@dataclass
class Output:
    """A named expression of the state reported by simulations and FMUs.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("out")
        >>> x = s.coordinate("x")
        >>> _ = s.output("speed", s.dt(x), unit="m/s")
        >>> s.outputs["speed"].expr, s.outputs["speed"].unit
        (dx, 'm/s')
    """

    name: str
    expr: Expr
    unit: str | None = None
    description: str = ""


def _declare_scalar(
    system: System,
    kind: str,
    name: str,
    value: float,
    unit: str | None,
    description: str,
    min: float | None,
    max: float | None,
) -> Expr:
    """Declare a parameter or an input (``kind``): its name claimed, unit and value checked, its symbol returned."""
    system.registry.check(name, kind)
    unit, description = check_unit_and_description(unit, description, f"{kind} {name!r}")
    value = to_number(value, f"{kind} {name!r}")
    system.registry.claim(name, kind)
    s = system.ctx.symbol(name, kind)
    cls, table = (Parameter, system.parameters) if kind == "parameter" else (Input, system.inputs)
    quantity = cls(name, s, value, unit, description, min, max)
    s.value = quantity
    table[name] = quantity  # type: ignore[assignment]
    return s


def declare_parameter(
    system: System,
    name: str,
    value: float = 0.0,
    unit: str | None = None,
    description: str = "",
    min: float | None = None,
    max: float | None = None,
) -> Expr:
    """Declare a parameter (a tunable constant) and return its symbol.

    The body of :meth:`symbody.System.parameter` (documented there, with an example).
    """
    return _declare_scalar(system, "parameter", name, value, unit, description, min, max)


def declare_parameters(system: System, spec: str, value: float = 0.0, unit: str | None = None) -> tuple[Expr, ...]:
    """Declare several parameters with the same default.

    The body of :meth:`symbody.System.parameter_group` (documented there, with an example).
    """
    return tuple(declare_parameter(system, n, value, unit) for n in spec.split())


def declare_coordinate(
    system: System,
    name: str,
    q0: float = 0.0,
    dq0: float = 0.0,
    unit: str | None = None,
    description: str = "",
    aux: bool = False,
) -> Expr:
    """Declare a generalized coordinate and return its position symbol.

    The body of :meth:`symbody.System.coordinate` (documented there, with an example).
    """
    dname, ddname = "d" + name, "dd" + name
    system.registry.check(name, "coordinate")
    system.registry.check(dname, "velocity")
    system.registry.check(ddname, "acceleration")
    unit, description = check_unit_and_description(unit, description, f"coordinate {name!r}")
    q0 = to_number(q0, f"coordinate {name!r} initial position")
    dq0 = to_number(dq0, f"coordinate {name!r} initial velocity")
    system.registry.claim(name, "coordinate")
    system.registry.claim(dname, "velocity")
    system.registry.claim(ddname, "acceleration")
    q = system.ctx.symbol(name, "coordinate")
    dq = system.ctx.symbol(dname, "velocity")
    ddq = system.ctx.symbol(ddname, "acceleration")
    c = Coordinate(name, q, dq, ddq, q0, dq0, unit, description, aux, len(system.coordinates))
    q.value = dq.value = ddq.value = c
    system.coordinates.append(c)
    set_time_rate(system.ctx, q, dq, dq)
    set_time_rate(system.ctx, dq, ddq, ZERO)
    system.registry.on_rollback(lambda: _forget_time_rates(system.ctx))
    return q


def _forget_time_rates(ctx: Context) -> None:
    """Drop the time derivatives computed with rates that a failed call declared."""
    ctx.dt_cache = {True: {}, False: {}}
    ctx.dt_masks = {}


def declare_aux_coordinate(
    system: System, name: str, q0: float = 0.0, dq0: float = 0.0, unit: str | None = None, description: str = ""
) -> Expr:
    """Declare an auxiliary coordinate (3D_MEC ``new_aux_q``): one defined by constraints from the others.

    The body of :meth:`symbody.System.aux_coordinate` (documented there, with an example).
    """
    return declare_coordinate(system, name, q0, dq0, unit, description, aux=True)


def coordinate_record(system: System, symbol: Any) -> Coordinate:
    """The :class:`Coordinate` of a position, velocity or acceleration symbol, or of a coordinate name.

    The body of :meth:`symbody.System.coordinate_of` (documented there, with an example).
    """
    if isinstance(symbol, Expr) and isinstance(symbol.value, Coordinate):
        return symbol.value
    if isinstance(symbol, str):
        for c in system.coordinates:
            if c.name == symbol:
                return c
    raise ModelError(f"{symbol!r} is not a coordinate of system {system.name!r}")


def declare_input(
    system: System,
    name: str,
    value: float = 0.0,
    unit: str | None = None,
    description: str = "",
    min: float | None = None,
    max: float | None = None,
) -> Expr:
    """Declare an input (actuator force/torque or excitation) and return its symbol.

    The body of :meth:`symbody.System.input` (documented there, with an example).
    """
    return _declare_scalar(system, "input", name, value, unit, description, min, max)


def declare_motion_input(
    system: System, name: str, unit: str | None = None, description: str = "", *, value: float = 0.0
) -> Expr:
    """Declare a motion input ``z`` (a position or angle given by a signal) and return its symbol.

    The body of :meth:`symbody.System.motion_input` (documented there, with an example).
    """
    names = (name, "d" + name, "dd" + name)
    kinds = ("motion input", "motion velocity", "motion acceleration")
    for n, k in zip(names, kinds):
        system.registry.check(n, k)
    unit, description = check_unit_and_description(unit, description, f"motion input {name!r}")
    value = to_number(value, f"motion input {name!r}")
    units = (unit, *(None if unit is None else (f"{unit}/{d}" if unit else f"1/{d}") for d in ("s", "s2")))
    words = ("", "velocity of ", "acceleration of ")
    symbols = []
    for n, k, role, un, word in zip(names, kinds, MOTION_ROLES, units, words):
        system.registry.claim(n, k)
        sym = system.ctx.symbol(n, k)
        text = description if not word else f"{word}{name}" + (f" ({description})" if description else "")
        u = Input(n, sym, value if role == "position" else 0.0, un, text, motion=role, signal=name)
        sym.value = u
        system.inputs[n] = u
        symbols.append(sym)
    z, dz, ddz = symbols
    set_time_rate(system.ctx, z, dz, dz)
    set_time_rate(system.ctx, dz, ddz, ddz)  # ddz is known, like time: it stays in J_t-like terms
    system.registry.on_rollback(lambda: _forget_time_rates(system.ctx))
    return z


def declare_time_function(system: System, name: str, expr: Any) -> Expr:
    """A named function of time ``z(t)`` (a prescribed motion law) of parameters and time; returns the expression.

    The body of :meth:`symbody.System.time_function` (documented there, with an example).
    """
    system.registry.claim(name, "time function")
    e = to_expr(system, expr, f"time function {name!r}")
    require(system, f"time function {name!r}", e, ("parameter", "time"))
    system.time_functions[name] = e
    return e


def declare_output(system: System, name: str, expr: Any, unit: str | None = None, description: str = "") -> Expr:
    """Declare a named output: any expression of time, state, inputs and multipliers.

    The body of :meth:`symbody.System.output` (documented there, with an example).
    """
    system.registry.check(name, "output")
    unit, description = check_unit_and_description(unit, description, f"output {name!r}")
    e = to_expr(system, expr, f"output {name!r}")
    system.registry.claim(name, "output")
    system.outputs[name] = Output(name, e, unit, description)
    return e


def declare_output_vector(
    system: System,
    name: str,
    vector: Vector,
    base: Base | str | None = None,
    unit: str | None = None,
    description: str = "",
) -> list[Expr]:
    """Declare outputs ``<name>_x``, ``<name>_y``, ``<name>_z``: the components of ``vector`` in ``base``.

    The body of :meth:`symbody.System.output_vector` (documented there, with an example).
    """
    b = resolve_base(system, base, f"base of outputs {name!r}")
    comps = resolve_vector(system, vector, None, f"outputs {name!r}").components(b)
    return [declare_output(system, f"{name}_{ax}", c, unit, description) for ax, c in zip("xyz", comps)]


class QuantitiesMixin(Facet):
    """The methods of :class:`symbody.System` that declare the named quantities:
    parameters, coordinates, inputs, time functions, outputs."""

    @atomic
    @formerly_positional("unit", "description", "min", "max")
    def parameter(
        self,
        name: str,
        value: float = 0.0,
        *,
        unit: str | None = None,
        description: str = "",
        min: float | None = None,
        max: float | None = None,
    ) -> Expr:
        """Declare a parameter (a tunable constant) and return its symbol.

        ``min``/``max`` bound the values an FMU accepts for it.  ``unit`` must be a
        unit of :mod:`symbody.units` and ``description`` text that XML can carry
        (:class:`ModelError` otherwise); the same holds for coordinates, inputs and outputs.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("p")
            >>> m = s.parameter("m", 2.0, unit="kg", min=0.0)
            >>> s.parameters["m"].value, s.parameters["m"].min
            (2.0, 0.0)
        """
        return declare_parameter(self._system, name, value, unit, description, min, max)

    @atomic
    @formerly_positional("unit")
    def parameter_group(self, names: str, value: float = 0.0, *, unit: str | None = None) -> tuple[Expr, ...]:
        """Declare several parameters with the same default value and unit; ``names`` are separated by spaces.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("ps")
            >>> s.parameter_group("m1 m2", 1.0, unit="kg")
            (m1, m2)
        """
        return declare_parameters(self._system, names, value, unit)

    def parameters_(self, spec: str, value: float = 0.0, unit: str | None = None) -> tuple[Expr, ...]:
        """Deprecated spelling of :meth:`parameter_group` (until symbody 0.3).

        Example:
            >>> import warnings
            >>> import symbody as sb
            >>> s = sb.System("old")
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     s.parameters_("a b", 1.0)
            (a, b)
        """
        warn_deprecated("System.parameters_ is renamed System.parameter_group")
        return self.parameter_group(spec, value, unit=unit)

    @atomic
    @formerly_positional("unit", "description", "aux")
    def coordinate(
        self,
        name: str,
        q0: float = 0.0,
        dq0: float = 0.0,
        *,
        unit: str | None = None,
        description: str = "",
        aux: bool = False,
    ) -> Expr:
        """Declare a generalized coordinate and return its position symbol.

        The velocity ``d<name>`` and acceleration ``dd<name>`` symbols are created
        too; get them with :meth:`symbody.System.dt` (``s.dt(q)`` is ``dq``).  ``aux=True``
        marks an auxiliary coordinate (defined by constraints from the others).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("c")
            >>> x = s.coordinate("x", 1.0, -2.0, unit="m")
            >>> c = s.coordinate_of(x)
            >>> c.dq, c.ddq, c.dq0, c.velocity_unit
            (dx, ddx, -2.0, 'm/s')
        """
        return declare_coordinate(self._system, name, q0, dq0, unit, description, aux)

    @atomic
    @formerly_positional("unit", "description")
    def aux_coordinate(
        self, name: str, q0: float = 0.0, dq0: float = 0.0, *, unit: str | None = None, description: str = ""
    ) -> Expr:
        """Declare an auxiliary coordinate (3D_MEC ``new_aux_q``): one defined by constraints from the others.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("ax")
            >>> s.coordinate_of(s.aux_coordinate("s1")).aux
            True
        """
        return declare_aux_coordinate(self._system, name, q0, dq0, unit, description)

    def coordinate_of(self, symbol: Any) -> Coordinate:
        """The :class:`Coordinate` of a position, velocity or acceleration symbol, or of a coordinate name.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("r")
            >>> x = s.coordinate("x")
            >>> s.coordinate_of("x") is s.coordinate_of(s.dt(x))
            True
        """
        return coordinate_record(self._system, symbol)

    @atomic
    @formerly_positional("unit", "description", "min", "max")
    def input(
        self,
        name: str,
        value: float = 0.0,
        *,
        unit: str | None = None,
        description: str = "",
        min: float | None = None,
        max: float | None = None,
    ) -> Expr:
        """Declare an input (actuator force/torque or excitation) and return its symbol.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("i")
            >>> F = s.input("F", 1.0, unit="N")
            >>> s.inputs["F"].symbol is F
            True
        """
        return declare_input(self._system, name, value, unit, description, min, max)

    @atomic
    @formerly_positional("unit", "description")
    def motion_input(self, name: str, *, unit: str | None = None, description: str = "", value: float = 0.0) -> Expr:
        """Declare a motion input ``z`` (a position or angle given by a signal) and return its symbol.

        Its velocity ``d<name>`` and acceleration ``dd<name>`` are two more inputs, the time derivatives of
        ``z`` (``s.dt(z)`` is ``dz``, ``s.dt(dz)`` is ``ddz``).  ``z`` may be used wherever a coordinate
        may: rotations, point positions, loads, :meth:`~symbody.System.prescribe` and outputs; the
        kinematics then carry ``dz`` and ``ddz`` into velocities, accelerations and the equations of
        motion.  In FMUs they are three continuous inputs ``name``, ``dname`` and ``ddname``; simulations
        take a signal with its derivatives (:mod:`symbody.numeric.inputs`).  ``value`` is the start value
        of ``z`` (its rates start at zero).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("mi")
            >>> z = s.motion_input("heave", unit="m")
            >>> s.dt(z), s.dt(s.dt(z)), [u for u in s.inputs]
            (dheave, ddheave, ['heave', 'dheave', 'ddheave'])
        """
        return declare_motion_input(self._system, name, unit, description, value=value)

    @atomic
    def time_function(self, name: str, expr: Any) -> Expr:
        """A named function of time ``z(t)`` (a prescribed motion law) of parameters and time; returns the expression.

        Its derivatives are taken symbolically when needed (``s.dt(z)``).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("tf")
            >>> w = s.parameter("w", 2.0)
            >>> s.time_function("z", sb.sin(w * s.t))
            sin(t*w)
        """
        return declare_time_function(self._system, name, expr)

    @atomic
    @formerly_positional("unit", "description")
    def output(self, name: str, expr: Any, *, unit: str | None = None, description: str = "") -> Expr:
        """Declare a named output: any expression of time, state, inputs and multipliers.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("o")
            >>> x = s.coordinate("x")
            >>> s.output("x2", 2 * x, unit="m")
            2*x
        """
        return declare_output(self._system, name, expr, unit, description)

    @atomic
    @formerly_positional("unit", "description")
    def output_vector(
        self,
        name: str,
        vector: Vector,
        base: Base | str | None = None,
        *,
        unit: str | None = None,
        description: str = "",
    ) -> list[Expr]:
        """Declare outputs ``<name>_x``, ``<name>_y``, ``<name>_z``: the components of ``vector`` in ``base``.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("ov")
            >>> x = s.coordinate("x")
            >>> P = s.point("P", s.origin, (x, 1, 0))
            >>> s.output_vector("rP", s.position(P), unit="m")
            [x, 1, 0]
        """
        return declare_output_vector(self._system, name, vector, base, unit, description)
