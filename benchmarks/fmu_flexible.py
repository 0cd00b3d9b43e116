"""The flexible tower crane of at least 60 coordinates: derivation, export and its Co-Simulation FMU's speed.

The model is ``examples/tower_crane.py --option flexible=True --option segments=15``: mast and jib of 15
rigid finite elements each, bending only (``System.flexible_beam(..., axial=False, torsion=False)``),
63 coordinates.  Rows:

* derivation (``System.derive``, in a child process), wall and CPU time; target under 2 s;
* ``symbody export ... --platforms x86_64-linux`` (a child process), wall time and the CPU time of the
  process and its compilers; target under 30 s;
* the CS FMU driven by fmpy through a slewing move (``tau_slew`` = +150 kN.m for 8 s, then -150 kN.m
  for 8 s, 20 s in all, 10 ms communication steps) from the static equilibrium (start values of the
  coordinates set before initialization), with each embedded solver; target 50x real time.  The
  accuracy is that of the rigid crane's run (``fmu_realtime.py``): the payload's position deviates
  from a reference by at most 1e-5 of its amplitude.  The reference is the same FMU with dopri5 at
  ``rtol = 1e-11`` (symbody's Python simulation of 126 states over 20 s with DOP853 would take hours:
  the highest bending modes are at 450 Hz; the C code and the Python equations agree, tests/fmu).
  rosenbrock23 runs only the first 2 s: its exact Jacobian of 126 states makes it far slower.  rk4 at
  0.8 ms is within its stability limit (spectral radius of the Jacobian about 2.8e3 1/s, h |lambda| 2.3).

Run: ``python benchmarks/fmu_flexible.py [--quick|--smoke]`` (or through ``benchmarks/run.py``).
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
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import tower_crane  # noqa: E402
from common import EXAMPLES, Row, fmt_time  # noqa: E402

SEGMENTS = 15
H_COMM = 0.01
OUT = ("x_payload", "y_payload", "z_payload")
REFERENCE = {"solver.method": 2, "solver.rtol": 1e-11, "solver.atol": 1e-12}
#: (label, settings, stop time): the solvers compared
SOLVERS = (
    ("dopri5, rtol = 1e-6", {"solver.method": 2, "solver.rtol": 1e-6, "solver.atol": 1e-8}, 20.0),
    ("dopri5, rtol = 1e-4", {"solver.method": 2, "solver.rtol": 1e-4, "solver.atol": 1e-6}, 20.0),
    ("rk4, solver.step = 0.8 ms", {"solver.method": 1, "solver.step": 8e-4}, 20.0),
    ("rosenbrock23, rtol = 1e-5", {"solver.method": 3, "solver.rtol": 1e-5, "solver.atol": 1e-7}, 2.0),
)
TOLERANCE = 1e-5


def slew_torque(t: float) -> float:
    return 1.5e5 if t < 8.0 - 1e-9 else (-1.5e5 if t < 16.0 - 1e-9 else 0.0)


TIMED_DERIVE = """
import sys, time
sys.path.insert(0, {examples!r})
import tower_crane
system = tower_crane.build(flexible=True, segments={segments})
c0, t0 = time.process_time(), time.perf_counter()
system.derive()
print(time.perf_counter() - t0, time.process_time() - c0)
"""


def derive(segments: int):
    """The equations, and the wall and CPU time of the derivation in a fresh process (as ``symbody export`` runs)."""
    code = TIMED_DERIVE.format(examples=str(EXAMPLES), segments=segments)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    wall, cpu = map(float, out.split()[-2:])
    return tower_crane.build(flexible=True, segments=segments).derive(), wall, cpu


def export(segments: int, out: Path) -> tuple[float, float]:
    """``symbody export`` in a child process with an empty build cache (a cold export): wall time and CPU time
    (with the compilers it starts)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    options = ["--option", "flexible=True", "--option", f"segments={segments}", "--platforms", "x86_64-linux"]
    cmd = [sys.executable, "-m", "symbody.cli", "export", str(EXAMPLES / "tower_crane.py"), *options, "-o", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, "SYMBODY_CACHE": str(out.parent / "cache")})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def rest(eq) -> np.ndarray:
    """The static equilibrium (slew held at 0), the start of the run."""
    from symbody.numeric import static_equilibrium

    guess = [0.01 if c.name == "beta_r" else 0.0 for c in eq.coordinates]
    return static_equilibrium(eq, guess, fixed={"theta": 0.0}).q


def run_fmu(fmu: Path, q0: dict[str, float], settings: dict, stop: float) -> tuple[np.ndarray, float, float]:
    """The payload's position after each communication step, wall and CPU time of the doStep loop."""
    import fmpy
    from fmpy.simulation import instantiate_fmu

    md = fmpy.read_model_description(str(fmu))
    unzip = fmpy.extract(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    inst = instantiate_fmu(unzip, md, "CoSimulation")
    inst.setupExperiment(startTime=0.0)
    for name, value in settings.items():
        (inst.setInteger if name == "solver.method" else inst.setReal)([vr[name]], [value])
    inst.setReal([vr[n] for n in q0], list(q0.values()))
    inst.enterInitializationMode()
    inst.exitInitializationMode()
    out_vr, tau = [vr[n] for n in OUT], [vr["tau_slew"]]
    recorded = []
    c0, t0 = time.process_time(), time.perf_counter()
    for k in range(int(round(stop / H_COMM))):
        t = k * H_COMM
        inst.setReal(tau, [slew_torque(t)])
        inst.doStep(t, H_COMM)
        recorded.append(inst.getReal(out_vr))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    inst.terminate()
    inst.freeInstance()
    return np.array(recorded), wall, cpu


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    segments = 2 if smoke else SEGMENTS
    load = os.getloadavg()[0]
    eq, wall, cpu = derive(segments)
    n = len(eq.coordinates)
    rows = [Row("flexible crane", f"tower crane, flexible mast and jib, {n} coordinates: derive", f"{wall:.2f} s wall",
                "-", None, "< 2 s", cpu < 2.0, f"CPU time {cpu:.2f} s (the target is checked on it: the machine is "
                f"shared, load average {load:.1f} on {os.cpu_count()} cores)")]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="symbody_bench_flex_") as tmp:
        fmu = Path(tmp) / "flexible_crane.fmu"
        wall, cpu = export(segments, fmu)
        rows.append(Row("flexible crane", f"{n} coordinates: symbody export --platforms x86_64-linux",
                        f"{wall:.1f} s wall", "-", None, "< 30 s", cpu < 30.0,
                        f"CPU time of the export and its compilers {cpu:.1f} s"))  # fmt: skip
        q0 = dict(zip((c.name for c in eq.coordinates), map(float, rest(eq))))
        stop = 1.0 if smoke else 20.0
        reference, _, ref_cpu = run_fmu(fmu, q0, REFERENCE, stop)
        amplitude = np.maximum(np.ptp(reference, axis=0), 1.0)
        for label, settings, window in SOLVERS:
            window = min(window, stop)
            y, wall, cpu = run_fmu(fmu, q0, settings, window)
            steps = len(y)
            dev = float(np.max(np.abs(y - reference[:steps]) / amplitude))
            rows.append(Row("flexible crane", f"{n} coordinates, CS FMU (FMI 2.0), {label}, {window:g} s of slewing",
                            f"{fmt_time(wall)} wall", f"real time {window:g} s", window / wall, ">= 50x",
                            window / cpu >= 50 and dev <= TOLERANCE,
                            f"CPU time {fmt_time(cpu)} ({window / cpu:.3g}x real time by CPU time); payload position "
                            f"within {dev:.0e} of its amplitude of the reference (dopri5, rtol 1e-11, {stop:g} s in "
                            f"{ref_cpu:.1f} s CPU); fmpy, setReal/doStep/getReal every 10 ms"))  # fmt: skip
    return rows


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv, smoke="--smoke" in sys.argv):
        print(f"{r.case} | {r.symbody} | {r.ratio} | {r.target} | {r.met}\n    {r.note}")
