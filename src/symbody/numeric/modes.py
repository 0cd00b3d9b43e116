"""Modal analysis about a static equilibrium (Gil Soto, 2005, ``natural_modes``, eq. 4.91).

The linearization in independent coordinates gives ``Mr dz'' + Cr dz' + Kr dz = 0``;
the undamped modes solve ``Kr psi = omega^2 Mr psi`` (symmetric-definite
problem when ``Kr`` is symmetric).  Modes with ``|omega| < rigid_tol`` are
rigid-body modes and are filtered out (reported apart); modes with
``omega^2 < 0`` mean an unstable equilibrium and are reported apart too.
Mode shapes are mass-normalized (``psi^T Mr psi = 1``) and expanded to all
coordinates with the velocity transformation (``S psi``).  When the model has
damping, the eigenvalues of the state matrix give the damped frequencies and
damping ratios.

Example (simple pendulum of length 2 m: omega = sqrt(g / l)):
    >>> import math, symbody as sb
    >>> s = sb.System("p"); th = s.coordinate("theta")
    >>> _ = s.particle("m", s.point("P", s.origin, sb.Vector(s.base("B", s.ground_base, sb.Rz(th)), 0, -2.0, 0)), 1.0)
    >>> s.gravity((0, -9.81, 0))
    >>> modes = modal_analysis(s.derive(), [0.0])
    >>> bool(abs(modes.omega[0] - math.sqrt(9.81 / 2.0)) < 1e-12)
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.linalg as sla

from ..errors import NumericalError
from .contact_checks import require_smooth
from .linearize import LinearModel, linearize
from .model import as_numeric

if TYPE_CHECKING:
    from ..equations import Equations
    from .model import NumericModel


@dataclass
class ModalResult:
    """Result of :func:`modal_analysis`.

    Attributes:
        omega: natural angular frequencies (rad/s), ascending, rigid-body and unstable modes removed.
        frequency: the same in Hz (``omega / 2 pi``).
        shapes: mode shapes in the independent coordinates (columns, mass-normalized).
        shapes_full: the same expanded to all coordinates (``S psi``).
        independent: names of the independent coordinates.
        coordinate_names: names of all coordinates.
        rigid_body: number of rigid-body modes filtered out.
        unstable_omega2: negative ``omega^2`` of unstable modes (empty at a stable equilibrium).
        eigenvalues: eigenvalues of the state matrix (with damping), sorted by frequency.
        damping_ratio: ``-Re / |lambda|`` of the oscillatory state eigenvalues (one per pair).
        damped_omega: ``|Im lambda|`` of those eigenvalues.
        linear: the :class:`~symbody.numeric.linearize.LinearModel` used.
    """

    omega: np.ndarray
    frequency: np.ndarray
    shapes: np.ndarray
    shapes_full: np.ndarray
    independent: list[str]
    coordinate_names: list[str]
    rigid_body: int
    unstable_omega2: np.ndarray
    eigenvalues: np.ndarray
    damping_ratio: np.ndarray
    damped_omega: np.ndarray
    linear: LinearModel = field(repr=False)


def modal_analysis(
    model: Equations | NumericModel,
    q: Any = None,
    *,
    u: Any = None,
    t: float = 0.0,
    independent: Sequence[str] | None = None,
    rigid_tol: float = 1e-3,
    equilibrium_tol: float = 1e-6,
    p: Any = None,
) -> ModalResult:
    """Natural frequencies and mode shapes about the static equilibrium ``q``.

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        q: equilibrium coordinates (from :func:`symbody.numeric.static_equilibrium`).
        u: inputs held.
        independent: independent coordinates (default: chosen).
        rigid_tol: modes with ``|omega|`` below this (rad/s) are rigid-body modes.
        equilibrium_tol: maximum ``|ddq|`` at rest accepted at ``q``.

    Raises:
        ModelError: ``q`` is at or inside a unilateral contact, or the model has stick-slip
            friction (:mod:`symbody.numeric.contact_checks`).
        NumericalError: ``q`` is not an equilibrium, the system is non-holonomic, or the
            reduced mass matrix is singular.
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    n = eq.nq
    q = np.array(eq.q0 if q is None else q, dtype=float).reshape(-1)
    uu = nm.input_vector(u)
    require_smooth(nm, q, t, "modal analysis")
    if eq.nc > eq.nh:
        raise NumericalError(f"modal analysis of {eq.name!r}: non-holonomic systems are not supported")
    ddq, _ = nm.accelerations(q, np.zeros(n), t=t, u=uu)
    if np.max(np.abs(ddq)) > equilibrium_tol:
        raise NumericalError(
            f"modal analysis of {eq.name!r}: q is not a static equilibrium (max |ddq| at rest = "
            f"{np.max(np.abs(ddq)):.3g}); find one with symbody.numeric.static_equilibrium"
        )
    lin = linearize(nm, q, np.zeros(n), u=uu, t=t, independent=independent, outputs=[], inputs=[])
    Mr, Kr = lin.second_order.M, lin.second_order.K
    nz = Mr.shape[0]
    if nz == 0:
        empty = np.zeros(0)
        return ModalResult(
            empty, empty, np.zeros((0, 0)), np.zeros((n, 0)), [], [c.name for c in eq.coordinates], 0, empty,
            np.zeros(0, complex), empty, empty, lin,
        )  # fmt: skip
    ks = float(np.max(np.abs(Kr))) if Kr.size else 0.0
    symmetric = ks == 0.0 or float(np.max(np.abs(Kr - Kr.T))) <= 1e-8 * ks
    try:
        if symmetric:
            w2, psi = sla.eigh(0.5 * (Kr + Kr.T), Mr)
        else:
            w2c, psi = sla.eig(Kr, Mr)
            order = np.argsort(w2c.real)
            w2, psi = w2c.real[order], psi.real[:, order]
    except (np.linalg.LinAlgError, ValueError) as e:
        raise NumericalError(f"modal analysis of {eq.name!r}: reduced eigenproblem failed ({e})") from None
    rigid = np.abs(w2) < rigid_tol**2
    unstable = (w2 < 0) & ~rigid
    keep = ~rigid & ~unstable
    psi = psi[:, keep]
    for k in range(psi.shape[1]):  # mass-normalize, largest entry positive
        m = float(psi[:, k] @ Mr @ psi[:, k])
        psi[:, k] /= np.sqrt(m) if m > 0 else 1.0
        if psi[np.argmax(np.abs(psi[:, k])), k] < 0:
            psi[:, k] = -psi[:, k]
    omega = np.sqrt(w2[keep])
    lam = np.linalg.eigvals(lin.A) if lin.A.size else np.zeros(0, complex)
    lam = lam[np.argsort(np.abs(lam.imag) + 1e-300 * np.abs(lam))]
    osc = lam[lam.imag > 1e-12]
    return ModalResult(
        omega,
        omega / (2 * np.pi),
        psi,
        lin.S @ psi,
        lin.independent,
        [c.name for c in eq.coordinates],
        int(np.sum(rigid)),
        w2[unstable],
        lam,
        -osc.real / np.abs(osc),
        np.abs(osc.imag),
        lin,
    )


__all__ = ["modal_analysis", "ModalResult"]
