"""Hydraulic cylinders in Python simulations against closed forms: the held mass's natural frequency,
the flow-limited speed both ways, the static pressures with leakage, the end-of-stroke stop, cavitation."""

from __future__ import annotations

import numpy as np
import pytest

from symbody.numeric import simulate

from support.hoist_models import (
    C_AA,
    C_AP,
    C_AR,
    C_MASS,
    C_PS,
    C_PT,
    C_STROKE,
    G,
    cylinder_lift,
    flow_limited_speed,
    held_frequency,
)

TOL = {"rtol": 1e-10, "atol": 1e-12}


def test_mass_held_by_the_closed_cylinder_oscillates_at_the_hydraulic_frequency():
    x0, p2 = 0.3, 2.0e6
    p1 = (C_MASS * G + p2 * C_AA) / C_AP  # static balance
    a = 1e-5
    s = cylinder_lift(x0, (p1, p2))
    w = held_frequency(x0, p1, p2)
    T = 2 * np.pi / w
    s.coordinates[0].dq0 = a * w  # the pressures are states: a push, not a displacement, starts the motion
    res = simulate(s.derive(), 2 * T, dt=T / 50, atol=1e-14, rtol=1e-11)
    assert res["y"] - (1.0 + x0) == pytest.approx(a * np.sin(w * res.t), abs=2e-3 * a)
    assert res["lift_force"][0] == pytest.approx(C_MASS * G, rel=1e-12)  # balanced at the start...
    assert np.allclose(res["lift_flow1"], 0.0) and np.allclose(res["lift_flow2"], 0.0)  # ...and the valve shut


@pytest.mark.parametrize("spool, x0", [(1.0, 0.1), (-1.0, 0.4)])
def test_open_valve_moves_the_load_at_the_flow_limited_speed(spool, x0):
    p1 = (C_MASS * G + C_PT * C_AA) / C_AP
    s = cylinder_lift(x0, (p1, C_PT), friction=0.0)
    res = simulate(s.derive(), 1.0, dt=0.1, inputs={"lift_spool": spool}, **TOL)
    v = flow_limited_speed(spool)
    assert res["dy"][-1] == pytest.approx(v, rel=1e-5)
    # the valve flows feed the moving piston: A_p v into the cap side, A_a v out of the rod side
    assert res["lift_flow1"][-1] == pytest.approx(C_AP * v, rel=1e-5)
    assert res["lift_flow2"][-1] == pytest.approx(-C_AA * v, rel=1e-5)
    assert res["lift_force"][-1] == pytest.approx(C_MASS * G, rel=1e-4)


def test_leakage_equalizes_the_chambers_and_the_rod_area_carries_the_load():
    """Valve shut, leakage across the piston and friction: at rest p1 = p2 = m g / A_rod."""
    s = cylinder_lift(0.3, (3.0e6, 3.0e6), leakage=1e-10, friction=2e3)
    res = simulate(s.derive(), 3.0, dt=0.1, **TOL)
    p = C_MASS * G / C_AR
    assert res["lift_p1"][-1] == pytest.approx(p, rel=1e-6)
    assert res["lift_p2"][-1] == pytest.approx(p, rel=1e-6)
    assert abs(res["dy"][-1]) < 1e-8


@pytest.mark.slow  # some 10 s in Python (stiff pressures against a closed contact); the FMU tests run it by default
def test_end_of_stroke_stop_holds_the_extending_cylinder_at_full_stroke():
    p1 = (C_MASS * G + C_PT * C_AA) / C_AP
    s = cylinder_lift(0.56, (p1, C_PT))
    res = simulate(s.derive(), 1.0, dt=0.05, inputs={"lift_spool": 1.0}, **TOL)
    hits = [ev for ev in res.events if ev.name == "lift_extended"]
    assert hits and hits[0].time == pytest.approx((C_STROKE - 0.56) / flow_limited_speed(1.0), rel=0.1)
    assert res["lift_extension"].max() <= C_STROKE + 1e-9
    assert res["lift_extension"][-1] == pytest.approx(C_STROKE, abs=1e-9)
    # stalled against the stop: the cap side at supply pressure, the rod side at tank pressure
    assert res["lift_p1"][-1] == pytest.approx(C_PS, rel=1e-3)
    assert res["lift_p2"][-1] == pytest.approx(C_PT, rel=1e-3)


def test_cavitation_keeps_the_pressures_positive():
    """The shut cylinder yanked out at 1 m/s: the cap side is emptied far faster than compressibility allows,
    its pressure falls towards zero but stays positive (the bulk modulus vanishes there)."""
    s = cylinder_lift(0.3, (1.0e6, 1.0e5))
    s.coordinates[0].dq0 = 1.0
    res = simulate(s.derive(), 0.05, dt=1e-4, **TOL)
    assert res["lift_p1"].min() > 0.0
    assert res["lift_p1"].min() < 1e4  # it did cavitate
