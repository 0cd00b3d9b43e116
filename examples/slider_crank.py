"""Slider-crank mechanism of 3D_MEC_MATLAB, example 1 (Gil Soto, 2005, section 5.3, parameters of annex B.1).

A crank ``O-b`` (length ``l1``) turns about the fixed origin; a connecting rod
``b-c`` (length ``l2``) drives a slider (point mass ``m3`` at ``c``) along the
x axis.  The motion is described by the *absolute* angles ``a1`` (crank) and
``a2`` (rod), both about z from the ground x axis, tied by one holonomic
constraint: the y coordinate of ``c`` vanishes (3D_MEC ``new_Cp('Cp1', PoC(2,1))``).
The crank starts at ``a1 = a10 = pi/3`` (initial-position condition
``a1 - a10 = 0``, 3D_MEC ``new_Cpini``), the rod angle that closes the
mechanism there is ``a2 = -asin(l1 sin(a10) / l2)``.

Dynamics as in the thesis listing, with the values of its simulation (text
of section 5.3.2 and annex B.1):

* crank: mass ``m1`` at its midpoint ``d``, ``Izz1`` about ``d``;
* rod: mass ``m2`` at its midpoint ``e``, ``Izz2`` about ``e``;
* slider: point mass ``m3`` at ``c``;
* gravity ``g`` along -y on the three bodies;
* a spring-damper (``k3``, rest length ``l03``, ``c3``) between the origin and ``c``;
* viscous friction ``c1`` in the crank-ground hinge and ``c2`` in the crank-rod hinge.

Outputs: the slider position ``x_c`` and the normal force ``F_guide`` that
the guide exerts on the slider along +y (``-lambda`` of the constraint).
The mechanism is released from rest.

Run ``symbody info examples/slider_crank.py``.
"""

import math

import symbody as sb


def closing_rod_angle(l1: float, l2: float, a1: float) -> float:
    """Absolute rod angle ``a2`` that puts ``c`` on the x axis for crank angle ``a1`` (slider on the +x side)."""
    return -math.asin(l1 * math.sin(a1) / l2)


def build(a10: float = math.pi / 3) -> sb.System:
    s = sb.System("slider_crank", description="slider-crank mechanism, 3D_MEC_MATLAB example 1")
    P = s.parameter
    l1 = P("l1", 4.0, unit="m", description="crank length O-b")
    l2 = P("l2", 10.0, unit="m", description="connecting rod length b-c")
    m1 = P("m1", 1.0, unit="kg", description="crank mass", min=0.0)
    Izz1 = P("Izz1", 1.0, unit="kg*m2", description="crank moment of inertia about its centre of mass", min=0.0)
    m2 = P("m2", 2.0, unit="kg", description="rod mass", min=0.0)
    Izz2 = P("Izz2", 2.0, unit="kg*m2", description="rod moment of inertia about its centre of mass", min=0.0)
    m3 = P("m3", 3.0, unit="kg", description="slider mass", min=0.0)
    g = P("g", 9.81, unit="m/s2", description="gravitational acceleration (along -y)")
    a10_ = P("a10", a10, unit="rad", description="initial crank angle")
    l03 = P("l03", 8.0, unit="m", description="rest length of the spring O-c", min=0.0)
    k3 = P("k3", 100.0, unit="N/m", description="stiffness of the spring O-c", min=0.0)
    c3 = P("c3", 4.0, unit="N*s/m", description="damping of the spring O-c", min=0.0)
    c1 = P("c1", 1.0, unit="N*m*s/rad", description="viscous friction in the crank-ground hinge", min=0.0)
    c2 = P("c2", 1.0, unit="N*m*s/rad", description="viscous friction in the crank-rod hinge", min=0.0)

    a1 = s.coordinate("a1", a10, unit="rad", description="absolute crank angle")
    a2 = s.coordinate("a2", closing_rod_angle(4.0, 10.0, a10), unit="rad", description="absolute rod angle")

    or1 = s.base("or1", s.ground_base, sb.Rz(a1))
    or2 = s.base("or2", s.ground_base, sb.Rz(a2))
    b = s.point("b", s.origin, sb.Vector(or1, l1, 0, 0))
    c = s.point("c", b, sb.Vector(or2, l2, 0, 0))

    crank = s.solid("bd1", s.origin, or1, mass=m1, com=(l1 / 2, 0, 0), inertia=(0, 0, Izz1))
    rod = s.solid("bd2", b, or2, mass=m2, com=(l2 / 2, 0, 0), inertia=(0, 0, Izz2))
    s.particle("bd3", c, m3)
    s.gravity((0, -g, 0))

    s.constraint("Cp1", s.position(c).components(s.ground_base)[1])
    s.initial_constraint("Cpini1", a1 - a10_)

    s.spring_damper("spring3", s.origin, c, k=k3, rest_length=l03, damping=c3)
    s.viscous_friction("friction01", c=c1, base1=s.ground_base, base2=crank.base)
    s.viscous_friction("friction12", c=c2, base1=crank.base, base2=rod.base)

    s.output("x_c", s.position(c).components(s.ground_base)[0], unit="m", description="slider position")
    s.output("F_guide", -s.multiplier("Cp1"), unit="N", description="normal force of the guide on the slider (+y)")
    return s
