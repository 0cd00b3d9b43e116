"""Tree models of the articulated-body tests: a 3-D chain, a branched tree and a tree of mixed joints.

Each is written with the public API, with inertias and offsets off every axis, so that no
constant zero of the model hides a wrong term.
"""

from __future__ import annotations

import symbody as sb


def chain_3d(n: int) -> sb.System:
    """n bodies on Z-Y-X spherical joints, centres of mass off every axis, full inertia tensors."""
    s = sb.System(f"chain{n}")
    s.gravity((0, 0, -s.parameter("g", 9.81)))
    base, point = s.ground_base, s.origin
    for k in range(n):
        angles = [s.coordinate(f"q{k}{a}") for a in "zyx"]
        if k:
            point = s.point(f"P{k}", point, sb.Vector(base, s.parameter(f"l{k}", 0.8), 0, 0))
        base = s.base(f"B{k}", base, sb.EulerAngles("zyx", angles))
        com = [s.parameter(f"c{k}{a}", v) for a, v in zip("xyz", (0.4, 0.05, -0.03))]
        inertia = sb.inertia(
            *(s.parameter(f"I{k}{a}", v) for a, v in zip("abcdef", (0.1, 0.3, 0.35, 0.01, -0.02, 0.015)))
        )
        s.solid(f"b{k}", point, base, mass=s.parameter(f"m{k}", 1.0 + 0.1 * k), com=com, inertia=inertia)
    return s


def branched() -> sb.System:
    """A root on a spherical joint carrying two branches of two spherical-jointed bodies each."""
    s = sb.System("branched")
    s.gravity((0, -9.81, 0))

    def body(name: str, parent_base, parent_point, offset) -> tuple:
        angles = [s.coordinate(f"{name}_{a}") for a in "zyx"]
        point = s.point(f"P{name}", parent_point, sb.Vector(parent_base, *offset)) if offset else parent_point
        base = s.base(f"B{name}", parent_base, sb.EulerAngles("zyx", angles))
        s.solid(
            name,
            point,
            base,
            mass=s.parameter(f"m{name}", 1.3),
            com=(0.3, 0.1, -0.05),
            inertia=sb.inertia(0.2, 0.25, 0.3, 0.02, 0.01, -0.03),
        )
        return base, point

    root = body("root", s.ground_base, s.origin, None)
    for side, y in (("L", 0.4), ("R", -0.4)):
        first = body(f"{side}1", *root, (0.5, y, 0.1))
        body(f"{side}2", *first, (0.6, 0.0, -0.2))
    return s


def mixed() -> sb.System:
    """Revolute, prismatic and spherical joints, offsets off the axes, inputs and loads on every kind."""
    s = sb.System("mixed")
    s.gravity((0, 0, -9.81))
    x, a, b = s.coordinate("x"), s.coordinate("a"), s.coordinate("b")
    sph = [s.coordinate(f"s{k}") for k in "zyx"]
    F, T = s.input("F", 0.7), s.input("T", -0.3)
    cart_point = s.point("C", s.origin, (x, 0.1, 0))  # prismatic along ground x
    cart = s.solid("cart", cart_point, s.ground_base, mass=2.0, com=(0.1, 0.0, 0.05), inertia=(0.1, 0.1, 0.1))
    arm_base = s.base("A", s.ground_base, sb.Ry(a))  # revolute, body point off the axis
    arm_point = s.point("AP", cart_point, (0.0, 0.2, 0.3))
    arm = s.solid(
        "arm", arm_point, arm_base, mass=1.2, com=(0.5, 0.02, 0.0), inertia=sb.inertia(0.05, 0.2, 0.22, 0.01, 0.0, 0.02)
    )
    slide_point = s.point("SP", arm_point, sb.Vector(arm_base, 0.3, 0.0, b))  # prismatic along the arm's z
    s.solid("slider", slide_point, arm_base, mass=0.5, com=(0.0, 0.05, 0.0), inertia=(0.01, 0.02, 0.015))
    ball_base = s.base("S", arm_base, sb.EulerAngles("zyx", sph))  # spherical at the arm's tip, second branch
    tip = s.point("Tip", arm_point, sb.Vector(arm_base, 1.0, 0.0, 0.0))
    s.solid(
        "ball", tip, ball_base, mass=0.8, com=(0.1, 0.2, -0.1), inertia=sb.inertia(0.03, 0.04, 0.05, 0.0, 0.01, 0.0)
    )
    s.generalized_force("push", x, F)
    s.torque("motor", arm, sb.Vector(s.ground_base, 0, T, 0), reaction=cart)
    s.spring_damper("spring", s.origin, slide_point, k=40.0, rest_length=0.5, damping=0.8)
    s.viscous_friction("wrist", sph[0], c=0.2)
    return s


def turntable() -> sb.System:
    """Two bodies on revolute and spherical joints below a turntable whose angle is a given function of time."""
    s = sb.System("turntable")
    s.gravity((0, 0, -9.81))
    w = s.parameter("w", 1.3, unit="1/s")
    table = s.base("table", s.ground_base, sb.Rz(0.7 * w * s.t + 0.2 * sb.sin(w * s.t)))
    a = s.coordinate("a")
    arm_base = s.base("A", table, sb.Ry(a))
    arm_point = s.point("hub", s.origin, sb.Vector(table, 0.3, 0.0, 0.1))
    s.solid(
        "arm", arm_point, arm_base, mass=1.1, com=(0.4, 0.05, 0.0), inertia=sb.inertia(0.02, 0.1, 0.11, 0.0, 0.01, 0.0)
    )
    angles = [s.coordinate(f"s{k}") for k in "zyx"]
    ball_base = s.base("S", arm_base, sb.EulerAngles("zyx", angles))
    tip = s.point("tip", arm_point, sb.Vector(arm_base, 0.8, 0.0, 0.0))
    s.solid(
        "ball", tip, ball_base, mass=0.6, com=(0.0, 0.1, -0.2), inertia=sb.inertia(0.03, 0.02, 0.04, 0.0, 0.0, 0.005)
    )
    return s
