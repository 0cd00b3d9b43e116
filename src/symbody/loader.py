"""Loading model files: a Python file defining ``build(**options) -> symbody.System``.

Example:
    >>> from symbody.loader import parse_options
    >>> parse_options(["n=5", "spring=False", "name=crane"])
    {'n': 5, 'spring': False, 'name': 'crane'}
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import ModelError


class ModelFileError(ModelError):
    """A model file is missing, fails to import or does not define ``build``."""


def parse_options(items: Sequence[str] | None) -> dict[str, Any]:
    """Parse ``key=value`` strings; values are Python literals (plain strings otherwise)."""
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise ModelFileError(f"option {item!r} is not of the form key=value")
        k, v = item.split("=", 1)
        k = k.strip()
        if not k.isidentifier():
            raise ModelFileError(f"option name {k!r} is not an identifier")
        try:
            out[k] = ast.literal_eval(v)
        except (ValueError, SyntaxError):
            out[k] = v
    return out


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
    except Exception as e:  # noqa: BLE001 - report any import failure of user code clearly
        raise ModelFileError(f"model file {str(p)!r} raised {type(e).__name__} on import: {e}") from e
    return module


def load_model(path: str | Path, **options: Any):
    """Build the :class:`symbody.System` of a model file with the given options."""
    from .model.system import System

    module = load_module(path)
    build = getattr(module, "build", None)
    if not callable(build):
        raise ModelFileError(f"model file {str(path)!r} does not define build(**options)")
    try:
        system = build(**options)
    except ModelError:
        raise
    except TypeError as e:
        raise ModelFileError(f"model file {str(path)!r}: build() rejected the options {options}: {e}") from e
    except Exception as e:  # noqa: BLE001
        raise ModelFileError(f"model file {str(path)!r}: build() raised {type(e).__name__}: {e}") from e
    if not isinstance(system, System):
        raise ModelFileError(
            f"model file {str(path)!r}: build() returned {type(system).__name__}, not a symbody.System"
        )
    return system
