"""Parallel compilers of the generated files are bounded by memory as well as by cores (issue 13, "Scale").

Truth: the estimate's arithmetic by hand, and the number of compiler processes
actually alive at once when a fake compiler is run with little memory available.
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from symbody.errors import ExportError
from symbody.fmu import build

MIB = 2**20


def test_width_is_the_cores_without_a_memory_figure():
    assert build.parallel_compilers(8, [50_000], None) == 8
    assert build.parallel_compilers(0, [50_000], None) == 1


def test_width_is_bounded_by_half_the_available_memory():
    each = build.COMPILER_BASE_BYTES + build.COMPILER_BYTES_PER_SOURCE_BYTE * 100_000  # the largest file counts
    assert build.parallel_compilers(16, [10_000, 100_000], 2 * 3 * each) == 3
    assert build.parallel_compilers(16, [10_000, 100_000], 2 * 3 * each - 1) == 2
    assert build.parallel_compilers(2, [10_000, 100_000], 100 * each) == 2  # cores bound first
    assert build.parallel_compilers(16, [100_000], 1 * MIB) == 1  # always one


def _fake_compiler(tmp: Path, fail: str = "") -> Path:
    cc = tmp / "fake-cc"
    cc.write_text(
        "#!/bin/sh\n"
        "out=''; prev=''\n"
        'for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done\n'
        + (f'case "$*" in *{fail}*) echo "error: {fail}" >&2; exit 1;; esac\n' if fail else "")
        + 'sleep 0.3; : > "$out"\n'
    )
    cc.chmod(cc.stat().st_mode | stat.S_IEXEC)
    return cc


def _jobs(tmp: Path, n: int) -> list[tuple[Path, Path]]:
    jobs = []
    for k in range(n):
        src = tmp / f"model_{k}.c"
        src.write_text("/* " + "x" * 1000 + " */\n")
        jobs.append((src, tmp / f"model_{k}.o"))
    return jobs


def _alive_at_once(monkeypatch, available: int | None, cores: int, tmp: Path) -> int:
    monkeypatch.setattr(build, "available_memory", lambda: available)
    monkeypatch.setattr(build.os, "cpu_count", lambda: cores)
    started: list[subprocess.Popen] = []
    most = [0]
    real = subprocess.Popen

    def popen(*args, **kwargs):
        alive = sum(p.poll() is None for p in started)
        p = real(*args, **kwargs)
        started.append(p)
        most[0] = max(most[0], alive + 1)
        return p

    monkeypatch.setattr(build.subprocess, "Popen", popen)
    jobs = _jobs(tmp, 4)
    build._compile_objects(str(_fake_compiler(tmp)), (), jobs, [tmp])
    assert all(o.is_file() for _, o in jobs)  # every file compiled
    return most[0]


@pytest.mark.slow  # long: with --slow (CI)
def test_little_memory_runs_one_compiler_at_a_time(monkeypatch, tmp_path):
    assert _alive_at_once(monkeypatch, 1 * MIB, 4, tmp_path) == 1


def test_enough_memory_runs_one_compiler_per_core(monkeypatch, tmp_path):
    assert _alive_at_once(monkeypatch, None, 3, tmp_path) == 3


def test_a_failing_file_is_named(monkeypatch, tmp_path):
    monkeypatch.setattr(build, "available_memory", lambda: 1 * MIB)
    jobs = _jobs(tmp_path, 3)
    with pytest.raises(ExportError, match="model_1.c"):
        build._compile_objects(str(_fake_compiler(tmp_path, fail="model_1.c")), (), jobs, [tmp_path])


def test_available_memory_is_positive_where_known():
    got = build.available_memory()
    assert got is None or got > 0
