"""Models with unilateral contacts and their exact motions, shared by the FMU tests of both backends."""

from __future__ import annotations

import math

import symbody as sb

G = 9.81
#: a ball thrown up at V0 under a ceiling at H (its apex V0^2 / 2 G = 1.274 is above the ceiling)
V0, H, E = 5.0, 1.2, 0.5
#: the impact on the ceiling; the gap H - y would be below zero from T_HIT until 0.6327
T_HIT = (V0 - math.sqrt(V0 * V0 - 2 * G * H)) / G


def bouncing_ball(h0: float, e: float, m: float) -> sb.System:
    """A ball dropped from h0 on the floor y >= 0 (restitution e, mass m); output N, the contact force."""
    s = sb.System("ball")
    y = s.coordinate("y", h0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), s.parameter("m", m))
    s.gravity((0, -G, 0))
    c = s.unilateral("floor", y, restitution=s.parameter("e", e))
    s.output("N", c.force)
    return s


def thrown_ball() -> sb.System:
    """The ball thrown up that grazes the ceiling (a gap dipping below zero for 0.25 s)."""
    s = sb.System("graze")
    y = s.coordinate("y", 0.0, dq0=V0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.unilateral("ceiling", H - y, restitution=E)
    return s


def thrown_ball_motion(t: float) -> tuple[float, float]:
    """Height and velocity of :func:`thrown_ball`: free flight, then the rebound from the ceiling at T_HIT
    with -E times the approach speed."""
    if t < T_HIT:
        return V0 * t - G * t * t / 2, V0 - G * t
    v = -E * (V0 - G * T_HIT)
    tau = t - T_HIT
    return H + v * tau - G * tau * tau / 2, v - G * tau


def ball_impacts(h0: float, e: float, count: int, g: float = G) -> list[float]:
    """The first ``count`` impact times of :func:`bouncing_ball` (flights of ``2 e^k v1 / g``; ``g`` the
    acceleration towards the floor)."""
    v1, t1 = math.sqrt(2 * g * h0), math.sqrt(2 * h0 / g)
    return [t1 + 2 * v1 / g * sum(e**j for j in range(1, k + 1)) for k in range(count)]


def ball_rest(h0: float, e: float, g: float = G) -> float:
    """When the accumulation of impacts of :func:`bouncing_ball` ends (4.0637 s for h0 = 1, e = 0.8)."""
    v1, t1 = math.sqrt(2 * g * h0), math.sqrt(2 * h0 / g)
    return t1 + 2 * v1 / g * e / (1 - e)


def ball_motion(t: float, h0: float, e: float, g: float = G) -> tuple[float, float]:
    """Height and velocity of :func:`bouncing_ball` at ``t``: the fall, the flights between the impacts (each
    leaving with ``e`` times the speed it came with), rest after :func:`ball_rest`."""
    v1, t1 = math.sqrt(2 * g * h0), math.sqrt(2 * h0 / g)
    if t < t1:
        return h0 - g * t * t / 2, -g * t
    start, speed = t1, e * v1
    while speed > 1e-12 and t >= start + 2 * speed / g:
        start, speed = start + 2 * speed / g, e * speed
    if speed <= 1e-12:
        return 0.0, 0.0
    tau = t - start
    return speed * tau - g * tau * tau / 2, speed - g * tau


#: how deep the free motion of :func:`grazing_oscillator` would go into its wall
GRAZE_DEPTH = 1e-7


def grazing_oscillator() -> sb.System:
    """A unit mass on a unit spring, x = sin t, and a wall (e = 1) at 1 - GRAZE_DEPTH: it touches the wall
    for 9e-4 s around pi / 2, far inside one step of any solver at a loose tolerance."""
    s = sb.System("graze_osc")
    x = s.coordinate("x", 0.0, dq0=1.0)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("spring", x, -x)
    s.unilateral("wall", 1.0 - GRAZE_DEPTH - x, restitution=1.0)
    return s


def grazing_oscillator_motion(t: float) -> tuple[float, float]:
    """Position and velocity of :func:`grazing_oscillator`: sin t up to the impact at asin(1 - GRAZE_DEPTH),
    then the elastic rebound (until the next approach, 3.5 s later)."""
    wall = 1.0 - GRAZE_DEPTH
    t_hit = math.asin(wall)
    if t < t_hit:
        return math.sin(t), math.cos(t)
    v, tau = math.cos(t_hit), t - t_hit
    return wall * math.cos(tau) - v * math.sin(tau), -wall * math.sin(tau) - v * math.cos(tau)
