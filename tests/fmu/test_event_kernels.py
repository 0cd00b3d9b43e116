"""The laws of events exist once per language: ``fmu_templates/sb_event_laws.c`` in the native FMUs and
:mod:`symbody.numeric.event_laws` in symbody.numeric and the Python FMUs.  Both run here on the same problems
and must agree: the complementarity problems of contacts (regular, redundant contacts sharing their force,
problems of several sizes, none that enumeration can solve), the rate at which a contact found inside its
surface entered, and when an impact is plastic or a flight unresolved."""

from __future__ import annotations

import ctypes
import itertools
import math

import numpy as np
import pytest

from symbody.codegen.c_eval import compile_shared
from symbody.fmu.build import template_dir
from symbody.numeric import event_laws as laws

EXPORTS = r"""
#include "sb_event_laws.h"
#define EXPORT __attribute__((visibility("default")))
EXPORT int test_lcp(int m, const double *W, const double *b, double *z) { return sb_lcp(m, W, b, z); }
EXPORT double test_entry_rate(double r, double alpha, double d, double located)
{
    return sb_entry_rate(r, alpha, d, located);
}
EXPORT double test_offset(double offset, double d, double r, double gap, double largest)
{
    return sb_indicator_offset(offset, d, r, gap, 1e-10, largest, 10.0, 1e-5);
}
EXPORT double test_bound(double rtol, int n, const double *G, const double *q) { return sb_offset_bound(rtol, n, G, q); }
EXPORT int test_unresolved(double u, double alpha, double depth, double late, double step)
{
    return sb_unresolved_flight(u, alpha, depth, late, 1e-8, 10.0, step, 10.0);
}
EXPORT int test_plastic(double r, double e, double alpha, double late, double step)
{
    return sb_plastic_impact(r, e, alpha, late, 1e-5, 1e-8, 10.0, step, 10.0);
}
EXPORT double test_error_free(double r, double u, double e, double a0, double a1, double duration, double steps,
                              double squares)
{
    return sb_error_free_rate(r, u, e, a0, a1, duration, steps, squares);
}
EXPORT double test_kept(double bmax, double wmax, double largest, double tol)
{
    return sb_kept_force(bmax, wmax, largest, tol);
}
EXPORT double test_rest_rate(int closed, double gamma, double step) { return sb_rest_rate(closed, gamma, step, 1e-5); }
EXPORT int test_lcp_max(void) { return SB_LCP_MAX; }
typedef struct { int n; const double *N0, *C; } Affine;
static int affine(void *context, const double *F, double *N)
{
    const Affine *a = (const Affine *)context;
    for (int i = 0; i < a->n; ++i) {
        N[i] = a->N0[i];
        for (int j = 0; j < a->n; ++j) N[i] += a->C[i * a->n + j] * F[j];
    }
    return 0;
}
EXPORT int test_sliding(int n, const double *N0, const double *C, const double *mu, const double *s, double *F,
                        int *wrong, double *limit)
{
    Affine a = {n, N0, C};
    return sb_sliding_forces(n, F, mu, s, affine, &a, wrong, limit);
}
EXPORT void test_sym_solve(int m, const double *W, const double *rhs, double *z)
{
    int S[SB_LCP_MAX];
    for (int i = 0; i < m; ++i) S[i] = i;
    sb_sym_solve(m, W, m, S, rhs, z);
}
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    folder = tmp_path_factory.mktemp("event_laws")
    (folder / "exports.c").write_text(EXPORTS)
    tdir = template_dir()
    sources = [folder / "exports.c", tdir / "sb_event_laws.c", tdir / "sb_linalg.c"]
    compile_shared(sources, folder / "laws.so", include=[tdir])
    lib = ctypes.CDLL(str(folder / "laws.so"))
    lib.test_lcp.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.test_entry_rate.restype = ctypes.c_double
    lib.test_entry_rate.argtypes = [ctypes.c_double] * 4
    lib.test_offset.restype = ctypes.c_double
    lib.test_offset.argtypes = [ctypes.c_double] * 5
    lib.test_bound.restype = ctypes.c_double
    lib.test_bound.argtypes = [ctypes.c_double, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    lib.test_kept.restype = ctypes.c_double
    lib.test_kept.argtypes = [ctypes.c_double] * 4
    lib.test_rest_rate.restype = ctypes.c_double
    lib.test_rest_rate.argtypes = [ctypes.c_int, ctypes.c_double, ctypes.c_double]
    lib.test_unresolved.argtypes = [ctypes.c_double] * 5
    lib.test_plastic.argtypes = [ctypes.c_double] * 5
    lib.test_sym_solve.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.test_sliding.argtypes = [ctypes.c_int] + [ctypes.c_void_p] * 7
    return lib


def c_lcp(lib, W: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    W, b = np.ascontiguousarray(W, dtype=float), np.ascontiguousarray(b, dtype=float)
    z = np.zeros(b.size)
    status = lib.test_lcp(b.size, W.ctypes.data, b.ctypes.data, z.ctypes.data)
    return status, z


def delassus(rng: np.random.Generator, m: int, rank: int) -> np.ndarray:
    """A Delassus matrix G M^-1 G^T of m contacts on `rank` coordinates (redundant when rank < m)."""
    G = rng.normal(size=(m, rank))
    A = rng.normal(size=(rank, rank))
    return G @ np.linalg.inv(A @ A.T + 0.1 * np.eye(rank)) @ G.T


@pytest.mark.parametrize("m", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("seed", range(6))
def test_lcp_c_and_numpy_agree(kernel, m, seed):
    rng = np.random.default_rng(10 * m + seed)
    W = delassus(rng, m, m)
    b = rng.normal(size=m)
    status, z = c_lcp(kernel, W, b)
    expected = laws.solve_lcp(W, b)
    assert status == 0
    assert np.allclose(z, expected, rtol=1e-10, atol=1e-12)
    w = W @ z + b  # and it is a solution
    assert np.all(z >= 0) and np.all(w >= -1e-9 * (1 + np.abs(b).max())) and abs(z @ w) <= 1e-9 * (1 + z @ np.abs(b))


def test_redundant_contacts_in_both(kernel):
    """The four legs of a table (rank 3 of 4): the complementarity problem takes the smallest set of legs that
    carries the weight, two diagonal ones with half of it each, in both (a problem with many solutions: the
    same one); the forces of the four legs closed are the minimum-norm ones, a quarter each."""
    G = np.array([[1.0, 1.0, 1.0], [1.0, -1.0, 1.0], [1.0, 1.0, -1.0], [1.0, -1.0, -1.0]])  # (z, roll, pitch)
    W = G @ np.diag([1 / 4.0, 1 / 2.0, 1 / 2.0]) @ G.T
    b = -9.81 * G[:, 0] / 4.0  # the weight of a table of 4 kg
    status, z = c_lcp(kernel, W, b)
    assert status == 0
    assert np.allclose(z, laws.solve_lcp(W, b), rtol=1e-12, atol=1e-12)
    assert np.allclose(z, [4.905, 0.0, 0.0, 4.905], rtol=1e-12) and np.allclose(W @ z + b, 0.0, atol=1e-12)
    # all four closed (their forces in the mode, every one held): the minimum-norm forces, shared equally
    z4 = np.zeros(4)
    W4, rhs = np.ascontiguousarray(W), np.ascontiguousarray(-b)
    kernel.test_sym_solve(4, W4.ctypes.data, rhs.ctypes.data, z4.ctypes.data)
    assert np.allclose(z4, laws.sym_solve(W, [0, 1, 2, 3], -b), rtol=1e-12)
    assert np.allclose(z4, 9.81 / 4.0, rtol=1e-12)


def test_no_solution_and_too_many_unknowns_fail_in_both(kernel):
    W, b = -np.eye(2), np.array([-1.0, -1.0])  # negative definite: no complementary solution
    assert c_lcp(kernel, W, b)[0] == 1
    with pytest.raises(laws.ComplementarityError, match="no solution"):
        laws.solve_lcp(W, b)
    m = kernel.test_lcp_max() + 1
    assert m == laws.MAX_ENUMERATED + 1
    assert c_lcp(kernel, np.eye(m), -np.ones(m))[0] == 2
    with pytest.raises(laws.ComplementarityError, match="more than the 14"):
        laws.solve_lcp(np.eye(m), -np.ones(m))


GRID = [-2.0, -0.3, -1e-6, 0.0, 1e-6, 0.3, 2.0]


def test_entry_rate_plastic_and_unresolved_c_and_numpy_agree(kernel):
    for r, alpha, d in itertools.product(GRID, [-9.81, -1e-3, 0.0, 1e-3, 9.81], [1e-10, 1e-6, 1e-2]):
        assert kernel.test_entry_rate(r, alpha, d, laws.LOCATED_DEPTH) == laws.entry_rate(r, alpha, d)
        assert kernel.test_entry_rate(r, alpha, d, 2e-6) == laws.entry_rate(r, alpha, d, 2e-6)
    steps = [0.0, 1e-3, 0.02]
    for u, alpha, depth, late, h in itertools.product(GRID, [-9.81, 0.0, 9.81], [0.0, 1e-10], [0.0, 1e-9, 1e-3], steps):
        got = bool(kernel.test_unresolved(u, alpha, depth, late, h))
        assert got == laws.unresolved_flight(u, alpha, depth, late, step=h)
    for r, e, alpha, late, h in itertools.product(GRID, [0.0, 0.5, 1.0], [-9.81, 9.81], [0.0, 1e-3], steps):
        assert bool(kernel.test_plastic(r, e, alpha, late, h)) == laws.plastic_impact(r, e, alpha, late, step=h)


def test_rest_rates_c_and_numpy_agree(kernel):
    """A closed contact on a surface accelerating at gamma is at rest up to |gamma| h (the importer's steps h),
    never below the rest velocity; an open one, or one with no known step, at the rest velocity."""
    for closed, gamma, h in itertools.product((0, 1), (-3.0, -1e-9, 0.0, 2.0), (0.0, 1e-3, 0.05)):
        assert kernel.test_rest_rate(closed, gamma, h) == laws.rest_rate(bool(closed), gamma, h)
    assert laws.rest_rate(True, 2.0, 1e-3) == 2e-3 and laws.rest_rate(True, 2.0, 0.0) == laws.REST_VELOCITY


def euler_flight(u: float, g: float, h: float) -> tuple[float, float, float, float]:
    """A flight under explicit Euler with steps h, its event located: left the floor at u, back after n steps and
    a part of one at r; returns r, the duration, the steps (the part one) and the sum of their squares."""
    v, y, t, n = u, 0.0, 0.0, 0
    while y + h * v > 0.0:
        y, v, t, n = y + h * v, v - g * h, t + h, n + 1
    tau = y / -v  # (the located part of the last step)
    return v - g * tau, t + tau, n + 1.0, n * h * h + tau * tau


def test_error_free_rates_c_and_numpy_agree(kernel):
    """Both kernels agree, bit for bit, on a grid that crosses every condition, with flights of explicit Euler
    from 2 to 900 steps (a ball bouncing with e near 1 leaves the floor at 4.4 m/s: 900 steps of 1 ms)."""
    kernel.test_error_free.argtypes = [ctypes.c_double] * 8
    kernel.test_error_free.restype = ctypes.c_double
    g, h = 9.81, 1e-3
    for u in (0.004, 0.05, 0.4, 4.4):
        r, duration, steps, squares = euler_flight(u, g, h)
        cases = itertools.product(
            [r, -u, -2.0 * u, 0.0],
            [u, 0.0],
            [0.0, 0.8, 0.98, 0.995, 1.0],
            [-g, 0.0],
            [-g, -1.5 * g, 2.0],
            [duration, 0.0],
            [steps, 0.5],
            [squares, 0.1 * squares, 10.0 * squares, 0.0],
        )
        for case in cases:
            assert kernel.test_error_free(*case) == laws.error_free_rate(*case), case


@pytest.mark.parametrize("e", [0.8, 0.9, 0.95, 0.98, 0.99, 0.995])
@pytest.mark.parametrize("u", [4.4, 0.4, 0.05])
def test_an_euler_flight_takes_the_rate_it_left_with(e, u):
    """A flight of explicit Euler (steps of 1 ms, event located) returns faster than it left by Euler's gain
    g^2 h^2 a step: the impact takes the rate it left with, whatever the flight's length (90 to 900 steps for
    u = 0.4 to 4.4 m/s: with e >= 0.98 Euler's cycle has flights of 4 / (1 - e^2) >= 100 steps), so the rebounds
    decay as e^k.  The exact flight, one whose gain a change of the gap acceleration explains, a gain far from
    Euler's and an elastic contact keep their rate; a flight whose rebound would be shorter than a step ends the
    accumulation."""
    g, h = 9.81, 1e-3
    r, duration, steps, squares = euler_flight(u, g, h)
    flight = (duration, steps, squares)
    assert r**2 - u**2 == pytest.approx(g * g * squares)  # (Euler's gain)
    assert laws.error_free_rate(r, u, e, -g, -g, *flight) == pytest.approx(-u, rel=1e-12)
    assert laws.error_free_rate(-u, u, e, -g, -g, *flight) == -u  # exact: no gain
    assert laws.error_free_rate(r, u, e, -g, -1.5 * g, *flight) == r  # the gap acceleration grew by half
    assert laws.error_free_rate(r, u, 1.0, -g, -g, *flight) == r  # elastic: no accumulation to end
    for gain in (5.0, 0.2):  # far more, or far less, than Euler adds: the model's, or an accurate master's
        rate = -math.sqrt(u * u + gain * g * g * squares)
        assert laws.error_free_rate(rate, u, e, -g, -g, *flight) == rate
    tiny, *short = euler_flight(g * h / 4, g, h)
    assert laws.error_free_rate(tiny, g * h / 4, e, -g, -g, *short) == 0.0  # rebound within one step: plastic


@pytest.mark.parametrize("seed", range(4))
def test_the_force_a_contact_keeps_to_close_c_and_numpy_agree(kernel, seed):
    rng = np.random.default_rng(seed)
    W = delassus(rng, 3, 3) * 10.0 ** rng.uniform(-6, 6)
    b = rng.normal(size=3) * 10.0 ** rng.uniform(-6, 6)
    f = laws.solve_lcp(W, b)
    expected = laws.kept_force(f, b, W)
    assert kernel.test_kept(np.max(np.abs(b)), np.max(np.diag(W)), np.max(np.abs(f)), laws.FORCE_TOL) == expected
    header = (template_dir() / "sb_events.h").read_text()
    assert float(header.split("#define SB_FORCE_TOL ")[1].split()[0]) == laws.FORCE_TOL
    assert expected >= laws.FORCE_TOL * (1.0 + np.max(f))  # a hair of force above the rounding: it opens


def test_indicator_offsets_c_and_numpy_agree(kernel):
    depths, gaps = [0.0, 5e-11, 1e-10, 2e-10, 3e-10, 1e-7, 1e-3], [-1e-3, -1e-10, 0.0, 1e-9, 1e-6, 1e-2]
    for offset, d, r, gap, largest in itertools.product([1e-10, 1e-9, 1e-7], depths, GRID, gaps, [1e-10, 1.3e-7, 1e-5]):
        assert kernel.test_offset(offset, d, r, gap, largest) == laws.indicator_offset(offset, d, r, gap, largest)
    rng = np.random.default_rng(3)
    for n in (1, 3, 7):
        G, q = np.ascontiguousarray(rng.normal(size=n)), np.ascontiguousarray(rng.normal(size=n) * 10)
        assert kernel.test_bound(1e-6, n, G.ctypes.data, q.ctypes.data) == laws.offset_bound(1e-6, G, q)
    header = (template_dir() / "sb_events.h").read_text()
    assert float(header.split("#define SB_OFFSET_GROWTH ")[1].split()[0]) == laws.OFFSET_GROWTH
    assert float(header.split("#define SB_STICK_TOL ")[1].split()[0]) == laws.EVENT_HYSTERESIS
    assert "#define SB_EVENT_HYSTERESIS SB_STICK_TOL" in header


def test_an_offset_grows_geometrically_where_a_contact_is_found_again_and_is_reset_by_an_impact_or_a_flight():
    """Found at its offset inside, leaving (or at rest), again and again: 1e-10, 1e-9, ... up to the bound the
    master's tolerance allows (the overhead crane's payload on the ground at rtol 1e-6: 1.66e-5 m, reached after
    6 events), then kept; found deeper than twice its offset (late): kept; an impact (an approach faster than
    1e-5 m/s) or an event that finds it farther from its surface than the bound: back to 1e-10."""
    l, theta = 15.2877, -0.19432  # (x, l, theta at the lift-off; the gap h - l cos(theta))
    G = np.array([0.0, -math.cos(theta), l * math.sin(theta)])
    bound = laws.offset_bound(1e-6, G, np.array([20.0, l, theta]))
    assert bound == pytest.approx(1e-6 * (1 + l * math.cos(theta) + l * math.sin(theta) * theta), rel=1e-12)
    assert bound == pytest.approx(1.657e-5, rel=1e-3)
    offsets = [laws.EVENT_HYSTERESIS]
    for _ in range(7):
        o = offsets[-1]
        offsets.append(laws.indicator_offset(o, o, 1e-9, -o, bound))
    assert offsets == pytest.approx([1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, bound, bound], rel=1e-12)
    assert laws.indicator_offset(1e-6, 1e-6, -1e-6, -1e-6, bound) == pytest.approx(1e-5)  # a hair of approach
    assert laws.indicator_offset(1e-6, 3e-6, 1e-3, -3e-6, bound) == 1e-6  # found late, leaving: kept
    assert laws.indicator_offset(1e-6, 0.0, 0.0, 0.0, bound) == 1e-6  # touching (closed): kept
    assert laws.indicator_offset(1e-6, 0.0, 0.0, 1e-5, bound) == 1e-6  # hovering within the master's error: kept
    assert laws.indicator_offset(1e-5, 1e-5, -0.4, -1e-5, bound) == 1e-10  # an impact
    assert laws.indicator_offset(1e-5, 0.0, 0.1, 2e-5, bound) == 1e-10  # flown away
    assert laws.indicator_offset(1e-10, 1e-10, 0.0, -1e-10, 1e-10) == 1e-10  # a bound below the first offset


def test_entry_rate_keeps_the_energy_along_the_gap():
    """A ball found 1 cm inside the floor at 1 m/s entered with sqrt(1 - 2 g 0.01); one found inside coming
    out of a ceiling (alpha > 0) entered faster; one that only drifted in keeps its rate."""
    assert laws.entry_rate(-1.0, -9.81, 0.01) == pytest.approx(-np.sqrt(1 - 2 * 9.81 * 0.01))
    assert laws.entry_rate(0.5, 9.81, 0.01) == pytest.approx(-np.sqrt(0.25 + 2 * 9.81 * 0.01))
    assert laws.entry_rate(0.5, -9.81, 0.01) == 0.5
    assert laws.entry_rate(-0.1, -9.81, 0.01) == 0.0  # could not have come from the surface: at rest there


@pytest.mark.parametrize("seed", range(6))
def test_sliding_forces_c_and_numpy_agree(kernel, seed):
    """Slip forces F = -mu s |N| of elements whose normal forces N = N0 + C F depend on them: the same forces in
    both, and beyond the Painleve limit the same element and limit."""
    rng = np.random.default_rng(seed)
    n = 1 + seed % 3
    N0, C = 1.0 + rng.random(n), 0.3 * rng.normal(size=(n, n))
    mu, s = 0.2 + 2.0 * rng.random(n), rng.choice([-1.0, 1.0], size=n)
    F = -mu * s * N0
    wrong, limit = ctypes.c_int(-1), ctypes.c_double(0.0)
    Fc = np.ascontiguousarray(F.copy())
    arrays = [np.ascontiguousarray(a) for a in (N0, C, mu, s)]
    status = kernel.test_sliding(
        n, *[a.ctypes.data for a in arrays], Fc.ctypes.data, ctypes.byref(wrong), ctypes.byref(limit)
    )
    try:
        expected = laws.sliding_forces(lambda F: N0 + C @ F, F, mu, s, [f"f{j}" for j in range(n)])
    except laws.ComplementarityError as e:
        assert status == 1 and f"'f{wrong.value}'" in str(e) and f"{limit.value:.4g}" in str(e)
        return
    assert status == 0
    assert np.allclose(Fc, expected, rtol=1e-9, atol=1e-12)
    assert np.allclose(Fc, -mu * s * np.abs(N0 + C @ Fc), rtol=1e-9)


def test_sliding_forces_beyond_the_painleve_limit():
    """N = 3 - 0.4 F sliding forward: F = -mu N exists while 1 - 0.4 mu > 0 (mu < 2.5)."""
    for mu in (1.0, 2.0, 2.49):
        F = laws.sliding_forces(lambda F: 3.0 - 0.4 * F, np.zeros(1), np.array([mu]), np.array([1.0]), ["f"])
        assert F[0] == pytest.approx(-mu * 3.0 / (1 - 0.4 * mu), rel=1e-9)
    with pytest.raises(laws.ComplementarityError, match="mu = 3 is beyond the Painleve limit 2.5 "):
        laws.sliding_forces(lambda F: 3.0 - 0.4 * F, np.zeros(1), np.array([3.0]), np.array([1.0]), ["f"])
