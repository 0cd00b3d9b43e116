"""The overhead crane with its end stops and the floor: impacts, set-down and a loop against a stop.

Checks against independent truth: the impulse of an end stop acts on the trolley only, so the
generalized momenta of the hoist and the swing (rows of ``M dq``) do not change through it while the
trolley's velocity reverses times ``e_stop``; the payload lowered onto the floor follows the closed
form of the damped hoist until the exact landing time and then rests with ``m_payload g - F_hoist``;
a PD loop commanding the trolley beyond its end stop presses it there with ``kp (x_ref - x_max)``.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from scipy.optimize import brentq

from symbody.numeric import NumericModel, simulate

from support import ROOT, example

G0 = 9.80665


def test_trolley_rebounds_from_the_end_stop_keeping_hoist_and_swing_momenta():
    eq = example("overhead_crane", end_stops=True, x0=16.0).derive()
    res = simulate(eq, 6.0, inputs={"F_trolley": 20000.0})
    hits = [ev for ev in res.events if ev.kind == "impact"]
    assert hits and hits[0].name == "stop_high"
    i = int(np.flatnonzero(res.t == hits[0].time)[0])  # recorded before (i) and after (i + 1) the impact
    nm = NumericModel(eq)
    M = nm.M(res.q[i])
    before, after = res.dq[i], res.dq[i + 1]
    e = nm.p[[p.name for p in eq.parameters].index("e_stop")]
    ix = [c.name for c in eq.coordinates].index("x")
    assert before[ix] > 0.1 and abs(after[ix] + e * before[ix]) < 1e-9 * before[ix]
    others = [k for k in range(eq.nq) if k != ix]
    assert np.allclose((M @ after)[others], (M @ before)[others], rtol=1e-10, atol=1e-9)
    assert np.all(res["x"] <= 20.0 + 1e-8)  # never through the stop


def test_payload_set_down_on_the_floor():
    eq = example("overhead_crane", ground=True).derive()
    p = {x.name: x.value for x in eq.parameters}
    m_p, m_w, b_l, h, l0 = p["m_payload"], p["m_winch"], p["b_l"], p["h_ground"], 12.0
    F_h = 0.8 * m_p * G0
    res = simulate(eq, 8.0, inputs={"F_hoist": F_h}, dt=0.1)
    # free lowering: (m_p + m_w) l'' = m_p g - F_h - b_l l' from rest
    a, c = (m_p * G0 - F_h) / (m_p + m_w), b_l / (m_p + m_w)

    def length(t: float) -> float:
        return l0 + a / c * t - a / c**2 * (1 - math.exp(-c * t))

    t_land = brentq(lambda t: length(t) - h, 0.0, 10.0, xtol=1e-14)
    assert [(ev.kind, ev.name) for ev in res.events] == [("impact", "ground"), ("close", "ground")]
    assert abs(res.events[0].time - t_land) < 1e-6
    down = res.t < t_land
    assert np.allclose(res["l"][down], [length(t) for t in res.t[down]], rtol=1e-9)
    rest = res.t > t_land
    # (closed, the gap is held by Baumgarte's terms to the integration tolerance)
    assert np.allclose(res["l"][rest], h, atol=1e-8) and np.allclose(res["dl"][rest], 0.0, atol=5e-8)
    assert np.allclose(res["F_ground"][rest], m_p * G0 - F_h, rtol=1e-7)
    assert np.allclose(res["rope_tension"][rest], F_h, rtol=1e-7)


@pytest.mark.slow  # long: with --slow (CI)
def test_closed_loop_presses_the_trolley_against_its_end_stop():
    """PD loop on the trolley commanding 0.5 m beyond the stop (swing damped strongly)."""
    eq = example("overhead_crane", end_stops=True, x0=17.0).derive()
    kp, kd, x_ref, x_max = 4000.0, 6000.0, 20.5, 20.0
    ix = [c.name for c in eq.coordinates].index("x")

    def pd(t, q, dq):
        return kp * (x_ref - q[ix]) - kd * dq[ix]

    res = simulate(eq, 80.0, dt=1.0, inputs={"F_trolley": pd}, p={"c_theta": 2e5})
    kinds = [(ev.kind, ev.name) for ev in res.events]
    assert ("close", "stop_high") in kinds
    assert np.all(res["x"] <= x_max + 1e-7)  # closed, held by Baumgarte's terms to the integration tolerance
    assert abs(res["x"][-1] - x_max) < 1e-8 and abs(res["dx"][-1]) < 1e-8
    # the stop takes the drive's force, plus the horizontal pull of the residual swing (m g theta, under 1 N)
    horizontal = NumericModel(eq).p[[p.name for p in eq.parameters].index("m_payload")] * G0 * abs(res["theta"][-1])
    assert abs(res["F_stop_high"][-1] - kp * (x_ref - x_max)) < 2 * horizontal + 1e-6 * kp
    assert res["F_stop_low"][-1] == 0.0


def test_other_analyses_give_nan_for_contact_forces():
    """Outside the simulation the contact forces are unknown: outputs using them are NaN, not 0."""
    from symbody.numeric import inverse_dynamics

    eq = example("overhead_crane", end_stops=True).derive()
    res = inverse_dynamics(eq, [0.0, 1.0], q=[eq.q0] * 2, dq=[eq.dq0] * 2, ddq=[eq.dq0] * 2)
    names = [o.name for o in eq.outputs]
    assert np.all(np.isnan(res.y[:, names.index("F_stop_high")]))
    assert np.all(np.isfinite(res.y[:, names.index("x_payload")]))


@pytest.mark.slow
def test_end_stop_example_script(tmp_path):
    sys.path.insert(0, str(ROOT / "examples" / "crane_control"))
    import end_stop

    runs = end_stop.main([str(tmp_path)])
    assert (tmp_path / "end_stop.png").stat().st_size > 10000
    assert runs["rebound"].events[0].kind == "impact"
    assert abs(runs["pressed"]["F_stop_high"][-1] - 2000.0) < 2.0
    down = runs["set-down"]
    weight = 4000.0 * G0
    assert abs(down["F_ground"][-1] - 0.2 * weight) < 1e-4 * weight


def test_trolley_leaves_the_stop_where_its_force_vanishes():
    """Driven into its upper stop while the payload rests on the ground, the trolley is pulled off the stop by
    the rope at 10.35 s: the force of the stop located reaching zero opens the contact once (the
    complementarity problem found a hair of force there that the mode does not carry: the same event came
    again at once, 'the events do not settle')."""
    eq = example("overhead_crane", end_stops=True, ground=True).derive()
    res = simulate(eq, 12.0, dt=0.01, inputs={"F_trolley": 20e3, "F_hoist": 0.8 * 4000.0 * G0})
    opens = [ev.time for ev in res.events if ev.name == "stop_high" and ev.kind == "open"]
    assert len(opens) == 1 and 10.3 < opens[0] < 10.4
    before, after = res.t < opens[0] - 1e-6, res.t > opens[0] + 1e-6
    assert np.all(res["stop_high"][before & (res.t > 5.0)] > 0.0)  # pressed against the stop until then
    assert np.all(res["stop_high"][after] == 0.0) and res["x"][-1] < 20.0 - 1e-3  # then pulled away
