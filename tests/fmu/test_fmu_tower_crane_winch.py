"""The tower crane's reeved hook on a hoist winch (``examples/tower_crane.py``, ``falls=2``) through FMI 2 and 3
FMUs (Co-Simulation and Model Exchange), against the closed forms of
tests/examples/test_tower_crane_winch.py: the line pull and hook kinematics at constant drum acceleration, and
the rope going slack when the payload is set down."""

from __future__ import annotations

import numpy as np
import pytest

from symbody.fmu import export_fmu
from symbody.fmu.testing import fmu_simulation

from support import example
from support.tower_hoist import ALPHA, EA, G0, M, R, hoisting_pull, hoisting_torque

KINDS = [(2, "CoSimulation"), (3, "CoSimulation"), (2, "ModelExchange"), (3, "ModelExchange")]
IDS = [f"fmi{v}-{'cs' if k == 'CoSimulation' else 'me'}" for v, k in KINDS]
FALLS = 2

pytestmark = pytest.mark.slow  # two exports and compilations of a seven-coordinate crane


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tower_winch_fmus")
    built: dict[tuple, object] = {}

    def get(l0: float, version: int):
        if (l0, version) not in built:
            eq = example("tower_crane", falls=FALLS, l0=l0).derive()
            built[l0, version] = export_fmu(eq, folder / f"tower_winch_{l0:g}_{version}.fmu", fmi_version=version,
                                            kind="both")  # fmt: skip
        return built[l0, version]

    return get


def _start(fmi_type: str, **values) -> dict:
    tol = {"solver.rtol": 1e-10, "solver.atol": 1e-12} if fmi_type == "CoSimulation" else {}
    return {**tol, **values}


@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
def test_constant_drum_acceleration_through_fmus(build, version, fmi_type):
    res = fmu_simulation(build(20.0, version), 8.0, 0.05, fmi_type=fmi_type, relative_tolerance=1e-10,
                         start_values=_start(fmi_type, tau_hoist=hoisting_torque(FALLS), c_rope=1e4),
                         output=["hoist_rope_tension", "dhoist", "dl", "hoist_drive_torque"])  # fmt: skip
    t, pull = res["time"], hoisting_pull(FALLS)
    assert res["hoist_rope_tension"][-1] == pytest.approx(pull, rel=1e-5)
    last = t > 6.0  # the rope's transient has died out: velocities linear in time
    assert np.polyfit(t[last], res["dhoist"][last], 1)[0] == pytest.approx(ALPHA, rel=1e-5)
    hook = -np.polyfit(t[last], res["dl"][last], 1)[0]
    assert hook == pytest.approx(ALPHA * R * (1 + pull / EA) / FALLS, rel=5e-5)
    assert res["hoist_drive_torque"][-1] == pytest.approx(M * G0 / FALLS * R + hoisting_torque(FALLS), rel=1e-9)


@pytest.mark.parametrize("version, fmi_type", KINDS, ids=IDS)
def test_rope_goes_slack_when_the_payload_is_set_down_through_fmus(build, version, fmi_type):
    res = fmu_simulation(build(37.0, version), 4.0, 0.01, fmi_type=fmi_type, relative_tolerance=1e-10,
                         start_values=_start(fmi_type, tau_hoist=-M * G0 / FALLS * R),
                         output=["hoist_rope_tension", "landing_force", "z_payload"])  # fmt: skip
    tension, ground = res["hoist_rope_tension"], res["landing_force"]
    assert tension.min() == 0.0
    landed = int(np.argmax(ground > 0.0))
    assert 1.0 < res["time"][landed] < 2.0 and tension[: landed - 1].min() > 0.0
    assert np.all(tension[-100:] == 0.0)
    assert ground[-1] == pytest.approx(M * G0, rel=1e-5)
    assert res["z_payload"][-1] == pytest.approx(0.25 - M * G0 / 2e7, abs=1e-5)
