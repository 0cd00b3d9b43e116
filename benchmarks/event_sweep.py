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
  and reversals, resting pressed against it) and launched at it (stopping away from it);
* ``incline``: the ball on a frictionless floor tilted by alpha in {10, 20, 40} deg, e in {0.5, 0.8} (along the
  normal the flat ball with g cos(alpha), along the floor a free slide; tests/support/floor_sweep.py);
* ``rough``: the same with friction (sliding on, or stopped and stuck), against its exact motion for the time
  the master closes the contact (checked against ``symbody.numeric.simulate`` in the tests);
* ``moving``: the ball on a floor the master moves through a motion input, rising or sinking (0.3, -2 m/s),
  accelerating (2, -3 m/s^2): relative to it the flat ball with g + a;
* ``heaving``: a floor heaving A sin(w t) (5 cm at 0.5 Hz, 10 cm at 1 Hz): Model Exchange against the impacts
  brentq finds; Co-Simulation moves it along the Taylor polynomial of each communication point (no Error, never
  below the floor the FMU moved);
* ``belt``: the ball dropped on a belt moving along itself (1 m/s; accelerating at 2 m/s^2 on a floor accelerating
  at +-1 m/s^2) with friction, which drags it to the belt's speed and carries it;
* ``deck``: the ball on a deck rolled by a motion input (5 deg at 0.2 Hz, 10 deg at 0.5 Hz: it lifts off at
  5.36 s) against ``symbody.numeric.simulate``.

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
from support.floor_sweep import (  # noqa: E402
    Belt,
    Floor,
    Roll,
    Rough,
    belt_ball,
    check_belt,
    check_inclined,
    check_moving_floor,
    check_rolling_deck,
    check_rough_incline,
    check_sampled_floor,
    deck_reference,
    floor_ball,
    inclined_ball,
    rolling_deck,
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
        yield from floor_sweep(family, versions, fmus)


FLOORS = {"rising 0.3 m/s": Floor(u=0.3), "sinking 2 m/s": Floor(u=-2.0), "up 2 m/s^2": Floor(a=2.0),
          "down 3 m/s^2": Floor(a=-3.0)}  # fmt: skip
HEAVES = {"A = 5 cm, 0.5 Hz": Floor(amplitude=0.05, w=math.pi), "A = 10 cm, 1 Hz": Floor(amplitude=0.1, w=2 * math.pi)}
BELTS = {
    "belt 1 m/s": Belt(1.0, 0.0, Floor(), 0.5, 0.4, 0.6),
    "belt 2 m/s^2, floor +1 m/s^2": Belt(-0.5, 2.0, Floor(a=1.0), 0.5, 0.4, 0.6),
    "belt 2 m/s^2, floor -1 m/s^2": Belt(-0.5, 2.0, Floor(a=-1.0), 0.5, 0.4, 0.6),
}


def floor_sweep(family: str, versions: list[int], fmus):
    """(case, master, version, failures) for the floors of tests/support/floor_sweep.py."""
    if family == "incline":
        for alpha in (10.0, 20.0, 40.0):
            for e in (0.5, 0.8):
                fmu = fmus(inclined_ball(math.radians(alpha), e), f"incline{alpha:g}_{e:g}_")
                for v in versions:
                    for m in ALL_MASTERS:
                        yield f"alpha={alpha:g} e={e}", m.name, v, check_inclined(m, fmu[v], math.radians(alpha), e)
    elif family == "rough":
        for name, c in {"slides on": Rough(math.radians(20), 0.5, 0.3, 0.5, 3.0),
                        "stops, sticks": Rough(math.radians(20), 0.5, 0.6, 0.7, 4.5)}.items():  # fmt: skip
            fmu = fmus(c.system(), f"rough{c.mu:g}_")
            for v in versions:
                for m in ALL_MASTERS:
                    yield name, m.name, v, check_rough_incline(m, fmu[v], c)
    elif family in ("moving", "heaving"):
        fmu = fmus(floor_ball(0.8), "floor")
        cases = FLOORS if family == "moving" else HEAVES
        for name, floor in cases.items():
            for e in (0.5, 0.8):
                for v in versions:
                    for m in ALL_MASTERS:
                        if family == "heaving" and m.kind == "cs":
                            yield f"{name} e={e}", m.name, v, check_sampled_floor(m, fmu[v], floor, e)
                        else:
                            yield f"{name} e={e}", m.name, v, check_moving_floor(m, fmu[v], floor, e)
    elif family == "belt":
        fmu = fmus(belt_ball(0.5, 0.4, 0.6), "belt")
        for name, b in BELTS.items():
            for v in versions:
                for m in ALL_MASTERS:
                    yield name, m.name, v, check_belt(m, fmu[v], b)
    elif family == "deck":
        fmu = fmus(rolling_deck(0.5), "deck")
        for name, roll in {"5 deg, 0.2 Hz": Roll(math.radians(5), 0.4 * math.pi),
                           "10 deg, 0.5 Hz": Roll(math.radians(10), math.pi)}.items():  # fmt: skip
            ref = deck_reference(0.5, roll, 6.0)
            for v in versions:
                for m in ALL_MASTERS:
                    yield name, m.name, v, check_rolling_deck(m, fmu[v], roll, ref, 6.0)
    else:
        raise SystemExit(f"unknown family {family!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "families",
        nargs="*",
        default=["ball", "crane", "slope", "block", "incline", "rough", "moving", "heaving", "belt", "deck"],
    )
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
