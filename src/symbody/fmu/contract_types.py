"""The model description types of the runtime contract (:mod:`symbody.fmu.contract`): ONE table of the fields
of ``SbPoint``, ``SbVariable`` and ``SbModel``, of the constants of ``SbVarKind`` and ``SbVarType`` and of the
data ``model.c`` defines.

``fmu_templates/symbody_model.h`` declares them as :func:`symbody.fmu.contract.c_contract` writes them from
these tables, and :class:`symbody.fmu.sources.ModelSource` initializes ``sb_model`` and the variables through
:func:`field_values`, which refuses an initializer that leaves a field out (C would make it zero).

Example:
    >>> [f.name for f in MODEL][:4]
    ['name', 'token', 'nq', 'nc']
    >>> var_kind("dq"), var_type("Boolean")
    ('SB_VAR_DQ', 'SB_TYPE_BOOLEAN')
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ExportError


@dataclass(frozen=True)
class Field:
    """A field of a C struct of the contract: ``ctype name;`` and what it holds."""

    ctype: str  # "int", "const double *", ...
    name: str
    comment: str

    def declaration(self) -> str:
        """``const double *q0;``"""
        space = "" if self.ctype.endswith("*") else " "
        return f"{self.ctype}{space}{self.name};"


#: SbPoint: a point at which the blocks are evaluated (vectors in the order of the model's coordinates, inputs,
#: parameters and constraint rows).
POINT = (
    Field("double", "t", "time"),
    Field("const double *", "q", "positions (nq)"),
    Field("const double *", "dq", "velocities (nq)"),
    Field("const double *", "u", "inputs (nu), then their first and second time derivatives (nu each)"),
    Field("const double *", "p", "parameters (np)"),
    Field("const double *", "ddq", "accelerations (nq), used by outputs and residual Jacobians"),
    Field(
        "const double *",
        "lam",
        "multipliers (nc), then the contact forces (nk) and the friction forces (nf); used by outputs, Jacobians, "
        "the normal forces of friction and the rates",
    ),
    Field("const double *", "xs", "first-order states (ns)"),
    Field("double", "tau", "time since the inputs were set (inside a Co-Simulation step), else 0"),
    Field(
        "const double *",
        "c",
        "the constants block (SbModel.nconst): parameter-only subexpressions of the block functions, filled from p "
        "by sb_constants whenever the parameters change",
    ),
)

#: SbVarKind: what an FMU variable is; (kind of :class:`symbody.fmu.variables.FmuVariable`, C constant, meaning),
#: in the order of the enum.
VAR_KINDS = (
    ("time", "SB_VAR_TIME", "the independent variable"),
    ("q", "SB_VAR_Q", "coordinate position (state)"),
    ("dq", "SB_VAR_DQ", "coordinate velocity (state)"),
    ("ddq", "SB_VAR_DDQ", "coordinate acceleration"),
    ("u", "SB_VAR_U", "input"),
    ("p", "SB_VAR_P", "model parameter (tunable)"),
    ("y", "SB_VAR_Y", "user output"),
    ("setting", "SB_VAR_SETTING", "solver or stabilization setting (index: SbSetting)"),
    ("event", "SB_VAR_EVENT", "event indicator (index: the contacts, the switching functions, the friction elements)"),
    ("x", "SB_VAR_X", "first-order state (continuous state)"),
    ("dx", "SB_VAR_DX", "rate of a first-order state, der(<state>)"),
)

#: SbVarType: FMI types of the variables (type of :class:`~symbody.fmu.variables.FmuVariable`, C constant, meaning).
VAR_TYPES = (
    ("Real", "SB_TYPE_REAL", "FMI 2 Real / FMI 3 Float64"),
    ("Integer", "SB_TYPE_ENUM", "an integer code: FMI 2 Integer / FMI 3 Int64"),
    ("Boolean", "SB_TYPE_BOOLEAN", "FMI 2 / FMI 3 Boolean"),
)

#: SbVariable: one FMU variable; its value reference is its index in SbModel.variables plus SbInstance.first_vr
#: (0 in FMI 2, 1 in FMI 3).
VARIABLE = (
    Field("const char *", "name", "its name in modelDescription.xml"),
    Field("SbVarKind", "kind", "what it is"),
    Field("int", "index", "index in its vector (q, u, p, y, ...) or the SbSetting"),
    Field("SbVarType", "type", "its FMI type"),
    Field("double", "min", "smallest accepted value (inclusive); -INFINITY when unbounded"),
    Field("double", "max", "largest accepted value (inclusive); INFINITY when unbounded"),
)

_NAMES = "const char *const *"
#: SbModel: the description of the model that model.c defines as ``sb_model`` (sizes, variables, start values,
#: names); :class:`symbody.fmu.sources.ModelSource` gives every field a value.
MODEL = (
    Field("const char *", "name", "model name"),
    Field("const char *", "token", "instantiation token (FMI 3) / GUID (FMI 2)"),
    Field("int", "nq", "coordinates"),
    Field("int", "nc", "constraint rows of D (holonomic first)"),
    Field("int", "nh", "holonomic rows"),
    Field("int", "ninit", "rows of Phi_init (Phi followed by initial conditions)"),
    Field("int", "nu", "inputs"),
    Field("int", "np", "parameters"),
    Field("int", "ny", "outputs"),
    Field("int", "has_me", "1: the Model Exchange interface is compiled into this FMU"),
    Field("int", "has_cs", "1: the Co-Simulation interface is compiled into this FMU"),
    Field("int", "nvars", "FMU variables"),
    Field("const SbVariable *", "variables", "the FMU variables (nvars), in the order of their value references"),
    Field("const double *", "q0", "start positions (nq)"),
    Field("const double *", "dq0", "start velocities (nq)"),
    Field("const double *", "u0", "start inputs (nu)"),
    Field("const double *", "p0", "parameter values (np)"),
    Field("const double *", "settings0", "default settings (SB_N_SETTINGS)"),
    Field("const int *", "init_fix", "per Phi_init row: coordinate held at its start value, or -1"),
    Field(
        "const unsigned char *",
        "independent",
        "per coordinate: 1 when its start velocity is independent at the model's start configuration (sb_assembly.c, "
        "initial velocities)",
    ),
    Field(_NAMES, "coordinate_names", "names of the coordinates (nq)"),
    Field(_NAMES, "constraint_names", "names of the rows of D (nc)"),
    Field(_NAMES, "init_names", "names of the rows of Phi_init (ninit)"),
    Field("int", "nk", "unilateral contacts (sb_contacts; sb_events.c)"),
    Field(_NAMES, "contact_names", "their names (nk)"),
    Field("int", "nsw", "switching functions of the loads (sb_switches)"),
    Field("int", "nf", "stick-slip friction elements (sb_frictions; sb_events.c)"),
    Field(_NAMES, "friction_names", "their names (nf)"),
    Field("int", "friction_implicit", "1: some normal force depends on multipliers or event forces"),
    Field("int", "has_direct", "1: sb_accelerations_direct gives ddq (closed form)"),
    Field("int", "ns", "first-order states (sb_rates), after q and dq in the state"),
    Field("const double *", "s0", "their start values (ns)"),
    Field(_NAMES, "state_names", "their names (ns)"),
    Field("int", "nmotion", "motion inputs"),
    Field("const int *", "motion", "per motion input: the index of its position z in u (dz, ddz follow)"),
    Field("int", "nconst", "entries of the constants block (sb_constants)"),
)

#: The data model.c defines besides the block functions: (C type, name, meaning).
MODEL_DATA = (
    ("const SbModel", "sb_model", "the model's description"),
    (
        "const int *const",
        "sb_mass_parent",
        "parent of each coordinate in the tree of the mass matrix (-1: a root), or NULL when M is not factored "
        "along a tree (sb_ltdl.h)",
    ),
)


def var_kind(kind: str) -> str:
    """The ``SbVarKind`` constant of an FMU variable's kind (``"q"`` -> ``"SB_VAR_Q"``)."""
    return dict((k, c) for k, c, _ in VAR_KINDS)[kind]


def var_type(type_: str) -> str:
    """The ``SbVarType`` constant of an FMU variable's type (``"Real"`` -> ``"SB_TYPE_REAL"``)."""
    return dict((t, c) for t, c, _ in VAR_TYPES)[type_]


def field_values(fields: tuple[Field, ...], values: dict[str, str], struct: str) -> list[tuple[str, str]]:
    """``(field, C value)`` of every field of ``struct`` in the table's order.

    Raises:
        ExportError: a field without a value (C would make it zero) or a value of no field.

    Example:
        >>> field_values(VARIABLE[:2], {"kind": "SB_VAR_Q", "name": '"x"'}, "SbVariable")
        [('name', '"x"'), ('kind', 'SB_VAR_Q')]
    """
    names = [f.name for f in fields]
    missing = [n for n in names if n not in values]
    unknown = [n for n in values if n not in names]
    if missing or unknown:
        raise ExportError(f"{struct} initializer: no value for {missing}, values of no field {unknown}")
    return [(n, values[n]) for n in names]
