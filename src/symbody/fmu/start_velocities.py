"""Which start velocities of a constrained model an FMU keeps: the independent ones.

Start velocities seldom satisfy the velocity constraints exactly (a bicycle started steered, its
forward speed given but no yaw rate).  :func:`symbody.numeric.solve_velocities` keeps the
independent ones and computes the others; the FMU runtimes do the same (``complete_kept`` in
``fmu_templates/sb_assembly.c`` and in ``python_runtime.py``): the velocities the importer sets
first, then the model's independent ones, then any other while the free ones are still
determined.  Which are independent is decided here, at export, at the model's start values, by
the rule of :func:`symbody.numeric.linalg.partition` (QR with column pivoting group by group:
auxiliary coordinates dependent first, coordinates held for assembly last, unless that choice is
more than ``PREFERENCE_RATIO`` worse conditioned than plain pivoting).  It is written again in
numpy here because the analyses import scipy, which an export does not need (a second on every
export); ``tests/fmu/test_fmu_published_benchmarks.py`` checks that both choose alike.

Example (a bead on a unit circle, started at (1, 0): its velocity is along y):
    >>> import symbody as sb
    >>> s = sb.System("bead"); x, y = s.coordinate("x", 1.0), s.coordinate("y", 0.0, 1.0)
    >>> _ = s.particle("m", s.point("P", s.origin, (x, y, 0)), 1.0)
    >>> _ = s.constraint("circle", x**2 + y**2 - 1)
    >>> independent_velocities(s.derive())
    [0, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..codegen.evaluators import evaluator

if TYPE_CHECKING:
    from ..equations import Equations

#: as ``RANK_TOL`` and ``PREFERENCE_RATIO`` of :mod:`symbody.numeric.linalg`
RANK_TOL, PREFERENCE_RATIO = 1e-9, 4.0


def _pivoted_columns(A: np.ndarray, candidates: Sequence[int], tol: float) -> list[int]:
    """Columns of ``A`` chosen by QR with column pivoting (largest remaining norm first) while it exceeds ``tol``."""
    R = np.array(A[:, list(candidates)], dtype=float)
    chosen: list[int] = []
    free = list(range(len(candidates)))
    while free and len(chosen) < A.shape[0]:
        norms = np.linalg.norm(R[:, free], axis=0)
        k = int(np.argmax(norms))
        if not norms[k] > tol:
            break
        j = free.pop(k)
        q = R[:, j] / norms[k]
        R -= np.outer(q, q @ R)
        chosen.append(candidates[j])
    return chosen


def dependent_columns(D: np.ndarray, groups: Sequence[Sequence[int]], tol: float = RANK_TOL) -> list[int]:
    """A basis of the columns of ``D`` taken group by group (``select_columns`` of symbody.numeric.linalg)."""
    scale = float(np.max(np.abs(D))) if D.size else 0.0
    chosen: list[int] = []
    basis = np.zeros((D.shape[0], 0))
    for group in groups:
        cols = [c for c in group if c not in chosen]
        if not cols or basis.shape[1] >= D.shape[0] or scale == 0.0:
            continue
        B = D - basis @ (basis.T @ D)
        picked = _pivoted_columns(B, cols, tol * scale)
        chosen += picked
        if picked:
            basis = np.linalg.qr(np.hstack([basis, D[:, picked]]))[0]
    return sorted(chosen)


def _condition(D: np.ndarray, rows: list[int], dependent: list[int]) -> float:
    """``|D_r| / sigma_min(D_r[:, dependent])`` (``dependent_condition`` of symbody.numeric.linalg)."""
    if not dependent:
        return 1.0
    Dr = D[rows]
    s = np.linalg.svd(Dr[:, dependent], compute_uv=False)
    return float(np.linalg.norm(Dr, 2)) / float(s[-1]) if s[-1] > 0 else float("inf")


def independent_velocities(eq: Equations) -> list[int]:
    """Per coordinate: 1 when its start velocity is independent at the model's start values, else 0."""
    n = eq.nq
    if not eq.nc:
        return [1] * n
    args = (0.0, np.array(eq.q0, float), np.array(eq.dq0, float), np.array(eq.u0, float))
    p = np.array([prm.value for prm in eq.parameters], dtype=float)
    with np.errstate(all="ignore"):
        D = evaluator(eq, "D")(*args, p, np.zeros(n), np.zeros(eq.nc))[0]
    if not np.all(np.isfinite(D)):
        return [0] * n  # no choice here: the runtime keeps what the importer sets, then any velocity it can
    # a maximal set of independent rows (``independent_rows``: pivots above RANK_TOL of the first)
    rows = sorted(_pivoted_columns(D.T, list(range(eq.nc)), RANK_TOL * float(np.max(np.linalg.norm(D, axis=1)))))
    dep = dependent_columns(D, [list(range(n))])
    held_mask = 0
    for e in eq.Phi_init[eq.nh :]:
        held_mask |= e.mask
    aux = [i for i, c in enumerate(eq.coordinates) if c.aux]
    held = [i for i, c in enumerate(eq.coordinates) if not c.aux and c.q.mask & held_mask]
    plain = [i for i in range(n) if i not in aux and i not in held]
    preferred = dependent_columns(D, [aux, plain, held])
    if len(preferred) == len(rows) and _condition(D, rows, preferred) <= PREFERENCE_RATIO * _condition(D, rows, dep):
        dep = preferred
    return [int(i not in dep) for i in range(n)]


__all__ = ["independent_velocities", "dependent_columns"]
