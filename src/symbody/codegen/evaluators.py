"""Compiled Python evaluators of the blocks of an :class:`~symbody.Equations`.

:func:`layout_of` places the symbols of the equations in the argument vectors of every
generated function, ``f(t, q, dq, u, p, ddq=None, lam=None, x=None)`` (``x``: the first-order
states); :func:`evaluator` compiles
named blocks together (they share their temporaries) and caches the function per
equations and set of blocks.

Example:
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> M, delta = evaluator(eq, "M", "delta")(0.0, eq.q0, eq.dq0, [0.5], eq.p0)
    >>> M.tolist(), delta.round(6).tolist()
    ([[1.0]], [-2.399053])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from ..equations import Equations
from ..model.contacts import event_force_symbols
from .python import Layout, compile_function

Blocks = dict[str, tuple[list[Any], tuple[int, ...]]]

_CACHE: WeakKeyDictionary[Equations, dict[Any, Callable]] = WeakKeyDictionary()


def layout_of(eq: Equations) -> Layout:
    """The argument layout of the functions generated for ``eq`` (see :mod:`symbody.codegen.python`)."""
    lam = list(eq.lam) + event_force_symbols(eq)  # contact and friction forces follow (outputs may use them)
    return Layout(q=eq.q, dq=eq.dq, ddq=eq.ddq, u=eq.u_symbols, p=eq.p_symbols, lam=lam, x=eq.x_symbols, t=eq.t)


def select_blocks(eq: Equations, names: tuple[str, ...], extra: Blocks | None = None) -> Blocks:
    """The named blocks of ``eq`` (:meth:`~symbody.Equations.blocks`) and of ``extra``, in order."""
    available = eq.blocks()
    available.update(extra or {})
    missing = [n for n in names if n not in available]
    if missing:
        raise KeyError(f"unknown block {missing[0]!r}; available: {', '.join(available)}")
    return {n: available[n] for n in names}


def evaluator(eq: Equations, *names: str, extra: Blocks | None = None) -> Callable:
    """A compiled function ``f(t, q, dq, u, p, ddq=None, lam=None, x=None)`` returning the named blocks.

    Blocks evaluated together share their atoms.  Custom blocks can be given
    in ``extra`` as ``name -> (flat expressions, shape)``.  Compiled functions
    are cached per equations and set of blocks (custom blocks included).
    """
    extra = extra or {}
    key = (names, tuple((k, tuple(v[0]), tuple(v[1])) for k, v in sorted(extra.items())))
    cache = _CACHE.setdefault(eq, {})
    f = cache.get(key)
    if f is None:
        f = cache[key] = compile_function(
            select_blocks(eq, names, extra), layout_of(eq), fname="evaluate_" + "_".join(names)
        )
    return f


__all__ = ["evaluator", "layout_of", "select_blocks"]
