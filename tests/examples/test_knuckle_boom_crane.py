"""The knuckle-boom crane of examples/knuckle_boom_crane.py (nine degrees of freedom, four boom end stops) runs
through 60 s of ship motion and cylinder commands from a CSV file: in Co-Simulation with every embedded solver,
and in Model Exchange under fmpy's CVode at rtol 1e-6 with no more than twice the derivative evaluations of the
same crane without end stops (it used to need 11 times as many and give up before a stop was reached)."""

from __future__ import annotations

import numpy as np
import pytest

from symbody.fmu import export_fmu
from symbody.fmu.testing import fmu_simulation

from support import EXAMPLES, example
from support.masters import SOLVERS, cvode_with_inputs

LIMITS = {"luff": (-0.2, 1.3), "knuckle": (-2.4, -0.3)}
STOPS = ("luff_low", "luff_high", "knuckle_low", "knuckle_high")


@pytest.fixture(scope="module")
def crane(tmp_path_factory):
    import sys

    sys.path.insert(0, str(EXAMPLES))
    import knuckle_boom_crane

    folder = tmp_path_factory.mktemp("knuckle")
    knuckle_boom_crane.ship_motion(folder / "ship.csv")
    data = np.genfromtxt(folder / "ship.csv", delimiter=",", names=True)
    fmus = {
        (v, stops): export_fmu(example("knuckle_boom_crane", end_stops=stops), folder / f"kb{v}{stops}.fmu",
                               fmi_version=v, kind="both")
        for v in (2, 3) for stops in (True, False)
    }  # fmt: skip
    return fmus, data


def within_the_stops(res, tol: float) -> None:
    for name, (low, high) in LIMITS.items():
        assert low - tol <= res[name].min() and res[name].max() <= high + tol, name


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize(
    "method",
    ["rk4", "dopri5", pytest.param("rosenbrock23", marks=pytest.mark.slow)],  # (40 s at rtol 1e-9)
)
def test_co_simulation_through_the_end_stop_impacts(crane, version, method):
    fmus, data = crane
    log: list[str] = []
    res = fmu_simulation(fmus[version, True], 60.0, 0.05, input=data, start_values={"solver.method": SOLVERS[method]},
                         output=["luff", "knuckle"], logger=lambda *a: log.append(a[-1].decode()), debug_logging=True)  # fmt: skip
    assert res["time"][-1] == pytest.approx(60.0)
    hit = {name for m in log if "impact of contact" in m for name in STOPS if f"'{name}'" in m}
    assert hit == set(STOPS)
    within_the_stops(res, 1e-8)


@pytest.mark.parametrize("version", (2, 3))
def test_model_exchange_under_cvode_costs_at_most_twice_the_crane_without_stops(crane, version):
    fmus, data = crane
    stops = cvode_with_inputs(fmus[version, True], 60.0, 1e-6, ["luff", "knuckle"], data)
    free = cvode_with_inputs(fmus[version, False], 60.0, 1e-6, ["luff", "knuckle"], data)
    assert len(stops.events) >= 4 and not free.events
    within_the_stops(stops, 1e-8)
    assert stops.derivative_calls <= 2 * free.derivative_calls, (stops.derivative_calls, free.derivative_calls)
