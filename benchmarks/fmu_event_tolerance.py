"""Steps of the Co-Simulation solvers in a model with end stops: the event tolerance only on the way to a
switching against the event tolerance everywhere.

The hydraulic knuckle-boom crane (``examples/knuckle_crane.py``, ``actuation="hydraulic"``: eight unilateral
contacts, the four boom end stops and the cylinders' stroke ends), its FMI 2 Co-Simulation FMU driven by fmpy at
0.05 s communication steps through 30 s of ship motion (heave 1.5 m at 9 s, roll 0.06 rad at 11 s, pitch 0.02 rad
at 7 s, with their rates) and two crane moves:

* ``sway``: the main spool at +0.5 from 2 s to 8 s and at -0.5 from 14 s to 20 s, the knuckle spool at -0.5 from
  4 s to 9 s and at +0.5 from 16 s to 20 s; no boom reaches a stop;
* ``stop``: the main spool at +1 from 2 s to 6.5 s drives the main boom into its high stop (impacts from 6.23 s),
  back at -1 from 14 s to 18 s; the knuckle spool at -1 from 4 s to 8 s, +1 from 16 s to 19 s.

Each embedded solver runs at ``solver.rtol`` 1e-6, ``solver.atol`` 1e-8 (as shipped: the event tolerance rtol
1e-9, atol 1e-11 only in the chunks on the way to a contact's switching) and at ``solver.rtol`` 1e-9,
``solver.atol`` 1e-11 (what every chunk of a model with contacts runs at when the event tolerance holds
everywhere).  Ratio = accepted steps at the event tolerance / accepted steps as shipped (``logSolver``), and the
CPU time of the runs without logging; ``rk4``'s steps are ``solver.step`` either way (it logs no steps: its row
compares CPU time).  The end states of the two runs
agree to the tolerance asked for.  Target: fewer steps where the booms sway far from their stops (>= 2x for
``dopri5`` and ``rosenbrock23`` on ``sway``).

Run: ``python benchmarks/fmu_event_tolerance.py [--quick|--smoke]`` (or through ``benchmarks/run.py``).
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import EXAMPLES, Row  # noqa: E402

H_COMM = 0.05
SOLVERS = {"rk4": 1, "dopri5": 2, "rosenbrock23": 3}
ASKED = {"solver.rtol": 1e-6, "solver.atol": 1e-8}
EVENT = {"solver.rtol": 1e-9, "solver.atol": 1e-11}
MOVES = {  # (spool, value, from, to)
    "sway": [("main", 0.5, 2, 8), ("main", -0.5, 14, 20), ("jib", -0.5, 4, 9), ("jib", 0.5, 16, 20)],
    "stop": [("main", 1.0, 2, 6.5), ("main", -1.0, 14, 18), ("jib", -1.0, 4, 8), ("jib", 1.0, 16, 19)],
}


def signals(move: str, stop: float) -> np.ndarray:
    """Ship motion and the spools of ``move`` as an fmpy input signal."""
    t = np.arange(0.0, stop + H_COMM / 2, H_COMM)
    columns: dict[str, np.ndarray] = {"time": t}
    for name, amplitude, period in (("heave", 1.5, 9.0), ("roll", 0.06, 11.0), ("pitch", 0.02, 7.0)):
        w = 2 * math.pi / period
        columns |= {
            name: amplitude * np.sin(w * t),
            "d" + name: amplitude * w * np.cos(w * t),
            "dd" + name: -amplitude * w * w * np.sin(w * t),
        }
    for spool in ("main", "jib"):
        columns[f"{spool}_cylinder_spool"] = sum(
            (np.where((t >= a) & (t < b), v, 0.0) for s, v, a, b in MOVES[move] if s == spool), np.zeros_like(t)
        )
    columns |= {"tau_slew": np.zeros_like(t), "tau_hoist": np.zeros_like(t)}
    return np.array(list(zip(*columns.values())), dtype=[(n, float) for n in columns])


def simulate(fmu: Path, move: str, stop: float, start: dict, logged: bool) -> tuple[int, float, np.ndarray]:
    """(accepted steps or -1, CPU seconds, end luff and fold) of one run."""
    import fmpy

    messages: list[str] = []

    def logger(*args) -> None:
        if b"accepted step" in args[-1]:
            messages.append("")

    from symbody.fmu.run import restore_fmi2_message_proxy

    c0 = time.process_time()
    try:
        res = fmpy.simulate_fmu(str(fmu), fmi_type="CoSimulation", stop_time=stop, output_interval=H_COMM,
                                start_values=start, input=signals(move, stop), output=["luff", "fold"],
                                logger=logger if logged else None, debug_logging=logged)  # fmt: skip
    finally:  # (fmpy's process-wide FMI 2 message proxy must not keep this run's logger: a later run crashed)
        restore_fmi2_message_proxy()
    used = time.process_time() - c0
    return (len(messages) if logged else -1), used, np.array([res["luff"][-1], res["fold"][-1]])


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    from symbody.fmu import export_fmu
    from symbody.loader import load_module

    load = os.getloadavg()[0]
    stop = 6.0 if smoke else 30.0
    moves = ["sway"] if smoke or quick else ["sway", "stop"]
    solvers = ["dopri5"] if smoke else list(SOLVERS)
    rows = []
    with tempfile.TemporaryDirectory(prefix="symbody_bench_event_tol_") as tmp:
        crane = load_module(EXAMPLES / "knuckle_crane.py")
        fmu = export_fmu(crane.build(actuation="hydraulic"), Path(tmp) / "knuckle.fmu", fmi_version=2, kind="cs")
        for move in moves:
            for solver in solvers:
                start = {"solver.method": SOLVERS[solver]}
                logged = solver != "rk4"
                steps, _, end = simulate(fmu, move, stop, start | ASKED, logged)
                steps_event, _, end_event = simulate(fmu, move, stop, start | EVENT, logged)
                cpu = min(simulate(fmu, move, stop, start | ASKED, False)[1] for _ in range(1 if smoke else 2))
                cpu_event = min(simulate(fmu, move, stop, start | EVENT, False)[1] for _ in range(1 if smoke else 2))
                dev = float(np.max(np.abs(end - end_event)))
                ratio = steps_event / steps if logged else cpu_event / cpu
                shown = f"{steps} steps, CPU {cpu:.2f} s" if logged else f"CPU {cpu:.2f} s"
                other = f"{steps_event} steps, CPU {cpu_event:.2f} s" if logged else f"CPU {cpu_event:.2f} s"
                target = ">= 2x" if logged and move == "sway" else "-"
                met = (ratio >= 2.0) if target != "-" else None
                note = f"end luff, fold within {dev:.1g} rad of the run at the event tolerance; load average {load:.1f}"
                rows.append(
                    Row("event tolerance near switchings", f"hydraulic knuckle crane, {move}, {solver} (rtol 1e-6)",
                        shown, f"everywhere: {other}", ratio, target, met, note)
                )  # fmt: skip
    return rows


if __name__ == "__main__":
    mode = sys.argv[1:] and sys.argv[1]
    for row in run(quick=mode == "--quick", smoke=mode == "--smoke"):
        print(row)
