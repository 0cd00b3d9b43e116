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
delta_x     d delta / d x (first-order states)     n x nx
Mddq_q      d (M ddq) / d q                        n x n
Mddq_u      d (M ddq) / d u (motion inputs)        n x nu
DTlam_q     d (D^T lam) / d q                      n x n
DTlam_u     d (D^T lam) / d u                      n x nu
Phi_u       d Phi / d u                            nh x nu
PhiTlam_q   d (Phi_q^T lam_h) / d q                n x n
Phi_init_qq second derivatives of the initial rows ni x n x n
Ddq_q       d (D dq - beta) / d q                  nc x n
Ddq_u       d (D dq - beta) / d u                  nc x nu
Dddq_q      d (D ddq) / d q                        nc x n
Dddq_u      d (D ddq) / d u                        nc x nu
gamma_q     d gamma / d q                          nc x n
gamma_dq    d gamma / d dq                         nc x n
gamma_u     d gamma / d u                          nc x nu
rates_q ... d rates / d (q, dq, u, x, lam)         nx x ...
y_q ...     d outputs / d (q, dq, ddq, lam, u, x)  ny x ...
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
from typing import TYPE_CHECKING

from ..codegen.evaluators import evaluator as compiled_evaluator
from ..symbolic.expr import ZERO, Expr

if TYPE_CHECKING:
    from ..equations import Equations

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

    def __init__(self, eq: Equations):
        self.eq = eq
        self.blocks: dict[str, tuple[list[Expr], tuple[int, ...]]] = {}
        self.functions: dict[tuple[str, ...], Callable] = {}

    def block(self, name: str) -> tuple[list[Expr], tuple[int, ...]]:
        b = self.blocks.get(name)
        if b is None:
            b = self.blocks[name] = self._build(name)
        return b

    def _products(self, name: str) -> list[Expr]:
        """The products whose Jacobians are blocks: ``M ddq``, ``D^T lam``, ``Phi_q^T lam_h``,
        ``D dq - beta`` and ``D ddq``."""
        eq = self.eq
        n, nc, nh = eq.nq, eq.nc, eq.nh
        if name == "Mddq":
            return [_linear_combination(row, eq.ddq) for row in eq.M]
        if name == "DTlam":
            return [_linear_combination([eq.D[j][i] for j in range(nc)], eq.lam) for i in range(n)]
        if name == "PhiTlam":
            return [_linear_combination([eq.Phi_q[j][i] for j in range(nh)], eq.lam[:nh]) for i in range(n)]
        if name == "Ddq":
            return [_linear_combination(row, eq.dq) - b for row, b in zip(eq.D, eq.beta)]
        if name == "Dddq":
            return [_linear_combination(row, eq.ddq) for row in eq.D]
        raise KeyError(f"unknown analysis block {name!r}")

    def _build(self, name: str) -> tuple[list[Expr], tuple[int, ...]]:
        eq = self.eq
        n, nh = eq.nq, eq.nh
        outs = [o.expr for o in eq.outputs]
        of = {"delta": eq.delta, "gamma": eq.gamma, "rates": eq.rates, "y": outs, "Phi": eq.Phi}
        wrt = {
            "q": eq.q, "dq": eq.dq, "ddq": eq.ddq, "u": eq.u_symbols, "x": eq.x_symbols, "lam": eq.lam,
        }  # fmt: skip
        head, _, var = name.rpartition("_")
        if name == "Phi_init_qq":
            ni = len(eq.Phi_init) - nh
            return [e for row in eq.Phi_init_q[nh:] for e in _flat(eq.jacobian(row, eq.q))], (ni, n, n)
        if var not in wrt or not head:
            raise KeyError(f"unknown analysis block {name!r}")
        exprs = of[head] if head in of else self._products(head)
        return _flat(eq.jacobian(exprs, wrt[var])), (len(exprs), len(wrt[var]))

    def evaluator(self, names: tuple[str, ...]) -> Callable:
        f = self.functions.get(names)
        if f is None:
            standard = self.eq.blocks()
            extra = {nm: self.block(nm) for nm in names if nm not in standard}
            f = self.functions[names] = compiled_evaluator(self.eq, *names, extra=extra or None)
        return f


def model_blocks(eq: Equations) -> _ModelBlocks:
    """The (cached) extra blocks of a model."""
    mb = _CACHE.get(eq)
    if mb is None:
        mb = _CACHE[eq] = _ModelBlocks(eq)
    return mb


def evaluator(eq: Equations, *names: str) -> Callable:
    """A compiled ``f(t, q, dq, u, p, ddq=None, lam=None)`` returning standard and extra blocks.

    Standard block names (``M``, ``delta``, ``D``, ...) and the extra names of
    the module table can be mixed; blocks evaluated together share their atoms.
    """
    return model_blocks(eq).evaluator(tuple(names))


def depends_on(e: Expr, symbols: list[Expr]) -> bool:
    """True if ``e`` depends structurally on any of ``symbols``."""
    return any(e.depends_on(s) for s in symbols)


__all__ = ["evaluator", "model_blocks", "depends_on"]
