"""Hydraulic cylinders through FMI 2 and 3 FMUs (Co-Simulation and Model Exchange) against the closed forms
of tests/support/hoist_models.py: the held mass's frequency, the flow-limited speed, the end-of-stroke stop."""

from __future__ import annotations

import numpy as np
import pytest

from symbody.fmu import export_fmu
from symbody.fmu.testing import fmu_simulation

from support.hoist_models import (
    C_AA,
    C_AP,
    C_MASS,
    C_PS,
    C_PT,
    C_STROKE,
    G,
    cylinder_lift,
    flow_limited_speed,
    held_frequency,
)

KINDS = [(2, "CoSimulation"), (3, "CoSimulation"), (2, "ModelExchange"), (3, "ModelExchange")]
IDS = [f"fmi{v}-{'cs' if k == 'CoSimulation' else 'me'}" for v, k in KINDS]
X0, P2 = 0.3, 2.0e6
P1 = (C_MASS * G + P2 * C_AA) / C_AP


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cylinder_fmus")
    built: dict[int, object] = {}

    def get(version: int):
        if version not in built:
            eq = cylinder_lift(X0, (P1, P2)).derive()
            built[version] = export_fmu(eq, folder / f"lift_{version}.fmu", fmi_version=version, kind="both")
        return built[version]

    return get


def _start(fmi_type: str, **values: float) -> dict:
    solver = {"solver.rtol": 1e-10, "solver.atol": 1e-12} if fmi_type == "CoSimulation" else {}
    return {**solver, **values}


@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
def test_held_mass_oscillates_at_the_hydraulic_frequency(build, version, fmi_type):
    w = held_frequency(X0, P1, P2)
    a, T = 1e-5, 2 * np.pi / w
    res = fmu_simulation(build(version), 2 * T, T / 50, fmi_type=fmi_type, relative_tolerance=1e-11,
                         start_values=_start(fmi_type, dy=a * w), output=["y", "lift_p1"])  # fmt: skip
    assert res["y"] - (1.0 + X0) == pytest.approx(a * np.sin(w * res["time"]), abs=5e-3 * a)


@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
@pytest.mark.parametrize("spool", [1.0, -1.0])
def test_open_valve_moves_the_load_at_the_flow_limited_speed(build, version, fmi_type, spool):
    p1 = (C_MASS * G + C_PT * C_AA) / C_AP
    start = _start(fmi_type, lift_spool=spool, lift_p1=p1, lift_p2=C_PT, y=1.1 if spool > 0 else 1.4)
    # fmpy's CVode takes at most 500 steps per output interval: through the cap side's cavitation at the start
    # (some 1e4 Pa at t = 0.013 s) rtol = 1e-10 needs more
    cs = fmi_type == "CoSimulation"
    res = fmu_simulation(build(version), 1.0, 0.1 if cs else 0.005, fmi_type=fmi_type,
                         relative_tolerance=1e-10 if cs else 1e-8,
                         start_values=start, output=["dy", "lift_flow1", "lift_flow2"])  # fmt: skip
    v = flow_limited_speed(spool)
    assert res["dy"][-1] == pytest.approx(v, rel=1e-5)
    assert res["lift_flow1"][-1] == pytest.approx(C_AP * v, rel=1e-5)
    assert res["lift_flow2"][-1] == pytest.approx(-C_AA * v, rel=1e-5)


@pytest.mark.parametrize("version, fmi_type", [(3, "CoSimulation"), (2, "ModelExchange")], ids=["fmi3-cs", "fmi2-me"])
def test_end_of_stroke_stop_through_fmus(build, version, fmi_type):
    p1 = (C_MASS * G + C_PT * C_AA) / C_AP
    start = _start(fmi_type, lift_spool=1.0, lift_p1=p1, lift_p2=C_PT, y=1.56)
    res = fmu_simulation(build(version), 1.0, 0.01, fmi_type=fmi_type, relative_tolerance=1e-10, start_values=start,
                         output=["lift_extension", "lift_p1", "lift_p2"])  # fmt: skip
    assert res["lift_extension"].max() <= C_STROKE + 1e-8
    assert res["lift_extension"][-1] == pytest.approx(C_STROKE, abs=1e-8)
    assert res["lift_p1"][-1] == pytest.approx(C_PS, rel=1e-3)
    assert res["lift_p2"][-1] == pytest.approx(C_PT, rel=1e-3)


def test_python_backend_holds_the_mass_at_the_hydraulic_frequency_and_stops_at_full_stroke(tmp_path):
    fmu = export_fmu(cylinder_lift(X0, (P1, P2)).derive(), tmp_path / "lift_py.fmu", fmi_version=2, kind="cs",
                     backend="python")  # fmt: skip
    w = held_frequency(X0, P1, P2)
    a, T = 1e-5, 2 * np.pi / w
    res = fmu_simulation(fmu, 2 * T, T / 50, start_values=_start("CoSimulation", dy=a * w), output=["y"])
    assert res["y"] - (1.0 + X0) == pytest.approx(a * np.sin(w * res["time"]), abs=5e-3 * a)
    p1 = (C_MASS * G + C_PT * C_AA) / C_AP
    start = _start("CoSimulation", lift_spool=1.0, lift_p1=p1, lift_p2=C_PT, y=1.56)
    res = fmu_simulation(fmu, 0.5, 0.01, start_values=start, output=["lift_extension"])
    assert res["lift_extension"].max() <= C_STROKE + 1e-8
    assert res["lift_extension"][-1] == pytest.approx(C_STROKE, abs=1e-8)
