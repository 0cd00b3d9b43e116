"""Forward dynamics with redundant constraint rows: the square-and-disc double pendulum of the dynamics chapter.

``examples/double_pendulum_square_disc.py`` with ``coordinates="mixed"`` is the chapter's run of section
4.4.3 (Problemas dinámicos, eqs. 136-139): the natural coordinates of the two points and the absolute
angles of the two bodies, massless, tied to the points by both sine and cosine closure rows, six rows of
rank four.  Off the constraint manifold the drift of the integration makes the redundant rows independent
at its own level, with Baumgarte's terms that disagree by as much.

Independent checks: the same pendulum in natural coordinates without redundant rows, integrated with the
same method and step (its errors are those of the step and the physics), and in relative coordinates at a
tight tolerance (the motion).
"""

import math

import numpy as np
import pytest

from symbody.numeric import NumericModel, simulate
from symbody.numeric.dependent import ConstraintRows

from support import example

pytestmark = pytest.mark.filterwarnings("ignore:.*redundant at the initial configuration")

POINTS = ("x1", "y1", "x2", "y2")


@pytest.fixture(scope="module")
def models():
    return {c: example("double_pendulum_square_disc", coordinates=c).derive() for c in ("natural", "mixed")}


@pytest.fixture(scope="module")
def motion():
    """The motion in relative coordinates (no constraint), DOP853 at 1e-12."""
    eq = example("double_pendulum_square_disc", coordinates="relative").derive()
    return simulate(eq, 10.0, dt=0.01, rtol=1e-12, atol=1e-12)


def test_the_mixed_description_has_two_redundant_rows(models):
    eq = models["mixed"]
    assert (eq.nq, eq.nc) == (6, 6)
    D = NumericModel(eq).D(np.array(eq.q0, dtype=float), t=0.0)
    assert np.linalg.matrix_rank(D) == 4


@pytest.mark.parametrize("formulation", ["baumgarte", "projection"])
def test_rk4_with_redundant_rows_is_as_accurate_as_without(models, motion, formulation):
    """RK4 at h = 1e-2 for 10 s: the redundant description overflowed (baumgarte: infinite accelerations)
    or stalled in its projection at t = 3.17 with a residual of 1e6; it must follow the motion
    as the natural description does with the same step, and keep its sine and cosine rows."""
    runs = {
        c: simulate(models[c], 10.0, dt=0.01, formulation=formulation, method="RK4", step=1e-2)
        for c in ("natural", "mixed")
    }
    errors = {c: max(np.abs(r[p] - motion[p]).max() for p in POINTS) for c, r in runs.items()}
    drift = {c: float(np.abs(r.energy.total - r.energy.total[0]).max()) for c, r in runs.items()}
    # the natural description's errors are those of RK4 at this step: the same physics, no redundant rows
    assert errors["natural"] < 1e-2 and drift["natural"] < 2e-3
    assert errors["mixed"] < 2 * errors["natural"]
    assert drift["mixed"] < 2 * drift["natural"]
    mixed = runs["mixed"]
    if formulation == "projection":
        assert mixed.position_violation.max() <= 1e-10  # every row, the redundant ones included
    else:  # Baumgarte's terms hold every row as they hold the natural description's distance rows
        assert mixed.position_violation.max() < 10 * runs["natural"].position_violation.max()
    # the angles follow the points: x1 = 2 r sin phi1 (r = 1)
    np.testing.assert_allclose(2 * np.sin(mixed["phi1"]), mixed["x1"], atol=1e-4)


def _state_at(t0: float, coordinates: str) -> tuple[list[float], list[float]]:
    """The state of the motion at t0 (relative coordinates at 1e-12) in natural or mixed coordinates."""
    rel = example("double_pendulum_square_disc", coordinates="relative").derive()
    ref = simulate(rel, (0.0, t0), t_eval=[t0], rtol=1e-12, atol=1e-12)
    th1, th2 = ref.q[-1]
    w1, w2 = ref.dq[-1]
    a, b, wa, wb = th1, th1 + th2, w1, w1 + w2
    x1, y1 = 2 * math.cos(a), 2 * math.sin(a)
    q = [x1, y1, x1 + 2 * math.cos(b), y1 + 2 * math.sin(b)]
    dx1, dy1 = -2 * math.sin(a) * wa, 2 * math.cos(a) * wa
    dq = [dx1, dy1, dx1 - 2 * math.sin(b) * wb, dy1 + 2 * math.cos(b) * wb]
    if coordinates == "mixed":  # angles from the downward vertical
        q, dq = q + [a + math.pi / 2, b + math.pi / 2], dq + [wa, wb]
    return q, dq


@pytest.mark.parametrize("coordinates", ["natural", "mixed"])
def test_independent_coordinates_keep_their_accuracy_through_the_whiplash(models, coordinates):
    """RK4 at h = 1e-3 from t = 6.5 s through the whiplash at 6.76 s, where the pendulum stretches out.

    The independent coordinates were the end of the disc until its chart was nearly singular: the energy
    error grew from 6e-9 J to 8e-7 J within 60 ms (51 times that of the index-1 formulation with the same
    step); the redundant description failed to choose coordinates at all ("could not find 5 dependent
    coordinates"): a state predicted a step ahead, off the constraints by the step's error, made its
    redundant rows count.  It must stay within 10 times the index-1 formulation's error, the step's.
    """
    q0, dq0 = _state_at(6.5, coordinates)
    kw = dict(dt=0.01, q0=q0, dq0=dq0, method="RK4", step=1e-3)
    drift = {}
    for formulation in ("independent", "baumgarte"):
        res = simulate(models[coordinates], (6.5, 6.9), formulation=formulation, **kw)
        drift[formulation] = float(np.abs(res.energy.total - res.energy.total[0]).max())
    assert drift["baumgarte"] < 1e-7  # RK4 at 1 ms over the whiplash
    assert drift["independent"] < 10 * drift["baumgarte"], drift


def test_constraint_rows_are_kept_until_another_set_is_much_better():
    """A pendulum's distance row and its sine and cosine rows (rank 2 of 3): the sine row loses its hold
    on the angle at phi = pi / 2 (x = 2 sin phi at its maximum), where the cosine row takes over."""
    rows = ConstraintRows(2)

    def D(phi):  # rows: x^2 + y^2 - 4, x - 2 sin phi, y + 2 cos phi over (x, y, phi), on the circle
        x, y = 2 * math.sin(phi), -2 * math.cos(phi)
        return np.array([[2 * x, 2 * y, 0.0], [1.0, 0.0, -2 * math.cos(phi)], [0.0, 1.0, -2 * math.sin(phi)]])

    ref = np.ones(3) * 16.0
    first = rows.choose(D(0.1), ref)
    assert rows.choose(D(0.12), ref) == first  # nothing much better: kept
    near = rows.choose(D(math.pi / 2 - 1e-3), ref)
    sv = np.linalg.svd(ConstraintRows._scaled(D(math.pi / 2 - 1e-3), ref)[near], compute_uv=False)
    assert sv[-1] > 0.1  # a well conditioned set where the sine row has lost its hold
