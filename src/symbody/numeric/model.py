"""Numeric evaluation of the blocks of an :class:`~symbody.Equations` object.

Example:
    >>> import symbody as sb  # doctest: +SKIP
    >>> nm = eq.numeric()      # doctest: +SKIP
    >>> nm.M(nm.q0)            # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NumericalError


class NumericModel:
    """Blocks of an :class:`~symbody.Equations` as numpy functions with bound parameters.

    Args:
        eq: the derived equations.
        p: parameter values (array in ``eq.parameters`` order or dict by name); defaults otherwise.
    """

    def __init__(self, eq, p: Any = None):
        self.eq = eq
        self.p = self._params(p)
        self._f = {}

    def _params(self, p: Any) -> np.ndarray:
        p0 = self.eq.p0.copy()
        if p is None:
            return p0
        if isinstance(p, dict):
            names = [x.name for x in self.eq.parameters]
            for k, v in p.items():
                if k not in names:
                    raise KeyError(f"unknown parameter {k!r}")
                p0[names.index(k)] = float(v)
            return p0
        arr = np.asarray(p, dtype=float)
        if arr.shape != p0.shape:
            raise ValueError(f"expected {p0.size} parameter values, got {arr.size}")
        return arr

    def with_parameters(self, **values: float) -> NumericModel:
        """A copy with some parameters changed by name."""
        nm = NumericModel(self.eq, self.p)
        names = [x.name for x in self.eq.parameters]
        for k, v in values.items():
            nm.p[names.index(k)] = float(v)
        nm._f = self._f
        return nm

    @property
    def q0(self) -> np.ndarray:
        return self.eq.q0

    @property
    def dq0(self) -> np.ndarray:
        return self.eq.dq0

    @property
    def u0(self) -> np.ndarray:
        return self.eq.u0

    def _fn(self, *names: str):
        f = self._f.get(names)
        if f is None:
            f = self._f[names] = self.eq.evaluator(*names)
        return f

    def _args(self, q, dq=None, t=0.0, u=None):
        n = self.eq.nq
        q = np.asarray(q, dtype=float)
        dq = np.zeros(n) if dq is None else np.asarray(dq, dtype=float)
        u = self.eq.u0 if u is None else np.asarray(u, dtype=float)
        return float(t), q, dq, u, self.p

    def M(self, q, t: float = 0.0, u=None) -> np.ndarray:
        """Mass matrix."""
        return self._fn("M")(*self._args(q, None, t, u))[0]

    def delta(self, q, dq, t: float = 0.0, u=None) -> np.ndarray:
        """Generalized forces."""
        return self._fn("delta")(*self._args(q, dq, t, u))[0]

    def M_delta(self, q, dq, t: float = 0.0, u=None) -> tuple[np.ndarray, np.ndarray]:
        """Mass matrix and generalized forces evaluated jointly."""
        return self._fn("M", "delta")(*self._args(q, dq, t, u))

    def Phi(self, q, t: float = 0.0) -> np.ndarray:
        return self._fn("Phi")(*self._args(q, None, t))[0]

    def Phi_q(self, q, t: float = 0.0) -> np.ndarray:
        return self._fn("Phi_q")(*self._args(q, None, t))[0]

    def Phi_init(self, q, t: float = 0.0) -> np.ndarray:
        return self._fn("Phi_init")(*self._args(q, None, t))[0]

    def Phi_init_q(self, q, t: float = 0.0) -> np.ndarray:
        return self._fn("Phi_init_q")(*self._args(q, None, t))[0]

    def D(self, q, t: float = 0.0) -> np.ndarray:
        """Velocity-level constraint Jacobian ``[Phi_q; A_nh]``."""
        return self._fn("D")(*self._args(q, None, t))[0]

    def beta(self, q, t: float = 0.0) -> np.ndarray:
        return self._fn("beta")(*self._args(q, None, t))[0]

    def gamma(self, q, dq, t: float = 0.0) -> np.ndarray:
        return self._fn("gamma")(*self._args(q, dq, t))[0]

    def outputs(self, q, dq, t: float = 0.0, u=None, ddq=None, lam=None) -> np.ndarray:
        t_, q_, dq_, u_, p_ = self._args(q, dq, t, u)
        ddq = np.zeros(self.eq.nq) if ddq is None else np.asarray(ddq, dtype=float)
        lam = np.zeros(self.eq.nc) if lam is None else np.asarray(lam, dtype=float)
        return self._fn("outputs")(t_, q_, dq_, u_, p_, ddq, lam)[0]

    def accelerations(self, q, dq, t: float = 0.0, u=None) -> tuple[np.ndarray, np.ndarray]:
        """Accelerations and multipliers from ``[M D^T; D 0][ddq; lam] = [delta; gamma]``.

        Raises:
            NumericalError: the system matrix is singular.
        """
        t_, q_, dq_, u_, p_ = self._args(q, dq, t, u)
        if self.eq.nc == 0:
            M, d = self._fn("M", "delta")(t_, q_, dq_, u_, p_)
            try:
                return np.linalg.solve(M, d), np.zeros(0)
            except np.linalg.LinAlgError:
                raise NumericalError(f"singular mass matrix at q = {q_}") from None
        M, d, D, g = self._fn("M", "delta", "D", "gamma")(t_, q_, dq_, u_, p_)
        n, c = M.shape[0], D.shape[0]
        A = np.zeros((n + c, n + c))
        A[:n, :n] = M
        A[:n, n:] = D.T
        A[n:, :n] = D
        b = np.concatenate([d, g])
        try:
            x = np.linalg.solve(A, b)
        except np.linalg.LinAlgError:
            raise NumericalError(f"singular augmented matrix [M D^T; D 0] at q = {q_}") from None
        return x[:n], x[n:]
