"""Command-line overhead: ``symbody simulate OUT.fmu`` against ``fmpy simulate OUT.fmu`` on the same FMU.

Both commands run as fresh processes (start-up and imports included, as a
user meets them), round by round interleaved so that machine load affects
them alike; each time is the best round.  Three rows:

* ``symbody simulate --no-plot`` (CSV out) against ``fmpy simulate
  --output-file`` (CSV out): the same work; the target is an overhead under
  0.5 s (it took 2.5-4.5 s more when ``simulate`` imported SymPy);
* ``symbody simulate`` as a user types it (CSV and its default PNG plot)
  against the same fmpy run (``fmpy simulate`` writes no plot file; its
  ``--show-plot`` opens a window): the same target, plot included (drawn
  with Pillow, see below);
* the README's first simulation (the tower crane, 60 s, driven by
  ``examples/tower_crane_inputs.csv``; a PNG of twelve panels) against the same
  ``fmpy simulate``, with the PNG drawn by Pillow (as shipped) and, as the
  alternative a well-kept plotting library offers, by matplotlib's Agg backend
  (imported lazily, the panels of ``symbody.fmu.plot.figure``, no layout pass):
  matplotlib's import and the drawing of twelve axes cost about a second, twice
  the target;
* ``import symbody.cli`` against ``import fmpy``.

Usage: ``python benchmarks/fmu_cli_overhead.py [--quick|--smoke]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import EXAMPLES, ROOT, Row, fmt_time

TARGET = 0.5  # s, largest overhead of symbody simulate beyond fmpy simulate


def _env() -> dict[str, str]:
    src = str(ROOT / "src")
    path = os.environ.get("PYTHONPATH", "")
    return dict(os.environ, PYTHONPATH=src + (os.pathsep + path if path else ""))


def _fmu(folder: Path) -> Path:
    from symbody.fmu import export_fmu
    from symbody.loader import load_model

    return export_fmu(load_model(EXAMPLES / "simple_pendulum.py"), folder / "pendulum.fmu", kind="cs")


#: ``symbody simulate`` with its PNG drawn by matplotlib (Agg) instead of Pillow: the alternative measured
MATPLOTLIB_SIMULATE = """
import sys
from pathlib import Path
import symbody.fmu.plot as plot_module
from symbody.fmu.files import write_atomically

def plot(result, path, names=None, title="", units=None, settings=None):
    fig = plot_module.figure(result, names, title, units, settings)
    return write_atomically(Path(path), lambda tmp: fig.savefig(tmp, format="png", dpi=plot_module.PNG_DPI))

plot_module.plot = plot
from symbody.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _crane_fmu(folder: Path) -> Path:
    from symbody.fmu import export_fmu
    from symbody.loader import load_model

    return export_fmu(load_model(EXAMPLES / "tower_crane.py"), folder / "tower_crane.fmu")


def _timed(cmd: list[str], cwd: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=_env(), check=True, capture_output=True)
    return time.perf_counter() - t0


def _best_interleaved(commands: dict[str, list[str]], cwd: Path, rounds: int) -> dict[str, float]:
    best = dict.fromkeys(commands, float("inf"))
    for _ in range(rounds):
        for name, cmd in commands.items():
            best[name] = min(best[name], _timed(cmd, cwd))
    return best


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    rounds = 1 if smoke else (3 if quick else 7)
    fmpy_exe = shutil.which("fmpy")
    work = Path(tempfile.mkdtemp(prefix="symbody_bench_cli_"))
    try:
        fmu = str(_fmu(work))
        crane = str(_crane_fmu(work))
        py = sys.executable
        fmpy_cmd = [fmpy_exe] if fmpy_exe else [py, "-m", "fmpy.command_line"]
        readme_run = [crane, "--input-file", str(EXAMPLES / "tower_crane_inputs.csv"), "--stop-time", "60"]
        commands = {
            "crane_fmpy": [*fmpy_cmd, "simulate", *readme_run, "--output-file", "cf.csv"],
            "crane_symbody": [py, "-m", "symbody", "simulate", *readme_run, "-o", "cs.csv"],
            "crane_matplotlib": [py, "-c", MATPLOTLIB_SIMULATE, "simulate", *readme_run, "-o", "cm.csv"],
            "fmpy": [*fmpy_cmd, "simulate", fmu, "--stop-time", "10", "--output-file", "f.csv"],
            "symbody": [py, "-m", "symbody", "simulate", fmu, "--stop-time", "10", "-o", "s.csv", "--no-plot"],
            "symbody_plot": [py, "-m", "symbody", "simulate", fmu, "--stop-time", "10", "-o", "p.csv"],
            "import_fmpy": [py, "-c", "import fmpy, fmpy.simulation"],
            "import_symbody": [py, "-c", "import symbody.cli, symbody.fmu.run"],
        }
        best = _best_interleaved(commands, work, rounds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    extra = best["symbody"] - best["fmpy"]
    extra_plot = best["symbody_plot"] - best["fmpy"]
    plot_cost = best["symbody_plot"] - best["symbody"]
    note = f"best of {rounds} interleaved rounds, load average {os.getloadavg()[0]:.1f}"
    return [
        Row(
            "cli overhead",
            "simulate pendulum.fmu 10 s, CSV out",
            fmt_time(best["symbody"]),
            f"fmpy simulate {fmt_time(best['fmpy'])}",
            best["fmpy"] / best["symbody"],
            f"overhead < {TARGET} s",
            extra < TARGET,
            f"overhead {extra:+.2f} s; {note}",
        ),
        Row(
            "cli overhead",
            "simulate pendulum.fmu 10 s, CSV + PNG plot",
            fmt_time(best["symbody_plot"]),
            f"fmpy simulate {fmt_time(best['fmpy'])} (no plot)",
            best["fmpy"] / best["symbody_plot"],
            f"overhead < {TARGET} s",
            extra_plot < TARGET,
            f"overhead {extra_plot:+.2f} s, of which the plot {plot_cost:.2f} s",
        ),
        Row(
            "cli overhead",
            "README's simulate: tower_crane.fmu 60 s with its input file, CSV + 12-panel PNG (Pillow)",
            fmt_time(best["crane_symbody"]),
            f"fmpy simulate {fmt_time(best['crane_fmpy'])} (no plot)",
            best["crane_fmpy"] / best["crane_symbody"],
            f"overhead < {TARGET} s",
            best["crane_symbody"] - best["crane_fmpy"] < TARGET,
            f"overhead {best['crane_symbody'] - best['crane_fmpy']:+.2f} s",
        ),
        Row(
            "cli overhead",
            "the same, the PNG drawn by matplotlib (Agg, lazily imported) instead of Pillow",
            fmt_time(best["crane_matplotlib"]),
            f"fmpy simulate {fmt_time(best['crane_fmpy'])} (no plot)",
            best["crane_fmpy"] / best["crane_matplotlib"],
            f"overhead < {TARGET} s",
            best["crane_matplotlib"] - best["crane_fmpy"] < TARGET,
            f"overhead {best['crane_matplotlib'] - best['crane_fmpy']:+.2f} s: why the PNG is not matplotlib's",
        ),
        Row(
            "cli overhead",
            "import the simulate command",
            fmt_time(best["import_symbody"]),
            f"import fmpy {fmt_time(best['import_fmpy'])}",
            best["import_fmpy"] / best["import_symbody"],
            "reported",
            None,
            "symbody.cli + symbody.fmu.run: no SymPy, no code generation",
        ),
    ]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--smoke", action="store_true")
    a = ap.parse_args()
    for row in run(quick=a.quick, smoke=a.smoke):
        print(row)
