"""The geometry document inside an FMU, so that it can be animated without its model file.

FMI 2 puts it in ``resources/geometry.json``; FMI 3 in
``extra/org.symbody.geometry/geometry.json`` (the standard reserves ``extra/``
for tool-specific files in folders named by a reverse domain name).  The
document (:mod:`symbody.codegen.geometry`) computes every pose from variables
the FMU has anyway (coordinates, parameters, time), so the FMU gets no extra
variable and behaves the same in every importer.

Example:
    >>> from symbody.models import pendulum
    >>> from symbody.fmu.spec import FmuSpec
    >>> path, data = geometry_entry(FmuSpec(pendulum().derive(), 3))
    >>> path, data[:28]
    ('extra/org.symbody.geometry/geometry.json', b'{"format": "symbody-geometry')
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from ..errors import ExportError
from .spec import FmuSpec

GEOMETRY_PATHS = {2: "resources/geometry.json", 3: "extra/org.symbody.geometry/geometry.json"}


def geometry_entry(spec: FmuSpec) -> tuple[str, bytes]:
    """Archive path and content of the geometry document of ``spec``'s model."""
    from ..codegen.geometry import geometry_document  # reading a geometry needs no code generation

    doc = geometry_document(spec.eq)
    return GEOMETRY_PATHS[spec.fmi_version], json.dumps(doc, allow_nan=False).encode()


def read_geometry(fmu: str | Path) -> dict:
    """The geometry document of a symbody FMU.

    Raises:
        ExportError: the file is not a ZIP archive or holds no geometry document.
    """
    try:
        with zipfile.ZipFile(fmu) as zf:
            names = set(zf.namelist())
            for path in GEOMETRY_PATHS.values():
                if path in names:
                    return json.loads(zf.read(path).decode("utf-8"))
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ExportError(f"cannot read the geometry of {Path(fmu).name}: {e}") from None
    raise ExportError(
        f"{Path(fmu).name} holds no geometry ({' or '.join(GEOMETRY_PATHS.values())}): export it again with symbody"
    )


__all__ = ["geometry_entry", "read_geometry", "GEOMETRY_PATHS"]
