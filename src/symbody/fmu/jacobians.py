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

from ..symbolic.expr import Expr, sum_exprs


class ResidualJacobians:
    """Residuals and their Jacobians (lists of rows of expressions).

    Attributes:
        R: residual rows, ``nq`` dynamics rows then ``nc`` acceleration-constraint rows.
        R_q, R_dq, R_u, R_t: ``dR/dq``, ``dR/ddq``, ``dR/du`` (rows of ``nq``, ``nq``, ``nu``
            entries) and ``dR/dt`` (one entry per row).
        V: velocity residual ``D dq - beta`` (``nc`` rows); ``V_q``, ``V_t`` its Jacobians.
        Y_q, Y_dq, Y_u, Y_t, Y_ddq, Y_lam: Jacobians of the user outputs.
    """

    def __init__(self, eq) -> None:
        n, nc = eq.nq, eq.nc
        q, dq, ddq, lam, u, t = eq.q, eq.dq, eq.ddq, eq.lam, eq.u_symbols, eq.t
        dyn = [
            sum_exprs([eq.M[i][j] * ddq[j] for j in range(n)] + [eq.D[r][i] * lam[r] for r in range(nc)]) - eq.delta[i]
            for i in range(n)
        ]
        acc = [sum_exprs([eq.D[r][j] * ddq[j] for j in range(n)]) - eq.gamma[r] for r in range(nc)]
        self.R: list[Expr] = dyn + acc
        self.R_q = eq.jacobian(self.R, q)
        self.R_dq = eq.jacobian(self.R, dq)
        self.R_u = eq.jacobian(self.R, u)
        self.R_t = [row[0] for row in eq.jacobian(self.R, [t])]
        self.V: list[Expr] = [sum_exprs([eq.D[r][j] * dq[j] for j in range(n)]) - eq.beta[r] for r in range(nc)]
        self.V_q = eq.jacobian(self.V, q)
        self.V_t = [row[0] for row in eq.jacobian(self.V, [t])]
        y = [o.expr for o in eq.outputs]
        self.Y_q = eq.jacobian(y, q)
        self.Y_dq = eq.jacobian(y, dq)
        self.Y_u = eq.jacobian(y, u)
        self.Y_t = [row[0] for row in eq.jacobian(y, [t])]
        self.Y_ddq = eq.jacobian(y, ddq)
        self.Y_lam = eq.jacobian(y, lam)

    @staticmethod
    def flat(rows: list[list[Expr]]) -> list[Expr]:
        """Row-major flattening of a matrix given as rows."""
        return [e for row in rows for e in row]
