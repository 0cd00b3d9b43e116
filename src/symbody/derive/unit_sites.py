"""Where a bare number broke the units of a model: the point, solid or load it was written in.

A number carries no unit.  In a model that declares units, ``Vector(B, 1.0, 0, 0.8)`` or
``s.gravity((0, 0, -9.81))`` passes where it is written and surfaces at derive time deep
inside an equation, as a sum of atoms of different units (``a4780 + a4805 adds 1/s and m/s``).
When the dimension check of the derived equations fails, :func:`locate_unit_mismatch` looks
for the object where the number was written: a point whose defining vector has a bare
number and whose own position or velocity is then inconsistent (``omega x (1.0, 0, 0.8)``
is in ``1/s``, not ``m/s``), a solid with a bare mass or inertia whose inertia terms do not
balance, or a load with a bare number whose generalized forces are not in the units of the
coordinates (a force in N on a length, a moment in N m on an angle).  Each object is checked
on its own contributions, so the one named is one that is wrong by itself.

Example:
    >>> import symbody as sb
    >>> s = sb.System("arm")
    >>> th, ph = s.coordinate("theta", unit="rad"), s.coordinate("phi", unit="rad")
    >>> x = s.coordinate("x", unit="m")
    >>> B = s.base("B", s.ground_base, sb.Rz(th)); C = s.base("C", B, sb.Ry(ph))
    >>> A = s.point("A", s.origin, sb.Vector(B, s.parameter("L", 1.0, unit="m"), x, 0))
    >>> _ = s.particle("bob", s.point("P", A, sb.Vector(C, 1.0, 0, 0.8)), s.parameter("m", 2.0, unit="kg"))
    >>> try:
    ...     s.derive()
    ... except sb.ModelError as e:
    ...     print(e)    # doctest: +ELLIPSIS
    unit mismatch in the equation of coordinate 'theta': point 'P' is placed at (1, 0, 0.8) in base 'C' ...
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..dimensions import DimensionChecker, UnitMismatch, measured_factor, unit_text
from ..symbolic.expr import Expr
from ..symbolic.printing import to_str
from .checks import DerivedEquations
from .virtual_power import Assembler

if TYPE_CHECKING:
    from ..model.system import System

#: objects named in one message
MAX_SITES = 3

_ENERGY = {"kg": Fraction(1), "m": Fraction(2), "s": Fraction(-2)}
_LENGTH = (("m", Fraction(1)),)
_SPEED = (("m", Fraction(1)), ("s", Fraction(-1)))


def _dim(*pairs: tuple[str, Fraction]) -> tuple:
    return tuple(sorted((b, e) for b, e in pairs if e != 0))


def _over(numerator: dict[str, Fraction], *dims: Any) -> tuple:
    """``numerator / (dims[0] dims[1] ...)`` as a dimension."""
    out = dict(numerator)
    for d in dims:
        for base, e in d:
            out[base] = out.get(base, Fraction(0)) - e
    return _dim(*out.items())


class _Sites:
    """The dimension checks of the objects of one system against the checker of its equations."""

    def __init__(self, system: System, eq: DerivedEquations):
        self.system = system
        self.kin = system.kinematics
        self.chk = DimensionChecker(eq)
        self.qdims = [self.chk.sym_dims.get(c.q) for c in eq.coordinates]

    def bare(self, e: Any) -> bool:
        """A non-zero expression of numbers only."""
        return isinstance(e, Expr) and not e.is_zero and self.chk.is_number(e)

    def problem(self, e: Expr, want: tuple | None) -> str | None:
        return self.chk.problem(e, want)

    def numbers(self, exprs: Any) -> list[str]:
        """The texts of the bare numbers among ``exprs``."""
        return [to_str(e, max_nodes=10) for e in exprs if self.bare(e)]

    # -- the objects ------------------------------------------------------------------------
    def points(self) -> Iterator[str]:
        ground = self.system.ground_base
        for point in self.system.points.values():
            if point.vector is None or point.parent is None:  # the origin
                continue
            numbers = self.numbers(_components(point.vector))
            if not numbers:
                continue
            for what, vector, want in (
                ("position", self.kin.position(point), _LENGTH),
                ("velocity", self.kin.velocity(point), _SPEED),
            ):
                why = next(filter(None, (self.problem(c, want) for c in vector.components(ground))), None)
                if why:
                    yield (
                        f"point {point.name!r} is placed at {_vector_text(point.vector)} from point "
                        f"{point.parent.name!r}, and numbers carry no unit: its {what} {why}; "
                        + _remedy(f"{point.name}_x", numbers[0], "m")
                    )
                    break

    def solids(self) -> Iterator[str]:
        for solid in self.system.solids.values():
            kinds = (
                ("mass", [solid.mass], f"m_{solid.name}", "kg"),
                ("inertia", [x for row in solid.inertia_com for x in row], f"I_{solid.name}", "kg*m2"),
                ("centre of mass", solid.com, f"{solid.name}_x", "m"),
            )
            written = [(what, self.numbers(data), name, unit) for what, data, name, unit in kinds]
            written = [w for w in written if w[1]]
            if not written or not solid.has_inertia:
                continue
            asm = Assembler(self.system)
            asm.add_solid(solid)
            why = self._mass_problem(asm) or (self._force_problem(asm) or (None,))[0]
            if why:
                what, numbers, name, unit = written[0]
                yield (
                    f"solid {solid.name!r} has the bare number(s) {', '.join(numbers)} in its {what}, and numbers "
                    f"carry no unit: its inertia {why}; " + _remedy(name, numbers[0], unit)
                )

    def loads(self) -> Iterator[str]:
        for load in self.system.loads:
            written = list(_bare_data(self, load))
            if not written:
                continue
            asm = Assembler(self.system)
            load.apply(asm)
            found = self._force_problem(asm)
            if found:
                why, needed = found
                attr, text, first = written[0]
                gravity = load.kind == "gravity"
                label = f"gravity {load.name!r}" if gravity else f"load {load.name!r}"
                unit = needed or {"g": "m/s2", "force": "N", "moment": "N*m"}.get(attr, "...")
                yield (
                    f"{label} is written with bare numbers ({attr} = {text}), and numbers carry no unit: its "
                    f"generalized force {why}; " + _remedy("g" if gravity else f"{load.name}_{attr}", first, unit)
                )

    # -- contributions to the equations --------------------------------------------------
    def _force_problem(self, asm: Assembler) -> tuple[str, str | None] | None:
        """Why a generalized force of ``asm`` is not in the unit of its coordinate's, and the unit a factor
        written as a number would need (``None`` when the force is no product of one unit)."""
        for i, acc in enumerate(asm.delta):
            if not acc or self.qdims[i] is None:
                continue
            force, want = asm.finalize(acc), _over(_ENERGY, self.qdims[i])
            why = self.problem(force, want)
            if why:
                got = self.chk.known(force)
                needed = None if got is None else unit_text(_over(dict(want), got))
                return f"on coordinate {self.system.coordinates[i].name!r} {why}", needed
        return None

    def _mass_problem(self, asm: Assembler) -> str | None:
        for (i, j), acc in asm.M.items():
            if self.qdims[i] is None or self.qdims[j] is None:
                continue
            want = _over({"kg": Fraction(1), "m": Fraction(2)}, self.qdims[i], self.qdims[j])
            why = self.problem(asm.finalize(acc), want)
            if why:
                names = self.system.coordinates[i].name, self.system.coordinates[j].name
                return f"in the mass matrix entry ({', '.join(names)}) {why}"
        return None


def _components(v: Any) -> list[Expr]:
    return [c for comps in v.parts.values() for c in comps]


def _vector_text(v: Any) -> str:
    parts = []
    for base, comps in v.parts.items():
        parts.append(f"({', '.join(to_str(c, max_nodes=20) for c in comps)}) in base {base.name!r}")
    return " + ".join(parts) or "(0, 0, 0)"


def _remedy(name: str, value: str, unit: str) -> str:
    return f"declare the numbers as parameters with their unit, e.g. s.parameter({name!r}, {value}, unit={unit!r})"


def _bare_data(sites: _Sites, load: Any) -> Iterator[tuple[str, str, str]]:
    """``(attribute, text, first bare number)`` of the data of ``load`` written as bare numbers (vectors whole)."""
    for attr, value in vars(load).items():
        if isinstance(value, Expr):
            factor = measured_factor(value)
            if sites.bare(value) or factor is not None:
                text = to_str(value, max_nodes=10)
                yield attr, text, text if factor is None else repr(factor)
        elif hasattr(value, "parts") and isinstance(value.parts, dict):
            numbers = sites.numbers(_components(value))
            if numbers:
                yield attr, _vector_text(value), numbers[0]


def locate_unit_mismatch(system: System, eq: DerivedEquations, err: UnitMismatch) -> str:
    """The message for a unit mismatch of the derived equations, naming the object where a bare number was written.

    ``err`` is the mismatch the check of the equations met; without such an object its own message is kept.
    """
    sites = _Sites(system, eq)
    found = [sentence for where in (sites.points, sites.solids, sites.loads) for sentence in where()]
    if not found:
        return str(err)
    more = f"; {len(found) - MAX_SITES} more" if len(found) > MAX_SITES else ""
    return f"unit mismatch in {err.where}: " + "; and ".join(found[:MAX_SITES]) + more


__all__ = ["locate_unit_mismatch"]
