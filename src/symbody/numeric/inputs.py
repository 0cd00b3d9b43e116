"""Input signals for simulations: constants, functions of time, feedback laws and sampled data.

:func:`input_function` turns what the user gives into one function
``u(t, q, dq) -> array`` in the order of ``eq.inputs``:

- ``None``: the model's default input values;
- an array of ``nu`` numbers: constant inputs;
- a callable ``f(t)`` or ``f(t, q, dq)`` returning all ``nu`` inputs (feedback when it uses the state);
- a dict ``{input name: spec}`` where each spec is a number, a callable ``f(t)``
  or ``f(t, q, dq)`` returning a number, a :class:`Sampled` signal or a
  ``(times, values)`` pair (linear interpolation); unnamed inputs keep their defaults.

A motion input ``z`` (:meth:`symbody.System.motion_input`) is given in the dict by its name, as one
signal of time with its derivatives, which fill the inputs ``z``, ``dz`` and ``ddz``: a number (held
still), a callable ``f(t)`` returning ``(z, dz, ddz)``, or a twice-differentiable :class:`Sampled`
signal (``kind="cubic"``, or with its derivatives given); a piecewise-linear signal has no usable
``ddz`` and is refused, as are entries for ``dz`` and ``ddz`` alone.

Example:
    >>> import numpy as np
    >>> import symbody as sb
    >>> s = sb.System("cart"); x = s.coordinate("x"); m = s.parameter("m", 2.0)
    >>> _ = s.particle("c", s.point("P", s.origin, (x, 0, 0)), m)
    >>> F = s.input("F", 1.0); T = s.input("T", 0.0)
    >>> _ = s.generalized_force("push", x, F + T)
    >>> eq = s.derive()
    >>> u = input_function(eq, {"F": lambda t: 2 * t, "T": Sampled([0, 1], [0, 10])})
    >>> u(0.5, np.zeros(1), np.zeros(1))
    array([1., 5.])
    >>> u = input_function(eq, {"F": lambda t, q, dq: -3.0 * q[0]})   # feedback
    >>> u(0.0, np.array([0.2]), np.zeros(1))
    array([-0.6,  0. ])

A motion input (a cart pushed along by the position of its base):
    >>> s = sb.System("base"); x = s.coordinate("x"); z = s.motion_input("z")
    >>> _ = s.particle("c", s.point("P", s.point("A", s.origin, (z, 0, 0)), (x, 0, 0)), 1.0)
    >>> eq = s.derive()
    >>> u = input_function(eq, {"z": lambda t: (np.sin(t), np.cos(t), -np.sin(t))})
    >>> u(0.0, np.zeros(1), np.zeros(1))
    array([ 0.,  1., -0.])
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .sampled import Sampled

if TYPE_CHECKING:
    from ..equations import Equations


def _arity(f: Callable, what: str) -> int:
    """1 for ``f(t)``, 3 for ``f(t, q, dq)``."""
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):  # builtins without signature: assume f(t)
        return 1
    params = [
        p
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values())
    if len(params) == 1 and not varargs:
        return 1
    if len(params) == 3 or (varargs and len(params) <= 3):
        return 3
    raise TypeError(f"{what}: a callable input must take (t) or (t, q, dq), got {len(params)} arguments")


class InputFunction:
    """``u(t, q, dq)`` in the order of ``eq.inputs``; ``depends_on_state`` tells feedback laws apart.

    Attributes:
        breakpoints: sorted times where an input jumps or has a kink (the sample times of sampled
            signals); the integrators end steps there.
    """

    def __init__(
        self,
        fn: Callable[[float, np.ndarray, np.ndarray], np.ndarray],
        nu: int,
        depends_on_state: bool,
        breakpoints: Any = (),
    ):
        self._fn = fn
        self.nu = nu
        self.depends_on_state = depends_on_state
        self.breakpoints = np.unique(np.asarray(breakpoints, dtype=float).reshape(-1))
        self._end: float | None = None
        self._before_end = 0.0

    def segment(self, end: float | None) -> None:
        """Evaluate as on a motion that ends at ``end`` (``None``: everywhere as given): at ``end`` itself
        the inputs take their values just before it, the held value of the sample ending there."""
        self._end = end
        self._before_end = float(np.nextafter(end, -np.inf)) if end is not None else 0.0

    def __call__(self, t: float, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        if self._end is not None and t >= self._end:
            t = self._before_end
        return self._fn(t, q, dq)


def _scalar_spec(spec: Any, name: str) -> tuple[Callable[[float, np.ndarray, np.ndarray], float], bool, np.ndarray]:
    """The function of one input, whether it reads the state, and its breakpoints."""
    none = np.zeros(0)
    if isinstance(spec, tuple) and len(spec) == 2 and not callable(spec[0]):
        spec = Sampled(spec[0], spec[1])
    if isinstance(spec, Sampled):
        if np.asarray(spec.values).ndim != 1:
            raise ValueError(f"input {name!r}: a Sampled signal for one input must have 1-D values")
        return (lambda t, q, dq: float(spec(t))), False, spec.breakpoints
    if callable(spec):
        if _arity(spec, f"input {name!r}") == 1:
            return (lambda t, q, dq: float(spec(t))), False, none
        return (lambda t, q, dq: float(spec(t, q, dq))), True, none
    try:
        v = float(spec)
    except (TypeError, ValueError):
        raise TypeError(
            f"input {name!r}: expected a number, a callable f(t) or f(t, q, dq), a Sampled signal or "
            f"(times, values), got {spec!r}"
        ) from None
    return (lambda t, q, dq: v), False, none


def _motion_spec(spec: Any, name: str) -> tuple[Callable[[float], np.ndarray], np.ndarray]:
    """``(z, dz, ddz)`` of one motion input as a function of time, and its breakpoints."""
    none = np.zeros(0)
    if isinstance(spec, tuple) and len(spec) == 2 and not callable(spec[0]):
        spec = Sampled(spec[0], spec[1])
    if isinstance(spec, Sampled):
        if np.asarray(spec.values).ndim != 1:
            raise ValueError(f"motion input {name!r}: a Sampled signal for one motion input must have 1-D values")
        if not spec.smooth:
            raise ValueError(
                f"motion input {name!r}: a {spec.kind!r} Sampled signal has no usable acceleration dd{name}: use "
                "kind='cubic' (a spline through the samples) or give the derivatives "
                "(Sampled(times, values, derivatives=(first, second)))"
            )
        return (lambda t: np.array(spec.motion(t), dtype=float)), spec.breakpoints
    if callable(spec):
        if _arity(spec, f"motion input {name!r}") != 1:
            raise TypeError(f"motion input {name!r}: a motion input is a signal of time: give f(t) -> (z, dz, ddz)")

        def fn(t: float) -> np.ndarray:
            v = np.asarray(spec(t), dtype=float).reshape(-1)
            if v.size != 3:
                raise ValueError(
                    f"motion input {name!r}: the callable must return (z, dz, ddz), the position and its first two "
                    f"time derivatives, not {v.size} value(s)"
                )
            return v

        return fn, none
    try:
        v = float(spec)
    except (TypeError, ValueError):
        raise TypeError(
            f"motion input {name!r}: expected a number, a callable f(t) returning (z, dz, ddz) or a Sampled "
            f"signal of kind 'cubic' (or with its derivatives), got {spec!r}"
        ) from None
    held = np.array([v, 0.0, 0.0])
    return (lambda t: held), none


def input_function(eq: Equations, inputs: Any = None, defaults: np.ndarray | None = None) -> InputFunction:
    """Resolve an input specification (see module docstring) into an :class:`InputFunction`."""
    names = [u.name for u in eq.inputs]
    nu = len(names)
    u0 = np.array(eq.u0 if defaults is None else defaults, dtype=float)
    if inputs is None:
        return InputFunction(lambda t, q, dq: u0.copy(), nu, False)
    if isinstance(inputs, InputFunction):
        return inputs
    if isinstance(inputs, dict):
        unknown = [k for k in inputs if k not in names]
        if unknown:
            raise KeyError(
                f"unknown input(s) {', '.join(map(repr, unknown))}; inputs are: {', '.join(names) or 'none'}"
            )
        roles = {u.name: u for u in eq.inputs}
        for k in inputs:
            if roles[k].motion in ("velocity", "acceleration"):
                raise KeyError(
                    f"input {k!r} is the {roles[k].motion} of motion input {roles[k].signal!r}: give "
                    f"{roles[k].signal!r} as one signal with its derivatives"
                )
        parts = [(names.index(k), *_scalar_spec(v, k)) for k, v in inputs.items() if not roles[k].motion]
        motions = [(names.index(k), *_motion_spec(v, k)) for k, v in inputs.items() if roles[k].motion]
        state = any(p[2] for p in parts)

        def fn(t: float, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
            u = u0.copy()
            for i, f, _, _ in parts:
                u[i] = f(t, q, dq)
            for i, g, _ in motions:
                u[i : i + 3] = g(t)
            return u

        breakpoints = [np.zeros(0)] + [p[3] for p in parts] + [m[2] for m in motions]
        return InputFunction(fn, nu, state, np.concatenate(breakpoints))
    if isinstance(inputs, Sampled):
        if nu == 1 and np.asarray(inputs.values).ndim == 1:
            return input_function(eq, {names[0]: inputs}, u0)
        return InputFunction(
            lambda t, q, dq: _check(np.asarray(inputs(t), dtype=float), nu), nu, False, inputs.breakpoints
        )
    if callable(inputs):
        if _arity(inputs, "inputs") == 1:
            return InputFunction(lambda t, q, dq: _check(inputs(t), nu), nu, False)
        return InputFunction(lambda t, q, dq: _check(inputs(t, q, dq), nu), nu, True)
    arr = np.asarray(inputs, dtype=float).reshape(-1)
    if arr.size != nu:
        raise ValueError(f"expected {nu} input values ({', '.join(names)}), got {arr.size}")
    return InputFunction(lambda t, q, dq: arr.copy(), nu, False)


def _check(u: Any, nu: int) -> np.ndarray:
    arr = np.asarray(u, dtype=float).reshape(-1)
    if arr.size != nu:
        raise ValueError(f"the input function returned {arr.size} values, the model has {nu} inputs")
    return arr


__all__ = ["Sampled", "InputFunction", "input_function"]
