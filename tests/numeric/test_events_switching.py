"""Switching loads (a buffer that only pushes) located as events, against the exact solution."""

from __future__ import annotations

import math

import numpy as np

import symbody as sb
from symbody.numeric import simulate

G = 9.81


def test_ball_on_a_one_sided_spring_switches_at_the_exact_times():
    """Dropped from h onto a buffer ``k max(0, -y)``: free fall to y = 0, then oscillation about
    ``-m g / k`` with amplitude ``A`` until it leaves at y = 0 with the speed it came in."""
    h, m, k = 0.5, 2.0, 400.0
    s = sb.System("buffer")
    y = s.coordinate("y", h)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), m)
    s.gravity((0, -G, 0))
    s.generalized_force("buffer", y, k * sb.positive_part(-y))
    eq = s.derive()
    assert [str(e) for e in eq.switches] == ["y"]
    tol = {"rtol": 1e-10, "atol": 1e-12}  # event times to some 1e-12 (1e-10 at the default tolerances)
    res = simulate(eq, 1.5, dt=0.01, **tol)
    w, v = math.sqrt(k / m), math.sqrt(2 * G * h)
    y_eq = m * G / k
    amp = math.hypot(y_eq, v / w)
    t_in = math.sqrt(2 * h / G)
    t_out = t_in + (2 * math.pi - 2 * math.acos(y_eq / amp)) / w
    t_apex = t_out + v / G
    times = [ev.time for ev in res.events]
    assert [ev.kind for ev in res.events][:3] == ["switch"] * 3
    assert np.allclose(times[:3], [t_in, t_out, t_apex + (t_apex - t_out)], atol=1e-9)
    # energy is kept: back at the start height at the apex
    top = simulate(eq, t_apex, t_eval=[t_apex], **tol)
    assert abs(top["y"][-1] - h) < 1e-8
    deepest = float(res["y"].min())
    assert abs(deepest - (-y_eq - amp)) < 1e-3  # sampled at dt


def test_event_free_models_take_the_plain_simulation():
    s = sb.System("free")
    x = s.coordinate("x", 1.0)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.spring_damper("k", s.origin, "P", k=4.0, rest_length=0.0)
    res = simulate(s.derive(), 1.0, dt=0.5)
    assert not hasattr(res, "events")


def test_switching_function_of_an_input_is_located_with_the_input_signal():
    """A force ``positive_part(F)`` with the input ``F(t) = cos(t)``: the switch at ``t = pi/2`` (the
    input, not its default value, decides where the kink lies)."""
    s = sb.System("drive")
    x = s.coordinate("x")
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    F = s.input("F", 0.0)
    s.generalized_force("push", x, sb.positive_part(F))
    res = simulate(s.derive(), 3.0, dt=0.5, inputs={"F": lambda t: math.cos(t)})
    assert [ev.kind for ev in res.events] == ["switch"] and abs(res.events[0].time - math.pi / 2) < 1e-9
    assert abs(res["dx"][-1] - 1.0) < 1e-8  # the integral of cos from 0 to pi/2
