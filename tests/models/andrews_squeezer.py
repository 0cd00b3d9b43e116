"""Andrews' squeezing mechanism, as in the test set for IVP solvers and in Hairer and Wanner.

Mazzia, F. and Magherini, C., "Test Set for Initial Value Problem Solvers", release 2.4,
University of Bari (2008), problem "Andrews' squeezing mechanism"; Hairer, E. and Wanner, G.,
"Solving Ordinary Differential Equations II", 2nd ed., Springer (1996), section VII.7.

Seven rigid bodies move in a horizontal plane (no gravity); seven absolute or relative angles:
``beta`` (body 1, the crank, driven by the torque ``mom`` = 0.033 N m about the fixed point O),
``Theta`` (body 2 relative to body 1), ``gamma`` (body 3 about B), ``Phi`` (body 4 relative to
body 5), ``delta`` (body 5 about A), ``Omega`` (body 6 relative to body 7) and ``epsilon``
(body 7 about A).  Body 2 is joined at its end E to bodies 3, 4 and 6: the six constraint rows
are the test set's, written as given there.  A spring of stiffness ``c0`` and rest length
``l0`` joins the fixed point C to a point of body 3.  The bodies' centres of mass are placed so
that the mass matrix is the test set's; the direction of a centre of mass from its body's
only pivot does not enter it (no gravity), only its distance.

The coordinate ``delta`` of the test set is named ``delt`` here (``delta`` is reserved).
"""

import symbody as sb

#: consistent initial positions of the test set (velocities zero)
Q0 = {
    "beta": -0.0617138900142764496358948458001,
    "Theta": 0.0,
    "gamma": 0.455279819163070380255912382449,
    "Phi": 0.222668390165885884674473185609,
    "delt": 0.487364979543842550225598953530,
    "Omega": -0.222668390165885884674473185609,
    "epsilon": 1.23054744454982119249735015568,
}


def build() -> sb.System:
    s = sb.System("andrews_squeezer", description="Andrews' squeezing mechanism (IVP test set)")
    P = s.parameter
    m1, m2, m3, m4 = (
        P("m1", 0.04325, unit="kg"),
        P("m2", 0.00365, unit="kg"),
        P("m3", 0.02373, unit="kg"),
        P("m4", 0.00706, unit="kg"),
    )
    m5, m6, m7 = P("m5", 0.07050, unit="kg"), P("m6", 0.00706, unit="kg"), P("m7", 0.05498, unit="kg")
    i1, i2, i3 = P("i1", 2.194e-6, unit="kg*m2"), P("i2", 4.410e-7, unit="kg*m2"), P("i3", 5.255e-6, unit="kg*m2")
    i4, i5, i6 = P("i4", 5.667e-7, unit="kg*m2"), P("i5", 1.169e-5, unit="kg*m2"), P("i6", 5.667e-7, unit="kg*m2")
    i7 = P("i7", 1.912e-5, unit="kg*m2")
    xa, ya = P("xa", -0.06934, unit="m"), P("ya", -0.00227, unit="m")
    xb, yb = P("xb", -0.03635, unit="m"), P("yb", 0.03273, unit="m")
    xc, yc = P("xc", 0.014, unit="m"), P("yc", 0.072, unit="m")
    c0 = P("c0", 4530.0, unit="N/m", description="spring stiffness")
    d, da, e, ea = (
        P("d", 28e-3, unit="m"),
        P("da", 115e-4, unit="m"),
        P("e", 2e-2, unit="m"),
        P("ea", 1421e-5, unit="m"),
    )
    rr, ra, l0 = (
        P("rr", 7e-3, unit="m"),
        P("ra", 92e-5, unit="m"),
        P("l0", 7785e-5, unit="m", description="spring rest length"),
    )
    ss, sa, sb_ = P("ss", 35e-3, unit="m"), P("sa", 1874e-5, unit="m"), P("sb", 1043e-5, unit="m")
    sc, sd = P("sc", 18e-3, unit="m"), P("sd", 2e-2, unit="m")
    ta, tb = P("ta", 2308e-5, unit="m"), P("tb", 916e-5, unit="m")
    u, ua, ub = P("u", 4e-2, unit="m"), P("ua", 1228e-5, unit="m"), P("ub", 449e-5, unit="m")
    zf, zt, fa = P("zf", 2e-2, unit="m"), P("zt", 4e-2, unit="m"), P("fa", 1421e-5, unit="m")
    mom = P("mom", 33e-3, unit="N*m", description="drive torque")

    q = {name: s.coordinate(name, value, 0.0, unit="rad") for name, value in Q0.items()}
    beta, Theta, gamma, Phi, delt, Omega, eps = q.values()
    b1 = s.base("b1", s.ground_base, sb.Rz(beta))
    b2 = s.base("b2", b1, sb.Rz(Theta))
    b3 = s.base("b3", s.ground_base, sb.Rz(gamma))
    b5 = s.base("b5", s.ground_base, sb.Rz(delt))
    b4 = s.base("b4", b5, sb.Rz(Phi))
    b7 = s.base("b7", s.ground_base, sb.Rz(eps))
    b6 = s.base("b6", b7, sb.Rz(Omega))
    A = s.point("A", s.origin, (xa, ya, 0))
    B = s.point("B", s.origin, (xb, yb, 0))
    C = s.point("C", s.origin, (xc, yc, 0))
    F = s.point("F", s.origin, sb.Vector(b1, rr, 0, 0))  # joint of bodies 1 and 2
    G = s.point("G", A, sb.Vector(b5, zt, 0, 0))  # joint of bodies 5 and 4
    H = s.point("H", A, sb.Vector(b7, 0, -u, 0))  # joint of bodies 7 and 6
    D = s.point("D", B, sb.Vector(b3, sd, -sc, 0))  # spring end on body 3

    s.solid("K1", s.origin, b1, mass=m1, com=(ra, 0, 0), inertia=(0, 0, i1))
    s.solid("K2", F, b2, mass=m2, com=(-da, 0, 0), inertia=(0, 0, i2))
    s.solid("K3", B, b3, mass=m3, com=(sa, sb_, 0), inertia=(0, 0, i3))
    s.solid("K4", G, b4, mass=m4, com=(0, -(e - ea), 0), inertia=(0, 0, i4))
    s.solid("K5", A, b5, mass=m5, com=(ta, tb, 0), inertia=(0, 0, i5))
    s.solid("K6", H, b6, mass=m6, com=(zf - fa, 0, 0), inertia=(0, 0, i6))
    s.solid("K7", A, b7, mass=m7, com=(ua, ub, 0), inertia=(0, 0, i7))

    s.generalized_force("drive", beta, mom)
    s.spring_damper("spring", C, D, k=c0, rest_length=l0)

    cos, sin = sb.cos, sb.sin
    ex = rr * cos(beta) - d * cos(beta + Theta)
    ey = rr * sin(beta) - d * sin(beta + Theta)
    s.constraint("g1", ex - ss * sin(gamma) - xb)
    s.constraint("g2", ey + ss * cos(gamma) - yb)
    s.constraint("g3", ex - e * sin(Phi + delt) - zt * cos(delt) - xa)
    s.constraint("g4", ey + e * cos(Phi + delt) - zt * sin(delt) - ya)
    s.constraint("g5", ex - zf * cos(Omega + eps) - u * sin(eps) - xa)
    s.constraint("g6", ey - zf * sin(Omega + eps) + u * cos(eps) - ya)
    for k in range(1, 7):
        s.output(f"lam{k}", s.multiplier(f"g{k}"), unit="N", description=f"multiplier of constraint row g{k}")
    return s
