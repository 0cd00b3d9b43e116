"""Checks of event FMUs over a class of cases, each returning what failed (an empty list when all held): the
bouncing ball from other heights with other restitutions, the overhead crane with other trolley and hoist
forces, a block on an incline near its friction limits, a block with friction driven against an end stop.

Each check runs one :class:`support.event_masters.Master` on one FMU and compares with the exact motion (or with
``symbody.numeric.simulate``) to that master's accuracy; a master's Error or Discard is a failure with its
message.  ``tests/fmu/test_fmu_events_sweep.py`` runs a part of the class, ``benchmarks/event_sweep.py`` all of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from symbody.numeric.event_laws import FLIGHT_STEPS

from support.contact_models import G, ball_impacts, ball_motion, ball_rest
from support.event_masters import Master, Signals, master_step_error

Failures = list[str]


def run(
    master: Master, fmu, stop: float, output: list[str], start: dict[str, Any], signals: Signals | None = None
) -> tuple[Any, Failures]:
    """The master's trace, or None and the failure (the FMU's Error or Discard)."""
    try:
        return master.run(fmu, stop, output, start, signals), []
    except Exception as e:  # noqa: BLE001  (MasterError, fmpy's FMICallException, CVode's failures)
        return None, [f"error: {str(e)[:300]}"]


def event_rows(trace) -> list[int]:
    """The rows just after an event (a master records the event time twice, before and after)."""
    t = trace.time
    return [i for i in range(1, t.size) if t[i] == t[i - 1]]


# -- the bouncing ball --------------------------------------------------------------------------------------


def ball_tolerances(master: Master, h0: float, e: float, g: float = G) -> dict[str, float | None]:
    """What the master's accuracy lets the ball miss by (see tests/fmu/test_fmu_events_masters.py), with the
    speed of the first impact, sqrt(2 g h0), for the depth a step may carry it below the floor."""
    h, v1 = master.step, math.sqrt(2 * g * h0)
    if master.kind == "cs":
        return {"time": 1e-8, "apex": 1e-8, "below": 1e-8, "rest": 0.0}
    if master.method in ("euler", "euler_bisection"):  # each flight up to 2 h / (1 - e) late (Euler's speed
        below = 1e-8 if master.method == "euler_bisection" else master_step_error(v1, g, h)  # excess g h / (1 - e))
        return {"time": 2 * h / (1 - e), "apex": None, "below": below, "rest": None}
    if master.method == "rk4":
        return {"time": h, "apex": 1e-5, "below": master_step_error(v1, g, h), "rest": 10 * h}
    tol = 1e-7 if master.method == "bisection" else 100 * (master.rtol or 0.0)
    return {"time": tol, "apex": 10 * tol, "below": 1e-8, "rest": 1e-3}


def resolved_impacts(master: Master, h0: float, e: float, count: int = 6, g: float = G) -> int:
    """How many of the first impacts the master must find at their times: those whose flight before them lasts
    FLIGHT_STEPS of its steps or more (a fixed-step master takes the shorter ones of the end of an accumulation
    as plastic), and at least 10 ms (CVode's restarts)."""
    v1 = math.sqrt(2 * g * h0)
    shortest = max(FLIGHT_STEPS * master.step if master.kind == "me" and master.method != "cvode" else 0.0, 0.01)
    flights = [2 * e ** (k + 1) * v1 / g for k in range(count - 1)]
    n = 1
    for f in flights:
        if f < shortest:
            break
        n += 1
    return n


def impacts_before_rest(master: Master, h0: float, e: float, g: float = G) -> int:
    """About how many impacts a fixed-step master sees before the ball rests: until the rebound speed
    e^k sqrt(2 g h0) falls to the speed g h a step of the master gives (its flight lasts two steps)."""
    v1 = math.sqrt(2 * g * h0)
    return 1 + max(0, math.ceil(math.log(g * master.step / v1) / math.log(e))) if 0.0 < e < 1.0 else 1


def ball_stop(master: Master, h0: float, e: float, g: float = G) -> float:
    """How long to run a ball dropped from h0: past the end of its accumulation of impacts by 1 s or a quarter of
    it, and by the latest rest a master whose flights may each end late allows."""
    tol = ball_tolerances(master, h0, e, g)
    t_rest = ball_rest(h0, e, g)
    stop = t_rest + max(1.0, 0.25 * t_rest)
    if tol["rest"] is None:
        stop += 2 * (impacts_before_rest(master, h0, e, g) + 1) * tol["time"]
    return stop


class Relative(NamedTuple):
    """A ball's motion relative to its floor as a master traced it: the times, the events found, the gap
    ``r`` along the floor's normal, its rate ``dr`` and the contact force ``force``."""

    time: np.ndarray
    events: list[float]
    r: np.ndarray
    dr: np.ndarray
    force: np.ndarray


class Slack(NamedTuple):
    """How far a ball at rest may be off its floor (m, m/s) and its contact force off m g (relative): rounding on
    the fixed floor; on a moving one also the master's error on the floor's motion (support.floor_sweep)."""

    position: float = 1e-8
    rate: float = 1e-8
    force: float = 1e-9


#: the slack of the fixed floor: rounding
FIXED_FLOOR = Slack()


def check_ball(master: Master, fmu, h0: float, e: float, m: float = 2.0) -> Failures:
    """A ball dropped from h0 with restitution e (start values of the FMU of support.contact_models.bouncing_ball):
    the impacts at their exact times, the apex heights e^(2k) h0, never below the floor by more than the master's
    step, at rest after the end of the accumulation with the contact force m g, open in flight."""
    trace, fail = run(master, fmu, ball_stop(master, h0, e), ["y", "dy", "N"], {"y": h0, "e": e, "m": m})
    if trace is None:
        return fail
    return ball_failures(master, Relative(trace.time, trace.events, trace["y"], trace["dy"], trace["N"]), h0, e, m)


def ball_failures(
    master: Master, rel: Relative, h0: float, e: float, m: float, g: float = G, slack: Slack = FIXED_FLOOR
) -> Failures:
    """What of a ball dropped from h0 (relative to its floor, pulled towards it at g) a master got wrong: the
    impacts at their exact times, the apex heights e^(2k) h0, never below the floor by more than the master's
    step, at rest after the end of the accumulation with the contact force m g, open in flight."""
    fail: Failures = []
    tol = ball_tolerances(master, h0, e, g)
    t_rest = ball_rest(h0, e, g)
    t, y, dy, n_contact = rel.time, rel.r, rel.dr, rel.force
    n = resolved_impacts(master, h0, e, g=g)
    impacts, found = ball_impacts(h0, e, n, g), rel.events[:n]
    if len(found) < n:
        fail.append(f"{len(found)} impacts found, {n} expected")
    late = [(k, te, ex) for k, (te, ex) in enumerate(zip(found, impacts)) if abs(te - ex) > (k + 1) * tol["time"]]
    if late:
        fail.append(f"impact times off (k, found, exact): {late[:2]}")
    if master.kind == "me":  # the rebounds of the resolved flights
        after = [i for i in event_rows(rel) if dy[i] - dy[i - 1] > 1e-6][: min(n - 1, len(found))]
        apex = dy[after] ** 2 / (2 * g)
        exact = np.array([e ** (2 * (k + 1)) * h0 for k in range(len(after))])
        if tol["apex"] is None:
            bad = np.abs(apex - exact) > g * master.step * t[after] / 2 + 1e-12
        else:
            bad = np.abs(apex - exact) > tol["apex"] * h0  # (the error of the speeds: relative to the first)
        if bad.any():
            k = int(np.argmax(bad))
            fail.append(f"apex {k}: {apex[k]:.6g} against {exact[k]:.6g}")
    else:
        ex = np.array([ball_motion(float(ti), h0, e, g) for ti in t])
        err_y, err_v = np.abs(y - ex[:, 0]).max(), np.abs(dy - ex[:, 1]).max()
        if err_y > max(1e-8 * max(1.0, h0), slack.position) or err_v > max(1e-7 * max(1.0, h0), slack.rate):
            fail.append(f"communication points off the exact motion by {err_y:.2g} m, {err_v:.2g} m/s")
    below = max(tol["below"] or 0.0, slack.position)
    if y.min() < -below:
        fail.append(f"{-y.min():.3g} m below the floor (allowed {below:.3g}) at t = {t[np.argmin(y)]:.6g}")
    rest_tol = tol["rest"] if tol["rest"] is not None else (len(rel.events) + 1) * tol["time"]
    rest = t > t_rest + rest_tol
    still = slack.position
    if not rest.any():
        fail.append(f"not at rest by {t[-1]} s ({len(rel.events)} events, exact end {t_rest:.4g} s)")
    elif not (np.all(np.abs(y[rest]) <= still) and np.all(np.abs(dy[rest]) <= slack.rate)):
        moving = t[rest][(np.abs(y[rest]) > still) | (np.abs(dy[rest]) > slack.rate)]
        fail.append(
            f"still moving at {moving[-1]:.5g} s (|r| {np.abs(y[rest]).max():.3g}, |dr| {np.abs(dy[rest]).max():.3g}), "
            f"exact end {t_rest:.5g} s ({len(rel.events)} events)"
        )
    elif not np.allclose(n_contact[rest], m * g, rtol=slack.force):
        fail.append(f"resting force {n_contact[rest][-1]:.9g}, m g = {m * g}")
    if np.any(n_contact[t < impacts[0] - tol["time"]] != 0.0):
        fail.append("contact force in the first flight")
    return fail


# -- the overhead crane -------------------------------------------------------------------------------------

CRANE_OUTPUT = ["x", "l", "theta", "z_payload"]
X_MAX, FLOOR = 20.0, -15.0
CRANE_GRID = 1e-3


def crane_tolerance(master: Master, speed: float) -> float:
    """How far (m, rad) a master's positions may be from the reference (tests/fmu/test_fmu_events_masters.py,
    for trolley speeds of 10 m/s there: the fixed-step masters' bounds grow with the speed of the impacts)."""
    if master.kind == "cs":
        return 1e-6 if master.method == "rk4" else 100 * (master.rtol or 0.0)
    scale = max(1.0, speed / 10.0)
    if master.method in ("euler", "euler_bisection"):
        return 0.1 * scale
    if master.method == "rk4":
        return 0.03 * scale
    if master.method == "bisection":
        return 1e-6 * scale
    return 1e3 * (master.rtol or 0.0)


def crane_reference(system, inputs: dict[str, float], stop: float):
    from symbody.numeric import simulate

    grid = np.linspace(0.0, stop, int(round(stop / CRANE_GRID)) + 1)
    return simulate(system.derive(), stop, t_eval=grid, inputs=inputs, rtol=1e-10, atol=1e-10)


def check_crane(master: Master, fmu, inputs: dict[str, float], ref, stop: float) -> Failures:
    """The trolley driven by ``inputs`` into its upper stop, the payload on the ground or lifted: no Error, no
    pass-through, the positions of ``symbody.numeric.simulate`` (``ref``) to the master's accuracy."""
    speed = float(np.max(np.abs(np.gradient(ref["x"], CRANE_GRID))))
    tol = crane_tolerance(master, speed)
    trace, fail = run(master, fmu, stop, CRANE_OUTPUT, inputs)
    if trace is None:
        return fail
    t = trace.time
    k = np.round(t / CRANE_GRID).astype(int)
    on = (np.abs(t - k * CRANE_GRID) <= 1e-9) & (k < len(ref["x"]))
    for name in ("x", "l", "theta"):
        err = np.abs(trace[name][on] - ref[name][k[on]])
        if err.max() > tol:
            i = int(np.argmax(err))
            fail.append(f"{name} off the reference by {err.max():.3g} (allowed {tol:.3g}) at t = {t[on][i]:.4g}")
    if trace["x"].max() > X_MAX + tol:
        fail.append(f"trolley through its stop by {trace['x'].max() - X_MAX:.3g} m")
    if trace["z_payload"].min() < FLOOR - tol:
        fail.append(f"payload through the ground by {FLOOR - trace['z_payload'].min():.3g} m")
    return fail


# -- a block on an incline ----------------------------------------------------------------------------------


class Slope(NamedTuple):
    """A block on an incline (support.friction_models.incline) launched at v0 (downhill positive)."""

    alpha: float
    mu: float
    mu_static: float
    v0: float
    stop: float

    def motion(self) -> tuple[list[float], Callable[[float], float]]:
        """The times of its friction events and its exact position s(t): it slides against friction until it
        stops (if friction decelerates it), then sticks if tan(alpha) <= mu_static, else slides downhill."""
        sa, ca = math.sin(self.alpha), math.cos(self.alpha)
        down = G * (sa - self.mu * ca)
        if self.v0 == 0.0:
            if sa <= self.mu_static * ca:
                return [], lambda t: 0.0
            return [], lambda t: down * t * t / 2
        a1 = G * (sa - self.mu * ca * math.copysign(1.0, self.v0))
        if a1 * self.v0 >= 0.0:  # it never stops
            return [], lambda t: self.v0 * t + a1 * t * t / 2
        t1 = -self.v0 / a1
        s1 = self.v0 * t1 / 2
        a2 = 0.0 if sa <= self.mu_static * ca else down

        def s(t: float) -> float:
            return self.v0 * t + a1 * t * t / 2 if t < t1 else s1 + a2 * (t - t1) ** 2 / 2

        return [t1], s


def slope_tolerances(master: Master, stop: float) -> tuple[float, float]:
    """(event time, position): as tests/fmu/test_fmu_events_masters.py's incline_tolerances."""
    if master.kind == "cs":
        return 1e-8, (1e-9 if master.method == "rk4" else 10 * (master.rtol or 0.0))
    if master.method in ("euler", "rk4", "euler_bisection"):
        return master.step, G * master.step * stop
    if master.method == "bisection":
        return 1e-9, 1e-9
    return 100 * (master.rtol or 0.0), 10 * (master.rtol or 0.0)


def check_slope(master: Master, fmu, case: Slope, m: float = 3.0) -> Failures:
    events, exact = case.motion()
    t_tol, s_tol = slope_tolerances(master, case.stop)
    if events and master.kind == "me":  # a slip rate's indicator is offset by SB_EVENT_HYSTERESIS (1e-10 m/s)
        sa, ca = math.sin(case.alpha), math.cos(case.alpha)
        t_tol += 1e-10 / (G * abs(sa - case.mu * ca * math.copysign(1.0, case.v0)))
    trace, fail = run(master, fmu, case.stop, ["s", "ds", "F_t", "N"], {})
    if trace is None:
        return fail
    t = trace.time
    found = [te for te in trace.events if te > 1e-12]
    if len(found) != len(events) or not np.allclose(found, events, rtol=0, atol=t_tol):
        fail.append(f"friction events at {found[:4]}, exact {events}")
    s_exact = np.array([exact(float(ti)) for ti in t])
    err = np.abs(trace["s"] - s_exact)
    if err.max() > s_tol:
        fail.append(f"s off the exact motion by {err.max():.3g} (allowed {s_tol:.3g}) at t = {t[np.argmax(err)]:.4g}")
    if not np.allclose(trace["N"], m * G * math.cos(case.alpha), rtol=1e-6):
        fail.append(
            f"normal force {trace['N'].min():.6g}..{trace['N'].max():.6g}, exact {m * G * math.cos(case.alpha):.6g}"
        )
    held = t > (events[0] if events else 0.0) + t_tol
    if events and held.any() and math.sin(case.alpha) <= case.mu_static * math.cos(case.alpha):
        if not (np.all(trace["ds"][held] == 0.0) and np.ptp(trace["s"][held]) == 0.0):
            fail.append(f"creeps after its stop: ds up to {np.abs(trace['ds'][held]).max():.3g}")
    return fail


# -- a block with friction driven against an end stop ------------------------------------------------------

BLOCK_MASS, GAP = 2.0, 0.5


def block_at_stop(push: float, v0: float, e: float, mu: float = 0.3, mu_static: float = 0.5):
    """A block (m = 2) on a floor with stick-slip friction (normal m g), pushed by ``push`` towards an end stop
    GAP ahead (restitution ``e``), launched at ``v0``; outputs the stop's and the friction's forces."""
    import symbody as sb

    s = sb.System("block_stop")
    x = s.coordinate("x", 0.0, dq0=v0)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), BLOCK_MASS)
    s.generalized_force("push", x, s.parameter("F", push))
    f = s.stick_slip(
        "floor", x, normal=BLOCK_MASS * G, mu=s.parameter("mu", mu), mu_static=s.parameter("mu_s", mu_static)
    )
    c = s.unilateral("stop", GAP - x, restitution=s.parameter("e", e))
    s.output("F_stop", c.force)
    s.output("F_f", f.force)
    return s


class BlockCase(NamedTuple):
    push: float
    v0: float
    e: float
    mu: float = 0.3
    mu_static: float = 0.5

    def motion(self, count: int = 60) -> tuple[list[float], list[float], float, float]:
        """The impact times, the friction events between them (reversals, a stop), the time the motion ends and
        where the block rests: towards the stop it accelerates with a = (F - mu m g) / m, away from it it is
        decelerated by b = (F + mu m g) / m; after each rebound (e times the speed) it stops at e v / b, then
        either sticks there (F <= mu_static m g) or comes back to hit the stop at e v sqrt(a / b)."""
        m, w = BLOCK_MASS, BLOCK_MASS * G
        a, b = (self.push - self.mu * w) / m, (self.push + self.mu * w) / m
        v2 = self.v0**2 + 2 * a * GAP
        if v2 <= 0.0 or (a <= 0.0 and self.v0 <= 0.0):
            raise ValueError("the block does not reach the stop")
        v = math.sqrt(v2)
        t = (v - self.v0) / a if a != 0.0 else GAP / self.v0
        impacts, stops = [t], []
        for _ in range(count):
            if self.e * v < 1e-9:
                return impacts, stops, t, GAP
            t += self.e * v / b
            stops.append(t)
            if self.push <= self.mu_static * w:
                return impacts, stops, t, GAP - (self.e * v) ** 2 / (2 * b)
            v = self.e * v * math.sqrt(a / b)
            t += v / a
            impacts.append(t)
        r = self.e * math.sqrt(a / b)  # the rest of the geometric series of the cycles
        return impacts, stops, t + (self.e * v / b + r * self.e * v / a) / (1 - r), GAP


def block_tolerances(master: Master) -> tuple[float, float]:
    """(event time, position) to the master's accuracy, as for the incline."""
    return slope_tolerances(master, 3.0)


def check_block(master: Master, fmu, case: BlockCase) -> Failures:
    """The block's impacts and friction events at their exact times, never through the stop by more than the
    master's step error, at rest where the exact motion ends (against the stop: pushed by F, held by the stop
    and friction together, F_stop - F_f = F... whatever their split; away from it: stuck, F_stop = 0)."""
    impacts, stops, t_end, x_end = case.motion()
    stop = t_end + 2.0
    t_tol, x_tol = block_tolerances(master)
    trace, fail = run(master, fmu, stop, ["x", "dx", "F_stop", "F_f"], {"F": case.push, "e": case.e})
    if trace is None:
        return fail
    t, x = trace.time, trace["x"]
    n = min(len(impacts), 4)
    found = [te for te in trace.events if te > 1e-12][: n + len(stops[:n])]  # (CS logs the slip from t = 0)
    expected = sorted(impacts[:n] + stops[:n])[: len(found)]
    if len(found) < min(2 * n - 1, len(impacts) + len(stops)):
        fail.append(f"{len(trace.events)} events, expected {len(impacts)} impacts and {len(stops)} stops")
    elif not np.allclose(found[:3], expected[:3], rtol=0, atol=3 * t_tol):
        fail.append(f"events at {np.round(found[:3], 6).tolist()}, exact {np.round(expected[:3], 6).tolist()}")
    a = (case.push - case.mu * BLOCK_MASS * G) / BLOCK_MASS
    speed = math.sqrt(case.v0**2 + 2 * a * GAP)
    below = 1e-8 if master.kind == "cs" or master.method in ("bisection", "euler_bisection") else 0.0
    if master.kind == "me" and master.method in ("euler", "rk4"):
        below = master_step_error(speed, a, master.step)
    elif master.kind == "me" and master.method == "cvode":
        below = 1e-6
    if x.max() > GAP + below:
        fail.append(f"through the stop by {x.max() - GAP:.3g} (allowed {below:.3g}) at t = {t[np.argmax(x)]:.5g}")
    rest = t > t_end + (min(1e3 * t_tol, 1.0) if master.kind == "me" else 1e-6)
    if t[-1] < stop - 1e-9 or not rest.any():  # (fmpy ends a Co-Simulation at a discarded step)
        fail.append(f"ended at t = {t[-1]:.6g} of {stop:.6g}")
        return fail
    if np.abs(x[rest] - x_end).max() > max(x_tol, 10 * t_tol * speed) or np.abs(trace["dx"][rest]).max() > 1e-8:
        fail.append(f"rests at {x[rest][-1]:.8g} (dx {trace['dx'][rest][-1]:.2g}), exact {x_end:.8g}")
    balance = case.push - trace["F_stop"][rest] + trace["F_f"][rest]
    if np.abs(balance).max() > 1e-6 * max(1.0, case.push):
        fail.append(f"forces at rest do not balance the push: F - F_stop + F_f = {balance[-1]:.3g}")
    held_by_friction = np.abs(trace["F_f"][rest]).max()
    if held_by_friction > case.mu_static * BLOCK_MASS * G * (1 + 1e-9):
        fail.append(
            f"friction holds {held_by_friction:.6g} at rest, above mu_static N = {case.mu_static * BLOCK_MASS * G:.6g}"
        )
    if np.any(trace["F_stop"] < -1e-9):
        fail.append("the stop pulls")
    return fail
