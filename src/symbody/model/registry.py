"""The names of a model and the transactions that keep it consistent.

Every object of a :class:`symbody.System` that the user names (parameters,
coordinates and their rates, inputs, bases, points, frames, solids, loads,
constraint rows, multipliers, joints, outputs, ...) claims its name in one
:class:`Registry`.  A factory of the system runs inside
:meth:`Registry.transaction`: when it fails half-way (a
:class:`symbody.errors.ModelError` after it has claimed names, created symbols
or appended rows), everything it changed is undone, so the system is exactly
as it was before the call and the same call with corrected arguments succeeds.

Example:
    >>> reg = Registry()
    >>> points: dict[str, str] = {}
    >>> reg.track(points)
    >>> try:
    ...     with reg.transaction():
    ...         reg.claim("A", "point")
    ...         points["A"] = "A"
    ...         reg.claim("A", "point")  # fails half-way
    ... except ModelError as e:
    ...     print(e)
    duplicate name 'A': already used by point 'A'
    >>> "A" in reg, points
    (False, {})
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar, cast

from ..errors import ModelError

if TYPE_CHECKING:
    from .system import System

IDENTIFIER_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

# names that would clash in the generated C and Python code (keywords, math functions, fixed names)
RESERVED_IN_CODE = frozenset(
    """
    auto break case char const continue default do double else enum extern float for goto if int long
    register return short signed sizeof static struct switch typedef union unsigned void volatile while
    inline restrict sin cos tan exp log sqrt pow fabs tanh atan2 math np t M delta self lambda None True
    False and or not in is def class import from pass with yield try except raise global nonlocal assert
    del elif finally as async await
    """.split()
)

#: Longest name of a model object, names symbody builds from them included (``d<coordinate>``,
#: ``lambda_<constraint row>``, ``force_<contact>``): FMU variable names built from it (``dd<name>``,
#: ``<name>.indicator``) stay far below the 4095 characters ISO C99 guarantees a string literal
#: (C99 5.2.4.1), so the generated C compiles with ``-std=c99 -pedantic``.
MAX_NAME_LENGTH = 1000

# kinds of object whose names never reach generated code as variables
_KINDS_FREE_OF_CODE = ("time", "base", "point", "frame")


def check_identifier(name: Any, what: str) -> None:
    """Raise :class:`ModelError` unless ``name`` is a valid identifier for a ``what``.

    Example:
        >>> check_identifier("theta_1", "coordinate")
        >>> try:
        ...     check_identifier("1theta", "coordinate")
        ... except ModelError as e:
        ...     print(e)
        invalid coordinate name '1theta': use letters, digits and '_' (not starting with a digit)
        >>> try:
        ...     check_identifier("x" * 5000, "parameter")
        ... except ModelError as e:
        ...     print(e)
        parameter name 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... is 5000 characters long: at most 1000
    """
    if isinstance(name, str) and len(name) > MAX_NAME_LENGTH:
        raise ModelError(f"{what} name {name[:40]!r}... is {len(name)} characters long: at most {MAX_NAME_LENGTH}")
    if not isinstance(name, str) or not name or name[0].isdigit() or not set(name) <= IDENTIFIER_CHARACTERS:
        raise ModelError(f"invalid {what} name {name!r}: use letters, digits and '_' (not starting with a digit)")


class Journaled(Protocol):
    """A container a transaction restores by length: a list or a dict that only grows during a call."""

    def __len__(self) -> int: ...


class Registry:
    """The names claimed in one system, each with the kind of object that owns it.

    It also knows the system's containers (:meth:`track`): lists and dicts that
    a factory only appends to, which a failed transaction cuts back to their
    length at its start (a dict forgets its newest keys first, as insertion
    order keeps them).  Other changes register an undo action
    (:meth:`on_rollback`).

    Example:
        >>> reg = Registry()
        >>> reg.claim("m", "parameter")
        >>> reg.kind("m"), "m" in reg, len(reg)
        ('parameter', True, 1)
    """

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._tracked: list[Journaled] = [self._names]
        self._undo: list[Callable[[], None]] | None = None  # the open transaction's undo actions

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __len__(self) -> int:
        return len(self._names)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def kind(self, name: str) -> str | None:
        """The kind of object that owns ``name`` (``"parameter"``, ``"point"``, ...), or ``None``."""
        return self._names.get(name)

    def items(self) -> list[tuple[str, str]]:
        """Every ``(name, kind)`` pair in the order the names were claimed."""
        return list(self._names.items())

    def check(self, name: Any, what: str) -> None:
        """Raise :class:`ModelError` if ``name`` is invalid for a ``what`` or taken (without claiming it).

        Example:
            >>> reg = Registry()
            >>> try:
            ...     reg.check("sin", "parameter")
            ... except ModelError as e:
            ...     print(e)
            invalid parameter name 'sin': it is reserved in generated code
        """
        check_identifier(name, what)
        if name in self._names:
            raise ModelError(f"duplicate name {name!r}: already used by {self._names[name]} {name!r}")
        if name in RESERVED_IN_CODE and what not in _KINDS_FREE_OF_CODE:
            raise ModelError(f"invalid {what} name {name!r}: it is reserved in generated code")

    def claim(self, name: str, what: str) -> None:
        """Check ``name`` (:meth:`check`) and record it as the name of a ``what``."""
        self.check(name, what)
        self._names[name] = what

    # ------------------------------------------------------------------
    # transactions
    # ------------------------------------------------------------------
    def track(self, *containers: Journaled) -> None:
        """Restore these lists or dicts when a transaction fails (they must only grow inside one)."""
        self._tracked.extend(containers)

    def on_rollback(self, undo: Callable[[], None]) -> None:
        """Run ``undo`` if the open transaction fails (nothing happens outside a transaction)."""
        if self._undo is not None:
            self._undo.append(undo)

    @property
    def in_transaction(self) -> bool:
        """True while a transaction is open."""
        return self._undo is not None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing: an exception inside the block undoes every tracked change, then propagates.

        A transaction opened inside another one joins it: the outermost one decides.
        """
        if self._undo is not None:
            yield
            return
        lengths = [len(c) for c in self._tracked]
        tracked = list(self._tracked)
        self._undo = []
        try:
            yield
        except BaseException:
            undo, self._undo = self._undo, None
            for action in reversed(undo):
                action()
            for container, n in zip(tracked, lengths):
                _cut(container, n)
            raise
        finally:
            self._undo = None


def _cut(container: Journaled, n: int) -> None:
    """Shorten a list, or a dict by its newest keys, to ``n`` items."""
    if isinstance(container, list):
        del container[n:]
    elif isinstance(container, dict):
        while len(container) > n:
            container.popitem()


class HasRegistry(Protocol):
    """An object whose factories run in its registry's transactions."""

    registry: Registry


Owner = TypeVar("Owner", bound=HasRegistry)
Args = ParamSpec("Args")
Result = TypeVar("Result")


def atomic(method: Callable[Concatenate[Owner, Args], Result]) -> Callable[Concatenate[Owner, Args], Result]:
    """Run a factory method in a transaction of its object's registry (all or nothing).

    Example:
        >>> class Catalogue:
        ...     def __init__(self):
        ...         self.registry = Registry()
        ...     @atomic
        ...     def add_pair(self, a, b):
        ...         self.registry.claim(a, "item")
        ...         self.registry.claim(b, "item")
        >>> c = Catalogue()
        >>> try:
        ...     c.add_pair("x", "x")
        ... except ModelError:
        ...     pass
        >>> list(c.registry)
        []
    """

    @functools.wraps(method)
    def run(self: Owner, /, *args: Args.args, **kwargs: Args.kwargs) -> Result:
        with self.registry.transaction():
            return method(self, *args, **kwargs)

    return run


class Facet:
    """Base of the mixins that give :class:`symbody.System` the methods of one concept each.

    A mixin's methods are thin: they run the functions of their module on the system they are part of.

    Example:
        >>> import symbody as sb
        >>> from symbody.model.quantities import QuantitiesMixin
        >>> issubclass(sb.System, QuantitiesMixin), sb.System.parameter.__module__
        (True, 'symbody.model.quantities')
    """

    registry: Registry

    @property
    def _system(self) -> System:
        """This object as the :class:`symbody.System` it is a part of (the mixins are used only there)."""
        return cast("System", self)
