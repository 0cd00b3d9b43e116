"""Winches in Python simulations: constant drum acceleration (tension, drum torque, energy) and the
speed drive with its motor lag, against closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import symbody as sb
from symbody.errors import ModelError
from symbody.numeric import simulate

from support.hoist_models import W_ALPHA, W_FALL, W_J, W_MASS, W_R, G, hoist_energy, winch_hoist

TOL = {"rtol": 1e-10, "atol": 1e-12}


@pytest.mark.parametrize("falls", [1, 2])
def test_constant_drum_acceleration_hoists_with_the_closed_form_tension_and_torque(falls):
    """The hook accelerates at alpha r / n: the line pull tends to m (g + alpha r / n) / n and the drum
    torque to T r + J alpha; the drive's work is the energy gained plus the work done on the rope."""
    eq = winch_hoist(falls).derive()
    res = simulate(eq, 3.0, dt=0.01, **TOL)
    a_hook = W_ALPHA * W_R / falls
    T = W_MASS * (G + a_hook) / falls
    assert res["hoist_tension"][-1] == pytest.approx(T, rel=1e-4)
    assert res["drum_torque"][-1] == pytest.approx(T * W_R + W_J * W_ALPHA, rel=1e-4)
    assert res["ddy"][-1] == pytest.approx(a_hook, rel=2e-3)
    # exact at every instant: the drum's equation J alpha = torque - T r
    assert res["drum_torque"] == pytest.approx(res["hoist_tension"] * W_R + W_J * W_ALPHA, rel=1e-9)
    assert res["hoist_tension"].min() > 0.0  # stays taut
    work, gained = hoist_energy(res.t, res["y"], res["dy"], res["drive_work"], res["rope_work"])
    assert work == pytest.approx(gained, abs=1e-6 * work[-1])
    assert res["drum"][-1] == pytest.approx(W_ALPHA * 9 / 2, abs=1e-9)


@pytest.mark.slow  # some 15 s of a stiff drive in Python; the FMU tests run it in the default suite
def test_speed_drive_follows_its_motor_lag_and_hoists_at_the_steady_speed():
    """The motor speed is the first-order lag of the reference; at steady hoisting the drum turns at
    w_ref - T r / gain (the speed controller's droop under the line pull T = m g)."""
    eq = winch_hoist(1, "speed").derive()
    w_ref = 2.0
    res = simulate(eq, 4.0, dt=0.05, inputs={"drum_speed_ref": w_ref}, **TOL)
    assert res["drum_motor_speed"] == pytest.approx(w_ref * (1 - np.exp(-res.t / 0.2)), abs=1e-8)
    droop = W_MASS * G * W_R / 5.0e3
    assert res["ddrum"][-1] == pytest.approx(w_ref - droop, rel=1e-5)
    # the rope wound on carries its stretch T L0 / EA: the hook rises at r w (1 + T / EA)
    assert res["dy"][-1] == pytest.approx(W_R * (w_ref - droop) * (1 + W_MASS * G / 1e7), rel=1e-5)
    assert res["drum_drive_torque"][-1] == pytest.approx(W_MASS * G * W_R, rel=1e-4)
    assert res["hoist_length"][0] == pytest.approx(W_FALL + W_MASS * G * W_FALL / 1e7, rel=1e-12)


def test_winch_arguments_are_checked():
    s = sb.System("bad")
    y = s.coordinate("y", -1.0)
    P = s.point("P", s.origin, (0, y, 0))
    s.particle("m", P, 1.0)
    rope = s.rope("r", [s.origin, P], stiffness=100.0, unstretched_length=1.0)
    with pytest.raises(ModelError, match="not a rope"):
        s.winch("w", "P", radius=0.1, inertia=1.0)
    with pytest.raises(ModelError, match="drive must be"):
        s.winch("w", rope, radius=0.1, inertia=1.0, drive="position")
    with pytest.raises(ModelError, match="takes speed and speed_gain"):
        s.winch("w", rope, radius=0.1, inertia=1.0, drive="speed")
    with pytest.raises(ModelError, match="positive radius"):
        s.winch("w", rope, radius=-0.1, inertia=1.0)
    # a winch paying out so much that the rope has no length left at the start is refused, and undone
    s.winch("w", rope, radius=0.1, inertia=1.0)
    assert rope.unstretched_length.mask and "w_torque" in s.inputs and len(s.loads) == 2
    with pytest.raises(ModelError, match="already has a winch"):
        s.winch("w2", rope, radius=0.1, inertia=1.0)
    assert "w2" not in s.registry and len(s.loads) == 2


def test_a_failed_winch_leaves_the_rope_as_it_was():
    s = sb.System("undo")
    y = s.coordinate("y", -1.0)
    P = s.point("P", s.origin, (0, y, 0))
    s.particle("m", P, 1.0)
    rope = s.rope("r", [s.origin, P], stiffness=100.0, unstretched_length=1.0)
    load, tension = rope.load, s.outputs["r_tension"].expr
    with pytest.raises(ModelError, match="acceleration"):  # fails after the rope was rebound
        s.winch("w", rope, radius=0.1, inertia=1.0, torque=s.dt(s.dt(y)))
    assert rope.load is load and s.loads[0] is load and s.outputs["r_tension"].expr is tension
    assert "w" not in s.registry and not s.coordinates[1:]
