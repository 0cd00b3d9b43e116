"""The derived equations of motion: :class:`Equations`.

``Equations`` is the one object consumers use (numerical analyses, code
generation, FMU export).  It holds the atomized blocks::

    M q'' + D^T lambda = delta          (dynamics, M symmetric)
    Phi(q, t) = 0                       (holonomic constraints)
    D q' = beta                         (velocity level, D = [Phi_q; A_nh])
    D q'' = gamma                       (acceleration level)

plus the initial-position rows, the outputs, symbol tables and metadata, and
it never refers back to the model objects.

Example:
    >>> import symbody as sb
    >>> from examples_path import simple_pendulum  # doctest: +SKIP
    >>> eq = simple_pendulum.build().derive()      # doctest: +SKIP
    >>> eq.stats()["ops"]["M_delta"]               # doctest: +SKIP
    5
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import ModelError
from .model.shapes import describe_geometry
from .symbolic.calculus import diff, jacobian, subs_many, time_derivative
from .symbolic.dynamics import assemble
from .symbolic.energy import kinetic_energy, potential_energy
from .symbolic.expr import NEG, NUM, SYM, ZERO, Expr, neg, walk
from .symbolic.recursive import assemble_recursive, tree_of

# ---------------------------------------------------------------------------
# metadata records (copied from the model so that consumers never need it)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ParameterInfo:
    name: str
    symbol: Expr
    value: float
    unit: str | None
    description: str
    min: float | None
    max: float | None


@dataclass(frozen=True)
class CoordinateInfo:
    name: str
    q: Expr
    dq: Expr
    ddq: Expr
    q0: float
    dq0: float
    unit: str | None
    description: str
    aux: bool


@dataclass(frozen=True)
class InputInfo:
    name: str
    symbol: Expr
    value: float
    unit: str | None
    description: str
    min: float | None
    max: float | None


@dataclass(frozen=True)
class OutputInfo:
    name: str
    expr: Expr
    unit: str | None
    description: str


@dataclass(frozen=True)
class ConstraintInfo:
    name: str
    kind: str
    group: str
    multiplier: Expr | None


@dataclass(frozen=True)
class JointInfo:
    name: str
    kind: str
    rows: tuple
    reactions: dict = field(default_factory=dict)


class Equations:
    """Atomized equations of motion of a system (see module docstring).

    Attributes:
        name: model name.
        q, dq, ddq: coordinate, velocity and acceleration symbols.
        t: time symbol.
        parameters, coordinates, inputs, outputs: metadata records (lists).
        M: mass matrix (list of rows), symmetric.
        delta: generalized forces (inertial velocity terms and loads).
        Phi, Phi_q: holonomic constraints and their Jacobian.
        A_nh: Jacobian of the velocity (non-holonomic) constraints.
        D, beta, gamma: velocity-level Jacobian ``[Phi_q; A_nh]``, ``beta`` and ``gamma``.
        Phi_init, Phi_init_q: rows for assembling the initial configuration
            (``Phi`` followed by the initial-position conditions).
        lam: multiplier symbols, one per row of ``D``.
        kinetic_energy: ``T(q, dq, t)`` with the full velocities (rheonomic terms included).
        potential_energy: ``V(q, t)`` of the loads that declare a potential (gravity, springs, constant forces).
        nonpotential_forces: generalized forces of the loads, or parts of loads, without a
            potential (dampers, actuators, other forces); ``nonpotential_loads`` names them.
        derive_seconds: time taken by :meth:`symbody.System.derive`.
        formulation: how ``M`` and ``delta`` were derived: ``"recursive"`` (composite-rigid-body
            and Newton-Euler recursions over a tree of relative joints) or ``"virtual_power"``.
        geometry: the shapes and their anchors' poses (:class:`symbody.model.shapes.GeometryInfo`).
        n_atoms: number of atoms created by the derivation of the equations of motion
            (the energy expressions, later Jacobians and export plans add atoms to the
            same table; they are not counted here).
    """

    def __init__(self) -> None:
        self._evaluators: dict = {}
        self._stats: dict | None = None

    # -- sizes ---------------------------------------------------------------
    @property
    def nq(self) -> int:
        return len(self.q)

    @property
    def nh(self) -> int:
        """Number of holonomic constraint rows."""
        return len(self.Phi)

    @property
    def nc(self) -> int:
        """Number of constraint rows at velocity level (holonomic + non-holonomic)."""
        return len(self.D)

    @property
    def dof(self) -> int:
        """Degrees of freedom ``nq - rank(D)`` at the initial configuration (``nq - nc`` if unknown)."""
        if self.nc == 0:
            return self.nq
        try:
            D = self.numeric().D(self.q0)
            return self.nq - int(np.linalg.matrix_rank(D, tol=1e-9 * max(1.0, np.abs(D).max())))
        except Exception:  # noqa: BLE001 - rank at an unassembled point may fail
            return self.nq - self.nc

    @property
    def nu(self) -> int:
        return len(self.inputs)

    @property
    def np_(self) -> int:
        return len(self.parameters)

    @property
    def p0(self) -> np.ndarray:
        """Default parameter values."""
        return np.array([p.value for p in self.parameters], dtype=float)

    @property
    def q0(self) -> np.ndarray:
        return np.array([c.q0 for c in self.coordinates], dtype=float)

    @property
    def dq0(self) -> np.ndarray:
        return np.array([c.dq0 for c in self.coordinates], dtype=float)

    @property
    def u0(self) -> np.ndarray:
        return np.array([u.value for u in self.inputs], dtype=float)

    @property
    def p_symbols(self) -> list[Expr]:
        return [p.symbol for p in self.parameters]

    @property
    def u_symbols(self) -> list[Expr]:
        return [u.symbol for u in self.inputs]

    def index(self, name: str) -> tuple[str, int]:
        """Where a name lives: ``("q", i)``, ``("p", i)``, ``("u", i)``, ``("y", i)`` or ``("lam", i)``."""
        for i, c in enumerate(self.coordinates):
            if c.name == name:
                return "q", i
            if c.dq.name == name:
                return "dq", i
            if c.ddq.name == name:
                return "ddq", i
        for i, p in enumerate(self.parameters):
            if p.name == name:
                return "p", i
        for i, u in enumerate(self.inputs):
            if u.name == name:
                return "u", i
        for i, o in enumerate(self.outputs):
            if o.name == name:
                return "y", i
        for i, lam in enumerate(self.lam):
            if lam.name == name or self.constraint_rows[i].name == name:
                return "lam", i
        raise KeyError(f"{name!r} is not a coordinate, parameter, input, output or constraint of {self.name!r}")

    def redundant_rows(self, D: np.ndarray | None = None, tol: float = 1e-9) -> list[str]:
        """Names of constraint rows that depend linearly on the others (at ``q0``, or for a given ``D``).

        Rows are kept greedily in order; a row is redundant when it adds no rank.
        """
        if D is None:
            D = self.numeric().D(self.q0)
        out, kept = [], np.zeros((0, D.shape[1]))
        scale = max(1.0, float(np.abs(D).max())) if D.size else 1.0
        for i, row in enumerate(D):
            trial = np.vstack([kept, row])
            if np.linalg.matrix_rank(trial, tol=tol * scale) > kept.shape[0]:
                kept = trial
            else:
                out.append(self.constraint_rows[i].name)
        return out

    # -- symbolic helpers ------------------------------------------------------
    def jacobian(self, exprs: Sequence[Expr], wrt: Sequence[Expr]) -> list[list[Expr]]:
        """Symbolic Jacobian of expressions with respect to symbols (atomized)."""
        return jacobian(list(exprs), list(wrt))

    def time_derivative(self, e: Expr, accelerations: bool = True) -> Expr:
        """Total time derivative of an expression of this model."""
        return time_derivative(e, self.ctx, accelerations)

    @property
    def layout(self):
        """Argument layout of generated functions (see :mod:`symbody.codegen.python`)."""
        from .codegen.python import Layout

        return Layout(q=self.q, dq=self.dq, ddq=self.ddq, u=self.u_symbols, p=self.p_symbols, lam=self.lam, t=self.t)

    def blocks(self) -> dict[str, tuple[list[Expr], tuple[int, ...]]]:
        """All standard blocks as ``name -> (flat expressions, shape)``."""
        n, nc, nh = self.nq, self.nc, self.nh
        return {
            "M": ([e for row in self.M for e in row], (n, n)),
            "delta": (list(self.delta), (n,)),
            "Phi": (list(self.Phi), (nh,)),
            "Phi_q": ([e for row in self.Phi_q for e in row], (nh, n)),
            "D": ([e for row in self.D for e in row], (nc, n)),
            "beta": (list(self.beta), (nc,)),
            "gamma": (list(self.gamma), (nc,)),
            "Phi_init": (list(self.Phi_init), (len(self.Phi_init),)),
            "Phi_init_q": ([e for row in self.Phi_init_q for e in row], (len(self.Phi_init), n)),
            "outputs": ([o.expr for o in self.outputs], (len(self.outputs),)),
        }

    def evaluator(self, *names: str, extra: dict | None = None) -> Callable:
        """A compiled function ``f(t, q, dq, u, p, ddq=None, lam=None)`` returning the named blocks.

        Blocks evaluated together share their atoms.  Custom blocks can be given
        in ``extra`` as ``name -> (flat expressions, shape)``.  Compiled functions
        are cached per set of blocks (custom blocks included).
        """
        extra = extra or {}
        key = (names, tuple((k, tuple(v[0]), tuple(v[1])) for k, v in sorted(extra.items())))
        f = self._evaluators.get(key)
        if f is None:
            from .codegen.python import compile_function

            allb = self.blocks()
            allb.update(extra)
            sel = {}
            for nme in names:
                if nme not in allb:
                    raise KeyError(f"unknown block {nme!r}; available: {', '.join(allb)}")
                sel[nme] = allb[nme]
            f = compile_function(sel, self.layout, fname="evaluate_" + "_".join(names))
            self._evaluators[key] = f
        return f

    def numeric(self, p: Any = None):
        """A :class:`symbody.numeric.NumericModel` bound to parameter values (default: the model's)."""
        from .numeric.model import NumericModel

        return NumericModel(self, p)

    # -- statistics ------------------------------------------------------------
    def export_plan(self, *names: str, symmetric_M: bool = True, trig: str = "fold"):
        """The :class:`symbody.codegen.emit.ExportPlan` of the named blocks exported jointly.

        ``trig="fold"`` is the size-optimal export (the counts of :meth:`stats`);
        ``trig="expand"`` is the speed-optimal one the C and Python emitters use.
        """
        from .codegen.emit import ExportPlan

        allb = self.blocks()
        sel = {}
        for nme in names:
            exprs, shape = allb[nme]
            if nme == "M" and symmetric_M:
                n = self.nq
                exprs = [self.M[i][j] for i in range(n) for j in range(i, n)]
            sel[nme] = exprs
        symnames = {s: s.name for s in self.ctx.symbols}
        return ExportPlan(sel, symnames, trig=trig)

    def op_count(self, *names: str, trig: str = "fold") -> int:
        """Operation count (sum of ``sympy.count_ops`` over emitted assignments) of blocks exported jointly."""
        return self.export_plan(*names, trig=trig).op_count()

    def stats(self) -> dict:
        """Sizes, atom and operation counts per block (definitions in docs/guide/architecture.md).

        Keys: ``name, coordinates, constraints, dof, parameters, inputs, outputs,
        atoms, ops, temps, derive_seconds, formulation``; ``ops`` holds ``M, delta, M_delta,
        Phi, Phi_q, gamma`` (and ``D, beta, outputs``); ``temps`` holds the number of
        temporaries emitted per block.
        """
        if self._stats is not None:
            return self._stats
        ops: dict[str, int] = {}
        temps: dict[str, int] = {}
        for key, names in (
            ("M", ("M",)),
            ("delta", ("delta",)),
            ("M_delta", ("M", "delta")),
            ("Phi", ("Phi",)),
            ("Phi_q", ("Phi_q",)),
            ("Phi_Phi_q", ("Phi_q", "Phi")),
            ("D", ("D",)),
            ("beta", ("beta",)),
            ("gamma", ("gamma",)),
            ("outputs", ("outputs",)),
        ):
            plan = self.export_plan(*names)
            ops[key] = plan.op_count()
            temps[key] = plan.n_temps
        self._stats = {
            "name": self.name,
            "coordinates": self.nq,
            "constraints": self.nc,
            "holonomic": self.nh,
            "nonholonomic": self.nc - self.nh,
            "dof": self.dof,
            "parameters": len(self.parameters),
            "inputs": len(self.inputs),
            "outputs": len(self.outputs),
            "atoms": self.n_atoms,
            "ops": ops,
            "temps": temps,
            "derive_seconds": self.derive_seconds,
            "formulation": self.formulation,
        }
        return self._stats

    # -- display -----------------------------------------------------------------
    def __repr__(self) -> str:
        return (
            f"Equations({self.name!r}: {self.nq} coordinates, {self.nc} constraints, "
            f"{len(self.inputs)} inputs, {len(self.outputs)} outputs, {self.n_atoms} atoms)"
        )

    def sympy(self, block: str):
        """A block as a SymPy matrix (de-atomized; for small models)."""
        import sympy

        from .symbolic.sympy_bridge import to_sympy

        exprs, shape = self.blocks()[block]
        cache: dict = {}
        flat = [to_sympy(e, cache=cache) for e in exprs]
        if len(shape) == 1:
            return sympy.Matrix(shape[0], 1, flat)
        return sympy.Matrix(shape[0], shape[1], flat)

    def _repr_latex_(self) -> str:
        import sympy

        if self.n_atoms > 4000:
            return f"$\\text{{{self!r}}}$"
        parts = [
            r"\mathbf{M} = " + sympy.latex(self.sympy("M")),
            r"\boldsymbol{\delta} = " + sympy.latex(self.sympy("delta")),
        ]
        if self.nh:
            parts.append(r"\boldsymbol{\Phi} = " + sympy.latex(self.sympy("Phi")))
        return "$\\begin{gathered}" + r"\\".join(parts) + "\\end{gathered}$"

    def pretty(self) -> str:
        """Plain-text display of ``M``, ``delta`` and ``Phi``."""
        import sympy

        out = [f"{self!r}", "M =", sympy.pretty(self.sympy("M")), "delta =", sympy.pretty(self.sympy("delta"))]
        if self.nh:
            out += ["Phi =", sympy.pretty(self.sympy("Phi"))]
        return "\n".join(out)


# ---------------------------------------------------------------------------
# derivation
# ---------------------------------------------------------------------------


def _progress_bar(enabled: bool | Callable | None):
    if callable(enabled):
        return enabled, lambda: None
    if enabled is False:
        return None, lambda: None
    state: dict[str, Any] = {"bar": None, "t0": time.perf_counter()}

    def cb(done: int, total: int, what: str) -> None:
        if state["bar"] is None:
            if time.perf_counter() - state["t0"] < 2.0:
                return
            try:
                from tqdm import tqdm
            except ImportError:  # pragma: no cover - tqdm is a dependency
                return
            state["bar"] = tqdm(total=total, desc="deriving", unit="item", file=sys.stderr, leave=False)
            state["bar"].update(done)
            return
        bar = state["bar"]
        bar.set_postfix_str(what[:20], refresh=False)
        bar.update(done - bar.n)

    def close() -> None:
        if state["bar"] is not None:
            state["bar"].close()

    return cb, close


FORMULATIONS = ("auto", "recursive", "virtual_power")

# Trees with at most this many coordinates are derived both ways and the shorter [M|delta] is
# kept (the virtual-power loop is then fast and sometimes shorter: planar chains of two or three
# bodies, the n-link pendulum on a cart up to n = 4); on larger trees the recursion wins (3-D and
# planar chains, the n-link pendulum from n = 5, see benchmarks/bench_recursive.py).  The count is
# the export plan's when both are small, the number of atoms otherwise.
COMPARE_UP_TO = 8
EXACT_COUNT_UP_TO = 400


def _mass_and_forces(system, cb, formulation: str) -> tuple[list, list, str]:
    """``M``, ``delta`` and the formulation used: the recursion on trees, the virtual-power loop otherwise."""
    if formulation not in FORMULATIONS:
        raise ModelError(f"unknown formulation {formulation!r}: use one of {', '.join(FORMULATIONS)}")
    tree = tree_of(system) if formulation != "virtual_power" else None
    if tree is None:
        if formulation == "recursive":
            raise ModelError(
                f"model {system.name!r} is not a tree of relative joints (a coordinate moves more than one "
                f"solid relative to its parent, or an input enters a joint): use formulation='virtual_power'"
            )
        return (*assemble(system, cb), "virtual_power")
    rec = assemble_recursive(system, tree, cb)
    if formulation == "recursive" or len(system.coordinates) > COMPARE_UP_TO:
        return (*rec, "recursive")
    vp = assemble(system)  # small tree: fast, no progress to report twice
    sizes = [_atom_count(*rec), _atom_count(*vp)]
    if max(sizes) <= EXACT_COUNT_UP_TO:
        sizes = [_op_count(*rec, system), _op_count(*vp, system)]
    return (*vp, "virtual_power") if sizes[1] < sizes[0] else (*rec, "recursive")


def _atom_count(M: list, delta: list) -> int:
    """Operations of the atoms of ``M`` (upper triangle) and ``delta`` (negations are free in sums)."""
    n = len(M)
    roots = [M[i][j] for i in range(n) for j in range(i, n)] + list(delta)
    return sum(1 for e in walk(roots) if e.op not in (SYM, NUM, NEG))


def _op_count(M: list, delta: list, system) -> int:
    """The export plan's operation count of ``[M|delta]``."""
    probe = Equations()
    probe.M, probe.delta, probe.ctx = M, delta, system.ctx
    probe.q = [c.q for c in system.coordinates]
    probe.Phi = probe.Phi_q = probe.D = probe.beta = probe.gamma = probe.Phi_init = probe.Phi_init_q = []
    probe.outputs = []
    return probe.op_count("M", "delta")


def derive_equations(
    system, progress: bool | Callable | None = None, check: bool = True, formulation: str = "auto"
) -> Equations:
    """Build the :class:`Equations` of a system (used by :meth:`System.derive`).

    ``formulation``: ``"recursive"`` (composite-rigid-body and Newton-Euler recursions,
    tree models only), ``"virtual_power"`` (the loop over solids, any model) or
    ``"auto"``: the recursion on trees, the shorter ``[M|delta]`` of the two on small trees.
    """
    t0 = time.perf_counter()
    if check:
        _check_system(system)
    cb, close = _progress_bar(progress)
    try:
        M, delta, used = _mass_and_forces(system, cb, formulation)
    finally:
        close()
    eq = Equations()
    eq.formulation = used
    eq.name = system.name
    eq.description = system.description
    eq.ctx = system.ctx
    eq.t = system.t
    eq.q = [c.q for c in system.coordinates]
    eq.dq = [c.dq for c in system.coordinates]
    eq.ddq = [c.ddq for c in system.coordinates]
    eq.parameters = [
        ParameterInfo(p.name, p.symbol, p.value, p.unit, p.description, p.min, p.max)
        for p in system.parameters.values()
    ]
    eq.coordinates = [
        CoordinateInfo(c.name, c.q, c.dq, c.ddq, c.q0, c.dq0, c.unit, c.description, c.aux) for c in system.coordinates
    ]
    eq.inputs = [
        InputInfo(u.name, u.symbol, u.value, u.unit, u.description, u.min, u.max) for u in system.inputs.values()
    ]
    eq.outputs = [OutputInfo(o.name, o.expr, o.unit, o.description) for o in system.outputs.values()]
    eq.M = M
    eq.delta = delta
    hol = [r for r in system.constraints if r.kind == "holonomic"]
    vel = [r for r in system.constraints if r.kind == "velocity"]
    init = [r for r in system.constraints if r.kind == "initial"]
    q, dq = eq.q, eq.dq
    eq.Phi = [r.expr for r in hol]
    eq.Phi_q = jacobian(eq.Phi, q)
    eq.A_nh = jacobian([r.expr for r in vel], dq)
    eq.D = eq.Phi_q + eq.A_nh
    beta_h = [neg(diff(e, system.t)) for e in eq.Phi]
    zero_v = {s: ZERO for s in dq}
    beta_nh = [neg(e) for e in subs_many([r.expr for r in vel], zero_v)]
    eq.beta = beta_h + beta_nh
    ctx = system.ctx
    phidot = [time_derivative(e, ctx, accelerations=False) for e in eq.Phi]
    eq.gamma = [neg(time_derivative(e, ctx, accelerations=False)) for e in phidot] + [
        neg(time_derivative(r.expr, ctx, accelerations=False)) for r in vel
    ]
    eq.Phi_init = eq.Phi + [r.expr for r in init]
    eq.Phi_init_q = jacobian(eq.Phi_init, q)
    eq.constraint_rows = [ConstraintInfo(r.name, r.kind, r.group, r.multiplier) for r in hol + vel]
    eq.initial_rows = [ConstraintInfo(r.name, r.kind, r.group, None) for r in init]
    eq.lam = [r.multiplier for r in hol + vel]
    eq.joints = [JointInfo(j.name, j.kind, tuple(j.rows), dict(j.reactions)) for j in system.joints.values()]
    if check:
        _check_equations(eq)
    eq.n_atoms = system.ctx.n_atoms
    eq.kinetic_energy = kinetic_energy(system, M)
    eq.potential_energy, eq.nonpotential_forces, eq.nonpotential_loads = potential_energy(system)
    eq.derive_seconds = time.perf_counter() - t0
    eq.geometry = describe_geometry(system)  # drawing only: not part of the equations nor of their timing
    return eq


class RedundantConstraintWarning(UserWarning):
    """Constraint rows are linearly dependent at the initial configuration."""


def _check_equations(eq: Equations) -> None:
    """Checks on the derived equations: unused inputs, idle coordinates, singular mass matrix.

    Redundant constraints only warn (the assembly and the analyses handle them with
    pseudo-inverses); ``eq.redundant_rows()`` names them.
    """
    import warnings

    from .dimensions import check_dimensions
    from .symbolic.evaluate import evaluate_many

    check_dimensions(eq)

    used = 0
    for e in eq.delta:
        used |= e.mask
    for row in eq.M:
        for e in row:
            used |= e.mask
    for e in eq.Phi_init + eq.beta + eq.gamma + [o.expr for o in eq.outputs]:
        used |= e.mask
    for row in eq.D:
        for e in row:
            used |= e.mask
    for u in eq.inputs:
        if not (u.symbol.mask & used):
            raise ModelError(f"input {u.name!r} is never used: no load, constraint or output depends on it")
    n = eq.nq
    for j, c in enumerate(eq.coordinates):
        inertia = any(not eq.M[i][j].is_zero for i in range(n))
        constrained = any(not eq.D[i][j].is_zero for i in range(eq.nc))
        if not inertia and not constrained:
            raise ModelError(
                f"coordinate {c.name!r} appears in no equation: it has no inertia and no constraint involves it"
            )
    # numeric checks at the initial state
    vals = _default_values(eq)
    try:
        Mv = np.array(evaluate_many([e for row in eq.M for e in row], vals), dtype=float).reshape(n, n)
        Dv = np.array(evaluate_many([e for row in eq.D for e in row], vals), dtype=float).reshape(eq.nc, n)
    except (ValueError, ZeroDivisionError, OverflowError) as err:
        raise ModelError(
            f"the mass matrix or the constraint Jacobian cannot be evaluated at the initial state: {err}"
        ) from None
    if not (np.all(np.isfinite(Mv)) and np.all(np.isfinite(Dv))):
        raise ModelError("the mass matrix or the constraint Jacobian is not finite at the initial state")
    scale = max(1.0, float(np.abs(Mv).max()))
    if eq.nc:
        u, sv, vt = np.linalg.svd(Dv)
        tol = 1e-9 * max(1.0, float(sv.max()) if sv.size else 1.0)
        rank = int((sv > tol).sum())
        if rank < eq.nc:
            names = ", ".join(repr(r) for r in eq.redundant_rows(Dv))
            _check_consistent(eq, names)
            warnings.warn(
                f"model {eq.name!r}: constraint rows {names} are redundant at the initial configuration "
                f"(rank {rank} of {eq.nc}); the assembly uses pseudo-inverses, but an FMU needs independent rows",
                RedundantConstraintWarning,
                stacklevel=4,
            )
        Z = vt[rank:].T  # basis of the null space of D: admissible velocities
    else:
        Z = np.eye(n)
    if Z.shape[1] == 0:
        return
    Mr = Z.T @ Mv @ Z
    ev = np.linalg.eigvalsh(0.5 * (Mr + Mr.T))
    if ev.min() <= 1e-12 * scale:
        bad = [c.name for c, col in zip(eq.coordinates, np.abs(Z @ np.linalg.eigh(Mr)[1][:, 0])) if col > 1e-6]
        raise ModelError(
            f"the mass matrix of {eq.name!r} is singular at the initial state (on the admissible motions); "
            f"the motion of {', '.join(repr(b) for b in bad) or 'some coordinates'} has no inertia "
            "(if these are rotation angles, the start is a singularity of the angle parametrization: "
            "change the initial angles or use Euler parameters)"
        )


def _check_consistent(eq: Equations, redundant: str) -> None:
    """Redundant rows must still be satisfiable together: assemble once from the start values."""
    from .errors import NumericalError
    from .numeric.assembly import assemble

    try:
        assemble(eq)
    except NumericalError as err:
        raise ModelError(
            f"the constraints of {eq.name!r} are redundant ({redundant} depend on the others at the initial "
            f"configuration) and inconsistent: {err}"
        ) from None


def _default_values(eq: Equations) -> dict:
    vals = {eq.t: 0.0}
    for p in eq.parameters:
        vals[p.symbol] = p.value
    for c in eq.coordinates:
        vals[c.q], vals[c.dq], vals[c.ddq] = c.q0, c.dq0, 0.0
    for u in eq.inputs:
        vals[u.symbol] = u.value
    for lam in eq.lam:
        vals[lam] = 0.0
    return vals


def _check_system(system) -> None:
    if not system.coordinates:
        raise ModelError(f"system {system.name!r} has no coordinates")
    # outputs may use state, inputs, parameters, time, multipliers: all declared symbols by construction
    n_inertia = sum(1 for s in system.solids.values() if s.has_inertia)
    if n_inertia == 0:
        raise ModelError(f"system {system.name!r} has no solid or particle with mass")
