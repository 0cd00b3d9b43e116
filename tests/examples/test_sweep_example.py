"""examples/crane_control/sweep_lqr.py: its study rows against the transfers of overhead_lqr.py.

At the nominal rope length (12 m) the design scheduled by sweep_lqr equals overhead_lqr's, so
a row of the study must equal overhead_lqr's own closed-loop transfer with that payload
(run with crane_loop's FmuPlant, a fresh instance, not through symbody.sweep).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from support import ROOT

sys.path.insert(0, str(ROOT / "examples" / "crane_control"))

import overhead_lqr  # noqa: E402
import sweep_lqr  # noqa: E402


@pytest.mark.slow  # long: with --slow (CI)
def test_sweep_lqr_rows_equal_the_transfers_of_overhead_lqr(tmp_path):
    d = overhead_lqr.design()
    fmu = overhead_lqr.export_plant(d.eq, tmp_path / "crane.fmu")
    df = sweep_lqr.run_study(d, fmu, [4000.0, 8000.0], [12.0], tmp_path / "r.csv", workers=0, progress=False)
    assert (df["status"] == "ok").all(), df["message"].tolist()
    K12, _ = sweep_lqr.schedule(d, [12.0])[12.0]
    np.testing.assert_allclose(K12, d.K, rtol=1e-9)  # the schedule at 12 m is the nominal design
    g = d.params["g"]
    for row in df.to_dict("records"):
        m = row["m_payload"]
        runs = overhead_lqr.run_transfers(d, fmu, ["LQR"], parameters={"m_payload": m}, hoist_force=m * g)
        ref = overhead_lqr.metrics(d, "LQR", runs["LQR"])
        assert row["transfer.residual_swing"] == pytest.approx(ref.residual_swing, rel=1e-6, abs=1e-9)
        assert row["transfer.max_swing"] == pytest.approx(ref.max_swing, rel=1e-6)
        assert row["transfer.settling_time"] == pytest.approx(ref.settling_time, abs=0.011)
        assert row["peak_rope_tension"] == pytest.approx(np.max(runs["LQR"]["rope_tension"][1:]), rel=1e-6)
        assert row["peak_rope_tension"] == pytest.approx(m * g, rel=0.01)  # the hoist holds the load
    nominal, heavy = df["transfer.residual_swing"]
    assert heavy > 10 * nominal  # the payload the controller does not know leaves the swing
    sweep_lqr.plot_heat_map(df, d, tmp_path / "map.png")
    assert (tmp_path / "map.png").stat().st_size > 10_000
