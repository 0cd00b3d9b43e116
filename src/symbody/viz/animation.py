"""``symbody.animate``: watch a model or an FMU move, in a page, a GIF or a notebook.

The geometry comes from the model (its shapes, or the default view) or from
the geometry document inside a symbody FMU; the motion from a result: an fmpy
result array, a :class:`~symbody.numeric.results.TimeHistory` (a simulation of
:mod:`symbody.numeric`), a :class:`~symbody.numeric.modes.ModalResult` (each mode
oscillates in turn) or a mapping of arrays with ``"time"``.

Example:
    >>> import numpy as np
    >>> from symbody.models import pendulum
    >>> t = np.linspace(0.0, 2.0, 21)
    >>> anim = animate(pendulum(), {"time": t, "theta": 0.3 * np.cos(3.13 * t)})
    >>> len(anim.scene.times), anim._repr_html_().startswith("<iframe")
    (21, True)
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from ..fmu.files import write_atomically
from ..fmu.geometry import read_geometry
from .html import page_html
from .poses import GeometryError
from .scene import Scene, build_scene

if TYPE_CHECKING:
    from ..equations import Equations
    from ..model.system import System

#: what :func:`animate` draws: a model, its equations, a symbody FMU file or a geometry document already read
Animated: TypeAlias = "System | Equations | str | Path | Mapping[str, Any]"

FORMATS = (".html", ".gif", ".mp4")


def geometry_of(model: Animated) -> dict:
    """The geometry document of a System, Equations, FMU file or an already loaded document."""
    if isinstance(model, Mapping):
        return dict(model)
    if isinstance(model, (str, Path)):
        if Path(model).suffix.lower() != ".fmu":
            raise GeometryError(f"{str(model)!r}: expected an FMU (.fmu), a System or Equations")
        return read_geometry(model)
    from ..codegen.geometry import geometry_document  # SymPy-backed: only for models, not for FMUs
    from ..equations import Equations
    from ..model.system import System

    if isinstance(model, Equations):
        return geometry_document(model)
    if isinstance(model, System):
        return geometry_document(model.derive())
    raise GeometryError(f"cannot animate {type(model).__name__}: give a System, Equations or an FMU file")


def result_columns(result: Any) -> dict[str, np.ndarray]:
    """``"time"`` and every named variable of a result (fmpy array, TimeHistory or mapping)."""
    if isinstance(result, np.ndarray) and result.dtype.names:
        return {n: np.asarray(result[n]) for n in result.dtype.names}
    if _is_time_history(result):
        cols = {"time": np.asarray(result.t)}
        eq = result.eq
        for k, c in enumerate(eq.coordinates):
            cols[c.name] = result.q[:, k]
            cols["d" + c.name] = result.dq[:, k]
        for names, arr in ((result.input_names, result.u), (result.output_names, result.y)):
            if arr is not None:
                cols.update({n: arr[:, k] for k, n in enumerate(names)})
        return cols
    if isinstance(result, Mapping):
        if "time" not in result:
            raise GeometryError("a result given as a mapping needs a 'time' entry")
        return {str(k): np.asarray(v, dtype=float) for k, v in result.items()}
    raise GeometryError(f"cannot animate a result of type {type(result).__name__}")


def _is_time_history(result: Any) -> bool:
    """A :class:`symbody.numeric.results.TimeHistory` (duck-typed: importing numeric would load SciPy)."""
    return all(hasattr(result, a) for a in ("eq", "t", "q", "dq", "input_names", "output_names"))


def _is_modal_result(result: Any) -> bool:
    """A :class:`symbody.numeric.modes.ModalResult` (duck-typed likewise)."""
    return all(hasattr(result, a) for a in ("shapes_full", "frequency", "coordinate_names", "linear"))


def mode_columns(
    modes: Any, amplitude: float = 0.2, seconds: float = 3.0, cycles: int = 2, fps: float = 30.0
) -> tuple[dict[str, np.ndarray], list[tuple[float, float, str]]]:
    """Columns showing each mode in turn (``seconds`` each, ``cycles`` oscillations) and their captions.

    Coordinate ``q = q_eq + amplitude * phi / max|phi| * sin(2 pi cycles s / seconds)`` about the
    equilibrium, ``phi`` the mode expanded to all coordinates; the captions give the real frequencies.
    """
    n_modes = modes.shapes_full.shape[1]
    if n_modes == 0:
        raise GeometryError("the modal result has no oscillating mode to show")
    q_eq = np.asarray(modes.linear.q, dtype=float)
    per = max(int(round(seconds * fps)), 8)
    s = np.arange(per) / per * seconds
    wave = np.sin(2 * np.pi * cycles * s / seconds)
    times, q, captions = [], [], []
    for k in range(n_modes):
        phi = modes.shapes_full[:, k]
        scale = float(np.max(np.abs(phi)))
        phi = phi / scale if scale > 0 else phi
        times.append(k * seconds + s)
        q.append(q_eq[None, :] + amplitude * wave[:, None] * phi[None, :])
        captions.append((k * seconds, (k + 1) * seconds, f"mode {k + 1}: {modes.frequency[k]:.4g} Hz"))
    t_all, q_all = np.concatenate(times), np.concatenate(q)
    cols = {"time": t_all}
    cols.update({name: q_all[:, i] for i, name in enumerate(modes.coordinate_names)})
    return cols, captions


class Animation:
    """A posed scene, written as a page, GIF or MP4, and shown inline in Jupyter.

    Attributes:
        scene: the :class:`~symbody.viz.scene.Scene`.
        camera: camera options of the page (see :func:`symbody.viz.html.camera_setup`).
        path: the file written last, if any.
    """

    def __init__(self, scene: Scene, camera: Mapping[str, Any] | None = None):
        self.scene = scene
        self.camera = dict(camera or {})
        self.path: Path | None = None

    def __repr__(self) -> str:
        sc = self.scene
        where = f", written to {self.path}" if self.path else ""
        return f"Animation({sc.title!r}: {len(sc.times)} frames, t = {sc.times[0]:g} .. {sc.times[-1]:g}{where})"

    def html(self) -> str:
        """The self-contained page."""
        return page_html(self.scene, self.camera)

    def save(self, path: str | Path, **gif_options: Any) -> Path:
        """Write ``.html``, ``.gif`` or ``.mp4`` (chosen by the suffix), atomically."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in FORMATS:
            raise GeometryError(f"output {str(path)!r}: use .html, .gif or .mp4")
        if suffix == ".html":
            if gif_options:
                raise GeometryError(f"{', '.join(sorted(gif_options))}: options of GIF and MP4 files, not of pages")
            text = self.html()

            def fill(tmp: Path) -> None:
                tmp.write_text(text, encoding="utf-8")

            write_atomically(path, fill)
        else:
            from .movie import write_movie  # matplotlib is imported only for GIF and MP4

            write_movie(self.scene, path, camera=self.camera, **gif_options)
        self.path = path
        return path

    def _repr_html_(self) -> str:
        """The page in an ``iframe srcdoc`` (not sandboxed: an opaque origin could not load its blob: modules)."""
        page = html.escape(self.html(), quote=True)
        return (
            f'<iframe srcdoc="{page}" style="width: 100%; height: 480px; border: 0" title="symbody animation"></iframe>'
        )


def animate(
    model: Animated,
    result: Any,
    path: str | Path | None = None,
    *,
    parameters: Mapping[str, float] | None = None,
    fps: float = 30.0,
    max_frames: int = 2400,
    trails: Sequence[str] = (),
    plots: Sequence[str] = (),
    camera: Mapping[str, Any] | None = None,
    title: str | None = None,
    amplitude: float = 0.2,
    **movie_options: Any,
) -> Animation:
    """Animate ``result`` with the geometry of ``model``; write ``path`` (``.html``, ``.gif``, ``.mp4``) if given.

    Args:
        model: a :class:`symbody.System`, its :class:`symbody.Equations`, a symbody FMU file or a geometry document.
        result: fmpy result array, ``TimeHistory``, ``ModalResult`` (modes in turn) or mapping with ``"time"``.
        parameters: parameter values of the run, where they differ from the model's defaults (parameters
            recorded in ``result`` are used when not given here; otherwise the drawing uses the defaults).
        fps, max_frames: frame rate of the animation and a cap on its number of frames (long runs are resampled).
        trails: points (by name) whose paths are drawn.
        plots: result variables plotted beside the 3-D view (page only).
        camera: ``projection``, ``view``, ``target``, ``extent`` (see :func:`symbody.viz.html.camera_setup`).
        amplitude: largest coordinate change of a mode shape (modal results).
        movie_options: options of :func:`symbody.viz.movie.write_movie` for GIF and MP4 (``size``, ``speed``, ...).

    Returns:
        An :class:`Animation` (shown inline by Jupyter).

    Raises:
        GeometryError: a result that does not fit the geometry; ExportError: an FMU without geometry.
    """
    doc = geometry_of(model)
    captions: list[tuple[float, float, str]] = []
    if _is_modal_result(result):
        columns, captions = mode_columns(result, amplitude=amplitude, fps=fps)
    else:
        columns = result_columns(result)
    scene = build_scene(
        doc,
        columns,
        parameters,
        fps=fps,
        max_frames=max_frames,
        trails=trails,
        plots=plots,
        captions=captions,
        title=title,
    )
    anim = Animation(scene, camera)
    if path is not None:
        anim.save(path, **movie_options)
    return anim


__all__ = ["animate", "Animation", "geometry_of", "result_columns", "mode_columns"]
