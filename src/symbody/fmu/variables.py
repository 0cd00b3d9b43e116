"""The variables of a symbody FMU and their value references.

Names follow 3D_MEC: a coordinate ``theta`` gives the outputs
``theta`` (position), ``dtheta`` (velocity) and ``ddtheta`` (acceleration);
inputs, parameters and user outputs keep their model names.  The independent
variable is ``time``.  Solver and stabilization settings are parameters with
dotted names (``solver.method``, ``baumgarte.alpha``), which no model name can
take.  Value references are the positions in :func:`fmu_variables`' list, in
this order: ``time``, positions, velocities, accelerations, inputs,
parameters, outputs, settings -- the same for FMI 2 and FMI 3, for the C and
the Python backends.

Example:
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> [(v.name, v.vr, v.causality) for v in fmu_variables(eq, "me")]  # doctest: +NORMALIZE_WHITESPACE
    [('time', 0, 'independent'), ('theta', 1, 'output'), ('dtheta', 2, 'output'),
     ('ddtheta', 3, 'output'), ('T', 4, 'input')]
    >>> [v.name for v in fmu_variables(eq, "cs")][5:]  # doctest: +NORMALIZE_WHITESPACE
    ['solver.method', 'solver.step', 'solver.rtol', 'solver.atol', 'solver.max_step',
     'solver.ignore_external_tolerance']
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import ExportError
from .units import derivative_unit

#: FMU kinds: Co-Simulation, Model Exchange or both interfaces in one FMU.
KINDS = ("cs", "me", "both")


@dataclass(frozen=True)
class Setting:
    """A solver or stabilization setting exposed as an FMU parameter (see fmu_templates/symbody_model.h)."""

    name: str
    index: int  # SbSetting
    type: str  # "Real", "Integer" or "Boolean"
    default: float
    unit: str | None
    description: str
    min: float | None = None
    max: float | None = None
    interfaces: str = "cs"  # "cs": Co-Simulation only; "any": also Model Exchange
    constrained_only: bool = False


#: Solver methods of ``solver.method`` (value -> name, description).
SOLVER_METHODS = {
    1: ("rk4", "classic Runge-Kutta 4 with the fixed internal step solver.step"),
    2: ("dopri5", "adaptive Dormand-Prince 5(4) with solver.rtol and solver.atol"),
    3: ("rosenbrock23", "adaptive L-stable Rosenbrock 2(3) using the exact symbolic Jacobian (stiff models)"),
}

def method_description() -> str:
    """Description of ``solver.method``: every code with its name, e.g. ``1 = rk4 (...)``."""
    short = {1: "fixed step solver.step", 2: "adaptive, solver.rtol and solver.atol", 3: "adaptive, stiff models"}
    codes = ", ".join(f"{value} = {name} ({short[value]})" for value, (name, _) in SOLVER_METHODS.items())
    return f"Co-Simulation solver: {codes}"


def method_code(value: int | str) -> int:
    """The code of a solver method given by name (``"rk4"``) or code (``1``).

    Raises:
        ExportError: an unknown name or code.

    Example:
        >>> method_code("rosenbrock23"), method_code(1)
        (3, 1)
    """
    codes = {name: code for code, (name, _) in SOLVER_METHODS.items()}
    if isinstance(value, str) and value.strip() in codes:
        return codes[value.strip()]
    if not isinstance(value, bool) and isinstance(value, int) and value in SOLVER_METHODS:
        return value
    choices = ", ".join(f"{name} ({code})" for name, code in codes.items())
    raise ExportError(f"unknown solver method {value!r}: use one of {choices}")


#: ``solver.method`` is an Integer (FMI 2) / Int64 (FMI 3) parameter rather than an Enumeration, so that
#: masters without Enumeration support (OSP libcosim, Ecos) can choose the solver; the codes and names
#: are in its description.
SETTINGS = (
    Setting("solver.method", 0, "Integer", 2, None, method_description(), 1, 3),
    Setting("solver.step", 1, "Real", 1e-3, "s", "internal step of rk4", None),
    Setting("solver.rtol", 2, "Real", 1e-6, None, "relative tolerance of dopri5 and rosenbrock23", None),
    Setting("solver.atol", 3, "Real", 1e-8, None, "absolute tolerance of dopri5 and rosenbrock23", None),
    Setting("solver.max_step", 4, "Real", 0.0, "s", "largest step of dopri5 and rosenbrock23 (0: unbounded)", 0.0),
    Setting(
        "solver.projection",
        5,
        "Boolean",
        1,
        None,
        "project positions and velocities onto the constraints after each step",
        constrained_only=True,
    ),
    Setting(
        "solver.projection_tol",
        6,
        "Real",
        1e-10,
        None,
        "tolerance on |Phi| of the position projection and assembly",
        None,
        constrained_only=True,
    ),
    Setting(
        "baumgarte.alpha",
        7,
        "Real",
        10.0,
        "1/s",
        "Baumgarte damping: the constraint rows get 2 alpha (D dq - beta)",
        0.0,
        interfaces="any",
        constrained_only=True,
    ),
    Setting(
        "baumgarte.beta",
        8,
        "Real",
        10.0,
        "1/s",
        "Baumgarte frequency: the holonomic rows get beta^2 Phi",
        0.0,
        interfaces="any",
        constrained_only=True,
    ),
    Setting(
        "solver.ignore_external_tolerance",
        9,
        "Boolean",
        0,
        None,
        "true: solver.rtol is kept when the importer passes a tolerance (fmi2SetupExperiment, "
        "fmi3EnterInitializationMode); false: that tolerance replaces solver.rtol unless solver.rtol is set",
    ),
)

#: Default values of all settings, in SbSetting order (the C runtime reads them).
SETTINGS_DEFAULTS = tuple(s.default for s in sorted(SETTINGS, key=lambda s: s.index))


@dataclass
class FmuVariable:
    """One FMU variable.

    ``kind`` is ``time``, ``q``, ``dq``, ``ddq``, ``u``, ``p``, ``y`` or ``setting``;
    ``index`` its position in that vector (for settings: the SbSetting index).
    ``derivative`` is the value reference of the state this variable is the
    derivative of (Model Exchange only).
    """

    name: str
    vr: int
    kind: str
    index: int
    type: str
    causality: str
    variability: str
    initial: str | None
    start: float | None
    unit: str | None = None
    description: str = ""
    min: float | None = None
    max: float | None = None
    derivative: int | None = None
    declared_type: str | None = None

    @property
    def is_state(self) -> bool:
        return self.kind in ("q", "dq")


def _finite(x) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def fmu_variables(eq, kind: str) -> list[FmuVariable]:
    """All variables of the FMU of ``eq`` for ``kind`` (``cs``, ``me`` or ``both``).

    Raises:
        ExportError: ``kind`` is unknown, or a model name clashes with ``time``.
    """
    if kind not in KINDS:
        raise ExportError(f"unknown FMU kind {kind!r}: use one of {', '.join(KINDS)}")
    me = kind in ("me", "both")
    cs = kind in ("cs", "both")
    constrained = eq.nc > 0
    # assembled states are iteration start values when the model has constraints
    state_initial = "approx" if constrained else "exact"
    out: list[FmuVariable] = []

    def add(**kw) -> FmuVariable:
        v = FmuVariable(vr=len(out), **kw)
        out.append(v)
        return v

    add(
        name="time",
        kind="time",
        index=0,
        type="Real",
        causality="independent",
        variability="continuous",
        initial=None,
        start=None,
        unit="s",
        description="simulation time",
    )
    q_vr = []
    for i, c in enumerate(eq.coordinates):
        v = add(
            name=c.name,
            kind="q",
            index=i,
            type="Real",
            causality="output",
            variability="continuous",
            initial=state_initial,
            start=float(c.q0),
            unit=c.unit,
            description=c.description or f"position of coordinate {c.name}",
        )
        q_vr.append(v.vr)
    dq_vr = []
    for i, c in enumerate(eq.coordinates):
        v = add(
            name=c.dq.name,
            kind="dq",
            index=i,
            type="Real",
            causality="output",
            variability="continuous",
            initial=state_initial,
            start=float(c.dq0),
            unit=derivative_unit(c.unit, 1),
            description=f"velocity of coordinate {c.name}",
            derivative=q_vr[i] if me else None,
        )
        dq_vr.append(v.vr)
    for i, c in enumerate(eq.coordinates):
        add(
            name=c.ddq.name,
            kind="ddq",
            index=i,
            type="Real",
            causality="output",
            variability="continuous",
            initial="calculated",
            start=None,
            unit=derivative_unit(c.unit, 2),
            description=f"acceleration of coordinate {c.name}",
            derivative=dq_vr[i] if me else None,
        )
    for i, u in enumerate(eq.inputs):
        add(
            name=u.name,
            kind="u",
            index=i,
            type="Real",
            causality="input",
            variability="continuous",
            initial=None,
            start=float(u.value),
            unit=u.unit,
            description=u.description,
            min=_finite(u.min),
            max=_finite(u.max),
        )
    for i, p in enumerate(eq.parameters):
        add(
            name=p.name,
            kind="p",
            index=i,
            type="Real",
            causality="parameter",
            variability="tunable",
            initial="exact",
            start=float(p.value),
            unit=p.unit,
            description=p.description,
            min=_finite(p.min),
            max=_finite(p.max),
        )
    for i, o in enumerate(eq.outputs):
        add(
            name=o.name,
            kind="y",
            index=i,
            type="Real",
            causality="output",
            variability="continuous",
            initial="calculated",
            start=None,
            unit=o.unit,
            description=o.description,
        )
    for s in SETTINGS:
        if s.constrained_only and not constrained:
            continue
        if s.interfaces == "cs" and not cs:
            continue
        add(
            name=s.name,
            kind="setting",
            index=s.index,
            type=s.type,
            causality="parameter",
            variability="tunable",
            initial="exact",
            start=s.default,
            unit=s.unit,
            description=s.description,
            min=s.min,
            max=s.max,
        )
    names: dict[str, FmuVariable] = {}
    for v in out:
        if v.name in names:
            raise ExportError(
                f"FMU variable name {v.name!r} is used twice ({names[v.name].kind} and {v.kind}); "
                "rename it in the model"
            )
        names[v.name] = v
    return out
