"""Kinetic and potential energy of a system, as expressions.

The kinetic energy of a solid with reference point ``O``, base ``B``, mass
``m``, first moment ``m r`` (centre of mass from ``O``) and inertia ``I_O`` at
``O`` is::

    T = 1/2 m v_O.v_O + v_O.(omega x m r) + 1/2 omega.(I_O omega)

with the *full* velocities: ``v_O`` and ``omega`` include the explicit time
derivatives of rheonomic models (a point moved by a law of time), which the
quadratic form ``1/2 dq^T M dq`` misses.

The potential energy is the sum of the potentials the loads declare
(``load.potential(kinematics)``: gravity ``-m g.r_G`` for every solid, ``1/2 k
(l - l0)^2`` for springs, ``1/2 k (a - a0)^2`` for torsion springs).  Whatever a
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
    >>> T = kinetic_energy(s)   # m/2 (dx_s^2 + 2 dx_s l dth cos(th) + l^2 dth^2)
    >>> sorted(str(v) for v in T.sympy().free_symbols)
    ['dth', 't', 'th']
    >>> V, Q_np, rest = potential_energy(s)
    >>> V.sympy(), Q_np, rest
    (-19.62*cos(th), [0], [])
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .dynamics import Assembler
from .expr import HALF, ZERO, Expr, add, mul

if TYPE_CHECKING:
    from ..model.solid import Solid
    from ..model.system import System
    from .kinematics import Kinematics


def solid_kinetic_energy(kin: Kinematics, solid: Solid) -> Expr:
    """Kinetic energy of one solid (full velocities, explicit time dependence included)."""
    v = kin.velocity(solid.point)
    T = mul(mul(HALF, solid.mass), v.dot(v))
    if solid.is_particle:
        return T
    w = kin.omega(solid.base)
    if w.is_zero:
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


def kinetic_energy(system: System) -> Expr:
    """Kinetic energy ``T(q, dq, t)`` of every solid of ``system``."""
    kin = system.kinematics
    T = ZERO
    for solid in system.solids.values():
        if solid.has_inertia:
            T = add(T, solid_kinetic_energy(kin, solid))
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


__all__ = ["kinetic_energy", "solid_kinetic_energy", "potential_energy"]
