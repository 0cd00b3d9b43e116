"""Knuckle-boom crane on a ship, with end stops on both booms: nine degrees of freedom.

Coordinates (ground base ``xyz``, z up; ship base ``x`` forward, ``y`` to port):

* ``z_ship``, ``roll``, ``pitch``: the ship's heave (m) and its roll (about x) and pitch (about y) (rad),
  each held to its reference (inputs ``z_ref``, ``roll_ref``, ``pitch_ref``, the ship motion) by a stiff servo,
  a spring and damper of natural frequency ``w_servo`` on the ship's own mass and inertia;
* ``slew``: the crane's slew angle about the pedestal axis (rad), driven by ``M_slew``;
* ``luff``: the main boom's angle above the deck plane (rad);
* ``knuckle``: the outer (knuckle) boom's angle relative to the main boom (rad; negative folds it down);
* ``l``: the rope length from the knuckle boom's tip to the payload (m), paid out by the winch (``F_winch``
  pulls the payload up; ``m_payload g`` holds it);
* ``swing_x``, ``swing_y``: the rope's swing from the vertical of the slewing base, in its radial plane and
  out of it (rad).

The booms are driven by hydraulic cylinders, here their forces (inputs ``F_cyl1``, ``F_cyl2``, pushing the
cylinder's ends apart): cylinder 1 from the slewing house to the main boom, cylinder 2 from the main boom to the
knuckle boom.  With ``end_stops=True`` (default) each boom has two end stops, unilateral contacts on its
angle with restitution ``e_stop``: ``luff_low`` and ``luff_high`` (``luff_min <= luff <= luff_max``),
``knuckle_low`` and ``knuckle_high`` (``knuckle_min <= knuckle <= knuckle_max``); the forces they carry are the
outputs ``M_luff_stop`` and ``M_knuckle_stop`` (moments about the hinges, positive pushing the boom up).

Outputs: the payload position ``x_payload``, ``y_payload``, ``z_payload`` and the moments of the end stops.
:func:`ship_motion` writes 60 s of ship motion and cylinder commands to a CSV file for ``symbody simulate
--input-file`` or an FMU master (the commands drive both booms into their stops and back).

Example:
    >>> import knuckle_boom_crane  # doctest: +SKIP
    >>> [c.name for c in knuckle_boom_crane.build().derive().coordinates]  # doctest: +SKIP
    ['z_ship', 'roll', 'pitch', 'slew', 'luff', 'knuckle', 'l', 'swing_x', 'swing_y']
"""

import math

import symbody as sb

G0 = 9.80665  # standard gravity, m/s2
M_SHIP = 2.0e6  # kg (the part of the ship the servos move: its response to the crane is what matters)
L1, L2 = 15.0, 12.0  # m, main and knuckle boom
M1, M2 = 8000.0, 5000.0  # kg
M_PAYLOAD = 2000.0  # kg
LUFF0, KNUCKLE0, L0 = 0.5, -1.2, 8.0  # initial boom angles (rad) and rope length (m)


def build(end_stops: bool = True) -> sb.System:
    """The knuckle-boom crane on its ship; ``end_stops`` adds the four end stops of the booms."""
    s = sb.System(
        "knuckle_boom_crane" if end_stops else "knuckle_boom_crane_free",
        description="knuckle-boom crane on a ship" + (", with boom end stops" if end_stops else ""),
    )
    P = s.parameter
    g = P("g", G0, "m/s2", "gravitational acceleration", min=0.0)
    m_ship = P("m_ship", M_SHIP, "kg", "mass of the ship the servos move", min=0.0)
    I_roll = P("I_roll", M_SHIP * 8.0**2, "kg.m2", "roll inertia of the ship", min=0.0)
    I_pitch = P("I_pitch", M_SHIP * 30.0**2, "kg.m2", "pitch inertia of the ship", min=0.0)
    w_servo = P("w_servo", 20.0, "1/s", "natural frequency of the ship motion servos", min=0.0)
    zeta = P("zeta_servo", 0.7, "1", "damping ratio of the ship motion servos", min=0.0)
    m_house = P("m_house", 20000.0, "kg", "mass of the slewing house", min=0.0)
    J_slew = P("J_slew", 5.0e4, "kg.m2", "inertia of the slewing house about the pedestal axis", min=0.0)
    m1 = P("m_boom1", M1, "kg", "main boom mass", min=0.0)
    m2 = P("m_boom2", M2, "kg", "knuckle boom mass", min=0.0)
    m_p = P("m_payload", M_PAYLOAD, "kg", "payload mass (hook block included)", min=0.0)
    m_w = P("m_winch", 300.0, "kg", "winch inertia reflected to the rope", min=0.0)
    c_slew = P("c_slew", 2.0e5, "N.m.s/rad", "viscous damping of the slewing gear", min=0.0)
    c_cyl = P("c_cyl", 2.0e5, "N.s/m", "viscous damping of each cylinder", min=0.0)
    b_l = P("b_l", 500.0, "N.s/m", "viscous damping of the winch", min=0.0)
    c_swing = P("c_swing", 200.0, "N.m.s/rad", "viscous damping of each rope swing", min=0.0)

    z = s.coordinate("z_ship", 0.0, unit="m", description="heave of the ship")
    roll = s.coordinate("roll", 0.0, unit="rad", description="roll of the ship (about its x axis)")
    pitch = s.coordinate("pitch", 0.0, unit="rad", description="pitch of the ship (about its y axis)")
    slew = s.coordinate("slew", 0.0, unit="rad", description="slew angle of the crane")
    luff = s.coordinate("luff", LUFF0, unit="rad", description="main boom angle above the deck")
    knuckle = s.coordinate("knuckle", KNUCKLE0, unit="rad", description="knuckle boom angle to the main boom")
    l = s.coordinate("l", L0, unit="m", description="rope length from the knuckle boom tip to the payload")
    swing_x = s.coordinate("swing_x", 0.0, unit="rad", description="rope swing in the boom plane")
    swing_y = s.coordinate("swing_y", 0.0, unit="rad", description="rope swing out of the boom plane")

    ship = s.base("ship_roll", s.ground_base, sb.Rx(roll))
    deck = s.base("ship", ship, sb.Ry(pitch))
    house = s.base("house", deck, sb.Rz(slew))
    boom1 = s.base("boom1", house, sb.Ry(-luff))
    boom2 = s.base("boom2", boom1, sb.Ry(-knuckle))
    rope_1 = s.base("rope_1", house, sb.Ry(-swing_x))
    rope = s.base("rope", rope_1, sb.Rx(swing_y))

    def length(name: str, value: float, description: str):
        return P(name, value, "m", description)

    L_1, L_2 = length("L1", L1, "main boom length"), length("L2", L2, "knuckle boom length")
    ship_cog = s.point("ship_cog", s.origin, (0, 0, z))
    pedestal = s.point(
        "pedestal",
        ship_cog,
        sb.Vector(
            deck,
            length("x_pedestal", 20.0, "pedestal position forward of the ship's centre of mass"),
            length("y_pedestal", 8.0, "pedestal position to port"),
            length("z_pedestal", 3.0, "deck height above the ship's centre of mass"),
        ),
    )
    hinge1 = s.point(
        "hinge1",
        pedestal,
        sb.Vector(house, length("x_hinge", 1.0, "main boom hinge, out of the slew axis"), 0,
                  length("h_pedestal", 6.0, "main boom hinge above the deck")),
    )  # fmt: skip
    hinge2 = s.point("hinge2", hinge1, sb.Vector(boom1, L_1, 0, 0))
    tip = s.point("tip", hinge2, sb.Vector(boom2, L_2, 0, 0))
    hook = s.point("payload", tip, sb.Vector(rope, 0, 0, -l))
    c1 = [length(f"cyl1_{k}", v, d) for k, v, d in (
        ("x_house", 0.5, "cylinder 1 on the house, along x"), ("z_house", -3.0, "cylinder 1 on the house, along z"),
        ("x_boom", 5.0, "cylinder 1 on the main boom, along it"), ("z_boom", -0.8, "... across it"))]  # fmt: skip
    c2 = [length(f"cyl2_{k}", v, d) for k, v, d in (
        ("x_boom1", -3.0, "cylinder 2 on the main boom from its tip"), ("z_boom1", 1.0, "... across it"),
        ("x_boom2", 2.5, "cylinder 2 on the knuckle boom"), ("z_boom2", -0.5, "... across it"))]  # fmt: skip
    cyl1_a = s.point("cyl1_house", hinge1, sb.Vector(house, c1[0], 0, c1[1]))
    cyl1_b = s.point("cyl1_boom", hinge1, sb.Vector(boom1, c1[2], 0, c1[3]))
    cyl2_a = s.point("cyl2_boom1", hinge2, sb.Vector(boom1, c2[0], 0, c2[1]))
    cyl2_b = s.point("cyl2_boom2", hinge2, sb.Vector(boom2, c2[2], 0, c2[3]))

    s.solid("hull", ship_cog, deck, mass=m_ship, inertia=(I_roll, I_pitch, I_pitch))
    s.solid("house_body", pedestal, house, mass=m_house, inertia=(J_slew / 2, J_slew / 2, J_slew))
    r_b = length("r_boom", 1.0, "radius of gyration of the booms about their own axis")
    s.solid("main_boom", hinge1, boom1, mass=m1, com=(L_1 / 2, 0, 0),
            inertia=(m1 * r_b**2, m1 * L_1**2 / 12, m1 * L_1**2 / 12))  # fmt: skip
    s.solid("knuckle_boom", hinge2, boom2, mass=m2, com=(L_2 / 2, 0, 0),
            inertia=(m2 * r_b**2, m2 * L_2**2 / 12, m2 * L_2**2 / 12))  # fmt: skip
    s.particle("payload_mass", hook, m_p)
    s.particle("winch", s.point("winch_equivalent", s.origin, (l, 0, 0)), m_w)
    s.gravity((0, 0, -g))

    # the ship follows its references through stiff servos (spring and damper on each ship coordinate)
    refs = [
        (z, s.input("z_ref", 0.0, "m", "heave reference of the ship"), m_ship),
        (roll, s.input("roll_ref", 0.0, "rad", "roll reference of the ship"), I_roll),
        (pitch, s.input("pitch_ref", 0.0, "rad", "pitch reference of the ship"), I_pitch),
    ]
    for q, ref, inertia in refs:
        s.generalized_force(f"{q.name}_servo", q, inertia * w_servo * (w_servo * (ref - q) - 2 * zeta * s.dt(q)))
    s.generalized_force("heave_weight", z, (m_ship + m_house + m1 + m2 + m_p) * g)  # (the servo carries no weight)

    F_cyl1 = s.input("F_cyl1", 0.0, "N", "force of the main boom cylinder, pushing its ends apart")
    F_cyl2 = s.input("F_cyl2", 0.0, "N", "force of the knuckle boom cylinder, pushing its ends apart")
    M_slew = s.input("M_slew", 0.0, "N.m", "slewing torque")
    F_winch = s.input("F_winch", M_PAYLOAD * G0, "N", "winch force pulling the payload up (m_payload g holds it)")
    s.spring_damper("cylinder1", cyl1_a, cyl1_b, damping=c_cyl, actuator=F_cyl1)
    s.spring_damper("cylinder2", cyl2_a, cyl2_b, damping=c_cyl, actuator=F_cyl2)
    s.generalized_force("slew_drive", slew, M_slew)
    s.generalized_force("winch_drive", l, -F_winch)
    s.viscous_friction("slew_damping", slew, c_slew)
    s.viscous_friction("winch_damping", l, b_l)
    s.viscous_friction("swing_x_damping", swing_x, c_swing)
    s.viscous_friction("swing_y_damping", swing_y, c_swing)

    r = s.position(hook).components(s.ground_base)
    s.output("x_payload", r[0], "m", "payload position along x")
    s.output("y_payload", r[1], "m", "payload position along y")
    s.output("z_payload", r[2], "m", "payload height")
    if end_stops:
        e_stop = P("e_stop", 0.2, "1", "coefficient of restitution of the boom end stops", min=0.0, max=1.0)
        limits = {
            "luff": (luff, P("luff_min", -0.2, "rad", "lowest main boom angle"), P("luff_max", 1.3, "rad", "highest")),
            "knuckle": (
                knuckle,
                P("knuckle_min", -2.4, "rad", "knuckle boom folded in"),
                P("knuckle_max", -0.3, "rad", "knuckle boom stretched"),
            ),
        }
        for name, (angle, low, high) in limits.items():
            lo = s.unilateral(f"{name}_low", angle - low, restitution=e_stop)
            hi = s.unilateral(f"{name}_high", high - angle, restitution=e_stop)
            s.output(f"M_{name}_stop", lo.force - hi.force, "N.m", f"moment of the {name} end stops on the boom")
    return s


def ship_motion(path, duration: float = 60.0, dt: float = 0.05) -> None:
    """Write ``duration`` seconds of ship motion (heave 1.5 m at 9 s, roll 0.06 rad at 11 s, pitch 0.02 rad at
    7 s) and cylinder commands to a CSV file (time, then the inputs): the main boom is driven up into its
    high stop and down into its low stop, the knuckle boom folded into its stop and stretched again."""
    f1, f2 = holding_forces()
    rows = ["time,z_ref,roll_ref,pitch_ref,F_cyl1,F_cyl2,M_slew,F_winch"]
    for k in range(int(round(duration / dt)) + 1):
        t = k * dt
        z = 1.5 * math.sin(2 * math.pi * t / 9.0)
        roll = 0.06 * math.sin(2 * math.pi * t / 11.0)
        pitch = 0.02 * math.sin(2 * math.pi * t / 7.0)
        luff = 1.6 if 5 <= t < 18 else 0.5 if 30 <= t < 42 else 1.0  # up into the stop, down into the other
        knuckle = 0.3 if 12 <= t < 26 else 4.0 if 45 <= t < 55 else 1.0  # folded in, stretched out
        slew = 3.0e5 if 20 <= t < 24 else -3.0e5 if 34 <= t < 38 else 0.0
        rows.append(f"{t:.4f},{z:.9g},{roll:.9g},{pitch:.9g},{luff * f1:.9g},{knuckle * f2:.9g},{slew:.9g},"
                    f"{M_PAYLOAD * G0:.9g}")  # fmt: skip
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(rows) + "\n")


def holding_forces() -> tuple[float, float]:
    """Cylinder forces that hold the booms in their initial angles on a ship at rest: the generalized forces of
    the two boom angles, affine in the cylinder forces, zero (the payload hanging)."""
    import numpy as np

    from symbody.numeric import NumericModel

    eq = build(end_stops=False).derive()
    nm = NumericModel(eq)
    names, inputs = [c.name for c in eq.coordinates], [u.name for u in eq.inputs]
    q, dq = [c.q0 for c in eq.coordinates], [0.0] * eq.nq
    rows = [names.index("luff"), names.index("knuckle")]

    def delta(u):
        return nm.delta(q, dq, 0.0, u)[rows]

    u0 = np.array(eq.u0, dtype=float)
    base = delta(u0)
    A = np.column_stack([delta(u0 + np.eye(len(u0))[inputs.index(n)]) - base for n in ("F_cyl1", "F_cyl2")])
    f1, f2 = np.linalg.solve(A, -base)
    return float(f1), float(f2)
