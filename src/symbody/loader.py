"""Loading model files: a Python file defining ``build(**options) -> symbody.System``.

A model file's failure is reported as a :class:`ModelFileError` that names the
file and what went wrong: missing file, an exception on import or inside
``build()`` (with the file and line where it was raised), options that do not
match ``build``'s signature, ``sys.exit()`` called by the model, or a result
that is not a :class:`symbody.System`.

Example:
    >>> from symbody.loader import parse_options
    >>> parse_options(["n=5", "spring=false", "name=crane"])
    {'n': 5, 'spring': False, 'name': 'crane'}
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .cli_args import ArgumentError, parse_model_options
from .errors import ModelError


class ModelFileError(ModelError):
    """A model file is missing, fails to import or does not define ``build``."""


def parse_options(items: Sequence[str] | None, build: Any = None) -> dict[str, Any]:
    """Parse ``key=value`` strings (see :func:`symbody.cli_args.parse_model_options`)."""
    try:
        return parse_model_options(items, build)
    except ArgumentError as e:
        raise ModelFileError(str(e).replace("NAME=VALUE", "key=value")) from None


def _where(error: BaseException, path: Path) -> str:
    """``file:line`` of the innermost frame of ``error``'s traceback in the model file (or anywhere)."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    target = str(path.resolve())
    inside = [f for f in frames if f.filename and Path(f.filename).resolve().as_posix() == Path(target).as_posix()]
    frame = (inside or frames)[-1]
    return f"{Path(frame.filename).name}:{frame.lineno}"


def _exit_text(error: SystemExit) -> str:
    return f"sys.exit({error.code!r})" if error.code is not None else "sys.exit()"


def load_module(path: str | Path):
    """Import a model file as a module."""
    p = Path(path)
    if not p.is_file():
        raise ModelFileError(f"model file {str(p)!r} not found")
    name = f"symbody_model_{p.stem}"
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise ModelFileError(f"cannot import model file {str(p)!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except ModelError:
        raise
    except SystemExit as e:
        raise ModelFileError(f"model file {str(p)!r} called {_exit_text(e)} on import ({_where(e, p)})") from e
    except Exception as e:  # noqa: BLE001 - report any import failure of user code clearly
        raise ModelFileError(f"model file {str(p)!r} raised {type(e).__name__} on import: {e}") from e
    return module


def _check_signature(path: Path, build: Any, options: dict[str, Any]) -> None:
    try:
        signature = inspect.signature(build)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(**options)
    except TypeError as e:
        raise ModelFileError(
            f"model file {str(path)!r}: build{signature} rejected the options {options}: {e}"
        ) from None


def load_model(path: str | Path, **options: Any):
    """Build the :class:`symbody.System` of a model file with the given options."""
    return _build_system(Path(path), load_module(path), options)


def _build_system(path: Path, module: Any, options: dict[str, Any]):
    from .model.system import System

    build = getattr(module, "build", None)
    if not callable(build):
        raise ModelFileError(f"model file {str(path)!r} does not define build(**options)")
    _check_signature(path, build, options)
    try:
        system = build(**options)
    except ModelError:
        raise
    except SystemExit as e:
        raise ModelFileError(f"model file {str(path)!r}: build() called {_exit_text(e)} ({_where(e, path)})") from e
    except Exception as e:  # noqa: BLE001
        raise ModelFileError(
            f"model file {str(path)!r}: build() raised {type(e).__name__}: {e} ({_where(e, path)})"
        ) from e
    if not isinstance(system, System):
        raise ModelFileError(
            f"model file {str(path)!r}: build() returned {type(system).__name__}, not a symbody.System"
        )
    return system


def load_model_file(path: str | Path, option_items: Sequence[str] | None = None):
    """Build a model file's System from ``--option key=value`` strings typed by ``build``'s signature."""
    path = Path(path)
    module = load_module(path)
    options = parse_options(option_items, getattr(module, "build", None))
    return _build_system(path, module, options)
