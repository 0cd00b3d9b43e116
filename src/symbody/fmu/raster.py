"""A small raster canvas for the simulation plot: lines, text and PNG bytes, drawn with numpy.

``symbody simulate`` draws its PNG here instead of through a matplotlib figure:
a figure's axes, ticks and layout machinery (and importing them) cost about a
second per run, more than the simulation itself.  Text is rendered by Pillow
(matplotlib's own image library) with the DejaVu Sans font matplotlib ships;
everything else is numpy.  The PNG is written as the PNG
specification describes it (W3C, "Portable Network Graphics (PNG) Specification
(Second Edition)", 2003): 8-bit RGB, filter type 0, one zlib stream.

Example:
    >>> canvas = Canvas(120, 40)
    >>> canvas.line([5, 115], [35, 5], (31, 119, 180))
    >>> _ = canvas.text("x [m]", 60, 20, anchor="center")
    >>> encode_png(canvas.pixels)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
"""

from __future__ import annotations

import importlib.util
import math
import struct
import zlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

BLACK = (0, 0, 0)
GRID = (222, 222, 222)


def _font_file() -> str | None:
    """DejaVu Sans as matplotlib ships it, found without importing matplotlib (a third of a second)."""
    spec = importlib.util.find_spec("matplotlib")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
        if path.is_file():
            return str(path)
    return None


@lru_cache(maxsize=4)
def _font(pixels: int):
    from PIL import ImageFont

    path = _font_file()
    try:
        return ImageFont.truetype(path, pixels) if path else ImageFont.load_default(pixels)
    except (OSError, ImportError):  # Pillow built without FreeType
        return ImageFont.load_default()


def text_image(text: str, size: float = 9.0, dpi: float = 90.0) -> np.ndarray:
    """Coverage (0..1) of ``text`` in DejaVu Sans of ``size`` points, one line high (ascent + descent)."""
    from PIL import Image, ImageDraw

    font = _font(max(1, round(size * dpi / 72.0)))
    left, _, right, _ = font.getbbox(text)
    ascent, descent = font.getmetrics()
    image = Image.new("L", (max(1, right - left), max(1, ascent + descent)))
    ImageDraw.Draw(image).text((-left, 0), text, font=font, fill=255)
    return np.asarray(image, dtype=np.float32) / 255.0


class Canvas:
    """An RGB image on white; coordinates in pixels, ``y`` downwards."""

    def __init__(self, width: int, height: int, dpi: float = 90.0):
        self.pixels = np.full((height, width, 3), 255, dtype=np.uint8)
        self.dpi = dpi

    @property
    def width(self) -> int:
        return self.pixels.shape[1]

    @property
    def height(self) -> int:
        return self.pixels.shape[0]

    def line(
        self,
        xs: Sequence[float],
        ys: Sequence[float],
        color: tuple[int, int, int],
        width: int = 2,
        clip: tuple[float, float, float, float] | None = None,
    ) -> None:
        """A polyline through ``(xs, ys)``, ``width`` pixels thick; NaN points break it; ``clip`` = x0, y0, x1, y1."""
        x = np.asarray(xs, dtype=float)
        y = np.asarray(ys, dtype=float)
        if len(x) == 1:
            x, y = np.repeat(x, 2), np.repeat(y, 2)
        x0, x1, y0, y1 = x[:-1], x[1:], y[:-1], y[1:]
        ok = np.isfinite(x0) & np.isfinite(x1) & np.isfinite(y0) & np.isfinite(y1)
        x0, x1, y0, y1 = x0[ok], x1[ok], y0[ok], y1[ok]
        if not len(x0):
            return
        lo_x, lo_y, hi_x, hi_y = clip or (0, 0, self.width - 1, self.height - 1)
        limit = 4.0 * (self.width + self.height)  # a segment far outside is cut before it is sampled
        x0, x1 = np.clip(x0, -limit, limit), np.clip(x1, -limit, limit)
        y0, y1 = np.clip(y0, -limit, limit), np.clip(y1, -limit, limit)
        n = np.maximum(np.ceil(np.maximum(np.abs(x1 - x0), np.abs(y1 - y0))), 1).astype(np.int64) + 1
        seg = np.repeat(np.arange(len(n)), n)
        frac = (np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)) / np.repeat(n - 1, n)
        px = np.rint(x0[seg] + frac * (x1 - x0)[seg]).astype(np.int64)
        py = np.rint(y0[seg] + frac * (y1 - y0)[seg]).astype(np.int64)
        for dx in range(width):
            for dy in range(width):
                qx, qy = px + dx - (width - 1) // 2, py + dy - (width - 1) // 2
                inside = (qx >= lo_x) & (qx <= hi_x) & (qy >= lo_y) & (qy <= hi_y)
                self.pixels[qy[inside], qx[inside]] = color

    def rectangle(self, x0: int, y0: int, x1: int, y1: int, color: tuple[int, int, int] = BLACK) -> None:
        """The outline of a rectangle, one pixel wide."""
        self.line([x0, x1, x1, x0, x0], [y0, y0, y1, y1, y0], color, width=1)

    def text(
        self,
        text: str,
        x: float,
        y: float,
        size: float = 9.0,
        anchor: str = "center",
        vertical: bool = False,
        color: tuple[int, int, int] = BLACK,
    ) -> tuple[int, int]:
        """Draw ``text`` with its box anchored at ``(x, y)``; returns the box's width and height.

        ``anchor`` is ``"center"``, ``"left"``, ``"right"`` (vertically centred) or ``"top"``
        (horizontally centred, the box below ``y``); ``vertical`` turns the text to read upwards.
        """
        image = text_image(text, size, self.dpi)
        if vertical:
            image = np.rot90(image)
        h, w = image.shape
        left = {"left": x, "right": x - w}.get(anchor, x - w / 2)
        top = y if anchor == "top" else y - h / 2
        self._blend(image, int(round(left)), int(round(top)), color)
        return w, h

    def _blend(self, alpha: np.ndarray, left: int, top: int, color: tuple[int, int, int]) -> None:
        h, w = alpha.shape
        a0, b0 = max(0, -top), max(0, -left)
        a1, b1 = min(h, self.height - top), min(w, self.width - left)
        if a1 <= a0 or b1 <= b0:
            return
        a = alpha[a0:a1, b0:b1, None]
        region = self.pixels[top + a0 : top + a1, left + b0 : left + b1]
        region[...] = np.rint(region * (1.0 - a) + np.asarray(color, dtype=np.float32) * a).astype(np.uint8)


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


def encode_png(pixels: np.ndarray) -> bytes:
    """The PNG file of an 8-bit RGB image (``height x width x 3``)."""
    height, width, _ = pixels.shape
    rows = np.zeros((height, 1 + 3 * width), dtype=np.uint8)  # filter byte 0, then the row
    rows[:, 1:] = pixels.reshape(height, 3 * width)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows.tobytes(), 3))
        + chunk(b"IEND", b"")
    )
