"""C code generation for atomized blocks.

:func:`c_function` writes one C99 function that evaluates several blocks
sharing their temporaries: the :class:`~symbody.symbolic.plan.ExportPlan` of the
blocks decides which atoms become temporaries (atoms used more than once, in
dependency order) and which are inlined (atoms used once).  Each block is
preceded by a comment naming it, and every assignment carries a comment tying
it back to the model (``M(theta1, theta2)``, ``delta(theta1)``, a constraint
row, an output name).  Sparse blocks are zero-filled once and only their
nonzero entries are assigned.

Model text never becomes C directly.  A model symbol ``theta1`` is the local
``s_theta1``: the prefix keeps every model name apart from C keywords, from the
macros that compilers and ``<math.h>`` predefine (``linux``, ``unix``,
``FP_NAN``, ``errno``...) and from the runtime's own names; symbols whose name is
not a plain identifier get a private ``_s<k>``.  Temporaries are ``_t<k>`` and
function arguments start with an underscore.  Names, descriptions and other
free text reach comments only through :func:`c_comment` (printable ASCII that
cannot end a comment, splice a line or form a trigraph) and string literals only
through :func:`c_string`.

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> ctx = Context(); x = ctx.symbol("x")
    >>> block = CBlock("f", "two functions of x",
    ...                [CAssignment("_f[0]", sin(x) * sin(x) + 1), CAssignment("_f[1]", 2 * sin(x), "slope")])
    >>> print(c_function("void f(const double *_in, double *_f)", [block], {x: "_in[0]"}))
    void f(const double *_in, double *_f)
    {
        const double s_x = _in[0]; /* symbol x */
        /* shared subexpressions */
        const double _t0 = sin(s_x);
        /* f: two functions of x */
        _f[0] = 1.0 + _t0*_t0;
        _f[1] = 2.0*_t0; /* slope */
    }
    <BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import ModelError
from ..symbolic.expr import NUM, SYM, Expr, free_symbols, symbol_name
from ..symbolic.plan import ExportPlan
from ..symbolic.printing import CPrinter

if TYPE_CHECKING:
    from .constants import ConstantsBlock

#: The comment of a local read from the constants block (:mod:`symbody.codegen.constants`).
LOCAL_COMMENT = "constants block: parameter-only, computed once per parameter change"

#: Names a model symbol must not take as a C local: keywords, math.h and stdlib names, runtime prefixes.
C_RESERVED = frozenset(
    """auto break case char const continue default do double else enum extern float for goto if inline int long
    register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
    _Bool _Complex _Imaginary bool true false NULL
    sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 log log2 log10 log1p logb
    sqrt cbrt pow hypot fabs abs labs floor ceil round trunc rint nearbyint lround fmod remainder fmin fmax fma fdim
    erf erfc tgamma lgamma gamma j0 j1 jn y0 y1 yn frexp ldexp modf scalbn ilogb nan copysign nextafter signbit
    isnan isinf isfinite isnormal fpclassify HUGE_VAL INFINITY NAN M_PI M_E errno EDOM ERANGE
    memset memcpy malloc calloc free exit main printf assert div ldiv""".split()
)

#: Longest string literal (characters after escapes, without the terminating null) that every ISO C99
#: compiler accepts (C99 5.2.4.1); ``gcc -std=c99 -pedantic`` warns beyond it.
C_STRING_LIMIT = 4095

_SAFE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def is_safe_c_name(name: str) -> bool:
    """True if ``name`` is an identifier that no C compiler, libc header or the runtime reserves.

    Generated code never relies on it for model names (they are always prefixed,
    see :class:`SymbolNames`); it tells whether a name could be used verbatim.

    Example:
        >>> is_safe_c_name("theta1"), is_safe_c_name("sin"), is_safe_c_name("_x"), is_safe_c_name("sb_sign")
        (True, False, False, False)
    """
    return bool(_SAFE.match(name)) and name not in C_RESERVED and not name.lower().startswith(("sb_", "fmi"))


def c_string(text: str) -> str:
    r"""A C string literal for ``text``: printable ASCII, everything else as octal escapes.

    ``?`` is escaped too, so that no trigraph (``??/``) forms in strict ISO C modes.

    Example:
        >>> print(c_string('a "b"?\n'))
        "a \"b\"\?\012"

    Raises:
        ModelError: ``text`` is longer than :data:`C_STRING_LIMIT` bytes (the model layer keeps names
            far shorter: :data:`symbody.model.registry.MAX_NAME_LENGTH`).
    """
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > C_STRING_LIMIT:
        raise ModelError(
            f"the text {text[:40]!r}... is {size} bytes long: a C string literal holds at most {C_STRING_LIMIT}"
            " (ISO C99 5.2.4.1)"
        )
    out = []
    for ch in text:
        if ch in '"\\?':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.extend(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogatepass"))
    return '"' + "".join(out) + '"'


def c_comment(text: str) -> str:
    r"""``text`` made safe inside a C comment: one line of printable ASCII.

    Line breaks, tabs and other control characters become spaces; characters
    outside ASCII and the backslash are written ``<U+XXXX>`` (a backslash could
    splice lines, non-ASCII text trips compilers' encoding and bidi checks);
    ``*/``, ``/*`` and ``??`` are split by a space, so the text can neither end
    the comment, open a nested one nor form a trigraph.

    Example:
        >>> print(c_comment("a */ b\r\nc \\ ??/ L\u00e4nge"))
        a * / b  c <U+005C> ? ?/ L<U+00E4>nge
    """
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if ch == "\\" or code > 126:
            piece = f"<U+{code:04X}>"
        elif code < 32 or code == 127:
            piece = " "
        else:
            piece = ch
        if out and (out[-1], piece) in (("*", "/"), ("/", "*"), ("?", "?")):
            out.append(" ")
        out.append(piece)
    return "".join(out)


@dataclass(frozen=True)
class CAssignment:
    """``target = expr;`` (and ``also`` targets receive the same value, e.g. symmetric entries).

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> x = Context().symbol("x")
        >>> block = CBlock("M", "mass matrix", [CAssignment("_M[1]", 3 * x, "M(a, b)", also=("_M[2]",))])
        >>> print(c_function("void m(const double *_in, double *_M)", [block], {x: "_in[0]"}))
        void m(const double *_in, double *_M)
        {
            const double s_x = _in[0]; /* symbol x */
            /* M: mass matrix */
            _M[1] = _M[2] = 3.0*s_x; /* M(a, b) */
        }
        <BLANKLINE>
    """

    target: str
    expr: Expr
    comment: str = ""
    also: tuple[str, ...] = ()


@dataclass
class CBlock:
    """A group of assignments printed under one comment.

    ``zero`` lists ``(array, size)`` pairs zero-filled before any assignment, so
    that only nonzero entries need to be assigned.

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> x = Context().symbol("x")
        >>> block = CBlock("J", "sparse Jacobian", [CAssignment("_J[3]", x * x)], zero=[("_J", 4)])
        >>> print(c_function("void j(const double *_in, double *_J)", [block], {x: "_in[0]"}))
        void j(const double *_in, double *_J)
        {
            const double s_x = _in[0]; /* symbol x */
            /* J: sparse Jacobian */
            memset(_J, 0, 4 * sizeof(double));
            _J[3] = s_x*s_x;
        }
        <BLANKLINE>
    """

    name: str
    description: str
    assignments: list[CAssignment] = field(default_factory=list)
    zero: list[tuple[str, int]] = field(default_factory=list)


class SymbolNames:
    """C local names for model symbols (stable across the functions of one file).

    A symbol named ``theta`` is ``s_theta``; a name that is not a plain ASCII
    identifier of at most 48 characters, or one already taken, gets ``_s<k>``.  No model name is ever a
    C identifier by itself, so none can clash with a keyword or a macro.

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context()
        >>> names = SymbolNames()
        >>> names[ctx.symbol("linux")], names[ctx.symbol("FP_NAN")]
        ('s_linux', 's_FP_NAN')
    """

    PREFIX = "s_"
    #: longer names get a private local: C99 compilers need only distinguish 63 leading characters
    LONGEST = 48
    #: the private local of the k-th symbol named (one whose name cannot follow the prefix)
    FALLBACK = "_s{}"

    def __init__(self) -> None:
        self._names: dict[Expr, str] = {}
        self._used: set[str] = set()

    def __getitem__(self, s: Expr) -> str:
        name = self._names.get(s)
        if name is None:
            text = symbol_name(s)
            plain = _IDENTIFIER.match(text) and len(text) <= self.LONGEST
            name = self.PREFIX + text if plain else ""
            if not name or name in self._used:
                name = self.FALLBACK.format(len(self._names))
            self._names[s] = name
            self._used.add(name)
        return name

    def comment(self, s: Expr) -> str:
        """What the local of ``s`` stands for, for a comment: ``coordinate theta``.

        Example:
            >>> from symbody.symbolic.expr import Context
            >>> SymbolNames().comment(Context().symbol("theta", kind="coordinate"))
            'coordinate theta'
        """
        return c_comment(f"{s.kind or 'symbol'} {s.name}")


def symbol_locals(exprs: Sequence[Expr], sources: Mapping[Expr, str], names: SymbolNames) -> dict[Expr, str]:
    """The local name of every symbol ``exprs`` use, in the order the symbols were made.

    Raises:
        KeyError: a symbol is missing from ``sources`` (where the generated function reads it).

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); x, k = ctx.symbol("x"), ctx.symbol("k")
        >>> symbol_locals([k * x], {x: "_in[0]", k: "_in[1]"}, SymbolNames()) == {x: "s_x", k: "s_k"}
        True
    """
    out: dict[Expr, str] = {}
    for s in sorted(free_symbols(exprs), key=lambda s: s.id):
        if s not in sources:
            raise KeyError(f"symbol {s.name!r} has no source in the generated function")
        out[s] = names[s]
    return out


def c_function(
    signature: str,
    blocks: Sequence[CBlock],
    sources: Mapping[Expr, str],
    doc: str = "",
    names: SymbolNames | None = None,
    unused: Sequence[str] = (),
    constants: ConstantsBlock | None = None,
) -> str:
    """Source of a C function evaluating ``blocks``.

    Args:
        signature: the C declarator, e.g. ``"void sb_M_delta(const SbPoint *_in, double *_M, double *_delta)"``.
        blocks: the assignments, grouped and commented.
        sources: where each model symbol is read, e.g. ``{theta1: "_in->q[0]"}``; symbols that the
            expressions use must all be listed.
        doc: comment printed above the function.
        names: C local names of symbols (shared between functions for a consistent file).
        unused: argument names to mark ``(void)`` (arguments no block writes).
        constants: the constants block that takes the parameter-only subexpressions
            (:mod:`symbody.codegen.constants`); the function reads them from it.

    Raises:
        KeyError: an expression uses a symbol missing from ``sources``.

    Example (see also the module's):
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); x, k = ctx.symbol("x"), ctx.symbol("k")
        >>> c_function("void f(double *_f)", [CBlock("f", "", [CAssignment("_f[0]", k * x)])], {x: "1.0"})
        Traceback (most recent call last):
        ...
        KeyError: "symbol 'k' has no source in the generated function"
    """
    names = names or SymbolNames()
    exprs = [a.expr for b in blocks for a in b.assignments]
    symbol_names = symbol_locals(exprs, sources, names)
    plan = ExportPlan({"all": exprs}, symbol_names, prefix="_t", trig="expand", hoist=constants)
    printer = CPrinter()
    lines: list[str] = []
    if doc:
        lines.append(f"/* {c_comment(doc)} */")
    lines.append(signature)
    lines.append("{")
    body: list[str] = []
    for arg in unused:
        body.append(f"(void){arg};")
    body += input_reads(plan, sources, names, constants).values()
    if plan.n_temps:
        body.append("/* shared subexpressions */")
    for name, e in plan.assignments():
        body.append(f"const double {name} = {plan.rhs_text(e, printer)};")
    final = iter(plan.outputs["all"])  # the plan may rewrite outputs (common factors)
    for b in blocks:
        if not b.assignments and not b.zero:
            continue
        body.append(f"/* {c_comment(b.name)}: {c_comment(b.description)} */" if b.description else f"/* {b.name} */")
        for array, size in b.zero:
            if size > 0:
                body.append(f"memset({array}, 0, {size} * sizeof(double));")
        for a in b.assignments:
            rhs = plan.rhs_text(next(final), printer, top=False)
            targets = " = ".join((a.target, *a.also))
            comment = f" /* {c_comment(a.comment)} */" if a.comment else ""
            body.append(f"{targets} = {rhs};{comment}")
    lines.extend("    " + line for line in body)
    lines.append("}")
    return "\n".join(lines) + "\n"


def input_reads(
    plan: ExportPlan, sources: Mapping[Expr, str], names: SymbolNames, constants: ConstantsBlock | None
) -> dict[str, str]:
    """The statements that read the leaves of ``plan`` into their locals, by local: the model symbols (symbol
    order), then the slots of the constants block the function uses."""
    out = {plan.names[s]: f"{sources[s]}; /* {names.comment(s)} */" for s in plan.inputs if s.op == SYM}
    if constants is not None:
        out.update({plan.names[e]: f"{constants.source(e)}; /* {LOCAL_COMMENT} */" for e in plan.hoisted})
    return {local: f"const double {local} = {text}" for local, text in out.items()}


def nonzero(e: Expr) -> bool:
    """True unless ``e`` is the number zero.

    Example:
        >>> from symbody.symbolic.expr import Context, num
        >>> x = Context().symbol("x")
        >>> nonzero(x - x), nonzero(num(0.0)), nonzero(x)
        (False, False, True)
    """
    return not (e.op == NUM and e.value == 0)
