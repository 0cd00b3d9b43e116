"""The generated files are compiled longest first, a new compiler starting as soon as any finishes, with the
flags of their code (issue 13, "Scale": export time of large models).

Truth: the order in which a fake compiler (a shell script that logs its start and end and sleeps in
proportion to the size of its source) runs and finishes, the flags it was given, and, for the real
build, the flags gcc was given for each generated file of a forward-mode export.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from symbody.errors import ExportError
from symbody.fmu import build
from symbody.fmu.build import CompileJob, compile_order
from symbody.fmu.platforms import PLATFORMS


def _logging_compiler(tmp: Path, log: Path) -> Path:
    """Sleeps 0.1 s per kB of source; logs "start <file> <flags>" and "end <file>"."""
    cc = tmp / "fake-cc"
    cc.write_text(
        "#!/bin/sh\n"
        "out=''; src=''; prev=''; opt=''\n"
        'for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; [ "$prev" = "-c" ] && src="$a"; '
        'case "$a" in -O*) opt="$a";; esac; prev="$a"; done\n'
        f'name=$(basename "$src"); echo "start $name $opt" >> {log}\n'
        'kb=$(( $(wc -c < "$src") / 1000 ))\n'
        'sleep "$(echo "$kb" | awk \'{print $1 / 10}\')"\n'
        f'echo "end $name" >> {log}\n'
        ': > "$out"\n'
    )
    cc.chmod(cc.stat().st_mode | stat.S_IEXEC)
    return cc


def _sources(tmp: Path, kbs: dict[str, int]) -> list[CompileJob]:
    jobs = []
    for name, kb in kbs.items():
        src = tmp / name
        src.write_text("x" * (1000 * kb))
        jobs.append(CompileJob(src, tmp / (name[:-2] + ".o")))
    return jobs


def test_compile_order_is_longest_first_and_stable(tmp_path):
    jobs = _sources(tmp_path, {"model.c": 3, "model_1.c": 9, "model_2.c": 1, "model_3.c": 3})
    assert [j.source.name for j in compile_order(jobs)] == ["model_1.c", "model.c", "model_3.c", "model_2.c"]


def test_compile_order_weighs_a_faster_level(tmp_path):
    """A 9 kB file compiled at half the time per byte comes after a 5 kB one at the build's level."""
    jobs = _sources(tmp_path, {"model.c": 5, "model_1.c": 9, "model_2.c": 1})
    jobs[1] = jobs[1]._replace(flags=("-Og",), speed=0.5)
    assert [j.source.name for j in compile_order(jobs)] == ["model.c", "model_1.c", "model_2.c"]


def test_the_longest_file_starts_first_and_the_short_ones_fill_the_other_core(monkeypatch, tmp_path):
    """One 8 kB file (0.8 s) and four 1 kB files (0.1 s) on two compilers: the long one starts first, the short
    ones run one after the other beside it (a compiler starts whenever one finishes, not in start order),
    and the long one is the last to end."""
    monkeypatch.setattr(build, "available_memory", lambda: None)
    monkeypatch.setattr(build.os, "cpu_count", lambda: 2)
    log = tmp_path / "log"
    jobs = _sources(tmp_path, {"model.c": 1, "model_1.c": 1, "model_2.c": 8, "model_3.c": 1, "model_4.c": 1})
    build._compile_objects(str(_logging_compiler(tmp_path, log)), ("-O2",), jobs, [tmp_path])
    events = [line.split()[:2] for line in log.read_text().splitlines()]
    assert ["start", "model_2.c"] in events[:2]  # the two first compilers start together
    assert events[-1] == ["end", "model_2.c"]
    assert all(job.obj.is_file() for job in jobs)


def test_a_job_with_its_own_flags_is_compiled_with_them(monkeypatch, tmp_path):
    monkeypatch.setattr(build, "available_memory", lambda: None)
    log = tmp_path / "log"
    jobs = _sources(tmp_path, {"model.c": 1, "model_1.c": 1})
    jobs[1] = jobs[1]._replace(flags=("-O1",))
    build._compile_objects(str(_logging_compiler(tmp_path, log)), ("-O2",), jobs, [tmp_path])
    starts = {line.split()[1]: line.split()[2] for line in log.read_text().splitlines() if line.startswith("start")}
    assert starts == {"model.c": "-O2", "model_1.c": "-O1"}


def test_a_compiler_that_writes_much_neither_blocks_nor_loses_its_message(monkeypatch, tmp_path):
    """200 kB of diagnostics (more than a pipe holds) from every compiler, then a failure: the build ends with
    the failing file named and the start of its message, instead of waiting forever."""
    monkeypatch.setattr(build, "available_memory", lambda: None)
    cc = tmp_path / "chatty-cc"
    cc.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do case "$a" in *model_1.c) bad=1;; esac; done\n'
        "echo first-line-of-the-message >&2\n"
        "head -c 200000 /dev/zero | tr '\\0' 'w' >&2\n"
        '[ -n "$bad" ] && exit 1\n'
        'for a in "$@"; do [ "$prev" = "-o" ] && : > "$a"; prev="$a"; done\n'
    )
    cc.chmod(cc.stat().st_mode | stat.S_IEXEC)
    jobs = _sources(tmp_path, {"model.c": 1, "model_1.c": 1, "model_2.c": 1})
    with pytest.raises(ExportError, match=r"model_1\.c(.|\n)*first-line-of-the-message"):
        build._compile_objects(str(cc), (), jobs, [tmp_path])


@pytest.mark.parametrize("name", ["x86_64-linux", "x86_64-windows", "aarch64-linux"])
def test_derivative_flags_lower_only_the_optimization_level(name):
    platform = PLATFORMS[name]
    hot, derivative = build.compile_flags(platform), build.derivative_flags(platform)
    assert "-O2" in hot and build.DERIVATIVE_LEVEL in derivative and "-O2" not in derivative
    assert [f for f in hot if f != "-O2"] == [f for f in derivative if f != build.DERIVATIVE_LEVEL]


def test_a_forward_mode_export_compiles_its_tangent_files_at_the_derivative_level(monkeypatch, tmp_path):
    import symbody as sb
    from symbody.fmu import export_fmu

    seen: list[tuple[str, tuple[str, ...]]] = []
    real = build._compile_objects

    def spy(cc, flags, jobs, include, stop=None, what="", label="the FMU runtime"):
        if label == "the model":
            seen.extend((j.source.name, j.flags or flags) for j in jobs)
        return real(cc, flags, jobs, include, stop, what, label)

    monkeypatch.setattr(build, "_compile_objects", spy)
    s = sb.System("swing")
    th = s.coordinate("th", 0.3)
    s.particle("m", s.point("P", s.origin, (sb.sin(th), -sb.cos(th), 0)), 1.0)
    s.gravity((0, -9.81, 0))
    export_fmu(s, tmp_path / "swing.fmu", jacobians="forward", platforms=["x86_64-linux"])
    flags = dict(seen)
    assert flags["model.c"] == build.compile_flags() and "-O2" in flags["model.c"]
    assert [n for n, f in flags.items() if build.DERIVATIVE_LEVEL in f and "-O2" not in f] == ["model_1.c"]
