"""Parallelogram four-bar linkage: it lies flat twice per turn, a singular position.

Ground pivots ``O = (0, 0)`` and ``D = (a, 0)``; crank ``O-A`` and rocker ``D-B``
of length ``b``, coupler ``A-B`` of length ``a`` (as long as the ground link).
Absolute angles ``phi1`` (crank), ``phi2`` (coupler) and ``phi3`` (rocker) about
z; the loop closes at ``B`` (two holonomic rows).  Horizontal plane, no
friction: launched with a crank speed the linkage turns for ever.  On the
parallelogram branch the coupler translates (``phi2 = 0``, ``phi3 = phi1``);
when the bars lie along the ground line (``phi1 = 0`` or ``pi``) the two loop
rows become dependent and the anti-parallelogram branch crosses this one.
"""

import math

import symbody as sb


def build(omega: float = 2.0, phi0: float = math.pi / 2) -> sb.System:
    s = sb.System("parallelogram", description="parallelogram four-bar linkage")
    P = s.parameter
    a = P("a", 2.0, unit="m", description="ground and coupler length")
    b = P("b", 1.0, unit="m", description="crank and rocker length")
    m1 = P("m1", 1.0, unit="kg", description="crank mass (uniform bar)", min=0.0)
    m2 = P("m2", 2.0, unit="kg", description="coupler mass (uniform bar)", min=0.0)
    m3 = P("m3", 1.5, unit="kg", description="rocker mass (uniform bar)", min=0.0)
    phi1 = s.coordinate("phi1", phi0, omega, unit="rad", description="crank angle")
    phi2 = s.coordinate("phi2", 0.0, 0.0, unit="rad", description="coupler angle")
    phi3 = s.coordinate("phi3", phi0, omega, unit="rad", description="rocker angle")
    B1 = s.base("B1", s.ground_base, sb.Rz(phi1))
    B2 = s.base("B2", s.ground_base, sb.Rz(phi2))
    B3 = s.base("B3", s.ground_base, sb.Rz(phi3))
    A = s.point("A", s.origin, sb.Vector(B1, b, 0, 0))
    B = s.point("B", A, sb.Vector(B2, a, 0, 0))
    D = s.point("D", s.origin, (a, 0, 0))
    Bd = s.point("Bd", D, sb.Vector(B3, b, 0, 0))
    s.solid("crank", s.origin, B1, mass=m1, com=(b / 2, 0, 0), inertia=(0, 0, m1 * b**2 / 12))
    s.solid("coupler", A, B2, mass=m2, com=(a / 2, 0, 0), inertia=(0, 0, m2 * a**2 / 12))
    s.solid("rocker", D, B3, mass=m3, com=(b / 2, 0, 0), inertia=(0, 0, m3 * b**2 / 12))
    s.constraint("loop", s.position(Bd, B), components="xy")
    s.output("lam_x", s.multiplier("loop_x"), unit="N", description="multiplier of the loop's x row")
    s.output("lam_y", s.multiplier("loop_y"), unit="N", description="multiplier of the loop's y row")
    return s
