"""Fixed-step rk4 of the FMU runtime says when its result is not trustworthy.

rk4 has no error control: a fixed step that jumps across a singular instant of the forces returned
OK with a state of no meaning.  A point mass falling from rest at ``x0`` into an attracting centre
(``x'' = -k x / |x|^3``) reaches it at ``t_c = (pi / 2) sqrt(x0^3 / (2 k))`` with an infinite speed;
its energy ``x'^2 / 2 - k / |x|`` is conserved before.  The runtime's error estimate (the embedded
third-order solution from rk4's own stages, no extra evaluation) discards the steps that come too
close, with the advice to lower ``solver.step`` or to use an adaptive method, and never a step of
the examples at the usual steps.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from test_robustness_fmu import DISCARD, OK, Instance, Unit

import symbody as sb
from symbody.fmu import export_fmu
from symbody.fmu.testing import cached_fmu, fmu_simulation

ROOT = Path(__file__).resolve().parents[2]


def attracting_centre() -> sb.System:
    s = sb.System("attracting_centre")
    k = s.parameter("k", 1.0, min=0.0)
    x = s.coordinate("x", 1.0)
    s.particle("body", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("attraction", x, -k * x / sb.sqrt(x * x) ** 3)
    return s


@pytest.fixture(scope="module")
def centre_fmus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rk4")
    return {v: export_fmu(attracting_centre(), folder / f"centre{v}.fmu", fmi_version=v, kind="cs") for v in (2, 3)}


# start positions and steps for which the old rk4 stepped across the centre with OK (among others)
@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("x0,step", [(0.92, 1e-3), (1.0, 1e-3), (1.1, 1e-2), (0.8, 1e-2)])
def test_rk4_does_not_step_across_an_attracting_centre(centre_fmus, version, x0, step):
    inst = Instance(Unit.open(centre_fmus[version]), "cs")
    try:
        inst.initialize(**{"solver.method": 1, "x": x0, "solver.step": step})
        t_c = math.pi / 2 * math.sqrt(x0**3 / 2)
        E0, H, k = -1 / x0, 0.01, 0
        while (status := inst.do_step(k * H, H)[0]) == OK:
            k += 1
            x, dx = inst.get("x", "dx")
            assert 0 < x and abs(0.5 * dx**2 - 1 / x - E0) * x < 0.05  # energy, relative to the potential
            assert k * H < 2.0, "stepped across the centre"
        assert status == DISCARD and k * H < t_c, (status, k * H, t_c)
        text = inst.text()
        assert "not trustworthy" in text and "solver.step" in text and "dopri5" in text, text[-2000:]
        assert inst.get("time")[0] == pytest.approx(k * H)  # the state kept at the start of the step
    finally:
        inst.free()


def test_dopri5_resolves_the_fall_to_close_to_the_centre(centre_fmus):
    """The advice holds: the adaptive method follows the fall to within milliseconds of the collision."""
    r = fmu_simulation(centre_fmus[2], 2.0, 0.01, start_values={"solver.method": 2, "solver.rtol": 1e-8})
    t_c = math.pi / 2 * math.sqrt(1 / 2)
    assert t_c - 0.01 < r["time"][-1] < t_c
    E = 0.5 * r["dx"] ** 2 - 1 / np.abs(r["x"])
    assert np.max(np.abs(E - E[0]) * np.abs(r["x"])) < 1e-5


@pytest.mark.parametrize("example", ["slider_crank.py", "four_bar.py", "n_link_pendulum_on_cart.py"])
@pytest.mark.parametrize("step", [1e-3, 1e-2])
def test_rk4_error_estimate_raises_no_false_alarm_on_the_examples(example, step):
    fmu = cached_fmu(str(ROOT / "examples" / example), 2, "cs")
    r = fmu_simulation(fmu, 10.0, 0.01, start_values={"solver.method": 1, "solver.step": step})
    assert r["time"][-1] == pytest.approx(10.0)
