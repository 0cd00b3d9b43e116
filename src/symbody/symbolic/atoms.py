"""The atom table: expression nodes, their operation codes, contexts and numbers.

Every expression is an :class:`Expr` node.  A non-leaf node is an *atom* in the
sense of lib_3D_MEC-GiNaC (Plaza Puértolas, 2015, ch. 3): it is created only
through the constructor functions of :mod:`symbody.symbolic.arithmetic` and
:mod:`symbody.symbolic.functions`, which look the node up in the hash table of
its :class:`Context` (:func:`unary_atom`, :func:`binary_atom`), so that a structurally identical
expression exists only once.  Numbers are shared process-wide (:func:`num`) and
belong to no context.

Nodes are immutable.  Equality is identity (``a == b`` iff they are the same
node), which is exactly structural equality thanks to hash-consing.

Example:
    >>> ctx = Context()
    >>> x = ctx.symbol("x")
    >>> (x + 1) is (1 + x), num(0.5) is num(0.5), num(2) == 2
    (True, True, True)
"""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeAlias

from ..errors import ModelError

if TYPE_CHECKING:
    from sympy import Expr as SympyExpr  # no type information: Any to mypy, a name for the reader

sys.setrecursionlimit(max(sys.getrecursionlimit(), 200000))

# Operation codes.  Functions of one argument have codes >= SIN.
SYM, NUM, ADD, MUL, NEG, POW = 0, 1, 2, 3, 4, 5
SIN, COS, TAN, EXP, LOG, TANH, ABS, SIGN, ASIN, ACOS, ATAN, ATAN2 = range(6, 18)

FUNCTION_NAMES: dict[int, str] = {
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
OP_NAMES: dict[int, str] = {SYM: "sym", NUM: "num", ADD: "add", MUL: "mul", NEG: "neg", POW: "pow"}
OP_NAMES.update(FUNCTION_NAMES)

#: the numbers a node can hold: exact (int, Fraction) or floating point
Number: TypeAlias = int | float | Fraction

_ids = itertools.count()


class Expr:
    """A node of the expression DAG (an atom when it is not a leaf).

    Use the arithmetic operators or the constructor functions to build new nodes;
    never instantiate this class directly.

    Attributes:
        op: operation code (``SYM``, ``NUM``, ``ADD``, ...).
        args: child nodes.
        id: creation index; children always have smaller ids than parents.
        mask: bit set of the symbols the node depends on.
        ctx: the :class:`Context` whose table holds the node (``None`` for numbers).
        name: symbol name (symbols only, ``None`` otherwise).
        value: the :data:`Number` of a number node; the model object that owns a
            symbol (a parameter, coordinate or input), or ``None``.
        kind: symbol kind string (symbols only), e.g. ``"coordinate"``.

    Example:
        >>> ctx = Context()
        >>> x, y = ctx.symbol("x"), ctx.symbol("y")
        >>> e = 2 * x * y
        >>> e.op == MUL, e.args[0] == 2, e.depends_on(y), (x / 2).diff(x)
        (True, True, True, 1/2)
    """

    __slots__ = ("op", "args", "id", "mask", "ctx", "name", "value", "kind", "__weakref__")

    op: int
    args: tuple[Expr, ...]
    id: int
    mask: int
    ctx: Context | None
    name: str | None
    # A Number when op == NUM, the owning model object of a symbol otherwise: the model layer
    # stores its parameter/coordinate/input objects here, so the slot cannot be narrower.
    value: Any
    kind: str | None

    # -- identity semantics ------------------------------------------------
    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Expr):
            return self is other
        if isinstance(other, (int, float, Fraction)):
            return self.op == NUM and self.value == other
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    # -- arithmetic (the constructors live in symbolic.arithmetic) ----------
    def _coerce(self, other: object) -> Expr:
        return as_expr(other, self.ctx)

    def __add__(self, other: object) -> Expr:
        return arithmetic.add(self, self._coerce(other))

    def __radd__(self, other: object) -> Expr:
        return arithmetic.add(self._coerce(other), self)

    def __sub__(self, other: object) -> Expr:
        return arithmetic.sub(self, self._coerce(other))

    def __rsub__(self, other: object) -> Expr:
        return arithmetic.sub(self._coerce(other), self)

    def __mul__(self, other: object) -> Expr:
        return arithmetic.mul(self, self._coerce(other))

    def __rmul__(self, other: object) -> Expr:
        return arithmetic.mul(self._coerce(other), self)

    def __truediv__(self, other: object) -> Expr:
        return arithmetic.div(self, self._coerce(other))

    def __rtruediv__(self, other: object) -> Expr:
        return arithmetic.div(self._coerce(other), self)

    def __neg__(self) -> Expr:
        return arithmetic.neg(self)

    def __pos__(self) -> Expr:
        return self

    def __pow__(self, n: object) -> Expr:
        if isinstance(n, Expr):
            if n.op != NUM:
                raise TypeError("symbody supports only numeric exponents; use exp/log")
            n = n.value
        return arithmetic.pow_(self, as_number(n))

    def __rpow__(self, base: object) -> Expr:
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

    def sympy(self) -> SympyExpr:
        """Return the (de-atomized) SymPy expression of this node.

        Example:
            >>> x = Context().symbol("x")
            >>> (x * x + 1).sympy()
            x**2 + 1
        """
        from .sympy_bridge import to_sympy

        return to_sympy(self)

    def _sympy_(self) -> SympyExpr:  # pragma: no cover - used only by explicit sympify()
        return self.sympy()

    def _repr_latex_(self) -> str:
        import sympy

        return "$" + str(sympy.latex(self.sympy())) + "$"

    # -- convenience -------------------------------------------------------
    @property
    def is_number(self) -> bool:
        """True for a number node.

        Example:
            >>> x = Context().symbol("x")
            >>> num(2).is_number, x.is_number, x.is_symbol, (x - x).is_zero
            (True, False, True, True)
        """
        return self.op == NUM

    @property
    def is_symbol(self) -> bool:
        """True for a symbol (leaf that is not a number)."""
        return self.op == SYM

    @property
    def is_zero(self) -> bool:
        """True for the number zero."""
        return self.op == NUM and self.value == 0

    def depends_on(self, symbol: Expr) -> bool:
        """True if the node depends on ``symbol`` (structurally).

        Example:
            >>> ctx = Context(); x, y = ctx.symbol("x"), ctx.symbol("y")
            >>> (x * y).depends_on(x), (x - x).depends_on(x)
            (True, False)
        """
        return bool(self.mask & symbol.mask)

    def diff(self, symbol: Expr) -> Expr:
        """Partial derivative with respect to a symbol (works on atoms, no expansion).

        Example:
            >>> x = Context().symbol("x")
            >>> (x ** 3).diff(x)
            3*x**2
        """
        from .calculus import diff

        return diff(self, symbol)

    def subs(self, mapping: dict[Expr, object]) -> Expr:
        """Substitute symbols by expressions (or numbers).

        Example:
            >>> ctx = Context(); x, y = ctx.symbol("x"), ctx.symbol("y")
            >>> (x * y + x).subs({x: 2})
            2 + 2*y
        """
        from .calculus import subs

        return subs(self, mapping)


def symbol_name(e: Expr) -> str:
    """The name of the symbol ``e``; a ``TypeError`` for any other node.

    Example:
        >>> x = Context().symbol("x")
        >>> symbol_name(x)
        'x'
        >>> symbol_name(x + 1)
        Traceback (most recent call last):
        ...
        TypeError: 1 + x is not a symbol
    """
    if e.name is None:
        raise TypeError(f"{e} is not a symbol")
    return e.name


def new_node(ctx: Context | None, op: int, args: tuple[Expr, ...], mask: int) -> Expr:
    """A fresh node (not entered in any table): for the constructors of the algebra core only."""
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

    Example:
        >>> ctx = Context()
        >>> x = ctx.symbol("x", kind="coordinate")
        >>> e = (x + 1) * (x + 1)
        >>> ctx.by_name["x"] is x, x.kind, ctx.n_atoms
        (True, 'coordinate', 2)
    """

    def __init__(self) -> None:
        self.table: dict[tuple[object, ...], Expr] = {}
        self.symbols: list[Expr] = []
        self.by_name: dict[str, Expr] = {}
        # caches used by symbolic.calculus
        self.diff_cache: dict[Expr, dict[Expr, Expr]] = {}
        self.dt_cache: dict[bool, dict[Expr, Expr]] = {True: {}, False: {}}
        self.time_rates: dict[Expr, tuple[Expr | None, Expr | None]] = {}
        self.dt_masks: dict[bool, int] = {}

    def symbol(self, name: str, kind: str = "symbol", owner: object = None) -> Expr:
        """Create a new symbol (leaf) with its own dependency bit.

        Example:
            >>> ctx = Context()
            >>> ctx.symbol("m", kind="parameter").kind
            'parameter'
            >>> ctx.symbol("m")
            Traceback (most recent call last):
            ...
            ValueError: symbol 'm' already exists
        """
        if name in self.by_name:
            raise ValueError(f"symbol {name!r} already exists")
        e = new_node(self, SYM, (), 1 << len(self.symbols))
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
        """Number of atoms (non-leaf nodes) created so far.

        Example:
            >>> ctx = Context(); x = ctx.symbol("x")
            >>> _ = [x + 1, x + 1, 1 + x]
            >>> ctx.n_atoms
            1
        """
        return len(self.table)


def unary_atom(op: int, a: Expr) -> Expr:
    """The one node ``op(a)`` of the context table of ``a`` (created on first use).

    For the constructors of the algebra core, which fold numbers and canonicalize first.

    Example:
        >>> x = Context().symbol("x")
        >>> unary_atom(NEG, x) is -x
        True
    """
    ctx = a.ctx
    if ctx is None:  # pragma: no cover - functions of numbers are always folded
        raise AssertionError("numeric operands must be folded")
    key = (op, a)
    e = ctx.table.get(key)
    if e is None:
        e = new_node(ctx, op, (a,), a.mask)
        ctx.table[key] = e
    return e


def binary_atom(op: int, a: Expr, b: Expr) -> Expr:
    """The one node ``op(a, b)`` of the context table (created on first use).

    For the constructors of the algebra core, which fold numbers and order operands first.

    Example:
        >>> x, y = (Context().symbol(n) for n in "xy")
        >>> binary_atom(ADD, x, y) is x + y
        True
    """
    ctx = a.ctx if a.ctx is not None else b.ctx
    if ctx is None:  # pragma: no cover - both numbers are always folded
        raise AssertionError("numeric operands must be folded")
    key = (op, a, b)
    e = ctx.table.get(key)
    if e is None:
        e = new_node(ctx, op, (a, b), a.mask | b.mask)
        ctx.table[key] = e
    return e


# ---------------------------------------------------------------------------
# numbers
# ---------------------------------------------------------------------------
_NUMS: dict[tuple[bool, Number], Expr] = {}


def as_number(v: object) -> Number:
    """``v`` as the exact or float :data:`Number` a node stores (integral floats become ints).

    Example:
        >>> as_number(2.0), as_number(Fraction(4, 2)), as_number(True), as_number(0.5)
        (2, 2, 1, 0.5)
    """
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
        f = float(v)  # type: ignore[arg-type]  # anything with __float__; the rest is refused below
    except (TypeError, ValueError):
        raise TypeError(f"not a number: {v!r}") from None
    return as_number(f)


def num(v: object) -> Expr:
    """The (shared) node of a numeric constant.

    Exact numbers (int, Fraction) and floats are kept apart even when equal in value
    (``Fraction(1, 4) == 0.25``), so that exact arithmetic stays exact whatever ran before.
    An infinite or NaN number is refused (:class:`~symbody.errors.ModelError`), also when
    it comes out of folding finite ones: no model expression may hold one, it would reach
    the generated code and every result silently.

    Example:
        >>> num(3) is num(3.0), num(Fraction(1, 4)) is num(0.25)
        (True, False)
        >>> num(1e308) * 10
        Traceback (most recent call last):
        ...
        symbody.errors.ModelError: the number inf is not finite and cannot be part of a model expression
    """
    n = as_number(v)
    key = (isinstance(n, float), n)
    e = _NUMS.get(key)
    if e is None:
        _finite(n)
        e = new_node(None, NUM, (), 0)
        e.value = n
        _NUMS[key] = e
    return e


def _finite(v: Number) -> None:
    """Refuse an infinite or NaN number."""
    if isinstance(v, float) and not math.isfinite(v):
        raise ModelError(f"the number {v} is not finite and cannot be part of a model expression")


ZERO = num(0)
ONE = num(1)
TWO = num(2)
MINUS_ONE = num(-1)
HALF = num(Fraction(1, 2))
PI = num(math.pi)


def as_expr(x: object, ctx: Context | None = None) -> Expr:
    """Convert a number, an :class:`Expr` or a SymPy expression to an :class:`Expr`.

    SymPy symbols are resolved by name in ``ctx``.

    Example:
        >>> import sympy
        >>> ctx = Context(); x = ctx.symbol("x")
        >>> as_expr(2), as_expr(sympy.Symbol("x") / 2, ctx) is x / 2
        (2, True)
    """
    if isinstance(x, Expr):
        return x
    if isinstance(x, (int, float, Fraction, bool)):
        return num(x)
    mod = type(x).__module__
    if mod.startswith("sympy"):
        from .sympy_bridge import from_sympy

        return from_sympy(x, ctx)
    if mod.startswith("numpy"):
        return num(float(x))  # type: ignore[arg-type]  # a numpy scalar
    raise TypeError(f"cannot use {x!r} (type {type(x).__name__}) in a symbody expression")


# The operators of Expr build their nodes with the constructors, which need the classes above.
from . import arithmetic  # noqa: E402
