"""Models driven by motion inputs or holding first-order states, with their closed forms, shared by the
Python and FMU tests.

- :func:`pivot_pendulum`: a point-mass pendulum whose pivot follows the motion inputs ``xp`` (horizontal)
  and ``yp`` (vertical).  A constant horizontal pivot acceleration ``a`` tilts the relative equilibrium to
  ``theta = -atan(a / g)`` (the bob hangs back) with small oscillations at ``sqrt(sqrt(g^2 + a^2) / l)``;
  a vertical vibration ``a cos(w t)`` keeps the inverted position stable when ``a^2 w^2 > 2 g l``
  (Kapitza; to leading order in ``a / l``).
- :func:`driven_pendulum`: the same pendulum with its angle prescribed by a motion input (the driving
  torque is minus the prescription's multiplier), and :func:`torque_pendulum`, driven by a torque input.
- :func:`lag`: a first-order lag ``T x' = u - x`` on a mass (the lag drives nothing but an output).
- :func:`dc_motor`: a DC motor (current ``i`` a first-order state, back EMF) turning a flywheel with
  viscous friction; a linear model whose closed form is a matrix exponential.
- :func:`tied_carts`: two carts tied by a rope whose length a motion input sets, with states whose rates
  use the rope's multiplier.
- :func:`ship_crane_arm`: a crane arm on a heaving, rolling and pitching deck, with the wrench of the deck
  on it as outputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import symbody as sb

G, L, M = 9.81, 1.0, 1.0


def pivot_pendulum(theta0: float = 0.0) -> sb.System:
    """A bob of mass M on a rod of length L whose pivot follows the motion inputs ``xp`` and ``yp``."""
    s = sb.System("pivot")
    g = s.parameter("g", G, unit="m/s2")
    ln = s.parameter("l", L, unit="m")
    m = s.parameter("m", M, unit="kg")
    xp = s.motion_input("xp", unit="m", description="horizontal position of the pivot")
    yp = s.motion_input("yp", unit="m", description="vertical position of the pivot")
    th = s.coordinate("theta", theta0, unit="rad")
    B = s.base("B", s.ground_base, sb.Rz(th))
    pivot = s.point("pivot", s.origin, (xp, yp, 0))
    s.particle("bob", s.point("P", pivot, sb.Vector(B, 0, -ln, 0)), m)
    s.gravity((0, -g, 0))
    s.output("bob_x", s.position(s.points["P"]).components(s.ground_base)[0], unit="m")
    return s


def _fixed_pendulum(name: str) -> tuple[sb.System, Any]:
    """A pendulum (bob ``m`` at ``l``) on a fixed pivot, angle ``theta``: the system and the angle."""
    s = sb.System(name)
    g, ln, m = s.parameter("g", G, unit="m/s2"), s.parameter("l", L, unit="m"), s.parameter("m", M, unit="kg")
    th = s.coordinate("theta", 0.0, unit="rad")
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, sb.Vector(B, 0, -ln, 0)), m)
    s.gravity((0, -g, 0))
    return s, th


def torque_pendulum() -> sb.System:
    """A fixed-pivot pendulum driven by the torque input ``T``."""
    s, th = _fixed_pendulum("torque_pendulum")
    s.generalized_force("motor", th, s.input("T", unit="N*m"))
    return s


def driven_pendulum() -> sb.System:
    """The fixed-pivot pendulum whose angle follows the motion input ``z``; output ``torque``, the driving
    torque (minus the multiplier of the prescription)."""
    s, th = _fixed_pendulum("driven_pendulum")
    z = s.motion_input("z", unit="rad")
    s.prescribe("drive", th, z)
    s.output("torque", -s.multiplier("drive"), unit="N*m")
    return s


def driven_torque(z: float, ddz: float) -> float:
    """The torque that moves the fixed-pivot pendulum along ``z``: ``m l^2 ddz + m g l sin(z)``."""
    return M * L * L * ddz + M * G * L * np.sin(z)


TAU = 0.4  # time constant of the lag


def lag() -> sb.System:
    """``T x' = u - x`` beside a mass on a spring (the model needs a mechanical part); output ``y = 2 x``."""
    s = sb.System("lag")
    T = s.parameter("T", TAU, unit="s")
    u = s.input("u", 0.0, unit="V")
    x = s.state("x", 0.0, unit="V")
    s.rate(x, (u - x) / T)
    p = s.coordinate("p", 0.0, unit="m")
    s.particle("mass", s.point("P", s.origin, (p, 0, 0)), s.parameter("m", 1.0, unit="kg"))
    s.generalized_force("spring", p, -s.parameter("k", 4.0, unit="N/m") * p)
    s.output("y", 2 * x, unit="V")
    return s


# DC motor: resistance, inductance, torque (= back-EMF) constant, flywheel inertia and viscous friction
R, IND, KT, J, B = 2.0, 0.1, 0.5, 0.02, 0.01


def dc_motor() -> sb.System:
    """A DC motor on a flywheel: ``L i' = V - R i - k w``, ``J w' = k i - b w``; outputs current and speed."""
    s = sb.System("dc_motor")
    r, ind = s.parameter("R", R, unit="Ohm"), s.parameter("L", IND, unit="H")
    k = s.parameter("k", KT, unit="N*m/A")
    V = s.input("V", 0.0, unit="V")
    phi = s.coordinate("phi", 0.0, unit="rad")
    rotor = s.base("rotor", s.ground_base, sb.Rz(phi))
    s.solid("flywheel", s.origin, rotor, mass=1.0, inertia=(J, J, J))
    i = s.state("i", 0.0, unit="A", description="motor current")
    s.rate(i, (V - r * i - k * s.dt(phi)) / ind)
    s.generalized_force("motor", phi, k * i)
    s.viscous_friction("bearing", phi, c=s.parameter("b", B, unit="N*m*s/rad"))
    s.output("current", i, unit="A")
    s.output("speed", s.dt(phi), unit="rad/s")
    return s


def dc_motor_response(t: np.ndarray, volts: float) -> tuple[np.ndarray, np.ndarray]:
    """Current and speed after a voltage step from rest: the matrix exponential of the linear model."""
    from scipy.linalg import expm

    A = np.array([[-R / IND, -KT / IND], [KT / J, -B / J]])
    b = np.array([volts / IND, 0.0])
    steady = -np.linalg.solve(A, b)
    out = np.array([steady - expm(A * tk) @ steady for tk in np.atleast_1d(t)])
    return out[:, 0], out[:, 1]


def ship_crane_arm() -> sb.System:
    """A slewing pedestal, a boom and a jib on a ship deck that heaves, rolls and pitches (motion inputs
    ``heave``, ``roll``, ``pitch``); output vectors ``base_force`` and ``base_moment``: the wrench the deck
    exerts on the pedestal at the deck point ``D``, in the deck base."""
    s = sb.System("ship_arm")
    g = s.parameter("g", G)
    heave, roll, pitch = (s.motion_input(n) for n in ("heave", "roll", "pitch"))
    tilt = s.base("tilt", s.ground_base, sb.Rx(roll))
    deck = s.base("deck", tilt, sb.Ry(pitch))
    hull = s.point("hull", s.origin, (0, 0, heave))
    D = s.point("D", hull, sb.Vector(deck, 1.5, 0.5, 2.0))
    slew, luff, fold = s.coordinate("slew", 0.3), s.coordinate("luff", 0.4), s.coordinate("fold", -0.6)
    B1 = s.base("B1", deck, sb.Rz(slew))
    B2 = s.base("B2", B1, sb.Ry(-luff))
    B3 = s.base("B3", B2, sb.Ry(-fold))
    pedestal = s.solid("pedestal", D, B1, mass=800.0, com=(0.1, 0.0, 1.0), inertia=(300.0, 320.0, 90.0))
    hinge = s.point("hinge", D, sb.Vector(B1, 0.4, 0.0, 2.2))
    s.solid("boom", hinge, B2, mass=300.0, com=(2.5, 0.0, 0.0), inertia=(5.0, 650.0, 650.0))
    knuckle = s.point("knuckle", hinge, sb.Vector(B2, 5.0, 0.0, 0.0))
    s.solid("jib", knuckle, B3, mass=150.0, com=(2.0, 0.0, 0.1), inertia=(2.0, 200.0, 200.0))
    s.gravity((0, 0, -g))
    base = s.joint_reaction(pedestal, D, deck)
    s.output_vector("base_force", base.force, deck)
    s.output_vector("base_moment", base.moment, deck)
    return s


def tied_carts() -> sb.System:
    """Two carts tied by a rope whose length a motion input sets (``x2 - x1 = 1 + z^2``), a pendulum on the
    second, and two states: a lag of the rope tension (a multiplier) and a motor current acting on the
    pendulum; output ``tension_lag``."""
    s = sb.System("tied")
    z = s.motion_input("z")
    x1, x2, th = s.coordinate("x1", 0.1), s.coordinate("x2", 1.1), s.coordinate("th", 0.2)
    s.particle("m1", s.point("A", s.origin, (x1, 0, 0)), 1.0)
    C = s.point("C", s.origin, (x2, 0, 0))
    s.particle("m2", C, 2.0)
    arm = s.base("arm", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", C, sb.Vector(arm, 0, -1, 0)), 0.5)
    s.gravity((0, -9.81, 0))
    s.constraint("rope", x2 - x1 - 1 - z * z)
    s.generalized_force("spring", x1, -s.parameter("k", 4.0, unit="N/m") * x1)
    v = s.input("v")
    tension = s.state("tension", 0.3)
    s.rate(tension, 5 * (s.multiplier("rope") - tension))
    i = s.state("i", -0.2)
    s.rate(i, -2 * i + v - 0.5 * s.dt(th) + 0.1 * tension)
    s.generalized_force("motor", th, 3 * i)
    s.output("tension_lag", tension)
    return s
