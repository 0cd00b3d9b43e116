"""The cached object files of the FMU runtime as another local user would attack them, and as a crash
would leave them.

An object is linked into an FMU only from a folder nobody else can write and only once its hash matches
the one recorded when it was compiled: an object planted in the shared temporary folder never reaches an
FMU; a truncated one is compiled again (with a :class:`~symbody.codegen.build_cache.CacheWarning`)
instead of failing every later export.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import fmpy
import pytest

from symbody.codegen.build_cache import CacheWarning
from symbody.codegen.c_call import c_compiler
from symbody.fmu import export_fmu
from symbody.fmu.build import compile_flags, fmi_headers_dir, runtime_objects, template_dir
from symbody.models import pendulum

from support.hostile_cache import plant_in_shared_folder, shared_temporary_folder, unwritable_cache

MARKER = b"PLANTED-BY-ANOTHER-USER"


def binaries(fmu: Path) -> bytes:
    with zipfile.ZipFile(fmu) as z:
        return b"".join(z.read(n) for n in z.namelist() if n.startswith("binaries/"))


def hostile_object(folder: Path, source: str) -> bytes:
    """The runtime's ``source`` compiled as symbody does, with another user's data in it."""
    src = folder / f"hostile_{source}"
    src.write_text(f'#include "{source}"\nconst char sb_planted[] = "{MARKER.decode()}";\n')
    obj = folder / "hostile.o"
    cmd = [c_compiler(), *compile_flags(), "-c", str(src), f"-I{template_dir()}", f"-I{fmi_headers_dir()}"]
    subprocess.run([*cmd, "-o", str(obj)], check=True)
    return obj.read_bytes()


@pytest.fixture(scope="module")
def built_cache(tmp_path_factory) -> Path:
    """A cache root holding the host's runtime objects as symbody compiles them (copied by each test)."""
    root = tmp_path_factory.mktemp("runtime") / "cache"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SYMBODY_CACHE", str(root))
        runtime_objects()
    return root


def cache_copy(built_cache: Path, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = folder / "cache"
    shutil.copytree(built_cache, root, symlinks=True)
    monkeypatch.setenv("SYMBODY_CACHE", str(root))
    return root


def test_an_object_planted_in_the_shared_temporary_folder_never_reaches_an_fmu(built_cache, tmp_path, monkeypatch):
    legit = cache_copy(built_cache, tmp_path, monkeypatch)  # the layout another user copies
    forged = hostile_object(tmp_path, "sb_variables.c")
    shared = shared_temporary_folder(tmp_path, monkeypatch)
    plant_in_shared_folder(legit, shared, lambda path: forged if path.name == "sb_variables.o" else None)
    unwritable_cache(tmp_path, monkeypatch)
    with pytest.warns(CacheWarning, match=rf"symbody-{os.geteuid()}' not used: others can write to it"):
        fmu = export_fmu(pendulum(), tmp_path / "p.fmu", fmi_version=3)
    assert MARKER not in binaries(fmu)


def test_a_truncated_runtime_object_is_compiled_again(built_cache, tmp_path, monkeypatch):
    """It used to fail every later export ("compiling the FMU library ... failed") until deleted by hand."""
    cache = cache_copy(built_cache, tmp_path, monkeypatch)
    first = export_fmu(pendulum(), tmp_path / "first.fmu", fmi_version=2)
    obj = next(cache.rglob("sb_dynamics.o"))
    size = obj.stat().st_size
    with open(obj, "r+b") as f:
        f.truncate(size // 3)
    with pytest.warns(CacheWarning, match=r"sb_dynamics.o, which differs from the file built .*: it is rebuilt"):
        fmu = export_fmu(pendulum(), tmp_path / "again.fmu", fmi_version=2)
    assert obj.stat().st_size == size
    assert binaries(fmu) == binaries(first)
    result = fmpy.simulate_fmu(str(fmu), stop_time=0.1, output=["theta"])
    assert result["theta"][-1] < result["theta"][0]  # the pendulum falls from its start angle
