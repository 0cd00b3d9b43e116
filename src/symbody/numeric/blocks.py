"""Symbolic blocks the analyses need beyond the standard ones of :class:`~symbody.Equations`.

Linearization, static equilibrium and inverse dynamics use exact Jacobians,
built once per model with the public symbolic API (``eq.jacobian``) and
compiled together with the standard blocks by ``symbody.codegen.evaluators.evaluator(eq, ..., extra=...)``:

=========== ====================================== ==========
name        expression                             shape
=========== ====================================== ==========
delta_q     d delta / d q                          n x n
delta_dq    d delta / d dq                         n x n
delta_u     d delta / d u                          n x nu
Mddq_q      d (M ddq) / d q                        n x n
DTlam_q     d (D^T lam) / d q                      n x n
PhiTlam_q   d (Phi_q^T lam_h) / d q                n x n
Phi_init_qq second derivatives of the initial rows ni x n x n
Ddq_q       d (D dq - beta) / d q                  nc x n
Dddq_q      d (D ddq) / d q                        nc x n
gamma_q     d gamma / d q                          nc x n
gamma_dq    d gamma / d dq                         nc x n
y_q ...     d outputs / d (q, dq, ddq, lam, u)     ny x ...
=========== ====================================== ==========

``ddq`` and ``lam`` are symbols here: evaluate with the ``ddq=`` and ``lam=``
arguments of the compiled function.

Example:
    >>> import symbody as sb
    >>> s = sb.System("p"); th = s.coordinate("th", 0.3); m = s.parameter("m", 2.0)
    >>> _ = s.particle("b", s.point("P", s.origin, sb.Vector(s.base("B", s.ground_base, sb.Rz(th)), 1, 0, 0)), m)
    >>> s.gravity((0, -9.81, 0))
    >>> f = evaluator(s.derive(), "delta_q")
    >>> f(0.0, [0.5], [0.0], [], [2.0])[0]     # d(-m g cos th)/d th = m g sin th
    array([[9.40632907]])
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from ..codegen.evaluators import evaluator as compiled_evaluator
from ..symbolic.expr import ZERO, Expr

_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _flat(rows: list[list[Expr]]) -> list[Expr]:
    return [e for row in rows for e in row]


def _linear_combination(coeffs: list[Expr], symbols: list[Expr]) -> Expr:
    acc: Expr = ZERO
    for c, s in zip(coeffs, symbols):
        if not c.is_zero:
            acc = acc + c * s
    return acc


class _ModelBlocks:
    """Lazily built extra blocks and compiled evaluators of one model."""

    def __init__(self, eq):
        self.eq = eq
        self.blocks: dict[str, tuple[list[Expr], tuple[int, ...]]] = {}
        self.functions: dict[tuple[str, ...], Callable] = {}

    def block(self, name: str) -> tuple[list[Expr], tuple[int, ...]]:
        b = self.blocks.get(name)
        if b is None:
            b = self.blocks[name] = self._build(name)
        return b

    def _build(self, name: str) -> tuple[list[Expr], tuple[int, ...]]:
        eq = self.eq
        n, nc, nh, nu = eq.nq, eq.nc, eq.nh, eq.nu
        ny = len(eq.outputs)
        jac = eq.jacobian
        if name == "delta_q":
            return _flat(jac(eq.delta, eq.q)), (n, n)
        if name == "delta_dq":
            return _flat(jac(eq.delta, eq.dq)), (n, n)
        if name == "delta_u":
            return _flat(jac(eq.delta, eq.u_symbols)), (n, nu)
        if name == "Mddq_q":
            Mddq = [_linear_combination(row, eq.ddq) for row in eq.M]
            return _flat(jac(Mddq, eq.q)), (n, n)
        if name == "DTlam_q":
            DTlam = [_linear_combination([eq.D[j][i] for j in range(nc)], eq.lam) for i in range(n)]
            return _flat(jac(DTlam, eq.q)), (n, n)
        if name == "PhiTlam_q":
            PTlam = [_linear_combination([eq.Phi_q[j][i] for j in range(nh)], eq.lam[:nh]) for i in range(n)]
            return _flat(jac(PTlam, eq.q)), (n, n)
        if name == "Ddq_q":
            Ddq = [_linear_combination(row, eq.dq) - b for row, b in zip(eq.D, eq.beta)]
            return _flat(jac(Ddq, eq.q)), (nc, n)
        if name == "Dddq_q":
            Dddq = [_linear_combination(row, eq.ddq) for row in eq.D]
            return _flat(jac(Dddq, eq.q)), (nc, n)
        if name == "Phi_init_qq":
            ni = len(eq.Phi_init) - nh
            return [e for row in eq.Phi_init_q[nh:] for e in _flat(jac(row, eq.q))], (ni, n, n)
        if name == "gamma_q":
            return _flat(jac(eq.gamma, eq.q)), (nc, n)
        if name == "gamma_dq":
            return _flat(jac(eq.gamma, eq.dq)), (nc, n)
        outs = [o.expr for o in eq.outputs]
        if name == "y_q":
            return _flat(jac(outs, eq.q)), (ny, n)
        if name == "y_dq":
            return _flat(jac(outs, eq.dq)), (ny, n)
        if name == "y_ddq":
            return _flat(jac(outs, eq.ddq)), (ny, n)
        if name == "y_lam":
            return _flat(jac(outs, eq.lam)), (ny, nc)
        if name == "y_u":
            return _flat(jac(outs, eq.u_symbols)), (ny, nu)
        raise KeyError(f"unknown analysis block {name!r}")

    def evaluator(self, names: tuple[str, ...]) -> Callable:
        f = self.functions.get(names)
        if f is None:
            standard = self.eq.blocks()
            extra = {nm: self.block(nm) for nm in names if nm not in standard}
            f = self.functions[names] = compiled_evaluator(self.eq, *names, extra=extra or None)
        return f


def model_blocks(eq) -> _ModelBlocks:
    """The (cached) extra blocks of a model."""
    mb = _CACHE.get(eq)
    if mb is None:
        mb = _CACHE[eq] = _ModelBlocks(eq)
    return mb


def evaluator(eq, *names: str) -> Callable:
    """A compiled ``f(t, q, dq, u, p, ddq=None, lam=None)`` returning standard and extra blocks.

    Standard block names (``M``, ``delta``, ``D``, ...) and the extra names of
    the module table can be mixed; blocks evaluated together share their atoms.
    """
    return model_blocks(eq).evaluator(tuple(names))


def depends_on(e: Expr, symbols: list[Expr]) -> bool:
    """True if ``e`` depends structurally on any of ``symbols``."""
    return any(e.depends_on(s) for s in symbols)


__all__ = ["evaluator", "model_blocks", "depends_on"]
