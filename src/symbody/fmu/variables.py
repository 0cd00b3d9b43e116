"""The variables of a symbody FMU and their value references.

Names follow 3D_MEC: a coordinate ``theta`` gives the outputs
``theta`` (position), ``dtheta`` (velocity) and ``ddtheta`` (acceleration);
inputs, parameters and user outputs keep their model names (a motion input
``z`` is the three inputs ``z``, ``dz``, ``ddz``); a first-order state ``x`` is the
output ``x`` with its rate ``der(x)``.  The independent
variable is ``time``.  Solver and stabilization settings are parameters with
dotted names (``solver.method``, ``baumgarte.alpha``), which no model name can
take; they come from the runtime contract (:mod:`symbody.fmu.contract`).
Value references (``FmuVariable.vr``) are the positions in :func:`fmu_variables`' list, in this
order: ``time``, positions, velocities, accelerations, first-order states, their rates, inputs, parameters,
outputs, settings, event indicators (Model Exchange: unilateral contacts, switching functions, friction) -- the same
for FMI 2 and FMI 3, for the C and the Python
backends; an FMI 3 modelDescription.xml numbers them from 1 instead of 0
(:data:`symbody.fmu.description.FMI3_FIRST_VALUE_REFERENCE`).

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
from typing import TYPE_CHECKING

from ..errors import ExportError
from .contract import SETTINGS, SETTINGS_DEFAULTS, SOLVER_METHODS, Setting, method_code, method_description
from .units import derivative_unit

if TYPE_CHECKING:
    from ..equations import Equations

__all__ = [
    "KINDS",
    "SETTINGS",
    "SETTINGS_DEFAULTS",
    "SOLVER_METHODS",
    "FmuVariable",
    "Setting",
    "fmu_variables",
    "method_code",
    "method_description",
]

#: FMU kinds: Co-Simulation, Model Exchange or both interfaces in one FMU.
KINDS = ("cs", "me", "both")


@dataclass
class FmuVariable:
    """One FMU variable.

    ``kind`` is ``time``, ``q``, ``dq``, ``ddq``, ``x`` (a first-order state), ``dx`` (its rate), ``u``, ``p``,
    ``y``, ``setting`` or ``event`` (an event indicator);
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
        return self.kind in ("q", "dq", "x")


def _finite(x) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def fmu_variables(eq: Equations, kind: str) -> list[FmuVariable]:
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
    x_vr = []
    for i, x in enumerate(eq.states):
        v = add(
            name=x.name,
            kind="x",
            index=i,
            type="Real",
            causality="output",
            variability="continuous",
            initial="exact",
            start=float(x.x0),
            unit=x.unit,
            description=x.description or f"first-order state {x.name}",
        )
        x_vr.append(v.vr)
    for i, x in enumerate(eq.states):
        add(
            name=f"der({x.name})",
            kind="dx",
            index=i,
            type="Real",
            causality="local",
            variability="continuous",
            initial="calculated",
            start=None,
            unit=derivative_unit(x.unit, 1),
            description=f"rate of state {x.name}",
            derivative=x_vr[i] if me else None,
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
            causality=s.causality,
            variability=s.variability,
            initial="exact",
            start=s.default,
            unit=s.unit,
            description=s.description,
            min=s.min,
            max=s.max,
        )
    if me:  # the event indicators of the unilateral contacts (FMI 3 refers to them by value reference)
        for i, contact in enumerate(eq.contacts):
            add(
                name=f"{contact.name}.indicator",
                kind="event",
                index=i,
                type="Real",
                causality="local",
                variability="continuous",
                initial="calculated",
                start=None,
                description=f"event indicator of contact {contact.name}: its gap while open, its force while closed",
            )
        nk = len(eq.contacts)
        for k, e in enumerate(eq.switches):
            add(
                name=f"switch{k}.indicator",
                kind="event",
                index=nk + k,
                type="Real",
                causality="local",
                variability="continuous",
                initial="calculated",
                start=None,
                description=f"switching function of the loads: {e}"[:200],
            )
        nsw = len(eq.switches)
        for j, f in enumerate(eq.frictions):
            add(
                name=f"{f.name}.indicator",
                kind="event",
                index=nk + nsw + j,
                type="Real",
                causality="local",
                variability="continuous",
                initial="calculated",
                start=None,
                description=f"event indicator of friction {f.name}: mu_static |N| - |F| while it sticks, the sliding "
                "rate along the slip direction while it slips",
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
