"""The constants block (symbody.codegen.constants): parameter-only subexpressions leave the per-call code.

The numbers: the FMUs of tests/fmu/test_constants_block.py give the accelerations of an FMU built with the
parameter values, bit for bit, after every parameter change.
"""

from __future__ import annotations

from symbody.codegen.c import CAssignment, CBlock, SymbolNames, c_function, symbol_locals
from symbody.codegen.constants import ConstantsBlock
from symbody.symbolic.expr import Context, cos, sin
from symbody.symbolic.plan import ExportPlan

from support.trees import chain_3d


def _plans(eq, hoist):
    exprs = list(eq.accelerations) + list(eq.pivots)
    sources = {s: "x" for s in [eq.t, *eq.q, *eq.dq, *eq.p_symbols, *eq.u_symbols]}
    names = symbol_locals(exprs, sources, SymbolNames())
    return ExportPlan({"all": exprs}, names, prefix="_t", trig="expand", hoist=hoist)


def test_no_temporary_of_the_articulated_accelerations_depends_on_the_parameters_alone():
    eq = chain_3d(3).derive(formulation="articulated")
    parameters = ConstantsBlock(eq.p_symbols)
    before = _plans(eq, None)
    after = _plans(eq, parameters)
    assert sum(1 for t in before.temps if not t.mask & ~parameters.mask) > 10  # products of masses and lengths
    assert not [t for t in after.temps if not t.mask & ~parameters.mask]
    assert len(parameters) > 10 and after.hoisted == sorted(after.hoisted, key=lambda e: e.id)
    assert after.op_count() < before.op_count()
    # every hoisted node is an operation on parameters only, and none lies inside another
    for e in after.hoisted:
        assert e.args and not e.mask & ~parameters.mask


def test_a_node_shared_by_two_functions_takes_one_slot():
    ctx = Context()
    q, m, l = ctx.symbol("q", "coordinate"), ctx.symbol("m", "parameter"), ctx.symbol("l", "parameter")
    block = ConstantsBlock([m, l])
    sources = {q: "_in->q[0]", m: "_in->p[0]", l: "_in->p[1]"}
    f = c_function("void f(const SbPoint *_in, double *_f)", [CBlock("f", "", [CAssignment("_f[0]", m * l * sin(q))])], sources, constants=block)  # fmt: skip
    g = c_function("void g(const SbPoint *_in, double *_g)", [CBlock("g", "", [CAssignment("_g[0]", m * l * cos(q) + l)])], sources, constants=block)  # fmt: skip
    assert len(block) == 1 and "_in->c[0]" in f and "_in->c[0]" in g
    assert "_in->p[0]" not in f  # m only inside the constant
    text = block.function(sources)
    assert "_c[0] = s_m*s_l;" in text and "constants block: 1 parameter-only subexpressions" in text


def test_a_model_without_parameters_has_an_empty_block():
    ctx = Context()
    q = ctx.symbol("q", "coordinate")
    block = ConstantsBlock([])
    text = c_function("void f(const SbPoint *_in, double *_f)", [CBlock("f", "", [CAssignment("_f[0]", 2 * sin(q))])], {q: "_in->q[0]"}, constants=block)  # fmt: skip
    assert len(block) == 0 and "_in->c" not in text
    assert "void sb_constants(const SbPoint *_in, double *_c)" in block.function({})


def test_python_evaluators_compute_the_constants_once_per_parameter_change():
    import numpy as np

    from symbody.codegen.evaluators import layout_of, select_blocks
    from symbody.codegen.python import compile_function

    eq = chain_3d(2).derive(formulation="articulated")
    blocks = select_blocks(eq, ("accelerations",))
    f = compile_function(blocks, layout_of(eq))
    assert "# constants block" in f.source and "_constants_=[None]" in f.source
    rng = np.random.default_rng(5)
    q, dq = rng.uniform(-1, 1, eq.nq), rng.uniform(-1, 1, eq.nq)
    p0 = np.array(eq.p0, dtype=float)
    p1 = p0 * rng.uniform(0.8, 1.25, p0.size)  # every mass, length and inertia entry changed
    a0 = f(0.0, q, dq, [], p0)[0]
    a1 = f(0.0, q, dq, [], p1)[0]
    assert np.array_equal(a1, compile_function(blocks, layout_of(eq))(0.0, q, dq, [], p1)[0])  # a fresh block
    assert np.array_equal(f(0.0, q, dq, [], p0)[0], a0)
    M, delta = compile_function(select_blocks(eq, ("M", "delta")), layout_of(eq))(0.0, q, dq, [], p1)
    assert np.allclose(a1, np.linalg.solve(M, delta), rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(a1 - a0)) > 1e-3
