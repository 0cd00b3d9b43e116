"""Elastic ropes, slings and buffers in Python simulations, against their closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symbody as sb
from symbody.errors import ModelError
from symbody.numeric import simulate

from support.hoist_models import (
    EA,
    FALL,
    MASS,
    G,
    drop_times,
    dropped_on_rope,
    hook_on_sling_and_buffer,
    rope_length,
)

TOL = {"rtol": 1e-10, "atol": 1e-12}


@pytest.mark.parametrize("falls", [1, 3])
def test_mass_dropped_on_a_slack_rope(falls):
    """Free fall until taut at the exact time, harmonic about the static stretch at sqrt(k/m) with
    k = n^2 EA / L0, slack again; the tension is never negative and peaks at k (y_st + A) / n."""
    eq = dropped_on_rope(falls).derive()
    assert len(eq.switches) == 1
    t_in, t_out, w, y_st, amp = drop_times(falls)
    res = simulate(eq, t_out + 0.05, dt=1e-3, **TOL)
    switches = [ev.time for ev in res.events if ev.kind == "switch"]
    assert switches[:2] == pytest.approx([t_in, t_out], abs=1e-9)
    taut = (res.t > t_in) & (res.t < t_out)
    y_taut = -FALL - (y_st - amp * np.cos(w * (res.t[taut] - t_in) + math.acos(y_st / amp)))
    assert res["y"][taut] == pytest.approx(y_taut, abs=1e-7)
    tension = res["hoist_tension"]
    assert tension.min() >= 0.0 and np.all(tension[~taut & (res.t < t_in)] == 0.0)
    k = falls**2 * EA / rope_length(falls)
    assert tension.max() == pytest.approx(k * (y_st + amp) / falls, rel=1e-3)  # sampled near the bottom
    # the rope's length: the lead plus n falls; its stretch, n times the hook's travel below taut
    assert res["hoist_length"] == pytest.approx(1.5 + falls * np.abs(res["y"]), abs=1e-12)
    assert res["hoist_stretch"] == pytest.approx(res["hoist_length"] - rope_length(falls), abs=1e-12)


@pytest.mark.parametrize("falls", [1, 2, 4])
def test_n_falls_carry_the_load_over_n_and_stiffen_by_n_squared(falls):
    """Static line pull m g / n; about it, oscillation at sqrt(n^2 EA / (L0 m))."""
    eq = dropped_on_rope(falls).derive()
    k = falls**2 * EA / rope_length(falls)
    y_static = -FALL - MASS * G / k
    a = 1e-4
    w = math.sqrt(k / MASS)
    T = 2 * math.pi / w
    res = simulate(eq, T, dt=T / 40, q0=[y_static + a], **TOL)
    assert res["y"] == pytest.approx(y_static + a * np.cos(w * res.t), abs=1e-9)
    assert not [ev for ev in res.events if ev.kind == "switch"]  # stays taut
    assert res["hoist_tension"][[0, 20, 40]] == pytest.approx(
        [MASS * G / falls - k * a / falls, MASS * G / falls + k * a / falls, MASS * G / falls - k * a / falls],
        rel=1e-7,
    )


def test_damped_rope_tension_stays_non_negative_and_the_energy_goes_into_the_damper():
    """With damping the rope goes slack while the spring part is still stretched (the damper may not
    push): the tension output is never negative and the energy only decreases."""
    eq = dropped_on_rope(1, damping=2000.0).derive()
    res = simulate(eq, 1.0, dt=1e-3, **TOL)
    assert res["hoist_tension"].min() >= 0.0
    energy = 0.5 * MASS * res["dy"] ** 2 + MASS * G * res["y"]
    stretch = np.maximum(res["hoist_stretch"], 0.0)
    energy = energy + 0.5 * EA / rope_length(1) * stretch**2 * (res["hoist_tension"] > 0)
    assert np.all(np.diff(energy) <= 1e-6)
    assert energy[-1] < energy[0] - 1.0  # the damper took some of it


def test_sling_and_buffer_bounce_a_cart_with_the_exact_period():
    """A cart between a buffer (pushes below ``free``) and a sling (pulls beyond ``rest``): free flight
    across the gap at v0, half a period pi/w in each spring: period 2 (rest - free) / v0 + 2 pi / w."""
    k, rest, free, v0 = 400.0, 1.0, 0.4, 0.8
    eq = hook_on_sling_and_buffer(k, rest, free).derive()
    assert len(eq.switches) == 2
    w = math.sqrt(k)
    gap = (rest - free) / v0
    res = simulate(eq, 2.5, dt=0.01, dq0=[v0], **TOL)
    times = [ev.time for ev in res.events if ev.kind == "switch"]
    expected = [gap / 2, gap / 2 + math.pi / w, 1.5 * gap + math.pi / w, 1.5 * gap + 2 * math.pi / w]
    assert times[:4] == pytest.approx(expected, abs=1e-9)
    assert res["x"].max() == pytest.approx(rest + v0 / w, abs=1e-4)  # sampled at dt


def test_rope_arguments_are_checked():
    s = sb.System("bad")
    y = s.coordinate("y", -1.0)
    P = s.point("P", s.origin, (0, y, 0))
    s.particle("m", P, 1.0)
    with pytest.raises(ModelError, match="falls must be a whole number"):
        s.rope("r", [s.origin, P], stiffness=1.0, unstretched_length=1.0, falls=0)
    with pytest.raises(ModelError, match="at least two points"):
        s.rope("r", [P], stiffness=1.0, unstretched_length=1.0)
    with pytest.raises(ModelError, match="not positive"):
        s.rope("r", [s.origin, P], stiffness=1.0, unstretched_length=0.0)
    with pytest.raises(ModelError, match="coincide"):
        s.rope("r", [s.origin, s.origin, P], stiffness=1.0, unstretched_length=1.0)
    F = s.input("F")
    with pytest.raises(ModelError, match="stiffness and damping"):
        s.rope("r", [s.origin, P], stiffness=F, unstretched_length=1.0)
    assert "r" not in s.registry and not s.loads and not s.outputs  # each failure left the system as it was
    s.rope("r", [s.origin, P], stiffness=1.0, unstretched_length=1.0)
    assert [ld.kind for ld in s.loads] == ["rope"] and len(s.outputs) == 3


def test_winch_like_unstretched_length_needs_the_rate_of_its_state():
    s = sb.System("pay")
    y = s.coordinate("y", -1.0)
    P = s.point("P", s.origin, (0, y, 0))
    s.particle("m", P, 1.0)
    paid = s.state("paid", 1.0, unit="m")
    with pytest.raises(ModelError, match="rate of state 'paid'"):
        s.rope("r", [s.origin, P], stiffness=10.0, damping=1.0, unstretched_length=paid)
    s.rate(paid, 0.1)
    rope = s.rope("r", [s.origin, P], stiffness=10.0, damping=1.0, unstretched_length=paid)
    assert "0.1" in str(rope.tension)  # the damper sees the payout rate


def test_joint_reaction_sees_ropes_and_slings_as_forces_along_their_segments():
    """A bar pivoted at the origin, held level by a sling from a point above its tip and tied down at its tip
    by a pre-tensioned rope (tension T): at rest the sling pulls m g / 2 + T and the pivot carries
    m g + T - pull = m g / 2 upwards, no moment (statics by hand; without the rope's pull on the bar the
    pivot would carry m g / 2 - T)."""
    m_bar, L, H, T = 10.0, 2.0, 1.5, 100.0
    s = sb.System("held_bar")
    th = s.coordinate("th", 0.0)
    bar_base = s.base("bar_base", s.ground_base, sb.Rz(th))
    tip = s.point("tip", s.origin, sb.Vector(bar_base, L, 0, 0))
    bar = s.solid("bar", s.origin, bar_base, mass=m_bar, com=(L / 2, 0, 0), inertia=(0, 0, m_bar * L**2 / 12))
    s.gravity((0, -G, 0))
    pull = m_bar * G / 2 + T
    s.sling("stay", s.point("stay_top", s.origin, (L, H, 0)), tip, k=1e7, rest_length=H - pull / 1e7)
    anchor = s.point("anchor", s.origin, (L, -1.0, 0))
    s.rope("tie", [tip, anchor], stiffness=1e6, unstretched_length=1.0 / (1 + T / 1e6), outputs=False)
    s.joint_reaction(bar, s.origin, s.ground_base, name="pivot")
    eq = s.derive()
    from symbody.numeric import NumericModel

    nm = NumericModel(eq)
    q, dq = np.zeros(1), np.zeros(1)
    ddq, _ = nm.accelerations(q, dq)
    assert np.abs(ddq).max() < 1e-9  # at rest
    out = dict(zip([o.name for o in eq.outputs], nm.outputs(q, dq)))
    assert out["pivot_F_y"] == pytest.approx(m_bar * G / 2, rel=1e-9)
    assert out["pivot_F_x"] == pytest.approx(0.0, abs=1e-9)
    assert out["pivot_M_z"] == pytest.approx(0.0, abs=1e-9)
