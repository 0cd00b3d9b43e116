"""Robustness of the overhead-crane LQR: a parameter study over payload (1-8 t) and initial rope length (5-30 m).

Run ``python examples/crane_control/sweep_lqr.py [OUT_DIR] [--plot docs/sweep_lqr.png]
[--payloads 8] [--lengths 6] [--workers N | --scheduler ADDRESS]`` (default ``out/``; about a
minute on two cores).  It writes ``OUT_DIR/sweep_lqr.csv`` (one row per run) and the heat map
``OUT_DIR/sweep_lqr.png`` of the residual swing (drawn by :mod:`symbody.study.plot`, as
``symbody sweep --plot`` draws a summary column of a study from the command line).

The controller is the one of :mod:`overhead_lqr`: the flat feedforward of the planned 10 m
payload motion and the LQR on the tracking error, sampled every 10 ms, designed for the
nominal 4 t payload.  A crane's drives measure the rope length, so the design is scheduled on
it (:func:`schedule`: equilibrium, linearization, LQR and flat reference at each rope length of
the study); the payload mass is the unknown.  Every case of the study is the FMU with another
payload mass ``m_payload`` and initial rope length ``l``; the hoist holds the rope at that
length with the actual payload weight (a winch drive with a load cell, as in the 6 t run of
:mod:`overhead_lqr`).  The map shows how the residual swing grows as the payload departs from
the 4 t the controller assumes (the payload-to-trolley mass ratio changes the swing frequency
the feedforward cancels), at every rope length from 5 to 30 m.

The study is :func:`symbody.sweep`: a full factorial of the two parameters, each case a
closed loop run on a dask worker (the FMU is shipped to the workers as bytes, instantiated
once per worker and reset between runs), with user metrics computed on the workers from the
trajectory: settling time, maximum and residual swing (:func:`crane_motion.transfer_metrics`)
and the peak rope tension.  A study without a controller (a constant trolley force, the hoist
holding the nominal payload, over trolley mass and rope length) runs from the command line::

    symbody sweep out/overhead_crane.fmu --param m_trolley=1000:3000:5 --param l=5:30:6 \\
        --set F_trolley=2000 --stop-time 35 --output theta --output rope_tension -o out/open_loop.csv \\
        --plot out/open_loop.png
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cloudpickle  # noqa: E402  (dask's serializer; ships this script's functions to the workers)
import crane_design  # noqa: E402
import crane_loop  # noqa: E402
import crane_motion  # noqa: E402
import overhead_lqr  # noqa: E402
from crane_design import FlatReference, bryson, sampled_lqr  # noqa: E402
from crane_loop import FeedbackLaw  # noqa: E402
from crane_motion import transfer_metrics  # noqa: E402
from overhead_lqr import (  # noqa: E402
    DISTANCE,
    F_TROLLEY_MAX,
    FMU_SOLVER,
    INPUTS,
    STATES,
    T_END,
    TOLERATED_INPUTS,
    TOLERATED_STATES,
    TROLLEY_SWING,
    H,
)

import symbody  # noqa: E402

# the workers have symbody but not these scripts: ship them by value with the controller and metrics
for _module in (crane_design, crane_loop, crane_motion, overhead_lqr, sys.modules[__name__]):
    if _module.__name__ != "__main__":
        cloudpickle.register_pickle_by_value(_module)

PAYLOADS = (1000.0, 8000.0)  # kg
LENGTHS = (5.0, 30.0)  # m, initial rope length


def schedule(d, lengths) -> dict[float, tuple[np.ndarray, FlatReference]]:
    """The LQR gain and flat reference of the nominal 4 t crane hanging at each rope length.

    Steps 1 and 2 of :func:`overhead_lqr.design` about another equilibrium: the rope held at
    ``l`` (hoist off, ``x`` and ``l`` fixed), linearized there, the same Bryson weights and
    planned motion.
    """
    from symbody.numeric import linearize, static_equilibrium

    table = {}
    sub = np.ix_(TROLLEY_SWING, TROLLEY_SWING)
    for length in lengths:
        rest = static_equilibrium(d.eq, q=[0.0, float(length), 0.2], u={"F_hoist": 0.0}, fixed=["x", "l"])
        lin = linearize(d.eq, rest.q, u={"F_hoist": -rest.holding["l"]}, inputs=INPUTS, outputs=["x_payload"])
        K, _ = sampled_lqr(lin.A, lin.B, bryson(TOLERATED_STATES), bryson(TOLERATED_INPUTS), H)
        table[float(length)] = (K, FlatReference(lin.A[sub], lin.B[TROLLEY_SWING, 0], d.move))
    return table


class CaseController:
    """A factory for :func:`symbody.sweep`: ``CaseController(table, g)(case)`` is the sampled controller of a case.

    Gain-scheduled on the rope length (the drive measures it): the LQR and flat reference
    designed for the nominal payload at the case's rope length; the hoist holds that length
    with the actual payload weight (a winch drive with a load cell).  The payload mass is the
    unknown the study probes.
    """

    def __init__(self, table: dict[float, tuple[np.ndarray, FlatReference]], g: float):
        self.table, self.g = table, g

    def __call__(self, case: dict) -> FeedbackLaw:
        K, flat = self.table[case["l"]]
        l_hold, F_hold = case["l"], case["m_payload"] * self.g

        def law(t: float, s: np.ndarray) -> np.ndarray:
            xs, F_ff = flat(t)
            err = s - np.array([xs[0], l_hold, xs[1], xs[2], 0.0, xs[3]])
            return np.array([F_ff - K[0] @ err, F_hold - K[1] @ err])

        return FeedbackLaw(STATES, INPUTS, law, {"F_trolley": (-F_TROLLEY_MAX, F_TROLLEY_MAX)})


def metrics(motion_end: float) -> dict:
    """User metrics on each run's trajectory (evaluated on the workers)."""

    def transfer(traj) -> dict:
        m = transfer_metrics(
            traj["time"], traj["x_payload"] - DISTANCE, traj["theta"], traj["l"] * np.sin(traj["theta"]), motion_end
        )
        return {"settling_time": m.settling_time, "max_swing": m.max_swing, "residual_swing": m.residual_swing}

    def peak_rope_tension(traj) -> float:
        # from the second sample on: the first is read before the controller sets its first inputs
        return float(np.max(traj["rope_tension"][1:]))

    return {"transfer": transfer, "peak_rope_tension": peak_rope_tension}


def run_study(d, fmu: Path, payloads, lengths, results: Path, **engine):
    """The study: every (payload, rope length) pair in closed loop with the FMU; returns the DataFrame."""
    return symbody.sweep(
        fmu,
        {"m_payload": list(payloads), "l": list(lengths)},
        start_values=FMU_SOLVER,
        stop_time=T_END,
        controller=CaseController(schedule(d, lengths), d.params["g"]),
        sample_period=H,
        outputs=["theta", "F_trolley"],
        record=["x_payload", "rope_tension"],
        metrics=metrics(d.move.end),
        output=results,
        **engine,
    )


def plot_heat_map(df, d, path: Path) -> None:
    """Residual swing over payload and initial rope length (:mod:`symbody.study.plot`, the heat map of
    ``symbody sweep --plot``), the payload the controller assumes marked."""
    from symbody.study.plot import study_figure

    units = {"transfer.residual_swing": "deg", "l": "m"}
    fig = study_figure(df, "transfer.residual_swing", ["m_payload", "l"], units)
    ax = fig.axes[0]
    payloads = np.sort(df["m_payload"].unique())
    ax.set_xticks(range(len(payloads)), [f"{m / 1e3:g}" for m in payloads])
    ax.set_xlabel("payload [t]")
    ax.set_ylabel("initial rope length [m]")
    m0 = d.params["m_payload"]
    ax.axvline(
        np.interp(m0, payloads, range(len(payloads))),
        color="r",
        lw=1.5,
        ls="--",
        label=f"payload the controller assumes ({m0 / 1e3:g} t)",
    )
    ax.legend(loc="upper center", fontsize=8, framealpha=0.9)
    ax.set_title(
        f"Overhead crane LQR (scheduled on rope length), {DISTANCE:g} m transfer: residual swing [deg]\n"
        f"{len(df)} closed-loop FMU runs with symbody.sweep",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> dict:
    """Run the study; returns ``design, fmu, results, table, plot``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", default="out", help="folder for the FMU, the CSV and the PNG (default: out/)")
    ap.add_argument("--plot", type=Path, help="path of the heat map (default: OUT/sweep_lqr.png)")
    ap.add_argument("--payloads", type=int, default=8, help="payload values from 1 to 8 t (default 8)")
    ap.add_argument("--lengths", type=int, default=6, help="rope lengths from 5 to 30 m (default 6)")
    ap.add_argument("--workers", type=int, default=None, help="local worker processes (default: cores; 0: here)")
    ap.add_argument("--scheduler", default=None, help="address or scheduler file of an existing dask cluster")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    d = overhead_lqr.design()
    fmu = overhead_lqr.export_plant(d.eq, out / "overhead_crane.fmu")
    payloads = np.linspace(*PAYLOADS, args.payloads)
    lengths = np.linspace(*LENGTHS, args.lengths)
    results = out / "sweep_lqr.csv"
    df = run_study(d, fmu, payloads, lengths, results, workers=args.workers, scheduler=args.scheduler)
    plot = args.plot or out / "sweep_lqr.png"
    plot.parent.mkdir(parents=True, exist_ok=True)
    plot_heat_map(df, d, plot)
    ok = df[df["status"] == "ok"]
    print(f"{len(df)} runs ({df.attrs['runs']} now, {df.attrs['skipped']} from {results}), {len(ok)} ok")
    columns = [
        "m_payload",
        "l",
        "transfer.residual_swing",
        "transfer.max_swing",
        "transfer.settling_time",
        "peak_rope_tension",
    ]
    print(df[columns + ["status"]].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    worst = ok.loc[ok["transfer.residual_swing"].idxmax()]
    print(
        f"worst residual swing {worst['transfer.residual_swing']:.3f} deg at {worst['m_payload'] / 1e3:g} t, "
        f"{worst['l']:g} m; plot {plot}; total {time.perf_counter() - t0:.1f} s"
    )
    return {"design": d, "fmu": fmu, "results": results, "table": df, "plot": plot}


if __name__ == "__main__":
    main()
