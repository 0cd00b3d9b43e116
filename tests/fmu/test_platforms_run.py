"""Running the foreign binaries: the cranes' win64 DLLs under wine and aarch64 libraries under
qemu-user give the Linux library's outputs (fmpy) to 1e-9; libcosim (no Enumeration support) picks
rk4 through the Integer ``solver.method``; the importer's tolerance and ``solver.ignore_external_tolerance``."""

from __future__ import annotations

from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.fmi2 import FMU2Slave

from symbody.cli import main

from support import example
from support.portable_hosts import (
    Case,
    assert_same,
    build_host,
    extracted_fmus,
    run_fmpy,
    run_host,
    tools_missing,
    windows_path,
    wine_env,
)

CRANES = ("overhead_crane", "tower_crane")


def need(*tools: str) -> None:
    missing = tools_missing(*tools)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (.ci/run installs them)")


@pytest.fixture(scope="module")
def cranes(tmp_path_factory) -> dict[tuple[str, int], Path]:
    """Both cranes, FMI 2 and 3, CS and ME in one FMU, every installed platform, extracted."""
    return extracted_fmus({model: example(model).derive() for model in CRANES}, tmp_path_factory.mktemp("cranes"))


def _cases(cranes, fmis) -> list[Case]:
    """Both cranes, CS and ME, and the tower crane's CS with rk4 chosen (fmi2SetInteger / fmi3SetInt64)."""
    cases = [Case.of(m, fmi, kind, cranes[(m, fmi)]) for m in CRANES for fmi in fmis for kind in ("cs", "me")]
    return cases + [Case.of("tower_crane", fmi, "cs", cranes[("tower_crane", fmi)], method=1) for fmi in fmis]


def _check_moves(ref: np.ndarray, case: Case) -> None:
    """The input sequence really moves the crane (the comparison is not of two rest states)."""
    assert np.ptp(ref[:, 1:], axis=0).max() > 0.1, case


@pytest.mark.slow
def test_win64_dlls_under_wine_match_linux(cranes, tmp_path):
    need("x86_64-w64-mingw32-gcc", "wine")
    cases = _cases(cranes, (2, 3))
    exe = build_host("x86_64-w64-mingw32-gcc", tmp_path / "portable_host")
    platform = {2: "win64", 3: "x86_64-windows"}
    lines = [c.line(windows_path(c.library(platform[c.fmi]))) for c in cases]
    prefix = tmp_path / "wineprefix"
    prefix.mkdir()
    results = run_host(["wine", str(exe)], lines, env=wine_env(prefix))  # one wine start for all cases
    for case, got in zip(cases, results):
        ref = run_fmpy(case)
        _check_moves(ref, case)
        assert_same(got, ref, f"{case.model} FMI {case.fmi} {case.kind} method {case.method} under wine")


@pytest.mark.slow
def test_aarch64_libraries_under_qemu_match_linux(cranes, tmp_path):
    need("aarch64-linux-gnu-gcc", "qemu-aarch64")
    cases = _cases(cranes, (3,))  # FMI 2 defines no aarch64 folder
    exe = build_host("aarch64-linux-gnu-gcc", tmp_path / "portable_host")
    lines = [c.line(str(c.library("aarch64-linux"))) for c in cases]
    results = run_host(["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", str(exe)], lines)
    for case, got in zip(cases, results):
        ref = run_fmpy(case)
        _check_moves(ref, case)
        assert_same(got, ref, f"{case.model} FMI 3 {case.kind} method {case.method} under qemu-aarch64")


def test_native_host_matches_fmpy(cranes, tmp_path):
    """The C host itself drives the FMU exactly as the fmpy driver does (same library, same numbers)."""
    cases = [Case.of("overhead_crane", 2, k, cranes[("overhead_crane", 2)]) for k in ("cs", "me")]
    exe = build_host("gcc", tmp_path / "portable_host")
    results = run_host([str(exe)], [c.line(str(c.library("linux64"))) for c in cases])
    for case, got in zip(cases, results):
        assert_same(got, run_fmpy(case), f"native host {case.kind}", tol=0.0)


# ----------------------------------------------------------------------------------- solver.method


def _libcosim_run(fmu: Path, method: int, **reals: float) -> list[float]:
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave

    log_output_level(CosimLogLevel.ERROR)
    vr = {v.name: v.valueReference for v in fmpy.read_model_description(str(fmu)).modelVariables}
    ex = CosimExecution.from_step_size(step_size=int(0.1e9))  # 0.1 s communication step (ns)
    i = ex.add_local_slave(CosimLocalSlave(fmu_path=str(fmu), instance_name="crane"))
    obs = CosimObserver.create_last_value()
    ex.add_observer(obs)
    assert ex.integer_initial_value(i, vr["solver.method"], method)
    for name, value in {"F_trolley": 3000.0, **reals}.items():
        assert ex.real_initial_value(i, vr[name], value)
    assert ex.simulate_until(target_time=int(3e9))
    assert obs.last_integer_values(i, [vr["solver.method"]]) == [method]
    return obs.last_real_values(i, [vr["x"], vr["theta"], vr["x_payload"], vr["dtheta"]])


def test_libcosim_chooses_rk4_through_the_integer_variable(cranes):
    pytest.importorskip("libcosimpy")
    fmu = next(cranes[("overhead_crane", 2)].parent.glob("overhead_crane2.fmu"))
    dopri5 = np.array(_libcosim_run(fmu, 2, **{"solver.rtol": 1e-11, "solver.atol": 1e-13}))
    rk4_coarse = np.array(_libcosim_run(fmu, 1, **{"solver.step": 0.05}))
    rk4_fine = np.array(_libcosim_run(fmu, 1, **{"solver.step": 0.025}))
    e_coarse, e_fine = np.abs(rk4_coarse - dopri5).max(), np.abs(rk4_fine - dopri5).max()
    # rk4 differs from the accurate dopri5 by its truncation error, of order 4: halving the step divides it by 16
    assert 1e-9 < e_coarse < 1e-4, e_coarse
    assert 8.0 < e_coarse / e_fine < 32.0, (e_coarse, e_fine)
    # and libcosim ran exactly the rk4 that fmpy runs with solver.method = 1
    res = fmpy.simulate_fmu(
        str(fmu),
        stop_time=3.0,
        output_interval=0.1,
        start_values={"solver.method": 1, "solver.step": 0.05, "F_trolley": 3000.0},
    )
    fm = np.array([res[n][-1] for n in ("x", "theta", "x_payload", "dtheta")])
    assert np.allclose(fm, rk4_coarse, rtol=1e-12, atol=1e-12), (fm, rk4_coarse)


@pytest.mark.parametrize("fmi", [2, 3])
def test_solver_method_is_an_integer_with_its_codes_described(cranes, fmi):
    md = fmpy.read_model_description(str(cranes[("overhead_crane", fmi)]))
    v = next(v for v in md.modelVariables if v.name == "solver.method")
    assert v.type == ("Integer" if fmi == 2 else "Int64") and v.declaredType is None
    assert (int(v.min), int(v.max), int(v.start)) == (1, 3, 2)
    for text in ("1 = rk4", "2 = dopri5", "3 = rosenbrock23"):
        assert text in v.description


def test_cli_sets_solver_method_by_name(cranes, tmp_path):
    fmu = cranes[("overhead_crane", 2)].parent / "overhead_crane2.fmu"
    out = {}
    for value in ("rk4", "1", "dopri5"):
        csv = tmp_path / f"{value}.csv"
        args = ["simulate", str(fmu), "--stop-time", "2", "--interval", "0.1", "--no-plot", "-o", str(csv)]
        assert (
            main([*args, "--set", f"solver.method={value}", "--set", "solver.step=0.05", "--set", "F_trolley=3000"])
            == 0
        )
        out[value] = np.genfromtxt(csv, delimiter=",", names=True)["x_payload"]
    assert np.array_equal(out["rk4"], out["1"])
    assert np.abs(out["rk4"] - out["dopri5"]).max() > 1e-9
    assert main(["simulate", str(fmu), "--no-plot", "-o", str(tmp_path / "x.csv"), "--set", "solver.method=rk5"]) == 1


# ------------------------------------------------------------------------------- tolerance


def _fmi2_cs_run(folder: Path, tolerance: float | None, ignore: bool | None, ignore_first: bool = False) -> float:
    """x_payload at 2 s of the FMI 2 overhead crane, with fmi2SetupExperiment's tolerance and
    solver.ignore_external_tolerance set before (``ignore_first``) or after it."""
    md = fmpy.read_model_description(str(folder))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    s = FMU2Slave(guid=md.guid, unzipDirectory=str(folder), modelIdentifier="overhead_crane", instanceName="t")
    s.instantiate()
    if ignore is not None and ignore_first:
        s.setBoolean([vr["solver.ignore_external_tolerance"]], [ignore])
    s.setupExperiment(tolerance=tolerance, startTime=0.0)
    if ignore is not None and not ignore_first:
        s.setBoolean([vr["solver.ignore_external_tolerance"]], [ignore])
    s.setReal([vr["F_trolley"]], [3000.0])
    s.enterInitializationMode()
    s.exitInitializationMode()
    s.doStep(0.0, 2.0)  # one communication step: the solver's own step control decides the accuracy
    (x,) = s.getReal([vr["x_payload"]])
    s.terminate()
    s.freeInstance()
    return x


def test_importer_tolerance_replaces_rtol_unless_pinned(cranes):
    folder = cranes[("overhead_crane", 2)]
    own = _fmi2_cs_run(folder, None, None)  # solver.rtol = 1e-6
    loose = _fmi2_cs_run(folder, 1e-2, None)  # the importer's 1e-2 replaces it
    assert abs(loose - own) > 1e-5, (loose, own)
    for ignore_first in (True, False):  # fmpy sets parameters after fmi2SetupExperiment, others before
        assert _fmi2_cs_run(folder, 1e-2, True, ignore_first) == own
        assert _fmi2_cs_run(folder, 1e-2, False, ignore_first) == loose


def test_ignore_external_tolerance_in_fmi3(cranes):
    folder = cranes[("overhead_crane", 3)]
    common = {"stop_time": 2.0, "output_interval": 2.0, "fmi_type": "CoSimulation"}  # one 2 s step
    sv = {"F_trolley": 3000.0}
    own = fmpy.simulate_fmu(str(folder), start_values=sv, **common)["x_payload"]
    loose = fmpy.simulate_fmu(str(folder), start_values=sv, relative_tolerance=1e-2, **common)["x_payload"]
    pinned = fmpy.simulate_fmu(
        str(folder),
        start_values={**sv, "solver.ignore_external_tolerance": True},
        relative_tolerance=1e-2,
        **common,
    )["x_payload"]
    assert np.abs(loose - own).max() > 1e-5
    assert np.array_equal(pinned, own)
