"""Coulomb friction with stick and slip, pressed by a unilateral contact's force, against exact solutions.

A block on an incline of angle alpha (coordinates along and normal to the slope, the normal one held
by a unilateral contact whose force presses the friction): it sticks while tan(alpha) < mu_static,
slides down with ``g (sin alpha - mu cos alpha)`` above, comes to rest at the exact time when launched
downhill on a gentle slope, and a block pulled by a growing force breaks away at ``mu_static m g``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symbody as sb
from symbody.errors import ModelError
from symbody.numeric import simulate

from support.friction_models import sine_push_events, sine_pushed_block

G = 9.81


def incline(alpha: float, mu: float, mu_static: float, v0: float = 0.0, m: float = 3.0) -> sb.System:
    s = sb.System("incline")
    d = s.coordinate("s", 0.0, dq0=v0)  # along the slope, downhill
    n = s.coordinate("n", 0.0)  # off the slope
    ca, sa = math.cos(alpha), math.sin(alpha)
    s.particle("block", s.point("P", s.origin, (d * ca + n * sa, -d * sa + n * ca, 0)), m)
    s.gravity((0, -G, 0))
    c = s.unilateral("slope", n)
    f = s.stick_slip("friction", d, normal=c.force, mu=mu, mu_static=mu_static)
    s.output("F_t", f.force)
    return s


@pytest.mark.parametrize("alpha_deg", [10.0, 25.0])
def test_block_sticks_below_the_friction_angle(alpha_deg):
    alpha, m, atol = math.radians(alpha_deg), 3.0, 1e-12
    res = simulate(incline(alpha, 0.4, 0.5).derive(), 2.0, dt=0.25, rtol=1e-10, atol=atol)
    assert math.tan(alpha) < 0.5
    # the held rows drift by what the integrator's tolerance lets through (its error estimate is loose on
    # Baumgarte's fast modes: some 5 atol here, 30 atol at the default tolerances with some BLAS kernels)
    assert np.allclose(res["s"], 0.0, atol=1000 * atol) and np.allclose(res["n"], 0.0, atol=1000 * atol)
    # (Baumgarte's terms turn that drift into forces: m (w^2 n + 2 w dn) relative to m g, about 1e-10)
    assert np.allclose(res["slope"], m * G * math.cos(alpha), rtol=1e-7)
    assert np.allclose(res["friction"], -m * G * math.sin(alpha), rtol=1e-7)  # holds it up the slope
    assert np.allclose(res["F_t"], res["friction"])
    assert np.all(res.slip == 0)
    assert [ev.kind for ev in res.events] == ["close"]


@pytest.mark.parametrize("alpha_deg", [30.0, 50.0])
def test_block_slides_above_the_friction_angle(alpha_deg):
    alpha, mu, m = math.radians(alpha_deg), 0.4, 3.0
    res = simulate(incline(alpha, mu, 0.5).derive(), 2.0, dt=0.25)
    a = G * (math.sin(alpha) - mu * math.cos(alpha))
    assert np.allclose(res["s"], 0.5 * a * res.t**2, rtol=1e-8, atol=1e-12)
    assert np.allclose(res["dds"], a, rtol=1e-8)
    assert np.allclose(res["friction"], -mu * m * G * math.cos(alpha), rtol=1e-9)
    assert [(ev.kind, ev.name) for ev in res.events] == [("close", "slope"), ("slip", "friction")]
    assert np.all(res.slip == 1)


def test_block_launched_downhill_comes_to_rest_and_sticks():
    alpha, mu, v0, m = math.radians(15), 0.5, 2.0, 3.0
    res = simulate(incline(alpha, mu, 0.6, v0=v0).derive(), 3.0, dt=0.1)
    a = G * (math.sin(alpha) - mu * math.cos(alpha))
    assert a < 0
    t_stop = -v0 / a
    sticks = [ev for ev in res.events if ev.kind == "stick"]
    assert len(sticks) == 1 and abs(sticks[0].time - t_stop) < 1e-9
    moving = res.t < t_stop
    assert np.allclose(res["ds"][moving], v0 + a * res.t[moving], rtol=1e-8, atol=1e-10)
    rest = res.t > t_stop
    assert np.allclose(res["s"][rest], v0 * t_stop / 2, rtol=1e-8)
    assert np.allclose(res["ds"][rest], 0.0, atol=1e-8)
    assert np.allclose(res["friction"][rest], -m * G * math.sin(alpha), rtol=1e-7)


def test_pulled_block_breaks_away_at_the_static_limit():
    m, k, mu, mu_s = 2.0, 4.0, 0.3, 0.5
    s = sb.System("pull")
    x = s.coordinate("x")
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), m)
    s.generalized_force("pull", x, k * s.t)
    s.stick_slip("floor", x, normal=m * G, mu=mu, mu_static=mu_s)
    res = simulate(s.derive(), 4.0, dt=0.1)
    t_break = mu_s * m * G / k
    assert [ev.kind for ev in res.events] == ["slip"] and abs(res.events[0].time - t_break) < 1e-9
    after = res.t > t_break
    tau = res.t[after] - t_break
    # m x'' = k t - mu m g from rest at t_break
    x_exact = (k * (tau**3 / 6 + t_break * tau**2 / 2) - mu * m * G * tau**2 / 2) / m
    assert np.allclose(res["x"][after], x_exact, rtol=1e-8, atol=1e-12)
    assert np.allclose(res["floor"][~after], -k * res.t[~after], rtol=1e-9, atol=1e-12)


def test_stick_slip_model_errors():
    s = incline(0.1, 0.4, 0.5)
    with pytest.raises(ModelError, match="static coefficient"):
        s.stick_slip("f2", s.symbol("s"), normal=1.0, mu=0.5, mu_static=0.3)
    with pytest.raises(ModelError, match="negative"):
        s.stick_slip("f3", s.symbol("s"), normal=1.0, mu=-0.1)
    with pytest.raises(ModelError, match="acceleration"):
        s.stick_slip("f4", s.symbol("s"), normal=s.symbol("dds"), mu=0.1)


def test_normal_force_from_a_bilateral_multiplier():
    """A block held on a rail by a bilateral constraint ``y = 0``; the friction is pressed by its
    multiplier (``|lambda| = m g``): breakaway at ``mu_static m g``, then ``m x'' = k t - mu m g``."""
    m, k, mu, mu_s = 2.0, 4.0, 0.3, 0.5
    s = sb.System("rail")
    x, y = s.coordinate("x"), s.coordinate("y")
    s.particle("b", s.point("P", s.origin, (x, y, 0)), m)
    s.gravity((0, -G, 0))
    s.constraint("rail", y)
    s.generalized_force("pull", x, k * s.t)
    s.stick_slip("floor", x, normal=s.multiplier("rail"), mu=mu, mu_static=mu_s)
    res = simulate(s.derive(), 4.0, dt=0.1)
    t_break = mu_s * m * G / k
    assert [ev.kind for ev in res.events] == ["slip"] and abs(res.events[0].time - t_break) < 1e-9
    after = res.t > t_break
    tau = res.t[after] - t_break
    x_exact = (k * (tau**3 / 6 + t_break * tau**2 / 2) - mu * m * G * tau**2 / 2) / m
    assert np.allclose(res["x"][after], x_exact, rtol=1e-8, atol=1e-12)


def test_breakaway_between_two_step_ends_is_found():
    """A block pushed by the triangle k max(0, t1 - |t - t1|) that exceeds mu_static m g only from
    t_break = 2.4525 to 2.7475: the solver's step over the stuck block spans that window, and the static
    limit is crossed and recrossed inside it, so the margin is sampled inside the step (it used to be
    checked at the step ends only, and the block broke away at the kink t1 = 2.6 instead)."""
    m, k, t1, mu, mu_s = 2.0, 4.0, 2.6, 0.3, 0.5
    s = sb.System("push")
    x = s.coordinate("x")
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), m)
    s.generalized_force("push", x, k * sb.maximum(0, t1 - sb.Abs(s.t - t1)))
    s.stick_slip("floor", x, normal=m * G, mu=mu, mu_static=mu_s)
    res = simulate(s.derive(), 8.0, dt=0.5)
    # (the motion is a polynomial of degree 3 between the events, which DOP853 integrates exactly: the times
    # and the stop position are exact to round-off, once no step spans the kink of the push at t1)
    # m v' = k t - fk from rest at t_break to t1, then m v' = k (2 t1 - t) - fk until v = 0 at t_stick
    fk, t_break = mu * m * G, mu_s * m * G / k
    v1 = (k * (t1**2 - t_break**2) / 2 - fk * (t1 - t_break)) / m
    x1 = (k * ((t1**3 - t_break**3) / 6 - t_break**2 * (t1 - t_break) / 2) - fk * (t1 - t_break) ** 2 / 2) / m
    c2, c1 = -k / (2 * m), (k * t1 - fk) / m
    tau = (-c1 - math.sqrt(c1 * c1 - 4 * c2 * v1)) / (2 * c2)
    x_stop = x1 + v1 * tau + ((k * t1 - fk) * tau**2 / 2 - k * tau**3 / 6) / m
    friction = [(ev.kind, ev.time) for ev in res.events if ev.name == "floor"]
    assert [kind for kind, _ in friction] == ["slip", "stick"]
    assert [time for _, time in friction] == pytest.approx([t_break, t1 + tau], abs=1e-12)
    assert abs(res["x"][-1] - x_stop) < 1e-12 and res["dx"][-1] == 0.0


def test_breakaway_under_a_smooth_push_while_steps_are_long():
    res = simulate(sine_pushed_block().derive(), 6.0, dt=3.0)
    assert [ev.kind for ev in res.events] == ["slip", "stick", "slip"]
    assert [ev.time for ev in res.events] == pytest.approx(sine_push_events(), abs=1e-8)
