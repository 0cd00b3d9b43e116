"""Four-bar linkage of lib_3D_MEC-GiNaC (Plaza Puértolas, 2015, appendix A.2).

Three bars in the x-z plane, joined by revolute joints about y and described
by three relative angles ``theta1..3`` (each bar's base is rotated about y from
the previous one).  Bar ``i`` has its frame at its first joint (O, A, B), its
centre of mass at ``(cg{i}x, 0, cg{i}z)`` in its own base and its inertia
tensor ``I{i}`` about that joint (only ``I{i}yy`` enters the planar equations).  The loop closes at C = O2 (two holonomic
equations, x and z of ``r_O2C``).  Gravity acts along -z.  Bars 2 and 3 carry
an external force (``Fx``, ``Fz``, in the bar's base) and moment (``My``) at A
and B; a spring of stiffness ``K`` joins K1 (on bar 2) and K2 (on bar 3).

``spring=False`` drops the spring: this is the model whose ``[M | delta]`` code
Plaza Puértolas (2015) compares with Robotran (its listing B.6).
"""

import math

import symbody as sb


def closed_angles(l1: float, l2: float, l3: float, l4: float, theta1: float) -> tuple[float, float]:
    """Relative angles theta2, theta3 that close the loop for a given crank angle theta1."""
    # rotation about y by a maps x to (cos a, 0, -sin a): planar angle in the x-(-z) plane
    ax, az = l1 * math.cos(theta1), -l1 * math.sin(theta1)
    cx, cz = l4, 0.0
    dx, dz = cx - ax, cz - az
    d = math.hypot(dx, dz)
    a = (l2 * l2 - l3 * l3 + d * d) / (2 * d)
    h = math.sqrt(max(l2 * l2 - a * a, 0.0))
    bx = ax + a * dx / d - h * dz / d
    bz = az + a * dz / d + h * dx / d
    phi2 = math.atan2(-(bz - az), bx - ax)  # absolute angle of bar 2
    phi3 = math.atan2(-(cz - bz), cx - bx)  # absolute angle of bar 3
    return phi2 - theta1, phi3 - phi2


def build(spring: bool = True, theta1: float = -math.pi / 2) -> sb.System:
    s = sb.System("four_bar", description="four-bar linkage, lib_3D_MEC-GiNaC appendix A.2")
    P = s.parameter
    l1, l2, l3, l4 = P("l1", 0.4, unit="m"), P("l2", 2.0, unit="m"), P("l3", 1.2, unit="m"), P("l4", 1.6, unit="m")
    m1, m2, m3 = P("m1", 1.0, unit="kg"), P("m2", 1.0, unit="kg"), P("m3", 1.0, unit="kg")
    cg1x, cg1z = P("cg1x", 0.2, unit="m"), P("cg1z", 0.05, unit="m")
    cg2x, cg2z = P("cg2x", 1.0, unit="m"), P("cg2z", 0.05, unit="m")
    cg3x, cg3z = P("cg3x", 0.6, unit="m"), P("cg3z", 0.05, unit="m")
    # inertia about each bar's joint, for uniform slender bars (defaults); only Iyy enters the
    # planar equations, the other entries make the tensors physical
    tensors = []
    for i, (L, cx, cz) in enumerate(((0.4, 0.2, 0.05), (2.0, 1.0, 0.05), (1.2, 0.6, 0.05)), start=1):
        iy = L * L / 12 + cx * cx + cz * cz
        ixx = P(f"I{i}xx", 1e-4 + cz * cz, unit="kg*m2")
        iyy = P(f"I{i}yy", iy, unit="kg*m2")
        izz = P(f"I{i}zz", L * L / 12 + cx * cx, unit="kg*m2")
        ixz = P(f"I{i}xz", -cx * cz, unit="kg*m2")
        tensors.append((iyy, sb.inertia(ixx, iyy, izz, ixz=ixz)))
    (I1, T1), (I2, T2), (I3, T3) = tensors
    g = P("g", 9.8, unit="m/s2")
    th2_0, th3_0 = closed_angles(0.4, 2.0, 1.2, 1.6, theta1)
    th1 = s.coordinate("theta1", theta1, unit="rad")
    th2 = s.coordinate("theta2", th2_0, unit="rad")
    th3 = s.coordinate("theta3", th3_0, unit="rad")
    B1 = s.base("Barm1", s.ground_base, sb.Ry(th1))
    B2 = s.base("Barm2", B1, sb.Ry(th2))
    B3 = s.base("Barm3", B2, sb.Ry(th3))
    A = s.point("A", s.origin, sb.Vector(B1, l1, 0, 0))
    Bp = s.point("B", A, sb.Vector(B2, l2, 0, 0))
    C = s.point("C", Bp, sb.Vector(B3, l3, 0, 0))
    O2 = s.point("O2", s.origin, (l4, 0, 0))
    s.solid("arm1", s.origin, B1, mass=m1, com=(cg1x, 0, cg1z), inertia=T1, inertia_at="origin")
    arm2 = s.solid("arm2", A, B2, mass=m2, com=(cg2x, 0, cg2z), inertia=T2, inertia_at="origin")
    arm3 = s.solid("arm3", Bp, B3, mass=m3, com=(cg3x, 0, cg3z), inertia=T3, inertia_at="origin")
    s.gravity((0, 0, -g))
    Fx2, Fz2, My2 = s.input("Fx2", unit="N"), s.input("Fz2", unit="N"), s.input("My2", unit="N*m")
    Fx3, Fz3, My3 = s.input("Fx3", unit="N"), s.input("Fz3", unit="N"), s.input("My3", unit="N*m")
    s.force("load2", arm2, A, sb.Vector(B2, Fx2, 0, Fz2), sb.Vector(B2, 0, My2, 0))
    s.force("load3", arm3, Bp, sb.Vector(B3, Fx3, 0, Fz3), sb.Vector(B3, 0, My3, 0))
    if spring:
        K = P("K", 50.0, unit="N/m")
        L0 = P("L0", 0.0, unit="m", description="spring rest length")
        K1 = s.point("K1", A, sb.Vector(B2, P("l2x", 1.0, unit="m"), 0, P("l2z", 0.1, unit="m")))
        K2 = s.point("K2", Bp, sb.Vector(B3, P("l3x", 0.5, unit="m"), 0, P("l3z", 0.1, unit="m")))
        s.spring_damper("spring", K1, K2, k=K, rest_length=L0)
    s.constraint("loop", s.position(O2, C), components="xz")
    s.fix_initial(th1)
    s.output_vector("C", s.position(C), unit="m")
    return s
