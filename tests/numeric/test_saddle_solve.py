"""The augmented system ``[M D^T; D 0][ddq; lam] = [delta; gamma]``: exact where it is regular.

:func:`symbody.numeric.saddle.solve_saddle` filters the multipliers at singular positions (rows of
``D`` nearly dependent, or vanishing against the norms they have had).  Everywhere else its
accelerations, multipliers and the linearizations built on it are those of
``numpy.linalg.solve`` of the same augmented system, to rounding: relative 1e-12, on every
configuration whose augmented matrix, scaled for its units (coordinates by ``1 / sqrt(M_ii)``,
constraint rows to unit norm in those coordinates), has a condition number below 1e3.  The
choice is made on the scaled ``D M^-1 D^T`` (:func:`symbody.numeric.saddle.schur_condition`), not
on raw LU pivots: a rear frame of 85 kg beside wheels of 0.12 kg m^2 (the Whipple bicycle) or
inertias of 1e-7 kg m^2 beside a 0.05 kg body (Andrews' squeezer) made pivots 1e-3 and 1e-4 apart
and sent regular configurations to the filter (relative errors 1e-8).
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

from symbody.fmu.testing import cached_equations
from symbody.numeric import NumericModel, assemble, linearize, solve_velocities
from symbody.numeric.saddle import REGULAR_CONDITION, schur_condition, solve_saddle

from support import EXAMPLES, MODELS

TOL = 1e-12
LINEARIZE = importlib.import_module("symbody.numeric.linearize")  # the module (the package exports the function)
MODELS_REGULAR = [
    str(MODELS / "whipple_bicycle.py"),
    str(MODELS / "andrews_squeezer.py"),
    str(MODELS / "parallelogram.py"),
    str(MODELS / "equal_slider_crank.py"),
    str(EXAMPLES / "four_bar.py"),
    str(EXAMPLES / "crank_rod_disc.py"),  # a coordinate without inertia: M is singular
    str(EXAMPLES / "slider_crank.py"),
]


def scaled_condition(M: np.ndarray, D: np.ndarray) -> float:
    """Condition number of the augmented matrix scaled for its units: coordinates by ``1 / sqrt(M_ii)``
    (a coordinate without inertia as the heaviest one), rows of ``D`` to unit norm in those coordinates."""
    m = np.diag(M).copy()
    m[m <= 0] = m.max()
    c = 1.0 / np.sqrt(m)
    Dc = D * c[None, :]
    Dc = Dc / np.linalg.norm(Dc, axis=1)[:, None]
    k = D.shape[0]
    return float(np.linalg.cond(np.block([[c[:, None] * M * c[None, :], Dc.T], [Dc, np.zeros((k, k))]])))


def numpy_saddle(M, D, f, g):
    n = M.shape[0]
    k = D.shape[0]
    x = np.linalg.solve(np.block([[M, D.T], [D, np.zeros((k, k))]]), np.concatenate([f, g]))
    return x[:n], x[n:]


def relative(actual, expected) -> float:
    scale = np.linalg.norm(expected)
    return float(np.linalg.norm(np.asarray(actual) - expected) / (scale if scale > 0 else 1.0))


def mixed_units_system(rng, n: int, c: int):
    """A well-conditioned system written in mixed units: coordinates scaled by 1e-3 ... 1e3, rows by 1e-3 ... 1e3."""
    A = rng.normal(size=(n, n))
    cs = 10.0 ** rng.uniform(-3, 3, n)
    M = cs[:, None] * (A @ A.T / n + np.eye(n)) * cs[None, :]
    rows = np.linalg.qr(rng.normal(size=(n, c)))[0].T + 0.2 * rng.normal(size=(c, n))  # clearly independent
    D = 10.0 ** rng.uniform(-3, 3, c)[:, None] * rows * cs[None, :]
    return M, D, rng.normal(size=n) * cs, rng.normal(size=c)


@pytest.mark.parametrize("seed", range(20))
def test_regular_systems_in_mixed_units_are_solved_as_numpy_does(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    M, D, f, g = mixed_units_system(rng, n, int(rng.integers(1, n)))
    assert scaled_condition(M, D) < 1e3
    x, lam = solve_saddle(M, D, f, g)
    xr, lr = numpy_saddle(M, D, f, g)
    assert relative(x, xr) < TOL
    assert relative(lam, lr) < TOL


def test_nearly_dependent_rows_keep_bounded_multipliers():
    """Two rows 1e-9 apart with data that disagree by 1e-6 (the drift of an integration at a singular
    position): the exact multipliers are 1e3 times the data over 1e-9; the filtered ones stay bounded."""
    M = np.diag([2.0, 1.0, 0.5])
    D = np.array([[1.0, 1.0, 0.0], [1.0, 1.0 + 1e-9, 0.0]])
    f, g = np.array([0.0, 0.0, 1.0]), np.array([0.0, 1e-6])
    assert schur_condition(M, D) > REGULAR_CONDITION
    x, lam = solve_saddle(M, D, f, g)
    assert np.abs(numpy_saddle(M, D, f, g)[1]).max() > 1e2
    assert np.abs(lam).max() < 1e-2
    np.testing.assert_allclose(x, [0.0, 0.0, 2.0], atol=1e-6)


def test_a_row_vanishing_against_its_largest_norm_is_filtered():
    """The same row small by its units is solved exactly; vanishing against the norm it had (``row_scale``),
    a dead point, it is filtered."""
    M = np.eye(2)
    D = np.array([[1e-4, 0.0]])
    f, g = np.array([0.0, 1.0]), np.array([1e-9])  # a drift of 1e-9 against a row of 1e-4
    _, lam = solve_saddle(M, D, f, g)
    assert relative(lam, numpy_saddle(M, D, f, g)[1]) < TOL
    _, lam = solve_saddle(M, D, f, g, row_scale=np.array([1.0]))
    assert abs(lam[0]) < 1e-3 * abs(numpy_saddle(M, D, f, g)[1][0])


def random_configurations(eq, rng, count: int):
    yield np.array(eq.q0, dtype=float), np.array(eq.dq0, dtype=float)
    for _ in range(count - 1):
        yield np.array(eq.q0) + rng.normal(0.0, 0.3, eq.nq), rng.normal(0.0, 1.0, eq.nq)


@pytest.mark.parametrize("model", MODELS_REGULAR, ids=lambda p: p.rsplit("/", 1)[-1][:-3])
def test_accelerations_and_multipliers_of_regular_configurations_are_numpy_s(model):
    eq = cached_equations(model)
    nm = NumericModel(eq)
    rng = np.random.default_rng(7)
    checked = 0
    for q, dq in random_configurations(eq, rng, 8):
        M, d, D, g = nm.evaluate("M", "delta", "D", "gamma", q=q, dq=dq)
        if not scaled_condition(M, D) < 1e3:
            continue
        ddq, lam = nm.accelerations(q, dq)
        ddq_np, lam_np = numpy_saddle(M, D, d, g)
        assert relative(ddq, ddq_np) < TOL, (q, dq)
        assert relative(lam, lam_np) < TOL, (q, dq)
        checked += 1
    assert checked >= 6


def consistent_state(eq, nm, q, dq):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = assemble(nm, q, use_initial=False).q
    return q, solve_velocities(nm, q, dq=dq).values


@pytest.mark.parametrize("model", MODELS_REGULAR, ids=lambda p: p.rsplit("/", 1)[-1][:-3])
def test_linearizations_of_regular_configurations_are_numpy_s(model, monkeypatch):
    """The state matrices of :func:`linearize` against the same linearization whose augmented systems
    numpy solves."""
    eq = cached_equations(model)
    nm = NumericModel(eq)
    rng = np.random.default_rng(11)
    states = []
    for q, dq in random_configurations(eq, rng, 4):
        q, dq = consistent_state(eq, nm, q, dq)
        M, D = nm.evaluate("M", "D", q=q, dq=dq)
        if scaled_condition(M, D) < 1e3:
            states.append((q, dq))
    assert len(states) >= 3
    ours = [linearize(nm, q, dq) for q, dq in states]
    monkeypatch.setattr(LINEARIZE, "solve_saddle", numpy_saddle)
    for lin, (q, dq) in zip(ours, states):
        ref = linearize(nm, q, dq, independent=lin.independent)
        assert ref.states == lin.states
        assert relative(lin.A, ref.A) < TOL
        assert relative(lin.B, ref.B) < TOL


def test_a_simulation_started_next_to_a_singular_position_has_reference_rows_from_next_to_it():
    """A parallelogram started 1e-7 rad from lying flat: its x loop row nearly vanishes there.  The rows
    next to the start (each coordinate 0.1 away) give it a reference norm, as the FMU runtime does, so
    that the first steps filter that row instead of solving it exactly as if it were small by its units."""
    from symbody.numeric.dependent import SEED_SHARE, DependentCoordinates
    from symbody.numeric.inputs import input_function

    eq = cached_equations(str(MODELS / "parallelogram.py"), (("phi0", 1e-7),))
    nm = NumericModel(eq)
    form = DependentCoordinates(nm, input_function(eq, None), (1.0, 10.0), False, 1e-10)
    form.seed_row_reference(0.0, np.array(eq.q0))
    norm_x = np.sum(nm.D(eq.q0)[0] ** 2)
    assert norm_x < 1e-12
    # largest with the coupler 0.1 away: the x row (-b sin phi1, -a sin phi2, b sin phi3) is (0, -2 sin 0.1, 0)
    np.testing.assert_allclose(form.row_ref[0], SEED_SHARE * (2.0 * np.sin(0.1)) ** 2, rtol=1e-6)
