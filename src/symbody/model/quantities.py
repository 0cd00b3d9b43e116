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
from .expressions import require, to_expr, to_number
from .symbols import Coordinate, Input, Output, Parameter, check_unit_and_description

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
    """Declare a parameter (a tunable constant) and return its symbol (:meth:`symbody.System.parameter`).

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


def declare_coordinate(
    system: System,
    name: str,
    q0: float = 0.0,
    dq0: float = 0.0,
    unit: str | None = None,
    description: str = "",
    aux: bool = False,
) -> Expr:
    """Declare a coordinate with its velocity ``d<name>`` and acceleration ``dd<name>`` symbols.

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


def declare_time_function(system: System, name: str, expr: Any) -> Expr:
    """A named function of time ``z(t)`` of parameters and time only; returns the expression.

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
