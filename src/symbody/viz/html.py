"""The self-contained HTML page: three.js and the scene inside one file.

The page holds the vendored three.js modules (``vendor/``, MIT licence) as
inert text and loads them from ``blob:`` URLs it creates itself, so it
references nothing outside the file and opens without a network.  The scene
travels as JSON with base64 arrays: per anchor its positions and unit
quaternions at the frames (one sample when it does not move), per shape its
kind, sizes, colour and constant offset.  ``page.html?t=SECONDS`` opens paused
at that instant (poses interpolated between frames: linearly for positions,
by slerp for rotations), ``&ui=0`` hides the controls.  When drawn, the page
sets ``<body data-state="ready">`` (``"error: ..."`` on failure).

Example:
    >>> import numpy as np, symbody as sb
    >>> from symbody.codegen.geometry import geometry_document
    >>> from symbody.viz.scene import build_scene
    >>> s = sb.System("p"); th = s.coordinate("theta", 0.3)
    >>> P = s.point("P", s.origin, sb.Vector(s.base("B", s.ground_base, sb.Rz(th)), 0, -2, 0))
    >>> _ = s.particle("bob", P, 1.0)
    >>> columns = {"time": np.array([0.0, 1.0]), "theta": np.array([0.0, 1.0])}
    >>> scene = build_scene(geometry_document(s.derive()), columns)
    >>> page = page_html(scene)
    >>> "http://" in page.split('id="scene-data"')[1], len(page) < 2_000_000
    (False, True)
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

import numpy as np

from .poses import GeometryError
from .scene import Scene

THREE_VERSION = "0.180.0"
_VENDOR = ("three.core.min.js", "three.module.min.js", "OrbitControls.js")
_TRAIL_COLORS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e")


def _b64(a: np.ndarray, dtype: Any = np.float32) -> str:
    return base64.b64encode(np.ascontiguousarray(a, dtype=dtype).tobytes()).decode("ascii")


def quaternions(R: np.ndarray) -> np.ndarray:
    """Unit quaternions ``(x, y, z, w)`` of rotation matrices ``(..., 3, 3)`` (Shepperd's method).

    Example:
        >>> np.round(quaternions(np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])), 6)
        array([0.      , 0.      , 0.707107, 0.707107])
    """
    R = np.asarray(R, dtype=float)
    m = R.reshape(-1, 3, 3)
    q = np.empty((len(m), 4))
    tr = m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2]
    diag = np.stack([m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]], axis=1)
    case = np.where(tr > diag.max(axis=1), 3, diag.argmax(axis=1))
    for c in range(4):
        k = case == c
        if not np.any(k):
            continue
        a = m[k]
        if c == 3:
            s = 2.0 * np.sqrt(1.0 + tr[k])
            q[k] = np.stack([(a[:, 2, 1] - a[:, 1, 2]) / s, (a[:, 0, 2] - a[:, 2, 0]) / s,
                             (a[:, 1, 0] - a[:, 0, 1]) / s, 0.25 * s], axis=1)  # fmt: skip
            continue
        i, j, l = c, (c + 1) % 3, (c + 2) % 3
        s = 2.0 * np.sqrt(np.maximum(1.0 + a[:, i, i] - a[:, j, j] - a[:, l, l], 1e-300))
        v = np.empty((len(a), 4))
        v[:, i] = 0.25 * s
        v[:, j] = (a[:, j, i] + a[:, i, j]) / s
        v[:, l] = (a[:, l, i] + a[:, i, l]) / s
        v[:, 3] = (a[:, l, j] - a[:, j, l]) / s
        q[k] = v
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q.reshape(*R.shape[:-2], 4)


_ISO = {"z": (1.0, -1.6, 0.8), "y": (0.5, 0.5, 1.6), "x": (0.8, 0.5, 1.6)}


def camera_setup(scene: Scene, camera: Mapping[str, Any] | None = None) -> dict:
    """Camera of the page: projection, position, target, up vector and half-height ``extent``.

    ``camera`` may give ``projection`` (``"perspective"`` or ``"orthographic"``), ``view``
    (``"iso"``, or ``"x"``/``"y"``/``"z"``: from that ground axis towards the target),
    ``target`` (3 numbers) and ``extent`` (half the height seen by an orthographic camera, in model units).
    """
    cam = dict(camera or {})
    unknown = set(cam) - {"projection", "view", "target", "extent"}
    if unknown:
        raise GeometryError(f"camera: unknown option(s) {', '.join(sorted(unknown))}")
    lo, hi = scene.bounds()
    target = np.asarray(cam.get("target", (lo + hi) / 2), dtype=float)
    radius = max(float(np.linalg.norm(hi - lo)) / 2, 1e-3)
    extent = float(cam.get("extent", 1.1 * radius))
    up = np.zeros(3)
    up["xyz".index(scene.up)] = 1.0
    view = cam.get("view", "iso")
    if view == "iso":
        direction = np.asarray(_ISO[scene.up])
    elif view in ("x", "y", "z"):
        direction = np.zeros(3)
        direction["xyz".index(view)] = 1.0
        if view == scene.up:
            up = np.roll(direction, 2)
    else:
        raise GeometryError(f"camera view {view!r}: use 'iso', 'x', 'y' or 'z'")
    projection = cam.get("projection", "perspective")
    if projection not in ("perspective", "orthographic"):
        raise GeometryError(f"camera projection {projection!r}: use 'perspective' or 'orthographic'")
    distance = 0.95 * max(radius, extent) / np.tan(np.radians(20.0))
    position = target + distance * direction / np.linalg.norm(direction)
    return {
        "projection": projection,
        "position": position.tolist(),
        "target": target.tolist(),
        "up": up.tolist(),
        "extent": extent,
        "distance": float(distance),
    }


def scene_data(scene: Scene, camera: Mapping[str, Any] | None = None) -> dict:
    """The JSON-ready data the page draws."""
    keys = list(scene.anchors)
    index = {k: i for i, k in enumerate(keys)}
    anchors = []
    for k in keys:
        p, R = scene.anchors[k]
        q = quaternions(R)
        fixed = bool(np.ptp(p, axis=0).max() <= 1e-12 and np.ptp(q, axis=0).max() <= 1e-12) if len(p) else True
        anchors.append({"key": k, "fixed": fixed, "p": _b64(p[:1] if fixed else p), "q": _b64(q[:1] if fixed else q)})
    shapes = []
    for sh in scene.shapes:
        item = {
            "name": sh["name"],
            "kind": sh["kind"],
            "anchor": index[sh["anchor"]],
            "offset": [float(x) for x in sh["offset"]],
            "quaternion": quaternions(sh["R"]).tolist(),
            "sizes": sh["sizes"],
            "color": sh["color"],
            "opacity": float(sh.get("opacity", 1.0)),
            "axis": sh.get("axis", "z"),
            "width": float(sh.get("width", 2.0)),
            "scale": float(sh.get("scale", 1.0)),
        }
        if sh.get("end") is not None:
            item["end"] = index[sh["end"]]
        if sh["kind"] == "mesh":
            item["vertices"] = _b64(np.asarray(sh["vertices"], dtype=float).reshape(-1))
            item["faces"] = _b64(np.asarray(sh["faces"], dtype=np.int64).reshape(-1), np.uint32)
        shapes.append(item)
    lo, hi = scene.bounds()
    return {
        "title": scene.title,
        "times": _b64(scene.times, np.float64),
        "anchors": anchors,
        "shapes": shapes,
        "trails": [{"anchor": index[k], "color": _TRAIL_COLORS[i % 5]} for i, k in enumerate(scene.trails)],
        "plots": [{"name": n, "y": _b64(y)} for n, y in scene.plots.items()],
        "captions": [[float(a), float(b), str(c)] for a, b, c in scene.captions],
        "camera": camera_setup(scene, camera),
        "line_radius": 0.004 * max(float(np.linalg.norm(hi - lo)) / 2, 1e-3),
        "grid": _grid(scene, lo, hi),
    }


def _grid(scene: Scene, lo: np.ndarray, hi: np.ndarray) -> dict:
    """A floor grid under the mechanism: centre, side (a round number of metres) and divisions."""
    k = "xyz".index(scene.up)
    span = float(np.max(np.delete(hi - lo, k)))
    step = 10.0 ** np.floor(np.log10(max(span, 1e-3) / 5))
    side = step * np.ceil(1.2 * max(span, 1e-3) / step)
    centre = (lo + hi) / 2
    centre[k] = min(float(lo[k]), 0.0)
    return {"centre": centre.tolist(), "size": float(side), "divisions": int(round(side / step)), "up": scene.up}


def vendored(name: str) -> str:
    """Text of a vendored three.js file."""
    return resources.files(__package__).joinpath("vendor", name).read_text(encoding="utf-8")


def page_html(scene: Scene, camera: Mapping[str, Any] | None = None) -> str:
    """The complete page (a string) for ``scene``."""
    data = json.dumps(scene_data(scene, camera), separators=(",", ":"), allow_nan=False)
    fills = {
        "THREE_VERSION": THREE_VERSION,
        "THREE_CORE": vendored(_VENDOR[0]),
        "THREE_MODULE": vendored(_VENDOR[1]),
        "ORBIT_CONTROLS": vendored(_VENDOR[2]),
        "SCENE_DATA": data.replace("<", "\\u003c"),  # no "</script" nor "<!--" can end or fool the block
    }
    for name, text in fills.items():
        if "</script" in text.lower():
            raise GeometryError(f"cannot inline {name}: it contains '</script'")
    template = resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")
    parts = template.split("{{")
    out = [parts[0]]
    for part in parts[1:]:
        name, rest = part.split("}}", 1)
        out.append(fills[name] + rest)
    return "".join(out)


__all__ = ["page_html", "scene_data", "camera_setup", "quaternions", "THREE_VERSION"]
