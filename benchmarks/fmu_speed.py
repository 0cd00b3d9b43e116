"""Native FMU against the pythonfmu FMU of the same model, and model file to validated FMU.

Stepping: the native C FMU and the ``--backend python`` FMU (pythonfmu, numpy
blocks) of the same model are both FMI 2.0 Co-Simulation FMUs, instantiated
with fmpy in this process and stepped with ``fmi2DoStep`` through fmpy's API,
with the same solver (``solver.method``), internal step / tolerances,
communication step and inputs.  Only the ``doStep`` loop is timed; the final
states of both FMUs are compared as a sanity check.  Target (issue 4): the
native FMU steps at least 100 times faster.

Build: wall time from the model file to a validated FMU -- load the file,
derive, generate and compile the C, package, and ``fmpy.validation`` --
with the C runtime objects already cached ("warm", the usual case) and with
an empty cache ("cold", first export on a machine).

Run: ``python benchmarks/fmu_speed.py [--quick]`` (or through ``benchmarks/run.py``).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import EXAMPLES, Row, fmt_time  # noqa: E402

#: solver settings compared (the same for both FMUs): rk4 with a 1 ms step, dopri5 at the tolerance the
#: trajectory tests use to match symbody's Python simulation to 1e-6
SETTINGS = {
    "rk4 (h = 1e-3)": {"solver.method": 1, "solver.step": 1e-3},
    "dopri5 (rtol = 1e-10)": {"solver.method": 2, "solver.rtol": 1e-10, "solver.atol": 1e-12},
}


def _instance(fmu: Path):
    import fmpy
    from fmpy.simulation import instantiate_fmu

    md = fmpy.read_model_description(str(fmu))
    unzip = fmpy.extract(str(fmu))
    inst = instantiate_fmu(unzip, md, "CoSimulation")
    return md, unzip, inst


def time_steps(fmu: Path, start: dict[str, float], steps: int, H: float, rounds: int = 15) -> tuple[float, np.ndarray]:
    """Seconds per ``doStep`` (best of ``rounds`` blocks of ``steps`` steps of ``H``) and the outputs after
    the warm-up steps (a short horizon: the longer timed run of a chaotic chain would amplify rounding
    differences between two correct FMUs).

    The best block is the one least disturbed by other processes on the machine.
    """
    import shutil

    md, unzip, fmu_ = _instance(fmu)
    try:
        vr = {v.name: v.valueReference for v in md.modelVariables}
        kinds = {v.name: v.type for v in md.modelVariables}
        fmu_.setupExperiment(startTime=0.0)
        for name, value in start.items():
            if kinds[name] == "Real":
                fmu_.setReal([vr[name]], [float(value)])
            else:
                fmu_.setInteger([vr[name]], [int(value)])
        fmu_.enterInitializationMode()
        fmu_.exitInitializationMode()
        outs = [vr[v.name] for v in md.modelVariables if v.causality == "output"]
        warmup = max(1, steps // 10)  # first calls pay for page faults and caches
        for k in range(warmup):
            fmu_.doStep(k * H, H)
        early = np.array(fmu_.getReal(outs))
        k = warmup
        elapsed = float("inf")
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(steps):
                fmu_.doStep(k * H, H)
                k += 1
            elapsed = min(elapsed, time.perf_counter() - t0)
        fmu_.terminate()
        fmu_.freeInstance()
    finally:
        shutil.rmtree(unzip, ignore_errors=True)
    return elapsed / steps, early


def call_overhead(fmu: Path, calls: int = 20000) -> float:
    """Seconds fmpy itself spends per ``doStep`` call: a zero-length step of the native FMU returns at once."""
    import shutil

    md, unzip, fmu_ = _instance(fmu)
    try:
        fmu_.setupExperiment(startTime=0.0)
        fmu_.enterInitializationMode()
        fmu_.exitInitializationMode()
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(calls):
                fmu_.doStep(0.0, 0.0)
            best = min(best, time.perf_counter() - t0)
        fmu_.terminate()
        fmu_.freeInstance()
    finally:
        shutil.rmtree(unzip, ignore_errors=True)
    return best / calls


def model_to_validated_fmu(model: Path, out: Path, **options) -> float:
    """Wall time of load + derive + export (C) + fmpy validation."""
    from fmpy.validation import validate_fmu

    from symbody.fmu import export_fmu
    from symbody.loader import load_model

    t0 = time.perf_counter()
    fmu = export_fmu(load_model(model, **options), out, fmi_version=2, kind="both")
    problems = validate_fmu(str(fmu))
    elapsed = time.perf_counter() - t0
    if problems:
        raise RuntimeError(f"{out.name} is not valid: {problems}")
    return elapsed


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    from symbody.fmu import export_fmu
    from symbody.loader import load_model

    if smoke:
        cases = [("simple_pendulum", {})]
        steps, H = 5, 0.01
    elif quick:
        cases = [("n_link_pendulum_on_cart", {}), ("four_bar", {}), ("tower_crane", {})]
        steps, H = 40, 0.01
    else:
        cases = [(p.stem, {}) for p in sorted(EXAMPLES.glob("*.py"))] + [("n_link_pendulum_on_cart", {"n": 10})]
        steps, H = 100, 0.01
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="symbody_bench_fmu_") as tmp:
        tmpdir = Path(tmp)
        for name, options in cases:
            label = name + "".join(f", {k} = {v}" for k, v in options.items())
            eq = load_model(EXAMPLES / f"{name}.py", **options).derive()
            native = export_fmu(eq, tmpdir / f"{eq.name}_c.fmu", fmi_version=2, kind="cs")
            python = export_fmu(eq, tmpdir / f"{eq.name}_py.fmu", backend="python")
            inputs = {u.name: u.value + 0.1 * (i + 1) for i, u in enumerate(eq.inputs)}
            overhead = call_overhead(native, 200 if smoke else 20000)
            for setting, values in SETTINGS.items():
                start = dict(inputs, **values)
                t_c, y_c = time_steps(native, start, steps, H)
                t_py, y_py = time_steps(python, start, steps, H)
                diff = float(np.max(np.abs(y_c - y_py) / (1 + np.abs(y_c))))
                ratio = t_py / t_c
                rows.append(
                    Row(
                        "FMU stepping",
                        f"{label}: {setting}, communication step {H}",
                        f"native {fmt_time(t_c)}/step",
                        f"pythonfmu {fmt_time(t_py)}/step",
                        ratio,
                        ">= 100x",
                        ratio >= 100,
                        f"best of 15 blocks of {steps} fmi2DoStep calls through fmpy, which itself takes "
                        f"{fmt_time(overhead)} per call (included); outputs after the "
                        f"{max(1, steps // 10)} warm-up steps agree to {diff:.1e}",
                    )
                )
            if smoke:
                continue
            # model file to validated FMU: warm runtime cache, then an empty cache (first use on a machine)
            model = EXAMPLES / f"{name}.py"
            warm = min(model_to_validated_fmu(model, tmpdir / f"w{k}.fmu", **options) for k in range(3))
            saved = os.environ.get("SYMBODY_CACHE")
            os.environ["SYMBODY_CACHE"] = str(tmpdir / f"cache_{eq.name}")
            try:
                cold = model_to_validated_fmu(model, tmpdir / "cold.fmu", **options)
            finally:
                if saved is None:
                    os.environ.pop("SYMBODY_CACHE", None)
                else:
                    os.environ["SYMBODY_CACHE"] = saved
            rows.append(
                Row(
                    "model file to validated FMU",
                    f"{label} (FMI 2.0, CS + ME)",
                    f"{fmt_time(warm)} (runtime cached)",
                    f"{fmt_time(cold)} (empty cache)",
                    None,
                    "< 10 s" if name == "tower_crane" else "recorded",
                    (cold < 10.0) if name == "tower_crane" else None,
                    "load, derive, generate and compile C, package, fmpy.validation.validate_fmu",
                )
            )
    return rows


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    for r in run(quick=quick):
        ratio = "-" if r.ratio is None else f"{r.ratio:.0f}x"
        print(f"{r.benchmark} | {r.case} | {r.symbody} | {r.alternative} | {ratio} | {r.target} | {r.met}")
