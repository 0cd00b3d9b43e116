"""The platforms a native symbody FMU carries binaries for, and their C compilers.

Every FMU is compiled for the machine it is exported on (``x86_64-linux``,
the FMI 2 folder ``linux64``) with the system C compiler, and cross-compiled
for the other platforms whose cross compiler is installed:

==================  ===============  ===========================  =============================
FMI 3 platform      FMI 2 folder     compiler                     Debian package
==================  ===============  ===========================  =============================
``x86_64-linux``    ``linux64``      the system C compiler        ``gcc``
``x86_64-windows``  ``win64``        ``x86_64-w64-mingw32-gcc``   ``gcc-mingw-w64-x86-64``
``aarch64-linux``   (none)           ``aarch64-linux-gnu-gcc``    ``gcc-aarch64-linux-gnu``
==================  ===============  ===========================  =============================

The environment variable ``SYMBODY_PLATFORMS`` (a comma-separated list, as
``--platforms``) replaces that default when an export names no platforms, e.g.
``SYMBODY_PLATFORMS=x86_64-linux`` to build only for the machine in a quick
edit-and-test loop.

FMI 2.0 names the folders ``win32``, ``win64``, ``linux32``, ``linux64``,
``darwin32`` and ``darwin64`` only; importers on 64-bit ARM Linux (fmpy among
them) look into ``linux64``, where the x86-64 library is.  An FMI 2 FMU
therefore carries no aarch64 binary: on such a target it is rebuilt from its
``sources/`` (``fmpy compile``), or exported as FMI 3, whose ``aarch64-linux``
folder every FMI 3 importer knows.

Example:
    >>> [p.name for p in select_platforms(["win64", "linux64"], fmi_version=2)]  # doctest: +SKIP
    ['x86_64-linux', 'x86_64-windows']
    >>> PLATFORMS["x86_64-windows"].folder(2), PLATFORMS["x86_64-windows"].folder(3)
    ('win64', 'x86_64-windows')
"""

from __future__ import annotations

import os
import platform as _platform
import shutil
import sys
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import ExportError


@dataclass(frozen=True)
class Platform:
    """A target of the native build.

    ``compiler`` is the cross compiler's command, or ``None`` for the system C
    compiler (``$CC``, else ``cc``/``gcc``/``clang``) when the platform is the host's.
    """

    name: str  # FMI 3 platform tuple
    fmi2: str | None  # FMI 2 binaries folder, None when FMI 2 defines none
    cross_compiler: str
    package: str  # Debian package of the compiler
    suffix: str  # shared library suffix
    system: str  # "linux", "windows", "darwin"

    def folder(self, fmi_version: int) -> str:
        """The ``binaries/`` folder of this platform for an FMI version."""
        if fmi_version == 3:
            return self.name
        if self.fmi2 is None:
            raise ExportError(
                f"FMI 2.0 defines no binaries folder for {self.name}: export with --fmi 3 for {self.name}, "
                "or rebuild the FMI 2 FMU from its sources/ on the target"
            )
        return self.fmi2

    @property
    def is_host(self) -> bool:
        return self.name == host_platform().name

    @property
    def compiler(self) -> str | None:
        """The compiler command, ``None`` meaning the system C compiler (host platform)."""
        return None if self.is_host else self.cross_compiler

    @property
    def available(self) -> bool:
        """True when this platform can be built here."""
        return self.is_host or shutil.which(self.cross_compiler) is not None


PLATFORMS: dict[str, Platform] = {
    "x86_64-linux": Platform("x86_64-linux", "linux64", "x86_64-linux-gnu-gcc", "gcc-x86-64-linux-gnu", ".so", "linux"),
    "x86_64-windows": Platform(
        "x86_64-windows", "win64", "x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64", ".dll", "windows"
    ),
    "aarch64-linux": Platform("aarch64-linux", None, "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", ".so", "linux"),
}

#: FMI 2 folder names accepted by ``--platforms`` as aliases of the FMI 3 tuples.
ALIASES = {"linux64": "x86_64-linux", "win64": "x86_64-windows"}


def host_platform() -> Platform:
    """The platform of this machine (its binaries are built with the system C compiler)."""
    machine = _platform.machine().lower()
    arch = {"amd64": "x86_64", "x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(machine, machine)
    system = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform, sys.platform)
    name = f"{arch}-{system}"
    if name == "aarch64-linux":  # FMI 2 importers on ARM look into linux64 (see the module docstring)
        return replace(PLATFORMS[name], fmi2="linux64")
    if name in PLATFORMS:
        return PLATFORMS[name]
    bits = "64" if arch in ("x86_64", "aarch64") else "32"
    fmi2 = {"linux": f"linux{bits}", "darwin": f"darwin{bits}", "windows": f"win{bits}"}.get(system)
    suffix = {"darwin": ".dylib", "windows": ".dll"}.get(system, ".so")
    return Platform(name, fmi2, os.environ.get("CC", "cc"), "a C compiler", suffix, system)


#: Environment variable replacing the default platforms (comma-separated, as ``--platforms``).
PLATFORMS_VARIABLE = "SYMBODY_PLATFORMS"


def select_platforms(requested: list[str] | None, fmi_version: int) -> list[Platform]:
    """The platforms to build: ``requested`` (FMI 3 tuples or FMI 2 folder names), else those of
    ``$SYMBODY_PLATFORMS``, else the host's and every other one whose cross compiler is installed (and
    that the FMI version defines).

    Raises:
        ExportError: an unknown platform, a platform FMI 2 has no folder for, or one whose compiler is missing
            (the message names the Debian package to install, and ``SYMBODY_PLATFORMS`` when it named them).
    """
    host = host_platform()
    if not requested:
        from_environment = [s for s in os.environ.get(PLATFORMS_VARIABLE, "").split(",") if s.strip()]
        if from_environment:
            try:
                return select_platforms(from_environment, fmi_version)
            except ExportError as e:
                raise ExportError(f"{PLATFORMS_VARIABLE}={os.environ[PLATFORMS_VARIABLE]!r}: {e}") from None
        out = [host]
        for p in PLATFORMS.values():
            if p.name != host.name and p.available and (fmi_version == 3 or p.fmi2 is not None):
                out.append(p)
        return out
    out = []
    for item in requested:
        name = ALIASES.get(item.strip(), item.strip())
        if name == host.name:
            p = host  # its compiler is the system one
        elif name in PLATFORMS:
            p = PLATFORMS[name]
        else:
            known = sorted({*PLATFORMS, *ALIASES, host.name})
            raise ExportError(f"unknown platform {item!r}: use one of {', '.join(known)}")
        p.folder(fmi_version)  # raises for aarch64-linux in FMI 2
        if not p.available:
            raise ExportError(
                f"platform {p.name} needs the C compiler {p.cross_compiler}, which is not installed: "
                f"install the Debian package {p.package} (apt-get install {p.package})"
            )
        if p not in out:
            out.append(p)
    return out


def fmu_platforms(path: str | Path) -> list[str]:
    """The platforms an FMU carries binaries for (the folder names under ``binaries/``), sorted.

    Raises:
        ExportError: the file is not a ZIP archive.

    Example:
        >>> fmu_platforms("tower_crane.fmu")  # doctest: +SKIP
        ['aarch64-linux', 'x86_64-linux', 'x86_64-windows']
    """
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
    except (zipfile.BadZipFile, OSError) as e:
        raise ExportError(f"cannot read {str(path)!r} as an FMU: {e}") from None
    found = set()
    for n in names:
        parts = n.split("/")
        if len(parts) >= 3 and parts[0] == "binaries" and parts[-1]:  # a platform folder holding a file
            found.add(parts[1])
    return sorted(found)
