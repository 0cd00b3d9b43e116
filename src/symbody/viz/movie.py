"""Animated GIF and MP4 of scenes, drawn with matplotlib (orthographic 3-D axes).

Each frame is drawn by updating the artists made for the first one, grabbed as
an image and written with Pillow (GIF) or ffmpeg (MP4, when installed).  Several
scenes with the same time span are drawn side by side (open loop against closed
loop, say), each with its title.

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

from ..fmu.build import write_atomically
from .poses import GeometryError
from .scene import Scene

_VIEW_ANGLES = {  # (elevation, azimuth) of matplotlib for a camera along +x, +y, +z (z up)
    "x": (0.0, 0.0),
    "y": (0.0, 90.0),
    "z": (90.0, -90.0),
    "iso": (32.0, -58.0),
}


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


class _Drawer:
    """The artists of one scene on one 3-D axes, updated frame by frame."""

    def __init__(self, ax, scene: Scene, camera: Mapping[str, Any], px_per_unit: float):
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        self.ax, self.scene = ax, scene
        self.items: list[tuple[str, int, Any, Any]] = []
        for k, sh in enumerate(scene.shapes):
            kind = sh["kind"]
            if kind == "line":
                (art,) = ax.plot([], [], [], color=sh["color"], lw=max(1.0, sh.get("width", 2.0) * 0.75))
                self.items.append(("line", k, art, None))
            elif kind == "sphere":
                ms = max(2.0, 2 * sh["sizes"]["radius"] * px_per_unit * 0.75)
                (art,) = ax.plot([], [], [], "o", color=sh["color"], ms=ms, mec="#333333", mew=0.5)
                self.items.append(("point", k, art, None))
            elif kind == "axes":
                arts = [ax.plot([], [], [], color=c, lw=1.2)[0] for c in ("#d62728", "#2ca02c", "#1f77b4")]
                self.items.append(("axes", k, arts, sh["sizes"]["length"]))
            else:
                polys = _local_polygons(sh)
                art = Poly3DCollection(polys, facecolor=sh["color"], edgecolor="#333333", linewidths=0.3,
                                       alpha=sh.get("opacity", 1.0))  # fmt: skip
                ax.add_collection3d(art)
                self.items.append(("poly", k, art, polys))
        self.trails = [(key, ax.plot([], [], [], color="#d62728", lw=1.0)[0]) for key in scene.trails]

    def update(self, i: int) -> None:
        sc = self.scene
        for kind, k, art, extra in self.items:
            p, R = sc.shape_pose(k, i)
            if kind == "line":
                a, b = sc.anchors[sc.shapes[k]["anchor"]][0][i], sc.anchors[sc.shapes[k]["end"]][0][i]
                art.set_data_3d([a[0], b[0]], [a[1], b[1]], [a[2], b[2]])
            elif kind == "point":
                art.set_data_3d([p[0]], [p[1]], [p[2]])
            elif kind == "axes":
                for j, line in enumerate(art):
                    e = p + extra * R[:, j]
                    line.set_data_3d([p[0], e[0]], [p[1], e[1]], [p[2], e[2]])
            else:
                art.set_verts([poly @ R.T + p for poly in extra])
        for key, line in self.trails:
            path = sc.anchors[key][0][: i + 1]
            line.set_data_3d(path[:, 0], path[:, 1], path[:, 2])


def _setup_axes(ax, scene: Scene, camera: Mapping[str, Any], lo: np.ndarray, hi: np.ndarray) -> None:
    center, half = (lo + hi) / 2, max(float(np.max(hi - lo)) / 2, 1e-3) * 1.05
    if "target" in camera:
        center = np.asarray(camera["target"], dtype=float)
    if "extent" in camera:
        half = float(camera["extent"])
    for setter, c in zip((ax.set_xlim, ax.set_ylim, ax.set_zlim), center):
        setter(c - half, c + half)
    ax.set_box_aspect((1, 1, 1))
    ax.set_proj_type("ortho")
    elev, azim = _VIEW_ANGLES[camera.get("view", "iso")]
    up = scene.up
    ax.view_init(elev=elev, azim=azim, vertical_axis=up)
    ax.set_axis_off()


def _floor(ax, up: str, lo: np.ndarray, hi: np.ndarray, lines: int = 9) -> None:
    """Grey grid lines on the floor (perpendicular to ``up``, at the lowest point or at 0)."""
    k = "xyz".index(up)
    i, j = [a for a in range(3) if a != k]
    level = min(float(lo[k]), 0.0)
    for a, b in ((i, j), (j, i)):
        for v in np.linspace(lo[a], hi[a], lines):
            p, q = np.zeros(3), np.zeros(3)
            p[a] = q[a] = v
            p[b], q[b] = lo[b], hi[b]
            p[k] = q[k] = level
            ax.plot([p[0], q[0]], [p[1], q[1]], [p[2], q[2]], color="#d8dbe0", lw=0.6, zorder=0)


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
    colors: int = 64,
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
        half = float(camera.get("extent", max(float(np.max(hi - lo)) / 2, 1e-3) * 1.05))
        for j, sc in enumerate(scenes):
            ax = fig.add_subplot(1, len(scenes), j + 1, projection="3d")
            fig.subplots_adjust(left=0, right=1, bottom=0, top=0.92 if labels[0] else 1, wspace=0)
            _setup_axes(ax, sc, camera, lo, hi)
            _floor(ax, sc.up, lo, hi)
            if j < len(labels) and labels[j]:
                ax.set_title(labels[j], fontsize=9)
            px = min(w / len(scenes), h) * 0.8 / (2 * half)
            drawers.append((_Drawer(ax, sc, camera, px), sc))
        clock = fig.text(0.01, 0.01, "", fontsize=8)
        images = []
        for t in frame_times:
            for d, sc in drawers:
                d.update(int(np.clip(np.searchsorted(sc.times, t - 1e-12 * max(1.0, abs(t))), 0, len(sc.times) - 1)))
            clock.set_text(f"t = {t:.2f} s")
            fig.canvas.draw()
            images.append(np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy())
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
