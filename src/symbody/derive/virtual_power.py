"""Mass matrix and generalized forces by the virtual power principle.

One loop over solids (Plaza Puértolas, 2015, fig. 4.10, eqs. 4.54-4.69).  For a solid with
reference point ``O``, base ``B``, mass ``m``, first moment ``m r`` (centre of
mass from ``O``) and inertia ``I_O`` at ``O``, with partial velocities
``Jv_i = dv_O/d(dq_i)`` and ``Jw_i = d(omega)/d(dq_i)``::

    M_ij += m Jv_i.Jv_j + Jv_i.(Jw_j x m r) + Jv_j.(Jw_i x m r) + Jw_i.(I_O Jw_j)
    delta_i -= m Jv_i.a0 + Jv_i.(alpha0 x m r + w x (w x m r))
             + Jw_i.(m r x a0 + I_O alpha0 + w x I_O w)

where ``a0`` and ``alpha0`` are the accelerations with ``ddq = 0``.  Loads add
their virtual power.  ``M q'' = delta`` for an unconstrained system.

Every entry is accumulated as a linear combination ``sum coef_k * key_k`` whose
keys are products of parts; equal keys from different solids are collected,
so that e.g. the masses of the outer links of a chain appear once as a sum
(``(m3 + m2) l1^2`` instead of ``m3 l1^2 + m2 l1^2``).  Solids are visited from
the last to the first, so these coefficient sums share their partial sums.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..symbolic.calculus import diff
from ..symbolic.expr import MUL, NEG, NUM, ONE, ZERO, Expr, add, mul, neg

if TYPE_CHECKING:
    from ..model.bodies import Solid
    from ..model.geometry import Point
    from ..model.system import System
    from ..model.vector import Vector


class Assembler:
    """Accumulates ``M`` and ``delta`` for a system (used by :func:`assemble`)."""

    def __init__(self, system: System):
        self.system = system
        self.kin = system.kinematics
        self.velocities = [c.dq for c in system.coordinates]
        self.n = len(self.velocities)
        self.bit_index = {dq.mask: i for i, dq in enumerate(self.velocities)}
        self.vmask = 0
        for dq in self.velocities:
            self.vmask |= dq.mask
        self.M: dict[tuple[int, int], dict[Expr, Expr]] = {}
        self.delta: list[dict[Expr, Expr]] = [{} for _ in range(self.n)]
        self._partials: dict[int, tuple] = {}
        self._part_partials: dict = {}

    # -- partial velocities ------------------------------------------------
    def _part_partial(self, B, c) -> dict[int, tuple]:
        key = (B, c)
        r = self._part_partials.get(key)
        if r is not None:
            return r
        r = {}
        m = (c[0].mask | c[1].mask | c[2].mask) & self.vmask
        while m:
            low = m & -m
            m ^= low
            i = self.bit_index[low]
            dq = self.velocities[i]
            r[i] = (diff(c[0], dq), diff(c[1], dq), diff(c[2], dq))
        self._part_partials[key] = r
        return r

    def partials(self, v: Vector) -> dict[int, Vector]:
        """``{i: dv/d(dq_i)}`` for the velocities ``v`` depends on (ordered by ``i``)."""
        hit = self._partials.get(id(v))
        if hit is not None and hit[0] is v:
            return hit[1]
        from ..model.vector import Vector

        acc: dict[int, dict] = {}
        for B, c in v.parts.items():
            for i, comps in self._part_partial(B, c).items():
                parts = acc.get(i)
                if parts is None:
                    parts = acc[i] = {}
                self.kin.add_part(parts, B, comps)
        out = {i: Vector._from_parts(self.kin, acc[i]) for i in sorted(acc) if acc[i]}
        self._partials[id(v)] = (v, out)
        return out

    def scalar_partials(self, e: Expr) -> dict[int, Expr]:
        """``{i: de/d(dq_i)}`` for the velocities ``e`` depends on."""
        out = {}
        m = e.mask & self.vmask
        while m:
            low = m & -m
            m ^= low
            i = self.bit_index[low]
            d = diff(e, self.velocities[i])
            if not d.is_zero:
                out[i] = d
        return dict(sorted(out.items()))

    def point_velocity(self, point: Point, solid: Solid | None = None) -> Vector:
        """Velocity of ``point``, or of the material point of ``solid`` that coincides with it."""
        kin = self.kin
        v = kin.velocity(point)
        if solid is None or solid.point is point:
            return v
        r = kin.position(point) - kin.position(solid.point)
        w = kin.omega(solid.base)
        if (kin.dt(r, accelerations=False) - w.cross(r)).is_zero:
            return v  # the point is fixed in the solid
        return kin.velocity(solid.point) + w.cross(r)

    # -- accumulation ------------------------------------------------------
    @staticmethod
    def _collect(acc: dict, key: Expr, coef: Expr) -> None:
        if key.op == NEG:
            key = key.args[0]
            coef = neg(coef)
        if key.op == NUM:
            coef = mul(coef, key)
            key = ONE
        elif key.op == MUL and key.args[0].op == NUM:
            coef = mul(coef, key.args[0])
            key = key.args[1]
        old = acc.get(key)
        acc[key] = coef if old is None else add(old, coef)

    def add_M(self, i: int, j: int, key: Expr, coef: Expr = ONE) -> None:
        """Add ``coef * key`` to ``M[i][j]`` (and its symmetric entry)."""
        if i > j:
            i, j = j, i
        acc = self.M.get((i, j))
        if acc is None:
            acc = self.M[(i, j)] = {}
        self._collect(acc, key, coef)

    def add_delta(self, i: int, key: Expr, coef: Expr = ONE) -> None:
        """Add ``coef * key`` to ``delta[i]``."""
        self._collect(self.delta[i], key, coef)

    @staticmethod
    def finalize(acc: dict) -> Expr:
        """Sum of a collected linear combination, grouping keys that share a coefficient."""
        groups: dict[Expr, Expr] = {}
        for key, coef in acc.items():
            if coef.is_zero:
                continue
            if coef.op == NEG:
                key_s = neg(key)
                coef = coef.args[0]
            else:
                key_s = key
            g = groups.get(coef)
            groups[coef] = key_s if g is None else add(g, key_s)
        total = ZERO
        for coef, s in groups.items():
            total = add(total, mul(coef, s))
        return total

    # -- inertia of solids -----------------------------------------------------
    def add_solid(self, solid: Solid) -> None:
        """Add the inertial contribution of one solid to ``M`` and ``delta``."""
        from ..model.vector import Tensor, Vector

        kin = self.kin
        m = solid.mass
        v = kin.velocity(solid.point)
        Jv = self.partials(v)
        particle = solid.is_particle
        mr = Vector._from_parts(kin, {})
        if not particle:
            fm = solid.first_moment
            kin.add_part(mr.parts, solid.base, (fm[0], fm[1], fm[2]))
        rotational = not particle
        w = kin.omega(solid.base)
        Jw = self.partials(w) if rotational else {}
        I = Tensor._make(solid.base, solid.inertia_origin) if rotational else None
        has_mr = not mr.is_zero
        idx = sorted(set(Jv) | set(Jw))
        Jw_x_mr = {j: Jw[j].cross(mr) for j in Jw} if has_mr else {}
        I_Jw = {j: I @ Jw[j] for j in Jw} if rotational else {}  # type: ignore[operator]
        for a, i in enumerate(idx):
            for j in idx[a:]:
                if i in Jv and j in Jv:
                    for t in Jv[i].dot_terms(Jv[j]):
                        self.add_M(i, j, t, m)
                if has_mr:
                    if i in Jv and j in Jw:
                        for t in Jv[i].dot_terms(Jw_x_mr[j]):
                            self.add_M(i, j, t)
                    if j in Jv and i in Jw:
                        for t in Jv[j].dot_terms(Jw_x_mr[i]):
                            self.add_M(i, j, t)
                if rotational and i in Jw and j in Jw:
                    for t in Jw[i].dot_terms(I_Jw[j]):
                        self.add_M(i, j, t)
        # velocity-dependent inertia forces
        a0 = kin.acceleration0(solid.point)
        mneg = neg(m)
        if Jv and not a0.is_zero:
            for i, J in Jv.items():
                for t in J.dot_terms(a0):
                    self.add_delta(i, t, mneg)
        if not rotational:
            return
        al0 = kin.alpha0(solid.base)
        if has_mr and Jv:
            F1 = al0.cross(mr) + kin.triple(w, mr)
            if not F1.is_zero:
                for i, J in Jv.items():
                    for t in J.dot_terms(F1):
                        self.add_delta(i, t, MINUS)
        if Jw:
            Mo = (I @ al0) + w.cross(I @ w)  # type: ignore[operator]
            if has_mr:
                Mo = Mo + mr.cross(a0)
            if not Mo.is_zero:
                for i, J in Jw.items():
                    for t in J.dot_terms(Mo):
                        self.add_delta(i, t, MINUS)


MINUS = neg(ONE)


def assemble(
    system: System, progress: Callable[[int, int, str], None] | None = None
) -> tuple[list[list[Expr]], list[Expr]]:
    """Mass matrix ``M`` (symmetric, full) and generalized force vector ``delta`` of a system."""
    asm = Assembler(system)
    solids = [s for s in system.solids.values() if s.has_inertia]
    loads = list(system.loads)
    total = len(solids) + len(loads)
    done = 0
    for solid in reversed(solids):
        asm.add_solid(solid)
        done += 1
        if progress:
            progress(done, total, solid.name)
    for load in loads:
        load.apply(asm)
        done += 1
        if progress:
            progress(done, total, load.name)
    n = asm.n
    M = [[ZERO] * n for _ in range(n)]
    for (i, j), acc in asm.M.items():
        e = asm.finalize(acc)
        M[i][j] = e
        M[j][i] = e
    delta = [asm.finalize(acc) for acc in asm.delta]
    return M, delta


__all__ = ["Assembler", "assemble"]
