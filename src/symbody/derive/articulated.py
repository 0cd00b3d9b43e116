"""Accelerations of a tree model by the articulated-body algorithm, as atoms: ``ddq = M^-1 delta`` in O(n).

For a tree of relative joints (:func:`symbody.derive.recursive.tree_of`) the mass matrix is
``M = sum_k J_k^T I_k J_k`` with each body's twist the parent's, carried to the body's point, plus
``S_k dq_k`` (its joint's motion subspace).  The articulated-body algorithm (Featherstone, "Rigid Body
Dynamics Algorithms", Springer, 2008, ch. 7) solves ``M ddq = tau`` for any ``tau`` in two passes
over the tree without forming ``M``.  Here ``tau`` is the model's ``delta`` (bias forces of the
Newton-Euler recursion, gravity and every load), so the algorithm runs at zero velocity and zero
gravity (sec. 7.3 with ``v = 0``, ``c = 0``, ``p = 0``):

* from the leaves: the articulated inertia ``IA`` of every body at its point, in its base (its own
  spatial inertia plus its children's, projected through their joints), ``U = IA S``,
  ``D = S^T U`` (one symmetric block of the joint's size, factored ``L diag(d) L^T`` in atoms),
  ``u = tau - S^T pA``, and what passes to the parent:
  ``Ia = IA - U D^-1 U^T``, ``pa = pA + U D^-1 u``;
* from the root: ``a' = X a_parent``, ``ddq = D^-1 (u - U^T a')``, ``a = a' + S ddq``.

A spatial inertia at a point is three 3x3 blocks in the body's base: the moment ``n`` and force
``f`` of a twist ``(w, v)`` are ``n = A w + B v``, ``f = B^T w + C v`` (a solid: ``A`` its inertia at
the point, ``B = [h x]`` with ``h`` its first moment, ``C = m E``).  The projected inertia
annihilates the joint's motion subspace (``Ia S = 0``): where that subspace holds every rotation
(a spherical joint at the body's point) or a base axis, the rows and columns it zeroes are set to
exact zeros, so that they fold away like the constant zeros of axes, inertias and offsets.

The pivots ``d`` (one per coordinate) are returned with the accelerations: the result is
``M^-1 delta`` whenever none vanishes, and they are all positive exactly when ``M`` is positive
definite (a joint at a singular configuration, a massless subtree or a negative inertia gives a
pivot that is not), which the FMU runtime checks before it uses the accelerations.

Example:
    >>> import symbody as sb
    >>> from symbody.derive.recursive import tree_of, assemble_recursive
    >>> s = sb.System("pend")
    >>> th = s.coordinate("th"); m = s.parameter("m", 1.0); l = s.parameter("l", 1.0)
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> bar = s.solid("bar", s.origin, B, mass=m, com=(l, 0, 0), inertia=(0, 0, 0))
    >>> tree = tree_of(s)
    >>> M, delta = assemble_recursive(s, tree)
    >>> ddq, pivots, _ = articulated_accelerations(s, tree, delta)
    >>> pivots[0]
    m*l**2
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..model.kinematics import Comps, _cross3, _dot3
from ..symbolic.calculus import diff, directional_derivative
from ..symbolic.expr import ONE, ZERO, Expr, add, div, mul, neg, num, sub
from .recursive import TreeBody, _add3, _joint_mask, _matvec3, _Recursion, _rotate_sym, _scale3, _sub3
from .virtual_power import Assembler

if TYPE_CHECKING:
    from ..model.system import System

Mat3 = tuple[Comps, Comps, Comps]
Vec6 = tuple[Comps, Comps]  # (angular, linear)


def _transpose(X: Mat3) -> Mat3:
    return ((X[0][0], X[1][0], X[2][0]), (X[0][1], X[1][1], X[2][1]), (X[0][2], X[1][2], X[2][2]))


def _symmetric(upper: dict[tuple[int, int], Expr]) -> Mat3:
    """The symmetric matrix with the given entries ``(i, j)``, ``i <= j``."""
    return tuple(tuple(upper[(min(i, j), max(i, j))] for j in range(3)) for i in range(3))  # type: ignore[return-value]


def _add_mat(X: Mat3, Y: Mat3) -> Mat3:
    return tuple(_add3(X[i], Y[i]) for i in range(3))  # type: ignore[return-value]


def _cross_mat(r: Comps, X: Mat3) -> Mat3:
    """``[r x] X``: the cross product of ``r`` with every column of ``X``."""
    cols = [_cross3(r, (X[0][j], X[1][j], X[2][j])) for j in range(3)]
    return _transpose(tuple(cols))  # type: ignore[arg-type]


def _is_unit(v: Vec6) -> int | None:
    """Index 0..5 of the component of a 6-vector that is exactly one, all others exactly zero."""
    flat = [*v[0], *v[1]]
    ones = [k for k, x in enumerate(flat) if x.is_number and x.value == 1]
    if len(ones) == 1 and all(x.is_zero for k, x in enumerate(flat) if k != ones[0]):
        return ones[0]
    return None


@dataclass
class SpatialInertia:
    """Blocks ``A`` (angular, symmetric), ``B`` (angular rows, linear columns), ``C`` (linear, symmetric)."""

    A: Mat3
    B: Mat3
    C: Mat3

    def apply(self, s: Vec6) -> Vec6:
        """``(n, f)`` of the twist ``s = (w, v)``."""
        w, v = s
        n = _add3(_matvec3(self.A, w), _matvec3(self.B, v))
        f = _add3(_matvec3(_transpose(self.B), w), _matvec3(self.C, v))
        return n, f

    def __add__(self, other: SpatialInertia) -> SpatialInertia:
        return SpatialInertia(_add_mat(self.A, other.A), _add_mat(self.B, other.B), _add_mat(self.C, other.C))


def _dot6(a: Vec6, b: Vec6) -> Expr:
    return add(_dot3(a[0], b[0]), _dot3(a[1], b[1]))


def _axpy6(s: Expr, x: Vec6, y: Vec6) -> Vec6:
    """``y + s x``."""
    return _add3(y[0], _scale3(s, x[0])), _add3(y[1], _scale3(s, x[1]))


@dataclass
class _Joint:
    """A body's quantities of the backward pass, kept for the forward pass."""

    columns: list[tuple[int, Vec6]]
    W: list[Vec6] = field(default_factory=list)  # U L^-T
    L: dict[tuple[int, int], Expr] = field(default_factory=dict)
    inv: list[Expr] = field(default_factory=list)  # 1 / d
    y: list[Expr] = field(default_factory=list)  # L^-1 u

    def factor(self, Dm: dict[tuple[int, int], Expr], U: list[Vec6], u: list[Expr]) -> list[Expr]:
        """``D = L diag(d) L^T`` (``Dm``: its upper triangle), ``W = U L^-T``, ``y = L^-1 u``; returns ``d``."""
        piv: list[Expr] = []
        for k in range(len(U)):
            for j in range(k):
                e = Dm[(j, k)]
                for m in range(j):
                    e = sub(e, mul(mul(self.L[(k, m)], self.L[(j, m)]), piv[m]))
                self.L[(k, j)] = mul(e, self.inv[j])
            e = Dm[(k, k)]
            for j in range(k):
                e = sub(e, mul(mul(self.L[(k, j)], self.L[(k, j)]), piv[j]))
            piv.append(e)
            self.inv.append(div(ONE, e))
            w, yk = U[k], u[k]
            for j in range(k):
                w = _axpy6(neg(self.L[(k, j)]), self.W[j], w)
                yk = sub(yk, mul(self.L[(k, j)], self.y[j]))
            self.W.append(w)
            self.y.append(yk)
        return piv


class _Articulated:
    """The backward and forward passes of the articulated-body algorithm on a :class:`_Recursion`'s tree."""

    def __init__(self, system: System, order: list[TreeBody], tau: list[Expr]):
        self.rec = _Recursion(system, order)
        self.kin = system.kinematics
        self.order = order
        self.tau = tau
        self.IA: dict[int, SpatialInertia] = {}
        self.pA: dict[int, Vec6] = {}
        self.joints: dict[int, _Joint] = {}
        self.offsets = {id(b): self.rec.offset(b) for b in order[1:]}
        self._columns: dict[int, list[tuple[int, Vec6]]] = {}
        self.pivots: list[tuple[int, Expr]] = []  # (coordinate, pivot), filled by backward()

    def own_inertia(self, body: TreeBody) -> SpatialInertia:
        """The solid's spatial inertia at the body's point, in its base."""
        solid: Any = body.solid
        m = solid.mass
        h: Comps = (ZERO, ZERO, ZERO) if solid.is_particle else tuple(solid.first_moment)
        I: Mat3 = tuple(tuple(r) for r in solid.inertia_origin)  # type: ignore[assignment]
        Bh = ((ZERO, neg(h[2]), h[1]), (h[2], ZERO, neg(h[0])), (neg(h[1]), h[0], ZERO))
        C = ((m, ZERO, ZERO), (ZERO, m, ZERO), (ZERO, ZERO, m))
        return SpatialInertia(I, Bh, C)

    def joints_columns(self, body: TreeBody) -> list[tuple[int, Vec6]]:
        """The joint's motion subspace, one column per coordinate (cached)."""
        cols = self._columns.get(id(body))
        if cols is None:
            cols = self._columns[id(body)] = self.columns(body)
        return cols

    def columns(self, body: TreeBody) -> list[tuple[int, Vec6]]:
        """``(i, (d w / d dq_i, d v / d dq_i))`` of the body's twist (its point, its base) per joint coordinate."""
        kin, B = self.kin, body.base
        w = self.rec.comps(kin.omega(B), B)
        v = self.rec.comps(kin.velocity(body.point), B)
        dq = self.rec.dq
        return [(i, (tuple(diff(x, dq[i]) for x in w), tuple(diff(x, dq[i]) for x in v))) for i in body.coordinates]  # type: ignore[misc]

    # -- backward pass -------------------------------------------------------------------------------
    def backward(self) -> None:
        """From the leaves: each joint's block factored, the projected inertia and wrench passed to the parent."""
        for body in reversed(self.order[1:]):
            key = id(body)
            IA = self.IA.pop(key, None)
            own = self.own_inertia(body)
            IA = own if IA is None else IA + own
            pA = self.pA.pop(key, ((ZERO, ZERO, ZERO), (ZERO, ZERO, ZERO)))
            joint = _Joint(self.joints_columns(body))
            self.joints[key] = joint
            U = [IA.apply(s) for _, s in joint.columns]
            d = len(U)
            Dm = {(k, l): _dot6(joint.columns[k][1], U[l]) for k in range(d) for l in range(k, d)}
            u = [sub(self.tau[i], _dot6(s, pA)) for i, s in joint.columns]
            piv = joint.factor(Dm, U, u)
            self.pivots.extend(zip((i for i, _ in joint.columns), piv))
            parent = body.parent
            if parent is None or parent.solid is None:
                continue
            Ia = self.projected(IA, joint)
            pa = pA
            for k in range(d):
                pa = _axpy6(mul(joint.y[k], joint.inv[k]), joint.W[k], pa)
            self.to_parent(body, Ia, pa)

    def projected(self, IA: SpatialInertia, joint: _Joint) -> SpatialInertia:
        """``IA - U D^-1 U^T = IA - sum_k W_k W_k^T / d_k``, with the exact zeros of ``Ia S = 0``."""
        zero_rows: set[int] = set()
        cols = [s for _, s in joint.columns]
        if sum(all(x.is_zero for x in s[1]) for s in cols) >= 3 and len(cols) >= 3:
            angular = [s[0] for s in cols if all(x.is_zero for x in s[1])]
            if _independent(angular):
                zero_rows |= {0, 1, 2}
        if sum(all(x.is_zero for x in s[0]) for s in cols) >= 3 and len(cols) >= 3:
            linear = [s[1] for s in cols if all(x.is_zero for x in s[0])]
            if _independent(linear):
                zero_rows |= {3, 4, 5}
        for s in cols:
            k = _is_unit(s)
            if k is not None:
                zero_rows.add(k)
        flat = [(*w[0], *w[1]) for w in joint.W]
        g = [tuple(mul(x, joint.inv[k]) for x in flat[k]) for k in range(len(flat))]

        def entry(a: int, b: int, base: Expr) -> Expr:
            if a in zero_rows or b in zero_rows:
                return ZERO
            for k in range(len(flat)):
                base = sub(base, mul(g[k][a], flat[k][b]))
            return base

        A = _symmetric({(i, j): entry(i, j, IA.A[i][j]) for i in range(3) for j in range(i, 3)})
        C = _symmetric({(i, j): entry(3 + i, 3 + j, IA.C[i][j]) for i in range(3) for j in range(i, 3)})
        B = tuple(tuple(entry(i, 3 + j, IA.B[i][j]) for j in range(3)) for i in range(3))
        return SpatialInertia(A, B, C)  # type: ignore[arg-type]

    def to_parent(self, body: TreeBody, Ia: SpatialInertia, pa: Vec6) -> None:
        """Add the body's projected inertia and wrench, carried to the parent's point and base, to the parent's."""
        parent = body.parent
        assert parent is not None
        kin, Bc, Bp = self.kin, body.base, parent.base
        r = self.offsets[id(body)]
        A = _rotate_upper(kin, Ia.A, Bc, Bp)
        C = _rotate_upper(kin, Ia.C, Bc, Bp)
        B = _rotate_sym(kin, Ia.B, Bc, Bp)  # a general matrix: R B R^T by rows
        Bp_ = _add_mat(B, _cross_mat(r, C))  # B + [r x] C
        X = _cross_mat(r, _transpose(Bp_))  # [r x] B_p^T
        Y = _cross_mat(r, _transpose(B))  # [r x] B^T; A_p = A + X + Y^T (Y^T = -B [r x])
        A_p = _symmetric({(i, j): add(A[i][j], add(X[i][j], Y[j][i])) for i in range(3) for j in range(i, 3)})
        moved = SpatialInertia(A_p, Bp_, C)
        key = id(parent)
        self.IA[key] = moved if key not in self.IA else self.IA[key] + moved
        f = kin.rotate(pa[1], Bc, Bp)
        n = _add3(kin.rotate(pa[0], Bc, Bp), _cross3(r, f))
        old = self.pA.get(key)
        self.pA[key] = (n, f) if old is None else (_add3(old[0], n), _add3(old[1], f))

    # -- forward pass --------------------------------------------------------------------------------
    def forward(self) -> list[Expr]:
        """From the root: each body's acceleration from its parent's, and its joint's ``ddq``."""
        ddq: list[Expr] = [ZERO] * len(self.tau)
        acc: dict[int, Vec6] = {}
        for body in self.order[1:]:
            parent = body.parent
            joint = self.joints[id(body)]
            if parent is None or parent.solid is None:
                a: Vec6 = ((ZERO, ZERO, ZERO), (ZERO, ZERO, ZERO))
            else:
                al, ap = acc[id(parent)]
                r = self.offsets[id(body)]
                a = (
                    self.kin.rotate(al, parent.base, body.base),
                    self.kin.rotate(_add3(ap, _cross3(al, r)), parent.base, body.base),
                )
            d = len(joint.columns)
            x = [mul(sub(joint.y[k], _dot6(joint.W[k], a)), joint.inv[k]) for k in range(d)]
            for k in reversed(range(d)):  # L^T ddq = x
                e = x[k]
                for j in range(k + 1, d):
                    e = sub(e, mul(joint.L[(j, k)], ddq[joint.columns[j][0]]))
                ddq[joint.columns[k][0]] = e
            for i, s in joint.columns:
                a = _axpy6(ddq[i], s, a)
            acc[id(body)] = a
        return ddq


class _Bias:
    """The generalized forces ``delta`` again, by a Newton-Euler recursion along the joints (for the
    accelerations only: ``M`` and ``delta`` of the equations keep their own atoms).

    Each body's angular velocity, and its point's velocity and acceleration at ``ddq = 0`` (gravity as an
    acceleration of the ground), follow from its parent's through the joint (Featherstone, 2008, sec. 5.3):
    with ``rho(q)`` the parent's point to the body's, in the parent's base, ``rho'`` and ``rho''`` its
    rates in the parent's frame at ``ddq = 0``, and ``w_J = S_w dq`` the joint's angular velocity,

    * ``w = R w_p + w_J``, ``alpha = R alpha_p + w x w_J + (d S_w / dt) dq``;
    * ``a = R (a_p + alpha_p x rho + w_p x (w_p x rho) + 2 w_p x rho' + rho'')``;

    instead of each body's kinematics on its own, which repeats its ancestors' terms in every body's base.
    """

    def __init__(self, aba: _Articulated):
        self.aba = aba
        self.kin = aba.kin
        self.q = [c.q for c in aba.rec.system.coordinates]
        self.dq = aba.rec.dq
        self.rates = dict(zip(self.q, self.dq))

    def rates_of(self, v: Comps) -> Comps:
        """Time derivatives at ``ddq = 0`` of components that depend on ``q`` and ``dq`` but not on time."""
        d = directional_derivative(list(v), self.rates)
        return d[0], d[1], d[2]

    def wrenches(self) -> dict[int, Vec6]:
        """Inertial wrench ``(N, F)`` of every body at its point, in its base, at ``ddq = 0``."""
        aba, kin = self.aba, self.kin
        zero: Comps = (ZERO, ZERO, ZERO)
        motion: dict[int, tuple[Comps, Comps, Comps]] = {}  # w, alpha, a
        out: dict[int, Vec6] = {}
        for body in aba.order[1:]:
            parent = body.parent
            assert parent is not None
            Bp, B = parent.base, body.base
            if parent.solid is None:
                wp, alp, ap = zero, zero, _scale3(neg(ONE), aba.rec.gravity)
            else:
                wp, alp, ap = motion[id(parent)]
            rho = aba.offsets[id(body)]
            rho1 = self.rates_of(rho)
            rho2 = self.rates_of(rho1)
            wJ: Comps = (ZERO, ZERO, ZERO)
            for i, s in aba.joints_columns(body):
                wJ = _add3(wJ, _scale3(self.dq[i], s[0]))
            w = _add3(kin.rotate(wp, Bp, B), wJ)
            al = _add3(_add3(kin.rotate(alp, Bp, B), _cross3(w, wJ)), self.rates_of(wJ))
            acc = _add3(ap, _cross3(alp, rho))
            acc = _add3(acc, _cross3(wp, _add3(_cross3(wp, rho), _scale3(num(2), rho1))))
            a = kin.rotate(_add3(acc, rho2), Bp, B)
            motion[id(body)] = (w, al, a)
            solid: Any = body.solid
            m = solid.mass
            F = _scale3(m, a)
            N: Comps = zero
            if not solid.is_particle:
                h: Comps = tuple(solid.first_moment)
                I: Mat3 = tuple(tuple(r) for r in solid.inertia_origin)  # type: ignore[assignment]
                wh, ww = _dot3(w, h), _dot3(w, w)
                F = _add3(F, _add3(_cross3(al, h), _sub3(_scale3(wh, w), _scale3(ww, h))))
                N = _add3(_add3(_matvec3(I, al), _cross3(w, _matvec3(I, w))), _cross3(h, a))
            out[id(body)] = (N, F)
        return out

    def delta(self) -> list[Expr]:
        """``delta``: the loads' generalized forces (virtual power, gravity aside) minus the projected inertial
        wrenches."""
        aba = self.aba
        wrench = self.wrenches()
        tau: dict[int, Expr] = {}
        for body in reversed(aba.order[1:]):
            N, F = wrench[id(body)]
            for i, s in aba.joints_columns(body):
                tau[i] = add(_dot3(s[0], N), _dot3(s[1], F))
            parent = body.parent
            if parent is not None and parent.solid is not None:
                Fp, Np = aba.rec.to_parent(body, aba.offsets[id(body)], F, N)
                Nq, Fq = wrench[id(parent)]
                wrench[id(parent)] = (_add3(Nq, Np), _add3(Fq, Fp))
        system = aba.rec.system
        asm = Assembler(system)
        for load in system.loads:
            if getattr(load, "kind", "") != "gravity":
                load.apply(asm)
        return [sub(asm.finalize(acc), tau.get(i, ZERO)) for i, acc in enumerate(asm.delta)]


def _independent(vectors: list[Comps]) -> bool:
    """True if three of the vectors are the columns of a matrix with a structurally nonzero determinant.

    Only constant vectors can be decided here; vectors of the configuration are taken as independent
    where their determinant is not identically zero: the pivots then vanish (and the runtime refuses
    the result) exactly where they are not.
    """
    a, b, c = vectors[:3]
    det = _dot3(a, _cross3(b, c))
    return not det.is_zero


def _scleronomic(system: System, order: list[TreeBody]) -> bool:
    """True if no joint of the tree depends on time or on a motion input (its motion is ``S dq`` alone)."""
    t_mask = system.t.mask
    for u in system.inputs.values():
        if u.motion:
            t_mask |= u.symbol.mask
    for body in order[1:]:
        mask = _joint_mask(system.kinematics, body, body.parent)  # type: ignore[arg-type]
        if mask is None or mask & t_mask:
            return False
    return True


def _rotate_upper(kin: Any, T: Mat3, A: Any, B: Any) -> Mat3:
    """``R T R^T`` of a symmetric ``T`` from base ``A`` to ``B``, keeping its upper triangle's atoms."""
    if all(x.is_zero for row in T for x in row):
        return T
    rows = _rotate_sym(kin, T, A, B)
    return _symmetric({(i, j): rows[i][j] for i in range(3) for j in range(i, 3)})


def articulated_accelerations(
    system: System, order: list[TreeBody], delta: list[Expr]
) -> tuple[list[Expr], list[Expr], list[Expr]]:
    """``ddq = M^-1 delta`` of a tree model by the articulated-body algorithm, the pivots (one per
    coordinate) and the ``delta`` it used.

    ``order`` is :func:`symbody.derive.recursive.tree_of`'s; every coordinate must belong to a joint
    (:func:`applies`).  Where no joint depends on time, ``delta`` is derived again by the recursion of
    :class:`_Bias` (the same forces, fewer operations in long chains) and that one is returned;
    otherwise the given one is used and returned.
    """
    aba = _Articulated(system, order, delta)
    if _scleronomic(system, order):  # joints that move with time keep delta's own kinematics
        aba.tau = _Bias(aba).delta()
    aba.backward()
    ddq = aba.forward()
    pivots = [ZERO] * len(delta)
    for i, p in aba.pivots:
        pivots[i] = p
    return ddq, pivots, aba.tau


def applies(system: System, order: list[TreeBody] | None) -> bool:
    """Whether the articulated-body accelerations give the model's ``ddq``: a tree whose joints own every
    coordinate, without constraint rows, unilateral contacts or stick-slip friction (their multipliers
    need ``M`` itself)."""
    if order is None or system.unilaterals or system.frictions:
        return False
    if any(r.kind in ("holonomic", "velocity") for r in system.constraints):
        return False
    owned = sorted(i for b in order[1:] for i in b.coordinates)
    return owned == list(range(len(system.coordinates)))


__all__ = ["SpatialInertia", "applies", "articulated_accelerations"]
