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
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from fmpy.validation import validate_fmu

from symbody.cli import main
from symbody.fmu.testing import cached_fmu

ROOT = Path(__file__).resolve().parents[2]
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
    "build_exits": ("import sys\n\ndef build():\n    sys.exit()\n", "build() called sys.exit() (build_exits.py:4)"),
    "build_exits_on_import": ("import sys\nsys.exit(3)\n", "called sys.exit(3) on import (build_exits_on_import.py:2)"),
    "type_error_inside_build": (
        "def build(n=2):\n    return len(n)\n",
        "build() raised TypeError: object of type 'int' has no len() (type_error_inside_build.py:2)",
    ),
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
    options = ["--option", "n=3"] if case in ("build_rejects_options", "type_error_inside_build") else []
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
        # the last line (a progress bar may precede it when the export takes more than a second)
        assert code == 130 and err.strip().splitlines()[-1] == "symbody: interrupted"
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


# ---------------------------------------------------------------------------
# signals, output paths, arguments checked before any work
# ---------------------------------------------------------------------------


def hanging_compiler(folder: Path, marker: Path) -> Path:
    """A C compiler that says it started, then never finishes."""
    cc = folder / "hanging-cc"
    cc.write_text(f"#!/bin/sh\ntouch '{marker}'\nexec sleep 60\n")
    cc.chmod(cc.stat().st_mode | stat.S_IXUSR)
    return cc


@pytest.mark.skipif(os.name != "posix", reason="signals and a shell-script compiler")
@pytest.mark.parametrize("signum", (signal.SIGTERM, signal.SIGINT))
def test_a_signal_during_export_leaves_no_file_and_no_temporary_folder(signum, tmp_path):
    """SIGTERM used to kill symbody on the spot: the temporary build folder stayed behind."""
    tmp, cache, out = tmp_path / "tmp", tmp_path / "cache", tmp_path / "out"
    for folder in (tmp, cache, out):
        folder.mkdir()
    marker = tmp_path / "compiler-started"
    env = dict(os.environ, TMPDIR=str(tmp), SYMBODY_CACHE=str(cache), CC=str(hanging_compiler(tmp_path, marker)))
    cmd = [sys.executable, "-m", "symbody", "export", PENDULUM, "-o", str(out / "p.fmu")]
    proc = subprocess.Popen(
        cmd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a background shell ignores SIGINT
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), proc.communicate()[1]
        assert any(tmp.iterdir()) or any(cache.rglob("*.*")), "the export should be half-way"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signum
    assert len(err.strip().splitlines()) == 1 and err.startswith("symbody: ") and "Traceback" not in err
    assert list(out.iterdir()) == [] and list(tmp.iterdir()) == []
    assert [p for p in cache.rglob("*") if p.is_file()] == []


def test_an_output_folder_is_refused_before_the_model_is_built(tmp_path, capsys):
    model = tmp_path / "slow.py"
    model.write_text("def build():\n    raise RuntimeError('the model was built')\n")
    (tmp_path / "existing.fmu").mkdir()
    for target in (str(tmp_path / "newdir.fmu") + "/", str(tmp_path / "existing.fmu"), str(tmp_path)):
        code, _, err = run(capsys, "export", str(model), "-o", target)
        line = one_error_line(err)
        assert code == 1 and "is a folder" in line and "built" not in line
    code, _, err = run(capsys, "export", str(model), "-o", str(tmp_path / "missing" / "m.fmu"))
    assert code == 1 and "does not exist" in one_error_line(err) and "built" not in err
    code, _, err = run(capsys, "simulate", str(model), "-o", str(tmp_path) + "/")
    assert code == 1 and "is a folder" in one_error_line(err) and "built" not in err
    code, _, err = run(capsys, "simulate", str(model), "--plot", str(tmp_path / "existing.fmu"))
    assert code == 1 and "--plot" in one_error_line(err) and "built" not in err
    assert folder_listing(tmp_path) == ["existing.fmu", "slow.py"]
    assert list((tmp_path / "existing.fmu").iterdir()) == []


@pytest.mark.parametrize(
    "argv, message",
    (
        (["--stop-time", "-1"], "--stop-time -1 must be later than the start time 0"),
        (["--stop-time", "0"], "--stop-time 0 must be later"),
        (["--stop-time", "nan"], "--stop-time nan is not a finite number"),
        (["--stop-time", "inf"], "--stop-time inf is not a finite number"),
        (["--start-time", "2", "--stop-time", "1"], "--stop-time 1 must be later than the start time 2"),
        (["--stop-time", "1", "--interval", "0"], "--interval 0 must be positive"),
        (["--stop-time", "1", "--interval", "-0.1"], "--interval -0.1 must be positive"),
        (["--interval", "-0.1"], "--interval -0.1 must be positive"),
        (["--stop-time", "1", "--interval", "5"], "--interval 5 is longer than the simulated time"),
        (["--rtol=-1e-6"], "--rtol -1e-06 must be a positive number"),
        (["--kind", "me", "--method", "rk4"], "with --kind me fmpy integrates"),
        (["--kind", "me", "--set", "solver.step=0.1"], "--set solver.step sets the Co-Simulation FMU's solver"),
        (["--solver", "Euler"], "use it with --kind me"),
        (["--set", "novalue"], "is not of the form NAME=VALUE"),
        (["--input-file", "/nonexistent/inputs.csv"], "--input-file '/nonexistent/inputs.csv' not found"),
    ),
)
def test_bad_simulation_arguments_are_refused_before_any_work(argv, message, tmp_path, capsys):
    model = tmp_path / "never_built.py"
    model.write_text("def build():\n    raise RuntimeError('the model was built')\n")
    for source in (str(model), str(cached_fmu(PENDULUM, 2, "both"))):
        code, _, err = run(capsys, "simulate", source, *argv, "-o", str(tmp_path / "r.csv"))
        assert code == 1 and message in one_error_line(err)
    assert folder_listing(tmp_path) == ["never_built.py"]


def test_unknown_names_write_nothing_and_suggest_close_ones(tmp_path, capsys):
    fmu = str(cached_fmu(PENDULUM, 2, "both"))
    csv = str(tmp_path / "r.csv")
    code, _, err = run(capsys, "simulate", fmu, "--output", "theta", "--output", "thetta", "-o", csv)
    line = one_error_line(err)
    assert code == 1 and "--output 'thetta': no such variable (did you mean theta" in line
    code, _, err = run(capsys, "simulate", fmu, "--set", "lenght=2", "-o", csv)
    assert code == 1 and "--set 'lenght'" in one_error_line(err)
    code, _, err = run(capsys, "simulate", fmu, "--set", "l=long", "-o", csv)
    assert code == 1 and "--set l: 'long' is not a number" in one_error_line(err)
    code, _, err = run(capsys, "simulate", fmu, "--set", "solver.method=euler", "-o", csv)
    assert code == 1 and "rk4 (1), dopri5 (2), rosenbrock23 (3)" in one_error_line(err)
    assert folder_listing(tmp_path) == []


def test_validate_and_info_name_what_they_take(tmp_path, capsys):
    code, _, err = run(capsys, "validate", PENDULUM)
    line = one_error_line(err)
    assert code == 1 and "validate takes an FMU" in line and "symbody info MODEL.py" in line
    assert "BadZipFile" not in err
    fake = tmp_path / "fake.fmu"
    fake.write_text("not a zip")
    for argv in (["validate", str(fake)], ["info", str(fake)], ["simulate", str(fake)]):
        code, _, err = run(capsys, *argv)
        assert code == 1 and "is not an FMU (not a zip archive)" in one_error_line(err)
    code, _, err = run(capsys, "info", str(cached_fmu(PENDULUM, 2, "cs")), "--option", "n=2")
    assert code == 1 and "--option applies to model files" in one_error_line(err)


def test_debug_is_accepted_after_the_command(tmp_path, capsys):
    missing = str(tmp_path / "missing.py")
    for argv in (["info", missing, "--debug"], ["info", "--debug", missing], ["--debug", "info", missing]):
        code, _, err = run(capsys, *argv)
        assert code == 1 and "Traceback (most recent call last)" in err and "missing.py" in err
    code, _, err = run(capsys, "info", missing)
    assert code == 1 and "Traceback" not in err


# ---------------------------------------------------------------------------
# an FMU that cannot go on: the CLI ends with one line, whatever the master does
# ---------------------------------------------------------------------------


class AlarmError(Exception):
    pass


@pytest.fixture
def alarm():
    """Fail (instead of hanging the suite) if a command runs longer than 60 s."""

    def ring(signum, frame):
        raise AlarmError("the command did not end")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.skipif(os.name != "posix", reason="SIGALRM guards the test against a hang")
@pytest.mark.parametrize("command", ("simulate", "validate"))
def test_an_fmu_that_keeps_discarding_ends_with_one_line(command, tmp_path, capsys, monkeypatch, alarm):
    """After an unrecoverable Discard an FMI 2 master asks fmi2Terminated; a false answer used to spin forever."""
    from fmpy.fmi1 import FMICallException
    from fmpy.fmi2 import FMU2Slave, fmi2Discard, fmi2Error

    from symbody.fmu.testing import cached_fmu as built

    real_step = FMU2Slave.doStep

    def step_then_discard(self, currentCommunicationPoint, communicationStepSize, **kw):
        if currentCommunicationPoint >= 0.1:
            self.callbacks.logger(None, b"instance", fmi2Error, b"logError", b"state blew up at t = 0.1")
            raise FMICallException(function="fmi2DoStep", status=fmi2Discard)
        return real_step(self, currentCommunicationPoint, communicationStepSize, **kw)

    monkeypatch.setattr(FMU2Slave, "doStep", step_then_discard)
    monkeypatch.setattr(FMU2Slave, "getBooleanStatus", lambda self, kind: False)
    fmu = str(built(PENDULUM, 2, "cs"))
    argv = [command, fmu, "--stop-time", "1"] + (["-o", str(tmp_path / "r.csv")] if command == "simulate" else [])
    code, out, err = run(capsys, *argv)
    assert code == 1
    if command == "simulate":
        line = one_error_line(err)
        assert "makes no progress at t = 0.1" in line and "state blew up" in line
        assert folder_listing(tmp_path) == []
    else:
        # the FMU refuses every step of every solver setting, with its own message: no setting runs it
        assert "FAIL Co-Simulation: no solver setting tried simulates the model" in out
        assert "--   Co-Simulation, rk4: " in out and "makes no progress at t = 0.1" in out


@pytest.mark.skipif(os.name != "posix", reason="SIGALRM guards the test against a hang")
def test_an_fmu_that_terminates_early_is_an_error_not_a_short_result(tmp_path, capsys, monkeypatch, alarm):
    """A master that stops at fmi2Terminated = true must not hand back a result that ends before the stop time."""
    from fmpy.fmi1 import FMICallException
    from fmpy.fmi2 import FMU2Slave, fmi2Discard

    real_step = FMU2Slave.doStep

    def step_then_discard(self, currentCommunicationPoint, communicationStepSize, **kw):
        if currentCommunicationPoint >= 0.2:
            raise FMICallException(function="fmi2DoStep", status=fmi2Discard)
        return real_step(self, currentCommunicationPoint, communicationStepSize, **kw)

    monkeypatch.setattr(FMU2Slave, "doStep", step_then_discard)
    monkeypatch.setattr(FMU2Slave, "getBooleanStatus", lambda self, kind: True)
    monkeypatch.setattr(FMU2Slave, "getRealStatus", lambda self, kind: 0.2)
    fmu = str(cached_fmu(PENDULUM, 2, "cs"))
    code, _, err = run(capsys, "simulate", fmu, "--stop-time", "1", "-o", str(tmp_path / "r.csv"))
    assert code == 1 and "the FMU stopped at t = 0.2 s, before the stop time 1 s" in one_error_line(err)
    assert folder_listing(tmp_path) == []


def test_a_wall_clock_limit_stops_a_slow_run(tmp_path, capsys, monkeypatch):
    from fmpy.fmi2 import FMU2Slave

    real_step = FMU2Slave.doStep

    def slow_step(self, *args, **kw):
        time.sleep(0.02)
        return real_step(self, *args, **kw)

    monkeypatch.setattr(FMU2Slave, "doStep", slow_step)
    fmu = str(cached_fmu(PENDULUM, 2, "cs"))
    code, _, err = run(capsys, "simulate", fmu, "--stop-time", "10", "--timeout", "0.3", "-o", str(tmp_path / "r.csv"))
    assert code == 1 and "after the time limit of 0.3 s (--timeout)" in one_error_line(err)
    assert folder_listing(tmp_path) == []


@pytest.mark.skipif(os.name != "posix", reason="SIGALRM guards the test against a hang")
def test_a_real_fmu_whose_solver_gives_up_ends_with_one_line(tmp_path, capsys, alarm):
    """dopri5 asked for 1e-15 cannot take a step: the FMU discards, and symbody used to spin at 100 % CPU."""
    fmu = str(cached_fmu(PENDULUM, 2, "cs"))
    impossible = ["--set", "solver.rtol=1e-15", "--set", "solver.atol=1e-30", "--method", "dopri5"]
    csv = tmp_path / "r.csv"
    code, _, err = run(capsys, "simulate", fmu, "--stop-time", "1", *impossible, "-o", str(csv))
    line = one_error_line(err)
    assert code == 1 and "dopri5 step size underflow" in line
    assert "makes no progress at t = 0 s" in line or "the FMU stopped at t = 0 s" in line
    assert folder_listing(tmp_path) == []


def test_validate_takes_any_stop_time(capsys):
    code, out, err = run(capsys, "validate", str(cached_fmu(PENDULUM, 2, "both")), "--stop-time", "0.333")
    assert code == 0, out + err
    assert "FAIL" not in out and out.count(": 34 steps") == 5  # 3 CS methods and 2 ME solvers, to 0.333 s


@pytest.mark.slow  # long: with --slow (CI)
def test_validate_has_a_timeout(capsys):
    """``validate --stop-time 1e6`` ran its five smoke simulations for many minutes with no way to bound them:
    ``--timeout`` fails each one that runs longer, with the reason."""
    fmu = str(cached_fmu(PENDULUM, 2, "both"))
    code, out, err = run(capsys, "validate", fmu, "--stop-time", "1e6", "--timeout", "0.3")
    assert code == 1, out + err
    assert out.count("after the time limit of 0.3 s (--timeout)") == 5, out
    code, _, err = run(capsys, "validate", fmu, "--timeout", "-1")
    assert code == 1 and "--timeout -1 must be a positive number" in one_error_line(err)


def test_output_time_alone_is_refused_before_writing(tmp_path, capsys):
    """``--output time`` wrote a CSV with only the time column, then failed with 'nothing to plot'."""
    fmu = str(cached_fmu(PENDULUM, 2, "both"))
    for extra in ([], ["--no-plot"]):
        code, _, err = run(
            capsys, "simulate", fmu, "--output", "time", "--stop-time", "0.1", "-o", str(tmp_path / "r.csv"), *extra
        )
        assert code == 1 and "--output 'time': the time is always the first column" in one_error_line(err)
        assert folder_listing(tmp_path) == []
    code, _, err = run(capsys, "simulate", fmu, "--output", "x", "--stop-time", "0.1", "-o", str(tmp_path / "r.csv"))
    assert code == 0, err
    assert (tmp_path / "r.csv").read_text().splitlines()[0] == "time,x"


def test_set_values_that_would_be_replaced_or_wrapped_are_refused(tmp_path, capsys):
    """``--set solver.method=4294967297`` reached the FMU as 1 (rk4) through a 32-bit integer, and ``--set T=1``
    was replaced by the input file's T without a word: both are refused before the run."""
    fmu = str(cached_fmu(PENDULUM, 2, "both"))
    csv = str(tmp_path / "r.csv")
    code, _, err = run(capsys, "simulate", fmu, "--set", "solver.method=4294967297", "--stop-time", "0.1", "-o", csv)
    assert code == 1 and "--set solver.method: 4294967297 is outside the range" in one_error_line(err)
    signal = tmp_path / "u.csv"
    signal.write_text("time,T\n0,0\n1,1\n")
    argv = ["--set", "T=1", "--input-file", str(signal), "--stop-time", "0.1", "-o", csv]
    code, _, err = run(capsys, "simulate", fmu, *argv)
    assert code == 1 and "--set T: this input is driven by --input-file u.csv" in one_error_line(err)
    assert folder_listing(tmp_path) == ["u.csv"]


def test_a_run_that_ends_early_at_a_large_time_is_an_error(tmp_path, capsys):
    """At t0 = 1.7e9 s (a Unix time) fmpy's master ends a run 1.5 s before the stop time (it compares times
    within 1e-9 relative); the check of the end time scaled with |t| too and let it pass as a success."""
    fmu = str(cached_fmu(PENDULUM, 2, "both"))
    t0 = 1.7e9
    argv = ["--start-time", f"{t0:.17g}", "--stop-time", f"{t0 + 10:.17g}", "--interval", "0.5", "--no-plot"]
    for kind in ("cs", "me"):
        code, _, err = run(capsys, "simulate", fmu, *argv, "--kind", kind, "-o", str(tmp_path / "r.csv"))
        line = one_error_line(err)
        assert code == 1 and "before the stop time 1700000010 s" in line and "1e-9" in line, line
        assert folder_listing(tmp_path) == []
    code, _, err = run(
        capsys,
        "simulate",
        fmu,
        "--start-time",
        "1e6",
        "--stop-time",
        "1000001",
        "-o",
        str(tmp_path / "r.csv"),
        "--no-plot",
    )
    assert code == 0, err
    data = np.loadtxt(tmp_path / "r.csv", delimiter=",", skiprows=1)
    assert len(data) == 101 and data[-1, 0] == 1000001.0
