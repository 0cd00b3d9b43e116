"""User input turned into expressions of a system, and the checks of what they may depend on.

A model object accepts numbers, symbols and expressions of its own system; each
kind of object may depend only on some kinds of symbol (a point's position on
parameters, coordinates and time, a load also on velocities and inputs, ...).
Every failure is a :class:`symbody.errors.ModelError` naming the object.

Example:
    >>> import symbody as sb
    >>> s = sb.System("e")
    >>> x = s.coordinate("x")
    >>> try:
    ...     require(s, "mass of 'm'", s.dt(x), ("parameter",))
    ... except sb.ModelError as e:
    ...     print(e)
    mass of 'm' depends on the velocity 'dx'; it may depend only on parameters
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..errors import ModelError, UndeclaredSymbolError
from ..symbolic.calculus import diff, time_derivative
from ..symbolic.evaluate import evaluate
from ..symbolic.expr import Expr, add, as_expr, mul
from .registry import Facet
from .vector import Vector

if TYPE_CHECKING:
    from .system import System

#: the kinds of symbol of a motion input and of its two rates (:meth:`symbody.System.motion_input`)
MOTION_KINDS = ("motion input", "motion velocity", "motion acceleration")

# the kinds of symbol each family of model objects may depend on
GEOMETRY = ("parameter", "coordinate", "time", "motion input")
LOADS = ("parameter", "coordinate", "velocity", "time", "input") + MOTION_KINDS + ("state",)

_KIND_WORDS = {
    "time": "time",
    "parameter": "parameters",
    "coordinate": "coordinates",
    "velocity": "velocities",
    "acceleration": "accelerations",
    "input": "inputs",
    "multiplier": "multipliers",
    "motion input": "motion inputs",
    "motion velocity": "motion input velocities",
    "motion acceleration": "motion input accelerations",
    "state": "states",
}


def mask_of(x: Any) -> int:
    """Bit mask of the symbols an expression, a Vector or a nested sequence of them depends on.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("m")
        >>> a = s.parameter("a"); b = s.parameter("b")
        >>> mask_of([a, (b, 3)]) == a.mask | b.mask
        True
    """
    if isinstance(x, (Expr, Vector)):
        return x.mask
    if isinstance(x, (list, tuple)):
        m = 0
        for y in x:
            m |= mask_of(y)
        return m
    return 0


def to_expr(system: System, x: Any, what: str = "expression") -> Expr:
    """Convert user input to an expression of ``system``, or raise ModelError naming ``what``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("c")
        >>> to_expr(s, 2.5, "mass of 'm'")
        2.5
        >>> try:
        ...     to_expr(s, float("nan"), "mass of 'm'")
        ... except sb.ModelError as e:
        ...     print("refused")
        refused
    """
    try:
        e = as_expr(x, system.ctx)
    except UndeclaredSymbolError as err:
        raise ModelError(f"{what}: symbol {err.name!r} is used but never declared in system {system.name!r}") from None
    except (TypeError, ModelError) as err:  # not an expression; an infinite or NaN number
        raise ModelError(f"{what}: {err}") from None
    if e.ctx is not None and e.ctx is not system.ctx:
        raise ModelError(f"{what}: the expression {e} belongs to another system")
    return e


def to_number(v: Any, what: str) -> float:
    """A finite float, or ModelError naming ``what``.

    Example:
        >>> to_number("1.5", "parameter 'l'")
        1.5
    """
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ModelError(f"{what}: value {v!r} is not a number") from None
    if not math.isfinite(f):
        raise ModelError(f"{what}: value {v!r} is not finite")
    return f


def require(system: System, what: str, exprs: Any, allowed: tuple[str, ...]) -> None:
    """Raise a ModelError naming the first symbol of ``exprs`` whose kind is not in ``allowed``.

    ``exprs`` is an expression, a Vector or a (nested) sequence of them; kinds are
    those of :meth:`symbody.symbolic.expr.Context.symbol` (``"parameter"``, ``"coordinate"``, ...).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rq")
        >>> x = s.coordinate("x"); F = s.input("F")
        >>> require(s, "load 'push'", [x, F], LOADS)
        >>> try:
        ...     require(s, "point 'P'", (F, 0, 0), GEOMETRY)
        ... except sb.ModelError as e:
        ...     print(e)
        point 'P' depends on the input 'F'; it may depend only on parameters, coordinates, time and motion inputs \
(an input that moves something is a motion input: System.motion_input)
    """
    mask = mask_of(exprs)
    if not mask:
        return
    for s in system.ctx.symbols:
        if s.mask & mask and s.kind not in allowed:
            words = [_KIND_WORDS[k] for k in allowed if k in _KIND_WORDS]
            only = ", ".join(words[:-1]) + (" and " if len(words) > 1 else "") + words[-1] if words else "numbers"
            raise ModelError(
                f"{what} depends on the {s.kind} {s.name!r}; it may depend only on {only}{_hint(s, allowed)}"
            )


def _hint(symbol: Expr, allowed: tuple[str, ...]) -> str:
    """How to write what was refused, where there is a way."""
    if symbol.kind == "input" and "motion input" in allowed:
        return " (an input that moves something is a motion input: System.motion_input)"
    if symbol.kind in ("motion velocity", "motion acceleration") and "motion input" in allowed:
        return " (positions use the motion input itself; its rates enter the velocities and accelerations)"
    if symbol.kind == "state" and "coordinate" in allowed:
        return " (a first-order state moves nothing by itself: use it in loads, rates and outputs)"
    return ""


def motion_symbols(system: System) -> list[tuple[Expr, Expr, Expr]]:
    """The ``(z, dz, ddz)`` symbols of every motion input, in declaration order.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ms"); _ = s.motion_input("roll", unit="rad")
        >>> motion_symbols(s)
        [(roll, droll, ddroll)]
    """
    rows = [u for u in system.inputs.values() if u.motion]
    return [(rows[k].symbol, rows[k + 1].symbol, rows[k + 2].symbol) for k in range(0, len(rows), 3)]


def explicit_rate(system: System, e: Expr) -> Expr:
    """The rate of a position expression ``e(q, t, z)`` at ``dq = 0``: ``de/dt + sum de/dz dz`` (``-beta``).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("er"); x = s.coordinate("x"); z = s.motion_input("z")
        >>> explicit_rate(s, x - z * s.t)
        -(z + t*dz)
    """
    r = diff(e, system.t)
    for z, dz, _ in motion_symbols(system):
        if e.mask & z.mask:
            r = add(r, mul(diff(e, z), dz))
    return r


def symbol_named(system: System, name: str) -> Expr:
    """The symbol called ``name`` (parameter, coordinate, velocity, input, time, ...).

    The body of :meth:`symbody.System.symbol` (documented there, with an example).
    """
    s = system.ctx.by_name.get(name)
    if s is None:
        raise ModelError(f"no symbol named {name!r} in system {system.name!r}")
    return s


def total_derivative(system: System, expr: Any) -> Expr:
    """Total time derivative of an expression (``dt(q) = dq``, ``dt(dq) = ddq``, ``dt(z) = dz`` of a motion

    The body of :meth:`symbody.System.dt` (documented there, with an example).
    """
    e = to_expr(system, expr)
    for sym in system.ctx.symbols:
        if not sym.mask & e.mask:
            continue
        if sym.kind == "motion acceleration":
            raise ModelError(
                f"the time derivative of {e} needs that of the motion input acceleration {sym.name!r}, "
                "which the model does not have (a motion input gives its position, velocity and acceleration)"
            )
        if sym.kind == "state" and sym.value.rate is None:
            raise ModelError(
                f"the time derivative of {e} needs the rate of state {sym.name!r}: give it with System.rate"
            )
    return time_derivative(e, system.ctx, accelerations=True)


def state_mask(system: System) -> int:
    """Bit mask of what moves: time, every coordinate, velocity and acceleration, the motion inputs and
    their rates, and the first-order states.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("sm")
        >>> l = s.parameter("l"); x = s.coordinate("x")
        >>> bool(state_mask(s) & x.mask), bool(state_mask(s) & l.mask)
        (True, False)
    """
    m = system.t.mask
    for c in system.coordinates:
        m |= c.q.mask | c.dq.mask | c.ddq.mask
    for u in system.inputs.values():
        if u.motion:
            m |= u.symbol.mask
    for st in system.states.values():
        m |= st.symbol.mask
    return m


def coordinate_mask(system: System, velocities: bool = False) -> int:
    """Bit mask of the coordinates (and of their velocities with ``velocities=True``).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("cm")
        >>> x = s.coordinate("x")
        >>> coordinate_mask(s) == x.mask, coordinate_mask(s, velocities=True) == x.mask | s.dt(x).mask
        (True, True)
    """
    m = 0
    for c in system.coordinates:
        m |= c.q.mask | (c.dq.mask if velocities else 0)
    return m


def default_values(system: System) -> dict[Expr, float]:
    """Values of every symbol at the defaults: parameters, initial state, inputs, ``t = 0``.

    The body of :meth:`symbody.System.default_values` (documented there, with an example).
    """
    vals: dict[Expr, float] = {system.t: 0.0}
    for p in system.parameters.values():
        vals[p.symbol] = p.value
    for c in system.coordinates:
        vals[c.q] = c.q0
        vals[c.dq] = c.dq0
        vals[c.ddq] = 0.0
    for u in system.inputs.values():
        vals[u.symbol] = u.value
    for st in system.states.values():
        vals[st.symbol] = st.x0
    for lam in system._multipliers.values():
        vals[lam] = 0.0
    return vals


def default_value(system: System, e: Expr) -> float:
    """The value of ``e`` at the defaults (:func:`default_values`).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("dv")
        >>> l = s.parameter("l", 2.0); x = s.coordinate("x", 0.5)
        >>> default_value(s, l * x)
        1.0
    """
    return evaluate(e, default_values(system))


class ExpressionsMixin(Facet):
    """The methods of :class:`symbody.System` that reach the symbols of the model and their time derivatives."""

    def symbol(self, name: str) -> Expr:
        """The symbol called ``name`` (parameter, coordinate, velocity, input, time, ...).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("sy")
            >>> x = s.coordinate("x")
            >>> s.symbol("dx") is s.dt(x)
            True
        """
        return symbol_named(self._system, name)

    def default_values(self) -> dict[Expr, float]:
        """Values of every symbol at the defaults: parameters, initial state, inputs, ``t = 0``.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("d")
            >>> l = s.parameter("l", 2.0)
            >>> s.default_values()[l]
            2.0
        """
        return default_values(self._system)

    def dt(self, expr: Any) -> Expr:
        """Total time derivative of an expression (``dt(q) = dq``, ``dt(dq) = ddq``, ``dt(z) = dz`` of a motion
        input, ``dt(x)`` the rate of a first-order state).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("dt")
            >>> x = s.coordinate("x")
            >>> s.dt(x * x)
            2*x*dx
        """
        return total_derivative(self._system, expr)
