"""The Whipple bicycle of the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (2007).

Meijaard, J. P., Papadopoulos, J. M., Ruina, A. and Schwab, A. L., "Linearized dynamics
equations for the balance and steer of a bicycle: a benchmark and review", Proceedings of the
Royal Society A 463 (2007) 1955-1982: four rigid bodies (rear wheel R, rear frame and rider B,
front frame H, front wheel F) with the parameters of its Table 1, knife-edge wheels rolling
without slipping on flat ground.

Axes as in the paper: ``x`` forward, ``y`` to the right, ``z`` down, the origin of the
reference configuration at the rear contact point.  Coordinates: the rear contact point ``x,
y``, the rear frame's yaw ``psi``, roll ``phi`` (to the right) and pitch ``theta``, the steer
angle ``delt`` (to the right, about the steer axis, which is tilted back by ``lam`` and meets
the ground a trail ``c`` ahead of the front contact) and the wheel rotations ``thetaR``,
``thetaF`` relative to their frames.  Constraint rows: the front contact on the ground
(holonomic: it fixes the pitch) and rolling without slipping of both wheels (four velocity
rows).  The upright configuration with all coordinates zero is assembled exactly; the
bicycle runs straight at speed ``v`` with ``dx = v``, ``dthetaR = -v / rR``,
``dthetaF = -v / rF``.  The linearization about it in roll and steer is the benchmark's
``M q'' + v C1 q' + (g K0 + v^2 K2) q = f``.

The inertia of the front frame is given in a base fixed to it (``fork_ref``) that coincides
with the rear frame's base at zero steer, so every number is the paper's own.
"""

import math

import symbody as sb


def build(v: float = 4.6, phi: float = 0.0, delt: float = 0.0, hold_yaw: bool = False) -> sb.System:
    s = sb.System("whipple_bicycle", description="Whipple bicycle of the benchmark of Meijaard et al. (2007)")
    P = s.parameter
    w = P("w", 1.02, unit="m", description="wheel base")
    c = P("c", 0.08, unit="m", description="trail")
    lam = P("lam", math.pi / 10, unit="rad", description="steer axis tilt (pi/2 - head angle)")
    g = P("g", 9.81, unit="m/s2", description="gravity")
    rR = P("rR", 0.3, unit="m", description="rear wheel radius")
    mR = P("mR", 2.0, unit="kg", description="rear wheel mass", min=0.0)
    IRxx = P("IRxx", 0.0603, unit="kg*m2", description="rear wheel moment of inertia about a diameter", min=0.0)
    IRyy = P("IRyy", 0.12, unit="kg*m2", description="rear wheel moment of inertia about its axle", min=0.0)
    xB = P("xB", 0.3, unit="m", description="rear frame centre of mass, forward")
    zB = P("zB", -0.9, unit="m", description="rear frame centre of mass, down")
    mB = P("mB", 85.0, unit="kg", description="rear frame and rider mass", min=0.0)
    IBxx = P("IBxx", 9.2, unit="kg*m2", description="rear frame inertia xx")
    IByy = P("IByy", 11.0, unit="kg*m2", description="rear frame inertia yy")
    IBzz = P("IBzz", 2.8, unit="kg*m2", description="rear frame inertia zz")
    IBxz = P("IBxz", 2.4, unit="kg*m2", description="rear frame inertia xz (tensor entry)")
    xH = P("xH", 0.9, unit="m", description="front frame centre of mass, forward")
    zH = P("zH", -0.7, unit="m", description="front frame centre of mass, down")
    mH = P("mH", 4.0, unit="kg", description="front frame mass", min=0.0)
    IHxx = P("IHxx", 0.05892, unit="kg*m2", description="front frame inertia xx")
    IHyy = P("IHyy", 0.06, unit="kg*m2", description="front frame inertia yy")
    IHzz = P("IHzz", 0.00708, unit="kg*m2", description="front frame inertia zz")
    IHxz = P("IHxz", -0.00756, unit="kg*m2", description="front frame inertia xz (tensor entry)")
    rF = P("rF", 0.35, unit="m", description="front wheel radius")
    mF = P("mF", 3.0, unit="kg", description="front wheel mass", min=0.0)
    IFxx = P("IFxx", 0.1405, unit="kg*m2", description="front wheel moment of inertia about a diameter", min=0.0)
    IFyy = P("IFyy", 0.28, unit="kg*m2", description="front wheel moment of inertia about its axle", min=0.0)

    x = s.coordinate("x", 0.0, v, unit="m", description="rear contact point, forward")
    y = s.coordinate("y", 0.0, 0.0, unit="m", description="rear contact point, to the right")
    psi = s.coordinate("psi", 0.0, 0.0, unit="rad", description="yaw of the rear frame")
    roll = s.coordinate("phi", phi, 0.0, unit="rad", description="roll of the rear frame (to the right)")
    pitch = s.coordinate("theta", 0.0, 0.0, unit="rad", description="pitch of the rear frame")
    steer = s.coordinate("delt", delt, 0.0, unit="rad", description="steer angle (to the right)")
    qR = s.coordinate("thetaR", 0.0, -v / 0.3, unit="rad", description="rear wheel rotation")
    qF = s.coordinate("thetaF", 0.0, -v / 0.35, unit="rad", description="front wheel rotation")

    yaw = s.base("yaw", s.ground_base, sb.Rz(psi))
    lean = s.base("lean", yaw, sb.Rx(roll))
    frame = s.base("frame", lean, sb.Ry(pitch))
    head = s.base("head", frame, sb.Ry(lam))  # z along the steer axis, pointing down
    fork = s.base("fork", head, sb.Rz(steer))
    fork_ref = s.base("fork_ref", fork, sb.Ry(-lam))  # fixed to the front frame; the frame's base at zero steer
    rear_spin = s.base("rear_spin", frame, sb.Ry(qR))
    front_spin = s.base("front_spin", fork_ref, sb.Ry(qF))

    rear_contact = s.point("Pr", s.origin, (x, y, 0))
    rear_centre = s.point("Cr", rear_contact, sb.Vector(lean, 0, 0, -rR))
    rear_com = s.point("GB", rear_centre, sb.Vector(frame, xB, 0, zB + rR))
    steer_foot = s.point("S", rear_centre, sb.Vector(frame, w + c, 0, rR))  # the steer axis at the ground
    front_centre = s.point("Cf", steer_foot, sb.Vector(fork_ref, -c, 0, -rF))
    front_com = s.point("GH", steer_foot, sb.Vector(fork_ref, xH - w - c, 0, zH))
    axle = sb.Vector(fork_ref, 0, 1, 0)
    down = axle.cross(sb.Vector(s.ground_base, 0, 0, 1).cross(axle)).normalized()  # in the wheel plane
    front_contact = s.point("Pf", front_centre, down * rF)

    rear = s.solid("rear_wheel", rear_centre, rear_spin, mass=mR, inertia=(IRxx, IRyy, IRxx))
    s.solid("rear_frame", rear_com, frame, mass=mB, inertia=sb.inertia(IBxx, IByy, IBzz, ixz=IBxz))
    s.solid("front_frame", front_com, fork_ref, mass=mH, inertia=sb.inertia(IHxx, IHyy, IHzz, ixz=IHxz))
    front = s.solid("front_wheel", front_centre, front_spin, mass=mF, inertia=(IFxx, IFyy, IFxx))
    s.gravity((0, 0, g))

    s.constraint("front_contact", s.position(front_contact).components(s.ground_base)[2])
    s.velocity_constraint("rear_rolling", s.velocity(rear_contact, solid=rear), base=s.ground_base, components="xy")
    s.velocity_constraint("front_rolling", s.velocity(front_contact, solid=front), base=s.ground_base, components="xy")
    if hold_yaw:
        s.fix_initial(psi)
    return s
