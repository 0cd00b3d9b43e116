"""System structures: FMUs wired output to input, with parameter values (behind ``symbody system``).

A :class:`SystemStructure` names each FMU after its file's stem (which must be an identifier, and
distinct), connects outputs to inputs (``A.out=B.in``, split at the first dot of each side) and binds
start values of parameters and inputs (``comp.var = value`` lines of a parameter file).  Everything is
checked against the FMUs' model descriptions before anything is written: every name exists, every
connection goes from an output to an input of the same type, no input is connected twice.  The writers
are :mod:`symbody.fmu.ssp` (SSP 1.0) and :mod:`symbody.fmu.osp` (libcosim's ``OspSystemStructure.xml``);
:mod:`symbody.fmu.cosim` runs a structure.

Example:
    >>> parse_connection("plant.F_trolley=ctrl.F_trolley") == Link("plant", "F_trolley", "ctrl", "F_trolley")
    True
    >>> parse_connection("plant.x")
    Traceback (most recent call last):
    ...
    symbody.fmu.system_structure.StructureError: --connect 'plant.x': write OUTPUT=INPUT as comp.var=comp.var
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SymbodyError

#: The value types a binding can set, by the model description's type name (FMI 2 and 3).
BINDABLE = {"Real": float, "Float64": float, "Float32": float, "Integer": int, "Int32": int, "Int64": int,
            "Boolean": bool}


class StructureError(SymbodyError, ValueError):
    """A system structure that cannot be built: an unknown FMU, variable or component, a wrong connection."""


@dataclass(frozen=True)
class Link:
    """A connection from output ``output`` of component ``source`` to input ``input`` of ``target``."""

    source: str
    output: str
    target: str
    input: str

    def __str__(self) -> str:
        return f"{self.source}.{self.output}={self.target}.{self.input}"


@dataclass
class Element:
    """A component: an FMU and its model description (fmpy's)."""

    name: str
    fmu: Path
    md: Any

    @property
    def variables(self) -> dict[str, Any]:
        return {v.name: v for v in self.md.modelVariables}

    @property
    def fmi_version(self) -> int:
        return 3 if str(self.md.fmiVersion).startswith("3") else 2


@dataclass
class SystemStructure:
    """FMUs (:class:`Element`), their connections (:class:`Link`, in the order given) and the values bound to
    their parameters and inputs (``bindings[component][variable]``); ``step`` is the communication step the
    structure recommends (written as libcosim's fixed-step algorithm), ``start`` and ``stop`` its experiment."""

    name: str
    elements: list[Element]
    links: list[Link]
    bindings: dict[str, dict[str, float | int | bool]] = field(default_factory=dict)
    step: float | None = None
    start: float = 0.0
    stop: float | None = None

    def element(self, name: str) -> Element:
        for e in self.elements:
            if e.name == name:
                return e
        known = ", ".join(e.name for e in self.elements)
        raise StructureError(f"no component {name!r} (the components are the FMUs' file stems: {known})")


def parse_connection(text: str) -> Link:
    """``A.out=B.in`` (each side split at its first dot) as a :class:`Link`."""
    left, eq, right = text.partition("=")
    ends = [side.strip().partition(".") for side in (left, right)]
    if not eq or any(not comp or not dot or not var for comp, dot, var in ends):
        raise StructureError(f"--connect {text!r}: write OUTPUT=INPUT as comp.var=comp.var")
    (a, _, out), (b, _, inp) = ends
    return Link(a, out, b, inp)


def _element(name: str, fmu: str | Path) -> Element:
    from .run import SimulationError, read_description

    path = Path(fmu)
    if not name.isidentifier():
        raise StructureError(f"{path.name}: a component's name (its FMU's file stem) must be an identifier")
    try:
        md = read_description(path)
    except SimulationError as e:
        raise StructureError(str(e)) from None
    if md.coSimulation is None:
        raise StructureError(f"{path.name} has no Co-Simulation interface: a system structure steps every FMU")
    return Element(name, path, md)


def _check_link(structure: SystemStructure, link: Link, fed: dict[tuple[str, str], Link]) -> None:
    src, dst = structure.element(link.source), structure.element(link.target)
    ends = ((src, link.output, "output", "from"), (dst, link.input, "input", "to"))
    for element, var, causality, direction in ends:
        v = element.variables.get(var)
        if v is None:
            raise StructureError(f"--connect {link}: {element.name} ({element.fmu.name}) has no variable {var!r}")
        if v.causality != causality:
            raise StructureError(
                f"--connect {link}: connections go from an output to an input; {element.name}.{var} is "
                f"{'an' if v.causality[0] in 'aeiou' else 'a'} {v.causality}, not an {causality} ({direction})"
            )
    if link.source == link.target:
        raise StructureError(f"--connect {link}: connects a component to itself")
    t_out, t_in = src.variables[link.output].type, dst.variables[link.input].type
    if BINDABLE.get(t_out) is not BINDABLE.get(t_in):
        raise StructureError(f"--connect {link}: {t_out} output into a {t_in} input")
    key = (link.target, link.input)
    if key in fed:
        raise StructureError(f"--connect {link}: {link.target}.{link.input} is already fed by {fed[key]}")
    fed[key] = link


def _typed(element: Element, var: str, text: str) -> float | int | bool:
    v = element.variables.get(var)
    where = f"{element.name}.{var}"
    if v is None:
        raise StructureError(f"parameter {where}: {element.name} ({element.fmu.name}) has no variable {var!r}")
    if v.causality not in ("parameter", "input") or v.variability == "constant":
        raise StructureError(f"parameter {where}: only parameters and inputs take start values, it is a {v.causality}")
    kind = BINDABLE.get(v.type)
    if kind is None:
        raise StructureError(f"parameter {where}: {v.type} variables cannot be bound")
    try:
        if kind is bool:
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError(text)
            return text.lower() in ("true", "1")
        value = int(text) if kind is int else float(text)
    except ValueError:
        raise StructureError(f"parameter {where} = {text!r} is not a {v.type} value") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise StructureError(f"parameter {where} = {text!r} is not finite")
    return value


def read_parameter_file(path: str | Path) -> list[tuple[str, str, str]]:
    """``(component, variable, value text)`` of a parameter file: ``comp.var = value`` lines, ``#`` comments.

    Raises:
        StructureError: an unreadable file or a line of another form (named with its number).
    """
    try:
        lines = Path(path).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise StructureError(f"cannot read the parameter file {str(path)!r}: {e}") from None
    out = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        name, eq, value = text.partition("=")
        comp, dot, var = name.strip().partition(".")
        if not eq or not dot or not comp or not var.strip() or not value.strip():
            raise StructureError(f"{Path(path).name}, line {number}: write comp.var = value, not {text!r}")
        out.append((comp, var.strip(), value.strip()))
    return out


def default_step(elements: list[Element]) -> float | None:
    """The smallest step size of the FMUs' default experiments (a controller's is its sample time), or None."""
    steps = []
    for e in elements:
        experiment = e.md.defaultExperiment
        if experiment is not None and experiment.stepSize:
            steps.append(float(experiment.stepSize))
    return min(steps) if steps else None


def system_structure(
    fmus: list[str | Path],
    connections: list[str],
    parameters: list[tuple[str, str, str]] | None = None,
    *,
    name: str = "system",
    step: float | None = None,
    start: float = 0.0,
    stop: float | None = None,
) -> SystemStructure:
    """The checked :class:`SystemStructure` of FMU files (components named after their stems), ``A.out=B.in``
    connections and parameter bindings ``(component, variable, value text)``; ``step`` defaults to
    :func:`default_step`.

    Raises:
        StructureError: two FMUs with the same stem, a stem that is no identifier, an unknown component or
            variable, a connection that is not output to input of one type, an input fed twice, a binding
            of something that is not a parameter or input, a value of the wrong type, a bad step.
    """
    named = [(Path(f).stem, Path(f)) for f in fmus]
    structure = structure_of(named, connections, parameters or [], name=name, step=step, start=start, stop=stop)
    if structure.step is None:
        structure.step = default_step(structure.elements)
    return structure


def structure_of(
    named: list[tuple[str, Path]],
    connections: list[str],
    parameters: list[tuple[str, str, str]],
    *,
    name: str = "system",
    step: float | None = None,
    start: float = 0.0,
    stop: float | None = None,
) -> SystemStructure:
    """The checked :class:`SystemStructure` of components ``(name, FMU file)`` (see :func:`system_structure`)."""
    elements = [_element(n, f) for n, f in named]
    seen: dict[str, Path] = {}
    for e in elements:
        if e.name in seen:
            raise StructureError(f"{seen[e.name]} and {e.fmu} would both be component {e.name!r}: rename one file")
        seen[e.name] = e.fmu
    if step is not None and not (step > 0 and math.isfinite(step)):
        raise StructureError(f"the communication step {step} must be a positive number")
    for t, what in ((start, "start"), (stop, "stop")):
        if t is not None and not math.isfinite(t):
            raise StructureError(f"the {what} time {t} must be finite")
    structure = SystemStructure(name, elements, [], {}, step, start, stop)
    fed: dict[tuple[str, str], Link] = {}
    for text in connections:
        link = parse_connection(text)
        _check_link(structure, link, fed)
        structure.links.append(link)
    for comp, var, text in parameters:
        element = structure.element(comp)
        if (comp, var) in fed:
            raise StructureError(f"parameter {comp}.{var}: this input is connected to {fed[(comp, var)]}")
        structure.bindings.setdefault(comp, {})[var] = _typed(element, var, text)
    return structure
