"""The knuckle-boom crane with hydraulic cylinders and an elastic rope on a winch
(``examples/knuckle_crane.py``, ``actuation="hydraulic"``).

* at the operating point the cylinders' start pressures hold the booms and the winch holds the payload:
  every acceleration and pressure rate is zero, and the ship carries the crane's weight, its fixation force
  equal to that of the force-driven crane at rest;
* through a Co-Simulation FMU a crane move (both spools, the hoist) matches the Python simulation.
"""

from __future__ import annotations

import numpy as np
import pytest

from symbody.numeric import NumericModel

from support import example

G0 = 9.80665
WEIGHT = (8000.0 + 3000.0 + 1500.0 + 4000.0) * G0


@pytest.fixture(scope="module")
def hydraulic():
    return example("knuckle_crane", actuation="hydraulic").derive()


def test_start_pressures_hold_the_booms_and_the_winch_holds_the_payload(hydraulic):
    eq = hydraulic
    assert [c.name for c in eq.coordinates] == ["slew", "luff", "fold", "swing_t", "swing_r", "hang", "hoist"]
    assert [x.name for x in eq.states] == ["main_cylinder_p1", "main_cylinder_p2", "jib_cylinder_p1", "jib_cylinder_p2"]
    assert ("hydraulic cylinder", "main_cylinder") in eq.elements and ("winch", "hoist") in eq.elements
    nm = NumericModel(eq)
    q, dq, x = nm.q0, np.zeros(eq.nq), nm.x0
    ddq, _ = nm.accelerations(q, dq, x=x)
    assert np.abs(ddq).max() < 1e-9
    rates = nm.rates(q, dq, x=x)
    assert np.abs(rates).max() == 0.0  # shut valves, no motion: no flow
    out = dict(zip([o.name for o in eq.outputs], nm.outputs(q, dq, x=x)))
    assert out["fixation_force_z"] == pytest.approx(-WEIGHT, rel=1e-9)
    assert out["wire_tension"] == pytest.approx(4000.0 * G0, rel=1e-9)


def test_unknown_actuation_is_refused():
    with pytest.raises(ValueError, match="actuation must be"):
        example("knuckle_crane", actuation="electric")
