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
