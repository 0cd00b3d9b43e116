"""Large generated C functions split into parts of bounded cost.

An optimizing C compiler spends super-linear time on one long straight-line
function (register allocation and scheduling over thousands of temporaries);
the same statements cut into functions of bounded cost compile in time about
linear in their number.  :func:`c_function_parts` writes the function of
:func:`symbody.codegen.c.c_function` as ``static`` parts ``part<k>_<name>``
called in order by the function itself.  Each part reads the model symbols it
uses from the function arguments; a temporary used in a later part than the one
computing it goes through a work array ``_w`` (on the stack, or allocated when
large; if the allocation fails, every output is NaN, which the runtime reports
as a non-finite result).  The statements, their order and the arithmetic are
those of :func:`c_function`.

A part ends when it holds ``part_size`` statements or when the next statement
would take its cost (:func:`part_cost`) past a budget: the characters of its
statements plus :data:`IMPORT_COST` for every value it reads without computing
it (a temporary of an earlier part or a model symbol).  The values a part reads
stay live through it, so a part that imports hundreds of them (the final sums of
a Jacobian or tangent function) costs the register allocator far more than its
statement count says; bounding the cost keeps every part, and so the compile
time of every file, near the median.  Derivative code (Jacobians, tangents) has
the smaller budget :data:`DERIVATIVE_PART_COST`: its compile time dominates
large exports, and smaller parts compile faster in total.  The functions of the
dynamics keep :data:`PART_COST`, under which the statement count decides: more
parts would add loads, stores and calls to the hot path for no compile time.

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> from symbody.codegen.c import CAssignment, CBlock
    >>> ctx = Context(); x = ctx.symbol("x")
    >>> block = CBlock("f", "two functions of x",
    ...                [CAssignment("_f[0]", sin(x) * sin(x) + 1), CAssignment("_f[1]", 2 * sin(x))])
    >>> text = c_function_parts("void f(const double *_in, double *_f)", [block], {x: "_in[0]"}, part_size=2)
    >>> print(text[text.index("static void part2_f") :])
    static void part2_f(const double *_in, double *_f, double *_w)
    {
        (void)_in;
        (void)_f;
        (void)_w;
        const double _t0 = _w[0];
        _f[0] = 1.0 + _t0*_t0;
        _f[1] = 2.0*_t0;
    }
    <BLANKLINE>
    void f(const double *_in, double *_f)
    {
        double _w[1];
        part1_f(_in, _f, _w);
        part2_f(_in, _f, _w);
    }
    <BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set
from typing import TYPE_CHECKING

from ..symbolic.expr import Expr
from ..symbolic.plan import ExportPlan
from ..symbolic.printing import CPrinter
from .c import CBlock, SymbolNames, c_comment, input_reads, symbol_locals
from .c_isa import avx2_body, avx2_calls, avx2_whole, avx2_wrappers

if TYPE_CHECKING:
    from .constants import ConstantsBlock

#: Most statements per part: small enough for near-linear compile times, large enough to keep calls rare.
PART_SIZE = 100
#: Largest cost of a part (:func:`part_cost`, about the characters of C a compiler takes in one function
#: without super-linear register allocation); a single statement above it makes a part of its own.
PART_COST = 24000
#: Largest cost of a part of derivative code (``derivative=True``: Jacobians and tangents).
DERIVATIVE_PART_COST = 8000
#: Cost of a value a part reads without computing it (a temporary from ``_w``, a model symbol): it stays
#: live through the part.
IMPORT_COST = 40
#: Largest work array kept on the stack (doubles); larger ones are allocated.
STACK_DOUBLES = 4096

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
Statement = tuple[str, str]  # (temporary it defines or "", C text)


def _parameters(signature: str) -> tuple[str, str, list[str]]:
    """``(function name, parameter list text, argument names)`` of a C declarator."""
    head, params = signature.split("(", 1)
    params = params.rsplit(")", 1)[0]
    name = _WORD.findall(head)[-1]
    args = [_WORD.findall(p)[-1] for p in params.split(",") if p.strip() and p.strip() != "void"]
    return name, params, args


def c_function_parts(
    signature: str,
    blocks: Sequence[CBlock],
    sources: Mapping[Expr, str],
    doc: str = "",
    names: SymbolNames | None = None,
    unused: Sequence[str] = (),
    part_size: int | None = None,
    optimize: bool = True,
    derivative: bool = False,
    constants: ConstantsBlock | None = None,
) -> str:
    """:func:`symbody.codegen.c.c_function`, with the body cut into ``static`` parts of at most ``part_size``
    statements and bounded cost (see :func:`c_function_pieces`)."""
    pieces = c_function_pieces(
        signature, blocks, sources, doc, names, unused, part_size, optimize, derivative=derivative,
        constants=constants,
    )  # fmt: skip
    return "".join(pieces)


def c_function_pieces(
    signature: str,
    blocks: Sequence[CBlock],
    sources: Mapping[Expr, str],
    doc: str = "",
    names: SymbolNames | None = None,
    unused: Sequence[str] = (),
    part_size: int | None = None,
    optimize: bool = True,
    linkage: str = "static",
    derivative: bool = False,
    constants: ConstantsBlock | None = None,
    avx2: bool = False,
) -> list[str]:
    """:func:`symbody.codegen.c.c_function`, with the body cut into parts of at most ``part_size`` statements
    and :data:`PART_COST` (:data:`DERIVATIVE_PART_COST` for ``derivative`` code: Jacobians, tangents) by
    :func:`cut_parts`: the texts of the parts, then of the function that calls them.

    ``linkage`` qualifies the parts: ``"static"`` (all pieces in one file, in order) or a macro for
    external linkage (then the function declares the parts, and the pieces may go to different files).

    ``part_size`` defaults to :data:`PART_SIZE`.  ``optimize=False`` skips the extraction of shared
    pairs of terms (:class:`~symbody.symbolic.plan.ExportPlan`), which costs more time than it saves
    on large derivative code.  A function that fits one part and is optimized is returned as
    :func:`c_function` writes it (one piece).  ``constants`` takes the parameter-only subexpressions
    (:mod:`symbody.codegen.constants`): every part reads those it uses from the block.  ``avx2`` compiles
    every part (or the one function) a second time for AVX2 processors, chosen at run time
    (:mod:`symbody.codegen.c_isa`; the macros of ``fmu_templates/symbody_model.h``).
    """
    part_size = part_size or PART_SIZE
    names = names or SymbolNames()
    exprs = [a.expr for b in blocks for a in b.assignments]
    symbol_names = symbol_locals(exprs, sources, names)
    plan = ExportPlan({"all": exprs}, symbol_names, prefix="_t", optimize=optimize, trig="expand", hoist=constants)
    reads = input_reads(plan, sources, names, constants)
    printer = CPrinter()
    # statements in evaluation order: (temporary defined or "", text)
    statements: list[tuple[str, str]] = [
        (name, f"const double {name} = {plan.rhs_text(e, printer)};") for name, e in plan.assignments()
    ]
    final = iter(plan.outputs["all"])
    for b in blocks:
        if not b.assignments and not b.zero:
            continue
        head = f"/* {c_comment(b.name)}: {c_comment(b.description)} */" if b.description else f"/* {b.name} */"
        statements.append(("", head))
        for array, size in b.zero:
            if size > 0:
                statements.append(("", f"memset({array}, 0, {size} * sizeof(double));"))
        for a in b.assignments:
            rhs = plan.rhs_text(next(final), printer, top=False)
            comment = f" /* {c_comment(a.comment)} */" if a.comment else ""
            statements.append(("", f"{' = '.join((a.target, *a.also))} = {rhs};{comment}"))
    budget = DERIVATIVE_PART_COST if derivative else PART_COST
    parts = cut_parts(statements, set(reads), part_size, budget) or [[]]
    if len(parts) == 1 and optimize:
        if avx2:
            return [avx2_whole(signature, doc, _whole(avx2_body(signature), plan, statements, reads, "", unused))]
        return [_whole(signature, plan, statements, reads, doc, unused)]
    return _pieces(signature, parts, reads, doc, blocks, linkage, avx2)


def _whole(signature, plan: ExportPlan, statements, reads: dict[str, str], doc, unused) -> str:
    """The one function of a body that fits one part, exactly as :func:`c_function` writes it (from the plan
    already made)."""
    body = [f"(void){arg};" for arg in unused]
    body += list(reads.values())
    if plan.n_temps:
        body.append("/* shared subexpressions */")
    body += [text for _, text in statements]
    head = [f"/* {c_comment(doc)} */"] if doc else []
    return "\n".join([*head, signature, "{", *("    " + line for line in body), "}"]) + "\n"


def part_cost(part: Sequence[Statement], values: Set[str]) -> int:
    """Cost of a part: the characters of its statements plus :data:`IMPORT_COST` per value it reads without
    computing it (a name among ``values``, the temporaries and symbol locals of the function, that the part
    does not define).

    Example:
        >>> part = [("_t1", "const double _t1 = _t0*_t0;"), ("", "_f[0] = _t1 + s_x;")]
        >>> part_cost(part, {"_t0", "_t1", "s_x"})  # 27 + 18 characters, _t0 and s_x read
        125
    """
    defined = {name for name, _ in part if name}
    read = {w for _, text in part for w in _WORD.findall(text) if w in values}
    return sum(len(text) for _, text in part) + IMPORT_COST * len(read - defined)


def cut_parts(
    statements: Sequence[Statement], loads: Set[str], part_size: int, budget: int | None = None
) -> list[list[Statement]]:
    """Statements cut, in order, into parts of at most ``part_size`` statements and a :func:`part_cost` of at
    most ``budget`` (default :data:`PART_COST`; ``loads`` are the locals of model symbols); a statement that
    costs more than ``budget`` alone is a part of its own.

    Example:
        >>> statements = [(f"_t{k}", f"const double _t{k} = s_x*{k}.0;") for k in range(4)]
        >>> [len(p) for p in cut_parts(statements, {"s_x"}, part_size=3)]
        [3, 1]
        >>> [len(p) for p in cut_parts(statements, {"s_x"}, part_size=3, budget=100)]  # 27 each, 40 for s_x
        [2, 2]
    """
    budget = PART_COST if budget is None else budget
    temps = {name for name, _ in statements if name}
    parts: list[list[Statement]] = []
    part: list[Statement] = []
    cost = 0
    have: set[str] = set()  # values the current part already computes or reads
    for name, text in statements:
        read = {w for w in _WORD.findall(text) if (w in temps or w in loads) and w != name}
        add = len(text) + IMPORT_COST * len(read - have)
        if part and (len(part) >= part_size or cost + add > budget):
            parts.append(part)
            part, cost, have = [], 0, set()
            add = len(text) + IMPORT_COST * len(read)
        part.append((name, text))
        cost += add
        have |= read
        if name:
            have.add(name)
    return [*parts, part] if part else parts


def _pieces(signature, parts, reads: dict[str, str], doc, blocks, linkage, avx2: bool = False) -> list[str]:
    """The parts and the function that calls them; ``reads``: local of each leaf -> the statement reading it."""
    fname, params, args = _parameters(signature)
    defined_in: dict[str, int] = {}
    words: list[set[str]] = []
    for k, part in enumerate(parts):
        for name, _ in part:
            if name:
                defined_in[name] = k
        words.append({w for _, text in part for w in _WORD.findall(text)})
    crossing: dict[str, int] = {}  # temporary -> slot of _w
    for k, used in enumerate(words):
        for w in sorted(used):
            if defined_in.get(w, k) < k and w not in crossing:
                crossing[w] = len(crossing)
    out: list[str] = []
    if len(parts) == 1:  # one function, as c_function writes it
        body = [f"(void){a};" for a in args]
        body += [text for w, text in reads.items() if w in words[0]]
        body += [text for _, text in parts[0]]
        if avx2:
            whole = "\n".join([avx2_body(signature), "{", *("    " + line for line in body), "}"]) + "\n"
            return [avx2_whole(signature, doc, whole)]
        head = [f"/* {c_comment(doc)} */"] if doc else []
        return ["\n".join([*head, signature, "{", *("    " + line for line in body), "}"]) + "\n"]
    pieces: list[str] = []
    for k, part in enumerate(parts):
        body = [f"(void){a};" for a in args] + ["(void)_w;"]
        body += [text for w, text in reads.items() if w in words[k]]
        body += [f"const double {w} = _w[{crossing[w]}];" for w in sorted(words[k]) if defined_in.get(w, k) < k]
        for name, text in part:
            body.append(text)
            if name in crossing and defined_in[name] == k:
                body.append(f"_w[{crossing[name]}] = {name};")
        part_sig = f"{linkage} void part{k + 1}_{fname}({params}, double *_w)"
        text = [f"/* {c_comment(fname)}, part {k + 1} of {len(parts)} */"]
        text.append(f"{avx2_body(part_sig) if avx2 else part_sig}\n{{")
        text += ["    " + line for line in body]
        pieces.append("\n".join([*text, "}\n"]) + (avx2_wrappers(part_sig) if avx2 else ""))
    nw = len(crossing)
    if linkage != "static":  # the parts may live in other files
        out += [f"{linkage} void part{k + 1}_{fname}({params}, double *_w);" for k in range(len(parts))]
        if avx2:
            out += ["#ifdef SB_AVX2"]
            clones = [f"avx2_part{k + 1}_{fname}" for k in range(len(parts))]
            out += [f"{linkage} SB_AVX2 void {clone}({params}, double *_w);" for clone in clones]
            out += ["#endif"]
    call_args = ", ".join([*args, "_w"])
    calls = [f"    part{k + 1}_{fname}({call_args});" for k in range(len(parts))]
    if avx2:
        calls = avx2_calls([f"part{k + 1}_{fname}" for k in range(len(parts))], call_args)
    if doc:
        out.append(f"/* {c_comment(doc)} */")
    out.append(signature + "\n{")
    if nw == 0:
        out.append("    double *_w = NULL; /* no temporary crosses parts */")
        out += calls
    elif nw <= STACK_DOUBLES:
        out.append(f"    double _w[{nw}];")
        out += calls
    else:
        targets = [t for b in blocks for a in b.assignments for t in (a.target, *a.also)]
        out.append(f"    double *_w = (double *)malloc({nw} * sizeof(double));")
        out.append("    if (!_w) { /* out of memory: every output is NaN */")
        out += [f"        {t} = NAN;" for t in targets]
        out.append("        return;\n    }")
        out += calls
        out.append("    free(_w);")
    out.append("}\n")
    return [*pieces, "\n".join(out) + "\n"]
