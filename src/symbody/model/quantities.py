"""Declaring the named quantities of a model: parameters, coordinates, inputs, time functions, outputs.

Each function checks everything (name, unit, description, value) before it
claims the name and creates the symbol; the :class:`symbody.System` methods of
the same names call them inside a transaction of the system's registry.

Example:
    >>> import symbody as sb
    >>> s = sb.System("q")
    >>> th = declare_coordinate(s, "th", 0.5, unit="rad")
    >>> s.coordinate_of(th).q0, s.dt(th)
    (0.5, dth)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import set_time_rate
from ..symbolic.expr import ZERO, Context, Expr
from .base import Base
from .expressions import require, to_expr, to_number
from .geometry import resolve_base, resolve_vector
from .symbols import MOTION_ROLES, Coordinate, Input, Output, Parameter, check_unit_and_description
from .vector import Vector

if TYPE_CHECKING:
    from .system import System


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

    ``min``/``max`` bound the values an FMU accepts for it.  ``unit`` must be a
    unit of :mod:`symbody.units` and ``description`` text that XML can carry
    (:class:`ModelError` otherwise); the same holds for coordinates, inputs and outputs.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("p")
        >>> m = declare_parameter(s, "m", 2.0, unit="kg", min=0.0)
        >>> s.parameters["m"].value, s.parameters["m"].min
        (2.0, 0.0)
    """
    system.registry.check(name, "parameter")
    unit, description = check_unit_and_description(unit, description, f"parameter {name!r}")
    value = to_number(value, f"parameter {name!r}")
    system.registry.claim(name, "parameter")
    s = system.ctx.symbol(name, "parameter")
    p = Parameter(name, s, value, unit, description, min, max)
    s.value = p
    system.parameters[name] = p
    return s


def declare_parameters(system: System, spec: str, value: float = 0.0, unit: str | None = None) -> tuple[Expr, ...]:
    """Declare several parameters with the same default: ``s.parameters_("m1 m2 m3", 1.0)``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ps")
        >>> declare_parameters(s, "m1 m2", 1.0, unit="kg")
        (m1, m2)
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

    The velocity ``d<name>`` and acceleration ``dd<name>`` symbols are created
    too; get them with :meth:`symbody.System.dt` (``s.dt(q)`` is ``dq``).  ``aux=True``
    marks an auxiliary coordinate (defined by constraints from the others).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("c")
        >>> x = declare_coordinate(s, "x", 1.0, -2.0, unit="m")
        >>> c = s.coordinate_of(x)
        >>> c.dq, c.ddq, c.dq0, c.velocity_unit
        (dx, ddx, -2.0, 'm/s')
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

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ax")
        >>> s.coordinate_of(declare_aux_coordinate(s, "s1")).aux
        True
    """
    return declare_coordinate(system, name, q0, dq0, unit, description, aux=True)


def coordinate_record(system: System, symbol: Any) -> Coordinate:
    """The :class:`Coordinate` of a position, velocity or acceleration symbol, or of a coordinate name.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("r")
        >>> x = s.coordinate("x")
        >>> coordinate_record(s, "x") is coordinate_record(s, s.dt(x))
        True
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

    Example:
        >>> import symbody as sb
        >>> s = sb.System("i")
        >>> F = declare_input(s, "F", 1.0, unit="N")
        >>> s.inputs["F"].symbol is F
        True
    """
    system.registry.check(name, "input")
    unit, description = check_unit_and_description(unit, description, f"input {name!r}")
    value = to_number(value, f"input {name!r}")
    system.registry.claim(name, "input")
    s = system.ctx.symbol(name, "input")
    u = Input(name, s, value, unit, description, min, max)
    s.value = u
    system.inputs[name] = u
    return s


def declare_motion_input(
    system: System, name: str, unit: str | None = None, description: str = "", *, value: float = 0.0
) -> Expr:
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
        >>> z = declare_motion_input(s, "heave", unit="m")
        >>> s.dt(z), s.dt(s.dt(z)), [u for u in s.inputs]
        (dheave, ddheave, ['heave', 'dheave', 'ddheave'])
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

    Its derivatives are taken symbolically when needed (``s.dt(z)``).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("tf")
        >>> w = s.parameter("w", 2.0)
        >>> declare_time_function(s, "z", sb.sin(w * s.t))
        sin(t*w)
    """
    system.registry.claim(name, "time function")
    e = to_expr(system, expr, f"time function {name!r}")
    require(system, f"time function {name!r}", e, ("parameter", "time"))
    system.time_functions[name] = e
    return e


def declare_output(system: System, name: str, expr: Any, unit: str | None = None, description: str = "") -> Expr:
    """Declare a named output: any expression of time, state, inputs and multipliers.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("o")
        >>> x = s.coordinate("x")
        >>> declare_output(s, "x2", 2 * x, unit="m")
        2*x
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

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ov")
        >>> x = s.coordinate("x")
        >>> P = s.point("P", s.origin, (x, 1, 0))
        >>> declare_output_vector(s, "rP", s.position(P), unit="m")
        [x, 1, 0]
    """
    b = resolve_base(system, base, f"base of outputs {name!r}")
    comps = resolve_vector(system, vector, None, f"outputs {name!r}").components(b)
    return [declare_output(system, f"{name}_{ax}", c, unit, description) for ax, c in zip("xyz", comps)]
