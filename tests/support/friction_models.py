"""Models with stick-slip friction shared by the tests of the Python simulation and of the FMUs, with their
exact event times."""

from __future__ import annotations

import math

from scipy.optimize import brentq

import symbody as sb

G = 9.81


def incline(alpha: float, mu: float, mu_static: float, v0: float = 0.0, m: float = 3.0) -> sb.System:
    """Coordinates along the slope (downhill) and off it; the slope is a unilateral contact pressing the friction."""
    s = sb.System("incline")
    d = s.coordinate("s", 0.0, dq0=v0)
    n = s.coordinate("n", 0.0)
    ca, sa = math.cos(alpha), math.sin(alpha)
    s.particle("block", s.point("P", s.origin, (d * ca + n * sa, -d * sa + n * ca, 0)), m)
    s.gravity((0, -G, 0))
    c = s.unilateral("slope", n)
    f = s.stick_slip("friction", d, normal=c.force, mu=mu, mu_static=mu_static)
    s.output("F_t", f.force)
    s.output("N", c.force)
    return s


def sine_pushed_block() -> sb.System:
    """A block (m = 2, mu = 0.3, mu_static = 0.5) pushed by 10 sin(t): the push exceeds mu_static m g only
    from asin(0.981) to pi - asin(0.981), 0.39 s, while the stuck block lets the solver take long steps."""
    s = sb.System("sine_push")
    x = s.coordinate("x")
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 2.0)
    w = s.parameter("w", 1.0, unit="1/s")
    s.generalized_force("push", x, 10.0 * sb.sin(w * s.t))
    s.stick_slip("floor", x, normal=2.0 * G, mu=0.3, mu_static=0.5)
    return s


def sine_push_events() -> list[float]:
    """Breakaway, stop (m v = 10 (cos t_b - cos t) - mu m g (t - t_b) back to zero) and breakaway backwards."""
    t_b = math.asin(0.981)
    t_s = brentq(lambda t: 10 * (math.cos(t_b) - math.cos(t)) - 0.3 * 2.0 * G * (t - t_b), 2.0, 4.0)
    return [t_b, t_s, math.pi + t_b]


def painleve_rod(
    mu: float, v0: float, theta0: float = math.radians(30), length: float = 1.0, m: float = 1.0
) -> sb.System:
    """A uniform rod (inertia m L^2 / 12) standing on its end A at theta0 from the floor and sliding at v0: the
    friction at A turns the rod and so changes the force on the floor (output N)."""
    s = sb.System("painleve_rod")
    x = s.coordinate("x", 0.0, dq0=v0)
    y = s.coordinate("y", 0.0)
    th = s.coordinate("th", theta0)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.solid(
        "rod", s.point("A", s.origin, (x, y, 0)), B, mass=m, com=(length / 2, 0, 0), inertia=(0, 0, m * length**2 / 12)
    )
    s.gravity((0, -G, 0))
    c = s.unilateral("floor", y)
    s.stick_slip("slide", x, normal=c.force, mu=s.parameter("mu", mu), mu_static=s.parameter("mu_s", mu))
    s.output("N", c.force)
    return s


def painleve_normal(mu: float, s: float, theta: float = math.radians(30), m: float = 1.0) -> float:
    """The force on the floor of :func:`painleve_rod` at rest in its angle, sliding along s (+1, -1): from
    m y_C'' = N - m g, I theta'' = (L / 2)(sin theta F - cos theta N) with y_C = (L / 2) sin theta and F = -mu s N,
    N (1 + 3 cos^2 theta + 3 mu s sin theta cos theta) = m g; it has none once 1 + 3 cos^2 + 3 mu s sin cos <= 0
    (the Painleve limit mu = (1 + 3 cos^2) / (3 sin cos), 2.502 at 30 degrees, sliding backwards)."""
    return m * G / (1 + 3 * math.cos(theta) ** 2 + 3 * mu * s * math.sin(theta) * math.cos(theta))
