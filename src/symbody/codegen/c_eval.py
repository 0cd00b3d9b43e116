"""Compile blocks to C and call them in-process.

:class:`CEvaluator` has the calling convention of the numpy evaluators of
:mod:`symbody.codegen.python` -- ``f(t, q, dq, u, p, ddq=None, lam=None)``
returns a tuple of arrays, one per block -- so tests can check the generated
C against numpy block by block.  :class:`AccelerationEvaluator` gives ``ddq``
of an unconstrained model in one call: ``[M | delta]`` and the L D L^T solve
in C.  Both are compiled into a CPython extension module when Python's headers
are installed (a fraction of a microsecond per call beyond the evaluation; see
:mod:`symbody.codegen.c_call`), otherwise called through ``ctypes``, with the
same checks and the same results; ``out=`` takes arrays to fill instead of new
ones.  Arguments are checked: a wrong length is refused by the vector's name.
The parameter-only subexpressions are computed once per parameter change, as in the FMU's
constants block (:mod:`symbody.codegen.constants`): the compiled code keeps them with the
parameter values they came from and computes them again when a call passes other values.

Example:
    >>> import numpy as np
    >>> from symbody.symbolic.expr import Context, sin
    >>> from symbody.codegen.python import Layout
    >>> ctx = Context(); x = ctx.symbol("x", "coordinate")
    >>> f = CEvaluator({"y": ([sin(x), 2 * sin(x)], (2,))}, Layout(q=[x]))
    >>> f(0.0, [0.5], [], [], [])[0].round(6)
    array([0.479426, 0.958851])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import numpy as np

from ..errors import ModelError
from ..symbolic.expr import Expr, free_symbols
from .c import CAssignment, CBlock, c_function, nonzero
from .c_call import Kernel, c_compiler, call_directly, call_path, compile_shared, kernel_function
from .constants import ConstantsBlock
from .evaluators import layout_of, select_blocks
from .python import Layout, check_identifier

if TYPE_CHECKING:
    from ..equations import Equations

#: the vector arguments of every evaluator, in the order of the packed input (after t); ``x``: the
#: first-order states
VECTORS = ("q", "dq", "u", "p", "ddq", "lam", "x")

#: compiled evaluators per equations (by blocks and call path)
_CACHE: WeakKeyDictionary[Any, dict[tuple, Any]] = WeakKeyDictionary()


class CEvaluator:
    """Blocks compiled to C, called like a numpy evaluator.

    Args:
        blocks: block name -> (flat expressions, shape), as in :meth:`symbody.Equations.blocks`.
        layout: where the symbols come from (:class:`symbody.codegen.python.Layout`).
        name: name of the C function.
        path: ``"auto"`` (a CPython extension module when Python's headers are installed, else
            ctypes), ``"extension"`` or ``"ctypes"``.
        constants: compute the parameter-only subexpressions once per parameter change (a constants
            block kept by the compiled code with the parameters it was computed from,
            :func:`block_function`), not at every call.

    Attributes:
        source: the generated C source.
        call_path: ``"extension"`` or ``"ctypes"``, the path taken.
    """

    def __init__(
        self,
        blocks: Mapping[str, tuple[Sequence[Expr], tuple[int, ...]]],
        layout: Layout,
        name: str = "evaluate",
        path: str = "auto",
        constants: bool = True,
    ):
        check_identifier(name, "function")
        self.names = [check_identifier(k, "block") for k in blocks]
        self.shapes = [tuple(blocks[k][1]) for k in self.names]
        self.sizes = [int(np.prod(s)) if len(s) else 1 for s in self.shapes]
        self._layout = layout
        self.source = "#include <math.h>\n#include <string.h>\n" + _SIGN
        self.source += block_function(blocks, layout, name, constants)
        self.source += _packed_wrapper(name, self._slots, self.sizes)
        slots = tuple((vec, n, vec in ("ddq", "lam", "x")) for vec, n in self._slots)
        self._call = kernel_function(Kernel(name + "_packed", self.source, slots, tuple(self.shapes)), path)
        self.call_path = call_path(self._call)
        call_directly(self, self._call)  # no Python frame per call: __call__ below documents the call

    @property
    def _slots(self) -> list[tuple[str, int]]:
        return [(vec, len(getattr(self._layout, vec))) for vec in VECTORS]

    def __call__(self, t, q, dq, u, p, ddq=None, lam=None, x=None, *, out=None) -> tuple[np.ndarray, ...]:
        """The blocks at one point, as fresh arrays (one per block, in the order of the names), or
        written into ``out`` (a tuple of float64 C-contiguous arrays of the blocks' shapes) and returned.

        Raises:
            ValueError: an argument has not the length of its vector in the layout (named in the message).
            TypeError: a value is not a real number, or ``out`` does not fit.
        """
        if out is None:
            return self._call(t, q, dq, u, p, ddq, lam, x)
        return self._call(t, q, dq, u, p, ddq, lam, x, out=out)


def block_function(
    blocks: Mapping[str, tuple[Sequence[Expr], tuple[int, ...]]], layout: Layout, name: str, constants: bool = True
) -> str:
    """C function ``void <name>(double _t, const double *_q, ..., const double *_lam, const double *_x,
    double *_out_<block>...)``.

    With ``constants``, the parameter-only subexpressions form a constants block
    (:mod:`symbody.codegen.constants`): ``<name>_constants`` computes them from ``_p`` into a
    thread-local array, again only when ``_p`` differs (bit for bit) from the values of the last call
    of the thread, and the blocks read them from there (:func:`_constants_cache`).
    """
    sources: dict[Expr, str] = {}
    for vec in ("q", "dq", "ddq", "u", "p", "lam", "x"):
        for i, s in enumerate(getattr(layout, vec)):
            sources[s] = f"_{vec}[{i}]"
    if layout.t is not None:
        sources[layout.t] = "_t"
    cblocks = []
    for k, (exprs, _) in blocks.items():
        asg = [CAssignment(f"_out_{k}[{i}]", e) for i, e in enumerate(exprs) if nonzero(e)]
        cblocks.append(CBlock(k, f"block {k}", asg, zero=[(f"_out_{k}", len(exprs))]))
    outs = "".join(f", double *_out_{k}" for k in blocks)
    args = (
        "double _t, const double *_q, const double *_dq, const double *_u, const double *_p, "
        f"const double *_ddq, const double *_lam, const double *_x{outs}"
    )
    unused = ["_t", "_q", "_dq", "_u", "_p", "_ddq", "_lam", "_x"]
    block = ConstantsBlock(layout.p, source=f"{name}_c[{{}}]") if constants else None
    body = c_function(f"static void {name}_blocks({args})", cblocks, sources, unused=unused, constants=block)
    if block is None or not len(block):
        return body.replace(f"static void {name}_blocks(", f"void {name}(", 1)
    calls = ", ".join(["_t", "_q", "_dq", "_u", "_p", "_ddq", "_lam", "_x", *(f"_out_{k}" for k in blocks)])
    entry = f"\nvoid {name}({args})\n{{\n    {name}_refresh(_p);\n    {name}_blocks({calls});\n}}\n"
    return _constants_cache(name, block, sources, len(layout.p)) + body + entry


def _constants_cache(name: str, block: ConstantsBlock, sources: Mapping[Expr, str], np_: int) -> str:
    """The constants block of ``<name>`` and its cache: ``<name>_c`` (the slots) and ``<name>_cp`` (the
    parameters they were computed from) thread-local, so that concurrent calls with other parameters
    (ctypes releases the GIL) never read another thread's block; ``<name>_refresh(_p)`` recomputes the
    slots when ``_p`` differs from ``<name>_cp`` bit for bit, or on the thread's first call."""
    asg = [CAssignment(f"_c[{k}]", e, f"read as {name}_c[{k}]") for k, e in enumerate(block.exprs)]
    cblock = CBlock("constants", "parameter-only subexpressions", asg)
    fill = c_function(f"static void {name}_constants(const double *_p, double *_c)", [cblock], sources, unused=["_p"])
    size = max(np_, 1)
    return f"""
/* constants block of {name}: {len(block)} parameter-only subexpressions, computed once per parameter change */
static __thread double {name}_c[{len(block)}];
static __thread double {name}_cp[{size}]; /* the parameters of {name}_c */
static __thread int {name}_cset; /* {name}_c computed on this thread */
{fill}
static void {name}_refresh(const double *_p)
{{
    if ({name}_cset && memcmp({name}_cp, _p, {np_} * sizeof(double)) == 0) return;
    {name}_constants(_p, {name}_c);
    memcpy({name}_cp, _p, {np_} * sizeof(double));
    {name}_cset = 1;
}}
"""


def _packed_wrapper(name: str, slots: list[tuple[str, int]], sizes: Sequence[int]) -> str:
    """C function ``int <name>_packed(in, out0, out1, ...)`` with ``in = [t, q, dq, u, p, ddq, lam, x]``."""
    args, k = ["_in[0]"], 1
    for _, n in slots:
        args.append(f"_in + {k}")
        k += n
    outs = [f"_out{i}" for i in range(len(sizes))]
    params = ", ".join(["const double *_in", *(f"double *{o}" for o in outs)])
    return (
        f"\n/* all inputs in one array: one pointer to pass, whichever way the function is called */\n"
        f"int {name}_packed({params})\n{{\n    {name}({', '.join(args + outs)});\n    return 0;\n}}\n"
    )


_SIGN = "static double sb_sign(double x) { return (double)((x > 0) - (x < 0)); }\n"


def compile_evaluator(eq: Equations, *names: str, extra: dict | None = None, path: str = "auto") -> CEvaluator:
    """The C counterpart of :func:`symbody.codegen.evaluators.evaluator` (same blocks, same call).

    Evaluators are cached per equations, blocks (custom ones included) and ``path``; the
    compiled libraries on disk (see :mod:`symbody.codegen.c_call`).

    Example:
        >>> from symbody.models import pendulum
        >>> eq = pendulum().derive()
        >>> M, delta = compile_evaluator(eq, "M", "delta")(0.0, eq.q0, eq.dq0, [0.5], eq.p0)
        >>> M.tolist(), delta.round(6).tolist()
        ([[1.0]], [-2.399053])
    """
    extra = extra or {}
    key = ("blocks", names, tuple((k, tuple(v[0]), tuple(v[1])) for k, v in sorted(extra.items())), path)
    cache = _CACHE.setdefault(eq, {})
    if key not in cache:
        selected = select_blocks(eq, names, extra)
        cache[key] = CEvaluator(selected, layout_of(eq), name="evaluate_" + "_".join(names), path=path)
    return cache[key]


class AccelerationEvaluator:
    """``ddq = M^-1 delta`` of an unconstrained model in one call, in C: the closed form of the equations
    where they have one (:attr:`Equations.accelerations`, its pivots checked), else ``[M | delta]`` and an
    L D L^T factorization and solve of ``M``.

    Call: ``f(t, q, dq, u, p, out=None) -> ddq`` (a new array, or ``out``, a float64 array of
    ``nq`` values, filled and returned).

    Args:
        eq: the derived equations; no constraints and no contact forces (their accelerations
            need the multipliers: :meth:`symbody.numeric.NumericModel.accelerations`).
        path: as for :class:`CEvaluator`.
        constants: as for :class:`CEvaluator`.

    Raises:
        ModelError: the model has constraints or ``[M | delta]`` uses contact forces.

    Example:
        >>> import math
        >>> from symbody.models import pendulum
        >>> eq = pendulum().derive()
        >>> ddq = AccelerationEvaluator(eq)(0.0, [0.5], [0.0], [0.0], eq.p0)
        >>> bool(abs(ddq[0] + 9.81 * math.sin(0.5)) < 1e-12)
        True
    """

    def __init__(self, eq: Equations, path: str = "auto", constants: bool = True):
        if eq.nc:
            raise ModelError(
                f"{eq.name!r} has {eq.nc} constraint rows: compiled accelerations are for unconstrained models "
                "(NumericModel.accelerations solves the constrained equations)"
            )
        closed = bool(eq.accelerations)  # ddq in closed form (symbolic elimination, articulated-body algorithm)
        blocks = {k: eq.blocks()[k] for k in (("accelerations", "pivots") if closed else ("M", "delta"))}
        layout = layout_of(eq)
        allowed = {*layout.q, *layout.dq, *layout.u, *layout.p, *([layout.t] if layout.t is not None else [])}
        stray = [s for s in free_symbols([e for exprs, _ in blocks.values() for e in exprs]) if s not in allowed]
        if stray:
            what = "a first-order state" if stray[0].kind == "state" else "a contact or constraint force"
            raise ModelError(
                f"{eq.name!r}: [M | delta] uses {stray[0]} ({what}): compiled accelerations need a model without them"
            )
        n = eq.nq
        self.nq = n
        name = "accelerations"
        self.source = "#include <math.h>\n#include <string.h>\n#include <stdlib.h>\n" + _SIGN
        kernel_text = _closed_form_kernel(name, n, layout) if closed else _LDLT + _acceleration_kernel(name, n, layout)
        self.source += block_function(blocks, layout, name, constants) + kernel_text
        slots = tuple((vec, len(getattr(layout, vec)), False) for vec in VECTORS[:4])
        failure = "the mass matrix is not positive definite (pivot %d" + f" of {n})"
        kernel = Kernel(name + "_packed", self.source, slots, ((n,),), failure, single=True)
        self._call = kernel_function(kernel, path)
        self.call_path = call_path(self._call)
        call_directly(self, self._call)  # no Python frame per call: __call__ below documents the call

    def __call__(self, t, q, dq, u, p, *, out=None) -> np.ndarray:
        """The accelerations at one point.

        Raises:
            NumericalError: the mass matrix is not positive definite (singular) at ``q``.
            ValueError, TypeError: an argument of a wrong length or type (named in the message).
        """
        if out is None:
            return self._call(t, q, dq, u, p)
        return self._call(t, q, dq, u, p, out=out)


def compile_accelerations(eq: Equations, path: str = "auto") -> AccelerationEvaluator:
    """:class:`AccelerationEvaluator` of ``eq``: ``f(t, q, dq, u, p) -> ddq``, one C call (cached per
    equations and ``path``).

    Example:
        >>> from symbody.models import pendulum
        >>> eq = pendulum().derive()
        >>> compile_accelerations(eq)(0.0, [0.0], [0.0], [0.0], eq.p0).tolist()
        [0.0]
    """
    cache = _CACHE.setdefault(eq, {})
    key = ("accelerations", path)
    if key not in cache:
        cache[key] = AccelerationEvaluator(eq, path)
    return cache[key]


#: L D L^T factorization (Cholesky without square roots) and solve of a symmetric positive definite matrix
_LDLT = """
/* Solve A x = b for a symmetric positive definite A (row-major n x n, lower triangle read) by
   A = L D L^T in place: the strict lower triangle receives L, the diagonal D, and b becomes x.
   Returns 0, or k + 1 when the k-th pivot is not positive (or NaN): A is singular or indefinite. */
static int sb_ldlt_solve_spd(int n, double *A, double *b)
{
    for (int j = 0; j < n; ++j) {
        double *Aj = A + (size_t)j * n;
        for (int k = 0; k < j; ++k) { /* L_jk = (A_jk - sum_m L_jm D_m L_km) / D_k */
            const double *Ak = A + (size_t)k * n;
            double s = Aj[k];
            for (int m = 0; m < k; ++m) s -= Aj[m] * A[(size_t)m * n + m] * Ak[m];
            Aj[k] = s / Ak[k];
        }
        double d = Aj[j]; /* D_j = A_jj - sum_k L_jk^2 D_k */
        for (int k = 0; k < j; ++k) d -= Aj[k] * Aj[k] * A[(size_t)k * n + k];
        if (!(d > 0.0)) return j + 1;
        Aj[j] = d;
    }
    for (int i = 0; i < n; ++i) { /* L y = b */
        for (int k = 0; k < i; ++k) b[i] -= A[(size_t)i * n + k] * b[k];
    }
    for (int i = 0; i < n; ++i) b[i] /= A[(size_t)i * n + i]; /* D z = y */
    for (int i = n - 1; i >= 0; --i) { /* L^T x = z */
        for (int k = i + 1; k < n; ++k) b[i] -= A[(size_t)k * n + i] * b[k];
    }
    return 0;
}
"""


def _scratch(size: int) -> tuple[str, str]:
    """Declaration and release of the kernel's scratch array ``_M`` of ``size`` doubles (heap when large)."""
    if size <= 4096:
        return f"double _M[{size}];", ""
    return f"double *_M = malloc({size} * sizeof(double));\n    if (!_M) return -1;", "\n    free(_M);"


def _closed_form_kernel(name: str, n: int, layout: Layout) -> str:
    """``int <name>_packed(in, ddq)``: the closed-form accelerations and their pivots; 0, or k + 1 when the
    pivot of coordinate k is not positive (``M`` not positive definite there)."""
    nq, ndq, nu = (len(getattr(layout, v)) for v in ("q", "dq", "u"))
    q, dq, u, p = 1, 1 + nq, 1 + nq + ndq, 1 + nq + ndq + nu
    decl, free = _scratch(n + 1)
    return f"""
/* ddq = M^-1 delta in closed form (inputs packed as [t, q, dq, u, p]), valid where every pivot is positive */
int {name}_packed(const double *_in, double *_ddq)
{{
    static const double _none[1] = {{0.0}}; /* ddq, lam and x: not used by the closed form */
    {decl}
    {name}(_in[0], _in + {q}, _in + {dq}, _in + {u}, _in + {p}, _none, _none, _none, _ddq, _M);
    int status = 0;
    for (int k = {n} - 1; k >= 0; --k)
        if (!(_M[k] > 0.0)) status = k + 1; /* also NaN; the first such coordinate */{free}
    return status;
}}
"""


def _acceleration_kernel(name: str, n: int, layout: Layout) -> str:
    """``int <name>_packed(in, ddq)``: ``[M | delta]`` into scratch arrays, then the solve."""
    nq, ndq, nu = (len(getattr(layout, v)) for v in ("q", "dq", "u"))
    q, dq, u, p = 1, 1 + nq, 1 + nq + ndq, 1 + nq + ndq + nu
    decl, free = _scratch(n * n + 1)
    return f"""
/* ddq = M^-1 delta: the blocks, then the factorization (inputs packed as [t, q, dq, u, p]) */
int {name}_packed(const double *_in, double *_ddq)
{{
    static const double _none[1] = {{0.0}}; /* ddq, lam and x: not used by [M | delta] here */
    {decl}
    {name}(_in[0], _in + {q}, _in + {dq}, _in + {u}, _in + {p}, _none, _none, _none, _M, _ddq);
    const int status = sb_ldlt_solve_spd({n}, _M, _ddq);{free}
    return status;
}}
"""


__all__ = [
    "AccelerationEvaluator",
    "CEvaluator",
    "c_compiler",
    "compile_accelerations",
    "compile_evaluator",
    "compile_shared",
]
