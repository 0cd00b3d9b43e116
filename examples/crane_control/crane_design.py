"""Controller design on symbody's linear model: sampled LQR and model-based (flat) feedforward.

The plant is linearized by symbody (:func:`symbody.numeric.linearize`, exact
symbolic Jacobians): ``dx' = A dx + B du`` about an equilibrium.  The crane
controllers are two-degree-of-freedom:

* **feedforward** (:class:`FlatReference`): the state and input trajectories of
  the linear model that move its *flat output* -- for a crane, the payload
  position -- along a planned motion.  Following them excites no swing in the
  linear model, so the payload arrives without residual swing if the model is
  right;
* **feedback** (:func:`dlqr`): an LQR designed on the exact zero-order-hold
  discretization of the model (:func:`discretize`), because the controller
  samples the plant every ``h`` seconds and holds its inputs in between.  It acts
  on the tracking error ``x - x_ref``: it damps the swing and corrects what the
  model does not predict (nonlinearity, wrong payload mass, disturbances).

Example (a cart ``2 x'' = u`` sampled every 10 ms):
    >>> import numpy as np
    >>> A, B = np.array([[0.0, 1.0], [0.0, 0.0]]), np.array([[0.0], [0.5]])
    >>> Ad, Bd = discretize(A, B, 0.01)
    >>> K, P = dlqr(Ad, Bd, bryson([0.01, 1.0]) * 0.01, bryson([1.0]) * 0.01)
    >>> np.round(K, 1).tolist()  # continuous-time LQR: [[100, 20.02]]
    [[95.1, 19.5]]
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from crane_motion import Motion


def bryson(tolerated) -> np.ndarray:
    """Bryson's rule: the diagonal weight ``1 / tolerated^2`` of each state or input."""
    return np.diag(1.0 / np.asarray(tolerated, dtype=float) ** 2)


def discretize(A: np.ndarray, B: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact zero-order-hold discretization ``(Ad, Bd)`` of ``x' = A x + B u`` with period ``h``."""
    n, m = B.shape
    E = scipy.linalg.expm(np.block([[A, B], [np.zeros((m, n + m))]]) * h)
    return E[:n, :n], E[:n, n:]


def dlqr(Ad: np.ndarray, Bd: np.ndarray, Q: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Discrete LQR: gain ``K`` of ``u = -K x`` minimizing ``sum x'Qx + u'Ru``, and the Riccati solution ``P``.

    For weights of a continuous-time cost ``int x'Qx + u'Ru dt`` pass ``Q h`` and ``R h``.

    Example:
        >>> K, P = dlqr(np.array([[1.0]]), np.array([[1.0]]), np.eye(1), np.eye(1))
        >>> round(float(K[0, 0]), 6)  # (sqrt(5) - 1) / 2
        0.618034
    """
    P = scipy.linalg.solve_discrete_are(Ad, Bd, Q, R)
    K = np.linalg.solve(R + Bd.T @ P @ Bd, Bd.T @ P @ Ad)
    return K, P


def sampled_lqr(A: np.ndarray, B: np.ndarray, Q: np.ndarray, R: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """LQR gain for a controller sampling every ``h`` s, and the loop's poles as ``log(z) / h`` (1/s).

    ``Q``, ``R`` weight the continuous-time cost; the design is exact for the zero-order hold.
    """
    Ad, Bd = discretize(A, B, h)
    K, _ = dlqr(Ad, Bd, Q * h, R * h)
    poles = np.log(np.linalg.eigvals(Ad - Bd @ K).astype(complex)) / h
    return K, poles


def damping(poles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Natural frequencies (rad/s) and damping ratios of continuous-time poles."""
    w = np.abs(poles)
    return w, np.where(w > 0, -poles.real / np.where(w > 0, w, 1.0), 1.0)


class FlatReference:
    """State and input references of a single-input linear model that move its flat output along a motion.

    For a controllable ``x' = A x + b u`` (``n`` states) the output ``y = c x`` with
    ``c [b, A b, ..., A^(n-1) b] = (0, ..., 0, 1)`` is flat: ``x = T^-1 (y, y', ..., y^(n-1))``
    with ``T = (c; c A; ...; c A^(n-1))`` and ``u = (y^(n) - c A^n x) / (c A^(n-1) b)``.
    Moving ``y`` along a motion with ``n`` derivatives gives the exact state trajectory
    and feedforward input of the linear model.  ``c`` is scaled so that
    ``c[normalize] = 1``; for a crane's (trolley position, swing angle, their rates) ``y`` is
    then the payload's horizontal position (``x + l theta`` without damping).

    Args:
        A, b: the linear model (``b`` one column).
        motion: the path of ``y`` (a :class:`crane_motion.Motion` of order ``>= n``).
        normalize: index of the state whose coefficient in ``c`` is 1.

    Example (a cart ``2 x'' = u``: ``u = 2 a``):
        >>> from crane_motion import trapezoid
        >>> ref = FlatReference(np.array([[0.0, 1.0], [0.0, 0.0]]), np.array([0.0, 0.5]), trapezoid(1.0, 1.0, 1.0))
        >>> x, u = ref(0.5)
        >>> x.tolist(), u
        ([0.125, 0.5], 2.0)
    """

    def __init__(self, A: np.ndarray, b: np.ndarray, motion: Motion, normalize: int = 0):
        A = np.asarray(A, dtype=float)
        b = np.asarray(b, dtype=float).reshape(-1)
        n = A.shape[0]
        if motion.order < n:
            raise ValueError(f"the motion has {motion.order} derivatives, the flat reference needs {n}: smooth it more")
        ctrb = np.column_stack([np.linalg.matrix_power(A, k) @ b for k in range(n)])
        if np.linalg.matrix_rank(ctrb) < n:
            raise ValueError("the model is not controllable from this input: it has no flat output")
        c = np.linalg.solve(ctrb.T, np.eye(n)[-1])
        c = c / c[normalize]
        powers = [np.linalg.matrix_power(A, k) for k in range(n + 1)]
        self.c = c
        self.T_inv = np.linalg.inv(np.vstack([c @ powers[k] for k in range(n)]))
        self._cAn = c @ powers[n]
        self._gain = float(c @ powers[n - 1] @ b)
        self.motion = motion
        self.n = n

    def __call__(self, t: float) -> tuple[np.ndarray, float]:
        """``(state, input)`` of the reference at ``t``."""
        Y = np.array([self.motion.derivative(t, k) for k in range(self.n + 1)])
        x = self.T_inv @ Y[: self.n]
        return x, float((Y[self.n] - self._cAn @ x) / self._gain)
