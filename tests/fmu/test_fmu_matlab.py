"""``--with-matlab``: the model's ``.m`` functions inside the FMU, where FMI lets them travel.

FMI 3 reserves ``extra/`` for such data, in a folder named by a reverse domain name
(``extra/org.symbody.matlab/``); FMI 2 has no such folder and gets them in ``documentation/matlab/``
with ``documentation/index.html``.  They are never in ``sources/`` (an importer would compile what is
there), the FMU stays valid (fmpy's ``validate_fmu``) and simulates as before, and the files are the
ones ``symbody export --format matlab`` writes.
"""

from __future__ import annotations

import zipfile

import pytest
from fmpy.validation import validate_fmu

from symbody.cli import main
from symbody.codegen.matlab_model import MatlabExport
from symbody.fmu import export_fmu
from symbody.fmu.testing import fmu_simulation

from support import example
from support.octave import needs_octave, print_line, read_values, run_octave


@pytest.mark.parametrize(("fmi", "folder"), [(3, "extra/org.symbody.matlab"), (2, "documentation/matlab")])
def test_the_functions_travel_with_the_fmu(tmp_path, fmi, folder):
    eq = example("four_bar").derive()
    fmu = export_fmu(eq, tmp_path / "fb.fmu", fmi_version=fmi, kind="both", with_matlab=True)
    files = MatlabExport(eq).files
    with zipfile.ZipFile(fmu) as zf:
        names = zf.namelist()
        assert {n for n in names if n.endswith(".m")} == {f"{folder}/{name}" for name in files}
        for name, text in files.items():
            assert zf.read(f"{folder}/{name}").decode("ascii") == text
        if fmi == 2:
            index = zf.read("documentation/index.html").decode()
            assert all(f'href="matlab/{name}"' in index for name in files)
    assert not any(n.startswith("sources/") and n.endswith(".m") for n in names)
    assert validate_fmu(str(fmu)) == []
    result = fmu_simulation(fmu, 0.5, 0.1)
    assert abs(result["theta1"][-1] - result["theta1"][0]) > 1e-3


def test_without_the_option_no_matlab(tmp_path):
    fmu = export_fmu(example("simple_pendulum").derive(), tmp_path / "p.fmu", fmi_version=3, kind="cs")
    with zipfile.ZipFile(fmu) as zf:
        assert not [n for n in zf.namelist() if n.endswith(".m") or n.startswith("documentation/")]


def test_cli_with_matlab(tmp_path, capsys):
    from support import ROOT

    out = tmp_path / "p.fmu"
    assert main(["export", str(ROOT / "examples" / "simple_pendulum.py"), "-o", str(out), "--with-matlab"]) == 0
    with zipfile.ZipFile(out) as zf:
        assert "documentation/matlab/simple_pendulum_dynamics.m" in zf.namelist()  # FMI 2, the default
    capsys.readouterr()
    assert main(["info", str(out)]) == 0
    assert "MATLAB       6 .m functions in documentation/matlab/" in capsys.readouterr().out


@pytest.mark.slow
def test_python_backend_with_matlab(tmp_path):
    pytest.importorskip("pythonfmu")
    eq = example("simple_pendulum").derive()
    fmu = export_fmu(eq, tmp_path / "p.fmu", backend="python", with_matlab=True)
    with zipfile.ZipFile(fmu) as zf:
        assert "documentation/matlab/simple_pendulum_simulate.m" in zf.namelist()
    assert validate_fmu(str(fmu)) == []


@needs_octave
def test_the_functions_of_the_fmu_run(tmp_path):
    """A Simulink user unpacks the FMU and runs the model's functions."""
    eq = example("simple_pendulum").derive()
    fmu = export_fmu(eq, tmp_path / "p.fmu", fmi_version=3, kind="cs", with_matlab=True)
    with zipfile.ZipFile(fmu) as zf:
        zf.extractall(tmp_path / "unpacked")
    script = "[M, delta] = simple_pendulum_dynamics(0, 0.5, 0, 0, simple_pendulum_parameters());\n"
    got = read_values(
        run_octave(script + print_line("M", "M"), [tmp_path / "unpacked" / "extra" / "org.symbody.matlab"])
    )
    assert got["M"].tolist() == [1.0]
