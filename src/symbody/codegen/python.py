"""Python (numpy) code generation for atomized blocks.

``python_source`` writes one function that evaluates several blocks sharing
their temporaries; ``compile_function`` compiles it in memory.  The same
source is what the Python FMU backend ships.

Argument layout of every generated function::

    f(t, q, dq, u, p, ddq=None, lam=None, x=None) -> tuple of numpy arrays

(``x``: the first-order states of the model.)

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> ctx = Context(); x = ctx.symbol("x", "coordinate")
    >>> layout = Layout(q=[x])
    >>> f = compile_function({"y": ([sin(x), 2 * sin(x)], (2,))}, layout)
    >>> [round(float(v), 4) for v in f(0.0, [0.5], [0.0], [], [])[0]]
    [0.4794, 0.9589]
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..symbolic.expr import Expr, reachable
from ..symbolic.plan import ExportPlan
from ..symbolic.printing import PythonPrinter
from .constants import ConstantsBlock


@dataclass
class Layout:
    """Where each symbol comes from in the argument vectors.

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); x, w = ctx.symbol("x"), ctx.symbol("w")
        >>> f = compile_function({"y": ([x * w], (1,))}, Layout(q=[x], extra={"w": [w]}))
        >>> f(0.0, [3.0], [], [], [], w=[2.0])[0].tolist()
        [6.0]
    """

    q: Sequence[Expr] = ()
    dq: Sequence[Expr] = ()
    ddq: Sequence[Expr] = ()
    u: Sequence[Expr] = ()
    p: Sequence[Expr] = ()
    lam: Sequence[Expr] = ()
    x: Sequence[Expr] = ()
    t: Expr | None = None
    extra: dict[str, Sequence[Expr]] = field(default_factory=dict)  # name -> symbols (extra vector arguments)

    def sources(self) -> dict[Expr, tuple[str, int]]:
        """The argument vector and index each symbol is read from.

        Example:
            >>> from symbody.symbolic.expr import Context
            >>> ctx = Context(); x, k = ctx.symbol("x"), ctx.symbol("k")
            >>> Layout(q=[x], p=[k]).sources() == {x: ("q", 0), k: ("p", 0)}
            True
        """
        src: dict[Expr, tuple[str, int]] = {}
        for vec in ("q", "dq", "ddq", "u", "p", "lam", "x"):
            for i, s in enumerate(getattr(self, vec)):
                src[s] = (vec, i)
        for vec, syms in self.extra.items():
            for i, s in enumerate(syms):
                src[s] = (vec, i)
        return src


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ARGUMENTS = frozenset({"t", "q", "dq", "u", "p", "ddq", "lam", "x", "np", "math"})  # and the globals it uses


def check_identifier(name: object, what: str) -> str:
    """``name`` if it can name a generated function, block or argument in Python and C, else ValueError.

    Example:
        >>> check_identifier("M_delta", "block")
        'M_delta'
        >>> try:
        ...     check_identifier("x); system(1", "block")
        ... except ValueError as e:
        ...     print(e)
        invalid block name 'x); system(1': use ASCII letters, digits and '_' (not a Python keyword)
    """
    if not isinstance(name, str) or not _IDENTIFIER.match(name) or keyword.iskeyword(name):
        raise ValueError(f"invalid {what} name {name!r}: use ASCII letters, digits and '_' (not a Python keyword)")
    return name


def _sign(x: float) -> float:
    return float(x > 0) - float(x < 0)  # (numpy's booleans do not subtract)


def python_source(
    blocks: Mapping[str, tuple[Sequence[Expr], tuple[int, ...]]], layout: Layout, fname: str = "evaluate"
) -> str:
    """Source of a function computing ``blocks`` (name -> (flat expressions, shape)).

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> ctx = Context(); x = ctx.symbol("x")
        >>> print(python_source({"y": ([x * x], (1,))}, Layout(q=[x]), "f"))
        def f(t, q, dq, u, p, ddq=None, lam=None, x=None):
            _q = q.tolist() if hasattr(q, 'tolist') else list(q)
            _q0 = _q[0]
            _out_y = np.array([_q0**2], dtype=float)
            return (_out_y,)
        <BLANKLINE>
    """
    check_identifier(fname, "function")
    for k in blocks:
        check_identifier(k, "block")
    for k in layout.extra:
        # locals are _<vector><index>, _<vector>, _a<k> (temporaries), _out_<block> and the helper _sign
        plain = isinstance(k, str) and re.fullmatch(r"[a-z]+", k) and not keyword.iskeyword(k)
        if not plain or k in _ARGUMENTS | {"a", "out", "sign"} or hasattr(builtins, k):
            raise ValueError(
                f"invalid argument name {k!r}: extra vectors are named with lowercase letters, "
                f"other than Python keywords, builtins and {', '.join(sorted(_ARGUMENTS | {'a', 'out', 'sign'}))}"
            )
    src = layout.sources()
    flat = {k: list(v[0]) for k, v in blocks.items()}
    names: dict[Expr, str] = {}
    # symbol names: positional, collision-free
    for s, (vec, i) in src.items():
        names[s] = f"_{vec}{i}"
    if layout.t is not None:
        names[layout.t] = "t"
    constants = ConstantsBlock(layout.p, local="_k_{}") if layout.p else None
    plan = ExportPlan(flat, names, prefix="_a", trig="expand", hoist=constants)
    printer = PythonPrinter()
    lines = []
    extra_args = "".join(f", {k}=None" for k in layout.extra)
    cache = ", _constants_=[None]" if plan.hoisted else ""  # (parameters, their constants block) of the last call
    lines.append(f"def {fname}(t, q, dq, u, p, ddq=None, lam=None, x=None{extra_args}{cache}):")
    body = []
    # unpack only the symbols used (by the planned expressions: the plan may drop some)
    inputs = set(plan.inputs)  # not the parameters only the constants block reads
    used = {s for s in src if s in inputs}
    vecs_used = sorted({src[s][0] for s in used} | ({"p"} if plan.hoisted else set()))
    for vec in vecs_used:
        body.append(f"_{vec} = {vec}.tolist() if hasattr({vec}, 'tolist') else list({vec})")
    for s in sorted(used, key=lambda s: (src[s][0], src[s][1])):
        vec, i = src[s]
        body.append(f"{names[s]} = _{vec}[{i}]")
    if plan.hoisted:
        body += _constants_block(plan, names, src, printer)
    for name, e in plan.assignments():
        body.append(f"{name} = {plan.rhs_text(e, printer)}")
    rets = []
    for k, (exprs, shape) in blocks.items():
        # the planned outputs, which refer to the temporaries (the original expressions would inline them again)
        items = [plan.rhs_text(e, printer, top=False) for e in plan.outputs[k]]
        var = f"_out_{k}"
        body.append(f"{var} = np.array([{', '.join(items)}], dtype=float)")
        if len(shape) > 1:
            body.append(f"{var} = {var}.reshape({shape})")
        elif len(exprs) == 0:
            body.append(f"{var} = np.zeros({shape})")
        rets.append(var)
    body.append(f"return ({', '.join(rets)}{',' if len(rets) == 1 else ''})")
    lines.extend("    " + b for b in body)
    return "\n".join(lines) + "\n"


def _constants_block(
    plan: ExportPlan, names: Mapping[Expr, str], src: Mapping[Expr, tuple[str, int]], printer: PythonPrinter
) -> list[str]:
    """The statements that give the constants block's locals: the block of the last call while the parameters
    are the same, else the parameter-only subexpressions computed from them (once per parameter change)."""
    hoisted = plan.hoisted
    inner = ExportPlan({"c": hoisted}, names, prefix="_b", trig="expand")
    reach, outer = reachable(inner.outputs["c"]), set(plan.inputs)
    reads = [
        f"{names[s]} = _p[{i}]"
        for s, (vec, i) in sorted(src.items(), key=lambda kv: kv[1])
        if vec == "p" and s in reach and s not in outer
    ]
    values = ", ".join(inner.rhs_text(e, printer, top=False) for e in inner.outputs["c"])
    out = ["# constants block: the parameter-only subexpressions, computed when the parameters change"]
    out.append("_key, _block = _constants_[0] if _constants_[0] is not None else (None, None)")
    out.append("if _key != _p:")
    out += ["    " + r for r in reads]
    out += [f"    {name} = {inner.rhs_text(e, printer)}" for name, e in inner.assignments()]
    out.append(f"    _block = ({values},)")
    out.append("    _constants_[0] = (_p, _block)")
    out.append(f"{', '.join(plan.names[e] for e in hoisted)}, = _block")
    return out


def compile_function(
    blocks: Mapping[str, tuple[Sequence[Expr], tuple[int, ...]]], layout: Layout, fname: str = "evaluate"
) -> Callable[..., Any]:
    """Compile the blocks into a Python function (see module docstring for the signature and an example)."""
    source = python_source(blocks, layout, fname)
    namespace: dict[str, Any] = {"math": math, "np": np, "_sign": _sign}
    code = compile(source, f"<symbody:{fname}>", "exec")
    exec(code, namespace)  # noqa: S102 - generated from our own expression DAG
    fn = namespace[fname]
    fn.source = source
    return fn
