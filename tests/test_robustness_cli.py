"""The command line under bad input and failures: one clear line, a non-zero exit, nothing half-written.

* Each kind of failure gets its own message: a missing model file, a model file
  that raises (on import or in ``build()``), one that is malformed, a model the
  derivation rejects, a missing or failing C compiler, a missing output folder.
* ``--debug`` shows the traceback instead of the one line.
* An FMU is written atomically: a failure or an interruption at any stage
  leaves no output file (and no temporary one), an existing file intact, and
  nothing in the compiler cache.
* Warnings are one line too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from fmpy.validation import validate_fmu

from symbody.cli import main

ROOT = Path(__file__).resolve().parents[1]
PENDULUM = str(ROOT / "examples" / "simple_pendulum.py")

GOOD = """
import symbody as sb

def build():
    s = sb.System("good")
    th = s.coordinate("th", 0.2, unit="rad")
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, sb.Vector(B, 0, -1, 0)), 1.0)
    s.gravity((0, -9.81, 0))
    return s
"""

# model file text -> the message its failure must give
BAD_MODELS = {
    "raises_on_import": ("x = 1 / 0\n", "raised ZeroDivisionError on import: division by zero"),
    "syntax_error": ("def build(:\n    pass\n", "raised SyntaxError on import"),
    "build_raises": (
        "def build():\n    raise RuntimeError('no crane today')\n",
        "build() raised RuntimeError: no crane today",
    ),
    "no_build": ("x = 1\n", "does not define build(**options)"),
    "build_returns_wrong_type": ("def build():\n    return 42\n", "build() returned int, not a symbody.System"),
    "build_rejects_options": ("def build():\n    pass\n", "build() rejected the options {'n': 3}"),
    "model_error_in_build": (
        "import symbody as sb\ndef build():\n    s = sb.System('m')\n    s.parameter('k')\n    s.parameter('k')\n",
        "duplicate name 'k'",
    ),
    "input_never_used": (
        GOOD.replace("    return s\n", '    s.input("u", unit="N")\n    return s\n'),
        "input 'u' is never used",
    ),
    "unit_mismatch": (
        GOOD.replace(
            "    return s\n", '    s.generalized_force("motor", th, s.parameter("m", 1.0, unit="kg"))\n    return s\n'
        ),
        "unit mismatch in the equation of coordinate 'th'",
    ),
    "coordinate_in_no_equation": (
        GOOD.replace("    return s\n", '    s.coordinate("idle", 0.0, unit="m")\n    return s\n'),
        "coordinate 'idle' appears in no equation",
    ),
}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("symbody: error: ") and "Traceback" not in err
    return lines[0]


def folder_listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("case", sorted(BAD_MODELS))
def test_each_model_file_problem_gets_its_own_message(case, tmp_path, capsys):
    text, expected = BAD_MODELS[case]
    model = tmp_path / f"{case}.py"
    model.write_text(text)
    options = ["--option", "n=3"] if case == "build_rejects_options" else []
    out = tmp_path / "out.fmu"
    code, stdout, err = run(capsys, "export", str(model), "-o", str(out), *options)
    assert code == 1 and stdout == ""
    assert expected in one_error_line(err)
    assert folder_listing(tmp_path) == [model.name]  # no FMU, no temporary file
    code, _, err = run(capsys, "info", str(model), *options)
    assert code == 1 and expected in one_error_line(err)
    code, _, err = run(capsys, "--debug", "export", str(model), "-o", str(out), *options)
    assert code == 1 and "Traceback (most recent call last)" in err and expected.split(":")[0] in err
    assert not out.exists()


def test_a_missing_model_file_is_named(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "crane.py"
    for argv in (["export", str(missing), "-o", str(tmp_path / "c.fmu")], ["info", str(missing)]):
        code, _, err = run(capsys, *argv)
        assert code == 1 and f"model file '{missing}' not found" in one_error_line(err)
    code, _, err = run(capsys, "simulate", str(tmp_path / "missing.fmu"))
    assert code == 1 and "missing.fmu' not found" in one_error_line(err)
    assert folder_listing(tmp_path) == []


def test_a_missing_c_compiler_is_named_and_nothing_is_written(tmp_path, capsys, monkeypatch):
    out = tmp_path / "pendulum.fmu"
    out.write_bytes(b"the previous FMU")
    monkeypatch.setenv("SYMBODY_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    code, _, err = run(capsys, "export", PENDULUM, "-o", str(out))
    line = one_error_line(err)
    assert code == 1 and f"cannot run the C compiler '{tmp_path / 'no-such-cc'}'" in line
    assert "set by the CC environment variable" in line and "No such file or directory" in line
    assert out.read_bytes() == b"the previous FMU"

    monkeypatch.delenv("CC")
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no gcc, cc or clang to find
    code, _, err = run(capsys, "export", PENDULUM, "-o", str(out))
    assert code == 1 and "no C compiler found" in one_error_line(err)
    assert out.read_bytes() == b"the previous FMU"
    assert folder_listing(tmp_path) == ["bin", "pendulum.fmu"]  # no cache entry, no temporary file


def fake_compiler(folder: Path, message: str) -> Path:
    cc = folder / "failing-cc"
    cc.write_text(f"#!/bin/sh\necho '{message}' >&2\nexit 1\n")
    cc.chmod(cc.stat().st_mode | stat.S_IXUSR)
    return cc


@pytest.mark.skipif(os.name != "posix", reason="the failing compiler is a shell script")
def test_compiler_errors_are_one_line_and_the_details_come_with_debug(tmp_path, capsys, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SYMBODY_CACHE", str(cache))
    monkeypatch.setenv("CC", str(fake_compiler(tmp_path, "fatal error: out of memory in the compiler")))
    out = tmp_path / "p.fmu"
    code, _, err = run(capsys, "export", PENDULUM, "-o", str(out))
    line = one_error_line(err)
    assert code == 1 and "compiling the FMU runtime" in line and "(run with --debug for details)" in line
    code, _, err = run(capsys, "--debug", "export", PENDULUM, "-o", str(out))
    assert code == 1 and "fatal error: out of memory in the compiler" in err and "Traceback" in err
    assert not out.exists() and not any(tmp_path.glob(".p.fmu.*"))
    leftovers = [p for p in cache.rglob("*") if p != cache / "objects"]
    assert leftovers == []  # no half-compiled runtime (or its temporary folder) in the cache


@pytest.mark.parametrize("failure", (OSError(28, "No space left on device"), KeyboardInterrupt()))
def test_a_failure_while_writing_leaves_the_previous_fmu_intact(failure, tmp_path, capsys, monkeypatch):
    """Packaging fails half-way (disk full) or the user interrupts: the old FMU stays, no temporary file."""
    import symbody.fmu.build as build

    out = tmp_path / "pendulum.fmu"
    out.write_bytes(b"the previous FMU")
    real = build._zip_dir

    def zip_then_fail(zf, folder, prefix):
        real(zf, folder, prefix)
        raise failure

    monkeypatch.setattr(build, "_zip_dir", zip_then_fail)
    code, _, err = run(capsys, "export", PENDULUM, "-o", str(out))
    if isinstance(failure, KeyboardInterrupt):
        assert code == 130 and err.strip() == "symbody: interrupted"
    else:
        assert code == 1 and "No space left on device" in one_error_line(err)
    assert out.read_bytes() == b"the previous FMU"
    assert folder_listing(tmp_path) == ["pendulum.fmu"]
    monkeypatch.setattr(build, "_zip_dir", real)
    code, _, _ = run(capsys, "export", PENDULUM, "-o", str(out))
    assert code == 0 and validate_fmu(str(out)) == []


def test_bad_output_paths_are_named(tmp_path, capsys):
    code, _, err = run(capsys, "export", PENDULUM, "-o", str(tmp_path / "missing" / "p.fmu"))
    assert code == 1 and "output folder" in one_error_line(err) and "does not exist" in err
    folder = tmp_path / "taken.fmu"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep")
    code, _, err = run(capsys, "export", PENDULUM, "-o", str(folder))
    assert code == 1 and "taken.fmu" in one_error_line(err)
    assert (folder / "keep.txt").read_text() == "keep" and folder_listing(tmp_path) == ["taken.fmu"]


def test_warnings_are_one_line(tmp_path, capsys):
    model = tmp_path / "redundant.py"
    model.write_text(
        GOOD.replace(
            "    return s\n",
            "    x, y = s.coordinate('x', 0.0, unit='m'), s.coordinate('y', 0.0, unit='m')\n"
            "    s.particle('b', s.point('Q', s.origin, (x, y, 0)), 1.0)\n"
            "    s.constraint('c1', x - y)\n"
            "    s.constraint('c2', 2 * x - 2 * y)\n"
            "    return s\n",
        )
    )
    code, out, err = run(capsys, "info", str(model))
    assert code == 0 and "coordinates  3" in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("symbody: warning: ") and "'c2' are redundant" in lines[0]


def test_a_corrupt_fmu_is_an_error_not_a_crash(tmp_path, capsys):
    fmu = tmp_path / "broken.fmu"
    fmu.write_bytes(b"PK\x03\x04 this is not a zip archive")
    code, _, err = run(capsys, "simulate", str(fmu), "-o", str(tmp_path / "r.csv"), "--no-plot")
    assert code == 1 and one_error_line(err)
    assert not (tmp_path / "r.csv").exists()


def test_simulation_results_are_written_atomically(tmp_path, capsys, monkeypatch):
    """A CSV whose writing fails half-way leaves the previous one intact and no temporary file."""
    import numpy as np

    from symbody.fmu.testing import cached_fmu

    fmu = str(cached_fmu(PENDULUM, 2, "cs"))
    csv = tmp_path / "r.csv"
    csv.write_text("previous results\n")
    real = np.savetxt

    def savetxt_then_fail(fname, *args, **kwargs):
        real(fname, *args, **kwargs)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savetxt", savetxt_then_fail)
    code, _, err = run(capsys, "simulate", fmu, "--stop-time", "0.1", "-o", str(csv), "--no-plot")
    assert code == 1 and "No space left on device" in one_error_line(err)
    assert csv.read_text() == "previous results\n" and folder_listing(tmp_path) == ["r.csv"]
    monkeypatch.setattr(np, "savetxt", real)
    code, _, err = run(capsys, "simulate", fmu, "--stop-time", "0.1", "-o", str(tmp_path / "out" / "r.csv"))
    assert code == 1 and "output folder" in one_error_line(err)
    code, _, err = run(capsys, "simulate", fmu, "--stop-time", "0.1", "-o", str(csv))
    assert code == 0 and folder_listing(tmp_path) == ["r.csv", "r.png"]
    assert csv.read_text().startswith("time,") and (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
