"""The derived equations of motion: :class:`Equations`, a data object.

``Equations`` is the one object consumers use (numerical analyses, code
generation, FMU export).  It holds the atomized blocks::

    M q'' + D^T lambda = delta          (dynamics, M symmetric)
    Phi(q, t) = 0                       (holonomic constraints)
    D q' = beta                         (velocity level, D = [Phi_q; A_nh])
    D q'' = gamma                       (acceleration level)
    x' = rates                          (first-order states)

plus the initial-position rows, the outputs, symbol tables and metadata, and
it never refers back to the model objects.  The derivation that fills it is
:mod:`symbody.derive`; :func:`derive_equations` (what :meth:`symbody.System.derive`
calls) builds it from the derived fields and checks it.

Example:
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> eq.nq, eq.M, eq.index("theta")
    (1, [[1]], ('q', 0))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .derive.build import derive_fields
from .derive.checks import RedundantConstraintWarning, check_equations, default_values, evaluate_matrix, redundant_rows
from .derive.progress import Progress
from .derive.records import (
    ConstraintInfo,
    CoordinateInfo,
    InputInfo,
    JointInfo,
    OutputInfo,
    ParameterInfo,
    StateInfo,
)
from .derive.unit_sites import locate_unit_mismatch
from .dimensions import UnitMismatch
from .model.contacts import ContactInfo
from .model.friction import FrictionInfo
from .model.shapes import GeometryInfo
from .symbolic.calculus import jacobian, time_derivative
from .symbolic.expr import Context, Expr

if TYPE_CHECKING:
    from .model.system import System


@dataclass(eq=False)
class Equations:
    """Atomized equations of motion of a system (see module docstring).

    Every field is set once, by :func:`derive_equations`; the methods read them (sizes,
    default values, name lookup, blocks, display) and never import the layers above.

    Attributes:
        name: model name.
        description: model description.
        ctx: the atom table every expression lives in.
        q, dq, ddq: coordinate, velocity and acceleration symbols.
        t: time symbol.
        parameters, coordinates, inputs, outputs, joints: metadata records (lists, see
            :mod:`symbody.derive.records`); a motion input is three inputs (``z``, ``dz``, ``ddz``:
            :attr:`motion_inputs`).
        states: the first-order states (:class:`~symbody.derive.records.StateInfo`).
        rates: their rates ``dx/dt``, expressions of ``t, q, dq, u``, the multipliers and contact
            forces (``lam``) and the states.
        M: mass matrix (list of rows), symmetric.
        delta: generalized forces (inertial velocity terms and loads).
        Phi, Phi_q: holonomic constraints and their Jacobian.
        A_nh: Jacobian of the velocity (non-holonomic) constraints.
        D, beta, gamma: velocity-level Jacobian ``[Phi_q; A_nh]``, ``beta`` and ``gamma``.
        Phi_init, Phi_init_q: rows for assembling the initial configuration
            (``Phi`` followed by the initial-position conditions).
        constraint_rows: the rows of ``D`` (holonomic first, then velocity rows).
        initial_rows: the initial-position conditions, the rows of ``Phi_init`` after ``Phi``.
        lam: multiplier symbols, one per row of ``D``.
        kinetic_energy: ``T(q, dq, t)`` with the full velocities (rheonomic terms included).
        potential_energy: ``V(q, t)`` of the loads that declare a potential (gravity, springs, constant forces).
        nonpotential_forces: generalized forces of the loads, or parts of loads, without a
            potential (dampers, actuators, other forces); ``nonpotential_loads`` names them.
        derive_seconds: time taken by the derivation (:func:`symbody.derive.build.derive_fields`).
        formulation: how ``M`` and ``delta`` were derived: ``"recursive"`` (composite-rigid-body
            and Newton-Euler recursions over a tree of relative joints), ``"virtual_power"``, or
            ``"articulated"`` (the recursions, and ``accelerations`` by the articulated-body algorithm).
        accelerations: ``ddq = M^-1 delta`` in closed form (empty where the FMU runtime factors ``M``),
            by the articulated-body algorithm (formulation ``"articulated"``) or by symbolic elimination
            (small models without constraints, :mod:`symbody.derive.elimination`), valid where every
            entry of ``pivots`` is nonzero (all are positive where ``M`` is positive definite).
        pivots: the pivots of that algorithm (of the joint blocks, or of the elimination), one per coordinate.
        accelerations_method: how ``accelerations`` were derived: ``"articulated-body algorithm"``,
            ``"symbolic elimination"`` or ``""`` (none).
        geometry: the shapes and their anchors' poses (:class:`symbody.model.shapes.GeometryInfo`).
        n_atoms: number of atoms created by the derivation of the equations of motion
            (the energy expressions, later Jacobians and export plans add atoms to the
            same table; they are not counted here).
        contacts: the unilateral contacts (:class:`symbody.model.contacts.ContactInfo`: gap, its
            Jacobian row, ``beta``, ``gamma``, restitution, force symbol).
        frictions: the stick-slip friction elements (:class:`symbody.model.friction.FrictionInfo`).
        switches: the switching functions of the loads and constraints (arguments of ``Abs`` and ``sign`` in
            ``delta`` and in the constraint rows).
            These three are the events of a simulation (:mod:`symbody.numeric.events`); the contact and
            friction force symbols follow the multipliers in the ``lam`` argument of generated functions.
        elements: ``(kind, name)`` of the model's hoisting and actuation elements (ropes, slings,
            buffers, winches, hydraulic cylinders), in the order they were added.
    """

    name: str
    description: str
    formulation: str
    ctx: Context
    t: Expr
    q: list[Expr]
    dq: list[Expr]
    ddq: list[Expr]
    parameters: list[ParameterInfo]
    coordinates: list[CoordinateInfo]
    inputs: list[InputInfo]
    outputs: list[OutputInfo]
    states: list[StateInfo]
    rates: list[Expr]
    joints: list[JointInfo]
    M: list[list[Expr]]
    delta: list[Expr]
    Phi: list[Expr]
    Phi_q: list[list[Expr]]
    A_nh: list[list[Expr]]
    D: list[list[Expr]]
    beta: list[Expr]
    gamma: list[Expr]
    Phi_init: list[Expr]
    Phi_init_q: list[list[Expr]]
    constraint_rows: list[ConstraintInfo]
    initial_rows: list[ConstraintInfo]
    lam: list[Expr]
    n_atoms: int
    kinetic_energy: Expr
    potential_energy: Expr
    nonpotential_forces: list[Expr]
    nonpotential_loads: list[str]
    derive_seconds: float
    geometry: GeometryInfo
    contacts: list[ContactInfo] = field(default_factory=list)
    frictions: list[FrictionInfo] = field(default_factory=list)
    switches: list[Expr] = field(default_factory=list)
    elements: list[tuple[str, str]] = field(default_factory=list)
    accelerations: list[Expr] = field(default_factory=list)
    pivots: list[Expr] = field(default_factory=list)
    accelerations_method: str = ""

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
            D = self._D0()
            return self.nq - int(np.linalg.matrix_rank(D, tol=1e-9 * max(1.0, np.abs(D).max())))
        except Exception:  # noqa: BLE001 - rank at an unassembled point may fail
            return self.nq - self.nc

    def _D0(self) -> np.ndarray:
        """``D`` at the initial state with the default parameters and inputs."""
        return evaluate_matrix(self.D, self.nq, default_values(self))

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
    def nx(self) -> int:
        """Number of first-order states."""
        return len(self.states)

    @property
    def x0(self) -> np.ndarray:
        """Start values of the first-order states."""
        return np.array([x.x0 for x in self.states], dtype=float)

    @property
    def x_symbols(self) -> list[Expr]:
        return [x.symbol for x in self.states]

    @property
    def motion_inputs(self) -> list[tuple[str, int]]:
        """``(name, k)`` of every motion input: ``z, dz, ddz`` are the inputs ``k, k + 1, k + 2``."""
        return [(u.signal, k) for k, u in enumerate(self.inputs) if u.motion == "position"]

    @property
    def p_symbols(self) -> list[Expr]:
        return [p.symbol for p in self.parameters]

    @property
    def u_symbols(self) -> list[Expr]:
        return [u.symbol for u in self.inputs]

    def index(self, name: str) -> tuple[str, int]:
        """Where a name lives: ``("q", i)``, ``("dq", i)``, ``("ddq", i)``, ``("p", i)``, ``("u", i)``,
        ``("x", i)`` (a first-order state), ``("dx", i)`` (its rate, ``der(<name>)``), ``("y", i)`` or
        ``("lam", i)``."""
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
        for i, x in enumerate(self.states):
            if x.name == name:
                return "x", i
            if name == f"der({x.name})":
                return "dx", i
        for i, o in enumerate(self.outputs):
            if o.name == name:
                return "y", i
        for i, lam in enumerate(self.lam):
            if lam.name == name or self.constraint_rows[i].name == name:
                return "lam", i
        raise KeyError(f"{name!r} is not a coordinate, parameter, input, state, output or constraint of {self.name!r}")

    def redundant_rows(self, D: np.ndarray | None = None, tol: float = 1e-9) -> list[str]:
        """Names of constraint rows that depend linearly on the others (at ``q0``, or for a given ``D``).

        Rows are kept greedily in order; a row is redundant when it adds no rank.
        """
        return redundant_rows([r.name for r in self.constraint_rows], self._D0() if D is None else D, tol)

    # -- symbolic helpers ------------------------------------------------------
    def jacobian(self, exprs: Sequence[Expr], wrt: Sequence[Expr]) -> list[list[Expr]]:
        """Symbolic Jacobian of expressions with respect to symbols (atomized)."""
        return jacobian(list(exprs), list(wrt))

    def time_derivative(self, e: Expr, accelerations: bool = True) -> Expr:
        """Total time derivative of an expression of this model."""
        return time_derivative(e, self.ctx, accelerations)

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
            "rates": (list(self.rates), (len(self.rates),)),
            "accelerations": (list(self.accelerations), (len(self.accelerations),)),
            "pivots": (list(self.pivots), (len(self.pivots),)),
        }

    # -- display -----------------------------------------------------------------
    def __repr__(self) -> str:
        states = f"{self.nx} states, " if self.states else ""
        return (
            f"Equations({self.name!r}: {self.nq} coordinates, {states}{self.nc} constraints, "
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


def derive_equations(
    system: System, progress: bool | Progress | None = None, check: bool = True, formulation: str = "auto"
) -> Equations:
    """Build the :class:`Equations` of a system (used by :meth:`System.derive`).

    ``formulation``: ``"recursive"`` (composite-rigid-body and Newton-Euler recursions,
    tree models only), ``"virtual_power"`` (the loop over solids, any model), ``"articulated"`` (the
    recursions and the accelerations by the articulated-body algorithm, trees without constraints) or
    ``"auto"``: the recursion on trees, the shorter ``[M|delta]`` of the two on small trees, and the
    articulated-body accelerations where they take fewer operations than ``[M|delta]`` and a solve.
    ``check=False`` skips the checks of :mod:`symbody.derive.checks`.
    """
    eq = Equations(**derive_fields(system, progress, check, formulation))
    if check:
        try:
            check_equations(eq)
        except UnitMismatch as err:  # name the point, solid or load where a bare number was written
            raise UnitMismatch(locate_unit_mismatch(system, eq, err), err.where, err.what) from None
    return eq


__all__ = [
    "ConstraintInfo",
    "CoordinateInfo",
    "Equations",
    "InputInfo",
    "JointInfo",
    "OutputInfo",
    "ParameterInfo",
    "RedundantConstraintWarning",
    "StateInfo",
    "derive_equations",
]
