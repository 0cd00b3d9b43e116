"""The constants block: parameter-only subexpressions computed once per parameter change.

Products of masses and lengths, inertia sums, ``sin`` of a fixed angle: the equations of a
large model hold many subexpressions that depend on the parameters only.  A generated function
that evaluated them at every call would pay for what does not change between calls.  A
:class:`ConstantsBlock` collects them while the functions of one file are planned
(:class:`~symbody.symbolic.plan.ExportPlan` with ``hoist``): each maximal parameter-only
subexpression becomes a slot ``k`` of the block, which the functions read as ``_in->c[k]`` into
a local ``_c<k>``, and :meth:`ConstantsBlock.function` writes the one function that fills the
block from the parameters.  The FMU runtime calls it whenever the parameters change
(instantiation, reset, a parameter set, an FMU state restored; ``sb_parameters_changed`` in
``fmu_templates/sb_instance.c``).

A node is hoisted when it is an operation (not a symbol, a number or a negation, which folds
into a subtraction) whose symbols are all parameters.  The block's function evaluates the same
nodes, planned like any block; an FMU whose parameters were changed therefore computes exactly
what an FMU built with those values computes.

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> from symbody.codegen.c import CAssignment, CBlock, c_function
    >>> ctx = Context(); q = ctx.symbol("q", "coordinate"); m, l = ctx.symbol("m", "parameter"), ctx.symbol("l")
    >>> block = ConstantsBlock([m, l])
    >>> f = CBlock("f", "", [CAssignment("_f[0]", m * l * l * sin(q))])
    >>> sources = {q: "_in->q[0]", m: "_in->p[0]", l: "_in->p[1]"}
    >>> print(c_function("void f(const SbPoint *_in, double *_f)", [f], sources, constants=block))
    void f(const SbPoint *_in, double *_f)
    {
        const double s_q = _in->q[0]; /* coordinate q */
        const double _c0 = _in->c[0]; /* constants block: parameter-only, computed once per parameter change */
        /* f */
        _f[0] = _c0*sin(s_q);
    }
    <BLANKLINE>
    >>> print(block.function(sources))  # doctest: +ELLIPSIS
    /* constants block: 1 parameter-only subexpressions, computed here once per parameter change ... */
    void sb_constants(const SbPoint *_in, double *_c)
    {
        (void)_in;
        const double s_m = _in->p[0]; /* parameter m */
        const double s_l = _in->p[1]; /* symbol l */
        /* constants: parameter-only subexpressions */
        _c[0] = s_m*s_l*s_l; /* read as _c0 */
    }
    <BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..symbolic.expr import NEG, NUM, SYM, Expr
from .c import LOCAL_COMMENT, CAssignment, CBlock, SymbolNames


class ConstantsBlock:
    """The parameter-only subexpressions of the functions of one generated file, slot by slot.

    Args:
        parameters: the symbols whose values change only when the parameters are set.
        source: how a function reads slot ``k`` (a format with one field).
        local: the name of the local that holds slot ``k`` (a format with one field).

    Pass the block as ``constants`` to :func:`symbody.codegen.c.c_function` or
    :func:`symbody.codegen.c_split.c_function_pieces`; a node shared by several functions takes one slot.
    """

    def __init__(self, parameters: Iterable[Expr], source: str = "_in->c[{}]", local: str = "_c{}"):
        self.mask = 0
        for p in parameters:
            self.mask |= p.mask
        self.source_format = source
        self.local_format = local
        self.exprs: list[Expr] = []
        self._slot: dict[Expr, int] = {}

    def __len__(self) -> int:
        return len(self.exprs)

    def __call__(self, e: Expr) -> str | None:
        """The local that holds ``e`` when ``e`` is parameter-only (and takes a slot), else None (the
        ``hoist`` of :class:`~symbody.symbolic.plan.ExportPlan`)."""
        if e.op in (SYM, NUM, NEG) or e.mask & ~self.mask:
            return None
        k = self._slot.get(e)
        if k is None:
            k = self._slot[e] = len(self.exprs)
            self.exprs.append(e)
        return self.local_format.format(k)

    def source(self, e: Expr) -> str:
        """Where a function reads the slot of ``e``."""
        return self.source_format.format(self._slot[e])

    def function(self, sources: Mapping[Expr, str], names: SymbolNames | None = None, users: Sequence[str] = ()) -> str:
        """The C function ``void sb_constants(const SbPoint *_in, double *_c)`` that fills the block from the
        parameters (``sources``: where it reads them); ``users`` names the functions that read the block."""
        from .c_split import c_function_pieces

        asg = [CAssignment(f"_c[{k}]", e, f"read as _c{k}") for k, e in enumerate(self.exprs)]
        block = CBlock("constants", "parameter-only subexpressions", asg)
        read_by = f" of {', '.join(users)}" if users else ""
        doc = (
            f"constants block: {len(self.exprs)} parameter-only subexpressions{read_by}, computed here once per"
            " parameter change (the runtime calls this function when the FMU is instantiated or reset, when a"
            " parameter is set and when an FMU state is restored); the functions read slot k as _in->c[k]"
        )
        sig = "void sb_constants(const SbPoint *_in, double *_c)"
        unused = ["_in", "_c"] if not asg else ["_in"]
        return "".join(c_function_pieces(sig, [block] if asg else [], sources, doc, names, unused))


__all__ = ["LOCAL_COMMENT", "ConstantsBlock"]
