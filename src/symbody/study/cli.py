"""The ``symbody sweep`` command: a parameter study of an FMU (or a model file) on dask.

::

    symbody sweep FMU|MODEL.py --param NAME=v1,v2,...|NAME=start:stop:count [--param ...]
                  [--sample NAME=low:high ... --samples N [--seed S]] [--set NAME=VALUE ...]
                  [--input-file CSV] --stop-time T [--interval H] [--kind cs|me] --output NAME [--output ...]
                  -o results.csv|results.parquet [--scheduler ADDRESS|FILE] [--workers N]
                  [--timeout S] [--trajectories DIR] [--retry-failed] [--no-progress]

One row per run: the swept values, ``NAME.final``, ``NAME.min``, ``NAME.max`` for every
``--output``, the run's ``status`` and ``message``.  Started again with the same
arguments, the command resumes: the runs already in the results file are skipped.

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


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``sweep`` to the subcommands of ``symbody``."""
    p = subparsers.add_parser("sweep", help="parameter sweep / Monte Carlo study of an FMU on dask (CSV or Parquet)")
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
    p.add_argument("--input-file", default=None, metavar="CSV", help="input signals: columns time, then input names")
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
    p.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version when exporting a model file")
    p.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="option of the model's build(**options)"
    )
    return p


def parse_assignments(items: list[str], flag: str) -> dict[str, str]:
    """``NAME=TEXT`` items as a dict (a repeated name is an error).

    Example:
        >>> parse_assignments(["m=1,2", "l=5:30:6"], "--param")
        {'m': '1,2', 'l': '5:30:6'}
    """
    from .design import StudyError

    out: dict[str, str] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name or not text.strip():
            raise StudyError(f"{flag} {item!r} is not of the form NAME=VALUE")
        if name in out:
            raise StudyError(f"{flag} {name!r} is given twice")
        out[name] = text
    return out


def _number(name: str, text: str) -> float:
    from .design import StudyError

    if text.strip().lower() in ("true", "false"):
        return float(text.strip().lower() == "true")
    try:
        return float(text)
    except ValueError:
        raise StudyError(f"--set {name}={text!r}: not a number") from None


def run(args: argparse.Namespace) -> int:
    """Run ``symbody sweep``; returns the exit status."""
    from .design import StudyError, parse_range, parse_values
    from .results import check_path
    from .runner import read_input_csv
    from .sweep import sweep

    results = check_path(args.results)
    params = {k: parse_values(v) for k, v in parse_assignments(args.param, "--param").items()}
    samples = {k: parse_range(v) for k, v in parse_assignments(args.sample, "--sample").items()}
    fixed = {k: _number(k, v) for k, v in parse_assignments(args.set, "--set").items()}
    if args.scheduler is not None and args.workers is not None:
        raise StudyError("--workers sizes the local cluster; with --scheduler the cluster has its own workers")
    if args.workers is not None and args.workers < 0:
        raise StudyError(f"--workers must not be negative, not {args.workers}")
    inputs = read_input_csv(args.input_file) if args.input_file else None
    src = Path(args.model)
    with tempfile.TemporaryDirectory(prefix="symbody_sweep_") as tmp:
        fmu = _fmu(src, args, Path(tmp))
        df = sweep(
            fmu,
            params,
            samples=samples,
            n_samples=args.samples,
            seed=args.seed,
            start_values=fixed,
            stop_time=args.stop_time,
            outputs=args.output,
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
    if failed:
        note = f"{failed} of {len(df)} runs failed (see the status and message columns)"
        print(f"symbody: warning: {note}", file=sys.stderr)
    return 0


def _fmu(src: Path, args: argparse.Namespace, tmp: Path) -> Path:
    """The FMU to sweep: the given one, or the model file exported into ``tmp``."""
    from .design import StudyError

    if src.suffix.lower() == ".fmu":
        if not src.is_file():
            raise StudyError(f"FMU {str(src)!r} not found")
        if args.option:
            raise StudyError("--option applies to model files, not to FMUs")
        return src
    from ..fmu import export_fmu
    from ..loader import load_model, parse_options

    system = load_model(src, **parse_options(args.option))
    kind = "cs" if args.kind == "cs" else "me"
    return export_fmu(system, tmp / f"{system.name}.fmu", fmi_version=args.fmi, kind=kind, progress=True)
