"""The ``symbody sweep`` command: a parameter study of an FMU (or a model file) on dask.

::

    symbody sweep FMU|MODEL.py --param NAME=v1,v2,...|NAME=start:stop:count [--param ...]
                  [--sample NAME=low:high ... --samples N [--seed S]] [--set NAME=VALUE ...]
                  [--input-file CSV] --stop-time T [--interval H] [--kind cs|me] --output NAME [--output ...]
                  -o results.csv|results.parquet [--scheduler ADDRESS|FILE] [--workers N]
                  [--timeout S] [--trajectories DIR] [--retry-failed] [--no-progress]
                  [--plot OUT.png [--plot-column COLUMN]]

One row per run: the swept values, ``NAME.final``, ``NAME.min``, ``NAME.max`` for every
``--output``, the run's ``status`` and ``message``.  Started again with the same
arguments, the command resumes: the runs already in the results file are skipped.
``--plot`` draws one result column (default: the first output's ``.max``) over the swept
variables (:mod:`symbody.study.plot`): a heat map over two swept variables, as the robustness
maps of the crane examples.

Example:
    >>> from symbody.cli import main
    >>> main(["sweep", "crane.fmu", "--param", "m_payload=1000:8000:8", "--stop-time", "10",
    ...       "--output", "theta", "-o", "r.csv"])  # doctest: +SKIP
    0
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from ..fmu.arguments import add_model_options


def add_sweep(sub, common: argparse.ArgumentParser) -> None:
    """Add ``sweep`` to the subcommands of ``symbody`` (``common`` gives it ``--debug``)."""
    p = sub.add_parser(
        "sweep", parents=[common], help="parameter sweep / Monte Carlo study of an FMU on dask (CSV or Parquet)"
    )
    p.add_argument("model", help="FMU (.fmu) or model file (.py, exported on the fly)")
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUES",
        help="swept variable: NAME=v1,v2,... or NAME=start:stop:count; the full factorial is run (repeatable)",
    )
    p.add_argument(
        "--sample", action="append", default=[], metavar="NAME=LOW:HIGH", help="range of a Latin-hypercube sample"
    )
    p.add_argument("--samples", type=int, default=None, metavar="N", help="number of Latin-hypercube samples")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="start value of every run")
    p.add_argument("--input-file", default=None, metavar="CSV", help="inputs over time: time, then input columns")
    p.add_argument("--stop-time", type=float, required=True, help="end time of every run")
    p.add_argument("--interval", type=float, default=None, help="output interval / communication step")
    p.add_argument("--kind", choices=("cs", "me"), default="cs", help="Co-Simulation (default) or Model Exchange")
    p.add_argument(
        "--output", action="append", required=True, metavar="NAME", help="variable summarized per run (repeatable)"
    )
    p.add_argument("-o", "--results", required=True, help="results file (.csv or .parquet); resumed if it exists")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="dask scheduler address or scheduler file")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes of the local cluster (default: cores; 0: run here, no dask)",
    )
    p.add_argument("--timeout", type=float, default=None, metavar="S", help="wall-clock limit of one run")
    p.add_argument("--trajectories", default=None, metavar="DIR", help="keep every run's trajectory (Parquet) here")
    p.add_argument("--retry-failed", action="store_true", help="rerun the failed runs found in the results file")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--plot", default=None, metavar="PNG", help="draw a result column over the swept variables (heat map for two)"
    )
    p.add_argument(
        "--plot-column",
        default=None,
        metavar="COLUMN",
        help="the column --plot draws: NAME.final, NAME.min or NAME.max of an --output (default: the first's .max)",
    )
    p.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version when exporting a model file")
    add_model_options(p)
    p.set_defaults(handler=run)


def _check_arguments(args: argparse.Namespace) -> None:
    """What can be checked before loading or exporting anything."""
    from ..errors import ArgumentError
    from ..fmu.arguments import check_time_range, parse_assignments, read_input_file

    if args.scheduler is not None and args.workers is not None:
        raise ArgumentError("--workers sizes the local cluster; with --scheduler the cluster has its own workers")
    if args.workers is not None and args.workers < 0:
        raise ArgumentError(f"--workers must not be negative, not {args.workers}")
    check_time_range(0.0, args.stop_time, args.interval)
    if args.timeout is not None and not (0 < args.timeout < float("inf")):
        raise ArgumentError(f"--timeout {args.timeout:g} must be a positive number")
    if args.option and Path(args.model).suffix.lower() == ".fmu":
        raise ArgumentError("--option applies to model files, not to FMUs")
    settings = parse_assignments(args.set, "--set")  # the form now; the values are typed once the FMU is known
    solver = [n for n in [*settings, *(a.partition("=")[0].strip() for a in args.param)] if n.startswith("solver.")]
    if args.kind == "me" and solver:
        raise ArgumentError(f"{solver[0]} sets the Co-Simulation FMU's solver; with --kind me fmpy integrates")
    if args.input_file:
        read_input_file(args.input_file, None)
    if args.plot_column is not None and args.plot is None:
        raise ArgumentError("--plot-column chooses what --plot draws: give --plot PNG too")


def plot_column(args: argparse.Namespace) -> str | None:
    """The column ``--plot`` draws (None without ``--plot``): one of the summaries of the ``--output`` names."""
    from ..errors import ArgumentError

    if args.plot is None:
        return None
    choices = [f"{name}.{kind}" for name in args.output for kind in ("final", "min", "max")]
    column = args.plot_column or f"{args.output[0]}.max"
    if column not in choices:
        listed = ", ".join(choices)
        raise ArgumentError(f"--plot-column {column!r} is not a column of the study; choose one of {listed}")
    return column


def run(args: argparse.Namespace) -> int:
    """Run ``symbody sweep``; returns the exit status."""
    from ..fmu.arguments import (
        add_motion_rates,
        check_output_file,
        check_variable_names,
        parse_assignments,
        parse_start_values,
        read_input_file,
    )
    from ..fmu.run import METHOD_VALUES, read_description, variable_units
    from .design import parse_range, parse_values
    from .orchestration import sweep

    results = check_output_file(args.results, (".csv", ".parquet"), "-o")
    png = None if args.plot is None else check_output_file(args.plot, (".png",), "--plot")
    params = {k: parse_values(v) for k, v in parse_assignments(args.param, "--param", "NAME=VALUES").items()}
    samples = {k: parse_range(v) for k, v in parse_assignments(args.sample, "--sample", "NAME=LOW:HIGH").items()}
    _check_arguments(args)
    column = plot_column(args)
    with tempfile.TemporaryDirectory(prefix="symbody_sweep_") as tmp:
        fmu = _fmu(Path(args.model), args, Path(tmp))
        md = read_description(fmu)
        variables = md.modelVariables
        fixed = parse_start_values(args.set, variables, {"solver.method": METHOD_VALUES})
        outputs = check_variable_names(args.output, [v.name for v in variables], "--output")
        inputs = None
        if args.input_file:
            names = [v.name for v in variables if v.causality == "input"]
            inputs, _ = add_motion_rates(read_input_file(args.input_file, names), names, Path(args.input_file).name)
        df = sweep(
            fmu,
            params,
            samples=samples,
            n_samples=args.samples,
            seed=args.seed,
            start_values=fixed,
            stop_time=args.stop_time,
            outputs=outputs,
            interval=args.interval,
            kind=args.kind,
            inputs=inputs,
            timeout=args.timeout,
            output=results,
            trajectories=args.trajectories,
            retry_failed=args.retry_failed,
            scheduler=args.scheduler,
            workers=args.workers,
            progress=not args.no_progress,
        )
    failed = int((df["status"] != "ok").sum())
    print(
        f"wrote {results} ({len(df)} runs: {df.attrs['runs']} run now, {df.attrs['skipped']} found in the file, "
        f"{failed} failed)"
    )
    if png is not None and column is not None:
        from .plot import write_study_plot

        swept = [*params, *samples]
        write_study_plot(df, png, column, swept, variable_units(md), f"{md.modelName} ({Path(args.model).name})")
        print(f"wrote {png} ({column} over {', '.join(swept)})")
    if failed:
        note = f"{failed} of {len(df)} runs failed (see the status and message columns)"
        print(f"symbody: warning: {note}", file=sys.stderr)
    return 0


def _fmu(src: Path, args: argparse.Namespace, tmp: Path) -> Path:
    """The FMU to sweep: the given one, or the model file exported into ``tmp``."""
    if src.suffix.lower() == ".fmu":
        from ..fmu.run import check_fmu_file

        return check_fmu_file(src)
    from ..fmu import export_fmu
    from ..loader import load_model_file

    system = load_model_file(src, args.option)
    return export_fmu(system, tmp / f"{system.name}.fmu", fmi_version=args.fmi, kind=args.kind, progress=True)
