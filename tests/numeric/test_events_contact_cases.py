"""Unilateral contacts and stick-slip friction: cases of the class checked against exact answers.

A ball whose apex overshoots a ceiling by far less than a step's sampling can show (the gap
dips below zero and back inside one step), coefficients changed through the parameter vector
(refused outside their ranges, as at declaration), a gap that is an angle on either side, a
rope ``l - |r|`` in 3-D, a moving floor (a time-dependent gap), a ball on a tilted plane and a
slider-crank (a closed loop) hitting an end stop.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

import symbody as sb
from symbody.errors import ModelError
from symbody.numeric import simulate

G = 9.81


def ball_under_ceiling(h: float, e: float) -> sb.Equations:
    s = sb.System("graze")
    y = s.coordinate("y", 0.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.unilateral("ceiling", h - y, restitution=e)
    return s.derive()


@pytest.mark.parametrize("overshoot", [1e-6, 1e-4])
def test_apex_just_above_the_ceiling_is_an_impact(overshoot):
    """Thrown up to ``h + overshoot``: the impact at the exact time and rate, the rebound at ``-e`` of it."""
    h, e = 0.5, 0.8
    v0 = math.sqrt(2 * G * (h + overshoot))
    res = simulate(ball_under_ceiling(h, e), 2 * v0 / G, dq0=[v0])
    t1 = (v0 - math.sqrt(v0**2 - 2 * G * h)) / G
    hits = [ev for ev in res.events if ev.kind == "impact"]
    assert len(hits) == 1 and abs(hits[0].time - t1) < 1e-9
    assert abs(hits[0].velocity + math.sqrt(2 * G * overshoot)) < 1e-6 * math.sqrt(overshoot)
    assert np.max(res["y"]) <= h + 1e-9
    after = np.arange(res.t.size) >= np.flatnonzero(res.t == hits[0].time)[-1]
    assert np.allclose(res["dy"][after], -e * (v0 - G * t1) - G * (res.t[after] - t1), atol=1e-8)


def test_apex_exactly_at_the_ceiling_is_no_impact():
    h = 0.5
    v0 = math.sqrt(2 * G * h)
    t_end = 2 * v0 / G - 0.01
    res = simulate(ball_under_ceiling(h, 0.8), t_end, dq0=[v0], t_eval=np.linspace(0, t_end, 40))
    assert not [ev for ev in res.events if ev.kind == "impact"]
    assert np.allclose(res["y"], v0 * res.t - 0.5 * G * res.t**2, atol=1e-8)


def bouncing_ball() -> sb.Equations:
    s = sb.System("ball")
    y = s.coordinate("y", 1.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.unilateral("floor", y, restitution=s.parameter("e", 0.5))
    return s.derive()


def test_restitution_through_the_parameter_vector():
    eq = bouncing_ball()
    hit = simulate(eq, 0.5, dt=0.1, p={"e": 0.9}).events[0]
    assert abs(hit.impulse - 1.9 * math.sqrt(2 * G)) < 1e-7
    for bad in (1.5, -0.2):
        with pytest.raises(ModelError, match="'floor'.*restitution"):
            simulate(eq, 0.5, p={"e": bad})


def test_friction_coefficients_through_the_parameter_vector():
    s = sb.System("block")
    x = s.coordinate("x")
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.stick_slip("fr", x, normal=G, mu=s.parameter("mu", 0.5), mu_static=s.parameter("mu_s", 0.6))
    eq = s.derive()
    with pytest.raises(ModelError, match="'fr'.*static"):
        simulate(eq, 1.0, p={"mu_s": 0.1})
    with pytest.raises(ModelError, match="'fr'.*negative"):
        simulate(eq, 1.0, p={"mu": -0.1})
    assert simulate(eq, 0.5, dt=0.1, p={"mu_s": 0.5}).events == []  # at rest, unloaded: it sticks


@pytest.mark.parametrize("side", [1.0, -1.0])
def test_pendulum_against_a_stop_at_an_angle(side):
    """The gap is the angle past the stop; the rebound leaves ``e^2`` of the kinetic energy at the stop."""
    th0, stop, e = side * 1.0, -side * 0.3, 0.5
    s = sb.System("pendulum")
    th = s.coordinate("th", th0)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("b", s.point("P", s.origin, sb.Vector(B, 0, -1, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.unilateral("stop", side * (th - stop), restitution=e)
    res = simulate(s.derive(), 1.2, dt=0.001)
    hit = next(ev for ev in res.events if ev.kind == "impact")
    w = math.sqrt(2 * G * (math.cos(stop) - math.cos(th0)))
    assert abs(hit.velocity + w) < 1e-7
    after = (res.t > hit.time) & (res.t < hit.time + 0.1)
    energy = 0.5 * res["dth"][after] ** 2 - G * np.cos(res["th"][after])
    assert np.allclose(energy, 0.5 * (e * w) ** 2 - G * math.cos(stop), atol=1e-7)


def test_slack_rope_in_space_catches_the_ball_along_the_rope():
    """``l - |r|``: free flight until the rope is taut, then the radial velocity reversed times ``e``."""
    l, e = 1.0, 0.7
    s = sb.System("rope")
    x, y, z = s.coordinate("x", 0.3), s.coordinate("y", 0.0), s.coordinate("z", 0.2)
    s.particle("b", s.point("P", s.origin, (x, y, z)), 1.0)
    s.gravity((0, -G, 0))
    s.unilateral("rope", l - sb.sqrt(x**2 + y**2 + z**2), restitution=e)
    r0, v0, g = np.array([0.3, 0.0, 0.2]), np.array([0.5, 1.0, -0.4]), np.array([0.0, -G, 0.0])
    res = simulate(s.derive(), 1.2, dq0=v0)
    t1 = brentq(lambda t: np.linalg.norm(r0 + v0 * t + 0.5 * g * t * t) - l, 0.0, 2.0, xtol=1e-15)
    hit = next(ev for ev in res.events if ev.kind == "impact")
    assert abs(hit.time - t1) < 1e-9
    n, v = (r0 + v0 * t1 + 0.5 * g * t1**2) / l, v0 + g * t1
    expected = v - (1 + e) * (v @ n) * n
    k = np.flatnonzero(res.t == hit.time)[-1]
    assert np.allclose([res["dx"][k], res["dy"][k], res["dz"][k]], expected, atol=1e-8)


def test_floor_moving_up_reverses_the_relative_velocity():
    vf, e, h = 0.5, 0.6, 1.0
    s = sb.System("lift")
    y = s.coordinate("y", h)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.unilateral("floor", y - vf * s.t, restitution=e)
    res = simulate(s.derive(), 0.6)
    t1 = (-vf + math.sqrt(vf * vf + 2 * G * h)) / G
    hit = next(ev for ev in res.events if ev.kind == "impact")
    assert abs(hit.time - t1) < 1e-9 and abs(hit.velocity - (-G * t1 - vf)) < 1e-8
    k = np.flatnonzero(res.t == hit.time)[-1]
    assert abs(res["dy"][k] - (vf + e * (G * t1 + vf))) < 1e-8


def test_floor_accelerating_up_carries_the_weight_and_the_inertia():
    a, m = 3.0, 2.0
    s = sb.System("lift")
    y = s.coordinate("y", 0.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), m)
    s.gravity((0, -G, 0))
    s.unilateral("floor", y - 0.5 * a * s.t**2)
    res = simulate(s.derive(), 1.0, dt=0.1)
    assert np.allclose(res["floor"], m * (G + a), rtol=1e-9)
    assert np.allclose(res["y"], 0.5 * a * res.t**2, atol=1e-9)


def test_ball_on_a_tilted_plane_takes_the_impulse_along_the_normal():
    al, e = 0.4, 0.7
    s = sb.System("tilted")
    x, y = s.coordinate("x", 0.0), s.coordinate("y", 1.0)
    s.particle("b", s.point("P", s.origin, (x, y, 0)), 1.5)
    s.gravity((0, -G, 0))
    s.unilateral("plane", -math.sin(al) * x + math.cos(al) * y, restitution=e)
    v0, g, n = np.array([0.7, 0.2]), np.array([0.0, -G]), np.array([-math.sin(al), math.cos(al)])
    res = simulate(s.derive(), 0.8, dq0=v0)
    qa, qb, qc = 0.5 * n @ g, n @ v0, n[1] * 1.0
    t1 = (-qb - math.sqrt(qb * qb - 4 * qa * qc)) / (2 * qa)
    hit = next(ev for ev in res.events if ev.kind == "impact")
    assert abs(hit.time - t1) < 1e-9
    v = v0 + g * t1
    k = np.flatnonzero(res.t == hit.time)[-1]
    assert np.allclose([res["dx"][k], res["dy"][k]], v - (1 + e) * (v @ n) * n, atol=1e-8)


def test_slider_crank_hits_its_end_stop_keeping_the_loop():
    """A one-degree-of-freedom loop: the impact leaves ``e^2`` of the kinetic energy, the loop rows held."""
    r, L, e, m_pin, m_slider = 0.3, 1.0, 0.5, 1.0, 3.0
    s = sb.System("slider_crank")
    th, ph, x = s.coordinate("th"), s.coordinate("ph"), s.coordinate("x")
    crank = s.base("crank", s.ground_base, sb.Rz(th))
    s.particle("pin", s.point("A", s.origin, sb.Vector(crank, r, 0, 0)), m_pin)
    s.particle("slider", s.point("S", s.origin, (x, 0, 0)), m_slider)
    s.constraint("loop_x", x - (r * sb.cos(th) + L * sb.cos(ph)))
    s.constraint("loop_y", r * sb.sin(th) + L * sb.sin(ph))
    s.unilateral("stop", x - 1.05, restitution=e)
    th0, w = 0.8, 4.0
    ph0 = math.asin(-r * math.sin(th0) / L)
    dph = -r * math.cos(th0) * w / (L * math.cos(ph0))
    q0 = [th0, ph0, r * math.cos(th0) + L * math.cos(ph0)]
    dq0 = [w, dph, -r * math.sin(th0) * w - L * math.sin(ph0) * dph]
    res = simulate(s.derive(), 1.0, q0=q0, dq0=dq0)
    hit = next(ev for ev in res.events if ev.kind == "impact")
    k0, k1 = np.flatnonzero(res.t == hit.time)[[0, -1]]

    def kinetic(k: int) -> float:
        return 0.5 * m_pin * (r * res["dth"][k]) ** 2 + 0.5 * m_slider * res["dx"][k] ** 2

    assert abs(kinetic(k1) / kinetic(k0) - e**2) < 1e-8
    assert abs(res["dx"][k1] + e * res["dx"][k0]) < 1e-9
    assert res.velocity_violation[k1] < 1e-9


def test_ball_hitting_a_sticking_block_sets_it_sliding():
    """Friction takes no impulse (its normal force, the block's weight, is finite): the 1-D collision of
    ball and block, then the block slides to rest after ``v^2 / (2 mu g)`` and sticks."""
    m, M, e, v, mu = 1.0, 3.0, 0.5, 2.0, 0.3
    s = sb.System("hit")
    xb, xk, yk = s.coordinate("xb", 0.0), s.coordinate("xk", 1.0), s.coordinate("yk", 0.0)
    s.particle("ball", s.point("Pb", s.origin, (xb, 0.5, 0)), m)  # flies level: its height is fixed
    s.particle("block", s.point("Pk", s.origin, (xk, yk, 0)), M)
    s.gravity((0, -G, 0))
    floor = s.unilateral("floor", yk)
    s.unilateral("hit", xk - xb - 0.5, restitution=e)
    s.stick_slip("fr", xk, normal=floor.force, mu=mu)
    res = simulate(s.derive(), 0.8, dq0=[v, 0.0, 0.0])
    t1 = 0.5 / v
    hit = next(ev for ev in res.events if ev.kind == "impact")
    assert abs(hit.time - t1) < 1e-9
    k = np.flatnonzero(res.t == hit.time)[-1]
    v_ball, v_block = (m - e * M) * v / (m + M), (1 + e) * m * v / (m + M)
    assert abs(res["dxb"][k] - v_ball) < 1e-9 and abs(res["dxk"][k] - v_block) < 1e-9
    t_stop = t1 + v_block / (mu * G)
    stick = [ev for ev in res.events if ev.kind == "stick"]
    assert len(stick) == 1 and abs(stick[0].time - t_stop) < 1e-7
    assert abs(res["xk"][-1] - (1.0 + v_block**2 / (2 * mu * G))) < 1e-8
    assert abs(res["fr"][-1]) < 1e-9  # at rest, unloaded


def test_ball_on_a_shaking_table_leaves_it_where_the_table_falls_faster_than_g():
    """Table ``A sin(w t)`` (a time-dependent gap): the ball rides with force ``m (g - A w^2 sin w t)`` and
    leaves where that vanishes, ``sin(w t) = g / (A w^2)``."""
    A, w, m = 0.1, 15.0, 2.0
    s = sb.System("shaker")
    y = s.coordinate("y", 0.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), m)
    s.gravity((0, -G, 0))
    s.unilateral("table", y - A * sb.sin(s.parameter("w", w, unit="1/s") * s.t), restitution=0.0)
    res = simulate(s.derive(), 0.2, dq0=[A * w], dt=0.01)
    t_open = math.asin(G / (A * w * w)) / w
    opened = [ev for ev in res.events if ev.kind == "open"]
    assert len(opened) >= 1 and abs(opened[0].time - t_open) < 1e-9
    riding = res.t < t_open
    assert np.allclose(res["table"][riding], m * (G - A * w * w * np.sin(w * res.t[riding])), rtol=0, atol=1e-7)


def test_block_on_a_moving_belt_breaks_away_where_the_spring_reaches_the_static_limit():
    """Stick-slip on the rate of ``x - v t`` (a rheonomic rate), pressed by a contact force: the block rides
    the belt until ``k x = mu_s m g``, then oscillates about ``mu m g / k`` pushed by the sliding force."""
    m, k, vb, mus, mu = 1.0, 20.0, 0.3, 0.5, 0.3
    s = sb.System("belt")
    x, y = s.coordinate("x", 0.0), s.coordinate("y", 0.0)
    s.particle("b", s.point("P", s.origin, (x, y, 0)), m)
    s.gravity((0, -G, 0))
    s.generalized_force("spring", x, -k * x)
    floor = s.unilateral("floor", y)
    s.stick_slip("fr", x - s.parameter("vb", vb, unit="m/s") * s.t, normal=floor.force, mu=mu, mu_static=mus)
    res = simulate(s.derive(), 1.0, dq0=[vb, 0.0], dt=0.01)
    t_break = mus * m * G / k / vb
    slip = [ev for ev in res.events if ev.kind == "slip"]
    assert len(slip) == 1 and abs(slip[0].time - t_break) < 1e-9
    riding = res.t < t_break
    assert np.allclose(res["fr"][riding], k * res["x"][riding], atol=1e-8)  # the friction holds the spring
    w, x_break, x_eq = math.sqrt(k / m), mus * m * G / k, mu * m * G / k
    tau = res.t[(res.t > t_break) & (res.t < t_break + 0.1)] - t_break
    expected = x_eq + (x_break - x_eq) * np.cos(w * tau) + vb / w * np.sin(w * tau)
    assert np.allclose(res["x"][(res.t > t_break) & (res.t < t_break + 0.1)], expected, atol=1e-8)
