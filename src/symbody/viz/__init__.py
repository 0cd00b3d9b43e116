"""Seeing the mechanism move: 3-D pages (three.js), GIFs and MP4s (matplotlib), Jupyter display.

* :func:`animate` -- geometry of a model or FMU + a result -> :class:`Animation`
  (``.html``, ``.gif``, ``.mp4``; shown inline in Jupyter);
* :mod:`symbody.viz.scene` -- shapes posed at the frames (exact pose program, resampling);
* :mod:`symbody.viz.html` -- the self-contained page (three.js bundled, no network);
* :mod:`symbody.viz.movie` -- GIF and MP4 with matplotlib;
* :mod:`symbody.viz.cli` -- ``symbody animate``.

Shapes are declared on the model (:meth:`symbody.System.shape`); the geometry
document that FMUs carry is :mod:`symbody.codegen.geometry`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["animate", "Animation", "GeometryError", "geometry_of", "result_columns", "mode_columns"]


def __getattr__(name: str) -> Any:
    """Load the animation modules on first use (``symbody animate`` starts without them)."""
    if name == "GeometryError":
        from .poses import GeometryError

        return GeometryError
    if name in __all__:
        from . import animation

        return getattr(animation, name)
    raise AttributeError(f"module 'symbody.viz' has no attribute {name!r}")
