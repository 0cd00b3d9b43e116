"""Exceptions raised by symbody."""


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


class NumericalError(SymbodyError, RuntimeError):
    """A numerical analysis failed (no convergence, singular matrix, inconsistent data)."""


class ExportError(SymbodyError, RuntimeError):
    """Code generation, compilation or FMU packaging failed."""


class ArgumentError(SymbodyError, ValueError):
    """A value given on the command line (or to a function parsing one) cannot be used.

    The message names the argument and says what would be accepted.
    """
