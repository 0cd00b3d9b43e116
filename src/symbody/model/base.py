"""Bases (orientations) and the rotations that define them.

Bases form a tree rooted at the ground base (``xyz``).  Each base is defined
from its parent by a rotation; the rotation gives the matrix that maps the
components of a vector in the child base to its components in the parent base
(``v_parent = R v_child``) and the angular velocity of the child relative to
the parent, expressed in the child base.

Example:
    >>> import symbody as sb
    >>> s = sb.System("demo")
    >>> th = s.coordinate("th")
    >>> B1 = s.base("B1", s.ground_base, sb.Rz(th))
    >>> B1.parent.name, B1.rotation.axis
    ('xyz', 2)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import time_derivative
from ..symbolic.expr import ONE, ZERO, Expr, add, as_expr, cos, mul, neg, sin, sub

if TYPE_CHECKING:
    from .system import System

Matrix3 = tuple[tuple[Expr, Expr, Expr], tuple[Expr, Expr, Expr], tuple[Expr, Expr, Expr]]

_AXES = {"x": 0, "y": 1, "z": 2, 0: 0, 1: 1, 2: 2, "1": 0, "2": 1, "3": 2}


def axis_index(axis: Any) -> int:
    """Index 0, 1, 2 of an axis given as ``"x"``/``"y"``/``"z"``, 1-based string or int.

    Example:
        >>> axis_index("y"), axis_index("3"), axis_index(0)
        (1, 2, 0)
    """
    try:
        return _AXES[axis.lower() if isinstance(axis, str) else axis]
    except (KeyError, AttributeError):
        raise ModelError(f"unknown axis {axis!r}: use 'x', 'y' or 'z'") from None


def elementary_matrix(axis: int, c: Expr, s: Expr) -> Matrix3:
    """Matrix of a rotation by an angle of cosine ``c``, sine ``s`` about a coordinate axis."""
    z, o = ZERO, ONE
    if axis == 0:
        return ((o, z, z), (z, c, neg(s)), (z, s, c))
    if axis == 1:
        return ((c, z, s), (z, o, z), (neg(s), z, c))
    return ((c, neg(s), z), (s, c, z), (z, z, o))


def as_matrix3(rows: Sequence[Sequence[Expr]]) -> Matrix3:
    """A 3x3 matrix of expressions as a tuple of three 3-tuples.

    Example:
        >>> from symbody.symbolic.expr import num
        >>> as_matrix3([[num(1), num(0), num(0)], [num(0), num(1), num(0)], [num(0), num(0), num(1)]])[1]
        (0, 1, 0)
    """
    r0, r1, r2 = rows
    return ((r0[0], r0[1], r0[2]), (r1[0], r1[1], r1[2]), (r2[0], r2[1], r2[2]))


def transpose(R: Matrix3) -> Matrix3:
    return tuple(tuple(R[j][i] for j in range(3)) for i in range(3))  # type: ignore[return-value]


def matmul(A: Matrix3, B: Matrix3) -> Matrix3:
    return tuple(
        tuple(add(add(mul(A[i][0], B[0][j]), mul(A[i][1], B[1][j])), mul(A[i][2], B[2][j])) for j in range(3))
        for i in range(3)
    )  # type: ignore[return-value]


def matvec(R: Matrix3, v: Sequence[Expr]) -> tuple[Expr, Expr, Expr]:
    return tuple(add(add(mul(R[i][0], v[0]), mul(R[i][1], v[1])), mul(R[i][2], v[2])) for i in range(3))  # type: ignore[return-value]


class Rotation(ABC):
    """How a base is obtained from its parent.

    Subclasses define :meth:`matrix` (child components -> parent components) and
    :meth:`omega` (angular velocity of the child relative to the parent, in the
    child base).  ``axis``/``angle`` are set for rotations about a coordinate axis.
    """

    axis: int | None = None
    angle: Expr | None = None

    def bind(self, system: System) -> None:  # noqa: B027 - optional hook, most rotations override it
        """Convert user expressions with the system's symbol table."""

    @abstractmethod
    def matrix(self) -> Matrix3:
        """Components in the parent base of the child base's unit vectors (columns)."""

    @abstractmethod
    def omega(self, system: System) -> tuple[Expr, Expr, Expr]:
        """Angular velocity of the child base relative to the parent, components in the child base."""

    def extra_constraints(self, base: Base) -> list[tuple[str, Expr]]:
        """Constraint rows the parametrization needs (e.g. the Euler-parameter norm)."""
        return []


class AxisRotation(Rotation):
    """Rotation by ``angle`` about a coordinate axis (``"x"``, ``"y"``, ``"z"``) of the parent.

    Example:
        >>> import symbody as sb
        >>> sb.Rx(0.3).axis
        0
    """

    def __init__(self, axis: Any, angle: Any):
        self.axis = axis_index(axis)
        self._angle = angle

    def bind(self, system: System) -> None:
        self.angle = system._expr(self._angle, "rotation angle")

    def matrix(self) -> Matrix3:
        return elementary_matrix(self.axis, cos(self.angle), sin(self.angle))  # type: ignore[arg-type]

    def omega(self, system: System) -> tuple[Expr, Expr, Expr]:
        w = time_derivative(self.angle, system.ctx)  # type: ignore[arg-type]
        comps = [ZERO, ZERO, ZERO]
        comps[self.axis] = w  # type: ignore[index]
        return tuple(comps)  # type: ignore[return-value]


def Rx(angle: Any) -> AxisRotation:
    """Elementary rotation about the parent's x axis.

    Example:
        >>> Rx(0.5).axis
        0
    """
    return AxisRotation("x", angle)


def Ry(angle: Any) -> AxisRotation:
    """Elementary rotation about the parent's y axis.

    Example:
        >>> Ry(0.5).axis
        1
    """
    return AxisRotation("y", angle)


def Rz(angle: Any) -> AxisRotation:
    """Elementary rotation about the parent's z axis.

    Example:
        >>> Rz(0.5).axis
        2
    """
    return AxisRotation("z", angle)


class AxisAngle(Rotation):
    """Rotation by ``angle`` about a constant unit ``axis`` given in the parent base (Rodrigues).

    The axis must be a unit vector of numbers or parameters; it is the same in
    both bases, so the relative angular velocity is ``dangle/dt * axis``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("aa")
        >>> th = s.coordinate("th")
        >>> B = s.base("B", s.ground_base, sb.AxisAngle((0.6, 0, 0.8), th))
        >>> s.angular_velocity(B).components(B)
        (0.6*dth, 0, 0.8*dth)
    """

    def __init__(self, axis: Sequence[Any], angle: Any):
        if len(axis) != 3:
            raise ModelError("AxisAngle needs a 3-component axis")
        self._axis = axis
        self._angle = angle
        nonzero = [i for i, a in enumerate(axis) if not (isinstance(a, (int, float)) and a == 0)]
        if len(nonzero) == 1 and isinstance(axis[nonzero[0]], (int, float)) and axis[nonzero[0]] > 0:
            self.axis = nonzero[0]

    def bind(self, system: System) -> None:
        self.angle = system._expr(self._angle, "rotation angle")
        self.u = tuple(system._expr(a, "rotation axis") for a in self._axis)
        for a in self.u:
            if a.mask & system._state_mask():
                raise ModelError("the axis of an AxisAngle rotation must be constant")
        vals = [system._default_value(a) for a in self.u]
        n2 = sum(v * v for v in vals)
        if abs(n2 - 1.0) > 1e-9:
            raise ModelError(f"the axis of an AxisAngle rotation must be a unit vector (norm^2 = {n2:g})")

    def matrix(self) -> Matrix3:
        if self.axis is not None:
            return elementary_matrix(self.axis, cos(self.angle), sin(self.angle))
        c = cos(self.angle)
        s = sin(self.angle)
        one_c = sub(ONE, c)
        u = self.u
        rows = []
        skew = ((ZERO, neg(u[2]), u[1]), (u[2], ZERO, neg(u[0])), (neg(u[1]), u[0], ZERO))
        for i in range(3):
            row = []
            for j in range(3):
                e = add(mul(one_c, mul(u[i], u[j])), mul(s, skew[i][j]))
                if i == j:
                    e = add(c, e)
                row.append(e)
            rows.append(tuple(row))
        return tuple(rows)  # type: ignore[return-value]

    def omega(self, system: System) -> tuple[Expr, Expr, Expr]:
        w = time_derivative(self.angle, system.ctx)  # type: ignore[arg-type]
        return tuple(mul(w, a) for a in self.u)  # type: ignore[return-value]


class EulerParameters(Rotation):
    """Rotation by Euler parameters (unit quaternion) ``e0, e1, e2, e3``.

    ``R = (e0^2 - e.e) I + 2 e e^T + 2 e0 [e~]`` and the angular velocity in the
    child base is ``2 G dot(e)``.  The unit-norm constraint is added to the
    system automatically as ``<base>_norm``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ep")
        >>> e = [s.coordinate(f"e{i}", 1.0 if i == 0 else 0.0) for i in range(4)]
        >>> B = s.base("B", s.ground_base, sb.EulerParameters(*e))
        >>> [r.name for r in s.constraints]
        ['B_norm']
    """

    def __init__(self, e0: Any, e1: Any, e2: Any, e3: Any, add_norm_constraint: bool = True):
        self._e = (e0, e1, e2, e3)
        self.add_norm_constraint = add_norm_constraint

    def bind(self, system: System) -> None:
        self.e = tuple(system._expr(a, "Euler parameter") for a in self._e)

    def matrix(self) -> Matrix3:
        e0, e1, e2, e3 = self.e
        two = 2

        def m(a, b):
            return mul(a, b)

        r00 = add(add(m(e0, e0), m(e1, e1)), neg(add(m(e2, e2), m(e3, e3))))
        r11 = add(add(m(e0, e0), m(e2, e2)), neg(add(m(e1, e1), m(e3, e3))))
        r22 = add(add(m(e0, e0), m(e3, e3)), neg(add(m(e1, e1), m(e2, e2))))
        r01 = mul(as_expr(two), sub(m(e1, e2), m(e0, e3)))
        r10 = mul(as_expr(two), add(m(e1, e2), m(e0, e3)))
        r02 = mul(as_expr(two), add(m(e1, e3), m(e0, e2)))
        r20 = mul(as_expr(two), sub(m(e1, e3), m(e0, e2)))
        r12 = mul(as_expr(two), sub(m(e2, e3), m(e0, e1)))
        r21 = mul(as_expr(two), add(m(e2, e3), m(e0, e1)))
        return ((r00, r01, r02), (r10, r11, r12), (r20, r21, r22))

    def omega(self, system: System) -> tuple[Expr, Expr, Expr]:
        e0, e1, e2, e3 = self.e
        d0, d1, d2, d3 = (time_derivative(a, system.ctx) for a in self.e)
        two = as_expr(2)
        # body angular velocity: 2 * G(e) * de, G = [[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]]
        wx = add(add(neg(mul(e1, d0)), mul(e0, d1)), sub(mul(e3, d2), mul(e2, d3)))
        wy = add(add(neg(mul(e2, d0)), neg(mul(e3, d1))), add(mul(e0, d2), mul(e1, d3)))
        wz = add(add(neg(mul(e3, d0)), mul(e2, d1)), sub(mul(e0, d3), mul(e1, d2)))
        return (mul(two, wx), mul(two, wy), mul(two, wz))

    def extra_constraints(self, base: Base) -> list[tuple[str, Expr]]:
        if not self.add_norm_constraint:
            return []
        e0, e1, e2, e3 = self.e
        n = add(add(mul(e0, e0), mul(e1, e1)), add(mul(e2, e2), mul(e3, e3)))
        return [(f"{base.name}_norm", sub(n, ONE))]


class SmallRotation(Rotation):
    """Small (differential) rotation ``R = I + [a~]`` with angular velocity ``da/dt``.

    Positions become linear in the angles; the matrix is not orthonormal, so
    results are first-order accurate in the angles (3D_MEC ``new_or`` type 3).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("sr")
        >>> a = s.coordinate("a")
        >>> B = s.base("B", s.ground_base, sb.SmallRotation(0, 0, a))
        >>> B.R[0]
        (1, -a, 0)
    """

    def __init__(self, ax: Any, ay: Any, az: Any):
        self._a = (ax, ay, az)

    def bind(self, system: System) -> None:
        self.a = tuple(system._expr(v, "small rotation") for v in self._a)

    def matrix(self) -> Matrix3:
        ax, ay, az = self.a
        return ((ONE, neg(az), ay), (az, ONE, neg(ax)), (neg(ay), ax, ONE))

    def omega(self, system: System) -> tuple[Expr, Expr, Expr]:
        return tuple(time_derivative(v, system.ctx) for v in self.a)  # type: ignore[return-value]


class RotationMatrix(Rotation):
    """A general rotation matrix (child components -> parent components).

    The angular velocity is computed as ``vect(R^T dR/dt)``.  The matrix is
    checked to be orthonormal at the default parameter values and initial
    coordinates.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("rm")
        >>> B = s.base("B", s.ground_base, sb.RotationMatrix([[0, -1, 0], [1, 0, 0], [0, 0, 1]]))
        >>> sb.Vector(B, 1, 0, 0).components(s.ground_base)
        (0, 1, 0)
    """

    def __init__(self, matrix: Sequence[Sequence[Any]]):
        if len(matrix) != 3 or any(len(r) != 3 for r in matrix):
            raise ModelError("RotationMatrix needs a 3x3 matrix")
        self._R = matrix

    def bind(self, system: System) -> None:
        self.R = tuple(tuple(system._expr(v, "rotation matrix") for v in row) for row in self._R)
        import numpy as np

        vals = np.array([[system._default_value(v) for v in row] for row in self.R])
        if not np.allclose(vals.T @ vals, np.eye(3), atol=1e-8) or np.linalg.det(vals) < 0:
            raise ModelError("RotationMatrix is not a proper orthonormal matrix at the initial configuration")

    def matrix(self) -> Matrix3:
        return self.R  # type: ignore[return-value]

    def omega(self, system: System) -> tuple[Expr, Expr, Expr]:
        R = self.R
        dR = tuple(tuple(time_derivative(v, system.ctx) for v in row) for row in R)
        W = matmul(transpose(R), dR)  # type: ignore[arg-type]
        return (W[2][1], W[0][2], W[1][0])


class EulerAngles:
    """A sequence of elementary rotations (intrinsic), e.g. ``EulerAngles("zyx", (psi, theta, phi))``.

    Passed to :meth:`System.base`, it creates the intermediate bases
    ``<name>_1``, ``<name>_2`` and returns the final one.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("ea")
        >>> psi, th, phi = s.coordinate("psi"), s.coordinate("th"), s.coordinate("phi")
        >>> B = s.base("B", s.ground_base, sb.EulerAngles("zyx", (psi, th, phi)))
        >>> [b.name for b in B.ancestors()]
        ['B', 'B_2', 'B_1', 'xyz']
    """

    def __init__(self, sequence: str, angles: Sequence[Any]):
        if len(sequence) != len(angles) or not sequence:
            raise ModelError("EulerAngles: the sequence and the angles must have the same length")
        self.sequence = [axis_index(a) for a in sequence]
        self.angles = list(angles)


class Base:
    """An orthonormal base (orientation), node of the base tree.

    Created with :meth:`symbody.System.base`; ``parent`` is ``None`` only for
    the ground base.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("bs")
        >>> th = s.coordinate("th")
        >>> B = s.base("B", s.ground_base, sb.Rx(th))
        >>> B.unit("y").components(s.ground_base)
        (0, cos(th), sin(th))
    """

    def __init__(self, system: System, name: str, parent: Base | None, rotation: Rotation | None):
        self.system = system
        self.name = name
        self.parent = parent
        self.rotation = rotation
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.index = len(system.bases)
        self.children: list[Base] = []
        if parent is not None:
            parent.children.append(self)
        self._R: Matrix3 | None = None
        self._omega_rel: tuple[Expr, Expr, Expr] | None = None

    def __repr__(self) -> str:
        return f"Base({self.name!r})"

    @property
    def R(self) -> Matrix3:
        """Matrix mapping components in this base to components in the parent base."""
        if self._R is None:
            self._R = self.rotation.matrix()  # type: ignore[union-attr]
        return self._R

    @property
    def omega_rel(self) -> tuple[Expr, Expr, Expr]:
        """Angular velocity relative to the parent, components in this base."""
        if self._omega_rel is None:
            self._omega_rel = self.rotation.omega(self.system)  # type: ignore[union-attr]
        return self._omega_rel

    def ancestors(self) -> list[Base]:
        """This base and its ancestors up to the ground base."""
        out = []
        b: Base | None = self
        while b is not None:
            out.append(b)
            b = b.parent
        return out

    def vector(self, x: Any = 0, y: Any = 0, z: Any = 0):
        """A vector with the given components in this base."""
        from .vector import Vector

        return Vector(self, x, y, z)

    def unit(self, axis: Any):
        """Unit vector along ``axis`` of this base."""
        i = axis_index(axis)
        comps = [0, 0, 0]
        comps[i] = 1
        return self.vector(*comps)
