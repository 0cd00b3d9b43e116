"""The pythonfmu backend: same variables and trajectories as the native FMU."""

from __future__ import annotations

from pathlib import Path

import fmpy
import pytest
from fmpy.validation import validate_fmu

from symbody import ExportError
from symbody.fmu import export_fmu
from symbody.fmu.testing import cached_equations, cached_fmu, fmu_simulation, max_relative_error

ROOT = Path(__file__).resolve().parents[1]
MODELS = [str(ROOT / "examples" / f"{m}.py") for m in ("four_bar", "n_link_pendulum_on_cart")]


@pytest.mark.parametrize("model", MODELS, ids=lambda p: Path(p).stem)
def test_python_fmu_validates_and_matches_native(model):
    eq = cached_equations(model)
    py = cached_fmu(model, 2, "cs", "python")
    c = cached_fmu(model, 2, "cs")
    assert validate_fmu(str(py)) == []
    md_py, md_c = fmpy.read_model_description(str(py)), fmpy.read_model_description(str(c))
    assert [(v.name, v.valueReference) for v in md_py.modelVariables] == [
        (v.name, v.valueReference) for v in md_c.modelVariables
    ]
    assert md_py.coSimulation.needsExecutionTool and not md_py.coSimulation.canGetAndSetFMUstate
    u = {x.name: 0.4 * (i + 1) for i, x in enumerate(eq.inputs)}
    for method in (1, 2, 3):
        sv = dict(u, **{"solver.method": method, "solver.rtol": 1e-9, "solver.atol": 1e-11})
        a = fmu_simulation(py, 0.5, 0.05, start_values=sv)
        b = fmu_simulation(c, 0.5, 0.05, start_values=sv)
        for name in b:
            assert max_relative_error(a[name], b[name]) < 1e-8, (method, name)


def test_python_backend_options_are_checked(tmp_path):
    eq = cached_equations(MODELS[0])
    with pytest.raises(ExportError, match="Co-Simulation"):
        export_fmu(eq, tmp_path / "x.fmu", backend="python", kind="me")
    with pytest.raises(ExportError, match="FMI 2.0"):
        export_fmu(eq, tmp_path / "x.fmu", backend="python", fmi_version=3)
    with pytest.raises(ExportError, match="backend"):
        export_fmu(eq, tmp_path / "x.fmu", backend="fortran")
    assert not (tmp_path / "x.fmu").exists()
