"""``examples/crane_control/flexible_tower_crane.py``: the flexible crane's modes next to the rigid crane's.

* the rigid crane's radial swing is the pendulum ``sqrt(g / l)`` (the tangential one is stiffened by the slewing
  inertia it drags along);
* the flexible crane keeps both swing frequencies to 1 % and adds the mast and jib modes above them, the lowest
  more than twice the swing's; the free slew is its one rigid-body mode.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "crane_control"))

import flexible_tower_crane as crane  # noqa: E402


@pytest.mark.slow
def test_the_flexible_crane_keeps_the_swing_modes_and_adds_the_structure_above_them(capsys):
    rigid, flexible = crane.main(segments=3)
    assert len(rigid) == 2 and rigid[0] == pytest.approx(math.sqrt(crane.G0 / 20.0) / (2 * math.pi), rel=1e-6)
    np.testing.assert_allclose(flexible[:2], rigid, rtol=0.01)
    assert flexible[2] > 2 * rigid[1] and len(flexible) == 2 + 2 * 3 * 2
    assert "flexible crane:" in capsys.readouterr().out
    assert len(crane.build(True, 3).coordinates) == 3 + 2 * 3 * 2
