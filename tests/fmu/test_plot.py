"""The PNG of ``symbody simulate`` (``symbody.fmu.plot``), drawn and encoded by Pillow."""

from __future__ import annotations

import numpy as np
from PIL import Image

from symbody.fmu.plot import CURVE, PNG_DPI, plot


def _curve_pixels(path) -> tuple[np.ndarray, np.ndarray]:
    pixels = np.asarray(Image.open(path).convert("RGB")).astype(int)
    blue = np.all(np.abs(pixels - np.array(CURVE)) < 8, axis=-1)
    return np.nonzero(blue)


def test_a_value_that_is_not_finite_breaks_the_curve(tmp_path):
    """The ramp is drawn on both sides of its NaN stretch and not across it (no line joins the two ends)."""
    t = np.linspace(0.0, 4.0, 401)
    res = np.zeros(len(t), dtype=[("time", float), ("ramp", float)])
    res["time"], res["ramp"] = t, t
    res["ramp"][(t > 1.5) & (t < 2.5)] = np.nan
    path = plot(res, tmp_path / "gap.png")
    rows, cols = _curve_pixels(path)
    left, right = cols.min(), cols.max()  # the time axis spans the panel: t = 0 at left, t = 4 at right
    x = lambda time: left + time / 4.0 * (right - left)  # noqa: E731
    inside_gap = (cols > x(1.6)) & (cols < x(2.4))
    assert not inside_gap.any()
    assert ((cols > x(1.0)) & (cols < x(1.4))).any() and ((cols > x(2.6)) & (cols < x(3.0))).any()


def test_the_png_is_the_size_of_its_panels_and_carries_the_labels(tmp_path):
    """Two panels in one column: 8 in wide, 2 in per panel plus 0.9 in of margins, at PNG_DPI; the y label
    (turned upwards, left of the panel) and the title are drawn in black."""
    t = np.linspace(0.0, 1.0, 11)
    res = np.zeros(len(t), dtype=[("time", float), ("a", float), ("b", float)])
    res["time"], res["a"], res["b"] = t, t**2, -t
    path = plot(res, tmp_path / "two.png", title="model", units={"a": "m"})
    image = np.asarray(Image.open(path).convert("RGB")).astype(int)
    assert image.shape == (round(4.9 * PNG_DPI), 8 * PNG_DPI, 3)
    dark = image.sum(axis=-1) < 200
    label_strip = dark[:, : round(0.4 * PNG_DPI)]  # left of the tick labels: only the turned y labels
    rows = np.nonzero(label_strip.any(axis=1))[0]
    assert len(rows) and rows.max() - rows.min() > 0.5 * PNG_DPI  # taller than wide: read upwards
    assert dark[: round(0.2 * PNG_DPI)].any()  # the title
