"""Signals given by samples: :class:`Sampled`, interpolated between the samples and held outside them.

Kinds of interpolation:

- ``"linear"`` (default): straight lines between the samples;
- ``"previous"``: the value of the last sample (zero-order hold, as a sampled controller);
- ``"cubic"``: the cubic spline through the samples (not-a-knot ends), twice continuously
  differentiable: its first and second derivatives drive a motion input
  (:meth:`symbody.System.motion_input`) with ``dz`` and ``ddz`` consistent with ``z``;
- given ``derivatives=(first, second)`` (samples of the rates): the piecewise quintic Hermite
  polynomial that takes the value and both derivatives at every sample (kind ``"hermite"``).

Outside the sample times a signal holds its end value (and its rates are zero there).

Example:
    >>> import numpy as np
    >>> t = np.linspace(0.0, 2.0 * np.pi, 81)
    >>> s = Sampled(t, np.sin(t), kind="cubic")
    >>> z, dz, ddz = s.motion(1.0)
    >>> bool(abs(z - np.sin(1.0)) < 1e-5 and abs(dz - np.cos(1.0)) < 1e-4 and abs(ddz + np.sin(1.0)) < 1e-2)
    True
    >>> h = Sampled(t, np.sin(t), derivatives=(np.cos(t), -np.sin(t)))
    >>> h.kind, bool(abs(h.motion(1.0)[2] + np.sin(1.0)) < 1e-6)
    ('hermite', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: interpolation kinds of :class:`Sampled` (``"hermite"``: set by giving the derivatives)
KINDS = ("linear", "previous", "cubic", "hermite")
#: kinds whose first and second derivatives exist and are continuous (motion inputs need them)
SMOOTH_KINDS = ("cubic", "hermite")


@dataclass(frozen=True)
class Sampled:
    """A signal given by samples, interpolated between them and held outside their range.

    Args:
        times: increasing sample times.
        values: one value per time (``(nt,)``), or ``(nt, k)`` for a vector signal.
        kind: ``"linear"`` (default), ``"previous"`` (zero-order hold) or ``"cubic"`` (spline); see the
            module docstring.
        derivatives: samples of the first and second derivatives (each shaped like ``values``): the
            signal is then the quintic Hermite interpolant of the three (``kind`` becomes ``"hermite"``).
    """

    times: Sequence[float] | np.ndarray
    values: Sequence[float] | np.ndarray
    kind: str = "linear"
    derivatives: tuple[Any, Any] | None = None
    _poly: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        t = np.asarray(self.times, dtype=float)
        v = np.asarray(self.values, dtype=float)
        if t.ndim != 1 or t.size < 1:
            raise ValueError("Sampled: times must be a non-empty 1-D sequence")
        if np.any(np.diff(t) <= 0):
            raise ValueError("Sampled: times must be strictly increasing")
        if v.shape[0] != t.size:
            raise ValueError(f"Sampled: {t.size} times but {v.shape[0]} values")
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(v))):
            raise ValueError("Sampled: times and values must be finite")
        kind = self.kind
        if self.derivatives is not None:
            if kind not in ("linear", "hermite"):
                raise ValueError(f"Sampled: derivatives given: the interpolation is 'hermite', not {kind!r}")
            kind = "hermite"
        if kind not in KINDS:
            raise ValueError(f"Sampled: kind must be one of {', '.join(KINDS[:3])}, not {kind!r}")
        object.__setattr__(self, "times", t)
        object.__setattr__(self, "values", v)
        object.__setattr__(self, "kind", kind)
        if kind == "cubic":
            object.__setattr__(self, "_poly", _cubic(t, v))
        elif kind == "hermite":
            object.__setattr__(self, "_poly", _hermite(t, v, self.derivatives))

    @property
    def breakpoints(self) -> np.ndarray:
        """The sample times: where the held value jumps or the interpolation has a kink."""
        return np.asarray(self.times)

    @property
    def smooth(self) -> bool:
        """True when the signal is twice continuously differentiable between its ends (``cubic``, ``hermite``)."""
        return self.kind in SMOOTH_KINDS

    def __call__(self, t: float) -> np.ndarray | float:
        return self.derivative(t, 0)

    def derivative(self, t: float, order: int = 1) -> np.ndarray | float:
        """The value (``order=0``) or a time derivative of the signal at ``t``.

        Raises:
            ValueError: a derivative of a ``linear`` or ``previous`` signal (piecewise constant or
                undefined at the samples; use ``kind="cubic"`` or give the derivatives).
        """
        tt = np.asarray(self.times)  # arrays since __post_init__: no copy
        v = np.asarray(self.values)
        if order and not self.smooth:
            raise ValueError(
                f"a {self.kind!r} Sampled signal has no usable derivative of order {order}: use kind='cubic' "
                "or give its derivatives (Sampled(times, values, derivatives=(first, second)))"
            )
        if self.kind == "previous":
            k = int(np.clip(np.searchsorted(tt, t, side="right") - 1, 0, tt.size - 1))
            return v[k]
        if self.kind == "linear":
            if v.ndim == 1:
                return float(np.interp(t, tt, v))
            return np.array([np.interp(t, tt, v[:, j]) for j in range(v.shape[1])])
        if t < tt[0] or t > tt[-1]:  # held outside the samples
            end = v[0] if t < tt[0] else v[-1]
            value = end if order == 0 else np.zeros_like(end)
        else:
            value = self._poly(t, order)
        return float(value) if v.ndim == 1 else np.asarray(value, dtype=float)

    def motion(self, t: float) -> tuple[Any, Any, Any]:
        """``(z, dz, ddz)`` at ``t``: the value and its first two derivatives (the inputs of a motion input).

        Raises:
            ValueError: a signal that is not twice differentiable (see :meth:`derivative`).
        """
        return self.derivative(t, 0), self.derivative(t, 1), self.derivative(t, 2)


def _cubic(t: np.ndarray, v: np.ndarray) -> Any:
    """The not-a-knot cubic spline through the samples (a line through two, a parabola through three)."""
    from scipy.interpolate import CubicSpline, make_interp_spline

    if t.size < 2:
        return lambda x, order: v[0] if order == 0 else np.zeros_like(v[0])
    if t.size < 4:  # too few samples for not-a-knot ends: the polynomial through them
        spline = make_interp_spline(t, v, k=t.size - 1)
    else:
        spline = CubicSpline(t, v, axis=0)
    return lambda x, order: spline(x, order) if order <= 3 else np.zeros_like(v[0])


def _hermite(t: np.ndarray, v: np.ndarray, derivatives: Any) -> Any:
    """The piecewise quintic Hermite polynomial through the values and both derivatives at every sample."""
    from scipy.interpolate import BPoly

    d1, d2 = (np.asarray(d, dtype=float) for d in derivatives)
    if d1.shape != v.shape or d2.shape != v.shape:
        raise ValueError(
            f"Sampled: the derivatives must be shaped like the values {v.shape}, not {d1.shape}, {d2.shape}"
        )
    if not (np.all(np.isfinite(d1)) and np.all(np.isfinite(d2))):
        raise ValueError("Sampled: the derivatives must be finite")
    if t.size < 2:
        return lambda x, order: (v[0], d1[0], d2[0])[order] if order <= 2 else np.zeros_like(v[0])
    if v.ndim == 1:
        poly = BPoly.from_derivatives(t, np.stack([v, d1, d2], axis=1))
        return lambda x, order: poly(x, order)
    polys = [BPoly.from_derivatives(t, np.stack([v[:, j], d1[:, j], d2[:, j]], axis=1)) for j in range(v.shape[1])]
    return lambda x, order: np.array([p(x, order) for p in polys])


__all__ = ["KINDS", "SMOOTH_KINDS", "Sampled"]
