"""``symbody animate``: simulate a model file or an FMU and write a page, a GIF or an MP4.

::

    symbody animate MODEL.py|OUT.fmu -o OUT.html|OUT.gif|OUT.mp4 [--stop-time T] [--interval H]
                    [--set NAME=VALUE]... [--input-file CSV] [--option k=v]... [--trail POINT]...
                    [--plot NAME]... [--fps F] [--view iso|x|y|z] [--orthographic]

A model file is exported to a temporary FMU first, so both paths animate the
same thing: the FMU's simulation (fmpy, Co-Simulation) posed by the geometry
document inside the FMU.  ``OUT.html?t=SECONDS`` opens the page at that instant.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="symbody"); sub = parser.add_subparsers(dest="command")
    >>> _ = add_parser(sub)
    >>> args = parser.parse_args(["animate", "crane.fmu", "-o", "crane.html", "--set", "m=2", "--trail", "P"])
    >>> args.output, args.set, args.trail
    ('crane.html', ['m=2'], ['P'])
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path
from typing import Any

SUFFIXES = (".html", ".gif", ".mp4")


def add_parser(sub: Any, common: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Add the ``animate`` command to the ``symbody`` sub-parsers (``common``: parent parser of shared options)."""
    p = sub.add_parser(
        "animate",
        parents=[common] if common is not None else [],
        help="simulate and animate a model file or an FMU (HTML page, GIF or MP4)",
    )
    p.add_argument("model", help="model file (.py, exported on the fly) or symbody FMU (.fmu)")
    p.add_argument("-o", "--output", required=True, help="file to write: .html (3-D page), .gif or .mp4")
    p.add_argument("--stop-time", type=float, default=None, help="end time (default: the FMU's default experiment)")
    p.add_argument("--interval", type=float, default=None, help="output interval of the simulation")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="start value (repeatable)")
    p.add_argument("--input-file", default=None, metavar="CSV", help="inputs over time: time column, then inputs")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="model build option")
    p.add_argument("--trail", action="append", default=[], metavar="POINT", help="draw the path of a point")
    p.add_argument("--plot", action="append", default=[], metavar="NAME", help="plot a variable beside the 3-D view")
    p.add_argument("--fps", type=float, default=None, help="frames per second (default 30 for pages, 12 for movies)")
    p.add_argument("--view", choices=("iso", "x", "y", "z"), default="iso", help="camera direction")
    p.add_argument("--orthographic", action="store_true", help="orthographic camera (default perspective)")
    p.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version when exporting a model file")
    p.set_defaults(handler=run)
    return p


def parse_values(items: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` items (numbers or true/false) into a dict.

    >>> parse_values(["m=2.0", "g = 9.81", "on=true", "solver.method=1"])
    {'m': 2.0, 'g': 9.81, 'on': True, 'solver.method': 1}
    """
    from ..errors import SymbodyError

    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise SymbodyError(f"--set {item!r} is not of the form NAME=VALUE")
        text = text.strip()
        if text.lower() in ("true", "false"):
            out[name.strip()] = text.lower() == "true"
            continue
        try:
            number = float(text)
            out[name.strip()] = int(number) if text.lstrip("+-").isdigit() else number  # Integer variables
        except ValueError:
            raise SymbodyError(f"--set {item!r}: {text!r} is not a number") from None
    return out


def read_inputs(path: str | Path, input_names: list[str]):
    """``--input-file``: a CSV with a ``time`` column then input columns, as an fmpy input array."""
    import numpy as np

    from ..errors import SymbodyError

    try:
        data = np.genfromtxt(path, delimiter=",", names=True, dtype=float, deletechars="", encoding="utf-8")
    except (OSError, ValueError) as e:
        raise SymbodyError(f"--input-file {str(path)!r}: {e}") from None
    names = list(data.dtype.names or ())
    if not names or names[0] != "time":
        raise SymbodyError(f"--input-file {str(path)!r}: the first column must be 'time'")
    unknown = [n for n in names[1:] if n not in input_names]
    if unknown:
        raise SymbodyError(f"--input-file {str(path)!r}: {unknown[0]!r} is not an input ({', '.join(input_names)})")
    data = np.atleast_1d(data)
    if len(data) == 0 or not all(np.all(np.isfinite(data[n])) for n in names):
        raise SymbodyError(f"--input-file {str(path)!r}: empty, or values that are not finite numbers")
    if np.any(np.diff(data["time"]) < 0):
        raise SymbodyError(f"--input-file {str(path)!r}: times must not decrease")
    return data


def run(args: argparse.Namespace) -> int:
    """Handler of ``symbody animate``."""
    import fmpy

    from ..errors import SymbodyError
    from ..fmu import export_fmu
    from ..fmu.run import simulate
    from ..loader import load_model, parse_options
    from .animation import animate

    out = Path(args.output)
    if out.suffix.lower() not in SUFFIXES:
        raise SymbodyError(f"output {str(out)!r} must end in .html, .gif or .mp4")
    if out.suffix.lower() == ".mp4" and shutil.which("ffmpeg") is None:
        raise SymbodyError("writing MP4 needs ffmpeg on the PATH (install it, or write a .gif or .html)")
    if not out.resolve().parent.is_dir():
        raise SymbodyError(f"output folder {str(out.resolve().parent)!r} does not exist")
    src = Path(args.model)
    start = parse_values(args.set)
    with tempfile.TemporaryDirectory(prefix="symbody_anim_") as tmp:
        if src.suffix.lower() == ".fmu":
            if not src.is_file():
                raise SymbodyError(f"FMU {str(src)!r} not found")
            if args.option:
                raise SymbodyError("--option applies to model files, not to FMUs")
            fmu = src
        else:
            system = load_model(args.model, **parse_options(args.option))
            fmu = export_fmu(system, Path(tmp) / f"{system.name}.fmu", fmi_version=args.fmi, kind="cs", progress=True)
        md = fmpy.read_model_description(str(fmu))
        inputs = None
        if args.input_file:
            names = [v.name for v in md.modelVariables if v.causality == "input"]
            inputs = read_inputs(args.input_file, names)
        res = simulate(fmu, stop_time=args.stop_time, interval=args.interval, start_values=start, inputs=inputs)
        movie = out.suffix.lower() != ".html"
        fps = args.fps or (12.0 if movie else 30.0)
        camera = {"view": args.view, "projection": "orthographic" if args.orthographic else "perspective"}
        params = {k: float(v) for k, v in start.items() if not isinstance(v, bool)}
        anim = animate(fmu, res, None, parameters=params, fps=fps, trails=args.trail, plots=args.plot, camera=camera)
    anim.save(out, **({"fps": fps} if movie else {}))
    size = out.stat().st_size
    print(f"wrote {out} ({len(anim.scene.times)} frames, {size / 1e6:.2f} MB)")
    return 0


__all__ = ["add_parser", "run", "parse_values", "read_inputs"]
