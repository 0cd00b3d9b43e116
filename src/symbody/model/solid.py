"""Solids and particles: mass, centre of mass and inertia tensor.

The inertia tensor may be given at the centre of mass, at the solid's
reference point or at any point fixed to the solid, and in any base fixed to
the solid; it is moved to the reference point and the solid's base with
Steiner's theorem, which is the form the virtual-power assembly uses
(Plaza Puértolas, 2015, eq. 4.68).

Example:
    >>> import symbody as sb
    >>> s = sb.System("sol")
    >>> m = s.parameter("m", 2.0); l = s.parameter("l", 1.0)
    >>> bar = s.solid("bar", s.origin, s.ground_base, mass=m, com=(l / 2, 0, 0),
    ...               inertia=sb.inertia(0, m * l**2 / 12, m * l**2 / 12))
    >>> bar.inertia_origin[2][2]
    1/3*m*l**2
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..symbolic.expr import ZERO, Expr, mul
from .vector import steiner

if TYPE_CHECKING:
    from .base import Base
    from .point import Frame, Point


def inertia(ixx: Any, iyy: Any, izz: Any, ixy: Any = 0, iyz: Any = 0, ixz: Any = 0) -> list[list[Any]]:
    """A symmetric inertia tensor as a 3x3 list (off-diagonal entries are tensor entries).

    Example:
        >>> inertia(1, 2, 3, ixy=-0.5)
        [[1, -0.5, 0], [-0.5, 2, 0], [0, 0, 3]]
    """
    return [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]


class Solid:
    """A rigid body attached to a frame (reference point + base).

    Attributes:
        mass: mass expression.
        com: components of the centre of mass from the reference point, in the body base.
        inertia_origin: inertia tensor at the reference point, body base components.
        inertia_com: inertia tensor at the centre of mass, body base components.
        is_particle: True for a point mass (no rotational inertia).

    Created with :meth:`symbody.System.solid` or :meth:`symbody.System.particle`.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("sd")
        >>> disc = s.solid("disc", s.ground, mass=2, inertia=(1, 1, 2))
        >>> disc, disc.has_inertia, disc.inertia_com[2][2]
        (Solid('disc', point='O', base='xyz'), True, 2)
    """

    def __init__(
        self,
        name: str,
        point: Point,
        base: Base,
        mass: Expr,
        com: tuple[Expr, Expr, Expr],
        inertia: tuple | None,
        is_particle: bool = False,
        frame: Frame | None = None,
        inertia_at_origin: bool = False,
    ):
        self.name = name
        self.point = point
        self.base = base
        self.frame = frame
        self.mass = mass
        self.com = com
        self.is_particle = is_particle
        zero3 = ((ZERO, ZERO, ZERO),) * 3
        if is_particle or inertia is None:
            inertia = zero3
            inertia_at_origin = False
        if is_particle:
            self.inertia_com = zero3
            self.inertia_origin = zero3
        elif inertia_at_origin:
            self.inertia_origin = inertia
            self.inertia_com = steiner(inertia, mass, com, sign=-1)
        else:
            self.inertia_com = inertia
            self.inertia_origin = steiner(inertia, mass, com)
        self.first_moment = (mul(mass, com[0]), mul(mass, com[1]), mul(mass, com[2]))
        self.com_point: Point | None = None

    def __repr__(self) -> str:
        kind = "Particle" if self.is_particle else "Solid"
        return f"{kind}({self.name!r}, point={self.point.name!r}, base={self.base.name!r})"

    @property
    def has_inertia(self) -> bool:
        """False for a solid with zero mass and zero inertia (it adds nothing to M)."""
        if not self.mass.is_zero:
            return True
        return any(not x.is_zero for row in self.inertia_origin for x in row)


def as_inertia_rows(I: Sequence[Sequence[Any]] | Sequence[Any]) -> list[list[Any]]:
    """Accept a 3x3 matrix, a diagonal 3-tuple or a 6-tuple ``(Ixx, Iyy, Izz, Ixy, Iyz, Ixz)``."""
    if len(I) == 3 and all(hasattr(r, "__len__") and not isinstance(r, str) for r in I):
        return [list(r) for r in I]
    if len(I) in (3, 6):
        return inertia(*I)
    raise ValueError("an inertia tensor is a 3x3 matrix, a diagonal (Ixx, Iyy, Izz) or (Ixx, Iyy, Izz, Ixy, Iyz, Ixz)")
