"""MATLAB / GNU Octave code generation for atomized blocks.

:func:`matlab_statements` writes the body of one ``.m`` function that evaluates
several arrays sharing their temporaries: the
:class:`~symbody.symbolic.plan.ExportPlan` of the arrays' entries, made exactly as
for the C export (:func:`symbody.codegen.c.c_function`: the same expressions in the
same order, ``trig="expand"``), decides which atoms become temporaries (atoms used
more than once, in dependency order) and which are inlined, so the ``.m`` code
has the operation count of the C code.  Every array is allocated with ``zeros``
and only its nonzero entries are assigned, each with a comment tying it to the
model (``M(theta1, theta2)``, a constraint row, an output name).  Indices are
1-based, operators element-wise (:class:`~symbody.symbolic.printing.MatlabPrinter`);
only functions of core MATLAB are called (no toolbox).

Model text never becomes code directly.  A model symbol ``theta1`` is the local
``s_theta1`` (a symbol whose name is not a plain ASCII identifier of at most
:attr:`MatlabSymbolNames.LONGEST` characters gets ``s<k>``); temporaries are
``t<k>``.  No local can therefore be a MATLAB keyword or exceed the 63 characters
MATLAB distinguishes.  Names that must appear as identifiers (function names,
fields of the parameter struct) go through :func:`matlab_identifier`; names and
descriptions reach comments only through :func:`matlab_comment` and string
literals only through :func:`matlab_string`.

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> ctx = Context(); x = ctx.symbol("x")
    >>> f = MatlabArray("f", "two functions of x", (2, 1),
    ...                 [MatlabEntry((1,), sin(x) * sin(x) + 1), MatlabEntry((2,), 2 * sin(x), "slope")])
    >>> print("\\n".join(matlab_statements([f], {x: "q(1)"})))
    s_x = q(1); % symbol x
    % shared subexpressions
    t0 = sin(s_x);
    % f: two functions of x
    f = zeros(2, 1);
    f(1) = 1 + t0.^2;
    f(2) = 2.*t0; % slope
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..symbolic.expr import ACOS, ASIN, LOG, NUM, POW, Expr, free_symbols, reachable
from ..symbolic.plan import ExportPlan
from ..symbolic.printing import MatlabPrinter
from .c import SymbolNames, symbol_locals

#: The reserved words of MATLAB (``iskeyword``); GNU Octave reserves these too.
MATLAB_KEYWORDS = frozenset(
    "break case catch classdef continue else elseif end for function global if otherwise parfor persistent "
    "return spmd switch try while".split()
)
#: MATLAB's ``namelengthmax``: longer identifiers are an error (GNU Octave's limit is the same).
NAMELENGTHMAX = 63

_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def matlab_identifier(name: str, longest: int = NAMELENGTHMAX) -> str:
    """``name`` as a MATLAB identifier of at most ``longest`` characters (the mangling of names).

    A name that is already one (an ASCII letter, then letters, digits and ``_``; not a
    keyword; short enough) is kept.  Otherwise: every other character becomes ``_``; a
    name that does not start with a letter gets the prefix ``x``; a keyword gets a
    trailing ``_``; a name still longer than ``longest`` keeps its first characters and
    ends in ``_`` and 8 hexadecimal digits of the SHA-256 of the original name, so that
    distinct long names stay distinct.

    Example:
        >>> matlab_identifier("theta1"), matlab_identifier("end"), matlab_identifier("2nd arm"), matlab_identifier("")
        ('theta1', 'end_', 'x2nd_arm', 'x')
        >>> long = matlab_identifier("a" * 70); len(long), long[-9:]
        (63, '_6bd5e503')
    """
    if _IDENTIFIER.match(name) and name not in MATLAB_KEYWORDS and len(name) <= longest:
        return name
    text = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not text[:1].isalpha():
        text = "x" + text
    if text in MATLAB_KEYWORDS:
        text += "_"
    if len(text) > longest:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        text = text[: longest - 9] + "_" + digest
    return text


def unique_identifiers(names: Sequence[str], longest: int = NAMELENGTHMAX) -> list[str]:
    """:func:`matlab_identifier` of each name, made distinct: a name whose mangled form is taken already
    gets ``_2``, ``_3``... (cut to ``longest`` characters first).

    Example:
        >>> unique_identifiers(["a b", "a_b", "end"])
        ['a_b', 'a_b_2', 'end_']
    """
    out: list[str] = []
    taken: set[str] = set()
    for name in names:
        ident = matlab_identifier(name, longest)
        k = 2
        while ident in taken:
            suffix = f"_{k}"
            ident = matlab_identifier(name, longest)[: longest - len(suffix)] + suffix
            k += 1
        taken.add(ident)
        out.append(ident)
    return out


def matlab_comment(text: str) -> str:
    r"""``text`` made safe inside a ``%`` comment: one line of printable ASCII.

    Line breaks (also Unicode's), tabs and other control characters become spaces;
    characters outside ASCII are written ``<U+XXXX>`` (MATLAB reads a file in the
    platform's encoding); ``%{`` and ``%}`` are split by a space, so that the text can
    neither open nor close a block comment.

    Example:
        >>> print(matlab_comment("a\r\nb %{ c %} L\u00e4nge\u2028end"))
        a  b % { c % } L<U+00E4>nge end
    """
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if code < 32 or code == 127 or ch in "\u0085\u2028\u2029":
            piece = " "
        elif code > 126:
            piece = f"<U+{code:04X}>"
        else:
            piece = ch
        if out and out[-1] == "%" and piece in "{}":
            out.append(" ")
        out.append(piece)
    return "".join(out)


def matlab_string(text: str) -> str:
    """A single-quoted MATLAB character vector of :func:`matlab_comment`'s text (``'`` doubled).

    Example:
        >>> print(matlab_string("rope's\\ntension"))
        'rope''s tension'
    """
    return "'" + matlab_comment(text).replace("'", "''") + "'"


@dataclass(frozen=True)
class MatlabEntry:
    """``array(index) = expr;`` (1-based ``index``); ``also`` entries receive the same value (symmetric ones).

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> x = Context().symbol("x")
        >>> M = MatlabArray("M", "mass matrix", (2, 2), [MatlabEntry((1, 2), 3 * x, "M(a, b)", also=((2, 1),))])
        >>> print("\\n".join(matlab_statements([M], {x: "q(1)"})))
        s_x = q(1); % symbol x
        % M: mass matrix
        M = zeros(2, 2);
        M(1, 2) = 3.*s_x; % M(a, b)
        M(2, 1) = M(1, 2);
    """

    index: tuple[int, ...]
    expr: Expr
    comment: str = ""
    also: tuple[tuple[int, ...], ...] = ()


@dataclass
class MatlabArray:
    """An output array of a function: allocated by ``zeros(shape)``, then its entries assigned."""

    name: str
    description: str
    shape: tuple[int, int]
    entries: list[MatlabEntry] = field(default_factory=list)


class MatlabSymbolNames(SymbolNames):
    """MATLAB local names for model symbols (stable across the functions of one export).

    As in C (:class:`~symbody.codegen.c.SymbolNames`): a symbol named ``theta`` is ``s_theta``; a
    name that is not a plain ASCII identifier of at most :attr:`LONGEST` characters, or one already
    taken, gets ``s<k>`` (which no ``s_`` name can be).  With the prefix, every local is a MATLAB
    identifier of at most 63 characters and none is a keyword.

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); names = MatlabSymbolNames()
        >>> names[ctx.symbol("end")], names[ctx.symbol("x y")], names[ctx.symbol("a" * 62)], names[ctx.symbol("_p")]
        ('s_end', 's1', 's2', 's__p')
    """

    LONGEST = NAMELENGTHMAX - len(SymbolNames.PREFIX)
    FALLBACK = "s{}"

    def comment(self, s: Expr) -> str:
        """What the local of ``s`` stands for: ``coordinate theta``."""
        return matlab_comment(f"{s.kind or 'symbol'} {s.name}")


def _index(index: tuple[int, ...]) -> str:
    return ", ".join(str(i) for i in index)


def matlab_plan(arrays: Sequence[MatlabArray], sources: Mapping[Expr, str], names: MatlabSymbolNames) -> ExportPlan:
    """The export plan of the arrays' entries, in order, exactly as the C export makes it for the same entries.

    Raises:
        KeyError: an expression uses a symbol missing from ``sources``.
    """
    exprs = [e.expr for a in arrays for e in a.entries]
    return ExportPlan({"all": exprs}, symbol_locals(exprs, sources, names), prefix="t", trig="expand")


def matlab_statements(
    arrays: Sequence[MatlabArray],
    sources: Mapping[Expr, str],
    names: MatlabSymbolNames | None = None,
    plan: ExportPlan | None = None,
) -> list[str]:
    """Statements evaluating ``arrays``: the symbols read from ``sources`` (MATLAB expressions such as
    ``q(1)`` or ``p.m``), the shared temporaries, then each array.

    ``plan`` is :func:`matlab_plan` of the same arrays (made here when not given).

    Raises:
        KeyError: an expression uses a symbol missing from ``sources``.

    Example (see also the module's):
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); x, k = ctx.symbol("x"), ctx.symbol("k")
        >>> matlab_statements([MatlabArray("f", "", (1, 1), [MatlabEntry((1,), k * x)])], {x: "q(1)"})
        Traceback (most recent call last):
        ...
        KeyError: "symbol 'k' has no source in the generated function"
    """
    names = names or MatlabSymbolNames()
    plan = plan or matlab_plan(arrays, sources, names)
    printer = MatlabPrinter()
    lines: list[str] = []
    for s in sorted(free_symbols(plan.outputs["all"]), key=lambda s: s.id):
        lines.append(f"{plan.names[s]} = {sources[s]}; % {names.comment(s)}")
    if plan.n_temps:
        lines.append("% shared subexpressions")
    for name, e in plan.assignments():
        lines.append(f"{name} = {plan.rhs_text(e, printer)};")
    final = iter(plan.outputs["all"])  # the plan may rewrite outputs (common factors)
    for a in arrays:
        lines.append(f"% {matlab_comment(a.name)}: {matlab_comment(a.description)}" if a.description else f"% {a.name}")
        lines.append(f"{a.name} = zeros({a.shape[0]}, {a.shape[1]});")
        for entry in a.entries:
            rhs = plan.rhs_text(next(final), printer, top=False)
            comment = f" % {matlab_comment(entry.comment)}" if entry.comment else ""
            lines.append(f"{a.name}({_index(entry.index)}) = {rhs};{comment}")
            lines.extend(f"{a.name}({_index(k)}) = {a.name}({_index(entry.index)});" for k in entry.also)
    return lines


def may_be_complex(plan: ExportPlan) -> bool:
    """Whether the planned code calls a function that MATLAB continues into the complex numbers outside its
    real domain (``sqrt``, ``log``, a fractional power, ``asin``, ``acos``), where C gives NaN.

    Example:
        >>> from symbody.symbolic.expr import Context, sqrt, sin
        >>> x = Context().symbol("x")
        >>> [may_be_complex(ExportPlan({"f": [e]}, {x: "x"})) for e in (sqrt(x), sin(x))]
        [True, False]
    """
    for e in reachable(e for exprs in plan.outputs.values() for e in exprs):
        if e.op in (LOG, ASIN, ACOS):
            return True
        if e.op == POW and e.args[1].op == NUM and not float(e.args[1].value).is_integer():
            return True
    return False


__all__ = [
    "MATLAB_KEYWORDS",
    "NAMELENGTHMAX",
    "MatlabArray",
    "MatlabEntry",
    "MatlabSymbolNames",
    "matlab_comment",
    "matlab_identifier",
    "matlab_plan",
    "matlab_statements",
    "matlab_string",
    "may_be_complex",
    "unique_identifiers",
]
