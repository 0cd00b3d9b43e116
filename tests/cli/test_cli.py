"""The ``symbody`` command line (its contracts: docs/reference/fmu-export.md, README)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy.validation import validate_fmu

from symbody.cli import main
from symbody.codegen.counts import stats
from symbody.fmu.testing import cached_equations, cached_fmu

ROOT = Path(__file__).resolve().parents[2]
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
    assert info["ops"]["M_delta"] == stats(eq)["ops"]["M_delta"]


def test_info_says_how_the_accelerations_are_computed(capsys):
    code, out, _ = run(capsys, "info", str(ROOT / "examples" / "overhead_crane.py"))
    assert code == 0
    assert "virtual power formulation, accelerations by symbolic elimination" in out, out
    assert "ddq " in out  # their operation count is shown
    code, out, _ = run(capsys, "info", FOUR_BAR, "--json")
    assert json.loads(out)["accelerations"] == ""  # a closed loop: the runtime solves with M and D


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


# ---------------------------------------------------------------------------
# arguments: options, start values, inputs over time, output grid
# ---------------------------------------------------------------------------

ECHO_OPTIONS = """
def build(spring: bool = True, n=1, **extra):
    raise RuntimeError(f"got spring={spring!r} n={n!r} extra={extra!r}")
"""


def test_option_booleans_mean_what_they_say(tmp_path, capsys):
    """``--option spring=false`` used to arrive as the (true) string 'false'."""
    model = tmp_path / "echo.py"
    model.write_text(ECHO_OPTIONS)
    for text, value in (("false", False), ("False", False), ("no", False), ("0", False), ("TRUE", True), ("on", True)):
        code, _, err = run(capsys, "info", str(model), "--option", f"spring={text}")
        assert code == 1 and f"got spring={value!r} n=1 extra={{}}" in err
    code, _, err = run(capsys, "info", str(model), "--option", "flag=FALSE", "--option", "n=[1, 2]")
    assert code == 1 and "got spring=True n=[1, 2] extra={'flag': False}" in err
    code, _, err = run(capsys, "info", str(model), "--option", "spring=maybe")
    assert code == 1 and "--option spring: 'maybe' is not a boolean: use true/false" in err
    assert "got spring" not in err


def test_parse_start_values_types_by_the_model_description():
    from types import SimpleNamespace

    from symbody.errors import ArgumentError
    from symbody.fmu.arguments import parse_start_values

    item = SimpleNamespace
    solver = SimpleNamespace(
        name="solver.method",
        type="Enumeration",
        description="",
        declaredType=SimpleNamespace(items=[item(name="rk4", value="1"), item(name="dopri5", value="2")]),
    )
    # the same setting as an Integer whose description names the values
    mode = SimpleNamespace(name="mode", type="Integer", description="1 = slow, 2 = fast", declaredType=None)
    plain = SimpleNamespace(name="method", type="Integer", description="rk4, dopri5 or rosenbrock23", declaredType=None)
    flag = SimpleNamespace(name="on", type="Boolean", description="", declaredType=None)
    mass = SimpleNamespace(name="m", type="Real", description="", declaredType=None)
    variables = [solver, mode, plain, flag, mass]
    values = parse_start_values(
        ["solver.method=dopri5", "mode=fast", "method=rosenbrock23", "on=false", "m=2.5"],
        variables,
        {"method": {"rk4": 1, "dopri5": 2, "rosenbrock23": 3}},
    )
    assert values == {"solver.method": 2, "mode": 2, "method": 3, "on": False, "m": 2.5}
    assert parse_start_values(["solver.method=3", "mode=1"], variables) == {"solver.method": 3, "mode": 1}
    for bad, message in (
        ("on=maybe", "not a boolean"),
        ("m=inf", "not a finite number"),
        ("mode=medium", r"or one of slow \(1\), fast \(2\)"),
    ):
        with pytest.raises(ArgumentError, match=message):
            parse_start_values([bad], variables)


def test_set_takes_the_names_of_the_solver_methods(tmp_path, capsys, monkeypatch):
    """``--set solver.method=rk4`` used to be refused as 'not a number'."""
    monkeypatch.chdir(tmp_path)
    fmu = str(cached_fmu(PENDULUM, 2, "cs"))
    common = ["--stop-time", "1", "--interval", "0.1", "--no-plot"]
    results = {}
    for name, argv in (
        ("set", ["--set", "solver.method=rk4", "--set", "solver.step=0.05"]),
        ("method", ["--method", "rk4", "--set", "solver.step=0.05"]),
        ("number", ["--set", "solver.method=1", "--set", "solver.step=0.05"]),
        ("dopri5", ["--set", "solver.method=dopri5"]),
    ):
        code, _, err = run(capsys, "simulate", fmu, *common, *argv, "-o", f"{name}.csv")
        assert code == 0, err
        results[name] = np.loadtxt(f"{name}.csv", delimiter=",", skiprows=1)
    assert np.array_equal(results["set"], results["method"]) and np.array_equal(results["set"], results["number"])
    # rk4 with a coarse step differs from the adaptive solver, so the setting did reach the FMU
    assert 1e-9 < np.max(np.abs(results["set"] - results["dopri5"])) < 1e-3
    code, _, err = run(capsys, "simulate", fmu, *common, "--method", "rk4", "--set", "solver.method=dopri5")
    assert code == 1 and "contradicts" in err


@pytest.mark.parametrize(
    "argv", ([], ["--interval", "0.05"], ["--stop-time", "3.33"], ["--start-time", "0.5"], ["--input-file", "off"])
)
def test_co_simulation_and_model_exchange_share_the_output_grid(argv, tmp_path, capsys):
    fmu = str(cached_fmu(PENDULUM, 3, "both"))
    if "off" in argv:  # an input step between two output points: the CS master stops there too
        (tmp_path / "off.csv").write_text("time,T\n0,0\n0.55,0\n0.55,2\n2,2\n")
        argv = ["--interval", "0.1", "--input-file", str(tmp_path / "off.csv")]
    stop = [] if "--stop-time" in argv else ["--stop-time", "2"]
    times = {}
    for kind in ("cs", "me"):
        csv = tmp_path / f"{kind}.csv"
        code, _, err = run(capsys, "simulate", fmu, "--kind", kind, *stop, *argv, "-o", str(csv), "--no-plot")
        assert code == 0, err
        data = np.loadtxt(csv, delimiter=",", skiprows=1)
        times[kind] = data[:, 0]
        end = 3.33 if "3.33" in argv else 2.0
        assert data[-1, 0] == pytest.approx(end, abs=1e-9)
        assert data[0, 0] == pytest.approx(0.5 if "--start-time" in argv else 0.0)
    np.testing.assert_allclose(times["cs"], times["me"], rtol=0, atol=1e-12)
    code, _, err = run(capsys, "simulate", fmu, "--stop-time", "1.05", "--interval", "0.1", "--no-plot")
    assert code == 1 and "does not divide the simulated time 1.05 s" in err


STEP_INPUT = "time,T\n0,0\n0.5,0\n0.5,2\n2,2\n"


@pytest.mark.parametrize("kind", ("cs", "me"))
def test_an_input_file_drives_the_fmu_over_time(kind, tmp_path, capsys):
    """A torque step at t = 0.5 s: the same as fmpy driven with the same signal; before the step, no torque."""
    import fmpy
    from fmpy.util import read_csv

    fmu = str(cached_fmu(PENDULUM, 2, "both"))
    signal = tmp_path / "torque.csv"
    signal.write_text(STEP_INPUT)
    csv = tmp_path / "r.csv"
    code, _, err = run(
        capsys,
        "simulate",
        fmu,
        "--kind",
        kind,
        "--stop-time",
        "2",
        "--interval",
        "0.01",
        "--input-file",
        str(signal),
        "-o",
        str(csv),
        "--no-plot",
    )
    assert code == 0, err
    header = csv.read_text().splitlines()[0].split(",")
    assert "T" in header  # the driven input is recorded
    got = np.genfromtxt(csv, delimiter=",", names=True)
    fmi_type = "CoSimulation" if kind == "cs" else "ModelExchange"
    ref = fmpy.simulate_fmu(
        fmu, fmi_type=fmi_type, stop_time=2, output_interval=0.01, input=read_csv(signal), record_events=False
    )
    np.testing.assert_allclose(got["theta"], ref["theta"], rtol=0, atol=1e-9 if kind == "cs" else 1e-6)
    free = fmpy.simulate_fmu(fmu, fmi_type=fmi_type, stop_time=2, output_interval=0.01, record_events=False)
    before, after = got["time"] <= 0.5, got["time"] > 0.6
    np.testing.assert_allclose(got["theta"][before], free["theta"][before], atol=1e-6)
    assert np.min(np.abs(got["theta"][after] - free["theta"][after])) > 1e-4
    np.testing.assert_array_equal(got["T"][got["time"] > 0.5], 2.0)


def test_an_input_file_that_ends_early_is_said_so(tmp_path, capsys):
    """An input file up to 0.5 s for a run to 1 s: fmpy keeps the last values; the run says so in one line
    (it used to extend the file silently)."""
    fmu = str(cached_fmu(PENDULUM, 2, "cs"))
    signal = tmp_path / "short.csv"
    signal.write_text("time,T\n0,0\n0.5,1\n")
    argv = ["simulate", fmu, "--stop-time", "1", "--input-file", str(signal), "-o", str(tmp_path / "r.csv")]
    code, _, err = run(capsys, *argv, "--no-plot")
    assert code == 0, err
    warning = [line for line in err.splitlines() if line.startswith("symbody: warning:")]
    assert warning == [
        "symbody: warning: --input-file short.csv covers t = 0 to 0.5 s, the run 0 to 1 s: "
        "the inputs keep their last values after 0.5 s"
    ]
    data = np.genfromtxt(tmp_path / "r.csv", delimiter=",", names=True)
    np.testing.assert_array_equal(data["T"][data["time"] > 0.5 + 1e-9], 1.0)
    signal.write_text("time,T\n0,0\n1,1\n")
    code, _, err = run(capsys, *argv, "--no-plot")
    assert code == 0 and "warning" not in err
    from symbody.fmu.arguments import input_file_gap

    t0 = 1.7e9  # a Unix time: the allowance is rounding, not 1e-9 of |t| (1.7 s)
    data = np.array([(t0, 0.0), (t0 + 9, 1.0)], dtype=[("time", float), ("T", float)])
    assert "keep their last values after 1700000009 s" in input_file_gap(data, t0, t0 + 10, "f.csv")
    assert input_file_gap(data, t0, t0 + 9, "f.csv") is None


def test_input_file_problems_are_one_line_and_write_nothing(tmp_path, capsys):
    fmu = str(cached_fmu(PENDULUM, 2, "cs"))
    csv = tmp_path / "r.csv"
    cases = {
        "torque": ("time,Torque\n0,1\n1,1\n", "column 'Torque' is not an input of the FMU (the inputs are T)"),
        "order": ("time,T\n1,0\n0,1\n", "the times must not decrease"),
        "first": ("T,time\n0,0\n", "the first column must be 'time'"),
        "text": ("time,T\n0,zero\n", "line 2: not a number"),
        "ragged": ("time,T\n0,1,2\n", "line 2: 3 values for 2 columns"),
        "nan": ("time,T\n0,nan\n", "line 2: a value is not finite"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / f"{name}.in"
        path.write_text(text)
        code, _, err = run(capsys, "simulate", fmu, "--input-file", str(path), "-o", str(csv))
        lines = err.strip().splitlines()
        assert code == 1 and len(lines) == 1 and message in lines[0], err
    code, _, err = run(capsys, "simulate", fmu, "--input-file", str(tmp_path / "none.csv"), "-o", str(csv))
    assert code == 1 and "none.csv' not found" in err
    assert not csv.exists()


def test_a_model_file_takes_an_input_file_too(tmp_path, capsys):
    signal = tmp_path / "torque.csv"
    signal.write_text(STEP_INPUT)
    csv = tmp_path / "m.csv"
    fmu_csv = tmp_path / "f.csv"
    common = ["--stop-time", "1", "--interval", "0.01", "--input-file", str(signal), "--no-plot"]
    code, _, err = run(capsys, "simulate", PENDULUM, *common, "-o", str(csv))
    assert code == 0, err
    code, _, err = run(capsys, "simulate", str(cached_fmu(PENDULUM, 2, "cs")), *common, "-o", str(fmu_csv))
    assert code == 0, err
    np.testing.assert_allclose(
        np.loadtxt(csv, delimiter=",", skiprows=1), np.loadtxt(fmu_csv, delimiter=",", skiprows=1)
    )


# ---------------------------------------------------------------------------
# info on an FMU, plots, import cost
# ---------------------------------------------------------------------------


def test_info_describes_an_fmu(capsys):
    fmu = str(cached_fmu(PENDULUM, 3, "both"))
    code, out, err = run(capsys, "info", fmu)
    assert code == 0 and err == ""
    assert "FMI          3.0, Co-Simulation and Model Exchange" in out
    platforms = next(line for line in out.splitlines() if line.startswith("  platforms    "))
    assert "x86_64-linux" in platforms  # and the cross-compiled ones whose compiler is installed
    assert "inputs       1 (T [N*m])" in out and "theta [rad]" in out
    code, out, _ = run(capsys, "info", fmu, "--json")
    info = json.loads(out)
    assert info["fmi_version"] == "3.0" and info["kinds"] == ["cs", "me"] and "x86_64-linux" in info["platforms"]
    assert [v["name"] for v in info["variables"]["input"]] == ["T"]
    assert {"theta", "dtheta", "ddtheta", "x", "y"} <= {v["name"] for v in info["variables"]["output"]}
    assert info["states"] == 2 and info["default_experiment"]["stop_time"] > 0


def test_choose_variables_puts_the_model_outputs_first():
    from symbody.fmu.plot import choose_variables

    names = ["time", "theta", "r", "dtheta", "dr", "ddtheta", "ddr", "x_payload", "rope_tension", "F"]
    shown, left = choose_variables(names, inputs=["F"], max_panels=5)
    assert shown == ["x_payload", "rope_tension", "theta", "r", "F"]
    assert left == ["dtheta", "dr", "ddtheta", "ddr"]


def test_the_plot_has_units_and_the_set_values(tmp_path):
    from symbody.fmu.plot import PNG_DPI, figure, render
    from symbody.fmu.run import read_description, simulate, variable_units

    fmu = cached_fmu(PENDULUM, 2, "cs")
    res = simulate(fmu, stop_time=0.2, interval=0.1, start_values={"l": 2.0})
    fig = figure(res, ["x", "theta"], "simple_pendulum", variable_units(read_description(fmu)), {"l": "2"})
    assert [ax.get_ylabel() for ax in fig.axes] == ["x [m]", "theta [rad]"]
    assert fig._suptitle.get_text() == "simple_pendulum\nl = 2"
    pixels, texts = render(res, ["x", "theta"], "simple_pendulum", variable_units(read_description(fmu)), {"l": "2"})
    assert texts == {"title": "simple_pendulum\nl = 2", "ylabels": ["x [m]", "theta [rad]"], "xlabel": "time [s]"}
    assert pixels.shape == (round(4.9 * PNG_DPI), 8 * PNG_DPI, 3)


def test_the_png_draws_each_curve_where_its_values_are(tmp_path):
    """The PNG's curves: a ramp rises from the lower left to the upper right corner of its panel, a constant
    is a horizontal line in the middle of its panel (a constant gets a range around it)."""
    from symbody.fmu.plot import plot

    t = np.linspace(0.0, 2.0, 201)
    res = np.zeros(len(t), dtype=[("time", float), ("ramp", float), ("flat", float)])
    res["time"], res["ramp"], res["flat"] = t, 3.0 * t - 1.0, 7.0
    path = plot(res, tmp_path / "r.png", title="ramp")
    from PIL import Image

    pixels = np.asarray(Image.open(path).convert("RGB")).astype(int)
    blue = (abs(pixels[..., 0] - 31) < 8) & (abs(pixels[..., 1] - 119) < 8) & (abs(pixels[..., 2] - 180) < 8)
    rows, cols = np.nonzero(blue)
    half = pixels.shape[0] // 2  # two panels, one column: the ramp above, the constant below
    top_rows, top_cols = rows[rows < half], cols[rows < half]
    slope = np.polyfit(top_cols, top_rows, 1)[0]
    assert slope < -0.1  # rises to the right (image rows grow downwards)
    left, right = top_cols.min(), top_cols.max()
    assert top_rows[top_cols == left].min() > top_rows[top_cols == right].max() + 100
    flat_rows = rows[rows >= half]
    assert flat_rows.max() - flat_rows.min() <= 2  # one horizontal line


def test_simulate_says_which_variables_the_plot_left_out(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fmu = str(cached_fmu(N_LINK, 2, "cs", options=(("n", 4),)))
    code, out, err = run(capsys, "simulate", fmu, "--stop-time", "0.1", "--set", "F=1")
    assert code == 0, err
    # the 8 bob positions (model outputs), then the coordinates q0..q3; q4 and the rates are left out
    left = "q4, dq0, dq1, dq2, dq3, dq4, ddq0, ddq1, ddq2, ddq3, ddq4"
    assert f"the plot shows 12 of 23 variables; left out: {left} (choose with --output NAME)" in out
    assert Path(Path(fmu).stem + ".png").read_bytes()[:4] == b"\x89PNG"


def test_simulating_an_fmu_imports_no_sympy(tmp_path):
    """``symbody simulate OUT.fmu`` used to import SymPy (seconds) through ``import symbody``, and its default
    plot matplotlib's figure machinery (a second): the PNG is drawn without importing matplotlib."""
    fmu = str(cached_fmu(PENDULUM, 2, "cs"))
    code = (
        "import sys\n"
        "from symbody.cli import main\n"
        f"status = main(['simulate', {fmu!r}, '--stop-time', '0.1', '-o', {str(tmp_path / 'r.csv')!r}])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('sympy', 'scipy', 'matplotlib') or m.startswith(\n"
        "    ('symbody.symbolic', 'symbody.model', 'symbody.derive', 'symbody.numeric', 'symbody.codegen',\n"
        "     'symbody.equations')))\n"
        "print(status, heavy)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[-2] == "0 []"
    assert (tmp_path / "r.png").exists()


def readme_first_commands() -> list[list[str]]:
    """The ``symbody`` commands of the README's first shell block, as argument lists."""
    import shlex

    text = (ROOT / "README.md").read_text()
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = []
    for part in block.replace("\n", " ").split("&&"):
        words = shlex.split(part)
        if words[:3] == ["python", "-m", "symbody"]:
            commands.append(words[3:])
    return commands


def test_the_readme_first_command_moves_the_crane_and_stops_it(tmp_path, capsys, monkeypatch):
    """It used to push the trolley 277 m out along a 50 m jib with constant inputs."""
    from symbody.loader import load_module

    jib = load_module(ROOT / "examples" / "tower_crane.py").JIB_LENGTH
    commands = readme_first_commands()
    assert [c[0] for c in commands] == ["export", "simulate"]
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        argv = [str(ROOT / a) if a.startswith("examples/") else a for a in argv]
        code, _, err = run(capsys, *argv)
        assert code == 0, err
    res = np.genfromtxt(tmp_path / "tower_crane.csv", delimiter=",", names=True)
    assert (tmp_path / "tower_crane.png").exists()
    assert res["time"][-1] == pytest.approx(60.0)
    assert 0.0 < res["r"].min() and res["r"].max() < jib  # the trolley stays on the jib
    assert res["r"][-1] == pytest.approx(35.0, abs=0.5) and res["theta"][-1] == pytest.approx(np.pi / 2, abs=0.01)
    assert np.max(np.abs(res["dtheta"])) > 0.05  # it did slew ...
    late = res["time"] > 45
    assert np.max(np.abs(res["dtheta"][late])) < 2e-3  # ... and stopped
    assert np.max(np.abs(res["dr"][late])) < 0.05
    assert np.max(np.abs(res["beta_r"][late])) < 0.02 and np.max(np.abs(res["beta_t"][late])) < 0.02
    assert np.all(res["tau_slew"][late] == 0) and np.all(res["F_trolley"][late] == 0)


def test_the_shipped_input_file_is_what_its_script_writes(tmp_path):
    from symbody.loader import load_module

    script = load_module(ROOT / "examples" / "crane_control" / "tower_crane_inputs.py")
    script.write(tmp_path / "inputs.csv")
    assert (tmp_path / "inputs.csv").read_text() == (ROOT / "examples" / "tower_crane_inputs.csv").read_text()


def test_lazy_public_names_are_the_objects_not_submodules():
    """``symbody`` and ``symbody.fmu`` load names on first use; importing every submodule first changes nothing."""
    code = (
        "import importlib, pkgutil, types, symbody, symbody.fmu\n"
        "for m in pkgutil.walk_packages(symbody.__path__, 'symbody.'):\n"
        "    if not m.name.endswith(('__main__', 'python_runtime')):\n"
        "        importlib.import_module(m.name)\n"
        "bad = [n for pkg in (symbody, symbody.fmu) for n in pkg.__all__\n"
        "       if isinstance(getattr(pkg, n), types.ModuleType)]\n"
        "from symbody.model.system import System\n"
        "print(bad, symbody.System is System, symbody.pi)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[] True 3.141592653589793"


TYPED_OPTIONS = """
def build(theta0: float = 0.5, n: int = 2, label: str = "a"):
    raise RuntimeError(f"got theta0={theta0!r} n={n!r} label={label!r}")
"""


def test_option_numbers_are_typed_by_the_build_signature(tmp_path, capsys):
    """``--option theta0=true`` for ``theta0: float`` used to arrive as True (an angle of 1 rad)."""
    model = tmp_path / "typed.py"
    model.write_text(TYPED_OPTIONS)
    code, _, err = run(capsys, "info", str(model), "--option", "theta0=2", "--option", "n=3", "--option", "label=x")
    assert code == 1 and "got theta0=2.0 n=3 label='x'" in err
    for option, message in (
        ("theta0=true", "--option theta0: 'true' is not a number"),
        ("theta0=abc", "--option theta0: 'abc' is not a number"),
        ("n=2.5", "--option n: '2.5' is not an integer"),
        ("n=yes", "--option n: 'yes' is not an integer"),
    ):
        code, _, err = run(capsys, "info", str(model), "--option", option)
        assert code == 1 and message in err and "got theta0" not in err, (option, err)


MOVING_BASE = """
import symbody as sb


def build():
    s = sb.System("moving_base")
    z = s.motion_input("z")
    x = s.coordinate("x", 0.0)
    s.particle("m", s.point("P", s.origin, (z + x, 0, 0)), 1.0)
    s.generalized_force("spring", x, -4.0 * x)
    area = s.state("area", 0.0)
    s.rate(area, x)
    return s
"""


def test_motion_inputs_and_states_in_info_and_an_input_file(tmp_path, capsys):
    """``info`` names motion inputs and states; an input file that gives a motion input's positions only gets
    its velocity and acceleration from the spline through them (z = t^2/2: the spring's mass sees a constant
    acceleration 1, x = (cos 2t - 1)/4, and its integral is recorded as the state)."""
    model = tmp_path / "moving_base.py"
    model.write_text(MOVING_BASE)
    code, out, _ = run(capsys, "info", str(model))
    assert code == 0
    assert "motion       1 motion inputs (z)" in out and "states       1 (area)" in out, out
    code, out, _ = run(capsys, "info", str(model), "--json")
    info = json.loads(out)
    assert (info["motion_input_names"], info["states"], info["state_names"]) == (["z"], 1, ["area"])
    signal = tmp_path / "z.csv"
    times = np.linspace(0.0, 2.0, 41)
    signal.write_text("time,z\n" + "".join(f"{t:.6g},{t * t / 2:.12g}\n" for t in times))
    csv = tmp_path / "r.csv"
    argv = ["simulate", str(model), "--stop-time", "2", "--interval", "0.01", "--input-file", str(signal)]
    code, out, err = run(capsys, *argv, "-o", str(csv), "--no-plot")
    assert code == 0, err
    assert "motion inputs z: velocities and accelerations from the spline" in out
    got = np.genfromtxt(csv, delimiter=",", names=True)
    t = got["time"]
    np.testing.assert_allclose(got["dz"], t, atol=1e-9)
    np.testing.assert_allclose(got["ddz"], 1.0, atol=1e-9)
    np.testing.assert_allclose(got["x"], (np.cos(2 * t) - 1) / 4, atol=1e-6)
    np.testing.assert_allclose(got["area"], (np.sin(2 * t) / 2 - t) / 4, atol=1e-6)
    signal.write_text("time,z,dz\n0,0,0\n1,0.5,1\n")
    code, _, err = run(capsys, *argv, "-o", str(csv), "--no-plot")
    assert code != 0 and "'dz' without its pair" in err, err
