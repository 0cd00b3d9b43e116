"""The plot of a simulation result: which variables to show, with units and the run's settings.

:func:`choose_variables` keeps at most :data:`MAX_PANELS` variables: the
model's own outputs first (payload position, rope tension, ...), then the
positions of the coordinates, then inputs, velocities and accelerations; the
caller says which were left out.  :func:`plot` labels each panel with its
unit and puts the ``--set`` values in the title.

Example:
    >>> names = ["time", "theta", "dtheta", "ddtheta", "x", "y"]
    >>> choose_variables(names, max_panels=3)
    (['x', 'y', 'theta'], ['dtheta', 'ddtheta'])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import SymbodyError
from .files import write_atomically

#: Most panels in one figure.
MAX_PANELS = 12
#: Resolution of the PNG: 1440 pixels across two columns of panels, quick to draw and encode.
PNG_DPI = 90


def _roles(names: Sequence[str], inputs: Sequence[str]) -> dict[str, int]:
    """Rank of each variable: 0 user output, 1 position, 2 input, 3 velocity, 4 acceleration."""
    present = set(names)
    velocities = {f"d{n}" for n in names if f"d{n}" in present and f"dd{n}" in present}
    positions = {n for n in names if f"d{n}" in velocities}
    accelerations = {f"d{v}" for v in velocities}
    rank = {}
    for n in names:
        if n in positions:
            rank[n] = 1
        elif n in velocities:
            rank[n] = 3
        elif n in accelerations:
            rank[n] = 4
        elif n in inputs:
            rank[n] = 2
        else:
            rank[n] = 0
    return rank


def choose_variables(
    names: Sequence[str], inputs: Sequence[str] = (), max_panels: int = MAX_PANELS
) -> tuple[list[str], list[str]]:
    """Split a result's variables into the ones to plot and the ones left out (see the module docstring).

    Positions are recognised by their velocity ``dX`` and acceleration ``ddX``
    companions (the FMU's naming of coordinates).
    """
    candidates = [n for n in names if n != "time"]
    rank = _roles(candidates, inputs)
    ordered = sorted(candidates, key=lambda n: (rank[n], candidates.index(n)))
    return ordered[:max_panels], ordered[max_panels:]


def _title(title: str, settings: dict[str, object] | None) -> str:
    if not settings:
        return title
    values = ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}" for k, v in settings.items())
    return f"{title}\n{values}" if title else values


def figure(
    result: np.ndarray,
    names: Sequence[str] | None = None,
    title: str = "",
    units: dict[str, str] | None = None,
    settings: dict[str, object] | None = None,
):
    """The matplotlib figure of :func:`plot` (one panel per variable, units on the axes).

    A plain :class:`matplotlib.figure.Figure`: no pyplot, no GUI backend, nothing to close.
    """
    from matplotlib.figure import Figure

    units = units or {}
    names = [n for n in (names or result.dtype.names or ()) if n != "time"][:MAX_PANELS]
    if not names:
        raise SymbodyError("nothing to plot: the result has no variables")
    ncols = 1 if len(names) <= 4 else 2
    nrows = math.ceil(len(names) / ncols)
    fig = Figure(figsize=(8 * ncols, 2.0 * nrows + 0.9))
    axes = fig.subplots(nrows, ncols, sharex=True, squeeze=False)
    t = result["time"]
    for ax, name in zip(axes.flat, names):
        ax.plot(t, result[name], lw=1.2)
        ax.set_ylabel(f"{name} [{units[name]}]" if name in units else name)
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(names) :]:
        ax.set_visible(False)
    for column in range(ncols):  # the time axis under the last panel of each column
        last = max(i for i in range(len(names)) if i % ncols == column)
        axes.flat[last].xaxis.set_tick_params(labelbottom=True)
        axes.flat[last].set_xlabel("time [s]")
    heading = _title(title, settings)
    if heading:
        fig.suptitle(heading)
    _fixed_margins(fig, nrows, ncols, heading.count("\n") + 1 if heading else 0)
    return fig


def _fixed_margins(fig, nrows: int, ncols: int, title_lines: int) -> None:
    """Margins in inches (room for tick labels, axis labels and the title) without a layout pass."""
    width, height = fig.get_size_inches()
    left, right, bottom, gap_x, gap_y = 1.0, 0.25, 0.55, 1.15, 0.3
    top = 0.2 + 0.25 * title_lines
    axes_width = (width - left - right - gap_x * (ncols - 1)) / ncols
    axes_height = (height - top - bottom - gap_y * (nrows - 1)) / nrows
    fig.subplots_adjust(
        left=left / width,
        right=1 - right / width,
        bottom=bottom / height,
        top=1 - top / height,
        wspace=gap_x / axes_width,
        hspace=gap_y / axes_height,
    )


def plot(
    result: np.ndarray,
    path: str | Path,
    names: Sequence[str] | None = None,
    title: str = "",
    units: dict[str, str] | None = None,
    settings: dict[str, object] | None = None,
) -> Path:
    """Plot variables against time into a PNG, written atomically.

    Args:
        result: structured array with ``time`` first (fmpy's result).
        path: the PNG to write.
        names: variables to plot (default: all but ``time``; at most :data:`MAX_PANELS` are shown,
            choose them with :func:`choose_variables`).
        title: the figure's title (the model's name).
        units: unit of each variable (``variable_units`` of the FMU).
        settings: values the run changed (``--set``), shown under the title.
    """
    fig = figure(result, names, title, units, settings)
    return write_atomically(Path(path), lambda tmp: fig.savefig(tmp, dpi=PNG_DPI, format="png"))
