"""Exact symbolic Jacobians shipped inside the FMU.

The accelerations and multipliers solve ``A [ddq; lam] = [delta; gamma]`` with
``A = [M D^T; D 0]``.  Writing this as the residual

    R(q, dq, u, t; ddq, lam) = [M ddq + D^T lam - delta;  D ddq - gamma] = 0

the implicit function theorem gives, for any known ``x`` (a state or an input),

    d[ddq; lam]/dx = -A^{-1} dR/dx,

where ``dR/dx`` is differentiated with ``ddq`` and ``lam`` held fixed.  The
Jacobians of ``R`` are symbolic (atomized) and exact; the FMU evaluates them
at the current ``ddq``, ``lam`` and solves with the factorization it already
has.  No symbolic inverse is ever formed.  Baumgarte stabilization adds
``2 alpha (D dq - beta) + beta_b^2 Phi`` to the constraint rows; its
Jacobians are combined numerically from ``V = D dq - beta`` (``V_q``,
``V_t``), ``D`` and ``Phi_q``.

Example (a pendulum driven by a torque ``T``):
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> jac = ResidualJacobians(eq)
    >>> jac.R, jac.R_q, jac.R_u
    ([ddtheta - (T - 9.81*sin(theta))], [[9.81*cos(theta)]], [[-1]])
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from ..errors import ExportError
from ..symbolic.calculus import directional_derivative
from ..symbolic.expr import ONE, ZERO, Expr, reachable, sum_exprs

if TYPE_CHECKING:
    from ..equations import Equations

#: How an FMU evaluates the Jacobians of its residuals (``--jacobians``).
JACOBIAN_MODES = ("exact", "forward", "none")
#: The default is ``exact`` while the residuals have at most this many atoms, ``forward`` beyond.
EXACT_ATOM_LIMIT = 1000


class ResidualJacobians:
    """Residuals and their Jacobians (lists of rows of expressions, each Jacobian formed on first use).

    Attributes:
        R: residual rows, ``nq`` dynamics rows then ``nc`` acceleration-constraint rows.
        R_q, R_dq, R_u, R_t: ``dR/dq``, ``dR/ddq``, ``dR/du`` (rows of ``nq``, ``nq``, ``nu``
            entries) and ``dR/dt`` (one entry per row).
        V: velocity residual ``D dq - beta`` (``nc`` rows); ``V_q``, ``V_t`` its Jacobians.
        Y: the user outputs; Y_q, Y_dq, Y_u, Y_t, Y_ddq, Y_lam their Jacobians.
    """

    def __init__(self, eq: Equations) -> None:
        self.eq = eq
        n, nc = eq.nq, eq.nc
        ddq, lam = eq.ddq, eq.lam
        dyn = [
            sum_exprs([eq.M[i][j] * ddq[j] for j in range(n)] + [eq.D[r][i] * lam[r] for r in range(nc)]) - eq.delta[i]
            for i in range(n)
        ]
        acc = [sum_exprs([eq.D[r][j] * ddq[j] for j in range(n)]) - eq.gamma[r] for r in range(nc)]
        self.R: list[Expr] = dyn + acc
        self.V: list[Expr] = [sum_exprs([eq.D[r][j] * eq.dq[j] for j in range(n)]) - eq.beta[r] for r in range(nc)]
        self.Y: list[Expr] = [o.expr for o in eq.outputs]

    def _jacobian(self, exprs: list[Expr], symbols: list[Expr]) -> list[list[Expr]]:
        return self.eq.jacobian(exprs, symbols)

    def _column(self, exprs: list[Expr], symbol: Expr) -> list[Expr]:
        return [row[0] for row in self._jacobian(exprs, [symbol])]

    R_q = cached_property(lambda self: self._jacobian(self.R, self.eq.q))
    R_dq = cached_property(lambda self: self._jacobian(self.R, self.eq.dq))
    R_u = cached_property(lambda self: self._jacobian(self.R, self.eq.u_symbols))
    R_t = cached_property(lambda self: self._column(self.R, self.eq.t))
    V_q = cached_property(lambda self: self._jacobian(self.V, self.eq.q))
    V_t = cached_property(lambda self: self._column(self.V, self.eq.t))
    Y_q = cached_property(lambda self: self._jacobian(self.Y, self.eq.q))
    Y_dq = cached_property(lambda self: self._jacobian(self.Y, self.eq.dq))
    Y_u = cached_property(lambda self: self._jacobian(self.Y, self.eq.u_symbols))
    Y_t = cached_property(lambda self: self._column(self.Y, self.eq.t))
    Y_ddq = cached_property(lambda self: self._jacobian(self.Y, self.eq.ddq))
    Y_lam = cached_property(lambda self: self._jacobian(self.Y, self.eq.lam))

    def residual_atoms(self) -> int:
        """Number of distinct atoms (operations) of ``R``, ``V`` and the outputs (the exact Jacobians' code
        is several times larger)."""
        return len(reachable([*self.R, *self.V, *self.Y]))

    @staticmethod
    def flat(rows: list[list[Expr]]) -> list[Expr]:
        """Row-major flattening of a matrix given as rows."""
        return [e for row in rows for e in row]


class ResidualPattern(ResidualJacobians):
    """The structural sparsity of :class:`ResidualJacobians` without differentiating.

    An entry is ``1`` when the expression depends on the symbol at all (its
    dependency mask holds the symbol's bit), else ``0``: a superset of the
    nonzeros of the exact Jacobians, enough for the ModelStructure of FMUs that
    ship no exact Jacobians.

    Example:
        >>> from symbody.models import pendulum
        >>> pattern = ResidualPattern(pendulum().derive())
        >>> pattern.R_q, pattern.R_dq, pattern.R_u
        ([[1]], [[0]], [[1]])
    """

    def _jacobian(self, exprs: list[Expr], symbols: list[Expr]) -> list[list[Expr]]:
        return [[ONE if e.mask & s.mask else ZERO for s in symbols] for e in exprs]


def jacobian_mode(jac: ResidualJacobians, mode: str | None = None) -> str:
    """The Jacobian mode of an FMU: ``mode`` if given, else ``exact`` for small Jacobians and ``forward`` otherwise.

    ``exact`` ships the symbolic Jacobians (fastest to evaluate, code size grows with
    rows x columns); ``forward`` ships tangent code (forward-mode differentiation of
    the residuals, code size a small multiple of the residuals') and builds Jacobian
    columns from it (the tangent code has files of its own, compiled at
    :data:`symbody.fmu.build.DERIVATIVE_LEVEL`: half the compile time, within 5 % of the speed);
    ``none`` ships no derivative code: the implicit solver uses central differences and
    the FMU does not provide directional derivatives.

    Example:
        >>> from symbody.models import pendulum
        >>> jac = ResidualJacobians(pendulum().derive())
        >>> jacobian_mode(jac), jacobian_mode(jac, "none")
        ('exact', 'none')

    Raises:
        ExportError: an unknown mode.
    """
    if mode is None:
        return "exact" if jac.residual_atoms() <= EXACT_ATOM_LIMIT else "forward"
    if mode not in JACOBIAN_MODES:
        raise ExportError(f"unknown Jacobian mode {mode!r}: use one of {', '.join(JACOBIAN_MODES)}")
    return mode


class ResidualTangents:
    """Forward-mode derivatives (tangents) of the residuals along a direction of symbols.

    For a direction ``v = (v_q, v_dq, v_u, v_t)`` of the knowns (and ``v_ddq``,
    ``v_lam`` for the outputs), ``dR = R_q v_q + R_dq v_dq + R_u v_u + R_t v_t``
    and likewise ``dV``, ``dY``, obtained by one walk of the atom DAG
    (:func:`symbody.symbolic.calculus.directional_derivative`): the code is a
    small multiple of that of ``R``, whatever the number of columns.  The FMU
    gets a Jacobian column by setting one direction entry to 1.

    Attributes:
        direction: for each model symbol (q, dq, u, t, ddq, lam), its direction symbol.
        dR, dV, dY: tangents of the residual, velocity residual and outputs.

    Example:
        >>> from symbody.models import pendulum
        >>> eq = pendulum().derive()
        >>> tan = ResidualTangents(ResidualJacobians(eq), eq)
        >>> tan.dR
        [9.81*cos(theta)*v_theta - v_T]
    """

    def __init__(self, jac: ResidualJacobians, eq: Equations) -> None:
        ctx = eq.t.ctx
        symbols = [*eq.q, *eq.dq, *eq.u_symbols, eq.t, *eq.ddq, *eq.lam]
        self.direction: dict[Expr, Expr] = {s: _direction_symbol(ctx, s) for s in symbols}
        known = {s: self.direction[s] for s in [*eq.q, *eq.dq, *eq.u_symbols, eq.t]}
        self.dR: list[Expr] = directional_derivative(jac.R, known)
        self.dV: list[Expr] = directional_derivative(jac.V, known)
        self.dY: list[Expr] = directional_derivative(jac.Y, self.direction)


def _direction_symbol(ctx, s: Expr) -> Expr:
    """The direction symbol ``v_<name>`` of ``s`` (created once per context)."""
    name = f"v_{s.name}"
    while name in ctx.by_name and ctx.by_name[name].kind != "direction":
        name = "v_" + name
    found = ctx.by_name.get(name)
    return found if found is not None else ctx.symbol(name, kind="direction")
