"""The anti-sway LQR designed on the rigid-rope tower crane, run on the elastic-rope crane with its hoist winch
(``examples/crane_control/hoist_sway.py``): the design's modes against closed forms, and the closed loop on the
elastic-rope FMU against open loop."""

from __future__ import annotations

import math
import sys

import pytest

from support import ROOT
from support.tower_hoist import EA, G0, J, M, R, unstretched

sys.path.insert(0, str(ROOT / "examples" / "crane_control"))

import hoist_sway  # noqa: E402


@pytest.fixture(scope="module")
def design():
    return hoist_sway.design()


def test_elastic_rope_modes_and_the_loop_closed_on_them(design):
    """The stretch mode is the hook load on the falls in series with the drum (closed form of
    tests/examples/test_tower_crane_winch.py); the radial swing moves by the hook block's mass only; the
    LQR, blind to the rope's stretch, leaves that mode as it was and damps the swing."""
    n, pull = hoist_sway.FALLS, M * G0 / hoist_sway.FALLS
    stretch = math.sqrt(EA / unstretched(n) * (n**2 / M + (1 + pull / EA) * R**2 / J))
    w, zeta = design.elastic_modes["rope stretch"]
    assert w == pytest.approx(stretch, rel=1e-3)
    assert design.loop_modes["rope stretch"] == pytest.approx((w, zeta), rel=1e-3)
    assert design.elastic_modes["radial swing"][0] == pytest.approx(design.rigid_swing[0], rel=0.02)
    assert design.elastic_modes["radial swing"][1] < 0.1 and design.loop_modes["radial swing"][1] > 0.4
    assert design.loop_radius < 1.0


@pytest.mark.slow  # an FMU export and two 26 s closed-loop runs through fmpy: some 10 s
def test_lqr_leaves_under_a_tenth_of_the_open_loop_sway_on_the_elastic_rope(tmp_path, capsys):
    table = hoist_sway.main([str(tmp_path), "--quick"])
    assert table["LQR"]["swing_deg"] < 0.1 * table["open loop"]["swing_deg"]
    assert table["open loop"]["swing_deg"] > 0.5  # the open-loop move leaves a swing worth damping
    assert table["LQR"]["final_r"] == pytest.approx(hoist_sway.R0 + hoist_sway.TRAVEL, abs=0.01)
    assert max(r["hook_ripple"] for r in table.values()) < 0.01  # the stretch mode stays quiet
    assert (tmp_path / "hoist_sway.png").is_file()
    assert "LQR / open loop residual swing" in capsys.readouterr().out
