"""The runtime contract of symbody's FMUs: ONE table of the settings and of the model blocks.

A native FMU is the generated ``model.c`` plus the hand-written runtime in
``fmu_templates/``; a Python FMU is the generated numpy blocks plus
``python_runtime.py``.  Both sides must agree on

* the **settings** (solver and stabilization parameters with dotted names,
  ``solver.method``, ``baumgarte.alpha``, ...): their index (the C ``SbSetting``),
  type, default, accepted values, causality, variability, unit and description;
* the **blocks** the generated code provides (``sb_M_delta``, ``sb_constraints``,
  ...): their names, the arrays they fill, and what those mean;
* the **log categories** the C runtime logs to and ``modelDescription.xml`` lists.

This module is that table.  From it come the C pieces of
``fmu_templates/symbody_model.h`` between the ``contract.py`` markers (the
``SbSetting`` enum, the solver method codes, the check of a setting's value and
the block prototypes; :func:`sync_model_header` rewrites them), the settings of
the FMU variables (:mod:`symbody.fmu.variables`), the default settings of both
backends, and the block functions :mod:`symbody.fmu.sources` writes.
``python_runtime.py`` cannot import symbody (it runs inside the FMU): its
``SETTING_RULES`` mirror :data:`SETTINGS` and a test keeps them equal.

A setting's value reference is not part of the table: settings follow the
model's variables, so it is their position in
:func:`symbody.fmu.variables.fmu_variables`.

Example:
    >>> [s.name for s in SETTINGS][:3]
    ['solver.method', 'solver.step', 'solver.rtol']
    >>> setting("baumgarte.alpha").c_name, setting("baumgarte.alpha").index
    ('SB_SET_ALPHA', 7)
    >>> block("M_delta").prototype()
    'void sb_M_delta(const SbPoint *in, double *M, double *delta);'
    >>> setting("solver.step").problem(0.0)
    'is invalid: it must be positive'
"""

from __future__ import annotations

import math
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ..errors import ExportError
from .contract_types import MODEL, MODEL_DATA, POINT, VAR_KINDS, VAR_TYPES, VARIABLE, Field

#: Solver methods of ``solver.method`` (value -> name, description).
SOLVER_METHODS = {
    1: ("rk4", "classic Runge-Kutta 4 with the fixed internal step solver.step"),
    2: ("dopri5", "adaptive Dormand-Prince 5(4) with solver.rtol and solver.atol"),
    3: ("rosenbrock23", "adaptive L-stable Rosenbrock 2(3) using the exact symbolic Jacobian (stiff models)"),
}

#: Accepted values of a setting, by rule: the text of the message that refuses a value.
RULES = {
    "method": " or ".join(
        [", ".join(f"{code} ({name})" for code, (name, _) in list(SOLVER_METHODS.items())[:-1])]
        + [f"{code} ({name})" for code, (name, _) in list(SOLVER_METHODS.items())[-1:]]
    ),
    "positive": "positive",
    "nonnegative": "zero or positive",
    "boolean": "true or false",
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


@dataclass(frozen=True)
class Setting:
    """A solver or stabilization setting exposed as an FMU parameter.

    ``index`` is its ``SbSetting`` (and its position in the runtimes' settings
    vector), ``c_name`` the enum constant, ``rule`` one of :data:`RULES`.
    ``interfaces`` is ``"cs"`` (Co-Simulation only) or ``"any"``; a
    ``constrained_only`` setting appears only in models with constraints.
    """

    name: str
    index: int
    c_name: str
    type: str  # "Real", "Integer" or "Boolean"
    default: float
    unit: str | None
    description: str
    rule: str
    min: float | None = None
    max: float | None = None
    interfaces: str = "cs"
    constrained_only: bool = False
    causality: str = "parameter"
    variability: str = "tunable"

    def accepts(self, value: float) -> bool:
        """Whether ``value`` is valid for this setting (finite and following its rule)."""
        if not math.isfinite(value):
            return False
        if self.rule == "method":
            return value in SOLVER_METHODS
        if self.rule == "positive":
            return value > 0.0
        if self.rule == "boolean":
            return value in (0.0, 1.0)
        return value >= 0.0

    def problem(self, value: float) -> str | None:
        """Why ``value`` is refused (the runtimes' message), or None."""
        if not math.isfinite(value):
            return "is not finite"
        return None if self.accepts(value) else f"is invalid: it must be {RULES[self.rule]}"


#: ``solver.method`` is an Integer (FMI 2) / Int64 (FMI 3) parameter rather than an Enumeration, so that
#: masters without Enumeration support (OSP libcosim, Ecos) can choose the solver; the codes and names
#: are in its description.  The order is the ``SbSetting`` order: append new settings at the end.
SETTINGS = (
    Setting("solver.method", 0, "SB_SET_METHOD", "Integer", 2, None, method_description(), "method", 1, 3),
    Setting("solver.step", 1, "SB_SET_STEP", "Real", 1e-3, "s", "internal step of rk4", "positive"),
    Setting(
        "solver.rtol", 2, "SB_SET_RTOL", "Real", 1e-6, None, "relative tolerance of dopri5 and rosenbrock23", "positive"
    ),
    Setting(
        "solver.atol", 3, "SB_SET_ATOL", "Real", 1e-8, None, "absolute tolerance of dopri5 and rosenbrock23", "positive"
    ),
    Setting(
        "solver.max_step",
        4,
        "SB_SET_MAX_STEP",
        "Real",
        0.0,
        "s",
        "largest step of dopri5 and rosenbrock23 (0: unbounded)",
        "nonnegative",
        0.0,
    ),
    Setting(
        "solver.projection",
        5,
        "SB_SET_PROJECTION",
        "Boolean",
        1,
        None,
        "project positions and velocities onto the constraints after each step",
        "boolean",
        constrained_only=True,
    ),
    Setting(
        "solver.projection_tol",
        6,
        "SB_SET_PROJ_TOL",
        "Real",
        1e-10,
        None,
        "tolerance on |Phi| of the position projection and assembly",
        "positive",
        constrained_only=True,
    ),
    Setting(
        "baumgarte.alpha",
        7,
        "SB_SET_ALPHA",
        "Real",
        10.0,
        "1/s",
        "Baumgarte damping: the constraint rows get 2 alpha (D dq - beta)",
        "nonnegative",
        0.0,
        interfaces="any",
        constrained_only=True,
    ),
    Setting(
        "baumgarte.beta",
        8,
        "SB_SET_BETA",
        "Real",
        10.0,
        "1/s",
        "Baumgarte frequency: the holonomic rows get beta^2 Phi",
        "nonnegative",
        0.0,
        interfaces="any",
        constrained_only=True,
    ),
    Setting(
        "solver.ignore_external_tolerance",
        9,
        "SB_SET_IGNORE_TOL",
        "Boolean",
        0,
        None,
        "true: solver.rtol is kept when the importer passes a tolerance (fmi2SetupExperiment, "
        "fmi3EnterInitializationMode); false: that tolerance replaces solver.rtol unless solver.rtol is set",
        "boolean",
    ),
)

#: Default values of all settings, in SbSetting order (both runtimes start from them).
SETTINGS_DEFAULTS = tuple(float(s.default) for s in SETTINGS)


def setting(name: str) -> Setting:
    """The setting called ``name`` (``"solver.rtol"``).

    Raises:
        KeyError: no such setting.
    """
    for s in SETTINGS:
        if s.name == name:
            return s
    raise KeyError(f"no setting {name!r}: the settings are {', '.join(s.name for s in SETTINGS)}")


@dataclass(frozen=True)
class Block:
    """A block function of the generated model code: ``sb_<name>(const SbPoint *in, double *<outputs>...)``,
    ``void`` unless ``returns`` says otherwise.

    ``comment`` says what the arrays hold (matrices row-major); the numpy
    backend's function of the same ``name`` returns the same arrays, in order.
    """

    name: str
    outputs: tuple[str, ...]
    comment: str
    returns: str = "void"  # the C type of the function's value ("int": a verdict, see ``comment``)

    @property
    def c_name(self) -> str:
        return f"sb_{self.name}"

    def prototype(self) -> str:
        """The C declaration, e.g. ``void sb_outputs(const SbPoint *in, double *y);``."""
        args = "".join(f", double *{o}" for o in self.outputs)
        return f"{self.returns} {self.c_name}(const SbPoint *in{args});"


BLOCKS = (
    Block("M_delta", ("M", "delta"), "[M | delta]: mass matrix (nq x nq, symmetric) and generalized forces (nq)."),
    Block(
        "accelerations_direct",
        ("ddq",),
        "Accelerations ddq = M^-1 delta (nq) in closed form (articulated-body algorithm or symbolic elimination); "
        "returns 1 when they hold (every pivot of the algorithm positive, ddq finite), else 0 (ddq then "
        "undefined).  Generated where SbModel.has_direct is 1 (unconstrained models), else always 0.",
        returns="int",
    ),
    Block(
        "constraints",
        ("D", "beta", "gamma", "Phi"),
        "[D | beta | gamma | Phi]: velocity/acceleration-level constraints (nc x nq, nc, nc) and the holonomic "
        "residual (nh) used by Baumgarte stabilization.",
    ),
    Block("Phi_Phi_q", ("Phi_q", "Phi"), "[Phi_q | Phi]: holonomic constraints and their Jacobian (projection)."),
    Block("D_beta", ("D", "beta"), "[D | beta]: velocity-level constraints (velocity projection)."),
    Block(
        "Phi_init",
        ("Phi_init_q", "Phi_init"),
        "[Phi_init_q | Phi_init]: assembly of the initial configuration (ninit rows).",
    ),
    Block(
        "outputs",
        ("y",),
        "User outputs (ny); may use ddq and lam (nc multipliers, then the nk contact forces and the nf friction "
        "forces).",
    ),
    Block(
        "rates",
        ("rates",),
        "Rates dx/dt of the first-order states (ns); may use lam (nc multipliers, then the nk contact forces and the "
        "nf friction forces) and the states themselves.",
    ),
    Block(
        "contacts",
        ("gap", "gap_q", "gap_beta", "gap_gamma", "restitution"),
        "[gap | gap_q | gap_beta | gap_gamma | restitution]: unilateral contacts (nk): gaps g >= 0, their Jacobian "
        "rows (nk x nq), g_q dq - gap_beta the gap rates, g_q ddq - gap_gamma the gap accelerations, Newton's "
        "coefficients of restitution.",
    ),
    Block(
        "frictions",
        ("fr_A", "fr_beta", "fr_gamma", "fr_mu", "fr_mu_static"),
        "[fr_A | fr_beta | fr_gamma | fr_mu | fr_mu_static]: stick-slip friction elements (nf): rate rows (nf x nq), "
        "fr_A dq - fr_beta the sliding rates, fr_A ddq - fr_gamma their derivatives, the sliding and the static "
        "coefficients.",
    ),
    Block(
        "friction_normals",
        ("fr_normal",),
        "Normal forces pressing the friction elements (nf; the runtime takes their magnitude); may use lam (nc "
        "multipliers, the nk contact forces, then the nf friction forces).",
    ),
    Block(
        "switches",
        ("sw",),
        "Switching functions of the loads (nsw): the arguments of Abs and sign in delta, whose zeros are events.",
    ),
    Block(
        "constants",
        ("c",),
        "The constants block: the parameter-only subexpressions of the other blocks (SbModel.nconst entries), from "
        "in->p alone.  The runtime calls it whenever the parameters change (sb_parameters_changed: instantiation, "
        "reset, a parameter set, an FMU state restored); the other blocks read the values from in->c instead of "
        "computing them at every call.",
    ),
    Block(
        "residual_jacobians",
        ("R_q", "R_dq", "R_u", "R_t"),
        "Exact Jacobians of the residual R = [M ddq + D^T lam - delta; D ddq - gamma] ((nq + nc) rows) with "
        "respect to q (nq columns), dq (nq), u (nu) and t (1), at the given ddq and lam.",
    ),
    Block(
        "velocity_jacobians",
        ("V_q", "V_t"),
        "Jacobians of the velocity residual V = D dq - beta (nc rows) with respect to q and t.",
    ),
    Block(
        "output_jacobians",
        ("Y_q", "Y_dq", "Y_u", "Y_t", "Y_ddq", "Y_lam"),
        "Jacobians of the outputs (ny rows) with respect to q, dq, u, t, ddq and lam.",
    ),
)


def block(name: str) -> Block:
    """The block called ``name`` (``"M_delta"``).

    Raises:
        KeyError: no such block.
    """
    for b in BLOCKS:
        if b.name == name:
            return b
    raise KeyError(f"no block {name!r}: the blocks are {', '.join(b.name for b in BLOCKS)}")


#: Log categories of the FMUs (modelDescription.xml ``LogCategories``), in the order of their bits in the C
#: runtime (``SB_LOG_EVENTS = 1``, ``SB_LOG_WARNING = 2``, ...; ``sb_log_category_names``): (name, description).
LOG_CATEGORIES = (
    ("logEvents", "initialization, assembly of the initial configuration, mode changes"),
    ("logStatusWarning", "messages with status Warning"),
    ("logStatusDiscard", "messages with status Discard (numerical problems; the host may retry)"),
    ("logStatusError", "messages with status Error (invalid calls or values)"),
    ("logStatusFatal", "messages with status Fatal"),
    ("logSolver", "internal steps, rejections and projections of the Co-Simulation solvers"),
    ("logCalls", "every FMI function call"),
)


# ---------------------------------------------------------------------------------------------- C header

BEGIN = "/* ---- generated from symbody/fmu/contract.py (python -m symbody.fmu.contract): do not edit ---- */"
END = "/* ---- end of the part generated from symbody/fmu/contract.py ---- */"


def _comment(text: str, indent: str = "", width: int = 110) -> list[str]:
    lines = textwrap.wrap(text, width - len(indent) - 3)
    if len(lines) == 1:
        return [f"{indent}/* {lines[0]} */"]
    return [f"{indent}/* {lines[0]}"] + [f"{indent}   {line}" for line in lines[1:-1]] + [f"{indent}   {lines[-1]} */"]


def _trailing(rows: list[tuple[str, str]], indent: str = "    ", width: int = 116) -> list[str]:
    """Lines ``code /* comment */`` with the comments aligned, wrapped under their first line."""
    column = max(len(code) for code, _ in rows) + 1
    out = []
    for code, comment in rows:
        lines = textwrap.wrap(comment, width - len(indent) - column - 6)
        first = f"{indent}{code.ljust(column)}/* {lines[0]}"
        rest = [f"{indent}{' ' * column}   {line}" for line in lines[1:]]
        out += [first, *rest]
        out[-1] += " */"
    return out


def _c_enum(name: str, constants: tuple[tuple[str, str, str], ...], doc: str) -> list[str]:
    rows = [(f"{c_name} = {k},", comment) for k, (_, c_name, comment) in enumerate(constants)]
    return [*_comment(doc), "typedef enum {", *_trailing(rows), f"}} {name};", ""]


def _c_struct(name: str, fields: tuple[Field, ...], doc: str) -> list[str]:
    rows = [(f.declaration(), f.comment) for f in fields]
    return [*_comment(doc), "typedef struct {", *_trailing(rows), f"}} {name};", ""]


def c_model_types() -> list[str]:
    """The C types of the model description (``SbPoint``, ``SbVarKind``, ``SbVarType``, ``SbVariable``,
    ``SbModel``) and the declarations of the data ``model.c`` defines."""
    out = _c_struct(
        "SbPoint",
        POINT,
        "A point at which blocks are evaluated.  Vectors follow the order of the model's coordinates, inputs, "
        "parameters and constraint rows.",
    )
    out += _c_enum("SbVarKind", VAR_KINDS, "What an FMU variable is.")
    out += _c_enum("SbVarType", VAR_TYPES, "FMI types of variables.")
    out += _c_struct(
        "SbVariable",
        VARIABLE,
        "One FMU variable; its value reference is its index in sb_model.variables (FMI 2), the index + 1 (FMI 3).",
    )
    out += _c_struct("SbModel", MODEL, "The model: sizes, variables, start values and names (model.c).")
    for ctype, name, comment in MODEL_DATA:
        out += [*_comment(f"{name}: {comment}"), f"extern {ctype} {name};", ""]
    return out


def _c_check(s: Setting) -> str:
    if s.rule == "method":
        return " || ".join(f"value == {code}.0" for code in SOLVER_METHODS)
    return {"positive": "value > 0.0", "boolean": "value == 0.0 || value == 1.0", "nonnegative": "value >= 0.0"}[s.rule]


def c_contract() -> str:
    """The generated C part of ``symbody_model.h``: the model description types and data, the settings, the
    method codes, their checks and the block prototypes."""
    out = [BEGIN, "", *c_model_types()]
    out += _comment(
        "Solver and stabilization settings, exposed as FMU parameters with dotted names (solver.method, "
        "baumgarte.alpha, ...) that cannot clash with model names; the index of the settings vector."
    )
    out.append("typedef enum {")
    for s in SETTINGS:
        out += _comment(f"{s.name}: {s.description}" + (f" [{s.unit}]" if s.unit else ""), "    ")
        out.append(f"    {s.c_name} = {s.index},")
    out += ["    SB_N_SETTINGS", "} SbSetting;", ""]
    out.append("/* codes of solver.method */")
    codes = ", ".join(f"SB_METHOD_{name.upper()} = {code}" for code, (name, _) in SOLVER_METHODS.items())
    out += [f"enum {{ {codes} }};", ""]
    out.append("/* Whether a finite value is valid for a setting. */")
    out += ["static inline int sb_setting_ok(SbSetting s, double value)", "{", "    switch (s) {"]
    for s in SETTINGS:
        out.append(f"    case {s.c_name}: return {_c_check(s)};")
    out += ["    default: return 0;", "    }", "}", ""]
    out.append("/* What a setting accepts, for the message that refuses a value. */")
    out += ["static inline const char *sb_setting_rule(SbSetting s)", "{", "    switch (s) {"]
    for s in SETTINGS:
        out.append(f'    case {s.c_name}: return "{RULES[s.rule]}";')
    out += ['    default: return "a known setting";', "    }", "}", ""]
    out.append("/* ---- block functions generated in model.c (matrices row-major) ---- */")
    for b in BLOCKS:
        out.append("")
        out += _comment(b.comment)
        wrapped = textwrap.wrap(  # never between a type and its argument ("double *x" held by a no-break space)
            b.prototype().replace(" *", "\xa0*"),
            116,
            subsequent_indent=" " * (len(b.c_name) + 6),
            break_long_words=False,
        )
        out += [line.replace("\xa0", " ") for line in wrapped]
    out += ["", END]
    return "\n".join(out) + "\n"


def sync_model_header(text: str) -> str:
    """``symbody_model.h`` with its generated part replaced by :func:`c_contract`.

    Raises:
        ExportError: the markers of the generated part are missing.
    """
    try:
        start = text.index(BEGIN)
        end = text.index(END, start) + len(END) + 1
    except ValueError:
        raise ExportError(
            "symbody_model.h has no part generated from symbody/fmu/contract.py (markers missing)"
        ) from None
    return text[:start] + c_contract() + text[end:]


def main(paths: list[str]) -> None:
    """Rewrite the generated part of each ``symbody_model.h`` in ``paths`` from the table."""
    for arg in paths:
        path = Path(arg)
        path.write_text(sync_model_header(path.read_text()))


if __name__ == "__main__":  # python -m symbody.fmu.contract fmu_templates/symbody_model.h
    main(sys.argv[1:])
