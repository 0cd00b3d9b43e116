"""The overhead crane's trolley against its end stop, open and closed loop, and the payload set down.

Run ``python examples/crane_control/end_stop.py [OUT_DIR]`` (default ``out/``; a few seconds).  It
prints the events each run meets and writes ``end_stop.png`` (trolley travel and stop force).

1. **Rebound** (:func:`rebound`): the trolley, driven at 20 kN from 16 m, hits the upper end stop
   (``examples/overhead_crane.py`` with ``end_stops=True``: unilateral contacts with restitution
   ``e_stop = 0.3``) and rebounds at ``-e_stop`` times its speed while the payload keeps swinging:
   the stop's impulse acts on the trolley alone, through the mass matrix.
2. **Pressed** (:func:`pressed`): a PD position loop (``kp`` 4 kN/m, ``kd`` 6 kN s/m) commands the
   trolley 0.5 m beyond the stop.  The trolley bounces, the bounces accumulate, the contact closes,
   and the stop then carries the drive's force, ``kp (x_ref - x_max)`` = 2 kN once the swing has
   died out: a controller that works against a mechanical limit, as when a target is given past the
   end of the runway.
3. **Set-down** (:func:`set_down`): the hoist pays out with 80 % of the payload weight; the payload
   lands on the floor (``ground=True``, no rebound) and rests on it with 20 % of its weight while
   the rope holds the rest.

Example:
    >>> import end_stop  # doctest: +SKIP
    >>> res = end_stop.pressed()  # doctest: +SKIP
    >>> round(float(res["F_stop_high"][-1]))  # doctest: +SKIP
    2000
"""

from __future__ import annotations

import sys
from pathlib import Path

import symbody as sb
from symbody.loader import load_model
from symbody.numeric import NumericModel, simulate

EXAMPLES = Path(__file__).resolve().parents[1]
KP, KD, X_REF = 4000.0, 6000.0, 20.5  # PD loop on the trolley; the end stop is at x_max = 20 m


def crane(**options) -> sb.Equations:
    """The derived overhead crane of ``examples/overhead_crane.py`` with ``options``."""
    return load_model(EXAMPLES / "overhead_crane.py", **options).derive()


def rebound(t_end: float = 6.0):
    """Open loop: 20 kN on the trolley from 16 m, into the upper end stop."""
    return simulate(crane(end_stops=True, x0=16.0), t_end, dt=0.02, inputs={"F_trolley": 20000.0})


def pressed(t_end: float = 80.0):
    """Closed loop: a PD loop commanding the trolley 0.5 m beyond its end stop (swing damped strongly)."""
    eq = crane(end_stops=True, x0=17.0)
    ix = [c.name for c in eq.coordinates].index("x")

    def pd(t, q, dq):
        return KP * (X_REF - q[ix]) - KD * dq[ix]

    return simulate(eq, t_end, dt=0.05, inputs={"F_trolley": pd}, p={"c_theta": 2e5})


def set_down(t_end: float = 8.0):
    """The hoist pays out with 80 % of the payload weight until the payload rests on the floor."""
    eq = crane(ground=True)
    weight = NumericModel(eq).p[[p.name for p in eq.parameters].index("m_payload")] * 9.80665
    return simulate(eq, t_end, dt=0.05, inputs={"F_hoist": 0.8 * weight})


def describe(name: str, res) -> None:
    kinds: dict[str, int] = {}
    for ev in res.events:
        kinds[f"{ev.kind} {ev.name}"] = kinds.get(f"{ev.kind} {ev.name}", 0) + 1
    first = ", ".join(f"{ev.kind} {ev.name} at {ev.time:.4f} s" for ev in res.events[:3])
    print(f"{name}: {len(res.events)} events ({', '.join(f'{k} x{n}' for k, n in kinds.items())}); first: {first}")


def plot(runs: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for name, res in runs.items():
        axes[0].plot(res.t, res["x"], label=name)
        axes[1].plot(res.t, res["F_stop_high"] / 1e3, label=name)
    axes[0].axhline(20.0, color="k", lw=0.8, ls="--")
    axes[0].set_ylabel("trolley x [m]")
    axes[1].set_ylabel("upper stop force [kN]")
    axes[1].set_xlabel("t [s]")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0] if argv else "out")
    out.mkdir(parents=True, exist_ok=True)
    runs = {"rebound": rebound(), "pressed": pressed()}
    down = set_down()
    for name, res in {**runs, "set-down": down}.items():
        describe(name, res)
    res = runs["pressed"]
    print(f"pressed: stop force {res['F_stop_high'][-1]:.1f} N, kp (x_ref - x_max) = {KP * (X_REF - 20.0):.1f} N")
    print(f"set-down: floor force {down['F_ground'][-1]:.1f} N, rope tension {down['rope_tension'][-1]:.1f} N")
    plot(runs, out / "end_stop.png")
    return {**runs, "set-down": down}


if __name__ == "__main__":
    main()
