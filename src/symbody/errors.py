"""Exceptions raised by symbody, and where its warnings point."""

import sys
from pathlib import Path

_PACKAGE = str(Path(__file__).resolve().parent)


def caller_stacklevel() -> int:
    """The ``stacklevel`` that makes :func:`warnings.warn`, called in the function that calls this,
    point at the first caller outside symbody (whichever wrappers and helpers lie between).

    Example:
        >>> import warnings
        >>> def check():
        ...     warnings.warn("looked at", UserWarning, stacklevel=caller_stacklevel())
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     check()
        >>> caught[0].filename == __file__ or caught[0].filename.startswith("<doctest")
        True
    """
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


class SymbodyError(Exception):
    """Base class of symbody's errors."""


class ModelError(SymbodyError, ValueError):
    """A model is malformed; the message names the object at fault and what is wrong.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("m")
        >>> _ = s.parameter("k", 1.0)
        >>> try:
        ...     s.parameter("k", 2.0)
        ... except sb.ModelError as e:
        ...     print(e)
        duplicate name 'k': already used by parameter 'k'
    """


class UndeclaredSymbolError(ModelError, NameError):
    """A symbol of an expression given to a model (a SymPy symbol) has no counterpart in its symbol table.

    Raised by :func:`symbody.symbolic.sympy_bridge.from_sympy`; defined here so that the model layer can
    catch it without importing SymPy.

    Example:
        >>> import sympy
        >>> from symbody.symbolic.expr import Context
        >>> from symbody.symbolic.sympy_bridge import from_sympy
        >>> try:
        ...     from_sympy(sympy.Symbol("k"), Context())
        ... except UndeclaredSymbolError as e:
        ...     print(e.name, "|", e)
        k | symbol 'k' is used but never declared
    """

    def __init__(self, name: str):
        super().__init__(f"symbol {name!r} is used but never declared")
        self.name = name


class NumericalError(SymbodyError, RuntimeError):
    """A numerical analysis failed (no convergence, singular matrix, inconsistent data)."""


class ExportError(SymbodyError, RuntimeError):
    """Code generation, compilation or FMU packaging failed."""


class ArgumentError(SymbodyError, ValueError):
    """A value given on the command line (or to a function parsing one) cannot be used.

    The message names the argument and says what would be accepted.
    """
