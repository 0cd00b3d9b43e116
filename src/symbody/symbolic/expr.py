"""Hash-consed expression DAG: the atom table of symbody, in one import.

Every expression is an :class:`Expr` node.  Nodes are created only through the
constructor functions (:func:`add`, :func:`mul`, :func:`neg`, :func:`pow_`,
:func:`sin`, ...), which apply a handful of cheap local simplifications and then
look the node up in the hash table of its :class:`Context`.  A structurally
identical expression therefore exists only once: every non-trivial node is an
*atom* in the sense of lib_3D_MEC-GiNaC (Plaza Puértolas, 2015, ch. 3), built on
the fly, one operator at a time.

This module gathers the algebra core's building blocks, which live in one module
per concept:

* :mod:`~symbody.symbolic.atoms`: the node class, operation codes, contexts and numbers;
* :mod:`~symbody.symbolic.arithmetic`: sums, products, negation and powers in canonical form;
* :mod:`~symbody.symbolic.functions`: elementary functions and :func:`rebuild`;
* :mod:`~symbody.symbolic.walks`: walks over the DAG.

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> ctx = Context()
    >>> x, y = ctx.symbol("x"), ctx.symbol("y")
    >>> (x - y) is -(y - x)
    True
    >>> sin(-x) is -sin(x)
    True
"""

from __future__ import annotations

from .arithmetic import add, div, dot3, mul, mul_pair, neg, pow_, sqrt, sub, sum_exprs
from .atoms import (
    ABS,
    ACOS,
    ADD,
    ASIN,
    ATAN,
    ATAN2,
    COS,
    EXP,
    FUNCTION_NAMES,
    HALF,
    LOG,
    MINUS_ONE,
    MUL,
    NEG,
    NUM,
    ONE,
    OP_NAMES,
    PI,
    POW,
    SIGN,
    SIN,
    SYM,
    TAN,
    TANH,
    TWO,
    ZERO,
    Context,
    Expr,
    Number,
    as_expr,
    as_number,
    num,
    symbol_name,
)
from .functions import FUNCTION_BUILDERS, Abs, acos, asin, atan, atan2, cos, exp, log, rebuild, sign, sin, tan, tanh
from .walks import free_symbols, reachable, walk

__all__ = [
    "ABS",
    "ACOS",
    "ADD",
    "ASIN",
    "ATAN",
    "ATAN2",
    "COS",
    "EXP",
    "FUNCTION_BUILDERS",
    "FUNCTION_NAMES",
    "HALF",
    "LOG",
    "MINUS_ONE",
    "MUL",
    "NEG",
    "NUM",
    "ONE",
    "OP_NAMES",
    "PI",
    "POW",
    "SIGN",
    "SIN",
    "SYM",
    "TAN",
    "TANH",
    "TWO",
    "ZERO",
    "Abs",
    "Context",
    "Expr",
    "Number",
    "acos",
    "add",
    "as_expr",
    "as_number",
    "asin",
    "atan",
    "atan2",
    "cos",
    "div",
    "dot3",
    "exp",
    "free_symbols",
    "log",
    "mul",
    "mul_pair",
    "neg",
    "num",
    "pow_",
    "reachable",
    "rebuild",
    "sign",
    "sin",
    "sqrt",
    "sub",
    "sum_exprs",
    "symbol_name",
    "tan",
    "tanh",
    "walk",
]
