"""Export time and Co-Simulation real-time factor of the knuckle-boom crane with hydraulic cylinders and an
elastic rope on a hoist winch (``examples/knuckle_crane.py``, ``actuation="hydraulic"``).

* Export: ``symbody export examples/knuckle_crane.py --option actuation=hydraulic --platforms x86_64-linux``
  in a child process, model file to FMU (wall time, and the child's CPU time).  Target: under 10 s.
* Real-time factor: fmpy drives the FMI 2 Co-Simulation FMU through a crane move at 10 ms communication steps
  (``tau_hoist`` +800 N m for 2 s, then -800 N m for 2 s; the main spool at 0.2 for 3 s, then -0.2 for 3 s;
  the knuckle spool at -0.2 from 1 s to 4 s) with the embedded ``dopri5`` (rtol 1e-6), its best solver here
  (``rk4`` needs steps below 0.5 ms through the valves' laminar regions, ``rosenbrock23`` pays for its
  Jacobians).  Best wall time of several rounds; the end state is checked against ``rosenbrock23`` at rtol
  1e-8 first.  Target: at least 100x real time.

Run: ``python benchmarks/fmu_hoist.py [--quick|--smoke]`` (or through ``benchmarks/run.py``).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import EXAMPLES, Row  # noqa: E402

H_COMM = 0.01
STATES = ["luff", "fold", "hang", "hoist", "main_cylinder_p1", "jib_cylinder_p1"]
#: largest relative deviation of the timed run's end state from rosenbrock23 at rtol 1e-8
TOLERANCE = 1e-4


def move(stop: float) -> np.ndarray:
    """The crane move as an fmpy input signal."""
    t = np.arange(0.0, stop + H_COMM / 2, H_COMM)

    def pulse(a: float, b: float, v: float) -> np.ndarray:
        return np.where((t >= a) & (t < b), v, 0.0)

    columns = (t, pulse(0, 2, 800.0) - pulse(2, 4, 800.0), pulse(0, 3, 0.2) - pulse(3, 6, 0.2), pulse(1, 4, -0.2))
    names = ("time", "tau_hoist", "main_cylinder_spool", "jib_cylinder_spool")
    return np.array(list(zip(*columns)), dtype=[(n, float) for n in names])


def export(out: Path) -> tuple[float, float]:
    """Model file to FMU in a child process with an empty build cache (a cold export): (wall, CPU) seconds."""
    cmd = [sys.executable, "-m", "symbody", "export", str(EXAMPLES / "knuckle_crane.py"), "--option",
           "actuation=hydraulic", "-o", str(out), "--platforms", "x86_64-linux"]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, "SYMBODY_CACHE": str(out.parent / "cache")})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def simulate(fmu: Path, stop: float, settings: dict) -> tuple[float, float, np.ndarray]:
    """(wall seconds, CPU seconds, end state) of one run of the move."""
    import fmpy

    t0, c0 = time.perf_counter(), time.process_time()
    res = fmpy.simulate_fmu(str(fmu), fmi_type="CoSimulation", stop_time=stop, output_interval=H_COMM,
                            start_values=settings, input=move(stop), output=STATES)  # fmt: skip
    return time.perf_counter() - t0, time.process_time() - c0, np.array([res[n][-1] for n in STATES])


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    load = os.getloadavg()[0]
    stop = 1.0 if smoke else 10.0
    rounds = 1 if smoke else (3 if quick else 7)
    with tempfile.TemporaryDirectory(prefix="symbody_bench_hoist_") as tmp:
        fmu = Path(tmp) / "knuckle_crane.fmu"
        wall, cpu = export(fmu)
        _, _, reference = simulate(fmu, stop, {"solver.method": 3, "solver.rtol": 1e-8, "solver.atol": 1e-10})
        best, best_cpu = float("inf"), float("inf")
        for _ in range(rounds):
            elapsed, used, end = simulate(fmu, stop, {"solver.method": 2, "solver.rtol": 1e-6})
            best, best_cpu = min(best, elapsed), min(best_cpu, used)
        dev = float(np.max(np.abs(end - reference) / np.maximum(np.abs(reference), 1.0)))
        if not dev <= TOLERANCE:
            raise RuntimeError(f"the dopri5 run deviates from rosenbrock23 by {dev:.3g} (> {TOLERANCE:g})")
    rtf = stop / best
    note = f"load average {load:.1f}"
    return [
        Row(
            "hoisting crane FMU",
            "hydraulic knuckle crane: model file to FMU (x86_64-linux)",
            f"{wall:.1f} s",
            f"CPU {cpu:.1f} s",
            None,
            "< 10 s",
            wall < 10.0,
            note,
        ),  # fmt: skip
        Row(
            "hoisting crane FMU",
            "hydraulic knuckle crane: CS real-time factor (dopri5, rtol 1e-6)",
            f"{rtf:.0f}x",
            f"{stop / best_cpu:.0f}x of CPU time; end state within {dev:.1g} of rosenbrock23",
            None,
            ">= 100x",
            rtf >= 100.0,
            note,
        ),  # fmt: skip
    ]


if __name__ == "__main__":
    mode = sys.argv[1:] and sys.argv[1]
    for row in run(quick=mode == "--quick", smoke=mode == "--smoke"):
        print(row)
