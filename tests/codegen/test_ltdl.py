"""Featherstone's LTDL factorization of tree-structured mass matrices (``fmu_templates/sb_ltdl.c``).

* the parent array read off the symbolic ``M`` equals the kinematic tree the model was built
  from (random trees of revolute and spherical joints), and is refused for closed loops;
* on random matrices ``M = L^T D L`` built along random trees, ``sb_ltdl`` recovers the ``L``
  and ``D`` they were built from, and solves agree with numpy's dense solve;
* in the FMU runtime, ``sb_accelerations`` of random tree models gives the accelerations of
  the dense ``L D L^T`` (the same sources compiled with ``-DSB_MASS_DENSE``) and of numpy's
  solve of the Python evaluator's ``M`` and ``delta`` to 1e-12 relative.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

import symbody as sb
from symbody.codegen.c_eval import compile_shared
from symbody.codegen.evaluators import evaluator
from symbody.codegen.mass_tree import mass_parents, mass_tree_source
from symbody.fmu.build import CFLAGS, template_dir
from symbody.fmu.sources import ModelSource
from symbody.fmu.spec import GENERIC_SOURCES

from support import example

EXPORTS = r"""
#include "sb_linalg.h"
#include "sb_ltdl.h"
#define EXPORT __attribute__((visibility("default")))
EXPORT int test_ltdl(int n, const int *parent, double *A) { return sb_ltdl(n, parent, A); }
EXPORT void test_ltdl_solve(int n, const int *parent, const double *F, double *b) { sb_ltdl_solve(n, parent, F, b); }
EXPORT int test_ldlt(int n, double *A) { return sb_ldlt(n, A); }
EXPORT void test_ldlt_solve(int n, const double *F, double *b) { sb_ldlt_solve(n, F, b); }
"""

DRIVER = r"""
#include "sb_ltdl.h"
#include "sb_runtime.h"
#define EXPORT __attribute__((visibility("default")))
EXPORT int test_accelerations(const double *x, double *ddq) /* at the default parameters and inputs */
{
    SbInstance *inst = sb_instantiate(&sb_model, SB_ME, "test", NULL, NULL, NULL, NULL, 0);
    if (!inst) return -1;
    int s = sb_accelerations(inst, 0.0, x, ddq, NULL);
    sb_free(inst);
    return s;
}
EXPORT int test_tree(void) { return sb_mass_parent != 0; }
"""


# -- random trees built with the public API --------------------------------------------
def random_tree(seed: int, n_bodies: int) -> tuple[sb.System, list[int]]:
    """A tree of bodies on revolute (R*) and spherical Z-Y-X joints; also the true coordinate tree."""
    rng = np.random.default_rng(seed)
    s = sb.System(f"tree{seed}")
    s.gravity((0, 0, -9.81))
    bases, points, last_coordinate = [], [], []
    parent_of: list[int] = []
    for k in range(n_bodies):
        parent = int(rng.integers(-1, k)) if k else -1
        base0 = s.ground_base if parent < 0 else bases[parent]
        point0 = s.origin if parent < 0 else points[parent]
        offset = rng.uniform(-1, 1, 3)
        point = s.point(f"P{k}", point0, sb.Vector(base0, *offset))
        if rng.random() < 0.5:
            q = [s.coordinate(f"q{k}_{a}", rng.uniform(-1, 1)) for a in "zyx"]
            base = s.base(f"B{k}", base0, sb.EulerAngles("zyx", q))
        else:
            axis = "xyz"[int(rng.integers(3))]
            q = [s.coordinate(f"q{k}", rng.uniform(-1, 1))]
            base = s.base(f"B{k}", base0, {"x": sb.Rx, "y": sb.Ry, "z": sb.Rz}[axis](q[0]))
        first = len(parent_of)
        parent_of.append(last_coordinate[parent] if parent >= 0 else -1)
        parent_of += list(range(first, first + len(q) - 1))
        last_coordinate.append(first + len(q) - 1)
        a, b, c = rng.uniform(0.3, 1.0, 3)
        s.solid(
            f"body{k}",
            point,
            base,
            mass=float(rng.uniform(0.5, 2.0)),
            com=list(rng.uniform(-0.5, 0.5, 3)),
            inertia=sb.inertia(a + b, b + c, a + c, *rng.uniform(-0.05, 0.05, 3)),
        )
        bases.append(base)
        points.append(point)
    return s, parent_of


@pytest.mark.parametrize("seed", range(4))
def test_parents_are_the_kinematic_tree(seed):
    system, truth = random_tree(seed, 6)
    for formulation in ("recursive", "virtual_power"):
        eq = system.derive(formulation=formulation)
        assert mass_parents(eq.M) == truth
    assert truth.count(-1) >= 1 and len(set(truth)) < len(truth)  # a real tree, not a chain


def test_closed_loops_and_constraints_keep_the_dense_factorization():
    eq = example("four_bar").derive()
    assert eq.nc > 0
    assert "const int *const sb_mass_parent = NULL;" in ModelSource(eq, "me").text


def test_ltdl_is_chosen_where_it_saves_work():
    """A chain (M full) keeps the dense loops; bodies hanging side by side factor along the tree."""
    chain = example("n_link_pendulum_on_cart", n=3).derive()
    assert mass_parents(chain.M) == [-1, 0, 1, 2]
    assert "sb_mass_parent = NULL;" in mass_tree_source(chain)
    assert "sb_mass_parent = mass_parent;" in mass_tree_source(chain, min_saving=0.0)
    s = sb.System("comb")
    s.gravity((0, -9.81, 0))
    for k in range(4):
        th = s.coordinate(f"th{k}", 0.1 * k)
        base = s.base(f"B{k}", s.ground_base, sb.Rz(th))
        s.particle(f"m{k}", s.point(f"P{k}", s.origin, sb.Vector(base, 0, -1.0 - k, 0)), 1.0)
    comb = s.derive()
    assert mass_parents(comb.M) == [-1, -1, -1, -1]
    assert "static const int mass_parent[]" in ModelSource(comb, "me").text


# -- sb_ltdl on matrices built along random trees -----------------------------------------
@pytest.fixture(scope="module")
def linalg(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ltdl")
    (folder / "exports.c").write_text(EXPORTS)
    (folder / "parent.c").write_text(  # what sb_ltdl.c takes from model.c
        '#include "sb_ltdl.h"\nconst int *const sb_mass_parent = 0;\n'
        "int sb_accelerations_direct(const SbPoint *in, double *ddq)\n"
        "{ (void)in; (void)ddq; return 0; }\n"
    )
    tdir = template_dir()
    sources = [folder / "exports.c", folder / "parent.c", tdir / "sb_ltdl.c", tdir / "sb_linalg.c"]
    compile_shared(sources, folder / "ltdl.so", include=[tdir])
    lib = ctypes.CDLL(str(folder / "ltdl.so"))
    ptr = ctypes.c_void_p
    lib.test_ltdl.argtypes = [ctypes.c_int, ptr, ptr]
    lib.test_ltdl_solve.argtypes = [ctypes.c_int, ptr, ptr, ptr]
    lib.test_ldlt.argtypes = [ctypes.c_int, ptr]
    lib.test_ldlt_solve.argtypes = [ctypes.c_int, ptr, ptr]
    return lib


def random_parents(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.array([int(rng.integers(-1, i)) if i else -1 for i in range(n)], dtype=np.intc)


def ancestors(parent, i: int) -> list[int]:
    out, j = [], parent[i]
    while j >= 0:
        out.append(j)
        j = parent[j]
    return out


@pytest.mark.parametrize("seed", range(6))
def test_ltdl_recovers_its_factors(linalg, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 25))
    parent = random_parents(rng, n)
    L = np.eye(n)
    for i in range(n):
        for j in ancestors(parent, i):
            L[i, j] = rng.uniform(-1, 1)
    d = rng.uniform(0.5, 2.0, n)
    M = L.T @ np.diag(d) @ L
    for i in range(n):  # M has the tree's sparsity: zero between coordinates of different branches
        for j in range(i):
            if j not in ancestors(parent, i):
                assert abs(M[i, j]) < 1e-14
                M[i, j] = M[j, i] = 0.0
    F = M.copy()
    assert linalg.test_ltdl(n, parent.ctypes.data, F.ctypes.data) == 0
    for i in range(n):
        assert F[i, i] == pytest.approx(1 / d[i], rel=1e-12)
        for j in ancestors(parent, i):
            assert F[i, j] == pytest.approx(L[i, j], rel=1e-10, abs=1e-12)
    b = rng.normal(size=n)
    x = b.copy()
    linalg.test_ltdl_solve(n, parent.ctypes.data, F.ctypes.data, x.ctypes.data)
    expected = np.linalg.solve(M, b)
    np.testing.assert_allclose(x, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())


def test_ltdl_names_a_pivot_that_is_not_positive(linalg):
    parent = np.array([-1, 0, 0], dtype=np.intc)
    M = np.array([[1.0, 2.0, 0.1], [2.0, 1.0, 0.0], [0.1, 0.0, 1.0]])  # indefinite
    assert linalg.test_ltdl(3, parent.ctypes.data, M.ctypes.data) == 1
    bad = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]])
    assert linalg.test_ltdl(3, parent.ctypes.data, bad.ctypes.data) == 2
    nan = np.diag([1.0, 1.0, np.nan])
    assert linalg.test_ltdl(3, parent.ctypes.data, nan.ctypes.data) == 3


# -- the FMU runtime on random tree models ------------------------------------------------
def runtime_library(eq, folder: Path, dense: bool) -> ctypes.CDLL:
    """model.c (LTDL along the tree even where it would not save work) + runtime + driver."""
    folder.mkdir(exist_ok=True)
    files = dict(ModelSource(eq, "me").files)  # model.c and the parts of large models
    files["model.c"] = files["model.c"].replace(mass_tree_source(eq), mass_tree_source(eq, min_saving=0.0))
    for name, text in files.items():
        (folder / name).write_text(text)
    (folder / "driver.c").write_text(DRIVER)
    tdir = template_dir()
    sources = [*(folder / name for name in files), folder / "driver.c", *(tdir / s for s in GENERIC_SOURCES)]
    flags = [f for f in CFLAGS if f not in ("-std=c99", "-O2", "-fPIC")] + (["-DSB_MASS_DENSE"] if dense else [])
    out = folder / ("dense.so" if dense else "tree.so")
    compile_shared(sources, out, include=[tdir], flags=flags)
    lib = ctypes.CDLL(str(out))
    lib.test_accelerations.argtypes = [ctypes.c_void_p] * 2
    return lib


@pytest.mark.slow  # compiles the runtime twice per seed
@pytest.mark.parametrize("seed", [0, 3])
def test_runtime_accelerations_equal_the_dense_solve(tmp_path, seed):
    system, _ = random_tree(seed, 7)
    eq = system.derive(formulation="recursive")
    tree = runtime_library(eq, tmp_path / "tree", dense=False)
    dense = runtime_library(eq, tmp_path / "dense", dense=True)
    assert tree.test_tree() == 1
    py = evaluator(eq, "M", "delta")
    rng = np.random.default_rng(seed)
    p, u = np.ascontiguousarray(eq.p0, float), np.ascontiguousarray(eq.u0, float)
    for _ in range(5):
        x = rng.uniform(-1.5, 1.5, 2 * eq.nq)
        a, b = np.zeros(eq.nq), np.zeros(eq.nq)
        assert tree.test_accelerations(x.ctypes.data, a.ctypes.data) == 0
        assert dense.test_accelerations(x.ctypes.data, b.ctypes.data) == 0
        scale = np.abs(b).max()
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * scale)
        M, delta = py(0.0, x[: eq.nq], x[eq.nq :], u, p)
        np.testing.assert_allclose(a, np.linalg.solve(M, delta), rtol=1e-10, atol=1e-10 * scale)
