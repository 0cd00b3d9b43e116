"""The plot of a parameter study (``symbody sweep --plot``): one result column over the swept variables.

:func:`study_figure` chooses the plot from the study's design: over one swept variable, the
column against it; over two that form a full grid (a factorial), a heat map with the value
written in each cell and the failed runs marked, as the robustness maps of the crane examples;
otherwise (samples, three or more variables) one scatter panel per swept variable.
:func:`write_study_plot` writes it as a PNG, atomically.

Example:
    >>> import pandas as pd
    >>> df = pd.DataFrame({"m": [1.0, 1.0, 2.0, 2.0], "l": [5.0, 10.0, 5.0, 10.0],
    ...                    "theta.max": [0.1, 0.2, 0.3, float("nan")], "status": ["ok", "ok", "ok", "error"]})
    >>> fig = study_figure(df, "theta.max", ["m", "l"], units={"theta": "rad", "l": "m"})
    >>> fig.axes[0].get_title().splitlines()[0]
    'theta.max [rad] over m and l: 4 runs, 1 failed'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: most cells of a heat map that get their value written in them
MAX_LABELLED_CELLS = 400


def _label(name: str, units: Mapping[str, str]) -> str:
    """``theta.max [rad]``: a column or variable with the unit of its variable."""
    unit = units.get(name) or units.get(name.rsplit(".", 1)[0])
    return f"{name} [{unit}]" if unit else name


def _values(df: Any, column: str) -> np.ndarray:
    """The column's values, NaN for the runs that failed."""
    values = np.asarray(df[column], dtype=float).copy()
    if "status" in df:
        values[np.asarray(df["status"]) != "ok"] = np.nan
    return values


def _grid(df: Any, x: str, y: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The sorted values of ``x`` and ``y`` if the runs form their full grid (each pair once), else None."""
    xs, ys = np.unique(np.asarray(df[x], dtype=float)), np.unique(np.asarray(df[y], dtype=float))
    pairs = set(zip(np.asarray(df[x], dtype=float), np.asarray(df[y], dtype=float)))
    return (xs, ys) if len(pairs) == len(df) == xs.size * ys.size else None


def study_figure(
    df: Any,
    column: str,
    swept: Sequence[str],
    units: Mapping[str, str] | None = None,
    title: str = "",
):
    """A matplotlib :class:`~matplotlib.figure.Figure` of ``column`` over the ``swept`` variables.

    Args:
        df: the study's table (one row per run: the swept values, the result columns, ``status``).
        column: the result column shown (``theta.max``, a metric, ...).
        swept: the swept variables, in order: the first is the horizontal axis.
        units: unit of each variable (a column ``NAME.max`` takes the unit of ``NAME``).
        title: a second title line (the FMU's name).
    """
    from matplotlib.figure import Figure

    units = dict(units or {})
    if not swept:
        raise ValueError("a study plot needs at least one swept variable")
    for name in [*swept, column]:
        if name not in df:
            raise ValueError(f"the study has no column {name!r}; it has: {', '.join(map(str, df.columns))}")
    values = _values(df, column)
    failed = int(np.isnan(values).sum())
    names = " and ".join(swept) if len(swept) <= 2 else f"{len(swept)} variables"
    heading = f"{_label(column, units)} over {names}: {len(df)} runs" + (f", {failed} failed" if failed else "")
    heading += f"\n{title}" if title else ""
    grid = _grid(df, swept[0], swept[1]) if len(swept) == 2 else None
    if grid is not None:
        fig = Figure(figsize=(7.5, 5.2))
        _heat_map(fig, df, values, swept[0], swept[1], grid, column, units)
    elif len(swept) == 1:
        fig = Figure(figsize=(7.0, 4.5))
        ax = fig.add_subplot()
        x = np.asarray(df[swept[0]], dtype=float)
        order = np.argsort(x)
        ax.plot(x[order], values[order], "o-")
        ax.set_xlabel(_label(swept[0], units))
        ax.set_ylabel(_label(column, units))
        ax.grid(True, alpha=0.3)
    else:
        fig = Figure(figsize=(4.0 * len(swept), 4.0))
        for k, name in enumerate(swept):
            ax = fig.add_subplot(1, len(swept), k + 1, sharey=fig.axes[0] if k else None)
            ax.plot(np.asarray(df[name], dtype=float), values, "o", alpha=0.7)
            ax.set_xlabel(_label(name, units))
            ax.grid(True, alpha=0.3)
        fig.axes[0].set_ylabel(_label(column, units))
    fig.axes[0].set_title(heading, fontsize=10)
    fig.tight_layout()
    return fig


def _heat_map(fig, df, values, x: str, y: str, grid, column: str, units: Mapping[str, str]) -> None:
    xs, ys = grid
    table = np.full((ys.size, xs.size), np.nan)
    table[np.searchsorted(ys, np.asarray(df[y], dtype=float)), np.searchsorted(xs, np.asarray(df[x], dtype=float))] = (
        values
    )
    ax = fig.add_subplot()
    image = ax.imshow(table, origin="lower", aspect="auto", cmap="viridis", interpolation="nearest")
    ax.set_xticks(range(xs.size), [f"{v:g}" for v in xs])
    ax.set_yticks(range(ys.size), [f"{v:g}" for v in ys])
    ax.set_xlabel(_label(x, units))
    ax.set_ylabel(_label(y, units))
    if table.size <= MAX_LABELLED_CELLS:
        finite = table[np.isfinite(table)]
        low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        for (i, j), v in np.ndenumerate(table):
            light = np.isnan(v) or v < low + 0.6 * (high - low)  # white text on the dark end of viridis
            text = "failed" if np.isnan(v) else f"{v:.3g}"
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color="w" if light else "k")
    fig.colorbar(image, ax=ax, label=_label(column, units))


def write_study_plot(
    df: Any,
    path: str | Path,
    column: str,
    swept: Sequence[str],
    units: Mapping[str, str] | None = None,
    title: str = "",
) -> Path:
    """Write :func:`study_figure` as a PNG, atomically (an existing file is replaced only on success)."""
    from ..fmu.files import write_atomically

    fig = study_figure(df, column, swept, units, title)
    return write_atomically(Path(path), lambda tmp: fig.savefig(tmp, dpi=100, format="png"))


__all__ = ["study_figure", "write_study_plot", "MAX_LABELLED_CELLS"]
