"""The FMU runtime's accelerations of trees from model.c's ``sb_accelerations_direct`` (``sb_ltdl.c``).

* ``sb_accelerations`` of an articulated-formulation model gives the accelerations of the same
  model.c with the direct block switched off (``has_direct = 0``: ``M`` factored) and of numpy's solve
  of the virtual-power equations, at random states, inputs and parameters;
* a negative mass (a pivot that is not positive) goes to the factorization of ``M``, which refuses
  it as before (Discard), instead of returning the accelerations of an indefinite mass matrix.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from symbody.codegen.c_eval import compile_shared
from symbody.fmu.build import CFLAGS, template_dir
from symbody.fmu.sources import ModelSource
from symbody.fmu.spec import GENERIC_SOURCES
from symbody.symbolic.evaluate import evaluate_many

from support.trees import chain_3d, mixed

DRIVER = r"""
#include <string.h>
#include "sb_runtime.h"
#define EXPORT __attribute__((visibility("default")))
EXPORT int test_accelerations(const double *x, const double *u, const double *p, double *ddq, char *problem)
{
    SbInstance *inst = sb_instantiate(&sb_model, SB_ME, "test", NULL, NULL, NULL, NULL, 0);
    if (!inst) return -1;
    for (int i = 0; i < sb_model.nu; ++i) inst->state.u[i] = u[i];
    for (int i = 0; i < sb_model.np; ++i) inst->state.p[i] = p[i];
    sb_parameters_changed(inst);
    int s = sb_accelerations(inst, 0.3, x, ddq, NULL);
    strncpy(problem, inst->problem, 255);
    sb_free(inst);
    return s;
}
EXPORT int test_has_direct(void) { return sb_model.has_direct; }
"""


def runtime_library(eq, folder: Path, direct: bool) -> ctypes.CDLL:
    folder.mkdir(exist_ok=True)
    files = dict(ModelSource(eq, "me").files)
    if not direct:
        assert "    .has_direct = 1,\n" in files["model.c"]
        files["model.c"] = files["model.c"].replace("    .has_direct = 1,\n", "    .has_direct = 0,\n")
    for name, text in files.items():
        (folder / name).write_text(text)
    (folder / "driver.c").write_text(DRIVER)
    tdir = template_dir()
    sources = [*(folder / name for name in files), folder / "driver.c", *(tdir / s for s in GENERIC_SOURCES)]
    flags = [f for f in CFLAGS if f not in ("-std=c99", "-O2", "-fPIC")]
    out = folder / "lib.so"
    compile_shared(sources, out, include=[tdir], flags=flags)
    lib = ctypes.CDLL(str(out))
    lib.test_accelerations.argtypes = [ctypes.c_void_p] * 5
    return lib


def call(lib, x, u, p, n):
    ddq, problem = np.zeros(n), ctypes.create_string_buffer(256)
    status = lib.test_accelerations(x.ctypes.data, u.ctypes.data, p.ctypes.data, ddq.ctypes.data, problem)
    return status, ddq, problem.value.decode()


@pytest.mark.slow  # compiles the runtime twice per model
@pytest.mark.parametrize("model", [lambda: chain_3d(4), mixed], ids=["chain", "mixed"])
def test_direct_accelerations_equal_the_factored_ones(tmp_path, model):
    eq = model().derive(formulation="articulated")
    vp = model().derive(formulation="virtual_power")
    direct = runtime_library(eq, tmp_path / "direct", direct=True)
    factored = runtime_library(eq, tmp_path / "factored", direct=False)
    assert direct.test_has_direct() == 1 and factored.test_has_direct() == 0
    rng = np.random.default_rng(11)
    n = eq.nq
    for _ in range(5):
        x = rng.uniform(-1.2, 1.2, 2 * n)
        u = rng.uniform(-2.0, 2.0, eq.nu)
        p = np.array([q.value for q in eq.parameters]) * rng.uniform(0.8, 1.25, len(eq.parameters))
        s1, a, _ = call(direct, x, u, p, n)
        s2, b, _ = call(factored, x, u, p, n)
        assert s1 == s2 == 0
        values = {vp.t: 0.3}
        values.update(zip(vp.q, x[:n]))
        values.update(zip(vp.dq, x[n:]))
        values.update(zip((q.symbol for q in vp.parameters), p))
        values.update(zip((v.symbol for v in vp.inputs), u))
        M = np.array(evaluate_many([e for row in vp.M for e in row], values)).reshape(n, n)
        expected = np.linalg.solve(M, evaluate_many(vp.delta, values))
        scale = np.abs(expected).max()
        np.testing.assert_allclose(a, expected, rtol=1e-10, atol=1e-10 * scale)
        np.testing.assert_allclose(b, expected, rtol=1e-10, atol=1e-10 * scale)


@pytest.mark.slow  # compiles the runtime
def test_a_negative_mass_is_refused_as_by_the_factorization(tmp_path):
    eq = chain_3d(3).derive(formulation="articulated")
    lib = runtime_library(eq, tmp_path / "direct", direct=True)
    x = np.random.default_rng(2).uniform(-1.0, 1.0, 2 * eq.nq)
    p = np.array([q.value for q in eq.parameters])
    status, ddq, _ = call(lib, x, np.zeros(0), p, eq.nq)
    assert status == 0 and np.all(np.isfinite(ddq))
    p[[q.name for q in eq.parameters].index("m2")] = -1.0
    status, _, problem = call(lib, x, np.zeros(0), p, eq.nq)
    assert status != 0
    assert "not positive semi-definite" in problem or "singular" in problem
