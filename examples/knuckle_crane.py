"""Knuckle-boom crane on a ship: the deck moves with the sea (motion inputs), hydraulic cylinders luff the booms.

The ship's motion comes from outside, as signals: a seakeeping tool, a motion-reference unit or a CSV of
recorded motion gives the heave, roll and pitch of the ship's reference point, and the crane model takes
them as **motion inputs** (``System.motion_input``): the deck is a base and a point built from them with
the ordinary ``base``/``point`` calls, so the crane sits on a moving base without a servo of its own.  In
an FMU each motion input ``z`` is three inputs ``z``, ``dz``, ``ddz`` (within a communication step the
FMU moves the deck along ``z + dz tau + ddz tau^2 / 2``).

Coordinates (ground base ``xyz``: x forward, y to port, z up):

* ``slew``: slew angle of the pedestal column about the deck's vertical axis (rad);
* ``luff``: elevation of the main boom above the deck plane (rad);
* ``fold``: angle of the jib (the knuckle boom) relative to the main boom, positive lifting it (rad);
* ``swing_t``, ``swing_r``: the rope's angles from the column's axis (the vertical when the deck is level):
  tangential, about the column's x axis (along the booms), then radial, about the rotated y axis,
  positive swinging the payload inwards (rad).  The payload hangs ``l_rope`` below the jib tip on a rope
  taken as a rigid link (a spherical pendulum); the angles are relative to the column so that the bodies
  form a tree whose joint reactions the fixation wrench sums.

Motion inputs (of the ship's reference point, the deck origin on the waterline): ``heave`` (m, up),
``roll`` (rad, about x), ``pitch`` (rad, about y); the deck base is ``Rx(roll) Ry(pitch)``.  The pedestal
stands at ``(x_ped, y_ped, z_ped)`` on the deck.

Inputs: ``tau_slew`` (N m), the slewing drive's torque on the column; ``F_main`` and ``F_jib`` (N), the
forces of the main and of the knuckle cylinders, positive extending them (the cylinder hydraulics, their
pressures as first-order states, come with the crane elements).  The cylinders also damp the booms
(``c_cyl``); the slewing gear and the rope swing have viscous damping.

End stops: unilateral contacts (restitution ``e_stop``) keep ``luff`` in ``[luff_min, luff_max]`` and
``fold`` in ``[fold_min, fold_max]``; their forces ``F_*`` are outputs.

Outputs: the payload's position ``payload_x, _y, _z`` (ground); ``sway_t``, ``sway_r`` and their rates
``dsway_t``, ``dsway_r``: the rope's angles from the *vertical* (the swing an observer on the quay sees,
what an anti-sway controller damps; ``swing_t``, ``swing_r`` are measured from the rolling column), with
the convention of ``swing_t``, ``swing_r`` in the level frame turned by ``slew`` about the vertical; the
cylinders' lengths, the end stops' forces, and the wrench the crane exerts on the ship at the pedestal foot in the deck base,
``fixation_force_x, _y, _z`` (N) and ``fixation_torque_x, _y, _z`` (N m): minus the joint reaction of the
pedestal (:meth:`symbody.System.joint_reaction`), what DNV's crane FMU gives as fixation force and torque.

``examples/crane_control/ship_crane_cosim.py`` co-simulates it with a CSV of ship motion in fmpy and in
libcosim and closes an anti-sway loop designed from its linearization.

Example:
    >>> import knuckle_crane  # doctest: +SKIP
    >>> eq = knuckle_crane.build().derive()  # doctest: +SKIP
    >>> [c.name for c in eq.coordinates], [u.name for u in eq.inputs][:3]  # doctest: +SKIP
    (['slew', 'luff', 'fold', 'swing_t', 'swing_r'], ['heave', 'dheave', 'ddheave'])
"""

import symbody as sb

G0 = 9.80665  # m/s2
#: the operating point (rad): the booms over the starboard side, the main boom 34 deg up, the jib 23 deg down
SLEW0, LUFF0, FOLD0 = -1.5707963267948966, 0.6, -1.0


def build(
    luff0: float = LUFF0, fold0: float = FOLD0, slew0: float = SLEW0, end_stops: bool = True, actuation: str = "force"
) -> sb.System:
    """The crane on the ship; ``luff0``, ``fold0``, ``slew0`` are the start angles (rad).

    ``actuation="hydraulic"``: valve-fed hydraulic cylinders and an elastic rope on a hoist winch instead of
    cylinder forces and a rigid rope (see :func:`hydraulic_actuation`).
    """
    if actuation not in ("force", "hydraulic"):
        raise ValueError(f"actuation must be 'force' or 'hydraulic', not {actuation!r}")
    s = sb.System("knuckle_crane", description="knuckle-boom crane on a ship (heave, roll and pitch as motion inputs)")
    P = s.parameter
    g = P("g", G0, unit="m/s2", description="gravitational acceleration", min=0.0)
    x_ped = P("x_ped", -12.0, unit="m", description="pedestal foot on the deck, forward of the ship's reference point")
    y_ped = P("y_ped", -5.0, unit="m", description="pedestal foot on the deck, to port of the ship's reference point")
    z_ped = P("z_ped", 4.0, unit="m", description="pedestal foot above the ship's reference point (waterline)")
    h_col = P("h_col", 4.0, unit="m", description="height of the main boom's pivot above the pedestal foot")
    e_col = P("e_col", 0.8, unit="m", description="offset of the main boom's pivot from the slewing axis")
    L1 = P("L1", 12.0, unit="m", description="main boom, pivot to knuckle")
    L2 = P("L2", 8.0, unit="m", description="jib, knuckle to tip")
    l_rope = P("l_rope", 6.0, unit="m", description="rope length from the jib tip to the payload", min=0.0)
    m_col = P("m_col", 8000.0, unit="kg", description="mass of the slewing column", min=0.0)
    J_col = P(
        "J_col", 12000.0, unit="kg.m2", description="moment of inertia of the column about the slewing axis", min=0.0
    )
    m1 = P("m1", 3000.0, unit="kg", description="mass of the main boom", min=0.0)
    m2 = P("m2", 1500.0, unit="kg", description="mass of the jib", min=0.0)
    m_payload = P("m_payload", 4000.0, unit="kg", description="payload mass (with the hook)", min=0.0)
    c_cyl = P("c_cyl", 2.0e5, unit="N.s/m", description="viscous damping of each cylinder", min=0.0)
    c_slew = P("c_slew", 5.0e4, unit="N.m.s/rad", description="viscous damping of the slewing gear", min=0.0)
    c_swing = P("c_swing", 500.0, unit="N.m.s/rad", description="viscous damping of each rope swing angle", min=0.0)

    heave = s.motion_input("heave", unit="m", description="heave of the ship's reference point (up)")
    roll = s.motion_input("roll", unit="rad", description="roll of the ship (about x, starboard down)")
    pitch = s.motion_input("pitch", unit="rad", description="pitch of the ship (about y, bow down)")
    tilted = s.base("ship_roll", s.ground_base, sb.Rx(roll))
    deck = s.base("deck", tilted, sb.Ry(pitch))
    ship = s.point("ship", s.origin, (0, 0, heave))
    foot = s.point("foot", ship, sb.Vector(deck, x_ped, y_ped, z_ped))

    slew = s.coordinate("slew", slew0, unit="rad", description="slew angle of the column")
    luff = s.coordinate("luff", luff0, unit="rad", description="elevation of the main boom above the deck")
    fold = s.coordinate("fold", fold0, unit="rad", description="angle of the jib relative to the main boom")
    swing_t = s.coordinate("swing_t", 0.0, unit="rad", description="tangential rope angle from the column axis")
    swing_r = s.coordinate("swing_r", 0.0, unit="rad", description="radial rope angle from the column axis")

    column_base = s.base("column_base", deck, sb.Rz(slew))
    boom_base = s.base("boom_base", column_base, sb.Ry(-luff))
    jib_base = s.base("jib_base", boom_base, sb.Ry(-fold))
    rope_t = s.base("rope_t", column_base, sb.Rx(swing_t))
    rope = s.base("rope", rope_t, sb.Ry(swing_r))

    pivot = s.point("pivot", foot, sb.Vector(column_base, e_col, 0, h_col))
    knuckle = s.point("knuckle", pivot, sb.Vector(boom_base, L1, 0, 0))
    tip = s.point("tip", knuckle, sb.Vector(jib_base, L2, 0, 0))
    hang = l_rope  # the hook's distance below the jib tip: a rope length coordinate on the elastic rope
    if actuation == "hydraulic":
        hang = s.coordinate("hang", 6.0 + 4000 * G0 * 6.0 / 1.0e8, unit="m", description="jib tip to hook")
    hook = s.point("hook", tip, sb.Vector(rope, 0, 0, -hang))

    column = s.solid("column", foot, column_base, mass=m_col, com=(0, 0, h_col / 2), inertia=(J_col, J_col, J_col))
    boom = s.solid(
        "main_boom", pivot, boom_base, mass=m1, com=(L1 / 2, 0, 0), inertia=(0, m1 * L1**2 / 12, m1 * L1**2 / 12)
    )
    jib = s.solid(
        "jib_boom", knuckle, jib_base, mass=m2, com=(L2 / 2, 0, 0), inertia=(0, m2 * L2**2 / 12, m2 * L2**2 / 12)
    )
    s.particle("payload", hook, m_payload)
    s.gravity((0, 0, -g))

    # cylinders: the main one from the column to the boom, the knuckle one from the boom to a lever of the jib
    a1 = P("a1", 1.5, unit="m", description="main cylinder's foot on the column, height above the foot")
    b1 = P("b1", 4.0, unit="m", description="main cylinder's rod end on the boom, from the pivot")
    a2 = P("a2", 6.5, unit="m", description="knuckle cylinder's foot on the main boom, from the pivot")
    b2 = P("b2", 1.0, unit="m", description="knuckle cylinder's rod end on the jib lever, behind the knuckle")
    d_cyl = P("d_cyl", 0.7, unit="m", description="offset of the cylinders' ends from the booms' axes")
    main_foot = s.point("main_cyl_foot", foot, sb.Vector(column_base, e_col + d_cyl, 0, a1))
    main_rod = s.point("main_cyl_rod", pivot, sb.Vector(boom_base, b1, 0, -d_cyl))
    jib_foot = s.point("jib_cyl_foot", pivot, sb.Vector(boom_base, a2, 0, d_cyl))
    jib_rod = s.point("jib_cyl_rod", knuckle, sb.Vector(jib_base, -b2, 0, d_cyl))
    tau_slew = s.input("tau_slew", 0.0, unit="N.m", description="slewing drive's torque on the column")
    if actuation == "hydraulic":
        hydraulic_actuation(s, (main_foot, main_rod), (jib_foot, jib_rod), tip, hook, (slew0, luff0, fold0))
    else:
        F_main = s.input("F_main", 0.0, unit="N", description="main cylinder force (positive extends it)")
        F_jib = s.input("F_jib", 0.0, unit="N", description="knuckle cylinder force (positive extends it)")
        s.spring_damper(
            "main_cylinder", main_foot, main_rod, damping=c_cyl, actuator=F_main, solid1=column, solid2=boom
        )
        s.spring_damper("jib_cylinder", jib_foot, jib_rod, damping=c_cyl, actuator=F_jib, solid1=boom, solid2=jib)
    s.torque("slew_drive", column, sb.Vector(deck, 0, 0, tau_slew))
    s.viscous_friction("slew_gear", slew, c=c_slew)
    s.viscous_friction("rope_damping_t", swing_t, c=c_swing)
    s.viscous_friction("rope_damping_r", swing_r, c=c_swing)

    if end_stops:
        e_stop = P("e_stop", 0.2, description="restitution of the end stops", min=0.0, max=1.0)
        limits = {
            "luff_max": (P("luff_max", 1.3, unit="rad", description="highest main boom"), lambda lim: lim - luff),
            "luff_min": (P("luff_min", -0.1, unit="rad", description="lowest main boom"), lambda lim: luff - lim),
            "fold_max": (
                P("fold_max", 0.0, unit="rad", description="jib in line with the main boom"),
                lambda lim: lim - fold,
            ),
            "fold_min": (
                P("fold_min", -2.6, unit="rad", description="jib folded against the main boom"),
                lambda lim: fold - lim,
            ),
        }
        for name, (lim, gap) in limits.items():
            stop = s.unilateral(f"stop_{name}", gap(lim), restitution=e_stop)
            s.output(f"F_{name}", stop.force, unit="N.m", description=f"end stop force at {name}")

    for ax, c in zip("xyz", s.position(hook).components(s.ground_base)):
        s.output(f"payload_{ax}", c, unit="m", description=f"payload position, ground {ax}")
    level = s.base("level", s.ground_base, sb.Rz(slew))  # the column's heading, without the ship's tilt
    ex, ey, ez = (c / hang for c in s.position(tip, hook).components(level))
    sway_t, sway_r = sb.atan2(ey, -ez), sb.asin(-ex)
    for name, angle, what in (("sway_t", sway_t, "tangential"), ("sway_r", sway_r, "radial")):
        s.output(name, angle, unit="rad", description=f"{what} rope angle from the vertical")
        s.output("d" + name, s.dt(angle), unit="rad/s", description=f"rate of the {what} rope angle")
    s.output("main_cylinder_length", s.position(main_foot, main_rod).norm(), unit="m")
    s.output("jib_cylinder_length", s.position(jib_foot, jib_rod).norm(), unit="m")
    fixation = s.joint_reaction(column, foot, deck)
    s.output_vector("fixation_force", -fixation.force, deck, unit="N", description="force of the crane on the ship")
    s.output_vector(
        "fixation_torque", -fixation.moment, deck, unit="N.m", description="torque of the crane on the ship"
    )
    return s


def holding_forces(slew0: float, luff0: float, fold0: float) -> tuple[float, float]:
    """The main and knuckle cylinder forces (N) that hold the booms at rest at the given angles, the ship
    still: the luff and fold rows of the force-driven crane's equations at rest, linear in the forces."""
    import numpy as np

    from symbody.numeric import NumericModel

    nm = NumericModel(build(luff0, fold0, slew0, end_stops=False).derive())
    names = [u.name for u in nm.eq.inputs]
    q, dq = np.array([slew0, luff0, fold0, 0.0, 0.0]), np.zeros(5)
    unit = {f: np.eye(len(names))[names.index(f)] for f in ("F_main", "F_jib")}
    rest = nm.delta(q, dq, t=0.0, u=np.zeros(len(names)))[1:3]
    A = np.column_stack([nm.delta(q, dq, t=0.0, u=unit[f])[1:3] - rest for f in ("F_main", "F_jib")])
    f_main, f_jib = np.linalg.solve(A, -rest)
    return float(f_main), float(f_jib)


def hydraulic_actuation(s: sb.System, main: tuple, jib: tuple, tip, hook, start: tuple[float, float, float]) -> None:
    """Valve-fed differential cylinders between the points of ``main`` and ``jib`` (spools ``main_cylinder_spool``,
    ``jib_cylinder_spool``), their chamber pressures as states starting at the static balance of ``start``
    (``(slew0, luff0, fold0)``: :func:`holding_forces`), and the payload on an elastic wire rope from the jib tip
    on the hoist winch ``hoist``, driven by the torque ``tau_hold + tau_hoist`` (input ``tau_hoist``, N m,
    positive heaving in; ``tau_hold`` holds the payload)."""
    P = s.parameter
    forces = holding_forces(*start)
    for name, (foot, rod), force, length in zip(("main_cylinder", "jib_cylinder"), (main, jib), forces, (0.9, 0.9)):
        a_p, a_r, low = 0.05, 0.025, 2.0e6  # m2 (250 mm bore, 180 mm rod), Pa (the lower chamber pressure)
        p_cap, p_rod = (
            ((force + low * (a_p - a_r)) / a_p, low) if force >= 0 else (low, (low * a_p - force) / (a_p - a_r))
        )
        s.hydraulic_cylinder(
            name, foot, rod, piston_area=P(f"{name}_Ap", a_p, unit="m2"), rod_area=P(f"{name}_Ar", a_r, unit="m2"),
            stroke=P(f"{name}_stroke", 3.0, unit="m"), retracted_length=P(f"{name}_Lr", length * _distance(s, foot, rod), unit="m"),
            dead_volume=P(f"{name}_V0", 5e-3, unit="m3"), bulk_modulus=P(f"{name}_beta", 1.2e9, unit="Pa"),
            flow_gain=P(f"{name}_Kv", 4e-6), supply_pressure=P(f"{name}_ps", 2.5e7, unit="Pa"),
            tank_pressure=P(f"{name}_pt", 2e5, unit="Pa"), friction=P(f"{name}_friction", 2e5, unit="N.s/m"),
            initial_pressures=(p_cap, p_rod),
        )  # fmt: skip
    wire = s.rope("wire", [tip, hook], stiffness=P("EA_wire", 1.0e8, unit="N", description="axial stiffness of the wire rope"),
                  damping=P("c_wire", 2.0e4, unit="N.s/m"), unstretched_length=P("l_wire", 6.0, unit="m"))  # fmt: skip
    r_drum = P("r_drum", 0.4, unit="m", description="hoist drum radius")
    hold = P("tau_hold", 4000.0 * G0 * 0.4, unit="N.m", description="hoist drum torque holding the payload")
    tau_hoist = s.input("tau_hoist", 0.0, unit="N.m", description="hoist drive torque beyond tau_hold (positive heaving in)")
    s.winch("hoist", wire, radius=r_drum, inertia=P("J_drum", 200.0, unit="kg.m2"), torque=hold + tau_hoist)


def _distance(s: sb.System, a, b) -> float:
    """The distance of two points at the start (m)."""
    from symbody.model.expressions import default_value

    return default_value(s, s.position(a, b).norm())
