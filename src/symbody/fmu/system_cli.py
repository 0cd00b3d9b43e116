"""The ``symbody system`` command, and ``symbody simulate`` of a system structure (``.ssp``).

::

    symbody system A.fmu B.fmu [C.fmu ...] --connect A.out=B.in [--connect ...] [--parameters FILE]
                   [--step H] [--start-time T0] [--stop-time T] [--name NAME] -o loop.ssp|OspSystemStructure.xml
    symbody simulate loop.ssp [--start-time T0] [--stop-time T] [--interval H] [--set comp.var=VALUE ...]
                     [--output comp.var ...] [-o OUT.csv] [--plot OUT.png | --no-plot] [--timeout S]

The components are named after the FMU files' stems.  ``-o *.ssp`` writes an SSP 1.0 package
(:mod:`symbody.fmu.ssp`, with libcosim's ``resources/OspSystemStructure.xml`` inside); ``-o *.xml`` writes
libcosim's ``OspSystemStructure.xml`` alone, pointing at the FMU files where they are (:mod:`symbody.fmu.osp`).
The parameter file holds ``comp.var = value`` lines (``#`` starts a comment).  ``--step`` (default: the
smallest step of the FMUs' default experiments, a controller's sample time) is written as the communication
step of libcosim's fixed-step algorithm; ``symbody simulate`` uses it unless ``--interval`` is given.

Example:
    >>> from symbody.cli import main
    >>> main(["system", "crane.fmu", "lqr.fmu", "--connect", "crane.x=lqr.x", "--connect",
    ...       "lqr.F_trolley=crane.F_trolley", "-o", "loop.ssp"])  # doctest: +SKIP
    0
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import ArgumentError


def add_system(sub, common: argparse.ArgumentParser) -> None:
    """Add ``system`` to the subcommands of ``symbody`` (``common`` gives it ``--debug``)."""
    p = sub.add_parser(
        "system",
        parents=[common],
        help="wire FMUs into a system structure: an SSP 1.0 package or libcosim's OspSystemStructure.xml",
    )
    p.add_argument("fmus", nargs="+", metavar="FMU", help="the components' FMUs (named after their file stems)")
    p.add_argument(
        "--connect", action="append", default=[], metavar="A.OUT=B.IN", help="an output to an input (repeatable)"
    )
    p.add_argument("--parameters", default=None, metavar="FILE", help="start values: comp.var = value lines")
    p.add_argument("--step", type=float, default=None, help="communication step (default: the FMUs' smallest)")
    p.add_argument("--start-time", type=float, default=0.0, help="start time of the default experiment")
    p.add_argument("--stop-time", type=float, default=None, help="stop time of the default experiment")
    p.add_argument("--name", default=None, help="the system's name (default: the output file's stem)")
    p.add_argument("-o", "--output", required=True, help="loop.ssp (SSP package) or OspSystemStructure.xml")
    p.set_defaults(handler=cmd_system)


def cmd_system(args: argparse.Namespace) -> int:
    from .arguments import check_output_file
    from .osp import write_osp
    from .ssp import write_ssp
    from .system_structure import read_parameter_file, system_structure

    out = check_output_file(args.output, (".ssp", ".xml"), "-o")
    if args.stop_time is not None and not args.stop_time > args.start_time:
        raise ArgumentError(f"--stop-time {args.stop_time:g} must be later than --start-time {args.start_time:g}")
    parameters = read_parameter_file(args.parameters) if args.parameters else []
    structure = system_structure(
        args.fmus,
        args.connect,
        parameters,
        name=args.name or out.stem,
        step=args.step,
        start=args.start_time,
        stop=args.stop_time,
    )
    path = write_ssp(structure, out) if out.suffix.lower() == ".ssp" else write_osp(structure, out)
    print(
        f"wrote {path} ({len(structure.elements)} components, {len(structure.links)} connections, "
        f"step {structure.step:g} s)"
        if structure.step is not None
        else f"wrote {path}"
    )
    return 0


#: Options of ``symbody simulate`` that concern one FMU's solver or a model file, not a system structure.
NOT_FOR_SYSTEMS = {
    "kind": "--kind",
    "method": "--method",
    "solver": "--solver",
    "rtol": "--rtol",
    "input_file": "--input-file",
    "option": "--option",
}


def simulate_system(args: argparse.Namespace) -> int:
    """``symbody simulate loop.ssp``: the structure run by :func:`symbody.fmu.cosim.simulate_structure`."""
    from .arguments import check_output_file, check_time_range, parse_assignments
    from .cosim import simulate_structure
    from .plot import choose_variables, plot
    from .run import variable_units, write_csv
    from .ssp import open_ssp

    given = [flag for name, flag in NOT_FOR_SYSTEMS.items() if getattr(args, name, None)]
    if given:
        raise ArgumentError(
            f"{given[0]} applies to an FMU or a model file, not to a system structure: set a component's "
            "parameters with --set comp.var=VALUE"
        )
    if args.stop_time is not None:
        check_time_range(args.start_time if args.start_time is not None else 0.0, args.stop_time, args.interval)
    src = Path(args.model)
    csv = check_output_file(args.csv or f"{src.stem}.csv", (".csv",), "-o")
    png = None if args.no_plot else check_output_file(args.plot or csv.with_suffix(".png"), (".png",), "--plot")
    start_values = dict(parse_assignments(args.set, "--set"))
    with open_ssp(src) as structure:
        res = simulate_structure(
            structure,
            start_time=args.start_time,
            stop_time=args.stop_time,
            step=args.interval,
            start_values=start_values,
            outputs=args.output,
            timeout=args.timeout,
        )
        units = {f"{e.name}.{n}": u for e in structure.elements for n, u in variable_units(e.md).items()}
        inputs = [f"{link.target}.{link.input}" for link in structure.links]
        title = structure.name
    write_csv(res, csv)
    print(f"wrote {csv} ({len(res)} rows, {len(res.dtype.names or ()) - 1} variables)")
    if png is not None:
        shown, left_out = choose_variables(res.dtype.names or (), inputs)
        plot(res, png, shown, title=title, units=units, settings=dict(start_values))
        print(f"wrote {png}")
        if left_out:
            print(
                f"  the plot shows {len(shown)} of {len(shown) + len(left_out)} variables; left out: "
                f"{', '.join(left_out)} (choose with --output comp.var)"
            )
    return 0
