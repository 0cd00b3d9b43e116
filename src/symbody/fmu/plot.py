"""The plot of a simulation result: which variables to show, with units and the run's settings.

:func:`choose_variables` keeps at most :data:`MAX_PANELS` variables: the
model's own outputs first (payload position, rope tension, ...), then the
positions of the coordinates, then inputs, velocities and accelerations; the
caller says which were left out.  :func:`plot` labels each panel with its
unit and puts the ``--set`` values in the title.

``symbody simulate`` draws its PNG with Pillow (lines, text in the DejaVu Sans
font matplotlib ships, the PNG encoder) rather than through a matplotlib
figure: importing matplotlib and laying out twelve axes with their ticks costs
about a second per run, more than the simulation; Pillow draws and encodes the
same panels in about 0.1 s.  :func:`figure` gives the matplotlib figure of the
same panels for inspection and editing.

Example:
    >>> names = ["time", "theta", "dtheta", "ddtheta", "x", "y"]
    >>> choose_variables(names, max_panels=3)
    (['x', 'y', 'theta'], ['dtheta', 'ddtheta'])
"""

from __future__ import annotations

import importlib.util
import io
import math
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SymbodyError
from .files import write_atomically

#: Most panels in one figure.
MAX_PANELS = 12
#: Resolution of the PNG: 1440 pixels across two columns of panels, quick to draw and encode.
PNG_DPI = 90
BLACK = (0, 0, 0)
GRID = (222, 222, 222)
CURVE = (31, 119, 180)


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
    image: Any,
    box: tuple[int, int, int, int],
    time_range: tuple[float, float],
    t: np.ndarray,
    values: np.ndarray,
    label: str,
    time_axis: bool,
) -> None:
    """One panel of :func:`render` on a Pillow image: grid, tick labels, the curve, the frame, the label."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image)
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

    font = _font(9.0)
    for v in xticks:
        draw.line([(sx(v), y0), (sx(v), y1)], fill=GRID, width=1)
    for v in yticks:
        draw.line([(x0, sy(v)), (x1, sy(v))], fill=GRID, width=1)
        draw.text((x0 - 5, sy(v)), tick_label(float(v), ystep), fill=BLACK, font=font, anchor="rm")
    inside = image.crop((x0 + 1, y0 + 1, x1, y1))  # the curve is clipped to the inside of the frame
    curve = ImageDraw.Draw(inside)
    for points in _finite_runs(sx(t) - (x0 + 1), sy(values) - (y0 + 1)):
        curve.line(points, fill=CURVE, width=2, joint="curve")
    image.paste(inside, (x0 + 1, y0 + 1))
    draw.rectangle((x0, y0, x1, y1), outline=BLACK, width=1)
    _vertical_text(image, label, x0 - 0.8 * PNG_DPI, (y0 + y1) / 2, font)
    if time_axis:
        for v in xticks:
            draw.text((sx(v), y1 + 4), tick_label(float(v), xstep), fill=BLACK, font=font, anchor="ma")
        draw.text(((x0 + x1) / 2, y1 + 0.28 * PNG_DPI), "time [s]", fill=BLACK, font=font, anchor="ma")


def _finite_runs(xs: np.ndarray, ys: np.ndarray) -> Iterator[list[tuple[float, float]]]:
    """The polylines through the points ``(xs, ys)``, broken where a value is not finite.

    >>> list(_finite_runs(np.array([0.0, 1.0, 2.0, 3.0]), np.array([5.0, np.nan, 6.0, 7.0])))
    [[(0.0, 5.0), (0.0, 5.0)], [(2.0, 6.0), (3.0, 7.0)]]
    """
    finite = np.flatnonzero(np.isfinite(xs) & np.isfinite(ys))
    for run in np.split(finite, np.flatnonzero(np.diff(finite) > 1) + 1):
        if len(run):
            points = list(zip(xs[run].tolist(), ys[run].tolist()))
            yield points if len(points) > 1 else points * 2  # a lone point is drawn as a dot


def _vertical_text(image: Any, text: str, x: float, y: float, font: Any) -> None:
    """``text`` reading upwards, centred at ``(x, y)``."""
    from PIL import Image, ImageDraw

    left, top, right, bottom = font.getbbox(text)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)))
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=font)
    mask = mask.rotate(90, expand=True)
    image.paste(BLACK, (round(x - mask.width / 2), round(y - mask.height / 2)), mask)


def _font_file() -> str | None:
    """DejaVu Sans as matplotlib ships it, found without importing matplotlib (a third of a second)."""
    spec = importlib.util.find_spec("matplotlib")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
        if path.is_file():
            return str(path)
    return None


@lru_cache(maxsize=4)
def _font(points: float) -> Any:
    """DejaVu Sans of ``points`` at :data:`PNG_DPI` (Pillow's own font where FreeType is missing)."""
    from PIL import ImageFont

    pixels = max(1, round(points * PNG_DPI / 72.0))
    path = _font_file()
    try:
        return ImageFont.truetype(path, pixels) if path else ImageFont.load_default(pixels)
    except (OSError, ImportError, TypeError):  # Pillow without FreeType, or older than load_default(size)
        return ImageFont.load_default()


def nice_ticks(lo: float, hi: float, count: int = 5) -> np.ndarray:
    """About ``count`` round values (1, 2, 2.5 or 5 times a power of ten) inside ``[lo, hi]``.

    >>> nice_ticks(0.0, 10.0).tolist()
    [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    """
    span = hi - lo
    if not (math.isfinite(span) and span > 0):
        return np.array([lo]) if math.isfinite(lo) else np.array([])
    raw = span / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * power >= raw * (1 - 1e-9))
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    return np.arange(first, last + 1) * step


def tick_label(value: float, step: float) -> str:
    """``value`` with as many decimals as the tick step needs.

    >>> tick_label(0.30000000000000004, 0.1), tick_label(2500.0, 500.0), tick_label(0.025, 0.025)
    ('0.3', '2500', '0.025')
    """
    if value == 0:
        return "0"
    if abs(value) >= 1e6 or abs(value) < 1e-4:
        return f"{value:.4g}"
    decimals = next((d for d in range(13) if abs(round(step, d) - step) <= 1e-9 * step), 3) if step > 0 else 3
    return f"{value:.{decimals}f}"


def render(
    result: np.ndarray,
    names: Sequence[str] | None = None,
    title: str = "",
    units: dict[str, str] | None = None,
    settings: dict[str, object] | None = None,
) -> tuple[np.ndarray, dict[str, object]]:
    """The plot of :func:`plot` as RGB pixels, with the texts it shows.

    The same panels as :func:`figure` (one per variable, units on the axes, the
    settings under the title), drawn with Pillow.
    Returns the pixels and ``{"title": ..., "ylabels": [...], "xlabel": ...}``.
    """
    from PIL import Image, ImageDraw

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
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((width / 2, 0.1 * dpi + i * 0.25 * dpi), line, fill=BLACK, font=_font(11.0), anchor="ma")
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
        _draw_panel(image, (x0, y0, x0 + panel_w, y0 + panel_h), (t0, t1), t, result[name], ylabels[-1], time_axis)
    return np.asarray(image), {"title": heading, "ylabels": ylabels, "xlabel": "time [s]"}


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
    from PIL import Image

    pixels, _ = render(result, names, title, units, settings)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG", compress_level=3)
    data = buffer.getvalue()

    def fill(tmp: Path) -> None:
        tmp.write_bytes(data)

    return write_atomically(Path(path), fill)
