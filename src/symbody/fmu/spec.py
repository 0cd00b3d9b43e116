"""Everything that defines one FMU of a model: :class:`FmuSpec`.

An ``FmuSpec`` gathers the FMI version, the kind (``cs``, ``me`` or ``both``),
the variables and their value references, the exact Jacobians, the
ModelStructure dependencies and the generated ``model.c``.  The XML writers
(:mod:`symbody.fmu.description`) and the builders (:mod:`symbody.fmu.build`,
:mod:`symbody.fmu.python_backend`) read from it.

Example:
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> spec = FmuSpec(eq, fmi_version=3, kind="both")
    >>> spec.interfaces, spec.platform, spec.source_files[0]
    (('ModelExchange', 'CoSimulation'), 'x86_64-linux', 'model.c')
    >>> sorted(spec.runtime_deps(spec.variable("ddq", 0)))
    [('q', 0), ('u', 0)]
"""

from __future__ import annotations

import hashlib
import re
from functools import cached_property
from typing import TYPE_CHECKING

from ..errors import ExportError
from ..model.contacts import event_force_symbols
from .description import DEFAULT_EXPERIMENT
from .jacobians import JACOBIAN_MODES, ResidualJacobians, ResidualPattern, jacobian_mode
from .platforms import host_platform
from .structure import Dependencies, Known
from .variables import KINDS, FmuVariable, fmu_variables

if TYPE_CHECKING:
    from ..equations import Equations

GENERIC_SOURCES = (
    "sb_instance.c",
    "sb_calls.c",
    "sb_variables.c",
    "sb_dynamics.c",
    "sb_assembly.c",
    "sb_jacobians.c",
    "sb_snapshot.c",
    "sb_solver.c",
    "sb_rk4.c",
    "sb_linalg.c",
    "sb_singular.c",
    "sb_passage.c",
    "sb_branch.c",
    "sb_ltdl.c",
    "sb_tangents.c",
    "sb_events.c",
    "sb_events_resolve.c",
    "sb_flights.c",
    "sb_events_cs.c",
    "sb_event_laws.c",
)
GENERIC_HEADERS = (
    "symbody_model.h",
    "sb_runtime.h",
    "sb_internal.h",
    "sb_calls.h",
    "sb_solver.h",
    "sb_linalg.h",
    "sb_ltdl.h",
    "sb_tangents.h",
    "sb_events.h",
    "sb_events_work.h",
    "sb_event_laws.h",
)


MAX_IDENTIFIER = 64
_WINDOWS_DEVICES = frozenset(
    ["con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))]
)


def model_identifier(name: str) -> str:
    """The ``modelIdentifier`` of a model: a C identifier usable as a file name on every platform.

    The model name itself when it is an identifier starting with a letter, of at
    most 64 characters, that Windows accepts as a file name; otherwise a readable prefix of it with a
    hash of the whole name (``modelName`` in the XML keeps the full name).

    Example:
        >>> model_identifier("crane"), model_identifier("con")
        ('crane', 'con_model')
        >>> ident = model_identifier("a" * 300)
        >>> len(ident), ident[:4], ident == model_identifier("a" * 300)
        (64, 'aaaa', True)
    """
    base = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not base or not base[0].isalpha():  # digits cannot start it; '_X' is reserved to C implementations
        base = "m_" + base
    if base != name or len(base) > MAX_IDENTIFIER:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        base = f"{base[: MAX_IDENTIFIER - 9]}_{digest}"
    if base.lower() in _WINDOWS_DEVICES:
        base += "_model"
    return base


def check_events(eq: Equations, backend: str = "c") -> None:
    """Refuse the models whose events a backend does not handle (an FMU without their events would let
    bodies pass through each other, or a block creep where it sticks): the Python backend
    (``backend="python"``) has no stick-slip friction; the native backend handles contacts, switching
    loads and stick-slip friction (``fmu_templates/sb_events.c``).

    Raises:
        ExportError: naming the friction elements and what is supported.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("block"); x = s.coordinate("x")
        >>> _ = s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
        >>> _ = s.stick_slip("floor", x, normal=9.81, mu=0.3)
        >>> check_events(s.derive(), "c")
        >>> check_events(s.derive(), "python")
        Traceback (most recent call last):
        ...
        symbody.errors.ExportError: model 'block' has stick-slip friction (floor): the Python backend does not \
handle its stick and slip events; export it with the native C backend (backend='c')
    """
    frictions = [f.name for f in eq.frictions]
    if frictions and backend != "c":
        raise ExportError(
            f"model {eq.name!r} has stick-slip friction ({', '.join(frictions)}): the Python backend does not "
            "handle its stick and slip events; export it with the native C backend (backend='c')"
        )


class FmuSpec:
    """The definition of one FMU (see module docstring).

    Args:
        eq: the derived :class:`symbody.Equations`.
        fmi_version: 2 or 3.
        kind: ``"cs"``, ``"me"`` or ``"both"``.
        jacobians: ``"exact"``, ``"forward"``, ``"none"`` or None (chosen by size), see
            :func:`symbody.fmu.jacobians.jacobian_mode`.
        backend: ``"c"`` (native) or ``"python"`` (pythonfmu): the events each handles differ
            (:func:`check_events`).

    Raises:
        ExportError: unknown FMI version, kind or Jacobian mode, clashing variable names, or events the
            backend does not handle.
    """

    #: The template files of the runtime (:func:`symbody.fmu.build.write_sources`).
    runtime_sources = GENERIC_SOURCES
    runtime_headers = GENERIC_HEADERS

    def __init__(
        self, eq: Equations, fmi_version: int = 2, kind: str = "both", jacobians: str | None = None, backend: str = "c"
    ):
        if fmi_version not in (2, 3):
            raise ExportError(f"unsupported FMI version {fmi_version!r}: use 2 or 3")
        if kind not in KINDS:
            raise ExportError(f"unknown FMU kind {kind!r}: use one of {', '.join(KINDS)}")
        check_events(eq, backend)
        self.eq = eq
        self.fmi_version = fmi_version
        self.kind = kind
        if jacobians is not None and jacobians not in JACOBIAN_MODES:
            raise ExportError(f"unknown Jacobian mode {jacobians!r}: use one of {', '.join(JACOBIAN_MODES)}")
        self._jacobian_request = jacobians
        self.variables: list[FmuVariable] = fmu_variables(eq, kind)
        self._by_kind: dict[tuple[str, int], FmuVariable] = {(v.kind, v.index): v for v in self.variables}

    # -- identity ----------------------------------------------------------------
    @property
    def model_identifier(self) -> str:
        """The FMI ``modelIdentifier`` (names the binary): see :func:`model_identifier`."""
        return model_identifier(self.eq.name)

    @property
    def has_me(self) -> bool:
        return self.kind in ("me", "both")

    @property
    def event_indicators(self) -> int:
        """Event indicators of Model Exchange: the contacts, the switching functions, the friction elements."""
        return len(self.eq.contacts) + len(self.eq.switches) + len(self.eq.frictions)

    @property
    def has_cs(self) -> bool:
        return self.kind in ("cs", "both")

    @property
    def interfaces(self) -> tuple[str, ...]:
        return (("ModelExchange",) if self.has_me else ()) + (("CoSimulation",) if self.has_cs else ())

    @property
    def platform(self) -> str:
        """Binary folder of the host platform (``linux64`` for FMI 2, ``x86_64-linux`` for FMI 3)."""
        return host_platform().folder(self.fmi_version)

    @property
    def library_suffix(self) -> str:
        return host_platform().suffix

    @property
    def wrapper_source(self) -> str:
        return "fmi2Functions.c" if self.fmi_version == 2 else "fmi3Functions.c"

    @property
    def default_experiment(self) -> dict[str, str]:
        """The ``DefaultExperiment`` of ``modelDescription.xml``."""
        return dict(DEFAULT_EXPERIMENT)

    def archive_entries(self) -> list[tuple[str, bytes]]:
        """The archive entries beside the description, binaries and sources: the geometry document."""
        from .geometry import geometry_entry  # the geometry imports this module

        return [geometry_entry(self)]

    @property
    def source_files(self) -> list[str]:
        """C files of ``sources/`` to compile (all in one directory)."""
        return [*self.source.files, *GENERIC_SOURCES, self.wrapper_source]

    # -- generated code and symbolic data -------------------------------------------
    @cached_property
    def jacobians(self) -> ResidualJacobians:
        return ResidualJacobians(self.eq)

    @cached_property
    def jacobian_mode(self) -> str:
        """How the FMU evaluates Jacobians: ``exact``, ``forward`` or ``none``."""
        return jacobian_mode(self.jacobians, self._jacobian_request)

    @property
    def provides_directional_derivatives(self) -> bool:
        """False in the ``none`` mode (its implicit solver uses differences; none are offered to importers) and
        for models with stick-slip friction (its forces are not differentiated)."""
        return self.jacobian_mode != "none" and not self.eq.frictions

    @cached_property
    def dependencies(self) -> Dependencies:
        # without exact Jacobians in the FMU, the structural pattern (a superset) spares differentiating
        pattern = self.jacobians if self.jacobian_mode == "exact" else ResidualPattern(self.eq)
        return Dependencies(self.eq, pattern)

    @cached_property
    def source(self):
        from .sources import ModelSource

        return ModelSource(self.eq, self.kind, self.variables, self.jacobians, self.jacobian_mode)

    @property
    def token(self) -> str:
        return self.source.token

    # -- model structure --------------------------------------------------------------
    def variable(self, kind: str, index: int) -> FmuVariable:
        return self._by_kind[(kind, index)]

    def known_vr(self, known: Known) -> int:
        kind, index = known
        return 0 if kind == "t" else self._by_kind[(kind, index)].vr

    @property
    def derivatives(self) -> list[FmuVariable]:
        """State derivatives in state order: ``[dq; ddq; der(x)]`` for the states ``[q; dq; x]``."""
        return [v for kind in ("dq", "ddq", "dx") for v in self.variables if v.kind == kind]

    @property
    def initial_unknowns(self) -> list[FmuVariable]:
        """Outputs and state derivatives that are calculated or approximated at initialization."""
        return [
            v
            for v in self.variables
            if (v.causality == "output" or (v.kind == "dx" and self.has_me)) and v.initial in ("approx", "calculated")
        ]

    def _event_coupled(self, v: FmuVariable) -> bool:
        """Whether ``v`` depends on the forces of contacts or friction: an acceleration of a model with either,
        or an output of accelerations, multipliers or those forces.  Their dependencies follow the modes (a
        closed contact or a sticking element couples what it touches), so all knowns are declared."""
        eq = self.eq
        forces = event_force_symbols(eq)
        if not forces or v.kind not in ("ddq", "y", "dx"):
            return False
        if v.kind == "ddq":
            return True
        mask = 0
        for sym in [*forces, *eq.lam, *eq.ddq]:
            mask |= sym.mask
        expr = eq.outputs[v.index].expr if v.kind == "y" else eq.rates[v.index]
        return bool(expr.mask & mask)

    def _all_knowns(self, init: bool) -> set[Known]:
        eq = self.eq
        out: set[Known] = {("t", 0)} | {("u", k) for k in range(eq.nu)}
        out |= {(kind, i) for kind in ("q", "dq") for i in range(eq.nq)}
        out |= {("x", i) for i in range(eq.nx)}
        if init:
            out |= {("p", j) for j in range(len(eq.parameters))}
        return out

    def runtime_deps(self, v: FmuVariable) -> set[Known]:
        """Knowns of an output or derivative in Continuous-Time/Event Mode or at communication points."""
        d = self.dependencies
        if v.kind in ("q", "dq", "x"):
            deps = {(v.kind, v.index)}
        elif self._event_coupled(v):
            deps = self._all_knowns(init=False)
        elif v.kind == "ddq":
            deps = d.acc[v.index]
        elif v.kind == "y":
            deps = d.y[v.index]
        elif v.kind == "dx":
            deps = d.rates[v.index]
        else:
            raise ValueError(f"{v.name!r} is not an output")
        if not self.has_me:  # Co-Simulation: the knowns at communication points are the inputs
            return {k for k in deps if k[0] == "u"}
        return {k for k in deps if k[0] in ("q", "dq", "x", "u", "t")}

    def init_deps(self, v: FmuVariable) -> set[Known]:
        """Knowns of an initial unknown in Initialization Mode."""
        d = self.dependencies
        if v.kind in ("q", "dq"):
            return set(d.state_init) if v.initial == "approx" else {(v.kind, v.index)}
        if self._event_coupled(v):
            return {k for k in self._all_knowns(init=True) if k[0] != "p" or self._by_kind.get(k) is not None}
        if v.kind == "ddq":
            return set(d.acc_init[v.index])
        if v.kind == "y":
            return set(d.y_init[v.index])
        if v.kind == "dx":
            return set(d.rates_init[v.index])
        raise ValueError(f"{v.name!r} is not an initial unknown")
