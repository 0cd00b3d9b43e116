"""Equations: readable display (LaTeX, pretty text), progress reports, statistics and symbol tables."""

import sympy

from symbody.codegen.counts import stats

from support import example


def test_latex_display_of_small_models_shows_M_delta_and_Phi():
    eq = example("slider_crank").derive()
    latex = eq._repr_latex_()
    assert latex.startswith("$") and latex.endswith("$")
    assert r"\mathbf{M}" in latex and r"\boldsymbol{\delta}" in latex and r"\boldsymbol{\Phi}" in latex
    # the displayed mass matrix is the model's: same entries as the numeric evaluation
    M = eq.sympy("M")
    assert M.shape == (2, 2) and sympy.simplify(M - M.T) == sympy.zeros(2, 2)


def test_pretty_text_display():
    text = example("simple_pendulum").derive().pretty()
    assert "M =" in text and "delta =" in text and "sin(θ)" in text


def test_large_models_are_summarized_not_printed():
    eq = example("n_link_pendulum_on_cart", n=30).derive()  # over 4000 atoms
    assert eq._repr_latex_().startswith(r"$\text{Equations(")


def test_progress_callback_sees_every_solid_and_load():
    calls = []
    s = example("n_link_pendulum_on_cart", n=4)
    s.derive(progress=lambda done, total, what: calls.append((done, total, what)))
    total = calls[-1][1]
    assert [c[0] for c in calls] == list(range(1, total + 1))
    assert total == len(s.solids) + len(s.loads)
    assert {c[2] for c in calls} >= {"Pa0", "gravity", "cart_force"}


def test_stats_keys_follow_the_cli_contract():
    st = stats(example("four_bar", spring=False).derive())
    for key in (
        "name",
        "coordinates",
        "constraints",
        "dof",
        "parameters",
        "inputs",
        "outputs",
        "atoms",
        "ops",
        "derive_seconds",
    ):
        assert key in st
    assert set(st["ops"]) >= {"M", "delta", "M_delta", "Phi", "Phi_q", "gamma"}
    assert st["coordinates"] == 3 and st["constraints"] == 2 and st["dof"] == 1
    assert st["ops"]["M_delta"] <= 132  # lib_3D_MEC-GiNaC's listing B.6 (Plaza Puértolas, 2015)


def test_index_finds_every_kind_of_name():
    eq = example("slider_crank").derive()
    assert eq.index("a1") == ("q", 0)
    assert eq.index("da2") == ("dq", 1)
    assert eq.index("dda1") == ("ddq", 0)
    assert eq.index("g")[0] == "p"
    assert eq.index("Cp1") == ("lam", 0)
