"""The three Jacobian modes of native FMUs (``--jacobians exact|forward|none``).

Independent truth: central differences of the FMU's own state derivatives
(``fmi*GetDerivatives``) with respect to states and inputs.  Exact and
forward-mode directional derivatives agree with each other to rounding and
with the differences to their truncation error; the ``none`` mode declares no
directional derivatives and its implicit solver (Jacobian by differences)
still converges to the same trajectory.
"""

from __future__ import annotations

import ctypes
import sys
import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.fmi2 import FMU2Model
from fmpy.fmi3 import FMU3Model

from symbody.errors import ExportError
from symbody.fmu import export_fmu
from symbody.fmu.jacobians import ResidualJacobians, ResidualTangents, jacobian_mode
from symbody.fmu.summary import fmu_summary, summary_lines
from symbody.symbolic.evaluate import evaluate_many

from support import example

MODES = ("exact", "forward", "none")
_CACHE: dict = {}


def _fmu(tmp_factory, name: str, version: int, mode: str, kind: str = "me"):
    key = (name, version, mode, kind)
    if key not in _CACHE:
        path = tmp_factory.mktemp("jac") / f"{name}_{version}_{mode}_{kind}.fmu"
        _CACHE[key] = export_fmu(
            example(name), path, fmi_version=version, kind=kind, jacobians=mode, platforms=["x86_64-linux"]
        )
    return _CACHE[key]


class _ModelExchange:
    """An ME instance in Continuous-Time Mode after initialization (FMI 2 or 3) through fmpy."""

    def __init__(self, path, version: int):
        md = fmpy.read_model_description(str(path))
        self.md, self.version = md, version
        unzip = fmpy.extract(str(path))
        ident = md.modelExchange.modelIdentifier
        if version == 2:
            self.fmu = FMU2Model(guid=md.guid, unzipDirectory=unzip, modelIdentifier=ident, instanceName="a")
            self.fmu.instantiate()
            self.fmu.setupExperiment(startTime=0.0)
            self.fmu.enterInitializationMode()
            self.fmu.exitInitializationMode()
        else:
            self.fmu = FMU3Model(guid=md.guid, unzipDirectory=unzip, modelIdentifier=ident, instanceName="a")
            self.fmu.instantiate()
            self.fmu.enterInitializationMode(startTime=0.0)
            self.fmu.exitInitializationMode()
        self.fmu.enterContinuousTimeMode()
        self.nx = len(md.derivatives)
        self.derivative_vrs = [d.variable.valueReference for d in md.derivatives]
        self.state_vrs = [d.variable.derivative.valueReference for d in md.derivatives]
        self.input_vrs = [v.valueReference for v in md.modelVariables if v.causality == "input"]

    def states(self) -> np.ndarray:
        x = (ctypes.c_double * self.nx)()
        self.fmu.getContinuousStates(x, self.nx)
        return np.array(x)

    def set_states(self, x: np.ndarray) -> None:
        self.fmu.setContinuousStates((ctypes.c_double * self.nx)(*x), self.nx)

    def derivatives(self) -> np.ndarray:
        dx = (ctypes.c_double * self.nx)()
        if self.version == 2:
            self.fmu.getDerivatives(dx, self.nx)
        else:
            self.fmu.getContinuousStateDerivatives(dx, self.nx)
        return np.array(dx)

    def directional(self, known: int) -> np.ndarray:
        return np.array(self.fmu.getDirectionalDerivative(self.derivative_vrs, [known], [1.0]))

    def get(self, vr: int) -> float:
        return self.fmu.getReal([vr])[0] if self.version == 2 else self.fmu.getFloat64([vr])[0]

    def set(self, vr: int, value: float) -> None:
        (self.fmu.setReal if self.version == 2 else self.fmu.setFloat64)([vr], [value])

    def close(self) -> None:
        self.fmu.terminate()
        self.fmu.freeInstance()


def _jacobians(me: _ModelExchange, directional: bool) -> np.ndarray:
    """Columns d(derivatives)/d(state or input), by directional derivatives or central differences."""
    x0 = me.states()
    cols = []
    for k, vr in enumerate(me.state_vrs + me.input_vrs):
        if directional:
            cols.append(me.directional(vr))
            continue
        h = 1e-6
        if k < me.nx:
            plus, minus = x0.copy(), x0.copy()
            plus[k] += h
            minus[k] -= h
            me.set_states(plus)
            fp = me.derivatives()
            me.set_states(minus)
            fm = me.derivatives()
            me.set_states(x0)
        else:
            u = me.get(vr)
            me.set(vr, u + h)
            fp = me.derivatives()
            me.set(vr, u - h)
            fm = me.derivatives()
            me.set(vr, u)
        cols.append((fp - fm) / (2 * h))
    return np.array(cols).T


@pytest.mark.parametrize(
    ("name", "version"),
    [("simple_pendulum", 2), ("four_bar", 2), ("four_bar", 3), ("n_link_pendulum_on_cart", 3), ("slider_crank", 2)],
)
def test_directional_derivatives_of_all_modes_agree_with_differences(tmp_path_factory, name, version):
    found = {}
    for mode in MODES:
        me = _ModelExchange(_fmu(tmp_path_factory, name, version, mode), version)
        me.set_states(me.states() + 0.01 * np.cos(np.arange(me.nx)))  # off the start values (no special point)
        try:
            if mode == "exact":
                found["differences"] = _jacobians(me, directional=False)
            found[mode] = _jacobians(me, directional=True)
        finally:
            me.close()
    fd = found["differences"]
    scale = 1.0 + np.abs(fd).max()
    assert np.abs(fd).max() > 0.1  # a Jacobian that is not trivially zero
    np.testing.assert_allclose(found["forward"], found["exact"], rtol=1e-9, atol=1e-9 * scale)
    np.testing.assert_allclose(found["exact"], fd, rtol=1e-5, atol=1e-5 * scale)
    np.testing.assert_allclose(found["none"], fd, rtol=1e-5, atol=1e-5 * scale)


@pytest.mark.parametrize("version", (2, 3))
def test_none_mode_declares_no_directional_derivatives(tmp_path_factory, version):
    flag = "providesDirectionalDerivative" + ("s" if version == 3 else "")
    for mode, expected in (("forward", "true"), ("none", "false")):
        with zipfile.ZipFile(_fmu(tmp_path_factory, "four_bar", version, mode)) as zf:
            xml = zf.read("modelDescription.xml").decode()
            model_c = zf.read("sources/model.c").decode()
            generated = "".join(zf.read(n).decode() for n in zf.namelist() if n.startswith("sources/model"))
            assert "sources/sb_tangents.c" in zf.namelist()
        assert f'{flag}="{expected}"' in xml
        assert f" * Jacobians: {mode} (" in model_c
        assert ("residual_tangent" in generated) == (mode == "forward")
        assert "residual_tangent" not in model_c  # the tangent code has files of its own
        assert "exact Jacobians of R" not in generated


def test_implicit_solver_converges_in_every_mode(tmp_path_factory):
    """rosenbrock23 (Jacobian from the mode) follows the same trajectory as with exact Jacobians."""
    results = {}
    for mode in MODES:
        path = _fmu(tmp_path_factory, "four_bar", 2, mode, kind="cs")
        res = fmpy.simulate_fmu(
            str(path), stop_time=1.0, output_interval=0.05, start_values={"solver.method": 3, "solver.rtol": 1e-8}
        )
        results[mode] = np.array([list(r)[1:] for r in res])
    for mode in ("forward", "none"):
        np.testing.assert_allclose(results[mode], results["exact"], rtol=1e-5, atol=1e-6)
    assert np.ptp(results["exact"], axis=0).max() > 0.1  # the mechanism moves


def test_tangents_are_jacobian_times_direction():
    """The forward-mode tangent of R equals R_q v_q + R_dq v_dq + R_u v_u + R_t v_t (symbolically evaluated)."""
    eq = example("n_link_pendulum_on_cart").derive()
    jac = ResidualJacobians(eq)
    tan = ResidualTangents(jac, eq)
    rng = np.random.default_rng(1)
    symbols = [*eq.q, *eq.dq, *eq.u_symbols, eq.t, *eq.ddq, *eq.lam, *(p.symbol for p in eq.parameters)]
    values = {s: float(v) for s, v in zip(symbols, rng.uniform(-1, 1, len(symbols)))}
    values.update({d: float(v) for d, v in zip(tan.direction.values(), rng.uniform(-1, 1, len(tan.direction)))})
    v = {s: values[tan.direction[s]] for s in tan.direction}
    got = np.array(evaluate_many(tan.dR, values), dtype=float)

    def mat(rows):
        return np.array([evaluate_many(r, values) for r in rows], dtype=float).reshape(len(rows), -1)

    expected = mat(jac.R_q) @ [v[s] for s in eq.q] + mat(jac.R_dq) @ [v[s] for s in eq.dq]
    expected += mat(jac.R_u) @ [v[s] for s in eq.u_symbols] + np.array(evaluate_many(jac.R_t, values)) * v[eq.t]
    assert np.abs(expected).max() > 0.1
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_default_mode_is_chosen_by_size_and_unknown_modes_are_refused(tmp_path):
    small = ResidualJacobians(example("simple_pendulum").derive())
    assert jacobian_mode(small) == "exact" and small.residual_atoms() < 100
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from bench_recursive import chain_3d

    assert jacobian_mode(ResidualJacobians(chain_3d(4).derive())) == "forward"
    with pytest.raises(ExportError, match="unknown Jacobian mode 'symbolic'"):
        export_fmu(example("simple_pendulum"), tmp_path / "p.fmu", jacobians="symbolic")
    with pytest.raises(ExportError, match="exact Jacobians only"):
        export_fmu(example("simple_pendulum"), tmp_path / "p.fmu", backend="python", jacobians="forward")


def test_info_of_the_fmu_names_its_jacobian_mode(tmp_path_factory, capsys):
    from symbody.cli import main

    for mode in MODES:
        path = _fmu(tmp_path_factory, "four_bar", 2, mode)
        info = fmu_summary(path)
        assert info["jacobians"] == mode
        assert any(line.startswith(f"  Jacobians    {mode} (") for line in summary_lines(info))
    assert main(["info", str(path)]) == 0
    assert "Jacobians    none (finite differences" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["four_bar", "n_link_pendulum_on_cart", "slider_crank"])
def test_structural_pattern_holds_every_exact_dependency(name):
    """The ModelStructure of forward/none FMUs (dependency masks) is a superset of the exact one."""
    from symbody.fmu.jacobians import ResidualPattern
    from symbody.fmu.structure import Dependencies

    eq = example(name).derive()
    exact, pattern = Dependencies(eq, ResidualJacobians(eq)), Dependencies(eq, ResidualPattern(eq))
    for attr in ("acc", "acc_init", "y", "y_init"):
        for a, b in zip(getattr(exact, attr), getattr(pattern, attr)):
            assert a <= b, (attr, a - b)
    assert any(exact.acc) and exact.state_init == pattern.state_init
