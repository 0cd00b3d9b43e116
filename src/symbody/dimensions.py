"""Dimensional analysis of derived equations, where units are given.

Every symbol with a unit (parameters, coordinates and their derivatives,
inputs, time) gets its SI dimension; symbols without a unit are unknown and
make the expressions that use them unknown too, so models that give no units
are never rejected.  Sums must add terms of the same dimension, arguments of
``sin``, ``exp``, ``log``... must be dimensionless (radians count as
dimensionless) and ``atan2`` needs both arguments in the same dimension.
Numbers are dimensionless factors; as terms of a sum they match anything.

Example:
    >>> import symbody as sb
    >>> s = sb.System("u")
    >>> m = s.parameter("m", 1.0, unit="kg"); x = s.coordinate("x", unit="m")
    >>> _ = s.particle("p", s.point("P", s.origin, (x, 0, 0)), m)
    >>> _ = s.generalized_force("push", x, s.input("F", unit="N") + m)
    >>> try:
    ...     s.derive()
    ... except sb.ModelError as e:
    ...     print(e)
    unit mismatch in the equation of coordinate 'x': m + F adds kg and kg*m/s2 (N)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol, TypeGuard

from .errors import ModelError
from .symbolic.expr import ABS, ADD, ATAN2, MUL, NEG, NUM, POW, SIGN, SYM, Expr, free_symbols
from .symbolic.printing import to_str
from .units import base_units, check_unit


class CheckedEquations(Protocol):
    """What the checks read of :class:`symbody.Equations` (this module sits below it and does not import it).

    The records (``parameters``, ``inputs``, ``coordinates``, ``outputs``, the rows) are those of
    :mod:`symbody.derive.records`: each has a ``name`` and a ``unit`` or a ``symbol`` / ``expr``.
    """

    t: Expr
    parameters: Sequence[Any]
    inputs: Sequence[Any]
    coordinates: Sequence[Any]
    outputs: Sequence[Any]
    states: Sequence[Any]
    rates: list[Expr]
    constraint_rows: Sequence[Any]
    initial_rows: Sequence[Any]
    M: list[list[Expr]]
    delta: list[Expr]
    Phi: list[Expr]
    beta: list[Expr]
    gamma: list[Expr]
    Phi_init: list[Expr]

    @property
    def nq(self) -> int: ...

    @property
    def nh(self) -> int: ...


Dim = tuple  # sorted tuple of (base, Fraction exponent); () is dimensionless

_UNKNOWN = None
_WILD = "wild"  # a number in a sum: matches any dimension
_BASES = ("kg", "m", "s", "A", "K", "mol", "cd")


def parse_scale(unit: str | None) -> float | None:
    """Factor of a unit to SI (``mm`` -> 0.001, ``deg`` -> pi/180; ``None`` when no unit)."""
    if unit is None or unit == "":
        return None
    parsed = base_units(unit)
    return None if parsed is None else parsed[1]


def _same_scale(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def parse_dimension(unit: str | None) -> Dim | None:
    """SI dimension of a unit string (``None`` when no unit or not understood)."""
    if unit is None or unit == "":
        return None
    parsed = base_units(unit)
    if parsed is None:
        return None
    exps, _ = parsed
    return tuple(sorted((b, Fraction(e)) for b, e in exps.items() if b in _BASES and e != 0))


def _mul(a: Dim, b: Dim, k: Fraction = Fraction(1)) -> Dim:
    d = dict(a)
    for base, e in b:
        d[base] = d.get(base, Fraction(0)) + k * e
    return tuple(sorted((base, e) for base, e in d.items() if e != 0))


def _pow(a: Dim, n) -> Dim:
    k = Fraction(n).limit_denominator(1000) if not isinstance(n, (int, Fraction)) else Fraction(n)
    return tuple(sorted((b, e * k) for b, e in a if e * k != 0))


_NAMED = {
    "kg*m/s2": "N",
    "kg*m2/s2": "N*m",
    "kg/m*s2": "Pa",
    "kg*m2/s3": "W",
}


def format_dimension(d: Dim) -> str:
    """Readable form of a dimension: ``kg*m/s2 (N)``."""
    if d == ():
        return "1"
    num = [f"{b}{'' if e == 1 else e}" for b, e in d if e > 0]
    den = [f"{b}{'' if e == -1 else -e}" for b, e in d if e < 0]
    s = "*".join(num) or "1"
    if den:
        s += "/" + "*".join(den)
    name = _NAMED.get(s)
    return f"{s} ({name})" if name else s


class DimensionChecker:
    """Infers dimensions of atoms and reports the first inconsistent sum or function argument."""

    def __init__(self, eq: CheckedEquations):
        # a Dim, _UNKNOWN (None) or _WILD (a number: any dimension); a float scale, _UNKNOWN or _WILD
        self.dims: dict[Expr, Any] = {}
        self.scales: dict[Expr, Any] = {}
        sym_dims: dict[Expr, Dim | None] = {eq.t: (("s", Fraction(1)),)}
        sym_scales: dict[Expr, float | None] = {eq.t: 1.0}
        self.units: dict[Expr, str] = {}
        sec = (("s", Fraction(1)),)
        for p in eq.parameters:
            sym_dims[p.symbol], sym_scales[p.symbol] = parse_dimension(p.unit), parse_scale(p.unit)
            self.units[p.symbol] = p.unit or ""
        for u in list(eq.inputs) + list(eq.states):
            sym_dims[u.symbol], sym_scales[u.symbol] = parse_dimension(u.unit), parse_scale(u.unit)
            self.units[u.symbol] = u.unit or ""
        for c in eq.coordinates:
            d, k = parse_dimension(c.unit), parse_scale(c.unit)
            sym_dims[c.q] = d
            sym_dims[c.dq] = None if d is None else _mul(d, sec, Fraction(-1))
            sym_dims[c.ddq] = None if d is None else _mul(d, sec, Fraction(-2))
            for sym in (c.q, c.dq, c.ddq):
                sym_scales[sym] = k
                self.units[sym] = c.unit or ""
        self.sym_dims = sym_dims
        self.sym_scales = sym_scales

    def dim(self, e: Expr):
        """Dimension of ``e``: a tuple, ``None`` (unknown) or raises ``_Mismatch``."""
        r = self.dims.get(e, 0)
        if r != 0:
            return r
        # iterative post-order to avoid deep recursion
        stack = [e]
        while stack:
            x = stack[-1]
            if x in self.dims:
                stack.pop()
                continue
            pending = [a for a in x.args if a not in self.dims]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            self.dims[x] = self._node(x)
            self.scales[x] = self._scale(x)
        return self.dims[e]

    def is_number(self, e: Expr) -> bool:
        """True if ``e`` is made of numbers only (no unit: it matches any in a sum)."""
        try:
            return self.dim(e) == _WILD
        except _Mismatch:
            return False

    def known(self, e: Expr) -> Dim | None:
        """The dimension of ``e`` when it is consistent and known (not numbers only), else ``None``."""
        try:
            d = self.dim(e)
        except _Mismatch:
            return None
        return None if d is _UNKNOWN or d == _WILD else d

    def problem(self, e: Expr, want: Dim | None = None) -> str | None:
        """Why ``e`` is not consistent, or not in ``want``; ``None`` when it is (or cannot be known).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("d"); x = s.coordinate("x", unit="m"); T = s.parameter("T", 1.0, unit="s")
            >>> _ = s.particle("p", s.point("P", s.origin, (x, 0, 0)), s.parameter("m", 1.0, unit="kg"))
            >>> chk = DimensionChecker(s.derive())
            >>> chk.problem(x + T), chk.problem(x, parse_dimension("s")), chk.problem(x + 2.0, parse_dimension("m"))
            ('adds m and s', 'is in m, not s', None)
        """
        try:
            got = self.dim(e)
        except _Mismatch as m:
            return m.what.split("; ")[0]
        if want is None or got is _UNKNOWN or got == _WILD or got == want:
            return None
        return f"is in {format_dimension(got)}, not {format_dimension(want)}"

    def _scale(self, x: Expr):
        """Factor to SI of ``x`` in the units the model declares (``None`` unknown, ``_WILD`` a number).

        The equations are evaluated as written, so every term of a sum and every
        argument of a function must be in the same scale: ``mm`` added to ``m``, or the
        sine of an angle in ``deg``, would be silently wrong.
        """
        op = x.op
        if op == NUM:
            return _WILD
        if op == SYM:
            return self.sym_scales.get(x)
        args = [self.scales[a] for a in x.args]
        if op in (NEG, ABS):
            return args[0]
        if op == ADD:
            a, b = args
            if a is _UNKNOWN or b is _UNKNOWN:
                return _UNKNOWN
            if a is _WILD or b is _WILD:
                return b if a is _WILD else a
            if not _same_scale(a, b):
                raise _Mismatch(
                    x,
                    f"adds terms in different units ({self._unit_of(x.args[0])} and"
                    f" {self._unit_of(x.args[1])}): use the same unit for all of them",
                )
            return a
        if op == MUL:
            a, b = args
            if a is _UNKNOWN or b is _UNKNOWN:
                return _UNKNOWN
            return (1.0 if a is _WILD else a) * (1.0 if b is _WILD else b)
        if op == POW:
            a = args[0]
            return a if a in (_UNKNOWN, _WILD) else a ** float(x.args[1].value)
        if op == SIGN:
            return 1.0
        for a, arg in zip(args, x.args):
            if a not in (_UNKNOWN, _WILD) and not _same_scale(a, 1.0):
                raise _Mismatch(
                    x,
                    f"takes the function of an argument in {self._unit_of(arg)}, which is"
                    " not an SI unit: functions take radians and SI values",
                )
        return 1.0

    def _unit_of(self, e: Expr) -> str:
        """The declared units of the symbols of ``e`` with a non-SI scale, for messages."""
        units = sorted({self.units[s] for s in free_symbols([e]) if s in self.units and self.units[s]})
        odd = [u for u in units if (parse_scale(u) or 1.0) != 1.0]
        return ", ".join(repr(u) for u in (odd or units)) or "numbers"

    def _node(self, x: Expr):
        op = x.op
        if op == NUM:
            return _WILD
        if op == SYM:
            return self.sym_dims.get(x)
        args = [self.dims[a] for a in x.args]
        if op == NEG or op == ABS:
            return args[0]
        if op == ADD:
            a, b = args
            if a is _UNKNOWN or b is _UNKNOWN:
                return _UNKNOWN
            if a == _WILD:
                return b
            if b == _WILD or a == b:
                return a
            what = f"adds {format_dimension(a)} and {format_dimension(b)}"
            raise _Mismatch(x, what + _bare_number_hint(x.args[0], a, x.args[1], b))
        if op == MUL:
            a, b = args
            if a is _UNKNOWN or b is _UNKNOWN:
                return _UNKNOWN
            a = () if a == _WILD else a
            b = () if b == _WILD else b
            return _mul(a, b)
        if op == POW:
            a = args[0]
            if a is _UNKNOWN:
                return _UNKNOWN
            return () if a == _WILD else _pow(a, x.args[1].value)
        if op == SIGN:
            return ()
        if op == ATAN2:
            a, b = args
            if a not in (_UNKNOWN, _WILD) and b not in (_UNKNOWN, _WILD) and a != b:
                raise _Mismatch(x, f"compares {format_dimension(a)} with {format_dimension(b)}")
            return ()
        # functions of one argument: the argument must be dimensionless
        a = args[0]
        if a not in (_UNKNOWN, _WILD, ()):
            raise _Mismatch(x, f"takes the function of an argument in {format_dimension(a)}")
        return ()


def _bare_number(side: Expr) -> tuple[Expr, object] | None:
    """The first term of ``side`` with a number other than 1 as a factor, and that number."""
    for term in _terms(side):
        value = next((f.value for f in _factors(term) if f.op == NUM and abs(f.value) != 1), None)
        if value is not None:
            return term, value
    return None


def measured_factor(e: Expr) -> float | None:
    """The first floating-point factor other than 1 of a term of ``e`` (a constant given without unit), or None.

    Example:
        >>> from symbody.symbolic.atoms import Context
        >>> x = Context().symbol("x")
        >>> measured_factor(x - 0.5 * x**2), measured_factor(x / 2)
        (0.5, None)
    """
    for term in _terms(e):
        for f in _factors(term):
            if f.op == NUM and isinstance(f.value, float) and abs(f.value) != 1:
                return abs(f.value)
    return None


def _measured_number(e: Expr) -> bool:
    """True if a term of ``e`` has a floating-point factor other than 1 (a constant given without unit)."""
    return measured_factor(e) is not None


def _bare_number_hint(a: Expr, dim_a: Dim, b: Expr, dim_b: Dim) -> str:
    """A hint when the sum ``a + b`` fails because of a number written without its unit.

    A damping coefficient written as ``0.5 * dtheta`` has no unit: the hint names the
    term and, when only one side holds such a number, the unit a parameter in its
    place would need.
    """
    found_a, found_b = _bare_number(a), _bare_number(b)
    if found_a and found_b:
        terms = " and ".join(f"{to_str(t, max_nodes=30)} ({v})" for t, v in (found_a, found_b))
        return (
            f"; the terms {terms} hold bare numbers, and numbers carry no unit: declare them as parameters"
            " with units, e.g. s.parameter('c', value, unit=...)"
        )
    found = found_a or found_b
    if found is None:
        return ""
    term, value = found
    unit = unit_text(_mul(dim_b, dim_a, Fraction(-1)) if found_a else _mul(dim_a, dim_b, Fraction(-1)))
    return (
        f"; the term {to_str(term, max_nodes=30)} has the bare number {value} as a factor, and numbers"
        f" carry no unit: declare it as a parameter with one, e.g. s.parameter('c', {value}, unit={unit!r})"
    )


def _flatten(e: Expr, op: int) -> list[Expr]:
    """The operands of a chain of ``op`` nodes (through negations), each node once, in order."""
    out, seen, stack = [], set(), [e]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if x.op == op:
            stack.extend(reversed(x.args))
        elif x.op == NEG:
            stack.append(x.args[0])
        else:
            out.append(x)
    return out


def _terms(e: Expr) -> list[Expr]:
    """The terms of a sum (through additions and negations), each node once."""
    return _flatten(e, ADD)


def _factors(e: Expr) -> list[Expr]:
    """The factors of a product (through multiplications and negations), each node once."""
    return _flatten(e, MUL)


def unit_text(d: Dim) -> str:
    """A unit string of :mod:`symbody.units` for a dimension: ``kg*m2/s``, ``1/s``, ``kg/m/s2``.

    Example:
        >>> unit_text(parse_dimension("Pa"))
        'kg/m/s2'
    """
    num = [f"{b}{'' if e == 1 else e}" for b, e in d if e > 0]
    den = [f"/{b}{'' if e == -1 else -e}" for b, e in d if e < 0]
    return ("*".join(num) or "1") + "".join(den)


class _Mismatch(Exception):
    def __init__(self, node: Expr, what: str):
        super().__init__(what)
        self.node = node
        self.what = what


class UnitMismatch(ModelError):
    """A derived equation is not dimensionally consistent.

    Attributes:
        where: the expression checked (``"the equation of coordinate 'theta'"``, ``"output 'y'"``).
        what: what is wrong with it (``"adds m/s and 1/s"``, with a hint about bare numbers).
    """

    def __init__(self, message: str, where: str, what: str):
        super().__init__(message)
        self.where = where
        self.what = what


def check_dimensions(eq: CheckedEquations) -> None:
    """Raise :class:`ModelError` at the first dimensionally inconsistent expression of ``eq``."""
    # units are checked where they are declared; a record changed afterwards is caught here
    for kind, records in (
        ("parameter", eq.parameters),
        ("coordinate", eq.coordinates),
        ("input", eq.inputs),
        ("state", eq.states),
        ("output", eq.outputs),
    ):
        for r in records:
            check_unit(r.unit, f"{kind} {r.name!r}")
    chk = DimensionChecker(eq)
    items: list[tuple[str, Expr]] = []
    for i, c in enumerate(eq.coordinates):
        items.append((f"the equation of coordinate {c.name!r}", eq.delta[i]))
        for j in range(i, eq.nq):
            items.append((f"the mass matrix entry ({c.name}, {eq.coordinates[j].name})", eq.M[i][j]))
    for k, row in enumerate(eq.constraint_rows):
        items.append((f"constraint {row.name!r}", eq.Phi[k] if k < eq.nh else eq.beta[k]))
        items.append((f"the acceleration equation of constraint {row.name!r}", eq.gamma[k]))
    for k, row in enumerate(eq.initial_rows):
        items.append((f"initial condition {row.name!r}", eq.Phi_init[eq.nh + k]))
    for o in eq.outputs:
        items.append((f"output {o.name!r}", o.expr))
    for x, r in zip(eq.states, eq.rates):
        items.append((f"the rate of state {x.name!r}", r))
    for what, e in items:
        try:
            chk.dim(e)
        except _Mismatch as m:
            text = f"unit mismatch in {what}: {to_str(m.node, max_nodes=60)} {m.what}"
            raise UnitMismatch(text, what, m.what) from None
    _check_balance(chk, eq)
    for o in eq.outputs:
        _check_declared_unit(chk, o)
    for x, r in zip(eq.states, eq.rates):
        _check_declared_unit(chk, _Declared(f"the rate of state {x.name!r}", r, x.rate_unit))


@dataclass(frozen=True)
class _Declared:
    """An expression with a declared unit, checked like an output (the rate of a state: its unit per second)."""

    name: str
    expr: Expr
    unit: str | None


def _known(x: Any) -> TypeGuard[Any]:
    """A dimension or scale that is known: neither unknown nor a bare number's wildcard."""
    return x is not _UNKNOWN and x is not _WILD


def _check_balance(chk: DimensionChecker, eq: CheckedEquations) -> None:
    """``M ddq = delta``: every ``M[i][j] ddq[j]`` must be in the unit (and scale) of ``delta[i]``.

    An entry with a floating-point factor (``9.81 * m`` from gravity given as numbers)
    has no reliable unit and is not compared; exact factors (``m l**2 / 12``) are
    mathematical constants and are.
    """
    for i, c in enumerate(eq.coordinates):
        if _measured_number(eq.delta[i]):
            continue
        want, want_k = chk.dims.get(eq.delta[i]), chk.scales.get(eq.delta[i])
        for j, cj in enumerate(eq.coordinates):
            if _measured_number(eq.M[i][j]):
                continue
            m, m_k = chk.dims.get(eq.M[i][j]), chk.scales.get(eq.M[i][j])
            a, a_k = chk.sym_dims.get(cj.ddq), chk.sym_scales.get(cj.ddq)
            if not (_known(want) and _known(m) and a is not None):
                continue
            got = _mul(m, a)
            where = f"unit mismatch in the equation of coordinate {c.name!r}: M({c.name}, {cj.name}) dd{cj.name}"
            if got != want:
                what = f"is in {format_dimension(got)} but the generalized force is in {format_dimension(want)}"
                raise UnitMismatch(f"{where} {what}", f"the equation of coordinate {c.name!r}", what)
            if _known(want_k) and _known(m_k) and a_k is not None and not _same_scale(m_k * a_k, want_k):
                raise ModelError(
                    f"{where} and the generalized force differ by a factor {want_k / (m_k * a_k):g}: the"
                    f" model mixes units of different scale ({chk._unit_of(eq.M[i][j])},"
                    f" {chk._unit_of(eq.delta[i])}); use one unit per quantity (SI: m, kg, s, rad)"
                )


def _check_declared_unit(chk: DimensionChecker, o) -> None:
    """An output whose unit is declared must be in that unit (an FMU importer trusts the label)."""
    want, scale = parse_dimension(o.unit), parse_scale(o.unit)
    got, got_scale = chk.dims.get(o.expr), chk.scales.get(o.expr)
    if want is None or got in (_UNKNOWN, _WILD):
        return
    what = o.name if isinstance(o, _Declared) else f"output {o.name!r}"
    if got != want:
        raise ModelError(
            f"{what} is declared in {o.unit!r} ({format_dimension(want)}) but its expression"
            f" {to_str(o.expr, max_nodes=30)} is in {format_dimension(got)}"
        )
    if got_scale not in (_UNKNOWN, _WILD) and scale is not None and not _same_scale(got_scale, scale):
        raise ModelError(
            f"{what} is declared in {o.unit!r} but its expression {to_str(o.expr, max_nodes=30)}"
            f" is {got_scale / scale:g} times that unit: the equations do not convert units"
        )
