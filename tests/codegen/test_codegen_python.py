"""The numpy code generator emits the export plan: shared subexpressions are computed once.

A chain of n links shares its kinematics between all entries of ``[M | delta]``;
printing the outputs without their temporaries would make the code grow
exponentially with n.  The generated Python must stay small, fast and equal to
the generated C.
"""

from __future__ import annotations

import numpy as np
import pytest

import symbody as sb
from symbody.codegen.c_eval import compile_evaluator
from symbody.codegen.evaluators import evaluator, layout_of
from symbody.codegen.python import python_source


def chain(n: int) -> sb.System:
    """A planar chain of ``n`` pendulum links, each hinged at the tip of the previous one."""
    s = sb.System(f"chain{n}")
    g = s.parameter("g", 9.81, unit="m/s2")
    parent_base, parent_point = s.ground_base, s.origin
    for i in range(n):
        th = s.coordinate(f"th{i}", 0.1 * (i + 1), unit="rad")
        m = s.parameter(f"m{i}", 1.0 + 0.1 * i, unit="kg")
        length = s.parameter(f"l{i}", 0.5 + 0.05 * i, unit="m")
        b = s.base(f"B{i}", parent_base, sb.Rz(th))
        p = s.point(f"P{i}", parent_point, (0, -length, 0), base=b)
        s.particle(f"bob{i}", p, m)
        parent_base, parent_point = b, p
    s.gravity((0, -g, 0))
    return s


def _source_size(n: int) -> int:
    eq = chain(n).derive()
    return len(python_source({k: eq.blocks()[k] for k in ("M", "delta")}, layout_of(eq)))


def test_code_size_grows_polynomially_with_chain_length():
    s3, s6, s12 = _source_size(3), _source_size(6), _source_size(12)
    # [M | delta] of an n-chain has O(n^2) entries with O(n) shared terms each: a cubic
    # bound at most; the inlined (exponential) code was 6.4 MB at n = 12
    # (measured: about 4x per doubling, against 8x and more for the inlined code)
    assert s6 / s3 < 5.0, (s3, s6)
    assert s12 / s6 < 6.0, (s6, s12)
    assert s12 < 100_000, s12


def test_every_block_uses_the_temporaries():
    eq = chain(4).derive()
    src = python_source({k: eq.blocks()[k] for k in ("M", "delta")}, layout_of(eq))
    temps = [line.split("=")[0].strip() for line in src.splitlines() if line.strip().startswith("_a")]
    assert temps, src
    outputs = "\n".join(line for line in src.splitlines() if "_out_" in line)
    # the output arrays are built from named temporaries, not from the inlined atoms again
    assert any(t in outputs for t in temps), src


@pytest.mark.parametrize("n", [1, 3, 6])
def test_python_blocks_equal_c_blocks(n):
    eq = chain(n).derive()
    names = ("M", "delta")
    py = evaluator(eq, *names)
    c = compile_evaluator(eq, *names)
    rng = np.random.default_rng(n)
    for _ in range(5):
        q = rng.uniform(-3, 3, eq.nq)
        dq = rng.uniform(-2, 2, eq.nq)
        p = np.asarray(eq.p0) * rng.uniform(0.5, 1.5, len(eq.p0))
        for a, b in zip(py(0.0, q, dq, [], p), c(0.0, q, dq, [], p)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_single_link_matches_the_closed_form():
    eq = chain(1).derive()
    M, delta = evaluator(eq, "M", "delta")(0.0, [0.7], [0.0], [], eq.p0)
    m, length, g = 1.0, 0.5, 9.81
    assert M[0, 0] == pytest.approx(m * length**2)
    assert delta[0] == pytest.approx(-m * g * length * np.sin(0.7))


@pytest.mark.parametrize("bad", ["x); import os; os.system('touch x'); (", "lambda", "a b", "é", "", "0x"])
def test_block_and_argument_names_cannot_inject_code(bad):
    """Names of custom blocks become Python and C identifiers: anything else is refused."""
    from symbody.codegen.c_eval import CEvaluator
    from symbody.codegen.python import Layout, compile_function
    from symbody.symbolic.expr import Context

    ctx = Context()
    x = ctx.symbol("x", "coordinate")
    with pytest.raises(ValueError, match="invalid block name"):
        compile_function({bad: ([x], (1,))}, Layout(q=[x]))
    with pytest.raises(ValueError, match="invalid block name"):
        CEvaluator({bad: ([x], (1,))}, Layout(q=[x]))
    with pytest.raises(ValueError, match="invalid argument name"):
        compile_function({"y": ([x], (1,))}, Layout(q=[x], extra={bad: [x]}))


@pytest.mark.parametrize("bad", ["a", "np", "q", "sign", "x1", "x_", "float", "list"])
def test_extra_vectors_cannot_take_the_generated_locals(bad):
    """An extra vector named 'a' gave symbols _a0, _a1: the names of the temporaries."""
    from symbody.codegen.python import Layout, compile_function
    from symbody.symbolic.expr import Context

    ctx = Context()
    x = ctx.symbol("x", "coordinate")
    with pytest.raises(ValueError, match="invalid argument name"):
        compile_function({"y": ([x], (1,))}, Layout(q=[x], extra={bad: [x]}))
