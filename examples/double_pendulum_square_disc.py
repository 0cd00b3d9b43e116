"""Double pendulum of a square and a disc (Problemas dinámicos, section 2.4, fig. 6; simulated in its section 4.4).

Body 1 is a square plate of side ``2r`` and mass ``m`` hinged at one corner
(point 0, the origin); the adjacent corner is point 1.  Body 2 is a disc of
radius ``r`` and mass ``m`` hinged at point 1; point 2 is the point of the disc
diametrically opposite to point 1, so ``|0-1| = |1-2| = 2r``.  Seen along the
side 0->1, the square lies on its left (its centre is at ``(r, r)`` in a frame
with origin 0 and x axis through 1).  Gravity ``g`` acts along -y.  The
mechanism starts at rest with points 0, 1 and 2 on the +x axis:
``(x1, y1, x2, y2) = (2r, 0, 4r, 0)``.

Three descriptions of the same system (option ``coordinates``):

``"relative"`` (default)
    two angles: ``theta1``, the angle of the side 0->1 from the x axis, and
    ``theta2``, the angle of the diameter 1->2 relative to the side 0->1.  The
    square and the disc are rigid bodies; outputs ``x1, y1, x2, y2``.

``"natural"``
    the natural coordinates of Problemas dinámicos: the Cartesian coordinates ``x1, y1,
    x2, y2`` of the basic points, tied by the two distance constraints
    ``x1^2 + y1^2 - (2r)^2 = 0`` and ``(x2-x1)^2 + (y2-y1)^2 - (2r)^2 = 0``.  As in
    Problemas dinámicos, a point of a body with local coordinates ``(u, v)`` (frame at the
    first basic point, x axis through the second, length ``L = 2r``) is at
    ``r_a + A (u, v)`` with ``A = [[dx, -dy], [dy, dx]] / L`` linear in the
    coordinates.  Each body is represented by four point masses ``m/4`` placed
    at ``G +- (a, 0)`` and ``G +- (0, a)`` with ``a^2 = I_G / m`` (``2r^2/3`` for the
    square, ``r^2/2`` for the disc): the same mass, centre of mass and
    second moments as the body, hence the same kinetic energy.  The mass matrix
    is then constant and equals the dynamics chapter's eq. (68),
    ``M = m [[25/24, 0, 1/8, 0], [0, 25/24, 0, 1/8], [1/8, 0, 3/8, 0], [0, 1/8, 0, 3/8]]``,
    and the gravity forces its eq. (73), ``Q = -m g / 2 (1, 2, 0, 1)``.  The
    coordinates are the outputs: a coordinate ``x1`` is exported as the
    variable ``x1`` (see docs/reference/modelling.md).

``"mixed"``
    the natural coordinates and the absolute angles ``phi1``, ``phi2`` of the side 0-1 and of the
    diameter 1-2 from the downward vertical, as the chapter's velocity-transformation run (Problemas
    dinámicos, section 4.4.3, eqs. 136-139): the angles carry no mass (the mass matrix is eq. (68) padded
    with zeros), and both the sine and the cosine closure rows tie them to the points,
    ``x1 - 2r sin phi1``, ``y1 + 2r cos phi1``, ``x2 - x1 - 2r sin phi2``, ``y1 - y2 - 2r cos phi2``,
    with the two distance rows: six rows of rank four (two redundant rows), two degrees of freedom.

Run ``symbody info examples/double_pendulum_square_disc.py --option coordinates=natural``.
"""

import math

import symbody as sb


def build(coordinates: str = "relative") -> sb.System:
    if coordinates not in ("relative", "natural", "mixed"):
        raise sb.ModelError(
            f"double_pendulum_square_disc: coordinates must be 'relative', 'natural' or 'mixed', not {coordinates!r}"
        )
    s = sb.System(
        "double_pendulum_square_disc" + ("" if coordinates == "relative" else "_" + coordinates),
        description=f"square and disc double pendulum, {coordinates} coordinates",
    )
    m = s.parameter("m", 1.0, unit="kg", description="mass of the square and of the disc", min=0.0)
    r = s.parameter("r", 1.0, unit="m", description="half side of the square, radius of the disc", min=0.0)
    g = s.parameter("g", 9.81, unit="m/s2", description="gravitational acceleration (along -y)")
    if coordinates == "relative":
        _relative(s, m, r)
    else:
        points = _natural(s, m, r)
        if coordinates == "mixed":
            _angles(s, r, *points)
    s.gravity((0, -g, 0))
    return s


def _relative(s: sb.System, m, r) -> None:
    th1 = s.coordinate("theta1", 0.0, unit="rad", description="angle of the side 0-1 of the square from the x axis")
    th2 = s.coordinate("theta2", 0.0, unit="rad", description="angle of the disc diameter 1-2 relative to side 0-1")
    B1 = s.base("B_square", s.ground_base, sb.Rz(th1))
    B2 = s.base("B_disc", B1, sb.Rz(th2))
    P1 = s.point("P1", s.origin, sb.Vector(B1, 2 * r, 0, 0))
    P2 = s.point("P2", P1, sb.Vector(B2, 2 * r, 0, 0))
    # thin plates in the x-y plane: square of side 2r, disc of radius r (inertia at the centre of mass)
    s.solid("square", s.origin, B1, mass=m, com=(r, r, 0), inertia=(m * r**2 / 3, m * r**2 / 3, 2 * m * r**2 / 3))
    s.solid("disc", P1, B2, mass=m, com=(r, 0, 0), inertia=(m * r**2 / 4, m * r**2 / 4, m * r**2 / 2))
    for name, P in (("1", P1), ("2", P2)):
        x, y, _ = s.position(P).components(s.ground_base)
        s.output("x" + name, x, unit="m", description=f"x of point {name}")
        s.output("y" + name, y, unit="m", description=f"y of point {name}")


def _natural(s: sb.System, m, r):
    x1 = s.coordinate("x1", 2.0, unit="m", description="x of point 1 (square-disc hinge)")
    y1 = s.coordinate("y1", 0.0, unit="m", description="y of point 1 (square-disc hinge)")
    x2 = s.coordinate("x2", 4.0, unit="m", description="x of point 2 (disc, opposite to point 1)")
    y2 = s.coordinate("y2", 0.0, unit="m", description="y of point 2 (disc, opposite to point 1)")
    L = 2 * r
    P1 = s.point("P1", s.origin, (x1, y1, 0))
    P2 = s.point("P2", s.origin, (x2, y2, 0))
    # local coordinates divided by L = 2r are pure numbers: (u, v) / L of the centre of mass and a / L
    bodies = (
        # name, first basic point, second minus first, centre of mass / L, a / L (a^2 = I_G / m)
        ("square", (0, 0), (x1, y1), (0.5, 0.5), math.sqrt(2 / 3) / 2),
        ("disc", (x1, y1), (x2 - x1, y2 - y1), (0.5, 0.0), math.sqrt(1 / 2) / 2),
    )
    for name, (xa, ya), (dx, dy), (ug, vg), a in bodies:
        for k, (du, dv) in enumerate(((a, 0), (-a, 0), (0, a), (0, -a)), start=1):
            u, v = ug + du, vg + dv
            pt = s.point(f"{name}_{k}", s.origin, (xa + dx * u - dy * v, ya + dy * u + dx * v, 0))
            s.particle(f"{name}_mass_{k}", pt, m / 4)
    s.distance_joint("bar01", s.origin, P1, L)
    s.distance_joint("bar12", P1, P2, L)
    return x1, y1, x2, y2


def _angles(s: sb.System, r, x1, y1, x2, y2) -> None:
    """The angles of the chapter's eq. (136), tied to the points by sine and cosine rows (eq. 139)."""
    L = 2 * r
    phi1 = s.coordinate("phi1", math.pi / 2, unit="rad", description="angle of the side 0-1 from the downward vertical")
    phi2 = s.coordinate(
        "phi2", math.pi / 2, unit="rad", description="angle of the diameter 1-2 from the downward vertical"
    )
    s.constraint("sin1", x1 - L * sb.sin(phi1))
    s.constraint("cos1", y1 + L * sb.cos(phi1))
    s.constraint("sin2", x2 - x1 - L * sb.sin(phi2))
    s.constraint("cos2", y1 - y2 - L * sb.cos(phi2))
