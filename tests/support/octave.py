"""Running generated MATLAB code in GNU Octave from the tests.

``needs_octave`` skips a test when GNU Octave is not installed (CI installs the Debian package
``octave``); :func:`run_octave` runs a script with folders on Octave's path and returns what it
printed; :func:`read_values` reads back the lines ``KEY v1 v2 ...`` that :func:`print_line`
writes in a script.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

OCTAVE = shutil.which("octave-cli") or shutil.which("octave")

needs_octave = pytest.mark.skipif(
    OCTAVE is None, reason="GNU Octave is not installed (CI installs it: Debian package octave)"
)

#: Octave 7 prints this on exit when it runs without a terminal; it is no error of the script
_EXIT_NOISE = "error: ignoring const execution_exception& while preparing to exit"


class OctaveError(AssertionError):
    """The script failed in Octave (an ``error()`` call, a syntax error): its message is Octave's."""


def run_octave(script: str, path: Sequence[Path] = (), timeout: float = 600) -> str:
    """Run ``script`` in Octave with the folders ``path`` added to its path; its standard output.

    Raises:
        OctaveError: Octave exited with a non-zero status (the message holds its error output).
    """
    assert OCTAVE is not None
    head = "".join(f"addpath('{Path(p).resolve().as_posix()}');\n" for p in path)
    with tempfile.TemporaryDirectory(prefix="symbody_octave_") as tmp:
        file = Path(tmp) / "run_script.m"
        file.write_text(head + script, encoding="ascii")
        env = dict(os.environ, HOME=tmp)  # no user configuration, no history file
        proc = subprocess.run(
            [OCTAVE, "--no-gui", "--norc", "--quiet", "--no-history", str(file)],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=tmp,
        )
    errors = "\n".join(line for line in proc.stderr.splitlines() if line.strip() != _EXIT_NOISE)
    if proc.returncode != 0:
        raise OctaveError(f"Octave failed ({proc.returncode}):\n{errors}\n{proc.stdout[-2000:]}")
    return proc.stdout


def print_line(key: str, expression: str) -> str:
    """Octave statement printing ``KEY`` and the values of ``expression`` (all, column-major) at full precision."""
    return f"fprintf('{key}'); fprintf(' %.17g', {expression}); fprintf('\\n');\n"


def read_values(output: str) -> dict[str, np.ndarray]:
    """The lines ``KEY v1 v2 ...`` of ``output`` as arrays (Inf and NaN included)."""
    values: dict[str, np.ndarray] = {}
    for line in output.splitlines():
        parts = line.split()
        if parts and not parts[0][0].isdigit() and all(_is_number(x) for x in parts[1:]):
            values[parts[0]] = np.array([float(x) for x in parts[1:]])
    return values


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def matlab_number(x: float) -> str:
    """A MATLAB literal of ``x`` that parses back to the same double."""
    return repr(float(x)) if np.isfinite(x) else ("NaN" if x != x else ("Inf" if x > 0 else "-Inf"))


def matlab_column(values) -> str:
    """A MATLAB column vector of ``values``."""
    return (
        "[" + "; ".join(matlab_number(v) for v in np.asarray(values, dtype=float).ravel()) + "]"
        if len(values)
        else "zeros(0, 1)"
    )
