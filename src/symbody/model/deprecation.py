"""Old spellings of the model API that keep working for one release, with a :class:`DeprecationWarning`.

symbody 0.2 made the options of :class:`symbody.System`'s methods keyword-only (they follow the
names, points and bases an object is made of) and renamed a few methods; the old calls still run in
0.2 and warn, naming the new spelling, and stop working in 0.3.

Example:
    >>> import warnings
    >>> import symbody as sb
    >>> s = sb.System("old")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     m = s.parameter("m", 2.0, "kg")
    >>> s.parameters["m"].unit, caught[0].category.__name__
    ('kg', 'DeprecationWarning')
    >>> print(caught[0].message)
    System.parameter: pass unit by keyword (unit=...); the old form stops working in symbody 0.3
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

Params = ParamSpec("Params")
Result = TypeVar("Result")

#: the release that drops the old spellings
REMOVED_IN = "0.3"


def warn_deprecated(message: str) -> None:
    """Warn with a :class:`DeprecationWarning` pointing at the caller of the deprecated method.

    The frames of the wrappers (this module's, :func:`~symbody.model.registry.atomic`) are skipped.
    """
    wrappers = {__file__, sys.modules[__package__ + ".registry"].__file__}
    frame, level = sys._getframe(2), 3
    while frame.f_back is not None and frame.f_code.co_filename in wrappers:
        frame, level = frame.f_back, level + 1
    warnings.warn(f"{message}; the old form stops working in symbody {REMOVED_IN}", DeprecationWarning, level)


def formerly_positional(
    *names: str, where: str = "System"
) -> Callable[[Callable[Params, Result]], Callable[Params, Result]]:
    """Accept the keyword-only options ``names`` of a function also by position, with a warning.

    ``names`` are in their positional order before 0.2; ``where`` names the function's owner in the
    warning (:class:`symbody.System` for its methods, which live in mixins; a module for functions).

    The decorated method keeps its own signature and documentation (``help`` shows them).

    Example:
        >>> import warnings
        >>> class Spring:
        ...     @formerly_positional("damping")
        ...     def set(self, k, *, damping=0.0):
        ...         return k, damping
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     Spring().set(1.0, 0.5)
        (1.0, 0.5)
        >>> str(inspect.signature(Spring.set))
        '(self, k, *, damping=0.0)'
    """

    def wrap(method: Callable[Params, Result]) -> Callable[Params, Result]:
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        count = sum(p.kind in kinds for p in inspect.signature(method).parameters.values())
        owner = f"{where}.{method.__name__}"

        @functools.wraps(method)
        def run(*args: Any, **kwargs: Any) -> Result:
            extra = args[count:]
            if extra:
                if len(extra) > len(names):
                    raise TypeError(f"{owner}() takes at most {count + len(names)} positional arguments")
                given = names[: len(extra)]
                for name, value in zip(given, extra):
                    if name in kwargs:
                        raise TypeError(f"{owner}() got multiple values for argument {name!r}")
                    kwargs[name] = value
                spelled = ", ".join(f"{n}=..." for n in given)
                warn_deprecated(f"{owner}: pass {', '.join(given)} by keyword ({spelled})")
                args = args[:count]
            return method(*args, **kwargs)

        return run

    return wrap
