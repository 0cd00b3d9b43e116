"""Tower crane slewing a slender payload: the model Coselev Condrea (2024) takes from Ye & Huang (2021), corrected.

Coordinates (ground base ``xyz``, z up, slew axis along z):

* ``theta``: slew angle of the jib about the vertical axis (rad);
* ``r``: trolley travel along the jib, measured from the slew axis (m);
* ``beta_r``: radial swing of the rope, in the vertical plane of the jib,
  positive when the payload is further out than the trolley (rad);
* ``beta_t``: tangential swing of the rope, out of the jib plane, positive
  towards the jib's +y side (the direction of positive slewing) (rad);
* ``gamma``: twist of the payload about the rope axis (rad);
* ``l``: rope length (m), a coordinate only with ``hoist=True`` (otherwise a
  parameter).

Bases: ``jib = Rz(theta)`` from the ground; the rope hangs from the trolley
through ``rope_1 = Ry(-beta_r)`` and ``rope = Rx(beta_t)``, so its direction in
the jib base is ``(sin(beta_r) cos(beta_t), sin(beta_t), -cos(beta_r) cos(beta_t))``;
``payload = Rz(gamma)`` turns the payload about the rope.  The payload is a
slender rigid bar (a beam, lying along the x axis of its base, horizontal at
rest) whose centre of mass hangs the rope length ``l`` below the trolley; the
rope holds it through the hook like a rigid link with a ball joint at the
trolley, as in Ye & Huang.  Its full inertia tensor ``I_xx .. I_xz`` is given
at the centre of mass in the payload base, so it turns with the body, and the
gyroscopic term ``w x (I w)`` enters the equations (symbody's solids do both).
The points Coselev Condrea's (2024) notes flag are fixed here: the slew torque acts about
the vertical axis, and the inertia tensor is body-fixed, not constant in the
inertial base.

The jib (with counter-jib and ballast) only slews: its moment of inertia
about the slew axis ``J_slew`` is what matters; its mass ``m_jib`` is carried
for the record (its centre of mass is on the slew axis of the balanced crane).
The trolley is a point mass ``m_trolley`` on the jib.  The reeving of the
hoist rope resists the twist like a bifilar suspension: a torsion spring
``k_twist`` (default ``m_payload g d^2 / (4 l)`` with falls ``d = 0.4 m``
apart, at the default payload and rope length ``l = 20 m``; a constant, so
the spring stays conservative when the rope length changes) and damper
``c_twist`` on ``gamma``.  Viscous damping: ``c_slew`` on
the slewing, ``b_r`` on the trolley, ``c_swing`` on both swing angles.

With ``hoist=True`` the rope length ``l`` is a coordinate driven by the hoist
force ``F_hoist`` (pulling the payload towards the trolley; ``m_payload g``
holds it), with the winch inertia ``m_winch`` reflected to the rope (kinetic
energy ``m_winch dl^2 / 2``, as a point mass moving horizontally with the
paid-out rope) and hoist damping ``b_l``.

With ``flexible=True`` (``symbody export examples/tower_crane.py --option flexible=True``) the mast
and jib bend: :func:`parked_crane` builds them as ``System.flexible_beam`` bodies of ``segments`` rigid
finite elements each (bending only), the trolley parked at ``r0`` and the payload a point mass on a
rope of fixed length ``l0``; coordinates ``theta``, the mast's and jib's bending angles, ``beta_r``
and ``beta_t``; input ``tau_slew``; outputs ``x_payload``, ``y_payload``, ``z_payload``.

Inputs: ``tau_slew`` (N.m, on the jib about the vertical axis, reacting on the
tower), ``F_trolley`` (N, on the trolley along the jib, reacting on the jib),
and ``F_hoist`` (N) with ``hoist=True``.

Outputs: the states (from the coordinates), the payload centre of mass
``x_payload``, ``y_payload``, ``z_payload`` and the rope tension
``rope_tension = m_payload (a_G - g) . e_rope``: the component along the rope
of the force the rope exerts on the payload (Newton's law for the payload;
it uses the accelerations).  At rest it equals the payload weight.

Example:
    >>> import tower_crane  # doctest: +SKIP
    >>> eq = tower_crane.build(hoist=True).derive()  # doctest: +SKIP
    >>> [c.name for c in eq.coordinates]  # doctest: +SKIP
    ['theta', 'r', 'l', 'beta_r', 'beta_t', 'gamma']
"""

import math

import symbody as sb

G0 = 9.80665  # standard gravity, m/s2
M_PAYLOAD = 2000.0  # kg, a steel beam at mid reach of a mid-size tower crane
L_BAR = 8.0  # m, length of the beam
R_GYR_AXIAL = 0.2  # m, radius of gyration of the beam about its own long axis
L0 = 20.0  # m, default rope length
FALLS_SPACING = 0.4  # m, distance between the rope falls of the two-fall reeving
JIB_LENGTH = 50.0  # m, reach of the jib from the slew axis (the default trolley radius 25 m is mid reach)
SEGMENTS = 8  # rigid finite elements per flexible beam (mast and jib) with flexible=True
STEEL = {"E": 2.1e11, "G": 8.1e10, "rho": 7850.0}  # Pa, Pa, kg/m3
MAST = {"area": 0.051, "Iy": 0.037, "Iz": 0.037, "J": 0.074}  # equivalent lattice: 400 kg/m, EI = 7.8e9 N.m2
JIB = {"area": 0.0255, "Iy": 0.019, "Iz": 0.030, "J": 0.05}  # 200 kg/m, EI = 4.0e9 N.m2 vertical, 6.3e9 sideways
SECTION_UNITS = {"E": "Pa", "G": "Pa", "rho": "kg/m3", "area": "m2", "Iy": "m4", "Iz": "m4", "J": "m4"}


def build(
    hoist: bool = False,
    r0: float = 25.0,
    l0: float = L0,
    theta0: float = 0.0,
    falls: int = 0,
    flexible: bool = False,
    segments: int = SEGMENTS,
) -> sb.System:
    """The tower crane; ``hoist=True`` makes the rope length a coordinate driven by ``F_hoist``.

    ``r0``, ``l0`` and ``theta0`` are the initial trolley radius, rope length and slew angle.
    ``falls=2`` or ``4``: the hook hangs in that many falls of an elastic wire rope from a hoist winch
    (:func:`reeved_hoist`) instead of the rigid rope.
    ``flexible=True`` builds :func:`parked_crane` instead: a flexible mast and jib of ``segments``
    rigid finite elements each, the trolley parked at ``r0``.
    """
    if flexible and falls:
        raise sb.ModelError("tower_crane: falls (a reeved hook on a winch) is not available with flexible=True")
    if flexible:
        return flexible_option(hoist, r0, l0, theta0, segments)
    if falls and (hoist or falls not in (2, 4)):
        raise sb.ModelError(
            f"tower_crane: falls must be 2 or 4 (a reeved hook on a winch, without hoist=True), not {falls!r}"
        )
    s = sb.System(
        f"tower_crane_winch{falls}" if falls else ("tower_crane_hoist" if hoist else "tower_crane"),
        description="tower crane with a slender payload (after Ye & Huang 2021)"
        + (", hoisting" if hoist else "")
        + (f", hook in {falls} falls of an elastic rope from a hoist winch" if falls else ""),
    )
    P = s.parameter
    g = P("g", G0, unit="m/s2", description="gravitational acceleration", min=0.0)
    H = P("H", 40.0, unit="m", description="height of the jib (trolley rail) above the ground")
    J_slew = P(
        "J_slew",
        1.2e7,
        unit="kg.m2",
        description="moment of inertia of jib, counter-jib and ballast about the slew axis",
        min=0.0,
    )
    m_jib = P(
        "m_jib",
        30000.0,
        unit="kg",
        description="mass of the slewing structure (centre of mass on the slew axis)",
        min=0.0,
    )
    m_trolley = P("m_trolley", 800.0, unit="kg", description="trolley mass", min=0.0)
    m_payload = P(
        "m_payload", M_PAYLOAD, unit="kg", description="payload mass (beam with hook block and rigging)", min=0.0
    )
    i_axial = M_PAYLOAD * R_GYR_AXIAL**2
    i_trans = M_PAYLOAD * L_BAR**2 / 12
    I_xx = P(
        "I_xx", i_axial, unit="kg.m2", description="payload inertia about its long axis (x), at its centre of mass"
    )
    I_yy = P("I_yy", i_trans, unit="kg.m2", description="payload inertia about its y axis, at its centre of mass")
    I_zz = P(
        "I_zz",
        i_trans + i_axial,
        unit="kg.m2",
        description="payload inertia about its z axis (the rope), at its centre of mass",
    )
    I_xy = P("I_xy", 0.0, unit="kg.m2", description="payload product of inertia xy (tensor entry)")
    I_yz = P("I_yz", 0.0, unit="kg.m2", description="payload product of inertia yz (tensor entry)")
    I_xz = P("I_xz", 0.0, unit="kg.m2", description="payload product of inertia xz (tensor entry)")
    c_slew = P("c_slew", 1.0e5, unit="N.m.s/rad", description="viscous damping of the slewing gear", min=0.0)
    b_r = P("b_r", 200.0, unit="N.s/m", description="viscous damping of the trolley travel", min=0.0)
    c_swing = P("c_swing", 30.0, unit="N.m.s/rad", description="viscous damping of each rope swing angle", min=0.0)
    k_twist = P(
        "k_twist",
        M_PAYLOAD * G0 * FALLS_SPACING**2 / (4 * L0),
        unit="N.m/rad",
        description="torsional stiffness of the rope reeving about the rope axis",
        min=0.0,
    )
    c_twist = P("c_twist", 10.0, unit="N.m.s/rad", description="viscous damping of the payload twist", min=0.0)

    theta = s.coordinate("theta", theta0, unit="rad", description="slew angle of the jib about the vertical axis")
    r = s.coordinate("r", r0, unit="m", description="trolley travel along the jib from the slew axis")
    if hoist:
        l = s.coordinate("l", l0, unit="m", description="rope length from the trolley to the payload's centre of mass")
        m_winch = P(
            "m_winch", 400.0, unit="kg", description="winch inertia reflected to the rope-length motion", min=0.0
        )
        b_l = P("b_l", 200.0, unit="N.s/m", description="viscous damping of the hoist (rope-length motion)", min=0.0)
    elif falls:
        l = s.coordinate("l", l0, unit="m", description="distance from the trolley to the payload's centre of mass")
    else:
        l = P("l", l0, unit="m", description="rope length from the trolley to the payload's centre of mass", min=0.0)
    beta_r = s.coordinate("beta_r", 0.0, unit="rad", description="radial rope swing, in the jib plane (outwards +)")
    beta_t = s.coordinate("beta_t", 0.0, unit="rad", description="tangential rope swing, out of the jib plane")
    gamma = s.coordinate("gamma", 0.0, unit="rad", description="twist of the payload about the rope axis")

    jib_base = s.base("jib", s.ground_base, sb.Rz(theta))
    rope_1 = s.base("rope_1", jib_base, sb.Ry(-beta_r))
    rope = s.base("rope", rope_1, sb.Rx(beta_t))
    payload_base = s.base("payload", rope, sb.Rz(gamma))

    top = s.point("tower_top", s.origin, (0, 0, H))
    hook = s.point("trolley", top, sb.Vector(jib_base, r, 0, 0))
    cog = s.point("payload_cog", hook, sb.Vector(rope, 0, 0, -l))

    jib = s.solid("jib_structure", top, jib_base, mass=m_jib, inertia=(0, J_slew, J_slew))
    trolley = s.particle("trolley_mass", hook, m_trolley)
    payload = s.solid(
        "payload_bar",
        cog,
        payload_base,
        mass=m_payload,
        inertia=sb.inertia(I_xx, I_yy, I_zz, ixy=I_xy, iyz=I_yz, ixz=I_xz),
    )
    s.gravity((0, 0, -g))

    tau_slew = s.input("tau_slew", 0.0, unit="N.m", description="slewing torque on the jib about the vertical axis")
    F_trolley = s.input("F_trolley", 0.0, unit="N", description="trolley traction force along the jib (outwards +)")
    s.torque("slew_drive", jib, (0, 0, tau_slew))
    s.force("trolley_drive", trolley, hook, sb.Vector(jib_base, F_trolley, 0, 0), reaction=jib)
    if hoist:
        F_hoist = s.input(
            "F_hoist",
            M_PAYLOAD * G0,
            unit="N",
            description="hoist force pulling the payload towards the trolley (holds it at m_payload g)",
        )
        s.generalized_force("hoist_drive", l, -F_hoist)
        s.viscous_friction("hoist_damping", l, b_l)
        s.particle("winch", s.point("winch_equivalent", s.origin, (l, 0, 0)), m_winch)
    if falls:
        reeved_hoist(s, falls, hook, cog, (jib_base, rope), l0)

    s.viscous_friction("slew_damping", theta, c_slew)
    s.viscous_friction("trolley_damping", r, b_r)
    s.viscous_friction("radial_swing_damping", beta_r, c_swing)
    s.viscous_friction("tangential_swing_damping", beta_t, c_swing)
    s.torsion_spring_damper("rope_twist", gamma, k=k_twist, damping=c_twist)

    # drawing only (symbody animate): mast, jib and counter-jib with ballast, trolley, rope, beam
    s.shape(sb.Box(2.0, 2.0, H), offset=(0, 0, H / 2), color="#e6c619", name="mast")
    s.shape(sb.Box(70.0, 1.6, 2.0), on=(top, jib_base), offset=(20.0, 0, 1.0), color="#e6c619", name="jib")
    s.shape(sb.Box(5.0, 3.0, 3.0), on=(top, jib_base), offset=(-12.0, 0, -0.5), color="grey", name="ballast")
    s.shape(sb.Box(2.5, 2.2, 1.0), on=(hook, jib_base), offset=(0, 0, -0.5), color="#404040", name="trolley_car")
    s.shape(sb.Line(hook, cog, width=1.5), color="#202020", name="rope")
    s.shape(sb.Box(L_BAR, 0.5, 0.5), on=payload, color="#d62728", name="beam")

    pos = s.position(cog).components(s.ground_base)
    s.output("x_payload", pos[0], unit="m", description="payload centre of mass, x")
    s.output("y_payload", pos[1], unit="m", description="payload centre of mass, y")
    s.output("z_payload", pos[2], unit="m", description="payload centre of mass, height above the ground")
    e_rope = rope.unit("z")  # from the payload's centre of mass up to the trolley
    a_rel_g = s.acceleration(cog) - sb.Vector(s.ground_base, 0, 0, -g)
    s.output(
        "rope_tension",
        m_payload * a_rel_g.dot(e_rope),
        unit="N",
        description="rope tension (force of the rope on the payload)",
    )
    return s


# the reeved hook on a hoist winch (build(falls=2|4)); SI units
M_HOOK = 300.0  # kg, hook block of a mid-size tower crane
SLING = 2.0  # m, from the hook to the payload's centre of mass (rigging)
EA_ROPE = 1.2e7  # N, 16 mm steel wire rope: metallic area about 110 mm2, rope modulus about 1.1e11 Pa
LEAD = 62.0  # m, rope run from the drum on the counter-jib over the jib to the trolley and on to the jib tip
R_DRUM = 0.3  # m, hoist drum radius
J_DRUM = 150.0  # kg.m2, drum with the motor inertia reflected through the gearbox
DRUM_BACK = 12.0  # m, the drum on the counter-jib, behind the slew axis


def reeved_hoist(
    s: sb.System, falls: int, trolley: sb.Point, cog: sb.Point, bases: tuple[sb.Base, sb.Base], l0: float
) -> None:
    """A hook block in ``falls`` falls of an elastic wire rope under the trolley, paid out by a hoist winch.

    The rope (``hoist_rope``: axial stiffness ``EA_rope``, damping ``c_rope``) runs from the winch drum
    ``hoist`` on the counter-jib over the jib to the trolley's sheaves, down and up ``falls`` times to
    the hook block (mass ``m_hook``) and out to its dead end at the jib tip.  This compensating reeving
    keeps the run outside the falls at the constant length ``l_lead`` whatever the trolley's travel:
    the path draws it as one straight lead from the trolley inwards, so the trolley neither hoists the
    hook nor feels the line pull.  The payload hangs ``sling`` below the hook on the line of the falls
    (the coordinate ``l`` is the distance from the trolley to its centre of mass, elastic now).  The
    unstretched rope is that of the static balance at the start ``l = l0``: the hook load
    ``(m_payload + m_hook) g`` over ``falls`` line pulls, each ``EA_rope stretch / L0``.

    The drum (radius ``r_drum``, inertia ``J_drum`` about its axle along the jib's y axis) is driven by
    ``tau_hold + tau_hoist`` (input ``tau_hoist``, N m, positive heaving in; ``tau_hold``, the line pull
    at the start times the radius, holds the payload).  Closed forms: line pull ``W / n`` at rest,
    stiffness ``n^2 EA / L0`` at the hook (with the drum's inertia ``J / r^2`` on the rope in series),
    and at constant drum acceleration ``alpha`` the hook rises at ``alpha r (1 + T / EA) / n``.

    The payload lands on the ground (``landing``: a frictionless vertical buffer, stiffness ``k_landing``
    and damping ``c_landing``, touching when its centre of mass is ``z_landing`` above the ground); set
    down, the rope goes slack (its tension an event, exactly zero while slack).

    Outputs: ``hoist_rope_tension`` (the line pull), ``hoist_rope_stretch``, ``hoist_rope_length``,
    ``hook_load`` (``falls`` line pulls), ``hoist_drive_torque``, ``landing_force``.
    """
    P = s.parameter
    jib_base, rope_base = bases
    g, m_payload = s.symbol("g"), s.symbol("m_payload")
    m_hook = P("m_hook", M_HOOK, unit="kg", description="mass of the hook block", min=0.0)
    sling = P("sling", SLING, unit="m", description="distance from the hook to the payload's centre of mass")
    ea = P("EA_rope", EA_ROPE, unit="N", description="axial stiffness EA of the hoist wire rope", min=0.0)
    c_rope = P("c_rope", 1500.0, unit="N.s/m", description="damping of the hoist rope's stretch", min=0.0)
    lead = P("l_lead", LEAD, unit="m", description="rope run outside the falls (drum to trolley to jib tip)")
    r_drum = P("r_drum", R_DRUM, unit="m", description="hoist drum radius", min=0.0)
    j_drum = P("J_drum", J_DRUM, unit="kg.m2", description="hoist drum inertia (with the reflected motor)", min=0.0)
    pull = (m_payload + m_hook) * g / falls  # the line pull of the static balance
    length = lead + falls * (l0 - sling)  # the rope's length at the start
    hook = s.point("hook", cog, sb.Vector(rope_base, 0, 0, sling))
    s.particle("hook_block", hook, m_hook)
    # the compensating reeving's constant run outside the falls, drawn as a lead from the trolley inwards
    lead_end = s.point("rope_lead", trolley, sb.Vector(jib_base, -lead, 0, 0))
    wire = s.rope(
        "hoist_rope", [lead_end, trolley, hook], stiffness=ea, damping=c_rope,
        unstretched_length=length / (1 + pull / ea), falls=falls,
    )  # fmt: skip
    tau_hoist = s.input("tau_hoist", 0.0, unit="N.m", description="hoist drive torque beyond the holding torque")
    drum_frame = s.base("hoist_drum_frame", jib_base, sb.Rx(math.pi / 2))  # axle along the jib's y axis
    drum_at = s.point("hoist_drum_axle", "tower_top", sb.Vector(jib_base, -DRUM_BACK, 0, 1.0))
    s.winch("hoist", wire, radius=r_drum, inertia=j_drum, torque=pull * r_drum + tau_hoist, point=drum_at,
            base=drum_frame)  # fmt: skip
    s.output("hook_load", falls * wire.tension, unit="N", description="load on the hook: the falls' line pulls")

    height = s.position(cog).components(s.ground_base)[2]
    pad = s.point("landing_pad", cog, sb.Vector(s.ground_base, 0, 0, -height))  # below the payload, on the ground
    k_land = P("k_landing", 2.0e7, unit="N/m", description="stiffness of the ground under the payload", min=0.0)
    c_land = P("c_landing", 3.0e5, unit="N.s/m", description="damping of the ground under the payload", min=0.0)
    z_land = P("z_landing", 0.25, unit="m", description="height of the payload's centre of mass resting on the ground")
    landing = s.buffer("landing", pad, cog, k=k_land, free_length=z_land, damping=c_land)
    s.output("landing_force", landing.force, unit="N", description="ground force on the set-down payload")


def flexible_option(hoist: bool, r0: float, l0: float, theta0: float, segments: int) -> sb.System:
    """``build(flexible=True)``: :func:`parked_crane` with a flexible mast and jib, the trolley parked at ``r0``."""
    if hoist:
        raise sb.ModelError(
            "tower_crane: flexible=True models a fixed rope length; hoist=True is not available with it"
        )
    if not 0.0 < r0 <= JIB_LENGTH:
        raise sb.ModelError(
            f"tower_crane: the trolley radius r0 = {r0!r} m must lie on the jib, in (0, {JIB_LENGTH:g}]"
        )
    return parked_crane(True, segments, r0=r0, l0=l0, theta0=theta0)


def _jib_beam(s: sb.System, name: str, root: sb.Frame, length: float, segments: int, section: dict) -> sb.Frame:
    """A part of the jib (``length`` m of it) as a flexible beam, bending only; its tip frame."""
    return s.flexible_beam(name, root, length=length, segments=segments, **section, axial=False, torsion=False)


def _jib_split(segments: int, r0: float, R: float) -> tuple[int, int]:
    """Segments of the jib inside and outside the trolley (``segments`` in all, at least one on each part)."""
    if r0 >= R:
        return segments, 0
    inner = min(max(1, round(segments * r0 / R)), segments - 1)
    return inner, segments - inner


def parked_crane(
    flexible: bool = True,
    segments: int = SEGMENTS,
    H: float = 40.0,
    R: float = JIB_LENGTH,
    r0: float | None = None,
    l0: float = L0,
    theta0: float = 0.0,
) -> sb.System:
    """The tower crane with its trolley parked at ``r0`` (default: the jib's tip ``R``), mast and jib flexible or rigid.

    The mast (height ``H``) and the jib (reach ``R``) are ``System.flexible_beam`` bodies of
    equivalent lattice sections (``MAST``, ``JIB`` of steel; bending only: the axial and torsional
    modes of a lattice lie far above the payload's), ``segments`` rigid finite elements each (the
    jib's split at the trolley between its inner and outer parts); ``flexible=False`` gives the same
    crane with a rigid mast and jib.  The slewing structure (counter-jib and ballast ``m_slew``,
    ``J_slew``) turns on the mast top by ``theta`` under the input ``tau_slew``; the trolley carries
    the payload, a point mass ``m_payload`` on a rope of fixed length ``l`` (swing angles ``beta_r``
    in the jib plane, ``beta_t`` out of it, about the trolley's axes).  Outputs: the payload's
    position ``x_payload``, ``y_payload``, ``z_payload``.  The sections give a first jib bending
    mode near 1 Hz and a mast sway near 0.5 Hz unloaded.

    Example:
        >>> len(parked_crane(True, 4).coordinates), len(parked_crane(False).coordinates)
        (19, 3)
    """
    r0 = R if r0 is None else r0
    inner, outer = _jib_split(segments, r0, R)
    s = sb.System(f"tower_crane_{'flexible' if flexible else 'parked'}")
    P = s.parameter
    g = P("g", G0, unit="m/s2", description="gravitational acceleration", min=0.0)
    m_jib = 200.0 * R  # kg, the jib's own mass (200 kg/m)
    m_slew = P("m_slew", 30000.0, unit="kg", description="counter-jib and ballast, on the slew axis", min=0.0)
    J_slew = P("J_slew", 1.2e7 - m_jib * R**2 / 3, unit="kg.m2", description="their inertia about the slew axis")
    m_payload = P("m_payload", M_PAYLOAD, unit="kg", description="payload mass (a point at the rope's end)", min=0.0)
    m_trolley = P("m_trolley", 800.0, unit="kg", description="trolley mass", min=0.0)
    l = P("l", l0, unit="m", description="rope length from the trolley to the payload", min=0.0)
    c_slew = P("c_slew", 1.0e5, unit="N.m.s/rad", description="viscous damping of the slewing gear", min=0.0)
    theta = s.coordinate("theta", theta0, unit="rad", description="slew angle")
    up = s.base("mast_axes", s.ground_base, sb.Ry(-math.pi / 2))  # x up, along the mast
    height = P("H", H, unit="m", description="height of the mast")
    if flexible:
        mast = {k: P(f"mast_{k}", v, unit=SECTION_UNITS[k]) for k, v in {**STEEL, **MAST}.items()}
        top = s.flexible_beam("mast", s.frame("mast_root", s.origin, up), length=height, segments=segments, **mast,
                              axial=False, torsion=False)  # fmt: skip
    else:
        top = s.frame("mast_top", s.point("T", s.origin, (0, 0, height)), up)
        s.solid("mast", s.origin, up, mass=400.0 * H, com=(H / 2, 0, 0))
    slew = s.base("slew", top.base, sb.Rx(theta))
    slewing = s.solid("slewing_part", top.point, slew, mass=m_slew, inertia=(J_slew, J_slew, 0))
    jib_root = s.frame("jib_root", top.point, s.base("jib_axes", slew, sb.Ry(math.pi / 2)))  # x out, z up
    if flexible:
        jib = {k: P(f"jib_{k}", v, unit=SECTION_UNITS[k]) for k, v in {**STEEL, **JIB}.items()}
        trolley = _jib_beam(s, "jib", jib_root, r0, inner, jib)
        if outer:
            _jib_beam(s, "jib_out", trolley, R - r0, outer, jib)
    else:
        reach = P("r_trolley", r0, unit="m", description="trolley radius")
        trolley = s.frame(
            "trolley_frame", s.point("J", top.point, sb.Vector(jib_root.base, reach, 0, 0)), jib_root.base
        )
        i_jib = m_jib * R**2 / 12
        s.solid("jib", top.point, jib_root.base, mass=m_jib, com=(R / 2, 0, 0), inertia=(0, i_jib, i_jib))
    s.solid("trolley", trolley.point, trolley.base, mass=m_trolley)  # point masses on their frames: a tree of joints
    beta_r = s.coordinate("beta_r", 0.0, unit="rad", description="radial rope swing")
    beta_t = s.coordinate("beta_t", 0.0, unit="rad", description="tangential rope swing")
    rope = s.base("rope", s.base("rope_1", trolley.base, sb.Ry(-beta_r)), sb.Rx(beta_t))  # from the trolley: a chain
    hook = s.point("hook", trolley.point, sb.Vector(rope, 0, 0, -l))
    s.solid("payload", hook, rope, mass=m_payload)
    s.gravity((0, 0, -g))
    s.viscous_friction("slew_damping", theta, c_slew)
    tau_slew = s.input("tau_slew", 0.0, unit="N.m", description="slewing torque about the vertical axis")
    mast_top = s.flexible_bodies["mast"].solids[-1] if flexible else None  # the slewing gear's reaction
    s.torque("slew_drive", slewing, sb.Vector(slew, tau_slew, 0, 0), reaction=mast_top)
    pos = s.position(hook).components(s.ground_base)
    for axis, value in zip("xyz", pos):
        s.output(f"{axis}_payload", value, unit="m", description=f"payload position, {axis}")
    return s
