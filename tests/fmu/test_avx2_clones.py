"""The AVX2 clones of model.c's hot functions (symbody.codegen.c_isa) give the plain functions' values bit for bit.

``sb_accelerations_direct`` (articulated-body algorithm; one body: one function, four: cut into parts) and, in a
model without it, ``sb_M_delta`` of 3-D chains are compiled with the clones and with ``-DSB_NO_AVX2`` (the plain
functions only); at random states and parameters both libraries give the same accelerations, pivots' verdict, mass matrix and forces to the last bit, and the
accelerations equal numpy's solve of the virtual-power equations.  Where the processor has AVX2, the library
with the clones runs them (``sb_cpu_avx2``).
"""

from __future__ import annotations

import ctypes
import platform
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from symbody.codegen.c_eval import c_compiler, compile_shared
from symbody.fmu.build import template_dir
from symbody.fmu.sources import ModelSource
from symbody.symbolic.evaluate import evaluate_many

from support.trees import chain_3d

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_ltdl import UnusedJacobians  # noqa: E402  (zero Jacobians: sb_accelerations never calls them)

DRIVER = r"""
#include <string.h>
#include "symbody_model.h"
#define EXPORT __attribute__((visibility("default")))
EXPORT int test_direct(const double *q, const double *dq, const double *p, double *ddq)
{
    double c[4096];
    SbPoint pt;
    memset(&pt, 0, sizeof pt);
    pt.q = q;
    pt.dq = dq;
    pt.p = p;
    pt.c = c;
    sb_constants(&pt, c);
    return sb_accelerations_direct(&pt, ddq);
}
EXPORT void test_M_delta(const double *q, const double *dq, const double *p, double *M, double *delta)
{
    double c[4096];
    SbPoint pt;
    memset(&pt, 0, sizeof pt);
    pt.q = q;
    pt.dq = dq;
    pt.p = p;
    pt.c = c;
    sb_constants(&pt, c);
    sb_M_delta(&pt, M, delta);
}
EXPORT int test_uses_avx2(void)
{
#ifdef SB_AVX2
    return sb_cpu_avx2();
#else
    return -1;
#endif
}
"""


@pytest.fixture(
    scope="module",
    params=[(1, "articulated"), (4, "articulated"), (2, "recursive")],
    ids=["direct, one function", "direct, in parts", "M and delta"],
)
def equations(request):
    n, formulation = request.param
    return chain_3d(n).derive(formulation=formulation)


def library(eq, folder: Path, flags: list[str]) -> ctypes.CDLL:
    folder.mkdir()
    source = ModelSource(eq, "me", jacobians=UnusedJacobians(eq))
    hot = "direct_blocks" if eq.accelerations else "sb_M_delta"  # the function on the hot path, or its parts
    assert any(re.search(rf"void avx2_(part\d+_)?{hot}\(", text) for text in source.files.values())
    for name, text in source.files.items():
        (folder / name).write_text(text)
    (folder / "driver.c").write_text(DRIVER)
    out = folder / "lib.so"
    sources = [*(folder / name for name in source.files), folder / "driver.c"]
    compile_shared(sources, out, include=[template_dir()], flags=flags)
    lib = ctypes.CDLL(str(out))
    lib.test_direct.argtypes = [ctypes.c_void_p] * 4
    lib.test_M_delta.argtypes = [ctypes.c_void_p] * 5
    return lib


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the clones are for x86-64")
def test_clones_give_the_plain_values_bit_for_bit(tmp_path, equations):
    eq = equations
    cloned = library(eq, tmp_path / "cloned", [])
    plain = library(eq, tmp_path / "plain", ["-DSB_NO_AVX2"])
    assert plain.test_uses_avx2() == -1
    version = subprocess.run([c_compiler(), "--version"], capture_output=True, text=True).stdout
    if "clang" not in version and platform.system() == "Linux":  # GCC on x86-64 Linux: the clones are built
        assert cloned.test_uses_avx2() in (0, 1)
    n = eq.nq
    rng = np.random.default_rng(17)
    p0 = np.array(eq.p0)
    for _ in range(6):
        q, dq = rng.uniform(-1.5, 1.5, n), rng.uniform(-2, 2, n)
        p = p0 * rng.uniform(0.7, 1.4, p0.size)
        out = []
        for lib in (cloned, plain):
            ddq, M, delta = np.zeros(n), np.zeros(n * n), np.zeros(n)
            ok = lib.test_direct(q.ctypes.data, dq.ctypes.data, p.ctypes.data, ddq.ctypes.data)
            lib.test_M_delta(q.ctypes.data, dq.ctypes.data, p.ctypes.data, M.ctypes.data, delta.ctypes.data)
            out.append((ok, ddq, M, delta))
        (ok1, a1, M1, d1), (ok2, a2, M2, d2) = out
        assert ok1 == ok2 == (1 if eq.accelerations else 0)
        np.testing.assert_array_equal(a1, a2)
        np.testing.assert_array_equal(M1, M2)
        np.testing.assert_array_equal(d1, d2)
        if eq.accelerations:
            expected = np.linalg.solve(M2.reshape(n, n), d2)
            np.testing.assert_allclose(a1, expected, rtol=0, atol=1e-10 * np.abs(expected).max())
        values = dict(zip(eq.q, q)) | dict(zip(eq.dq, dq)) | dict(zip(eq.p_symbols, p)) | {eq.t: 0.0}
        M_sym = np.array(evaluate_many([e for row in eq.M for e in row], values))
        np.testing.assert_allclose(M1, M_sym, rtol=0, atol=1e-12 * np.abs(M_sym).max())
