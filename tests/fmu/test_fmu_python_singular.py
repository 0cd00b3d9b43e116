"""The pythonfmu backend at singular positions, and with values that ``Set`` must refuse.

pythonfmu 0.7 calls the slave's ``set_real`` and ``get_real`` from its C++ wrapper and ignores
what they return: ``fmi2SetReal`` and ``fmi2GetReal`` return ``fmi2OK`` unless the Python call
raises, and then the wrapper frees the slave (``handle_py_exception`` -> ``cleanPyObject``) and
returns ``fmi2Fatal``.  So the Python FMU refuses a value by not storing it, logging an error and
discarding every step until a valid value is set, and flags an undetermined reaction by a warning
in the log (the C FMU returns ``fmi2Error`` and ``fmi2Warning``).  Each scenario runs in a fresh
Python process (pythonfmu keeps process-wide state, see test_fmu_python).
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
import test_singular_positions as sp
from test_fmu_python import DISCARD, ERROR, OK, WARNING, _Slave

from symbody.fmu.testing import cached_fmu


def _fmu(a10: float = sp.A10) -> Path:
    return cached_fmu(sp.SLIDER_CRANK, 2, "cs", "python", (("a10", a10),))


def _isolated(scenario: str) -> None:
    here = Path(__file__).resolve().parent  # and tests/, for the helper package support
    code = f"import sys; sys.path[:0] = {[str(here), str(here.parent)]!r}; import {Path(__file__).stem} as m; m.{scenario}()"
    code += "; import os; sys.stdout.flush(); sys.stderr.flush(); os._exit(0)"  # see fmu-guarantees: pythonfmu at exit
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{scenario}\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"


def _scenario_undetermined_reaction_is_logged_as_a_warning():
    """Started at the dead point, the guide force is not determined: reading it logs a warning naming the
    output and returns the filtered minimum-norm value 0; a step later it is determined and exact."""
    slave = _Slave(_fmu())
    try:
        assert slave.initialize() == OK, slave.text()
        assert abs(slave.get("N")) < 1e-12
        assert any(s == WARNING and "'N'" in m and "not determine" in m for s, m in slave.messages), slave.text()
        count = len(slave.messages)
        assert slave.call("DoStep", 0.0, 0.1, 0) == OK, slave.text()
        a, da, dda = sp.slider_crank_reference([0.0, 0.1])
        assert abs(slave.get("N") - sp.guide_force(a[1], da[1], dda[1])) < 1e-5
        assert not any(s == WARNING for s, _ in slave.messages[count:]), slave.text()
    finally:
        slave.free()


@pytest.mark.slow  # long: with --slow (CI)
def test_python_fmu_logs_a_warning_for_an_undetermined_reaction():
    _isolated(_scenario_undetermined_reaction_is_logged_as_a_warning.__name__)


def _scenario_values_refused_in_initialization_mode():
    """NaN, infinite and out-of-range values set in initialization mode are not stored: an error names each
    variable, ExitInitializationMode and SetReal still return fmi2OK (all pythonfmu can return), every step
    is discarded with the reason until valid values are set, then the FMU steps again."""
    slave = _Slave(_fmu(1.2))
    try:
        assert slave.call("SetupExperiment", 0, 0.0, 0.0, 0, 0.0) == OK
        assert slave.call("EnterInitializationMode") == OK
        for name, bad in (("m3", math.nan), ("L", math.inf), ("m1", -1.0)):
            assert slave.set(name, bad) == OK  # the only status pythonfmu's SetReal returns without Fatal
            assert any(s == ERROR and f"'{name}'" in m for s, m in slave.messages), (name, slave.text())
        assert slave.call("ExitInitializationMode") == OK, slave.text()
        assert [slave.get(n) for n in ("m3", "L", "m1")] == [2.0, 1.0, 1.0]  # the refused values were not stored
        assert slave.call("DoStep", 0.0, 0.01, 0) == DISCARD
        assert slave.get("time") == 0.0 and "m3" in slave.text()
        for name, good in (("m3", 2.0), ("L", 1.0)):
            assert slave.set(name, good) == OK
        assert slave.call("DoStep", 0.0, 0.01, 0) == DISCARD  # m1 is still refused
        assert slave.set("m1", 1.0) == OK
        assert slave.call("DoStep", 0.0, 0.01, 0) == OK, slave.text()
    finally:
        slave.free()


@pytest.mark.slow  # long: with --slow (CI)
def test_python_fmu_refuses_values_set_in_initialization_mode():
    _isolated(_scenario_values_refused_in_initialization_mode.__name__)
