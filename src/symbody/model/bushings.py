"""Bushings: six-component spring-dampers between two frames (elastic mounts, silentblocks).

A bushing joins two frames, each fixed in the body that carries it.  Its deflection is the
relative pose of frame 2 in frame 1, in frame 1's basis: the position ``d`` of frame 2's
origin minus a rest offset ``d0``, and the rotation vector ``theta`` of ``R = R1^T R2``
(``R1``, ``R2``: the frames' orientations), taken in its small-rotation form
``theta = vee(R - R^T) / 2``, i.e. ``sin(phi) n`` for a rotation ``phi`` about ``n``: exact to
second order in ``phi`` (0.5 % short at 10 degrees), the same assumption of small relative
rotations as the beam elements of 3D_MEC_MATLAB (Gil Soto, "Preprocesador para la simulacion
dinamica de sistemas multicuerpo basado en algebra simbolica", PhD thesis, Universidad Publica de
Navarra, 2005, sec. 4.5.3).  Its rates are the time derivative of ``d`` in frame 1's basis and the
relative angular velocity ``omega_2 - omega_1`` in that basis.

The wrench on frame 2's body, at frame 2's origin and in frame 1's basis, is::

    w = preload - K s - C s'        s = (d - d0, theta),  s' = (d d/dt, omega_2 - omega_1)

and frame 1's body takes ``-w`` at the same point (action and reaction).  Its virtual power is
``w . s'``: the force on the relative velocity of frame 2's origin seen from frame 1, the moment on
the relative angular velocity, so each of the six components is a scalar force along its rate.

Example (a block on a bushing to the ground, pulled along x: the spring holds it at F/k):
    >>> import symbody as sb
    >>> s = sb.System("mount")
    >>> x = s.coordinate("x")
    >>> F = s.frame("F", s.point("P", s.origin, (x, 0, 0)), s.ground_base)
    >>> _ = s.particle("m", F.point, 1.0)
    >>> b = s.bushing("b", s.ground, F, stiffness=(100, 100, 100, 5, 5, 5))
    >>> s.derive().delta[0], s.outputs["b_Fx"].expr
    (-100*x, -100*x)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import time_derivative
from ..symbolic.expr import HALF, ZERO, Expr, mul, sub
from .expressions import LOADS, require, to_expr
from .geometry import Frame, Point, relative_position, resolve_frame
from .loads import Load, ScalarForce, add_load
from .registry import Facet

if TYPE_CHECKING:
    from .base import Base
    from .kinematics import Kinematics
    from .power import VirtualPower as Assembler
    from .system import System

#: Names of the six components of a bushing's wrench and deflection (frame 1's basis).
COMPONENTS = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")

Matrix6 = list[list[Expr]]


class Bushing(Load):
    """A six-component spring-damper between two frames (see the module docstring).

    Attributes:
        point1, base1, point2, base2: the frames joined.
        stiffness, damping: 6x6 matrices (rows of expressions) on ``(translation, rotation)``.
        preload: the wrench at zero deflection (6 expressions).
        offset: the rest position ``d0`` of frame 2's origin in frame 1's basis.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("bu")
        >>> from symbody.model.expressions import default_value
        >>> x = s.coordinate("x", 2.0)
        >>> F = s.frame("F", s.point("P", s.origin, (x, 0, 0)), s.ground_base)
        >>> b = s.bushing("b", s.ground, F, stiffness=(1, 2, 3, 4, 5, 6), preload=(7, 0, 0, 0, 0, 0))
        >>> b.kind, default_value(s, b.wrench(s.kinematics)[0])  # 7 - 1 x
        ('bushing', 5.0)
    """

    kind = "bushing"

    def __init__(
        self,
        name: str,
        frame1: tuple[Point, Base],
        frame2: tuple[Point, Base],
        stiffness: Matrix6,
        damping: Matrix6 | None,
        preload: Sequence[Expr],
        offset: Sequence[Expr] = (ZERO, ZERO, ZERO),
    ):
        self.name = name
        self.point1, self.base1 = frame1
        self.point2, self.base2 = frame2
        self.stiffness = stiffness
        self.damping = damping
        self.preload = list(preload)
        self.offset = list(offset)

    def deflection(self, kin: Kinematics) -> list[Expr]:
        """``(d - d0, theta)``: frame 2's position and small-rotation vector relative to frame 1, in its basis."""
        d = relative_position(kin, self.point1, self.point2).components(self.base1)
        R = kin.rotation(self.base2, self.base1)  # R1^T R2: components in base 2 -> base 1
        theta = (sub(R[2][1], R[1][2]), sub(R[0][2], R[2][0]), sub(R[1][0], R[0][1]))
        return [sub(d[i], self.offset[i]) for i in range(3)] + [mul(HALF, t) for t in theta]

    def rates(self, kin: Kinematics) -> list[Expr]:
        """The rates the wrench acts along: ``d d/dt`` and ``omega_2 - omega_1``, in frame 1's basis."""
        ctx = kin.system.ctx
        d = relative_position(kin, self.point1, self.point2).components(self.base1)
        w = (kin.omega(self.base2) - kin.omega(self.base1)).components(self.base1)
        return [time_derivative(x, ctx, accelerations=False) for x in d] + list(w)

    def wrench(self, kin: Kinematics) -> list[Expr]:
        """``preload - K s - C s'``: the force and moment on frame 2's body (frame 1's basis)."""
        s = self.deflection(kin)
        terms = [self.preload[i] for i in range(6)]
        for matrix, x in ((self.stiffness, s), (self.damping, self.rates(kin) if self.damping else None)):
            if matrix is None or x is None:
                continue
            for i in range(6):
                for j in range(6):
                    if not matrix[i][j].is_zero and not x[j].is_zero:
                        terms[i] = sub(terms[i], mul(matrix[i][j], x[j]))
        return terms

    def apply(self, asm: Assembler) -> None:
        kin = asm.kin
        for name, rate, f in zip(COMPONENTS, self.rates(kin), self.wrench(kin)):
            if not rate.is_zero and not f.is_zero:
                ScalarForce(f"{self.name}_{name}", rate, f).apply(asm)


def matrix6(system: System, value: Any, what: str) -> Matrix6:
    """A 6x6 matrix of expressions from 6 numbers (its diagonal) or 6 rows of 6.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("m6")
        >>> k = s.parameter("k", 2.0)
        >>> matrix6(s, (k, 1, 1, 1, 1, 1), "stiffness")[0][:2]
        [k, 0]
    """
    try:
        rows = list(value)
    except TypeError:
        raise ModelError(f"{what}: give 6 values (the diagonal) or 6 rows of 6, not {value!r}") from None
    if len(rows) != 6:
        raise ModelError(f"{what}: give 6 values (the diagonal) or 6 rows of 6, not {len(rows)} items")
    if all(_is_row(r) for r in rows):
        if any(len(r) != 6 for r in rows):
            raise ModelError(f"{what}: a 6x6 matrix needs 6 rows of 6 values")
        out = [[to_expr(system, x, what) for x in r] for r in rows]
    else:
        out = [[to_expr(system, rows[i], what) if i == j else ZERO for j in range(6)] for i in range(6)]
    require(system, what, out, LOADS)
    return out


def _is_row(x: Any) -> bool:
    return isinstance(x, (list, tuple)) or getattr(x, "ndim", 0) == 1


def vector6(system: System, value: Any, what: str) -> list[Expr]:
    """Six expressions (a wrench), zeros for ``None``.

    Example:
        >>> import symbody as sb
        >>> vector6(sb.System("v6"), None, "preload")
        [0, 0, 0, 0, 0, 0]
    """
    if value is None:
        return [ZERO] * 6
    items = list(value)
    if len(items) != 6:
        raise ModelError(f"{what}: give the 6 components (Fx, Fy, Fz, Mx, My, Mz), not {len(items)}")
    out = [to_expr(system, x, what) for x in items]
    require(system, what, out, LOADS)
    return out


def frames_of(system: System, name: str, frame1: Any, frame2: Any) -> tuple[tuple[Point, Base], tuple[Point, Base]]:
    """The point and base of the two frames of an element (frames or frame names).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("fo")
        >>> F = s.frame("F", s.point("P", s.origin, (1, 0, 0)), s.ground_base)
        >>> frames_of(s, "b", "abs", F) == ((s.origin, s.ground_base), (F.point, s.ground_base))
        True
    """
    ends = []
    for k, f in enumerate((frame1, frame2), start=1):
        if not isinstance(f, (Frame, str)):
            raise ModelError(f"element {name!r}: frame{k} must be a Frame or a frame name, not {f!r}")
        ends.append(resolve_frame(system, f, None, f"frame{k} of element {name!r}"))
    if ends[0] == ends[1]:
        raise ModelError(f"element {name!r}: its two frames are the same")
    return ends[0], ends[1]


def declare_wrench_outputs(system: System, load: Bushing) -> None:
    """Outputs ``<name>_Fx ... <name>_Mz``: the wrench on frame 2's body in frame 1's basis."""
    from .quantities import declare_output

    for comp, e in zip(COMPONENTS, load.wrench(system.kinematics)):  # units: those of the stiffness given
        declare_output(system, f"{load.name}_{comp}", e, None, f"{comp} on frame 2's body, frame 1's basis")


def add_bushing(
    system: System,
    name: str,
    frame1: Frame | str,
    frame2: Frame | str,
    *,
    stiffness: Any,
    damping: Any = None,
    preload: Any = None,
) -> Bushing:
    """Add a :class:`Bushing` between two frames and its wrench as outputs (``<name>_Fx`` ... ``<name>_Mz``).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ab")
        >>> from symbody.model.expressions import default_value
        >>> x = s.coordinate("x", 1.0, dq0=2.0)
        >>> F = s.frame("F", s.point("P", s.origin, (x, 0, 0)), s.ground_base)
        >>> b = add_bushing(s, "b", "abs", F, stiffness=[10] * 6, damping=[1] * 6)
        >>> default_value(s, b.wrench(s.kinematics)[0])  # -10 x - 1 dx
        -12.0
    """
    system.registry.check(name, "bushing")
    end1, end2 = frames_of(system, name, frame1, frame2)
    K = matrix6(system, stiffness, f"stiffness of bushing {name!r}")
    C = matrix6(system, damping, f"damping of bushing {name!r}") if damping is not None else None
    w0 = vector6(system, preload, f"preload of bushing {name!r}")
    load = add_load(system, name, Bushing(name, end1, end2, K, C, w0))
    declare_wrench_outputs(system, load)
    return load


__all__ = ["Bushing", "COMPONENTS", "add_bushing", "declare_wrench_outputs", "frames_of", "matrix6", "vector6"]


class BushingsMixin(Facet):
    """The methods of :class:`symbody.System` that add bushings (elastic mounts)."""

    def bushing(
        self, name: str, frame1: Frame | str, frame2: Frame | str, *, stiffness: Any, damping: Any = None,
        preload: Any = None,
    ) -> Bushing:  # fmt: skip
        """A six-component spring-damper (elastic mount) between two frames; its wrench as outputs.

        On the deflection ``s = (d, theta)`` of frame 2 in frame 1's basis (position of frame 2's
        origin, small-rotation vector of ``R1^T R2``) and its rate ``s'`` (``d d/dt``,
        ``omega_2 - omega_1``), the wrench on frame 2's body at its origin, in frame 1's basis, is
        ``preload - K s - C s'``; frame 1's body takes the opposite wrench at the same point.
        ``stiffness`` and ``damping`` are 6 values (a diagonal) or 6 rows of 6 on
        ``(x, y, z, rx, ry, rz)``; ``preload`` is ``(Fx, Fy, Fz, Mx, My, Mz)``.  The outputs
        ``<name>_Fx`` ... ``<name>_Mz`` give the wrench (:mod:`symbody.model.bushings`).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("mount")
            >>> z = s.coordinate("z")
            >>> top = s.frame("top", s.point("P", s.origin, (0, 0, z)), s.ground_base)
            >>> _ = s.particle("m", top.point, 2.0)
            >>> b = s.bushing("rubber", s.ground, top, stiffness=[4e4] * 3 + [50] * 3, preload=(0, 0, 19.62, 0, 0, 0))
            >>> s.gravity((0, 0, -9.81))
            >>> s.derive().delta[0]  # the preload carries the weight
            -40000*z
        """
        with self.registry.transaction():
            return add_bushing(
                self._system, name, frame1, frame2, stiffness=stiffness, damping=damping, preload=preload
            )
