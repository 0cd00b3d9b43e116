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
from .raster import GRID, Canvas, encode_png, nice_ticks, tick_label

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

    A plain :class:`matplotlib.figure.Figure`: no pyplot, no GUI backend, nothing to close.  For
    inspection and further editing; :func:`plot` draws the same panels without matplotlib's figure.
    """
    from matplotlib.figure import Figure

    units = units or {}
    names = _panel_names(result, names)
    ncols = 1 if len(names) <= 4 else 2
    nrows = math.ceil(len(names) / ncols)
    fig = Figure(figsize=(8 * ncols, 2.0 * nrows + 0.9))
    axes = fig.subplots(nrows, ncols, sharex=True, squeeze=False)
    t = result["time"]
    for ax, name in zip(axes.flat, names):
        ax.plot(t, result[name], lw=1.2)
        ax.set_ylabel(_label(name, units))
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


def _label(name: str, units: dict[str, str]) -> str:
    return f"{name} [{units[name]}]" if name in units else name


def _panel_names(result: np.ndarray, names: Sequence[str] | None) -> list[str]:
    names = [n for n in (names or result.dtype.names or ()) if n != "time"][:MAX_PANELS]
    if not names:
        raise SymbodyError("nothing to plot: the result has no variables")
    return names


def _value_range(values: np.ndarray) -> tuple[float, float]:
    """The plotted range of a variable: its finite values with a 5 % margin (a constant gets +-1 or +-10 %)."""
    finite = values[np.isfinite(values)]
    if not len(finite):
        return -1.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    if hi - lo <= 1e-12 * max(abs(lo), abs(hi)):
        pad = 0.1 * abs(lo) if lo else 1.0
        return lo - pad, hi + pad
    pad = 0.05 * (hi - lo)
    return lo - pad, hi + pad


def _draw_panel(
    canvas: Canvas,
    box: tuple[int, int, int, int],
    time_range: tuple[float, float],
    t: np.ndarray,
    values: np.ndarray,
    label: str,
    time_axis: bool,
) -> None:
    """One panel of :func:`render`: grid, tick labels, the curve, the frame, the variable's label."""
    x0, y0, x1, y1 = box
    t0, t1 = time_range
    values = np.asarray(values, dtype=float)
    lo, hi = _value_range(values)
    xticks, yticks = nice_ticks(t0, t1, 6), nice_ticks(lo, hi, 4)
    xstep = float(xticks[1] - xticks[0]) if len(xticks) > 1 else 1.0
    ystep = float(yticks[1] - yticks[0]) if len(yticks) > 1 else 1.0

    def sx(v):
        return x0 + (v - t0) / (t1 - t0) * (x1 - x0)

    def sy(v):
        return y1 - (v - lo) / (hi - lo) * (y1 - y0)

    for v in xticks:
        canvas.line([sx(v)] * 2, [y0, y1], GRID, width=1)
    for v in yticks:
        canvas.line([x0, x1], [sy(v)] * 2, GRID, width=1)
        canvas.text(tick_label(float(v), ystep), x0 - 5, sy(v), anchor="right")
    canvas.line(sx(t), sy(values), (31, 119, 180), clip=(x0 + 1, y0 + 1, x1 - 1, y1 - 1))
    canvas.rectangle(x0, y0, x1, y1)
    canvas.text(label, x0 - 0.8 * canvas.dpi, (y0 + y1) / 2, anchor="center", vertical=True)
    if time_axis:
        for v in xticks:
            canvas.text(tick_label(float(v), xstep), sx(v), y1 + 4, anchor="top")
        canvas.text("time [s]", (x0 + x1) / 2, y1 + 0.28 * canvas.dpi, anchor="top")


def render(
    result: np.ndarray,
    names: Sequence[str] | None = None,
    title: str = "",
    units: dict[str, str] | None = None,
    settings: dict[str, object] | None = None,
) -> tuple[np.ndarray, dict[str, object]]:
    """The plot of :func:`plot` as RGB pixels, with the texts it shows.

    The same panels as :func:`figure` (one per variable, units on the axes, the
    settings under the title), drawn on a :class:`~symbody.fmu.raster.Canvas`.
    Returns the pixels and ``{"title": ..., "ylabels": [...], "xlabel": ...}``.
    """
    units = units or {}
    names = _panel_names(result, names)
    ncols = 1 if len(names) <= 4 else 2
    nrows = math.ceil(len(names) / ncols)
    heading = _title(title, settings)
    lines = heading.split("\n") if heading else []
    dpi = PNG_DPI
    width, height = round(8 * ncols * dpi), round((2.0 * nrows + 0.9) * dpi)
    left, right, bottom, gap_x, gap_y = (round(v * dpi) for v in (1.0, 0.25, 0.55, 1.15, 0.3))
    top = round((0.2 + 0.25 * len(lines)) * dpi)
    panel_w = (width - left - right - gap_x * (ncols - 1)) // ncols
    panel_h = (height - top - bottom - gap_y * (nrows - 1)) // nrows
    canvas = Canvas(width, height, dpi)
    for i, line in enumerate(lines):
        canvas.text(line, width / 2, 0.1 * dpi + i * 0.25 * dpi, size=11, anchor="top")
    t = np.asarray(result["time"], dtype=float)
    t0, t1 = (float(t[0]), float(t[-1])) if len(t) else (0.0, 1.0)
    if not t1 > t0:
        t0, t1 = t0 - 0.5, t0 + 0.5
    ylabels = []
    for i, name in enumerate(names):
        row, col = divmod(i, ncols)
        x0, y0 = left + col * (panel_w + gap_x), top + row * (panel_h + gap_y)
        ylabels.append(_label(name, units))
        time_axis = i + ncols >= len(names)  # the time axis under the last panel of each column
        _draw_panel(canvas, (x0, y0, x0 + panel_w, y0 + panel_h), (t0, t1), t, result[name], ylabels[-1], time_axis)
    return canvas.pixels, {"title": heading, "ylabels": ylabels, "xlabel": "time [s]"}


def plot(
    result: np.ndarray,
    path: str | Path,
    names: Sequence[str] | None = None,
    title: str = "",
    units: dict[str, str] | None = None,
    settings: dict[str, object] | None = None,
) -> Path:
    """Plot variables against time into a PNG, written atomically (drawn by :func:`render`).

    Args:
        result: structured array with ``time`` first (fmpy's result).
        path: the PNG to write.
        names: variables to plot (default: all but ``time``; at most :data:`MAX_PANELS` are shown,
            choose them with :func:`choose_variables`).
        title: the figure's title (the model's name).
        units: unit of each variable (``variable_units`` of the FMU).
        settings: values the run changed (``--set``), shown under the title.
    """
    pixels, _ = render(result, names, title, units, settings)
    data = encode_png(pixels)

    def fill(tmp: Path) -> None:
        tmp.write_bytes(data)

    return write_atomically(Path(path), fill)
