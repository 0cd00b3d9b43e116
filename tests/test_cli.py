"""The ``symbody`` command line (contracts of DESIGN.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy.validation import validate_fmu

from symbody.cli import main
from symbody.fmu.testing import cached_equations, cached_fmu

ROOT = Path(__file__).resolve().parents[1]
FOUR_BAR = str(ROOT / "examples" / "four_bar.py")
N_LINK = str(ROOT / "examples" / "n_link_pendulum_on_cart.py")
PENDULUM = str(ROOT / "examples" / "simple_pendulum.py")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_info_json_has_the_contract_keys(capsys):
    code, out, err = run(capsys, "info", FOUR_BAR, "--json")
    assert code == 0 and err == ""
    info = json.loads(out)
    for key in ("name", "coordinates", "constraints", "dof", "parameters", "inputs", "outputs", "atoms", "ops"):
        assert key in info
    assert set(info["ops"]) >= {"M", "delta", "M_delta", "Phi", "Phi_q", "gamma"}
    assert info["derive_seconds"] >= 0
    assert (info["name"], info["coordinates"], info["constraints"], info["dof"]) == ("four_bar", 3, 2, 1)
    eq = cached_equations(FOUR_BAR)
    assert info["ops"]["M_delta"] == eq.stats()["ops"]["M_delta"]


def test_info_text_and_options(capsys):
    code, out, _ = run(capsys, "info", N_LINK, "--option", "n=2")
    assert code == 0
    assert "coordinates  3 (q0, q1, q2)" in out and "operations   M " in out


def test_export_validate_simulate(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "export", FOUR_BAR, "-o", "fb.fmu", "--fmi", "3", "--kind", "me")
    assert code == 0 and "fb.fmu" in out
    assert validate_fmu("fb.fmu") == []
    code, out, _ = run(capsys, "validate", "fb.fmu")
    assert code == 0 and "valid" in out and "Model Exchange, CVode" in out and "FAIL" not in out
    code, out, _ = run(
        capsys, "simulate", "fb.fmu", "--stop-time", "0.5", "--interval", "0.01", "--set", "My2=2", "--output", "C_z"
    )
    assert code == 0
    header = Path("fb.csv").read_text().splitlines()[0]
    assert header == "time,C_z"
    data = np.loadtxt("fb.csv", delimiter=",", skiprows=1)
    assert data.shape == (51, 2) and np.all(np.isfinite(data))
    assert Path("fb.png").read_bytes()[:4] == b"\x89PNG"


def test_simulate_a_model_file_with_each_solver(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    results = {}
    for method in ("rk4", "dopri5", "rosenbrock23"):
        csv = f"{method}.csv"
        argv = ["simulate", PENDULUM, "--stop-time", "1", "--interval", "0.1", "--method", method, "-o", csv]
        code, _, err = run(capsys, *argv, "--no-plot", "--rtol", "1e-9")
        assert code == 0, err
        assert not Path(f"{method}.png").exists()
        results[method] = np.loadtxt(csv, delimiter=",", skiprows=1)
    np.testing.assert_allclose(results["rk4"], results["dopri5"], atol=1e-6)
    np.testing.assert_allclose(results["rosenbrock23"], results["dopri5"], atol=1e-4)
    code, _, err = run(capsys, "simulate", PENDULUM, "--kind", "me", "--stop-time", "1", "-o", "me.csv", "--no-plot")
    assert code == 0, err
    me = np.loadtxt("me.csv", delimiter=",", skiprows=1)
    assert me.shape[1] == results["rk4"].shape[1]


def test_python_backend_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "pend_py.fmu"
    code, _, err = run(capsys, "export", PENDULUM, "-o", str(out), "--backend", "python")
    assert code == 0, err
    assert validate_fmu(str(out)) == []


def test_errors_are_one_line_without_traceback(tmp_path, capsys):
    code, out, err = run(capsys, "info", str(tmp_path / "missing.py"))
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("symbody: error:") and "missing.py" in lines[0]
    assert "Traceback" not in err
    code, _, err = run(capsys, "--debug", "info", str(tmp_path / "missing.py"))
    assert code == 1 and "Traceback" in err
    code, _, err = run(capsys, "export", FOUR_BAR, "-o", str(tmp_path / "x.zip"))
    assert code == 1 and ".fmu" in err
    code, _, err = run(capsys, "info", FOUR_BAR, "--option", "novalue")
    assert code == 1 and "key=value" in err
    fmu = str(cached_fmu(PENDULUM, 2, "cs"))
    code, _, err = run(capsys, "simulate", fmu, "--set", "nonexistent=1", "-o", str(tmp_path / "r.csv"))
    assert code == 1 and "nonexistent" in err and len(err.strip().splitlines()) == 1


def test_failed_export_leaves_no_file_and_keeps_an_existing_one(tmp_path, capsys):
    bad = tmp_path / "bad_model.py"
    bad.write_text("def build():\n    raise RuntimeError('broken model')\n")
    target = tmp_path / "out.fmu"
    code, _, err = run(capsys, "export", str(bad), "-o", str(target))
    assert code == 1 and "broken model" in err
    assert list(tmp_path.iterdir()) == [bad]
    target.write_bytes(b"previous")
    code, _, _ = run(capsys, "export", str(bad), "-o", str(target))
    assert code == 1 and target.read_bytes() == b"previous"
    code, _, _ = run(capsys, "export", PENDULUM, "-o", str(target))
    assert code == 0 and validate_fmu(str(target)) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad_model.py", "out.fmu"]


def test_console_script_entry_point(tmp_path):
    exe = Path(sys.executable).with_name("symbody")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "symbody.cli"]
    proc = subprocess.run([*cmd, "info", PENDULUM, "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["name"] == cached_equations(PENDULUM).name


@pytest.mark.parametrize("argv", (["export", FOUR_BAR], ["frobnicate"], ["validate"]))
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
