"""The MATLAB export run in GNU Octave: every block equals symbody's evaluation of the atomized equations.

At random states, inputs and parameters (and random accelerations and multipliers for the outputs
that use them), ``M``, ``delta``, the constraint blocks and the outputs computed by the generated
``.m`` functions equal :func:`symbody.symbolic.evaluate.evaluate_many` of the blocks of the
``Equations`` (no export plan, no optimizer) to 1e-12 relative to each block's size; the
accelerations equal the closed form (1e-12) or the solution of ``[M D^T; D 0] [ddq; lam] = [delta; gamma]``
(to the conditioning of that matrix).  The pendulum and the four-bar run by default; every example with
``--slow`` (the knuckle crane without its end stops).
"""

from __future__ import annotations

import numpy as np
import pytest

import symbody as sb
from symbody.codegen.matlab_model import MatlabExport, export_matlab
from symbody.numeric import NumericModel
from symbody.symbolic.evaluate import evaluate_many

from support import example
from support.octave import (
    OctaveError,
    matlab_column,
    matlab_number,
    needs_octave,
    print_line,
    read_values,
    run_octave,
)

pytestmark = needs_octave

EXAMPLES = [
    "simple_pendulum",
    "four_bar",
    "crank_rod_disc",
    "double_pendulum_square_disc",
    "n_link_pendulum_on_cart",
    "overhead_crane",
    "slider_crank",
    "tower_crane",
]
STATES = 4


def _cases(eq, rng):
    """Random (t, q, dq, u, p, ddq, lam) near the model's defaults."""
    for _ in range(STATES):
        p = eq.p0 * rng.uniform(0.8, 1.25, eq.np_) + rng.uniform(-0.1, 0.1, eq.np_) * (eq.p0 == 0)
        yield (
            float(rng.uniform(0, 2)),
            eq.q0 + rng.uniform(-0.5, 0.5, eq.nq),
            rng.uniform(-1, 1, eq.nq),
            rng.uniform(-1, 1, eq.nu),
            p,
            rng.uniform(-1, 1, eq.nq),
            rng.uniform(-1, 1, eq.nc),
        )


def _script(export: MatlabExport, cases) -> str:
    pre, eq = export.prefix, export.eq
    lines = []
    for k, (t, q, dq, u, p, ddq, lam) in enumerate(cases):
        lines.append(f"p = {pre}_parameters();\n")
        lines += [f"p.{export.fields[prm.name]} = {matlab_number(v)};\n" for prm, v in zip(eq.parameters, p)]
        lines.append(
            f"t = {matlab_number(t)}; q = {matlab_column(q)}; dq = {matlab_column(dq)}; u = {matlab_column(u)};\n"
            f"[M, delta, ddq, lam] = {pre}_dynamics(t, q, dq, u, p);\n"
            f"[Phi, Phi_q, beta, gamma, D] = {pre}_constraints(t, q, dq, p);\n"
            f"y = {pre}_outputs(t, q, dq, u, p, {matlab_column(ddq)}, {matlab_column(lam)});\n"
        )
        for name in ("M", "delta", "ddq", "lam", "Phi", "Phi_q", "beta", "gamma", "D", "y"):
            lines.append(print_line(f"{name}{k}", f"{name}'" if name != "M" else "M'"))  # row-major
    return "".join(lines)


def _reference(eq, case) -> dict[str, np.ndarray]:
    t, q, dq, u, p, ddq, lam = case
    values = {eq.t: t}
    for syms, vals in ((eq.q, q), (eq.dq, dq), (eq.u_symbols, u), (eq.p_symbols, p), (eq.ddq, ddq), (eq.lam, lam)):
        values.update(zip(syms, vals))
    blocks = eq.blocks()
    out = {name: np.array(evaluate_many(blocks[name][0], values)) for name in ("M", "delta", "Phi", "Phi_q", "D")}
    out.update(beta=np.array(evaluate_many(blocks["beta"][0], values)))
    out.update(gamma=np.array(evaluate_many(blocks["gamma"][0], values)))
    out["y"] = np.array(evaluate_many(blocks["outputs"][0], values))
    if eq.accelerations:  # the closed form the export evaluates where its pivots are positive
        out["ddq"] = np.array(evaluate_many(eq.accelerations, values))
        out["lam"] = np.zeros(0)
    return out


def _close(name, got, want, rtol=1e-12):
    assert got.shape == want.shape, (name, got, want)
    scale = np.abs(want).max() if want.size else 0.0
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=name)


def check_blocks(name: str, tmp_path) -> None:
    check_equations(example(name).derive(), tmp_path)


def check_equations(eq, tmp_path) -> None:
    name = eq.name
    export = MatlabExport(eq)
    folder = export_matlab(eq, tmp_path / name)
    cases = list(_cases(eq, np.random.default_rng(sum(map(ord, name)))))
    got = read_values(run_octave(_script(export, cases), [folder]))
    for k, case in enumerate(cases):
        want = _reference(eq, case)
        for block, value in want.items():
            _close(f"{name} {block} (case {k})", got[f"{block}{k}"], value)
        if not eq.accelerations:  # the solve: exact up to the conditioning of the matrix it factors
            n, nc = eq.nq, eq.nc
            D = want["D"].reshape(nc, n)
            A = np.block([[want["M"].reshape(n, n), D.T], [D, np.zeros((nc, nc))]])
            x = np.linalg.solve(A, np.concatenate([want["delta"], want["gamma"]]))
            rtol = 1e-14 * np.linalg.cond(A)
            _close(f"{name} ddq (case {k})", got[f"ddq{k}"], x[:n], rtol)
            _close(f"{name} lam (case {k})", got[f"lam{k}"], x[n:], rtol)


@pytest.mark.parametrize("name", ["simple_pendulum", "four_bar"])
def test_blocks_equal_the_equations(name, tmp_path):
    check_blocks(name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in EXAMPLES if n not in ("simple_pendulum", "four_bar")])
def test_blocks_of_every_example(name, tmp_path):
    check_blocks(name, tmp_path)


@pytest.mark.slow
def test_blocks_of_the_knuckle_crane_without_end_stops(tmp_path):
    """Motion inputs (the ship's heave, roll and pitch with their rates) among the inputs; its end stops are
    contacts, which the MATLAB export refuses with a message (the FMU handles them)."""
    check_equations(example("knuckle_crane", end_stops=False).derive(), tmp_path)


def test_numbers_read_back_exactly_in_octave():
    """The printed literals are the very doubles Python holds (Octave's parser rounds correctly)."""
    from symbody.symbolic.printing import MatlabPrinter

    values = [0.1, 1 / 3, 9.81, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e22, -2.5e-7, 123456.789]
    literals = ", ".join(MatlabPrinter().number(v) for v in values)
    got = read_values(run_octave(print_line("v", f"[{literals}]")))["v"]
    assert got.tolist() == values


def test_mangled_names_run(tmp_path):
    """A model named with MATLAB keywords and over-long names, with descriptions that try to break out of
    their comments: the functions run, and the mangled parameter fields take effect."""
    from test_matlab_export import hostile_model

    eq = hostile_model().derive()
    folder = export_matlab(eq, tmp_path / "m")
    script = (
        "p = end__parameters(); p.function_ = 4;\n"
        "[M, delta] = end__dynamics(0, 0.5, 0.1, zeros(0, 1), p);\n"
        + print_line("M", "M")
        + print_line("delta", "delta")
        + "[t, x, y] = end__simulate([0 0.1 0.2], 'plot', false);\n"
        + print_line("y", "y")
    )
    got = read_values(run_octave(script, [folder]))
    (k, c, m, length) = (4.0, 0.1, 1.0, 0.5)
    assert got["M"].tolist() == [m]
    np.testing.assert_allclose(got["delta"], [-k * (0.5 - length) - c * 0.1], rtol=1e-15)
    assert got["y"].shape == (3,) and got["y"][0] == 0.4  # twice the start position


def test_the_plot_is_drawn_or_reported(tmp_path):
    """'plot' draws the outputs with their names and units; without graphics it is a warning and the results
    come back (stand-ins for the plotting functions record the calls: the tests run without a display)."""
    eq = example("simple_pendulum").derive()
    folder = export_matlab(eq, tmp_path / "m")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name in ("figure", "xlabel", "title", "grid"):
        (stubs / f"{name}.m").write_text(f"function {name}(varargin)\nfprintf('CALL {name}\\n');\nend\n")
    (stubs / "plot.m").write_text("function plot(t, y)\nfprintf('PLOT %d %d\\n', size(y, 1), size(y, 2));\nend\n")
    (stubs / "legend.m").write_text(
        "function legend(labels, varargin)\nfprintf('LEGEND'); fprintf(' %s|', labels{:}); fprintf('\\n');\nend\n"
    )
    out = run_octave("warning('off', 'all');\n[t, x, y] = simple_pendulum_simulate([0 0.5 1]);\n", [folder, stubs])
    assert "PLOT 3 2" in out and "LEGEND x [m]| y [m]|" in out and "CALL title" in out
    # with the graphics of the machine (none on a server: a warning), the results come back
    script = "set(0, 'defaultfigurevisible', 'off');\n[t, x, y] = simple_pendulum_simulate([0 0.5 1]);\n"
    assert read_values(run_octave(script + print_line("t", "t"), [folder]))["t"].tolist() == [0.0, 0.5, 1.0]


def every_function_model() -> sb.System:
    """Outputs and loads with every function symbody's algebra prints, the non-smooth ones included."""
    s = sb.System("functions")
    x, y = s.coordinate("x", 0.3), s.coordinate("y", -0.2)
    k = s.parameter("k", 2.0)
    s.particle("m", s.point("P", s.origin, (x, y, 0)), 1.0)
    s.generalized_force("pushes", x, -k * sb.positive_part(x) + sb.sign(y) * sb.minimum(x, y))
    s.generalized_force("turns", y, sb.maximum(x, 2 * y) - sb.step(x - y) * sb.Abs(y))
    r = 1 + x**2 + y**2
    exprs = {
        "atan2": sb.atan2(y, x),
        "tanh": sb.tanh(x),
        "exp": sb.exp(y),
        "log": sb.log(r),
        "asin": sb.asin(sb.tanh(x)),
        "acos": sb.acos(sb.tanh(y)),
        "atan": sb.atan(x / k),
        "tan": sb.tan(y / 3),
        "sqrt": sb.sqrt(r),
        "powers": r**1.5 + r ** (-0.5) + x**3 - 1 / (x + 3) + y ** (-2),
        "sin_cos": sb.sin(x + y) * sb.cos(x - y),
    }
    for name, e in exprs.items():
        s.output(f"{name}_of", e)
    return s


def test_every_function_evaluates_as_in_python(tmp_path):
    check_equations(every_function_model().derive(), tmp_path)


def test_a_complex_result_is_an_error(tmp_path):
    """sqrt of a negative value: C gives NaN, MATLAB would go on in complex numbers; the function stops."""
    s = sb.System("domain")
    x = s.coordinate("x", 0.5)
    s.particle("m", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.output("root", sb.sqrt(x))
    folder = export_matlab(s.derive(), tmp_path / "m")
    assert read_values(
        run_octave(print_line("y", "domain_outputs(0, 0.25, 0, zeros(0, 1), domain_parameters())"), [folder])
    )["y"].tolist() == [0.5]
    with pytest.raises(OctaveError, match="outside its real domain at t = 1.5"):
        run_octave("domain_outputs(1.5, -0.25, 0, zeros(0, 1), domain_parameters());", [folder])


def test_redundant_constraints_get_minimum_norm_multipliers(tmp_path):
    """A rod constraint written twice: [M D'; D 0] is singular, the system consistent; the accelerations are
    those of the single rod, its force shared equally between the two rows."""
    import warnings

    def pendulum(rows: int) -> sb.System:
        s = sb.System(f"rods{rows}")
        x, y = s.coordinate("x", 0.6), s.coordinate("y", -0.8)
        s.particle("m", s.point("P", s.origin, (x, y, 0)), 2.0)
        s.gravity((0, -9.81, 0))
        for k in range(rows):
            s.constraint(f"rod{k}", x**2 + y**2 - 1)
        return s

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eq = pendulum(2).derive()
    folder = export_matlab(eq, tmp_path / "m")
    script = "[M, delta, ddq, lam] = rods2_dynamics(0, [0.6; -0.8], [0.8; 0.6], zeros(0, 1), rods2_parameters());\n"
    got = read_values(run_octave(script + print_line("ddq", "ddq") + print_line("lam", "lam"), [folder]))
    single = pendulum(1).derive()
    ddq, lam = NumericModel(single).accelerations([0.6, -0.8], [0.8, 0.6])
    np.testing.assert_allclose(got["ddq"], ddq, rtol=1e-12)
    np.testing.assert_allclose(got["lam"], [lam[0] / 2, lam[0] / 2], rtol=1e-12)
