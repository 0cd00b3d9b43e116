"""Compile blocks to C and call them in-process (through :mod:`ctypes`).

:class:`CEvaluator` has the calling convention of the numpy evaluators of
:mod:`symbody.codegen.python` -- ``f(t, q, dq, u, p, ddq=None, lam=None)``
returns a tuple of arrays, one per block -- so tests can check the generated
C against numpy block by block.  A call costs about a microsecond beyond the
evaluation itself: the arguments are copied into one preallocated buffer (their
lengths checked, a wrong one refused by name), one ``ctypes`` call passes
addresses converted once at compilation, and the results are fresh copies.

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

import ctypes
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..errors import ExportError
from ..symbolic.expr import Expr
from .c import CAssignment, CBlock, c_function, nonzero
from .evaluators import layout_of
from .python import Layout, check_identifier


def c_compiler() -> str:
    """The C compiler to use: ``$CC`` or ``gcc``/``cc`` on PATH.

    Raises:
        ExportError: no compiler is found.
    """
    cc = os.environ.get("CC")
    if cc:
        return cc
    for candidate in ("gcc", "cc", "clang"):
        path = shutil.which(candidate)
        if path:
            return path
    raise ExportError("no C compiler found: install gcc (or set the CC environment variable)")


def compile_shared(
    sources: Sequence[Path], output: Path, include: Sequence[Path] = (), flags: Sequence[str] = ()
) -> None:
    """Compile C sources into a shared library with the system compiler (``-O2 -fPIC -shared``).

    Raises:
        ExportError: the compiler is missing or reports an error (its message is included).
    """
    cmd = [c_compiler(), "-std=c99", "-O2", "-fPIC", "-shared", *flags]
    cmd += [f"-I{p}" for p in include]
    cmd += [str(s) for s in sources]
    cmd += ["-o", str(output), "-lm"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise ExportError(f"cannot run the C compiler {cmd[0]!r}: {e}") from None
    if proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip()
        raise ExportError(f"C compilation failed ({' '.join(cmd[:2])} ...):\n{msg[:4000]}")


class CEvaluator:
    """Blocks compiled to a shared library, called like a numpy evaluator.

    Args:
        blocks: block name -> (flat expressions, shape), as in :meth:`symbody.Equations.blocks`.
        layout: where the symbols come from (:class:`symbody.codegen.python.Layout`).
        name: name of the C function.

    Attributes:
        source: the generated C source.
    """

    def __init__(
        self, blocks: Mapping[str, tuple[Sequence[Expr], tuple[int, ...]]], layout: Layout, name: str = "evaluate"
    ):
        check_identifier(name, "function")
        self.names = [check_identifier(k, "block") for k in blocks]
        self.shapes = [tuple(blocks[k][1]) for k in self.names]
        self.sizes = [int(np.prod(s)) if len(s) else 1 for s in self.shapes]
        self._layout = layout
        sources: dict[Expr, str] = {}
        for vec in ("q", "dq", "ddq", "u", "p", "lam"):
            for i, s in enumerate(getattr(layout, vec)):
                sources[s] = f"_{vec}[{i}]"
        if layout.t is not None:
            sources[layout.t] = "_t"
        cblocks = []
        for k, (exprs, _) in blocks.items():
            size = len(exprs)
            asg = [CAssignment(f"_out_{k}[{i}]", e) for i, e in enumerate(exprs) if nonzero(e)]
            cblocks.append(CBlock(k, f"block {k}", asg, zero=[(f"_out_{k}", size)]))
        outs = "".join(f", double *_out_{k}" for k in self.names)
        sig = (
            f"void {name}(double _t, const double *_q, const double *_dq, const double *_u, const double *_p, "
            f"const double *_ddq, const double *_lam{outs})"
        )
        unused = ["_t", "_q", "_dq", "_u", "_p", "_ddq", "_lam"]
        self.source = (
            "#include <math.h>\n#include <string.h>\n" + _SIGN + c_function(sig, cblocks, sources, unused=unused)
        )
        self.source += _packed_wrapper(name, self._slots, self.sizes)
        self._dir = tempfile.TemporaryDirectory(prefix="symbody_c_")
        src = Path(self._dir.name) / f"{name}.c"
        lib = Path(self._dir.name) / f"{name}.so"
        src.write_text(self.source)
        compile_shared([src], lib)
        self._call = _PackedCall(ctypes.PyDLL(str(lib)), name + "_packed", self._slots, self.shapes)

    @property
    def _slots(self) -> list[tuple[str, int]]:
        lay = self._layout
        return [(vec, len(getattr(lay, vec))) for vec in ("q", "dq", "u", "p", "ddq", "lam")]

    def __call__(self, t, q, dq, u, p, ddq=None, lam=None) -> tuple[np.ndarray, ...]:
        """The blocks at one point, as fresh arrays (one per block, in the order of the names).

        Raises:
            ValueError: an argument has not the length of its vector in the layout.
        """
        c = self._call
        values = (q, dq, u, p)
        try:
            ok = (len(q), len(dq), len(u), len(p)) == c.lengths
        except TypeError:
            ok = False
        if not ok:
            c.refuse(values)
        with c.lock:
            c.buffer[0] = t
            for k, view in c.required:
                view[:] = values[k]
            if ddq is not None or lam is not None or c.optional_set:
                c.set_optional(ddq, lam)
            c.fn(*c.args)
            return tuple([o.copy() for o in c.outs])


class _PackedCall:
    """One C call per evaluation: the arguments are copied into one preallocated input buffer
    whose address (like those of the output arrays) is converted once, not at every call.

    ``ctypes.PyDLL`` keeps the interpreter lock during the call and a lock serializes callers,
    so threads sharing an evaluator cannot overwrite each other's buffers.
    """

    def __init__(self, lib: ctypes.PyDLL, symbol: str, slots: list[tuple[str, int]], shapes: list):
        self._lib = lib  # kept alive with the function
        fn = getattr(lib, symbol)
        fn.restype = None
        fn.argtypes = None  # the arguments below are ready-made ctypes objects
        self.fn = fn
        self.buffer = np.zeros(1 + sum(n for _, n in slots))
        # one output array per block, in its final shape: a call returns copies of them
        self.outs = [np.zeros(shape) for shape in shapes]
        self.args = tuple(ctypes.c_void_p(a.ctypes.data) for a in (self.buffer, *self.outs))
        self.slots = slots
        self.views: list[np.ndarray] = []
        k = 1
        for _, n in slots:
            self.views.append(self.buffer[k : k + n])
            k += n
        self.lengths = tuple(n for _, n in slots[:4])
        self.required = [(k, self.views[k]) for k in range(4) if slots[k][1]]
        self.optional_set = False  # ddq or lam hold values of an earlier call
        self.lock = threading.Lock()

    def refuse(self, values) -> None:
        """Raise the error that names the first argument of a wrong length."""
        for (vec, n), x in zip(self.slots, values):
            if x is None:
                raise ValueError(f"{vec} is required ({n} values)")
            if not hasattr(x, "__len__"):
                raise ValueError(f"{vec} must be a sequence of {n} values, not {type(x).__name__}")
            if len(x) != n:
                raise ValueError(f"{vec} has {len(x)} values, the model has {n}")

    def set_optional(self, ddq, lam) -> None:
        """Copy ``ddq`` and ``lam`` (zeros where ``None``); the lock is held."""
        for (vec, n), view, x in zip(self.slots[4:], self.views[4:], (ddq, lam)):
            if x is None:
                view[:] = 0.0
            elif len(x) != n:
                raise ValueError(f"{vec} has {len(x)} values, the model has {n}")
            elif n:
                view[:] = x
        self.optional_set = ddq is not None or lam is not None


def _packed_wrapper(name: str, slots: list[tuple[str, int]], sizes: Sequence[int]) -> str:
    """C function ``<name>_packed(in, out0, out1, ...)`` with ``in = [t, q, dq, u, p, ddq, lam]``."""
    args, k = ["_in[0]"], 1
    for _, n in slots:
        args.append(f"_in + {k}")
        k += n
    outs = [f"_out{i}" for i in range(len(sizes))]
    params = ", ".join(["const double *_in", *(f"double *{o}" for o in outs)])
    return (
        f"\n/* all inputs in one buffer, so that Python converts no address at a call */\n"
        f"void {name}_packed({params})\n{{\n    {name}({', '.join(args + outs)});\n}}\n"
    )


_SIGN = "static double sb_sign(double x) { return (double)((x > 0) - (x < 0)); }\n"


def compile_evaluator(eq, *names: str, extra: dict | None = None) -> CEvaluator:
    """The C counterpart of :func:`symbody.codegen.evaluators.evaluator` (same blocks, same call).

    Example:
        >>> from symbody.models import pendulum
        >>> eq = pendulum().derive()
        >>> M, delta = compile_evaluator(eq, "M", "delta")(0.0, eq.q0, eq.dq0, [0.5], eq.p0)
        >>> M.tolist(), delta.round(6).tolist()
        ([[1.0]], [-2.399053])
    """
    allb = eq.blocks()
    if extra:
        allb.update(extra)
    sel = {}
    for n in names:
        if n not in allb:
            raise KeyError(f"unknown block {n!r}; available: {', '.join(allb)}")
        sel[n] = allb[n]
    return CEvaluator(sel, layout_of(eq), name="evaluate_" + "_".join(names))
