"""Flexible beams by the rigid finite element method: a chain of rigid segments joined by springs.

:func:`add_flexible_beam` lays a straight, uniform beam of length ``L`` along the x axis of a root
frame and divides it as Kruszewski's rigid finite element method does (Kruszewski, Gawronski,
Wittbrodt, Najbar and Grabowski, "Metoda sztywnych elementow skonczonych", Arkady, Warsaw, 1975;
Wittbrodt, Adamiec-Wojcik and Wojciech, "Dynamics of Flexible Multibody Systems: Rigid Finite Element
Method", Springer, 2006): the beam is cut into ``n`` segments of length ``D = L / n`` and each
segment's elasticity is concentrated in one spring-damper element at its *middle*, so the rigid
elements lie between the springs: a half segment ``[0, D/2]`` fixed to the root frame, ``n - 1``
whole segments and a half segment ``[L - D/2, L]`` at the tip.  Each rigid element has the mass
``rho A l`` and the rotary inertia of its length ``l`` of beam; each spring, the stiffness of one
segment: ``E A / D`` (axial), ``G J / D`` (torsion), ``E Iy / D`` and ``E Iz / D`` (bending about
the segment's y and z axes).  A tip force on the cantilever then bends it by
``P L^3 / (3 E I) (1 - 1 / (4 n^2))``, 0.25 % short at ``n = 10`` (springs at the segment ends
instead would err by ``3 / (2 n)``, 15 %).

Every spring is a joint of relative coordinates: the element ``k`` slides by ``u_k`` along its
parent's x axis (``axial=True``) and turns by the angles ``rz_k``, ``ry_k`` and ``rx_k``
(``torsion=True``) about z, then y, then x, so the chain is a tree of relative joints and the
derivation uses the recursive formulation: the accelerations grow linearly with ``n``.  The
springs act on those coordinates (small relative rotations: a segment's bend ``E I / D`` per radian).
``damping`` is a stiffness-proportional factor ``beta`` (s): each spring's damping is ``beta`` times
its stiffness (a mode of frequency ``omega`` has the damping ratio ``beta omega / 2``).

Example (a cantilever of 4 segments: 4 x 4 coordinates; its tip frame carries a load):
    >>> import symbody as sb
    >>> s = sb.System("jib")
    >>> tip = s.flexible_beam("jib", s.ground, length=2.0, segments=4, E=2e11, G=8e10, rho=7850,
    ...                       area=1e-3, Iy=2e-7, Iz=3e-7, J=4e-7)
    >>> tip.name, len(s.coordinates), s.flexible_bodies["jib"].springs[0][:2]
    ('jib_tip', 16, ('jib_u1', 'axial'))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.expr import Expr, div, mul, neg, num
from .base import EulerAngles
from .expressions import require, to_expr
from .geometry import Frame, resolve_frame
from .loads import ScalarForce, add_load
from .registry import Facet
from .vector import Vector

if TYPE_CHECKING:
    from .base import Base
    from .bodies import Solid
    from .geometry import Point
    from .system import System

MAX_SEGMENTS = 1000


@dataclass
class FlexibleBeam:
    """What :func:`add_flexible_beam` built: its segments, coordinates, springs and tip frame.

    Attributes:
        name: the beam's name (it prefixes every object it creates).
        segments: the number of springs ``n`` (``n + 1`` rigid elements, the first fixed to the root).
        solids: the rigid elements, root first.
        coordinates: the names of its coordinates, root first.
        springs: ``(coordinate, kind, stiffness)`` of every spring, ``kind`` one of ``axial``,
            ``torsion``, ``bending y``, ``bending z``.
        tip: the frame at the free end (the last element's end, its base).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("fb")
        >>> tip = s.flexible_beam("b", s.ground, length=1.0, segments=2, E=1.0, G=1.0, rho=1.0,
        ...                       area=1.0, Iy=1.0, Iz=1.0, J=1.0, axial=False, torsion=False)
        >>> s.flexible_bodies["b"].coordinates
        ['b_rz1', 'b_ry1', 'b_rz2', 'b_ry2']
    """

    name: str
    segments: int
    solids: list[Solid] = field(default_factory=list)
    coordinates: list[str] = field(default_factory=list)
    springs: list[tuple[str, str, Expr]] = field(default_factory=list)
    tip: Frame | None = None


UNITS = {"length": "m", "E": "Pa", "G": "Pa", "rho": "kg/m3", "area": "m2", "Iy": "m4", "Iz": "m4", "J": "m4",
         "damping": "s"}  # fmt: skip


def _section(system: System, name: str, values: dict[str, Any]) -> dict[str, Expr]:
    """The beam's data as expressions of parameters: a number becomes the parameter ``<name>_<key>`` with its unit."""
    out = {}
    for key, v in values.items():
        what = f"{key} of flexible beam {name!r}"
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            if not v > 0.0:
                raise ModelError(f"{what} must be positive, not {v!r}")
            out[key] = system.parameter(f"{name}_{key}", float(v), unit=UNITS[key])
            continue
        e = to_expr(system, v, what)
        require(system, what, e, ("parameter",))
        out[key] = e
    return out


def _element_inertia(p: dict[str, Expr], length: Expr) -> tuple[Expr, Expr, Expr]:
    """Rotary inertia at the centre of mass of a length of beam (axes of the segment)."""
    rl = mul(p["rho"], length)
    bend = div(mul(p["area"], mul(length, length)), num(12))
    return (mul(rl, p["Iy"] + p["Iz"]), mul(rl, bend + p["Iy"]), mul(rl, bend + p["Iz"]))


def _rigid_element(
    system: System, beam: FlexibleBeam, k: int, point: Point, base: Base, length: Expr, p: dict[str, Expr]
) -> None:
    m = mul(mul(p["rho"], p["area"]), length)
    solid = system.solid(
        f"{beam.name}_{k}", point, base, mass=m, com=(div(length, num(2)), 0, 0), inertia=_element_inertia(p, length)
    )
    beam.solids.append(solid)


def _spring(system: System, beam: FlexibleBeam, coordinate: Expr, kind: str, k: Expr, beta: Expr | None) -> None:
    c = system.coordinate_of(coordinate)
    f = neg(mul(k, c.q))
    if beta is not None:
        f = f - mul(mul(beta, k), c.dq)
    add_load(system, f"{c.name}_spring", ScalarForce(f"{c.name}_spring", c.dq, f))
    beam.springs.append((c.name, kind, k))


def add_flexible_beam(
    system: System,
    name: str,
    root_frame: Frame | str,
    *,
    length: Any,
    segments: int,
    E: Any,
    G: Any,
    rho: Any,
    area: Any,
    Iy: Any,
    Iz: Any,
    J: Any,
    damping: Any = None,
    axial: bool = True,
    torsion: bool = True,
) -> Frame:
    """Add a flexible beam along the x axis of ``root_frame`` (module docstring); returns its tip frame.

    Creates, all named after ``name``: the coordinates ``<name>_u<k>`` (axial), ``<name>_rz<k>``,
    ``<name>_ry<k>`` (bending), ``<name>_rx<k>`` (torsion) for ``k = 1..segments``, the bases and
    points of the segments, the solids ``<name>_0`` (the half element fixed to the root frame) to
    ``<name>_<segments>``, a spring load ``<coordinate>_spring`` per coordinate and the frame
    ``<name>_tip`` (its point ``<name>_T``).  ``axial=False`` or ``torsion=False`` leave those (stiff)
    degrees of freedom out.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("fl")
        >>> tip = add_flexible_beam(s, "b", s.ground, length=1.0, segments=3, E=1e9, G=4e8, rho=1e3,
        ...                         area=1e-4, Iy=1e-9, Iz=1e-9, J=2e-9, axial=False, torsion=False)
        >>> [c.name for c in s.coordinates][:2], tip.point.name
        (['b_rz1', 'b_ry1'], 'b_T')
    """
    if not isinstance(segments, int) or isinstance(segments, bool) or not 1 <= segments <= MAX_SEGMENTS:
        raise ModelError(
            f"flexible beam {name!r}: segments must be an integer from 1 to {MAX_SEGMENTS}, not {segments!r}"
        )
    system.registry.check(name, "flexible body")
    if not isinstance(root_frame, (Frame, str)):
        raise ModelError(f"flexible beam {name!r}: root_frame must be a Frame or a frame name, not {root_frame!r}")
    point, base = resolve_frame(system, root_frame, None, f"root frame of flexible beam {name!r}")
    p = _section(system, name, {"length": length, "E": E, "G": G, "rho": rho, "area": area, "Iy": Iy, "Iz": Iz, "J": J})
    beta = _section(system, name, {"damping": damping})["damping"] if damping is not None else None
    system.registry.claim(name, "flexible body")
    beam = FlexibleBeam(name, segments)
    system.flexible_bodies[name] = beam
    D = div(p["length"], num(segments))
    half = div(D, num(2))
    stiff = {
        "axial": div(mul(p["E"], p["area"]), D),
        "torsion": div(mul(p["G"], p["J"]), D),
        "bending y": div(mul(p["E"], p["Iy"]), D),
        "bending z": div(mul(p["E"], p["Iz"]), D),
    }
    _rigid_element(system, beam, 0, point, base, half, p)
    reach = half  # from the parent element's joint to this spring
    for k in range(1, segments + 1):
        u = system.coordinate(f"{name}_u{k}", unit="m") if axial else None
        angles = [system.coordinate(f"{name}_r{a}{k}", unit="rad") for a in ("zyx" if torsion else "zy")]
        offset = reach + u if u is not None else reach
        point = system.point(f"{name}_J{k}", point, Vector(base, offset, 0, 0))
        base = system.base(f"{name}_B{k}", base, EulerAngles("zyx" if torsion else "zy", angles))
        for q, kind in ((u, "axial"), (angles[0], "bending z"), (angles[1], "bending y")):
            if q is not None:
                _spring(system, beam, q, kind, stiff[kind], beta)
        if torsion:
            _spring(system, beam, angles[2], "torsion", stiff["torsion"], beta)
        beam.coordinates.extend(c for c, _, _ in beam.springs[len(beam.coordinates) :])
        _rigid_element(system, beam, k, point, base, half if k == segments else D, p)
        reach = D
    tip = system.point(f"{name}_T", point, Vector(base, half, 0, 0))
    beam.tip = system.frame(f"{name}_tip", tip, base)
    return beam.tip


def flexible_sizes(system: System) -> dict[str, dict[str, int]]:
    """The size of every flexible body of a system: segments, coordinates and solids (``symbody info``).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("fs")
        >>> _ = s.flexible_beam("b", s.ground, length=1.0, segments=2, E=1.0, G=1.0, rho=1.0, area=1.0,
        ...                     Iy=1.0, Iz=1.0, J=1.0)
        >>> flexible_sizes(s)
        {'b': {'segments': 2, 'coordinates': 8, 'solids': 3}}
    """
    return {
        name: {"segments": b.segments, "coordinates": len(b.coordinates), "solids": len(b.solids)}
        for name, b in system.flexible_bodies.items()
    }


__all__ = ["FlexibleBeam", "MAX_SEGMENTS", "add_flexible_beam", "flexible_sizes"]


class FlexibleMixin(Facet):
    """The methods of :class:`symbody.System` that add flexible beams."""

    def flexible_beam(
        self, name: str, root_frame: Frame | str, *, length: Any, segments: int, E: Any, G: Any, rho: Any, area: Any,
        Iy: Any, Iz: Any, J: Any, damping: Any = None, axial: bool = True, torsion: bool = True,
    ) -> Frame:  # fmt: skip
        """A flexible beam along the x axis of ``root_frame``, as rigid segments joined by springs; its tip frame.

        The rigid finite element method with Kruszewski's division: ``segments`` springs, each at the
        middle of a segment of length ``length / segments`` with that segment's stiffness
        (``E A``, ``G J``, ``E Iy``, ``E Iz`` over its length), and rigid elements between them with
        the mass ``rho A`` per length and its rotary inertia; the first half segment is fixed to the
        root frame.  ``Iy`` and ``Iz`` are about the root frame's y and z axes; ``damping`` is a
        stiffness-proportional factor (s); ``axial=False``/``torsion=False`` leave those degrees of
        freedom out.  The chain of relative coordinates keeps the equations linear in ``segments``
        (recursive formulation).  ``s.flexible_bodies[name]`` records what was built
        (:mod:`symbody.model.flexible`).

        Example (a steel cantilever of 10 segments under its weight):
            >>> import symbody as sb
            >>> s = sb.System("boom")
            >>> tip = s.flexible_beam("boom", s.ground, length=3.0, segments=10, E=2.1e11, G=8.1e10, rho=7850,
            ...                       area=2e-3, Iy=4e-6, Iz=6e-6, J=8e-6, axial=False, torsion=False)
            >>> s.gravity((0, 0, -9.81))
            >>> len(s.coordinates), s.flexible_bodies["boom"].segments, tip.name
            (20, 10, 'boom_tip')
        """
        with self.registry.transaction():
            return add_flexible_beam(
                self._system, name, root_frame, length=length, segments=segments, E=E, G=G, rho=rho, area=area,
                Iy=Iy, Iz=Iz, J=J, damping=damping, axial=axial, torsion=torsion,
            )  # fmt: skip
