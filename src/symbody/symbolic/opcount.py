"""Operation counts of emitted assignments, taken on the expression DAG.

The operation count of docs/explanation/architecture.md is ``sympy.count_ops`` of each emitted
right-hand side after SymPy's automatic evaluation.  Converting every assignment to SymPy
costs about a millisecond per assignment; this module reproduces, on a small canonical form,
the part of SymPy's evaluation that the right-hand sides of an export meet, and counts that
form by the rules of ``count_ops``, in time linear in the size of the right-hand side:

* sums and products are flattened, like terms (``2*x*y + x*y``) and powers of a common base
  (``x * x**2``) are collected, numeric terms and coefficients are folded;
* a number times a sum is distributed (``2*(x + y)`` is ``2*x + 2*y``), a negation too;
* integer powers of products and of powers are expanded (``(x*y**2)**2`` is ``x**2*y**4``);
* odd functions take the sign out of their argument (``sin(-x - y + z)`` is
  ``-sin(x + y - z)``), ``cos`` drops it;
* ``count_ops`` counts a negative coefficient as one ``NEG``, a quotient as one ``DIV`` (the
  numerator over the denominator of :func:`sympy.fraction`), ``n - 1`` additions or products
  for ``n`` operands, a subtraction instead of an addition of a negative term.

Where SymPy applies a rule not reproduced here (``exp``, ``log``, ``Abs``, ``sign``, ``atan2``,
functions of constants, of ``pi`` or of other functions, fractional powers of products, a
sign choice SymPy makes by its sort order), :func:`dag_op_count` answers ``None`` and
:func:`rhs_op_count` counts that one right-hand side through SymPy, so the figure is the
same in every case.

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> ctx = Context(); x, y = ctx.symbol("x"), ctx.symbol("y")
    >>> dag_op_count(2 * (x + y) * x - sin(y - x), {})
    6
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Union

from .expr import (
    ACOS,
    ADD,
    ASIN,
    ATAN,
    COS,
    MUL,
    NEG,
    NUM,
    POW,
    SIN,
    SYM,
    TAN,
    TANH,
    Expr,
)

Number = Union[int, Fraction, float]
PI_ATOM = "\x00pi"  # sympy.pi: an atom of sums and products, a number to functions
ODD = frozenset((SIN, TAN, ASIN, ATAN, TANH))


class Unsupported(Exception):
    """SymPy's evaluation of this right-hand side uses a rule not reproduced here."""


def _norm(v: Number) -> Number:
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    return v


def _is_one(v: Number) -> bool:
    """SymPy's ``S.One`` (a Float 1.0 is not)."""
    return v == 1 and not isinstance(v, float)


def _numkey(v: Number) -> tuple:
    return (isinstance(v, float), v)


class _Node:
    __slots__ = ("_key",)
    _key: Any

    def key(self) -> Any:
        k = self._key
        if k is None:
            k = self._key = self._make_key()
        return k

    def _make_key(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def __hash__(self) -> int:
        return hash(self.key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Node) and self.key() == other.key()


def _key(v: Any) -> Any:
    if isinstance(v, _Node):
        return v.key()
    if isinstance(v, str):
        return v
    return ("N", _numkey(v))


class Pow(_Node):
    """``base ** exp`` with a rational exponent other than 0 and 1 (base: atom, sum or function)."""

    __slots__ = ("base", "exp")

    def __init__(self, base: Any, exp: Number):
        self._key = None
        self.base = base
        self.exp = exp

    def _make_key(self) -> Any:
        return ("P", _key(self.base), self.exp)


class Func(_Node):
    """A function of one argument, by symbody operation code."""

    __slots__ = ("op", "arg")

    def __init__(self, op: int, arg: Any):
        self._key = None
        self.op = op
        self.arg = arg

    def _make_key(self) -> Any:
        return ("F", self.op, _key(self.arg))


class Mul(_Node):
    """``coeff * prod(base ** exp)``: at least two operands, no base twice."""

    __slots__ = ("coeff", "factors")

    def __init__(self, coeff: Number, factors: dict):
        self._key = None
        self.coeff = coeff
        self.factors = factors

    def _make_key(self) -> Any:
        return ("M", _numkey(self.coeff), frozenset((_key(b), e) for b, e in self.factors.items()))


class Add(_Node):
    """``const + sum(coeff * term)``: at least two operands, terms without coefficient."""

    __slots__ = ("const", "terms")

    def __init__(self, const: Number, terms: dict):
        self._key = None
        self.const = const
        self.terms = terms

    def _make_key(self) -> Any:
        return ("A", _numkey(self.const), frozenset((_key(t), _numkey(c)) for t, c in self.terms.items()))


# -- canonical construction (SymPy's automatic evaluation) -------------------------------
def _is_num(v: Any) -> bool:
    return isinstance(v, (int, Fraction, float))


def _factor(base: Any, exp: Number) -> Any:
    return base if _is_one(exp) else Pow(base, exp)


def _coeff_term(v: Any) -> tuple[Number, Any]:
    """``v.as_coeff_Mul()`` for a non-number."""
    if isinstance(v, Mul):
        if len(v.factors) == 1:
            ((b, e),) = v.factors.items()
            return v.coeff, _factor(b, e)
        return v.coeff, Mul(1, dict(v.factors))
    return 1, v


def make_add(const: Number, terms: dict) -> Any:
    """The value of ``const + sum(c * t)`` (zero coefficients dropped)."""
    terms = {t: c for t, c in terms.items() if c != 0}
    const = _norm(const) if const != 0 else 0  # a zero Float is dropped as well
    if not terms:
        return const
    if len(terms) == 1 and const == 0:
        ((t, c),) = terms.items()
        return _scaled(t, c)
    return Add(const, terms)


def _scaled(t: Any, c: Number) -> Any:
    """``c * t`` for a term ``t`` without coefficient."""
    if _is_one(c):
        return t
    if isinstance(t, Mul):
        return Mul(c, dict(t.factors))
    if isinstance(t, Pow):
        return Mul(c, {t.base: t.exp})
    return make_mul(c, {t: 1})


def make_mul(coeff: Number, factors: dict) -> Any:
    """The value of ``coeff * prod(b ** e)`` (a number times a single sum is distributed)."""
    coeff = _norm(coeff)
    if coeff == 0:
        return 0
    factors = {b: e for b, e in factors.items() if e != 0}
    if not factors:
        return coeff
    if len(factors) == 1:
        ((b, e),) = factors.items()
        if _is_one(coeff):
            return _factor(b, e)
        if isinstance(b, Add) and _is_one(e):
            return _scale_add(b, coeff)
    return Mul(coeff, factors)


def _scale_add(a: Add, c: Number) -> Any:
    return make_add(a.const * c if a.const != 0 else 0, {t: k * c for t, k in a.terms.items()})


def negate(v: Any) -> Any:
    """``-v``."""
    if _is_num(v):
        return -v
    if isinstance(v, Add):
        return _scale_add(v, -1)
    if isinstance(v, Mul):
        return make_mul(-v.coeff, v.factors)
    if isinstance(v, Pow):
        return Mul(-1, {v.base: v.exp})
    return Mul(-1, {v: 1})


def _merge_add(a: Any, b: Any) -> Any:
    const: Number = 0
    terms: dict = {}
    big = a if isinstance(a, Add) and (not isinstance(b, Add) or len(a.terms) >= len(b.terms)) else b
    if isinstance(big, Add):
        const, terms = big.const, big.terms  # taken over: the operand is not used elsewhere
    else:
        big = None
    for v in (a, b):
        if v is big:
            continue
        if _is_num(v):
            const = const + v
        elif isinstance(v, Add):
            const = const + v.const
            for t, c in v.terms.items():
                terms[t] = terms.get(t, 0) + c
        else:
            c, t = _coeff_term(v)
            terms[t] = terms.get(t, 0) + c
    return make_add(const, terms)


def _merge_mul(a: Any, b: Any) -> Any:
    coeff: Number = 1
    factors: dict = {}
    big = a if isinstance(a, Mul) and (not isinstance(b, Mul) or len(a.factors) >= len(b.factors)) else b
    if isinstance(big, Mul):
        coeff, factors = big.coeff, big.factors
    else:
        big = None
    for v in (a, b):
        if v is big:
            continue
        if _is_num(v):
            coeff = coeff * v
        elif isinstance(v, Mul):
            coeff = coeff * v.coeff
            for f, e in v.factors.items():
                factors[f] = factors.get(f, 0) + e
        elif isinstance(v, Pow):
            factors[v.base] = factors.get(v.base, 0) + v.exp
        else:
            factors[v] = factors.get(v, 0) + 1
    return make_mul(coeff, factors)


def make_pow(v: Any, n: Number) -> Any:
    """``v ** n`` for a rational ``n``."""
    if isinstance(n, float) or _is_num(v):
        raise Unsupported("float exponent or numeric base")
    if n == 0:
        return 1
    if isinstance(v, Pow):
        if not isinstance(n, int):
            raise Unsupported("fractional power of a power")
        return _factor(v.base, _norm(v.exp * n)) if v.exp * n != 0 else 1
    if isinstance(v, Mul):
        if not isinstance(n, int):
            raise Unsupported("fractional power of a product")
        c = v.coeff
        cn = _norm(Fraction(c) ** n) if not isinstance(c, float) else c**n
        return make_mul(cn, {b: _norm(e * n) for b, e in v.factors.items()})
    return _factor(v, n)


def _extracts_minus(v: Any) -> bool | None:
    """SymPy's ``could_extract_minus_sign`` (``None``: decided by SymPy's sort order)."""
    if _is_num(v):
        return v < 0
    if isinstance(v, Mul):
        return v.coeff < 0
    if isinstance(v, Add):
        neg = sum(1 for c in v.terms.values() if c < 0) + (1 if v.const < 0 else 0)
        pos = len(v.terms) + (1 if v.const != 0 else 0) - neg
        if pos != neg:
            return pos < neg
        return _difference_sign(v)
    return False


def _difference_sign(v: Add) -> bool | None:
    """SymPy's sort-order choice for ``x - y`` of two symbols: the first name in string order
    keeps the plus sign (``sin(y - x)`` is ``-sin(x - y)``); ``None`` for other sums."""
    if v.const != 0 or len(v.terms) != 2:
        return None
    (a, ca), (b, cb) = v.terms.items()
    if not (isinstance(a, str) and isinstance(b, str) and {ca, cb} == {1, -1}):
        return None
    if isinstance(ca, float) or isinstance(cb, float):
        return None
    return (ca if a < b else cb) < 0


def _has_pi(v: Any) -> bool:
    if v == PI_ATOM:
        return True
    if isinstance(v, Add):
        return any(_has_pi(t) for t in v.terms)
    if isinstance(v, Mul):
        return any(_has_pi(b) for b in v.factors)
    if isinstance(v, Pow):
        return _has_pi(v.base)
    return False


def make_func(op: int, v: Any) -> Any:
    """``f(v)`` for ``sin, cos, tan, asin, acos, atan, tanh``."""
    inner = v
    if isinstance(v, Mul) and len(v.factors) == 1:
        ((inner, _e),) = v.factors.items()
    if _is_num(v) or isinstance(inner, Func) or _has_pi(v):
        raise Unsupported("function of a constant, of pi or of a function")
    minus = _extracts_minus(v)
    if op == COS:
        if minus is None:  # cos(a - b) is cos(b - a): one orientation, chosen by the key
            w = negate(v)
            return Func(op, v if hash(_key(v)) <= hash(_key(w)) else w)
        return Func(op, negate(v) if minus else v)
    if op in ODD:
        if minus is None:
            raise Unsupported("sign of an odd function chosen by SymPy's sort order")
        return Mul(-1, {Func(op, negate(v)): 1}) if minus else Func(op, v)
    if op == ACOS and minus is False:
        return Func(op, v)
    raise Unsupported("function")


def canonical(e: Expr, names: Mapping[Expr, str], top: Expr | None = None) -> Any:
    """The evaluated form of ``e`` with the nodes in ``names`` (other than ``top``) as atoms."""
    if e is not top:
        n = names.get(e)
        if n is not None:
            return n
    op = e.op
    if op == NUM:
        v = e.value
        return PI_ATOM if v == math.pi else v
    if op == SYM:
        return e.name
    if op == ADD:
        return _merge_add(canonical(e.args[0], names), canonical(e.args[1], names))
    if op == MUL:
        return _merge_mul(canonical(e.args[0], names), canonical(e.args[1], names))
    if op == NEG:
        return negate(canonical(e.args[0], names))
    if op == POW:
        return make_pow(canonical(e.args[0], names), e.args[1].value)
    if op in ODD or op in (COS, ACOS):
        return make_func(op, canonical(e.args[0], names))
    raise Unsupported("function")


# -- counting (the rules of sympy.count_ops) --------------------------------------------
def _count_number(v: Number) -> int:
    if isinstance(v, float) or _is_one(v):
        return 0
    f = Fraction(v)
    return (f.numerator < 0) + (f.denominator != 1)


def count(v: Any) -> int:
    """``count_ops`` of an evaluated form."""
    if isinstance(v, str):
        return 0
    if _is_num(v):
        return _count_number(v)
    if isinstance(v, Func):
        return 1 + count(v.arg)
    if isinstance(v, Pow):
        if v.exp == -1:
            return 1 + count(v.base)
        return 1 + count(v.base) + _count_number(v.exp)
    if isinstance(v, Mul):
        return _count_mul(v.coeff, v.factors)
    return _count_add(v)


def _count_add(a: Add) -> int:
    n_args = len(a.terms) + (a.const != 0)
    ops = n_args - 1
    negs = 0
    for t, c in a.terms.items():
        if c < 0:
            negs += 1
            c = -c
        ops += count(t) if _is_one(c) else _count_mul(c, t.factors if isinstance(t, Mul) else _as_factors(t))
    if a.const != 0:
        negs += a.const < 0
        ops += _count_number(-a.const if a.const < 0 else a.const)
    return ops + (negs == n_args)


def _as_factors(t: Any) -> dict:
    return {t.base: t.exp} if isinstance(t, Pow) else {t: 1}


def _count_mul(coeff: Number, factors: dict) -> int:
    """``count_ops`` of ``coeff * prod(b ** e)`` (evaluated, at least one factor)."""
    if coeff < 0:
        return 1 + count(make_mul(-coeff, factors))
    if isinstance(coeff, float):
        num_c: Number = coeff
        den_c: Number = 1
    else:
        f = Fraction(coeff)
        num_c, den_c = f.numerator, f.denominator
    num_f = {b: e for b, e in factors.items() if e > 0}
    den_f = {b: -e for b, e in factors.items() if e < 0}
    if not den_f and den_c == 1:
        args = list(num_f.items())
        ops = len(args) - (1 if _is_one(coeff) else 0)
        return ops + sum(count(_factor(b, e)) for b, e in args)
    d = make_mul(den_c, den_f)
    if not num_f and not isinstance(num_c, float):
        return 1 + count(d)
    return 1 + (count(d) if den_f else 0) + count(make_mul(num_c, num_f))


def dag_op_count(e: Expr, names: Mapping[Expr, str], top: bool = True) -> int | None:
    """Operation count of the right-hand side ``e`` (``None`` where SymPy must decide).

    Args:
        e: the assigned node.
        names: printed names of the symbols and temporaries (they count as atoms).
        top: ``e`` is itself a named temporary and is expanded one level.
    """
    try:
        return count(canonical(e, names, e if top else None))
    except Unsupported:
        return None


def rhs_op_count(e: Expr, names: Mapping[Expr, str], cache: dict) -> int:
    """Operation count of the right-hand side ``e``: on the DAG, through SymPy where needed."""
    n = dag_op_count(e, names)
    if n is not None:
        return n
    from .sympy_count import sympy_rhs_op_count  # SymPy only where the DAG count cannot decide

    return sympy_rhs_op_count(e, names, cache)
