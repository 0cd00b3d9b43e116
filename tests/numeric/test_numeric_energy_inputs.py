"""Energy helpers, input signals and linear-algebra helpers of symbody.numeric.

(The runnable examples in the module docstrings are collected by pytest's ``--doctest-modules``.)
"""

import math
import warnings

import numpy as np
import pytest

import symbody as sb
from symbody.numeric import Sampled, energy, is_conservative, kinetic_energy, potential_energy, simulate
from symbody.numeric.linalg import independent_rows, null_space_basis, partition
from symbody.numeric.saddle import solve_saddle

G = 9.81


def spring_pendulum():
    s = sb.System("spring_pendulum_energy")
    th = s.coordinate("theta", 1.2)
    m, l, k = s.parameter("m", 1.5), s.parameter("l", 0.8), s.parameter("k", 3.0)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, sb.Vector(B, 0, -l, 0)), m)
    s.gravity((0, -G, 0))
    s.torsion_spring_damper("spring", th, k=k, rest_angle=0.3)
    F = s.input("F", 0.0)
    s.generalized_force("drive", th, F)
    return s


def test_potential_energy_is_gravity_plus_spring():
    eq = spring_pendulum().derive()
    th = np.linspace(-3.0, 9.0, 7)  # several turns: long paths between samples
    V = potential_energy(eq, th[:, None])
    exact = -1.5 * G * 0.8 * np.cos(th) + 0.5 * 3.0 * (th - 0.3) ** 2
    np.testing.assert_allclose(V, exact - exact[0], atol=1e-10)
    # with a reference configuration
    V_ref = potential_energy(eq, th[:, None], reference=[0.3])
    exact_ref = -1.5 * G * 0.8 * (np.cos(th) - math.cos(0.3)) + 0.5 * 3.0 * (th - 0.3) ** 2
    np.testing.assert_allclose(V_ref, exact_ref, atol=1e-10)
    # inputs are external work: excluded unless given
    V_u = potential_energy(eq, th[:, None], u={"F": 2.0})
    np.testing.assert_allclose(V_u, exact - exact[0] - 2.0 * (th - th[0]), atol=1e-10)
    assert is_conservative(eq, [0.4])


def test_kinetic_energy_and_conservation_in_a_simulation():
    eq = spring_pendulum().derive()
    res = simulate(eq, 5.0, dt=0.05, dq0=[0.5], rtol=1e-11, atol=1e-12)
    T = kinetic_energy(eq, res.q, res.dq)
    np.testing.assert_allclose(T, 0.5 * 1.5 * 0.8**2 * res["dtheta"] ** 2, rtol=1e-12)
    e = res.energy
    assert e.relative_drift < 1e-8 and e.conservative
    np.testing.assert_allclose(e.kinetic, T)
    # the damped version loses energy monotonically
    eqd = spring_pendulum()
    eqd.viscous_friction("damper", eqd.symbol("theta"), 0.2)
    resd = simulate(eqd.derive(), 5.0, dt=0.05, dq0=[0.5], rtol=1e-10)
    assert np.all(np.diff(resd.energy.total) < 1e-9)


def test_non_conservative_static_forces_are_flagged():
    s = sb.System("follower")
    x, y = s.coordinate("x", 0.0), s.coordinate("y", 0.0)
    s.particle("m", s.point("P", s.origin, (x, y, 0)), 1.0)
    s.generalized_force("circulation", x, y)  # F = (y, 0): curl != 0
    eq = s.derive()
    assert not is_conservative(eq, [0.0, 0.0])
    with pytest.warns(RuntimeWarning, match="not conservative"):
        e = energy(eq, [0.0, 1.0], [[0.0, 0.0], [1.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]])
    assert not e.conservative


def test_sampled_signals():
    s = Sampled([0.0, 1.0, 2.0], [0.0, 10.0, 0.0])
    assert s(0.5) == 5.0 and s(-1.0) == 0.0 and s(3.0) == 0.0
    zoh = Sampled([0.0, 1.0, 2.0], [0.0, 10.0, 0.0], kind="previous")
    assert zoh(0.99) == 0.0 and zoh(1.0) == 10.0 and zoh(5.0) == 0.0
    vec = Sampled([0.0, 1.0], [[0.0, 1.0], [2.0, 3.0]])
    np.testing.assert_allclose(vec(0.5), [1.0, 2.0])
    with pytest.raises(ValueError, match="strictly increasing"):
        Sampled([0.0, 0.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="2 times but 3 values"):
        Sampled([0.0, 1.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="kind"):
        Sampled([0.0, 1.0], [1.0, 2.0], kind="spline")


def test_linear_algebra_helpers():
    # two copies of one row, a third independent one
    D = np.array([[1.0, 2.0, 0.0, 0.0], [2.0, 4.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]])
    assert len(independent_rows(D)) == 2
    p = partition(D)
    assert p.rank == 2 and len(p.independent) == 2
    S = null_space_basis(D, p)
    np.testing.assert_allclose(D @ S, 0.0, atol=1e-14)
    np.testing.assert_allclose(S[p.independent], np.eye(2))
    with pytest.raises(sb.NumericalError, match="cannot be independent"):
        partition(D, independent=[2, 3])  # q2 and q3 are tied: they cannot both be free
    # saddle point with a redundant row: the motion is the same, the redundant multiplier is zero
    M = np.diag([1.0, 2.0, 3.0, 4.0])
    f = np.array([1.0, 1.0, 1.0, 1.0])
    g = np.array([0.5, 1.0, 0.0])
    x, lam = solve_saddle(M, D, f, g)
    x2, lam2 = solve_saddle(M, D[[0, 2]], f, g[[0, 2]])
    np.testing.assert_allclose(x, x2, atol=1e-14)
    np.testing.assert_allclose(D.T @ lam, D[[0, 2]].T @ lam2, atol=1e-14)
    assert np.count_nonzero(lam) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(sb.NumericalError, match="singular augmented matrix"):
            solve_saddle(np.diag([1.0, 0.0]), np.array([[1.0, 0.0]]), np.zeros(2), np.zeros(1))
