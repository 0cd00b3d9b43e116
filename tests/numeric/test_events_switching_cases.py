"""Switching loads: a load with ``sign`` that the motion slides along is refused at once, not after
thousands of events; a saturated spring (``minimum``) switches at the exact times."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import symbody as sb
from symbody.errors import NumericalError
from symbody.numeric import simulate
from symbody.numeric.events import CHATTER_EVENTS


def test_sign_load_in_a_sliding_mode_is_refused_quickly():
    """``F = 0.5 - sign(v)`` from rest: every crossing of ``v = 0`` sends it back (Filippov's sliding mode)."""
    s = sb.System("chatter")
    x = s.coordinate("x", 0.0)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("dry", x, 0.5 - sb.sign(s.symbol("dx")))
    with pytest.raises(NumericalError, match="chatters.*stick_slip") as err:
        simulate(s.derive(), 1.0, dt=0.1)
    found = re.search(r"chatters at t = (\S+) \((\d+) crossings", str(err.value))
    assert found and int(found[2]) == CHATTER_EVENTS  # refused after 50 crossings, not thousands
    assert float(found[1]) < 1e-6  # at the start, where the sliding begins


def test_saturated_spring_switches_where_the_force_reaches_its_limit():
    """``-min(k x, F)`` from ``x0`` at rest: constant force ``F`` until ``k x = F``, then a harmonic spring."""
    k, F, m, x0 = 4.0, 2.0, 1.0, 2.0
    s = sb.System("saturated")
    x = s.coordinate("x", x0)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), m)
    s.generalized_force("spring", x, -sb.minimum(k * x, F))
    res = simulate(s.derive(), 1.5, dt=0.01)
    x_switch = F / k
    t_switch = math.sqrt(2 * m * (x0 - x_switch) / F)
    switches = [ev.time for ev in res.events if ev.kind == "switch"]
    assert len(switches) >= 1 and abs(switches[0] - t_switch) < 1e-9
    w, v_switch = math.sqrt(k / m), -F / m * t_switch
    after = (res.t > t_switch) & (res.t < t_switch + math.pi / (2 * w))
    tau = res.t[after] - t_switch
    assert np.allclose(res["x"][after], x_switch * np.cos(w * tau) + v_switch / w * np.sin(w * tau), atol=1e-7)
