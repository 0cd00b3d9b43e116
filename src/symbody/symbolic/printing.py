"""Infix printers for expression nodes: plain text, Python (``math``) and C.

A printer turns a node into source text.  Nodes listed in ``names`` (symbols,
and the temporaries chosen by the code emitter) are printed by name; every other
node is printed inline.  Negations are folded into subtractions where possible
so that ``-(1 - x)`` prints as ``x - 1``.

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> ctx = Context(); x = ctx.symbol("x"); y = ctx.symbol("y")
    >>> PythonPrinter().expr(sin(x) * y - 2 * x, {x: "x", y: "y"})
    'y*math.sin(x) - 2*x'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

from .atoms import (
    ABS,
    ADD,
    ATAN2,
    FUNCTION_NAMES,
    MUL,
    NEG,
    NUM,
    POW,
    SIGN,
    SYM,
    Expr,
    Number,
    symbol_name,
)
from .walks import walk

#: the nodes printed by a name instead of inline (symbols, temporaries of emitted code)
Names = Mapping[Expr, str]

_P_ADD, _P_MUL, _P_NEG, _P_POW, _P_ATOM = 1, 2, 3, 4, 5


class Printer:
    """Base infix printer (plain text).

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> ctx = Context(); x = ctx.symbol("x")
        >>> Printer().expr((1 - x) / (x + 2), {})
        '(1 - x)/(2 + x)'
    """

    func_prefix = ""
    pow_op = "**"
    mul_op = "*"
    div_op = "/"
    func_names = dict(FUNCTION_NAMES)

    def number(self, v: Number) -> str:
        """Source text of a number.

        Example:
            >>> Printer().number(Fraction(1, 3)), Printer().number(0.5)
            ('1/3', '0.5')
        """
        if isinstance(v, int):
            return str(v)
        if isinstance(v, Fraction):
            return f"{v.numerator}/{v.denominator}"
        return repr(float(v))

    def _num_prec(self, v: Number) -> int:
        if v < 0:
            return _P_NEG
        if isinstance(v, Fraction):
            return _P_MUL
        return _P_ATOM

    def func(self, name: str, args: list[str]) -> str:
        """A call of the function ``name``."""
        return f"{self.func_prefix}{name}({', '.join(args)})"

    def power(self, base: str, base_prec: int, n: Number) -> tuple[str, int]:
        """``base`` (printed with precedence ``base_prec``) to the power ``n``, and its precedence."""
        if n == Fraction(1, 2):
            return self.func("sqrt", [base]), _P_ATOM
        if base_prec <= _P_POW:
            base = f"({base})"
        ns = self.number(n)
        if not isinstance(n, int) or n < 0:
            ns = f"({ns})"
        return f"{base}{self.pow_op}{ns}", _P_POW

    def expr(self, e: Expr, names: Names) -> str:
        """Source text of ``e``, printing nodes of ``names`` by their name.

        Example:
            >>> from symbody.symbolic.atoms import Context
            >>> x = Context().symbol("x")
            >>> t = x * x + 1
            >>> Printer().expr(t / x, {t: "_t0"}), Printer().expr(-(1 - x), {})
            ('_t0/x', 'x - 1')
        """
        return self._p(e, names)[0]

    # -- recursive printer returning (text, precedence) --------------------
    def _p(self, e: Expr, names: Names) -> tuple[str, int]:
        n = names.get(e)
        if n is not None:
            return n, _P_ATOM
        op = e.op
        if op == NUM:
            return self.number(e.value), self._num_prec(e.value)
        if op == SYM:
            return symbol_name(e), _P_ATOM
        if op == ADD:
            return self._add(e.args[0], e.args[1], names)
        if op == NEG:
            x = e.args[0]
            if x.op == ADD and x not in names and x.args[1].op == NEG and x.args[1] not in names:
                # -(p - q) = q - p
                return self._add(x.args[1].args[0], x.args[0], names, negate_second=True)
            s, p = self._p(x, names)
            if p < _P_MUL:
                s = f"({s})"
            return "-" + s, _P_NEG
        if op == MUL:
            return self._mul(e, names)
        if op == POW:
            base, nexp = e.args
            nv = nexp.value
            if nv == -1:
                s, p = self._p(base, names)
                if p < _P_ATOM:
                    s = f"({s})"
                return f"{self.one()}{self.div_op}{s}", _P_MUL
            s, p = self._p(base, names)
            return self.power(s, p, nv)
        if op == ATAN2:
            return self.func(self.func_names[ATAN2], [self.expr(a, names) for a in e.args]), _P_ATOM
        if op == SIGN:
            return self.sign(self.expr(e.args[0], names)), _P_ATOM
        if op == ABS:
            return self.func(self.abs_name(), [self.expr(e.args[0], names)]), _P_ATOM
        return self.func(self.func_names[op], [self.expr(e.args[0], names)]), _P_ATOM

    def one(self) -> str:
        """The numerator of a reciprocal ``1/x``."""
        return "1"

    def abs_name(self) -> str:
        """The name of the absolute value function."""
        return "abs"

    def sign(self, arg: str) -> str:
        """The sign function (-1, 0 or 1) of ``arg``."""
        return self.func("sign", [arg])

    def _add(self, a: Expr, b: Expr, names: Names, negate_second: bool = False) -> tuple[str, int]:
        sa, _ = self._p(a, names)
        if not negate_second and b not in names:
            if b.op == NEG:
                b, negate_second = b.args[0], True
            elif b.op == NUM and b.value < 0:
                return f"{sa} - {self.number(-b.value)}", _P_ADD
        sb, pb = self._p(b, names)
        if negate_second:
            if pb <= _P_ADD or pb == _P_NEG:
                sb = f"({sb})"
            return f"{sa} - {sb}", _P_ADD
        if pb == _P_NEG:
            sb = f"({sb})"
        return f"{sa} + {sb}", _P_ADD

    def _mul(self, e: Expr, names: Names) -> tuple[str, int]:
        a, b = e.args
        sa, pa = self._p(a, names)
        if pa < _P_MUL:
            sa = f"({sa})"
        # a * b**-k prints as a / b**k
        if b not in names and b.op == POW and b.args[1].value < 0:
            nv = -b.args[1].value
            if nv == 1:
                sd, pd = self._p(b.args[0], names)
            else:
                sd, pd = self.power(*self._p(b.args[0], names), nv)
            if pd <= _P_MUL:
                sd = f"({sd})"
            return f"{sa}{self.div_op}{sd}", _P_MUL
        sb, pb = self._p(b, names)
        if pb < _P_MUL or pb == _P_NEG:
            sb = f"({sb})"
        return f"{sa}{self.mul_op}{sb}", _P_MUL


class PythonPrinter(Printer):
    """Python source using the :mod:`math` module (scalar evaluation).

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> from symbody.symbolic.functions import sign
        >>> ctx = Context(); x = ctx.symbol("x")
        >>> PythonPrinter().expr(sign(x) * x / 3, {x: "q0"})
        '0.3333333333333333*q0*_sign(q0)'
    """

    func_prefix = "math."

    def number(self, v: Number) -> str:
        if isinstance(v, Fraction):
            return repr(v.numerator / v.denominator)
        if isinstance(v, float) and not math.isfinite(v):
            return f"float({str(v)!r})"
        return super().number(v)

    def _num_prec(self, v: Number) -> int:
        return _P_NEG if v < 0 else _P_ATOM

    def func(self, name: str, args: list[str]) -> str:
        """A call of ``math.name``, or of the builtin ``abs`` and the generated module's ``_sign``."""
        if name in ("abs",):
            return f"abs({', '.join(args)})"
        if name == "sign":
            return f"_sign({', '.join(args)})"
        return f"math.{name}({', '.join(args)})"


class CPrinter(Printer):
    """C99 source (``math.h``); all numbers are printed as doubles.

    C has no power operator: :meth:`power` writes products and ``pow``.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> from symbody.symbolic.functions import Abs
        >>> ctx = Context(); x = ctx.symbol("x")
        >>> CPrinter().expr(Abs(x) ** 1.5 + 1 / x + x**2, {x: "s_x"})
        'pow(fabs(s_x), 1.5) + 1.0/s_x + s_x*s_x'
    """

    func_names = dict(FUNCTION_NAMES)

    def number(self, v: Number) -> str:
        """A C double literal.

        Example:
            >>> CPrinter().number(Fraction(1, 4)), CPrinter().number(3)
            ('0.25', '3.0')
        """
        f = v.numerator / v.denominator if isinstance(v, Fraction) else float(v)
        if not math.isfinite(f):
            return "INFINITY" if f > 0 else ("-INFINITY" if f < 0 else "NAN")
        s = repr(f)
        if "e" in s or "." in s:
            return s
        return s + ".0"

    def _num_prec(self, v: Number) -> int:
        return _P_NEG if v < 0 else _P_ATOM

    def one(self) -> str:
        return "1.0"

    def abs_name(self) -> str:
        return "fabs"

    def sign(self, arg: str) -> str:
        return f"sb_sign({arg})"

    def func(self, name: str, args: list[str]) -> str:
        return f"{name}({', '.join(args)})"

    def power(self, base: str, base_prec: int, n: Number) -> tuple[str, int]:
        if n == Fraction(1, 2):
            return f"sqrt({base})", _P_ATOM
        if n == 2 and base_prec == _P_ATOM:
            return f"{base}*{base}", _P_MUL
        if n == 3 and base_prec == _P_ATOM:
            return f"{base}*{base}*{base}", _P_MUL
        return f"pow({base}, {self.number(float(n))})", _P_ATOM


class MatlabPrinter(Printer):
    """MATLAB / GNU Octave source: element-wise operators, full-precision numbers, core functions only.

    Every product, quotient and power is element-wise (``.*``, ``./``, ``.^``), so an expression
    means the same for scalars and arrays; numbers are printed by Python's round-trip
    representation (at most 17 significant digits), so MATLAB parses back the very same double.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> from symbody.symbolic.functions import Abs, atan2
        >>> ctx = Context(); x, y = ctx.symbol("x"), ctx.symbol("y")
        >>> MatlabPrinter().expr(Abs(x) ** 1.5 + 1 / x + x**2 - atan2(y, x) / 3, {x: "s_x", y: "s_y"})
        'abs(s_x).^1.5 + 1./s_x + s_x.^2 - 0.3333333333333333.*atan2(s_y, s_x)'
    """

    pow_op = ".^"
    mul_op = ".*"
    div_op = "./"

    def number(self, v: Number) -> str:
        """A MATLAB double literal that parses back to the same double (``Inf``, ``NaN`` by name).

        Example:
            >>> MatlabPrinter().number(Fraction(1, 3)), MatlabPrinter().number(2), MatlabPrinter().number(-float('inf'))
            ('0.3333333333333333', '2', '-Inf')
        """
        f = v.numerator / v.denominator if isinstance(v, Fraction) else float(v)
        if not math.isfinite(f):
            return "NaN" if f != f else ("Inf" if f > 0 else "-Inf")
        s = repr(f)
        return s[:-2] if s.endswith(".0") else s

    def _num_prec(self, v: Number) -> int:
        return _P_NEG if v < 0 else _P_ATOM

    def func(self, name: str, args: list[str]) -> str:
        return f"{name}({', '.join(args)})"

    def power(self, base: str, base_prec: int, n: Number) -> tuple[str, int]:
        if n == Fraction(1, 2):
            return f"sqrt({base})", _P_ATOM
        if base_prec <= _P_POW:
            base = f"({base})"
        ns = self.number(n)
        return f"{base}.^{f'({ns})' if n < 0 else ns}", _P_POW


_TEXT = Printer()


def to_str(e: Expr, max_nodes: int = 400) -> str:
    """Readable text of an expression (large expressions show their atoms as ``a<id>``).

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x = Context().symbol("x")
        >>> to_str((x + 1) ** 2)
        '(1 + x)**2'
        >>> to_str((x + 1) ** 2, max_nodes=2).startswith("a")
        True
    """
    nodes = walk([e])
    if len(nodes) <= max_nodes:
        return _TEXT.expr(e, {})
    # keep children of the root readable, name deeper atoms
    names = {n: f"a{n.id}" for n in nodes if n.op not in (SYM, NUM) and n is not e}
    return _TEXT.expr(e, names)
