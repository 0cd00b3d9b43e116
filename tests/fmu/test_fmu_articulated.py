"""FMUs of trees whose accelerations come from the articulated-body algorithm (``sb_accelerations_direct``).

A 3-D chain of two bodies and the 5-link pendulum on a cart derived with ``formulation="articulated"``
run by fmpy: Co-Simulation with dopri5 and rosenbrock23 (its state Jacobian factors ``M`` between the
direct evaluations of the accelerations) and Model Exchange with CVode, against
:func:`symbody.numeric.simulate` of the same equations (``M`` and ``delta``, solved by numpy).
"""

from __future__ import annotations

import numpy as np
import pytest

from symbody.fmu import export_fmu
from symbody.fmu.testing import fmu_simulation, max_relative_error, reference_simulation

from support import example
from support.trees import chain_3d

STOP, INTERVAL = 1.0, 0.05


@pytest.fixture(scope="module", params=["chain", "n-link"])
def articulated_fmu(request, tmp_path_factory):
    system = chain_3d(2) if request.param == "chain" else example("n_link_pendulum_on_cart", n=5)
    eq = system.derive(formulation="articulated")
    assert eq.formulation == "articulated"
    fmu = export_fmu(eq, tmp_path_factory.mktemp("aba") / f"{eq.name}.fmu", fmi_version=2, kind="both")
    t = np.arange(0.0, STOP + INTERVAL / 2, INTERVAL)
    return eq, fmu, reference_simulation(eq, t, list(eq.q0), list(eq.dq0), u=list(eq.u0))


@pytest.mark.slow  # exports two FMUs
@pytest.mark.parametrize(
    ("fmi_type", "settings"),
    [
        ("CoSimulation", {"solver.method": 2, "solver.rtol": 1e-10, "solver.atol": 1e-10}),
        ("CoSimulation", {"solver.method": 3, "solver.rtol": 1e-9, "solver.atol": 1e-9}),
        ("ModelExchange", {}),
    ],
    ids=["dopri5", "rosenbrock23", "me-cvode"],
)
def test_articulated_fmu_follows_the_reference(articulated_fmu, fmi_type, settings):
    eq, fmu, ref = articulated_fmu
    res = fmu_simulation(fmu, STOP, INTERVAL, fmi_type=fmi_type, start_values=settings, relative_tolerance=1e-9)
    tolerance = 1e-4 if settings.get("solver.method") == 3 else 1e-6  # rosenbrock23: order 2
    for c in eq.coordinates:
        assert max_relative_error(res[c.name], ref[c.name]) < tolerance, c.name
        assert max_relative_error(res[c.dq.name], ref[c.dq.name]) < 10 * tolerance, c.dq.name
