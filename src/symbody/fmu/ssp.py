"""SSP 1.0 packages of system structures: writing (``symbody system``), validating, reading (``symbody simulate``).

The package (a ZIP file, ``.ssp``) holds ``SystemStructure.ssd`` at its root and the FMUs in
``resources/`` (``resources/<component>.fmu``), with libcosim's ``resources/OspSystemStructure.xml``
(:mod:`symbody.fmu.osp`) beside them.  The SSD has one system whose components carry a connector per
input and output of their FMU (type and unit from the model description, the units defined in the
SSD's ``Units``), a connector of kind ``parameter`` per bound parameter, and the bound values inline
(``ParameterBindings`` with an ``ssv:ParameterSet`` named ``initialValues``); the connections follow in
the order given.  The communication step goes into the ``DefaultExperiment`` as OSP's annotation
(``osp:FixedStepAlgorithm baseStepSize``), which libcosim reads, and onto the system as OpenModelica's
(``org.openmodelica``: ``oms:SimulationInformation`` with the fixed-step master ``oms-ma`` at that step),
without which OMSimulator refuses the system (it finds no system type).

The XML is written with the standard library, with the prefixes ``ssd``, ``ssc``, ``ssv``, ``osp`` and ``oms``
literally (libcosim's and OMSimulator's parsers match prefixes, not namespaces), and every SSD is validated against the
normative XML schemas of SSP 1.0 (vendored in ``symbody/fmu/ssp_schema``, BSD 2-clause, the Modelica
Association) with xmlschema before the package is written.  pyssp-standard was tried and not used: its
SSD writer puts ``Units`` after ``DefaultExperiment`` (invalid against the schema) and fails on ``Real``
parameter values without a unit.

Example:
    >>> from symbody.fmu.system_structure import SystemStructure
    >>> xml = system_description(SystemStructure("loop", [], []))
    >>> xml.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\\n<ssd:SystemStructureDescription')
    True
    >>> validate_description(xml)
"""

from __future__ import annotations

import datetime
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from .. import __version__
from ..errors import ExportError
from ..units import base_units
from .files import write_atomically
from .system_structure import Element, StructureError, SystemStructure, structure_of

NS = {
    "ssd": "http://ssp-standard.org/SSP1/SystemStructureDescription",
    "ssc": "http://ssp-standard.org/SSP1/SystemStructureCommon",
    "ssv": "http://ssp-standard.org/SSP1/SystemStructureParameterValues",
    "osp": "http://opensimulationplatform.com/SSP/OSPAnnotations",
    "oms": "https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd",
}
SSD_NAME = "SystemStructure.ssd"
OSP_NAME = "resources/OspSystemStructure.xml"
FMU_TYPE = "application/x-fmu-sharedlibrary"
PARAMETER_SET = "initialValues"
#: OMSimulator's default relative tolerance, written when no FMU's default experiment names one.
OMS_TOLERANCE = 1e-4
#: SSP 1.0 connector types of the FMI variable types (SSP 1.0 knows 32-bit Integer and Real only).
CONNECTOR_TYPES = {"Real": "Real", "Float64": "Real", "Float32": "Real", "Integer": "Integer", "Int32": "Integer",
                   "Int64": "Integer", "Boolean": "Boolean", "String": "String"}
SCHEMA_FILES = ("SystemStructureDescription", "SystemStructureParameterValues", "SystemStructureSignalDictionary",
                "SystemStructureParameterMapping")


def _text(value: float | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int) else repr(float(value))


def _connector(parent: ET.Element, name: str, kind: str, var, units: set[str]) -> None:
    kind_type = CONNECTOR_TYPES.get(var.type)
    if kind_type is None:
        raise StructureError(f"variable {name!r} of type {var.type} cannot be a connector of SSP 1.0")
    c = ET.SubElement(parent, "ssd:Connector", name=name, kind=kind)
    attrs = {}
    unit = var.unit or getattr(var.declaredType, "unit", None)
    if kind_type == "Real" and unit and base_units(unit) is not None:
        attrs["unit"] = unit
        units.add(unit)
    ET.SubElement(c, f"ssc:{kind_type}", attrs)


def _component(system: ET.Element, element: Element, bindings: dict, units: set[str]) -> ET.Element:
    comp = ET.SubElement(system, "ssd:Component", name=element.name, type=FMU_TYPE,
                         source=f"resources/{element.name}.fmu")
    connectors = ET.SubElement(comp, "ssd:Connectors")
    variables = element.variables
    for v in element.md.modelVariables:
        if v.causality in ("input", "output"):
            _connector(connectors, v.name, v.causality, v, units)
    for name in bindings:
        if variables[name].causality == "parameter":
            _connector(connectors, name, "parameter", variables[name], units)
    if bindings:
        pb = ET.SubElement(ET.SubElement(comp, "ssd:ParameterBindings"), "ssd:ParameterBinding")
        values = ET.SubElement(pb, "ssd:ParameterValues")
        pset = ET.SubElement(values, "ssv:ParameterSet", version="1.0", name=PARAMETER_SET)
        params = ET.SubElement(pset, "ssv:Parameters")
        for name, value in bindings.items():
            p = ET.SubElement(params, "ssv:Parameter", name=name)
            ET.SubElement(p, f"ssv:{CONNECTOR_TYPES[variables[name].type]}", value=_text(value))
    return comp


def _decimal(value: float) -> str:
    """``value`` as an ``xs:decimal`` (no exponent), exact to its shortest round-trip digits."""
    return format(Decimal(repr(float(value))), "f")


def _relative_tolerance(structure: SystemStructure) -> float:
    """The tightest relative tolerance of the FMUs' default experiments (:data:`OMS_TOLERANCE` if none names one).

    OMSimulator passes one tolerance to every FMU (``fmi2SetupExperiment``, ``fmi3EnterInitializationMode``),
    which replaces a symbody FMU's ``solver.rtol`` unless that is set explicitly; the tightest keeps every FMU
    at least as accurate as its own default.
    """
    tolerances = [float(e.md.defaultExperiment.tolerance) for e in structure.elements
                  if e.md.defaultExperiment is not None and e.md.defaultExperiment.tolerance]
    return min(tolerances, default=OMS_TOLERANCE)


def _simulation_information(system: ET.Element, structure: SystemStructure) -> None:
    """OMSimulator's vendor annotation on the system: a weakly coupled system run by its fixed-step master
    (``oms-ma``) at the communication step.  Without it OMSimulator finds no system type and refuses the SSD."""
    assert structure.step is not None
    note = ET.SubElement(ET.SubElement(system, "ssd:Annotations"), "ssc:Annotation", type="org.openmodelica")
    info = ET.SubElement(ET.SubElement(note, "oms:Annotations"), "oms:SimulationInformation")
    ET.SubElement(info, "oms:FixedStepMaster", description="oms-ma", stepSize=_decimal(structure.step),
                  relativeTolerance=_decimal(_relative_tolerance(structure)))


def system_description(structure: SystemStructure) -> bytes:
    """``SystemStructure.ssd`` of a structure (UTF-8 bytes)."""
    root = ET.Element("ssd:SystemStructureDescription", {f"xmlns:{p}": uri for p, uri in NS.items()})
    root.set("name", structure.name)
    root.set("version", "1.0")
    root.set("generationTool", f"symbody {__version__}")
    root.set("generationDateAndTime", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    system = ET.SubElement(root, "ssd:System", name=structure.name)
    units: set[str] = set()
    if structure.elements:
        elements = ET.SubElement(system, "ssd:Elements")
        for e in structure.elements:
            _component(elements, e, structure.bindings.get(e.name, {}), units)
    if structure.links:
        connections = ET.SubElement(system, "ssd:Connections")
        for link in structure.links:
            ET.SubElement(connections, "ssd:Connection", startElement=link.source, startConnector=link.output,
                          endElement=link.target, endConnector=link.input)
    if structure.step is not None:
        _simulation_information(system, structure)
    if units:
        defs = ET.SubElement(root, "ssd:Units")
        for name in sorted(units):
            exps, factor = base_units(name)  # type: ignore[misc]  # only units that parse were added
            attrs = {k: str(e) for k, e in exps.items()}
            if factor != 1.0:
                attrs["factor"] = repr(factor)
            ET.SubElement(ET.SubElement(defs, "ssc:Unit", name=name), "ssc:BaseUnit", attrs)
    experiment = {"startTime": repr(float(structure.start))}
    if structure.stop is not None:
        experiment["stopTime"] = repr(float(structure.stop))
    de = ET.SubElement(root, "ssd:DefaultExperiment", experiment)
    if structure.step is not None:
        note = ET.SubElement(ET.SubElement(de, "ssd:Annotations"), "ssc:Annotation", type="com.opensimulationplatform")
        algorithm = ET.SubElement(note, "osp:Algorithm")
        ET.SubElement(algorithm, "osp:FixedStepAlgorithm", baseStepSize=repr(float(structure.step)))
    ET.indent(root, space="  ")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"


@lru_cache(maxsize=1)
def _schema():
    import xmlschema

    folder = Path(__file__).resolve().parent / "ssp_schema"
    return xmlschema.XMLSchema10([str(folder / f"{name}.xsd") for name in SCHEMA_FILES])


def validate_description(xml: bytes) -> None:
    """Check an SSD against the XML schemas of SSP 1.0.

    Raises:
        ExportError: naming the first violation and where it is.
    """
    schema = _schema()
    for error in schema.iter_errors(xml.decode("utf-8")):
        raise ExportError(f"{SSD_NAME} does not validate against SSP 1.0: {error.reason} (at {error.path})")


def write_ssp(structure: SystemStructure, path: str | Path) -> Path:
    """Write the SSP package of ``structure`` (its SSD validated first) to ``path``, atomically."""
    from .osp import osp_description

    xml = system_description(structure)
    validate_description(xml)
    osp = osp_description(structure, {e.name: f"{e.name}.fmu" for e in structure.elements})

    def fill(tmp: Path) -> None:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(SSD_NAME, xml)
            for e in structure.elements:
                zf.write(e.fmu, f"resources/{e.name}.fmu", compress_type=zipfile.ZIP_STORED)  # already compressed
            zf.writestr(OSP_NAME, osp)

    return write_atomically(Path(path), fill)


# ------------------------------------------------------------------------------------------ reading


def _q(tag: str) -> str:
    prefix, _, local = tag.partition(":")
    return f"{{{NS[prefix]}}}{local}"


def _bindings(component: ET.Element, folder: Path) -> list[tuple[str, str]]:
    out = []
    for binding in component.iterfind(f"{_q('ssd:ParameterBindings')}/{_q('ssd:ParameterBinding')}"):
        source = binding.get("source")
        pset: ET.Element | None
        if source:
            file = (folder / source).resolve()
            if not file.is_relative_to(folder.resolve()) or not file.is_file():
                raise StructureError(f"parameter values {source!r}: no such file in the package")
            pset = ET.parse(file).getroot()
        else:
            pset = binding.find(f"{_q('ssd:ParameterValues')}/{_q('ssv:ParameterSet')}")
        if pset is None:
            continue
        for p in pset.iterfind(f"{_q('ssv:Parameters')}/{_q('ssv:Parameter')}"):
            typed = next(iter(p), None)
            if typed is not None and typed.get("value") is not None:
                out.append((p.get("name", ""), typed.get("value", "")))
    return out


def _inside(folder: Path, source: str, package: str) -> Path:
    """The file a component's ``source`` names inside the extracted package."""
    file = (folder / source).resolve()
    if not file.is_relative_to(folder.resolve()) or not file.is_file():
        raise StructureError(f"{package}: the component source {source!r} is not a file in the package")
    return file


def _step(root: ET.Element) -> float | None:
    for fixed in root.iterfind(f"{_q('ssd:DefaultExperiment')}//{_q('osp:FixedStepAlgorithm')}"):
        return float(fixed.get("baseStepSize", "nan"))
    return None


@contextmanager
def open_ssp(path: str | Path) -> Iterator[SystemStructure]:
    """The :class:`SystemStructure` of an SSP package, its FMUs extracted into a temporary folder that lives as
    long as the context.

    Raises:
        StructureError: not an SSP package, no SSD, an SSD that does not validate, or a structure that does not
            hold (see :func:`symbody.fmu.system_structure.system_structure`).
    """
    path = Path(path)
    if not zipfile.is_zipfile(path):
        raise StructureError(f"{path.name} is not an SSP package (not a ZIP file)" if path.is_file() else
                             f"SSP package {str(path)!r} not found")
    with tempfile.TemporaryDirectory(prefix="symbody_ssp_") as tmp:
        folder = Path(tmp)
        with zipfile.ZipFile(path) as zf:
            if SSD_NAME not in zf.namelist():
                raise StructureError(f"{path.name} holds no {SSD_NAME}")
            zf.extractall(folder)
        xml = (folder / SSD_NAME).read_bytes()
        try:
            validate_description(xml)
        except ExportError as e:
            raise StructureError(f"{path.name}: {e}") from None
        root = ET.fromstring(xml)
        system = root.find(_q("ssd:System"))
        assert system is not None  # the schema requires it
        components = list(system.iterfind(f"{_q('ssd:Elements')}/{_q('ssd:Component')}"))
        named = [(c.get("name", ""), _inside(folder, c.get("source", ""), path.name)) for c in components]
        connections = [
            f"{c.get('startElement')}.{c.get('startConnector')}={c.get('endElement')}.{c.get('endConnector')}"
            for c in system.iterfind(f"{_q('ssd:Connections')}/{_q('ssd:Connection')}")
        ]
        bindings = [(c.get("name", ""), n, v) for c in components for n, v in _bindings(c, folder)]
        de = root.find(_q("ssd:DefaultExperiment"))
        start = float(de.get("startTime", "0")) if de is not None else 0.0
        stop = float(de.get("stopTime")) if de is not None and de.get("stopTime") else None  # type: ignore[arg-type]
        yield structure_of(named, connections, bindings, name=root.get("name", path.stem), step=_step(root),
                           start=start, stop=stop)
