"""What an FMU file holds, for ``symbody info OUT.fmu``: version, interfaces, variables, platforms.

Reads only the archive and its ``modelDescription.xml`` (no SymPy, nothing
is loaded or run).

Example:
    >>> from symbody.fmu.summary import fmu_summary, summary_lines  # doctest: +SKIP
    >>> info = fmu_summary("pendulum.fmu")  # doctest: +SKIP
    >>> info["fmi_version"], info["kinds"], info["platforms"]  # doctest: +SKIP
    ('2.0', ['cs', 'me'], ['linux64'])
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from .platforms import fmu_platforms
from .run import read_description

#: What each Jacobian mode means for the importer.
_MODE_TEXT = {
    "exact": "symbolic; exact directional derivatives",
    "forward": "forward-mode tangents; exact directional derivatives",
    "none": "finite differences in the implicit solver; no directional derivatives",
}
#: Causalities in the order they are listed.
CAUSALITIES = ("input", "output", "parameter", "calculatedParameter", "local", "independent")


def _variable(v: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": v.name, "type": v.type}
    unit = v.unit or getattr(v.declaredType, "unit", None)
    if unit:
        entry["unit"] = unit
    if v.start is not None:
        entry["start"] = v.start
    if v.variability:
        entry["variability"] = v.variability
    if v.description:
        entry["description"] = v.description
    return entry


def _number(text: Any) -> float | None:
    return None if text is None else float(text)


_JACOBIANS = re.compile(rb"^ \* Jacobians: (exact|forward|none) ", re.M)


def jacobian_mode_of(path: str | Path) -> str | None:
    """The Jacobian mode (``exact``, ``forward``, ``none``) a native symbody FMU was exported with, from the
    header of its ``sources/model.c``; None for other FMUs (and symbody FMUs older than the option)."""
    try:
        with zipfile.ZipFile(path) as zf:
            with zf.open("sources/model.c") as f:
                head = f.read(4096)
    except (KeyError, OSError, zipfile.BadZipFile):
        return None
    m = _JACOBIANS.search(head)
    return m.group(1).decode() if m else None


def matlab_files_of(path: str | Path) -> list[str]:
    """The archive paths of the MATLAB functions an FMU carries (``symbody export --with-matlab``), else []."""
    from .matlab import MATLAB_FOLDERS

    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
    except (OSError, zipfile.BadZipFile):
        return []
    folders = tuple(f"{folder}/" for folder in MATLAB_FOLDERS.values())
    return sorted(n for n in names if n.startswith(folders) and n.endswith(".m"))


def fmu_summary(path: str | Path) -> dict[str, Any]:
    """A JSON-ready summary of an FMU file (see the module docstring)."""
    md = read_description(path)
    variables: dict[str, list[dict[str, Any]]] = {}
    for v in md.modelVariables:
        variables.setdefault(v.causality or "local", []).append(_variable(v))
    order = [c for c in CAUSALITIES if c in variables] + sorted(set(variables) - set(CAUSALITIES))
    kinds = [k for k, present in (("cs", md.coSimulation), ("me", md.modelExchange)) if present is not None]
    experiment = md.defaultExperiment
    return {
        "file": str(path),
        "name": md.modelName,
        "description": md.description or "",
        "fmi_version": md.fmiVersion,
        "kinds": kinds,
        "generation_tool": md.generationTool or "",
        "platforms": fmu_platforms(path),
        "default_experiment": {
            "start_time": _number(getattr(experiment, "startTime", None)),
            "stop_time": _number(getattr(experiment, "stopTime", None)),
            "step_size": _number(getattr(experiment, "stepSize", None)),
        },
        "states": len(md.derivatives),
        "jacobians": jacobian_mode_of(path),
        "event_indicators": md.numberOfEventIndicators or 0,
        "matlab": matlab_files_of(path),
        "variables": {c: variables[c] for c in order},
    }


def summary_lines(info: dict[str, Any], limit: int = 8) -> list[str]:
    """The text form of :func:`fmu_summary` (names listed up to ``limit`` per causality)."""
    kinds = {"cs": "Co-Simulation", "me": "Model Exchange"}
    out = [f"{info['name']}" + (f": {info['description']}" if info["description"] else "")]
    out.append(f"  FMI          {info['fmi_version']}, {' and '.join(kinds[k] for k in info['kinds'])}")
    out.append(f"  platforms    {', '.join(info['platforms']) or 'none (sources only)'}")
    for causality, entries in info["variables"].items():
        if causality == "independent":
            continue
        names = [e["name"] + (f" [{e['unit']}]" if "unit" in e else "") for e in entries]
        more = f", ... ({len(names)})" if len(names) > limit else ""
        out.append(f"  {causality + 's':<12} {len(names)} ({', '.join(names[:limit])}{more})")
    if info["states"]:
        out.append(f"  states       {info['states']}")
    if info.get("jacobians"):
        out.append(f"  Jacobians    {info['jacobians']} ({_MODE_TEXT[info['jacobians']]})")
    exp = info["default_experiment"]
    if exp["stop_time"] is not None:
        step = f", step {exp['step_size']:g} s" if exp["step_size"] else ""
        out.append(f"  experiment   {exp['start_time'] or 0:g} to {exp['stop_time']:g} s{step}")
    if info.get("matlab"):
        folder = info["matlab"][0].rsplit("/", 1)[0]
        out.append(f"  MATLAB       {len(info['matlab'])} .m functions in {folder}/")
    if info["generation_tool"]:
        out.append(f"  generated by {info['generation_tool']}")
    return out
