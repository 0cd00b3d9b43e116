"""Vectors and tensors that carry their base.

A :class:`Vector` is an *extended vector*: a sum of parts, each with its
components in one base.  Adding vectors never changes basis; scalar and cross
products rotate one part into the base of the other only where needed.  Use
:meth:`Vector.components` to get the three components in any base.

Example:
    >>> import symbody as sb
    >>> s = sb.System("v")
    >>> th = s.coordinate("th"); l = s.parameter("l", 1.0)
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> u = sb.Vector(B, l, 0, 0)
    >>> u.dot(u)
    l**2
    >>> [str(c) for c in u.components(s.ground_base)]
    ['l*cos(th)', 'l*sin(th)', '0']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.expr import ZERO, Expr, add, as_expr, div, mul, neg, pow_, sqrt
from .kinematics import Comps, Kinematics, _dot3, _matvec

if TYPE_CHECKING:
    from .base import Base


def _kin_of(*objs: Any) -> Kinematics | None:
    for o in objs:
        if isinstance(o, (Vector, Tensor)) and o._kin is not None:
            return o._kin
    return None


class Vector:
    """A 3-D vector stored as parts, each part in its natural base.

    Args:
        base: the base of the components.
        x, y, z: components (numbers, symbody or SymPy expressions).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("vec")
        >>> th = s.coordinate("th")
        >>> B = s.base("B", s.ground_base, sb.Rz(th))
        >>> u = sb.Vector(B, 1, 0, 0)
        >>> u.components(s.ground_base), u.dot(sb.Vector(s.ground_base, 1, 0, 0))
        ((cos(th), sin(th), 0), cos(th))
    """

    __slots__ = ("parts", "_kin")
    parts: dict[Base, Comps]
    _kin: Kinematics | None

    def __init__(self, base: Base, x: Any = 0, y: Any = 0, z: Any = 0):
        from .base import Base

        if not isinstance(base, Base):
            raise ModelError(f"Vector: the first argument must be a Base (e.g. s.ground_base), got {base!r}")
        system = base.system
        self._kin = system.kinematics
        self.parts = {}
        comps = (
            system._expr(x, "vector component"),
            system._expr(y, "vector component"),
            system._expr(z, "vector component"),
        )
        system.kinematics.add_part(self.parts, base, comps)

    @classmethod
    def _from_parts(cls, kin: Kinematics | None, parts: dict) -> Vector:
        v = object.__new__(cls)
        v._kin = kin
        v.parts = parts
        return v

    @classmethod
    def zero(cls, kin: Kinematics | None = None) -> Vector:
        """The zero vector."""
        return cls._from_parts(kin, {})

    # -- algebra -------------------------------------------------------------
    def _combine(self, other: Vector, sign: int) -> Vector:
        if isinstance(other, (int, float)) and other == 0:
            return self
        if not isinstance(other, Vector):
            return NotImplemented
        kin = _kin_of(self, other)
        if self._kin is not None and other._kin is not None and self._kin is not other._kin:
            raise ModelError("cannot combine vectors of different systems")
        parts = dict(self.parts)
        for b, c in other.parts.items():
            if sign < 0:
                c = (neg(c[0]), neg(c[1]), neg(c[2]))
            kin.add_part(parts, b, c)  # type: ignore[union-attr]
        return Vector._from_parts(kin, parts)

    def __add__(self, other: Vector) -> Vector:
        return self._combine(other, 1)

    def __radd__(self, other: Any) -> Vector:
        return self._combine(other, 1)

    def __sub__(self, other: Vector) -> Vector:
        return self._combine(other, -1)

    def __rsub__(self, other: Any) -> Vector:
        return (-self)._combine(other, 1)

    def __neg__(self) -> Vector:
        return Vector._from_parts(self._kin, {b: (neg(c[0]), neg(c[1]), neg(c[2])) for b, c in self.parts.items()})

    def __mul__(self, k: Any) -> Vector:
        if isinstance(k, (Vector, Tensor)):
            return NotImplemented
        k = as_expr(k, self._kin.ctx if self._kin else None)
        if k.is_zero:
            return Vector.zero(self._kin)
        return Vector._from_parts(
            self._kin, {b: (mul(k, c[0]), mul(k, c[1]), mul(k, c[2])) for b, c in self.parts.items()}
        )

    __rmul__ = __mul__

    def __truediv__(self, k: Any) -> Vector:
        k = as_expr(k, self._kin.ctx if self._kin else None)
        return Vector._from_parts(
            self._kin, {b: (div(c[0], k), div(c[1], k), div(c[2], k)) for b, c in self.parts.items()}
        )

    def dot_terms(self, other: Vector) -> list[Expr]:
        """The scalar products of every pair of parts (their sum is :meth:`dot`)."""
        kin = _kin_of(self, other)
        out = []
        for A, a in self.parts.items():
            for B, b in other.parts.items():
                t = kin.dot_part(A, a, B, b)  # type: ignore[union-attr]
                if t is not ZERO:
                    out.append(t)
        return out

    def dot(self, other: Vector) -> Expr:
        """Scalar product."""
        acc = ZERO
        for t in self.dot_terms(other):
            acc = add(acc, t)
        return acc

    def cross(self, other: Vector) -> Vector:
        """Cross product ``self x other``."""
        kin = _kin_of(self, other)
        parts: dict = {}
        for A, a in self.parts.items():
            for B, b in other.parts.items():
                base, c = kin.cross_part(A, a, B, b)  # type: ignore[union-attr]
                kin.add_part(parts, base, c)  # type: ignore[union-attr]
        return Vector._from_parts(kin, parts)

    def components(self, base: Base) -> tuple[Expr, Expr, Expr]:
        """The three components in ``base``."""
        x = y = z = ZERO
        kin = self._kin
        for B, c in self.parts.items():
            r = kin.rotate(c, B, base)  # type: ignore[union-attr]
            x, y, z = add(x, r[0]), add(y, r[1]), add(z, r[2])
        return (x, y, z)

    def express(self, base: Base) -> Vector:
        """The same vector with all parts collapsed into ``base``."""
        v = Vector._from_parts(self._kin, {})
        c = self.components(base)
        if any(e is not ZERO for e in c):
            v.parts[base] = c
        return v

    def norm2(self) -> Expr:
        """Squared magnitude."""
        return self.dot(self)

    def norm(self) -> Expr:
        """Magnitude."""
        return sqrt(self.norm2())

    def normalized(self) -> Vector:
        """Unit vector along this vector."""
        return self * pow_(self.norm2(), -0.5)

    @property
    def is_zero(self) -> bool:
        return not self.parts

    def dt(self, accelerations: bool = True) -> Vector:
        """Time derivative in the ground frame."""
        if self._kin is None:
            return self
        return self._kin.dt(self, accelerations)

    def _component_diff(self, symbol: Expr) -> Vector:
        """Derivative of the components (bases held fixed), e.g. partial velocities."""
        from ..symbolic.calculus import diff

        parts: dict = {}
        m = symbol.mask
        for B, c in self.parts.items():
            if (c[0].mask | c[1].mask | c[2].mask) & m:
                self._kin.add_part(parts, B, (diff(c[0], symbol), diff(c[1], symbol), diff(c[2], symbol)))  # type: ignore[union-attr]
        return Vector._from_parts(self._kin, parts)

    def subs(self, mapping: dict, cache: dict | None = None) -> Vector:
        """Substitute symbols in every component (``cache``: a memo shared by calls with the same ``mapping``)."""
        from ..symbolic.calculus import subs

        parts: dict = {}
        for B, c in self.parts.items():
            self._kin.add_part(parts, B, tuple(subs(x, mapping, cache) for x in c))  # type: ignore[union-attr,arg-type]
        return Vector._from_parts(self._kin, parts)

    @property
    def mask(self) -> int:
        m = 0
        for c in self.parts.values():
            m |= c[0].mask | c[1].mask | c[2].mask
        return m

    def __repr__(self) -> str:
        if not self.parts:
            return "Vector(0)"
        return " + ".join(f"[{c[0]}, {c[1]}, {c[2]}]_{b.name}" for b, c in self.parts.items())


def dot(u: Vector, v: Vector) -> Expr:
    """Scalar product of two vectors.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("dot")
        >>> th = s.coordinate("th")
        >>> B = s.base("B", s.ground_base, sb.Rz(th))
        >>> dot(B.unit("x"), s.ground_base.unit("y"))
        sin(th)
    """
    return u.dot(v)


def cross(u: Vector, v: Vector) -> Vector:
    """Cross product of two vectors.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("cross")
        >>> cross(s.ground_base.unit("x"), s.ground_base.unit("y")).components(s.ground_base)
        (0, 0, 1)
    """
    return u.cross(v)


class Tensor:
    """A second-order Cartesian tensor with its components in one base.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("t")
        >>> I = sb.Tensor(s.ground_base, [[1, 0, 0], [0, 2, 0], [0, 0, 3]])
        >>> I @ s.ground_base.vector(0, 1, 0)
        [0, 2, 0]_xyz
    """

    __slots__ = ("base", "comps", "_kin")

    def __init__(self, base: Base, comps: Sequence[Sequence[Any]]):
        from .base import Base

        if not isinstance(base, Base):
            raise ModelError(f"Tensor: the first argument must be a Base (e.g. s.ground_base), got {base!r}")
        if len(comps) != 3 or any(len(r) != 3 for r in comps):
            raise ModelError("a tensor needs 3x3 components")
        system = base.system
        self.base = base
        self._kin = system.kinematics
        self.comps = tuple(tuple(system._expr(v, "tensor component") for v in row) for row in comps)

    @classmethod
    def _make(cls, base: Base, comps) -> Tensor:
        t = object.__new__(cls)
        t.base = base
        t._kin = base.system.kinematics
        t.comps = comps
        return t

    def __matmul__(self, v: Vector) -> Vector:
        """Tensor times vector: ``T @ v``."""
        if not isinstance(v, Vector):
            return NotImplemented
        acc = (ZERO, ZERO, ZERO)
        for B, c in v.parts.items():
            r = _matvec(self.comps, self._kin.rotate(c, B, self.base))
            acc = (add(acc[0], r[0]), add(acc[1], r[1]), add(acc[2], r[2]))
        parts: dict = {}
        self._kin.add_part(parts, self.base, acc)
        return Vector._from_parts(self._kin, parts)

    def dot(self, v: Vector) -> Vector:
        """Tensor times vector."""
        return self @ v

    def components(self, base: Base) -> tuple:
        """Components in another base: ``R T R^T``."""
        if base is self.base:
            return self.comps
        R = self._kin.rotation(self.base, base)
        from .base import as_matrix3, matmul, transpose

        return matmul(matmul(R, as_matrix3(self.comps)), transpose(R))

    def express(self, base: Base) -> Tensor:
        """The same tensor with components in ``base``."""
        return Tensor._make(base, self.components(base))

    def __add__(self, other: Tensor) -> Tensor:
        oc = other.components(self.base)
        return Tensor._make(
            self.base, tuple(tuple(add(self.comps[i][j], oc[i][j]) for j in range(3)) for i in range(3))
        )

    def __sub__(self, other: Tensor) -> Tensor:
        oc = other.components(self.base)
        return Tensor._make(
            self.base, tuple(tuple(add(self.comps[i][j], neg(oc[i][j])) for j in range(3)) for i in range(3))
        )

    def __mul__(self, k: Any) -> Tensor:
        k = as_expr(k, self._kin.ctx)
        return Tensor._make(self.base, tuple(tuple(mul(k, x) for x in row) for row in self.comps))

    __rmul__ = __mul__

    def __repr__(self) -> str:
        rows = "; ".join(", ".join(str(x) for x in row) for row in self.comps)
        return f"Tensor([{rows}]_{self.base.name})"


def skew(c: Comps) -> tuple:
    """Skew-symmetric matrix of a 3-tuple of components."""
    return ((ZERO, neg(c[2]), c[1]), (c[2], ZERO, neg(c[0])), (neg(c[1]), c[0], ZERO))


def steiner(I: tuple, m: Expr, d: Comps, sign: int = 1) -> tuple:
    """Parallel-axis term: ``I + sign * m (|d|^2 1 - d d^T)`` (components in one base)."""
    d2 = _dot3(d, d)
    out = []
    for i in range(3):
        row = []
        for j in range(3):
            t = neg(mul(d[i], d[j]))
            if i == j:
                t = add(d2, t)
            t = mul(m, t)
            row.append(add(I[i][j], t if sign > 0 else neg(t)))
        out.append(tuple(row))
    return tuple(out)


__all__ = ["Vector", "Tensor", "dot", "cross", "skew", "steiner"]
