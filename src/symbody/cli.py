"""The ``symbody`` command line: export, info, simulate, validate.

::

    symbody export MODEL.py -o OUT.fmu [--fmi 2|3] [--kind cs|me|both] [--backend c|python] [--option k=v ...]
    symbody info MODEL.py [--option k=v ...] [--json]
    symbody simulate MODEL.py|OUT.fmu [--stop-time T] [--interval H] [--kind cs|me] [--method rk4|dopri5|rosenbrock23]
                     [--solver CVode|Euler] [--rtol R] [--set name=value ...] [--output NAME ...] [-o OUT.csv]
                     [--plot OUT.png | --no-plot] [--fmi 2|3] [--option k=v ...]
    symbody validate OUT.fmu [--stop-time T]

Errors print one line on stderr (``symbody: error: ...``) and exit with status
1; ``--debug`` shows the traceback instead.  Warnings print one line too
(``symbody: warning: ...``).  Files are written atomically: a failed or
interrupted command leaves no partial file and an existing one intact.

Example:
    >>> main(["info", "examples/simple_pendulum.py", "--json"])  # doctest: +SKIP
    0
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .errors import SymbodyError


class CliError(SymbodyError):
    """A usage problem found after parsing (bad combination of options, unreadable file)."""


# ---------------------------------------------------------------------------
# parser
# ---------------------------------------------------------------------------


def _model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="option passed to the model's build(**options); VALUE is a Python literal (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``symbody``."""
    parser = argparse.ArgumentParser(
        prog="symbody",
        description="Symbolic multibody preprocessor: equations of motion and native FMUs from a model file.",
    )
    parser.add_argument("--version", action="version", version=f"symbody {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("export", help="export a model file as an FMU")
    p.add_argument("model", help="model file (Python, defines build(**options))")
    p.add_argument("-o", "--output", required=True, help="FMU file to write")
    p.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version (default 2)")
    p.add_argument(
        "--kind", choices=("cs", "me", "both"), default=None, help="interfaces (default: both for c, cs for python)"
    )
    p.add_argument("--backend", choices=("c", "python"), default="c", help="native C (default) or pythonfmu")
    _model_options(p)

    p = sub.add_parser("info", help="sizes, symbols and operation counts of a model")
    p.add_argument("model", help="model file")
    p.add_argument("--json", action="store_true", help="print JSON")
    _model_options(p)

    p = sub.add_parser("simulate", help="simulate a model file or an FMU with fmpy (CSV and PNG out)")
    p.add_argument("model", help="model file (.py, exported on the fly) or FMU (.fmu)")
    p.add_argument("--stop-time", type=float, default=None, help="end time (default: the FMU's default experiment)")
    p.add_argument("--interval", type=float, default=None, help="output interval / communication step")
    p.add_argument("--kind", choices=("cs", "me"), default=None, help="Co-Simulation (default) or Model Exchange")
    p.add_argument("--method", choices=("rk4", "dopri5", "rosenbrock23"), default=None, help="Co-Simulation solver")
    p.add_argument("--solver", choices=("CVode", "Euler"), default="CVode", help="Model Exchange solver (fmpy)")
    p.add_argument("--rtol", type=float, default=None, help="relative tolerance")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="start value (repeatable)")
    p.add_argument("--output", action="append", default=None, metavar="NAME", help="variable to record (repeatable)")
    p.add_argument("-o", "--csv", default=None, help="CSV file to write (default: <name>.csv)")
    p.add_argument("--plot", default=None, help="PNG file to write (default: next to the CSV)")
    p.add_argument("--no-plot", action="store_true", help="do not write a plot")
    p.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version when exporting a model file")
    _model_options(p)

    p = sub.add_parser("validate", help="validate an FMU (fmpy validation and a simulation smoke test)")
    p.add_argument("fmu", help="FMU file")
    p.add_argument("--stop-time", type=float, default=1.0, help="end time of the smoke simulations (default 1)")
    return parser


# ---------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------


def _load(model: str, options: list[str]):
    from .loader import load_model, parse_options

    return load_model(model, **parse_options(options))


def _parse_values(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise CliError(f"--set {item!r} is not of the form NAME=VALUE")
        name, value = item.split("=", 1)
        text = value.strip()
        if text.lower() in ("true", "false"):
            out[name.strip()] = text.lower() == "true"
            continue
        try:
            number = float(text)
        except ValueError:
            raise CliError(f"--set {item!r}: {value!r} is not a number") from None
        out[name.strip()] = int(number) if text.lstrip("+-").isdigit() else number
    return out


def cmd_export(args: argparse.Namespace) -> int:
    from .fmu import export_fmu

    out = Path(args.output)
    if out.suffix.lower() != ".fmu":
        raise CliError(f"output {str(out)!r} must end in .fmu")
    system = _load(args.model, args.option)
    path = export_fmu(system, out, fmi_version=args.fmi, kind=args.kind, backend=args.backend, progress=True)
    print(f"wrote {path}")
    return 0


def _info(eq) -> dict[str, Any]:
    st = dict(eq.stats())
    st["coordinate_names"] = [c.name for c in eq.coordinates]
    st["constraint_names"] = [r.name for r in eq.constraint_rows]
    st["parameter_names"] = [p.name for p in eq.parameters]
    st["input_names"] = [u.name for u in eq.inputs]
    st["output_names"] = [o.name for o in eq.outputs]
    return st


def cmd_info(args: argparse.Namespace) -> int:
    eq = _load(args.model, args.option).derive(progress=True)
    st = _info(eq)
    if args.json:
        print(json.dumps(st, indent=2, default=float))
        return 0
    ops = st["ops"]

    def names(key: str, limit: int = 8) -> str:
        items = st[key]
        more = f", ... ({len(items)})" if len(items) > limit else ""
        return f" ({', '.join(items[:limit])}{more})" if items else ""

    print(f"{st['name']}" + (f": {eq.description}" if eq.description else ""))
    print(f"  coordinates  {st['coordinates']}{names('coordinate_names')}")
    print(
        f"  constraints  {st['constraints']} ({st['holonomic']} holonomic, {st['nonholonomic']} non-holonomic), "
        f"dof {st['dof']}"
    )
    print(f"  parameters   {st['parameters']}{names('parameter_names')}")
    print(f"  inputs       {st['inputs']}{names('input_names')}")
    print(f"  outputs      {st['outputs']}{names('output_names')}")
    print(f"  atoms        {st['atoms']}")
    print("  operations   " + ", ".join(f"{k} {ops[k]}" for k in ("M", "delta", "M_delta", "Phi", "Phi_q", "gamma")))
    print(f"  derived in   {st['derive_seconds']:.3g} s")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from .fmu import export_fmu
    from .fmu.run import plot, simulate, write_csv

    src = Path(args.model)
    start = _parse_values(args.set)
    with tempfile.TemporaryDirectory(prefix="symbody_sim_") as tmp:
        if src.suffix.lower() == ".fmu":
            if not src.is_file():
                raise CliError(f"FMU {str(src)!r} not found")
            if args.option:
                raise CliError("--option applies to model files, not to FMUs")
            fmu = src
        else:
            system = _load(args.model, args.option)
            kind = "cs" if (args.kind or "cs") == "cs" else "me"
            fmu = export_fmu(system, Path(tmp) / f"{system.name}.fmu", fmi_version=args.fmi, kind=kind, progress=True)
        res = simulate(
            fmu,
            kind=args.kind,
            stop_time=args.stop_time,
            interval=args.interval,
            solver=args.solver,
            method=args.method,
            rtol=args.rtol,
            start_values=start,
            outputs=args.output,
        )
    csv = Path(args.csv) if args.csv else Path(src.stem + ".csv")
    write_csv(res, csv)
    print(f"wrote {csv} ({len(res)} rows, {len(res.dtype.names) - 1} variables)")
    if not args.no_plot:
        png = Path(args.plot) if args.plot else csv.with_suffix(".png")
        plot(res, png, title=src.stem)
        print(f"wrote {png}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from .fmu.run import validate

    report = validate(args.fmu, stop_time=args.stop_time)
    for line in report.lines():
        print(line)
    return 0 if report.ok else 1


COMMANDS = {"export": cmd_export, "info": cmd_info, "simulate": cmd_simulate, "validate": cmd_validate}


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings (a redundant constraint, ...) as one line, like errors."""
    text = str(message).strip().splitlines()
    print(f"symbody: warning: {text[0] if text else category.__name__}", file=file or sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``symbody``; returns the exit status (0 success, 1 error, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        if not args.debug:
            warnings.showwarning = _show_warning
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int:
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("symbody: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a command that stopped reading (head)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # noqa: BLE001 - every error becomes one clear line
        if args.debug:
            traceback.print_exc()
        else:
            message = str(e).strip().splitlines()
            text = message[0].rstrip(":") if message else type(e).__name__
            if len(message) > 1:
                text += " (run with --debug for details)"
            if not isinstance(e, (SymbodyError, OSError)):
                text = f"{type(e).__name__}: {text}"
            print(f"symbody: error: {text}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
