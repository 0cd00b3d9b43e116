"""A scene: the shapes of a geometry document posed at the frames of an animation.

:func:`build_scene` resamples a result to the frame rate of the animation
(coordinates are interpolated linearly between the result's samples; a result
with fewer samples than frames keeps its own times, so every frame is a
simulated instant), evaluates the exact pose program of the geometry document
and keeps, per anchor, the positions and rotations the renderers need.

Example:
    >>> import numpy as np, symbody as sb
    >>> from symbody.codegen.geometry import geometry_document
    >>> s = sb.System("p"); th = s.coordinate("theta", 0.3)
    >>> P = s.point("P", s.origin, sb.Vector(s.base("B", s.ground_base, sb.Rz(th)), 0, -2, 0))
    >>> _ = s.particle("bob", P, 1.0)
    >>> columns = {"time": np.array([0.0, 1.0]), "theta": np.array([0.0, 1.0])}
    >>> scene = build_scene(geometry_document(s.derive()), columns)
    >>> len(scene.times), scene.up
    (2, 'z')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .poses import GeometryError, evaluate_poses


@dataclass
class Scene:
    """Everything a renderer draws.

    Attributes:
        times: frame times (``nt``).
        anchors: key -> (positions ``nt x 3``, rotations ``nt x 3 x 3``) for the anchors drawn.
        shapes: shape records of the document, with ``offset`` (3), ``R`` (3 x 3) and float ``sizes``.
        trails: anchor keys whose paths are drawn.
        plots: name -> values at ``times`` (outputs shown next to the 3-D view).
        captions: ``(t0, t1, text)`` shown while ``t0 <= t < t1`` (e.g. a mode's frequency).
        up: ``"x"``, ``"y"`` or ``"z"``: the ground axis drawn upwards.
        title: the page title.
    """

    times: np.ndarray
    anchors: dict[str, tuple[np.ndarray, np.ndarray]]
    shapes: list[dict]
    trails: list[str] = field(default_factory=list)
    plots: dict[str, np.ndarray] = field(default_factory=dict)
    captions: list[tuple[float, float, str]] = field(default_factory=list)
    up: str = "z"
    title: str = "symbody"

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper corners of every anchor and every shape over the animation."""
        pts = [p.reshape(-1, 3) for p, _ in self.anchors.values()]
        lo = np.min([p.min(axis=0) for p in pts], axis=0) if pts else np.zeros(3)
        hi = np.max([p.max(axis=0) for p in pts], axis=0) if pts else np.zeros(3)
        for sh in self.shapes:
            half = _half_extent(sh)
            if half is None:
                continue
            p, R = self.anchors[sh["anchor"]]
            centre = p + R @ sh["offset"]
            reach = np.abs(R @ sh["R"]) @ half  # half-widths of the box around the shape, in the ground axes
            lo = np.minimum(lo, (centre - reach).min(axis=0))
            hi = np.maximum(hi, (centre + reach).max(axis=0))
        return lo, hi

    def shape_pose(self, index: int, frame: int) -> tuple[np.ndarray, np.ndarray]:
        """Position and rotation (shape -> ground) of shape ``index`` at ``frame``."""
        sh = self.shapes[index]
        p, R = self.anchors[sh["anchor"]]
        return p[frame] + R[frame] @ sh["offset"], R[frame] @ sh["R"]


def _half_extent(sh: Mapping) -> np.ndarray | None:
    """Half-widths of a shape along its own axes (``None`` for lines, drawn between anchors)."""
    z = sh["sizes"]
    kind = sh["kind"]
    if kind == "box":
        return np.array([z["lx"], z["ly"], z["lz"]], dtype=float) / 2
    if kind == "cylinder":
        half = np.full(3, float(z["radius"]))
        half["xyz".index(sh.get("axis", "z"))] = z["length"] / 2
        return half
    if kind == "sphere":
        return np.full(3, float(z["radius"]))
    if kind == "axes":
        return np.full(3, float(z["length"]))
    if kind == "mesh":
        v = np.abs(np.asarray(sh["vertices"], dtype=float)) * sh.get("scale", 1.0)
        return v.max(axis=0)
    return None


def frame_times(t: np.ndarray, fps: float, max_frames: int) -> np.ndarray:
    """Frame times: the result's own if it has at most ``fps`` samples per second, else a uniform grid."""
    t = np.asarray(t, dtype=float)
    if len(t) < 2:
        return t.copy()
    span = float(t[-1] - t[0])
    n = int(min(max_frames, max(2, round(span * fps) + 1)))
    if len(t) <= n:
        return t.copy()
    return np.linspace(t[0], t[-1], n)


def _resample(columns: Mapping[str, np.ndarray], names: Sequence[str], times: np.ndarray) -> dict[str, np.ndarray]:
    t = np.asarray(columns["time"], dtype=float)
    out = {"time": times}
    same = len(t) == len(times) and np.array_equal(t, times)
    for name in names:
        if name not in columns:
            raise GeometryError(f"the result has no variable {name!r}")
        y = np.asarray(columns[name], dtype=float)
        out[name] = y if same else np.interp(times, t, y)
    return out


def _up_axis(doc: Mapping) -> str:
    up = doc.get("up", "z")
    return up if up in ("x", "y", "z") else "z"


def build_scene(
    doc: Mapping,
    columns: Mapping[str, np.ndarray],
    parameters: Mapping[str, float] | None = None,
    *,
    fps: float = 30.0,
    max_frames: int = 2400,
    trails: Sequence[str] = (),
    plots: Sequence[str] = (),
    captions: Sequence[tuple[float, float, str]] = (),
    title: str | None = None,
) -> Scene:
    """Pose the document's shapes at the frames of an animation of ``columns``.

    Args:
        doc: geometry document (:func:`symbody.codegen.geometry.geometry_document` or an FMU's).
        columns: ``"time"`` and the coordinates (and ``plots``) by name.
        parameters: parameter values that differ from the document's.
        fps, max_frames: frame rate of the animation and a cap on its frames.
        trails: points (by name, or anchor keys) whose paths are drawn.
        plots: result variables plotted next to the 3-D view.
        captions: ``(t0, t1, text)`` captions.

    Raises:
        GeometryError: a missing variable, an unknown trail point, non-finite poses.
    """
    t = np.asarray(columns["time"], dtype=float)
    if len(t) == 0:
        raise GeometryError("the result has no samples")
    if np.any(np.diff(t) < 0):
        raise GeometryError("the result's times are not increasing")
    times = frame_times(t, fps, max_frames)
    try:
        return _posed(doc, columns, parameters, times, trails, plots, captions, title)
    except (KeyError, TypeError, AttributeError, IndexError) as e:
        raise GeometryError(f"malformed geometry document ({type(e).__name__}: {e})") from None


def _posed(
    doc: Mapping,
    columns: Mapping[str, np.ndarray],
    parameters: Mapping[str, float] | None,
    times: np.ndarray,
    trails: Sequence[str],
    plots: Sequence[str],
    captions: Sequence[tuple[float, float, str]],
    title: str | None,
) -> Scene:
    coords = [n for n, info in doc["symbols"].items() if info.get("kind") == "coordinate"]
    given = parameters or {}
    recorded = [n for n, info in doc["symbols"].items() if info.get("kind") in ("parameter", "input") and n in columns]
    cols = _resample(columns, [*coords, *[n for n in recorded if n not in given], *plots], times)
    poses = evaluate_poses(doc, cols, parameters)
    keys = _trail_keys(doc, trails)
    shapes = []
    for k, sh in enumerate(doc["shapes"]):
        item = dict(sh)
        item["offset"], item["R"] = poses.offsets[k]
        item["sizes"] = poses.sizes[k]
        shapes.append(item)
    used = {sh["anchor"] for sh in shapes} | {sh["end"] for sh in shapes if sh.get("end")} | set(keys)
    anchors = {k: v for k, v in poses.anchors.items() if k in used}
    return Scene(
        times,
        anchors,
        shapes,
        keys,
        {n: cols[n] for n in plots},
        list(captions),
        _up_axis(doc),
        title or str(doc.get("model", "symbody")),
    )


def _trail_keys(doc: Mapping, trails: Sequence[str]) -> list[str]:
    keys = []
    for name in trails:
        if name in doc["anchors"]:
            keys.append(name)
            continue
        match = [k for k in doc["anchors"] if k.split("@")[0] == name]
        if not match:
            points = sorted({k.split("@")[0] for k in doc["anchors"]})
            raise GeometryError(f"trail: no point {name!r} in the geometry (points: {', '.join(points)})")
        keys.append(match[0])
    return keys


__all__ = ["Scene", "build_scene", "frame_times"]
