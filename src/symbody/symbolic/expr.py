"""Hash-consed expression DAG: the atom table of symbody.

Every expression is an :class:`Expr` node.  Nodes are created only through the
constructor functions of this module (:func:`add`, :func:`mul`, :func:`neg`,
:func:`pow_`, :func:`sin`, ...), which apply a handful of cheap local
simplifications and then look the node up in the hash table of its
:class:`Context`.  A structurally identical expression therefore exists only
once: every non-trivial node is an *atom* in the sense of lib_3D_MEC-GiNaC
(Plaza Puértolas, 2015, ch. 3), built on the fly, one operator at a time.

Canonical forms that make the table catch more repetitions:

* ``a + b`` and ``a * b`` store their operands sorted by creation id.
* Negation is always pulled outwards: ``(-a) * b`` is ``-(a * b)``,
  ``(-a) + (-b)`` is ``-(a + b)``, and a subtraction ``a - b`` is stored so that
  ``a - b`` and ``b - a`` share one node (one is the negation of the other).
* Numeric coefficients are pulled to the front of products: ``(2 a) b`` is
  ``2 (a b)``.
* ``sin(-x) = -sin(x)``, ``cos(-x) = cos(x)``; trigonometric functions of
  multiples of pi/2 fold to exact values.

Nodes are immutable.  Equality is identity (``a == b`` iff they are the same
node), which is exactly structural equality thanks to hash-consing.

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> ctx = Context()
    >>> x, y = ctx.symbol("x"), ctx.symbol("y")
    >>> (x - y) is -(y - x)
    True
    >>> sin(-x) is -sin(x)
    True
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from ..errors import ModelError

sys.setrecursionlimit(max(sys.getrecursionlimit(), 200000))

# Operation codes.  Functions of one argument have codes >= SIN.
SYM, NUM, ADD, MUL, NEG, POW = 0, 1, 2, 3, 4, 5
SIN, COS, TAN, EXP, LOG, TANH, ABS, SIGN, ASIN, ACOS, ATAN, ATAN2 = range(6, 18)

FUNCTION_NAMES = {
    SIN: "sin",
    COS: "cos",
    TAN: "tan",
    EXP: "exp",
    LOG: "log",
    TANH: "tanh",
    ABS: "abs",
    SIGN: "sign",
    ASIN: "asin",
    ACOS: "acos",
    ATAN: "atan",
    ATAN2: "atan2",
}
OP_NAMES = {SYM: "sym", NUM: "num", ADD: "add", MUL: "mul", NEG: "neg", POW: "pow"}
OP_NAMES.update(FUNCTION_NAMES)

_ids = itertools.count()

Number = int | float | Fraction


class Expr:
    """A node of the expression DAG (an atom when it is not a leaf).

    Use the arithmetic operators or the module functions to build new nodes;
    never instantiate this class directly.

    Attributes:
        op: operation code (``SYM``, ``NUM``, ``ADD``, ...).
        args: child nodes.
        id: creation index; children always have smaller ids than parents.
        mask: bit set of the symbols the node depends on.
        ctx: the :class:`Context` whose table holds the node (``None`` for numbers).
        name: symbol name (symbols only).
        value: the number (numbers) or the owner object of a symbol.
        kind: symbol kind string (symbols only), e.g. ``"coordinate"``.
    """

    __slots__ = ("op", "args", "id", "mask", "ctx", "name", "value", "kind", "__weakref__")

    # -- identity semantics ------------------------------------------------
    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        if isinstance(other, Expr):
            return self is other
        if isinstance(other, (int, float, Fraction)):
            return self.op == NUM and self.value == other
        return NotImplemented

    def __ne__(self, other: object) -> bool:  # type: ignore[override]
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    # -- arithmetic --------------------------------------------------------
    def _coerce(self, other: Any) -> Expr:
        return as_expr(other, self.ctx)

    def __add__(self, other: Any) -> Expr:
        return add(self, self._coerce(other))

    def __radd__(self, other: Any) -> Expr:
        return add(self._coerce(other), self)

    def __sub__(self, other: Any) -> Expr:
        return sub(self, self._coerce(other))

    def __rsub__(self, other: Any) -> Expr:
        return sub(self._coerce(other), self)

    def __mul__(self, other: Any) -> Expr:
        return mul(self, self._coerce(other))

    def __rmul__(self, other: Any) -> Expr:
        return mul(self._coerce(other), self)

    def __truediv__(self, other: Any) -> Expr:
        return div(self, self._coerce(other))

    def __rtruediv__(self, other: Any) -> Expr:
        return div(self._coerce(other), self)

    def __neg__(self) -> Expr:
        return neg(self)

    def __pos__(self) -> Expr:
        return self

    def __pow__(self, n: Any) -> Expr:
        if isinstance(n, Expr):
            if n.op != NUM:
                raise TypeError("symbody supports only numeric exponents; use exp/log")
            n = n.value
        return pow_(self, _as_number(n))

    def __rpow__(self, base: Any) -> Expr:
        raise TypeError("symbody supports only numeric exponents; use exp/log")

    def __float__(self) -> float:
        if self.op == NUM:
            return float(self.value)
        raise TypeError(f"expression {self} is not a number")

    def __bool__(self) -> bool:
        if self.op == NUM:
            return self.value != 0
        return True

    # -- display -----------------------------------------------------------
    def __repr__(self) -> str:
        from .printing import to_str

        return to_str(self)

    __str__ = __repr__

    def sympy(self):
        """Return the (de-atomized) SymPy expression of this node."""
        from .sympy_bridge import to_sympy

        return to_sympy(self)

    def _sympy_(self):  # pragma: no cover - used only by explicit sympify()
        return self.sympy()

    def _repr_latex_(self) -> str:
        import sympy

        return "$" + sympy.latex(self.sympy()) + "$"

    # -- convenience -------------------------------------------------------
    @property
    def is_number(self) -> bool:
        return self.op == NUM

    @property
    def is_symbol(self) -> bool:
        return self.op == SYM

    @property
    def is_zero(self) -> bool:
        return self.op == NUM and self.value == 0

    def depends_on(self, symbol: Expr) -> bool:
        """True if the node depends on ``symbol`` (structurally)."""
        return bool(self.mask & symbol.mask)

    def diff(self, symbol: Expr) -> Expr:
        """Partial derivative with respect to a symbol (works on atoms, no expansion)."""
        from .calculus import diff

        return diff(self, symbol)

    def subs(self, mapping: dict) -> Expr:
        """Substitute symbols by expressions (or numbers)."""
        from .calculus import subs

        return subs(self, mapping)


def _new(ctx: Context | None, op: int, args: tuple, mask: int) -> Expr:
    e = object.__new__(Expr)
    e.op = op
    e.args = args
    e.id = next(_ids)
    e.mask = mask
    e.ctx = ctx
    e.name = None
    e.value = None
    e.kind = None
    return e


class Context:
    """Owner of a hash table of atoms and of the symbols that index it.

    A :class:`symbody.System` creates one context; expressions of different
    systems never share nodes.
    """

    def __init__(self) -> None:
        self.table: dict[tuple, Expr] = {}
        self.symbols: list[Expr] = []
        self.by_name: dict[str, Expr] = {}
        # caches used by symbolic.calculus
        self.diff_cache: dict[Expr, dict[Expr, Expr]] = {}
        self.dt_cache: dict[bool, dict[Expr, Expr]] = {True: {}, False: {}}
        self.time_rates: dict[Expr, tuple[Expr | None, Expr | None]] = {}
        self.dt_masks: dict[bool, int] = {}

    def symbol(self, name: str, kind: str = "symbol", owner: Any = None) -> Expr:
        """Create a new symbol (leaf) with its own dependency bit."""
        if name in self.by_name:
            raise ValueError(f"symbol {name!r} already exists")
        e = _new(self, SYM, (), 1 << len(self.symbols))
        e.name = name
        e.kind = kind
        e.value = owner
        self.symbols.append(e)
        self.by_name[name] = e
        return e

    def __len__(self) -> int:
        return len(self.table)

    @property
    def n_atoms(self) -> int:
        """Number of atoms (non-leaf nodes) created so far."""
        return len(self.table)


# ---------------------------------------------------------------------------
# numbers
# ---------------------------------------------------------------------------
_NUMS: dict[tuple[bool, Number], Expr] = {}


def _as_number(v: Any) -> Number:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, Fraction):
        return v.numerator if v.denominator == 1 else v
    if isinstance(v, float):  # also numpy.float64, stored as a plain float
        v = float(v)
        if v.is_integer() and abs(v) < 2**53:
            return int(v)
        return v
    try:  # numpy scalars and similar
        f = float(v)
    except (TypeError, ValueError):
        raise TypeError(f"not a number: {v!r}") from None
    return _as_number(f)


def num(v: Any) -> Expr:
    """The (shared) node of a numeric constant.

    Exact numbers (int, Fraction) and floats are kept apart even when equal in value
    (``Fraction(1, 4) == 0.25``), so that exact arithmetic stays exact whatever ran before.
    """
    v = _as_number(v)
    key = (isinstance(v, float), v)
    e = _NUMS.get(key)
    if e is None:
        e = _new(None, NUM, (), 0)
        e.value = v
        _NUMS[key] = e
    return e


ZERO = num(0)
ONE = num(1)
TWO = num(2)
MINUS_ONE = num(-1)
HALF = num(Fraction(1, 2))
PI = num(math.pi)


def reachable(exprs: Iterable[Expr]) -> set[Expr]:
    """Every node of the expression DAG below ``exprs`` (each shared atom once).

    Example:
        >>> ctx = Context()
        >>> x, y = ctx.symbol("x"), ctx.symbol("y")
        >>> sorted(e.name for e in free_symbols([x * y + x]))
        ['x', 'y']
    """
    seen: set[Expr] = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e not in seen:
            seen.add(e)
            stack.extend(e.args)
    return seen


def free_symbols(exprs: Iterable[Expr]) -> set[Expr]:
    """The symbols (parameters, coordinates, inputs, time) the expressions ``exprs`` depend on."""
    return {e for e in reachable(exprs) if e.op == SYM}


def _finite(v: Any) -> Any:
    """``v`` itself; an infinite or NaN number is refused: no model expression may hold one (it would
    reach the generated code and every result silently)."""
    if isinstance(v, float) and not math.isfinite(v):
        raise ModelError(f"the number {v} is not finite and cannot be part of a model expression")
    return v


def as_expr(x: Any, ctx: Context | None = None) -> Expr:
    """Convert a number, an :class:`Expr` or a SymPy expression to an :class:`Expr`."""
    if isinstance(x, Expr):
        return x
    if isinstance(x, (int, float, Fraction, bool)):
        return num(_finite(x))
    mod = type(x).__module__
    if mod.startswith("sympy"):
        from .sympy_bridge import from_sympy

        return from_sympy(x, ctx)
    if mod.startswith("numpy"):
        return num(_finite(float(x)))
    raise TypeError(f"cannot use {x!r} (type {type(x).__name__}) in a symbody expression")


# ---------------------------------------------------------------------------
# node constructors
# ---------------------------------------------------------------------------
def _table_of(a: Expr, b: Expr | None = None) -> Context | None:
    return a.ctx if a.ctx is not None else (b.ctx if b is not None else None)


def _node2(op: int, a: Expr, b: Expr) -> Expr:
    ctx = a.ctx if a.ctx is not None else b.ctx
    if ctx is None:  # pragma: no cover - both numbers are always folded
        raise AssertionError("numeric operands must be folded")
    key = (op, a, b)
    e = ctx.table.get(key)
    if e is None:
        e = _new(ctx, op, (a, b), a.mask | b.mask)
        ctx.table[key] = e
    return e


def _node1(op: int, a: Expr) -> Expr:
    ctx = a.ctx
    key = (op, a)
    e = ctx.table.get(key)
    if e is None:
        e = _new(ctx, op, (a,), a.mask)
        ctx.table[key] = e
    return e


def _is_negative(e: Expr) -> bool:
    return e.op == NEG or (e.op == NUM and e.value < 0)


def neg(a: Expr) -> Expr:
    """``-a``."""
    op = a.op
    if op == NEG:
        return a.args[0]
    if op == NUM:
        return num(-a.value)
    return _node1(NEG, a)


def add(a: Expr, b: Expr) -> Expr:
    """``a + b`` with canonical ordering and sign normalization."""
    ao = a.op
    bo = b.op
    if ao == NUM:
        if bo == NUM:
            return num(a.value + b.value)
        if a.value == 0:
            return b
    elif bo == NUM and b.value == 0:
        return a
    an = ao == NEG or (ao == NUM and a.value < 0)
    bn = bo == NEG or (bo == NUM and b.value < 0)
    if an:
        if bn:
            return neg(add(neg(a), neg(b)))
        pos, ng = b, neg(a)
    elif bn:
        pos, ng = a, neg(b)
    else:
        if a is b:
            return mul(TWO, a)
        # c1*x + c2*x -> (c1 + c2)*x and x + c*x -> (1 + c)*x
        ca, xa = (a.args[0].value, a.args[1]) if ao == MUL and a.args[0].op == NUM else (1, a)
        cb, xb = (b.args[0].value, b.args[1]) if bo == MUL and b.args[0].op == NUM else (1, b)
        if xa is xb:
            return mul(num(ca + cb), xa)
        if a.id > b.id:
            a, b = b, a
        return _node2(ADD, a, b)
    # pos - ng
    if pos is ng:
        return ZERO
    # a - (a - b) = b, a - (b + a) = -b, (a + b) - a = b
    if ng.op == ADD:
        u, v = ng.args
        if u is pos:
            return neg(v)
        if v is pos:
            return neg(u)
    if pos.op == ADD:
        u, v = pos.args
        if u is ng:
            return v
        if v is ng:
            return u
    if pos.id > ng.id:
        return neg(_node2(ADD, ng, neg(pos)))
    return _node2(ADD, pos, neg(ng))


def sub(a: Expr, b: Expr) -> Expr:
    """``a - b``."""
    return add(a, neg(b))


def mul_pair(a: Expr, b: Expr) -> Expr:
    """``a * b`` as one product node of the two operands (no regrouping of squares).

    Used by the export optimizer, which chooses the grouping itself.
    """
    if a.op == NUM or b.op == NUM or a.op == NEG or b.op == NEG or a is b:
        return mul(a, b)
    if a.id > b.id:
        a, b = b, a
    return _node2(MUL, a, b)


def mul(a: Expr, b: Expr) -> Expr:
    """``a * b`` with numeric folding, sign extraction and canonical ordering."""
    ao = a.op
    bo = b.op
    if bo == NUM and ao != NUM:
        a, b = b, a
        ao, bo = bo, ao
    if ao == NUM:
        av = a.value
        if bo == NUM:
            return num(av * b.value)
        if av == 0:
            return ZERO
        if av == 1:
            return b
        if av == -1:
            return neg(b)
        if bo == NEG:
            return neg(mul(a, b.args[0]))
        if av < 0:
            return neg(mul(num(-av), b))
        if bo == MUL and b.args[0].op == NUM:
            return mul(num(av * b.args[0].value), b.args[1])
        return _node2(MUL, a, b)
    if ao == NEG:
        if bo == NEG:
            return mul(a.args[0], b.args[0])
        return neg(mul(a.args[0], b))
    if bo == NEG:
        return neg(mul(a, b.args[0]))
    if a is b:
        return pow_(a, 2)
    # x * (x * y) -> x**2 * y, so that squares are shared
    if bo == MUL:
        b0, b1 = b.args
        if b0 is a:
            return mul(pow_(a, 2), b1)
        if b1 is a:
            return mul(pow_(a, 2), b0)
    if ao == MUL:
        a0, a1 = a.args
        if a0 is b:
            return mul(pow_(b, 2), a1)
        if a1 is b:
            return mul(pow_(b, 2), a0)
    if ao == MUL and a.args[0].op == NUM:
        return mul(a.args[0], mul(a.args[1], b))
    if bo == MUL and b.args[0].op == NUM:
        return mul(b.args[0], mul(a, b.args[1]))
    if a.id > b.id:
        a, b = b, a
    return _node2(MUL, a, b)


def _exact_pow(v: Number, n: Number) -> Number | None:
    try:
        if isinstance(n, int) and isinstance(v, (int, Fraction)):
            if v == 0 and n < 0:
                return None
            return Fraction(v) ** n
        if v < 0 and not (isinstance(n, int) or float(n).is_integer()):
            return None
        if v == 0 and n < 0:
            return None
        return float(v) ** float(n)
    except (OverflowError, ZeroDivisionError):
        return None


def pow_(a: Expr, n: Any) -> Expr:
    """``a ** n`` for a numeric exponent ``n`` (int, Fraction or float)."""
    n = _as_number(n)
    if n == 0:
        return ONE
    if n == 1:
        return a
    op = a.op
    if op == NUM:
        v = _exact_pow(a.value, n)
        if v is not None:
            return num(v)
    elif op == NEG and isinstance(n, int):
        p = pow_(a.args[0], n)
        return p if n % 2 == 0 else neg(p)
    elif op == POW and isinstance(n, int):
        return pow_(a.args[0], a.args[1].value * n)
    elif op == MUL and a.args[0].op == NUM and isinstance(n, int):
        c = _exact_pow(a.args[0].value, n)
        if c is not None:
            return mul(num(c), pow_(a.args[1], n))
    if a.ctx is None:  # negative number to a fractional power
        raise ValueError(f"cannot raise {a.value} to the power {n}")
    ctx = a.ctx
    e_n = num(n)
    key = (POW, a, e_n)
    e = ctx.table.get(key)
    if e is None:
        e = _new(ctx, POW, (a, e_n), a.mask)
        ctx.table[key] = e
    return e


def div(a: Expr, b: Expr) -> Expr:
    """``a / b``."""
    if b.op == NUM:
        if b.value == 0:
            raise ZeroDivisionError("division of an expression by zero")
        v = b.value
        inv = Fraction(1, v) if isinstance(v, int) else (1 / v)
        return mul(a, num(inv))
    return mul(a, pow_(b, -1))


def sqrt(a: Any) -> Expr:
    """Square root."""
    a = as_expr(a)
    return pow_(a, Fraction(1, 2))


# -- functions ---------------------------------------------------------------
def _pi_multiple(v: float) -> int | None:
    """k if v is (numerically) k*pi/2, else None."""
    k = v / (math.pi / 2)
    r = round(k)
    if abs(k - r) < 1e-12 and abs(r) < 1e6:
        return int(r)
    return None


def sin(a: Any) -> Expr:
    """Sine."""
    a = as_expr(a)
    if a.op == NUM:
        k = _pi_multiple(float(a.value))
        if k is not None:
            return num((0, 1, 0, -1)[k % 4])
        return num(math.sin(a.value))
    if a.op == NEG:
        return neg(sin(a.args[0]))
    return _node1(SIN, a)


def cos(a: Any) -> Expr:
    """Cosine."""
    a = as_expr(a)
    if a.op == NUM:
        k = _pi_multiple(float(a.value))
        if k is not None:
            return num((1, 0, -1, 0)[k % 4])
        return num(math.cos(a.value))
    if a.op == NEG:
        return cos(a.args[0])
    return _node1(COS, a)


def tan(a: Any) -> Expr:
    """Tangent."""
    a = as_expr(a)
    if a.op == NUM:
        return num(math.tan(a.value))
    if a.op == NEG:
        return neg(tan(a.args[0]))
    return _node1(TAN, a)


def exp(a: Any) -> Expr:
    """Exponential."""
    a = as_expr(a)
    if a.op == NUM:
        return num(math.exp(a.value)) if a.value != 0 else ONE
    return _node1(EXP, a)


def log(a: Any) -> Expr:
    """Natural logarithm."""
    a = as_expr(a)
    if a.op == NUM:
        if a.value <= 0:
            raise ValueError(f"log of non-positive number {a.value}")
        return num(math.log(a.value)) if a.value != 1 else ZERO
    return _node1(LOG, a)


def tanh(a: Any) -> Expr:
    """Hyperbolic tangent (used for smoothed Coulomb friction)."""
    a = as_expr(a)
    if a.op == NUM:
        return num(math.tanh(a.value))
    if a.op == NEG:
        return neg(tanh(a.args[0]))
    return _node1(TANH, a)


def Abs(a: Any) -> Expr:
    """Absolute value."""
    a = as_expr(a)
    if a.op == NUM:
        return num(abs(a.value))
    if a.op == NEG:
        return Abs(a.args[0])
    if a.op == ABS:
        return a
    return _node1(ABS, a)


def sign(a: Any) -> Expr:
    """Sign function (-1, 0 or 1)."""
    a = as_expr(a)
    if a.op == NUM:
        return num((a.value > 0) - (a.value < 0))
    if a.op == NEG:
        return neg(sign(a.args[0]))
    return _node1(SIGN, a)


def asin(a: Any) -> Expr:
    """Arc sine."""
    a = as_expr(a)
    if a.op == NUM:
        return num(math.asin(a.value))
    if a.op == NEG:
        return neg(asin(a.args[0]))
    return _node1(ASIN, a)


def acos(a: Any) -> Expr:
    """Arc cosine."""
    a = as_expr(a)
    if a.op == NUM:
        return num(math.acos(a.value))
    return _node1(ACOS, a)


def atan(a: Any) -> Expr:
    """Arc tangent."""
    a = as_expr(a)
    if a.op == NUM:
        return num(math.atan(a.value))
    if a.op == NEG:
        return neg(atan(a.args[0]))
    return _node1(ATAN, a)


def atan2(y: Any, x: Any) -> Expr:
    """Two-argument arc tangent ``atan2(y, x)``."""
    y = as_expr(y)
    x = as_expr(x)
    if y.op == NUM and x.op == NUM:
        return num(math.atan2(y.value, x.value))
    ctx = _table_of(y, x)
    key = (ATAN2, y, x)
    e = ctx.table.get(key)
    if e is None:
        e = _new(ctx, ATAN2, (y, x), y.mask | x.mask)
        ctx.table[key] = e
    return e


FUNCTION_BUILDERS: dict[int, Callable[..., Expr]] = {
    SIN: sin,
    COS: cos,
    TAN: tan,
    EXP: exp,
    LOG: log,
    TANH: tanh,
    ABS: Abs,
    SIGN: sign,
    ASIN: asin,
    ACOS: acos,
    ATAN: atan,
    ATAN2: atan2,
}


def rebuild(e: Expr, args: tuple) -> Expr:
    """Rebuild a node of the same operation with new children (re-atomized)."""
    op = e.op
    if op == ADD:
        return add(args[0], args[1])
    if op == MUL:
        return mul(args[0], args[1])
    if op == NEG:
        return neg(args[0])
    if op == POW:
        return pow_(args[0], e.args[1].value)
    if op == ATAN2:
        return atan2(args[0], args[1])
    if op >= SIN:
        return FUNCTION_BUILDERS[op](args[0])
    return e


def sum_exprs(terms: Iterable[Expr]) -> Expr:
    """Left-to-right sum of expressions (``0`` for no terms)."""
    acc = ZERO
    for t in terms:
        acc = add(acc, t)
    return acc


def dot3(a: tuple, b: tuple) -> Expr:
    """Dot product of two 3-tuples of expressions (zero-aware)."""
    return add(add(mul(a[0], b[0]), mul(a[1], b[1])), mul(a[2], b[2]))


def walk(roots: Iterable[Expr]) -> list[Expr]:
    """All nodes reachable from ``roots``, sorted by id (a valid evaluation order)."""
    seen: set[int] = set()
    out: list[Expr] = []
    stack = list(roots)
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        out.append(e)
        stack.extend(e.args)
    out.sort(key=lambda n: n.id)
    return out
