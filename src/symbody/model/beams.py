"""Beam elements between two frames: Euler-Bernoulli and generalized (a user's 6x6 stiffness).

A beam element is a massless elastic link from frame 1 (its clamped end) to frame 2 (its free
end), lying along frame 1's x axis at rest: the deflection of frame 2 is its position in frame 1's
basis minus ``(L, 0, 0)`` and the small-rotation vector of ``R1^T R2``, and the wrench on frame 2's
body is ``-K s - C s'`` exactly as for a :class:`~symbody.model.bushings.Bushing` (frame 1's body
takes the reaction at the same point, which is the beam's own equilibrium).  The relative rotations
must stay small.  The Euler-Bernoulli stiffness of a cantilever's free end (Przemieniecki, "Theory
of Matrix Structural Analysis", McGraw-Hill, 1968, ch. 5; Gil Soto, "Preprocesador para la
simulacion dinamica de sistemas multicuerpo basado en algebra simbolica", PhD thesis, Universidad
Publica de Navarra, 2005, sec. 4.5.3), on ``(x, y, z, rx, ry, rz)``, is::

    EA/L
         12EIz/L^3                     -6EIz/L^2
                   12EIy/L^3  6EIy/L^2
                         GJ/L
                   6EIy/L^2   4EIy/L
        -6EIz/L^2                       4EIz/L

(``Iy``, ``Iz``: second moments of area about frame 1's y and z axes).  A generalized beam takes any
6x6 ``K``; :func:`end_stiffness` extracts it from a two-node finite-element matrix (12x12: node 1's
six displacements, then node 2's) with node 1 clamped, as 3D_MEC_MATLAB's ``build_gen_rK_matrix``.

Example (the free end of a cantilever of length 2 m under a tip force P: deflection P L^3 / (3 E Iy)):
    >>> import symbody as sb
    >>> s = sb.System("cant")
    >>> z, ry = s.coordinate("z"), s.coordinate("ry")
    >>> tip = s.frame("tip", s.point("P", s.origin, (2.0, 0, z)), s.base("B", s.ground_base, sb.Ry(ry)))
    >>> beam = s.beam("b", s.ground, tip, E=2e11, G=8e10, area=1e-3, Iy=2e-7, Iz=3e-7, J=4e-7)
    >>> _ = s.solid("tip_mass", tip.point, tip.base, mass=1.0, inertia=(1e-3, 1e-3, 1e-3))
    >>> P = 1.0
    >>> _ = s.generalized_force("push", z, P)
    >>> from symbody.numeric import static_equilibrium
    >>> w = static_equilibrium(s.derive(), [0.0, 0.0])["z"]
    >>> bool(abs(w / (P * 2.0**3 / (3 * 2e11 * 2e-7)) - 1) < 1e-6)
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError
from ..symbolic.expr import ZERO, Expr, div, mul, neg, num
from .bushings import Bushing, declare_wrench_outputs, frames_of, matrix6
from .expressions import default_value, require, to_expr
from .geometry import Frame, relative_position
from .loads import add_load
from .registry import Facet

if TYPE_CHECKING:
    from .system import System


class Beam(Bushing):
    """A beam element: a :class:`~symbody.model.bushings.Bushing` with rest offset ``(L, 0, 0)`` (module docstring).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("bm")
        >>> tip = s.frame("tip", s.point("P", s.origin, (2.0, 0, 0)), s.ground_base)
        >>> b = s.beam("b", s.ground, tip, stiffness=[[1.0 if i == j else 0.0 for j in range(6)] for i in range(6)])
        >>> b.kind, b.offset[0], b.stiffness[0][0]
        ('beam', 2, b_K1_1)
    """

    kind = "beam"


def beam_stiffness(E: Expr, G: Expr, area: Expr, Iy: Expr, Iz: Expr, J: Expr, length: Expr) -> list[list[Expr]]:
    """The 6x6 Euler-Bernoulli stiffness of a cantilever's free end (module docstring).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("bs")
        >>> E, G, A, Iy, Iz, J, L = (s.parameter(n, 1.0) for n in ("E", "G", "A", "Iy", "Iz", "J", "L"))
        >>> K = beam_stiffness(E, G, A, Iy, Iz, J, L)
        >>> K[0][0], K[1][5], K[4][4]
        (E*A/L, -6*E*Iz/L**2, 4*E*Iy/L)
    """
    K: list[list[Expr]] = [[ZERO] * 6 for _ in range(6)]
    EIy, EIz = mul(E, Iy), mul(E, Iz)
    L2, L3 = mul(length, length), mul(length, mul(length, length))
    K[0][0] = div(mul(E, area), length)
    K[1][1] = div(mul(num(12), EIz), L3)
    K[2][2] = div(mul(num(12), EIy), L3)
    K[3][3] = div(mul(G, J), length)
    K[4][4] = div(mul(num(4), EIy), length)
    K[5][5] = div(mul(num(4), EIz), length)
    K[1][5] = K[5][1] = neg(div(mul(num(6), EIz), L2))
    K[2][4] = K[4][2] = div(mul(num(6), EIy), L2)
    return K


def end_stiffness(K12: Any, tol: float = 0.0) -> np.ndarray:
    """The 6x6 stiffness of node 2 of a two-node element with node 1 clamped: ``K12[6:, 6:]``.

    Entries of magnitude at most ``tol`` become zeros (3D_MEC_MATLAB's ``build_gen_rK_matrix``).
    The matrix must be symmetric and the result positive definite (a clamped elastic element).

    Example:
        >>> import numpy as np
        >>> k = np.diag([4.0, 3.0, 3.0, 1.0, 2.0, 2.0])
        >>> K12 = np.block([[k, -k], [-k, k]])
        >>> end_stiffness(K12).diagonal().tolist()
        [4.0, 3.0, 3.0, 1.0, 2.0, 2.0]
    """
    K = np.asarray(K12, dtype=float)
    if K.shape != (12, 12):
        raise ModelError(f"end_stiffness: a two-node element's stiffness is 12x12, not {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ModelError("end_stiffness: the stiffness matrix has entries that are not finite")
    scale = np.max(np.abs(K))
    if not np.allclose(K, K.T, rtol=0.0, atol=1e-9 * scale):
        raise ModelError("end_stiffness: the stiffness matrix is not symmetric")
    Ke = K[6:, 6:].copy()
    Ke[np.abs(Ke) <= tol] = 0.0
    if np.min(np.linalg.eigvalsh(Ke)) <= 0.0:
        raise ModelError("end_stiffness: the end stiffness is not positive definite (is the element clamped?)")
    return Ke


def _numbers_as_parameters(system: System, name: str, K: Any) -> list[list[Any]]:
    """A numeric 6x6 matrix with its non-zero entries as parameters ``<name>_K<i>_<j>`` (``i <= j``, from 1)."""
    arr = np.asarray(K, dtype=float)
    if arr.shape != (6, 6):
        raise ModelError(f"stiffness of beam {name!r}: a 6x6 matrix, not {arr.shape}")
    if not np.allclose(arr, arr.T, rtol=0.0, atol=1e-12 * np.max(np.abs(arr))):
        raise ModelError(f"stiffness of beam {name!r}: the matrix is not symmetric")
    out: list[list[Any]] = [[0.0] * 6 for _ in range(6)]
    for i in range(6):
        for j in range(i, 6):
            if arr[i, j] != 0.0:
                out[i][j] = out[j][i] = system.parameter(f"{name}_K{i + 1}_{j + 1}", float(arr[i, j]))
    return out


def _is_numeric(K: Any) -> bool:
    try:
        np.asarray(K, dtype=float)
    except (TypeError, ValueError):
        return False
    return True


def rest_length(system: System, name: str, frames: tuple, length: Any) -> Expr:
    """The beam's length: ``length``, or the distance of the frames at the defaults (along frame 1's x).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rl")
        >>> B = s.frame("B", s.point("P", s.origin, (0.5, 0, 0)), s.ground_base)
        >>> rest_length(s, "b", ((s.origin, s.ground_base), (B.point, B.base)), None)
        0.5
    """
    if length is not None:
        L = to_expr(system, length, f"length of beam {name!r}")
        require(system, f"length of beam {name!r}", L, ("parameter",))
    else:
        (p1, b1), (p2, _) = frames
        d = relative_position(system.kinematics, p1, p2).components(b1)
        x, y, z = (default_value(system, c) for c in d)
        if x <= 0.0 or abs(y) + abs(z) > 1e-9 * x:
            raise ModelError(
                f"beam {name!r}: frame 2 is not on frame 1's positive x axis at the initial configuration "
                f"(at {x:.6g}, {y:.6g}, {z:.6g}); give length= or place the frames along the beam"
            )
        L = to_expr(system, x, f"length of beam {name!r}")
    if default_value(system, L) <= 0.0:
        raise ModelError(f"beam {name!r}: its length must be positive")
    return L


def add_beam(
    system: System,
    name: str,
    frame1: Frame | str,
    frame2: Frame | str,
    *,
    E: Any = None,
    G: Any = None,
    area: Any = None,
    Iy: Any = None,
    Iz: Any = None,
    J: Any = None,
    length: Any = None,
    stiffness: Any = None,
    damping: Any = None,
) -> Beam:
    """Add a beam element from frame 1 to frame 2 and its wrench as outputs ``<name>_Fx`` ... ``<name>_Mz``.

    Either the section (``E, G, area, Iy, Iz, J``: Euler-Bernoulli) or ``stiffness`` (a 6x6
    generalized beam; numbers become parameters ``<name>_K<i>_<j>``).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ab")
        >>> z = s.coordinate("z")
        >>> tip = s.frame("tip", s.point("P", s.origin, (2.0, 0, z)), s.ground_base)
        >>> b = add_beam(s, "b", s.ground, tip, E=2e11, G=8e10, area=1e-3, Iy=2e-7, Iz=3e-7, J=4e-7)
        >>> b.wrench(s.kinematics)[2]
        -60000*z
    """
    system.registry.check(name, "beam")
    frames = frames_of(system, name, frame1, frame2)
    section = (E, G, area, Iy, Iz, J)
    L = rest_length(system, name, frames, length)
    if stiffness is not None:
        if any(v is not None for v in section):
            raise ModelError(f"beam {name!r}: give either stiffness= or the section (E, G, area, Iy, Iz, J), not both")
        K = matrix6(system, _numbers_as_parameters(system, name, stiffness) if _is_numeric(stiffness) else stiffness,
                    f"stiffness of beam {name!r}")  # fmt: skip
    else:
        missing = [n for n, v in zip(("E", "G", "area", "Iy", "Iz", "J"), section) if v is None]
        if missing:
            raise ModelError(f"beam {name!r}: missing {', '.join(missing)} (or give stiffness=)")
        exprs = [
            to_expr(system, v, f"{n} of beam {name!r}") for n, v in zip(("E", "G", "area", "Iy", "Iz", "J"), section)
        ]
        require(system, f"section of beam {name!r}", exprs, ("parameter",))
        E_, G_, A_, Iy_, Iz_, J_ = exprs
        K = beam_stiffness(E_, G_, A_, Iy_, Iz_, J_, L)
    C = matrix6(system, damping, f"damping of beam {name!r}") if damping is not None else None
    load = add_load(system, name, Beam(name, frames[0], frames[1], K, C, [ZERO] * 6, (L, ZERO, ZERO)))
    declare_wrench_outputs(system, load)
    return load


__all__ = ["Beam", "add_beam", "beam_stiffness", "end_stiffness", "rest_length"]


class BeamsMixin(Facet):
    """The methods of :class:`symbody.System` that add beam elements."""

    def beam(
        self, name: str, frame1: Frame | str, frame2: Frame | str, *, E: Any = None, G: Any = None, area: Any = None,
        Iy: Any = None, Iz: Any = None, J: Any = None, length: Any = None, stiffness: Any = None, damping: Any = None,
    ) -> Beam:  # fmt: skip
        """A massless beam element from frame 1 (clamped end, beam along its x axis) to frame 2; wrench as outputs.

        Euler-Bernoulli with the section ``E, G, area, Iy, Iz, J`` (``Iy``, ``Iz`` about frame 1's y
        and z axes) and ``length`` (default: the frames' distance at the initial configuration), or a
        generalized beam with ``stiffness`` a 6x6 matrix (numbers become parameters
        ``<name>_K<i>_<j>``; :func:`~symbody.model.beams.end_stiffness` extracts it from a 12x12
        finite-element matrix).  The wrench on frame 2's body is ``-K s - C s'`` with
        ``s = (d - (L, 0, 0), theta)`` as for :meth:`bushing`; relative rotations must stay small.
        Outputs ``<name>_Fx`` ... ``<name>_Mz`` (:mod:`symbody.model.beams`).

        Example (the free end of a cantilever 1 mm down: ``12 E Iy / L^3 z`` and ``6 E Iy / L^2 z`` hold it):
            >>> import symbody as sb
            >>> from symbody.model.expressions import default_value
            >>> s = sb.System("cantilever")
            >>> z, ry = s.coordinate("z", 1e-3), s.coordinate("ry")
            >>> tip = s.frame("tip", s.point("P", s.origin, (2.0, 0, z)), s.base("B", s.ground_base, sb.Ry(ry)))
            >>> b = s.beam("b", s.ground, tip, E=2e11, G=8e10, area=1e-3, Iy=2e-7, Iz=3e-7, J=4e-7, length=2.0)
            >>> [round(default_value(s, b.wrench(s.kinematics)[i]), 9) for i in (2, 4)]  # Fz, My
            [-60.0, -60.0]
        """
        with self.registry.transaction():
            return add_beam(
                self._system, name, frame1, frame2, E=E, G=G, area=area, Iy=Iy, Iz=Iz, J=J, length=length,
                stiffness=stiffness, damping=damping,
            )  # fmt: skip
