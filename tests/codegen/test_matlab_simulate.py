"""The ``<name>_simulate.m`` driver in GNU Octave against :func:`symbody.numeric.simulate`.

Both integrate to tight tolerances (relative 1e-10, absolute 1e-12) and must agree to 1e-8 of the
size of each state and output at every output time (they agree to about 1e-10, the integrators'
tolerance; ``ode15s``, at 1e-9, to 1e-7): far below any difference in the physics (a sign, a
missing term).  Constrained models use the same Baumgarte
terms (``numeric``'s ``(xi, omega) = (1, 10)`` is the driver's ``[alpha, beta] = [10, 10]``), or
projection.  The pendulum runs in the default suite; the four-bar, the tower crane and the other
solvers and formulations with ``--slow``.  The errors a user meets (an inconsistent start, an
unknown option) are checked too.
"""

from __future__ import annotations

import numpy as np
import pytest

from symbody.codegen.matlab_model import export_matlab, model_prefix
from symbody.numeric import simulate

from support import example
from support.octave import OctaveError, matlab_column, needs_octave, print_line, read_values, run_octave

pytestmark = needs_octave


def run_driver(eq, folder, times, *options: str) -> dict[str, np.ndarray]:
    """t, x, y of ``<name>_simulate(times, 'RelTol', 1e-10, 'AbsTol', 1e-12, options..., 'plot', false)``."""
    pre = model_prefix(eq.name)
    args = ", ".join([matlab_column(times), "'RelTol', 1e-10, 'AbsTol', 1e-12", *options, "'plot', false"])
    script = (
        f"[t, x, y] = {pre}_simulate({args});\n" + print_line("t", "t") + print_line("x", "x") + print_line("y", "y")
    )
    out = read_values(run_octave(script, [folder]))
    nt = len(out["t"])
    return {"t": out["t"], "x": out["x"].reshape(-1, nt).T, "y": out["y"].reshape(-1, nt).T}


def check_against_numeric(eq, tmp_path, times, inputs=None, options=(), tol=1e-8, **numeric):
    folder = export_matlab(eq, tmp_path / "m")
    if inputs is not None:
        options = (*options, f"'u', {matlab_column(inputs)}")
        numeric["inputs"] = dict(zip([u.name for u in eq.inputs], inputs))
    got = run_driver(eq, folder, times, *options)
    ref = simulate(eq, (times[0], times[-1]), t_eval=times, method="DOP853", rtol=1e-10, atol=1e-12, **numeric)
    np.testing.assert_allclose(got["t"], times, rtol=0, atol=1e-12)
    x = np.hstack([ref.q, ref.dq])
    agree(got["x"], x, "states", tol)
    if eq.outputs:
        agree(got["y"], ref.y, "outputs", tol)
    return got, ref


def agree(got, want, what, tol):
    """Every column equal to ``tol`` times its size (plus ``tol``: columns that stay near zero)."""
    assert got.shape == want.shape, (what, got.shape, want.shape)
    scale = 1 + np.abs(want).max(axis=0)
    error = (np.abs(got - want) / scale).max(axis=0)
    assert np.all(error <= tol), f"{what}: largest scaled differences per column {error}"


def test_pendulum_simulates_as_numeric(tmp_path):
    eq = example("simple_pendulum").derive()
    got, ref = check_against_numeric(eq, tmp_path, np.linspace(0, 3, 31), inputs=[0.3])
    assert np.ptp(got["x"][:, 0]) > 0.5  # it swings


def test_inputs_as_a_function_of_time_and_state(tmp_path):
    """A feedback law u = f(t, x), as a function handle and as symbody.numeric's input function."""
    eq = example("simple_pendulum").derive()
    times = np.linspace(0, 2, 21)
    folder = export_matlab(eq, tmp_path / "m")
    got = run_driver(eq, folder, times, "'u', @(t, x) -2 * x(1) - 0.5 * x(2) + sin(3 * t)")
    ref = simulate(
        eq,
        (0, 2),
        t_eval=times,
        method="DOP853",
        rtol=1e-10,
        atol=1e-12,
        inputs={"T": lambda t, q, dq: -2 * q[0] - 0.5 * dq[0] + np.sin(3 * t)},
    )
    agree(got["x"], np.hstack([ref.q, ref.dq]), "states", 1e-8)
    free = run_driver(eq, folder, times)
    assert np.abs(free["x"] - got["x"]).max() > 0.1  # the input acts


@pytest.mark.slow
def test_pendulum_with_ode15s(tmp_path):
    eq = example("simple_pendulum").derive()
    # GNU Octave's ode15s fails its first step at tight tolerances unless given one
    options = ("'solver', 'ode15s'", "'RelTol', 1e-9, 'AbsTol', 1e-11", "'InitialStep', 1e-6")
    check_against_numeric(eq, tmp_path, np.linspace(0, 2, 11), options=options, tol=1e-7)


@pytest.mark.slow
@pytest.mark.parametrize("formulation", ["baumgarte", "projection"])
def test_four_bar_closed_loop_simulates_as_numeric(tmp_path, formulation):
    eq = example("four_bar").derive()
    times = np.linspace(0, 2, 21)
    got, _ = check_against_numeric(
        eq, tmp_path, times, options=(f"'formulation', '{formulation}'",), formulation=formulation
    )
    assert np.ptp(got["x"][:, 0]) > 0.5  # the crank turns


@pytest.mark.slow
def test_tower_crane_simulates_as_numeric(tmp_path):
    eq = example("tower_crane").derive()
    got, ref = check_against_numeric(eq, tmp_path, np.linspace(0, 10, 21), inputs=[2.0e5, 3.0e3])
    assert np.ptp(got["x"][:, 3]) > 1e-3  # the payload swings
    tension = got["y"][:, eq.index("rope_tension")[1]]
    assert np.abs(tension / (2000 * 9.80665) - 1).max() < 0.05  # about the payload's weight


def test_inconsistent_start_is_an_error(tmp_path):
    eq = example("four_bar").derive()
    folder = export_matlab(eq, tmp_path / "m")
    with pytest.raises(OctaveError, match="start coordinates violate constraint loop_[xz]"):
        run_octave(
            "x0 = four_bar_initial_state(); x0(1) = x0(1) + 0.1;\nfour_bar_simulate([0 1], 'x0', x0, 'plot', false);",
            [folder],
        )
    with pytest.raises(OctaveError, match="unknown option"):
        run_octave("four_bar_simulate([0 1], 'rtol', 1e-3, 'plots', false);", [folder])
