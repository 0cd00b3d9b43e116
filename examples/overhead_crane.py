"""Overhead (gantry) crane with hoisting: a trolley, a hoist rope of variable length and a swinging payload.

Planar model (default), in the vertical x-z plane of the ground base (z up):

* ``x``: trolley travel along the bridge (m), trolley mass ``m_trolley``;
* ``l``: rope length from the trolley to the payload (m), paid out by the winch;
* ``theta``: swing of the rope from the vertical (rad), positive when the
  payload is ahead of the trolley (towards +x).

The payload is a point mass ``m_payload`` at
``(x + l sin(theta), 0, -l cos(theta))``.  The winch (drum, gearbox and motor
reflected to the rope) adds the equivalent translational inertia ``m_winch`` to
the rope-length motion: its kinetic energy is ``m_winch dl^2 / 2``.  It is
represented by a point mass whose horizontal displacement is the paid-out rope
length, so it adds exactly that term and nothing else (a drum on the trolley
turns relative to it but does not couple with the travel, and gravity does no
work on it).  Viscous damping: ``b_x`` on the trolley, ``b_l`` on the hoist,
``c_theta`` on the swing (rope sheave friction).

Inputs:

* ``F_trolley``: traction force on the trolley along +x (N);
* ``F_hoist``: hoist drive force (winch motor torque over drum radius), pulling
  the payload towards the trolley (N).  It equals the rope tension whenever the
  winch does not accelerate; ``F_hoist = m_payload g`` holds the load.

Outputs: the states (``x, dx, ddx, ...``, from the coordinates), the payload
position ``x_payload``, ``z_payload`` and the rope tension at the payload,
``rope_tension = F_hoist + b_l dl + m_winch ddl`` (winch equation; it uses the
acceleration ``ddl``).

``spatial=True`` adds the bridge travel ``y`` (bridge mass ``m_bridge``,
damping ``b_y``, input ``F_bridge``, on the bridge along +y) and replaces
``theta`` by two swing angles: ``theta_x`` (swing in the x-z plane) followed
by ``theta_y`` (swing towards +y), so that the rope direction is
``(sin(theta_x) cos(theta_y), sin(theta_y), -cos(theta_x) cos(theta_y))``;
the output ``y_payload`` is added.

``end_stops=True`` adds the buffers at the ends of the bridge: unilateral contacts ``stop_low``
(gap ``x - x_min``) and ``stop_high`` (gap ``x_max - x``) with restitution ``e_stop``; the trolley
rebounds from them, or is held against them by its drive (the contact forces are the outputs
``F_stop_low`` and ``F_stop_high``).  ``ground=True`` adds the floor at ``h_ground`` below the
trolley rail: the payload lands on it without rebound (contact ``ground``, gap
``h_ground + z_payload``) and rests on it with the force ``F_ground`` while the hoist pays out.
Both simulate with ``symbody.numeric.simulate`` and export to native FMUs (event indicators and
event mode in Model Exchange, impacts and contact modes located inside ``doStep`` in Co-Simulation).

Example:
    >>> import overhead_crane  # doctest: +SKIP
    >>> eq = overhead_crane.build().derive()  # doctest: +SKIP
    >>> [c.name for c in eq.coordinates]  # doctest: +SKIP
    ['x', 'l', 'theta']

Run ``symbody info examples/overhead_crane.py --option spatial=True``.
"""

import symbody as sb

G0 = 9.80665  # standard gravity, m/s2
M_PAYLOAD = 4000.0  # kg


def build(
    spatial: bool = False, l0: float = 12.0, x0: float = 0.0, end_stops: bool = False, ground: bool = False
) -> sb.System:
    """The overhead crane; ``spatial`` adds the bridge travel, ``l0`` and ``x0`` are the initial rope length and
    trolley position, ``end_stops`` and ``ground`` add the trolley's end stops and the floor (module docstring)."""
    s = sb.System(
        "overhead_crane_3d" if spatial else "overhead_crane",
        description=("spatial" if spatial else "planar") + " overhead crane with hoisting",
    )
    P = s.parameter
    g = P("g", G0, unit="m/s2", description="gravitational acceleration", min=0.0)
    m_trolley = P("m_trolley", 1500.0, unit="kg", description="trolley mass (with the hoist machinery on it)", min=0.0)
    m_payload = P(
        "m_payload", M_PAYLOAD, unit="kg", description="payload mass (point mass, hook block included)", min=0.0
    )
    m_winch = P("m_winch", 300.0, unit="kg", description="winch inertia reflected to the rope-length motion", min=0.0)
    b_x = P("b_x", 250.0, unit="N.s/m", description="viscous damping of the trolley travel", min=0.0)
    b_l = P("b_l", 120.0, unit="N.s/m", description="viscous damping of the hoist (rope-length motion)", min=0.0)
    c_theta = P("c_theta", 40.0, unit="N.m.s/rad", description="viscous damping of the rope swing", min=0.0)

    x = s.coordinate("x", x0, unit="m", description="trolley travel along the bridge")
    if spatial:
        m_bridge = P(
            "m_bridge", 8000.0, unit="kg", description="bridge mass (girders and end trucks), trolley excluded", min=0.0
        )
        b_y = P("b_y", 800.0, unit="N.s/m", description="viscous damping of the bridge travel", min=0.0)
        y = s.coordinate("y", 0.0, unit="m", description="bridge travel along the runway")
    l = s.coordinate("l", l0, unit="m", description="rope length from the trolley to the payload")
    if spatial:
        theta_x = s.coordinate("theta_x", 0.0, unit="rad", description="rope swing in the x-z plane")
        theta_y = s.coordinate("theta_y", 0.0, unit="rad", description="rope swing towards +y")
        swing = (theta_x, theta_y)
        rope_1 = s.base("rope_1", s.ground_base, sb.Ry(-theta_x))
        rope = s.base("rope", rope_1, sb.Rx(theta_y))
    else:
        theta = s.coordinate("theta", 0.0, unit="rad", description="rope swing from the vertical, towards +x")
        swing = (theta,)
        rope = s.base("rope", s.ground_base, sb.Ry(-theta))

    if spatial:
        bridge_point = s.point("bridge", s.origin, (0, y, 0))
        bridge = s.particle("bridge_mass", bridge_point, m_bridge)
        trolley_point = s.point("trolley", bridge_point, (x, 0, 0))
    else:
        trolley_point = s.point("trolley", s.origin, (x, 0, 0))
    trolley = s.particle("trolley_mass", trolley_point, m_trolley)
    hook = s.point("payload", trolley_point, sb.Vector(rope, 0, 0, -l))
    s.particle("payload_mass", hook, m_payload)
    winch_point = s.point("winch_equivalent", s.origin, (l, 0, 0))
    s.particle("winch", winch_point, m_winch)
    s.gravity((0, 0, -g))

    F_trolley = s.input("F_trolley", 0.0, unit="N", description="traction force on the trolley along +x")
    F_hoist = s.input(
        "F_hoist",
        M_PAYLOAD * G0,
        unit="N",
        description="hoist drive force pulling the payload towards the trolley (holds it at m_payload g)",
    )
    s.force("trolley_drive", trolley, trolley_point, (F_trolley, 0, 0))
    s.generalized_force("hoist_drive", l, -F_hoist)
    if spatial:
        F_bridge = s.input("F_bridge", 0.0, unit="N", description="traction force on the bridge along +y")
        s.force("bridge_drive", bridge, bridge_point, (0, F_bridge, 0))
        s.viscous_friction("bridge_damping", y, b_y)

    s.viscous_friction("trolley_damping", x, b_x)
    s.viscous_friction("hoist_damping", l, b_l)
    for angle in swing:
        s.viscous_friction(f"{angle}_damping", angle, c_theta)

    r = s.position(hook).components(s.ground_base)
    s.output("x_payload", r[0], unit="m", description="payload position along x")
    if spatial:
        s.output("y_payload", r[1], unit="m", description="payload position along y")
    s.output("z_payload", r[2], unit="m", description="payload height (trolley at z = 0)")
    s.output(
        "rope_tension",
        F_hoist + b_l * s.dt(l) + m_winch * s.dt(s.dt(l)),
        unit="N",
        description="rope tension at the payload (winch equation)",
    )
    if end_stops:
        x_min = P("x_min", -1.0, unit="m", description="trolley travel at the lower end stop")
        x_max = P("x_max", 20.0, unit="m", description="trolley travel at the upper end stop")
        e_stop = P(
            "e_stop", 0.3, unit="1", description="coefficient of restitution of the end-stop buffers", min=0.0, max=1.0
        )
        low = s.unilateral("stop_low", x - x_min, restitution=e_stop)
        high = s.unilateral("stop_high", x_max - x, restitution=e_stop)
        s.output("F_stop_low", low.force, unit="N", description="force of the lower end stop on the trolley (along +x)")
        s.output(
            "F_stop_high", high.force, unit="N", description="force of the upper end stop on the trolley (along -x)"
        )
    if ground:
        h_ground = P("h_ground", 15.0, unit="m", description="depth of the floor below the trolley rail")
        floor = s.unilateral("ground", h_ground + r[2], restitution=0.0)
        s.output("F_ground", floor.force, unit="N", description="force of the floor on the payload (upwards)")
    return s
