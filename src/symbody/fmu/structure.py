"""ModelStructure: which knowns each unknown of the FMU depends on.

Dependencies come from the symbolic sparsity of the exact Jacobians
(:mod:`symbody.fmu.jacobians`): an entry that is not the number zero is a
dependency.  Accelerations and multipliers solve ``A [ddq; lam] = rhs`` with
``A = [M D^T; D 0]``; ``A^{-1}`` couples all rows of a connected component of
the sparsity graph of ``A``, so ``ddq_i`` depends on every known that enters a
residual row of its component (a superset of the exact pattern for special
numerical values, never a subset).  Outputs depend on their direct knowns and,
through ``ddq`` and ``lam``, on those of the accelerations they use.  A unilateral
contact may close (a constraint row ``g_q ddq = gamma`` with Baumgarte's terms and
its force along ``g_q``): it is one more row, coupling the coordinates of its gap,
and outputs that use its force depend on that row's component.

Knowns are ``("q", j)``, ``("dq", j)``, ``("x", j)`` (a first-order state), ``("u", j)``, ``("p", j)`` and
``("t", 0)``; the rates of the first-order states depend on their direct knowns and, through the
multipliers and contact forces they use, on those of the accelerations.  At run time (Model
Exchange) the knowns are states, inputs and time; in Co-Simulation only the inputs are; during initialization parameters
and start values of exact states are knowns too, and assembled states (models
with constraints) depend on the parameters of the assembly rows.

Example (``ddtheta`` depends on ``theta`` and the torque ``T``, not on ``dtheta``):
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> sorted(Dependencies(eq, ResidualJacobians(eq)).acc[0])
    [('q', 0), ('u', 0)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..codegen.c import nonzero
from .jacobians import ResidualJacobians

if TYPE_CHECKING:
    from ..equations import Equations

Known = tuple[str, int]


def _nz(row, kind: str) -> set[Known]:
    return {(kind, j) for j, e in enumerate(row) if nonzero(e)}


def _masked(exprs, eq: Equations) -> set[Known]:
    """The states, inputs and time that occur in ``exprs``."""
    mask = 0
    for e in exprs:
        mask |= e.mask
    found = {(kind, j) for kind, syms in (("q", eq.q), ("dq", eq.dq), ("u", eq.u_symbols), ("x", eq.x_symbols))
             for j, s in enumerate(syms) if mask & s.mask}  # fmt: skip
    return found | ({("t", 0)} if mask & eq.t.mask else set())


def _states_in(exprs, eq: Equations) -> set[Known]:
    """The first-order states that occur in ``exprs`` (the residual Jacobians are taken without them)."""
    mask = 0
    for e in exprs:
        mask |= e.mask
    return {("x", j) for j, s in enumerate(eq.x_symbols) if mask & s.mask}


def _params(exprs, eq: Equations) -> set[Known]:
    mask = 0
    for e in exprs:
        mask |= e.mask
    return {("p", j) for j, p in enumerate(eq.parameters) if mask & p.symbol.mask}


class Dependencies:
    """Structural dependencies of accelerations, multipliers and outputs.

    Attributes:
        acc: for each unknown of ``[ddq; lam]``, its knowns at run time (states, inputs, time).
        acc_init: the same during initialization (with parameters).
        y, y_init: the same for the user outputs.
        rates, rates_init: the same for the rates of the first-order states.
        state_init: knowns of an assembled state at initialization (constrained models).
    """

    def __init__(self, eq: Equations, jac: ResidualJacobians) -> None:
        n, nc, nh = eq.nq, eq.nc, eq.nh
        na = n + nc
        contacts = list(eq.contacts)
        # connected components of the sparsity graph of A = [M D^T; D 0], with the contacts' rows
        parent = list(range(na + len(contacts)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        def union(i: int, j: int) -> None:
            parent[find(i)] = find(j)

        for i in range(n):
            for j in range(n):
                if nonzero(eq.M[i][j]):
                    union(i, j)
        for r in range(nc):
            for j in range(n):
                if nonzero(eq.D[r][j]):
                    union(n + r, j)
        for i, c in enumerate(contacts):
            for j in range(n):
                if nonzero(c.gap_q[j]):
                    union(na + i, j)
        # direct knowns of each residual row (Baumgarte terms included)
        row_known: list[set[Known]] = []
        row_exprs: list[list] = []
        for r in range(na):
            k = _nz(jac.R_q[r], "q") | _nz(jac.R_dq[r], "dq") | _nz(jac.R_u[r], "u")
            if nonzero(jac.R_t[r]):
                k.add(("t", 0))
            exprs = [jac.R[r]]
            k |= _states_in(exprs, eq)
            if r >= n:
                row = r - n
                k |= _nz(jac.V_q[row], "q") | _nz(eq.D[row], "dq")
                if nonzero(jac.V_t[row]):
                    k.add(("t", 0))
                exprs.append(jac.V[row])
                if row < nh:
                    k |= _nz(eq.Phi_q[row], "q")
                    if nonzero(eq.beta[row]):
                        k.add(("t", 0))
                    exprs.append(eq.Phi[row])
            row_known.append(k)
            row_exprs.append(exprs)
        for c in contacts:  # a closed contact's row (Baumgarte's rate term: dq along g_q)
            exprs = [c.gap, *c.gap_q, c.beta, c.gamma]
            row_known.append(_masked(exprs, eq) | _nz(c.gap_q, "dq"))
            row_exprs.append(exprs)
        comp_known: dict[int, set[Known]] = {}
        comp_exprs: dict[int, list] = {}
        for r in range(na + len(contacts)):
            root = find(r)
            comp_known.setdefault(root, set()).update(row_known[r])
            comp_exprs.setdefault(root, []).extend(row_exprs[r])
        # ([ddq; lam], then one entry per contact row)
        self.acc: list[set[Known]] = [set(comp_known[find(i)]) for i in range(na + len(contacts))]
        # initialization: parameters join; assembled states are replaced by their own knowns
        constrained = nc > 0
        self.state_init: set[Known] = set()
        if constrained:
            self.state_init = _params(list(eq.Phi_init) + [e for row in eq.D for e in row] + list(eq.beta), eq)
            if any(e.mask & eq.t.mask for e in list(eq.Phi_init) + list(eq.beta)):
                self.state_init.add(("t", 0))
        self.acc_init = [
            self._at_init(self.acc[i], constrained) | _params(comp_exprs[find(i)], eq) for i in range(len(self.acc))
        ]
        self.y: list[set[Known]] = []
        self.y_init: list[set[Known]] = []
        for i, o in enumerate(eq.outputs):
            k = _nz(jac.Y_q[i], "q") | _nz(jac.Y_dq[i], "dq") | _nz(jac.Y_u[i], "u") | _states_in([o.expr], eq)
            if nonzero(jac.Y_t[i]):
                k.add(("t", 0))
            via = [j for j, e in enumerate(jac.Y_ddq[i]) if nonzero(e)] + [
                n + r for r, e in enumerate(jac.Y_lam[i]) if nonzero(e)
            ]
            via += [na + r for r, c in enumerate(contacts) if o.expr.mask & c.force.mask]  # its contact forces
            k_init = self._at_init(k, constrained) | _params([o.expr], eq)
            for j in via:
                k |= self.acc[j]
                k_init |= self.acc_init[j]
            self.y.append(k)
            self.y_init.append(k_init)
        self.rates: list[set[Known]] = []
        self.rates_init: list[set[Known]] = []
        for rate in eq.rates:
            k = _masked([rate], eq)
            via = [n + r for r, lam in enumerate(eq.lam) if rate.mask & lam.mask]
            via += [na + r for r, c in enumerate(contacts) if rate.mask & c.force.mask]
            k_init = self._at_init(k, constrained) | _params([rate], eq)
            for j in via:
                k |= self.acc[j]
                k_init |= self.acc_init[j]
            self.rates.append(k)
            self.rates_init.append(k_init)

    def _at_init(self, knowns: set[Known], constrained: bool) -> set[Known]:
        if not constrained:
            return set(knowns)
        out = {k for k in knowns if k[0] not in ("q", "dq")}
        if len(out) != len(knowns):
            out |= self.state_init
        return out
