"""Another local user's moves against symbody's cache of compiled code, for the tests of the cache.

The attacker knows the layout: whatever symbody writes into a cache folder, the attacker can write
too, manifests and all (:func:`plant`).  The folders they can reach are the shared temporary folder
(:func:`shared_temporary_folder`) and any cache folder whose permissions let them in.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

MANIFEST = "MANIFEST.sha256"
#: the predictable folders of the shared temporary folder that symbody used (``symbody_evaluators``,
#: ``symbody_objects``) or uses (``symbody-<uid>``), with the part of a cache root each one mirrors
SHARED_LAYOUTS = (("symbody_evaluators", "evaluators"), ("symbody_objects", "objects"), (f"symbody-{os.geteuid()}", ""))


def shared_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A sticky folder anybody can write (like ``/tmp``), made the temporary folder of this process."""
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    return shared


def unwritable_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's cache folder cannot be created (a file stands where a folder should be; root or not)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("SYMBODY_CACHE", str(blocker / "cache"))


def plant(legit: Path, target: Path, forge: Callable[[Path], bytes | None]) -> list[Path]:
    """Copy the cache tree ``legit`` to ``target`` with the files ``forge`` gives other bytes for (None: the
    same), every folder open to all (mode 0777) and every manifest rewritten to match; the files forged."""
    forged, manifests = [], []
    for path in sorted(legit.rglob("*")):
        dst = target / path.relative_to(legit)
        if path.is_dir():
            dst.mkdir(parents=True, exist_ok=True)
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        if path.name == MANIFEST:
            manifests.append(dst)
            continue
        data = forge(path)
        dst.write_bytes(path.read_bytes() if data is None else data)
        if data is not None:
            forged.append(dst)
    for manifest in manifests:
        lines = [f"{hashlib.sha256(f.read_bytes()).hexdigest()}  {f.name}\n" for f in sorted(manifest.parent.iterdir())]
        manifest.write_text("".join(line for line in lines if not line.endswith(f"  {MANIFEST}\n")))
    for folder in [target, *(p for p in target.rglob("*") if p.is_dir())]:
        folder.chmod(0o777)
    assert forged, f"nothing to forge in {legit}"
    return forged


def plant_in_shared_folder(legit_root: Path, shared: Path, forge: Callable[[Path], bytes | None]) -> list[Path]:
    """:func:`plant` the cache root ``legit_root`` at every predictable place of the temporary folder ``shared``."""
    forged = []
    for name, part in SHARED_LAYOUTS:
        if (legit_root / part).is_dir():
            forged += plant(legit_root / part, shared / name, forge)
    return forged


def give_away(folder: Path) -> None:
    """Make another user (``nobody``) the owner of ``folder``: only root can."""
    if os.geteuid() != 0:
        pytest.skip("giving a folder to another user needs root")
    os.chown(folder, 65534, 65534)
