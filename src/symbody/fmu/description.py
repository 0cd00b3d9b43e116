"""``modelDescription.xml`` (FMI 2.0 and 3.0) and ``buildDescription.xml`` (FMI 3.0).

The variables, value references and capability flags are those of
:mod:`symbody.fmu.variables`; the ModelStructure dependencies come from
:mod:`symbody.fmu.structure`.  Dependencies reference ScalarVariable indices
(FMI 2) or value references (FMI 3).  FMI 3 value references are the 1-based
positions of the variables in ModelVariables, the numbers FMI 2's indices give
them (:data:`FMI3_FIRST_VALUE_REFERENCE`): importers that read FMI 3
dependencies or ``derivative`` attributes as positions (OMSimulator) then name
the same variables as those that read them as value references.

Example:
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> from symbody.fmu.spec import FmuSpec
    >>> xml = model_description(FmuSpec(eq, 3, "me")).decode()
    >>> '<ContinuousStateDerivative valueReference="4" dependencies="2 5" />' in xml
    True
"""

from __future__ import annotations

import datetime
import xml.etree.ElementTree as ET

from .. import __version__
from ..model.quantities import check_text
from .contract import LOG_CATEGORIES
from .units import base_units
from .variables import FmuVariable

#: The FMI 3 value reference of the first variable (``time``); variable ``v`` has ``v.vr + 1``.  The C
#: runtime's FMI 3 wrappers take the same (``SB_FMI3_FIRST_VR`` in fmi3Functions.c, sbc_fmi3.c).
FMI3_FIRST_VALUE_REFERENCE = 1

DEFAULT_EXPERIMENT = {"startTime": "0", "stopTime": "10", "stepSize": "0.01", "tolerance": "1e-06"}


def _num(x: float) -> str:
    return repr(float(x))


def _start_text(v: FmuVariable, start: float) -> str:
    """The ``start`` attribute of ``v`` (its start value ``start``) in the XML form of its type."""
    if v.type == "Boolean":
        return "true" if start else "false"
    if v.type == "Integer":
        return str(int(start))
    return _num(start)


def _check_text(root: ET.Element) -> None:
    """Raise ModelError if an attribute holds text that XML cannot carry (a model changed after its checks)."""
    for el in root.iter():
        for key, value in el.attrib.items():
            label = f"{el.tag} {el.get('name')!r}" if el.get("name") is not None else el.tag
            check_text(value, f"{label} {key}")


def _pretty(root: ET.Element) -> bytes:
    _check_text(root)
    ET.indent(root, space="  ")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"


def _units(spec) -> ET.Element | None:
    names = sorted({v.unit for v in spec.variables if v.unit})
    if not names:
        return None
    defs = ET.Element("UnitDefinitions")
    for name in names:
        u = ET.SubElement(defs, "Unit", name=name)
        parsed = base_units(name)
        if parsed is not None:
            exps, factor = parsed
            attrs = {k: str(e) for k, e in exps.items()}
            if factor != 1.0:
                attrs["factor"] = _num(factor)
            ET.SubElement(u, "BaseUnit", attrs)
    return defs


def _log_categories(spec) -> ET.Element:
    cats = ET.Element("LogCategories")
    for name, desc in getattr(spec, "log_categories", LOG_CATEGORIES):
        ET.SubElement(cats, "Category", name=name, description=desc)
    return cats


def _ref(vr: int, fmi: int) -> str:
    """How modelDescription.xml of FMI version ``fmi`` names variable ``vr``: its FMI 2 ScalarVariable index
    (1-based) or its FMI 3 value reference (the same number)."""
    return str(vr + 1 if fmi == 2 else vr + FMI3_FIRST_VALUE_REFERENCE)


def _common_attrs(v: FmuVariable, fmi: int) -> dict[str, str]:
    a = {"name": v.name, "valueReference": str(v.vr) if fmi == 2 else _ref(v.vr, 3)}
    if v.description:
        a["description"] = v.description
    a["causality"] = v.causality
    a["variability"] = v.variability
    if v.initial and v.causality not in ("input", "independent"):
        a["initial"] = v.initial
    return a


def _type_attrs(v: FmuVariable, fmi: int) -> dict[str, str]:
    a: dict[str, str] = {}
    if v.declared_type:
        a["declaredType"] = v.declared_type
    if v.type == "Real" and v.unit:
        a["unit"] = v.unit
    if v.type in ("Real", "Integer"):
        if v.min is not None:
            a["min"] = _num(v.min) if v.type == "Real" else str(int(v.min))
        if v.max is not None:
            a["max"] = _num(v.max) if v.type == "Real" else str(int(v.max))
    if v.start is not None and v.initial != "calculated":
        a["start"] = _start_text(v, v.start)
    if v.derivative is not None:
        a["derivative"] = _ref(v.derivative, fmi)
    return a


def _deps(spec, known_sets, fmi: int) -> str:
    refs = sorted(spec.known_vr(k) for k in known_sets)
    return " ".join(_ref(r, fmi) for r in refs)


def model_description(spec, native: bool = True) -> bytes:
    """The ``modelDescription.xml`` of an :class:`~symbody.fmu.spec.FmuSpec` (UTF-8 bytes).

    ``native=False`` describes the pythonfmu backend: no sources, no FMU state,
    no directional derivatives, and a Python interpreter needed at run time.
    """
    if spec.fmi_version == 2:
        return _fmi2(spec, native)
    if not native:
        raise ValueError("the Python backend builds FMI 2.0 FMUs only")
    return _fmi3(spec)


def _root(spec, tag_attrs: dict[str, str]) -> ET.Element:
    eq = spec.eq
    attrs = dict(tag_attrs)
    attrs["modelName"] = eq.name
    if eq.description:
        attrs["description"] = eq.description
    attrs["generationTool"] = f"symbody {__version__}"
    attrs["generationDateAndTime"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    attrs["variableNamingConvention"] = "flat"
    return ET.Element("fmiModelDescription", attrs)


def _fmi2(spec, native: bool = True) -> bytes:
    root = _root(spec, {"fmiVersion": "2.0", "guid": spec.token})
    root.set("numberOfEventIndicators", str(spec.event_indicators) if spec.has_me else "0")
    flag = "true" if native else "false"
    common = {
        "modelIdentifier": spec.model_identifier,
        "canGetAndSetFMUstate": flag,
        "canSerializeFMUstate": flag,
        # (with contacts: those of the current contact mode, sb_jacobians.c)
        "providesDirectionalDerivative": "true" if native and spec.provides_directional_derivatives else "false",
        "canNotUseMemoryManagementFunctions": "true",
    }
    if not native:
        common["needsExecutionTool"] = "true"
    for iface in spec.interfaces:
        attrs = dict(common)
        if iface == "CoSimulation":
            # the native runtime takes input derivatives (motion inputs: their rates; sb_variables.c)
            attrs.update(canHandleVariableCommunicationStepSize="true", canInterpolateInputs=flag)
        elif not spec.eq.nc:  # constrained: the branch check at accepted states (sb_singular.c)
            attrs["completedIntegratorStepNotNeeded"] = "true"
        el = ET.SubElement(root, iface, attrs)
        if native:
            files = ET.SubElement(el, "SourceFiles")
            for name in spec.source_files:
                ET.SubElement(files, "File", name=name)
    units = _units(spec)
    if units is not None:
        root.append(units)
    root.append(_log_categories(spec))
    ET.SubElement(root, "DefaultExperiment", spec.default_experiment)
    mv = ET.SubElement(root, "ModelVariables")
    for v in spec.variables:
        sv = ET.SubElement(mv, "ScalarVariable", _common_attrs(v, 2))
        ET.SubElement(sv, v.type, _type_attrs(v, 2))
    ms = ET.SubElement(root, "ModelStructure")
    outputs = [v for v in spec.variables if v.causality == "output"]
    if outputs:
        el = ET.SubElement(ms, "Outputs")
        for v in outputs:
            ET.SubElement(el, "Unknown", index=str(v.vr + 1), dependencies=_deps(spec, spec.runtime_deps(v), 2))
    if spec.has_me:
        el = ET.SubElement(ms, "Derivatives")
        for v in spec.derivatives:
            ET.SubElement(el, "Unknown", index=str(v.vr + 1), dependencies=_deps(spec, spec.runtime_deps(v), 2))
    init = spec.initial_unknowns
    if init:
        el = ET.SubElement(ms, "InitialUnknowns")
        for v in init:
            ET.SubElement(el, "Unknown", index=str(v.vr + 1), dependencies=_deps(spec, spec.init_deps(v), 2))
    return _pretty(root)


def _fmi3(spec) -> bytes:
    root = _root(spec, {"fmiVersion": "3.0", "instantiationToken": spec.token})
    common = {
        "modelIdentifier": spec.model_identifier,
        "canGetAndSetFMUState": "true",
        "canSerializeFMUState": "true",
        "providesDirectionalDerivatives": "true" if spec.provides_directional_derivatives else "false",
    }
    for iface in spec.interfaces:
        attrs = dict(common)
        if iface == "CoSimulation":
            attrs.update(canHandleVariableCommunicationStepSize="true", hasEventMode="false")
        else:  # constrained: the branch check at accepted states (sb_singular.c)
            attrs["needsCompletedIntegratorStep"] = "true" if spec.eq.nc else "false"
        ET.SubElement(root, iface, attrs)
    units = _units(spec)
    if units is not None:
        root.append(units)
    root.append(_log_categories(spec))
    ET.SubElement(root, "DefaultExperiment", spec.default_experiment)
    mv = ET.SubElement(root, "ModelVariables")
    tag = {"Real": "Float64", "Integer": "Int64", "Boolean": "Boolean"}
    for v in spec.variables:
        attrs = _common_attrs(v, 3)
        attrs.update(_type_attrs(v, 3))
        ET.SubElement(mv, tag[v.type], attrs)
    ms = ET.SubElement(root, "ModelStructure")
    for v in spec.variables:
        if v.causality == "output":
            ET.SubElement(ms, "Output", valueReference=_ref(v.vr, 3), dependencies=_deps(spec, spec.runtime_deps(v), 3))
    if spec.has_me:
        for v in spec.derivatives:
            ET.SubElement(
                ms,
                "ContinuousStateDerivative",
                valueReference=_ref(v.vr, 3),
                dependencies=_deps(spec, spec.runtime_deps(v), 3),
            )
    for v in spec.initial_unknowns:
        deps = _deps(spec, spec.init_deps(v), 3)
        ET.SubElement(ms, "InitialUnknown", valueReference=_ref(v.vr, 3), dependencies=deps)
    for v in spec.variables:  # the unilateral contacts and the switching functions (sb_events.c)
        if v.kind == "event":
            ET.SubElement(ms, "EventIndicator", valueReference=_ref(v.vr, 3))
    return _pretty(root)


#: Platforms whose build links the C math library explicitly (``-lm``); elsewhere (Windows with MSVC or
#: MinGW, macOS) the math functions are part of the C runtime and there is no ``m`` library to link.
LIBM_PLATFORMS = ("x86_64-linux", "aarch64-linux")


def build_description(spec) -> bytes:
    """``sources/buildDescription.xml`` (FMI 3): the C99 sources, and libm where the platform needs it.

    One BuildConfiguration per Linux platform names the external library ``m``;
    a last one without ``platform`` serves every other platform (Windows, macOS),
    whose C runtime contains the math functions (MSVC has no ``m.lib``).
    """
    root = ET.Element("fmiBuildDescription", fmiVersion="3.0")
    for platform in (*LIBM_PLATFORMS, None):
        attrs = {"modelIdentifier": spec.model_identifier}
        if platform:
            attrs["platform"] = platform
        else:
            attrs["description"] = "other platforms: the math functions are part of the C runtime"
        bc = ET.SubElement(root, "BuildConfiguration", attrs)
        fs = ET.SubElement(bc, "SourceFileSet", language="C99")
        for name in spec.source_files:
            ET.SubElement(fs, "SourceFile", name=name)
        if platform:
            ET.SubElement(bc, "Library", name="m", external="true", description="C math library (libm)")
    return _pretty(root)
