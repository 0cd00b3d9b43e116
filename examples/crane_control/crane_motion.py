"""Motion references, input shapers and swing metrics for crane transfers.

* :class:`Motion`: a point-to-point reference written as a sum of truncated powers
  ``x(t) = sum_i c_i (t - t_i)_+^k / k!``, so that its derivatives, its moving average
  and its convolution with an input shaper are exact and cheap:

  - :func:`trapezoid`: the classic crane drive reference, constant acceleration
    ``a_max`` up to the speed ``v_max``, cruise, constant deceleration (a triangle when
    the distance is too short to reach ``v_max``);
  - :meth:`Motion.smoothed`: the moving average over a window, the jerk-limited
    "S-curve" of crane drives (applied twice, the jerk is continuous too);
  - :meth:`Motion.shaped`: convolution with an input shaper.

* :class:`Shaper`, :func:`zv_shaper`, :func:`zvd_shaper`: input shapers (Singer and
  Seering): a train of impulses that, convolved with any reference, cancels the
  residual vibration of a mode of natural frequency ``omega`` and damping ratio
  ``zeta`` (ZV: zero vibration at the design frequency; ZVD: also zero derivative with
  respect to the frequency, robust to about +-20 % frequency error, for one more half
  period of delay).
* :func:`transfer_metrics`: settling time, maximum swing and residual swing of a
  transfer, the numbers the scripts print.

Example (a 10 m transfer at 0.5 m/s, 0.25 m/s2, shaped for a 3.6 s swing period):
    >>> import numpy as np
    >>> move = trapezoid(10.0, v_max=0.5, a_max=0.25)
    >>> move.duration, move.position(move.end), move.velocity(10.0), move.acceleration(1.0)
    (22.0, 10.0, 0.5, 0.25)
    >>> zv = zv_shaper(2 * np.pi / 3.6, 0.0)
    >>> zv.times.tolist(), zv.amplitudes.tolist()
    ([0.0, 1.8], [0.5, 0.5])
    >>> shaped = move.shaped(zv)
    >>> round(shaped.duration, 6), round(shaped.position(30.0), 12), shaped.acceleration(1.0)
    (23.8, 10.0, 0.125)
    >>> s = move.smoothed(1.0)
    >>> s.duration, s.acceleration(0.5), s.acceleration(1.5), s.jerk(0.5)
    (23.0, 0.125, 0.25, 0.25)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# ---------------------------------------------------------------------------
# references
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Motion:
    """``x(t) = sum_i coefficients[i] (t - knots[i])_+^order / order!`` (zero before the first knot).

    ``(s)_+^0`` is the unit step.  The motions built here (:func:`trapezoid`, then
    :meth:`smoothed`, :meth:`shaped`) are point to point: at rest from their last knot,
    :attr:`end`, on.
    """

    knots: np.ndarray
    coefficients: np.ndarray
    order: int

    def derivative(self, t: float, n: int = 0) -> float:
        """The ``n``-th time derivative at ``t`` (zero where it is a sum of impulses)."""
        k = self.order - n
        if k < 0 or (n > 0 and t >= self.end):
            return 0.0
        t = min(t, self.end)  # at rest from the end on (and no growing powers to cancel)
        s = t - self.knots
        on = s >= 0 if k == 0 else s > 0
        if not on.any():
            return 0.0
        return float(np.sum(self.coefficients[on] * s[on] ** k)) / math.factorial(k)

    def position(self, t: float) -> float:
        return self.derivative(t, 0)

    def velocity(self, t: float) -> float:
        return self.derivative(t, 1)

    def acceleration(self, t: float) -> float:
        return self.derivative(t, 2)

    def jerk(self, t: float) -> float:
        return self.derivative(t, 3)

    @property
    def start(self) -> float:
        return float(self.knots.min())

    @property
    def end(self) -> float:
        """Time at which the motion ends (its last knot)."""
        return float(self.knots.max())

    @property
    def duration(self) -> float:
        return self.end - self.start

    @property
    def distance(self) -> float:
        return self.position(self.end)

    def smoothed(self, window: float) -> Motion:
        """The moving average over ``window`` s: ``(1/w) int_{t-w}^t x``; ends ``window`` later."""
        if not window > 0:
            raise ValueError(f"smoothed: the window must be positive, got {window}")
        return Motion(
            np.concatenate([self.knots, self.knots + window]),
            np.concatenate([self.coefficients, -self.coefficients]) / window,
            self.order + 1,
        )

    def shaped(self, shaper: Shaper) -> Motion:
        """The convolution with an input shaper; ends ``shaper.duration`` later."""
        return Motion(
            np.concatenate([self.knots + ti for ti in shaper.times]),
            np.concatenate([self.coefficients * a for a in shaper.amplitudes]),
            self.order,
        )


def trapezoid(distance: float, v_max: float, a_max: float, start: float = 0.0) -> Motion:
    """Trapezoidal velocity profile over ``distance`` (negative: backwards), starting at ``start``.

    The acceleration is ``+a_max`` for ``t_a = min(v_max / a_max, sqrt(|distance| / a_max))``,
    zero while cruising and ``-a_max`` for ``t_a`` at the end.
    """
    if not (v_max > 0 and a_max > 0):
        raise ValueError(f"trapezoid: v_max and a_max must be positive, got {v_max} and {a_max}")
    ta = min(v_max / a_max, math.sqrt(abs(distance) / a_max))
    cruise = (abs(distance) - a_max * ta * ta) / (a_max * ta) if ta > 0 else 0.0
    T = 2 * ta + cruise
    s = math.copysign(a_max, distance)
    return Motion(np.array([0.0, ta, T - ta, T]) + start, s * np.array([1.0, -1.0, -1.0, 1.0]), 2)


# ---------------------------------------------------------------------------
# input shaping
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Shaper:
    """A train of impulses ``sum A_i delta(t - t_i)`` with ``sum A_i = 1``."""

    times: np.ndarray
    amplitudes: np.ndarray
    name: str = "shaper"

    @property
    def duration(self) -> float:
        """Delay the shaper adds to a motion (time of its last impulse)."""
        return float(self.times[-1])


def _damped_half_period(omega: float, zeta: float) -> tuple[float, float]:
    if not (omega > 0 and 0 <= zeta < 1):
        raise ValueError(f"shaper: need omega > 0 and 0 <= zeta < 1, got omega={omega}, zeta={zeta}")
    wd = omega * math.sqrt(1 - zeta * zeta)
    K = math.exp(-zeta * math.pi / math.sqrt(1 - zeta * zeta))
    return math.pi / wd, K


def zv_shaper(omega: float, zeta: float = 0.0) -> Shaper:
    """Zero-vibration shaper of a mode ``omega`` (rad/s), ``zeta``: two impulses half a damped period apart."""
    half, K = _damped_half_period(omega, zeta)
    return Shaper(np.array([0.0, half]), np.array([1.0, K]) / (1 + K), "ZV")


def zvd_shaper(omega: float, zeta: float = 0.0) -> Shaper:
    """Zero-vibration-derivative shaper: three impulses over one damped period, robust to frequency errors."""
    half, K = _damped_half_period(omega, zeta)
    return Shaper(np.array([0.0, half, 2 * half]), np.array([1.0, 2 * K, K * K]) / (1 + K) ** 2, "ZVD")


# ---------------------------------------------------------------------------
# metrics
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TransferMetrics:
    """What a crane operator sees of a transfer.

    Attributes:
        settling_time: time (s) from the start after which the payload stays within
            ``band`` of its target (``inf`` if it is outside at the end of the run).
        max_swing: largest rope angle from the vertical during the run (deg).
        residual_swing: largest rope angle after the reference motion has ended (deg).
        residual_sway: largest horizontal payload offset from the trolley after the
            reference motion has ended (m).
        final_error: payload distance from its target at the end of the run (m).
    """

    settling_time: float
    max_swing: float
    residual_swing: float
    residual_sway: float
    final_error: float


def settling_time(t: np.ndarray, error: np.ndarray, band: float) -> float:
    """First time after which ``|error| <= band`` for the rest of the record (``inf`` if not at the end).

    Example:
        >>> settling_time(np.arange(5.0), np.array([3.0, 2.0, 0.5, 0.2, 0.1]), 1.0)
        2.0
    """
    outside = np.flatnonzero(np.abs(error) > band)
    if outside.size == 0:
        return float(t[0])
    if outside[-1] == len(t) - 1:
        return math.inf
    return float(t[outside[-1] + 1])


def transfer_metrics(
    t: np.ndarray,
    payload_error: np.ndarray,
    swing: np.ndarray,
    sway: np.ndarray,
    motion_end: float,
    band: float = 0.05,
) -> TransferMetrics:
    """Metrics of one transfer.

    Args:
        t: sample times (s).
        payload_error: payload distance from its target (m), one value per sample.
        swing: rope angle from the vertical (rad).
        sway: horizontal payload offset from the trolley (m).
        motion_end: time the reference motion ends (residual swing is measured after it).
        band: settling band on the payload position (m).
    """
    after = t >= motion_end - 1e-9
    if not after.any():
        raise ValueError(f"the record ends at t = {t[-1]:g} s, before the motion ends at {motion_end:g} s")
    return TransferMetrics(
        settling_time=settling_time(t, payload_error, band),
        max_swing=float(np.degrees(np.max(np.abs(swing)))),
        residual_swing=float(np.degrees(np.max(np.abs(swing[after])))),
        residual_sway=float(np.max(np.abs(sway[after]))),
        final_error=float(abs(payload_error[-1])),
    )


def format_table(rows: dict[str, TransferMetrics]) -> str:
    """The metrics of several runs as a text table (one line per run)."""
    head = f"{'run':<26}{'settling [s]':>13}{'max swing [deg]':>17}{'residual [deg]':>16}{'residual sway [cm]':>20}"
    lines = [head, "-" * len(head)]
    for name, m in rows.items():
        st = f"{m.settling_time:.2f}" if math.isfinite(m.settling_time) else "not settled"
        lines.append(f"{name:<26}{st:>13}{m.max_swing:>17.3f}{m.residual_swing:>16.3f}{100 * m.residual_sway:>20.2f}")
    return "\n".join(lines)
