"""The importer's tolerance in the Python (pythonfmu) backend's Co-Simulation, as in the C runtime:
``fmi2SetupExperiment``'s tolerance becomes ``solver.rtol`` unless the host set ``solver.rtol`` or
``solver.ignore_external_tolerance``; a model with unilateral contacts holds the event tolerance and names the
importer's tolerance in its logSolver message (docs/reference/fmu-export.md)."""

from __future__ import annotations

import numpy as np
import pytest

from symbody.fmu import export_fmu

from support.contact_models import bouncing_ball
from support.hoist_models import FALL, drop_motion, dropped_on_rope
from support.solver_log import recording

STEP, STEPS = 0.05, 20  # 1 s: three falls onto the rope and three rebounds
HELD = "the solver runs at rtol"


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("python_tolerance")
    return {
        (model, backend): export_fmu(build(), folder / f"{model}_{backend}.fmu", backend=backend, kind="cs")
        for model, build in (("rope", lambda: dropped_on_rope(1)), ("ball", lambda: bouncing_ball(1.0, 0.8, 1.0)))
        for backend in ("python", "c")
    }


def run(fmu, tolerance: float | None, **settings) -> tuple[np.ndarray, list[str]]:
    """The first coordinate at each communication point of 1 s with the importer's ``tolerance`` passed to
    fmi2SetupExperiment and ``settings`` set after it (as fmpy does), and the logSolver messages."""
    s, messages = recording(fmu)
    try:
        s.fmu.setupExperiment(tolerance=tolerance, startTime=0.0)
        s.set(**{"solver.method": 2, **settings})  # dopri5
        s.fmu.enterInitializationMode()
        s.fmu.exitInitializationMode()
        name = next(n for n in ("y", "x") if n in s.vr)
        values = []
        for _ in range(STEPS):
            s.step(STEP)
            values.append(s.get(name)[0])
    finally:
        s.close()
    return np.array(values), messages


@pytest.mark.parametrize("backend", ("python", "c"))
def test_the_importers_tolerance_decides_the_accuracy(fmus, backend):
    """The hook dropped on a slack rope (switching loads only: the importer's tolerance holds) against its closed
    form: at the importer's 1e-7 to 10 rtol times the fall, 1e-3 gives an error a hundred times larger (the
    Python backend ran both at its solver.rtol 1e-6); a solver.rtol the host sets, or
    solver.ignore_external_tolerance, keeps the FMU's own."""
    fmu = fmus[("rope", backend)]
    exact = np.array([drop_motion(STEP * (k + 1)) for k in range(STEPS)])
    error = {tol: np.max(np.abs(run(fmu, tol)[0] - exact)) for tol in (1e-7, 1e-3)}
    assert error[1e-7] < 10 * 1e-7 * FALL and error[1e-3] > 100 * error[1e-7], error
    own, _ = run(fmu, None)
    assert np.array_equal(run(fmu, 1e-3, **{"solver.ignore_external_tolerance": True})[0], own)
    assert np.array_equal(run(fmu, 1e-3, **{"solver.rtol": 1e-9})[0], run(fmu, None, **{"solver.rtol": 1e-9})[0])


@pytest.mark.parametrize("backend", ("python", "c"))
def test_contacts_hold_the_event_tolerance_and_name_the_importers(fmus, backend):
    """The ball at the importer's tolerance 1e-4: the solver runs at rtol 1e-9 and says it once, naming the
    importer's tolerance; at solver.rtol 1e-4 it names that."""
    _, messages = run(fmus[("ball", backend)], 1e-4)
    told = [m for m in messages if HELD in m]
    assert len(told) == 1 and "not at the importer's tolerance 0.0001 and solver.atol" in told[0], told
    _, messages = run(fmus[("ball", backend)], None, **{"solver.rtol": 1e-4})
    told = [m for m in messages if HELD in m]
    assert len(told) == 1 and "not at the solver.rtol 0.0001 and solver.atol" in told[0], told
