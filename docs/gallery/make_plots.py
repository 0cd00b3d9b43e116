"""Draws the gallery's plots of the example models: each simulated from its start values, unforced.

Run ``python docs/gallery/make_plots.py`` from the repository root (about a minute); it writes
``docs/gallery/<example>.png``, the free motion of each model's coordinates, with
:func:`symbody.numeric.simulate` (projection onto the constraints after every step).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from symbody.loader import load_model  # noqa: E402
from symbody.numeric import simulate  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

# example file, its options, simulated time, the coordinates to draw (None: all), caption
RUNS = [
    ("simple_pendulum", {}, 10.0, None, "free swing, damped in the hinge"),
    ("slider_crank", {}, 5.0, None, "absolute angles of crank and rod, tied by the closure"),
    ("double_pendulum_square_disc", {"coordinates": "relative"}, 5.0, None, "square and disc"),
    ("four_bar", {}, 5.0, None, "three relative angles, one loop"),
    ("crank_rod_disc", {}, 5.0, None, "the disc rolling on the parabola"),
    ("n_link_pendulum_on_cart", {"n": 3}, 5.0, None, "cart and three links"),
]


def plot_example(name: str, options: dict, t_end: float, names: list[str] | None, caption: str) -> Path:
    """Simulate ``examples/<name>.py`` built with ``options`` and plot its coordinates against time."""
    eq = load_model(ROOT / "examples" / f"{name}.py", **options).derive()
    res = simulate(eq, t_end, dt=0.01, formulation="projection")
    coords = [c.name for c in eq.coordinates]
    fig, ax = plt.subplots(figsize=(6.4, 2.8), dpi=80)
    for c in names or coords:
        ax.plot(res.t, res[c], label=c)
    ax.set_xlabel("t [s]")
    ax.set_title(f"examples/{name}.py: {caption}", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=min(4, len(names or coords)), loc="upper right")
    fig.tight_layout()
    path = HERE / f"{name}.png"
    fig.savefig(path)
    plt.close(fig)
    return path


if __name__ == "__main__":
    for run in RUNS:
        print("wrote", plot_example(*run))
