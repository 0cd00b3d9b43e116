"""Hoisting models with closed forms, shared by the Python and FMU tests: ropes, slings, buffers.

- :func:`dropped_on_rope`: a mass hanging from a fixed sheave on an elastic rope reeved in ``falls``
  falls, released with the rope slack by ``h``.  It falls freely until the rope is taut at
  ``t_in = sqrt(2 h / g)``, then moves harmonically about the static stretch at ``w = sqrt(k / m)``
  with ``k = n^2 EA / L0`` (``L0`` the whole rope: a fixed lead from the anchor to the sheave and
  the ``n`` falls), and goes slack again with the speed it came in (:func:`drop_times`).
"""

from __future__ import annotations

import math

import symbody as sb

G = 9.81
MASS, EA, LEAD, FALL, SLACK = 50.0, 2.0e5, 1.5, 2.0, 0.05  # kg, N, m, m (hanging length of each fall), m


def rope_length(falls: int) -> float:
    """The unstretched length of the whole rope: the lead and ``falls`` falls of ``FALL``."""
    return LEAD + falls * FALL


def dropped_on_rope(falls: int = 1, damping: float = 0.0) -> sb.System:
    """A hook of mass ``MASS`` at ``y`` below a sheave at the origin; the rope runs from an anchor
    ``LEAD`` to the side, over the sheave, and ``falls`` times down to the hook, slack by ``SLACK``
    (the hook starts ``SLACK / falls`` above the taut position)."""
    s = sb.System(f"drop{falls}")
    g = s.parameter("g", G, unit="m/s2")
    m = s.parameter("m", MASS, unit="kg")
    ea = s.parameter("EA", EA, unit="N")
    c = s.parameter("c", damping, unit="N*s/m")
    l0 = s.parameter("L0", rope_length(falls), unit="m")
    y = s.coordinate("y", -(FALL - SLACK / falls), unit="m")
    anchor = s.point("anchor", s.origin, (-LEAD, 0, 0))
    hook = s.point("hook", s.origin, (0, y, 0))
    s.particle("payload", hook, m)
    s.gravity((0, -g, 0))
    s.rope("hoist", [anchor, s.origin, hook], stiffness=ea, damping=c, unstretched_length=l0, falls=falls)
    return s


def drop_times(falls: int = 1) -> tuple[float, float, float, float, float]:
    """``(t_in, t_out, w, y_static, amplitude)`` of :func:`dropped_on_rope` without damping: taut at
    ``t_in``, slack at ``t_out``; ``y_static`` the static stretch at the hook (m g / k) and the
    amplitude of the harmonic motion about it."""
    h = SLACK / falls  # the hook's free fall
    k = falls**2 * EA / rope_length(falls)
    w = math.sqrt(k / MASS)
    v = math.sqrt(2 * G * h)
    y_st = MASS * G / k
    amp = math.hypot(y_st, v / w)
    t_in = math.sqrt(2 * h / G)
    t_out = t_in + (2 * math.pi - 2 * math.acos(y_st / amp)) / w
    return t_in, t_out, w, y_st, amp


def drop_motion(t: float) -> float:
    """The hook's height ``y`` of :func:`dropped_on_rope` (one fall, no damping) at ``t``: free fall from
    rest, the harmonic motion on the taut rope, the flight back up to the start (a period of t_out + t_in)."""
    t_in, t_out, w, y_st, _ = drop_times(1)
    y0, v = -(FALL - SLACK), math.sqrt(2 * G * SLACK)
    tau = math.fmod(t, t_out + t_in)
    if tau <= t_in:
        return y0 - G * tau * tau / 2
    if tau <= t_out:
        s = tau - t_in
        return -FALL - (y_st * (1 - math.cos(w * s)) + v / w * math.sin(w * s))
    s = tau - t_out
    return -FALL + v * s - G * s * s / 2


def hook_on_sling_and_buffer(k: float, rest: float, free: float) -> sb.System:
    """A mass at ``x`` on a line: a sling from the origin (pulls beyond ``rest``) and a buffer from
    the origin (pushes below ``free``); between them it moves freely."""
    s = sb.System("sling_buffer")
    x = s.coordinate("x", 0.5 * (rest + free), unit="m")
    kk = s.parameter("k", k, unit="N/m")
    P = s.point("P", s.origin, (x, 0, 0))
    s.particle("cart", P, s.parameter("m", 1.0, unit="kg"))
    s.sling("strap", s.origin, P, k=kk, rest_length=s.parameter("rest", rest, unit="m"))
    s.buffer("bumper", s.origin, P, k=kk, free_length=s.parameter("free", free, unit="m"))
    return s


# a winch hoisting a payload on a stiff, damped rope (SI units)
W_MASS, W_EA, W_FALL, W_R, W_J, W_ALPHA = 1000.0, 1.0e7, 10.0, 0.3, 2.0, 0.5  # kg, N, m, m, kg m2, rad/s2


def winch_hoist(falls: int = 1, drive: str = "accelerate") -> sb.System:
    """A payload on ``falls`` falls of a rope of ``falls * W_FALL`` (hanging at rest at its static stretch)
    from a winch drum of radius ``W_R`` and inertia ``W_J``.

    ``drive="accelerate"``: the drum angle is prescribed to ``W_ALPHA t^2 / 2`` (constant acceleration);
    outputs ``drum_torque`` (minus the prescription's multiplier) and two states that book the energy: the
    work of the drum drive and the work done on the rope (``tension d(stretch)/dt``).
    ``drive="speed"``: the winch's speed drive, speed reference input, motor lag 0.2 s, gain 5e3 N m s/rad.
    """
    s = sb.System(f"winch_{drive}_{falls}")
    g = s.parameter("g", G, unit="m/s2")
    m = s.parameter("m", W_MASS, unit="kg")
    ea = s.parameter("EA", W_EA, unit="N")
    c = s.parameter("c", 3.0e4 / falls**2, unit="N*s/m")  # about a quarter of critical damping at the hook
    l0 = s.parameter("L0", falls * W_FALL, unit="m")
    r = s.parameter("r", W_R, unit="m")
    J = s.parameter("J", W_J, unit="kg*m2")
    y = s.coordinate("y", -(W_FALL + W_MASS * G * W_FALL / (falls * W_EA)), unit="m")  # at its static stretch
    hook = s.point("hook", s.origin, (0, y, 0))
    s.particle("payload", hook, m)
    s.gravity((0, -g, 0))
    rope = s.rope("hoist", [s.origin, hook], stiffness=ea, damping=c, unstretched_length=l0, falls=falls)
    if drive == "accelerate":
        drum = s.winch("drum", rope, radius=r, inertia=J, torque=0)
        s.prescribe("hoisting", drum.angle, s.parameter("alpha", W_ALPHA, unit="rad/s2") * s.t**2 / 2)
        torque = s.output("drum_torque", -s.multiplier("hoisting"), unit="N*m")
        s.state("drive_work", 0.0, unit="J", rate=torque * s.dt(drum.angle))
        s.state("rope_work", 0.0, unit="J", rate=rope.tension * s.dt(rope.stretch))
    else:
        gain = s.parameter("gain", 5.0e3, unit="N*m*s/rad")
        s.winch("drum", rope, radius=r, inertia=J, drive="speed", speed_gain=gain,
                motor_time_constant=s.parameter("Tm", 0.2, unit="s"))  # fmt: skip
    return s


def hoist_energy(t, y, dy, drive_work, rope_work) -> tuple:
    """``(drive work, kinetic + potential energy gained + work done on the rope)`` along a motion of
    :func:`winch_hoist` (``drive="accelerate"``), as arrays over its times."""
    dphi = W_ALPHA * t
    kinetic = 0.5 * W_MASS * dy**2 + 0.5 * W_J * dphi**2
    potential = W_MASS * G * y
    return drive_work, kinetic - kinetic[0] + potential - potential[0] + rope_work


# a vertical hydraulic cylinder lifting a mass (SI units)
C_AP, C_AR, C_STROKE, C_V0, C_BETA, C_MASS, C_K, C_PS, C_PT = 8e-3, 3e-3, 0.6, 2e-4, 1.4e9, 800.0, 2e-7, 2.1e7, 1e5
C_PC = 2e4  # cavitation pressure
C_AA = C_AP - C_AR


def beta_effective(p: float) -> float:
    """The cylinder's effective bulk modulus at the absolute pressure ``p``."""
    return C_BETA * p * p / (p * p + C_PC * C_PC)


def cylinder_lift(x0: float, p0: tuple[float, float], leakage: float = 0.0, friction: float = 0.0) -> sb.System:
    """A mass ``C_MASS`` on the rod end of a vertical cylinder (barrel at the origin, retracted length 1 m),
    extension ``x0``, chamber pressures ``p0``; the spool is the input ``lift_spool``."""
    s = sb.System("cylinder_lift")
    g = s.parameter("g", G, unit="m/s2")
    m = s.parameter("m", C_MASS, unit="kg")
    y = s.coordinate("y", 1.0 + x0, unit="m")
    rod_end = s.point("rod_end", s.origin, (0, y, 0))
    s.particle("load", rod_end, m)
    s.gravity((0, -g, 0))
    par = s.parameter
    s.hydraulic_cylinder(
        "lift", s.origin, rod_end, piston_area=par("Ap", C_AP, unit="m2"), rod_area=par("Ar", C_AR, unit="m2"),
        stroke=par("stroke", C_STROKE, unit="m"), retracted_length=par("Lr", 1.0, unit="m"),
        dead_volume=par("V0", C_V0, unit="m3"), bulk_modulus=par("beta", C_BETA, unit="Pa"),
        flow_gain=par("Kv", C_K), supply_pressure=par("ps", C_PS, unit="Pa"),
        tank_pressure=par("pt", C_PT, unit="Pa"), leakage=par("Cl", leakage, unit="m3/s/Pa"),
        friction=par("cf", friction, unit="N*s/m"), cavitation_pressure=par("pc", C_PC, unit="Pa"),
        initial_pressures=p0,
    )  # fmt: skip
    return s


def held_frequency(x: float, p1: float, p2: float) -> float:
    """``sqrt(beta (A_p^2 / V1 + A_a^2 / V2) / m)`` of the mass held by the closed cylinder at extension ``x``."""
    v1, v2 = C_V0 + C_AP * x, C_V0 + C_AA * (C_STROKE - x)
    return math.sqrt((beta_effective(p1) * C_AP**2 / v1 + beta_effective(p2) * C_AA**2 / v2) / C_MASS)


def flow_limited_speed(spool: float) -> float:
    """The steady speed of the rod end (positive extending) with the valve fully open (``spool = +-1``)
    against the weight: from ``A_p v = K sqrt(ps - p1)``, ``A_a v = K sqrt(p2 - pt)`` (extending; the
    other way round retracting) and ``p1 A_p - p2 A_a = m g``."""
    load = C_MASS * G
    if spool > 0:
        return C_K * math.sqrt((C_AP * C_PS - C_AA * C_PT - load) / (C_AP**3 + C_AA**3))
    return -C_K * math.sqrt((load - C_AP * C_PT + C_AA * C_PS) / (C_AP**3 + C_AA**3))
