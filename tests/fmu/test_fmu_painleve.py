"""Sliding Coulomb friction whose normal force depends on the friction (a rod sliding on its end): the slip
forces are solved for, up to the Painleve limit, in symbody.numeric and in the native FMUs; beyond the limit
both say so.  (A fixed-point iteration on the normal force gave up above mu = 1.4, where the problem is well
posed up to 2.502.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

from symbody.errors import NumericalError
from symbody.fmu import export_fmu
from symbody.fmu.testing import fmu_simulation
from symbody.numeric import NumericModel
from symbody.numeric.contact_dynamics import ContactDynamics
from symbody.numeric.inputs import input_function

from support.friction_models import painleve_normal, painleve_rod

LIMIT = (1 + 3 * math.cos(math.radians(30)) ** 2) / (3 * math.sin(math.radians(30)) * math.cos(math.radians(30)))


def numeric_normal(mu: float, s: float) -> float:
    eq = painleve_rod(mu, s).derive()
    cd = ContactDynamics(NumericModel(eq), input_function(eq, None), (1.0, 10.0), False, 1e-10)
    cd.closed[:] = True
    cd.slip[:] = s
    return float(cd.accelerations(0.0, np.array(eq.q0), np.array(eq.dq0), np.zeros(0)).contact[0])


@pytest.mark.parametrize("s", (1.0, -1.0))
@pytest.mark.parametrize("mu", (0.5, 1.5, 2.0, 2.4))
def test_numeric_sliding_rod_normal_force(mu, s):
    assert numeric_normal(mu, s) == pytest.approx(painleve_normal(mu, s), rel=1e-10)


def test_numeric_beyond_the_painleve_limit_says_so():
    assert LIMIT == pytest.approx(2.50185, abs=1e-5)
    with pytest.raises(NumericalError, match=r"friction 'slide' sliding: mu = 3 is beyond the Painleve limit 2\.502"):
        numeric_normal(3.0, -1.0)
    assert numeric_normal(3.0, 1.0) == pytest.approx(painleve_normal(3.0, 1.0), rel=1e-10)  # the other way: fine


@pytest.mark.parametrize("version, kind", [(2, "cs"), (3, "me")])
@pytest.mark.parametrize("s", (1.0, -1.0))
def test_fmu_sliding_rod_normal_force(tmp_path, version, kind, s):
    """The force on the floor at the start (the modes resolved at ExitInitializationMode), mu from 0.5 to 2.4."""
    fmu = export_fmu(painleve_rod(1.0, s), tmp_path / f"rod{version}{kind}.fmu", fmi_version=version, kind=kind)
    fmi_type = "ModelExchange" if kind == "me" else "CoSimulation"
    for mu in (0.5, 1.5, 2.0, 2.4):
        res = fmu_simulation(fmu, 1e-3, 1e-3, fmi_type=fmi_type, start_values={"mu_s": mu, "mu": mu}, output=["N"])
        assert res["N"][0] == pytest.approx(painleve_normal(mu, s), rel=1e-9), mu


@pytest.mark.parametrize("version", (2, 3))
def test_fmu_beyond_the_painleve_limit_says_so(tmp_path, version):
    fmu = export_fmu(painleve_rod(3.0, -1.0), tmp_path / f"rod{version}.fmu", fmi_version=version, kind="cs")
    log: list[str] = []
    with pytest.raises(Exception, match="ExitInitializationMode|error"):
        fmu_simulation(fmu, 0.01, 0.01, logger=lambda *a: log.append(a[-1].decode()))
    assert any("friction 'slide' sliding at t = 0: mu = 3 is beyond the Painleve limit 2.502" in m for m in log), log


@pytest.mark.parametrize("s", (1.0, -1.0))
def test_numeric_simulation_starts_sliding_on_the_floor(s):
    """The contact closes at the start with the friction sliding (the force problem of the contacts held the
    friction element that was still sticking: the rod took an impact 3e-5 s later)."""
    from symbody.numeric import simulate

    res = simulate(painleve_rod(1.5, s).derive(), 0.01, dt=0.005)
    assert res["floor"][0] == pytest.approx(painleve_normal(1.5, s), rel=1e-9)
    assert [e.kind for e in res.events if e.name == "floor"] == ["close"]
