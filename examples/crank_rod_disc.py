"""Crank, rod and a disc rolling without slipping on a parabola.

3D_MEC_MATLAB example 3 (Gil Soto, 2005, section 5.5, parameters of annex B.2); the
same mechanism, on an inclined plane, is lib_3D_MEC-GiNaC's appendix A.3
(Plaza Puértolas, 2015), which adds a torque on the crank and viscous friction in the
crank-ground hinge (both present here, zero by default).

A crank ``O-b`` (length ``l1``, absolute angle ``a1``) and a rod ``b-c``
(length ``l2``, absolute angle ``a2``) carry a disc of radius ``rd`` hinged at
its centre ``c`` (absolute angle ``a3``).  The disc rolls without slipping on
the parabola ``y - y0p = -c0p (x - x0p)^2`` (an incline or flat ground for
``c0p = 0``).  The geometric contact point ``Pg = (xpg, ypg)`` is described by
two more coordinates, so ``q = (a1, a2, a3, xpg, ypg)``, with

* ``Cp1``: ``Pg`` on the disc rim, ``(xpg - xc)^2 + (ypg - yc)^2 - rd^2 = 0``;
* ``Cp2``: ``Pg`` on the parabola, ``(ypg - y0p) + c0p (xpg - x0p)^2 = 0``;
* ``Cp3``: no penetration, the gradients of both curves at ``Pg`` are parallel
  (their 2-D cross product vanishes);
* rolling, non-holonomic: the velocity of the disc's material point at ``Pg``
  vanishes.  Only its tangential component ``Cv1`` is independent of the
  holonomic rows (as in Plaza Puértolas, 2015: 3 geometric + 1 velocity equations, 1 degree of
  freedom); ``rolling="both"`` keeps both components ``Cv1, Cv2`` as in the
  3D_MEC_MATLAB listing, which makes the constraint set redundant (5 velocity
  rows of rank 4).

Bodies (annex B.2): crank ``m1 = 3``, ``Izz1 = 6`` at its midpoint; rod
``m2 = 2``, ``Izz2 = 2`` at its midpoint; disc ``m3 = 3``, ``Izz3 = 3`` at ``c``;
``g = 9.81`` along -y.  The mechanism falls under gravity from rest.

Initial configuration: Gil Soto (2005) starts from ``xpg0 = 12, ypg0 = 10``, which is
not on the parabola (its apex is at ``(12, 0)``); here the contact point starts
at the abscissa ``xpg0`` (option, default 12) on the parabola, the disc centre
``rd`` away along the normal, and the crank-rod pair closes the chain with the
rod's end above the crank's (elbow-up branch, crank near Gil Soto's (2005) initial
guess ``a1 = pi/3``).  These values satisfy every constraint; the assembly
rows are ``xpg - xpg0 = 0`` and ``a3 - a3_0 = 0`` (the disc angle appears in no
holonomic row).

Outputs: the disc centre ``x_c, y_c``.
"""

import math

import symbody as sb

DEFAULTS = {"l1": 4.0, "l2": 10.0, "rd": 1.5, "x0p": 12.0, "y0p": 0.0, "c0p": 0.15}


def initial_configuration(xpg0: float, p: dict | None = None) -> dict[str, float]:
    """Coordinates that satisfy every constraint with the contact point at abscissa ``xpg0``."""
    v = dict(DEFAULTS, **(p or {}))
    l1, l2, rd = v["l1"], v["l2"], v["rd"]
    xp = xpg0
    yp = v["y0p"] - v["c0p"] * (xp - v["x0p"]) ** 2
    nx, ny = 2 * v["c0p"] * (xp - v["x0p"]), 1.0  # outward normal of the parabola (gradient of Cp2)
    n = math.hypot(nx, ny)
    xc, yc = xp + rd * nx / n, yp + rd * ny / n
    d = math.hypot(xc, yc)
    if not abs(l1 - l2) < d < l1 + l2:
        raise sb.ModelError(f"crank_rod_disc: the chain cannot reach the disc centre at distance {d:g}")
    alpha = math.acos((l1 * l1 + d * d - l2 * l2) / (2 * l1 * d))
    a1 = math.atan2(yc, xc) + alpha
    bx, by = l1 * math.cos(a1), l1 * math.sin(a1)
    a2 = math.atan2(yc - by, xc - bx)
    return {"a1": a1, "a2": a2, "a3": 0.0, "xpg": xp, "ypg": yp}


def build(rolling: str = "tangential", xpg0: float = 12.0) -> sb.System:
    if rolling not in ("tangential", "both"):
        raise sb.ModelError(f"crank_rod_disc: rolling must be 'tangential' or 'both', not {rolling!r}")
    s = sb.System("crank_rod_disc", description="crank, rod and disc rolling on a parabola (3D_MEC_MATLAB example 3)")
    P = s.parameter
    l1 = P("l1", DEFAULTS["l1"], unit="m", description="crank length O-b")
    l2 = P("l2", DEFAULTS["l2"], unit="m", description="rod length b-c")
    rd = P("rd", DEFAULTS["rd"], unit="m", description="disc radius", min=0.0)
    x0p = P("x0p", DEFAULTS["x0p"], unit="m", description="abscissa of the parabola apex")
    y0p = P("y0p", DEFAULTS["y0p"], unit="m", description="ordinate of the parabola apex")
    c0p = P(
        "c0p",
        DEFAULTS["c0p"],
        unit="1/m",
        description="curvature coefficient of the parabola y - y0p = -c0p (x - x0p)^2",
    )
    m1 = P("m1", 3.0, unit="kg", description="crank mass", min=0.0)
    Izz1 = P("Izz1", 6.0, unit="kg*m2", description="crank moment of inertia about its centre of mass", min=0.0)
    m2 = P("m2", 2.0, unit="kg", description="rod mass", min=0.0)
    Izz2 = P("Izz2", 2.0, unit="kg*m2", description="rod moment of inertia about its centre of mass", min=0.0)
    m3 = P("m3", 3.0, unit="kg", description="disc mass", min=0.0)
    Izz3 = P("Izz3", 3.0, unit="kg*m2", description="disc moment of inertia about its centre", min=0.0)
    g = P("g", 9.81, unit="m/s2", description="gravitational acceleration (along -y)")
    c1 = P("c1", 0.0, unit="N*m*s/rad", description="viscous friction in the crank-ground hinge", min=0.0)
    xpg0_ = P("xpg0", xpg0, unit="m", description="initial abscissa of the contact point")

    q0 = initial_configuration(xpg0)
    a1 = s.coordinate("a1", q0["a1"], unit="rad", description="absolute crank angle")
    a2 = s.coordinate("a2", q0["a2"], unit="rad", description="absolute rod angle")
    a3 = s.coordinate("a3", q0["a3"], unit="rad", description="absolute disc angle")
    xpg = s.coordinate("xpg", q0["xpg"], unit="m", description="x of the geometric contact point Pg")
    ypg = s.coordinate("ypg", q0["ypg"], unit="m", description="y of the geometric contact point Pg")
    T1 = s.input("T1", 0.0, unit="N*m", description="torque on the crank about +z")

    or1 = s.base("or1", s.ground_base, sb.Rz(a1))
    or2 = s.base("or2", s.ground_base, sb.Rz(a2))
    or3 = s.base("or3", s.ground_base, sb.Rz(a3))
    b = s.point("b", s.origin, sb.Vector(or1, l1, 0, 0))
    c = s.point("c", b, sb.Vector(or2, l2, 0, 0))
    Pg = s.point("Pg", s.origin, (xpg, ypg, 0))

    crank = s.solid("bd1", s.origin, or1, mass=m1, com=(l1 / 2, 0, 0), inertia=(0, 0, Izz1))
    s.solid("bd2", b, or2, mass=m2, com=(l2 / 2, 0, 0), inertia=(0, 0, Izz2))
    disc = s.solid("bd3", c, or3, mass=m3, inertia=(0, 0, Izz3))
    s.gravity((0, -g, 0))
    s.torque("crank_torque", crank, (0, 0, T1))
    s.viscous_friction("friction01", a1, c1)

    xc, yc, _ = s.position(c).components(s.ground_base)
    s.constraint("Cp1", (xpg - xc) ** 2 + (ypg - yc) ** 2 - rd**2)
    parabola = (ypg - y0p) + c0p * (xpg - x0p) ** 2
    s.constraint("Cp2", parabola)
    grad1 = (2 * (xpg - xc), 2 * (ypg - yc))
    grad2 = (2 * c0p * (xpg - x0p), 1)
    s.constraint("Cp3", grad1[0] * grad2[1] - grad1[1] * grad2[0])

    v = s.velocity(Pg, solid=disc).components(s.ground_base)
    if rolling == "tangential":
        tangent = (grad2[1], -grad2[0])  # tangent of the parabola at Pg
        s.velocity_constraint("Cv1", v[0] * tangent[0] + v[1] * tangent[1])
    else:
        s.velocity_constraint("Cv", [v[0], v[1]])

    s.initial_constraint("Cpini1", xpg - xpg0_)
    s.fix_initial(a3)

    s.output("x_c", xc, unit="m", description="x of the disc centre")
    s.output("y_c", yc, unit="m", description="y of the disc centre")
    return s
