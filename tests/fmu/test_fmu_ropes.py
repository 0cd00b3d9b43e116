"""Elastic ropes, slings and buffers through FMI 2 and 3 FMUs (C and Python backends, Co-Simulation and
Model Exchange), against the closed forms of tests/support/hoist_models.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symbody.fmu import export_fmu
from symbody.fmu.testing import fmu_simulation

from support.hoist_models import EA, FALL, drop_times, dropped_on_rope, hook_on_sling_and_buffer, rope_length

KINDS = [(2, "CoSimulation"), (3, "CoSimulation"), (2, "ModelExchange"), (3, "ModelExchange")]
IDS = [f"fmi{v}-{'cs' if k == 'CoSimulation' else 'me'}" for v, k in KINDS]
FALLS = 2


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """``build(version, backend)``: the FMU (both kinds) of the hook dropped on a rope in FALLS falls."""
    folder = tmp_path_factory.mktemp("rope_fmus")
    built: dict[tuple, object] = {}

    def get(version: int, backend: str = "c"):
        if (version, backend) not in built:
            kind = "both" if backend == "c" else "cs"
            path = folder / f"drop_{version}_{backend}.fmu"
            built[version, backend] = export_fmu(
                dropped_on_rope(FALLS).derive(), path, fmi_version=version, kind=kind, backend=backend
            )
        return built[version, backend]

    return get


def _check_drop(res: dict, tol: float) -> None:
    t_in, t_out, w, y_st, amp = drop_times(FALLS)
    t, y = res["time"], res["y"]
    free = t <= t_in
    assert y[free] == pytest.approx(-(FALL - 0.05 / FALLS) - 0.5 * 9.81 * t[free] ** 2, abs=tol)
    taut = (t >= t_in) & (t <= t_out)
    exact = -FALL - (y_st - amp * np.cos(w * (t[taut] - t_in) + math.acos(y_st / amp)))
    assert y[taut] == pytest.approx(exact, abs=tol)
    assert res["hoist_tension"].min() >= 0.0
    # slack in free fall (at the located taut event, Model Exchange may record a tension of the event
    # location's tolerance: 1e-10 N is a stretch of some 1e-15 m)
    assert np.all(res["hoist_tension"][free] <= 1e-6)
    peak = FALLS**2 * EA / rope_length(FALLS) * (y_st + amp) / FALLS  # k (y_st + A) over n falls
    assert res["hoist_tension"].max() == pytest.approx(peak, rel=2e-3)  # sampled near the bottom


@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
def test_hook_dropped_on_a_slack_rope_in_two_falls(build, version, fmi_type):
    t_out = drop_times(FALLS)[1]
    start = {"solver.rtol": 1e-10, "solver.atol": 1e-12} if fmi_type == "CoSimulation" else {}
    res = fmu_simulation(build(version), t_out, 1e-3, fmi_type=fmi_type, start_values=start, relative_tolerance=1e-10,
                         output=["y", "hoist_tension", "hoist_length"])  # fmt: skip
    _check_drop(res, 1e-6)
    assert res["hoist_length"] == pytest.approx(1.5 + FALLS * np.abs(res["y"]), abs=1e-12)


def test_python_backend_drops_the_hook_like_the_closed_form(build):
    t_out = drop_times(FALLS)[1]
    res = fmu_simulation(build(2, "python"), t_out, 1e-3, start_values={"solver.rtol": 1e-10, "solver.atol": 1e-12},
                         output=["y", "hoist_tension"])  # fmt: skip
    _check_drop(res, 1e-6)


@pytest.mark.parametrize("version, fmi_type", [(3, "CoSimulation"), (2, "ModelExchange")])
def test_sling_and_buffer_bounce_a_cart_through_fmus(tmp_path, version, fmi_type):
    k, rest, free, v0 = 400.0, 1.0, 0.4, 0.8
    s = hook_on_sling_and_buffer(k, rest, free)
    s.coordinates[0].dq0 = v0
    fmu = export_fmu(s.derive(), tmp_path / "cart.fmu", fmi_version=version, kind="both")
    w, gap = math.sqrt(k), (rest - free) / v0
    period = 2 * gap + 2 * math.pi / w
    start = {"solver.rtol": 1e-10, "solver.atol": 1e-12} if fmi_type == "CoSimulation" else {}
    res = fmu_simulation(fmu, period, period / 400, fmi_type=fmi_type, start_values=start, relative_tolerance=1e-10,
                         output=["x", "dx"])  # fmt: skip
    # back at the start with the start velocity after one period; free flight at +-v0 between the springs
    assert res["x"][-1] == pytest.approx(0.5 * (rest + free), abs=1e-6)
    assert res["dx"][-1] == pytest.approx(v0, abs=1e-6)
    inside = (res["x"] > free + 1e-9) & (res["x"] < rest - 1e-9)
    assert np.abs(res["dx"][inside]) == pytest.approx(v0, abs=1e-6)
    assert res["x"].max() == pytest.approx(rest + v0 / w, abs=1e-3)
