"""Parameter studies on a real dask cluster on the loopback: a scheduler and two worker processes
started with dask's own command line (``dask scheduler``, ``dask worker``), killed at the end.

Checks that every row equals a plain fmpy run of the same case, that failing runs are
recorded without stopping the study, that a resumed study does not rerun finished cases
(actual runs counted by a metric that writes one line per run into a file), and the
``symbody sweep --scheduler`` command line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import fmpy
import pandas as pd
import pytest

from symbody.study import sweep

ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = ["theta", "x", "rope_tension"]
FIXED = {"F_trolley": 2000.0, "solver.method": 1}
STOP, INTERVAL = 3.0, 0.05

pytestmark = pytest.mark.slow


def _start(args: list[str], log: Path, **env: str) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "dask", *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **env},
        )


def _stop(proc: subprocess.Popen) -> None:
    """Stop a process started here and its children (the worker's nanny spawns the worker)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)


@pytest.fixture(scope="module")
def scheduler_file(tmp_path_factory):
    """A scheduler and two single-threaded worker processes on 127.0.0.1."""
    from distributed import Client

    d = tmp_path_factory.mktemp("dask")
    f = d / "scheduler.json"
    procs = [
        _start(
            ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(f)],
            d / "scheduler.log",
            # a task whose worker dies is retried once elsewhere, then reported (the crash test below)
            DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="1",
        )
    ]
    try:
        deadline = time.monotonic() + 60
        while not f.exists():
            if time.monotonic() > deadline or procs[0].poll() is not None:
                pytest.fail("dask scheduler did not start: " + (d / "scheduler.log").read_text()[-2000:])
            time.sleep(0.2)
        assert json.loads(f.read_text())["address"].startswith("tcp://127.0.0.1:")
        procs.append(
            _start(
                [
                    "worker",
                    "--scheduler-file",
                    str(f),
                    "--nworkers",
                    "2",
                    "--nthreads",
                    "1",
                    "--host",
                    "127.0.0.1",
                    "--no-dashboard",
                    "--local-directory",
                    str(d),
                ],
                d / "worker.log",
            )
        )
        with Client(scheduler_file=str(f)) as c:
            c.wait_for_workers(2, timeout=90)
            assert len(c.scheduler_info()["workers"]) == 2
        yield str(f)
    finally:
        for p in reversed(procs):
            _stop(p)


@pytest.fixture(scope="module")
def crane_fmu(tmp_path_factory) -> Path:
    from symbody.fmu import export_fmu
    from symbody.loader import load_model

    out = tmp_path_factory.mktemp("sweep_cluster_fmu") / "overhead_crane.fmu"
    return export_fmu(load_model(ROOT / "examples" / "overhead_crane.py"), out, kind="cs")


def single_run(fmu: Path, case: dict) -> dict[str, float]:
    res = fmpy.simulate_fmu(
        str(fmu), stop_time=STOP, output_interval=INTERVAL, start_values={**FIXED, **case}, output=OUTPUTS
    )
    assert res["time"][-1] == pytest.approx(STOP)
    out = {}
    for name in OUTPUTS:
        out[f"{name}.final"], out[f"{name}.min"], out[f"{name}.max"] = res[name][-1], res[name].min(), res[name].max()
    return out


def run_counter(path: Path):
    """A metric that counts the runs actually made (one line per run, appended on the worker)."""

    def runs(traj) -> float:
        with open(path, "a") as f:
            f.write(f"{traj['time'][-1]}\n")
        return 1.0

    return runs


def count(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_cluster_rows_equal_single_runs_and_failures_are_recorded(scheduler_file, crane_fmu, tmp_path):
    params = {"m_payload": [-1.0, 1500.0, 3000.0, 6000.0], "l": [8.0, 14.0], "solver.step": [1e-3, 1e-9]}
    out = tmp_path / "results.parquet"
    df = sweep(
        crane_fmu,
        params,
        start_values=FIXED,
        stop_time=STOP,
        interval=INTERVAL,
        outputs=OUTPUTS,
        scheduler=scheduler_file,
        output=out,
        progress=False,
    )
    assert len(df) == 16 and df.attrs["runs"] == 16
    expected = {-1.0: "error"}
    for r in df.to_dict("records"):
        status = expected.get(r["m_payload"], "discard" if r["solver.step"] == 1e-9 else "ok")
        assert r["status"] == status, (r, r["message"])
        if status == "ok":
            ref = single_run(crane_fmu, {k: r[k] for k in params})
            for column, value in ref.items():
                assert r[column] == pytest.approx(value, rel=1e-12, abs=1e-12), column
        elif status == "error":
            assert "m_payload" in r["message"] and "outside its range" in r["message"]
        else:
            assert "discarded" in r["message"]
    # each worker instantiates the FMU once, and again only after a failed run freed its instance
    failures = int((df["status"] != "ok").sum())
    assert 2 <= df.attrs["instantiations"] <= 2 + failures
    back = pd.read_parquet(out)
    assert back["run_id"].tolist() == df["run_id"].tolist()


def test_cluster_resumed_study_does_not_rerun_finished_cases(scheduler_file, crane_fmu, tmp_path):
    out, counter = tmp_path / "results.csv", tmp_path / "runs.txt"
    kw = dict(
        start_values=FIXED,
        stop_time=STOP,
        interval=INTERVAL,
        outputs=OUTPUTS,
        scheduler=scheduler_file,
        output=out,
        progress=False,
        metrics={"runs": run_counter(counter)},
    )
    first = sweep(crane_fmu, {"m_payload": [1000.0, 3000.0], "l": [8.0, 12.0, 16.0]}, **kw)
    assert count(counter) == 6 and (first["status"] == "ok").all()
    again = sweep(crane_fmu, {"m_payload": [1000.0, 3000.0, 4000.0], "l": [8.0, 12.0, 16.0]}, **kw)
    assert count(counter) == 9  # only the three new cases ran
    assert again.attrs == {"runs": 3, "skipped": 6, "instantiations": again.attrs["instantiations"]}
    merged = again.set_index("run_id")
    for r in first.to_dict("records"):  # the earlier rows are kept as they were
        assert merged.loc[r["run_id"], "theta.max"] == r["theta.max"]
    for r in again.to_dict("records"):
        ref = single_run(crane_fmu, {"m_payload": r["m_payload"], "l": r["l"]})
        assert r["x.final"] == pytest.approx(ref["x.final"], rel=1e-12)


def test_cli_sweep_on_the_cluster(scheduler_file, crane_fmu, tmp_path):
    out = tmp_path / "r.csv"
    cmd = [
        sys.executable,
        "-m",
        "symbody",
        "sweep",
        str(crane_fmu),
        "--param",
        "m_payload=3000:6000:4",
        "--set",
        "F_trolley=2000",
        "--set",
        "solver.method=1",
        "--stop-time",
        str(STOP),
        "--interval",
        str(INTERVAL),
        "--output",
        "theta",
        "--output",
        "x",
        "--output",
        "rope_tension",
        "-o",
        str(out),
        "--scheduler",
        scheduler_file,
        "--no-progress",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "4 run now" in proc.stdout
    df = pd.read_csv(out)
    assert df["m_payload"].tolist() == [3000.0, 4000.0, 5000.0, 6000.0]
    for r in df.to_dict("records"):
        ref = single_run(crane_fmu, {"m_payload": r["m_payload"]})
        for column, value in ref.items():
            assert r[column] == pytest.approx(value, rel=1e-12, abs=1e-12), column
    proc = subprocess.run(cmd[:-3] + ["--workers", "2"] + cmd[-3:], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.startswith("symbody: error: --workers")


def test_cluster_a_run_that_kills_its_worker_is_recorded(scheduler_file, crane_fmu, tmp_path):
    """A run that takes its worker process down (as a crashing FMU would) fails alone; the study goes on."""

    def crash(traj) -> float:
        if abs(traj["theta"][0] - 0.07) < 1e-12:
            os._exit(3)
        return 0.0

    thetas = [0.01 * k for k in range(1, 21)]  # 20 runs: batches of 2 on 2 workers, the crashing one split
    df = sweep(
        crane_fmu,
        {"theta": thetas},
        start_values=FIXED,
        stop_time=1.0,
        outputs=["theta"],
        metrics={"crash": crash},
        scheduler=scheduler_file,
        output=tmp_path / "r.csv",
        progress=False,
    )
    failed = df[df["status"] != "ok"]
    assert failed["theta"].tolist() == [0.07] and failed["status"].tolist() == ["error"]
    assert "worker failed" in failed["message"].iloc[0]
    ok = df[df["status"] == "ok"]
    assert ok["theta.max"].tolist() == pytest.approx([t for t in thetas if t != 0.07], abs=1e-9)


def test_default_local_cluster_gives_the_rows_of_one_process(crane_fmu, tmp_path):
    """``workers=2`` starts (and closes) a LocalCluster of two processes on the loopback."""
    import psutil

    params = {"m_payload": [3000.0, 5000.0], "l": [8.0, 20.0]}
    kw = dict(start_values=FIXED, stop_time=STOP, interval=INTERVAL, outputs=OUTPUTS, progress=False)
    # the LocalCluster's worker processes are children of this process (the module's cluster has grandchildren)
    before = {p.pid for p in psutil.Process().children()}
    df = sweep(crane_fmu, params, workers=2, **kw)
    here = sweep(crane_fmu, params, workers=0, **kw)
    assert (df["status"] == "ok").all()
    cols = [f"{n}.{s}" for n in OUTPUTS for s in ("final", "min", "max")]
    assert df[cols].to_numpy().tolist() == here[cols].to_numpy().tolist()
    time.sleep(1.0)
    left = {
        p.pid
        for p in psutil.Process().children()
        if p.is_running() and "resource_tracker" not in " ".join(p.cmdline())  # multiprocessing's, lives on
    } - before
    assert not left, "the local cluster's worker processes outlived the sweep"
