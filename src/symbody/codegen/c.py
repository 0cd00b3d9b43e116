"""C code generation for atomized blocks.

:func:`c_function` writes one C99 function that evaluates several blocks
sharing their temporaries: the :class:`~symbody.codegen.emit.ExportPlan` of the
blocks decides which atoms become temporaries (atoms used more than once, in
dependency order) and which are inlined (atoms used once).  Each block is
preceded by a comment naming it, and every assignment carries a comment tying
it back to the model (``M(theta1, theta2)``, ``delta(theta1)``, a constraint
row, an output name).  Sparse blocks are zero-filled once and only their
nonzero entries are assigned.

Model symbols become ``const double`` locals named as in the model when the
name is a safe C identifier (``theta1``, ``l1``); otherwise they get a private
``_s<k>`` name.  Temporaries are ``_t<k>`` and function arguments start with
an underscore, so neither can clash with a model name (model names never start
with ``_`` once mangled this way).

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> ctx = Context(); x = ctx.symbol("x")
    >>> block = CBlock("f", "two functions of x",
    ...                [CAssignment("_f[0]", sin(x) * sin(x) + 1), CAssignment("_f[1]", 2 * sin(x), "slope")])
    >>> print(c_function("void f(const double *_in, double *_f)", [block], {x: "_in[0]"}))
    void f(const double *_in, double *_f)
    {
        const double x = _in[0]; /* symbol */
        /* shared subexpressions */
        const double _t0 = sin(x);
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

from ..symbolic.expr import NUM, SYM, Expr
from ..symbolic.printing import CPrinter
from .emit import ExportPlan

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

_SAFE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def is_safe_c_name(name: str) -> bool:
    """True if a model name can be used verbatim as a C local variable.

    Example:
        >>> is_safe_c_name("theta1"), is_safe_c_name("sin"), is_safe_c_name("_x"), is_safe_c_name("sb_sign")
        (True, False, False, False)
    """
    return bool(_SAFE.match(name)) and name not in C_RESERVED and not name.lower().startswith(("sb_", "fmi"))


def c_string(text: str) -> str:
    """A C string literal for ``text`` (ASCII; other characters escaped).

    Example:
        >>> c_string('a "b"')
        '"a \\\\"b\\\\""'
    """
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.extend(f"\\{b:03o}" for b in ch.encode("utf-8"))
    return '"' + "".join(out) + '"'


def c_comment(text: str) -> str:
    """``text`` made safe inside a C block comment."""
    return text.replace("*/", "* /").replace("/*", "/ *").replace("\n", " ")


@dataclass(frozen=True)
class CAssignment:
    """``target = expr;`` (and ``also`` targets receive the same value, e.g. symmetric entries)."""

    target: str
    expr: Expr
    comment: str = ""
    also: tuple[str, ...] = ()


@dataclass
class CBlock:
    """A group of assignments printed under one comment.

    ``zero`` lists ``(array, size)`` pairs zero-filled before any assignment, so
    that only nonzero entries need to be assigned.
    """

    name: str
    description: str
    assignments: list[CAssignment] = field(default_factory=list)
    zero: list[tuple[str, int]] = field(default_factory=list)


class SymbolNames:
    """C local names for model symbols (stable across the functions of one file)."""

    def __init__(self) -> None:
        self._names: dict[Expr, str] = {}
        self._used: set[str] = set()

    def __getitem__(self, s: Expr) -> str:
        name = self._names.get(s)
        if name is None:
            name = s.name if is_safe_c_name(s.name) and s.name not in self._used else f"_s{len(self._names)}"
            self._names[s] = name
            self._used.add(name)
        return name


def _reachable(exprs: Sequence[Expr]) -> set[Expr]:
    seen: set[Expr] = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        stack.extend(e.args)
    return seen


def c_function(
    signature: str,
    blocks: Sequence[CBlock],
    sources: Mapping[Expr, str],
    doc: str = "",
    names: SymbolNames | None = None,
    unused: Sequence[str] = (),
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

    Raises:
        KeyError: an expression uses a symbol missing from ``sources``.
    """
    names = names or SymbolNames()
    exprs = [a.expr for b in blocks for a in b.assignments]
    used = sorted((s for s in _reachable(exprs) if s.op == SYM), key=lambda s: s.id)
    symbol_names: dict[Expr, str] = {}
    for s in used:
        if s not in sources:
            raise KeyError(f"symbol {s.name!r} has no source in the generated function")
        symbol_names[s] = names[s]
    plan = ExportPlan({"all": exprs}, symbol_names, prefix="_t", trig="expand")
    used = sorted((s for s in _reachable(plan.outputs["all"]) if s.op == SYM), key=lambda s: s.id)
    printer = CPrinter()
    lines: list[str] = []
    if doc:
        lines.append(f"/* {c_comment(doc)} */")
    lines.append(signature)
    lines.append("{")
    body: list[str] = []
    for arg in unused:
        body.append(f"(void){arg};")
    for s in used:
        body.append(f"const double {symbol_names[s]} = {sources[s]}; /* {c_comment(s.kind or 'symbol')} */")
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


def nonzero(e: Expr) -> bool:
    """True unless ``e`` is the number zero."""
    return not (e.op == NUM and e.value == 0)
