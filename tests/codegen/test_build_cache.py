"""The cache of compiled evaluators as another local user would attack it, and as a crash would leave it.

A library is loaded into the user's Python process only from a folder nobody else can write and only
once its hash matches the one recorded when it was built: a library planted in the shared temporary
folder, in a cache folder open to others or behind a symbolic link is never loaded; a truncated or
altered one is rebuilt with a :class:`~symbody.codegen.build_cache.CacheWarning`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from symbody.codegen import build_cache, c_call
from symbody.codegen.build_cache import CacheWarning, refusal
from symbody.codegen.c_call import Kernel, build_cached, compile_shared, kernel_function

from support import ROOT
from support.hostile_cache import give_away, plant, plant_in_shared_folder, shared_temporary_folder, unwritable_cache

#: out0 = [2 x[0] + y[0], x[1]], out1 = t
SOURCE = """
int demo(const double *in, double *out0, double *out1)
{
    out0[0] = 2.0 * in[1] + in[3];
    out0[1] = in[2];
    out1[0] = in[0];
    return 0;
}
"""
DEMO = Kernel("demo", SOURCE, (("x", 2, False), ("y", 2, True)), ((2,), ()))
#: what another user's library computes instead
HOSTILE = SOURCE.replace("2.0 * in[1] + in[3]", "666.0")


def hostile_library(folder: Path) -> bytes:
    """The bytes of a library with the kernel's entry point that answers 666."""
    src = folder / "hostile.c"
    src.write_text(HOSTILE)
    compile_shared([src], folder / "hostile.so")
    return (folder / "hostile.so").read_bytes()


def legit_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache root holding the kernel as symbody builds it for ctypes (the layout an attacker copies).

    The library is not loaded: a process loads one path once, so a later load of the same path would
    not show which file is there.
    """
    root = tmp_path / "legit"
    monkeypatch.setenv("SYMBODY_CACHE", str(root))
    build_cached(DEMO.source, "symbody_kernel", ".so")
    return root


def value(f) -> float:
    return float(f(0.0, [1.0, 1.0])[0][0])


def only_so(data: bytes):
    return lambda path: data if path.name.endswith(".so") else None


def test_a_library_planted_in_the_shared_temporary_folder_is_never_loaded(tmp_path, monkeypatch):
    """The user's cache cannot be written: the shared temporary folder holds what another user put there."""
    legit = legit_cache(tmp_path, monkeypatch)
    shared = shared_temporary_folder(tmp_path, monkeypatch)
    plant_in_shared_folder(legit, shared, only_so(hostile_library(tmp_path)))
    unwritable_cache(tmp_path, monkeypatch)
    with pytest.warns(CacheWarning, match=rf"symbody-{os.geteuid()}' not used: others can write to it"):
        f = kernel_function(DEMO, "ctypes")
    assert value(f) == 2.0


def test_without_a_writable_cache_a_private_folder_of_the_temporary_folder_is_used_and_kept(tmp_path, monkeypatch):
    shared = shared_temporary_folder(tmp_path, monkeypatch)
    unwritable_cache(tmp_path, monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert value(kernel_function(DEMO, "ctypes")) == 2.0
    private = shared / f"symbody-{os.geteuid()}"
    assert [p.name for p in shared.iterdir()] == [private.name]
    for folder in (private, private / "evaluators", *(private / "evaluators").iterdir()):
        assert folder.stat().st_mode & 0o777 == 0o700 and folder.stat().st_uid == os.geteuid(), folder
    monkeypatch.setattr(c_call, "compile_shared", lambda *a, **k: pytest.fail("compiled again"))
    assert value(kernel_function(DEMO, "ctypes")) == 2.0  # the next call (or process) finds it there


@pytest.mark.parametrize("how", ["open to others", "owned by another user", "a symbolic link"])
def test_a_cache_folder_others_could_write_is_not_used(how, tmp_path, monkeypatch):
    legit = legit_cache(tmp_path, monkeypatch)
    theirs = tmp_path / "theirs"
    plant(legit, theirs, only_so(hostile_library(tmp_path)))
    cache = theirs
    if how == "owned by another user":
        theirs.chmod(0o755)
        give_away(theirs)
    elif how == "a symbolic link":
        theirs.chmod(0o700)
        cache = tmp_path / "link"
        cache.symlink_to(theirs)
    monkeypatch.setenv("SYMBODY_CACHE", str(cache))
    shared_temporary_folder(tmp_path, monkeypatch)
    reason = {"open to others": "others can write", "owned by another user": "it is owned by another user (uid 65534)"}
    expected = re.escape(f"'{cache}' not used: {reason.get(how, 'it is a symbolic link')}")
    with pytest.warns(CacheWarning, match=expected):
        f = kernel_function(DEMO, "ctypes")
    assert value(f) == 2.0


def test_a_folder_above_the_cache_that_others_can_change_is_refused(tmp_path):
    """Another user could rename the cache folder away and put their own in its place."""
    above = tmp_path / "above"
    (above / "cache").mkdir(parents=True, mode=0o700)
    assert refusal(above / "cache") is None
    above.chmod(0o777)
    assert refusal(above / "cache") == f"others can change the folder {str(above)!r} above it"
    above.chmod(0o1777)  # sticky, like /tmp: nobody else can rename what is ours
    assert refusal(above / "cache") is None


def test_a_library_altered_after_its_build_is_rebuilt(tmp_path, monkeypatch):
    legit = legit_cache(tmp_path, monkeypatch)
    (library,) = legit.rglob("*.so")
    forged = tmp_path / "forged.so"
    forged.write_bytes(hostile_library(tmp_path))
    os.replace(forged, library)  # a new file: the library this process has loaded stays as it is
    with pytest.warns(CacheWarning, match=r"differs from the file built \(truncated or altered\): it is rebuilt"):
        f = kernel_function(DEMO, "ctypes")
    assert value(f) == 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # rebuilt once: verified from now on
        assert value(kernel_function(DEMO, "ctypes")) == 2.0


def test_a_cache_entry_without_its_manifest_is_rebuilt(tmp_path, monkeypatch):
    legit = legit_cache(tmp_path, monkeypatch)
    (manifest,) = legit.rglob(build_cache.MANIFEST)
    manifest.unlink()
    with pytest.warns(CacheWarning, match=rf"has no readable {build_cache.MANIFEST}: it is rebuilt"):
        assert value(kernel_function(DEMO, "ctypes")) == 2.0


RUN = """
import sys, warnings
warnings.simplefilter("always")
from symbody.codegen.c_call import Kernel, kernel_function
source = sys.stdin.read()
kernel = Kernel("demo", source, (("x", 2, False), ("y", 2, True)), ((2,), ()))
print(float(kernel_function(kernel, sys.argv[1])(0.0, [1.0, 1.0])[0][0]))
"""


@pytest.mark.parametrize("path", ["extension", "ctypes"])
def test_a_truncated_library_is_rebuilt_not_loaded(path, tmp_path):
    """Truncated (a full disk, a killed copy): loading it used to kill Python with SIGBUS on every run."""
    env = dict(os.environ, SYMBODY_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(ROOT / "src"))

    def run() -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-c", RUN, path]
        return subprocess.run(cmd, input=SOURCE, env=env, capture_output=True, text=True, timeout=300)

    first = run()
    assert first.returncode == 0 and first.stdout.split() == ["2.0"], first.stderr
    (library,) = (tmp_path / "cache").rglob("*.so")
    size = library.stat().st_size
    with open(library, "r+b") as f:
        f.truncate(size // 2)
    again = run()
    assert again.returncode == 0, f"exit status {again.returncode}: {again.stderr[-2000:]}"
    assert again.stdout.split() == ["2.0"]
    assert "CacheWarning" in again.stderr and "truncated or altered" in again.stderr
    assert library.stat().st_size == size
