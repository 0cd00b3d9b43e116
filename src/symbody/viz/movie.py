"""Animated GIF and MP4 of scenes, drawn with matplotlib (an orthographic camera, 2-D artists).

Each frame projects the shapes with the orthographic camera of the page
(:func:`symbody.viz.html.camera_setup`), draws the solids' faces as polygons
sorted by depth and shaded by their angle to the view (the painter's algorithm),
the lines and trails on top, then is grabbed as an image and written with
Pillow (GIF) or ffmpeg (MP4, when installed).  Several scenes with the same time
span are drawn side by side (open loop against closed loop, say), each with its
title.  Meshes of more than 1500 triangles are thinned in movies (every n-th
face is drawn); the page draws them whole.

Example:
    >>> import numpy as np, tempfile, pathlib
    >>> from symbody.models import pendulum
    >>> from symbody.viz.animation import animate
    >>> t = np.linspace(0.0, 1.0, 5)
    >>> anim = animate(pendulum(), {"time": t, "theta": 0.3 * np.cos(3.13 * t)})
    >>> out = write_movie(anim.scene, pathlib.Path(tempfile.mkdtemp()) / "p.gif", size=(160, 120))
    >>> from PIL import Image; Image.open(out).n_frames
    5
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..fmu.files import write_atomically
from .html import camera_setup
from .poses import GeometryError
from .scene import Scene


def _circle(n: int = 16) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([np.cos(a), np.sin(a)], axis=1)


def _local_polygons(sh: dict) -> list[np.ndarray]:
    """Faces of a shape in its own frame (lists of vertices)."""
    z = sh["sizes"]
    if sh["kind"] == "box":
        h = np.array([z["lx"], z["ly"], z["lz"]]) / 2
        c = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h
        faces = [(0, 1, 3, 2), (4, 5, 7, 6), (0, 1, 5, 4), (2, 3, 7, 6), (0, 2, 6, 4), (1, 3, 7, 5)]
        return [c[list(f)] for f in faces]
    if sh["kind"] == "cylinder":
        r, half = z["radius"], z["length"] / 2
        ring = _circle() * r
        ax = "xyz".index(sh.get("axis", "z"))
        others = [i for i in range(3) if i != ax]

        def at(h: float) -> np.ndarray:
            p = np.zeros((len(ring), 3))
            p[:, others[0]], p[:, others[1]], p[:, ax] = ring[:, 0], ring[:, 1], h
            return p

        lo, hi = at(-half), at(half)
        n = len(ring)
        sides = [np.array([lo[i], lo[(i + 1) % n], hi[(i + 1) % n], hi[i]]) for i in range(n)]
        return [lo, hi, *sides]
    if sh["kind"] == "mesh":
        v = np.asarray(sh["vertices"], dtype=float) * sh.get("scale", 1.0)
        f = np.asarray(sh["faces"], dtype=int)
        step = max(1, len(f) // 1500)  # matplotlib draws a few thousand triangles per frame at most
        return list(v[f[::step]])
    return []


class _Projection:
    """An orthographic camera: screen ``x``, ``y`` and depth (towards the camera) of ground points."""

    def __init__(self, cam: Mapping[str, Any]):
        self.target = np.asarray(cam["target"], dtype=float)
        toward = np.asarray(cam["position"], dtype=float) - self.target
        self.toward = toward / np.linalg.norm(toward)
        up = np.asarray(cam["up"], dtype=float)
        right = np.cross(-self.toward, up)
        self.right = right / np.linalg.norm(right)
        self.up = np.cross(self.right, -self.toward)
        self.extent = float(cam["extent"])

    def __call__(self, p: np.ndarray) -> np.ndarray:
        """``(..., 3)`` ground points -> ``(..., 3)``: screen x, screen y, depth."""
        d = np.asarray(p, dtype=float) - self.target
        return np.stack([d @ self.right, d @ self.up, d @ self.toward], axis=-1)


def _rgb(color: str) -> np.ndarray:
    return np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)], dtype=float) / 255


class _Drawer:
    """One scene on one 2-D axes: solids as depth-sorted shaded polygons, lines and trails on top."""

    def __init__(self, ax, scene: Scene, proj: _Projection, lo: np.ndarray, hi: np.ndarray):
        from matplotlib.collections import LineCollection, PolyCollection

        self.scene, self.proj = scene, proj
        self.solids: list[tuple[int, list[np.ndarray], np.ndarray, float]] = []
        self.spheres: list[tuple[int, float, np.ndarray]] = []
        self.lines: list[tuple[str, str, np.ndarray]] = []
        self.axes: list[tuple[int, float]] = []
        for k, sh in enumerate(scene.shapes):
            kind, rgb = sh["kind"], _rgb(sh["color"])
            if kind == "line":
                self.lines.append((sh["anchor"], sh["end"], rgb))
            elif kind == "sphere":
                self.spheres.append((k, sh["sizes"]["radius"], rgb))
            elif kind == "axes":
                self.axes.append((k, sh["sizes"]["length"]))
            else:
                self.solids.append((k, _local_polygons(sh), rgb, float(sh.get("opacity", 1.0))))
        ax.add_collection(LineCollection(_floor_segments(proj, scene.up, lo, hi), colors="#d8dbe0", lw=0.6, zorder=0))
        self.polys = PolyCollection([], edgecolors="#33333355", linewidths=0.3, zorder=1)
        ax.add_collection(self.polys)
        self.segments = LineCollection([], zorder=2)
        ax.add_collection(self.segments)
        self.trails = [(key, ax.plot([], [], color="#d62728", lw=1.0, zorder=3)[0]) for key in scene.trails]

    def update(self, i: int) -> None:
        sc, proj = self.scene, self.proj
        verts, colors, depths = [], [], []
        for k, polys, rgb, alpha in self.solids:
            p, R = sc.shape_pose(k, i)
            for poly in polys:
                world = poly @ R.T + p
                scr = proj(world)
                normal = np.cross(world[1] - world[0], world[2] - world[0])
                norm = np.linalg.norm(normal)
                light = 0.55 + 0.45 * abs(normal @ proj.toward) / norm if norm > 0 else 0.8
                verts.append(scr[:, :2])
                colors.append((*(rgb * light), alpha))
                depths.append(scr[:, 2].mean())
        circle = _circle(24)
        for k, radius, rgb in self.spheres:
            p, _ = sc.shape_pose(k, i)
            c = proj(p)
            verts.append(c[:2] + radius * circle)
            colors.append((*rgb, 1.0))
            depths.append(c[2])
        order = np.argsort(depths)
        self.polys.set_verts([verts[j] for j in order])
        self.polys.set_facecolor([colors[j] for j in order])
        segs, seg_colors = [], []
        for a, b, rgb in self.lines:
            ends = proj(np.stack([sc.anchors[a][0][i], sc.anchors[b][0][i]]))
            segs.append(ends[:, :2])
            seg_colors.append(rgb)
        for k, length in self.axes:
            p, R = sc.shape_pose(k, i)
            for j, axis_rgb in enumerate(((0.84, 0.15, 0.16), (0.17, 0.63, 0.17), (0.12, 0.47, 0.71))):
                segs.append(proj(np.stack([p, p + length * R[:, j]]))[:, :2])
                seg_colors.append(np.array(axis_rgb))
        self.segments.set_segments(segs)
        self.segments.set_color([(float(c[0]), float(c[1]), float(c[2])) for c in seg_colors])
        for key, line in self.trails:
            path = proj(sc.anchors[key][0][: i + 1])
            line.set_data(path[:, 0], path[:, 1])


def _floor_segments(proj: _Projection, up: str, lo: np.ndarray, hi: np.ndarray, lines: int = 9) -> list:
    """Grid lines on the floor (perpendicular to ``up``, at the lowest point or at 0), projected."""
    k = "xyz".index(up)
    level = min(float(lo[k]), 0.0)
    segs = []
    for a, b in [(i, j) for i in range(3) for j in range(3) if k not in (i, j) and i != j]:
        for v in np.linspace(lo[a], hi[a], lines):
            p, q = np.zeros(3), np.zeros(3)
            p[a] = q[a] = v
            p[b], q[b] = lo[b], hi[b]
            p[k] = q[k] = level
            segs.append(proj(np.stack([p, q]))[:, :2])
    return segs


def write_movie(
    scenes: Scene | Sequence[Scene],
    path: str | Path,
    *,
    camera: Mapping[str, Any] | None = None,
    fps: float = 12.0,
    speed: float = 1.0,
    max_frames: int = 400,
    size: tuple[int, int] = (480, 360),
    titles: Sequence[str] | None = None,
    colors: int = 128,
) -> Path:
    """Write a GIF (Pillow) or MP4 (ffmpeg) of one or more scenes side by side.

    Args:
        scenes: a scene, or scenes over the same time span.
        camera: ``view`` (``"iso"``, ``"x"``, ``"y"``, ``"z"``), ``target``, ``extent``.
        fps, max_frames: frames per second of the movie (sampled from the scene's frames) and a cap.
        speed: simulated seconds per second of movie (2: twice as fast as real time).
        size: pixels of the whole image (width, height).
        titles: one title per scene (default: the scenes' titles when there are several).
        colors: palette size of the GIF (fewer colours, smaller file).

    Raises:
        GeometryError: unknown suffix, or MP4 without ffmpeg.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise GeometryError(f"movie {str(path)!r}: use .gif or .mp4")
    if suffix == ".mp4" and shutil.which("ffmpeg") is None:
        raise GeometryError("writing MP4 needs ffmpeg on the PATH (install it, or write a .gif or .html)")
    scenes = [scenes] if isinstance(scenes, Scene) else list(scenes)
    camera = dict(camera or {})
    master = scenes[0].times
    if not speed > 0:
        raise GeometryError(f"movie speed must be positive, not {speed!r}")
    n = int(min(max_frames, max(1, round((master[-1] - master[0]) * fps / speed) + 1)))
    frame_times = master if len(master) <= n else np.linspace(master[0], master[-1], n)
    w, h = size
    dpi = 100
    fig = plt.figure(figsize=(w / dpi, h / dpi), dpi=dpi)
    drawers = []
    labels = titles if titles is not None else ([s.title for s in scenes] if len(scenes) > 1 else [None])
    try:
        bounds = [s.bounds() for s in scenes]
        lo = np.min([b[0] for b in bounds], axis=0)
        hi = np.max([b[1] for b in bounds], axis=0)
        for j, sc in enumerate(scenes):
            cam = dict(camera)
            cam.setdefault("target", ((lo + hi) / 2).tolist())
            cam.setdefault("extent", 0.75 * max(float(np.linalg.norm(hi - lo)) / 2, 1e-3))
            proj = _Projection(camera_setup(sc, {**cam, "projection": "orthographic"}))
            ax = fig.add_axes((j / len(scenes), 0, 1 / len(scenes), 0.92 if labels[0] else 1))
            aspect = (w / len(scenes)) / (h * (0.92 if labels[0] else 1))
            ax.set_xlim(-proj.extent * aspect, proj.extent * aspect)
            ax.set_ylim(-proj.extent, proj.extent)
            ax.set_axis_off()
            if j < len(labels) and labels[j]:
                fig.text((j + 0.5) / len(scenes), 0.97, str(labels[j]), ha="center", va="top", fontsize=9)
            drawers.append((_Drawer(ax, sc, proj, lo, hi), sc))
        clock = fig.text(0.01, 0.01, "", fontsize=8)
        images = []
        for t in frame_times:
            for d, sc in drawers:
                d.update(int(np.clip(np.searchsorted(sc.times, t - 1e-12 * max(1.0, abs(t))), 0, len(sc.times) - 1)))
            clock.set_text(f"t = {t:.2f} s")
            fig.canvas.draw()
            rgba = np.asarray(fig.canvas.buffer_rgba())  # type: ignore[attr-defined]  # the Agg canvas
            images.append(rgba[:, :, :3].copy())
    finally:
        plt.close(fig)
    if suffix == ".gif":
        return _write_gif(images, path, fps, colors)
    return _write_mp4(images, path, fps)


def _write_gif(images: list[np.ndarray], path: Path, fps: float, colors: int) -> Path:
    from PIL import Image

    # one palette for all frames, from the first, middle and last (trails and moving parts appear late)
    sample = np.concatenate([images[0], images[len(images) // 2], images[-1]], axis=0)
    palette = Image.fromarray(sample).quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
    frames = [Image.fromarray(im).quantize(palette=palette, dither=Image.Dither.NONE) for im in images]

    def fill(tmp: Path) -> None:
        frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:], duration=round(1000 / fps),
                       loop=0, optimize=False, disposal=1)  # fmt: skip

    return write_atomically(path, fill)


def _write_mp4(images: list[np.ndarray], path: Path, fps: float) -> Path:
    import subprocess

    h, w = images[0].shape[:2]

    def fill(tmp: Path) -> None:
        cmd = ["ffmpeg", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}",
               "-r", str(fps), "-i", "-", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p",
               "-f", "mp4", str(tmp)]  # fmt: skip
        proc = subprocess.run(cmd, input=b"".join(im.tobytes() for im in images), capture_output=True, check=False)
        if proc.returncode != 0:
            raise GeometryError(f"ffmpeg failed: {proc.stderr.decode(errors='replace').strip()[:500]}")

    return write_atomically(path, fill)


__all__ = ["write_movie"]
