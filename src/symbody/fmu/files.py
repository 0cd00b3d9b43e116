"""Writing output files atomically: a failed or interrupted write leaves no partial file.

Example:
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
    >>> _ = write_atomically(out, lambda tmp: tmp.write_text("done"))
    >>> out.read_text(), sorted(p.name for p in out.parent.iterdir())
    ('done', ['note.txt'])
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..errors import ExportError


def write_atomically(path: Path, fill: Callable[[Path], None]) -> Path:
    """Create ``path`` through a temporary file in its folder; an existing file is replaced only on success."""
    path = Path(path)
    folder = path.resolve().parent
    if not folder.is_dir():
        raise ExportError(f"output folder {str(folder)!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    os.close(fd)
    try:
        fill(Path(tmp))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file the usual permissions
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
