"""``examples/crane_control/swing_coupling.py``: the payload's swing next to the flexible crane's modes.

Independent estimates: the pendulum ``sqrt(g / l)``; the jib's first bending mode with a tip mass from the
frequency equation of the Euler-Bernoulli cantilever (itself checked against the plain cantilever's
``1.8751^2 sqrt(E I / (m L^3))`` and Rayleigh's ``sqrt(3 E I / (L^3 (M + 33/140 m)))``, which is within 1 %).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "crane_control"))

import swing_coupling as sc  # noqa: E402

EI, MASS, L = sc.JIB_EI, sc.JIB_MASS * 50.0, 50.0


def test_the_tip_mass_frequency_equation_against_the_plain_cantilever_and_rayleigh():
    plain = 1.8751041**2 * math.sqrt(EI / (MASS * L**3)) / (2 * math.pi)
    assert sc.cantilever_tip_mass_frequency(0.0) == pytest.approx(plain, rel=1e-6)
    for tip in (800.0, 2800.0, 8800.0):
        rayleigh = math.sqrt(3 * EI / (L**3 * (tip + 33 / 140 * MASS))) / (2 * math.pi)
        assert sc.cantilever_tip_mass_frequency(tip) == pytest.approx(rayleigh, rel=0.01)
        assert sc.cantilever_tip_mass_frequency(tip) < plain


@pytest.mark.parametrize("segments, rel", [(4, 0.02), pytest.param(8, 0.006, marks=pytest.mark.slow)])
def test_the_jib_bends_as_a_cantilever_with_trolley_and_payload_at_its_tip(segments, rel):
    for case in sc.jib_bending(segments, payloads=(0.0, 2000.0, 8000.0)):
        assert case.clamped == pytest.approx(case.closed_form, rel=rel), case


def test_the_swing_meets_the_mast_sway_on_a_short_rope_and_they_repel():
    long_rope, short_rope = sc.rope_sweep(4, ropes=(20.0, 2.0))
    for case in (long_rope, short_rope):  # the rigid crane's radial swing is the pendulum
        assert case.rigid[0] == pytest.approx(case.pendulum, rel=1e-6)
    assert long_rope.flexible[0] == pytest.approx(long_rope.pendulum, rel=0.01)  # far from the structure
    sway = long_rope.flexible[2]  # the mast's sway in the jib's plane, 0.33 Hz
    assert 0.9 * sway < short_rope.pendulum < 1.1 * sway  # a 2 m rope tunes the pendulum to it ...
    # ... and the coupled pair splits: one mode below both, one above both
    assert short_rope.flexible[0] < 0.97 * min(short_rope.pendulum, sway)
    assert max(short_rope.flexible[1:]) > 1.03 * max(short_rope.pendulum, sway)
