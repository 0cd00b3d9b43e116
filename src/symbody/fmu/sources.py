"""Generation of ``model.c``: the only per-model source of a native symbody FMU.

``model.c`` implements ``fmu_templates/symbody_model.h``: the ``sb_model``
description (sizes, variables, start values, names of coordinates and
constraint rows) and the block functions ``sb_M_delta``, ``sb_constraints``,
``sb_Phi_Phi_q``, ``sb_D_beta``, ``sb_Phi_init``, ``sb_outputs`` and the exact
Jacobians (``sb_residual_jacobians``, ``sb_velocity_jacobians``,
``sb_output_jacobians``).  Blocks evaluated together are exported jointly
(``[M | delta]``, ``[Phi_q | Phi]``, ...) so that they share temporaries; the
mass matrix is emitted as its upper triangle and mirrored.  Everything else
(FMI wrappers, solvers, linear algebra) is generic C in ``fmu_templates/``.

Example:
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> src = ModelSource(eq, "both").text
    >>> print(src[src.index("/* M: ") : src.index("}", src.index("/* M: "))].strip())
    /* M: mass matrix (symmetric) */
        _M[0] = 1.0; /* M(theta, theta) */
        /* delta: generalized forces */
        _delta[0] = s_T - 9.81*sin(s_theta); /* theta */
"""

from __future__ import annotations

import hashlib
import math
import uuid
from typing import TYPE_CHECKING

from .. import __version__
from ..codegen.c import CAssignment, CBlock, SymbolNames, c_comment, c_string, nonzero
from ..codegen.c_split import c_function_pieces
from ..codegen.constants import ConstantsBlock
from ..codegen.mass_tree import mass_tree_source
from ..model.contacts import event_force_symbols
from ..symbolic.atoms import symbol_name
from ..symbolic.calculus import diff, subs
from ..symbolic.expr import ZERO, Expr
from .contract import SETTINGS_DEFAULTS, block
from .contract_types import MODEL, VARIABLE, field_values, var_kind, var_type
from .jacobian_code import LOCAL, SEPARATE_DERIVATIVE_MODES, TANGENTS_HEADER, jacobian_functions
from .jacobians import ResidualJacobians, jacobian_mode
from .start_velocities import independent_velocities
from .variables import FmuVariable, fmu_variables

if TYPE_CHECKING:
    from ..equations import Equations

#: Generated files hold about this many characters of functions: longer code goes on in model_<k>.c.
SEPARATE_FILE_CHARS = 40_000
_MODE_TEXT = {
    "exact": "symbolic residual Jacobians",
    "forward": "columns from forward-mode tangent code",
    "none": "central differences, no directional derivatives provided",
}


def _num(x: float) -> str:
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return repr(float(x))


def _array(ctype: str, name: str, values: list[str], comment: str = "") -> str:
    body = ", ".join(values) if values else ("0" if ctype != "const char *const" else "NULL")
    c = f" /* {c_comment(comment)} */" if comment else ""
    return f"static {ctype} {name}[] = {{{body}}};{c}\n"


def initial_fixes(eq: Equations) -> list[int]:
    """For each row of ``Phi_init``: the coordinate that row holds at a constant (``q_i - c``), else -1.

    The FMU replaces such a row by ``q_i - start(q_i)``, so that a start value set
    by the importer is the value held during assembly.
    """
    out = [-1] * eq.nh
    for e in eq.Phi_init[eq.nh :]:
        fix = -1
        for i, qi in enumerate(eq.q):
            if e.mask & qi.mask:
                if diff(e, qi) == 1 and subs(e, {qi: ZERO}).is_number:
                    fix = i
                break
        out.append(fix)
    return out


def input_sources(eq: Equations) -> dict[Expr, str]:
    """How ``model.c`` reads each input: inside a Co-Simulation step the inputs are polynomials of the time
    ``_in->tau`` since they were set (``fmu_templates/symbody_model.h``): a motion input's position moves with
    its velocity and acceleration, its velocity with its acceleration; any other input with the derivatives
    an importer may set (``fmi2SetRealInputDerivatives``; they follow the values in ``_in->u``).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("mi"); x = s.coordinate("x"); F = s.input("F"); z = s.motion_input("z")
        >>> _ = s.particle("m", s.point("P", s.point("A", s.origin, (z, 0, 0)), (x, 0, 0)), 1.0)
        >>> _ = s.generalized_force("push", x, F)
        >>> for sym, text in input_sources(s.derive()).items():
        ...     print(sym, "=", text)
        F = _in->u[0] + _in->tau * (_in->u[4] + 0.5 * _in->tau * _in->u[8])
        z = _in->u[1] + _in->tau * (_in->u[2] + 0.5 * _in->tau * _in->u[3])
        dz = _in->u[2] + _in->tau * _in->u[3]
        ddz = _in->u[3]
    """
    nu = eq.nu
    src: dict[Expr, str] = {}
    for j, u in enumerate(eq.inputs):
        if u.motion == "position":
            src[u.symbol] = f"_in->u[{j}] + _in->tau * (_in->u[{j + 1}] + 0.5 * _in->tau * _in->u[{j + 2}])"
        elif u.motion == "velocity":
            src[u.symbol] = f"_in->u[{j}] + _in->tau * _in->u[{j + 1}]"
        elif u.motion == "acceleration":
            src[u.symbol] = f"_in->u[{j}]"
        else:
            src[u.symbol] = f"_in->u[{j}] + _in->tau * (_in->u[{nu + j}] + 0.5 * _in->tau * _in->u[{2 * nu + j}])"
    return src


def friction_implicit(eq: Equations) -> bool:
    """Whether a normal force of the stick-slip friction depends on the multipliers, the contact forces or the
    friction forces (the runtime then finds the forces by fixed-point iteration)."""
    mask = 0
    for sym in [*eq.lam, *event_force_symbols(eq)]:
        mask |= sym.mask
    return any(f.normal.mask & mask for f in eq.frictions)


class ModelSource:
    """The generated ``model.c`` of one model and FMU kind.

    Attributes:
        variables: the FMU variables (value reference = position; FMI 3: position + 1).
        jacobians: the symbolic residual and output Jacobians.
        jacobian_mode: how ``model.c`` gives the Jacobians: ``exact``, ``forward`` or ``none``
            (:func:`symbody.fmu.jacobians.jacobian_mode`; ``mode=None`` chooses by size).
        token: the instantiation token / GUID (a hash of the generated code).
        text: the C source of ``model.c``.
        files: ``model.c`` and, for large models, the files its functions go on in (``model_<k>.c``,
            compiled in parallel), file name -> C source.
        derivative_files: those of ``files`` that hold derivative code only (the tangent functions of the
            ``forward`` mode, in files of their own), compiled with
            :func:`symbody.fmu.build.derivative_flags`.
        constants: the constants block (:class:`~symbody.codegen.constants.ConstantsBlock`): the
            parameter-only subexpressions of the block functions other than the Jacobians, which
            ``sb_constants`` computes once per parameter change (empty when made with ``constants=False``:
            every function then computes them at every call, as the MATLAB export does).
    """

    def __init__(
        self,
        eq: Equations,
        kind: str,
        variables: list[FmuVariable] | None = None,
        jacobians=None,
        mode: str | None = "exact",
        constants: bool = True,
    ):
        self.eq = eq
        self.kind = kind
        self.variables = variables if variables is not None else fmu_variables(eq, kind)
        self.jacobians = jacobians if jacobians is not None else ResidualJacobians(eq)
        self.jacobian_mode = jacobian_mode(self.jacobians, mode)
        self._names = SymbolNames()
        self._sources = self._symbol_sources()
        self.constants = ConstantsBlock(eq.p_symbols)
        self._hoist = self.constants if constants else None
        self._constant_users: list[str] = []
        groups = self._functions()
        digest = hashlib.sha256()
        digest.update("".join(groups).encode())
        digest.update(repr([(v.name, v.kind, v.index, v.start, v.causality) for v in self.variables]).encode())
        digest.update(kind.encode())
        self.token = "{" + str(uuid.UUID(bytes=digest.digest()[:16], version=4)) + "}"
        token_line = f"/* instantiation token (FMI 3) / GUID (FMI 2) */\n#define SB_TOKEN {c_string(self.token)}\n\n"
        files: list[list[str]] = [[]]
        size = 0
        own_files = self.jacobian_mode in SEPARATE_DERIVATIVE_MODES  # derivative code starts a file of its own
        derivative_from = len(groups)  # index of the first file of derivative code
        for k, piece in enumerate(groups):  # in order, a new file when the current one is full
            if size > SEPARATE_FILE_CHARS or (own_files and k == self._first_derivative):
                files.append([])
                size = 0
            if own_files and k == self._first_derivative:
                derivative_from = len(files) - 1
            files[-1].append(piece)
            size += len(piece)
        self.text = self._header() + token_line + self._tables() + "".join(files[0]) + mass_tree_source(eq)
        self.files: dict[str, str] = {"model.c": self.text}
        self.derivative_files: list[str] = []
        for k, pieces in enumerate(files[1:]):
            name = f"model_{k + 1}.c"
            self.files[name] = self._part_header(name) + "".join(pieces)
            if k + 1 >= derivative_from:
                self.derivative_files.append(name)

    # -- symbol sources --------------------------------------------------------
    def _symbol_sources(self) -> dict[Expr, str]:
        eq = self.eq
        src: dict[Expr, str] = {eq.t: "_in->t"}
        for vec, syms in (
            ("q", eq.q),
            ("dq", eq.dq),
            ("ddq", eq.ddq),
            ("p", eq.p_symbols),
            ("lam", eq.lam),
            ("xs", eq.x_symbols),
        ):
            for i, s in enumerate(syms):
                src[s] = f"_in->{vec}[{i}]"
        src.update(input_sources(eq))
        for i, c in enumerate(eq.contacts):  # the contact forces follow the multipliers
            src[c.force] = f"_in->lam[{eq.nc + i}]"
        nk = len(eq.contacts)
        for j, f in enumerate(eq.frictions):  # then the friction forces
            src[f.force] = f"_in->lam[{eq.nc + nk + j}]"
        return src

    # -- file parts ------------------------------------------------------------
    def _header(self) -> str:
        eq = self.eq
        rows = ", ".join(r.name for r in eq.constraint_rows) or "none"
        return (
            "/*\n"
            f" * model.c -- generated by symbody {__version__} for model '{c_comment(eq.name)}'; do not edit.\n"
            f" * {c_comment(eq.description or '')}\n"
            " *\n"
            f" * coordinates ({eq.nq}): {c_comment(', '.join(c.name for c in eq.coordinates))}\n"
            f" * constraint rows ({eq.nc}, {eq.nh} holonomic): {c_comment(rows)}\n"
            f" * inputs ({eq.nu}): {c_comment(', '.join(u.name for u in eq.inputs) or 'none')}\n"
            f" * first-order states ({eq.nx}): {c_comment(', '.join(x.name for x in eq.states) or 'none')}\n"
            f" * outputs ({len(eq.outputs)}): {c_comment(', '.join(o.name for o in eq.outputs) or 'none')}\n"
            " *\n"
            " * Implements fmu_templates/symbody_model.h: M ddq + D^T lam = delta, D ddq = gamma, xs' = rates.\n"
            " * Model symbols are read into locals s_<name> (model text is never C by itself);\n"
            " * temporaries _t<k> are atoms used more than once, in dependency order.\n"
            f" * Jacobians: {self.jacobian_mode} ({_MODE_TEXT[self.jacobian_mode]}).\n"
            " */\n" + self._includes() + "\n"
        )

    def _part_header(self, name: str) -> str:
        return (
            f"/* {name} -- functions of model.c of model '{c_comment(self.eq.name)}' (generated by symbody "
            f"{__version__}; do not edit), in a file of their own so that the compiler builds the files in "
            "parallel. */\n" + self._includes()
        )

    def _includes(self) -> str:
        return (
            '#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n\n#include "symbody_model.h"\n'
            f'#include "{TANGENTS_HEADER}"\n'
        )

    def _tables(self) -> str:
        eq = self.eq
        out = ["/* FMU variables; the value reference of a variable is its index (FMI 2), its index + 1 (FMI 3) */\n"]
        out.append("static const SbVariable variables[] = {\n")
        for v in self.variables:
            values = {
                "name": c_string(v.name),
                "kind": var_kind(v.kind),
                "index": str(v.index),
                "type": var_type(v.type),
                "min": _num(v.min if v.min is not None else -math.inf),
                "max": _num(v.max if v.max is not None else math.inf),
            }
            fields = ", ".join(value for _, value in field_values(VARIABLE, values, "SbVariable"))
            out.append(f"    {{{fields}}}, /* {v.vr} */\n")
        out.append("};\n\n")
        out.append(_array("const double", "q0", [_num(c.q0) for c in eq.coordinates], "start positions"))
        out.append(_array("const double", "dq0", [_num(c.dq0) for c in eq.coordinates], "start velocities"))
        out.append(_array("const double", "u0", [_num(u.value) for u in eq.inputs], "start inputs"))
        out.append(_array("const double", "p0", [_num(p.value) for p in eq.parameters], "parameters"))
        out.append(_array("const double", "s0", [_num(x.x0) for x in eq.states], "start of the first-order states"))
        out.append(_array("const char *const", "state_names", [c_string(x.name) for x in eq.states]))
        motion = [str(k) for _, k in eq.motion_inputs]
        out.append(_array("const int", "motion", motion, "motion inputs: index of the position z in u"))
        out.append(_array("const double", "settings0", [_num(x) for x in SETTINGS_DEFAULTS], "default settings"))
        fixes = initial_fixes(eq)
        out.append(
            _array("const int", "init_fix", [str(i) for i in fixes], "Phi_init rows holding a coordinate, else -1")
        )
        out.append(
            _array(
                "const unsigned char",
                "independent",
                [str(i) for i in independent_velocities(eq)],
                "start velocities kept: independent at the model's start configuration",
            )
        )
        out.append(_array("const char *const", "coordinate_names", [c_string(c.name) for c in eq.coordinates]))
        out.append(_array("const char *const", "constraint_names", [c_string(r.name) for r in eq.constraint_rows]))
        out.append(_array("const char *const", "contact_names", [c_string(c.name) for c in eq.contacts]))
        out.append(_array("const char *const", "friction_names", [c_string(f.name) for f in eq.frictions]))
        init_names = [r.name for r in eq.constraint_rows[: eq.nh]] + [r.name for r in eq.initial_rows]
        out.append(_array("const char *const", "init_names", [c_string(n) for n in init_names]))
        me = int(self.kind in ("me", "both"))
        cs = int(self.kind in ("cs", "both"))
        sizes = {
            "nq": eq.nq,
            "nc": eq.nc,
            "nh": eq.nh,
            "ninit": len(eq.Phi_init),
            "nu": eq.nu,
            "np": len(eq.parameters),
            "ny": len(eq.outputs),
            "has_me": me,
            "has_cs": cs,
            "nvars": len(self.variables),
            "nk": len(eq.contacts),
            "nsw": len(eq.switches),
            "nf": len(eq.frictions),
            "friction_implicit": int(friction_implicit(eq)),
            "has_direct": int(bool(eq.accelerations)),
            "ns": eq.nx,
            "nmotion": len(eq.motion_inputs),
            "nconst": len(self.constants),  # the constants block (sb_constants)
        }
        arrays = [f.name for f in MODEL if f.ctype.startswith("const") and f.name not in ("name", "token")]
        values = {"name": c_string(eq.name), "token": "SB_TOKEN"} | {k: str(n) for k, n in sizes.items()}
        values |= {name: name for name in arrays}  # the static arrays above, named as the fields
        body = "".join(f"    .{field} = {value},\n" for field, value in field_values(MODEL, values, "SbModel"))
        out.append(f"\nconst SbModel sb_model = {{\n{body}}};\n\n")
        return "".join(out)

    # -- block functions ---------------------------------------------------------
    def _fn(self, name: str, blocks: list[CBlock], doc: str, derivative: bool = False, hot: bool = False) -> list[str]:
        """The block function ``name`` of the runtime contract filled by ``blocks`` (``derivative``: Jacobians, in
        smaller parts, :mod:`symbody.codegen.c_split`; ``hot``: also for AVX2, :mod:`symbody.codegen.c_isa`)."""
        spec = block(name)
        args = [f"_{o}" for o in spec.outputs]
        sig = f"void {spec.c_name}(const SbPoint *_in" + "".join(f", double *{a}" for a in args) + ")"
        written = {b_arr for b in blocks for b_arr, _ in b.zero} | {
            a.target.split("[")[0] for b in blocks for a in b.assignments
        }
        unused = ["_in"] + [a for a in args if a not in written]
        constants = None if derivative else self._hoist  # derivative code reads the parameters itself
        pieces = c_function_pieces(
            sig, blocks, self._sources, doc, self._names, unused, linkage=LOCAL, derivative=derivative,
            constants=constants, avx2=hot,
        )  # fmt: skip
        self._note_constants(spec.c_name, pieces)
        return pieces

    def _note_constants(self, function: str, pieces: list[str]) -> None:
        """Remember ``function`` among the readers of the constants block when its ``pieces`` read it."""
        if any("_in->c[" in piece for piece in pieces):
            self._constant_users.append(function)

    def _vector(self, array: str, exprs: list[Expr], labels: list[str], name: str, what: str) -> CBlock:
        asg = [CAssignment(f"{array}[{i}]", e, lab) for i, (e, lab) in enumerate(zip(exprs, labels)) if nonzero(e)]
        zero = [(array, len(exprs))] if len(asg) < len(exprs) else []
        return CBlock(name, what, asg, zero)

    def _matrix(self, array: str, rows: list[list[Expr]], rlab: list[str], clab: list[str], name: str, what: str):
        asg = []
        ncol = len(clab)
        for i, row in enumerate(rows):
            for j, e in enumerate(row):
                if nonzero(e):
                    asg.append(CAssignment(f"{array}[{i * ncol + j}]", e, f"{name}({rlab[i]}, {clab[j]})"))
        size = len(rows) * ncol
        zero = [(array, size)] if len(asg) < size else []
        return CBlock(name, what, asg, zero)

    def _accelerations_direct(self) -> list[str]:
        """``sb_accelerations_direct``: ``ddq`` in closed form (the articulated-body algorithm's or the symbolic
        elimination's), checked by its pivots in the function itself; always 0 when the equations have none (the
        runtime then factors ``M``).  The blocks go in a ``static`` helper (cut into parts when large) that the
        function calls once: small ones are inlined, their pivots never stored."""
        eq = self.eq
        ddq, pivots = list(eq.accelerations), list(eq.pivots)
        sig = "int sb_accelerations_direct(const SbPoint *_in, double *_ddq)"
        if not ddq:
            doc = "direct accelerations: not derived for this model (has_direct = 0, the runtime factors M)"
            return [f"/* {doc} */\n{sig}\n{{\n    (void)_in;\n    (void)_ddq;\n    return 0;\n}}\n"]
        if eq.accelerations_method == "symbolic elimination":
            how = "in closed form by symbolic elimination of M (minimum-degree order, no matrix stored)"
        else:
            how = "by the articulated-body algorithm (Featherstone, Rigid Body Dynamics Algorithms, 2008, ch. 7)"
        qn = [c.name for c in eq.coordinates]
        blocks = [
            self._vector("_ddq", ddq, [f"dd{c}" for c in qn], "ddq", "accelerations M^-1 delta"),
            self._vector("_pivots", pivots, [f"pivot of {c}" for c in qn], "pivots", "valid when all are positive"),
        ]
        helper = "void direct_blocks(const SbPoint *_in, double *_ddq, double *_pivots)"
        pieces = c_function_pieces(
            helper, blocks, self._sources, f"ddq = M^-1 delta {how}, with its pivots", self._names, ["_in"],
            linkage=LOCAL, constants=self._hoist, avx2=True,
        )  # fmt: skip
        self._note_constants("sb_accelerations_direct", pieces)
        pieces[-1] = pieces[-1].replace(f"\n{helper}\n", f"\nstatic {helper}\n", 1)
        n = len(ddq)
        positive = " &\n           ".join(f"(_pivots[{i}] > 0.0)" for i in range(n))
        pieces[-1] += (
            f"/* ddq = M^-1 delta {how}: 1 when every pivot is positive (M positive definite; a NaN is not) and ddq "
            "is finite (x - x is 0 for every finite x, NaN else), else 0 */\n"
            f"{sig}\n{{\n    double _pivots[{n}];\n    direct_blocks(_in, _ddq, _pivots);\n"
            f"    const double _sum = {' + '.join(f'_ddq[{i}]' for i in range(n))};\n"
            f"    return {positive} &\n           (_sum - _sum == 0.0);\n}}\n"
        )
        return pieces

    def _contacts(self) -> list[str]:
        """``sb_contacts``: the blocks of the unilateral contacts (:mod:`symbody.model.contacts`)."""
        eq = self.eq
        contacts = list(eq.contacts)
        names = [c.name for c in contacts]
        qn = [c.name for c in eq.coordinates]
        return self._fn(
            "contacts",
            [
                self._vector("_gap", [c.gap for c in contacts], names, "gap", "gaps, kept >= 0"),
                self._matrix("_gap_q", [list(c.gap_q) for c in contacts], names, qn, "gap_q", "gap Jacobian rows"),
                self._vector("_gap_beta", [c.beta for c in contacts], names, "gap_beta", "gap rate g_q dq - gap_beta"),
                self._vector("_gap_gamma", [c.gamma for c in contacts], names, "gap_gamma", "g_q ddq = gap_gamma"),
                self._vector(
                    "_restitution", [c.restitution for c in contacts], names, "restitution", "Newton's coefficients"
                ),
            ],
            "[gap | gap_q | gap_beta | gap_gamma | restitution]: unilateral contacts",
        )

    def _frictions(self) -> list[str]:
        """``sb_frictions`` and ``sb_friction_normals``: the stick-slip friction elements
        (:mod:`symbody.model.friction`)."""
        eq = self.eq
        frictions = list(eq.frictions)
        names = [f.name for f in frictions]
        qn = [c.name for c in eq.coordinates]
        parts = self._fn(
            "frictions",
            [
                self._matrix("_fr_A", [list(f.A) for f in frictions], names, qn, "fr_A", "sliding rate rows"),
                self._vector("_fr_beta", [f.beta for f in frictions], names, "fr_beta", "rate fr_A dq - fr_beta"),
                self._vector("_fr_gamma", [f.gamma for f in frictions], names, "fr_gamma", "fr_A ddq = fr_gamma"),
                self._vector("_fr_mu", [f.mu for f in frictions], names, "fr_mu", "sliding coefficients"),
                self._vector("_fr_mu_static", [f.mu_static for f in frictions], names, "fr_mu_static", "static"),
            ],
            "[fr_A | fr_beta | fr_gamma | fr_mu | fr_mu_static]: stick-slip friction elements",
        )
        return parts + self._fn(
            "friction_normals",
            [self._vector("_fr_normal", [f.normal for f in frictions], names, "fr_normal", "normal forces")],
            "normal forces of the friction elements (may use the multipliers and contact forces in lam)",
        )

    def _functions(self) -> list[str]:
        eq, jac = self.eq, self.jacobians
        n = eq.nq
        qn = [c.name for c in eq.coordinates]
        rows = [r.name for r in eq.constraint_rows]
        hrows = rows[: eq.nh]
        init_rows = hrows + [r.name for r in eq.initial_rows]
        yn = [o.name for o in eq.outputs]
        # [M | delta]: M upper triangle, mirrored
        masg = []
        for i in range(n):
            for j in range(i, n):
                e = eq.M[i][j]
                if nonzero(e):
                    also = (f"_M[{j * n + i}]",) if i != j else ()
                    masg.append(CAssignment(f"_M[{i * n + j}]", e, f"M({qn[i]}, {qn[j]})", also))
        mblock = CBlock("M", "mass matrix (symmetric)", masg, [("_M", n * n)] if len(masg) < n * (n + 1) // 2 else [])
        parts = list(
            self._fn(
                "M_delta",
                [mblock, self._vector("_delta", eq.delta, qn, "delta", "generalized forces")],
                "[M | delta]: mass matrix and generalized forces, exported jointly",
                hot=not eq.accelerations,  # the hot path where model.c has no direct accelerations
            )
        )
        parts.extend(self._accelerations_direct())
        parts.extend(
            self._fn(
                "constraints",
                [
                    self._matrix("_D", eq.D, rows, qn, "D", "velocity-level constraint Jacobian [Phi_q; A_nh]"),
                    self._vector("_beta", eq.beta, rows, "beta", "D dq = beta"),
                    self._vector("_gamma", eq.gamma, rows, "gamma", "D ddq = gamma"),
                    self._vector("_Phi", eq.Phi, hrows, "Phi", "holonomic constraints (Baumgarte)"),
                ],
                "[D | beta | gamma | Phi]: constraints of the dynamics",
            )
        )
        parts.extend(
            self._fn(
                "Phi_Phi_q",
                [
                    self._matrix("_Phi_q", eq.Phi_q, hrows, qn, "Phi_q", "Jacobian of the holonomic constraints"),
                    self._vector("_Phi", eq.Phi, hrows, "Phi", "holonomic constraints"),
                ],
                "[Phi_q | Phi]: position projection",
            )
        )
        parts.extend(
            self._fn(
                "D_beta",
                [
                    self._matrix("_D", eq.D, rows, qn, "D", "velocity-level constraint Jacobian"),
                    self._vector("_beta", eq.beta, rows, "beta", "D dq = beta"),
                ],
                "[D | beta]: velocity projection",
            )
        )
        parts.extend(
            self._fn(
                "Phi_init",
                [
                    self._matrix("_Phi_init_q", eq.Phi_init_q, init_rows, qn, "Phi_init_q", "assembly Jacobian"),
                    self._vector("_Phi_init", eq.Phi_init, init_rows, "Phi_init", "constraints and initial conditions"),
                ],
                "[Phi_init_q | Phi_init]: assembly of the initial configuration",
            )
        )
        parts.extend(
            self._fn(
                "outputs",
                [self._vector("_y", [o.expr for o in eq.outputs], yn, "y", "user outputs")],
                "user outputs",
            )
        )
        parts.extend(
            self._fn(
                "rates",
                [self._vector("_rates", list(eq.rates), [x.name for x in eq.states], "rates", "dx/dt")],
                "rates of the first-order states",
            )
        )
        parts.extend(self._contacts())
        parts.extend(self._frictions())
        switches = list(eq.switches)
        parts.extend(
            self._fn(
                "switches",
                [self._vector("_sw", switches, [f"switch {k}" for k in range(len(switches))], "sw", "zeros")],
                "switching functions of the loads (arguments of Abs and sign in delta)",
            )
        )
        parts.append(self.constants.function(self._sources, self._names, self._constant_users))
        self._first_derivative = len(parts)
        if self.jacobian_mode == "exact":
            parts.extend(self._exact_jacobians())
        else:
            parts += jacobian_functions(eq, jac, self.jacobian_mode, self._sources, self._names)
        return parts

    def _exact_jacobians(self) -> list[str]:
        """The symbolic residual, velocity and output Jacobians (the ``exact`` mode)."""
        eq, jac = self.eq, self.jacobians
        qn = [c.name for c in eq.coordinates]
        rows = [r.name for r in eq.constraint_rows]
        un = [u.name for u in eq.inputs]
        yn = [o.name for o in eq.outputs]
        rn = [f"dynamics {c}" for c in qn] + [f"acceleration {r}" for r in rows]
        parts: list[str] = []
        parts.extend(
            self._fn(
                "residual_jacobians",
                [
                    self._matrix("_R_q", jac.R_q, rn, qn, "dR/dq", "residual Jacobian, positions"),
                    self._matrix("_R_dq", jac.R_dq, rn, [f"d{c}" for c in qn], "dR/ddq", "velocities"),
                    self._matrix("_R_u", jac.R_u, rn, un, "dR/du", "inputs"),
                    self._vector("_R_t", jac.R_t, rn, "dR/dt", "time"),
                ],
                "exact Jacobians of R = [M ddq + D^T lam - delta; D ddq - gamma] at (ddq, lam)",
                derivative=True,
            )
        )
        parts.extend(
            self._fn(
                "velocity_jacobians",
                [
                    self._matrix("_V_q", jac.V_q, rows, qn, "dV/dq", "Jacobian of V = D dq - beta"),
                    self._vector("_V_t", jac.V_t, rows, "dV/dt", "time derivative of V"),
                ],
                "Jacobians of the velocity residual (Baumgarte terms)",
                derivative=True,
            )
        )
        dqn = [f"d{c}" for c in qn]
        parts.extend(
            self._fn(
                "output_jacobians",
                [
                    self._matrix("_Y_q", jac.Y_q, yn, qn, "dy/dq", "outputs, positions"),
                    self._matrix("_Y_dq", jac.Y_dq, yn, dqn, "dy/ddq", "velocities"),
                    self._matrix("_Y_u", jac.Y_u, yn, un, "dy/du", "inputs"),
                    self._vector("_Y_t", jac.Y_t, yn, "dy/dt", "time"),
                    self._matrix("_Y_ddq", jac.Y_ddq, yn, [f"dd{c}" for c in qn], "dy/dddq", "accelerations"),
                    self._matrix(
                        "_Y_lam", jac.Y_lam, yn, [symbol_name(lam) for lam in eq.lam], "dy/dlam", "multipliers"
                    ),
                ],
                "exact Jacobians of the user outputs",
                derivative=True,
            )
        )
        return parts
