"""Controller FMUs: the variables, ``modelDescription.xml`` data and ``controller.c`` of a :class:`ControlLaw`.

A controller FMU is built like a model's (:func:`symbody.fmu.build.build_fmu`: the same
description writer, platforms, compilation cache and packaging) from other C: the generated
``controller.c`` holds data only (one ``SbcController``, ``fmu_templates/sbc_controller.h``) and the
generic controller runtime of ``fmu_templates/`` (``sbc_runtime.c``, ``sbc_laws.c``, the FMI 2 and
FMI 3 wrappers ``sbc_fmi2.c`` and ``sbc_fmi3.c`` with what they share in ``sbc_calls.c``, and
``sb_linalg.c`` for the matrix exponential)
does the rest.  Value references: ``time`` 0, the measured inputs, the reference inputs, the
outputs, the parameters.

Example:
    >>> import numpy as np
    >>> from symbody.fmu.controllers import control_law
    >>> spec = ControllerSpec(control_law(np.array([[3.0]]), ["x"], ["F"]), "ctrl", fmi_version=2)
    >>> [(v.name, v.vr, v.causality) for v in spec.variables]  # doctest: +NORMALIZE_WHITESPACE
    [('time', 0, 'independent'), ('x', 1, 'input'), ('F', 2, 'output'), ('K[F,x]', 3, 'parameter'),
     ('x_ref', 4, 'parameter'), ('F_ref', 5, 'parameter')]
    >>> sorted(spec.runtime_deps(spec.variables[2]))
    [('u', 0)]
"""

from __future__ import annotations

import hashlib
import math
import uuid
from dataclasses import dataclass
from functools import cached_property

from .. import __version__
from ..codegen.c import c_comment, c_string
from ..errors import ExportError
from ..model.quantities import check_text
from .controllers import REFERENCES, ControlLaw
from .description import DEFAULT_EXPERIMENT
from .spec import model_identifier
from .structure import Known
from .variables import FmuVariable

CONTROLLER_SOURCES = ("sbc_runtime.c", "sbc_calls.c", "sbc_laws.c", "sb_linalg.c")
CONTROLLER_HEADERS = ("sbc_controller.h", "sbc_runtime.h", "sbc_calls.h", "sb_linalg.h")
CONTROLLER_WRAPPERS = ("sbc_fmi2.c", "sbc_fmi3.c")
_KIND = {"linear": "SBC_LINEAR", "pid": "SBC_PID", "shaper": "SBC_SHAPER"}


@dataclass
class ControllerSource:
    """The generated C of a controller: ``files`` (``controller.c``) and its instantiation ``token``."""

    files: dict[str, str]
    token: str
    derivative_files: tuple[str, ...] = ()


def _num(x: float) -> str:
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return repr(float(x))


class ControllerSpec:
    """The definition of one controller FMU (Co-Simulation, FMI 2 or 3), read by the description writer
    (:func:`symbody.fmu.description.model_description`) and the builder (:func:`symbody.fmu.build.build_fmu`).

    Args:
        law: the controller's :class:`~symbody.fmu.controllers.ControlLaw`.
        name: the FMU's model name (its ``modelIdentifier`` is :func:`~symbody.fmu.spec.model_identifier` of it).
        fmi_version: 2 or 3.
        references: ``"parameters"`` (default) or ``"inputs"``: what the references ``<name>_ref`` are.
        description: the model description's text.

    Raises:
        ExportError: an unsupported FMI version or ``references``, or two variables of the same name.
    """

    kind = "cs"
    has_me = False
    has_cs = True
    interfaces = ("CoSimulation",)
    provides_directional_derivatives = False
    runtime_sources = CONTROLLER_SOURCES
    runtime_headers = CONTROLLER_HEADERS
    derivatives: list[FmuVariable] = []
    #: The log categories of the controller runtime (sbc_runtime.h)
    log_categories = (
        ("logEvents", "the start of the controller"),
        ("logStatusWarning", "messages with status Warning"),
        ("logStatusDiscard", "messages with status Discard"),
        ("logStatusError", "messages with status Error (invalid calls or values)"),
        ("logStatusFatal", "messages with status Fatal"),
        ("logCalls", "every FMI function call"),
    )

    def __init__(
        self,
        law: ControlLaw,
        name: str,
        fmi_version: int = 2,
        references: str = "parameters",
        description: str = "",
    ):
        if fmi_version not in (2, 3):
            raise ExportError(f"unsupported FMI version {fmi_version!r}: use 2 or 3")
        if references not in REFERENCES:
            raise ExportError(f"references={references!r}: use one of {', '.join(REFERENCES)}")
        self.law = law
        self.name = check_text(name, "controller name")
        self.description = check_text(description or _describe(law), "controller description")
        self.fmi_version = fmi_version
        self.references = references
        as_inputs = references == "inputs"
        self.reference_parameters = [p for p in law.parameters if as_inputs and p.name in law.reference_of]
        self.parameters = [p for p in law.parameters if p not in self.reference_parameters]
        self.variables = self._variables()

    # -- identity (what the description writer and the builder read) ------------------------------
    @property
    def eq(self) -> ControllerSpec:
        """The object whose ``name`` and ``description`` the description writer reads (this spec)."""
        return self

    @property
    def model_identifier(self) -> str:
        return model_identifier(self.name)

    @property
    def event_indicators(self) -> int:
        """None: a controller FMU is Co-Simulation only and has no events."""
        return 0

    @property
    def wrapper_source(self) -> str:
        return CONTROLLER_WRAPPERS[self.fmi_version - 2]

    @property
    def source_files(self) -> list[str]:
        return [*self.source.files, *self.runtime_sources, self.wrapper_source]

    @property
    def token(self) -> str:
        return self.source.token

    @property
    def default_experiment(self) -> dict[str, str]:
        step = self.law.sample_time or float(DEFAULT_EXPERIMENT["stepSize"])
        return {**DEFAULT_EXPERIMENT, "stepSize": repr(step)}

    def archive_entries(self) -> list[tuple[str, bytes]]:
        return []

    # -- variables ------------------------------------------------------------------------------
    def _variables(self) -> list[FmuVariable]:
        law, units = self.law, self.law.units
        out: list[FmuVariable] = []
        variability = "discrete" if law.sample_time > 0 or law.kind == "shaper" else "continuous"

        def add(**kw) -> None:
            out.append(FmuVariable(vr=len(out), **kw))

        add(name="time", kind="time", index=0, type="Real", causality="independent", variability="continuous",
            initial=None, start=None, unit="s", description="simulation time")
        for j, n in enumerate(law.inputs):
            add(name=n, kind="u", index=j, type="Real", causality="input", variability="continuous", initial=None,
                start=0.0, unit=units.get(n), description=f"measured {n}")
        for k, p in enumerate(self.reference_parameters):
            add(name=p.name, kind="u", index=len(law.inputs) + k, type="Real", causality="input",
                variability="continuous", initial=None, start=p.value, unit=p.unit, description=p.description)
        for i, n in enumerate(law.outputs):
            add(name=n, kind="y", index=i, type="Real", causality="output", variability=variability,
                initial="calculated", start=None, unit=units.get(n), description=f"commanded {n}")
        for k, p in enumerate(self.parameters):
            add(name=p.name, kind="p", index=k, type="Real", causality="parameter",
                variability="fixed" if p.fixed else "tunable", initial="exact", start=p.value, unit=p.unit,
                description=p.description, min=None if math.isinf(p.min) else p.min,
                max=None if math.isinf(p.max) else p.max)
        seen: dict[str, str] = {}
        for v in out:
            if v.name in seen:
                raise ExportError(
                    f"controller variable name {v.name!r} is used twice ({seen[v.name]} and {v.causality}): "
                    "rename the measured or commanded variable"
                )
            seen[v.name] = v.causality
        return out

    # -- model structure ------------------------------------------------------------------------
    def known_vr(self, known: Known) -> int:
        kind, index = known
        if kind == "t":
            return 0
        wanted = "u" if kind == "u" else "p"
        return next(v.vr for v in self.variables if v.kind == wanted and v.index == index)

    @property
    def initial_unknowns(self) -> list[FmuVariable]:
        return [v for v in self.variables if v.causality == "output"]

    def runtime_deps(self, v: FmuVariable) -> set[Known]:
        """The inputs an output depends on at the same instant (direct feedthrough)."""
        law = self.law
        deps: set[Known] = {("u", j) for j, through in enumerate(law.feedthrough[v.index]) if through}
        for k, p in enumerate(self.reference_parameters):
            offset = law.reference_of[p.name]
            if (offset >= 0 and law.feedthrough[v.index][offset]) or offset == -1 - v.index:
                deps.add(("u", len(law.inputs) + k))
        return deps

    def init_deps(self, v: FmuVariable) -> set[Known]:
        return self.runtime_deps(v) | {("p", k) for k in range(len(self.parameters))}

    # -- generated C ----------------------------------------------------------------------------
    @cached_property
    def source(self) -> ControllerSource:
        body = self._tables()
        digest = hashlib.sha256(body.encode())
        digest.update(repr([(v.name, v.causality, v.start) for v in self.variables]).encode())
        token = "{" + str(uuid.UUID(bytes=digest.digest()[:16], version=4)) + "}"
        head = (
            f"/* controller.c -- generated by symbody {__version__}: {c_comment(self.name)}\n"
            f" * {c_comment(self.description)}\n"
            " * Data only: the runtime is sbc_runtime.c, sbc_laws.c and the FMI wrappers. */\n"
            "#include <math.h>\n\n#include \"sbc_controller.h\"\n\n"
        )
        text = head + body + self._struct(token)
        return ControllerSource({"controller.c": text}, token)

    def _tables(self) -> str:
        law = self.law

        def array(ctype: str, name: str, values: list[str], comment: str) -> str:
            return f"/* {c_comment(comment)} */\nstatic const {ctype} {name}[] = {{{', '.join(values) or '0'}}};\n"

        refs = self.reference_parameters
        names = [c_string(v.name) for v in self.variables]
        return (
            array("double", "coefficients", [_num(c) for c in law.coefficients], "start values of the coefficients")
            + array("int", "parameter_slot", [str(p.slot) for p in self.parameters], "coefficient of each parameter")
            + array("int", "parameter_fixed", ["1" if p.fixed else "0" for p in self.parameters], "fixed parameters")
            + array("double", "parameter_min", [_num(p.min) for p in self.parameters], "lower bounds")
            + array("double", "parameter_max", [_num(p.max) for p in self.parameters], "upper bounds")
            + array("double", "parameter_scale", [_num(p.scale) for p in self.parameters], "coefficient / parameter")
            + array("int", "reference_slot", [str(p.slot) for p in refs], "coefficient of each reference input")
            + array("double", "input_start", ["0.0"] * len(law.inputs) + [_num(p.value) for p in refs], "inputs")
            + f"/* variable names by value reference */\nstatic const char *const names[] = {{{', '.join(names)}}};\n\n"
        )

    def _struct(self, token: str) -> str:
        law = self.law
        fields = [
            ("name", c_string(self.name)),
            ("token", c_string(token)),
            ("kind", _KIND[law.kind]),
            ("nu", str(len(law.inputs))),
            ("nr", str(len(self.reference_parameters))),
            ("ny", str(len(law.outputs))),
            ("np", str(len(self.parameters))),
            ("nx", str(law.nx)),
            ("nc", str(len(law.coefficients))),
            ("sample_time", _num(law.sample_time)),
            ("coefficients", "coefficients"),
            ("parameter_slot", "parameter_slot"),
            ("parameter_fixed", "parameter_fixed"),
            ("parameter_min", "parameter_min"),
            ("parameter_max", "parameter_max"),
            ("parameter_scale", "parameter_scale"),
            ("reference_slot", "reference_slot"),
            ("input_start", "input_start"),
            ("names", "names"),
        ]
        body = "".join(f"    .{k} = {v},\n" for k, v in fields)
        return f"const SbcController sbc_controller = {{\n{body}}};\n"


def _describe(law: ControlLaw) -> str:
    ins, outs = ", ".join(law.inputs), ", ".join(law.outputs)
    if law.kind == "pid":
        return f"discrete PID of {outs} from {ins}, sampled every {law.sample_time:g} s"
    if law.kind == "shaper":
        return f"input shaper of {ins} into {outs}"
    if law.nx == 0:
        return f"state feedback {outs} from {ins}"
    timing = f"discrete, sampled every {law.sample_time:g} s" if law.sample_time else "continuous"
    return f"linear controller ({timing}, {law.nx} states) of {outs} from {ins}"


# ------------------------------------------------------------------------------------------- export


def plant_interface(plant) -> tuple[str, dict[str, tuple[str, str | None]]]:
    """``(name, {variable: (causality, unit)})`` of a plant: an FMU file, a :class:`symbody.System` or its
    :class:`symbody.Equations`.

    Raises:
        ExportError: the plant is none of these, or its FMU cannot be read.
    """
    from pathlib import Path

    if isinstance(plant, (str, Path)):
        from .run import SimulationError, read_description

        try:
            md = read_description(plant)
        except SimulationError as e:
            raise ExportError(str(e)) from None
        return md.modelName, {v.name: (v.causality, v.unit) for v in md.modelVariables}
    if hasattr(plant, "derive") and not hasattr(plant, "coordinates"):
        plant = plant.derive()
    if not hasattr(plant, "coordinates"):
        raise ExportError(f"plant={type(plant).__name__}: give the plant's FMU file, System or Equations")
    from .variables import fmu_variables

    return plant.name, {v.name: (v.causality, v.unit) for v in fmu_variables(plant, "cs")}


def _check_against_plant(plant, inputs: list[str], outputs: list[str], units: dict[str, str | None]) -> None:
    """The measured variables are outputs of the plant, the commanded ones its inputs; units from the plant."""
    name, variables = plant_interface(plant)
    for names, causality, role in ((inputs, "output", "measures"), (outputs, "input", "commands")):
        for n in names:
            if n not in variables or variables[n][0] != causality:
                have = [v for v, (c, _) in variables.items() if c == causality]
                shown = ", ".join(have[:12]) + (", ..." if len(have) > 12 else "")
                raise ExportError(
                    f"the controller {role} {n!r}, which is not an {causality} of the plant {name!r} "
                    f"(its {causality}s: {shown or 'none'})"
                )
            units.setdefault(n, variables[n][1])


def controller_fmu(
    controller,
    path,
    *,
    inputs: list[str],
    outputs: list[str],
    fmi: int = 2,
    name: str | None = None,
    references: str = "parameters",
    plant=None,
    units: dict[str, str | None] | None = None,
    platforms: list[str] | None = None,
    description: str = "",
):
    """Export a controller as a native Co-Simulation FMU (FMI 2 or 3) whose variables match the plant's.

    Args:
        controller: a gain matrix or :class:`~symbody.fmu.controllers.StateFeedback`, a python-control
            ``StateSpace`` or ``TransferFunction`` (continuous or discrete), a
            :class:`~symbody.fmu.controllers.PID` or an :class:`~symbody.fmu.controllers.InputShaper`
            (see :mod:`symbody.fmu.controllers` for the laws and their parameters).
        path: the ``.fmu`` file to write (atomically).
        inputs: the measured variables (the plant's outputs), in the order of the controller's inputs.
        outputs: the commanded variables (the plant's inputs).
        fmi: 2 or 3.
        name: the model name (default: the file's stem).
        references: ``"parameters"`` (default) or ``"inputs"``: the operating points and set points
            ``<variable>_ref`` as tunable parameters or as inputs a master connects.
        plant: the plant's FMU file, System or Equations: the names are checked against it and the
            units taken from it.
        units: units of the inputs and outputs by name (default: the plant's).
        platforms: as :func:`symbody.fmu.export_fmu`'s (default: every platform whose compiler is installed).
        description: the FMU's description (default: one naming the law and its signals).

    Returns:
        The path written.

    Raises:
        ExportError: an unknown controller, names that do not match it or the plant, an unavailable
            platform, a failed compilation (nothing is written).

    Example (a PD law on a trolley, FMI 3, its gains tunable parameters):
        >>> import numpy as np, tempfile, pathlib, fmpy
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "pd.fmu"
        >>> fmu = controller_fmu(np.array([[4e4, 2e4]]), out, inputs=["x", "dx"], outputs=["F"], fmi=3,
        ...                      units={"x": "m", "dx": "m/s", "F": "N"})
        >>> [(v.name, v.causality, v.unit) for v in fmpy.read_model_description(str(fmu)).modelVariables][1:5]
        [('x', 'input', 'm'), ('dx', 'input', 'm/s'), ('F', 'output', 'N'), ('K[F,x]', 'parameter', 'N/m')]
    """
    from pathlib import Path

    from .build import build_fmu
    from .controllers import control_law

    path = Path(path)
    if path.suffix.lower() != ".fmu":
        raise ExportError(f"{path.name}: a controller FMU's file name ends in .fmu")
    units = dict(units or {})
    if plant is not None:
        _check_against_plant(plant, list(inputs), list(outputs), units)
    law = control_law(controller, inputs, outputs, units)
    spec = ControllerSpec(law, name or path.stem, fmi, references, description)
    return build_fmu(spec, path, platforms=platforms)
