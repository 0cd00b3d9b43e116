"""Parameter studies in this process: case tables, FMU runs with instance reuse, failures, resume, files, CLI.

Truth: every run is compared with a plain ``fmpy.simulate_fmu`` of the same case (a fresh
instance), the closed loop with the sampled loop of examples/crane_control (crane_loop.py).
The dask cluster tests are in test_sweep_cluster.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import fmpy
import numpy as np
import pandas as pd
import pytest

from symbody.cli import main
from symbody.study import FmuRunner, RunSettings, StudyError, factorial, latin_hypercube, parse_values, run_id, sweep
from symbody.study.design import parse_range

ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = ["theta", "x", "rope_tension"]
FIXED = {"F_trolley": 2000.0}
STOP = 4.0
INTERVAL = 0.05
FAILING_STEP = 1e-9  # rk4 with this step needs more than the FMU's internal step limit: doStep discards


@pytest.fixture(scope="module")
def crane_fmu(tmp_path_factory) -> Path:
    from symbody.fmu import export_fmu
    from symbody.loader import load_model

    out = tmp_path_factory.mktemp("sweep_fmu") / "overhead_crane.fmu"
    return export_fmu(load_model(ROOT / "examples" / "overhead_crane.py"), out, kind="cs")


def single_run(fmu: Path, case: dict, outputs=OUTPUTS, stop=STOP) -> dict[str, float]:
    """The reference: one plain fmpy simulation of the case, summarized by hand."""
    res = fmpy.simulate_fmu(
        str(fmu), stop_time=stop, output_interval=INTERVAL, start_values={**FIXED, **case}, output=outputs
    )
    assert res["time"][-1] == pytest.approx(stop)
    out = {}
    for name in outputs:
        out[f"{name}.final"], out[f"{name}.min"], out[f"{name}.max"] = res[name][-1], res[name].min(), res[name].max()
    return out


def assert_row_matches(row, ref: dict[str, float]) -> None:
    for column, value in ref.items():
        assert row[column] == pytest.approx(value, rel=1e-12, abs=1e-12), column


# ---------------------------------------------------------------------------
# case tables
# ---------------------------------------------------------------------------


def test_parse_values_lists_ranges_and_errors():
    assert parse_values("1,2, 4") == [1.0, 2.0, 4.0]
    assert parse_values("5:30:6") == [5.0, 10.0, 15.0, 20.0, 25.0, 30.0]
    assert parse_values("2:2:1") == [2.0]
    assert parse_range("1:8") == (1.0, 8.0)
    for bad in ("1:2", "1:2:0", "1:2:2.5", "a,b", "1,1", "0:1:nan", ""):
        with pytest.raises(StudyError):
            parse_values(bad)
    for bad in ("2:1", "1", "1:2:3"):
        with pytest.raises(StudyError):
            parse_range(bad)


def test_factorial_is_the_full_cross_product():
    cases = factorial({"a": [1, 2, 3], "b": [10, 20]})
    assert len(cases) == 6
    assert {(c["a"], c["b"]) for c in cases} == {(a, b) for a in (1, 2, 3) for b in (10, 20)}
    assert cases[0] == {"a": 1.0, "b": 10.0} and cases[1] == {"a": 1.0, "b": 20.0}


def test_latin_hypercube_strata_and_seed():
    n = 20
    cases = latin_hypercube({"m": (1000.0, 8000.0), "l": (5.0, 30.0)}, n, seed=7)
    for name, (lo, hi) in {"m": (1000.0, 8000.0), "l": (5.0, 30.0)}.items():
        strata = sorted(int((c[name] - lo) / (hi - lo) * n) for c in cases)
        assert strata == list(range(n))  # exactly one sample in each of the n strata
    assert latin_hypercube({"m": (1000.0, 8000.0), "l": (5.0, 30.0)}, n, seed=7) == cases
    assert latin_hypercube({"m": (1000.0, 8000.0), "l": (5.0, 30.0)}, n, seed=8) != cases


def test_run_id_depends_on_values_only():
    assert run_id({"a": 1, "b": 2.0}) == run_id({"b": 2, "a": 1.0})
    assert run_id({"a": 1.0}) != run_id({"a": 1.0 + 1e-15})
    assert run_id({"a": 1.0}) != run_id({"b": 1.0})


# ---------------------------------------------------------------------------
# runs
# ---------------------------------------------------------------------------


def test_runner_reuses_one_instance_and_equals_single_runs(crane_fmu):
    runner = FmuRunner(crane_fmu.read_bytes())
    settings = RunSettings(stop_time=STOP, outputs=tuple(OUTPUTS), fixed=FIXED, interval=INTERVAL)
    cases = [{"m_payload": 2000.0, "l": 8.0}, {"m_payload": 6000.0, "l": 20.0}, {"m_payload": 2000.0, "l": 8.0}]
    rows = [runner.run(c, settings) for c in cases]
    runner.close()
    assert runner.instantiations == 1 and runner.runs == 3  # fmi2Reset between runs, no new instance
    for case, row in zip(cases, rows):
        assert row["status"] == "ok", row["message"]
        assert_row_matches(row, single_run(crane_fmu, case))
    assert rows[0]["theta.max"] != rows[1]["theta.max"]  # the parameters reach the FMU


def test_failures_are_recorded_and_the_next_run_is_right(crane_fmu):
    cases = [
        {"m_payload": -1.0, "solver.step": 1e-3},  # refused by the FMU (mass below its minimum)
        {"m_payload": 3000.0, "solver.step": FAILING_STEP},  # doStep discards
        {"m_payload": 3000.0, "solver.step": 1e-3},
    ]
    df = sweep(
        crane_fmu,
        cases=cases,
        start_values={**FIXED, "solver.method": 1},
        stop_time=STOP,
        interval=INTERVAL,
        outputs=OUTPUTS,
        workers=0,
        progress=False,
    )
    assert df["status"].tolist() == ["error", "discard", "ok"]
    assert "m_payload" in df["message"][0] and "outside its range" in df["message"][0]
    assert "discarded" in df["message"][1] and "internal steps" in df["message"][1]
    assert df["theta.max"][:2].isna().all()
    ref = single_run(crane_fmu, {"m_payload": 3000.0, "solver.step": 1e-3, "solver.method": 1})
    assert_row_matches(df.iloc[2], ref)


def test_timeout_is_recorded(crane_fmu):
    df = sweep(
        crane_fmu,
        {"m_payload": [1000.0, 2000.0]},
        stop_time=STOP,
        outputs=["theta"],
        timeout=1e-9,
        workers=0,
        progress=False,
    )
    assert df["status"].tolist() == ["timeout", "timeout"]
    assert "timeout" in df["message"][0]


def test_unknown_names_are_refused_before_any_run(crane_fmu, tmp_path):
    out = tmp_path / "r.csv"
    with pytest.raises(StudyError, match="no variable 'm_load'"):
        sweep(crane_fmu, {"m_load": [1.0]}, stop_time=1.0, outputs=["theta"], workers=0, output=out)
    with pytest.raises(StudyError, match="'solver.method' .* takes whole numbers, not 1.5"):  # never rounded to 1
        sweep(crane_fmu, {"solver.method": [1.0, 1.5]}, stop_time=1.0, outputs=["theta"], workers=0, output=out)
    with pytest.raises(StudyError, match="'x_payload' cannot be set"):
        sweep(crane_fmu, {"x_payload": [1.0]}, stop_time=1.0, outputs=["theta"], workers=0, output=out)
    with pytest.raises(StudyError, match="no variable 'phi'"):
        sweep(crane_fmu, {"m_payload": [1.0]}, stop_time=1.0, outputs=["phi"], workers=0, output=out)
    assert not out.exists()


# ---------------------------------------------------------------------------
# results file and resume
# ---------------------------------------------------------------------------


def counting_metric(calls: list):
    def count(traj) -> float:
        calls.append(1)
        return float(traj["time"][-1])

    return count


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_interrupted_study_leaves_a_valid_file_and_resumes(crane_fmu, tmp_path, suffix):
    out = tmp_path / f"results{suffix}"
    params = {"m_payload": [1000.0, 2000.0, 3000.0], "l": [8.0, 12.0]}
    calls: list = []

    def interrupt_at_four(traj) -> float:
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return 0.0

    kw = dict(stop_time=STOP, interval=INTERVAL, outputs=OUTPUTS, start_values=FIXED, workers=0, progress=False)
    with pytest.raises(KeyboardInterrupt):
        sweep(crane_fmu, params, metrics={"n": interrupt_at_four}, output=out, **kw)
    partial = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
    assert len(partial) == 3 and (partial["status"] == "ok").all()  # the three finished runs, nothing else
    calls.clear()
    df = sweep(crane_fmu, params, metrics={"n": counting_metric(calls)}, output=out, **kw)
    assert len(calls) == 3  # only the runs the interrupted study had not finished
    assert df.attrs["runs"] == 3 and df.attrs["skipped"] == 3
    assert len(df) == 6 and (df["status"] == "ok").all()
    assert [(r.m_payload, r.l) for r in df.itertuples()] == [(m, l) for m in params["m_payload"] for l in params["l"]]
    for r in df.to_dict("records"):
        assert_row_matches(r, single_run(crane_fmu, {"m_payload": r["m_payload"], "l": r["l"]}))
    back = pd.read_csv(out, dtype={"run_id": str}) if suffix == ".csv" else pd.read_parquet(out)
    assert back["run_id"].tolist() == df["run_id"].tolist()  # the file holds the rows in case order
    assert np.array_equal(back["theta.max"].to_numpy(), df["theta.max"].to_numpy())  # floats round-trip exactly
    calls.clear()
    sweep(crane_fmu, params, metrics={"n": counting_metric(calls)}, output=out, **kw)
    assert calls == []  # nothing left to run


def test_results_of_another_study_are_refused(crane_fmu, tmp_path):
    out = tmp_path / "r.csv"
    kw = dict(stop_time=STOP, outputs=["theta"], workers=0, progress=False, output=out)
    sweep(crane_fmu, {"m_payload": [1000.0]}, start_values={"F_trolley": 1.0}, **kw)
    before = out.read_bytes()
    with pytest.raises(StudyError, match="another study"):
        sweep(crane_fmu, {"m_payload": [1000.0]}, start_values={"F_trolley": 2.0}, **kw)
    with pytest.raises(StudyError, match="another study"):  # other swept names: not a continuation
        sweep(crane_fmu, {"l": [10.0]}, start_values={"F_trolley": 1.0}, **kw)
    assert out.read_bytes() == before


def test_failed_runs_are_kept_unless_retried(crane_fmu, tmp_path):
    out = tmp_path / "r.csv"
    calls: list = []
    kw = dict(
        stop_time=1.0, outputs=["theta"], workers=0, progress=False, output=out, metrics={"n": counting_metric(calls)}
    )
    df = sweep(crane_fmu, {"m_payload": [-1.0, 1000.0]}, **kw)
    assert df["status"].tolist() == ["error", "ok"] and len(calls) == 1
    sweep(crane_fmu, {"m_payload": [-1.0, 1000.0]}, **kw)
    assert len(calls) == 1
    df = sweep(crane_fmu, {"m_payload": [-1.0, 1000.0]}, retry_failed=True, **kw)
    assert df.attrs["runs"] == 1 and df["status"].tolist() == ["error", "ok"]


def test_trajectories_are_kept_per_run(crane_fmu, tmp_path):
    df = sweep(
        crane_fmu,
        {"m_payload": [1500.0, 5000.0]},
        start_values=FIXED,
        stop_time=STOP,
        interval=INTERVAL,
        outputs=["theta"],
        record=["x"],
        trajectories=tmp_path / "traj",
        workers=0,
        progress=False,
    )
    for r in df.itertuples():
        traj = pd.read_parquet(r.trajectory)
        ref = fmpy.simulate_fmu(
            str(crane_fmu),
            stop_time=STOP,
            output_interval=INTERVAL,
            start_values={**FIXED, "m_payload": r.m_payload},
            output=["theta", "x"],
        )
        assert list(traj.columns)[0] == "time" and set(traj.columns) == {"time", "theta", "x"}
        np.testing.assert_allclose(traj["x"], ref["x"], rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# a controller in the loop and user metrics
# ---------------------------------------------------------------------------


def test_controller_in_the_loop_equals_the_example_loop(crane_fmu):
    sys.path.insert(0, str(ROOT / "examples" / "crane_control"))
    try:
        from crane_loop import FeedbackLaw, FmuPlant, run_closed_loop
    finally:
        sys.path.pop(0)
    names, inputs = ["x", "l", "theta", "dx", "dl", "dtheta"], ["F_trolley", "F_hoist"]

    def controller(case):  # trolley to x = 2 m (PD), hoist holding the case's payload at its rope length
        m, g = case["m_payload"], 9.80665

        def law(t, s):
            return np.array([3000.0 * (2.0 - s[0]) - 4000.0 * s[3], m * g - 2e4 * (s[1] - 12.0) - 1e4 * s[4]])

        return FeedbackLaw(names, inputs, law, {"F_trolley": (-5e3, 5e3)})

    def residual_swing(traj) -> float:
        return float(np.max(np.abs(traj["theta"][traj["time"] >= 3.0])))

    cases = [{"m_payload": 1000.0}, {"m_payload": 6000.0}]
    df = sweep(
        crane_fmu,
        cases=cases,
        stop_time=5.0,
        controller=controller,
        sample_period=0.01,
        outputs=["x", "F_trolley"],
        record=["rope_tension"],
        metrics={"residual_swing": residual_swing, "tension": lambda tr: {"peak": tr["rope_tension"].max()}},
        workers=0,
        progress=False,
    )
    assert (df["status"] == "ok").all(), df["message"].tolist()
    for case, row in zip(cases, df.to_dict("records")):
        ref = run_closed_loop(FmuPlant(crane_fmu, case), controller(case), 5.0, 0.01, ["rope_tension"])
        assert row["x.final"] == pytest.approx(ref["x"][-1], rel=1e-12)
        assert row["F_trolley.max"] == pytest.approx(ref["F_trolley"].max(), rel=1e-12)
        assert row["residual_swing"] == pytest.approx(np.max(np.abs(ref["theta"][ref.t >= 3.0])), rel=1e-12)
        assert row["tension.peak"] == pytest.approx(ref["rope_tension"].max(), rel=1e-12)
        assert row["F_trolley.max"] == pytest.approx(5e3)  # the limit is reached while accelerating
        # the hoist holds the actual payload: at rest the rope tension is its weight within 1 %
        assert row["tension.peak"] > case["m_payload"] * 9.80665 * 0.99


def test_controller_and_input_file_drive_different_inputs(crane_fmu, tmp_path):
    # the controller moves the trolley, the file hoists the load; the reference is the example loop with
    # one law setting both inputs, the hoist force interpolated linearly in the file's table (as fmpy does)
    sys.path.insert(0, str(ROOT / "examples" / "crane_control"))
    try:
        from crane_loop import FeedbackLaw, FmuPlant, run_closed_loop
    finally:
        sys.path.pop(0)
    from symbody.fmu.arguments import read_input_file

    weight = 4000.0 * 9.80665
    table = np.array([[0.0, weight], [1.0, weight + 3000.0], [3.0, weight], [5.0, weight]])
    csv = tmp_path / "hoist.csv"
    csv.write_text("time,F_hoist\n" + "".join(f"{a!r},{b!r}\n" for a, b in table.tolist()))
    signals = read_input_file(csv, ["F_trolley", "F_hoist"])

    def trolley(t, s):
        return np.array([3000.0 * (2.0 - s[0]) - 4000.0 * s[1]])

    def both(t, s):
        return np.array([trolley(t, s)[0], np.interp(t, table[:, 0], table[:, 1])])

    law = FeedbackLaw(["x", "dx"], ["F_trolley"], trolley)
    cases = [{"l": 8.0}, {"l": 12.0}]
    df = sweep(
        crane_fmu,
        cases=cases,
        stop_time=5.0,
        inputs=signals,
        controller=law,
        sample_period=0.01,
        outputs=["x", "l", "F_hoist"],
        workers=0,
        progress=False,
    )
    assert (df["status"] == "ok").all(), df["message"].tolist()
    for case, row in zip(cases, df.to_dict("records")):
        ref = run_closed_loop(
            FmuPlant(crane_fmu, case), FeedbackLaw(["x", "dx"], ["F_trolley", "F_hoist"], both), 5.0, 0.01, ["l"]
        )
        assert row["x.final"] == pytest.approx(ref["x"][-1], rel=1e-12)
        assert row["l.min"] == pytest.approx(ref["l"].min(), rel=1e-12)
        assert row["F_hoist.max"] == pytest.approx(weight + 3000.0, rel=1e-12)  # the file's peak, at t = 1 s
        assert row["l.min"] < case["l"] - 0.1  # the file hoisted the load
        assert 1.0 < row["x.final"] < 3.0  # while the controller moved the trolley towards x = 2 m


def test_controller_and_input_file_driving_one_input_are_refused(crane_fmu, tmp_path):
    signals = np.array(
        [(0.0, 1.0, 2.0), (1.0, 1.0, 2.0)], dtype=[("time", float), ("F_hoist", float), ("F_trolley", float)]
    )
    law = type("Law", (), {"measured": ["x"], "inputs": ["F_trolley"], "__call__": lambda self, t, y: [0.0]})()
    with pytest.raises(StudyError, match="the controller and the input file both drive 'F_trolley'"):
        sweep(crane_fmu, {"l": [8.0]}, stop_time=1.0, inputs=signals, controller=law, sample_period=0.01, workers=0)


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------


def test_cli_sweep_writes_one_row_per_case_and_resumes(crane_fmu, tmp_path, capsys):
    out = tmp_path / "r.csv"
    argv = [
        "sweep",
        str(crane_fmu),
        "--param",
        "m_payload=1000,4000",
        "--param",
        "l=8:12:2",
        "--set",
        "F_trolley=2000",
        "--stop-time",
        str(STOP),
        "--interval",
        str(INTERVAL),
        "--output",
        "theta",
        "--output",
        "x",
        "-o",
        str(out),
        "--workers",
        "0",
        "--no-progress",
    ]
    assert main(argv) == 0
    assert "4 run now, 0 found" in capsys.readouterr().out
    df = pd.read_csv(out)
    assert len(df) == 4 and list(df.columns[:3]) == ["run_id", "m_payload", "l"]
    for r in df.to_dict("records"):
        assert_row_matches(r, single_run(crane_fmu, {"m_payload": r["m_payload"], "l": r["l"]}, ["theta", "x"]))
    assert main(argv[:3] + ["m_payload=1000,4000,6000"] + argv[4:]) == 0
    assert "2 run now, 4 found" in capsys.readouterr().out


def test_cli_sweep_latin_hypercube_is_seeded(crane_fmu, tmp_path):
    base = [
        "sweep",
        str(crane_fmu),
        "--sample",
        "m_payload=1000:8000",
        "--samples",
        "5",
        "--stop-time",
        "1",
        "--output",
        "theta",
        "--workers",
        "0",
        "--no-progress",
    ]
    assert main(base + ["--seed", "3", "-o", str(tmp_path / "a.csv")]) == 0
    assert main(base + ["--seed", "3", "-o", str(tmp_path / "b.csv")]) == 0
    a, b = pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv")
    assert a["m_payload"].tolist() == b["m_payload"].tolist()
    assert sorted(int((m - 1000) / 7000 * 5) for m in a["m_payload"]) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--param", "m_payload=1:2"], "start:stop:count"),
        (["--param", "nope=1,2"], "no variable 'nope'"),
        (["--param", "m_payload=1,2", "--workers", "-1"], "--workers"),
        (["--param", "m_payload=1,2", "--set", "F_trolley=abc"], "not a number"),
        (["--sample", "m_payload=1:2"], "number of samples"),
        (["--param", "m_payload=1,2", "--kind", "me", "--set", "solver.method=rk4"], "with --kind me"),
        (["--param", "m_payload=1,2", "--plot", "map.png", "--plot-column", "x.max"], "choose one of theta.final"),
        (["--param", "m_payload=1,2", "--plot-column", "theta.max"], "give --plot PNG too"),
        (["--param", "m_payload=1,2", "--plot", "map.svg"], "--plot"),
    ],
)
def test_cli_sweep_errors_are_one_line(crane_fmu, tmp_path, capsys, extra, message):
    out = tmp_path / "r.csv"
    argv = ["sweep", str(crane_fmu), "--stop-time", "1", "--output", "theta", "-o", str(out), "--workers", "0"]
    assert main(argv[:-2] + extra + (argv[-2:] if "--workers" not in extra else [])) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("symbody: error:") and message in err[0]
    assert not out.exists()


def test_cli_sweep_plot_is_the_heat_map_of_the_table(crane_fmu, tmp_path, capsys):
    import matplotlib.image

    from symbody.study.plot import study_figure

    out, png = tmp_path / "r.csv", tmp_path / "map.png"
    argv = ["sweep", str(crane_fmu), "--param", "m_payload=1000,4000,8000", "--param", "l=6,12"]
    argv += ["--set", "F_trolley=2000", "--stop-time", str(STOP), "--interval", str(INTERVAL), "--output", "theta"]
    argv += ["--output", "x", "-o", str(out), "--plot", str(png), "--plot-column", "theta.max", "--workers", "0"]
    assert main([*argv, "--no-progress"]) == 0
    assert "wrote " + str(png) + " (theta.max over m_payload, l)" in capsys.readouterr().out
    assert matplotlib.image.imread(png).shape[:2] == (520, 750)  # the PNG of the figure below, at 100 dpi
    df = pd.read_csv(out)
    fig = study_figure(df, "theta.max", ["m_payload", "l"], {"theta": "rad", "l": "m", "m_payload": "kg"})
    ax = fig.axes[0]
    # rows: rope lengths, columns: payloads, each cell the run's theta.max, written in it
    expected = df.pivot(index="l", columns="m_payload", values="theta.max").to_numpy()
    np.testing.assert_array_equal(ax.images[0].get_array(), expected)
    assert sorted(t.get_text() for t in ax.texts) == sorted(f"{v:.3g}" for v in df["theta.max"])
    assert ax.get_xlabel() == "m_payload [kg]" and ax.get_ylabel() == "l [m]"
    assert ax.get_title().startswith("theta.max [rad] over m_payload and l: 6 runs")
    for row in df.to_dict("records"):  # the table the map shows is that of plain single runs
        assert row["theta.max"] == pytest.approx(
            single_run(crane_fmu, {"m_payload": row["m_payload"], "l": row["l"]})["theta.max"], rel=1e-12
        )


def test_study_plot_marks_failed_runs_and_falls_back_to_panels():
    from symbody.study.plot import study_figure

    df = pd.DataFrame(
        {"a": [1.0, 1.0, 2.0, 2.0], "b": [5.0, 6.0, 5.0, 6.0], "y.max": [1.0, 2.0, 3.0, 9.0]}
        | {"status": ["ok", "ok", "ok", "error"]}
    )
    ax = study_figure(df, "y.max", ["a", "b"]).axes[0]
    assert "failed" in [t.get_text() for t in ax.texts] and ax.get_title().endswith("4 runs, 1 failed")
    assert np.ma.is_masked(ax.images[0].get_array()[1, 1])  # the failed run's value is not drawn
    line = study_figure(df[df["b"] == 5.0], "y.max", ["a"]).axes[0]  # one variable: the column against it
    np.testing.assert_array_equal(line.lines[0].get_ydata(), [1.0, 3.0])
    sampled = df.assign(b=[5.0, 5.5, 6.0, 6.5])  # not a grid: one panel per variable
    assert len(study_figure(sampled, "y.max", ["a", "b"]).axes) == 2


# ---------------------------------------------------------------------------
# input signals, Model Exchange, FMI 3
# ---------------------------------------------------------------------------


def test_input_file_drives_every_run(crane_fmu, tmp_path):
    csv = tmp_path / "u.csv"
    csv.write_text("time,F_trolley\n0,0\n1,3000\n2.5,-1500\n4,0\n")
    argv = [
        "sweep",
        str(crane_fmu),
        "--param",
        "l=8,16",
        "--input-file",
        str(csv),
        "--stop-time",
        str(STOP),
        "--interval",
        str(INTERVAL),
        "--output",
        "x",
        "--output",
        "F_trolley",
        "-o",
        str(tmp_path / "r.csv"),
        "--workers",
        "0",
        "--no-progress",
    ]
    assert main(argv) == 0
    df = pd.read_csv(tmp_path / "r.csv")
    signal = np.array([(0, 0), (1, 3000), (2.5, -1500), (4, 0)], dtype=[("time", float), ("F_trolley", float)])
    for r in df.to_dict("records"):
        ref = fmpy.simulate_fmu(
            str(crane_fmu),
            stop_time=STOP,
            output_interval=INTERVAL,
            start_values={"l": r["l"]},
            input=signal,
            output=["x", "F_trolley"],
        )
        assert r["x.final"] == pytest.approx(ref["x"][-1], rel=1e-12)
        assert r["F_trolley.max"] == pytest.approx(3000.0) and r["F_trolley.min"] == pytest.approx(-1500.0)
    assert df["x.max"].min() > 0.1  # the input moved the trolley


@pytest.mark.parametrize("fmi_version", [2, 3])
def test_model_exchange_and_fmi3_runs_equal_single_runs(tmp_path, fmi_version):
    from symbody.fmu import export_fmu
    from symbody.models import pendulum

    fmu = export_fmu(pendulum().derive(), tmp_path / "p.fmu", kind="both", fmi_version=fmi_version)
    thetas = [0.2, 0.5, 1.0]
    for kind, fmi_type in (("cs", "CoSimulation"), ("me", "ModelExchange")):
        df = sweep(
            fmu,
            {"theta": thetas},
            stop_time=2.0,
            interval=0.01,
            kind=kind,
            outputs=["theta", "dtheta"],
            workers=0,
            progress=False,
        )
        assert (df["status"] == "ok").all(), df["message"].tolist()
        for theta, row in zip(thetas, df.to_dict("records")):
            ref = fmpy.simulate_fmu(
                str(fmu),
                fmi_type=fmi_type,
                stop_time=2.0,
                output_interval=0.01,
                start_values={"theta": theta},
                output=["theta", "dtheta"],
            )
            assert row["theta.final"] == pytest.approx(ref["theta"][-1], rel=1e-12, abs=1e-12)
            assert row["dtheta.min"] == pytest.approx(ref["dtheta"].min(), rel=1e-12, abs=1e-12)
            # a pendulum released at rest swings between -theta0 and theta0 (energy conservation)
            assert row["theta.min"] == pytest.approx(-theta, rel=2e-3)


def test_controller_in_the_loop_fmi3(tmp_path):
    sys.path.insert(0, str(ROOT / "examples" / "crane_control"))
    try:
        from crane_loop import FeedbackLaw, FmuPlant, run_closed_loop
    finally:
        sys.path.pop(0)
    from symbody.fmu import export_fmu
    from symbody.models import pendulum

    fmu = export_fmu(pendulum().derive(), tmp_path / "p3.fmu", kind="cs", fmi_version=3)

    def pd_law(t, y):
        return np.array([-20.0 * y[0] - 5.0 * y[1]])

    law = FeedbackLaw(["theta", "dtheta"], ["T"], pd_law)
    df = sweep(
        fmu,
        {"theta": [0.3, -0.6]},
        stop_time=2.0,
        controller=law,
        sample_period=0.01,
        outputs=["theta", "T"],
        workers=0,
        progress=False,
    )
    for theta, row in zip([0.3, -0.6], df.to_dict("records")):
        ref = run_closed_loop(FmuPlant(fmu, {"theta": theta}), law, 2.0, 0.01)
        assert row["status"] == "ok"
        assert row["theta.final"] == pytest.approx(ref["theta"][-1], rel=1e-12, abs=1e-15)
        assert row["T.max"] == pytest.approx(ref["T"].max(), rel=1e-12)
        assert abs(row["theta.final"]) < 0.01 * abs(theta)  # the PD loop holds the pendulum down


def test_cli_sweep_of_a_model_file_resumes_after_a_new_export(tmp_path, capsys):
    """A model file is exported at each call; the export date differs, the study is the same one."""
    out = tmp_path / "r.csv"
    argv = [
        "sweep",
        str(ROOT / "examples" / "simple_pendulum.py"),
        "--param",
        "l=0.5,2",
        "--set",
        "theta=0.2",
        "--stop-time",
        "1",
        "--interval",
        "0.01",
        "--output",
        "theta",
        "-o",
        str(out),
        "--workers",
        "0",
        "--no-progress",
    ]
    assert main(argv) == 0
    assert "2 run now, 0 found" in capsys.readouterr().out
    assert main(argv[:3] + ["l=0.5,1,2"] + argv[4:]) == 0
    assert "1 run now, 2 found" in capsys.readouterr().out
    df = pd.read_csv(out)
    # small swings: theta(t) = 0.2 cos(sqrt(g/l) t) within a few percent of the amplitude (damped, nonlinear)
    for r in df.to_dict("records"):
        expected = 0.2 * np.cos(np.sqrt(9.81 / r["l"]) * 1.0)
        assert abs(r["theta.final"] - expected) < 0.02, r


def test_worker_cache_reuses_runners_and_keeps_the_most_recent(crane_fmu, tmp_path):
    from symbody.fmu import export_fmu
    from symbody.models import pendulum
    from symbody.study import runner as rn

    data = crane_fmu.read_bytes()
    first = rn.cached_runner(data, rn.fmu_hash(data))
    assert rn.cached_runner(data, rn.fmu_hash(data)) is first
    others = []
    for k in range(rn.RUNNERS_PER_THREAD):  # as many other FMUs as the cache holds
        fmu = export_fmu(pendulum(0.1 * (k + 1)).derive(), tmp_path / f"p{k}.fmu", kind="cs")
        others.append(rn.cached_runner(fmu.read_bytes(), rn.fmu_hash(fmu.read_bytes())))
    assert first._closed and not any(r._closed for r in others)  # the least recently used was closed
    with pytest.raises(ValueError, match="do not match"):
        rn.cached_runner(data, "0" * 64)
    rn._close_runners()


def test_factorial_and_sample_are_crossed(crane_fmu):
    df = sweep(
        crane_fmu,
        {"l": [8.0, 12.0]},
        samples={"m_payload": (3000.0, 5000.0)},
        n_samples=3,
        seed=5,
        stop_time=0.5,
        outputs=["theta"],
        workers=0,
        progress=False,
    )
    assert len(df) == 6 and (df["status"] == "ok").all()
    assert (
        df.groupby("l")["m_payload"].apply(sorted).tolist()[0] == df.groupby("l")["m_payload"].apply(sorted).tolist()[1]
    )
    assert df["m_payload"].between(3000.0, 5000.0).all() and df["m_payload"].nunique() == 3
    with pytest.raises(StudyError, match="both swept and sampled"):
        sweep(
            crane_fmu,
            {"l": [8.0]},
            samples={"l": (5.0, 9.0)},
            n_samples=2,
            stop_time=0.5,
            outputs=["theta"],
            workers=0,
            progress=False,
        )


def test_runners_in_one_process_keep_their_own_messages(crane_fmu):
    """Two runners alive in one worker process (two threads): each FMU instance logs to its own runner.

    fmpy's FMI 2 logger proxy holds one logger per process: the first runner's messages went to the
    second runner, and once the second freed its instance the first called a freed callback.
    """
    failing = {"solver.method": 1, "solver.step": FAILING_STEP}
    settings = RunSettings(stop_time=1.0, outputs=("theta",), interval=INTERVAL)
    a, b = FmuRunner(crane_fmu.read_bytes()), FmuRunner(crane_fmu.read_bytes())
    assert a.run({"m_payload": 3000.0}, settings)["status"] == "ok"
    row_b = b.run({"m_payload": 3000.0, **failing}, settings)  # b's instance is freed after its discard
    row_a = a.run({"m_payload": 3000.0, **failing}, settings)
    for row in (row_a, row_b):
        assert row["status"] == "discard" and "internal steps" in row["message"], row["message"]
    assert b.messages == [] or all("internal steps" in m for m in b.messages)
    a.close()
    b.close()
