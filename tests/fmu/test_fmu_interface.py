"""The FMI interface of native FMUs: state, directional derivatives, ModelStructure, description,
sources, embedded solvers, projection, assembly, Baumgarte stabilization and logging."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

import symbody as sb
from symbody.fmu import export_fmu
from symbody.fmu.testing import (
    FmuSession,
    cached_equations,
    cached_fmu,
    fmu_simulation,
    max_relative_error,
    reference_simulation,
)
from symbody.numeric import NumericModel, assemble

ROOT = Path(__file__).resolve().parents[2]
FOUR_BAR = str(ROOT / "examples" / "four_bar.py")
N_LINK = str(ROOT / "examples" / "n_link_pendulum_on_cart.py")
PENDULUM = str(ROOT / "examples" / "simple_pendulum.py")
DERIVATIVE_MODELS = [FOUR_BAR, N_LINK] + [
    str(ROOT / "examples" / f"{m}.py")
    for m in ("crank_rod_disc", "slider_crank")
    if (ROOT / "examples" / f"{m}.py").is_file()
]


def inputs_of(eq) -> dict[str, float]:
    return {u.name: 0.3 * (i + 1) for i, u in enumerate(eq.inputs)}


# ---------------------------------------------------------------------------
# FMU state
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("method", (1, 2, 3))
@pytest.mark.parametrize("model", (FOUR_BAR, N_LINK), ids=lambda p: Path(p).stem)
def test_get_set_state_gives_bit_identical_continuation(model, method, version):
    eq = cached_equations(model)
    s = FmuSession(cached_fmu(model, version, "cs"))
    names = [c.name for c in eq.coordinates] + [c.ddq.name for c in eq.coordinates] + [o.name for o in eq.outputs]
    try:
        s.initialize(**inputs_of(eq), **{"solver.method": method})
        for _ in range(7):
            s.step(0.01)
        state, t0 = s.get_state(), s.time
        data = s.serialize(state)

        def run() -> np.ndarray:
            out = [s.get(*names)]
            for h in (0.013, 0.002, 0.05, 0.013):
                s.step(h)
                out.append(s.get(*names))
            return np.array(out)

        first = run()
        s.set_state(state)
        s.time = t0
        again = run()
        s.set_state(s.deserialize(data))
        s.time = t0
        restored = run()
        s.free_state(state)
    finally:
        s.close()
    assert np.array_equal(first, again)
    assert np.array_equal(first, restored)
    assert not np.array_equal(first[0], first[-1])


@pytest.mark.parametrize("version", (2, 3))
def test_serialized_state_moves_between_instances(version):
    eq = cached_equations(FOUR_BAR)
    a, b = FmuSession(cached_fmu(FOUR_BAR, version, "cs")), FmuSession(cached_fmu(FOUR_BAR, version, "cs"))
    try:
        a.initialize(My2=1.5)
        b.initialize()
        for _ in range(5):
            a.step(0.02)
        b.set_state(b.deserialize(a.serialize(a.get_state())))
        b.time = a.time
        for _ in range(5):
            a.step(0.02)
            b.step(0.02)
        names = [c.name for c in eq.coordinates]
        assert np.array_equal(a.get(*names), b.get(*names))
    finally:
        a.close()
        b.close()


# ---------------------------------------------------------------------------
# directional derivatives
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("model", DERIVATIVE_MODELS, ids=lambda p: Path(p).stem)
def test_directional_derivatives_match_finite_differences(model, version):
    """d(derivatives, outputs)/d(states, inputs), also off the constraint manifold (Baumgarte terms)."""
    eq = cached_equations(model)
    s = FmuSession(cached_fmu(model, version, "me"), "ModelExchange")
    try:
        u = inputs_of(eq)
        s.initialize(**u)
        x0 = s.states() + 0.05 * np.random.default_rng(1).normal(size=s.nx)
        s.set_states(x0)
        n = eq.nq
        states = [c.name for c in eq.coordinates] + [c.dq.name for c in eq.coordinates]
        unknowns = [c.dq.name for c in eq.coordinates] + [c.ddq.name for c in eq.coordinates]
        unknowns += [o.name for o in eq.outputs]
        knowns = states + [x.name for x in eq.inputs]
        J = np.array([s.directional(unknowns, [k], [1.0]) for k in knowns]).T
        Jfd = np.zeros_like(J)
        h = 1e-6
        for j, k in enumerate(knowns):
            vals = []
            for sign in (1, -1):
                if j < 2 * n:
                    x = x0.copy()
                    x[j] += sign * h
                    s.set_states(x)
                else:
                    s.set(**{k: u[k] + sign * h})
                vals.append(s.get(*unknowns))
            s.set_states(x0)
            if j >= 2 * n:
                s.set(**{k: u[k]})
            Jfd[:, j] = (vals[0] - vals[1]) / (2 * h)
        np.testing.assert_allclose(J, Jfd, atol=1e-6 * (1 + np.abs(J).max()))
        seed = np.random.default_rng(2).normal(size=len(knowns))
        np.testing.assert_allclose(s.directional(unknowns, knowns, seed), J @ seed, rtol=1e-10, atol=1e-10)
    finally:
        s.close()


@pytest.mark.parametrize("version", (2, 3))
def test_directional_derivatives_in_cosimulation(version):
    """Output feedthrough d(ddq, y)/du at a communication point."""
    eq = cached_equations(FOUR_BAR)
    s = FmuSession(cached_fmu(FOUR_BAR, version, "cs"))
    try:
        s.initialize(Fx2=0.5)
        s.step(0.1)
        unknowns = [c.ddq.name for c in eq.coordinates]
        d = s.directional(unknowns, ["My3"], [1.0])
        base = s.get(*unknowns)
        s.set(My3=1e-6)
        fd = (s.get(*unknowns) - base) / 1e-6
        np.testing.assert_allclose(d, fd, rtol=1e-5, atol=1e-6)
    finally:
        s.close()


# ---------------------------------------------------------------------------
# model structure
# ---------------------------------------------------------------------------


def declared_dependencies(fmu: Path) -> dict[str, set[str]]:
    md = fmpy.read_model_description(str(fmu))
    out = {}
    for unknown in md.outputs + md.derivatives:
        out[unknown.variable.name] = {v.name for v in unknown.dependencies}
    return out


@pytest.mark.parametrize(
    "model", [str(p) for p in sorted((ROOT / "examples").glob("*.py"))], ids=lambda p: Path(p).stem
)
def test_model_structure_covers_every_numerical_dependency(model):
    """Perturbing a known changes only unknowns that declare it (no missing dependency)."""
    eq = cached_equations(model)
    fmu = cached_fmu(model, 2, "me")
    deps = declared_dependencies(fmu)
    s = FmuSession(fmu, "ModelExchange")
    try:
        u = inputs_of(eq)
        s.initialize(**u)
        x0 = s.states() + 0.01
        s.set_states(x0)
        unknowns = sorted(deps)
        base = s.get(*unknowns)
        states = [c.name for c in eq.coordinates] + [c.dq.name for c in eq.coordinates]
        for j, k in enumerate(states + list(u)):
            if j < len(states):
                x = x0.copy()
                x[j] += 1e-4
                s.set_states(x)
            else:
                s.set(**{k: u[k] + 1e-4})
            changed = np.abs(s.get(*unknowns) - base) > 1e-12 * (1 + np.abs(base))
            s.set_states(x0)
            if j >= len(states):
                s.set(**{k: u[k]})
            for name, c in zip(unknowns, changed):
                if c:
                    assert k in deps[name], f"{name} depends on {k} but ModelStructure omits it"
    finally:
        s.close()


def test_model_structure_is_sparse_where_the_model_is():
    eq = cached_equations(N_LINK)
    deps = declared_dependencies(cached_fmu(N_LINK, 2, "me"))
    assert deps["x1"] == {"q0", "q1"}  # first link's tip: cart position and first angle
    assert deps["q0"] == {"q0"} and deps["dq0"] == {"dq0"}
    assert deps["ddq2"] >= {"F", "T1", "T2", "T3", "q1", "dq3"}
    cs = declared_dependencies(cached_fmu(N_LINK, 2, "cs"))
    assert cs["q0"] == set() and cs["ddq0"] == {x.name for x in eq.inputs}


# ---------------------------------------------------------------------------
# modelDescription, sources, binaries
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", (2, 3))
def test_model_description_carries_names_units_and_settings(version):
    md = fmpy.read_model_description(str(cached_fmu(FOUR_BAR, version, "both")))
    v = {x.name: x for x in md.modelVariables}
    assert v["theta1"].unit == "rad" and v["dtheta1"].unit == "rad/s" and v["ddtheta1"].unit == "rad/s2"
    assert v["theta1"].causality == "output" and v["theta1"].initial == "approx"  # assembled
    assert v["ddtheta1"].initial == "calculated"
    assert v["l1"].causality == "parameter" and v["l1"].variability == "tunable" and float(v["l1"].start) == 0.4
    assert v["l1"].unit == "m"
    assert v["Fx2"].causality == "input" and v["Fx2"].unit == "N"
    assert v["C_x"].causality == "output" and v["C_x"].unit == "m"
    assert v["solver.method"].type == ("Integer" if version == 2 else "Int64") and int(v["solver.method"].start) == 2
    assert v["solver.projection"].type == "Boolean"
    assert v["baumgarte.alpha"].unit == "1/s"
    assert v["time"].causality == "independent"
    assert md.modelExchange is not None and md.coSimulation is not None
    assert md.coSimulation.canHandleVariableCommunicationStepSize
    assert md.coSimulation.canGetAndSetFMUstate and md.coSimulation.canSerializeFMUstate
    with zipfile.ZipFile(cached_fmu(FOUR_BAR, version, "both")) as zf:
        xml = zf.read("modelDescription.xml").decode()
    flag = "providesDirectionalDerivative" + ("s" if version == 3 else "")  # fmpy reads only the FMI 2 name
    assert xml.count(f'{flag}="true"') == 2
    categories = {getattr(c, "name", c) for c in md.logCategories}
    assert categories >= {"logEvents", "logStatusError", "logSolver", "logCalls"}
    assert [d.variable.name for d in md.derivatives] == ["dtheta1", "dtheta2", "dtheta3"] + [
        "ddtheta1",
        "ddtheta2",
        "ddtheta3",
    ]
    units = {u.name: u for u in md.unitDefinitions}
    assert units["rad/s2"].baseUnit.rad == 1 and units["rad/s2"].baseUnit.s == -2
    assert units["N"].baseUnit.kg == 1 and units["N"].baseUnit.m == 1 and units["N"].baseUnit.s == -2


def test_open_chain_states_are_exact_and_cs_only_has_no_derivatives():
    md = fmpy.read_model_description(str(cached_fmu(N_LINK, 3, "cs")))
    v = {x.name: x for x in md.modelVariables}
    assert v["q1"].initial == "exact" and v["dq1"].derivative is None
    assert md.modelExchange is None and not md.derivatives
    assert "baumgarte.alpha" not in v and "solver.projection" not in v  # no constraints
    me = {x.name for x in fmpy.read_model_description(str(cached_fmu(N_LINK, 3, "me"))).modelVariables}
    assert not any(name.startswith("solver.") for name in me)


@pytest.mark.parametrize("version", (pytest.param(2, marks=pytest.mark.slow), 3))  # FMI 2 with --slow
def test_fmu_layout_and_rebuild_from_sources(version, tmp_path):
    """binaries/<platform>/, sources/ (+ buildDescription.xml for FMI 3); a rebuild from sources behaves the same."""
    fmu = cached_fmu(FOUR_BAR, version, "both")
    platform = "linux64" if version == 2 else "x86_64-linux"
    with zipfile.ZipFile(fmu) as zf:
        names = zf.namelist()
        zf.extractall(tmp_path / "fmu")
    assert f"binaries/{platform}/four_bar.so" in names
    assert "sources/model.c" in names and f"sources/fmi{version}Functions.c" in names
    assert f"sources/fmi{version}Functions.h" in names
    if version == 3:
        assert "sources/buildDescription.xml" in names
        configs = fmpy.model_description.read_build_description(str(fmu), validate=True)
        files = configs[0].sourceFileSets[0].sourceFiles
    else:
        files = fmpy.read_model_description(str(fmu)).buildConfigurations[0].sourceFileSets[0].sourceFiles
    src = tmp_path / "fmu" / "sources"
    lib = tmp_path / "fmu" / "binaries" / platform / "four_bar.so"
    lib.unlink()
    cmd = ["gcc", "-std=c99", "-O2", "-fPIC", "-shared", "-o", str(lib)] + [str(src / f) for f in files] + ["-lm"]
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    rebuilt = tmp_path / "rebuilt.fmu"
    with zipfile.ZipFile(rebuilt, "w") as zf:
        for f in (tmp_path / "fmu").rglob("*"):
            if f.is_file():
                zf.write(f, f.relative_to(tmp_path / "fmu").as_posix())
    a = fmu_simulation(fmu, 0.5, 0.05, start_values={"My2": 1.0})
    b = fmu_simulation(rebuilt, 0.5, 0.05, start_values={"My2": 1.0})
    assert all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("version", (2, 3))
def test_both_interfaces_in_one_fmu(version):
    eq = cached_equations(PENDULUM)
    fmu = cached_fmu(PENDULUM, version, "both")
    cs = fmu_simulation(fmu, 1.0, 0.01, start_values={"solver.rtol": 1e-10, "solver.atol": 1e-12})
    me = fmu_simulation(fmu, 1.0, 0.01, fmi_type="ModelExchange", relative_tolerance=1e-11)
    for c in eq.coordinates:
        assert max_relative_error(cs[c.name], me[c.name]) < 1e-6


# ---------------------------------------------------------------------------
# solvers, projection, assembly, Baumgarte
# ---------------------------------------------------------------------------


def test_rk4_is_fourth_order():
    eq = cached_equations(N_LINK)
    fmu = cached_fmu(N_LINK, 2, "cs")
    errors = []
    for h in (4e-3, 2e-3):
        r = fmu_simulation(fmu, 1.0, 0.02, start_values={"solver.method": 1, "solver.step": h})
        q0 = [r[c.name][0] for c in eq.coordinates]
        ref = reference_simulation(eq, r["time"], q0, [0.0] * eq.nq)
        errors.append(max(np.abs(r[c.name] - ref[c.name]).max() for c in eq.coordinates))
    assert 10 < errors[0] / errors[1] < 22  # 2^4 = 16


def stiff_system() -> sb.System:
    """A pendulum carried by a stiff, heavily damped slider (eigenvalues about -2e4 and -500 1/s)."""
    s = sb.System("stiff_slider")
    k, c = s.parameter("k", 1e7, unit="N/m"), s.parameter("c", 2e4, unit="N*s/m")
    m, L, g = s.parameter("m", 1.0, unit="kg"), s.parameter("L", 1.0, unit="m"), s.parameter("g", 9.81, unit="m/s2")
    x = s.coordinate("x", 0.0, unit="m")
    th = s.coordinate("th", 0.5, unit="rad")
    cart = s.point("C", s.origin, (x, 0, 0))
    s.particle("cart", cart, m)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", cart, (0, -L, 0), base=B), m)
    s.gravity((0, -g, 0))
    s.generalized_force("spring", x, -k * x - c * s.dt(x))
    return s


def count_steps(fmu: Path, method: int, stop: float = 1.0) -> tuple[int, np.ndarray]:
    messages = []

    def logger(*args):
        messages.append(args[-1].decode() if isinstance(args[-1], bytes) else args[-1])

    s = FmuSession(fmu, logger=logger, debug_logging=True)
    try:
        s.fmu.setDebugLogging(True, ["logSolver"])
        s.initialize(**{"solver.method": method, "solver.rtol": 1e-6, "solver.atol": 1e-8})
        while s.time < stop - 1e-12:
            s.step(0.1)
        x = s.get("x", "th")
    finally:
        s.close()
    return sum("accepted step" in m for m in messages), x


def test_rosenbrock_takes_large_steps_on_a_stiff_model(tmp_path):
    fmu = export_fmu(stiff_system(), tmp_path / "stiff.fmu", fmi_version=2, kind="cs")
    n_dopri, x_dopri = count_steps(fmu, 2)
    n_ros, x_ros = count_steps(fmu, 3)
    assert n_ros * 10 < n_dopri, (n_ros, n_dopri)
    np.testing.assert_allclose(x_ros, x_dopri, atol=1e-4)


@pytest.mark.parametrize("projection", (True, False))
def test_projection_keeps_the_loop_closed(projection):
    eq = cached_equations(FOUR_BAR)
    nm = NumericModel(eq)
    r = fmu_simulation(
        cached_fmu(FOUR_BAR, 3, "cs"),
        2.0,
        0.05,
        start_values={"My2": 2.0, "solver.projection": projection, "solver.rtol": 1e-4, "solver.atol": 1e-6},
    )
    phi = max(np.abs(nm.Phi([r[c.name][i] for c in eq.coordinates])).max() for i in range(len(r["time"])))
    if projection:
        assert phi < 1e-10
    else:
        assert 1e-10 < phi < 1e-2  # Baumgarte alone: bounded drift


def test_assembly_holds_the_start_values_the_importer_sets():
    """four_bar fixes theta1 for assembly: a new start value and a new l1 give a closed loop at that theta1."""
    eq = cached_equations(FOUR_BAR)
    s = FmuSession(cached_fmu(FOUR_BAR, 2, "cs"))
    try:
        s.initialize(theta1=-1.2, l1=0.45)
        q = s.get(*[c.name for c in eq.coordinates])
        dq = s.get(*[c.dq.name for c in eq.coordinates])
    finally:
        s.close()
    assert q[0] == -1.2
    p = eq.p0.copy()
    p[[x.name for x in eq.parameters].index("l1")] = 0.45
    nm = NumericModel(eq, p)
    assert np.abs(nm.Phi(q)).max() < 1e-12
    assert np.abs(nm.D(q) @ dq).max() < 1e-12
    ref = assemble(eq, [-1.2, *eq.q0[1:]], use_initial=False, fixed=["theta1"], p=p)
    np.testing.assert_allclose(q, ref.q, atol=1e-9)


def test_baumgarte_damps_constraint_drift_in_model_exchange():
    eq = cached_equations(FOUR_BAR)
    nm = NumericModel(eq)

    def drift_after(alpha_beta: float) -> tuple[float, float]:
        s = FmuSession(cached_fmu(FOUR_BAR, 2, "me"), "ModelExchange")
        try:
            s.initialize(**{"baumgarte.alpha": alpha_beta, "baumgarte.beta": alpha_beta})
            x = s.states()
            x[1] += 1e-3  # off the manifold
            phi0 = np.abs(nm.Phi(x[:3])).max()
            h = 1e-3
            for _ in range(1500):  # RK4 on the FMU's derivatives, 1.5 s
                s.set_states(x)
                k1 = s.derivatives()
                s.set_states(x + h / 2 * k1)
                k2 = s.derivatives()
                s.set_states(x + h / 2 * k2)
                k3 = s.derivatives()
                s.set_states(x + h * k3)
                k4 = s.derivatives()
                x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            return phi0, np.abs(nm.Phi(x[:3])).max()
        finally:
            s.close()

    phi0, damped = drift_after(10.0)
    _, undamped = drift_after(0.0)
    assert damped < 1e-4 * phi0
    assert undamped > 0.1 * phi0


# ---------------------------------------------------------------------------
# logging and errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", (2, 3))
def test_errors_name_the_variable_and_keep_the_state(version):
    messages = []

    def logger(*args):
        messages.append((args[-3], args[-2], args[-1]))

    s = FmuSession(cached_fmu(PENDULUM, version, "cs"), logger=logger)
    try:
        s.initialize()
        s.step(0.1)
        before = s.get("theta", "dtheta")
        with pytest.raises(FMICallException, match="error"):
            s.set(theta=float("nan"))  # states cannot be set after initialization
        name = [v.name for v in s.md.modelVariables if v.causality == "input"][0]
        with pytest.raises(FMICallException, match="error"):
            s.set(**{name: float("inf")})
        with pytest.raises(FMICallException, match="error"):
            s.set(**{"solver.step": 0.0})
        assert np.array_equal(s.get("theta", "dtheta"), before)
        s.step(0.1)
    finally:
        s.close()
    text = " ".join(str(m[2]) for m in messages)
    assert "'theta'" in text and f"'{name}'" in text and "'solver.step'" in text
    assert {str(m[1]).strip("b'") for m in messages} <= {"logStatusError"}


def driven_pendulum() -> sb.System:
    """A pendulum on a cart whose motion is prescribed, x = A sin(w t): a rheonomic constraint."""
    s = sb.System("driven_pendulum")
    A, w = s.parameter("A", 0.1, unit="m"), s.parameter("w", 2.0, unit="1/s")
    x = s.coordinate("x", 0.0, unit="m")
    th = s.coordinate("th", 0.4, unit="rad")
    cart = s.point("C", s.origin, (x, 0, 0))
    s.particle("cart", cart, 2.0)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", cart, (0, -1, 0), base=B), 1.0)
    s.gravity((0, -9.81, 0))
    s.prescribe("drive", x, s.time_function("z", A * sb.sin(w * s.t)))
    s.output("F_drive", -s.multiplier("drive"), unit="N", description="force driving the cart")
    return s


@pytest.mark.parametrize("version", (2, 3))
def test_rheonomic_constraint_and_multiplier_output(version, tmp_path):
    """Time-dependent constraints (beta, gamma, Phi_t) and an output using the multiplier, every solver."""
    eq = driven_pendulum().derive()
    fmu = export_fmu(eq, tmp_path / "driven.fmu", fmi_version=version, kind="both")
    runs = [
        ("CoSimulation", {"solver.method": m, "solver.rtol": 1e-12, "solver.atol": 1e-12, "solver.step": 1e-3})
        for m in (1, 2, 3)
    ] + [("ModelExchange", {})]
    for fmi_type, sv in runs:
        rtol = 1e-11 if fmi_type == "ModelExchange" else None
        r = fmu_simulation(fmu, 2.0, 0.01, fmi_type=fmi_type, start_values=sv, relative_tolerance=rtol)
        assert r["dx"][0] == pytest.approx(0.2, abs=1e-14)  # assembled velocity: A w cos(0)
        ref = reference_simulation(eq, r["time"], [r["x"][0], r["th"][0]], [r["dx"][0], r["dth"][0]])
        for k in ref:
            assert max_relative_error(r[k], ref[k]) < 1e-6, (fmi_type, sv, k)
    s = FmuSession(fmu, "ModelExchange")
    try:
        s.initialize()
        x0 = s.states()
        d = s.directional(["F_drive", "ddth"], ["th"], [1.0])
        x = x0.copy()
        x[1] += 1e-6
        s.set_states(x)
        plus = s.get("F_drive", "ddth")
        x[1] -= 2e-6
        s.set_states(x)
        minus = s.get("F_drive", "ddth")
        np.testing.assert_allclose(d, (plus - minus) / 2e-6, rtol=1e-6)
    finally:
        s.close()


def cartesian_pendulum(redundant: bool = False, massless_aux: bool = False) -> sb.System:
    """A pendulum in Cartesian coordinates: optionally a duplicated (redundant) rod constraint, or a massless
    auxiliary coordinate tied to x (singular M, regular augmented matrix)."""
    s = sb.System("cartesian_pendulum")
    L, m, g = s.parameter("L", 1.0, unit="m"), s.parameter("m", 1.0, unit="kg"), s.parameter("g", 9.81, unit="m/s2")
    x, y = s.coordinate("x", 0.6, unit="m"), s.coordinate("y", -0.8, unit="m")
    s.particle("bob", s.point("P", s.origin, (x, y, 0)), m)
    s.gravity((0, -g, 0))
    s.constraint("rod", x**2 + y**2 - L**2)
    if redundant:
        s.constraint("rod_again", 2 * (x**2 + y**2 - L**2))
    if massless_aux:
        r = s.aux_coordinate("r", 0.6, unit="m")
        s.constraint("aux", r - x)
    s.fix_initial(x)
    return s


@pytest.mark.parametrize("variant", ("redundant", "massless_aux"))
def test_singular_cases_fall_back_to_the_rank_revealing_solver(variant, tmp_path):
    """Redundant constraints (D D^T singular) and massless coordinates (M singular) still simulate exactly."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the redundancy warning of derive()
        eq = cartesian_pendulum(**{variant: True}).derive()
    fmu = export_fmu(eq, tmp_path / "p.fmu", fmi_version=2, kind="both")
    for fmi_type in ("CoSimulation", "ModelExchange"):
        cs = fmi_type == "CoSimulation"
        r = fmu_simulation(
            fmu,
            2.0,
            0.01,
            fmi_type=fmi_type,
            start_values={"solver.rtol": 1e-11, "solver.atol": 1e-12} if cs else {},
            relative_tolerance=None if cs else 1e-11,
        )
        q0 = [r[c.name][0] for c in eq.coordinates]
        dq0 = [r[c.dq.name][0] for c in eq.coordinates]
        ref = reference_simulation(eq, r["time"], q0, dq0)
        for k in ref:
            assert max_relative_error(r[k], ref[k]) < 1e-6, (fmi_type, k)
