"""The wheel check of CI (``.ci/check_wheel.py``) finds what a wheel misses and what it should not hold.

The wheels here are written by the test from the source tree (no build): one with exactly the
package's files passes, and each defect is reported by name.
"""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path

import pytest

from support import ROOT

spec = importlib.util.spec_from_file_location("check_wheel", ROOT / ".ci" / "check_wheel.py")
assert spec is not None and spec.loader is not None
check_wheel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_wheel)


def source_of(name: str) -> Path:
    """The source file of a path inside the wheel."""
    rel = name.removeprefix("symbody/")
    if rel.startswith("fmu/templates/"):
        return ROOT / "fmu_templates" / rel.removeprefix("fmu/templates/")
    return ROOT / "src" / "symbody" / rel


def write_wheel(path: Path, leave_out: tuple[str, ...] = (), extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name in sorted(check_wheel.expected_files()):
            if name not in leave_out:
                zf.writestr(name, source_of(name).read_bytes())
        zf.writestr("symbody-0.0.0.dist-info/METADATA", "Name: symbody\n")
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return path


def test_the_expected_files_are_the_package_and_its_data():
    expected = check_wheel.expected_files()
    assert {
        "symbody/__init__.py",
        "symbody/py.typed",
        "symbody/fmu/templates/fmi2Functions.c",
        "symbody/fmu/fmi_headers/fmi3Functions.h",
        "symbody/fmu/fmi_headers/LICENSE.txt",
        "symbody/viz/page.html",
        "symbody/viz/vendor/three.module.min.js",
    } <= expected
    assert all(source_of(name).is_file() for name in expected)


def test_a_complete_wheel_passes(tmp_path):
    assert check_wheel.content_problems(write_wheel(tmp_path / "symbody-0.0.0-py3-none-any.whl")) == []


@pytest.mark.parametrize(
    ("leave_out", "extra", "problem"),
    [
        (("symbody/numeric/modes.py",), {}, "missing: symbody/numeric/modes.py"),
        (("symbody/fmu/templates/sb_solver.c",), {}, "missing: symbody/fmu/templates/sb_solver.c"),
        (("symbody/py.typed",), {}, "missing: symbody/py.typed"),
        ((), {"tests/test_cli.py": b""}, "outside the package: tests/test_cli.py"),
        ((), {"symbody/__pycache__/cli.cpython-311.pyc": b""}, "stray file: symbody/__pycache__/cli.cpython-311.pyc"),
        ((), {"symbody/fmu/templates/sb_runtime.o": b""}, "stray file: symbody/fmu/templates/sb_runtime.o"),
        ((), {"symbody/notes.txt": b""}, "unexpected file (not in the source tree's package data): symbody/notes.txt"),
        ((), {"symbody/viz/vendor/big.js": b"x" * 1_500_000}, "large file (1.5 MB): symbody/viz/vendor/big.js"),
    ],
)
def test_each_defect_is_named(tmp_path, leave_out, extra, problem):
    wheel = write_wheel(tmp_path / "symbody-0.0.0-py3-none-any.whl", leave_out, extra)
    assert problem in check_wheel.content_problems(wheel)


def test_the_command_fails_naming_the_problem(tmp_path, capsys):
    write_wheel(tmp_path / "symbody-0.0.0-py3-none-any.whl", ("symbody/units.py",))
    assert check_wheel.main([str(tmp_path), "--no-install"]) == 1
    assert "missing: symbody/units.py" in capsys.readouterr().err
    assert check_wheel.main([str(tmp_path / "nothing-here")]) == 2
