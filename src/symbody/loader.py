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

import ast
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from .errors import ArgumentError, ModelError

__all__ = [
    "ModelFileError",
    "load_model",
    "load_model_file",
    "load_module",
    "parse_assignments",
    "parse_bool",
    "parse_model_options",
    "parse_option_value",
    "parse_options",
]


class ModelFileError(ModelError):
    """A model file is missing, fails to import or does not define ``build``."""


TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")


def parse_bool(text: str, what: str = "value") -> bool:
    """``true/yes/on/1`` or ``false/no/off/0`` (case-insensitive); anything else is refused.

    >>> parse_bool("TRUE"), parse_bool("0")
    (True, False)
    """
    word = str(text).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ArgumentError(f"{what} {text!r} is not a boolean: use true/false, yes/no, on/off or 1/0")


def _declared_type(parameter: inspect.Parameter | None) -> type | None:
    """``bool`` (by annotation or default), ``int`` or ``float`` (by annotation) when ``build`` declares it."""
    if parameter is None:
        return None
    by_name = {"bool": bool, "int": int, "float": float}
    annotation = parameter.annotation
    if isinstance(parameter.default, bool) or annotation == "bool":
        return bool
    if annotation in (bool, int, float):
        return annotation
    return by_name.get(annotation) if isinstance(annotation, str) else None


def _number(key: str, text: str, kind: type) -> int | float:
    """``TEXT`` as the ``int`` or ``float`` a parameter of ``build`` declares; booleans and other text refused."""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        value = None
    if kind is int and type(value) is int:
        return value
    if kind is float and type(value) in (int, float):
        return float(value)
    wanted = "an integer" if kind is int else "a number"
    raise ArgumentError(f"--option {key}: {text!r} is not {wanted} (build() declares {key}: {kind.__name__})")


def parse_option_value(key: str, text: str, parameter: inspect.Parameter | None = None) -> Any:
    """The value of ``--option KEY=TEXT``.

    A parameter of ``build`` declared ``bool`` (by annotation or default) takes
    only boolean words (:func:`parse_bool`); one annotated ``int`` takes only an
    integer, one annotated ``float`` only a number (``theta0=true`` is refused,
    not taken as 1).  Otherwise ``TEXT`` is a Python literal; ``true``/``false``
    in any case are booleans; anything else stays a string.

    >>> parse_option_value("n", "[1, 2]"), parse_option_value("name", "crane"), parse_option_value("k", "FALSE")
    ([1, 2], 'crane', False)
    """
    declared = _declared_type(parameter)
    if declared is bool:
        return parse_bool(text, f"--option {key}:")
    if declared in (int, float):
        return _number(key, text, declared)
    stripped = text.strip()
    if stripped.lower() in ("true", "false"):
        return stripped.lower() == "true"
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def parse_assignments(items: Iterable[str] | None, flag: str, form: str = "NAME=VALUE") -> dict[str, str]:
    """``NAME=VALUE`` strings into ``{NAME: VALUE}`` (text, stripped); a repeated name is refused.

    >>> parse_assignments(["m=2", "solver.method = rk4"], "--set")
    {'m': '2', 'solver.method': 'rk4'}
    """
    out: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ArgumentError(f"{flag} {item!r} is not of the form {form}")
        if name in out:
            raise ArgumentError(f"{flag} {name} is given twice")
        out[name] = value.strip()
    return out


def parse_model_options(items: Iterable[str] | None, build: Callable[..., Any] | None = None) -> dict[str, Any]:
    """``--option KEY=VALUE`` items as keyword arguments of ``build`` (typed by its signature when given).

    >>> def build(n: int = 2, spring: bool = True): ...
    >>> parse_model_options(["n=3", "spring=no"], build)
    {'n': 3, 'spring': False}
    """
    texts = parse_assignments(items, "--option", "key=value")
    parameters: dict[str, inspect.Parameter] = {}
    if build is not None:
        try:
            parameters = dict(inspect.signature(build).parameters)
        except (TypeError, ValueError):
            parameters = {}
    out = {}
    for key, text in texts.items():
        if not key.isidentifier():
            raise ArgumentError(f"--option name {key!r} is not an identifier")
        out[key] = parse_option_value(key, text, parameters.get(key))
    return out


def parse_options(items: Sequence[str] | None, build: Any = None) -> dict[str, Any]:
    """Parse ``key=value`` strings (see :func:`parse_model_options`)."""
    try:
        return parse_model_options(items, build)
    except ArgumentError as e:
        raise ModelFileError(str(e)) from None


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
