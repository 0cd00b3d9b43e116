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
from typing import NamedTuple

import numpy as np

import symbody as sb

from support.contact_models import G
from support.event_masters import Master, master_step_error
from support.event_sweep import (
    Failures,
    Relative,
    ball_failures,
    ball_stop,
    ball_tolerances,
    crane_tolerance,
    resolved_impacts,
    run,
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
        master, Relative(t, trace.events, trace["n"], trace["dn"], trace["N"], 1.0 + g_t * t[-1] ** 2), H0, e, MASS,
        g_n,
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
    are exact for it (rounding), explicit Euler lags by g_t h t / 2, CVode by its tolerance."""
    slide = g_t * t * t / 2
    if master.kind == "cs" or master.method in ("rk4", "bisection"):
        return 1e-9 * (1.0 + slide)
    if master.method in ("euler", "euler_bisection"):
        return g_t * master.step * t / 2 * (1 + 1e-6) + 1e-9 * (1.0 + slide)
    return 1e3 * (master.rtol or 0.0) * (1.0 + slide)


def incline_reference(system: sb.System, stop: float, grid: float = 1e-3):
    """``symbody.numeric.simulate`` at rtol 1e-10 on a grid of ``grid`` s (the reference where friction acts)."""
    from symbody.numeric import simulate

    t = np.linspace(0.0, stop, int(round(stop / grid)) + 1)
    return simulate(system.derive(), stop, t_eval=t, rtol=1e-10, atol=1e-12)


def check_inclined_friction(master: Master, fmu, ref, stop: float, mu: float, mu_static: float, alpha: float,
                            grid: float = 1e-3) -> Failures:  # fmt: skip
    """With friction: n, s on the reference's grid to the master's accuracy, never below the floor by more than
    its step error, at the end resting on the floor (N = m g cos(alpha)) and stuck if tan(alpha) <= mu_static
    (else sliding at g (sin(alpha) - mu cos(alpha)))."""
    trace, fail = run(master, fmu, stop, INCLINE_OUTPUT + ["F_t"], {})
    if trace is None:
        return fail
    t = trace.time
    k = np.round(t / grid).astype(int)
    on = (np.abs(t - k * grid) <= 1e-9) & (k < len(ref["n"]))
    v1 = math.sqrt(2 * G * math.cos(alpha) * H0)
    tol = crane_tolerance(master, v1)
    for name in ("n", "s"):
        err = np.abs(trace[name][on] - ref[name][k[on]])
        if err.max() > tol:
            i = int(np.argmax(err))
            fail.append(f"{name} off the reference by {err.max():.3g} (allowed {tol:.3g}) at t = {t[on][i]:.4g}")
    below = ball_tolerances(master, H0, 0.5, G * math.cos(alpha))["below"] or 0.0
    if trace["n"].min() < -below:
        fail.append(f"{-trace['n'].min():.3g} below the floor (allowed {below:.3g})")
    last = t > stop - 0.2
    if not np.allclose(trace["N"][last], MASS * G * math.cos(alpha), rtol=1e-9):
        fail.append(f"normal force at the end {trace['N'][-1]:.9g}, exact {MASS * G * math.cos(alpha):.9g}")
    if math.tan(alpha) <= mu_static:
        if np.abs(trace["ds"][last]).max() > 1e-8:
            fail.append(f"creeps at the end: ds = {trace['ds'][-1]:.3g}")
    else:
        acc = np.diff(trace["ds"][last]) / np.maximum(np.diff(t[last]), 1e-300)
        exact = -G * (math.sin(alpha) - mu * math.cos(alpha))
        if np.abs(acc[np.diff(t[last]) > 0] - exact).max() > 1e-6 * G:
            fail.append(f"slides at the end at {acc[-1]:.9g} m/s^2, exact {exact:.9g}")
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
    scale = 1.0 + np.abs(z[:, 0]).max()
    if floor.uniform:
        rel = Relative(t, trace.events, r, dr, trace["N"], scale)
        return fail + ball_failures(master, rel, H0, e, MASS, G + floor.a)
    return fail + heaving_failures(master, t, trace.events, (r, dr, trace["N"], z[:, 2]), floor, e, scale)


def heaving_failures(master: Master, t, events, motion, floor: Floor, e: float, scale: float) -> Failures:
    """What a master got wrong on the heaving floor (``motion``: the relative gap, its rate, the contact force and
    the floor's acceleration at the rows)."""
    r, dr, force, ddz = motion
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
    below = tol["below"] or 0.0
    if master.kind == "me" and master.method in ("euler", "rk4"):  # the approach speed relative to the floor
        below = master_step_error(math.sqrt(2 * G * H0) + floor.amplitude * floor.w, G + floor.peak_acceleration,
                                  master.step)  # fmt: skip
    if r.min() < -below:
        fail.append(f"{-r.min():.3g} m below the floor (allowed {below:.3g}) at t = {t[np.argmin(r)]:.6g}")
    rest_tol = tol["rest"] if tol["rest"] is not None else (len(events) + 1) * tol["time"]
    rest = t > t_rest + rest_tol
    still, still_rate = rest_tolerances(master, floor, scale)
    if not rest.any():
        fail.append(f"not at rest by {t[-1]} s ({len(events)} events, exact end {t_rest:.4g} s)")
    elif not (np.all(np.abs(r[rest]) <= still) and np.all(np.abs(dr[rest]) <= still_rate)):
        moving = t[rest][(np.abs(r[rest]) > still) | (np.abs(dr[rest]) > still_rate)]
        fail.append(
            f"not moving with the floor at {moving[-1]:.5g} s: |r| {np.abs(r[rest]).max():.3g}, |dr| "
            f"{np.abs(dr[rest]).max():.3g}, exact end {t_rest:.5g} s ({len(events)} events)"
        )
    elif not np.allclose(force[rest], MASS * (G + ddz[rest]), rtol=1e-9, atol=1e-9 * MASS * G):
        i = int(np.argmax(np.abs(force[rest] - MASS * (G + ddz[rest]))))
        fail.append(f"resting force {force[rest][i]:.9g}, m (g + ddz) = {MASS * (G + ddz[rest][i]):.9g}")
    if np.any(force[t < impacts[0] - tol["time"]] != 0.0):
        fail.append("contact force in the first flight")
    return fail


def rest_tolerances(master: Master, floor: Floor, scale: float) -> tuple[float, float]:
    """How far the ball resting on the heaving floor may be off it (position, rate): rounding, and for explicit
    Euler its error on the floor's motion over a step, h (w A w, A w^2)."""
    if master.kind == "me" and master.method in ("euler", "euler_bisection"):
        h, aw2 = master.step, floor.amplitude * floor.w**2
        return 1e-8 * scale + h * aw2 * master.step, 1e-8 + h * aw2 * floor.w
    return 1e-8 * scale, 1e-8
