"""The recursive formulation (composite-rigid-body M, Newton-Euler bias forces) against independent truth.

* random 3-D trees with every joint type, full inertia tensors and every load
  kind: ``M`` and ``delta`` equal the virtual-power ones at random states, and
  a chain of Euler-angle spherical joints equals Kane's equations built with
  ``sympy.physics.mechanics`` (the reference of ``test_random_trees_vs_kane.py``);
* the n-link pendulum on a cart equals ``KanesMethod``;
* a pendulum on a cart driven by a prescribed law ``x(t)`` (rheonomic joint);
* tree detection falls back to the virtual-power loop for absolute angles,
  shared coordinates and inputs inside joints;
* the choice per model keeps the four-bar at or below 132 operations and is
  recorded in ``Equations.formulation`` and ``stats()``;
* operation growth on the 3-D chain (atoms of ``[M|delta]``, cheap to count).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sm
from test_random_trees_vs_kane import CASES, SympyTree, build_symbody, random_states, random_tree

import symbody as sb
from symbody.cli import main
from symbody.codegen.counts import op_count, stats
from symbody.derive.formulation import atom_count as _atom_count
from symbody.derive.recursive import tree_of
from symbody.errors import ModelError
from symbody.loader import load_module
from symbody.numeric import NumericModel

from support import EXAMPLES, example

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_recursive import chain_3d  # noqa: E402


def assert_same_dynamics(eq_a, eq_b, values: dict, states, rtol: float = 1e-10) -> None:
    """``M`` and ``delta`` of two derivations agree at every state, relative to their scale."""
    na, nb = NumericModel(eq_a, values), NumericModel(eq_b, values)
    for q, dq, u in states:
        Ma, da = na.M_delta(q, dq, t=0.0, u=u)
        Mb, db = nb.M_delta(q, dq, t=0.0, u=u)
        np.testing.assert_allclose(Ma, Mb, rtol=0, atol=rtol * np.abs(Mb).max())
        np.testing.assert_allclose(da, db, rtol=0, atol=rtol * np.abs(db).max())


FAST = [CASES[0], CASES[2], CASES[5]]
SLOW = [c for c in CASES if c not in FAST]


def _check_random_tree(seed: int, joints: list[str]) -> None:
    spec = random_tree(seed, len(joints), joints)
    s_rec, values = build_symbody(spec)
    s_vp, _ = build_symbody(spec)
    assert tree_of(s_rec) is not None
    rec = s_rec.derive(formulation="recursive")
    vp = s_vp.derive(formulation="virtual_power")
    assert rec.formulation == "recursive" and vp.formulation == "virtual_power"
    assert_same_dynamics(rec, vp, values, random_states(spec, len(rec.inputs), seed, count=6))


@pytest.mark.parametrize("seed,joints", FAST, ids=[f"seed{c[0]}-{'-'.join(c[1])}" for c in FAST])
def test_random_tree_recursive_equals_virtual_power(seed, joints):
    _check_random_tree(seed, joints)


@pytest.mark.slow
@pytest.mark.parametrize("seed,joints", SLOW, ids=[f"seed{c[0]}-{'-'.join(c[1])}" for c in SLOW])
def test_random_tree_recursive_equals_virtual_power_more(seed, joints):
    _check_random_tree(seed, joints)


@pytest.mark.parametrize(
    "seed,n_bodies", [(11, 2), pytest.param(12, 3, marks=pytest.mark.slow)], ids=["2 bodies", "3 bodies"]
)
def test_euler_angle_chain_matches_kane(seed, n_bodies):
    """A chain (each body on the previous one) of spherical joints with random Euler sequences vs Kane."""
    spec = random_tree(seed, n_bodies, ["S_euler"] * n_bodies)
    for k, b in enumerate(spec.bodies):
        b.parent = k - 1
    system, values = build_symbody(spec)
    eq = system.derive(formulation="recursive")
    tree = SympyTree(spec)
    states = random_states(spec, len(tree.inputs), seed, count=5)
    nm = NumericModel(eq, values)
    for (q, dq, u), (Mk, fk) in zip(states, tree.kane_by_hand(states)):
        M, delta = nm.M_delta(q, dq, t=0.0, u=u)
        Mk, fk = np.asarray(Mk, float), np.asarray(fk, float).ravel()
        np.testing.assert_allclose(M, Mk, rtol=0, atol=1e-10 * np.abs(Mk).max())
        np.testing.assert_allclose(delta, fk, rtol=0, atol=1e-10 * np.abs(fk).max())


def test_chain_3d_recursive_equals_virtual_power():
    """The benchmark's Z-Y-X chain, 3 bodies: both formulations at random states."""
    rng = np.random.default_rng(3)
    rec, vp = chain_3d(3).derive(formulation="recursive"), chain_3d(3).derive(formulation="virtual_power")
    states = [(rng.uniform(-2, 2, 9), rng.uniform(-2, 2, 9), []) for _ in range(6)]
    assert_same_dynamics(rec, vp, {}, states)


@pytest.mark.parametrize("n", [1, 2, 4])
def test_n_link_pendulum_on_cart_matches_kane(n):
    kane, S = load_module(EXAMPLES / "n_link_pendulum_on_cart.py").kane_reference(n)
    args = [S["q"], S["u"], list(S["m"]), list(S["l"]), S["g"], S["T"], S["F"]]
    f = sm.lambdify(args, [kane.mass_matrix, kane.forcing])
    eq = example("n_link_pendulum_on_cart", n=n).derive(formulation="recursive")
    assert eq.formulation == "recursive"
    rng = np.random.default_rng(10 + n)
    for _ in range(10):
        qv, uv = rng.uniform(-3, 3, n + 1), rng.uniform(-2, 2, n + 1)
        mv, lv, gv = rng.uniform(0.5, 2, n + 1), rng.uniform(0.5, 2, n), rng.uniform(5, 15)
        Tv, Fv = rng.uniform(-3, 3, n), rng.uniform(-3, 3)
        Mk, fk = f(qv, uv, mv, lv, gv, Tv, Fv)
        p = {f"m{i}": mv[i] for i in range(n + 1)} | {f"l{i}": lv[i] for i in range(n)} | {"g": gv}
        u = {"F": Fv} | {f"T{i + 1}": Tv[i] for i in range(n)}
        M, d = NumericModel(eq, p).M_delta(qv, uv, t=0.0, u=[u[x.name] for x in eq.inputs])
        np.testing.assert_allclose(M, np.asarray(Mk, float), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(d, np.asarray(fk, float).ravel(), rtol=1e-10, atol=1e-10)


def _driven_pendulum() -> sb.System:
    """A rigid pendulum (relative angle) on a cart whose position is a prescribed law of time."""
    s = sb.System("driven")
    g, m, l, J = (s.parameter(n, v) for n, v in (("g", 9.81), ("m", 1.3), ("l", 0.7), ("J", 0.05)))
    A, w, a = s.parameter("A", 0.4), s.parameter("w", 2.0), s.parameter("a", 0.1)
    x = s.time_function("x", A * sb.sin(w * s.t) + a * s.t**2)
    cart = s.point("C", s.origin, (x, 0, 0))
    th = s.coordinate("th", 0.3)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.solid("bob", cart, B, mass=m, com=(l, 0.1, 0), inertia=(0.01, 0.02, J))
    s.gravity((0, -g, 0))
    return s


def test_rheonomic_joint():
    """``delta`` carries the prescribed acceleration; checked against the closed form."""
    eq = _driven_pendulum().derive(formulation="recursive")
    nm = NumericModel(eq, {})
    m, l, c, g = 1.3, 0.7, 0.1, 9.81
    J_O = 0.05 + m * (l * l + c * c)
    for t, th, dth in ((0.3, 0.4, -1.1), (1.7, -2.0, 0.5)):
        M, d = nm.M_delta([th], [dth], t=t, u=[])
        xdd = -1.6 * np.sin(2 * t) + 0.2
        # moment about the cart point: J_O th'' = -m xdd (r_G x e_x).e_z - m g (r_G . e_x in ground)
        rx, ry = l * np.cos(th) - c * np.sin(th), l * np.sin(th) + c * np.cos(th)
        np.testing.assert_allclose(M[0, 0], J_O, rtol=1e-12)
        np.testing.assert_allclose(d[0], m * xdd * ry - m * g * rx, rtol=1e-12)


def test_not_a_tree_falls_back():
    """Absolute angles on rigid bodies: the same coordinate moves two solids' joints."""
    s = sb.System("abs")
    a, b = s.coordinate("a"), s.coordinate("b")
    B1 = s.base("B1", s.ground_base, sb.Rz(a))
    B2 = s.base("B2", s.ground_base, sb.Rz(b))
    P2 = s.point("P2", s.origin, sb.Vector(B1, 1, 0, 0))
    s.solid("s1", s.origin, B1, mass=1, com=(0.5, 0, 0), inertia=(0.1, 0.1, 0.1))
    s.solid("s2", P2, B2, mass=1, com=(0.5, 0, 0), inertia=(0.1, 0.1, 0.1))
    assert tree_of(s) is None
    assert s.derive().formulation == "virtual_power"
    with pytest.raises(ModelError, match="not a tree"):
        s.derive(formulation="recursive")


def test_coordinate_in_two_joints_is_not_a_tree():
    """One coordinate turns two sibling solids: not a tree of relative joints, the loop assembles it."""
    s = sb.System("shared")
    a, b = s.coordinate("a"), s.coordinate("b")
    B1 = s.base("B1", s.ground_base, sb.Rz(a))
    B2 = s.base("B2", s.ground_base, sb.Rx(a))
    B3 = s.base("B3", B2, sb.Ry(b))
    s.solid("s1", s.origin, B1, mass=1, com=(0.5, 0, 0), inertia=(0.1, 0.2, 0.3))
    s.solid("s2", s.origin, B3, mass=1, com=(0, 0.5, 0), inertia=(0.1, 0.2, 0.3))
    assert tree_of(s) is None
    assert s.derive().formulation == "virtual_power"


def test_unknown_formulation():
    with pytest.raises(ModelError, match="unknown formulation"):
        example("simple_pendulum").derive(formulation="lagrange")


def test_choice_keeps_four_bar_at_or_below_132_ops():
    eq = example("four_bar", spring=False).derive()
    st = stats(eq)
    assert st["formulation"] == eq.formulation in ("recursive", "virtual_power")
    assert st["ops"]["M_delta"] <= 132
    vp = example("four_bar", spring=False).derive(formulation="virtual_power")
    assert st["ops"]["M_delta"] <= op_count(vp, "M", "delta")


@pytest.mark.parametrize("n", [2, 4, 5])
def test_choice_takes_the_shorter_code_on_small_trees(n):
    """The n-link pendulum on a cart: shorter by virtual power up to n = 4, by the recursion from n = 5."""
    auto = example("n_link_pendulum_on_cart", n=n).derive()
    rec = example("n_link_pendulum_on_cart", n=n).derive(formulation="recursive")
    vp = example("n_link_pendulum_on_cart", n=n).derive(formulation="virtual_power")
    best = min(op_count(rec, "M", "delta"), op_count(vp, "M", "delta"))
    if auto.formulation == "articulated":  # n = 5: delta by the articulated formulation's own recursion
        assert op_count(auto, "M", "delta") <= best
    else:
        assert op_count(auto, "M", "delta") == best


@pytest.mark.slow  # long: with --slow (CI)
def test_operation_growth_on_the_3d_chain():
    """Atoms of M grow no faster than n^2 and of delta about n; the virtual-power loop's grow faster."""
    rec, vp = {}, {}
    for n in (4, 8):
        eq = chain_3d(n).derive(formulation="recursive")
        rec[n] = (_atom_count(eq.M, []), _atom_count([], eq.delta))
        eq = chain_3d(n).derive(formulation="virtual_power")
        vp[n] = (_atom_count(eq.M, []), _atom_count([], eq.delta))
    assert np.log2(rec[8][0] / rec[4][0]) <= 2.0
    assert np.log2(rec[8][1] / rec[4][1]) <= 1.35
    assert np.log2(vp[8][0] / vp[4][0]) > 2.5  # the loop over pairs of partial velocities
    assert sum(rec[8]) * 3 < sum(vp[8])


def test_symbody_info_prints_the_formulation(capsys):
    assert main(["info", str(EXAMPLES / "n_link_pendulum_on_cart.py"), "--option", "n=5"]) == 0
    # a planar chain of 6 coordinates: the articulated-body accelerations are shorter than [M|delta] and a solve
    assert "dynamics     articulated formulation" in capsys.readouterr().out
    assert main(["info", str(EXAMPLES / "n_link_pendulum_on_cart.py"), "--option", "n=2"]) == 0
    assert "dynamics     virtual power formulation" in capsys.readouterr().out
