"""Shared helpers of the benchmarks: rows, timing, machine description, results table.

Each benchmark module defines ``run(quick: bool = False, smoke: bool = False) -> list[Row]``;
``benchmarks/run.py`` collects the rows and writes ``benchmarks/RESULTS.md``.
``smoke=True`` runs the smallest case only (used by the test suite so the
scripts cannot rot).
"""

from __future__ import annotations

import importlib.util
import platform
import statistics
import sys
import time
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
