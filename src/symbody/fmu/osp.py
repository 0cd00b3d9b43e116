"""libcosim's system structure, ``OspSystemStructure.xml`` (the Open Simulation Platform's format, version 0.1).

The same structure as the SSP package (:mod:`symbody.fmu.ssp`): one ``Simulator`` per component with its
bound start values (``InitialValues``), one ``VariableConnection`` per connection (output first), the
communication step as ``BaseStepSize`` of the fixed-step algorithm.  The FMUs are referenced by paths
relative to the XML file: inside an SSP package the file sits in ``resources/`` beside the FMUs; written
alone (``symbody system ... -o OspSystemStructure.xml``) it points at the FMU files where they are.

Example:
    >>> from symbody.fmu.system_structure import SystemStructure
    >>> print(osp_description(SystemStructure("loop", [], [], step=0.01), {}).decode())  # doctest: +ELLIPSIS
    <?xml version="1.0" encoding="UTF-8"?>
    <OspSystemStructure xmlns="http://opensimulationplatform.com/MSMI/OSPSystemStructure" version="0.1">
      <StartTime>0.0</StartTime>
      <BaseStepSize>0.01</BaseStepSize>
      <Algorithm>fixedStep</Algorithm>
      <Simulators />
    </OspSystemStructure>
    <BLANKLINE>
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

from .files import write_atomically
from .system_structure import SystemStructure

OSP_NAMESPACE = "http://opensimulationplatform.com/MSMI/OSPSystemStructure"
_TYPES = {bool: "Boolean", int: "Integer", float: "Real"}


def osp_description(structure: SystemStructure, sources: dict[str, str]) -> bytes:
    """``OspSystemStructure.xml`` of a structure; ``sources`` maps each component to its FMU's path (relative
    to the XML file)."""
    root = ET.Element("OspSystemStructure", xmlns=OSP_NAMESPACE, version="0.1")
    ET.SubElement(root, "StartTime").text = repr(float(structure.start))
    if structure.stop is not None:
        ET.SubElement(root, "EndTime").text = repr(float(structure.stop))
    if structure.step is not None:
        ET.SubElement(root, "BaseStepSize").text = repr(float(structure.step))
    ET.SubElement(root, "Algorithm").text = "fixedStep"
    simulators = ET.SubElement(root, "Simulators")
    for e in structure.elements:
        sim = ET.SubElement(simulators, "Simulator", name=e.name, source=sources[e.name])
        values = structure.bindings.get(e.name, {})
        if values:
            initial = ET.SubElement(sim, "InitialValues")
            for name, value in values.items():
                item = ET.SubElement(initial, "InitialValue", variable=name)
                text = ("true" if value else "false") if isinstance(value, bool) else repr(value)
                ET.SubElement(item, _TYPES[type(value)], value=text)
    if structure.links:
        connections = ET.SubElement(root, "Connections")
        for link in structure.links:
            c = ET.SubElement(connections, "VariableConnection")
            ET.SubElement(c, "Variable", simulator=link.source, name=link.output)
            ET.SubElement(c, "Variable", simulator=link.target, name=link.input)
    ET.indent(root, space="  ")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"


def write_osp(structure: SystemStructure, path: str | Path) -> Path:
    """Write ``OspSystemStructure.xml`` to ``path`` (atomically), the FMUs referenced where they are."""
    path = Path(path)
    here = path.resolve().parent
    sources = {e.name: Path(os.path.relpath(e.fmu.resolve(), here)).as_posix() for e in structure.elements}
    xml = osp_description(structure, sources)
    def fill(tmp: Path) -> None:
        tmp.write_bytes(xml)

    return write_atomically(path, fill)
