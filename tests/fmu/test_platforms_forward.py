"""The tangent files of the ``forward`` Jacobian mode, compiled at their own level (``DERIVATIVE_LEVEL``) by every
cross compiler, give the Linux library's trajectories (fmpy) under wine and qemu-user to 1e-9, with the
implicit solver that evaluates the Jacobians from them (``solver.method`` 3, rosenbrock23) and in Model
Exchange."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from symbody.fmu import export_fmu

from support import example
from support.portable_hosts import (
    Case,
    assert_same,
    build_host,
    run_fmpy,
    run_host,
    tools_missing,
    windows_path,
    wine_env,
)


@pytest.fixture(scope="module")
def forward_crane(tmp_path_factory) -> Path:
    """The tower crane, FMI 3, CS and ME, forward-mode Jacobians, every installed platform, extracted."""
    tmp = tmp_path_factory.mktemp("forward")
    fmu = export_fmu(example("tower_crane").derive(), tmp / "tower_crane.fmu", fmi_version=3, jacobians="forward")
    with zipfile.ZipFile(fmu) as zf:
        assert any(n.startswith("sources/model_") for n in zf.namelist())  # the tangent files
        zf.extractall(tmp / "tower_crane")
    return tmp / "tower_crane"


def _cases(folder: Path) -> list[Case]:
    return [Case.of("tower_crane", 3, "cs", folder, method=3), Case.of("tower_crane", 3, "me", folder)]


def _compare(cases: list[Case], results: list[np.ndarray], where: str) -> None:
    for case, got in zip(cases, results):
        ref = run_fmpy(case)
        assert np.ptp(ref[:, 1:], axis=0).max() > 0.1, case  # the crane moves
        assert_same(got, ref, f"tower crane (forward Jacobians) {case.kind} method {case.method} {where}")


def _under_wine(cases: list[Case], tmp_path: Path) -> list[np.ndarray]:
    exe = build_host("x86_64-w64-mingw32-gcc", tmp_path / "portable_host")
    prefix = tmp_path / "wineprefix"
    prefix.mkdir()
    lines = [c.line(windows_path(c.library("x86_64-windows"))) for c in cases]
    return run_host(["wine", str(exe)], lines, env=wine_env(prefix))


def _under_qemu(cases: list[Case], tmp_path: Path) -> list[np.ndarray]:
    exe = build_host("aarch64-linux-gnu-gcc", tmp_path / "portable_host")
    lines = [c.line(str(c.library("aarch64-linux"))) for c in cases]
    return run_host(["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", str(exe)], lines)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("tools", "run", "where"),
    [
        (("x86_64-w64-mingw32-gcc", "wine"), _under_wine, "under wine"),
        (("aarch64-linux-gnu-gcc", "qemu-aarch64"), _under_qemu, "under qemu"),
    ],
    ids=["win64-wine", "aarch64-qemu"],
)
def test_forward_mode_cross_built_library_matches_linux(forward_crane, tmp_path, tools, run, where):
    missing = tools_missing(*tools)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (.ci/run installs them)")
    cases = _cases(forward_crane)
    _compare(cases, run(cases, tmp_path), where)
