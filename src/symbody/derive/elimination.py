"""Accelerations of a small unconstrained model in closed form: ``ddq = M^-1 delta`` by symbolic elimination.

The FMU runtime factors ``M`` at every evaluation (``L D L^T`` with loops over a dense matrix, or
along a tree).  For a model of a few coordinates the same elimination written out on atoms is
shorter: entries that are structurally zero never enter it, a pivot that depends on parameters
only is a parameter expression, and the result is straight-line code in ``model.c`` without the
matrix ever being stored.  It is the closed form a person writes by hand for a crane (eliminate the
rope length and the swing, solve for the trolley), found mechanically.

The elimination is Gauss's on the symmetric ``M`` (``M = P^T L D L^T P``, G. H. Golub, C. F. Van
Loan, "Matrix Computations", 4th ed., 2013, sec. 4.1), pivots taken in a fill-reducing order: at
each step the remaining coordinate coupled to the fewest others (minimum degree, A. George, J. W.
H. Liu, "The evolution of the minimum degree ordering algorithm", SIAM Review 31, 1989), the last
coordinate first among equals (in a chain of relative coordinates the outermost has the fewest
couplings: that order fills nothing in a tree).  Each pivot ``d_k`` is divided once (``1/d_k``),
then every coupling is a product.

All pivots are positive exactly when ``M`` is positive definite (Sylvester's criterion on the
permuted matrix); the FMU runtime checks them before using the accelerations and falls back on its
own factorization, with its diagnostics, when one is not (a singular configuration, a massless
coordinate), as for the articulated-body accelerations (:mod:`symbody.derive.articulated`).

Example:
    >>> from symbody.symbolic.expr import Context, ZERO
    >>> ctx = Context()
    >>> a, b, c, f, g, h = (ctx.symbol(s) for s in "abcfgh")
    >>> ddq, pivots = eliminated_accelerations([[a, b, c], [b, f, ZERO], [c, ZERO, g]], [h, ZERO, ZERO])
    >>> pivots[1], pivots[2]   # the two coordinates coupled only to the first go first: no fill
    (f, g)
    >>> ddq[0] is h / pivots[0]
    True
"""

from __future__ import annotations

from ..symbolic.expr import ONE, ZERO, Expr, div, mul, sub


def elimination_order(M: list[list[Expr]]) -> list[int]:
    """The coordinates in the order of elimination: minimum degree of the remaining coupling graph, ties
    to the last coordinate.

    Example:
        >>> from symbody.symbolic.expr import Context, ZERO
        >>> ctx = Context(); a, b = ctx.symbol("a"), ctx.symbol("b")
        >>> elimination_order([[a, b, ZERO], [b, a, b], [ZERO, b, a]])   # a chain 0 - 1 - 2
        [2, 1, 0]
    """
    n = len(M)
    coupled = {i: {j for j in range(n) if j != i and not (M[i][j].is_zero and M[j][i].is_zero)} for i in range(n)}
    order: list[int] = []
    while coupled:
        k = min(coupled, key=lambda i: (len(coupled[i]), -i))
        order.append(k)
        near = coupled.pop(k)
        for i in near:  # eliminating k couples its neighbours with each other (fill)
            coupled[i] |= near - {i}
            coupled[i].discard(k)
    return order


def eliminated_accelerations(M: list[list[Expr]], delta: list[Expr]) -> tuple[list[Expr], list[Expr]] | None:
    """``ddq = M^-1 delta`` by symbolic elimination of the symmetric ``M`` (lower and upper triangles
    equal) in :func:`elimination_order`, and the pivots (one per coordinate, at its index); ``None``
    where a pivot is identically zero (``M`` singular everywhere: the runtime's factorization reports it).

    The accelerations are ``M^-1 delta`` wherever no pivot vanishes; all pivots are positive exactly
    where ``M`` is positive definite.
    """
    n = len(M)
    order = elimination_order(M)
    A = {(i, j): M[i][j] for i in range(n) for j in range(n) if not M[i][j].is_zero}
    b = list(delta)
    pivots: list[Expr] = list(delta)
    inverse: dict[int, Expr] = {}
    factors: dict[int, list[tuple[int, Expr]]] = {}  # k -> [(i, L_ik)] of the later coordinates coupled to k
    remaining = set(range(n))
    for k in order:
        remaining.discard(k)
        pivots[k] = A.get((k, k), ZERO)
        if pivots[k].is_zero:
            return None
        inverse[k] = div(ONE, pivots[k])
        near = sorted(i for i in remaining if (i, k) in A)
        factors[k] = [(i, mul(A[(i, k)], inverse[k])) for i in near]
        for i, lik in factors[k]:
            b[i] = sub(b[i], mul(lik, b[k]))
            for j in near:
                if j >= i:
                    e = sub(A.get((i, j), ZERO), mul(lik, A[(k, j)]))
                    A[(i, j)] = A[(j, i)] = e
    ddq: list[Expr] = list(delta)
    for k in reversed(order):  # d_k ddq_k + sum_i M'_ki ddq_i = b_k over the later coordinates i
        e = mul(b[k], inverse[k])
        for i, lik in factors[k]:
            e = sub(e, mul(lik, ddq[i]))
        ddq[k] = e
    return ddq, pivots


__all__ = ["elimination_order", "eliminated_accelerations"]
