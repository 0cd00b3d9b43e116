"""Compiled artifacts cached on disk: in a folder only the user can write, verified before every use.

Compiled evaluators (:mod:`symbody.codegen.c_call`) and the object files of the FMU runtime
(:mod:`symbody.fmu.build`) are built once and kept in one cache, ``<root>/<kind>/<entry>/``:

- ``<root>`` is ``$SYMBODY_CACHE``, else ``$XDG_CACHE_HOME/symbody``, else ``~/.cache/symbody``;
  when it cannot be created or written, ``<tmp>/symbody-<uid>`` in the temporary folder; when that
  is not private either, a fresh temporary folder of this process (removed at exit).
- A folder is used only if it is private (:func:`refusal`): a real folder (not a symbolic link),
  owned by the user, that nobody else can write, below folders that nobody else can change either
  (owned by the user or root, not writable by others unless sticky like ``/tmp``).  Folders symbody
  creates get mode 0700.  A folder refused for what others could do to it is named in a
  :class:`CacheWarning`.
- An entry is a folder built under a temporary name in the same folder and renamed into place when
  complete (atomic: no reader ever sees half of it); its ``MANIFEST.sha256`` records the SHA-256 of
  every file at build time.  Before a file is loaded or linked the entry is verified: every file
  listed, none missing or extra, every hash equal.  An entry that fails (a truncated or altered file)
  is rebuilt, with a :class:`CacheWarning`.
- Entry names hash everything the build depends on (:func:`entry_key`, with the cache format), so
  nothing built otherwise is ever read.

Example:
    >>> import pathlib, tempfile, warnings
    >>> root = pathlib.Path(tempfile.mkdtemp())  # instead of the configured root
    >>> build = lambda folder: (folder / "note.txt").write_text("built")
    >>> name = "note_" + entry_key("v1")[:12]
    >>> paths = cached_build("demo", name, ["note.txt"], build, root)
    >>> paths["note.txt"].read_text()
    'built'
    >>> _ = paths["note.txt"].write_text("planted")  # altered after the build
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     again = cached_build("demo", name, ["note.txt"], build, root)
    >>> again["note.txt"].read_text(), caught[0].category.__name__
    ('built', 'CacheWarning')
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import os
import shutil
import stat
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ..errors import ExportError

#: Version of the cache layout; part of every entry key, so entries of another layout are never read.
FORMAT = "symbody-cache-2"
#: The file of an entry that records the SHA-256 of every other file (``<hex digest>  <file name>`` lines).
MANIFEST = "MANIFEST.sha256"
#: Permission bits that let others than the owner change a folder.
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH

_process_folder: list[Path] = []  # the fresh temporary folder of this process, once made


class CacheWarning(UserWarning):
    """A cache folder was refused (others could write to it) or a cached build failed verification
    and was rebuilt."""


def cache_root() -> Path:
    """The configured cache folder: ``$SYMBODY_CACHE``, ``$XDG_CACHE_HOME/symbody`` or ``~/.cache/symbody``."""
    env = os.environ.get("SYMBODY_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "symbody"


def entry_key(*parts: str | bytes) -> str:
    """Hex SHA-256 of the cache format and ``parts`` (each delimited): the name of what they build.

    Example:
        >>> entry_key("a", "bc") == entry_key("ab", "c")
        False
    """
    digest = hashlib.sha256(FORMAT.encode())
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _uid() -> int | None:
    """The user whose files count as our own (None where the system has no POSIX owners)."""
    return os.geteuid() if hasattr(os, "geteuid") else None


def refusal(folder: Path) -> str | None:
    """Why ``folder`` is not private to the user (None: it is).

    It must be a real folder (not a symbolic link) owned by the user that neither its group nor
    others can write; every folder above it (as written and as resolved) must be owned by the user
    or root and be writable by nobody else unless it is sticky (``/tmp``: others cannot rename or
    remove what is ours).  Where the system has no POSIX owners, only the first rule applies.

    Example:
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> refusal(folder) is None
        True
        >>> folder.chmod(0o777)
        >>> refusal(folder)
        'others can write to it (mode 0o777)'
    """
    st = os.lstat(folder)
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a folder"
    uid = _uid()
    if uid is None:
        return None
    if st.st_uid != uid:
        return f"it is owned by another user (uid {st.st_uid})"
    if st.st_mode & _OTHERS_WRITE:
        return f"others can write to it (mode {oct(stat.S_IMODE(st.st_mode))})"
    folder = Path(os.path.abspath(folder))
    for above in (*folder.parents, *Path(os.path.realpath(folder)).parents):
        st = os.lstat(above)
        if st.st_uid not in (uid, 0):
            return f"the folder {str(above)!r} above it is owned by another user (uid {st.st_uid})"
        shared = st.st_mode & _OTHERS_WRITE and not st.st_mode & stat.S_ISVTX
        if stat.S_ISDIR(st.st_mode) and shared:
            return f"others can change the folder {str(above)!r} above it"
    return None


def _private_folder(folder: Path) -> Path:
    """``folder``, created with mode 0700 where missing (and its missing parents), checked by :func:`refusal`.

    Raises:
        OSError: it cannot be created.
        _Refused: it is not private.
    """
    missing = []
    for p in (folder, *folder.parents):
        if os.path.lexists(p):
            break
        missing.append(p)
    for p in reversed(missing):
        try:
            os.mkdir(p, 0o700)
        except FileExistsError:  # made meanwhile: checked below like any other folder
            pass
    reason = refusal(folder)
    if reason:
        raise _Refused(folder, reason)
    return folder


class _Refused(Exception):
    def __init__(self, folder: Path, reason: str):
        super().__init__(f"{folder}: {reason}")
        self.folder, self.reason = folder, reason


def _fresh_folder() -> Path:
    """A new private temporary folder for the rest of this process (removed at exit)."""
    if _process_folder and refusal(_process_folder[0]) is None:
        return _process_folder[0]
    folder = Path(tempfile.mkdtemp(prefix="symbody-"))  # a new name, mode 0700: nobody else has it
    _process_folder[:] = [folder]
    atexit.register(shutil.rmtree, folder, True)
    return folder


def cache_folders(kind: str, root: Path | None = None) -> Iterator[Path]:
    """The private folders of ``kind`` (``"evaluators"``, ``"objects"``, ...) to try, best first.

    ``root`` (default: :func:`cache_root`), ``<tmp>/symbody-<uid>``, then a fresh temporary folder;
    a root that cannot be created is passed over, one that is not private is passed over with a
    :class:`CacheWarning`.

    Raises:
        ExportError: not even a fresh temporary folder is private (others can change a folder above it).
    """
    uid = _uid()
    shared = [Path(tempfile.gettempdir()) / f"symbody-{uid}"] if uid is not None else []
    for base in (root or cache_root(), *shared):
        try:
            folder = _private_folder(_private_folder(base) / kind)
        except OSError:  # cannot be created (read-only, a file in the way): the next one
            continue
        except _Refused as e:
            why = "compiled code is loaded only from a folder no other user can write"
            warnings.warn(CacheWarning(f"cache folder {str(e.folder)!r} not used: {e.reason} ({why})"), stacklevel=3)
            continue
        yield folder
    try:
        fresh = _private_folder(_fresh_folder() / kind)
    except (OSError, _Refused) as e:
        raise ExportError(f"no private folder for compiled code: {e}") from None
    yield fresh


def cached_build(
    kind: str, name: str, files: Sequence[str], build: Callable[[Path], None], root: Path | None = None
) -> dict[str, Path]:
    """The ``files`` of the cache entry ``<kind>/<name>``, built by ``build(folder)`` unless a verified
    entry exists.

    ``build`` writes the files into the (empty, private) folder it is given; the entry appears
    when it is complete.  ``name`` must say everything the build depends on (:func:`entry_key`).
    ``root`` replaces the configured cache root (:func:`cache_root`).

    Raises:
        ExportError: no folder could hold the entry (and whatever ``build`` raises).
    """
    for folder in cache_folders(kind, root):
        try:
            return _entry(folder, name, list(files), build)
        except OSError:  # this folder cannot take the entry (full, read-only): the next one
            continue
    raise ExportError(f"cannot write {name} to any cache folder ({cache_root()} or a temporary folder)")


def cached_files(kind: str, name: str, files: Sequence[str], root: Path | None = None) -> dict[str, Path] | None:
    """The ``files`` of the verified cache entry ``<kind>/<name>`` if one exists (nothing is built).

    Example:
        >>> import pathlib, tempfile
        >>> root = pathlib.Path(tempfile.mkdtemp())
        >>> cached_files("demo", "absent", ["x.so"], root) is None
        True
    """
    for folder in cache_folders(kind, root):
        if verify(folder / name, files) is None:
            return {f: folder / name / f for f in files}
    return None


def _entry(folder: Path, name: str, files: list[str], build: Callable[[Path], None]) -> dict[str, Path]:
    entry = folder / name
    paths = {f: entry / f for f in files}
    problem = verify(entry, files)
    if problem is None:
        return paths
    if problem != _ABSENT:
        warnings.warn(CacheWarning(f"cached build {str(entry)!r} {problem}: it is rebuilt"), stacklevel=3)
    work = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=folder))
    try:
        build(work)
        _write_manifest(work, files)
        for _ in range(3):
            try:
                os.rename(work, entry)  # atomic; refused while an entry of that name exists
                return paths
            except OSError as e:
                if e.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR):
                    raise
            if verify(entry, files) is None:  # another process was faster
                return paths
            _discard(entry)
        raise OSError(errno.EEXIST, f"cannot install the cache entry {entry}")
    finally:  # a failed or interrupted build leaves nothing in the cache
        shutil.rmtree(work, ignore_errors=True)


_ABSENT = "is absent"


def verify(entry: Path, files: Sequence[str]) -> str | None:
    """What is wrong with the cache entry ``entry`` holding ``files`` (None: nothing; ``"is absent"``).

    The entry must be a real folder whose manifest lists exactly ``files``, each a regular file whose
    SHA-256 is the one recorded when it was built.
    """
    try:
        st = os.lstat(entry)
    except FileNotFoundError:
        return _ABSENT
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    try:
        recorded = _read_manifest(entry / MANIFEST)
    except (OSError, ValueError, UnicodeDecodeError):
        return f"has no readable {MANIFEST}"
    if sorted(recorded) != sorted(files):
        return f"has a {MANIFEST} that lists other files"
    for file in files:
        path = entry / file
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                return f"holds {file}, which is not a regular file"
            if _sha256(path) != recorded[file]:
                return f"holds {file}, which differs from the file built (truncated or altered)"
        except OSError:
            return f"lacks {file}"
    return None


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _write_manifest(folder: Path, files: Sequence[str]) -> None:
    lines = [f"{_sha256(folder / file)}  {file}\n" for file in files]
    (folder / MANIFEST).write_text("".join(lines))


def _read_manifest(path: Path) -> dict[str, str]:
    recorded = {}
    for line in path.read_text().splitlines():
        digest, sep, file = line.partition("  ")
        if not sep or len(digest) != 64 or not file or "/" in file:
            raise ValueError(line)
        recorded[file] = digest
    return recorded


def _discard(entry: Path) -> None:
    """Take a failed entry out of the way: renamed (atomically) to a private name, then removed."""
    trash = Path(tempfile.mkdtemp(prefix=f".{entry.name}.", suffix=".old", dir=entry.parent))
    try:
        os.rename(entry, trash / "entry")
    except FileNotFoundError:  # another process removed it
        pass
    shutil.rmtree(trash, ignore_errors=True)


__all__ = [
    "CacheWarning",
    "cache_root",
    "cache_folders",
    "cached_build",
    "cached_files",
    "entry_key",
    "refusal",
    "verify",
]
