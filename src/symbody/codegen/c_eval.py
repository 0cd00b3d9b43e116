"""Compile blocks to C and call them in-process (through :mod:`ctypes`).

:class:`CEvaluator` has the calling convention of the numpy evaluators of
:mod:`symbody.codegen.python` -- ``f(t, q, dq, u, p, ddq=None, lam=None)``
returns a tuple of arrays, one per block -- so tests can check the generated
C against numpy block by block.

Example:
    >>> import numpy as np
    >>> from symbody.symbolic.expr import Context, sin
    >>> from symbody.codegen.python import Layout
    >>> ctx = Context(); x = ctx.symbol("x", "coordinate")
    >>> f = CEvaluator({"y": ([sin(x), 2 * sin(x)], (2,))}, Layout(q=[x]))
    >>> f(0.0, [0.5], [0.0], [], [])[0].round(6)
    array([0.479426, 0.958851])
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..errors import ExportError
from ..symbolic.expr import Expr
from .c import CAssignment, CBlock, c_function, nonzero
from .evaluators import layout_of
from .python import Layout, check_identifier

_ARRAY = np.ctypeslib.ndpointer(dtype=np.float64, flags="C_CONTIGUOUS")


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
        self._dir = tempfile.TemporaryDirectory(prefix="symbody_c_")
        src = Path(self._dir.name) / f"{name}.c"
        lib = Path(self._dir.name) / f"{name}.so"
        src.write_text(self.source)
        compile_shared([src], lib)
        self._lib = ctypes.CDLL(str(lib))
        fn = getattr(self._lib, name)
        fn.restype = None
        fn.argtypes = [ctypes.c_double] + [_ARRAY] * (6 + len(self.names))
        self._fn = fn

    @staticmethod
    def _vec(x, n: int) -> np.ndarray:
        a = np.zeros(max(n, 1)) if x is None else np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
        if a.size < max(n, 1):
            a = np.concatenate([a, np.zeros(max(n, 1) - a.size)])
        return a

    def __call__(self, t, q, dq, u, p, ddq=None, lam=None) -> tuple[np.ndarray, ...]:
        lay = self._layout
        args = [
            self._vec(q, len(lay.q)),
            self._vec(dq, len(lay.dq)),
            self._vec(u, len(lay.u)),
            self._vec(p, len(lay.p)),
            self._vec(ddq, len(lay.ddq)),
            self._vec(lam, len(lay.lam)),
        ]
        outs = [np.zeros(max(n, 1)) for n in self.sizes]
        self._fn(float(t), *args, *outs)
        return tuple(o[:n].reshape(s) for o, n, s in zip(outs, self.sizes, self.shapes))


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
