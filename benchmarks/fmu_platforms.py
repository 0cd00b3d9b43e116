"""Export time with every platform against the Linux-only export.

The tower crane's Equations are derived once; then ``export_fmu`` (generate
the C, compile, package) runs for the host platform only
(``platforms=["x86_64-linux"]``) and for every installed platform (Linux,
Windows x64 with mingw-w64, aarch64 Linux for FMI 3), alternately, several
rounds, and the best time of each is kept.  The runtime objects of each
compiler are cached beforehand (one warm-up export of each kind), as they are
after the first export on a machine; the cross compilations run in parallel
threads.  Target (issue 11): all platforms under 3x the Linux-only time.

Run: ``python benchmarks/fmu_platforms.py [--quick|--smoke]`` (or through ``benchmarks/run.py``).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, fmt_time, load_example  # noqa: E402

TARGET = 3.0


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def export_times(model: str, fmi: int, rounds: int) -> tuple[float, float, list[str]]:
    """Best Linux-only and all-platform export times of ``model`` and the platforms built."""
    from symbody.fmu import export_fmu
    from symbody.fmu.platforms import fmu_platforms

    eq = load_example(model).derive()
    with tempfile.TemporaryDirectory(prefix="sb_bench_platforms_") as tmp:
        linux, every = Path(tmp) / "linux.fmu", Path(tmp) / "all.fmu"

        def one() -> None:
            export_fmu(eq, linux, fmi_version=fmi, platforms=["x86_64-linux"])

        def all_() -> None:
            export_fmu(eq, every, fmi_version=fmi)

        one(), all_()  # warm-up: runtime objects of every compiler cached
        t_one, t_all = [], []
        for _ in range(rounds):  # alternated, so that load affects both alike
            t_one.append(_timed(one))
            t_all.append(_timed(all_))
        return min(t_one), min(t_all), fmu_platforms(every)


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    model = "simple_pendulum" if smoke else "tower_crane"
    rounds = 1 if smoke else (3 if quick else 7)
    rows = []
    missing = [c for c in ("x86_64-w64-mingw32-gcc", "aarch64-linux-gnu-gcc") if shutil.which(c) is None]
    for fmi in (3,) if smoke else (2, 3):
        t_one, t_all, platforms = export_times(model, fmi, rounds)
        ratio = t_all / t_one
        note = "missing cross compilers: " + ", ".join(missing) if missing else ""
        rows.append(
            Row(
                "FMU export, all platforms",
                f"{model.replace('_', ' ')} FMI {fmi}: {', '.join(platforms)} vs x86_64-linux only (all/linux)",
                fmt_time(t_all),
                f"Linux only {fmt_time(t_one)}",
                round(ratio, 2),
                f"<= {TARGET:g}x (all/linux)",
                ratio <= TARGET,
                note,
            )
        )
    return rows


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv, smoke="--smoke" in sys.argv):
        print(r)
