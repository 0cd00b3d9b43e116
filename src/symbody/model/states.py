"""First-order states of a model: quantities with a rate of their own (a pressure, a current, a filter).

``x = s.state(name, x0)`` declares a state and ``s.rate(x, expr)`` gives ``dx/dt``; the rate may
use coordinates, velocities, inputs, motion inputs, multipliers, contact forces and states (``x``
included), and states may be used in loads and outputs (not in geometry: a state moves nothing by
itself).  ``s.dt(x)`` is the rate.  Every simulation and solver integrates the states with the
mechanical ones; FMUs export them as continuous states.

Example (a first-order lag ``T x' = u - x``):
    >>> import symbody as sb
    >>> s = sb.System("lag")
    >>> T = s.parameter("T", 0.2, unit="s"); u = s.input("u", unit="V")
    >>> x = s.state("x", 0.0, unit="V", rate=u / T)   # a rate without x: given at declaration
    >>> y = s.state("y", 0.0, unit="V")
    >>> s.rate(y, (x - y) / T)                        # a rate that uses y itself
    >>> s.dt(y) == (x - y) / T
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import set_time_rate
from ..symbolic.expr import Expr
from .deprecation import formerly_positional
from .expressions import require, to_expr, to_number
from .quantities import check_unit_and_description
from .registry import Facet, atomic

if TYPE_CHECKING:
    from .system import System


@dataclass
class State:
    """A first-order state ``x`` with its rate ``dx/dt`` (``None`` until :meth:`symbody.System.rate` gives it).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("lag")
        >>> u = s.input("u"); T = s.parameter("T", 0.5, unit="s")
        >>> x = s.state("x", 1.0)
        >>> s.rate(x, (u - x) / T)
        >>> s.states["x"].x0, s.states["x"].rate
        (1.0, (u - x)/T)
    """

    name: str
    symbol: Expr
    x0: float
    unit: str | None = None
    description: str = ""
    rate: Expr | None = None

    @property
    def rate_unit(self) -> str | None:
        return None if self.unit is None else (f"{self.unit}/s" if self.unit else "1/s")

#: the kinds of symbol a rate may depend on
RATE_KINDS = (
    "parameter", "coordinate", "velocity", "time", "input", "motion input", "motion velocity",
    "motion acceleration", "multiplier", "state",
)  # fmt: skip


def declare_state(
    system: System,
    name: str,
    x0: float = 0.0,
    unit: str | None = None,
    description: str = "",
    rate: Any = None,
) -> Expr:
    """Declare a first-order state with start value ``x0`` and return its symbol.

    The body of :meth:`symbody.System.state` (documented there, with an example).
    """
    system.registry.check(name, "state")
    unit, description = check_unit_and_description(unit, description, f"state {name!r}")
    x0 = to_number(x0, f"state {name!r} start value")
    r = None if rate is None else _checked_rate(system, name, rate)
    system.registry.claim(name, "state")
    x = system.ctx.symbol(name, "state")
    st = State(name, x, x0, unit, description)
    x.value = st
    system.states[name] = st
    if r is not None:
        _store_rate(system, st, r)
    return x


def set_rate(system: System, state: Any, expr: Any) -> None:
    """Give the rate ``dx/dt = expr`` of a state (once).

    The body of :meth:`symbody.System.rate` (documented there, with an example).
    """
    st = state_record(system, state)
    if st.rate is not None:
        raise ModelError(f"state {st.name!r} already has a rate ({st.rate})")
    _store_rate(system, st, _checked_rate(system, st.name, expr))


def state_record(system: System, state: Any) -> State:
    """The :class:`State` of a state symbol or name, or :class:`ModelError`.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rec"); x = s.state("x")
        >>> state_record(s, "x") is state_record(s, x)
        True
    """
    if isinstance(state, Expr) and isinstance(state.value, State) and state.ctx is system.ctx:
        return state.value
    if isinstance(state, str) and state in system.states:
        return system.states[state]
    raise ModelError(f"{state!r} is not a state of system {system.name!r} (declare it with System.state)")


def _checked_rate(system: System, name: str, expr: Any) -> Expr:
    e = to_expr(system, expr, f"rate of state {name!r}")
    require(system, f"the rate of state {name!r}", e, RATE_KINDS)
    return e


def _store_rate(system: System, st: State, rate: Expr) -> None:
    previous = st.rate

    def undo() -> None:
        st.rate = previous

    st.rate = rate
    set_time_rate(system.ctx, st.symbol, rate, rate)
    system.registry.on_rollback(undo)


def missing_rates(system: System) -> list[str]:
    """Names of the states that have no rate yet.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("mr"); _ = s.state("a"); _ = s.state("b", rate=1.0)
        >>> missing_rates(s)
        ['a']
    """
    return [st.name for st in system.states.values() if st.rate is None]


class StatesMixin(Facet):
    """The methods of :class:`symbody.System` that declare first-order states and their rates."""

    @atomic
    @formerly_positional("unit", "description", "rate")
    def state(
        self, name: str, x0: float = 0.0, *, unit: str | None = None, description: str = "", rate: Any = None
    ) -> Expr:
        """Declare a first-order state with start value ``x0`` and return its symbol.

        ``rate`` gives ``dx/dt`` at once when it does not use the state itself (which does not exist
        before this call); otherwise give it with :func:`set_rate`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("st")
            >>> i = s.state("i", 0.5, unit="A", description="motor current")
            >>> s.states["i"].x0, s.states["i"].unit, s.states["i"].rate is None
            (0.5, 'A', True)
        """
        return declare_state(self._system, name, x0, unit, description, rate)

    @atomic
    def rate(self, state: Any, expr: Any) -> None:
        """Give the rate ``dx/dt = expr`` of a state (once).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("sr")
            >>> x = s.state("x", 1.0); k = s.parameter("k", 2.0)
            >>> s.rate(x, -k * x)
            >>> try:
            ...     s.rate(x, -x)
            ... except sb.ModelError as e:
            ...     print(e)  # doctest: +ELLIPSIS
            state 'x' already has a rate (...)
        """
        return set_rate(self._system, state, expr)


__all__ = ["StatesMixin", "RATE_KINDS", "declare_state", "missing_rates", "set_rate", "state_record"]
