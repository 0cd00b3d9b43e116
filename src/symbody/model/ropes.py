"""Elastic ropes: tension only, along a path of points, in one or several falls.

A rope runs from its anchor through a path of points (fixed, or on bodies: the sheaves it passes
over, a hook block) to its end.  Its current length is the sum of the straight segments between
consecutive points, the last segment counted ``falls`` times (``n`` parallel falls reeved between
the last two points: the upper block and the hook block).  A sheave is a frictionless pulley of
negligible radius: the rope passes through its point and the tension is the same on both sides.

With ``EA`` the rope's axial stiffness (``stiffness``, in N), ``L0`` its unstretched length (which
may be an expression of coordinates and states: a winch pays rope out) and ``c`` its damping (N s/m)::

    stretch = L - L0
    tension = max(0, EA stretch / L0 + c d(stretch)/dt)

The ``max`` is written with ``Abs`` (:func:`symbody.positive_part`): its argument is a switching
function of the loads, which every simulation (Python and FMU) locates as an event, so a rope goes
slack or taut exactly in time.  The tension pulls the path shorter (its generalized force is
``-tension d(stretch)/dq``), and pays rope off a drum whose angle enters ``L0``.  A hook on ``n`` falls
carries ``n`` times the line pull and sees the stiffness ``n^2 EA / L0``.

Example (a mass hanging from a fixed point on a rope):
    >>> import symbody as sb
    >>> s = sb.System("hang")
    >>> y = s.coordinate("y", -2.0, unit="m")
    >>> hook = s.point("hook", s.origin, (0, y, 0))
    >>> _ = s.particle("load", hook, 100.0)
    >>> rope = s.rope("line", [s.origin, hook], stiffness=1e6, unstretched_length=2.0)
    >>> rope.length
    sqrt(y**2)
    >>> sorted(n for n in s.outputs)
    ['line_length', 'line_stretch', 'line_tension']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import diff
from ..symbolic.expr import ZERO, Expr, add, as_expr, div, mul, neg, sub
from ..symbolic.nonsmooth import positive_part
from .expressions import LOADS, default_value, require, to_expr, total_derivative
from .geometry import Point, relative_position, resolve_point
from .loads import ScalarForce, add_load
from .quantities import Output, declare_output
from .registry import Facet, atomic

if TYPE_CHECKING:
    from .kinematics import Kinematics
    from .system import System
    from .vector import Vector

#: the kinds of symbol an unstretched length may depend on (a winch pays out with a coordinate or a state)
LENGTH_KINDS = ("parameter", "coordinate", "time", "motion input", "state")


@dataclass
class Rope:
    """An elastic rope of a model (:meth:`symbody.System.rope`).

    Attributes:
        name: the rope's name (its load and the prefix of its outputs).
        path: the points from anchor to end.
        falls: the number of parallel falls between the last two points.
        stiffness: the axial stiffness ``EA`` (N).
        damping: the damping ``c`` of the tension (N s/m).
        unstretched_length: ``L0`` (m), an expression of parameters, coordinates, time and states.
        length: the current length ``L`` of the whole rope.
        stretch: ``L - L0``.
        tension: ``max(0, EA stretch / L0 + c d(stretch)/dt)``, the line pull (N).
        load: the scalar force that applies the tension.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rp")
        >>> y = s.coordinate("y", -1.0)
        >>> P = s.point("P", s.origin, (0, y, 0)); _ = s.particle("m", P, 1.0)
        >>> r = s.rope("r", [s.origin, P], stiffness=100.0, unstretched_length=1.0, falls=2, outputs=False)
        >>> r.length, r.falls
        (2*sqrt(y**2), 2)
    """

    name: str
    path: list[Point]
    falls: int
    stiffness: Expr
    damping: Expr
    unstretched_length: Expr
    length: Expr
    stretch: Expr
    tension: Expr
    load: PathForce
    kind: str = "rope"


class PathForce(ScalarForce):
    """A force ``force`` along the length of a path of straight segments (positive lengthening it), and
    along ``extra_rate`` (a winch's drum): the load of ropes, slings, buffers and cylinders.

    Its virtual power is that of a :class:`~symbody.model.loads.ScalarForce` along ``rate``; the joint
    reactions see it as point forces along each segment, ``falls`` times on the last one
    (:meth:`point_forces`), plus the generalized force along ``extra_rate``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("pf"); x = s.coordinate("x", 1.0)
        >>> P = s.point("P", s.origin, (x, 0, 0)); _ = s.particle("m", P, 1.0)
        >>> line = s.rope("r", [s.origin, P], stiffness=10.0, unstretched_length=0.5, outputs=False)
        >>> [(p.name, F.components(s.ground_base)[0] is not None) for F, p in line.load.point_forces(s.kinematics)]
        [('P', True), ('O', True)]
    """

    def __init__(
        self, name: str, kind: str, segments: list[tuple[Point, Point, int]], force: Expr, rate: Expr,
        extra_rate: Expr | None = None,
    ):  # fmt: skip
        super().__init__(name, rate, force)
        self.kind = kind
        self.segments = segments
        self.extra_rate = extra_rate

    def point_forces(self, kin: Kinematics) -> list[tuple[Vector, Point]]:
        """``(force, point)`` at the ends of every segment: pushing them apart for a positive ``force``."""
        out: list[tuple[Vector, Point]] = []
        for a, b, n in self.segments:
            r = relative_position(kin, a, b)
            F = r * div(mul(as_expr(n), self.force), r.norm())
            out += [(F, b), (-F, a)]
        return out


def segments_of(points: Sequence[Point], falls: int) -> list[tuple[Point, Point, int]]:
    """The segments ``(a, b, multiplicity)`` of a path, the last one ``falls`` times.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("sg"); A = s.point("A", s.origin, (1, 0, 0))
        >>> [(a.name, b.name, n) for a, b, n in segments_of([s.origin, A, s.origin], 3)]
        [('O', 'A', 1), ('A', 'O', 3)]
    """
    pairs = list(zip(points[:-1], points[1:]))
    return [(a, b, falls if k == len(pairs) - 1 else 1) for k, (a, b) in enumerate(pairs)]


def path_length(system: System, points: Sequence[Point], falls: int, what: str) -> Expr:
    """The length of a polyline through ``points``, its last segment counted ``falls`` times.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("pl")
        >>> x = s.coordinate("x", 1.0)
        >>> A = s.point("A", s.origin, (0, 1, 0)); B = s.point("B", s.origin, (x, 0, 0))
        >>> path_length(s, [s.origin, A, B], 1, "rope")
        1 + sqrt(1 + x**2)
    """
    total: Expr = ZERO
    for k, (a, b) in enumerate(zip(points[:-1], points[1:])):
        r = relative_position(system.kinematics, a, b)
        if r.is_zero or default_value(system, r.norm2()) == 0.0:
            raise ModelError(
                f"{what}: its points {a.name!r} and {b.name!r} coincide at the initial configuration, "
                "where the direction of its force is undefined"
            )
        segment = r.norm()
        total = add(total, mul(as_expr(falls), segment) if k == len(points) - 2 and falls != 1 else segment)
    return total


def virtual_rate(system: System, e: Expr) -> Expr:
    """``sum de/dq_i dq_i``: the rate of ``e`` along which a force does virtual work (states, time and
    motion inputs held).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("vr"); x = s.coordinate("x"); z = s.state("z")
        >>> virtual_rate(s, x * x - z)
        2*x*dx
    """
    r: Expr = ZERO
    for c in system.coordinates:
        if e.mask & c.q.mask:
            r = add(r, mul(diff(e, c.q), c.dq))
    return r


def one_sided_force(system: System, what: str, extension: Expr, rate: Expr, k: Expr, c: Expr) -> Expr:
    """``max(0, k extension + c d(extension)/dt)``: the force of a spring-damper that acts one way only.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("os"); x = s.coordinate("x")
        >>> one_sided_force(s, "sling", x - 1, s.dt(x), 10, 0)
        -1/2*(10*(1 - x) - abs(10*(1 - x)))
    """
    f = positive_part(add(mul(as_expr(k), extension), mul(as_expr(c), rate)))
    require(system, what, f, LOADS)
    return f


def _rope_laws(
    system: System, name: str, segments: list[tuple[Point, Point, int]], length: Expr, ea: Expr, c: Expr, l0: Expr
) -> tuple[Expr, Expr, PathForce]:
    """The stretch, the tension and the load of a rope of length ``length`` and unstretched length ``l0``."""
    stretch = sub(length, l0)
    tension = one_sided_force(system, f"rope {name!r}", stretch, total_derivative(system, stretch), div(ea, l0), c)
    extra = virtual_rate(system, neg(l0))
    load = PathForce(
        name, "rope", segments, neg(tension), virtual_rate(system, stretch), None if extra.is_zero else extra
    )
    return stretch, tension, load


def rebind_unstretched_length(system: System, rope: Rope, l0: Any) -> None:
    """Give ``rope`` a new unstretched length (a winch paying out): its load and outputs follow.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rb")
        >>> y = s.coordinate("y", -1.0); phi = s.coordinate("phi")
        >>> P = s.point("P", s.origin, (0, y, 0)); _ = s.particle("m", P, 1.0)
        >>> r = s.rope("r", [s.origin, P], stiffness=100.0, unstretched_length=1.0)
        >>> rebind_unstretched_length(s, r, 1.0 - 0.2 * phi)
        >>> r.stretch, s.outputs["r_stretch"].expr
        (sqrt(y**2) - (1 - 0.2*phi), sqrt(y**2) - (1 - 0.2*phi))
    """
    what = f"rope {rope.name!r}"
    new = to_expr(system, l0, f"unstretched length of {what}")
    require(system, f"the unstretched length of {what}", new, LENGTH_KINDS)
    if default_value(system, new) <= 0.0:
        raise ModelError(f"{what}: its unstretched length {new} is not positive at the start")
    segments = segments_of(rope.path, rope.falls)
    stretch, tension, load = _rope_laws(system, rope.name, segments, rope.length, rope.stiffness, rope.damping, new)
    old = (rope.unstretched_length, rope.stretch, rope.tension, rope.load)
    index = next(k for k, ld in enumerate(system.loads) if ld is rope.load)
    outputs = {f"{rope.name}_{key}": e for key, e in (("tension", tension), ("stretch", stretch))}
    before = {n: system.outputs[n] for n in outputs if n in system.outputs}

    def undo() -> None:
        rope.unstretched_length, rope.stretch, rope.tension, rope.load = old
        system.loads[index] = old[3]
        system.outputs.update(before)

    system.registry.on_rollback(undo)
    rope.unstretched_length, rope.stretch, rope.tension, rope.load = new, stretch, tension, load
    system.loads[index] = load
    for n, o in before.items():
        system.outputs[n] = Output(n, outputs[n], o.unit, o.description)


def add_rope(
    system: System,
    name: str,
    path: Sequence[Point | str],
    *,
    stiffness: Any,
    unstretched_length: Any,
    damping: Any = 0,
    falls: int = 1,
    outputs: bool = True,
) -> Rope:
    """An elastic rope along ``path`` (anchor to end); see the module documentation.

    Declares the outputs ``<name>_tension`` (N), ``<name>_stretch`` (m) and ``<name>_length`` (m)
    unless ``outputs=False``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ar")
        >>> y = s.coordinate("y", -1.0)
        >>> P = s.point("P", s.origin, (0, y, 0)); _ = s.particle("m", P, 1.0)
        >>> add_rope(s, "r", [s.origin, P], stiffness=100.0, unstretched_length=0.5).stretch
        sqrt(y**2) - 0.5
    """
    what = f"rope {name!r}"
    system.registry.check(name, "rope")
    if not isinstance(falls, int) or isinstance(falls, bool) or falls < 1:
        raise ModelError(f"{what}: falls must be a whole number >= 1, not {falls!r}")
    points = [resolve_point(system, p, what) for p in path]
    if len(points) < 2:
        raise ModelError(f"{what}: its path needs at least two points (anchor and end), got {len(points)}")
    ea = to_expr(system, stiffness, f"stiffness of {what}")
    c = to_expr(system, damping, f"damping of {what}")
    require(system, f"the stiffness and damping of {what}", [ea, c], ("parameter",))
    l0 = to_expr(system, unstretched_length, f"unstretched length of {what}")
    require(system, f"the unstretched length of {what}", l0, LENGTH_KINDS)
    if default_value(system, l0) <= 0.0:
        raise ModelError(f"{what}: its unstretched length {l0} is not positive at the start")
    length = path_length(system, points, falls, what)
    stretch, tension, load = _rope_laws(system, name, segments_of(points, falls), length, ea, c, l0)
    add_load(system, name, load)
    if outputs:
        # in N when the stiffness carries units (a bare number has none to check the label against)
        unit = "N" if ea.mask and (c.mask or c.is_zero) else None
        declare_output(system, f"{name}_tension", tension, unit, f"line pull of rope {name}")
        declare_output(system, f"{name}_stretch", stretch, "m", f"stretch of rope {name}")
        declare_output(system, f"{name}_length", length, "m", f"current length of rope {name}")
    rope = Rope(name, points, falls, ea, c, l0, length, stretch, tension, load)
    system.elements[name] = rope
    return rope


__all__ = [
    "LENGTH_KINDS",
    "PathForce",
    "Rope",
    "add_rope",
    "one_sided_force",
    "path_length",
    "rebind_unstretched_length",
    "segments_of",
    "virtual_rate",
]


class RopesMixin(Facet):
    """The methods of :class:`symbody.System` that add ropes."""

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
        return add_rope(
            self._system, name, path, stiffness=stiffness, unstretched_length=unstretched_length, damping=damping,
            falls=falls, outputs=outputs,
        )  # fmt: skip
