"""The tower crane's reeved hook on a hoist winch (``examples/tower_crane.py``, ``falls=2`` or ``4``), against
closed forms, through ``symbody.numeric`` and FMI 2 and 3 FMUs (Co-Simulation and Model Exchange).

With ``W = (m_payload + m_hook) g`` the hook load, ``n`` the falls, ``EA`` the rope's axial stiffness, ``L0``
its unstretched length, ``r`` and ``J`` the drum's radius and inertia:

* at rest the line pull is ``W / n`` and the drum torque ``W r / n``;
* the hook load oscillates on the rope at ``w^2 = (EA / L0) (n^2 / m + (1 + T / EA) r^2 / J)`` (the hook and
  the drum in series on the rope; the drum's term carries the stretch of the rope it winds on: a tension
  ``T = EA (L - L0) / L0`` with ``L0 = L0(0) - r phi``), ``n^2 EA / (L0 m)`` with the drum held;
* at constant drum acceleration ``alpha`` the stretch of the rope wound on is ``T / EA``: the hook rises at
  ``a = alpha r (1 + T / EA) / n`` and ``n T = m (g + a)``, so ``T = m (g + alpha r / n) / (n - m alpha r /
  (n EA))``, the drive torque ``T r + J alpha``;
* lowered onto the ground with the drum free, the rope goes slack (its tension exactly zero, never
  negative) and the ground carries ``W``.
"""

from __future__ import annotations

import numpy as np
import pytest

import symbody as sb
from symbody.cli import main
from symbody.numeric import NumericModel, linearize, simulate

from support import EXAMPLES, example
from support.tower_hoist import ALPHA, EA, G0, J, M, R, hoisting_pull, hoisting_torque, unstretched


@pytest.fixture(scope="module", params=[2, 4], ids=["2falls", "4falls"])
def reeved(request):
    return request.param, example("tower_crane", falls=request.param).derive()


def test_line_pull_is_the_hook_load_over_the_falls_at_rest(reeved):
    falls, eq = reeved
    assert [c.name for c in eq.coordinates] == ["theta", "r", "l", "beta_r", "beta_t", "gamma", "hoist"]
    assert ("rope", "hoist_rope") in eq.elements and ("winch", "hoist") in eq.elements
    nm = NumericModel(eq)
    q, dq = nm.q0, np.zeros(eq.nq)
    ddq, _ = nm.accelerations(q, dq)
    assert np.abs(ddq).max() < 1e-9
    out = dict(zip([o.name for o in eq.outputs], nm.outputs(q, dq)))
    assert out["hoist_rope_tension"] == pytest.approx(M * G0 / falls, rel=1e-12)
    assert out["hook_load"] == pytest.approx(M * G0, rel=1e-12)
    assert out["hoist_drive_torque"] == pytest.approx(M * G0 / falls * R, rel=1e-12)
    assert out["hoist_rope_length"] - out["hoist_rope_stretch"] == pytest.approx(unstretched(falls), rel=1e-12)
    assert out["landing_force"] == 0.0


@pytest.mark.parametrize("drum", [J, 1e9], ids=["drum", "drum_held"])
def test_hook_load_oscillates_on_the_stiffness_of_the_falls(reeved, drum):
    falls, eq = reeved
    lin = linearize(eq, p={"c_rope": 0.0, "J_drum": drum})
    w = np.abs(np.linalg.eigvals(lin.A).imag).max()
    k_hook = falls**2 * EA / unstretched(falls)
    pull = M * G0 / falls
    expected = np.sqrt(k_hook / M + (1 + pull / EA) * R**2 * EA / unstretched(falls) / drum)
    assert w == pytest.approx(expected, rel=1e-7)
    if drum > 1e6:
        assert w == pytest.approx(np.sqrt(k_hook / M), rel=1e-6)


def test_constant_drum_acceleration_hoists_with_the_exact_kinematics_of_the_falls(reeved):
    falls, eq = reeved
    res = simulate(eq, 8.0, dt=0.05, inputs={"tau_hoist": hoisting_torque(falls)}, p={"c_rope": 1e4},
                   rtol=1e-10, atol=1e-12)  # fmt: skip
    pull = hoisting_pull(falls)
    assert res["hoist_rope_tension"][-1] == pytest.approx(pull, rel=1e-6)
    assert res["ddhoist"][-1] == pytest.approx(ALPHA, rel=1e-5)
    # the hook rises at alpha r (1 + T / EA) / n: without the wound-on stretch it would be off by T / EA
    assert -res["ddl"][-1] == pytest.approx(ALPHA * R * (1 + pull / EA) / falls, rel=2e-5)
    assert res["hoist_drive_torque"][-1] == pytest.approx(M * G0 / falls * R + hoisting_torque(falls), rel=1e-12)
    assert np.abs(res["beta_r"]).max() < 1e-9 and np.abs(res["r"] - 25.0).max() < 1e-9  # hoisting only


def test_rope_goes_slack_when_the_payload_is_set_down():
    falls, l0 = 2, 37.0  # the payload starts 3 m above the ground
    eq = example("tower_crane", falls=falls, l0=l0).derive()
    res = simulate(eq, 4.0, dt=0.01, inputs={"tau_hoist": -M * G0 / falls * R}, rtol=1e-10, atol=1e-12)
    tension, ground = res["hoist_rope_tension"], res["landing_force"]
    assert tension.min() == 0.0  # never negative
    landed = np.argmax(ground > 0.0)
    assert 1.0 < res.t[landed] < 2.0 and tension[: landed - 1].min() > 0.0
    assert np.all(tension[-100:] == 0.0)  # slack while the free drum pays out
    assert ground[-1] == pytest.approx(M * G0, rel=1e-6)
    assert res["z_payload"][-1] == pytest.approx(0.25 - M * G0 / 2e7, abs=1e-6)
    assert any(e.kind == "switch" and "l_lead" in e.name for e in res.events)  # the slack located as an event


def test_falls_are_two_or_four_without_the_rigid_hoist_or_the_flexible_crane():
    with pytest.raises(sb.ModelError, match="falls must be 2 or 4"):
        example("tower_crane", falls=3)
    with pytest.raises(sb.ModelError, match="falls must be 2 or 4"):
        example("tower_crane", falls=2, hoist=True)
    with pytest.raises(sb.ModelError, match="not available with flexible=True"):
        example("tower_crane", falls=2, flexible=True)


def test_info_names_the_rope_the_winch_and_the_landing(capsys):
    assert main(["info", str(EXAMPLES / "tower_crane.py"), "--option", "falls=4"]) == 0
    out = capsys.readouterr().out
    assert "tower_crane_winch4" in out and "(theta, r, l, beta_r, beta_t, gamma, hoist)" in out
    assert "elements     3 (rope hoist_rope, winch hoist, buffer landing)" in out, out
