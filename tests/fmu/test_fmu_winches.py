"""Winches through FMI 2 and 3 FMUs (Co-Simulation and Model Exchange), against the closed forms of
tests/support/hoist_models.py: constant drum acceleration (line pull, drum torque, energy bookkeeping) and
the speed drive (motor lag, droop)."""

from __future__ import annotations

import numpy as np
import pytest

from symbody.fmu import export_fmu
from symbody.fmu.testing import fmu_simulation

from support.hoist_models import W_ALPHA, W_J, W_MASS, W_R, G, hoist_energy, winch_hoist

KINDS = [(2, "CoSimulation"), (3, "CoSimulation"), (2, "ModelExchange"), (3, "ModelExchange")]
IDS = [f"fmi{v}-{'cs' if k == 'CoSimulation' else 'me'}" for v, k in KINDS]
FALLS = 2


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    folder = tmp_path_factory.mktemp("winch_fmus")
    built: dict[tuple, object] = {}

    def get(drive: str, version: int):
        if (drive, version) not in built:
            path = folder / f"winch_{drive}_{version}.fmu"
            built[drive, version] = export_fmu(
                winch_hoist(FALLS, drive).derive(), path, fmi_version=version, kind="both"
            )
        return built[drive, version]

    return get


def _start(fmi_type: str) -> dict:
    return {"solver.rtol": 1e-10, "solver.atol": 1e-12} if fmi_type == "CoSimulation" else {}


@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
def test_constant_drum_acceleration_through_fmus(build, version, fmi_type):
    res = fmu_simulation(build("accelerate", version), 3.0, 0.01, fmi_type=fmi_type, start_values=_start(fmi_type),
                         relative_tolerance=1e-10,
                         output=["y", "dy", "drum", "hoist_tension", "drum_torque", "drive_work", "rope_work"])  # fmt: skip
    T = W_MASS * (G + W_ALPHA * W_R / FALLS) / FALLS
    assert res["hoist_tension"][-1] == pytest.approx(T, rel=1e-4)
    assert res["drum_torque"][-1] == pytest.approx(T * W_R + W_J * W_ALPHA, rel=1e-4)
    assert res["drum"] == pytest.approx(W_ALPHA * res["time"] ** 2 / 2, abs=1e-8)
    work, gained = hoist_energy(res["time"], res["y"], res["dy"], res["drive_work"], res["rope_work"])
    assert work == pytest.approx(gained, abs=1e-5 * work[-1])


@pytest.mark.parametrize("version, fmi_type", [(3, "CoSimulation"), (2, "ModelExchange")], ids=["fmi3-cs", "fmi2-me"])
def test_speed_drive_through_fmus(build, version, fmi_type):
    w_ref = 2.0
    start = {**_start(fmi_type), "drum_speed_ref": w_ref}
    res = fmu_simulation(build("speed", version), 4.0, 0.05, fmi_type=fmi_type, start_values=start,
                         relative_tolerance=1e-10, output=["drum_motor_speed", "ddrum", "dy", "drum_drive_torque"])  # fmt: skip
    assert res["drum_motor_speed"] == pytest.approx(w_ref * (1 - np.exp(-res["time"] / 0.2)), abs=1e-7)
    T = W_MASS * G / FALLS
    droop = T * W_R / 5.0e3
    assert res["ddrum"][-1] == pytest.approx(w_ref - droop, rel=1e-5)
    # the hook rises at r w / n, the rope wound on carrying its stretch: (1 + T / EA)
    assert res["dy"][-1] == pytest.approx(W_R * (w_ref - droop) / FALLS * (1 + T / 1e7), rel=1e-5)
    assert res["drum_drive_torque"][-1] == pytest.approx(T * W_R, rel=1e-4)
