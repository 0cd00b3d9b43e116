"""Generated functions are cut into parts of bounded cost (issue 13, "Scale": export time of large models).

Truth: the cost of every part recomputed from the generated C text itself (its statements, the
values it reads from ``_w`` and the model symbols it loads), the statements of the unsplit function
(:func:`symbody.codegen.c.c_function`, text for text and in order), and a hand count of a small part.
The last part of a long Jacobian or tangent function computes the final sums from hundreds of earlier
temporaries; cut by statement count alone it imported them all (476 values in the tangent of a
bicycle-sized model) and took gcc longer than the rest of its file together.
"""

from __future__ import annotations

import re

import pytest

from symbody.codegen import c_split
from symbody.codegen.c import CAssignment, CBlock, c_function
from symbody.codegen.c_split import c_function_pieces, cut_parts, part_cost
from symbody.fmu.sources import ModelSource
from symbody.symbolic.expr import Context, cos, sin, sum_exprs

from support.trees import chain_3d

# a part, or the body of a part compiled twice (symbody.codegen.c_isa) whose wrappers call it
_PART = re.compile(
    r"^(?:static|SB_MODEL_LOCAL|static inline SB_INLINE) void ((?:body_)?part\d+_\w+)\([^;]*\)\n\{\n(.*?)^\}",
    re.M | re.S,
)
_IMPORT = re.compile(r"^const double (_t\d+) = _w\[\d+\];$")
_LOAD = re.compile(r"^const double (\w+) = _(?:in|v)->\w+(?:\[\d+\])?; /\* .* \*/$")  # a symbol or direction
_EXPORT = re.compile(r"^_w\[\d+\] = _t\d+;$")
_DEFINED = re.compile(r"^(?:static |SB_MODEL_LOCAL )?void (\w+)\([^;]*\)\n\{", re.M)


def _parts(text: str) -> dict[str, tuple[list[str], int]]:
    """Each part of a generated file: (its statements, the number of values it reads without computing)."""
    out = {}
    for name, body in _PART.findall(text):
        lines = [line.strip() for line in body.splitlines()]
        reads = sum(1 for line in lines if _IMPORT.match(line) or _LOAD.match(line))
        statements = [
            line
            for line in lines
            if not (line.startswith("(void)") or _IMPORT.match(line) or _LOAD.match(line) or _EXPORT.match(line))
        ]
        out[name] = (statements, reads)
    return out


@pytest.fixture(scope="module")
def chain_source() -> ModelSource:
    return ModelSource(chain_3d(4).derive(), "both", mode="forward")


def test_no_part_of_a_large_model_exceeds_the_cost_budget(chain_source):
    """The tangent code (derivative files) within the derivative budget, the dynamics within theirs."""
    parts = {}
    for name, text in chain_source.files.items():
        derivative = name in chain_source.derivative_files
        parts.update({(name, k, derivative): v for k, v in _parts(text).items()})
    assert sum(d for _, _, d in parts) > 15  # the tangent functions are split, and so are the dynamics
    assert sum(not d for _, _, d in parts) > 5
    worst = 0
    for (name, part, derivative), (statements, reads) in parts.items():
        budget = c_split.DERIVATIVE_PART_COST if derivative else c_split.PART_COST
        cost = sum(len(s) for s in statements) + c_split.IMPORT_COST * reads
        assert len(statements) <= c_split.PART_SIZE, (name, part)
        assert cost <= budget or len(statements) == 1, (name, part, cost, reads)
        if derivative:
            worst = max(worst, reads)
    assert worst <= c_split.DERIVATIVE_PART_COST // c_split.IMPORT_COST
    assert worst > 20  # the parts do read earlier values: the bound above is not vacuous


def test_cut_by_statement_count_alone_has_a_part_far_over_the_budget(monkeypatch):
    """The old cut (statement count only) on the same model: the check above catches it."""
    budget = c_split.DERIVATIVE_PART_COST
    monkeypatch.setattr(c_split, "PART_COST", 10**9)
    monkeypatch.setattr(c_split, "DERIVATIVE_PART_COST", 10**9)
    text = "".join(ModelSource(chain_3d(4).derive(), "both", mode="forward").files.values())
    costs = [sum(len(s) for s in st) + c_split.IMPORT_COST * r for st, r in _parts(text).values()]
    assert max(costs) > 2 * budget


def test_derivative_files_hold_the_tangent_code_only(chain_source):
    derivative = chain_source.derivative_files
    assert derivative and "model.c" not in derivative
    defined = {name: set(_DEFINED.findall(text)) for name, text in chain_source.files.items()}
    hot = {"sb_M_delta", "sb_accelerations_direct", "sb_constraints", "sb_Phi_Phi_q", "sb_D_beta", "sb_Phi_init"}
    for name, functions in defined.items():
        tangents = {f for f in functions if f.endswith("_tangent")}
        if name in derivative:
            assert not {re.sub(r"^part\d+_", "", f) for f in functions} & hot, name
        else:
            assert not tangents, name
    assert {"residual_tangent", "velocity_tangent", "output_tangent"} <= set().union(*defined.values())


def _blocks(n: int, width: int):
    """``n`` outputs, each a sum over ``width`` of 3n shared temporaries (sines of the inputs)."""
    ctx = Context()
    x = [ctx.symbol(f"x{k}") for k in range(6)]
    shared = [sin(x[k % 6] * (k + 1)) * cos(x[(k + 1) % 6]) for k in range(3 * n)]
    outs = [sum_exprs([shared[(7 * i + 3 * j) % len(shared)] * shared[j] for j in range(width)]) for i in range(n)]
    block = CBlock("f", "sums of shared products", [CAssignment(f"_f[{i}]", e, f"f{i}") for i, e in enumerate(outs)])
    return [block], {s: f"_in[{k}]" for k, s in enumerate(x)}


def test_the_parts_hold_the_statements_of_the_whole_function_in_order():
    blocks, sources = _blocks(40, 25)
    sig = "void f(const double *_in, double *_f)"
    whole = [line.strip() for line in c_function(sig, blocks, sources).splitlines()[2:-1]]
    pieces = c_function_pieces(sig, blocks, sources, derivative=True)
    assert len(pieces) > 3  # cut by cost: 40 statements would fit one part by count
    parts = _parts("".join(pieces))
    order = sorted(parts, key=lambda name: int(name[4 : name.index("_")]))
    got = [line for name in order for line in parts[name][0] if not line.startswith("const double s_")]
    want = [line for line in whole if not line.startswith("const double s_") and "shared subexpressions" not in line]
    assert got == want


def test_a_function_that_fits_one_part_is_written_as_c_function_writes_it():
    blocks, sources = _blocks(3, 3)
    sig = "void f(const double *_in, double *_f, double *_g)"
    assert c_function_pieces(sig, blocks, sources, "doc", unused=["_g"]) == [
        c_function(sig, blocks, sources, "doc", unused=["_g"])
    ]


def test_part_cost_counts_characters_and_values_read():
    part = [("_t1", "const double _t1 = _t0*_t0;"), ("", "_f[0] = _t1 + s_x;")]
    assert part_cost(part, {"_t0", "_t1", "s_x"}) == 27 + 18 + 2 * c_split.IMPORT_COST


def test_a_statement_over_the_budget_is_a_part_of_its_own(monkeypatch):
    monkeypatch.setattr(c_split, "PART_COST", 100)
    statements = [("_t0", "const double _t0 = s_x;"), ("", "_f[0] = " + "+".join(["_t0"] * 40) + ";")]
    statements.append(("", "_f[1] = s_x;"))
    parts = cut_parts(statements, {"s_x"}, part_size=10)
    assert [len(p) for p in parts] == [1, 1, 1]
    assert [s for p in parts for s in p] == statements
