"""Recursive mass matrix and generalized forces for tree-structured models.

For a model whose solids form a tree joined by *relative* coordinates (each
coordinate moves one solid relative to its parent solid), the inertial part
of ``M q'' = delta`` follows from two recursions over the tree instead of the
virtual-power loop over every pair of partial velocities:

* the composite-rigid-body algorithm for ``M`` (Featherstone, "Rigid Body
  Dynamics Algorithms", Springer, 2008, sec. 6.2): the inertia of every subtree
  is accumulated from the leaves at the subtree's joint point, and
  ``M_ij = S_j . (Ic_k S_i)`` for the coordinate ``i`` of the joint of body
  ``k`` and ``j`` of any joint from ``k`` up to the root;
* the recursive Newton-Euler algorithm for the bias forces (same book,
  sec. 5.3; Samin and Fisette, "Symbolic Modeling of Multibody Systems",
  Kluwer, 2003): the inertial wrench of every solid at ``ddq = 0`` (gravity
  as an acceleration of the ground) is summed from the leaves and projected
  on each joint's partial twist ``S_i``.

Every body's quantities are kept in its own base (components), and a subtree's
wrench and inertia are rotated into the parent's base once, so each body adds
a bounded number of atoms to the bias forces and one row of dot products to
``M``.  The other loads keep their virtual-power contributions.

The tree is detected from the model (:func:`tree_of`); a model outside this
class (absolute angles, a coordinate shared by two joints, inputs inside the
kinematics) returns ``None`` and is assembled by the virtual-power loop.

Example:
    >>> import symbody as sb
    >>> from symbody.derive.recursive import tree_of, assemble_recursive
    >>> s = sb.System("pend")
    >>> th = s.coordinate("th"); m = s.parameter("m", 1.0); l = s.parameter("l", 1.0)
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> bar = s.solid("bar", s.origin, B, mass=m, com=(l, 0, 0), inertia=(0, 0, 0))
    >>> M, delta = assemble_recursive(s, tree_of(s))
    >>> M[0][0]
    m*l**2
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from ..model.kinematics import Comps, _cross3, _dot3
from ..symbolic.calculus import diff
from ..symbolic.expr import ZERO, Expr, add, mul, neg, sub
from .virtual_power import Assembler

if TYPE_CHECKING:
    from ..model.kinematics import Kinematics

# the model's Base, Point, Solid and System, read through their tree fields (loosely typed)
Base: TypeAlias = Any
Point: TypeAlias = Any
Solid: TypeAlias = Any
System: TypeAlias = Any

Sym3 = tuple[Comps, Comps, Comps]


@dataclass(eq=False)
class TreeBody:
    """A solid of the tree, its parent body (``None``: the ground) and the coordinates of its joint."""

    solid: Solid | None
    base: Base
    point: Point
    parent: TreeBody | None = None
    coordinates: list[int] = field(default_factory=list)
    children: list[TreeBody] = field(default_factory=list)


# ---------------------------------------------------------------------------
# component algebra
# ---------------------------------------------------------------------------
def _add3(a: Comps, b: Comps) -> Comps:
    return (add(a[0], b[0]), add(a[1], b[1]), add(a[2], b[2]))


def _sub3(a: Comps, b: Comps) -> Comps:
    return (sub(a[0], b[0]), sub(a[1], b[1]), sub(a[2], b[2]))


def _scale3(s: Expr, a: Comps) -> Comps:
    return (mul(s, a[0]), mul(s, a[1]), mul(s, a[2]))


def _matvec3(T: Sym3, v: Comps) -> Comps:
    return (_dot3(T[0], v), _dot3(T[1], v), _dot3(T[2], v))


def _add_sym(A: Sym3, B: Sym3) -> Sym3:
    return tuple(_add3(A[i], B[i]) for i in range(3))  # type: ignore[return-value]


def _rotate_sym(kin: Kinematics, T: Sym3, A: Base, B: Base) -> Sym3:
    """Components in ``B`` of a symmetric tensor with components ``T`` in ``A`` (``R T R^T``)."""
    if A is B:
        return T
    cols = [kin.rotate((T[0][j], T[1][j], T[2][j]), A, B) for j in range(3)]  # R T, by columns
    rows = [kin.rotate((cols[0][i], cols[1][i], cols[2][i]), A, B) for i in range(3)]  # (R (R T)^T)^T
    return tuple(rows)  # type: ignore[return-value]


def _shift_inertia(I: Sym3, m: Expr, h: Comps, r: Comps) -> Sym3:
    """Inertia at point ``A`` of a body with inertia ``I`` and first moment ``h`` at ``P = A + r``.

    ``I_A = I_P + m (|r|^2 E - r r^T) + 2 (r.h) E - r h^T - h r^T``.
    """
    rr = _dot3(r, r)
    rh = _dot3(r, h)
    diag = add(mul(m, rr), add(rh, rh))
    out = []
    for i in range(3):
        row = []
        for j in range(3):
            e = neg(add(add(mul(m, mul(r[i], r[j])), mul(r[i], h[j])), mul(h[i], r[j])))
            if i == j:
                e = add(diag, e)
            row.append(add(I[i][j], e))
        out.append(tuple(row))
    return tuple(out)  # type: ignore[return-value]


# ---------------------------------------------------------------------------
# tree detection
# ---------------------------------------------------------------------------
def _is_ancestor(a: Any, b: Any) -> bool:
    """True if ``a`` is ``b`` or an ancestor of ``b`` (nodes with ``depth`` and ``parent``)."""
    while b.depth > a.depth:
        b = b.parent
    return b is a


def _expr_mask(exprs: Any) -> int:
    m = 0
    for e in exprs:
        m |= e.mask
    return m


def _fixed_in(kin: Kinematics, B: Base, comps: Comps, frame: Base) -> bool:
    """True if a vector with components ``comps`` in ``B`` is fixed in ``frame`` when it is fixed in ``B``.

    Either ``B`` is ``frame`` or below it, or the vector was only settled above ``frame``
    because the rotations in between leave it unchanged (an axial vector).
    """
    if _is_ancestor(frame, B):
        return True
    if not _is_ancestor(B, frame):
        return False
    return kin.rotate(comps, B, frame) == comps


def _joint_mask(kin: Kinematics, body: TreeBody, parent: TreeBody) -> int | None:
    """Symbols the joint from ``parent`` to ``body`` depends on (``None``: not a relative joint)."""
    mask = 0
    X = body.base
    while X is not parent.base:
        mask |= _expr_mask(x for row in X.R for x in row) | _expr_mask(X.omega_rel)
        X = X.parent
    P = body.point
    while P is not parent.point:
        for B, comps in P.vector.parts.items():
            if not _fixed_in(kin, B, comps, parent.base):
                return None  # a vector fixed in a base the parent's frame moves in
            mask |= _expr_mask(comps)
            Y = B
            while Y.depth > parent.base.depth:
                mask |= _expr_mask(x for row in Y.R for x in row)
                Y = Y.parent
        P = P.parent
    return mask


def _parent_of(k: int, bodies: list[TreeBody]) -> TreeBody | None:
    """Deepest body (or the ground, ``bodies[0]``) whose frame is above ``bodies[k]``'s in both trees."""
    me = bodies[k]
    cands = []
    for j, b in enumerate(bodies):
        if j == k:
            continue
        if b.point is me.point and b.base is me.base and j > k:
            continue
        if _is_ancestor(b.point, me.point) and _is_ancestor(b.base, me.base):
            cands.append(b)
    best = max(cands, key=lambda b: (b.point.depth + b.base.depth, bodies.index(b)))
    for b in cands:
        if not (_is_ancestor(b.point, best.point) and _is_ancestor(b.base, best.base)):
            return None
    return best


def _deepest_base(point: Point) -> Base | None:
    """The deepest base of the vectors from the origin to ``point`` (``None``: bases on two branches)."""
    deepest = None
    P = point
    while P.parent is not None:
        for B in P.vector.parts:
            if deepest is None or _is_ancestor(deepest, B):
                deepest = B
            elif not _is_ancestor(B, deepest):
                return None
        P = P.parent
    return deepest


def _moves_with(kin: Kinematics, point: Point, top: Point, B: Base) -> bool:
    """True if the vectors from ``top`` to ``point`` (``top`` an ancestor) are fixed in ``B``."""
    P = point
    while P is not top:
        if not all(_fixed_in(kin, X, comps, B) for X, comps in P.vector.parts.items()):
            return False
        P = P.parent
    return True


def _particle_base(system: System, point: Point, solids: list[Solid]) -> Base:
    """The base of a particle at ``point`` in the tree: the deepest base its point moves with.

    A particle has no orientation of its own; in the tree it is a body without rotational inertia in
    the deepest base of the vectors that place its point, or lower, in the base of a solid whose point
    is above the particle's and in whose base those vectors are fixed (an axial vector settled in a base
    above the solid's): a particle on a body of a chain then joins that body instead of the ground.
    """
    best = _deepest_base(point)
    if best is None:
        return system.ground_base
    for solid in solids:
        B = solid.base
        if solid.is_particle or B.depth <= best.depth or not _is_ancestor(best, B):
            continue
        if _is_ancestor(solid.point, point) and _moves_with(system.kinematics, point, solid.point, B):
            best = B
    return best


def tree_of(system: System) -> list[TreeBody] | None:
    """The solids as a tree of relative joints, parents first (``None`` if the model is not one).

    Each solid's parent is the deepest solid (or the ground) whose point and base
    are ancestors of the solid's in the point and base trees; the joint is the
    path between them.  The model is a tree of relative joints when every
    coordinate enters the joint of one solid only, the joint's vectors are fixed
    in bases at or below the parent's base, and no input other than a motion input enters a joint.

    A particle, a body without orientation or rotational inertia, is placed in the tree first in the
    ground's base (particles joined by vectors in bases of their own, as links on absolute angles), then,
    if that is not a tree, in the deepest base its point moves with (:func:`_particle_base`): on a body of
    a chain it joins that body, by its own coordinates if any.
    """
    solids = [s for s in system.solids.values() if s.has_inertia]
    order = _tree(system, [TreeBody(s, s.base, s.point) for s in solids])
    if order is None and any(s.is_particle for s in solids):
        bases = [_particle_base(system, s.point, solids) if s.is_particle else s.base for s in solids]
        order = _tree(system, [TreeBody(s, B, s.point) for s, B in zip(solids, bases)])
    return order


def _tree(system: System, solids: list[TreeBody]) -> list[TreeBody] | None:
    """The bodies ``solids`` (in their bases) as a tree of relative joints (see :func:`tree_of`)."""
    ground = TreeBody(None, system.ground_base, system.origin)
    bodies = [ground, *solids]
    coords = system.coordinates
    input_mask = 0  # plain inputs: a motion input moves a joint with time, as a law of time does
    for u in system.inputs.values():
        if not u.motion:
            input_mask |= u.symbol.mask
    owner: dict[int, TreeBody] = {}
    for k in range(1, len(bodies)):
        body = bodies[k]
        parent = _parent_of(k, bodies)
        if parent is None:
            return None
        mask = _joint_mask(system.kinematics, body, parent)
        if mask is None or mask & input_mask:
            return None
        for i, c in enumerate(coords):
            if mask & (c.q.mask | c.dq.mask):
                if i in owner:
                    return None
                owner[i] = body
                body.coordinates.append(i)
        body.parent = parent
        parent.children.append(body)
    order: list[TreeBody] = []
    stack = [ground]
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(reversed(b.children))
    return order


# ---------------------------------------------------------------------------
# recursions
# ---------------------------------------------------------------------------
class _Recursion:
    """The forward (kinematics) and backward (wrenches, composite inertia) passes over a tree."""

    def __init__(self, system: System, order: list[TreeBody]):
        self.system = system
        self.kin = system.kinematics
        self.order = order
        self.dq = [c.dq for c in system.coordinates]
        n = len(self.dq)
        self.M: list[list[Expr]] = [[ZERO] * n for _ in range(n)]
        self.tau: dict[int, Expr] = {}
        self.total = len(order) - 1 + len(system.loads)  # progress: solids, then loads
        self.gravity: Comps = (ZERO, ZERO, ZERO)
        self.g_local: dict[int, Comps] = {}  # gravity in each body's base
        for load in system.loads:
            if getattr(load, "kind", "") == "gravity":
                self.gravity = _add3(self.gravity, load.g.components(system.ground_base))

    def comps(self, v: Any, B: Base) -> Comps:
        return v.components(B) if v.parts else (ZERO, ZERO, ZERO)

    def offset(self, body: TreeBody) -> Comps:
        """Vector from the parent's point to the body's point, in the parent's base."""
        kin = self.kin
        top = body.parent.point  # type: ignore[union-attr]
        parts: dict = {}
        chain = []
        P = body.point
        while P is not top:
            chain.append(P)
            P = P.parent
        for X in reversed(chain):
            for B, c in X.vector.parts.items():
                kin.add_part(parts, B, c)
        return self.comps(kin.vector(parts), body.parent.base)  # type: ignore[union-attr]

    def forward(self, body: TreeBody) -> dict:
        """Joint twists, inertial bias wrench and own inertia of one body, in its base."""
        kin, B, P = self.kin, body.base, body.point
        w = self.comps(kin.omega(B), B)
        v = self.comps(kin.velocity(P), B)
        S = [
            (i, tuple(diff(x, self.dq[i]) for x in w), tuple(diff(x, self.dq[i]) for x in v)) for i in body.coordinates
        ]
        parent = body.parent
        g_parent = self.gravity if parent.solid is None else self.g_local[id(parent)]  # type: ignore[union-attr]
        g = self.g_local[id(body)] = kin.rotate(g_parent, parent.base, B)  # type: ignore[union-attr]
        solid = body.solid
        m = solid.mass  # type: ignore[union-attr]
        h: Comps = (ZERO, ZERO, ZERO) if solid.is_particle else tuple(solid.first_moment)  # type: ignore[union-attr]
        I: Sym3 = tuple(tuple(r) for r in solid.inertia_origin)  # type: ignore[union-attr, assignment]
        a0 = _sub3(self.comps(kin.acceleration0(P), B), g)
        F = _scale3(m, a0)
        N: Comps = (ZERO, ZERO, ZERO)
        if not solid.is_particle:  # type: ignore[union-attr]
            al0 = self.comps(kin.alpha0(B), B)
            wh, ww = _dot3(w, h), _dot3(w, w)
            F = _add3(F, _add3(_cross3(al0, h), _sub3(_scale3(wh, w), _scale3(ww, h))))
            N = _add3(_add3(_matvec3(I, al0), _cross3(w, _matvec3(I, w))), _cross3(h, a0))
        return {"S": S, "F": F, "N": N, "m": m, "h": h, "I": I}

    def to_parent(self, body: TreeBody, r: Comps, F: Comps, N: Comps) -> tuple[Comps, Comps]:
        """A wrench at the body's point (body base) as a wrench at the parent's point (parent base)."""
        Bp = body.parent.base  # type: ignore[union-attr]
        Fp = self.kin.rotate(F, body.base, Bp)
        Np = _add3(self.kin.rotate(N, body.base, Bp), _cross3(r, Fp))
        return Fp, Np

    def run(self, progress: Callable[[int, int, str], None] | None = None) -> None:
        bodies = self.order[1:]
        data = {id(body): self.forward(body) for body in bodies}
        offsets = {id(b): self.offset(b) for b in bodies}
        self._data_S = {key: d["S"] for key, d in data.items()}
        for k, body in enumerate(reversed(bodies)):
            d = data[id(body)]
            for i, Jw, Jv in d["S"]:
                self.tau[i] = add(_dot3(Jw, d["N"]), _dot3(Jv, d["F"]))
            self.mass_rows(body, d, offsets)
            parent = body.parent
            if parent is not None and parent.solid is not None:
                pd = data[id(parent)]
                r = offsets[id(body)]
                Fp, Np = self.to_parent(body, r, d["F"], d["N"])
                pd["F"] = _add3(pd["F"], Fp)
                pd["N"] = _add3(pd["N"], Np)
                kin, Bp = self.kin, parent.base
                hp = kin.rotate(d["h"], body.base, Bp)
                Ip = _shift_inertia(_rotate_sym(kin, d["I"], body.base, Bp), d["m"], hp, r)
                pd["m"] = add(pd["m"], d["m"])
                pd["h"] = _add3(pd["h"], _add3(hp, _scale3(d["m"], r)))
                pd["I"] = _add_sym(pd["I"], Ip)
            if progress:
                progress(k + 1, self.total, body.solid.name)  # type: ignore[union-attr]

    def mass_rows(self, body: TreeBody, d: dict, offsets: dict) -> None:
        """``M_ij`` for the coordinates ``i`` of the body's joint and ``j`` of its joint and ancestors'."""
        m, h, I = d["m"], d["h"], d["I"]
        S = d["S"]
        for a, (i, Jw, Jv) in enumerate(S):
            f = _add3(_scale3(m, Jv), _cross3(Jw, h))  # composite momentum of the subtree for dq_i = 1
            n = _add3(_matvec3(I, Jw), _cross3(h, Jv))
            for j, Jw2, Jv2 in S[a:]:
                self._set(i, j, add(_dot3(Jv2, f), _dot3(Jw2, n)))
            b = body
            while b.parent is not None and b.parent.solid is not None:
                f, n = self.to_parent(b, offsets[id(b)], f, n)
                b = b.parent
                for j, Jw2, Jv2 in self._twists(b):
                    self._set(i, j, add(_dot3(Jv2, f), _dot3(Jw2, n)))

    def _twists(self, body: TreeBody) -> list:
        return self._data_S[id(body)]

    def _set(self, i: int, j: int, e: Expr) -> None:
        self.M[i][j] = e
        self.M[j][i] = e


def assemble_recursive(
    system: System, order: list[TreeBody], progress: Callable[[int, int, str], None] | None = None
) -> tuple[list[list[Expr]], list[Expr]]:
    """``M`` and ``delta`` of a tree model (``order`` from :func:`tree_of`) by the recursions.

    Gravity enters as an acceleration of the ground; the other loads add their
    virtual power as in :func:`symbody.derive.virtual_power.assemble`.
    """
    rec = _Recursion(system, order)
    rec.run(progress)
    asm = Assembler(system)
    for i, tau in rec.tau.items():
        asm.add_delta(i, neg(tau))
    done = len(order) - 1
    for load in system.loads:
        if getattr(load, "kind", "") != "gravity":  # gravity is in the recursion
            load.apply(asm)
        done += 1
        if progress:
            progress(done, rec.total, load.name)
    delta = [asm.finalize(acc) for acc in asm.delta]
    return rec.M, delta


__all__ = ["TreeBody", "assemble_recursive", "tree_of"]
