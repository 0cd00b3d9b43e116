"""C code of the Jacobian blocks of ``model.c`` in the ``forward`` and ``none`` modes.

The runtime asks ``model.c`` for dense residual, velocity and output Jacobians
(``sb_residual_jacobians``, ``sb_velocity_jacobians``, ``sb_output_jacobians``
of ``fmu_templates/symbody_model.h``).  In the ``exact`` mode these are
symbolic Jacobians (:mod:`symbody.fmu.sources`); their code grows with rows x
columns and dominates the export time of large models.  Here they are:

* ``forward``: tangent functions (``residual_tangent``, ``velocity_tangent``,
  ``output_tangent``: the forward-mode derivative along a direction ``_v`` of the
  knowns, :class:`~symbody.fmu.jacobians.ResidualTangents`, whose code is a small
  multiple of the residuals') and block functions that build each Jacobian column
  by column from them (``sb_jacobian_columns`` in ``fmu_templates/sb_tangents.c``);
* ``none``: block functions that take central differences of the block values.

Example:
    >>> from symbody.models import pendulum
    >>> from symbody.fmu.sources import ModelSource
    >>> source = ModelSource(pendulum().derive(), "both", mode="forward")
    >>> source.derivative_files  # the tangent code, in a file of its own
    ['model_1.c']
    >>> text = source.files["model_1.c"]
    >>> start = text.index("void sb_residual_jacobians")
    >>> print(text[start : text.index("void sb_velocity_jacobians")].strip())
    void sb_residual_jacobians(const SbPoint *_in, double *_R_q, double *_R_dq, double *_R_u, double *_R_t)
    {
        double *const J[SB_N_KNOWNS] = {_R_q, _R_dq, _R_u, _R_t, NULL, NULL};
        sb_jacobian_columns(_in, residual_tangent, NULL, 1, J);
    }
    <BLANKLINE>
    /* velocity jacobians: column by column from its tangent function (sb_tangents.c) */
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..codegen.c import CAssignment, CBlock, SymbolNames, nonzero
from ..codegen.c_split import c_function_pieces
from ..symbolic.expr import Expr
from .jacobians import ResidualJacobians, ResidualTangents

if TYPE_CHECKING:
    from ..equations import Equations

#: The header that declares sb_jacobian_columns (shipped in sources/ with the runtime; SB_MODEL_LOCAL is in
#: symbody_model.h).
TANGENTS_HEADER = "sb_tangents.h"
#: Linkage of generated functions shared between the files of the model (not exported from the FMU).
LOCAL = "SB_MODEL_LOCAL"
#: Jacobian modes whose derivative code goes to files of its own (``ModelSource.derivative_files``), compiled
#: with :func:`symbody.fmu.build.derivative_flags`: the tangent code of the ``forward`` mode, most of the C of
#: a large model.
SEPARATE_DERIVATIVE_MODES = ("forward",)

_BLOCKS = (
    # (block function, its array arguments, knowns its Jacobians are taken with respect to)
    ("sb_residual_jacobians", ("_R_q", "_R_dq", "_R_u", "_R_t", "NULL", "NULL")),
    ("sb_velocity_jacobians", ("_V_q", "NULL", "NULL", "_V_t", "NULL", "NULL")),
    ("sb_output_jacobians", ("_Y_q", "_Y_dq", "_Y_u", "_Y_t", "_Y_ddq", "_Y_lam")),
)


def direction_sources(eq: Equations, tangents: ResidualTangents) -> dict[Expr, str]:
    """Where the tangent functions read each direction symbol: the fields of ``_v``."""
    src: dict[Expr, str] = {tangents.direction[eq.t]: "_v->t"}
    for vec, syms in (("q", eq.q), ("dq", eq.dq), ("u", eq.u_symbols), ("ddq", eq.ddq), ("lam", eq.lam)):
        for i, s in enumerate(syms):
            src[tangents.direction[s]] = f"_v->{vec}[{i}]"
    return src


def _tangent_function(
    name: str, array: str, exprs: list[Expr], labels: list[str], what: str, sources: Mapping[Expr, str], names
) -> list[str]:
    asg = [CAssignment(f"{array}[{i}]", e, lab) for i, (e, lab) in enumerate(zip(exprs, labels)) if nonzero(e)]
    zero = [(array, len(exprs))] if len(asg) < len(exprs) else []
    block = CBlock(name, what, asg, zero)
    sig = f"{LOCAL} void {name}(const SbPoint *_in, const SbPoint *_v, double *{array})"
    unused = ["_in", "_v"] + ([array] if not asg and not zero else [])
    doc = f"forward-mode {what}"
    return c_function_pieces(sig, [block], sources, doc, names, unused, optimize=False, linkage=LOCAL, derivative=True)


def _signature(name: str, arrays: tuple[str, ...]) -> str:
    args = "".join(f", double *{a}" for a in dict.fromkeys(arrays) if a != "NULL")
    return f"void {name}(const SbPoint *_in{args})"


def jacobian_functions(
    eq: Equations, jac: ResidualJacobians, mode: str, sources: Mapping[Expr, str], names: SymbolNames | None = None
) -> list[str]:
    """The C source of the three Jacobian block functions for ``mode`` ``"forward"`` or ``"none"``, in pieces
    that may go to different files (functions and their parts, see :func:`symbody.codegen.c_split.c_function_pieces`).

    ``sources`` says where each model symbol is read (``_in->q[0]``...), as for the other blocks.
    """
    if mode not in ("forward", "none"):
        raise ValueError(f"jacobian_functions writes the 'forward' and 'none' modes, not {mode!r}")
    names = names or SymbolNames()
    n, nc = eq.nq, eq.nc
    qn = [c.name for c in eq.coordinates]
    rows = [r.name for r in eq.constraint_rows]
    outputs = [o.name for o in eq.outputs]
    parts: list[str] = []
    if mode == "forward":
        tan = ResidualTangents(jac, eq)
        src = {**sources, **direction_sources(eq, tan)}
        rn = [f"dynamics {c}" for c in qn] + [f"acceleration {r}" for r in rows]
        what = "tangent of R = [M ddq + D^T lam - delta; D ddq - gamma] at (ddq, lam)"
        parts += _tangent_function("residual_tangent", "_dR", tan.dR, rn, what, src, names)
        what = "tangent of V = D dq - beta"
        parts += _tangent_function("velocity_tangent", "_dV", tan.dV, rows, what, src, names)
        what = "tangent of the user outputs (ddq and lam are knowns here)"
        parts += _tangent_function("output_tangent", "_dy", tan.dY, outputs, what, src, names)
        producers = ("residual_tangent, NULL", "velocity_tangent, NULL", "output_tangent, NULL")
        doc = "column by column from its tangent function (sb_tangents.c)"
    else:
        producers = ("NULL, sb_residual_value", "NULL, sb_velocity_value", "NULL, sb_outputs")
        doc = "by central differences of the block values (sb_tangents.c); no derivative code is exported"
    counts = (n + nc, nc, len(outputs))
    wrappers = []
    if mode == "forward":
        wrappers.append(
            "".join(
                f"{LOCAL} void {f}(const SbPoint *_in, const SbPoint *_v, double *_out);\n"
                for f in ("residual_tangent", "velocity_tangent", "output_tangent")
            )
            + "\n"
        )
    for (name, arrays), producer, nout in zip(_BLOCKS, producers, counts):
        wrappers.append(
            f"/* {name[3:].replace('_', ' ')}: {doc} */\n"
            f"{_signature(name, arrays)}\n{{\n"
            f"    double *const J[SB_N_KNOWNS] = {{{', '.join(arrays)}}};\n"
            f"    sb_jacobian_columns(_in, {producer}, {nout}, J);\n}}\n\n"
        )
    return [*parts, "".join(wrappers)]
