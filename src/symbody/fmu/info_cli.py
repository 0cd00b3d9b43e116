"""The ``symbody info`` command: what a model file derives to (sizes, names, operation counts), or what an FMU holds.

::

    symbody info MODEL.py|OUT.fmu [--option k=v ...] [--json]

A model file is derived and summarised line by line from :data:`INFO_LINES`; an FMU is read by
:mod:`symbody.fmu.summary`.  ``--json`` prints the same facts as one JSON object.

Example:
    >>> from symbody.cli import main
    >>> main(["info", "examples/simple_pendulum.py", "--json"])  # doctest: +SKIP
    0
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ArgumentError
from .arguments import add_model_options

if TYPE_CHECKING:
    from ..equations import Equations

__all__ = ["INFO_LINES", "add_info", "cmd_info", "info_lines"]


def add_info(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``info`` to the subcommands of ``symbody`` (``common`` gives it ``--debug``)."""
    p = sub.add_parser(
        "info", parents=[common], help="sizes, symbols and operation counts of a model; the contents of an FMU"
    )
    p.add_argument("model", help="model file (.py) or FMU (.fmu)")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_model_options(p)
    p.set_defaults(handler=cmd_info)


def _model_info(eq: Equations) -> dict[str, Any]:
    from ..codegen.counts import export_ops, stats

    st = dict(stats(eq))
    st["export_ops"] = dict(export_ops(eq))
    st["coordinate_names"] = [c.name for c in eq.coordinates]
    st["constraint_names"] = [r.name for r in eq.constraint_rows]
    st["parameter_names"] = [p.name for p in eq.parameters]
    st["input_names"] = [u.name for u in eq.inputs]
    st["motion_input_names"] = [name for name, _ in eq.motion_inputs]
    st["states"] = eq.nx
    st["state_names"] = [x.name for x in eq.states]
    st["output_names"] = [o.name for o in eq.outputs]
    st["elements"] = [f"{kind} {name}" for kind, name in eq.elements]
    return st


def _fmu_info(args: argparse.Namespace) -> int:
    from .summary import fmu_summary, summary_lines

    if args.option:
        raise ArgumentError("--option applies to model files, not to FMUs")
    info = fmu_summary(args.model)
    print(json.dumps(info, indent=2, default=str) if args.json else "\n".join(summary_lines(info)))
    return 0


def _names(items: Sequence[str], limit: int = 8) -> str:
    """`` (a, b, c)`` (the first ``limit`` names and the count when there are more), or nothing."""
    more = f", ... ({len(items)})" if len(items) > limit else ""
    return f" ({', '.join(items[:limit])}{more})" if items else ""


def _counted(key: str, names: str, *, optional: bool = False) -> Callable[[dict[str, Any], Equations], list[str]]:
    """The line of a count and its names (none where ``optional`` and the count is zero)."""

    def line(st: dict[str, Any], eq: Equations) -> list[str]:
        count = st[key] if isinstance(st[key], int) else len(st[key])
        return [] if optional and not count else [f"{count}{_names(st[names])}"]

    return line


def _constraints(st: dict[str, Any], eq: Equations) -> list[str]:
    return [f"{st['constraints']} ({st['holonomic']} holonomic, {st['nonholonomic']} non-holonomic), dof {st['dof']}"]


def _flexible(st: dict[str, Any], eq: Equations) -> list[str]:
    return [
        f"{name}: {size['segments']} segments, {size['coordinates']} coordinates, {size['solids']} solids"
        for name, size in st["flexible_bodies"].items()
    ]


def _motion(st: dict[str, Any], eq: Equations) -> list[str]:
    names = st["motion_input_names"]
    return [f"{len(names)} motion inputs{_names(names)}"] if names else []


def _dynamics(st: dict[str, Any], eq: Equations) -> list[str]:
    direct = f", accelerations by {eq.accelerations_method}" if eq.accelerations_method else ""
    return [f"{st['formulation'].replace('_', ' ')} formulation{direct}"]


def _operations(st: dict[str, Any], eq: Equations) -> list[str]:
    shown = ("M", "delta", "M_delta", "Phi", "Phi_q", "gamma") + (("ddq",) if eq.accelerations else ())
    return [", ".join(f"{k} {st['ops'][k]}" for k in shown)]


def _exported(st: dict[str, Any], eq: Equations) -> list[str]:
    functions = ("M_delta", "constraints", "outputs") + (("ddq",) if eq.accelerations else ())
    return [", ".join(f"{k} {st['export_ops'][k]}" for k in functions) + " (C and MATLAB code)"]


#: The lines of ``symbody info MODEL.py`` in order: a label and the texts of its lines (none, one or one per
#: object).  Elements kept in ``System.elements`` (ropes, winches, cylinders, ... and any new kind with a
#: ``kind``) are listed by the ``elements`` line without a change here; a new kind of registry of the
#: system (as the flexible bodies) adds its line to this table and its entry to :func:`_model_info`.
INFO_LINES: tuple[tuple[str, Callable[[dict[str, Any], Equations], list[str]]], ...] = (
    ("coordinates", _counted("coordinates", "coordinate_names")),
    ("constraints", _constraints),
    ("flexible", _flexible),
    ("parameters", _counted("parameters", "parameter_names")),
    ("inputs", _counted("inputs", "input_names")),
    ("motion", _motion),
    ("states", _counted("states", "state_names", optional=True)),
    ("outputs", _counted("outputs", "output_names")),
    ("elements", _counted("elements", "elements", optional=True)),
    ("atoms", lambda st, eq: [str(st["atoms"])]),
    ("dynamics", _dynamics),
    ("operations", _operations),
    ("exported", _exported),
    ("derived in", lambda st, eq: [f"{st['derive_seconds']:.3g} s"]),
)


def info_lines(st: dict[str, Any], eq: Equations) -> list[str]:
    """The text of ``symbody info MODEL.py``: the model's name and description, then :data:`INFO_LINES`.

    Example:
        >>> from symbody.models import pendulum
        >>> eq = pendulum().derive()
        >>> print("\\n".join(info_lines(_model_info(eq) | {"flexible_bodies": {}}, eq)[:3]))
        pendulum
          coordinates  1 (theta)
          constraints  0 (0 holonomic, 0 non-holonomic), dof 1
    """
    lines = [f"{st['name']}" + (f": {eq.description}" if eq.description else "")]
    for label, texts in INFO_LINES:
        lines += [f"  {label:<12} {text}" for text in texts(st, eq)]
    return lines


def cmd_info(args: argparse.Namespace) -> int:
    from ..loader import load_model_file
    from ..model.flexible import flexible_sizes

    if Path(args.model).suffix.lower() == ".fmu":
        return _fmu_info(args)
    system = load_model_file(args.model, args.option)
    eq = system.derive(progress=True)
    st = _model_info(eq)
    st["flexible_bodies"] = flexible_sizes(system)
    print(json.dumps(st, indent=2, default=float) if args.json else "\n".join(info_lines(st, eq)))
    return 0
