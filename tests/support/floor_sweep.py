"""Checks of event FMUs on balls bouncing on floors that are not the flat, fixed one of the bouncing ball: an
inclined floor (the contact's normal tilted by alpha, with or without friction along it) and a floor moving with a
motion input the master drives (rising or sinking at constant velocity, accelerating, heaving sinusoidally).

Exact references:

* inclined, frictionless: along the normal the flat ball's flights with g cos(alpha) (the gap is the height
  above the floor), along the floor s = -g sin(alpha) t^2 / 2 throughout (impacts act along the normal, the
  mass is isotropic);
* inclined, with friction: ``symbody.numeric.simulate`` at rtol 1e-10;
* moving at constant velocity u (the ball launched with it) or constant acceleration a (from rest): relative to
  the floor the flat ball with g (Galilei) or g + a (the floor's frame), at rest moving with the floor, the contact
  force m (g + a);
* heaving, A sin(w t) with A w^2 < g: the flights, parabolas, meet the floor at the roots of y(t) - z(t) found
  by scipy's brentq, each leaving with the floor's velocity minus e times the approach speed relative to it.

Each check returns what failed (an empty list when all held); ``tests/fmu/test_fmu_events_floors.py`` runs a part
of the class, ``benchmarks/event_sweep.py`` (families ``incline`` and ``moving``) all of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

import symbody as sb

from support.contact_models import G, ball_impacts, ball_rest
from support.event_masters import Master, master_step_error
from support.event_sweep import (
    Failures,
    Relative,
    Slack,
    ball_failures,
    ball_stop,
    ball_tolerances,
    crane_tolerance,
    resolved_impacts,
    run,
    slope_tolerances,
)

MASS, H0 = 2.0, 1.0

# -- the inclined floor -------------------------------------------------------------------------------------


def inclined_ball(alpha: float, e: float, mu: float | None = None, mu_static: float | None = None) -> sb.System:
    """A ball (mass MASS) dropped from H0 above a floor through the origin tilted by ``alpha`` (rising along x):
    the gap n = -x sin(alpha) + y cos(alpha), restitution ``e``; with ``mu``, stick-slip friction along the floor
    (s = x cos(alpha) + y sin(alpha)) pressed by the contact force.  Outputs n, dn, s, ds, N (and F_t)."""
    s = sb.System("inclined_ball")
    sa, ca = math.sin(alpha), math.cos(alpha)
    x, y = s.coordinate("x", -H0 * sa), s.coordinate("y", H0 * ca)
    s.particle("b", s.point("P", s.origin, (x, y, 0)), s.parameter("m", MASS))
    s.gravity((0, -G, 0))
    gap, along = -sa * x + ca * y, ca * x + sa * y
    c = s.unilateral("floor", gap, restitution=s.parameter("e", e))
    for name, expr in (("n", gap), ("dn", s.dt(gap)), ("s", along), ("ds", s.dt(along)), ("N", c.force)):
        s.output(name, expr)
    if mu is not None:
        f = s.stick_slip("friction", along, normal=c.force, mu=s.parameter("mu", mu), mu_static=mu_static)
        s.output("F_t", f.force)
    return s


INCLINE_OUTPUT = ["n", "dn", "s", "ds", "N"]


def check_inclined(master: Master, fmu, alpha: float, e: float) -> Failures:
    """The frictionless inclined floor: along the normal the flat ball with g cos(alpha) (impact times, apexes,
    never below the floor by more than the master's step error, at rest with N = m g cos(alpha)), along the floor
    the free slide s = -g sin(alpha) t^2 / 2 untouched by the impacts."""
    g_n, g_t = G * math.cos(alpha), G * math.sin(alpha)
    trace, fail = run(master, fmu, ball_stop(master, H0, e, g_n), INCLINE_OUTPUT, {"e": e})
    if trace is None:
        return fail
    t = trace.time
    fail += ball_failures(
        master, Relative(t, trace.events, trace["n"], trace["dn"], trace["N"]), H0, e, MASS, g_n,
        floor_slack(master, 1.0 + np.abs(trace["s"]).max(), np.abs(trace["ds"]).max()),
    )  # fmt: skip
    slide = g_t * t * t / 2
    s_err = np.abs(trace["s"] + slide)
    bound = slide_bound(master, t, g_t)
    if np.any(s_err > bound):
        i = int(np.argmax(s_err - bound))
        fail.append(f"s off the free slide by {s_err[i]:.3g} (allowed {bound[i]:.3g}) at t = {t[i]:.5g}")
    return fail


def slide_bound(master: Master, t: np.ndarray, g_t: float) -> np.ndarray:
    """How far a master's free slide along the floor may be from g_t t^2 / 2: rk4 and the Co-Simulation solvers
    are exact for it (rounding), explicit Euler lags by g_t / 2 times the sum of its squared steps, at most
    g_t h t / 2 (h the longest step: the last one, to the stop, up to 1.5 steps), CVode by its tolerance."""
    slide = g_t * t * t / 2
    if master.kind == "cs" or master.method in ("rk4", "bisection"):
        return 1e-9 * (1.0 + slide)
    if master.method in ("euler", "euler_bisection"):
        return g_t * 1.5 * master.step * t / 2 + 1e-9 * (1.0 + slide)
    return 1e3 * (master.rtol or 0.0) * (1.0 + slide)


class Rough(NamedTuple):
    """The ball on the inclined floor with stick-slip friction: its exact motion.  Impacts act along the normal
    only (the friction of symbody's stick-slip elements is a force, pressed by the contact's force while the
    contact is closed: no impulse), so along the floor it slides freely, s = -g sin(alpha) t^2 / 2, until the
    contact closes, at the end of the accumulation of impacts; then friction decelerates it (if mu > tan(alpha))
    until it stops and sticks (if tan(alpha) <= mu_static), or it slides on at g (sin(alpha) - mu cos(alpha))."""

    alpha: float
    e: float
    mu: float
    mu_static: float
    stop: float

    def system(self) -> sb.System:
        return inclined_ball(self.alpha, self.e, self.mu, self.mu_static)

    def motion(self, t_close: float) -> tuple[float | None, Callable[[float], float]]:
        """The time friction stops it (None if it never does) and s(t), for the contact closing at ``t_close``."""
        g_t, g_n = G * math.sin(self.alpha), G * math.cos(self.alpha)
        v_c, s_c = -g_t * t_close, -g_t * t_close**2 / 2
        a = -g_t + self.mu * g_n  # (sliding downhill: friction uphill)
        t_stop = t_close - v_c / a if a > 0.0 else None  # (then mu_static >= mu > tan(alpha): it sticks)

        def s(t: float) -> float:
            if t <= t_close:
                return -g_t * t * t / 2
            if t_stop is None or t <= t_stop:
                tau = t - t_close
                return s_c + v_c * tau + a * tau * tau / 2
            return s_c - v_c * v_c / (2 * a)

        return t_stop, s


def check_rough_incline(master: Master, fmu, case: Rough) -> Failures:
    """The inclined floor with friction: the impacts the master resolves at their exact times (g cos(alpha) along
    the normal), the contact closing at the end of the accumulation (not before the last resolved impact, not
    after the master's rest tolerance), s along the floor the exact motion for the master's closing time (free
    before, decelerated by friction after, stopped and stuck), never below the floor by more than the master's
    step error, N = m g cos(alpha) at the end and the sticking force m g sin(alpha)."""
    g_n, g_t = G * math.cos(case.alpha), G * math.sin(case.alpha)
    trace, fail = run(master, fmu, case.stop, INCLINE_OUTPUT + ["F_t"], {})
    if trace is None:
        return fail
    t = trace.time
    tol = ball_tolerances(master, H0, case.e, g_n)
    n = resolved_impacts(master, H0, case.e, g=g_n)
    impacts, t_rest = ball_impacts(H0, case.e, n, g_n), ball_rest(H0, case.e, g_n)
    events = [te for te in trace.events if te > 1e-12]
    late = [(k, te, ex) for k, (te, ex) in enumerate(zip(events, impacts)) if abs(te - ex) > (k + 1) * tol["time"]]
    if len(events) < n or late:
        fail.append(f"impacts at {np.round(events[:n], 6).tolist()}, exact {np.round(impacts, 6).tolist()}")
    rest_tol = tol["rest"] if tol["rest"] is not None else (len(events) + 1) * tol["time"]
    closing = [te for te in events if te <= t_rest + rest_tol]
    if not closing or closing[-1] < impacts[-1] - n * tol["time"]:
        fail.append(f"the contact closes at {closing[-1:]}, exact {t_rest:.6g}, last resolved impact {impacts[-1]:.6g}")
        return fail
    t_stop, exact = case.motion(closing[-1])
    s_exact = np.array([exact(float(ti)) for ti in t])
    bound = slope_tolerances(master, case.stop)[1] * (1.0 + np.abs(s_exact).max())
    err = np.abs(trace["s"] - s_exact)
    if err.max() > bound:
        i = int(np.argmax(err))
        fail.append(f"s off the exact motion by {err[i]:.3g} (allowed {bound:.3g}) at t = {t[i]:.5g}")
    below = tol["below"] or 0.0
    if trace["n"].min() < -below:
        fail.append(f"{-trace['n'].min():.3g} below the floor (allowed {below:.3g})")
    after = t > t_rest + rest_tol
    slack = floor_slack(master, 1.0 + np.abs(trace["s"]).max(), np.abs(trace["ds"]).max())
    if not np.allclose(trace["N"][after], MASS * g_n, rtol=slack.force):
        fail.append(f"normal force at rest {trace['N'][after][-1]:.9g}, exact {MASS * g_n:.9g}")
    held = t > (t_stop or case.stop) + slope_tolerances(master, case.stop)[0] + 1e-3
    if t_stop is not None and held.any():
        if np.abs(trace["ds"][held]).max() > 1e-8 or not np.allclose(trace["F_t"][held], MASS * g_t, rtol=1e-9):
            fail.append(
                f"not stuck after {t_stop:.5g}: ds {trace['ds'][held][-1]:.3g}, F_t {trace['F_t'][held][-1]:.6g}"
            )
    return fail


# -- the moving floor ---------------------------------------------------------------------------------------


def floor_ball(e: float) -> sb.System:
    """A ball (mass MASS, height y, start H0) above a floor at the height of the motion input ``zf`` (its
    velocity ``dzf``, acceleration ``ddzf``): the gap y - zf, restitution ``e``; output N, the contact force."""
    s = sb.System("floor_ball")
    zf = s.motion_input("zf", unit="m")
    y = s.coordinate("y", H0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), s.parameter("m", MASS))
    s.gravity((0, -G, 0))
    c = s.unilateral("floor", y - zf, restitution=s.parameter("e", e))
    s.output("N", c.force)
    return s


class Floor(NamedTuple):
    """The floor's height z(t) = z0 + u t + a t^2 / 2 + A sin(w t) (one or more of them zero)."""

    u: float = 0.0
    a: float = 0.0
    amplitude: float = 0.0
    w: float = 0.0

    def at(self, t: float) -> tuple[float, float, float]:
        """z, dz, ddz at t."""
        s, c = math.sin(self.w * t), math.cos(self.w * t)
        a, w = self.amplitude, self.w
        return self.u * t + self.a * t * t / 2 + a * s, self.u + self.a * t + a * w * c, self.a - a * w * w * s

    def signals(self, t: float) -> dict[str, float]:
        z, dz, ddz = self.at(t)
        return {"zf": z, "dzf": dz, "ddzf": ddz}

    @property
    def uniform(self) -> bool:
        """Whether the floor's frame is uniformly accelerated (the relative motion is the flat ball's)."""
        return self.amplitude == 0.0

    @property
    def peak_acceleration(self) -> float:
        return abs(self.a) + self.amplitude * self.w**2


def heaving_impacts(floor: Floor, e: float, stop: float, v_end: float = 1e-7) -> tuple[list[float], float]:
    """The impact times of the ball dropped from rest at H0 on ``floor`` (brentq on y(t) - z(t) along each
    parabolic flight) and when the accumulation ends: the impacts are followed until the speed relative to the
    floor falls below ``v_end``; the rest of the flights, about 2 e v / ((1 - e) (g + ddz)), ends it."""
    from scipy.optimize import brentq

    t0, y0, v0 = 0.0, H0, 0.0
    impacts: list[float] = []
    while t0 < stop:

        def gap(t: float, t0: float = t0, y0: float = y0, v0: float = v0) -> float:
            tau = t - t0
            return y0 + v0 * tau - G * tau * tau / 2 - floor.at(t)[0]

        # the first change of sign after t0: on a grid finer than the flight (its speed relative to the floor)
        v_rel = v0 - floor.at(t0)[1]
        flight = 2 * max(v_rel, 0.0) / (G + floor.at(t0)[2]) if impacts else math.sqrt(2 * H0 / G)
        dt = min(1e-3, flight / 20) if flight > 0 else 1e-3
        a, b = t0 + dt / 100 if impacts else t0, t0 + dt
        while gap(b) > 0.0:
            a, b = b, b + dt
        t = brentq(gap, a, b, xtol=1e-15, rtol=4 * np.finfo(float).eps)
        v_before = v0 - G * (t - t0)
        dz = floor.at(t)[1]
        approach = dz - v_before
        impacts.append(t)
        t0, y0, v0 = t, floor.at(t)[0], dz + e * approach
        if e * approach < v_end:
            return impacts, t + 2 * e * approach / ((1 - e) * (G + floor.at(t)[2]))
    raise ValueError("the ball does not come to rest before stop")


FLOOR_OUTPUT = ["y", "dy", "N"]


def floor_tolerances(master: Master, floor: Floor, e: float) -> dict[str, float | None]:
    """The flat ball's tolerances (ball_tolerances) with the floor's peak acceleration added to g."""
    return ball_tolerances(master, H0, e, G + floor.peak_acceleration)


def check_moving_floor(master: Master, fmu, floor: Floor, e: float) -> Failures:
    """The ball on a floor the master moves.  A uniformly moving or accelerating floor: relative to it the flat
    ball with g + a (impacts, apexes, never below the floor by more than the master's step error, at rest moving
    with it, N = m (g + a)).  A heaving floor: the impacts at the times of :func:`heaving_impacts`, never below it,
    at rest moving with it after the accumulation, N = m (g + ddz)."""
    start = {"y": H0, "e": e, "dy": floor.at(0.0)[1] if floor.uniform else 0.0}
    if floor.uniform:
        g = G + floor.a
        stop = ball_stop(master, H0, e, g)
    else:
        stop = ball_stop(master, H0, e, G - floor.peak_acceleration)
    trace, fail = run(master, fmu, stop, FLOOR_OUTPUT, start, floor.signals)
    if trace is None:
        return fail
    t = trace.time
    z = np.array([floor.at(float(ti)) for ti in t])
    r, dr = trace["y"] - z[:, 0], trace["dy"] - z[:, 1]
    slack = floor_slack(master, 1.0 + np.abs(z[:, 0]).max(), np.abs(z[:, 1]).max(), floor.peak_acceleration)
    if floor.uniform:
        rel = Relative(t, trace.events, r, dr, trace["N"])
        return fail + ball_failures(master, rel, H0, e, MASS, G + floor.a, slack)
    return fail + heaving_failures(master, Relative(t, trace.events, r, dr, trace["N"]), z[:, 2], floor, e, slack)


def floor_slack(master: Master, scale: float, speed: float, acceleration: float = 0.0) -> Slack:
    """How far a ball resting on a floor may be off it, where its positions reach ``scale`` (rounding) and it moves
    with the floor at up to ``speed``, accelerated by up to ``acceleration``: the master's error on that motion,
    CVode's (100 rtol of the positions and speeds), the Co-Simulation solvers' (their event tolerance, 1e-9, over
    the steps of the rest: 1e-7 of the speed), explicit Euler's lag behind an accelerating floor (a h / 2 in rate,
    held by the contact's stabilization: a h times its time constant, below 1 s, in position).  The contact force
    then differs from its exact value by m times the stabilization's rate (2 alpha, below 100 / s) times the rate's
    error."""
    position, rate = 1e-8 * scale, 1e-8 * (1.0 + speed)
    if master.kind == "cs":
        rate += 1e-7 * speed
    elif master.method == "cvode":
        position += 100 * (master.rtol or 0.0) * scale
        rate += 100 * (master.rtol or 0.0) * (1.0 + speed)
    elif master.method in ("euler", "euler_bisection"):
        position += master.step * acceleration * 1.0
        rate += master.step * acceleration
    return Slack(position, rate, 1e-9 + 100 * rate / G)


def heaving_failures(master: Master, rel: Relative, ddz: np.ndarray, floor: Floor, e: float, slack: Slack) -> Failures:
    """What a master got wrong on the heaving floor (``rel``: the motion relative to it; ``ddz``: the floor's
    acceleration at the rows)."""
    t, events, r, dr, force = rel
    fail: Failures = []
    impacts, t_rest = heaving_impacts(floor, e, t[-1])
    tol = floor_tolerances(master, floor, e)
    g_low = G - floor.peak_acceleration
    n = min(resolved_impacts(master, H0, e, g=g_low), len(impacts))
    found = events[:n]
    if len(found) < n:
        fail.append(f"{len(found)} impacts found, {n} expected")
    late = [(k, te, ex) for k, (te, ex) in enumerate(zip(found, impacts)) if abs(te - ex) > (k + 1) * tol["time"]]
    if late:
        fail.append(f"impact times off (k, found, exact): {late[:2]}")
    below = max(tol["below"] or 0.0, slack.position)
    if master.kind == "me" and master.method in ("euler", "rk4"):  # the approach speed relative to the floor
        speed = math.sqrt(2 * G * H0) + floor.amplitude * floor.w
        below = max(below, master_step_error(speed, G + floor.peak_acceleration, master.step))
    if r.min() < -below:
        fail.append(f"{-r.min():.3g} m below the floor (allowed {below:.3g}) at t = {t[np.argmin(r)]:.6g}")
    rest_tol = tol["rest"] if tol["rest"] is not None else (len(events) + 1) * tol["time"]
    rest = t > t_rest + rest_tol
    if not rest.any():
        fail.append(f"not at rest by {t[-1]} s ({len(events)} events, exact end {t_rest:.4g} s)")
    elif not (np.all(np.abs(r[rest]) <= slack.position) and np.all(np.abs(dr[rest]) <= slack.rate)):
        moving = t[rest][(np.abs(r[rest]) > slack.position) | (np.abs(dr[rest]) > slack.rate)]
        fail.append(
            f"not moving with the floor at {moving[-1]:.5g} s: |r| {np.abs(r[rest]).max():.3g}, |dr| "
            f"{np.abs(dr[rest]).max():.3g}, exact end {t_rest:.5g} s ({len(events)} events)"
        )
    elif not np.allclose(force[rest], MASS * (G + ddz[rest]), rtol=slack.force):
        i = int(np.argmax(np.abs(force[rest] - MASS * (G + ddz[rest]))))
        fail.append(f"resting force {force[rest][i]:.9g}, m (g + ddz) = {MASS * (G + ddz[rest][i]):.9g}")
    if np.any(force[t < impacts[0] - tol["time"]] != 0.0):
        fail.append("contact force in the first flight")
    return fail


def check_sampled_floor(master: Master, fmu, floor: Floor, e: float, stop: float = 8.0) -> Failures:
    """A Co-Simulation master moving the heaving floor: inside a communication step the FMU moves it along
    z + dz tau + ddz tau^2 / 2 from the values the master set at the step's start, so at every communication
    point it jumps to the master's next sample (by up to A w^3 h^3 / 6, into the ball or away from it).  No
    Error, and at the end of every step (where the master reads the outputs, before it sets the next sample) the
    ball is above the floor the FMU moved, or on it pressed by at least nothing."""
    trace, fail = run(master, fmu, stop, FLOOR_OUTPUT, {"y": H0, "e": e}, floor.signals)
    if trace is None:
        return fail
    t, h = trace.time, master.step
    start = np.maximum(np.round(t / h) - 1, 0) * h  # (the communication point each row's step began at)
    z0 = np.array([floor.at(float(ti)) for ti in start])
    tau = t - start
    z = z0[:, 0] + tau * (z0[:, 1] + tau * z0[:, 2] / 2)
    r = trace["y"] - z
    if r.min() < -1e-8 * (1.0 + np.abs(z).max()):
        fail.append(f"{-r.min():.3g} m below the floor the FMU moved at t = {t[np.argmin(r)]:.6g}")
    if np.any(trace["N"] < 0.0):
        fail.append("the floor pulls")
    return fail


# -- a floor moving along itself, with friction ---------------------------------------------------------------


def belt_ball(e: float, mu: float, mu_static: float) -> sb.System:
    """A ball (mass MASS) dropped from H0 onto a floor that heaves (motion input ``zf``) and moves along itself
    (motion input ``xf``, a belt): the gap y - zf (restitution ``e``), stick-slip friction on the slip x - xf
    pressed by the contact force.  Outputs N and F_t."""
    s = sb.System("belt_ball")
    xf, zf = s.motion_input("xf", unit="m"), s.motion_input("zf", unit="m")
    x, y = s.coordinate("x", 0.0), s.coordinate("y", H0)
    s.particle("b", s.point("P", s.origin, (x, y, 0)), s.parameter("m", MASS))
    s.gravity((0, -G, 0))
    c = s.unilateral("floor", y - zf, restitution=s.parameter("e", e))
    f = s.stick_slip("belt", x - xf, normal=c.force, mu=s.parameter("mu", mu), mu_static=mu_static)
    s.output("N", c.force)
    s.output("F_t", f.force)
    return s


class Belt(NamedTuple):
    """The belt's motion along itself, xf = u t + b t^2 / 2, its heave ``floor`` (uniform), the restitution
    and the friction coefficients of :func:`belt_ball`."""

    u: float
    b: float
    floor: Floor
    e: float
    mu: float
    mu_static: float

    def signals(self, t: float) -> dict[str, float]:
        return {"xf": self.u * t + self.b * t * t / 2, "dxf": self.u + self.b * t, "ddxf": self.b} | self.floor.signals(
            t
        )

    def motion(self, t_close: float) -> tuple[float | None, Callable[[float], float]]:
        """The time the ball stops slipping on the belt (None: it never does) and x(t), for the contact closing
        at ``t_close``: at rest along x before (no friction in flight, none in the impacts), then dragged by
        mu m (g + a) towards the belt's speed until it moves with it, then stuck if |b| <= mu_static (g + a)."""
        press = G + self.floor.a
        slip0 = -(self.u + self.b * t_close)  # (the ball's speed along x is 0 until the contact closes)
        drag = math.copysign(self.mu * press, -slip0)
        rel = drag - self.b  # (the slip's acceleration while it slips)
        t_stick = t_close - slip0 / rel if slip0 != 0.0 and rel * slip0 < 0.0 else None

        def x(t: float) -> float:
            if t <= t_close:
                return 0.0
            tau = min(t, t_stick if t_stick is not None else t) - t_close
            x1 = drag * tau * tau / 2
            if t_stick is None or t <= t_stick:
                return x1
            v1, tau2 = drag * (t_stick - t_close), t - t_stick
            return x1 + v1 * tau2 + self.b * tau2 * tau2 / 2

        return t_stick, x


def check_belt(master: Master, fmu, belt: Belt) -> Failures:
    """The ball dropped onto the moving belt: the impacts of the flat ball with g + a, the contact closing at the
    end of their accumulation, then x the exact motion for the master's closing time (dragged by friction to the
    belt's speed, then carried, held by the friction force m b), never below the belt by more than the master's
    step error, N = m (g + a) at rest."""
    g = G + belt.floor.a
    stop = ball_stop(master, H0, belt.e, g) + 1.0
    start = {"dy": belt.floor.at(0.0)[1]}
    trace, fail = run(master, fmu, stop, ["x", "dx", "y", "dy", "N", "F_t"], start, belt.signals)
    if trace is None:
        return fail
    t = trace.time
    tol = ball_tolerances(master, H0, belt.e, g)
    n = resolved_impacts(master, H0, belt.e, g=g)
    impacts, t_rest = ball_impacts(H0, belt.e, n, g), ball_rest(H0, belt.e, g)
    events = np.array([te for te in trace.events if te > 1e-12] or [math.inf])
    nearest = [float(events[np.argmin(np.abs(events - ex))]) for ex in impacts]  # (the slip's events in flight too)
    late = [(k, te, ex) for k, (te, ex) in enumerate(zip(nearest, impacts)) if abs(te - ex) > (k + 1) * tol["time"]]
    if late:
        fail.append(f"impacts (k, found, exact): {late[:2]}")
    rest_tol = tol["rest"] if tol["rest"] is not None else (len(events) + 1) * tol["time"]
    closing = [te for te in events if te <= t_rest + rest_tol]
    if not closing or closing[-1] < impacts[-1] - n * tol["time"]:
        fail.append(f"the contact closes at {closing[-1:]}, exact {t_rest:.6g}, last resolved impact {impacts[-1]:.6g}")
        return fail
    t_stick, exact = belt.motion(float(closing[-1]))
    x_exact = np.array([exact(float(ti)) for ti in t])
    bound = slope_tolerances(master, stop)[1] * (1.0 + np.abs(x_exact).max())
    err = np.abs(trace["x"] - x_exact)
    if err.max() > bound:
        i = int(np.argmax(err))
        fail.append(f"x off the exact motion by {err[i]:.3g} (allowed {bound:.3g}) at t = {t[i]:.5g}")
    zf = np.array([belt.floor.at(float(ti)) for ti in t])
    belt_speed = belt.u + belt.b * t
    slack = floor_slack(master, 1.0 + np.abs(zf[:, 0]).max(), np.abs(zf[:, 1]).max(), belt.floor.peak_acceleration)
    r = trace["y"] - zf[:, 0]
    below = max(tol["below"] or 0.0, slack.position)
    if r.min() < -below:
        fail.append(f"{-r.min():.3g} m below the belt (allowed {below:.3g}) at t = {t[np.argmin(r)]:.6g}")
    after = t > t_rest + rest_tol
    if not np.allclose(trace["N"][after], MASS * g, rtol=slack.force):
        fail.append(f"normal force at rest {trace['N'][after][-1]:.9g}, exact {MASS * g:.9g}")
    carried = t > (t_stick or stop) + slope_tolerances(master, stop)[0] + 1e-3
    if t_stick is not None and carried.any():
        slip = np.abs(trace["dx"][carried] - belt_speed[carried]).max()
        if slip > slack.rate or not np.allclose(trace["F_t"][carried], MASS * belt.b, atol=slack.force * MASS * g):
            fail.append(f"not carried after {t_stick:.5g}: slip {slip:.3g}, F_t {trace['F_t'][carried][-1]:.6g}")
    return fail


def belt_beside_a_ball(e: float, mu: float, mu_static: float) -> sb.System:
    """:func:`belt_ball` with a second ball (mass 1, output ``yb``) bouncing beside it from 0.5 m on a fixed ground
    (restitution 0.9): its impacts are events while the first ball rests on the belt."""
    s = belt_ball(e, mu, mu_static)
    yb = s.coordinate("yb", 0.5)
    s.particle("b2", s.point("Q", s.origin, (5.0, yb, 0)), 1.0)
    s.unilateral("ground", yb, restitution=0.9)
    return s


# -- a rolling deck ----------------------------------------------------------------------------------------------


class Roll(NamedTuple):
    """The deck's roll angle A sin(w t) (a motion input ``roll``)."""

    amplitude: float
    w: float

    def at(self, t: float) -> tuple[float, float, float]:
        a, w = self.amplitude, self.w
        return a * math.sin(w * t), a * w * math.cos(w * t), -a * w * w * math.sin(w * t)

    def signals(self, t: float) -> dict[str, float]:
        z, dz, ddz = self.at(t)
        return {"roll": z, "droll": dz, "ddroll": ddz}


def rolling_deck(e: float) -> sb.System:
    """A ball (mass MASS) dropped from H0 onto a deck through the origin rolled by the motion input ``roll``: the
    gap n = -x sin(roll) + y cos(roll) along its turning normal, restitution ``e``, no friction.  Outputs n, N."""
    s = sb.System("rolling_deck")
    roll = s.motion_input("roll", unit="rad")
    x, y = s.coordinate("x", 0.0), s.coordinate("y", H0)
    s.particle("b", s.point("P", s.origin, (x, y, 0)), s.parameter("m", MASS))
    s.gravity((0, -G, 0))
    gap = -sb.sin(roll) * x + sb.cos(roll) * y
    c = s.unilateral("deck", gap, restitution=s.parameter("e", e))
    s.output("n", gap)
    s.output("dn", s.dt(gap))
    s.output("N", c.force)
    return s


def deck_reference(e: float, roll: Roll, stop: float, grid: float = 1e-3):
    """``symbody.numeric.simulate`` of :func:`rolling_deck` at rtol 1e-10 on a grid of ``grid`` s."""
    from symbody.numeric import simulate

    t = np.linspace(0.0, stop, int(round(stop / grid)) + 1)
    return simulate(rolling_deck(e).derive(), stop, t_eval=t, inputs={"roll": roll.at}, rtol=1e-10, atol=1e-12)


def check_rolling_deck(master: Master, fmu, roll: Roll, ref, stop: float, grid: float = 1e-3) -> Failures:
    """Model Exchange: x, y on the reference's grid to the master's accuracy (as the crane's), never below the
    deck by more than the master's step error, the contact force never pulling.  Co-Simulation (the FMU turns the
    deck along the Taylor polynomial of each communication point): no Error, never below the deck it turned."""
    trace, fail = run(master, fmu, stop, ["x", "y", "n", "N"], {}, roll.signals)
    if trace is None:
        return fail
    t = trace.time
    if master.kind == "cs":
        start = np.maximum(np.round(t / master.step) - 1, 0) * master.step
        r0 = np.array([roll.at(float(ti)) for ti in start])
        tau = t - start
        phi = r0[:, 0] + tau * (r0[:, 1] + tau * r0[:, 2] / 2)
        n = -np.sin(phi) * trace["x"] + np.cos(phi) * trace["y"]
        if n.min() < -1e-8:
            fail.append(f"{-n.min():.3g} m below the deck the FMU turned at t = {t[np.argmin(n)]:.6g}")
    else:
        k = np.round(t / grid).astype(int)
        on = (np.abs(t - k * grid) <= 1e-9) & (k < len(ref["x"]))
        speed = float(np.max(np.hypot(np.gradient(ref["x"], grid), np.gradient(ref["y"], grid))))
        tol = crane_tolerance(master, speed)
        for name in ("x", "y"):
            err = np.abs(trace[name][on] - ref[name][k[on]])
            if err.max() > tol:
                i = int(np.argmax(err))
                fail.append(f"{name} off the reference by {err.max():.3g} (allowed {tol:.3g}) at t = {t[on][i]:.4g}")
        reach = 1.0 + float(np.abs(ref["x"]).max())  # (the deck's acceleration at the ball: A w^2 r + (A w)^2 r)
        deck = (roll.amplitude * roll.w**2 + (roll.amplitude * roll.w) ** 2) * reach
        below = max(ball_tolerances(master, H0, 0.5)["below"] or 0.0, floor_slack(master, reach, speed, deck).position)
        if trace["n"].min() < -below:
            fail.append(
                f"{-trace['n'].min():.3g} m below the deck (allowed {below:.3g}) at t = {t[np.argmin(trace['n'])]:.5g}"
            )
    before = np.zeros(t.size, dtype=bool)  # (a row read before an event iteration: its force may cross zero)
    before[:-1] = t[1:] == t[:-1]
    pulls = (trace["N"] < 0.0) & ~before
    if pulls.any():
        fail.append(f"the deck pulls ({trace['N'][pulls].min():.3g} N) at t = {t[pulls][0]:.6g}")
    return fail
