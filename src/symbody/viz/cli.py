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
    >>> add_parser(sub)
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

from ..fmu.arguments import add_model_options

SUFFIXES = (".html", ".gif", ".mp4")


def add_parser(sub: Any, common: argparse.ArgumentParser | None = None) -> None:
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
    add_model_options(p)
    p.add_argument("--trail", action="append", default=[], metavar="POINT", help="draw the path of a point")
    p.add_argument("--plot", action="append", default=[], metavar="NAME", help="plot a variable beside the 3-D view")
    p.add_argument("--fps", type=float, default=None, help="frames per second (default 30 for pages, 12 for movies)")
    p.add_argument("--view", choices=("iso", "x", "y", "z"), default="iso", help="camera direction")
    p.add_argument("--orthographic", action="store_true", help="orthographic camera (default perspective)")
    p.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version when exporting a model file")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handler of ``symbody animate``."""
    from ..errors import SymbodyError
    from ..fmu import export_fmu
    from ..fmu.arguments import add_motion_rates, check_output_file, parse_start_values, read_input_file
    from ..fmu.run import METHOD_VALUES, check_fmu_file, read_description, simulate
    from ..loader import load_model_file
    from .animation import animate

    out = check_output_file(args.output, SUFFIXES, "-o")
    if out.suffix.lower() == ".mp4" and shutil.which("ffmpeg") is None:
        raise SymbodyError("writing MP4 needs ffmpeg on the PATH (install it, or write a .gif or .html)")
    with tempfile.TemporaryDirectory(prefix="symbody_anim_") as tmp:
        if Path(args.model).suffix.lower() == ".fmu":
            if args.option:
                raise SymbodyError("--option applies to model files, not to FMUs")
            fmu = check_fmu_file(args.model)
        else:
            system = load_model_file(args.model, args.option)
            fmu = export_fmu(system, Path(tmp) / f"{system.name}.fmu", fmi_version=args.fmi, kind="cs", progress=True)
        variables = read_description(fmu).modelVariables
        start = parse_start_values(args.set, variables, {"solver.method": METHOD_VALUES})
        inputs = None
        if args.input_file:
            names = [v.name for v in variables if v.causality == "input"]
            inputs, _ = add_motion_rates(read_input_file(args.input_file, names), names, Path(args.input_file).name)
        res = simulate(fmu, stop_time=args.stop_time, interval=args.interval, start_values=start, inputs=inputs)
        movie = out.suffix.lower() != ".html"
        fps = args.fps or (12.0 if movie else 30.0)
        camera = {"view": args.view, "projection": "orthographic" if args.orthographic else "perspective"}
        params = {v.name: float(start[v.name]) for v in variables if v.causality == "parameter" and v.name in start}
        anim = animate(fmu, res, None, parameters=params, fps=fps, trails=args.trail, plots=args.plot, camera=camera)
    anim.save(out, **({"fps": fps} if movie else {}))
    size = out.stat().st_size
    print(f"wrote {out} ({len(anim.scene.times)} frames, {size / 1e6:.2f} MB)")
    return 0


__all__ = ["add_parser", "run"]
