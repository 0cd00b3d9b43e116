"""Event handling does not slow event-free models (issue 14).

The native runtime handles unilateral contacts and switching loads (``sb_events.c``);
a model without them must not pay for that machinery.  For the tower crane
(``examples/tower_crane.py``) and the planar overhead crane
(``examples/overhead_crane.py``), both without events, the FMI 2.0 Co-Simulation
FMU is exported once; its shipped sources (``sources/``) are then compiled twice
with the compiler and flags of a native FMU, once as they are (the runtime as
shipped) and once with ``-DSB_NO_EVENTS`` (the runtime with the event machinery
compiled out: no test for contacts or switching loads on any path, and an
instantiation that refuses a model with events).  The same command builds both,
only the define differs.

Both FMUs run the benchmark move with ``rk4`` at a 1 ms step and 10 ms
communication steps through fmpy (the bare ``doStep`` loop of
``fmu_realtime.py`` and ``fmu_crane_hand.py``), in alternated rounds, best round
of each by the CPU time of the loop (which other processes on a shared machine
inflate less than the wall time, also recorded); the recorded states must agree
bit for bit (the same arithmetic).  Ratio = time without events / time as shipped: 1.0 means the shipped runtime
costs nothing for the events the model does not use; "met" allows 3 % of timing
noise.  Where valgrind is installed, a second row per model compares the
instructions per rk4 step inside ``fmi2DoStep`` (``harness/fmu_callgrind.c``),
which do not depend on the machine's load (not in ``--smoke`` runs).

Run: ``python benchmarks/fmu_events_overhead.py [--quick|--smoke]`` (or through ``benchmarks/run.py``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fmu_crane_hand  # noqa: E402
import fmu_realtime  # noqa: E402
from common import EXAMPLES, Row, fmt_time, instructions_per_step  # noqa: E402

HARNESS = Path(__file__).resolve().parent / "harness"
NOISE = 0.97  # a ratio above this is "within noise" of 1.0


def rebuild(fmu: Path, out: Path, defines: list[str]) -> Path:
    """``fmu`` with its binary compiled again from its own ``sources/`` with ``defines``."""
    from symbody.codegen.c_eval import c_compiler
    from symbody.fmu.build import compile_flags, fmi_headers_dir, link_flags

    work = out.with_suffix("")
    with zipfile.ZipFile(fmu) as z:
        z.extractall(work)
    xml = (work / "modelDescription.xml").read_text()
    ident = re.search(r'modelIdentifier="([^"]+)"', xml).group(1)  # type: ignore[union-attr]
    lib = next((work / "binaries").rglob(f"{ident}.so"))
    sources = sorted((work / "sources").glob("*.c"))
    sources = [s for s in sources if not s.name.startswith("fmi3")]
    cmd = [c_compiler(), *compile_flags(), *defines, "-shared", f"-I{work / 'sources'}", f"-I{fmi_headers_dir()}"]
    cmd += [*map(str, sources), "-o", str(lib), *link_flags()]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"compiling {fmu.name} with {defines} failed:\n{proc.stderr[:3000]}")
    with zipfile.ZipFile(out, "w") as z:
        for f in sorted(work.rglob("*")):
            if f.is_file():
                z.write(f, f.relative_to(work).as_posix())
    return out


def timed_runs(model: str, fmus: dict[str, Path], stop: float, rounds: int) -> tuple[dict, dict, dict]:
    """Best wall and CPU seconds of the bare doStep loop of each FMU, alternated rounds, and the states recorded."""
    best = dict.fromkeys(fmus, float("inf"))
    cpu = dict.fromkeys(fmus, float("inf"))
    states: dict[str, np.ndarray] = {}
    if model == "tower_crane":
        names = ["theta", "r", "beta_r", "beta_t", "gamma"]
        names += ["d" + n for n in names]
        settings = {"solver.method": 1, "solver.step": fmu_realtime.H_SOLVER}
        for _ in range(rounds):
            for key, fmu in fmus.items():
                run = fmu_realtime.run_fmu(fmu, names, settings, stop, 1, exchange=False)
                best[key], states[key] = min(best[key], run.seconds), run.states
                cpu[key] = min(cpu[key], run.cpu)
        return best, cpu, states
    u = fmu_crane_hand.move_inputs(np.arange(int(round(stop / fmu_crane_hand.H_COMM))) * fmu_crane_hand.H_COMM)
    drivers = {key: fmu_crane_hand.Driver(fmu) for key, fmu in fmus.items()}
    try:
        for _ in range(rounds):
            for key, d in drivers.items():
                seconds, states[key] = d.run(u, exchange=False)
                best[key], cpu[key] = min(best[key], seconds), min(cpu[key], d.last_cpu)
    finally:
        for d in drivers.values():
            d.close()
    return best, cpu, states


def model_fmu(model: str, folder: Path) -> Path:
    from symbody.fmu import export_fmu
    from symbody.fmu.testing import cached_equations

    eq = cached_equations(str(EXAMPLES / f"{model}.py"))
    return export_fmu(eq, folder / f"{model}.fmu", fmi_version=2, kind="cs", platforms=["x86_64-linux"])


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    stop = 2.0 if smoke else 20.0 if quick else 60.0
    rounds = 2 if smoke else 8 if quick else 15
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="symbody_bench_events_") as tmp:
        folder = Path(tmp)
        for model in ("tower_crane", "overhead_crane"):
            shipped = model_fmu(model, folder)
            fmus = {
                "shipped": rebuild(shipped, folder / f"{model}_shipped.fmu", []),
                "no_events": rebuild(shipped, folder / f"{model}_no_events.fmu", ["-DSB_NO_EVENTS"]),
            }
            best, cpu, states = timed_runs(model, fmus, stop, rounds)
            if not np.array_equal(states["shipped"], states["no_events"]):
                raise RuntimeError(f"{model}: the runtime without events computes other states than the shipped one")
            ratio = cpu["no_events"] / cpu["shipped"]
            label = model.replace("_", " ")
            rows.append(
                Row(
                    "event-free model: events cost nothing",
                    f"{label} CS FMU (FMI 2.0), rk4 h = 1 ms, doStep loop, {stop:g} s move, CPU time: runtime as "
                    "shipped vs compiled with -DSB_NO_EVENTS",
                    fmt_time(cpu["shipped"]),
                    f"without events {fmt_time(cpu['no_events'])}",
                    ratio,
                    f">= {NOISE:.2f}x (1.0 within noise)",
                    ratio >= NOISE,
                    f"both binaries compiled from the FMU's own sources by the same command (only the define "
                    f"differs), fmpy, 10 ms communication steps, best of {rounds} alternated rounds by the CPU "
                    f"time of the loop (wall time {fmt_time(best['shipped'])} vs {fmt_time(best['no_events'])}, "
                    "inflated by the machine's other processes); states identical bit for bit.",
                )
            )
            if smoke:  # the instruction counts take valgrind some 10 s per FMU
                continue
            counts = {key: instructions_per_step(model, fmu, folder) for key, fmu in fmus.items()}
            if counts["shipped"] is not None and counts["no_events"] is not None:
                rows.append(
                    Row(
                        "event-free model: events cost nothing",
                        f"{label} CS FMU (FMI 2.0), rk4 h = 1 ms: instructions per rk4 step inside fmi2DoStep "
                        "(callgrind), runtime as shipped vs compiled with -DSB_NO_EVENTS",
                        f"{counts['shipped']:.0f}",
                        f"without events {counts['no_events']:.0f}",
                        counts["no_events"] / counts["shipped"],
                        f">= {NOISE:.2f}x",
                        counts["no_events"] / counts["shipped"] >= NOISE,
                        "valgrind --tool=callgrind --toggle-collect=fmi2DoStep of harness/fmu_callgrind.c: 100 "
                        "communication steps of 10 ms (1000 rk4 steps); independent of the machine's load.",
                    )
                )
    rows[0].note += f" Machine load average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores."
    return rows


if __name__ == "__main__":
    quick, smoke = "--quick" in sys.argv, "--smoke" in sys.argv
    for row in run(quick=quick, smoke=smoke):
        print(row)
