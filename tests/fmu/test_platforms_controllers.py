"""Controller FMUs on the other platforms: their win64 DLLs under wine and aarch64 libraries under qemu-user,
driven by tests/fmu/c/portable_host.c with the same input sequence as fmpy drives the Linux library, give the
same outputs (1e-9) -- every law: continuous and discrete linear, state feedback, PID, shaper."""

from __future__ import annotations

import zipfile
from pathlib import Path

import control
import fmpy
import numpy as np
import pytest

import symbody as sb
from symbody.fmu.platforms import PLATFORMS

from support.portable_hosts import (
    Case,
    assert_same,
    build_host,
    need,
    run_fmpy,
    run_host,
    windows_path,
    wine_env,
)

LAWS = {
    "lead": (control.tf([2.0, 3.0, 1.0], [1.0, 0.8, 4.0, 0.5]), ["e"], ["v"]),
    "lagd": (control.c2d(control.tf([1.0], [1.0, 0.5]), 0.03, "zoh"), ["e"], ["v"]),
    "sfb": (sb.StateFeedback([[2.0, 0.5], [0.3, 1.0]], x_ref=[0.1, 0.0]), ["x", "dx"], ["F", "G"]),
    "pid": (sb.PID(2.0, 1.5, 0.3, sample_time=0.02, tf=0.05, u_min=-1.0, u_max=1.0), ["y"], ["u"]),
    "zvd": (sb.InputShaper.zvd(4.0, 0.05), ["r"], ["r_shaped"]),
}


def _cases(tmp: Path, fmi: int, platforms: list[str]) -> list[Case]:
    cases = []
    for name, (law, ins, outs) in LAWS.items():
        fmu = sb.controller_fmu(law, tmp / f"{name}{fmi}.fmu", inputs=ins, outputs=outs, fmi=fmi,
                                platforms=platforms)
        folder = tmp / f"{name}{fmi}"
        with zipfile.ZipFile(fmu) as zf:
            zf.extractall(folder)
        md = fmpy.read_model_description(str(folder))
        by = {v.name: v for v in md.modelVariables}
        case = Case(f"{name}{fmi}", fmi, "cs", folder, md.guid, 0)
        case.inputs = [(by[n].valueReference, 0.1 * j, 1.0) for j, n in enumerate(ins)]
        case.outputs = [by[n].valueReference for n in outs]
        cases.append(case)
    return cases


def _check(cases: list[Case], results: list[np.ndarray], where: str) -> None:
    for case, got in zip(cases, results):
        ref = run_fmpy(case)
        assert np.ptp(ref[:, 1:], axis=0).max() > 0.1, case.model  # the outputs move
        assert_same(got, ref, f"{case.model} under {where}")


@pytest.mark.slow
def test_controller_dlls_under_wine_match_linux(tmp_path):
    need("x86_64-w64-mingw32-gcc", "wine")
    cases = _cases(tmp_path, 2, ["x86_64-linux", "x86_64-windows"]) + _cases(
        tmp_path, 3, ["x86_64-linux", "x86_64-windows"]
    )
    exe = build_host("x86_64-w64-mingw32-gcc", tmp_path / "portable_host")
    folder = {2: PLATFORMS["x86_64-windows"].folder(2), 3: "x86_64-windows"}
    lines = [c.line(windows_path(c.library(folder[c.fmi]))) for c in cases]
    prefix = tmp_path / "wineprefix"
    prefix.mkdir()
    _check(cases, run_host(["wine", str(exe)], lines, env=wine_env(prefix)), "wine")


@pytest.mark.slow
def test_controller_libraries_under_qemu_aarch64_match_linux(tmp_path):
    need("aarch64-linux-gnu-gcc", "qemu-aarch64")
    cases = _cases(tmp_path, 3, ["x86_64-linux", "aarch64-linux"])
    exe = build_host("aarch64-linux-gnu-gcc", tmp_path / "portable_host")
    lines = [c.line(str(c.library("aarch64-linux"))) for c in cases]
    _check(cases, run_host(["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", str(exe)], lines), "qemu-aarch64")
