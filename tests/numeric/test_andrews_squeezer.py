"""Andrews' squeezing mechanism: the consistent initial values of the IVP test set.

Mazzia, F. and Magherini, C., "Test Set for Initial Value Problem Solvers", release 2.4, University
of Bari (2008), problem "Andrews' squeezing mechanism" (also Hairer and Wanner, "Solving Ordinary
Differential Equations II", 1996, section VII.7).  The test set gives the consistent initial
accelerations ``w(0)`` and multipliers ``lambda(0)`` at its initial positions (velocities zero) to
30 digits.  ``tests/models/andrews_squeezer.py`` builds the seven bodies, the spring and the drive
torque and writes the six constraint rows as the test set does (so that its multipliers are
symbody's); the mass matrix symbody derives is the test set's closed form.  The augmented system
is regular there, so the accelerations and multipliers are exact to rounding: relative 1e-12
(a filtered solve gave 3e-8 and 1e-8).
"""

from __future__ import annotations

import numpy as np

from symbody.fmu.testing import cached_equations
from symbody.numeric import NumericModel, simulate

from support import MODELS

ANDREWS = str(MODELS / "andrews_squeezer.py")
Q0 = [
    -0.0617138900142764496358948458001,
    0.0,
    0.455279819163070380255912382449,
    0.222668390165885884674473185609,
    0.487364979543842550225598953530,
    -0.222668390165885884674473185609,
    1.23054744454982119249735015568,
]
#: the test set's w(0) = q''(0) and lambda(0)
DDQ0 = np.array([14222.4439199541138705911625887, -10666.8329399655854029433719415, 0.0, 0.0, 0.0, 0.0, 0.0])
LAM0 = np.array([98.5668703962410896057654982170, -6.12268834425566265503114393122, 0.0, 0.0, 0.0, 0.0])
TOL = 1e-12


def relative(actual, expected) -> float:
    return float(np.linalg.norm(np.asarray(actual) - expected) / np.linalg.norm(expected))


def test_mass_matrix_is_the_test_set_s():
    """The closed form of the test set (its subroutine F) at the initial positions."""
    m1, m2, m3, m4, m5, m6, m7 = 0.04325, 0.00365, 0.02373, 0.00706, 0.07050, 0.00706, 0.05498
    i1, i2, i3, i4, i5, i6, i7 = 2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5
    e, ea, zt, zf, fa, u, da, rr, ra = 2e-2, 1421e-5, 4e-2, 2e-2, 1421e-5, 4e-2, 115e-4, 7e-3, 92e-5
    sa, sb, ta, tb, ua, ub = 1874e-5, 1043e-5, 2308e-5, 916e-5, 1228e-5, 449e-5
    th, ph, om = Q0[1], Q0[3], Q0[5]
    M = np.zeros((7, 7))
    M[0, 0] = m1 * ra**2 + m2 * (rr**2 - 2 * da * rr * np.cos(th) + da**2) + i1 + i2
    M[1, 0] = M[0, 1] = m2 * (da**2 - da * rr * np.cos(th)) + i2
    M[1, 1] = m2 * da**2 + i2
    M[2, 2] = m3 * (sa**2 + sb**2) + i3
    M[3, 3] = m4 * (e - ea) ** 2 + i4
    M[4, 3] = M[3, 4] = m4 * ((e - ea) ** 2 + zt * (e - ea) * np.sin(ph)) + i4
    M[4, 4] = m4 * (zt**2 + 2 * zt * (e - ea) * np.sin(ph) + (e - ea) ** 2) + m5 * (ta**2 + tb**2) + i4 + i5
    M[5, 5] = m6 * (zf - fa) ** 2 + i6
    M[6, 5] = M[5, 6] = m6 * ((zf - fa) ** 2 - u * (zf - fa) * np.sin(om)) + i6
    M[6, 6] = m6 * ((zf - fa) ** 2 - 2 * u * (zf - fa) * np.sin(om) + u**2) + m7 * (ua**2 + ub**2) + i6 + i7
    (Ms,) = NumericModel(cached_equations(ANDREWS)).evaluate("M", q=Q0)
    assert relative(Ms, M) < TOL


def test_initial_accelerations_and_multipliers_are_the_test_set_s():
    nm = NumericModel(cached_equations(ANDREWS))
    assert np.max(np.abs(nm.Phi(Q0))) < 1e-15  # the test set's positions are consistent
    ddq, lam = nm.accelerations(Q0, np.zeros(7))
    assert relative(ddq, DDQ0) < TOL
    assert relative(lam, LAM0) < TOL


def test_simulation_starts_with_the_test_set_s_accelerations():
    """What a simulation records at t = 0: the accelerations and the multipliers as outputs."""
    res = simulate(cached_equations(ANDREWS), 1e-4, dt=1e-4, method="DOP853", rtol=1e-10, atol=1e-12)
    assert relative(res.ddq[0], DDQ0) < TOL
    assert relative([res[f"lam{k}"][0] for k in range(1, 7)], LAM0) < TOL
