"""Solids and particles: mass, centre of mass and inertia tensor, and the checks of them.

The inertia tensor may be given at the centre of mass, at the solid's
reference point or at any point fixed to the solid, and in any base fixed to
the solid; it is moved to the reference point and the solid's base with
Steiner's theorem, which is the form the virtual-power assembly uses
(Plaza Puértolas, 2015, eq. 4.68).

A mass must be a non-negative expression of parameters; an inertia tensor,
moved to the centre of mass, must be symmetric and positive semi-definite at
the default parameter values.  An inertia given at another point fixed to the
body is moved with Steiner's theorem.

Example:
    >>> import symbody as sb
    >>> s = sb.System("b")
    >>> m = s.parameter("m", 2.0)
    >>> try:  # 1 - m * 1**2 < 0 at the centre of mass
    ...     s.solid("bar", s.origin, mass=m, com=(1, 0, 0), inertia=(1, 1, 1), inertia_at="origin")
    ... except sb.ModelError as e:
    ...     print(e)
    inertia tensor of solid 'bar' is not positive semi-definite (eigenvalue -1)
    >>> bar = create_solid(s, "bar", s.origin, None, mass=m, com=(1, 0, 0),
    ...                    inertia=(1, 3, 3), inertia_at="origin")
    >>> from symbody.symbolic.evaluate import evaluate
    >>> evaluate(bar.inertia_com[1][1], s.default_values())  # 3 - m at m = 2
    1.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError
from ..symbolic.expr import ZERO, Expr, mul, sub
from .base import Base
from .expressions import default_value, require, state_mask, to_expr
from .geometry import Frame, Point, relative_position, resolve_base, resolve_frame, resolve_point, resolve_vector
from .quantities import Parameter
from .registry import Facet, atomic
from .vector import Tensor, steiner

if TYPE_CHECKING:
    from .system import System


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


def resolve_solid(system: System, s: Solid | str | None, what: str = "solid") -> Solid | None:
    """The solid ``s`` (a Solid or a solid name) of ``system``; ``None`` or ``"ground"`` is the ground.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rs")
        >>> bob = s.particle("bob", s.origin, 1.0)
        >>> resolve_solid(s, "bob") is bob, resolve_solid(s, "ground")
        (True, None)
    """
    if s is None:
        return None
    if isinstance(s, Solid):
        if system.solids.get(s.name) is not s and s.name != "ground":
            raise ModelError(f"{what} {s.name!r} belongs to another system")
        return s
    if isinstance(s, str):
        if s == "ground":
            return None
        solid = system.solids.get(s)
        if solid is None:
            raise ModelError(f"{what} {s!r} does not exist in system {system.name!r}")
        return solid
    raise ModelError(f"{what}: expected a Solid or a solid name, got {s!r}")


def create_solid(
    system: System,
    name: str,
    frame: Frame | Point | str,
    base: Base | str | None = None,
    *,
    mass: Any,
    com: Any = (0, 0, 0),
    inertia: Any = None,
    inertia_at: str | Point = "com",
    inertia_base: Base | str | None = None,
) -> Solid:
    """Create a rigid body attached to a frame (or a point and a base).

    The body of :meth:`symbody.System.solid` (documented there, with an example).
    """
    point, b = resolve_frame(system, frame, base, f"solid {name!r}")
    m = to_expr(system, mass, f"mass of solid {name!r}")
    system.registry.claim(name, "solid")
    check_mass(system, name, m)
    com_v = resolve_vector(system, com, b, f"centre of mass of solid {name!r}")
    com_c = com_v.components(b)
    require(system, f"the centre of mass of solid {name!r} (components in its base)", com_c, ("parameter",))
    I_given, at_origin = None, False
    if inertia is not None:
        I_given, at_origin = _inertia_in_body(system, name, point, b, m, com_c, inertia, inertia_at, inertia_base)
    solid = Solid(
        name,
        point,
        b,
        m,
        com_c,
        I_given,
        frame=frame if isinstance(frame, Frame) else None,
        inertia_at_origin=at_origin,
    )
    if inertia is not None:
        check_inertia(system, name, solid.inertia_com)
    system.solids[name] = solid
    return solid


def create_particle(system: System, name: str, point: Point | str, mass: Any) -> Solid:
    """Create a point mass.

    The body of :meth:`symbody.System.particle` (documented there, with an example).
    """
    p = resolve_point(system, point, f"point of particle {name!r}")
    m = to_expr(system, mass, f"mass of particle {name!r}")
    check_mass(system, name, m)
    system.registry.claim(name, "particle")
    solid = Solid(name, p, system.ground_base, m, (ZERO, ZERO, ZERO), None, is_particle=True)
    system.solids[name] = solid
    return solid


def _inertia_tensor(system: System, name: str, b: Base, inertia: Any, inertia_base: Base | str | None) -> Tensor:
    """The inertia as a Tensor (given as a Tensor, a 3x3 matrix, a diagonal or 6 components)."""
    if isinstance(inertia, Tensor):
        return inertia
    try:
        rows = as_inertia_rows(inertia)
    except (ValueError, TypeError) as e:
        raise ModelError(f"inertia of solid {name!r}: {e}") from None
    except ModelError:  # an infinite or NaN component
        raise ModelError(f"inertia tensor of solid {name!r} is not finite") from None
    ib = resolve_base(system, inertia_base, f"inertia base of solid {name!r}") if inertia_base is not None else b
    return Tensor(ib, [[to_expr(system, x, f"inertia of solid {name!r}") for x in r] for r in rows])


def _inertia_in_body(
    system: System,
    name: str,
    point: Point,
    b: Base,
    m: Expr,
    com_c: tuple[Expr, Expr, Expr],
    inertia: Any,
    inertia_at: str | Point,
    inertia_base: Base | str | None,
) -> tuple[Any, bool]:
    """Inertia tensor in the body base, and whether it is given at the reference point (else at G)."""
    T = _inertia_tensor(system, name, b, inertia, inertia_base)
    moving = state_mask(system)
    if T.base is not b:
        for row in system.kinematics.rotation(T.base, b):
            if any(x.mask & moving for x in row):
                raise ModelError(f"solid {name!r}: the inertia base must be fixed to the body base")
    I = T.components(b)
    if isinstance(inertia_at, str) and inertia_at == "com":
        return I, False
    if isinstance(inertia_at, str) and inertia_at == "origin":
        return I, True
    if isinstance(inertia_at, str) and inertia_at not in system.points:
        raise ModelError(
            f"solid {name!r}: inertia_at={inertia_at!r} is neither 'com', 'origin' "
            f"nor a point of system {system.name!r}"
        )
    p = resolve_point(system, inertia_at, f"inertia point of solid {name!r}")
    if p is point:
        return I, True
    r_op = relative_position(system.kinematics, point, p).components(b)
    if any(c.mask & moving for c in r_op):
        raise ModelError(
            f"solid {name!r}: the inertia point {p.name!r} must be fixed in the body "
            f"(define it from point {point.name!r} by a vector in a base fixed to the body)"
        )
    d = (sub(r_op[0], com_c[0]), sub(r_op[1], com_c[1]), sub(r_op[2], com_c[2]))  # from G to the point
    return steiner(I, m, d, sign=-1), False


def check_mass(system: System, name: str, m: Expr) -> None:
    """Refuse a mass that depends on more than parameters or is negative or not finite at the defaults.

    A parameter that is a mass is given the lower bound 0 (FMUs then refuse negative values).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("cm")
        >>> m = s.parameter("m", 1.0)
        >>> check_mass(s, "bob", m)
        >>> s.parameters["m"].min
        0.0
    """
    require(system, f"mass of {name!r}", m, ("parameter",))
    try:
        v = default_value(system, m)
    except (ValueError, ZeroDivisionError, OverflowError) as e:
        raise ModelError(f"mass of {name!r} cannot be evaluated: {e}") from None
    if not math.isfinite(v) or v < 0:
        raise ModelError(f"mass of {name!r} is negative or not finite ({v:g})")
    p = m.value
    if m.op == 0 and m.kind == "parameter" and isinstance(p, Parameter) and p.min is None:
        p.min = 0.0
        system.registry.on_rollback(lambda: setattr(p, "min", None))


def check_inertia(system: System, name: str, I: Any) -> None:
    """Refuse an inertia tensor (at the centre of mass) that is not symmetric, finite and positive semi-definite.

    Example:
        >>> import symbody as sb
        >>> from symbody.symbolic.expr import num
        >>> s = sb.System("ci")
        >>> I = [[num(1), num(2), num(0)], [num(0), num(1), num(0)], [num(0), num(0), num(1)]]
        >>> try:
        ...     check_inertia(s, "arm", I)
        ... except sb.ModelError as e:
        ...     print(e)
        inertia tensor of solid 'arm' is not symmetric (Ixy = 2 but Iyx = 0)
    """
    require(system, f"inertia tensor of solid {name!r}", I, ("parameter",))
    for i in range(3):
        for j in range(i + 1, 3):
            if I[i][j] is not I[j][i]:
                a, b = default_value(system, I[i][j]), default_value(system, I[j][i])
                if abs(a - b) > 1e-12 * max(1.0, abs(a), abs(b)):
                    ij, ji = "xyz"[i] + "xyz"[j], "xyz"[j] + "xyz"[i]
                    raise ModelError(
                        f"inertia tensor of solid {name!r} is not symmetric (I{ij} = {a:g} but I{ji} = {b:g})"
                    )
    vals = np.array([[default_value(system, x) for x in row] for row in I])
    if not np.all(np.isfinite(vals)):
        raise ModelError(f"inertia tensor of solid {name!r} is not finite")
    ev = np.linalg.eigvalsh(0.5 * (vals + vals.T))
    scale = max(1.0, float(np.max(np.abs(ev))))
    if ev.min() < -1e-9 * scale:
        raise ModelError(f"inertia tensor of solid {name!r} is not positive semi-definite (eigenvalue {ev.min():g})")


class BodiesMixin(Facet):
    """The methods of :class:`symbody.System` that create solids and particles."""

    @atomic
    def solid(
        self,
        name: str,
        frame: Frame | Point | str,
        base: Base | str | None = None,
        *,
        mass: Any,
        com: Any = (0, 0, 0),
        inertia: Any = None,
        inertia_at: str | Point = "com",
        inertia_base: Base | str | None = None,
    ) -> Solid:
        """Create a rigid body attached to a frame (or a point and a base).

        Args:
            mass: mass (number, parameter or expression); must be non-negative.
            com: centre of mass from the frame's point: components in the body base, or a Vector.
            inertia: inertia tensor (3x3, diagonal 3-tuple or :func:`inertia`), or a :class:`Tensor`.
            inertia_at: ``"com"`` (default), ``"origin"`` (the frame's point) or a point fixed to the body.
            inertia_base: base of the inertia components (default: the body base); must be fixed to the body.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("rod")
            >>> m, l = s.parameter("m", 1.0), s.parameter("l", 2.0)
            >>> rod = s.solid("rod", s.ground, mass=m, com=(l / 2, 0, 0), inertia=(0, m * l**2 / 12, 0))
            >>> rod.inertia_origin[1][1]
            1/3*m*l**2
        """
        return create_solid(
            self._system,
            name,
            frame,
            base,
            mass=mass,
            com=com,
            inertia=inertia,
            inertia_at=inertia_at,
            inertia_base=inertia_base,
        )

    @atomic
    def particle(self, name: str, point: Point | str, mass: Any) -> Solid:
        """Create a point mass.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("pm")
            >>> s.particle("bob", "O", 1.5)
            Particle('bob', point='O', base='xyz')
        """
        return create_particle(self._system, name, point, mass)
