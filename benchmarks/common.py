"""Shared helpers of the benchmarks: rows, timing, machine description, results table.

Each benchmark module defines ``run(quick: bool = False, smoke: bool = False) -> list[Row]``;
``benchmarks/run.py`` collects the rows and writes ``benchmarks/RESULTS.md``.
``smoke=True`` runs the smallest case only (used by the test suite so the
scripts cannot rot).
"""

from __future__ import annotations

import importlib.util
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@dataclass
class Row:
    """One line of the results table.

    ``ratio`` is how many times better symbody is than the alternative (higher
    is better); ``target`` is the ratio (or absolute bound) the issue asks for.
    """

    benchmark: str
    case: str
    symbody: str
    alternative: str
    ratio: float | None
    target: str
    met: bool | None
    note: str = ""


def load_example(name: str, **options):
    """The System of ``examples/<name>.py``."""
    spec = importlib.util.spec_from_file_location(f"bench_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.build(**options)


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """Minimum wall time of ``repeat`` calls (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def median_of(fn: Callable[[], object], repeat: int = 5) -> float:
    """Median wall time of ``repeat`` calls (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def fmt_time(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.1f} us"


def machine() -> dict[str, str]:
    """Machine and library versions for the results header."""
    import numpy
    import scipy
    import sympy

    info = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "sympy": sympy.__version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
    }
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import os

    info["cores"] = str(os.cpu_count())
    try:
        info["load average"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        pass
    for mod in ("fmpy", "pythonfmu", "pydy", "pinocchio"):
        try:
            m = __import__(mod)
            info[mod] = getattr(m, "__version__", "installed")
        except ImportError:
            info[mod] = "not installed"
    return info


HARNESS = Path(__file__).resolve().parent / "harness"
#: fmu_callgrind.c arguments after the library: solver.method / solver.step value references, rk4, states; inputs
CALLGRIND_ARGS = {
    "tower_crane": ["40,41,1,10", "16:0:150000", "17:0:1500"],
    "overhead_crane": ["22,23,1,6", "10:0:8000", "11:39226.6:0"],
}


def instructions_per_step(model: str, fmu: Path, folder: Path) -> float | None:
    """Instructions per rk4 step inside fmi2DoStep of an FMI 2 CS FMU of ``model`` (a key of
    :data:`CALLGRIND_ARGS`) under callgrind, driven by ``harness/fmu_callgrind.c`` (None without valgrind)."""
    if shutil.which("valgrind") is None:
        return None
    from symbody.codegen.c_eval import c_compiler
    from symbody.fmu.build import fmi_headers_dir

    driver = folder / "fmu_callgrind"
    if not driver.exists():
        cmd = [c_compiler(), "-O2", f"-I{fmi_headers_dir()}", str(HARNESS / "fmu_callgrind.c"), "-o", str(driver)]
        subprocess.run([*cmd, "-ldl"], check=True, capture_output=True)
    work = folder / f"cg_{fmu.stem}"
    with zipfile.ZipFile(fmu) as z:
        z.extractall(work)
    xml = (work / "modelDescription.xml").read_text()
    ident = re.search(r'modelIdentifier="([^"]+)"', xml).group(1)  # type: ignore[union-attr]
    guid = re.search(r'guid="([^"]+)"', xml).group(1)  # type: ignore[union-attr]
    lib = next((work / "binaries").rglob(f"{ident}.so"))
    out = folder / f"callgrind.{fmu.stem}"
    cmd = ["valgrind", "--tool=callgrind", "--toggle-collect=fmi2DoStep", f"--callgrind-out-file={out}"]
    cmd += [str(driver), str(lib), "100", guid, (work / "resources").as_uri(), *CALLGRIND_ARGS[model]]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    collected = re.search(r"Collected : (\d+)", proc.stderr)
    if collected is None:
        raise RuntimeError(f"callgrind reported no count:\n{proc.stderr[-2000:]}")
    return int(collected.group(1)) / 1000.0  # 100 communication steps of 10 rk4 steps
