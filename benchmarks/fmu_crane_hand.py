"""symbody's FMU of the planar overhead crane against a hand-written C FMU of the same equations.

The reference is ``harness/crane_fmu.c``: the crane's equations of motion written
by hand in closed form (3 x 3 mass matrix eliminated symbolically), classical
Runge-Kutta (rk4) with the step ``solver.step``, the internal steps placed as
symbody's runtime places them, outputs computed when read, a finiteness check
of the state at the end of each communication step and nothing else.  It is
compiled with the flags of a native FMU (``gcc -std=c99 -O2``) and packaged as
an FMI 2.0 Co-Simulation FMU whose ``modelDescription.xml`` is symbody's own
(same variables and value references) with the identifier changed and the
optional capabilities it lacks (FMU state, directional derivatives) switched off.

symbody's FMU: ``export_fmu`` of ``examples/overhead_crane.py`` (FMI 2.0 CS),
``solver.method = 1`` (rk4), ``solver.step = 1 ms``.  Both FMUs are driven by
fmpy in this process through the same crane move (trolley force pulses, a hoist
pulse), 10 ms communication steps: first the bare ``doStep`` loop (inputs set
when they change, states read once a second), then a co-simulation master's
loop (inputs set, ``doStep``, states read at every step).  Before timing, the
states read during the move must agree to 1e-9 relative (the same rk4 steps:
only rounding differs).  Rounds alternate between the two FMUs; the best round
of each counts.

Target (issue 13): symbody's FMU at least as fast as the hand-written one.

Run: ``python benchmarks/fmu_crane_hand.py [--quick|--smoke]`` (or through ``benchmarks/run.py``).
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, fmt_time, instructions_per_step, load_example  # noqa: E402

HARNESS = Path(__file__).resolve().parent / "harness"
H_COMM = 0.01  # communication step (s)
H_SOLVER = 1e-3  # rk4 step (s)
STATES = ["x", "l", "theta", "dx", "dl", "dtheta"]
TOLERANCE = 1e-9


def move_inputs(t: np.ndarray) -> np.ndarray:
    """``[F_trolley, F_hoist]`` at the times ``t``: trolley accelerate / brake pulses, a hoist pulse."""
    hold = 4000.0 * 9.80665
    f_trolley = np.where((t % 20.0) < 2.0, 8000.0, np.where(((t % 20.0) >= 6.0) & ((t % 20.0) < 8.0), -8000.0, 0.0))
    f_hoist = np.where(((t % 20.0) >= 10.0) & ((t % 20.0) < 11.0), 1.05 * hold, hold)
    return np.column_stack([f_trolley, f_hoist])


def symbody_fmu(folder: Path) -> Path:
    from symbody.fmu import export_fmu

    eq = load_example("overhead_crane").derive()
    return export_fmu(eq, folder / "overhead_crane.fmu", fmi_version=2, kind="cs", platforms=["x86_64-linux"])


def hand_fmu(symbody: Path, folder: Path) -> Path:
    """``harness/crane_fmu.c`` compiled as a native FMU and packaged with symbody's variables."""
    from symbody.codegen.c_eval import c_compiler
    from symbody.fmu.build import CFLAGS, fmi_headers_dir

    headers = fmi_headers_dir()
    lib = folder / "crane_hand.so"
    cmd = [c_compiler(), *CFLAGS, "-shared", f"-I{headers}", str(HARNESS / "crane_fmu.c"), "-o", str(lib), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"compiling harness/crane_fmu.c failed:\n{proc.stderr[:3000]}")
    with zipfile.ZipFile(symbody) as z:
        xml = z.read("modelDescription.xml").decode()
    xml = re.sub(r'modelIdentifier="[^"]*"', 'modelIdentifier="crane_hand"', xml)
    xml = re.sub(r'modelName="[^"]*"', 'modelName="overhead_crane_hand"', xml)
    xml = re.sub(r'guid="[^"]*"', 'guid="{00000000-0000-0000-0000-0000000c7a4e}"', xml)
    for capability in ("canGetAndSetFMUstate", "canSerializeFMUstate", "providesDirectionalDerivative"):
        xml = xml.replace(f'{capability}="true"', f'{capability}="false"')
    xml = re.sub(r"\s*<SourceFiles>.*?</SourceFiles>", "", xml, flags=re.S)
    out = folder / "crane_hand.fmu"
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("modelDescription.xml", xml)
        z.write(lib, "binaries/linux64/crane_hand.so")
    return out


@dataclass
class Driver:
    """One FMU instantiated by fmpy, ready to run the move from t = 0."""

    fmu: Path

    def __post_init__(self) -> None:
        import fmpy

        self.md = fmpy.read_model_description(str(self.fmu))
        self.unzip = fmpy.extract(str(self.fmu))
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.last_cpu = float("nan")  # CPU time of the last run's loop

    def start(self):
        from fmpy.simulation import instantiate_fmu

        inst = instantiate_fmu(self.unzip, self.md, "CoSimulation")
        inst.setupExperiment(startTime=0.0)
        inst.setInteger([self.vr["solver.method"]], [1])
        inst.setReal([self.vr["solver.step"]], [H_SOLVER])
        inst.enterInitializationMode()
        inst.exitInitializationMode()
        return inst

    def run(self, u: np.ndarray, exchange: bool) -> tuple[float, np.ndarray]:
        """Seconds for the move and the states read (every step with ``exchange``, else every second)."""
        inst = self.start()
        steps = len(u)
        in_vr, out_vr = [self.vr["F_trolley"], self.vr["F_hoist"]], [self.vr[s] for s in STATES]
        every = 1 if exchange else int(round(1.0 / H_COMM))
        set_at = [exchange or k == 0 or bool(np.any(u[k] != u[k - 1])) for k in range(steps)]
        u_lists = [list(map(float, row)) for row in u]
        recorded = []
        gc.collect()
        gc.disable()
        try:
            c0, t0 = time.process_time(), time.perf_counter()
            for k in range(steps):
                if set_at[k]:
                    inst.setReal(in_vr, u_lists[k])
                inst.doStep(k * H_COMM, H_COMM)
                if (k + 1) % every == 0:
                    recorded.append(inst.getReal(out_vr))
            elapsed = time.perf_counter() - t0
            self.last_cpu = time.process_time() - c0  # CPU time of the loop: less inflated by other processes
        finally:
            gc.enable()
        inst.terminate()
        inst.freeInstance()
        return elapsed, np.array(recorded)

    def close(self) -> None:
        shutil.rmtree(self.unzip, ignore_errors=True)


def compare(ours: np.ndarray, theirs: np.ndarray) -> float:
    """Largest difference of the recorded states relative to their magnitude; raises when above TOLERANCE."""
    err = float(np.max(np.abs(ours - theirs) / (1.0 + np.abs(theirs))))
    if not (ours.shape == theirs.shape and err <= TOLERANCE):
        raise RuntimeError(f"symbody's and the hand-written crane FMU disagree (relative difference {err:.2e})")
    return err


def instruction_row(ours: float, theirs: float) -> Row:
    """The row of instructions per rk4 step of both FMUs (callgrind)."""
    return Row(
        "crane FMU vs hand-written C",
        "planar overhead crane, rk4 h = 1 ms: instructions per rk4 step inside fmi2DoStep (callgrind)",
        f"{ours:.0f}",
        f"hand-written C FMU {theirs:.0f}",
        theirs / ours,
        "-",
        None,
        "valgrind --tool=callgrind --toggle-collect=fmi2DoStep of harness/fmu_callgrind.c (100 communication "
        "steps of 10 ms, trolley force pulses; every instruction of fmi2DoStep, libm's sincos included).  "
        "symbody's step executes more instructions (its checks: stability and trust of every rk4 step, "
        "pivots and finiteness of every stage, outputs after every communication step) but fewer of them "
        "wait on each other: the time per step, above, is what counts.",
    )


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    stop = 2.0 if smoke else 20.0 if quick else 60.0
    rounds = 2 if smoke else 8 if quick else 20
    u = move_inputs(np.arange(int(round(stop / H_COMM))) * H_COMM)
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="symbody_bench_crane_") as tmp:
        sb_fmu = symbody_fmu(Path(tmp))
        hand = hand_fmu(sb_fmu, Path(tmp))
        drivers = {"symbody": Driver(sb_fmu), "hand": Driver(hand)}
        try:
            for exchange in (False, True):
                best = dict.fromkeys(drivers, float("inf"))
                cpu = dict.fromkeys(drivers, float("inf"))
                states = {}
                for _ in range(rounds):
                    for name, d in drivers.items():
                        seconds, states[name] = d.run(u, exchange)
                        best[name] = min(best[name], seconds)
                        cpu[name] = min(cpu[name], d.last_cpu)
                err = compare(states["symbody"], states["hand"])
                ratio = best["hand"] / best["symbody"]
                loop = "set / doStep / get every step" if exchange else "doStep loop"
                rows.append(
                    Row(
                        "crane FMU vs hand-written C",
                        f"planar overhead crane, rk4 h = 1 ms, {stop:g} s move, {loop}",
                        fmt_time(best["symbody"]),
                        f"hand-written C FMU {fmt_time(best['hand'])}",
                        ratio,
                        ">= 1x" if not exchange else "-",
                        ratio >= 1.0 if not exchange else None,
                        f"both FMI 2 CS FMUs driven by fmpy, 10 ms communication steps, best of {rounds} alternated "
                        f"rounds; states agree to {err:.0e} relative; by the CPU time of the loops (less inflated by "
                        f"other processes) {fmt_time(cpu['symbody'])} vs {fmt_time(cpu['hand'])}, "
                        f"{cpu['hand'] / cpu['symbody']:.2f}x.",
                    )
                )
            if not smoke:  # instruction counts: independent of the machine's load (valgrind, some 10 s)
                counts = {
                    "symbody": instructions_per_step("overhead_crane", sb_fmu, Path(tmp)),
                    "hand": instructions_per_step("overhead_crane", hand, Path(tmp)),
                }
                if counts["symbody"] and counts["hand"]:
                    rows.append(instruction_row(counts["symbody"], counts["hand"]))
        finally:
            for d in drivers.values():
                d.close()
    rows[0].note += (
        f" Machine load average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        " (other jobs running: the ratio of one run is what counts)."
    )
    return rows


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv, smoke="--smoke" in sys.argv):
        ratio = "-" if r.ratio is None else f"{r.ratio:.2f}x"
        print(f"{r.case} | {r.symbody} | {r.alternative} | {ratio} | {r.target} | {r.met}\n    {r.note}")
