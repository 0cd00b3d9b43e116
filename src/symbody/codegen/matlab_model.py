"""The MATLAB / GNU Octave export of a model: plain ``.m`` functions of its atomized equations.

:func:`export_matlab` writes, atomically into a new or empty folder, the functions
(``<name>`` is the model name as a MATLAB identifier, :func:`model_prefix`):

==============================  ==================================================================
``<name>_dynamics.m``           ``[M, delta, ddq, lam] = f(t, q, dq, u, p, baumgarte)``: ``[M | delta]``,
                                and the accelerations by the closed form or the solve the FMU uses
``<name>_constraints.m``        ``[Phi, Phi_q, beta, gamma, D] = f(t, q, dq, p)``
``<name>_outputs.m``            ``y = f(t, q, dq, u, p, ddq, lam)``
``<name>_parameters.m``         ``p = f()``: a struct, one field per parameter, defaults and units
``<name>_initial_state.m``      ``x0 = f()``: the column ``[q0; dq0]``
``<name>_simulate.m``           the driver: ``ode45`` / ``ode15s``, Baumgarte or projection, plots
==============================  ==================================================================

Each function evaluates the blocks the C export's function of the same name evaluates
(:data:`symbody.codegen.counts.EXPORTED_FUNCTIONS`): the same entries, the same
export plan, so the same temporaries and the same operation count
(:func:`symbody.codegen.counts.export_ops`).  As in lib_3D_MEC-GiNaC's MATLAB export
(Plaza Puértolas, 2015), every function unpacks its argument vectors into named
scalars and computes the atoms used more than once as temporaries.

Example:
    >>> from symbody.models import pendulum
    >>> export = MatlabExport(pendulum().derive())
    >>> sorted(export.files)[:2], export.ops["M_delta"]
    (['pendulum_constraints.m', 'pendulum_dynamics.m'], 3)
    >>> text = export.files["pendulum_dynamics.m"]
    >>> print(text[text.index("s_theta ="):text.index("if nargout")].strip())
    s_theta = q(1); % coordinate theta
    s_T = u(1); % input T
    % M: mass matrix (symmetric)
    M = zeros(1, 1);
    M(1, 1) = 1; % M(theta, theta)
    % delta: generalized forces
    delta = zeros(1, 1);
    delta(1) = s_T - 9.81.*sin(s_theta); % theta
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..errors import ExportError
from ..symbolic.expr import Expr
from ..symbolic.printing import MatlabPrinter
from .counts import exported_entries
from .matlab import (
    MatlabArray,
    MatlabEntry,
    MatlabSymbolNames,
    matlab_comment,
    matlab_identifier,
    matlab_plan,
    matlab_statements,
    matlab_string,
    may_be_complex,
    unique_identifiers,
)

if TYPE_CHECKING:
    from ..equations import Equations
    from ..model.contacts import ContactInfo
    from ..model.friction import FrictionInfo
    from ..model.system import System
from .matlab_simulate import simulate_driver

#: The file suffixes after the model name; the longest fixes how long the name may be.
FILES = ("dynamics", "constraints", "outputs", "parameters", "initial_state", "simulate")
_LONGEST_SUFFIX = max(len(f) for f in FILES) + 1


def model_prefix(name: str) -> str:
    """The model name as it starts every function name: :func:`~symbody.codegen.matlab.matlab_identifier`,
    short enough that ``<prefix>_initial_state`` has at most 63 characters.

    Example:
        >>> model_prefix("four_bar"), model_prefix("crane (v2)"), len(model_prefix("x" * 80))
        ('four_bar', 'crane__v2_', 49)
    """
    return matlab_identifier(name, 63 - _LONGEST_SUFFIX)


def _unit(unit: str | None) -> str:
    return f" [{unit}]" if unit else ""


class MatlabExport:
    """The ``.m`` files of one model (see the module docstring).

    Attributes:
        prefix: the model name as a MATLAB identifier (:func:`model_prefix`).
        files: file name -> MATLAB source.
        ops: operation count of each function of :data:`~symbody.codegen.counts.EXPORTED_FUNCTIONS`
            as written (0 for ``ddq`` without closed-form accelerations): the entries and the plan of the
            C export, so :func:`~symbody.codegen.counts.export_ops` too.
        fields: parameter name -> its field of the parameter struct.

    Raises:
        ExportError: the model has unilateral contacts or stick-slip friction (events the ``.m``
            functions do not handle), or a block uses a symbol its function does not take.
    """

    def __init__(self, eq: Equations):
        self.eq = eq
        events: tuple[tuple[str, Sequence[ContactInfo | FrictionInfo]], ...] = (
            ("unilateral contacts", eq.contacts),
            ("stick-slip friction", eq.frictions),
        )
        for what, found in events:
            if found:
                raise ExportError(
                    f"model {eq.name!r} has {what} ({found[0].name!r}): the MATLAB export handles no events; "
                    "export an FMU without --with-matlab, or simulate with symbody.numeric"
                )
        self.prefix = model_prefix(eq.name)
        self.fields = dict(zip([p.name for p in eq.parameters], unique_identifiers([p.name for p in eq.parameters])))
        self._names = MatlabSymbolNames()
        self.ops: dict[str, int] = {"ddq": 0}
        self.files: dict[str, str] = {}
        self._add("dynamics", self._dynamics())
        self._add("constraints", self._constraints())
        self._add("outputs", self._outputs())
        self._add("parameters", self._parameters())
        self._add("initial_state", self._initial_state())
        self._add("simulate", simulate_driver(eq, self.prefix, self.outputs_need_accelerations))

    def _add(self, suffix: str, text: str) -> None:
        self.files[f"{self.prefix}_{suffix}.m"] = text

    # -- symbol sources ------------------------------------------------------------
    def _sources(self, vectors: Sequence[str]) -> dict[Expr, str]:
        eq = self.eq
        table = {
            "t": [eq.t],
            "q": eq.q,
            "dq": eq.dq,
            "u": eq.u_symbols,
            "ddq": eq.ddq,
            "lam": eq.lam,
        }
        src: dict[Expr, str] = {}
        for vec in vectors:
            if vec == "p":
                src.update({p.symbol: f"p.{self.fields[p.name]}" for p in eq.parameters})
            elif vec == "t":
                src[eq.t] = "t"
            else:
                src.update({s: f"{vec}({i + 1})" for i, s in enumerate(table[vec])})
        return src

    def _array(self, block: str, name: str, description: str, labels: Sequence[Sequence[str]]) -> MatlabArray:
        """The output array ``name`` of the entries :func:`exported_entries` lists for ``block``."""
        exprs, shape = self.eq.blocks()[block]
        rows, cols = (shape[0], shape[1]) if len(shape) == 2 else (shape[0], 1)
        entries = []
        for index, e in exported_entries(self.eq, block):
            one_based = tuple(i + 1 for i in index)
            if len(index) == 2:
                label = f"{block}({labels[0][index[0]]}, {labels[1][index[1]]})"
                also = ((index[1] + 1, index[0] + 1),) if block == "M" and index[0] != index[1] else ()
            else:
                label, also = labels[0][index[0]], ()
            entries.append(MatlabEntry(one_based, e, label, also))
        return MatlabArray(name, description, (rows, cols), entries)

    def _body(self, function: str, arrays: list[MatlabArray], vectors: Sequence[str], what: str) -> list[str]:
        """Statements of the arrays of ``function`` (an entry of EXPORTED_FUNCTIONS), and their operation count."""
        sources = self._sources(vectors)
        try:
            plan = matlab_plan(arrays, sources, self._names)
        except KeyError as e:
            raise ExportError(
                f"MATLAB export of {self.eq.name!r}: {e.args[0]}: the {what} of the .m export take "
                f"({', '.join(vectors)})"
            ) from None
        self.ops[function] = plan.op_count()
        lines = matlab_statements(arrays, sources, self._names, plan)
        if may_be_complex(plan):
            real = " || ".join(f"~isreal({a.name})" for a in arrays)
            lines += [
                f"if {real}",
                f"    error('{self.prefix}:domain', ['{self.prefix}_{what.split()[0]}: a square root, logarithm, power "
                "or inverse sine or cosine ', ...",
                "        'of a value outside its real domain at t = %g (the C export gives NaN here)'], t);",
                "end",
            ]
        return lines

    def _header(self, signature: str, summary: str, usage: Sequence[str], ops: str = "") -> list[str]:
        eq = self.eq
        name = signature.split("=")[-1].split("(")[0].strip()
        lines = [f"function {signature}", f"%{name.upper()}  {matlab_comment(summary)}"]
        lines += [f"%   {matlab_comment(line)}" if line else "%" for line in usage]
        lines += ["%", f"%   Model {matlab_comment(eq.name)}: {matlab_comment(eq.description or '(no description)')}"]
        lines.append(f"%   Generated by symbody {__version__}; do not edit.{ops}")
        return lines

    # -- the files ----------------------------------------------------------------
    def _coordinate_labels(self) -> list[str]:
        return [c.name for c in self.eq.coordinates]

    def _dynamics(self) -> str:
        eq, pre = self.eq, self.prefix
        qn = self._coordinate_labels()
        arrays = [
            self._array("M", "M", "mass matrix (symmetric)", [qn, qn]),
            self._array("delta", "delta", "generalized forces", [qn]),
        ]
        body = self._body("M_delta", arrays, ("t", "q", "dq", "u", "p"), "dynamics")
        direct = bool(eq.accelerations)
        usage = [
            f"[M, delta] = {pre}_dynamics(t, q, dq, u, p) evaluates M ddq + D' lam = delta at time t [s],",
            f"coordinates q and velocities dq (columns of {eq.nq}, ordered as in {pre}_initial_state), inputs u",
            f"(a column of {eq.nu}) and parameters p (the struct of {pre}_parameters): M is the {eq.nq} x {eq.nq} mass",
            "matrix (symmetric), delta the generalized forces.",
            f"[M, delta, ddq, lam] = {pre}_dynamics(...) also returns the accelerations and the multipliers:",
        ]
        if eq.nc:
            usage += [
                "the solution of [M D'; D 0] [ddq; lam] = [delta; gamma - 2 alpha (D dq - beta) - beta_b^2 Phi]",
                f"(D, beta, gamma, Phi from {pre}_constraints) with baumgarte = [alpha, beta_b] in 1/s (default",
                "[0 0]: the exact accelerations; the FMU's defaults are [10 10]); redundant rows get the",
                "minimum-norm multipliers of a consistent system.",
            ]
        elif direct:
            usage += [
                f"ddq = M^-1 delta in closed form ({eq.accelerations_method}), valid where its pivots are positive;",
                "elsewhere M is factored (Cholesky), as the FMU does.  lam is empty.",
            ]
        else:
            usage += ["ddq = M^-1 delta by a Cholesky factorization of M.  lam is empty."]
        ops = f"\n%   Operations: [M | delta] {self.ops['M_delta']}, as the C export's sb_M_delta."
        lines = self._header(
            f"[M, delta, ddq, lam] = {pre}_dynamics(t, q, dq, u, p, baumgarte)",
            f"Mass matrix and generalized forces of model {eq.name}, and its accelerations.",
            usage,
            ops,
        )
        lines += [""] + body + ["if nargout > 2"]
        accel: list[str] = []
        if eq.nc:
            accel += [
                "if nargin < 6",
                "    baumgarte = [0, 0];",
                "end",
                f"[Phi, ~, beta, gamma, D] = {pre}_constraints(t, q, dq, p);",
                "rhs = gamma - 2 .* baumgarte(1) .* (D * dq - beta);",
                f"rhs(1:{eq.nh}) = rhs(1:{eq.nh}) - baumgarte(2) .^ 2 .* Phi;" if eq.nh else "",
                "[ddq, lam] = saddle_solve(M, D, delta, rhs, t);",
            ]
        else:
            accel.append("lam = zeros(0, 1);")
            if direct:
                accel += [
                    "[ddq, pivots] = direct_accelerations(t, q, dq, u, p);",
                    "if ~(all(pivots > 0) && all(isfinite(ddq))) % M not positive definite here: factor it",
                    "    ddq = mass_solve(M, delta, t);",
                    "end",
                ]
            else:
                accel.append("ddq = mass_solve(M, delta, t);")
        accel += [
            "bad = find(~isfinite(ddq), 1);",
            "if ~isempty(bad)",
            f"    names = {_cell(qn)};",
            f"    error('{pre}:nonfinite', '{pre}_dynamics: the acceleration of %s is not finite at t = %g', "
            "names{bad}, t);",
            "end",
        ]
        lines += ["    " + line for line in accel if line] + ["end", "end"]
        if direct:
            lines += self._direct()
        lines += self._solvers()
        return "\n".join(lines) + "\n"

    def _direct(self) -> list[str]:
        eq = self.eq
        qn = self._coordinate_labels()
        arrays = [
            self._array("accelerations", "ddq", "accelerations M^-1 delta", [[f"dd{c}" for c in qn]]),
            self._array("pivots", "pivots", "valid when all are positive", [[f"pivot of {c}" for c in qn]]),
        ]
        body = self._body("ddq", arrays, ("t", "q", "dq", "u", "p"), "dynamics")
        ops = self.ops["ddq"]
        return [
            "",
            "function [ddq, pivots] = direct_accelerations(t, q, dq, u, p)",
            f"% ddq = M^-1 delta in closed form ({matlab_comment(eq.accelerations_method)}), with its pivots;",
            f"% {ops} operations, as the C export's sb_accelerations_direct.",
            *body,
            "end",
        ]

    def _solvers(self) -> list[str]:
        pre = self.prefix
        if self.eq.nc:
            return [
                "",
                "function [ddq, lam] = saddle_solve(M, D, delta, rhs, t)",
                "% [M D'; D 0] [ddq; lam] = [delta; rhs]; the minimum-norm solution when the matrix is singular",
                "% (redundant constraint rows), accepted only when it solves the system.",
                "n = size(M, 1);",
                "A = [M, D'; D, zeros(size(D, 1))];",
                "b = [delta; rhs];",
                "if rcond(A) > 1e-13",
                "    x = A \\ b;",
                "else",
                "    x = pinv(A) * b;",
                "    if ~(norm(A * x - b, Inf) <= 1e-9 * (norm(b, Inf) + 1))",
                f"        error('{pre}:singular', ['{pre}_dynamics: [M D''; D 0] is singular ', ...",
                "            'and the constraints are inconsistent at t = %g (a singular position?)'], t);",
                "    end",
                "end",
                "ddq = x(1:n);",
                "lam = x(n + 1:end);",
                "end",
            ]
        return [
            "",
            "function ddq = mass_solve(M, delta, t)",
            "% M ddq = delta by a Cholesky factorization of M (positive definite).",
            "[R, failed] = chol(M);",
            "if failed",
            f"    error('{pre}:singular', '{pre}_dynamics: the mass matrix is not positive definite at t = %g', t);",
            "end",
            "ddq = R \\ (R' \\ delta);",
            "end",
        ]

    def _constraints(self) -> str:
        eq, pre = self.eq, self.prefix
        qn = self._coordinate_labels()
        rows = [r.name for r in eq.constraint_rows]
        arrays = [
            self._array("D", "D", "velocity-level constraint Jacobian [Phi_q; A_nh]", [rows, qn]),
            self._array("beta", "beta", "D dq = beta", [rows]),
            self._array("gamma", "gamma", "D ddq = gamma", [rows]),
            self._array("Phi", "Phi", "holonomic constraints", [rows[: eq.nh]]),
        ]
        body = self._body("constraints", arrays, ("t", "q", "dq", "p"), "constraints")
        lines = self._header(
            f"[Phi, Phi_q, beta, gamma, D] = {pre}_constraints(t, q, dq, p)",
            f"Constraints of model {eq.name}: Phi(q, t) = 0, D dq = beta, D ddq = gamma.",
            [
                f"Phi: the {eq.nh} holonomic constraints; Phi_q their Jacobian ({eq.nh} x {eq.nq}); beta, gamma: the",
                f"{eq.nc} rows of D dq = beta and D ddq = gamma, D = [Phi_q; A_nh] ({eq.nc} x {eq.nq}: the",
                f"holonomic rows, then {eq.nc - eq.nh} velocity (non-holonomic) rows).  Arguments as in",
                f"{pre}_dynamics.",
                f"Rows: {', '.join(rows) or 'none'}.",
            ],
            f"\n%   Operations: {self.ops['constraints']}, as the C export's sb_constraints.",
        )
        lines += [""] + body + [f"Phi_q = D(1:{eq.nh}, :);", "end"]
        return "\n".join(lines) + "\n"

    @property
    def outputs_need_accelerations(self) -> bool:
        """Whether an output uses the accelerations or the multipliers."""
        mask = 0
        for s in [*self.eq.ddq, *self.eq.lam]:
            mask |= s.mask
        return any(o.expr.mask & mask for o in self.eq.outputs)

    def _outputs(self) -> str:
        eq, pre = self.eq, self.prefix
        labels = [f"{o.name}{_unit(o.unit)} {o.description}".strip() for o in eq.outputs]
        arrays = [self._array("outputs", "y", "outputs", [labels])]
        accelerations = self.outputs_need_accelerations
        vectors = ("t", "q", "dq", "u", "p") + (("ddq", "lam") if accelerations else ())
        body = self._body("outputs", arrays, vectors, "outputs")
        usage = [f"y: the {len(eq.outputs)} outputs ({', '.join(o.name for o in eq.outputs) or 'none'}), a column."]
        if accelerations:
            usage += [
                "They use the accelerations ddq and multipliers lam: give them, or they come from",
                f"{pre}_dynamics(t, q, dq, u, p) (the exact accelerations, no Baumgarte terms).",
            ]
        lines = self._header(
            f"y = {pre}_outputs(t, q, dq, u, p, ddq, lam)",
            f"Outputs of model {eq.name}.",
            usage,
            f"\n%   Operations: {self.ops['outputs']}, as the C export's sb_outputs.",
        )
        lines.append("")
        if accelerations:
            lines += ["if nargin < 7", f"    [~, ~, ddq, lam] = {pre}_dynamics(t, q, dq, u, p);", "end"]
        lines += body + ["end"]
        return "\n".join(lines) + "\n"

    def _parameters(self) -> str:
        eq, pre = self.eq, self.prefix
        lines = self._header(
            f"p = {pre}_parameters()",
            f"Parameters of model {eq.name} with their default values, as a struct.",
            [
                "One field per parameter (units and descriptions below); change fields and pass p to the other",
                "functions.  A parameter name that is not a MATLAB identifier (or is a keyword, or is longer",
                "than 63 characters) is mangled: other characters become _, a leading non-letter gets x,",
                "a keyword a trailing _, a long name a hash suffix; the comment gives the model's name.",
            ],
        )
        lines += ["", "p = struct();"]
        for prm in eq.parameters:
            field_name = self.fields[prm.name]
            renamed = f" (parameter {prm.name})" if field_name != prm.name else ""
            note = f"{_unit(prm.unit).strip()} {prm.description}{renamed}".strip()
            lines.append(f"p.{field_name} = {_number(prm.value)};" + (f" % {matlab_comment(note)}" if note else ""))
        lines.append("end")
        return "\n".join(lines) + "\n"

    def _initial_state(self) -> str:
        eq, pre = self.eq, self.prefix
        n = eq.nq
        lines = self._header(
            f"x0 = {pre}_initial_state()",
            f"Start state [q0; dq0] of model {eq.name} (the model's start values).",
            [f"A column of {2 * n}: the {n} coordinates, then their velocities."],
        )
        lines += ["", f"x0 = zeros({2 * n}, 1);"]
        for i, c in enumerate(eq.coordinates):
            lines.append(f"x0({i + 1}) = {_number(c.q0)}; % {matlab_comment(c.name + _unit(c.unit))}")
        for i, c in enumerate(eq.coordinates):
            unit = _unit(f"{c.unit}/s" if c.unit else None)
            lines.append(f"x0({n + i + 1}) = {_number(c.dq0)}; % {matlab_comment(f'velocity of {c.name}{unit}')}")
        lines.append("end")
        return "\n".join(lines) + "\n"


def _number(x: float) -> str:
    return MatlabPrinter().number(float(x))


def _cell(names: Sequence[str]) -> str:
    """A MATLAB cell array of the names as character vectors."""
    return "{" + ", ".join(matlab_string(n) for n in names) + "}"


def export_matlab(model: System | Equations, directory: str | Path) -> Path:
    """Write the ``.m`` files of a model into ``directory`` (a new or empty folder), atomically.

    Args:
        model: a :class:`symbody.System` (derived here) or its :class:`symbody.Equations`.
        directory: the folder to create; an existing one must be empty.

    Returns:
        The folder.

    Raises:
        ExportError: the folder is not empty or its parent does not exist, or the model cannot be exported
            (see :class:`MatlabExport`); nothing is written then.

    Example:
        >>> import tempfile, pathlib
        >>> from symbody.models import pendulum
        >>> out = export_matlab(pendulum(), pathlib.Path(tempfile.mkdtemp()) / "pendulum_m")
        >>> sorted(p.name for p in out.iterdir())[-2:]
        ['pendulum_parameters.m', 'pendulum_simulate.m']
    """
    from ..equations import Equations

    if isinstance(model, Equations):
        eq = model
    elif hasattr(model, "derive"):
        eq = model.derive()
    else:
        raise ExportError(f"cannot export {type(model).__name__}: expected a symbody.System or Equations")
    target = Path(directory)
    check_directory(target)
    files = MatlabExport(eq).files
    parent = target.resolve().parent
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".part", dir=parent))
    try:
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="ascii")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp creates 0700
        if target.is_dir():
            check_directory(target)
            target.rmdir()
        os.rename(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def check_directory(target: Path) -> None:
    """Raise :class:`ExportError` unless ``target`` can be created (its parent exists) or is an empty folder."""
    if target.exists():
        if not target.is_dir():
            raise ExportError(f"{str(target)!r} exists and is not a folder")
        if any(target.iterdir()):
            raise ExportError(f"folder {str(target)!r} is not empty: give a new or empty folder")
    elif not target.resolve().parent.is_dir():
        raise ExportError(f"output folder {str(target.resolve().parent)!r} does not exist")


__all__ = ["FILES", "MatlabExport", "check_directory", "export_matlab", "model_prefix"]
