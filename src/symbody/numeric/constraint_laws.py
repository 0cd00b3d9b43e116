"""The laws of the constraints, once for numpy: :mod:`symbody.numeric` and the Python FMUs share this module.

It imports only numpy and math, so that the Python backend copies it into its FMUs (as
``symbody_constraint_laws.py``) next to its runtime; the C runtime's counterparts are named at each law
(``fmu_templates/``), and ``tests/fmu/test_constraint_kernels.py`` runs both on the same problems.

* :func:`min_norm_step`: the correction ``J^T (J J^T + mu^2 I)^+ r`` of the projections and of the assembly
  (``sb_min_norm``): the minimum-norm step along the well-conditioned directions of ``J``, a bounded one
  along those that lose their rank at a singular position (it never leaps to another assembly branch).
* :func:`range_space_solve`, :func:`filter_modes`, :func:`filter_apply`: the accelerations and multipliers
  of ``[M D^T; D 0][x; lam] = [f; g]`` by the range-space method, exact where the rows are clearly
  independent, with filtered multipliers where they are nearly dependent or vanish (a singular position;
  ``sb_factor_schur``, ``sb_factor_filter`` and ``sb_filter_multipliers``; ``sb_filter_modes`` and
  ``sb_filter_apply`` are the C kernels).
* :func:`baumgarte_terms`: Baumgarte's stabilization of the constraint rows, ``a (D dq - beta) + b Phi``, taken
  from their ``gamma`` (``sb_accelerations``, and the closed contacts' rows of ``sb_events.c``).
* :func:`clear_rank` and :func:`seed_row_reference`: how many constraint rows are clearly independent (fewer
  than usual: a singular position, where the projections pause; ``sb_near_singular``, kernel ``sb_clear_rank``)
  and the reference norms of the rows at the start, from those next to it (``sb_seed_row_reference``).

Example (a unit row and one a millionth as long: the short one is regularized, not inverted):
    >>> import numpy as np
    >>> J = np.array([[1.0, 0.0], [0.0, 1e-6]])
    >>> min_norm_step(J, np.array([2.0, 1e-6])).round(9).tolist()
    [2.0, 0.5]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: relative regularization ``reg`` of :func:`min_norm_step` in the projections (the C runtime's SB_CORR_REG)
CORR_REG = 1e-6
#: relative rank tolerance of ``J J^T`` for the exact step (``reg = 0``; the pivot tolerance of ``sb_min_norm``)
GRAM_RCOND = 1e-12


def min_norm_step(J: np.ndarray, r: np.ndarray, reg: float = CORR_REG) -> np.ndarray:
    """``dx = J^T (J J^T + mu^2 I)^+ r`` with ``mu^2 = reg^2 max_k |J_k|^2`` (``sb_min_norm`` in C).

    Along the directions of ``J`` whose singular value ``s`` is well above ``mu`` this is the minimum-norm
    solution of ``J dx = r`` (a Gauss-Newton step); along one where ``s`` is small (rows becoming dependent at a
    singular position) the step is ``s r / (s^2 + mu^2) <= r / (2 mu)`` instead of ``r / s`` (Tikhonov's
    regularization).  ``reg = 0`` is the exact minimum-norm step (the initial velocities).

    Example:
        >>> import numpy as np
        >>> min_norm_step(np.array([[1.0, 1.0]]), np.array([2.0]), reg=0.0).tolist()
        [1.0, 1.0]
    """
    J = np.atleast_2d(np.asarray(J, dtype=float))
    if J.shape[0] == 0:
        return np.zeros(J.shape[1])
    G = J @ J.T
    gmax = float(np.max(np.diag(G)))
    r = np.asarray(r, dtype=float)
    if not gmax > 0.0:  # no row (or one not finite: the result says so)
        return np.zeros(J.shape[1]) if gmax == 0.0 else np.full(J.shape[1], np.nan)
    if reg > 0.0:  # positive definite: solved exactly (the smallest mode is reg^2 of the largest row)
        G[np.diag_indices_from(G)] += reg * reg * gmax
        return J.T @ np.linalg.solve(G, r)
    return J.T @ np.linalg.lstsq(G, r, rcond=GRAM_RCOND)[0]  # redundant rows: one of the equal steps


def baumgarte_terms(rate: np.ndarray, position: np.ndarray, a: float, b: float) -> np.ndarray:
    """``a rate + b position`` on the first ``position.size`` rows, ``a rate`` on the others: Baumgarte's terms of
    constraint rows with velocity errors ``rate`` (``D dq - beta``) and position errors ``position`` (``Phi`` of
    the holonomic rows, which come first; the gaps of closed contacts).  With ``a = 2 alpha`` and ``b = beta^2``
    (the FMUs' ``baumgarte.alpha`` and ``baumgarte.beta``; ``symbody.numeric.simulate``'s ``(xi, omega)`` is
    ``alpha = xi omega``, ``beta = omega``) a row solved with ``D ddq = gamma - terms`` drifts as
    ``e'' + 2 alpha e' + beta^2 e = 0``.

    Example (a velocity error of 0.5 and a position error of 0.1 on the first of two rows):
        >>> baumgarte_terms(np.array([0.5, 0.5]), np.array([0.1]), 20.0, 100.0).tolist()
        [20.0, 10.0]
    """
    terms = a * np.asarray(rate, dtype=float)
    terms[: np.size(position)] += b * np.asarray(position, dtype=float)
    return terms


#: D M^-1 D^T with a Cholesky pivot below this part of its largest diagonal entry: filtered multipliers
#: (the C runtime's SB_FILTER_SWITCH)
FILTER_SWITCH = 1e-4
#: ... also where a row's squared norm falls below this part of the largest it has had (SB_VANISHING_ROW)
VANISHING_ROW = 1e-4
#: filter level tau relative to the regular eigenvalues of the scaled D M^-1 D^T (SB_FILTER_LEVEL)
FILTER_LEVEL = 1e-6
#: a filtered mode whose eigenvalue is below this many tau has a multiplier the equations do not determine
#: (the filter changes it by more than 1e-6 of it; SB_UNDETERMINED)
UNDETERMINED = 1e3


def row_weights(D: np.ndarray, row_ref: np.ndarray | float = 0.0) -> np.ndarray:
    """``E = diag(1 / sqrt(max(row_ref, |D_r|^2)))``: each row scaled by the largest norm it has had (a row small
    by its units is not a vanishing one; ``row_weight`` in C)."""
    norms = np.sum(D * D, axis=1)
    ref = np.maximum(np.broadcast_to(np.asarray(row_ref, dtype=float), norms.shape), norms)
    return np.where(ref > 0, 1.0 / np.sqrt(np.where(ref > 0, ref, 1.0)), 1.0)


def filter_modes(ESE: np.ndarray, level: float = FILTER_LEVEL, least: float = 0.0):
    """``(s, V, tau)``: ``E S E = V diag(s) V^T`` and the filter level ``tau = level max(max s, least)``
    (``least``: about the smallest eigenvalue of ``M^-1``, ``1 / max M_ii``, for a single row that vanishes;
    ``sb_filter_modes``)."""
    s, V = np.linalg.eigh(0.5 * (ESE + ESE.T))
    return s, V, level * max(float(s.max(initial=0.0)), least)


def filter_apply(V: np.ndarray, s: np.ndarray, e: np.ndarray, tau: float, r: np.ndarray) -> np.ndarray:
    """``E V diag(s / (s^2 + tau^2)) V^T E r`` (modes with ``s <= 0`` dropped): the exact ``(E S E)^-1`` where
    ``s >> tau``, at most ``1 / (2 tau)`` where ``s`` vanishes; ``r`` a vector or a matrix of columns
    (``sb_filter_apply``).

    Example (two rows that coincide: the multipliers share the force, bounded):
        >>> s, V, tau = filter_modes(np.array([[1.0, 1.0], [1.0, 1.0]]))
        >>> filter_apply(V, s, np.ones(2), tau, np.array([2.0, 2.0])).round(9).tolist()
        [1.0, 1.0]
    """
    shape = (-1,) + (1,) * (np.ndim(r) - 1)
    c = V.T @ (e.reshape(shape) * r)
    weights = np.where(s > 0, s / (s * s + tau * tau), 0.0)
    return e.reshape(shape) * (V @ (weights.reshape(shape) * c))


def range_space_solve(M: np.ndarray, D: np.ndarray, f: np.ndarray, g: np.ndarray, row_ref: np.ndarray):
    """``[M D^T; D 0][x; lam] = [f; g]`` as the C runtime solves it; ``None`` when ``M`` is not positive definite.

    With ``X = M^-1 D^T``, ``y = M^-1 f`` and ``S = D X``: exact (Cholesky of ``S``) where no row has fallen
    below :data:`VANISHING_ROW` of ``row_ref`` (the largest squared norm each has had) and ``S``'s least
    Cholesky pivot is above :data:`FILTER_SWITCH` of its largest diagonal entry; else the multipliers are
    filtered (:func:`filter_apply`).  Returns ``(x, lam, undetermined)``, the last the directions ``E V_k`` of
    the multipliers the equations do not determine (filtered modes below :data:`UNDETERMINED` ``tau``; none
    where the solution is regular).

    Example (a unit mass on a line held by one row: the force that holds it against f = 1):
        >>> x, lam, und = range_space_solve(np.eye(1), np.ones((1, 1)), np.ones(1), np.zeros(1), np.ones(1))
        >>> x.tolist(), lam.tolist(), und.shape
        ([0.0], [1.0], (1, 0))
    """
    try:
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        return None
    X = np.linalg.solve(L.T, np.linalg.solve(L, np.column_stack([D.T, f])))
    y, X = X[:, -1], X[:, :-1]
    S = D @ X
    r = D @ y - g
    regular = not np.any(np.sum(D * D, axis=1) < VANISHING_ROW * row_ref)
    if regular:
        try:
            Ls = np.linalg.cholesky(S)
            regular = np.min(np.diag(Ls)) ** 2 > FILTER_SWITCH * np.max(np.diag(S))
        except np.linalg.LinAlgError:
            regular = False
    if regular:
        lam = np.linalg.solve(Ls.T, np.linalg.solve(Ls, r))
        return y - X @ lam, lam, np.zeros((len(r), 0))
    e = row_weights(D, row_ref)
    s, V, tau = filter_modes(e[:, None] * S * e[None, :], FILTER_LEVEL, 1.0 / float(np.max(np.diag(M))))
    lam = filter_apply(V, s, e, tau, r)
    return y - X @ lam, lam, e[:, None] * V[:, s < UNDETERMINED * tau]


#: a constraint row counts as clearly independent while its singular value exceeds this part of the largest row
#: norm met (SB_SINGULAR_GAP)
SINGULAR_GAP = 1e-2
#: the change of each coordinate for the reference row norms at the start (SB_SEED_STEP) ...
SEED_STEP = 0.1
#: ... and the part of the squared row norms met there taken as reference (SB_SEED_SHARE)
SEED_SHARE = 1e-2


def clear_rank(D: np.ndarray, ref: float, gap: float = SINGULAR_GAP) -> int:
    """How many rows of ``D`` are clearly independent: eigenvalues of ``D D^T`` above ``gap^2 ref``, ``ref`` the
    largest squared row norm met (``sb_clear_rank``).  Fewer than the most counted so far: a singular position.

    Example (a slider-crank's two rows, the second vanishing at the dead point):
        >>> clear_rank(np.array([[1.0, 0.0], [0.0, 0.5]]), 1.0), clear_rank(np.array([[1.0, 0.0], [0.0, 1e-3]]), 1.0)
        (2, 1)
    """
    if D.shape[0] == 0:
        return 0
    return int(np.sum(np.linalg.eigvalsh(D @ D.T) > gap * gap * ref))


def seed_row_reference(row_norms_at: Callable[[np.ndarray], np.ndarray], q: np.ndarray, rows: int) -> np.ndarray:
    """:data:`SEED_SHARE` of the largest squared norms each constraint row has at ``q +- SEED_STEP e_i`` (each
    coordinate changed in turn): the reference that tells a row vanishing at a singular start from one small by
    its units (``sb_seed_row_reference``).  ``row_norms_at(q)`` gives the ``rows`` squared row norms at ``q``; a
    configuration outside the model's domain (an arithmetic error, or norms not finite) tells nothing.

    Example (a crank of unit length at its dead point: the row ``sin(phi)`` has norm ``sin(0.1)`` a tenth away):
        >>> import math
        >>> ref = seed_row_reference(lambda q: np.array([math.sin(q[0]) ** 2]), np.zeros(1), 1)
        >>> bool(np.isclose(ref[0], SEED_SHARE * math.sin(0.1) ** 2))
        True
    """
    near = np.zeros(rows)
    for i in range(q.size):
        for side in (-1.0, 1.0):
            qi = np.array(q, dtype=float)
            qi[i] += side * SEED_STEP
            try:
                with np.errstate(all="ignore"):
                    v = np.asarray(row_norms_at(qi), dtype=float)
            except (ArithmeticError, ValueError):
                continue
            near = np.maximum(near, np.where(np.isfinite(v), v, 0.0))
    return SEED_SHARE * near
