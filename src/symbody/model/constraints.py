"""Constraint equations of a model: holonomic, velocity (non-holonomic) and initial-position rows.

Every holonomic or velocity row ``name`` gets the Lagrange multiplier symbol
``lambda_<name>``; a Vector constraint gives one row per component
(``<name>_x``, ...), a list one row per item (``<name>_1``, ...).

Example:
    >>> import symbody as sb
    >>> s = sb.System("c")
    >>> x = s.coordinate("x"); y = s.coordinate("y")
    >>> rows = add_constraint(s, "circle", x**2 + y**2 - 1)
    >>> rows[0].name, rows[0].multiplier
    ('circle', lambda_circle)
    >>> [r.name for r in add_constraint(s, "pin", [x, y], kind="initial")]
    ['pin_1', 'pin_2']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import is_linear_in
from ..symbolic.expr import Expr, as_expr, sub
from .base import Base
from .deprecation import formerly_positional
from .expressions import GEOMETRY, coordinate_mask, require, to_expr
from .geometry import resolve_base
from .quantities import coordinate_record
from .registry import Facet, atomic
from .vector import Vector

if TYPE_CHECKING:
    from .system import System


@dataclass
class ConstraintRow:
    """One scalar constraint equation with its Lagrange multiplier symbol.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("cr")
        >>> x = s.coordinate("x")
        >>> s.constraint("stop", x - 1)[0]
        ConstraintRow(name='stop', expr=x - 1, kind='holonomic', multiplier=lambda_stop, group='stop')
    """

    name: str
    expr: Expr
    kind: str  # "holonomic", "velocity" or "initial"
    multiplier: Expr | None = None
    group: str = ""

KINDS = ("holonomic", "velocity", "initial")


def constraint_rows(
    system: System, name: str, exprs: Any, base: Base | str | None = None, components: str | None = None
) -> list[tuple[str, Expr]]:
    """Named rows of an expression, a list of expressions, or a Vector (its ``components`` in ``base``).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("r")
        >>> x = s.coordinate("x")
        >>> constraint_rows(s, "C", sb.Vector(s.ground_base, x, 0, 1), components="xz")
        [('C_x', x), ('C_z', 1)]
    """
    if isinstance(exprs, Vector):
        b = resolve_base(system, base, f"base of constraint {name!r}")
        comps = exprs.components(b)
        return [(f"{name}_{ax}", comps["xyz".index(ax)]) for ax in components or "xyz"]
    if isinstance(exprs, (list, tuple)):
        if len(exprs) == 1:
            return [(name, to_expr(system, exprs[0], f"constraint {name!r}"))]
        return [(f"{name}_{k + 1}", to_expr(system, e, f"constraint {name!r}")) for k, e in enumerate(exprs)]
    return [(name, to_expr(system, exprs, f"constraint {name!r}"))]


def _check_row(system: System, kind: str, rname: str, e: Expr) -> None:
    """A row must depend on a coordinate (or velocity) and a velocity row be linear in the velocities."""
    allowed = GEOMETRY + ("velocity", "motion velocity") if kind == "velocity" else GEOMETRY
    require(system, f"{kind} constraint {rname!r}", e, allowed)
    if not (e.mask & coordinate_mask(system, velocities=kind == "velocity")):
        raise ModelError(f"{kind} constraint {rname!r} contains no coordinate")
    if kind == "velocity" and not is_linear_in(e, [c.dq for c in system.coordinates]):
        raise ModelError(f"velocity constraint {rname!r} must be linear in the velocities")


def add_rows(
    system: System, name: str, rows: list[tuple[str, Expr]], kind: str, group: str = "", drop_trivial: bool = False
) -> list[ConstraintRow]:
    """Check, name and append constraint rows of ``kind`` (``"holonomic"``, ``"velocity"``, ``"initial"``).

    The constraint claims ``name``; each row also its own name (when it differs) and,
    unless it is an initial condition, the name of its multiplier ``lambda_<row>``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ar")
        >>> x, y = s.coordinate("x"), s.coordinate("y")
        >>> rows = add_rows(s, "pin", [("pin_x", x), ("pin_y", y)], "holonomic", group="hinge")
        >>> [(r.name, r.group) for r in rows], s.registry.kind("lambda_pin_y")
        ([('pin_x', 'hinge'), ('pin_y', 'hinge')], 'multiplier')
    """
    if kind not in KINDS:
        raise ModelError(f"constraint {name!r}: unknown kind {kind!r} (one of {', '.join(KINDS)})")
    rows = [(r, e) for r, e in rows if not (drop_trivial and e.is_zero)]
    for rname, e in rows:
        _check_row(system, kind, rname, e)
    names = [(name, f"{kind} constraint")]
    for rname, _ in rows:
        if rname != name:
            names.append((rname, f"{kind} constraint row"))
        if kind != "initial":
            names.append((f"lambda_{rname}", "multiplier"))
    seen = set()
    for n, what in names:
        system.registry.check(n, what)
        if n in seen:
            raise ModelError(f"duplicate name {n!r} in constraint {name!r}")
        seen.add(n)
    for n, what in names:
        system.registry.claim(n, what)
    out = []
    for rname, e in rows:
        lam = None
        if kind != "initial":
            lam = system.ctx.symbol(f"lambda_{rname}", "multiplier")
            system._multipliers[rname] = lam
        row = ConstraintRow(rname, e, kind, lam, group or name)
        system.constraints.append(row)
        out.append(row)
    return out


def add_constraint(
    system: System,
    name: str,
    expr: Any,
    base: Base | str | None = None,
    components: str | None = None,
    kind: str = "holonomic",
) -> list[ConstraintRow]:
    """The rows of :func:`constraint_rows`, added as constraints of ``kind``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ac")
        >>> x = s.coordinate("x")
        >>> try:
        ...     add_constraint(s, "c", x, kind="sliding")
        ... except sb.ModelError as e:
        ...     print(e)
        constraint 'c': unknown kind 'sliding' (one of holonomic, velocity, initial)
    """
    return add_rows(system, name, constraint_rows(system, name, expr, base, components), kind)


def holonomic_constraint(
    system: System, name: str, expr: Any, base: Base | str | None = None, components: str | None = None
) -> list[ConstraintRow]:
    """Holonomic constraint ``Phi(q, t) = 0``: an expression, a list, or a Vector (its components in ``base``).

    The body of :meth:`symbody.System.constraint` (documented there, with an example).
    """
    return add_constraint(system, name, expr, base, components, "holonomic")


def velocity_constraint(
    system: System, name: str, expr: Any, base: Base | str | None = None, components: str | None = None
) -> list[ConstraintRow]:
    """Non-holonomic constraint, linear in the velocities: ``A(q, t) dq + b(q, t) = 0``.

    The body of :meth:`symbody.System.velocity_constraint` (documented there, with an example).
    """
    return add_constraint(system, name, expr, base, components, "velocity")


def initial_constraint(
    system: System, name: str, expr: Any, base: Base | str | None = None, components: str | None = None
) -> list[ConstraintRow]:
    """Initial-position condition, used only to assemble the initial configuration (it has no multiplier).

    The body of :meth:`symbody.System.initial_constraint` (documented there, with an example).
    """
    return add_constraint(system, name, expr, base, components, "initial")


def fix_initial(system: System, coordinate: Any, name: str | None = None) -> list[ConstraintRow]:
    """Hold a coordinate at its initial value while assembling (3D_MEC ``Cpini``).

    The body of :meth:`symbody.System.fix_initial` (documented there, with an example).
    """
    c = coordinate_record(system, coordinate)
    return add_constraint(system, name or f"{c.name}_init", sub(c.q, as_expr(c.q0)), kind="initial")


def prescribe(system: System, name: str, coordinate: Any, motion: Any) -> list[ConstraintRow]:
    """Rheonomic constraint ``q - z = 0`` (its multiplier is the driving effort): ``z`` a law of time and

    The body of :meth:`symbody.System.prescribe` (documented there, with an example).
    """
    try:
        c = coordinate_record(system, coordinate)
    except ModelError as e:
        raise ModelError(f"prescribed motion {name!r}: {e}") from None
    z = to_expr(system, motion, f"motion of {name!r}")
    require(system, f"the motion law of {name!r}", z, ("parameter", "time", "motion input"))
    return add_constraint(system, name, sub(c.q, z))


def multiplier(system: System, row: str) -> Expr:
    """The Lagrange multiplier symbol of a constraint row (usable in outputs).

    The body of :meth:`symbody.System.multiplier` (documented there, with an example).
    """
    lam = system._multipliers.get(row)
    if lam is None:
        raise ModelError(f"no constraint row named {row!r}")
    return lam


class ConstraintsMixin(Facet):
    """The methods of :class:`symbody.System` that add constraint rows:
    holonomic, velocity and initial constraints, prescribed motion."""

    @atomic
    @formerly_positional("components")
    def constraint(
        self, name: str, expr: Any, base: Base | str | None = None, *, components: str | None = None
    ) -> list[ConstraintRow]:
        """Holonomic constraint ``Phi(q, t) = 0``: an expression, a list, or a Vector (its components in ``base``).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("h")
            >>> x, y = s.coordinate("x"), s.coordinate("y")
            >>> [r.name for r in s.constraint("on_line", sb.Vector(s.ground_base, x, y, 0), components="xy")]
            ['on_line_x', 'on_line_y']
        """
        return holonomic_constraint(self._system, name, expr, base, components)

    @atomic
    @formerly_positional("components")
    def velocity_constraint(
        self, name: str, expr: Any, base: Base | str | None = None, *, components: str | None = None
    ) -> list[ConstraintRow]:
        """Non-holonomic constraint, linear in the velocities: ``A(q, t) dq + b(q, t) = 0``.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("nh")
            >>> x, th = s.coordinate("x"), s.coordinate("th")
            >>> s.velocity_constraint("rolls", s.dt(x) - 2 * s.dt(th))[0].multiplier
            lambda_rolls
        """
        return velocity_constraint(self._system, name, expr, base, components)

    @atomic
    @formerly_positional("components")
    def initial_constraint(
        self, name: str, expr: Any, base: Base | str | None = None, *, components: str | None = None
    ) -> list[ConstraintRow]:
        """Initial-position condition, used only to assemble the initial configuration (it has no multiplier).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("ic")
            >>> x = s.coordinate("x")
            >>> s.initial_constraint("start", x - 1)[0].multiplier is None
            True
        """
        return initial_constraint(self._system, name, expr, base, components)

    @atomic
    @formerly_positional("name")
    def fix_initial(self, coordinate: Any, *, name: str | None = None) -> list[ConstraintRow]:
        """Hold a coordinate at its initial value while assembling (3D_MEC ``Cpini``).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("fi")
            >>> x = s.coordinate("x", 0.5)
            >>> row = s.fix_initial(x)[0]
            >>> row.name, row.kind, s.default_values()[x] - 0.5
            ('x_init', 'initial', 0.0)
        """
        return fix_initial(self._system, coordinate, name)

    @atomic
    def prescribe(self, name: str, coordinate: Any, motion: Any) -> list[ConstraintRow]:
        """Rheonomic constraint ``q - z = 0`` (its multiplier is the driving effort): ``z`` a law of time and
        parameters, or a motion input (:meth:`~symbody.System.motion_input`, a position given by a signal).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("pr")
            >>> th = s.coordinate("th"); w = s.parameter("w", 1.0)
            >>> s.prescribe("spin", th, w * s.t)[0].expr
            th - t*w
            >>> x = s.coordinate("x"); z = s.motion_input("z")
            >>> s.prescribe("drive", x, z)[0].expr
            x - z
        """
        return prescribe(self._system, name, coordinate, motion)

    def multiplier(self, row: str) -> Expr:
        """The Lagrange multiplier symbol of a constraint row (usable in outputs).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("mu")
            >>> x = s.coordinate("x")
            >>> _ = s.constraint("stop", x - 1)
            >>> s.multiplier("stop")
            lambda_stop
        """
        return multiplier(self._system, row)
