"""Slider-crank whose rod is as long as its crank: it passes through a singular position.

Crank ``O-b`` and rod ``b-c`` both of length ``L``, absolute angles ``a1`` and
``a2`` about z; the slider (point mass at ``c``) is held on the x axis by one
holonomic row, ``y_c = L sin a1 + L sin a2 = 0``.  The mechanism lies in a
horizontal plane (no gravity, no friction) and is launched with a crank speed,
so it turns for ever (``a10`` is the start angle of the crank).  When the crank
is perpendicular to the guide
(``a1 = pi/2``) the slider reaches the pivot ``O``: the constraint's Jacobian
row ``L (cos a1, cos a2)`` vanishes there and the branch ``a2 = -a1`` (slider
moving, ``x_c = 2 L cos a1``) crosses the branch ``a2 = a1 + pi`` (slider at
rest at ``O``).  The motion that keeps its velocity stays on ``a2 = -a1``.
"""

import symbody as sb


def build(omega: float = 3.0, a10: float = 0.0, redundant: bool = False, rod_turned: bool = False) -> sb.System:
    s = sb.System("equal_slider_crank", description="slider-crank with rod length = crank length")
    P = s.parameter
    L = P("L", 1.0, unit="m", description="crank and rod length")
    m1 = P("m1", 1.0, unit="kg", description="crank mass (at its midpoint)", min=0.0)
    J1 = P("J1", 0.1, unit="kg*m2", description="crank moment of inertia about its midpoint", min=0.0)
    m2 = P("m2", 0.5, unit="kg", description="rod mass (at its midpoint)", min=0.0)
    J2 = P("J2", 0.03, unit="kg*m2", description="rod moment of inertia about its midpoint", min=0.0)
    m3 = P("m3", 2.0, unit="kg", description="slider mass", min=0.0)
    a1 = s.coordinate("a1", a10, omega, unit="rad", description="absolute crank angle")
    a2 = s.coordinate("a2", -a10, -omega, unit="rad", description="absolute rod angle")
    B1 = s.base("B1", s.ground_base, sb.Rz(a1))
    B2 = s.base("B2", s.ground_base, sb.Rz(a2))
    b = s.point("b", s.origin, sb.Vector(B1, L, 0, 0))
    c = s.point("c", b, sb.Vector(B2, L, 0, 0))
    s.solid("crank", s.origin, B1, mass=m1, com=(L / 2, 0, 0), inertia=(0, 0, J1))
    s.solid("rod", b, B2, mass=m2, com=(L / 2, 0, 0), inertia=(0, 0, J2))
    s.particle("slider", c, m3)
    s.constraint("guide", s.position(c).components(s.ground_base)[1])
    if redundant:  # the guide once more, through the rod's midpoint: a row always dependent on 'guide'
        s.constraint("guide_again", (s.position(b).components(s.ground_base)[1] + s.position(c).components(s.ground_base)[1]) / 2
                     - L * sb.sin(a1) / 2)  # fmt: skip
    if rod_turned:  # a first-order state: the angle the rod turned since the start, a2 - a20 on the motion
        s.state("rod_turned", 0.0, unit="rad", description="angle the rod turned", rate=s.dt(a2))
    s.output("x_c", s.position(c).components(s.ground_base)[0], unit="m", description="slider position")
    s.output("N", -s.multiplier("guide"), unit="N", description="normal force of the guide on the slider (+y)")
    return s
