"""Unilateral contacts in the Python simulation, checked against exact solutions.

Bouncing ball (impact times, apex heights e^(2k) h0, accumulation and rest with force m g),
pendulum hitting a wall (rebound from e^2 times the kinetic energy, the rod held by a bilateral
constraint), Newton's cradle (simultaneous impacts: the LCP of Newton's law solved by hand),
a resting block lifted off (the opening time where the contact force vanishes).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ellipk

import symbody as sb
from symbody.errors import ModelError, NumericalError
from symbody.numeric import simulate

from support.contact_models import bouncing_ball

G = 9.81


def ball(h0: float = 1.0, e: float = 0.8, m: float = 2.0) -> sb.System:
    """The shared bouncing ball (tests/support/contact_models.py) with this module's defaults."""
    return bouncing_ball(h0, e, m)


def test_bouncing_ball_impact_times_apexes_and_rest():
    h0, e, m = 1.0, 0.8, 2.0
    eq = ball(h0, e, m).derive()
    v1 = math.sqrt(2 * G * h0)
    t1 = math.sqrt(2 * h0 / G)
    impacts = [t1 + 2 * v1 / G * sum(e**j for j in range(1, k + 1)) for k in range(12)]
    apexes = [tk + e ** (k + 1) * v1 / G for k, tk in enumerate(impacts)]
    t_rest = t1 + 2 * v1 / G * e / (1 - e)
    res = simulate(eq, t_rest + 1.0, t_eval=[0.0] + apexes + [t_rest + 0.5, t_rest + 1.0])
    hits = [ev for ev in res.events if ev.kind == "impact"]
    assert [ev.name for ev in hits[:12]] == ["floor"] * 12
    assert np.allclose([ev.time for ev in hits[:12]], impacts, rtol=0, atol=1e-6)
    # approach speeds e^k v1 (the event's gap rate) and the impulses m (1 + e) e^k v1
    assert np.allclose([ev.velocity for ev in hits[:12]], [-(e**k) * v1 for k in range(12)], rtol=1e-7)
    assert np.allclose([ev.impulse for ev in hits[:12]], [m * (1 + e) * e**k * v1 for k in range(12)], rtol=1e-7)
    heights = res["y"][1:13]
    assert np.allclose(heights, [e ** (2 * (k + 1)) * h0 for k in range(12)], rtol=1e-7, atol=1e-9)
    # the accumulation: one closing, no impact after, at rest carrying m g
    close = [ev for ev in res.events if ev.kind == "close"]
    assert len(close) == 1 and abs(close[0].time - t_rest) < 1e-4
    assert all(ev.time <= close[0].time for ev in res.events)
    assert np.allclose(res["y"][-2:], 0.0, atol=1e-8) and np.allclose(res["dy"][-2:], 0.0, atol=1e-8)
    assert np.allclose(res["floor"][-2:], m * G, rtol=1e-9)
    assert np.allclose(res["N"][-2:], m * G, rtol=1e-9)  # c.force in an output
    assert np.all(res["floor"][1:13] == 0.0)  # open in flight


def test_bouncing_ball_restitution_zero_lands_and_stays():
    eq = ball(0.5, 0.0).derive()
    res = simulate(eq, 1.0, dt=0.1)
    t1 = math.sqrt(2 * 0.5 / G)
    assert [(ev.kind, round(ev.time, 9)) for ev in res.events] == [("impact", round(t1, 9)), ("close", round(t1, 9))]
    after = res.t > t1
    assert np.allclose(res["y"][after], 0.0, atol=1e-9) and np.allclose(res["floor"][after], 2.0 * G)


def test_pendulum_hits_wall_respecting_the_rod():
    """Cartesian pendulum (rod: a bilateral constraint), wall 20 degrees left of the vertical."""
    th0, thw, e, l = math.radians(60), math.radians(-20), 0.6, 1.5
    s = sb.System("pend_wall")
    x = s.coordinate("x", l * math.sin(th0))
    y = s.coordinate("y", -l * math.cos(th0))
    s.particle("b", s.point("P", s.origin, (x, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.constraint("rod", x**2 + y**2 - l**2)
    s.unilateral("wall", x - l * math.sin(thw), restitution=e)
    eq = s.derive()
    res = simulate(eq, 2.0, rtol=1e-10, atol=1e-12)
    hits = [ev for ev in res.events if ev.kind == "impact"]
    assert hits and hits[0].name == "wall"
    # time to the wall: the quarter period to the bottom plus the time from 0 to 20 degrees
    from scipy.integrate import quad

    w2 = G / l
    to_bottom = ellipk(math.sin(th0 / 2) ** 2) / math.sqrt(w2)
    beyond, _ = quad(lambda a: 1 / math.sqrt(2 * w2 * (math.cos(a) - math.cos(th0))), 0, -thw)
    assert abs(hits[0].time - (to_bottom + beyond)) < 1e-6
    after = res.t > hits[0].time + 1e-9
    k = int(np.flatnonzero(res.t == hits[0].time)[-1])  # the event is recorded before and after
    before_ke = 0.5 * (res.dq[k - 1] @ res.dq[k - 1])
    after_ke = 0.5 * (res.dq[k] @ res.dq[k])
    assert abs(after_ke - e**2 * before_ke) < 1e-8 * before_ke
    assert res.velocity_violation[k] < 1e-8  # the impulse respected the rod
    # rebound apex (the last sample before the swing turns back): cos thw - cos th1 = e^2 (cos thw - cos th0)
    th = np.arctan2(res["x"], -res["y"])
    seg = th[after][: 1 + int(np.argmax(np.diff(th[after]) < 0))]
    th1 = math.acos(math.cos(thw) - e**2 * (math.cos(thw) - math.cos(th0)))
    assert abs(seg.max() - th1) < 2e-3  # sampled at the steps
    energy = res.energy.total
    assert abs(energy[after][-1] - energy[after][0]) < 1e-8 * G * l  # no loss between impacts


@pytest.mark.parametrize(
    "e, expected",
    [(1.0, (-1 / 3, 2 / 3, 2 / 3)), (0.5, (0.0, 0.5, 0.5)), (0.0, (1 / 3, 1 / 3, 1 / 3))],
)
def test_newtons_cradle_simultaneous_impact(e, expected):
    """Ball 0 hits the touching balls 1, 2 at once.  Newton's law for both contacts is the LCP
    ``W P + (1 + e) gdot- >= 0``, ``W = [[2, -1], [-1, 2]]``, ``gdot- = (-v, 0)``: both impulses act,
    ``P = W^-1 ((1 + e) v, 0)``, which gives the exit velocities of the parameters."""
    v = 1.0
    s = sb.System("cradle")
    r = 0.1
    x = [s.coordinate(f"x{i}", 2 * r * i - (0.05 if i == 0 else 0.0), dq0=v if i == 0 else 0.0) for i in range(3)]
    for i in range(3):
        s.particle(f"b{i}", s.point(f"P{i}", s.origin, (x[i], 0, 0)), 1.0)
    for i in range(2):
        s.unilateral(f"c{i}", x[i + 1] - x[i] - 2 * r, restitution=e)
    res = simulate(s.derive(), 0.2)
    hits = [ev for ev in res.events if ev.kind == "impact"]
    assert [ev.name for ev in hits] == ["c0"] and abs(hits[0].time - 0.05 / v) < 1e-9
    end = res.dq[-1]
    assert np.allclose(end, expected, atol=1e-9)
    assert abs(end.sum() - v) < 1e-12  # momentum
    energy = 0.5 * float(end @ end)
    assert abs(energy - 0.5 * sum(c * c for c in expected)) < 1e-9
    if e == 1.0:
        assert abs(energy - 0.5 * v * v) < 1e-9  # elastic: energy kept
    assert np.all(res.q[-1][1:] - res.q[-1][:-1] >= 2 * r - 1e-9)  # no penetration


def test_resting_block_lifts_off_when_the_force_vanishes():
    m, k = 2.0, 5.0
    s = sb.System("lift")
    y = s.coordinate("y", 0.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), m)
    s.gravity((0, -G, 0))
    s.generalized_force("pull", y, k * s.t)
    s.unilateral("floor", y)
    res = simulate(s.derive(), 6.0, dt=0.5)
    t_lift = m * G / k
    assert [ev.kind for ev in res.events] == ["close", "open"]
    assert res.events[0].time == 0.0 and abs(res.events[1].time - t_lift) < 1e-9
    on = res.t < t_lift
    assert np.allclose(res["floor"][on], m * G - k * res.t[on], rtol=1e-9)
    # after lift-off: y = k (t - t_lift)^3 / (6 m)
    off = res.t > t_lift
    assert np.allclose(res["y"][off], k * (res.t[off] - t_lift) ** 3 / (6 * m), rtol=1e-7)
    assert np.all(res["floor"][off] == 0.0)


def test_unilateral_model_errors():
    s = ball()
    y = s.symbol("y")
    with pytest.raises(ModelError, match="restitution"):
        s.unilateral("w1", y, restitution=1.5)
    with pytest.raises(ModelError, match="velocit"):
        s.unilateral("w2", s.symbol("dy"))
    with pytest.raises(ModelError, match="no coordinate"):
        s.unilateral("w3", s.symbol("m"))
    with pytest.raises(ModelError, match="duplicate"):
        s.unilateral("floor", y)


def test_unilateral_simulation_errors():
    eq = ball().derive()
    with pytest.raises(ValueError, match="baumgarte"):
        simulate(eq, 1.0, formulation="independent")
    with pytest.raises(ValueError, match="dense output"):
        simulate(eq, 1.0, method="RK4", step=0.01)
    with pytest.raises(NumericalError, match="penetrates"):
        simulate(eq, 1.0, q0=[-0.1])


def test_fmu_export_accepts_contacts():
    """FMUs handle the events of contacts (tests/fmu/test_fmu_events.py checks them against exact solutions)."""
    from symbody.fmu.spec import FmuSpec

    spec = FmuSpec(ball().derive(), fmi_version=3, kind="both")
    assert [v.name for v in spec.variables if v.kind == "event"] == ["floor.indicator"]


def test_slack_rope_opens_where_the_tension_vanishes_then_flies_a_parabola():
    """A particle on a rope (gap ``L - |r|``) launched from the bottom with ``2 g L < v0^2 < 5 g L``:
    the rope goes slack at the angle where ``cos(theta) = -(v0^2 - 2 g L) / (3 g L)`` (the tension
    ``m (v^2 / L + g cos(theta))`` vanishes), the particle flies a parabola and the rope snaps taut."""
    L, v0, m = 1.0, 5.5, 0.5
    s = sb.System("rope")
    x = s.coordinate("x", 0.0, dq0=v0)
    y = s.coordinate("y", -L)
    s.particle("b", s.point("P", s.origin, (x, y, 0)), m)
    s.gravity((0, -G, 0))
    rope = s.unilateral("rope", L - sb.sqrt(x**2 + y**2), restitution=0.0)
    s.output("tension", rope.force)
    eq = s.derive()
    res = simulate(eq, 1.5, rtol=1e-10, atol=1e-12)
    kinds = [(ev.kind, ev.name) for ev in res.events]
    assert kinds[:3] == [("close", "rope"), ("open", "rope"), ("impact", "rope")]
    t_open, t_taut = res.events[1].time, res.events[2].time
    k = int(np.flatnonzero(res.t == t_open)[-1])
    q, dq = res.q[k], res.dq[k]
    cos_s = -(v0**2 - 2 * G * L) / (3 * G * L)
    assert abs(-q[1] / L - cos_s) < 1e-7  # height of the opening point: y = -L cos(theta)
    assert abs(dq @ dq - (v0**2 - 2 * G * L * (1 - cos_s))) < 1e-6
    # the flight is a parabola from the opening state
    res = simulate(eq, 1.5, rtol=1e-10, atol=1e-12, dt=0.01)
    fly = (res.t > t_open) & (res.t < t_taut)
    tau = res.t[fly] - t_open
    assert fly.sum() >= 3
    assert np.allclose(res["x"][fly], q[0] + dq[0] * tau, atol=1e-8)
    assert np.allclose(res["y"][fly], q[1] + dq[1] * tau - G * tau**2 / 2, atol=1e-8)
    assert np.all(np.hypot(res["x"], res["y"]) <= L + 1e-7)  # the rope never stretches
    assert np.all(res["tension"][fly] == 0.0) and np.all(res["tension"] >= 0.0)


def test_rope_taut_from_a_tangential_start_is_caught():
    """Released at rest with the rope horizontal: the gap's rate and acceleration vanish at the start
    and it would turn negative at fourth order; the rope must catch the particle (a pendulum from
    90 degrees: speed sqrt(2 g L) at the bottom), never stretching."""
    L = 1.0
    s = sb.System("rope90")
    x = s.coordinate("x", L)
    y = s.coordinate("y", 0.0)
    s.particle("b", s.point("P", s.origin, (x, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.unilateral("rope", L - sb.sqrt(x**2 + y**2))
    res = simulate(s.derive(), 0.6, dt=0.01)
    assert np.all(np.hypot(res["x"], res["y"]) <= L + 1e-7)
    bottom = int(np.argmin(res["y"]))
    assert abs(res["y"][bottom] + L) < 1e-3
    speed = np.hypot(res["dx"], res["dy"])
    assert abs(speed[bottom] - math.sqrt(2 * G * L)) < 1e-2
    assert "close" in [ev.kind for ev in res.events]


@pytest.mark.parametrize("method", ["DOP853", "Radau", "BDF"])
def test_projection_formulation_and_implicit_methods(method):
    """The bouncing ball with the projection formulation: the same impact times, and at rest the gap
    held to the projection tolerance."""
    h0, e = 1.0, 0.5
    res = simulate(ball(h0, e).derive(), 2.0, formulation="projection", method=method, dt=0.1)
    v1, t1 = math.sqrt(2 * G * h0), math.sqrt(2 * h0 / G)
    hits = [ev.time for ev in res.events if ev.kind == "impact"]
    assert np.allclose(hits[:3], [t1, t1 + 2 * e * v1 / G, t1 + 2 * (e + e * e) * v1 / G], atol=1e-5)
    assert res.events[-1].kind == "close"
    assert abs(res["y"][-1]) < 1e-9 and abs(res["floor"][-1] - 2.0 * G) < 1e-6 * G


def test_bar_falling_flat_on_redundant_supports():
    """A bar dropped flat on three supports (ends and middle: one more than its two free motions in
    the plane need, so the Delassus matrix is singular): the end impulses share the momentum change
    ``m (1 + e) v`` equally, the bar rebounds flat with ``e v``, and at rest the supports carry ``m g``."""
    a, m, h0, e = 0.5, 3.0, 0.2, 0.5
    s = sb.System("bar")
    x, y, th = s.coordinate("x"), s.coordinate("y", h0), s.coordinate("th")
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.solid("bar", s.point("C", s.origin, (x, y, 0)), B, mass=m, inertia=(1.0, 1.0, m * (2 * a) ** 2 / 12))
    s.gravity((0, -G, 0))
    s.unilateral("left", y - a * sb.sin(th), restitution=e)
    s.unilateral("middle", y, restitution=e)
    s.unilateral("right", y + a * sb.sin(th), restitution=e)
    res = simulate(s.derive(), 1.5)
    v = math.sqrt(2 * G * h0)
    first = [ev for ev in res.events if ev.time == res.events[0].time and ev.kind == "impact"]
    assert abs(first[0].time - math.sqrt(2 * h0 / G)) < 1e-9
    assert abs(sum(ev.impulse for ev in first) - m * (1 + e) * v) < 1e-9 * m * v
    k = int(np.flatnonzero(res.t == first[0].time)[-1])
    assert abs(res["dy"][k] - e * v) < 1e-9 and abs(res["dth"][k]) < 1e-12
    assert abs(res.contact_force[-1].sum() - m * G) < 1e-7 * m * G
    assert np.all(res.contact_force >= 0.0)
    assert abs(res["th"][-1]) < 1e-9 and abs(res["y"][-1]) < 1e-8


def test_failed_unilateral_leaves_the_system_unchanged():
    s = ball()
    y = s.symbol("y")
    with pytest.raises(ModelError):
        s.unilateral("roof", 2.0 - y, restitution=-0.5)
    with pytest.raises(ModelError):
        s.stick_slip("slide", y, normal=1.0, mu=0.5, mu_static=0.1)
    assert [c.name for c in s.unilaterals] == ["floor"] and s.frictions == []
    s.unilateral("roof", 2.0 - y, restitution=0.5)  # the names are still free
    s.stick_slip("slide", y, normal=1.0, mu=0.1, mu_static=0.5)
    eq = s.derive()
    assert [c.name for c in eq.contacts] == ["floor", "roof"] and [f.name for f in eq.frictions] == ["slide"]
