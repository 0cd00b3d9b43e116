"""The ``symbody`` command line: export, info, simulate, system, validate, animate.

::

    symbody export MODEL.py -o OUT.fmu [--format fmu] [--fmi 2|3] [--kind cs|me|both] [--backend c|python]
                   [--platforms P1,P2] [--jacobians exact|forward|none] [--with-matlab] [--option k=v ...]
    symbody export MODEL.py --format matlab -o DIR [--option k=v ...]
    symbody info MODEL.py|OUT.fmu [--option k=v ...] [--json]
    symbody simulate MODEL.py|OUT.fmu [--start-time T0] [--stop-time T] [--interval H] [--kind cs|me]
                     [--method rk4|dopri5|rosenbrock23 | --solver CVode|Euler] [--rtol R] [--set NAME=VALUE ...]
                     [--input-file CSV] [--output NAME ...] [-o OUT.csv] [--plot OUT.png | --no-plot]
                     [--timeout SECONDS] [--fmi 2|3] [--option k=v ...]
    symbody simulate loop.ssp [--start-time T0] [--stop-time T] [--interval H] [--set comp.var=VALUE ...]
                     [--output comp.var ...] [-o OUT.csv] [--plot OUT.png | --no-plot] [--timeout SECONDS]
    symbody system A.fmu B.fmu ... --connect A.out=B.in ... [--parameters FILE] [--step H] -o loop.ssp
                   (see symbody.fmu.system_cli)
    symbody validate OUT.fmu [--stop-time T] [--timeout SECONDS]
    symbody sweep FMU|MODEL.py --param NAME=VALUES ... --stop-time T --output NAME ... -o results.csv
                  (see symbody.study.cli)
    symbody animate MODEL.py|OUT.fmu -o OUT.html|OUT.gif|OUT.mp4 ...   (symbody.viz.cli)

Errors print one line on stderr (``symbody: error: ...``) and exit with status
1; ``--debug`` (anywhere on the line) shows the traceback instead.  Warnings
print one line too (``symbody: warning: ...``).  Outputs are checked before
any work and written atomically: a failed or interrupted command (Ctrl-C,
SIGTERM) leaves no partial file, no temporary folder and an existing file
intact.

Each command is one ``add_<command>(subparsers, common)`` function that builds
its parser (``parents=[common]`` gives it ``--debug``) and sets its handler
(``set_defaults(handler=cmd_<command>)``); :data:`COMMANDS` lists them in order.
A new command is a new pair of functions and one entry in :data:`COMMANDS`.

Example:
    >>> main(["info", "examples/simple_pendulum.py", "--json"])  # doctest: +SKIP
    0
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .errors import ArgumentError, SymbodyError
from .fmu.arguments import (
    COSIMULATION_SOLVER,
    add_model_options,
    add_motion_rates,
    check_output_file,
    check_recorded_names,
    check_time_range,
    input_file_gap,
    parse_assignments,
    parse_start_values,
    read_input_file,
)
from .fmu.info_cli import add_info
from .fmu.system_cli import add_system
from .study.cli import add_sweep
from .viz.cli import add_parser as add_animate

if TYPE_CHECKING:
    pass


class CliError(SymbodyError):
    """A usage problem found after parsing (bad combination of options, unreadable file)."""


# ---------------------------------------------------------------------------
# parsers, one function per command
# ---------------------------------------------------------------------------


def _common() -> argparse.ArgumentParser:
    """Options every command accepts, before or after its name."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show the full traceback of errors")
    return p


def add_export(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("export", parents=[common], help="export a model file as an FMU or as MATLAB/Octave functions")
    p.add_argument("model", help="model file (Python, defines build(**options))")
    p.add_argument(
        "-o", "--output", required=True, help="FMU file to write; with --format matlab, a new or empty folder"
    )
    p.add_argument(
        "--format",
        choices=("fmu", "matlab"),
        default="fmu",
        help="fmu (default) or matlab: plain .m functions for MATLAB and GNU Octave (no FMU options apply)",
    )
    p.add_argument("--fmi", type=int, choices=(2, 3), default=None, help="FMI version (default 2)")
    p.add_argument(
        "--kind", choices=("cs", "me", "both"), default=None, help="interfaces (default: both for c, cs for python)"
    )
    p.add_argument("--backend", choices=("c", "python"), default=None, help="native C (default) or pythonfmu")
    p.add_argument(
        "--platforms",
        default=None,
        metavar="P1,P2",
        help="binaries to build: x86_64-linux (linux64), x86_64-windows (win64), aarch64-linux "
        "(default: $SYMBODY_PLATFORMS, else every platform whose compiler is installed)",
    )
    p.add_argument(
        "--jacobians",
        choices=("exact", "forward", "none"),
        default=None,
        help="Jacobians of the native FMU: exact (symbolic), forward (forward-mode tangent code) or none "
        "(differences, no directional derivatives); default: exact for small models, forward otherwise",
    )
    p.add_argument(
        "--with-matlab",
        action="store_true",
        help="also put the model's .m functions in the FMU (extra/org.symbody.matlab/ in FMI 3, "
        "documentation/matlab/ in FMI 2)",
    )
    add_model_options(p)
    p.set_defaults(handler=cmd_export)


def add_simulate(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "simulate", parents=[common], help="simulate a model file, an FMU or a system structure with fmpy (CSV, PNG)"
    )
    p.add_argument("model", help="model file (.py, exported on the fly), FMU (.fmu) or system structure (.ssp)")
    p.add_argument("--start-time", type=float, default=None, help="start time (default: the FMU's default experiment)")
    p.add_argument("--stop-time", type=float, default=None, help="end time (default: the FMU's default experiment)")
    p.add_argument("--interval", type=float, default=None, help="output interval = communication step (both kinds)")
    p.add_argument("--kind", choices=("cs", "me"), default=None, help="Co-Simulation (default) or Model Exchange")
    p.add_argument(
        "--method", choices=("rk4", "dopri5", "rosenbrock23"), default=None, help="the Co-Simulation FMU's solver"
    )
    p.add_argument("--solver", choices=("CVode", "Euler"), default=None, help="fmpy's Model Exchange integrator")
    p.add_argument("--rtol", type=float, default=None, help="relative tolerance")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="start value (repeatable)")
    p.add_argument(
        "--input-file",
        default=None,
        metavar="CSV",
        help="inputs over time: a CSV with time, then input columns (a motion input z without dz, ddz columns "
        "gets them from the spline through z)",
    )
    p.add_argument("--output", action="append", default=None, metavar="NAME", help="variable to record (repeatable)")
    p.add_argument("-o", "--csv", default=None, help="CSV file to write (default: <name>.csv)")
    p.add_argument("--plot", default=None, help="PNG file to write (default: next to the CSV)")
    p.add_argument("--no-plot", action="store_true", help="do not write a plot")
    p.add_argument("--timeout", type=float, default=None, help="stop with an error after this many seconds")
    p.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version when exporting a model file")
    add_model_options(p)
    p.set_defaults(handler=cmd_simulate)


def add_validate(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "validate",
        parents=[common],
        help="validate an FMU (the standard; a simulation with each solver, at a setting the model allows)",
    )
    p.add_argument("fmu", help="FMU file")
    p.add_argument("--stop-time", type=float, default=1.0, help="end time of the smoke simulations (default 1)")
    p.add_argument("--timeout", type=float, default=None, help="fail a smoke simulation after this many seconds")
    p.set_defaults(handler=cmd_validate)


#: The commands, in the order ``symbody --help`` lists them: ``add_<command>(subparsers, common)``.
COMMANDS: list[Callable[[Any, argparse.ArgumentParser], None]] = [add_export, add_info, add_simulate, add_validate]
COMMANDS.append(add_system)
COMMANDS.append(add_sweep)
COMMANDS.append(add_animate)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``symbody``."""
    parser = argparse.ArgumentParser(
        prog="symbody",
        description="Symbolic multibody preprocessor: equations of motion and native FMUs from a model file.",
    )
    parser.add_argument("--version", action="version", version=f"symbody {__version__}")
    parser.add_argument("--debug", action="store_true", default=False, help="show the full traceback of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = _common()
    for add in COMMANDS:
        add(sub, common)
    return parser


# ---------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------


def _load(model: str, options: list[str]):
    from .loader import load_model_file

    return load_model_file(model, options)


def _is_fmu(path: str) -> bool:
    return Path(path).suffix.lower() == ".fmu"


#: The options of ``symbody export`` that apply to FMUs only: argument name -> option.
FMU_OPTIONS = {
    "fmi": "--fmi",
    "kind": "--kind",
    "backend": "--backend",
    "platforms": "--platforms",
    "jacobians": "--jacobians",
    "with_matlab": "--with-matlab",
}


def cmd_export(args: argparse.Namespace) -> int:
    if args.format == "matlab":
        return _export_matlab(args)
    from .fmu import export_fmu

    out = check_output_file(args.output, (".fmu",), "-o")
    system = _load(args.model, args.option)
    platforms = [s for s in args.platforms.split(",") if s.strip()] if args.platforms else None
    path = export_fmu(
        system,
        out,
        fmi_version=args.fmi or 2,
        kind=args.kind,
        backend=args.backend or "c",
        progress=True,
        platforms=platforms,
        jacobians=args.jacobians,
        with_matlab=args.with_matlab,
    )
    print(f"wrote {path}")
    return 0


def _export_matlab(args: argparse.Namespace) -> int:
    from .codegen.matlab_model import check_directory, export_matlab

    given = [option for name, option in FMU_OPTIONS.items() if getattr(args, name) not in (None, False)]
    if given:
        raise CliError(f"{given[0]} applies to FMUs: --format matlab writes .m functions only")
    out = Path(args.output)
    if out.suffix.lower() == ".fmu":
        raise CliError(f"-o {args.output}: --format matlab writes a folder of .m files, not an FMU")
    check_directory(out)  # before deriving anything
    path = export_matlab(_load(args.model, args.option).derive(progress=True), out)
    print(f"wrote {path} ({len(list(path.iterdir()))} .m files)")
    return 0


def _check_simulate_arguments(args: argparse.Namespace) -> None:
    """Everything that can be checked before building or loading anything."""
    if args.kind == "me" and args.method:
        raise CliError(
            f"--method {args.method} chooses the Co-Simulation FMU's solver; with --kind me fmpy integrates "
            "(choose it with --solver CVode|Euler)"
        )
    if args.kind != "me" and args.solver:
        raise CliError(f"--solver {args.solver} chooses fmpy's Model Exchange integrator: use it with --kind me")
    start = args.start_time if args.start_time is not None else 0.0
    if args.stop_time is not None:
        check_time_range(start, args.stop_time, args.interval)
    elif args.interval is not None and not args.interval > 0:
        raise ArgumentError(f"--interval {args.interval:g} must be positive")
    if args.rtol is not None and not (0 < args.rtol < float("inf")):
        raise ArgumentError(f"--rtol {args.rtol:g} must be a positive number")
    _check_timeout(args.timeout)
    if args.option and _is_fmu(args.model):
        raise CliError("--option applies to model files, not to FMUs")
    settings = parse_assignments(args.set, "--set")  # the form NAME=VALUE; values are typed once the FMU is known
    solver_settings = [n for n in settings if n.startswith(COSIMULATION_SOLVER)]
    if args.kind == "me" and solver_settings:
        raise CliError(
            f"--set {solver_settings[0]} sets the Co-Simulation FMU's solver; with --kind me fmpy integrates "
            "(choose it with --solver CVode|Euler, --rtol)"
        )
    if args.input_file:
        read_input_file(args.input_file, None)  # its form now; its names once the FMU is known


@contextmanager
def _simulation_fmu(args: argparse.Namespace) -> Iterator[Path]:
    """The FMU to simulate: the given one, or the model file exported into a temporary folder."""
    if _is_fmu(args.model):
        from .fmu.run import check_fmu_file

        yield check_fmu_file(args.model)
        return
    from .fmu import export_fmu

    system = _load(args.model, args.option)
    with tempfile.TemporaryDirectory(prefix="symbody_sim_") as tmp:
        kind = args.kind or "cs"
        yield export_fmu(system, Path(tmp) / f"{system.name}.fmu", fmi_version=args.fmi, kind=kind, progress=True)


def cmd_simulate(args: argparse.Namespace) -> int:
    if Path(args.model).suffix.lower() == ".ssp":
        from .fmu.system_cli import simulate_system

        return simulate_system(args)
    from .fmu.plot import choose_variables, plot
    from .fmu.run import METHOD_VALUES, read_description, simulate, variable_units, write_csv

    _check_simulate_arguments(args)
    src = Path(args.model)
    csv = check_output_file(args.csv or f"{src.stem}.csv", (".csv",), "-o")
    png = None if args.no_plot else check_output_file(args.plot or csv.with_suffix(".png"), (".png",), "--plot")
    with _simulation_fmu(args) as fmu:
        md = read_description(fmu)
        variables = md.modelVariables
        start = parse_start_values(args.set, variables, {"solver.method": METHOD_VALUES})
        outputs = check_recorded_names(args.output, variables) if args.output else None
        inputs = None
        input_names = [v.name for v in variables if v.causality == "input"]
        if args.input_file:
            inputs = read_input_file(args.input_file, input_names)
            inputs, completed = add_motion_rates(inputs, input_names, Path(args.input_file).name)
            if completed:
                print(
                    f"motion inputs {', '.join(completed)}: velocities and accelerations from the spline through "
                    f"the samples of {Path(args.input_file).name}"
                )
            driven_and_set = [n for n in inputs.dtype.names or () if n in start]
            if driven_and_set:
                raise ArgumentError(
                    f"--set {driven_and_set[0]}: this input is driven by --input-file {Path(args.input_file).name}"
                    " (the file's values would replace the one set)"
                )
            if outputs is None:  # record the inputs the file drives with the outputs
                driven = [n for n in inputs.dtype.names or () if n != "time"]
                outputs = [v.name for v in variables if v.causality == "output"] + driven
        res = simulate(
            fmu,
            kind=args.kind,
            start_time=args.start_time,
            stop_time=args.stop_time,
            interval=args.interval,
            solver=args.solver,
            method=args.method,
            rtol=args.rtol,
            start_values=start,
            outputs=outputs,
            inputs=inputs,
            timeout=args.timeout,
        )
    if inputs is not None and len(res):
        gap = input_file_gap(inputs, float(res["time"][0]), float(res["time"][-1]), Path(args.input_file).name)
        if gap:
            warnings.warn(gap, stacklevel=1)
    write_csv(res, csv)
    print(f"wrote {csv} ({len(res)} rows, {len(res.dtype.names or ()) - 1} variables)")
    if png is not None:
        shown, left_out = choose_variables(res.dtype.names or (), input_names)
        settings: dict[str, object] = dict(parse_assignments(args.set, "--set"))
        if args.input_file:
            settings["inputs"] = Path(args.input_file).name
        plot(res, png, shown, title=md.modelName, units=variable_units(md), settings=settings)
        print(f"wrote {png}")
        if left_out:
            print(
                f"  the plot shows {len(shown)} of {len(shown) + len(left_out)} variables; left out: "
                f"{', '.join(left_out)} (choose with --output NAME)"
            )
    return 0


def _check_timeout(timeout: float | None) -> None:
    if timeout is not None and not (0 < timeout < float("inf")):
        raise ArgumentError(f"--timeout {timeout:g} must be a positive number")


def cmd_validate(args: argparse.Namespace) -> int:
    from .fmu.validation import validate

    if not _is_fmu(args.fmu) and Path(args.fmu).suffix.lower() == ".py":
        raise CliError(
            f"validate takes an FMU, not the model file {args.fmu!r}: check a model file with "
            "`symbody info MODEL.py`, or export it with `symbody export MODEL.py -o OUT.fmu` and validate that"
        )
    check_time_range(0.0, args.stop_time)
    _check_timeout(args.timeout)
    report = validate(args.fmu, stop_time=args.stop_time, timeout=args.timeout)
    for line in report.lines():
        print(line)
    return 0 if report.ok else 1


# ---------------------------------------------------------------------------
# running a command: one-line errors, signals
# ---------------------------------------------------------------------------


class Interrupted(KeyboardInterrupt):
    """Raised by the SIGTERM handler so that cleanup (``finally``, temporary files) runs as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum: int, frame: Any) -> None:
    signal.signal(signum, signal.SIG_IGN)  # a second signal must not interrupt the cleanup
    raise Interrupted(signum)


@contextmanager
def _signals_interrupt() -> Iterator[None]:
    """SIGTERM (and SIGHUP) raise :class:`Interrupted` while a command runs; the previous handlers come back."""
    names = [n for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    previous = {}
    try:
        for name in names:
            number = getattr(signal, name)
            previous[number] = signal.signal(number, _raise_interrupted)
    except ValueError:  # not the main thread: signals cannot be handled here
        pass
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings (a redundant constraint, ...) as one line, like errors."""
    text = str(message).strip().splitlines()
    print(f"symbody: warning: {text[0] if text else category.__name__}", file=file or sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``symbody``; returns the exit status (0 success, 1 error, 2 usage, 128 + signal when interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        if not args.debug:
            warnings.showwarning = _show_warning
        return _run_command(args)


def _error_line(e: BaseException) -> str:
    message = str(e).strip().splitlines()
    text = message[0].rstrip(":") if message else type(e).__name__
    if len(message) > 1:
        text += " (run with --debug for details)"
    if not isinstance(e, (SymbodyError, OSError)):
        text = f"{type(e).__name__}: {text}"
    return text


def _run_command(args: argparse.Namespace) -> int:
    try:
        with _signals_interrupt():
            return args.handler(args)
    except Interrupted as e:
        print(f"symbody: terminated by {signal.Signals(e.signum).name}", file=sys.stderr)
        return 128 + e.signum
    except KeyboardInterrupt:
        print("symbody: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a command that stopped reading (head)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except SystemExit as e:  # code the command ran (a model file's sys.exit) must not end symbody silently
        if args.debug:
            traceback.print_exc()
        print(f"symbody: error: sys.exit({e.code!r}) was called while running {args.command}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - every error becomes one clear line
        if args.debug:
            traceback.print_exc()
        else:
            print(f"symbody: error: {_error_line(e)}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
