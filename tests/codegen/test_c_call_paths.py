"""How compiled kernels are built and called: extension module or ctypes, cached, no leaks.

Without Python's headers, or when the extension module does not compile, the
ctypes path gives the same results; both are built once per source and cached
on disk; reference counts stay balanced over many calls (successful, failing
and with ``out=``), and a million calls leave the resident memory where it was.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import numpy as np
import pytest

from symbody.codegen import c_call, c_module
from symbody.codegen.c_call import Kernel, call_path, kernel_function
from symbody.errors import ExportError, NumericalError

#: out0 = [2 x[0] + y[0], x[1]], out1 = t; status 3 when x[0] is negative
SOURCE = """
int demo(const double *in, double *out0, double *out1)
{
    if (in[1] < 0.0) return 3;
    out0[0] = 2.0 * in[1] + in[3];
    out0[1] = in[2];
    out1[0] = in[0];
    return 0;
}
"""
DEMO = Kernel("demo", SOURCE, (("x", 2, False), ("y", 2, True)), ((2,), ()), "x[0] is negative (status %d)")


@pytest.fixture(params=["extension", "ctypes"])
def demo(request):
    return kernel_function(DEMO, request.param)


def test_both_paths_compute_the_same(demo):
    a, b = demo(0.5, [1.0, 2.0], [3.0, 4.0])
    assert a.tolist() == [5.0, 2.0] and b.shape == () and float(b) == 0.5
    a, b = demo(0.5, np.array([1.0, 2.0]))  # optional y left out: zeros
    assert a.tolist() == [2.0, 2.0]
    with pytest.raises(NumericalError, match=r"x\[0\] is negative \(status 3\)"):
        demo(0.0, [-1.0, 0.0])


def test_without_python_headers_ctypes_is_used(monkeypatch):
    monkeypatch.setattr(c_call, "python_headers", lambda: None)
    f = kernel_function(DEMO)
    assert call_path(f) == "ctypes"
    assert f(1.0, [1.0, 2.0], [3.0, 4.0])[0].tolist() == [5.0, 2.0]
    with pytest.raises(ExportError, match="Python.h"):
        kernel_function(DEMO, "extension")


def test_a_failing_extension_build_falls_back_to_ctypes(monkeypatch):
    def broken(kernel, module):
        return "#error this C does not compile\n"

    other = Kernel("demo", SOURCE + "/* another source: not in the cache */\n", DEMO.slots, DEMO.shapes)
    monkeypatch.setattr(c_call, "extension_source", broken)
    monkeypatch.setattr(c_call, "_EXTENSION_FAILED", [])
    f = kernel_function(other)
    assert call_path(f) == "ctypes"
    assert f(1.0, [1.0, 2.0])[0].tolist() == [2.0, 2.0]
    with pytest.raises(ExportError, match="C compilation failed"):
        kernel_function(other, "extension")
    assert c_call._EXTENSION_FAILED == ["demo"]  # later kernels go straight to ctypes
    monkeypatch.setattr(c_call, "extension_source", lambda kernel, module: pytest.fail("tried again"))
    assert call_path(kernel_function(DEMO)) == "ctypes"


def test_built_once_and_cached(monkeypatch, tmp_path):
    monkeypatch.setenv("SYMBODY_CACHE", str(tmp_path))
    kernel_function(DEMO, "extension")
    kernel_function(DEMO, "ctypes")
    built = sorted(p.name for p in (tmp_path / "evaluators").iterdir())
    assert len(built) == 2, built

    def no_compiler(*args, **kwargs):
        raise AssertionError("the compiler ran for a cached kernel")

    monkeypatch.setattr(c_call, "compile_shared", no_compiler)
    assert kernel_function(DEMO, "extension")(0.0, [1.0, 1.0])[0].tolist() == [2.0, 1.0]
    assert kernel_function(DEMO, "ctypes")(0.0, [1.0, 1.0])[0].tolist() == [2.0, 1.0]


def test_reference_counts_are_balanced(demo):
    x, y, t = np.array([1.0, 2.0]), [3.0, 4.0], float("0.25")  # a float of its own, not a shared constant
    out = (np.zeros(2), np.zeros(()))
    before = [sys.getrefcount(o) for o in (x, y, t, *out, np.empty)]
    for _ in range(1000):
        demo(t, x, y)
        demo(t, x, y, out=out)
        demo(t, x=x, y=y)
        with pytest.raises(ValueError):
            demo(t, x[:1], y)
        with pytest.raises(NumericalError):
            demo(t, -x, y, out=out)
        with pytest.raises(TypeError):
            demo(t, x, y, out=(out[0], np.zeros(3)))
    gc.collect()
    assert [sys.getrefcount(o) for o in (x, y, t, *out, np.empty)] == before


def _resident_bytes() -> int:
    statm = Path("/proc/self/statm")
    if not statm.is_file():
        pytest.skip("/proc/self/statm is needed to read the resident memory")
    import resource

    return int(statm.read_text().split()[1]) * resource.getpagesize()


@pytest.mark.slow
@pytest.mark.parametrize("path", ["extension", "ctypes"])
def test_a_million_calls_keep_memory_stable(path):
    f = kernel_function(DEMO, path)
    x, y, out = np.array([1.0, 2.0]), [3.0, 4.0], (np.zeros(2), np.zeros(()))
    for _ in range(100_000):  # warm up: allocator pools and caches settle
        f(0.5, x, y)
    gc.collect()
    start = _resident_bytes()
    for k in range(1_000_000):
        f(0.5, x, y) if k % 2 else f(0.5, x, y, out=out)
    for _ in range(100_000):
        try:
            f(0.5, -x, y)
        except NumericalError:
            pass
    gc.collect()
    growth = _resident_bytes() - start
    assert growth < 4 << 20, f"resident memory grew by {growth / 2**20:.1f} MiB over 1.1 million calls"


@pytest.mark.parametrize("path", ["extension", "ctypes"])
def test_large_inputs_are_gathered_on_the_heap(path):
    n = c_module.STACK_DOUBLES + 10
    source = f"int total(const double *in, double *out)\n{{\n    out[0] = 0.0;\n    for (int i = 1; i <= {n}; ++i) out[0] += in[i];\n    return 0;\n}}\n"
    f = kernel_function(Kernel("total", source, (("x", n, False),), ((),)), path)
    x = np.arange(n, dtype=float)
    assert float(f(0.0, x)[0]) == float(np.sum(x))
    with pytest.raises(ValueError, match=f"x has {n - 1} values, the model has {n}"):
        f(0.0, x[1:])
