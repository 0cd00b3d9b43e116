"""Kinematic operators on the base and point trees (Plaza Puértolas, 2015, ch. 4 and 5).

Vectors are *extended vectors* (Plaza Puértolas, 2015, §5.2): a sum of parts, each part
holding the components that are naturally expressed in one base.  Sums never
change basis; a change of basis happens only inside a scalar or cross product
of two parts, and then only the cheaper operand is rotated, using a rotation
in which consecutive rotations about the same axis are merged into one angle
(§5.9).  Parts that do not change under the rotation to the parent base
(e.g. ``(0, w, 0)`` below a rotation about ``y``) are moved down the tree
(§5.7).  This is how trigonometrically simplifiable expressions are avoided
rather than simplified afterwards: ``|r_OA + r_AB|^2`` comes out as
``l1^2 + 2 l1 l2 cos(th2) + l2^2``.

All results are memoized per system, so the kinematics of a point or base is
derived once and its atoms are shared by every later use.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..symbolic.calculus import time_derivative
from ..symbolic.expr import ZERO, Expr, add, cos, mul, neg, num, sin, sub

if TYPE_CHECKING:
    from .base import Base, Rotation
    from .geometry import Point
    from .system import System
    from .vector import Vector

Comps = tuple[Expr, Expr, Expr]
Step = tuple[Any, ...]  # ("e", axis, angle) or ("m", matrix)


def _nz(c: Comps) -> int:
    return (c[0].op != 1 or c[0].value != 0) + (c[1].op != 1 or c[1].value != 0) + (c[2].op != 1 or c[2].value != 0)


def _is_zero3(c: Comps) -> bool:
    return c[0] is ZERO and c[1] is ZERO and c[2] is ZERO


def _elementary_apply(axis: int, c: Expr, s: Expr, v: Comps) -> Comps:
    """Rotate components ``v`` by the elementary rotation (cos ``c``, sin ``s``) about ``axis``."""
    i, j = (axis + 1) % 3, (axis + 2) % 3
    vi, vj = v[i], v[j]
    out = [ZERO, ZERO, ZERO]
    out[axis] = v[axis]
    out[i] = sub(mul(c, vi), mul(s, vj))
    out[j] = add(mul(s, vi), mul(c, vj))
    return tuple(out)  # type: ignore[return-value]


def _matvec(R, v: Comps) -> Comps:
    return tuple(add(add(mul(R[i][0], v[0]), mul(R[i][1], v[1])), mul(R[i][2], v[2])) for i in range(3))  # type: ignore[return-value]


def _dot3(a: Comps, b: Comps) -> Expr:
    return add(add(mul(a[0], b[0]), mul(a[1], b[1])), mul(a[2], b[2]))


def _cross3(a: Comps, b: Comps) -> Comps:
    return (
        sub(mul(a[1], b[2]), mul(a[2], b[1])),
        sub(mul(a[2], b[0]), mul(a[0], b[2])),
        sub(mul(a[0], b[1]), mul(a[1], b[0])),
    )


def _to_parent(base: Base) -> tuple[Rotation, Base]:
    """The rotation of ``base`` from its parent, and the parent (``base`` is not the ground)."""
    rot, parent = base.rotation, base.parent
    if rot is None or parent is None:
        raise ValueError(f"the ground base {base.name!r} has no parent")
    return rot, parent


def tree_lca(a, b):
    """Deepest common ancestor of two nodes of a tree (objects with ``depth`` and ``parent``)."""
    while a.depth > b.depth:
        a = a.parent
    while b.depth > a.depth:
        b = b.parent
    while a is not b:
        a = a.parent
        b = b.parent
    return a


class Kinematics:
    """Per-system kinematic engine with memoized operators."""

    def __init__(self, system: System):
        self.system = system
        self.ctx = system.ctx
        self._steps: dict = {}
        self._rot: dict = {}
        self._rotv: dict = {}
        self._dot: dict = {}
        self._cross: dict = {}
        self._omega: dict = {}
        self._alpha0: dict = {}
        self._pos: dict = {}
        self._vel: dict = {}
        self._acc0: dict = {}
        self._dtpart: dict = {}
        self._related: dict = {}

    # ------------------------------------------------------------------
    # base tree
    # ------------------------------------------------------------------
    @staticmethod
    def lca(A: Base, B: Base) -> Base:
        """Deepest common ancestor of two bases."""
        return tree_lca(A, B)

    def steps(self, A: Base, B: Base) -> list[Step]:
        """Rotation steps taking components in ``A`` to components in ``B``.

        Each step is ``("e", axis, angle)`` (elementary) or ``("m", matrix)``;
        consecutive elementary steps about the same axis are merged.
        """
        key = (A, B)
        st = self._steps.get(key)
        if st is not None:
            return st
        L = self.lca(A, B)
        raw: list[Step] = []
        X = A
        while X is not L:
            rot, parent = _to_parent(X)
            if rot.axis is not None and rot.angle is not None:
                raw.append(("e", rot.axis, rot.angle))
            else:
                raw.append(("m", X.R))
            X = parent
        down: list[Step] = []
        Y = B
        while Y is not L:
            rot, parent = _to_parent(Y)
            if rot.axis is not None and rot.angle is not None:
                down.append(("e", rot.axis, neg(rot.angle)))
            else:
                R = Y.R
                down.append(("m", tuple(tuple(R[j][i] for j in range(3)) for i in range(3))))
            Y = parent
        raw.extend(reversed(down))
        st = []
        for s in raw:
            if st and s[0] == "e" and st[-1][0] == "e" and st[-1][1] == s[1]:
                ang = add(st[-1][2], s[2])
                st.pop()
                if not ang.is_zero:
                    st.append(("e", s[1], ang))
            else:
                st.append(s)
        self._steps[key] = st
        return st

    def rotation(self, A: Base, B: Base):
        """3x3 matrix mapping components in ``A`` to components in ``B``."""
        key = (A, B)
        R = self._rot.get(key)
        if R is not None:
            return R
        from .base import elementary_matrix, matmul

        one = tuple(tuple((1 if i == j else 0) for j in range(3)) for i in range(3))
        R = tuple(tuple(num(v) for v in row) for row in one)
        for s in self.steps(A, B):
            M = elementary_matrix(s[1], cos(s[2]), sin(s[2])) if s[0] == "e" else s[1]
            R = matmul(M, R)
        self._rot[key] = R
        return R

    def rotate(self, comps: Comps, A: Base, B: Base) -> Comps:
        """Components in ``B`` of the vector with components ``comps`` in ``A``."""
        if A is B:
            return comps
        key = (comps, A, B)
        r = self._rotv.get(key)
        if r is not None:
            return r
        st = self.steps(A, B)
        if not st:
            r = comps
        elif len(st) == 1:
            s = st[0]
            r = _elementary_apply(s[1], cos(s[2]), sin(s[2]), comps) if s[0] == "e" else _matvec(s[1], comps)
        else:
            r = _matvec(self.rotation(A, B), comps)
        self._rotv[key] = r
        return r

    @staticmethod
    def settle(base: Base, comps: Comps) -> Base:
        """Lowest ancestor base in which ``comps`` keep the same values (§5.7)."""
        while base.parent is not None:
            ax = None if base.rotation is None else base.rotation.axis
            if ax is None:
                break
            if (
                (ax != 0 and comps[0] is not ZERO)
                or (ax != 1 and comps[1] is not ZERO)
                or (ax != 2 and comps[2] is not ZERO)
            ):
                break
            base = base.parent
        return base

    def planar_related(self, A: Base, B: Base) -> bool:
        """True if the rotation between ``A`` and ``B`` is one (merged) elementary rotation or none."""
        if A is B:
            return True
        key = (A, B)
        r = self._related.get(key)
        if r is None:
            st = self.steps(A, B)
            r = len(st) == 0 or (len(st) == 1 and st[0][0] == "e")
            self._related[key] = self._related[(B, A)] = r
        return r

    def add_part(self, parts: dict, base: Base, comps: Comps) -> None:
        """Accumulate a part into an extended-vector part dictionary (in place).

        Parts stay separate only while their bases are related by rotations about
        one axis (§5.2: that is where separate parts avoid trigonometrically
        simplifiable expressions); otherwise the part lower in the tree is rotated
        into the base of the other ("gravity UP"), so that 3-D chains keep one part
        per vector, in the body base, as a recursive formulation would.
        """
        if _is_zero3(comps):
            return
        base = self.settle(base, comps)
        while True:
            old = parts.get(base)
            if old is not None:
                comps = (add(old[0], comps[0]), add(old[1], comps[1]), add(old[2], comps[2]))
                del parts[base]
                if _is_zero3(comps):
                    return
                base = self.settle(base, comps)
                continue
            other = None
            for A in parts:
                if not self.planar_related(A, base):
                    other = A
                    break
            if other is None:
                parts[base] = comps
                return
            oc = parts.pop(other)
            if (other.depth, other.index) > (base.depth, base.index):
                comps = self.rotate(comps, base, other)
                base = other
                comps = (add(oc[0], comps[0]), add(oc[1], comps[1]), add(oc[2], comps[2]))
            else:
                oc = self.rotate(oc, other, base)
                comps = (add(oc[0], comps[0]), add(oc[1], comps[1]), add(oc[2], comps[2]))
            if _is_zero3(comps):
                return
            base = self.settle(base, comps)

    # ------------------------------------------------------------------
    # products of parts
    # ------------------------------------------------------------------
    def _pick(self, A: Base, a: Comps, B: Base, b: Comps) -> bool:
        """True if ``a`` should be rotated into ``B`` (else ``b`` into ``A``)."""
        na, nb = _nz(a), _nz(b)
        if na != nb:
            return na < nb
        if A.depth != B.depth:
            return A.depth < B.depth  # rotate the operand lower in the tree up ("gravity UP")
        return A.index < B.index

    def dot_part(self, A: Base, a: Comps, B: Base, b: Comps) -> Expr:
        """Scalar product of part ``a`` (in ``A``) and part ``b`` (in ``B``)."""
        key = (A, a, B, b)
        r = self._dot.get(key)
        if r is not None:
            return r
        if A is B:
            r = _dot3(a, b)
            self._dot[key] = r
            return r
        if self._pick(A, a, B, b):
            r = _dot3(self.rotate(a, A, B), b)
        else:
            r = _dot3(a, self.rotate(b, B, A))
        self._dot[key] = r
        return r

    def cross_part(self, A: Base, a: Comps, B: Base, b: Comps) -> tuple[Base, Comps]:
        """Cross product of part ``a`` (in ``A``) with part ``b`` (in ``B``): (base, comps)."""
        key = (A, a, B, b)
        r = self._cross.get(key)
        if r is not None:
            return r
        if A is B:
            r = (A, _cross3(a, b))
        elif self._pick(A, a, B, b):
            r = (B, _cross3(self.rotate(a, A, B), b))
        else:
            r = (A, _cross3(a, self.rotate(b, B, A)))
        self._cross[key] = r
        return r

    def triple(self, w: Vector, r: Vector) -> Vector:
        """``w x (w x r)`` by Lagrange's formula ``w (w.r) - r (w.w)`` (Plaza Puértolas, 2015, eq. 5.14).

        ``w.w`` is one shared atom (e.g. ``(dth1 + dth2)**2``) and ``w.r`` often vanishes.
        """
        ww = w.dot(w)
        wr = w.dot(r)
        parts: dict = {}
        if not wr.is_zero:
            for b, c in w.parts.items():
                self.add_part(parts, b, (mul(wr, c[0]), mul(wr, c[1]), mul(wr, c[2])))
        if not ww.is_zero:
            for b, c in r.parts.items():
                self.add_part(parts, b, (neg(mul(ww, c[0])), neg(mul(ww, c[1])), neg(mul(ww, c[2]))))
        return self.vector(parts)

    # ------------------------------------------------------------------
    # vector calculus
    # ------------------------------------------------------------------
    def vector(self, parts: dict) -> Vector:
        from .vector import Vector

        return Vector._from_parts(self, parts)

    def dt_part(self, base: Base, comps: Comps, accelerations: bool) -> dict:
        """Time derivative (ground frame) of one part, as a part dictionary."""
        key = (base, comps, accelerations)
        r = self._dtpart.get(key)
        if r is not None:
            return r
        ctx = self.ctx
        parts: dict = {}
        self.add_part(parts, base, tuple(time_derivative(c, ctx, accelerations) for c in comps))  # type: ignore[arg-type]
        w = self.omega(base)
        for B, wc in w.parts.items():
            cb, cc = self.cross_part(B, wc, base, comps)
            self.add_part(parts, cb, cc)
        self._dtpart[key] = parts
        return parts

    def dt(self, v: Vector, accelerations: bool = True) -> Vector:
        """Time derivative of a vector in the ground frame."""
        parts: dict = {}
        for base, comps in v.parts.items():
            for b, c in self.dt_part(base, comps, accelerations).items():
                self.add_part(parts, b, c)
        return self.vector(parts)

    # ------------------------------------------------------------------
    # absolute kinematics of bases and points
    # ------------------------------------------------------------------
    def omega(self, base: Base) -> Vector:
        """Angular velocity of ``base`` relative to the ground."""
        w = self._omega.get(base)
        if w is not None:
            return w
        if base.parent is None:
            w = self.vector({})
        else:
            parts = dict(self.omega(base.parent).parts)
            self.add_part(parts, base, base.omega_rel)
            w = self.vector(parts)
        self._omega[base] = w
        return w

    def alpha0(self, base: Base) -> Vector:
        """Angular acceleration of ``base`` with the generalized accelerations set to zero."""
        a = self._alpha0.get(base)
        if a is None:
            a = self._alpha0[base] = self.dt(self.omega(base), accelerations=False)
        return a

    def alpha(self, base: Base) -> Vector:
        """Angular acceleration of ``base`` relative to the ground (with accelerations)."""
        return self.dt(self.omega(base), accelerations=True)

    def position(self, point: Point) -> Vector:
        """Position vector of ``point`` from the origin."""
        r = self._pos.get(point)
        if r is not None:
            return r
        if point.parent is None or point.vector is None:
            r = self.vector({})
        else:
            parts = dict(self.position(point.parent).parts)
            for b, c in point.vector.parts.items():
                self.add_part(parts, b, c)
            r = self.vector(parts)
        self._pos[point] = r
        return r

    def velocity(self, point: Point) -> Vector:
        """Velocity of ``point`` relative to the ground."""
        v = self._vel.get(point)
        if v is not None:
            return v
        if point.parent is None or point.vector is None:
            v = self.vector({})
        else:
            parts = dict(self.velocity(point.parent).parts)
            for b, c in point.vector.parts.items():
                for b2, c2 in self.dt_part(b, c, False).items():
                    self.add_part(parts, b2, c2)
            v = self.vector(parts)
        self._vel[point] = v
        return v

    def acceleration0(self, point: Point) -> Vector:
        """Acceleration of ``point`` with the generalized accelerations set to zero."""
        a = self._acc0.get(point)
        if a is not None:
            return a
        if point.parent is None or point.vector is None:
            a = self.vector({})
        else:
            parts = dict(self.acceleration0(point.parent).parts)
            own = self.dt(point.vector, accelerations=False)
            for b, c in own.parts.items():
                for b2, c2 in self.dt_part(b, c, False).items():
                    self.add_part(parts, b2, c2)
            a = self.vector(parts)
        self._acc0[point] = a
        return a

    def acceleration(self, point: Point) -> Vector:
        """Acceleration of ``point`` relative to the ground (with accelerations)."""
        return self.dt(self.velocity(point), accelerations=True)


def vector_sum(kin: Kinematics, vectors: Iterable[Vector]) -> Vector:
    """Sum of extended vectors."""
    parts: dict = {}
    for v in vectors:
        for b, c in v.parts.items():
            kin.add_part(parts, b, c)
    return kin.vector(parts)
