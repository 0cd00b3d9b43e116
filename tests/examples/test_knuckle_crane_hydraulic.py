"""The knuckle-boom crane with hydraulic cylinders and an elastic rope on a winch
(``examples/knuckle_crane.py``, ``actuation="hydraulic"``).

* at the operating point the cylinders' start pressures hold the booms and the winch holds the payload:
  every acceleration and pressure rate is zero, and the ship carries the crane's weight, its fixation force
  equal to that of the force-driven crane at rest;
* through a Co-Simulation FMU a crane move (both spools, the hoist) matches the Python simulation.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from symbody.numeric import NumericModel

from support import EXAMPLES, example

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


def test_holding_forces_match_the_numeric_model_at_rest():
    """The start pressures' forces (evaluated from the expressions) zero the luff and fold rows of the
    force-driven crane's equations, as its numeric model evaluates them."""
    from symbody.loader import load_module

    crane = load_module(EXAMPLES / "knuckle_crane.py")
    f_main, f_jib = crane.holding_forces(crane.SLEW0, crane.LUFF0, crane.FOLD0)
    eq = example("knuckle_crane", end_stops=False).derive()
    nm = NumericModel(eq)
    u = np.array([{"F_main": f_main, "F_jib": f_jib}.get(x.name, 0.0) for x in eq.inputs])
    rows = nm.delta(nm.q0, np.zeros(eq.nq), t=0.0, u=u)[1:3]
    assert np.abs(rows).max() < 1e-9 * abs(f_main)


@pytest.mark.slow  # compiles the FMU
def test_export_imports_neither_the_integrators_nor_sympy(tmp_path):
    """Model file to FMU (the export benchmark's command) without SciPy's integrators or SymPy: their imports
    are a second of a few-second export."""
    code = (
        "import sys\nfrom symbody.cli import main\n"
        f"assert main(['export', {str(EXAMPLES / 'knuckle_crane.py')!r}, '--option', 'actuation=hydraulic', '-o', "
        f"{str(tmp_path / 'k.fmu')!r}, '--platforms', 'x86_64-linux']) == 0\n"
        "print(sorted(m for m in ('scipy', 'sympy', 'symbody.numeric') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]", out
