"""Parameter-study throughput: a 200-run sweep of the overhead crane on a 2-worker dask LocalCluster
versus the same runs one after another in one process.

Run ``python benchmarks/bench_sweep.py [--quick|--smoke]``.

The study: the overhead crane's Co-Simulation FMU (dopri5, ``solver.rtol`` 1e-9, 10 ms
communication steps as in ``examples/crane_control``), 35 s of a trolley drive with a constant
2 kN force (the hoist holding the 4 t payload), over 20 trolley masses (1-3 t) and 10 rope
lengths (5-30 m), summaries of ``theta``, ``x`` and ``rope_tension`` per run.  Three timings,
interleaved round by round so that load from other processes hits them alike (best of the
rounds):

* *bare*: the simulations alone: ``fmpy.simulate_fmu`` on one instance reset between runs, no
  summaries, no results table;
* *sequential*: :func:`symbody.sweep` with ``workers=0`` (the same runs one after another in
  this process: runner, summaries, results table);
* *cluster*: :func:`symbody.sweep` on a 2-worker ``LocalCluster`` started beforehand (its
  start-up time is reported apart).

Rows: the speed-up cluster vs sequential (target >= 1.7x on 2 cores) and the per-run overhead
beyond the simulation itself (scheduling, shipping, summaries, the results table; target
< 20 ms), measured as CPU time (client, scheduler and workers during the cluster sweep minus
the bare simulations, per run: what the study costs beyond simulating, whatever else runs on
the machine) and as wall time (``2 x cluster wall / runs - bare / runs``, which also counts the
time other processes take from the cores).  The machine's load average is noted: on a shared
machine the speed-up is bounded by the cores other processes leave free; the first row's note
adds an estimate for two free cores from the CPU times (sequential CPU over half the cluster's).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import Row, fmt_time, load_example  # noqa: E402

STOP = 35.0
INTERVAL = 0.01  # s, the communication step of the crane-control examples
OUTPUTS = ["theta", "x", "rope_tension"]
FIXED = {"F_trolley": 2000.0, "solver.method": 2, "solver.rtol": 1e-9, "solver.atol": 1e-11}
WORKERS = 2


def study(n_trolleys: int, n_lengths: int) -> dict[str, list[float]]:
    return {"m_trolley": list(np.linspace(1000, 3000, n_trolleys)), "l": list(np.linspace(5, 30, n_lengths))}


def bare_runs(fmu: Path, params: dict[str, list[float]]) -> tuple[float, float]:
    """Wall and CPU time of the simulations alone (one instance, reset between runs)."""
    import fmpy
    from fmpy.simulation import instantiate_fmu

    tmp = tempfile.mkdtemp(prefix="bench_sweep_")
    unzipdir = fmpy.extract(str(fmu), unzipdir=tmp)
    md = fmpy.read_model_description(unzipdir)
    inst = instantiate_fmu(unzipdir, md, "CoSimulation")
    cases = [(m, length) for m in params["m_trolley"] for length in params["l"]]
    t0, c0 = time.perf_counter(), time.process_time()
    for i, (m, length) in enumerate(cases):
        if i:
            inst.reset()
        fmpy.simulate_fmu(
            unzipdir,
            model_description=md,
            fmu_instance=inst,
            stop_time=STOP,
            output=OUTPUTS,
            output_interval=INTERVAL,
            start_values={**FIXED, "m_trolley": m, "l": length},
        )
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    inst.freeInstance()
    return wall, cpu


def cpu_seconds(client) -> float:
    """CPU time of this process (client and LocalCluster scheduler) and of every worker process."""
    return time.process_time() + (sum(client.run(time.process_time).values()) if client is not None else 0.0)


def swept(fmu: Path, params, client=None, **engine) -> tuple[float, float, object]:
    """Wall and CPU time (all processes) of a sweep, and its table."""
    from symbody.study import sweep

    t0, c0 = time.perf_counter(), cpu_seconds(client)
    df = sweep(
        fmu,
        params,
        start_values=FIXED,
        stop_time=STOP,
        interval=INTERVAL,
        outputs=OUTPUTS,
        progress=False,
        client=client,
        **engine,
    )
    wall, cpu = time.perf_counter() - t0, cpu_seconds(client) - c0
    if not (df["status"] == "ok").all():
        raise RuntimeError(f"failed runs in the benchmark: {df[df['status'] != 'ok']['message'].tolist()[:2]}")
    return wall, cpu, df


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    import logging

    from distributed import Client, LocalCluster

    from symbody.fmu import export_fmu

    shape = (2, 2) if smoke else (20, 10)
    rounds = 1 if (smoke or quick) else 3
    params = study(*shape)
    n = shape[0] * shape[1]
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench_sweep_") as tmp:
        fmu = export_fmu(load_example("overhead_crane"), Path(tmp) / "overhead_crane.fmu", kind="cs")
        t0 = time.perf_counter()
        cluster = LocalCluster(
            n_workers=WORKERS,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
        startup = time.perf_counter() - t0
        try:
            swept(fmu, study(1, WORKERS), client=client)  # warm-up: the workers import fmpy and extract the FMU
            c0, t0 = cpu_seconds(client), time.perf_counter()
            time.sleep(0.5 if smoke else 2.0)
            idle_rate = (cpu_seconds(client) - c0) / (time.perf_counter() - t0)  # heartbeats, event loops
            bare, seq, par, bare_cpu, seq_cpu, par_cpu = [], [], [], [], [], []
            for _ in range(rounds):
                wall, cpu = bare_runs(fmu, params)
                bare.append(wall)
                bare_cpu.append(cpu)
                wall, cpu, seq_df = swept(fmu, params, workers=0)
                seq.append(wall)
                seq_cpu.append(cpu)
                wall, cpu, par_df = swept(fmu, params, client=client)
                par.append(wall)
                par_cpu.append(cpu)
            same = np.array_equal(seq_df["theta.max"].to_numpy(), par_df["theta.max"].to_numpy())
        finally:
            client.close()
            cluster.close()
    load1 = os.getloadavg()[0]
    b, s, p = min(bare), min(seq), min(par)
    speedup = s / p
    overhead = WORKERS * p / n - b / n
    cpu_overhead = (min(par_cpu) - min(bare_cpu)) / n
    projected = min(seq_cpu) / (min(par_cpu) / WORKERS)  # if each worker had a core of its own
    load = f"load average {load0:.1f} -> {load1:.1f} on {os.cpu_count()} cores"
    case = f"overhead crane, {n} runs of 35 s (dopri5, rtol 1e-9, 10 ms steps), {WORKERS}-worker LocalCluster"
    return [
        Row(
            "parameter sweep",
            case + " vs one process",
            f"{fmt_time(p)} ({fmt_time(p / n)}/run)",
            f"sequential {fmt_time(s)} ({fmt_time(s / n)}/run)",
            speedup,
            ">= 1.7x" if not smoke else "- (smoke)",
            (speedup >= 1.7) if not smoke else None,
            f"Best of {rounds} interleaved rounds; cluster start-up {fmt_time(startup)} not included; "
            f"from the CPU times, with {WORKERS} free cores: {projected:.2f}x (estimate); "
            f"rows equal to the sequential ones: {'yes' if same else 'NO'}; {load}.",
        ),
        Row(
            "parameter sweep",
            case + ": per-run overhead beyond the simulation (CPU time)",
            f"{fmt_time(cpu_overhead)}/run",
            f"simulation alone {fmt_time(min(bare_cpu) / n)}/run",
            None,
            "< 20 ms" if not smoke else "- (smoke)",
            (cpu_overhead < 0.020) if not smoke else None,
            "CPU time of the client, the scheduler and both workers during the sweep, minus that of the bare "
            f"simulations, per run (other processes' load does not enter it); of it, "
            f"{fmt_time(idle_rate * p / n)}/run is the idle cluster's own background (heartbeats, event loops: "
            f"{100 * idle_rate:.0f} % of a core); {load}.",
        ),
        Row(
            "parameter sweep",
            case + ": per-run overhead beyond the simulation (wall time)",
            f"{fmt_time(overhead)}/run",
            f"simulation alone {fmt_time(b / n)}/run",
            None,
            "- (recorded)",
            None,
            f"{WORKERS} x cluster wall / runs - bare simulation wall / runs: includes the time other processes "
            f"took from the two cores; {load}.",
        ),
    ]


if __name__ == "__main__":
    quick, smoke = "--quick" in sys.argv, "--smoke" in sys.argv
    for row in run(quick=quick, smoke=smoke):
        print(row)
