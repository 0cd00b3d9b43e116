"""Constraints of symbody's Python (pythonfmu) FMUs: assembly, start velocities, projection.

The numpy counterpart of ``fmu_templates/sb_assembly.c`` and of ``sb_near_singular`` and
``sb_seed_row_reference`` (``sb_singular.c``), copied into the FMU (as ``symbody_python_assembly.py``) next to
:mod:`symbody.fmu.python_runtime`, whose ``Model`` takes it as a base class; it imports only numpy, math and the
files copied with it, never symbody.  The laws (the regularized minimum-norm steps, the count of the clearly
independent rows, the reference row norms at the start) are :mod:`symbody.numeric.constraint_laws`.

Example (a point on the unit circle, x^2 + y^2 = 1, started at (2, 0): assembled onto it):
    >>> import numpy as np
    >>> class Circle:
    ...     def Phi_init(t, q, dq, u, p): return np.array([[2 * q[0], 2 * q[1]]]), np.array([q @ q - 1.0])
    ...     def D_beta(t, q, dq, u, p): return np.array([[2 * q[0], 2 * q[1]]]), np.zeros(1)
    >>> class Point(Assembly):
    ...     b, n, nc, t, u, p = Circle, 2, 1, 0.0, np.zeros(0), np.zeros(0)
    ...     settings = [1, 1e-3, 1e-6, 1e-8, 0.0, 1, 1e-10, 10.0, 10.0, 0]
    ...     info = dict(init_fix=[-1], independent=[False, True], dq0=[0.0, 1.0])
    ...     x, dq_set = np.array([2.0, 0.0, 0.0, 1.0]), np.zeros(2, dtype=bool)
    ...     def changed(self): pass
    ...     def values(self): pass
    >>> m = Point(); m.initialize(); m.x.round(12).tolist()
    [1.0, 0.0, 0.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:  # copied into the FMU next to this file
    import symbody_constraint_laws as claws  # type: ignore[import-not-found,unused-ignore]
    import symbody_python_contacts as contacts  # type: ignore[import-not-found,unused-ignore]
    import symbody_python_settings as setting  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # imported from the package (tests, documentation)
    from ..numeric import constraint_laws as claws
    from . import python_contacts as contacts
    from . import python_settings as setting

StepFailure = contacts.StepFailure  # a numerical problem during a step (the step is discarded)
HostError = setting.HostError  # a start the FMU must refuse


class Assembly:
    """The constraints of a ``Model``: its blocks ``b``, state ``x``, ``settings``, the largest squared norm each
    constraint row has had (``row_ref``) and the most clearly independent rows met (``rank_ref``)."""

    b: Any  # the generated blocks module
    info: dict
    n: int
    nc: int
    nh: int
    t: float
    x: np.ndarray
    u: np.ndarray
    p: np.ndarray
    settings: list[float]
    dq_set: np.ndarray  # the start velocities the host set
    row_ref: np.ndarray
    rank_ref: int
    changed: Callable[[], None]  # the values at the current state are no longer valid
    values: Callable[[], Any]  # ... computed again

    def u_at(self, t: float) -> np.ndarray:
        """The inputs at ``t`` (``Model.u_at`` moves the motion inputs inside a step)."""
        return self.u

    def near_singular(self, t: float, x: np.ndarray) -> bool:
        """Fewer constraint rows clearly independent than usual (a singular position): no projection."""
        D, _ = self.b.D_beta(t, x[: self.n], x[self.n : 2 * self.n], self.u_at(t), self.p)
        rank = claws.clear_rank(D, max(float(np.max(self.row_ref)), float(np.max(np.sum(D * D, axis=1)))))
        self.rank_ref = max(self.rank_ref, rank)
        return rank < self.rank_ref

    def project(self, t: float, x: np.ndarray) -> None:
        if self.nc == 0 or not self.settings[setting.PROJECTION] or self.near_singular(t, x):
            return
        n, u = self.n, self.u_at(t)
        tol = self.settings[setting.PROJ_TOL]
        if self.nh:
            for _ in range(21):
                Phi_q, Phi = self.b.Phi_Phi_q(t, x[:n], x[n : 2 * n], u, self.p)
                if np.abs(Phi).max() <= tol:
                    break
                x[:n] -= claws.min_norm_step(Phi_q, Phi)
            else:
                raise StepFailure(f"position projection did not converge (|Phi| = {np.abs(Phi).max():.3g})")
        D, beta = self.b.D_beta(t, x[:n], x[n : 2 * n], u, self.p)
        x[n : 2 * n] += claws.min_norm_step(D, beta - D @ x[n : 2 * n])

    def initialize(self) -> None:
        """Assemble the initial configuration (constrained models) as the C runtime does."""
        if self.nc:
            n, fix = self.n, self.info["init_fix"]
            x = self.x.copy()
            start = x.copy()
            tol = self.settings[setting.PROJ_TOL]
            for _ in range(51):
                J, r = self.b.Phi_init(self.t, x[:n], x[n : 2 * n], self.u, self.p)
                for k, i in enumerate(fix):
                    if i >= 0:
                        r[k] = x[i] - start[i]
                if np.abs(r).max() <= 1e-3 * tol:
                    break
                step = claws.min_norm_step(J, r)
                x[:n] -= step
                if np.abs(step).max() <= 1e-15 * (1 + np.abs(x[:n]).max()):
                    break
            self._initial_velocities(x, start[n : 2 * n], [i for i in fix if i >= 0])
            self.x = x
            self._seed_row_reference()
        self.changed()
        self.values()

    def _seed_row_reference(self) -> None:
        """Reference row norms at the initial configuration from the rows next to it (as
        sb_seed_row_reference): a start at or next to a singular position filters the vanishing rows."""
        n = self.n
        q, dq = self.x[:n], self.x[n : 2 * n]
        norms = np.sum(self.b.D_beta(self.t, q, dq, self.u, self.p)[0] ** 2, axis=1)
        near = claws.seed_row_reference(
            lambda qi: np.sum(self.b.D_beta(self.t, qi, dq, self.u, self.p)[0] ** 2, axis=1), q, self.nc
        )
        self.row_ref = np.maximum(np.where(np.isfinite(norms), norms, 0.0), near)

    def _constrained_velocities(self, x: np.ndarray, keep: np.ndarray) -> tuple[float, int]:
        """D dq = beta with the velocities ``keep`` held, the others changed least; (violation, worst row)."""
        n = self.n
        D, beta = self.b.D_beta(self.t, x[:n], x[n : 2 * n], self.u, self.p)
        J = np.where(keep[None, :], 0.0, D)
        x[n : 2 * n] += claws.min_norm_step(J, beta - D @ x[n : 2 * n], reg=0.0)  # initial velocities: exact
        r = D @ x[n : 2 * n] - beta
        scale = max(1.0, float(np.abs(D * x[n : 2 * n]).max(initial=0.0)), float(np.abs(beta).max(initial=0.0)))
        worst = int(np.argmax(np.abs(r))) if r.size else 0
        return (float(np.abs(r).max(initial=0.0)) / scale, worst)

    def _complete_kept(self, x: np.ndarray, keep: np.ndarray, held: list[int]) -> tuple[np.ndarray, bool]:
        """``keep`` completed by the model's start velocities as complete_kept of sb_assembly.c (its independent
        ones, then those of ``held``, then the others, each while the free ones span as many rows as all), and
        whether one of ``held`` was added."""
        D = self.b.D_beta(self.t, x[: self.n], x[self.n : 2 * self.n], self.u, self.p)[0]

        def rank(J: np.ndarray) -> int:  # of J J^T at the tolerance of min_norm_step, relative to D D^T
            return int(np.sum(np.linalg.svd(J, compute_uv=False) ** 2 > 1e-12 * scale))

        scale = float(np.max(np.sum(D * D, axis=1)))
        keep, full, added = keep.copy(), rank(D), False
        for k, group in enumerate((np.asarray(self.info["independent"], bool), np.isin(np.arange(self.n), held), True)):
            for j in np.flatnonzero(group & ~keep):
                keep[j] = True
                keep[j] = rank(np.where(keep[None, :], 0.0, D)) == full
                added |= k == 1 and bool(keep[j])
        return keep, added

    def _initial_velocities(self, x: np.ndarray, start: np.ndarray, held: list[int]) -> None:
        """Start velocities as the C runtime sets them: those the host set are kept (they are the independent
        velocities), the model's complete them (_complete_kept), the others follow."""
        n = self.n
        keep, held_kept = self._complete_kept(x, self.dq_set, held)
        err, worst = self._constrained_velocities(x, keep)
        if not err <= 1e-9 and held_kept:
            x[n : 2 * n] = start
            keep = self._complete_kept(x, self.dq_set, [])[0]
            err, worst = self._constrained_velocities(x, keep)
        changed = self.dq_set & (start != np.asarray(self.info["dq0"], dtype=float))
        if not err <= 1e-9 and not np.array_equal(self.dq_set, changed):  # velocities set to the model's own give way
            x[n : 2 * n] = start
            keep = self._complete_kept(x, changed, [])[0]
            err, worst = self._constrained_velocities(x, keep)
        if not err <= 1e-9:
            names = self.info.get("coordinate_names", [])
            kept = ", ".join(f"'d{names[i]}'" if i < len(names) else str(i) for i in np.flatnonzero(keep)) or "none"
            rows = self.info.get("constraint_names", [])
            row = rows[worst] if worst < len(rows) else str(worst)
            raise HostError(
                f"the start velocities contradict constraint '{row}' (relative violation {err:.3g}): kept "
                f"velocities: {kept}; set only independent velocities, the others are computed from the constraints"
            )
