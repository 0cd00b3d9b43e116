"""The Whipple bicycle against the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (2007).

Meijaard, J. P., Papadopoulos, J. M., Ruina, A. and Schwab, A. L., "Linearized dynamics equations
for the balance and steer of a bicycle: a benchmark and review", Proceedings of the Royal Society
A 463 (2007) 1955-1982.  ``tests/models/whipple_bicycle.py`` builds the four bodies with the
parameters of its Table 1 and knife-edge wheels rolling without slipping (five constraint rows,
four of them non-holonomic); :func:`symbody.numeric.linearize` linearizes the nonlinear equations
about upright straight running at speed ``v``.  In roll and steer the result is the benchmark's
``M q'' + v C1 q' + (g K0 + v^2 K2) q = 0``, whose matrices the paper gives to 14 digits (its
eq. 5.4 ff.), and whose eigenvalues it tabulates for ``v = 0, 1, ..., 10`` m/s (Table 2).  The
linearization is exact (symbolic Jacobians), so the only errors left are those of rounding: every
check is relative 1e-12, which the published digits allow (a filtered solve of the augmented
system gave ``K0[0, 0] = -80.95000000449433``).
"""

from __future__ import annotations

import numpy as np
import pytest

from symbody.fmu.testing import cached_equations
from symbody.numeric import NumericModel, linearize

from support import MODELS

BICYCLE = str(MODELS / "whipple_bicycle.py")
G = 9.81

# Meijaard et al. (2007), the benchmark's coefficient matrices (roll phi, steer delta)
M_PUB = np.array([[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]])
C1_PUB = np.array([[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]])
K0_PUB = np.array([[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]])
K2_PUB = np.array([[0.0, 76.59734589573222], [0.0, 2.65431523794604]])

# Meijaard et al. (2007), Table 2: the eigenvalues at v = 0, 1, ..., 10 m/s
TABLE2 = {
    0: [5.53094371765393, 3.13164324790656, -3.13164324790656, -5.53094371765393],
    1: [3.52696170990070 + 0.80774027519930j, 3.52696170990070 - 0.80774027519930j, -3.13423125066578,
        -7.11008014637442],
    2: [2.68234517512745 + 1.68066296590675j, 2.68234517512745 - 1.68066296590675j, -3.07158645641514,
        -8.67387984831735],
    3: [1.70675605663975 + 2.31582447384325j, 1.70675605663975 - 2.31582447384325j, -2.63366137253667,
        -10.35101467245920],
    4: [0.41325331521125 + 3.07910818603206j, 0.41325331521125 - 3.07910818603206j, -1.42944427361326,
        -12.15861426576447],
    5: [-0.77534188219585 + 4.46486771378823j, -0.77534188219585 - 4.46486771378823j, -0.32286642900409,
        -14.07838969279822],
    6: [-1.52644486584142 + 5.87673060598709j, -1.52644486584142 - 5.87673060598709j, -0.00406690076970,
        -16.08537123098030],
    7: [-2.13875644258362 + 7.19525913329805j, -2.13875644258362 - 7.19525913329805j, 0.10268170574766,
        -18.15788466125262],
    8: [-2.69348683581097 + 8.46037971396931j, -2.69348683581097 - 8.46037971396931j, 0.14327879765713,
        -20.27940894394569],
    9: [-3.21675402252485 + 9.69377351531791j, -3.21675402252485 - 9.69377351531791j, 0.15790184030917,
        -22.43788559040858],
    10: [-3.72016840437287 + 10.90681139476287j, -3.72016840437287 - 10.90681139476287j, 0.16105338653172,
         -24.62459635017404],
}  # fmt: skip

LATERAL = ["phi", "delt"]
TOL = 1e-12


def upright_running(v: float, g: float = G):
    """The linearization about upright straight running at speed ``v`` (``g`` the gravity parameter)."""
    eq = cached_equations(BICYCLE)
    q = np.zeros(eq.nq)
    dq = np.zeros(eq.nq)
    names = [c.name for c in eq.coordinates]
    dq[names.index("x")] = v
    dq[names.index("thetaR")] = -v / 0.3
    dq[names.index("thetaF")] = -v / 0.35
    return linearize(NumericModel(eq, {"g": g}), q, dq, independent=["phi", "delt", "thetaR"])


def lateral(lin):
    """``M, C, K`` of roll and steer from the second-order form in the independent coordinates."""
    so = lin.second_order
    rows = [so.coordinates.index(n) for n in LATERAL]
    cols = [so.position_coordinates.index(n) for n in LATERAL]
    return so.M[np.ix_(rows, rows)], so.C[np.ix_(rows, rows)], so.K[np.ix_(rows, cols)]


def close(actual, expected, tol=TOL) -> float:
    """Norm-wise relative difference, asserted below ``tol``."""
    err = float(np.max(np.abs(np.asarray(actual) - expected)) / np.max(np.abs(expected)))
    assert err < tol, f"relative difference {err:.3g}:\n{actual}\nexpected\n{expected}"
    return err


def test_coefficient_matrices_are_the_benchmark_s():
    """M from the reduced mass matrix; K0 = K(v = 0, g = 1); C1 and K2 from v = 1 without gravity."""
    M, C0, K0 = lateral(upright_running(0.0, g=1.0))
    _, C1, K2 = lateral(upright_running(1.0, g=0.0))
    close(M, M_PUB)
    close(K0, K0_PUB)
    close(C1, C1_PUB)
    close(K2, K2_PUB)
    assert np.max(np.abs(C0)) < TOL * np.max(np.abs(C1_PUB))  # no damping at rest


@pytest.mark.parametrize("v", [3.0, 4.6])
def test_stiffness_and_damping_are_quadratic_and_linear_in_the_speed(v):
    """K(v) = g K0 + v^2 K2 and C(v) = v C1 at the benchmark's gravity, with the published matrices."""
    M, C, K = lateral(upright_running(v))
    close(M, M_PUB)
    close(C, v * C1_PUB)
    close(K, G * K0_PUB + v * v * K2_PUB)


def test_eigenvalues_are_table_2():
    """The eigenvalues of the state matrix in roll, steer and their rates; the lateral motion does not
    depend on the other states (position on the ground, heading, wheel angles, forward speed)."""
    for v, published in TABLE2.items():
        lin = upright_running(float(v))
        idx = [lin.states.index(n) for n in ("phi", "delt", "dphi", "ddelt")]
        others = [i for i in range(len(lin.states)) if i not in idx]
        assert np.max(np.abs(lin.A[np.ix_(idx, others)])) < TOL * np.max(np.abs(lin.A[np.ix_(idx, idx)]))
        got = np.sort_complex(np.linalg.eigvals(lin.A[np.ix_(idx, idx)]))
        want = np.sort_complex(np.array(published, dtype=complex))
        close(got, want)
