"""The knuckle-boom crane on a ship (``examples/knuckle_crane.py``) and its co-simulation script.

* statics by hand: at rest in calm water the ship carries the crane's weight, and the fixation torque is the
  moment of the bodies' weights about the pedestal foot, from the booms' geometry written out here;
* a heaving ship adds its acceleration to gravity in the fixation force (Newton on the whole crane);
* the end stops catch the booms when the cylinders let go;
* ``examples/crane_control/ship_crane_cosim.py``: the anti-sway LQR leaves under a third of the open
  loop's RMS sway, its loop is damped, and libcosim and fmpy run the same closed loop.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from symbody.numeric import NumericModel, inverse_dynamics, simulate

from support import ROOT, example

G0 = 9.80665
MASSES = {"column": 8000.0, "boom": 3000.0, "jib": 1500.0, "payload": 4000.0}


def _centres(slew: float, luff: float, fold: float) -> dict[str, np.ndarray]:
    """Centres of mass relative to the pedestal foot, level deck (the example's default dimensions)."""
    heading = np.array([math.cos(slew), math.sin(slew), 0.0])
    up = np.array([0.0, 0.0, 1.0])

    def along(angle: float, length: float) -> np.ndarray:
        return length * (math.cos(angle) * heading + math.sin(angle) * up)

    pivot = 0.8 * heading + 4.0 * up
    knuckle = pivot + along(luff, 12.0)
    tip = knuckle + along(luff + fold, 8.0)
    return {
        "column": 2.0 * up,
        "boom": pivot + along(luff, 6.0),
        "jib": knuckle + along(luff + fold, 4.0),
        "payload": tip - 6.0 * up,
    }


def _outputs(eq, q, dq, u, ddq):
    return dict(zip([o.name for o in eq.outputs], NumericModel(eq).outputs(q, dq, t=0.0, u=u, ddq=ddq)))


def _holding(eq, q):
    inv = inverse_dynamics(
        eq, [0.0], [q], [np.zeros(eq.nq)], [np.zeros(eq.nq)], actuators=["tau_slew", "F_main", "F_jib"]
    )
    return inv.u[0]


@pytest.mark.parametrize("slew, luff, fold", [(-math.pi / 2, 0.6, -1.0), (0.4, 0.9, -1.6)])
def test_at_rest_the_ship_carries_the_weight_and_its_moment(slew, luff, fold):
    eq = example("knuckle_crane", slew0=slew, luff0=luff, fold0=fold).derive()
    q = np.array([slew, luff, fold, 0.0, 0.0])
    u = _holding(eq, q)
    y = _outputs(eq, q, np.zeros(5), u, np.zeros(5))
    total = sum(MASSES.values())
    force = np.array([y[f"fixation_force_{a}"] for a in "xyz"])
    assert force == pytest.approx([0.0, 0.0, -total * G0], abs=1e-6 * total * G0)
    moment = sum(
        np.cross(r, [0.0, 0.0, -m * G0]) for (name, m), r in zip(MASSES.items(), _centres(slew, luff, fold).values())
    )
    torque = np.array([y[f"fixation_torque_{a}"] for a in "xyz"])
    assert torque == pytest.approx(moment, abs=1e-6 * np.abs(moment).max())
    payload = np.array([y[f"payload_{a}"] for a in "xyz"])
    foot = np.array([-12.0, -5.0, 4.0])
    assert payload == pytest.approx(foot + _centres(slew, luff, fold)["payload"], abs=1e-12)


def test_a_heaving_ship_adds_its_acceleration_to_gravity():
    eq = example("knuckle_crane").derive()
    q = eq.q0
    u_hold = _holding(eq, q)
    u = u_hold.copy()
    names = [i.name for i in eq.inputs]
    u[names.index("ddheave")] = 1.5  # the deck accelerates upwards
    ddq, _ = NumericModel(eq).accelerations(q, np.zeros(5), t=0.0, u=u)
    # the crane moves rigidly with the deck when the drives add the same share of the new load: check Newton
    # on the whole crane with the accelerations the model gives (the booms and the payload move relative to it)
    y = _outputs(eq, q, np.zeros(5), u, ddq)
    assert y["fixation_force_z"] < -sum(MASSES.values()) * G0  # heavier than at rest
    rigid = inverse_dynamics(eq, [0.0], [q], [np.zeros(5)], [np.zeros(5)], actuators=["tau_slew", "F_main", "F_jib"],
                             u=u)  # fmt: skip
    y = _outputs(eq, q, np.zeros(5), rigid.u[0], np.zeros(5))
    assert y["fixation_force_z"] == pytest.approx(-sum(MASSES.values()) * (G0 + 1.5), rel=1e-9)
    assert rigid.u[0][names.index("F_main")] == pytest.approx(u_hold[names.index("F_main")] * (G0 + 1.5) / G0, rel=1e-9)


def test_end_stops_catch_the_booms_when_the_cylinders_let_go():
    eq = example("knuckle_crane").derive()
    res = simulate(eq, 3.0, dt=0.5, rtol=1e-8, atol=1e-10)  # no cylinder force: the booms fall
    kinds = {(e.name, e.kind) for e in res.events}
    assert ("stop_luff_min", "impact") in kinds or ("stop_fold_min", "impact") in kinds
    assert res["luff"].min() >= -0.1 - 1e-6 and res["fold"].min() >= -2.6 - 1e-6


@pytest.fixture(scope="module")
def cosim(tmp_path_factory):
    sys.path.insert(0, str(ROOT / "examples" / "crane_control"))
    import ship_crane_cosim

    return ship_crane_cosim.main([str(tmp_path_factory.mktemp("ship")), "--duration", "40"])


def test_the_anti_sway_loop_damps_the_sway_the_ship_excites(cosim):
    assert cosim["ratio"] < 0.35
    assert cosim["design"].swing_damping > 0.5
    lqr = cosim["runs"]["LQR"]
    assert np.degrees(np.hypot(lqr["sway_t"], lqr["sway_r"])).max() < 2.0
    assert cosim["plot"].is_file()


def test_libcosim_and_fmpy_run_the_same_closed_loop(cosim):
    pytest.importorskip("libcosimpy")
    fmpy_run, libcosim_run = cosim["runs"]["LQR"], cosim["libcosim"]
    for name in ("luff", "fold", "sway_t", "sway_r", "fixation_torque_x"):
        scale = max(1.0, float(np.abs(fmpy_run[name]).max()))
        assert libcosim_run[name] == pytest.approx(fmpy_run[name][1:], abs=1e-6 * scale), name
