"""Point-to-point spring-dampers that act one way only: slings (pull only) and buffers (push only).

Both are the rope's one-sided law (:mod:`symbody.model.ropes`) between two points with a spring
rate ``k`` (N/m) instead of an axial stiffness: with ``d`` the distance of the points,

- a sling pulls them together with ``max(0, k (d - rest_length) + c dd/dt)`` (slack when shorter);
- a buffer pushes them apart with ``max(0, k (free_length - d) - c dd/dt)`` (free when longer).

The kink of the ``max`` is a switching function, located as an event by every simulation.

Example:
    >>> import symbody as sb
    >>> s = sb.System("stop")
    >>> x = s.coordinate("x", 1.0)
    >>> P = s.point("P", s.origin, (x, 0, 0)); _ = s.particle("cart", P, 1.0)
    >>> s.buffer("bumper", s.origin, P, k=1e4, free_length=0.2).force
    1/2*(10000*(0.2 - sqrt(x**2)) + abs(10000*(0.2 - sqrt(x**2))))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..symbolic.expr import Expr, neg, sub
from .expressions import require, to_expr, total_derivative
from .geometry import Point, resolve_point
from .loads import add_load
from .registry import Facet, atomic
from .ropes import PathForce, one_sided_force, path_length, virtual_rate

if TYPE_CHECKING:
    from .system import System


@dataclass
class OneSidedSpring:
    """A sling or a buffer: its points, its distance ``d`` and its force (>= 0; pulling for a sling,
    pushing for a buffer).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("os"); x = s.coordinate("x", 2.0)
        >>> P = s.point("P", s.origin, (x, 0, 0)); _ = s.particle("m", P, 1.0)
        >>> s.sling("strap", s.origin, P, k=50.0, rest_length=1.0).kind
        'sling'
    """

    name: str
    kind: str
    point1: Point
    point2: Point
    distance: Expr
    force: Expr
    load: PathForce


def _one_sided(
    system: System, kind: str, name: str, point1: Any, point2: Any, k: Any, length: Any, damping: Any
) -> OneSidedSpring:
    what = f"{kind} {name!r}"
    system.registry.check(name, kind)
    p1, p2 = resolve_point(system, point1, what), resolve_point(system, point2, what)
    k_ = to_expr(system, k, f"stiffness of {what}")
    l0 = to_expr(system, length, f"length of {what}")
    c = to_expr(system, damping, f"damping of {what}")
    require(system, what, [k_, l0, c], ("parameter", "coordinate", "time", "motion input", "input", "state"))
    d = path_length(system, [p1, p2], 1, what)
    extension = sub(d, l0) if kind == "sling" else sub(l0, d)
    force = one_sided_force(system, what, extension, total_derivative(system, extension), k_, c)
    # a sling shortens d, a buffer lengthens it: the generalized force is -f dd/dq (sling), +f dd/dq (buffer)
    load = PathForce(name, kind, [(p1, p2, 1)], neg(force) if kind == "sling" else force, virtual_rate(system, d))
    add_load(system, name, load)
    element = system.elements[name] = OneSidedSpring(name, kind, p1, p2, d, force, load)
    return element


def add_sling(
    system: System, name: str, point1: Point | str, point2: Point | str, *, k: Any, rest_length: Any, damping: Any = 0
) -> OneSidedSpring:
    """A spring-damper that only pulls: ``max(0, k (d - rest_length) + c dd/dt)`` along the line.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("sl"); x = s.coordinate("x", 2.0)
        >>> P = s.point("P", s.origin, (x, 0, 0)); _ = s.particle("m", P, 1.0)
        >>> add_sling(s, "strap", s.origin, P, k=50.0, rest_length=1.0).force
        -1/2*(50*(1 - sqrt(x**2)) - abs(50*(1 - sqrt(x**2))))
    """
    return _one_sided(system, "sling", name, point1, point2, k, rest_length, damping)


def add_buffer(
    system: System, name: str, point1: Point | str, point2: Point | str, *, k: Any, free_length: Any, damping: Any = 0
) -> OneSidedSpring:
    """A spring-damper that only pushes: ``max(0, k (free_length - d) - c dd/dt)`` along the line.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("bf"); x = s.coordinate("x", 2.0)
        >>> P = s.point("P", s.origin, (x, 0, 0)); _ = s.particle("m", P, 1.0)
        >>> add_buffer(s, "pad", s.origin, P, k=50.0, free_length=1.0).kind
        'buffer'
    """
    return _one_sided(system, "buffer", name, point1, point2, k, free_length, damping)


__all__ = ["OneSidedSpring", "add_buffer", "add_sling"]


class OneSidedMixin(Facet):
    """The methods of :class:`symbody.System` that add one-sided spring-dampers (slings, buffers)."""

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
        return add_sling(self._system, name, point1, point2, k=k, rest_length=rest_length, damping=damping)

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
        return add_buffer(self._system, name, point1, point2, k=k, free_length=free_length, damping=damping)
