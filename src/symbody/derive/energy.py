"""Kinetic and potential energy of a system, as expressions.

The kinetic energy of a solid with reference point ``O``, base ``B``, mass
``m``, first moment ``m r`` (centre of mass from ``O``) and inertia ``I_O`` at
``O`` is::

    T = 1/2 m v_O.v_O + v_O.(omega x m r) + 1/2 omega.(I_O omega)

with the *full* velocities: ``v_O`` and ``omega`` include the explicit time
derivatives of rheonomic models (a point moved by a law of time), which the
quadratic form ``1/2 dq^T M dq`` misses.  :func:`kinetic_energy` builds on that
form (whose atoms ``M`` already holds) and adds the difference for the solids
whose velocities depend explicitly on time.

The potential energy is the sum of the potentials the loads declare
(``load.potential_split(kinematics)``: gravity ``-m g.r_G`` for every solid,
``1/2 k (l - l0)^2`` for springs, ``1/2 k (a - a0)^2`` for torsion springs,
``-F.r_P`` for forces of constant direction and magnitude).  Whatever a
load does beyond its potential (dampers, actuators, follower forces, loads
without a potential) is collected as generalized forces ``Q_np``, so that
the loads' part of ``delta`` is ``-dV/dq + Q_np``.

Example (a pendulum whose support moves with ``x_s = a sin(t)``):
    >>> import symbody as sb
    >>> s = sb.System("moving_support"); th = s.coordinate("th", 0.3)
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> S = s.point("S", s.origin, (0.5 * sb.sin(s.t), 0, 0))
    >>> _ = s.particle("bob", s.point("P", S, sb.Vector(B, 0, -1, 0)), 2.0)
    >>> s.gravity((0, -9.81, 0))
    >>> from symbody.derive.virtual_power import assemble
    >>> T = kinetic_energy(s, assemble(s)[0])   # m/2 (dx_s^2 + 2 dx_s l dth cos(th) + l^2 dth^2)
    >>> import sympy
    >>> sympy.nsimplify(sympy.expand(T.sympy()))
    dth**2 + dth*cos(t)*cos(th) + cos(t)**2/4
    >>> V, Q_np, rest = potential_energy(s)
    >>> V.sympy(), Q_np, rest
    (-19.62*cos(th), [0], [])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..symbolic.expr import HALF, ZERO, Expr, add, mul, sub
from .virtual_power import Assembler

if TYPE_CHECKING:
    from ..model.kinematics import Kinematics
    from ..model.system import System


def _solid_kinetic_energy(kin: Kinematics, solid: Any, v: Any, w: Any) -> Expr:
    """Kinetic energy of one solid whose reference point moves with ``v`` and base turns with ``w`` (or ``None``).

    ``solid``, ``v`` and ``w`` are the model's Solid and Vectors.
    """
    T = mul(mul(HALF, solid.mass), v.dot(v))
    if solid.is_particle or w is None or w.is_zero:
        return T
    if any(not c.is_zero for c in solid.first_moment):
        parts: dict = {}
        kin.add_part(parts, solid.base, solid.first_moment)
        T = add(T, v.dot(w.cross(kin.vector(parts))))
    wc = w.components(solid.base)
    I = solid.inertia_origin
    rot = ZERO
    for i in range(3):
        Iw_i = ZERO
        for j in range(3):
            Iw_i = add(Iw_i, mul(I[i][j], wc[j]))
        rot = add(rot, mul(wc[i], Iw_i))
    return add(T, mul(HALF, rot))


def _quadratic_form(M: list[list[Expr]], x: list[Expr]) -> Expr:
    """``1/2 x^T M x`` for a symmetric ``M``."""
    out = ZERO
    for i in range(len(x)):
        if not M[i][i].is_zero:
            out = add(out, mul(mul(HALF, M[i][i]), mul(x[i], x[i])))
        for j in range(i + 1, len(x)):
            if not M[i][j].is_zero:
                out = add(out, mul(M[i][j], mul(x[i], x[j])))
    return out


def kinetic_energy(system: System, M: list[list[Expr]]) -> Expr:
    """Kinetic energy ``T(q, dq, t)`` of every solid of ``system``, given its mass matrix ``M``.

    ``T = 1/2 dq^T M dq`` holds for the parts of the velocities linear in ``dq``; a solid
    whose velocity also has a part ``v_t`` at ``dq = 0`` (explicit time dependence) adds
    ``T(v, w) - T(v - v_t, w - w_t)``.  Only such solids cost new expressions.
    """
    kin = system.kinematics
    dq = [c.dq for c in system.coordinates]
    rest = {v: ZERO for v in dq}
    T = _quadratic_form(M, dq)
    cache: dict[Expr, Expr] = {}  # one memo for all solids: their velocities share the chain's terms
    for solid in system.solids.values():
        if not solid.has_inertia:
            continue
        v = kin.velocity(solid.point)
        w = None if solid.is_particle else kin.omega(solid.base)
        v_t = v.subs(rest, cache)
        w_t = None if w is None else w.subs(rest, cache)
        if v_t.is_zero and (w_t is None or w_t.is_zero):
            continue
        full = _solid_kinetic_energy(kin, solid, v, w)
        # the part that 1/2 dq^T M dq already holds
        in_M = _solid_kinetic_energy(kin, solid, v - v_t, None if w is None or w_t is None else w - w_t)
        T = add(T, sub(full, in_M))
    return T


def potential_energy(system: System) -> tuple[Expr, list[Expr], list[str]]:
    """The loads' potential energy and what remains beyond it.

    Returns:
        ``V(q, t)``, the sum of the potentials the loads declare
        (``load.potential_split``); ``Q_np``, the generalized forces (one per
        coordinate) of the loads or parts of loads without a potential; the names
        of those loads.
    """
    kin = system.kinematics
    V = ZERO
    asm = Assembler(system)
    names = []
    for load in system.loads:
        v, rest = load.potential_split(kin)
        if v is not None:
            V = add(V, v)
        if rest is not None:
            rest.apply(asm)
            names.append(load.name)
    return V, [asm.finalize(acc) for acc in asm.delta], names


__all__ = ["kinetic_energy", "potential_energy"]
