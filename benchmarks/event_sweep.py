"""A sweep of event FMUs over the class of cases of the tests of events in every master (not a benchmark of
speed: a matrix of passes and failures, too long for the test suite).

Cases (tests/support/event_sweep.py has the checks and the exact motions):

* ``ball``: the bouncing ball dropped from h0 in {0.3, 1, 5} m with e in {0.3, 0.5, 0.8, 0.9} (start values of
  one FMU);
* ``crane``: examples/overhead_crane.py with ``end_stops=True, ground=True``, F_trolley in {5, 20, 50} kN and
  F_hoist in {0.5, 0.8, 0.95, 1.2} m g, against ``symbody.numeric.simulate`` (1.2 m g lifts the payload: 3 s);
* ``slope``: a block on an incline with tan(alpha) within 1 % of mu or mu_static (stuck, breaking away, stopping
  after a long deceleration, launched uphill and held or sliding back);
* ``block``: a block with stick-slip friction pushed against an end stop (a rebound, an accumulation of impacts
  and reversals, resting pressed against it) and launched at it (stopping away from it).

Every case runs in every master of tests/support/event_masters.py (ME: Euler and rk4 with events at step ends,
rk4 and Euler with bisection, fmpy's CVode at rtol 1e-4, 1e-6, 1e-8; CS: rk4, dopri5, rosenbrock23 at tolerances
1e-3, 1e-4 and communication steps of 0.25 and 1 s), FMI 2 and 3.

Run: ``PYTHONPATH=src:tests python benchmarks/event_sweep.py [family ...] [--versions 2 3]``; prints one line a
failure and the counts, writes ``event_sweep.json`` in the current folder.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.contact_models import bouncing_ball  # noqa: E402
from support.event_masters import MASTERS, Master  # noqa: E402
from support.event_sweep import (  # noqa: E402
    BlockCase,
    Slope,
    block_at_stop,
    check_ball,
    check_block,
    check_crane,
    check_slope,
    crane_reference,
)
from support.friction_models import incline  # noqa: E402

ALL_MASTERS = MASTERS + [Master("euler_bisection", "me", "euler_bisection", 1e-3)]
G0, M_PAYLOAD = 9.80665, 4000.0


def slope_cases() -> dict[str, Slope]:
    """Near the limits: tan(alpha) 1 % below or above mu_static (0.5), a deceleration of 1 % of mu (0.4)."""
    below, above = math.atan(0.495), math.atan(0.505)
    return {
        "stick at 0.99 mu_s": Slope(below, 0.4, 0.5, 0.0, 1.0),
        "break away at 1.01 mu_s": Slope(above, 0.4, 0.5, 0.0, 1.0),
        "mu = mu_s, slide": Slope(above, 0.5, 0.5, 0.0, 1.0),
        "slow stop at 0.975 mu": Slope(math.atan(0.39), 0.4, 0.5, 0.3, 4.0),
        "uphill, held at 0.99 mu_s": Slope(below, 0.4, 0.5, -1.0, 2.0),
        "uphill, back at 1.01 mu_s": Slope(above, 0.4, 0.5, -1.0, 2.0),
        "uphill, mu = mu_s": Slope(above, 0.5, 0.5, -1.0, 2.0),
        "mu = 0": Slope(math.radians(20), 0.0, 0.0, -1.0, 1.0),
    }


def block_cases() -> dict[str, BlockCase]:
    return {
        "pushed, e = 0.5": BlockCase(15.0, 0.0, 0.5),
        "pushed, e = 0": BlockCase(15.0, 0.0, 0.0),
        "launched, e = 0.5": BlockCase(5.0, 2.0, 0.5),
        "launched, e = 0": BlockCase(5.0, 2.0, 0.0),
    }


def sweep(family: str, versions: list[int], folder: Path):
    """(case, master, version, failures) for every run of ``family``."""
    from symbody.fmu import export_fmu

    def fmus(system, name):
        return {v: export_fmu(system, folder / f"{name}{v}.fmu", fmi_version=v, kind="both") for v in versions}

    if family == "ball":
        ball = fmus(bouncing_ball(1.0, 0.8, 2.0), "ball")
        for h0 in (0.3, 1.0, 5.0):
            for e in (0.3, 0.5, 0.8, 0.9):
                for v in versions:
                    for m in ALL_MASTERS:
                        yield f"h0={h0} e={e}", m.name, v, check_ball(m, ball[v], h0, e)
    elif family == "crane":
        from support import example

        system = example("overhead_crane", end_stops=True, ground=True)
        crane = fmus(system, "crane")
        for ft in (5e3, 20e3, 50e3):
            for fh in (0.5, 0.8, 0.95, 1.2):
                inputs = {"F_trolley": ft, "F_hoist": fh * M_PAYLOAD * G0}
                stop = 10.0 if fh <= 1.0 else 3.0
                ref = crane_reference(system, inputs, stop)
                for v in versions:
                    for m in ALL_MASTERS:
                        yield (
                            f"F_trolley={ft:g} F_hoist={fh} m g",
                            m.name,
                            v,
                            check_crane(m, crane[v], inputs, ref, stop),
                        )
    elif family == "slope":
        for name, c in slope_cases().items():
            fmu = fmus(incline(c.alpha, c.mu, c.mu_static, c.v0), "slope" + str(abs(hash(name))))
            for v in versions:
                for m in ALL_MASTERS:
                    yield name, m.name, v, check_slope(m, fmu[v], c)
    elif family == "block":
        block = fmus(block_at_stop(15.0, 0.0, 0.5), "block")
        for name, c in block_cases().items():
            launched = fmus(block_at_stop(c.push, c.v0, c.e), "block" + str(abs(hash(name)))) if c.v0 else block
            for v in versions:
                for m in ALL_MASTERS:
                    yield name, m.name, v, check_block(m, launched[v], c)
    else:
        raise SystemExit(f"unknown family {family!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("families", nargs="*", default=["ball", "crane", "slope", "block"])
    parser.add_argument("--versions", nargs="*", type=int, default=[2, 3])
    parser.add_argument("--output", default="event_sweep.json")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for family in args.families:
            start, passed, failed = time.time(), 0, 0
            for case, master, version, failures in sweep(family, args.versions, Path(tmp)):
                rows.append({"family": family, "case": case, "master": master, "fmi": version, "failures": failures})
                if failures:
                    failed += 1
                    print(f"FAIL {family} | {case} | {master} | FMI {version}: {'; '.join(failures)}", flush=True)
                else:
                    passed += 1
            print(f"== {family}: {passed} passed, {failed} failed ({time.time() - start:.0f} s)", flush=True)
    Path(args.output).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
