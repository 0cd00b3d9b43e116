"""Simple pendulum: a point mass on a massless rod, hinged at the origin.

The rod angle ``theta`` is measured from the downward vertical (-y), positive
counter-clockwise about z, so the bob is at ``(l sin(theta), -l cos(theta))``.
Gravity ``g`` acts along -y.  A viscous damper ``c`` acts in the hinge and an
input torque ``T`` (about +z) drives the rod.  With the defaults the equation
of motion is::

    m l^2 theta'' = T - c theta' - m g l sin(theta)

Outputs: the bob position ``x``, ``y`` in the ground frame.

Options:
    theta0: initial angle in rad (default 0.5).
    damping: include the hinge damper (default True).

Run ``symbody info examples/simple_pendulum.py``.
"""

import symbody as sb


def build(theta0: float = 0.5, damping: bool = True) -> sb.System:
    s = sb.System("simple_pendulum", description="point mass on a massless rod, hinged at the origin")
    g = s.parameter("g", 9.81, unit="m/s2", description="gravitational acceleration (along -y)")
    l = s.parameter("l", 1.0, unit="m", description="rod length", min=0.0)
    m = s.parameter("m", 1.0, unit="kg", description="bob mass", min=0.0)
    theta = s.coordinate("theta", theta0, unit="rad", description="rod angle from the downward vertical")
    T = s.input("T", 0.0, unit="N*m", description="torque applied to the rod about +z")
    rod = s.base("rod", s.ground_base, sb.Rz(theta))
    bob = s.point("bob", s.origin, sb.Vector(rod, 0, -l, 0))
    s.particle("bob_mass", bob, m)
    s.gravity((0, -g, 0))
    s.generalized_force("drive", theta, T)
    if damping:
        c = s.parameter("c", 0.05, unit="N*m*s/rad", description="viscous damping in the hinge", min=0.0)
        s.viscous_friction("hinge_damping", theta, c)
    x, y, _ = s.position(bob).components(s.ground_base)
    s.output("x", x, unit="m", description="bob position along x")
    s.output("y", y, unit="m", description="bob position along y")
    return s
