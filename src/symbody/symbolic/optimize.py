"""Export-time optimization of atomized expressions: common factors and common pairs.

Atomization shares identical sub-expressions, but not sub-expressions that differ
by associativity or distributivity: ``m1*(l0*c)`` and ``(m1*l0)*g`` do not share
``m1*l0``, and ``a*x + a*y`` computes ``a`` times twice.  Before code is emitted,
:func:`optimize_outputs` rewrites the outputs in two passes, each pulling common
factors out of sums (:mod:`~symbody.symbolic.factoring`) and then turning pairs of
terms shared by several sums or products into atoms (:mod:`~symbody.symbolic.pairs`).
:func:`expand_trig` (:mod:`~symbody.symbolic.trig`) optionally trades operation
count for speed.  Every step works in time about linear in the size of the DAG.

Example:
    >>> from symbody.symbolic.expr import Context, sin, cos
    >>> ctx = Context()
    >>> m, l, q, g = (ctx.symbol(n) for n in "mlqg")
    >>> outs = optimize_outputs([m * (l * sin(q)), (m * l) * g, m * (l * cos(q))])
    >>> [str(e) for e in outs]
    ['sin(q)*m*l', 'g*m*l', 'm*l*cos(q)']
    >>> ml = m * l
    >>> all(ml in e.args for e in outs)
    True
"""

from __future__ import annotations

from collections.abc import Sequence

from .expr import Expr
from .factoring import factor_sums
from .pairs import extract_pairs
from .trig import expand_trig


def optimize_outputs(outputs: Sequence[Expr]) -> list[Expr]:
    """Factor common factors out of sums, then turn pairs shared by several chains into atoms (twice).

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> a, x, y, z = (Context().symbol(n) for n in "axyz")
        >>> optimize_outputs([a * x + a * y + z, (x + y) * z])
        [z + a*(x + y), z*(x + y)]
    """
    out = extract_pairs(factor_sums(outputs))
    return extract_pairs(factor_sums(out))


__all__ = ["optimize_outputs", "factor_sums", "extract_pairs", "expand_trig"]
