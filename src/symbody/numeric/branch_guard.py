"""The branch guard: a simulation that changes its assembly branch at a singular position stops with an error.

At a singular position (a slider-crank at its dead point, a parallelogram linkage lying flat) two
branches of the assembly cross.  A state whose constraint drift is as large as their separation near
the crossing may continue on either; Baumgarte's terms then drive the multipliers through the rows
that lose their hold there, and those forces do work.  On the motion the constraint forces do no work
beyond that of prescribed motions: their power through the velocity error, ``P = lam . (D dq - beta)``,
is of the order of the drift.  The guard sums ``P dt`` over the accepted steps of a passage (while the
rows are nearly dependent) and stops the simulation when the sum exceeds ``SHARE`` of the kinetic
energy ``T`` plus ``T_f = delta . M^-1 delta / (2 w^2)``, the kinetic energy the applied forces give
within a Baumgarte time ``1 / w`` (a mechanism held at rest by loads), while the energy of the
constraint errors (:func:`drift_energy`) is below ``RESOLVED`` of that scale (a mechanism at rest next
to a singular position gets all its kinetic energy from the corrections: no motion to judge).  Passages
on the branch do 1e-5 to 1e-4 of ``T`` at loose tolerances; a parallelogram linkage turning onto the
anti-parallelogram branch loses 1 % of it.  The FMU runtime (``fmu_templates/sb_singular.c``) applies the same test.

Example:
    >>> g = PassageWork(share=1e-3)
    >>> g.add(0.0, 0.0); g.add(0.1, 0.01)  # power 0 W, then 0.01 W: 5e-4 J by the trapezoid rule
    >>> round(g.work, 6), g.exceeds(kinetic=1.0)
    (0.0005, False)
    >>> g.add(0.2, 0.05); g.exceeds(kinetic=1.0)
    True
"""

from __future__ import annotations

import math

import numpy as np

#: the work of the constraint forces in one passage of a singular position, as a share of the kinetic energy
SHARE = 1e-3
#: the guard judges only motions whose constraint errors have less energy than this share of it
RESOLVED = 1e-2
#: filter level of the inverse of the row-scaled ``D M^-1 D^T`` (Tikhonov), as in the FMU runtime
FILTER_LEVEL = 1e-6


class PassageWork:
    """The work ``P dt`` of the constraint forces summed (trapezoid rule) over the steps of one passage."""

    def __init__(self, share: float = SHARE):
        self.share = share
        self.work = 0.0
        self._t: float | None = None
        self._p = 0.0

    def reset(self) -> None:
        """Start afresh: the rows are clearly independent again."""
        self.work, self._t, self._p = 0.0, None, 0.0

    def add(self, t: float, power: float) -> None:
        """The power at the end of an accepted step at time ``t``."""
        if self._t is not None and t > self._t:
            self.work += 0.5 * (power + self._p) * (t - self._t)
        if self._t is None or t > self._t:
            self._t, self._p = t, power

    def exceeds(self, kinetic: float) -> bool:
        """Whether the work summed so far exceeds ``share`` of ``kinetic`` (an energy scale of the motion)."""
        return abs(self.work) > self.share * kinetic


def constraint_power(lam: np.ndarray, D: np.ndarray, dq: np.ndarray, beta: np.ndarray) -> float:
    """``lam . (D dq - beta)``: the power of the constraint forces through the velocity error."""
    return float(lam @ (D @ dq - beta))


def energy_scale(M: np.ndarray, delta: np.ndarray, dq: np.ndarray, rate: float) -> float:
    """``dq . M dq / 2 + delta . M^-1 delta / (2 rate^2)``: the kinetic energy and that the applied
    forces give within ``1 / rate`` (least squares where ``M`` is singular)."""
    try:
        a = np.linalg.solve(M, delta)
    except np.linalg.LinAlgError:
        a = np.linalg.lstsq(M, delta, rcond=None)[0]
    return 0.5 * float(dq @ M @ dq) + 0.5 * abs(float(delta @ a)) / rate**2


def drift_energy(
    M: np.ndarray, D: np.ndarray, velocity_error: np.ndarray, Phi: np.ndarray, row_ref: np.ndarray, spring: float
) -> float:
    """The energy of the constraint errors: ``v . S~ v / 2`` of the velocity error and ``spring^2 Phi . S~ Phi / 2``
    of the position error (Baumgarte's spring), ``S~`` the filtered inverse of ``D M^-1 D^T`` with its rows
    scaled by the largest norms they have had (``row_ref``, squared): the least kinetic energy of a velocity
    with that error, and what Baumgarte's terms exchange correcting the errors."""
    w = 1.0 / np.sqrt(np.maximum(row_ref, np.finfo(float).tiny))
    try:
        X = np.linalg.solve(M, D.T)
    except np.linalg.LinAlgError:
        X = np.linalg.lstsq(M, D.T, rcond=None)[0]
    s, V = np.linalg.eigh(w[:, None] * (D @ X) * w[None, :])
    tau = FILTER_LEVEL * max(float(np.max(s, initial=0.0)), np.finfo(float).tiny)
    f = np.where(s > 0.0, s / (s * s + tau * tau), 0.0)
    cv = V.T @ (w * velocity_error)
    phi = np.zeros(D.shape[0])
    phi[: Phi.size] = Phi
    cp = V.T @ (w * phi)
    return 0.5 * float(f @ (cv * cv)) + 0.5 * spring**2 * float(f @ (cp * cp))


def vanishing_row(D: np.ndarray, row_ref: np.ndarray) -> int:
    """The constraint row that loses its hold: the largest entry of the left singular vector of the
    smallest singular value of ``D`` with its rows scaled by the largest norms they have had."""
    w = 1.0 / np.sqrt(np.maximum(row_ref, np.finfo(float).tiny))
    U, _, _ = np.linalg.svd(w[:, None] * D)
    return int(np.argmax(np.abs(w * U[:, -1]))) if U.size else 0


def branch_message(t: float, row: str, work: float, kinetic: float) -> str:
    """The error of a simulation stopped by the branch guard."""
    return (
        f"at t = {t:.6g} the motion is leaving its assembly branch at a singular position, where constraint "
        f"row '{row}' vanishes or becomes dependent on the others: the constraint forces have done work "
        f"{work:.3g} there (kinetic energy {kinetic:.3g}), which they do not on the motion; the constraint "
        "drift of the integration is as large as the distance between the branches. Integrate with a tighter "
        "tolerance (rtol), or use formulation='projection'"
    )


def guard_rate(alpha: float, beta: float) -> float:
    """The rate ``w`` of the energy scale: Baumgarte's ``max(alpha, beta)`` in 1/s (1e-3 when both are off)."""
    return max(alpha, beta, 1e-3) if math.isfinite(alpha + beta) else 1e-3


__all__ = [
    "SHARE",
    "PassageWork",
    "branch_message",
    "RESOLVED",
    "constraint_power",
    "drift_energy",
    "energy_scale",
    "guard_rate",
    "vanishing_row",
]
