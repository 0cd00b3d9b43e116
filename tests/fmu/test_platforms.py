"""FMUs for every platform: Windows x64 (mingw-w64, run under wine), aarch64 Linux (run under
qemu-user), x86-64 Linux with a glibc 2.17 floor; warning-free sources; the solver chosen through an
Integer parameter (libcosim); the importer's tolerance and ``solver.ignore_external_tolerance``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.validation import validate_fmu

from symbody.cli import main
from symbody.errors import ExportError
from symbody.fmu import export_fmu
from symbody.fmu import platforms as plat
from symbody.fmu.platforms import fmu_platforms, select_platforms
from symbody.models import pendulum

from support import EXAMPLES, example
from support.portable_hosts import (
    tools_missing,
)

# this module tests the default platforms: its exports see no SYMBODY_PLATFORMS (see conftest.py)
pytestmark = pytest.mark.usefixtures("every_installed_platform")

MINGW, AARCH64 = "x86_64-w64-mingw32-gcc", "aarch64-linux-gnu-gcc"
CRANES = ("overhead_crane", "tower_crane")


def need(*tools: str) -> None:
    missing = tools_missing(*tools)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (.ci/run installs them)")


def extract(fmu: Path, folder: Path) -> Path:
    with zipfile.ZipFile(fmu) as zf:
        zf.extractall(folder)
    return folder


@pytest.fixture(scope="module")
def pendulum_fmus(tmp_path_factory) -> dict[int, Path]:
    """The pendulum exported for every installed platform, FMI 2 and 3."""
    need(MINGW, AARCH64)
    eq = pendulum().derive()
    tmp = tmp_path_factory.mktemp("pendulum")
    return {v: extract(export_fmu(eq, tmp / f"p{v}.fmu", fmi_version=v), tmp / f"p{v}") for v in (2, 3)}


# ------------------------------------------------------------------------- platforms and binaries


def test_default_platforms_are_the_installed_ones(pendulum_fmus):
    assert fmu_platforms(pendulum_fmus[2].with_suffix(".fmu")) == ["linux64", "win64"]
    assert fmu_platforms(pendulum_fmus[3].with_suffix(".fmu")) == ["aarch64-linux", "x86_64-linux", "x86_64-windows"]


def test_missing_cross_compiler_drops_the_platform_or_names_the_package(monkeypatch):
    real = shutil.which
    monkeypatch.setattr(plat.shutil, "which", lambda cmd: None if cmd == MINGW else real(cmd))
    names = [p.name for p in select_platforms(None, 3)]
    assert "x86_64-windows" not in names and names[0] == "x86_64-linux"
    with pytest.raises(ExportError, match=r"install the Debian package gcc-mingw-w64-x86-64"):
        select_platforms(["win64"], 2)


def test_platform_requests_are_checked():
    with pytest.raises(ExportError, match="FMI 2.0 defines no binaries folder for aarch64-linux"):
        select_platforms(["aarch64-linux"], 2)
    with pytest.raises(ExportError, match="unknown platform 'win32'"):
        select_platforms(["win32"], 3)


def test_symbody_platforms_replaces_the_default_only(monkeypatch):
    need(MINGW)
    monkeypatch.setenv("SYMBODY_PLATFORMS", "win64, x86_64-linux")
    assert [p.name for p in select_platforms(None, 2)] == ["x86_64-windows", "x86_64-linux"]
    assert [p.name for p in select_platforms([], 3)] == ["x86_64-windows", "x86_64-linux"]
    assert [p.name for p in select_platforms(["linux64"], 3)] == ["x86_64-linux"]  # named platforms win
    monkeypatch.setenv("SYMBODY_PLATFORMS", " , ")
    assert [p.name for p in select_platforms(None, 3)][0] == "x86_64-linux"  # empty: the default


@pytest.mark.parametrize(
    ("value", "fmi", "message"),
    [("win32", 3, "unknown platform 'win32'"), ("aarch64-linux", 2, "FMI 2.0 defines no binaries folder")],
)
def test_a_bad_symbody_platforms_is_an_error_naming_the_variable(monkeypatch, value, fmi, message):
    monkeypatch.setenv("SYMBODY_PLATFORMS", value)
    with pytest.raises(ExportError, match=rf"^SYMBODY_PLATFORMS='{value}': {message}"):
        select_platforms(None, fmi)


def test_symbody_platforms_reaches_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SYMBODY_PLATFORMS", "x86_64-linux")
    out = tmp_path / "p.fmu"
    assert main(["export", str(EXAMPLES / "simple_pendulum.py"), "-o", str(out), "--fmi", "3"]) == 0
    assert fmu_platforms(out) == ["x86_64-linux"]
    monkeypatch.setenv("SYMBODY_PLATFORMS", "sparc")
    assert main(["export", str(EXAMPLES / "simple_pendulum.py"), "-o", str(tmp_path / "q.fmu")]) == 1
    err = capsys.readouterr().err
    assert "SYMBODY_PLATFORMS='sparc': unknown platform 'sparc'" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "q.fmu").exists()


def test_export_and_info_on_the_command_line(tmp_path, capsys):
    need(MINGW)
    out = tmp_path / "p.fmu"
    model = str(EXAMPLES / "simple_pendulum.py")
    assert main(["export", model, "-o", str(out), "--fmi", "3", "--platforms", "x86_64-linux,win64"]) == 0
    assert fmu_platforms(out) == ["x86_64-linux", "x86_64-windows"]
    capsys.readouterr()
    assert main(["info", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["platforms"] == ["x86_64-linux", "x86_64-windows"]
    assert main(["info", str(out)]) == 0
    assert "platforms    x86_64-linux, x86_64-windows" in capsys.readouterr().out
    assert main(["export", model, "-o", str(tmp_path / "q.fmu"), "--platforms", "aarch64-linux"]) == 1
    assert "FMI 2.0 defines no binaries folder" in capsys.readouterr().err
    assert not (tmp_path / "q.fmu").exists()


def _glibc_versions(library: Path) -> set[tuple[int, ...]]:
    out = subprocess.run(["objdump", "-T", str(library)], capture_output=True, text=True, check=True).stdout
    return {tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)", out)}


def test_linux_binaries_need_glibc_2_17_at_most(pendulum_fmus):
    libs = sorted(p for d in pendulum_fmus.values() for p in (d / "binaries").rglob("*.so"))
    assert len(libs) == 3  # linux64, x86_64-linux, aarch64-linux
    for lib in libs:
        versions = _glibc_versions(lib)
        assert versions, lib
        assert max(versions) <= (2, 17), f"{lib} needs GLIBC_{'.'.join(map(str, max(versions)))}"


def test_the_glibc_floor_binds_the_old_pow(tmp_path):
    """Without the forced-include header the same code needs pow@GLIBC_2.29 (the failure it fixes)."""
    src = tmp_path / "p.c"
    src.write_text("#include <math.h>\ndouble f(double x, double y) { return pow(x, y) + exp(x) + log(y); }\n")
    from symbody.fmu.build import compile_flags

    plain = tmp_path / "plain.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", str(src), "-o", str(plain), "-lm"], check=True)
    floored = tmp_path / "floored.so"
    subprocess.run(["gcc", "-shared", *compile_flags(), str(src), "-o", str(floored), "-lm"], check=True)
    assert max(_glibc_versions(plain)) >= (2, 29)
    assert max(_glibc_versions(floored)) <= (2, 17)


def test_windows_dll_exports_fmi_only_and_needs_system_dlls(pendulum_fmus):
    for version, folder in pendulum_fmus.items():
        (dll,) = (folder / "binaries" / ("win64" if version == 2 else "x86_64-windows")).glob("*.dll")
        dump = subprocess.run(["objdump", "-p", str(dll)], capture_output=True, text=True, check=True).stdout
        dlls = {d.lower() for d in re.findall(r"DLL Name: (\S+)", dump)}
        assert dlls <= {"kernel32.dll", "msvcrt.dll"}, dlls
        table = dump[dump.index("[Ordinal/Name Pointer] Table") :].split("\n\n")[0]
        exported = re.findall(r"^\s*\[\s*\d+\]\s+(\w+)", table, re.M)
        assert exported and all(e.startswith(f"fmi{version}") for e in exported), exported
        assert f"fmi{version}GetVersion" in exported


# --------------------------------------------------------------------------------------- sources


# the cross compilers and clang with --slow (CI): the default run keeps the host gcc
@pytest.mark.parametrize(
    "compiler", ["gcc", *(pytest.param(c, marks=pytest.mark.slow) for c in ("clang", MINGW, AARCH64))]
)
def test_sources_compile_without_warnings(pendulum_fmus, tmp_path, compiler):
    need(compiler)
    for version, folder in pendulum_fmus.items():
        src = folder / "sources"
        files = sorted(p.name for p in src.glob("*.c"))
        assert "model.c" in files and f"fmi{version}Functions.c" in files and "sb_dynamics.c" in files, files
        for c in files:
            cmd = [compiler, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c", str(src / c)]
            proc = subprocess.run([*cmd, f"-I{src}", "-o", str(tmp_path / "x.o")], capture_output=True, text=True)
            assert proc.returncode == 0, f"FMI {version} {c}:\n{proc.stderr}"


def test_sources_print_no_size_t_format(pendulum_fmus):
    """The legacy msvcrt printf (Windows before the UCRT) has no %zu."""
    for folder in pendulum_fmus.values():
        for f in (folder / "sources").glob("*.c"):
            assert "%z" not in f.read_text(), f.name


def test_build_description_names_libm_on_linux_only(pendulum_fmus):
    text = (pendulum_fmus[3] / "sources" / "buildDescription.xml").read_text()
    configs = re.findall(r"<BuildConfiguration([^>]*)>(.*?)</BuildConfiguration>", text, re.S)
    by_platform = {re.search(r'platform="([^"]+)"', a).group(1) if "platform=" in a else None: b for a, b in configs}
    assert set(by_platform) == {"x86_64-linux", "aarch64-linux", None}
    assert all('Library name="m"' in by_platform[p] for p in ("x86_64-linux", "aarch64-linux"))
    assert "Library" not in by_platform[None]
    assert validate_fmu(str(pendulum_fmus[3].with_suffix(".fmu"))) == []


def test_fmi_headers_are_vendored_with_their_licence():
    from symbody.fmu.build import fmi_headers_dir

    d = fmi_headers_dir()
    assert "fmpy" not in str(d)
    for name in ("fmi2Functions.h", "fmi2FunctionTypes.h", "fmi2TypesPlatform.h", "fmi3Functions.h"):
        assert (d / name).is_file()
    assert "2-Clause BSD" in (d / "LICENSE.txt").read_text()


def _without_binaries(fmu: Path) -> Path:
    """A copy of ``fmu`` with its sources only (no binaries/)."""
    out = fmu.with_name(fmu.stem + "_sources.fmu")
    with zipfile.ZipFile(fmu) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            if not item.filename.startswith("binaries/"):
                dst.writestr(item, src.read(item))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("fmi", [2, 3])
def test_fmpy_compile_with_warnings_as_errors_rebuilds_every_example(tmp_path, fmi):
    """``fmpy compile --all-warnings --warning-as-error`` (cmake, -Wall -Wextra -Wpedantic -Werror) rebuilds the
    host binary of every example from sources/, and the rebuilt FMU simulates like the exported one."""
    need("cmake")
    for path in sorted(EXAMPLES.glob("*.py")):
        fmu = export_fmu(example(path.stem), tmp_path / f"{path.stem}.fmu", fmi_version=fmi, platforms=["linux64"])
        before = fmpy.simulate_fmu(str(fmu), stop_time=0.2, output_interval=0.05)
        source_only = _without_binaries(fmu)
        cmd = [sys.executable, "-m", "fmpy", "compile", "--all-warnings", "--warning-as-error", str(source_only)]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 0, f"{path.stem} FMI {fmi}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        assert fmu_platforms(source_only) == ["linux64" if fmi == 2 else "x86_64-linux"]
        after = fmpy.simulate_fmu(str(source_only), stop_time=0.2, output_interval=0.05)
        for name in before.dtype.names:
            assert np.allclose(after[name], before[name], rtol=1e-9, atol=1e-12), (path.stem, name)


def test_a_failing_cross_compiler_fails_the_export_and_leaves_nothing(tmp_path, monkeypatch):
    """One platform's compiler fails: the export fails naming that platform, the others are stopped,
    no FMU and no temporary file is written."""
    import dataclasses
    import stat

    fake = tmp_path / "fake-mingw-gcc"
    fake.write_text(
        "#!/bin/sh\ncase \"$*\" in *--version*) echo fake 1.0; exit 0;; esac\necho 'fatal: disk on fire' >&2\nexit 1\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setitem(
        plat.PLATFORMS,
        "x86_64-windows",
        dataclasses.replace(plat.PLATFORMS["x86_64-windows"], cross_compiler=str(fake)),
    )
    monkeypatch.setenv("SYMBODY_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out" / "p.fmu"
    out.parent.mkdir()
    with pytest.raises(ExportError, match=r"for x86_64-windows failed:\n.*disk on fire"):
        export_fmu(pendulum().derive(), out, fmi_version=3)
    assert list(out.parent.iterdir()) == []
    leftovers = [p for p in (tmp_path / "cache").rglob("*") if p.suffix != ".o" and p.is_file()]
    assert leftovers == []


def test_platforms_apply_to_the_native_backend_only(tmp_path):
    with pytest.raises(ExportError, match="--platforms applies to the native C backend only"):
        export_fmu(pendulum().derive(), tmp_path / "p.fmu", backend="python", platforms=["win64"])
    assert not (tmp_path / "p.fmu").exists()


def test_the_same_model_exported_twice_gives_the_same_binaries(tmp_path):
    """Reproducible builds: no time stamp, temporary path or automatic image base in any binary (a
    parameter study recognises a re-exported FMU as the same one)."""
    eq = pendulum().derive()
    files = []
    for name in ("a", "b"):
        fmu = export_fmu(eq, tmp_path / f"{name}.fmu", fmi_version=3, kind="both")
        with zipfile.ZipFile(fmu) as z:
            files.append({n: z.read(n) for n in z.namelist() if n.startswith("binaries/")})
    # one binary per platform this machine builds (the host's, and those of the cross compilers present)
    built = {f"binaries/{p.name}" for p in plat.PLATFORMS.values() if p.available}
    assert {n.rsplit("/", 1)[0] for n in files[0]} == built and files[0].keys() == files[1].keys()
    assert [n for n in files[0] if files[0][n] != files[1][n]] == []
