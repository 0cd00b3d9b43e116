"""FMUs of small unconstrained models whose accelerations ``model.c`` gives in closed form (symbolic
elimination, ``sb_accelerations_direct``): the planar overhead crane.

* rk4 in Co-Simulation (FMI 2 and 3) follows the motion that numpy's solve of ``M`` and ``delta``
  gives (``symbody.numeric``), and the FMU's accelerations read after a step equal the closed form a
  person writes by hand;
* a communication step starts from the accelerations of the last one's final check when nothing was
  set since (an input set to the value it holds changes nothing): the states are bit for bit those of a
  run that sets an input to another value and back before every step (which forces the evaluation);
* where the closed form does not hold (a rope of length zero: ``M`` singular, a pivot zero) the FMU
  falls back on its factorization and reports the singular mass matrix instead of a number.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from test_robustness_fmu import DISCARD, ERROR, OK, Instance, Unit

from symbody.fmu import export_fmu
from symbody.fmu.testing import max_relative_error, reference_simulation

from support import example

STATES = ("x", "l", "theta", "dx", "dl", "dtheta")


@pytest.fixture(scope="module", params=[2, 3])
def crane(request, tmp_path_factory):
    eq = example("overhead_crane").derive()
    assert eq.accelerations_method == "symbolic elimination"
    fmu = export_fmu(eq, tmp_path_factory.mktemp("crane") / f"crane{request.param}.fmu", fmi_version=request.param,
                     kind="cs")  # fmt: skip
    return eq, Unit.open(fmu)


def run(unit, steps: int, push: float, sets: tuple[float, ...] = ()) -> np.ndarray:
    """rk4 at 1 ms through ``steps`` communication steps of 10 ms, F_trolley = push; the states after each.
    ``sets``: values F_trolley is set to, in order, before every step (the last one ``push``)."""
    inst = Instance(unit, "cs")
    try:
        inst.initialize(**{"solver.method": 1, "solver.step": 1e-3, "F_trolley": push})
        out = []
        for k in range(steps):
            for value in sets:
                assert inst.set("F_trolley", value) == OK
            assert inst.do_step(k * 0.01, 0.01)[0] == OK, inst.text()
            out.append(inst.get(*STATES))
        return np.array(out)
    finally:
        inst.free()


def test_rk4_follows_the_motion_and_reads_the_closed_form(crane):
    eq, unit = crane
    assert "    .has_direct = 1," in Path(unit.directory, "sources", "model.c").read_text()
    states = run(unit, 100, 5000.0)
    t = np.arange(0.0, 1.0 + 1e-9, 0.01)
    u = [5000.0, eq.inputs[1].value]
    ref = reference_simulation(eq, t, list(eq.q0), list(eq.dq0), u=u)
    for j, name in enumerate(STATES):
        assert max_relative_error(states[:, j], ref[name][1:]) < 1e-7, name
    # the trolley accelerates and the payload lags behind: a sign error in the coupling would not
    assert states[-1, 0] > 0.1 and states[-1, 2] < -1e-3


def test_a_step_starts_from_the_last_checks_accelerations_bit_for_bit(crane):
    _, unit = crane
    reused = run(unit, 60, 8000.0)
    # a master that sets its input to the value it holds before every step (nothing changes: reused too)
    same = run(unit, 60, 8000.0, sets=(8000.0,))
    # another value and back: the FMU forgets what it knew of the state and evaluates the first stage
    evaluated = run(unit, 60, 8000.0, sets=(7999.0, 8000.0))
    assert np.array_equal(reused, same) and np.array_equal(reused, evaluated)


def test_the_accelerations_read_are_the_hand_written_closed_form(crane):
    eq, unit = crane
    inst = Instance(unit, "cs")
    try:
        inst.initialize(**{"solver.method": 1, "solver.step": 1e-3, "F_trolley": 3000.0})
        for k in range(30):
            assert inst.do_step(k * 0.01, 0.01)[0] == OK
        x, l, th, dx, dl, dth = inst.get(*STATES)
        p = {q.name: q.value for q in eq.parameters}
        mt, mp, mw, g = p["m_trolley"], p["m_payload"], p["m_winch"], p["g"]
        s, c = math.sin(th), math.cos(th)
        d_x = 3000.0 - p["b_x"] * dx - 2 * mp * c * dl * dth + mp * l * s * dth**2
        d_l = -eq.inputs[1].value - p["b_l"] * dl + mp * l * dth**2 + mp * g * c
        d_th = -p["c_theta"] * dth - 2 * mp * l * dl * dth - mp * g * l * s
        ddx = (d_x - mp * s * d_l / (mp + mw) - c * d_th / l) / (mt + mp * s * s * mw / (mp + mw))
        expected = [ddx, (d_l - mp * s * ddx) / (mp + mw), (d_th - mp * l * c * ddx) / (mp * l * l)]
        assert inst.get("ddx", "ddl", "ddtheta") == pytest.approx(expected, rel=1e-11, abs=1e-12)
    finally:
        inst.free()


def test_a_singular_mass_matrix_is_reported_not_computed(crane):
    _, unit = crane
    inst = Instance(unit, "cs")
    try:
        assert inst.enter_initialization() == OK
        assert inst.set("l", 0.0) == OK  # the payload at the trolley: M(theta, theta) = m_payload l^2 = 0
        status = inst.exit_initialization()
        if status == OK:
            status = inst.do_step(0.0, 0.01)[0]
        assert status in (DISCARD, ERROR)
        assert "singular mass matrix" in inst.text() and "theta" in inst.text(), inst.text()
    finally:
        inst.free()
