"""Large generated functions are split into parts and files (issue 13: compile time near-linear in code size).

Truth: the same model exported without splitting.  The split FMU simulates
identically (the statements and their order are the same), every file it
lists in its sources compiles warning-free, and importers that rebuild from
``sources/`` (``fmpy compile``, which reads the file lists of the model
description / buildDescription.xml) get the same FMU.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest

from symbody.codegen import c_split
from symbody.fmu import export_fmu, sources

from support import example


def _export(tmp: Path, version: int, mode: str, tag: str) -> Path:
    return export_fmu(
        example("four_bar"), tmp / f"four_bar_{tag}.fmu", fmi_version=version, jacobians=mode, platforms=["linux64"]
    )


def _simulate(fmu: Path) -> np.ndarray:
    res = fmpy.simulate_fmu(
        str(fmu), stop_time=0.5, output_interval=0.05, start_values={"solver.method": 3}, output=["theta1", "C_x"]
    )
    return np.array([list(r) for r in res])


def _without_binaries(fmu: Path) -> Path:
    out = fmu.with_name(fmu.stem + "_sources.fmu")
    with zipfile.ZipFile(fmu) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            if not item.filename.startswith("binaries/"):
                dst.writestr(item, src.read(item))
    return out


@pytest.mark.parametrize(
    ("version", "mode", "stack"),
    [
        (2, "forward", 4096),
        pytest.param(3, "exact", 0, marks=pytest.mark.slow),  # with --slow: the default run keeps one case
        pytest.param(3, "none", 4096, marks=pytest.mark.slow),
    ],
)
def test_split_fmu_simulates_like_the_unsplit_one_and_rebuilds_from_its_sources(
    tmp_path, monkeypatch, version, mode, stack
):
    whole = _export(tmp_path, version, mode, "whole")
    monkeypatch.setattr(c_split, "PART_SIZE", 7)
    monkeypatch.setattr(c_split, "STACK_DOUBLES", stack)  # 0: the work array is allocated
    monkeypatch.setattr(sources, "SEPARATE_FILE_CHARS", 1500)
    split = _export(tmp_path, version, mode, "split")
    with zipfile.ZipFile(split) as zf:
        names = zf.namelist()
        zf.extractall(tmp_path / "split")
    src = tmp_path / "split" / "sources"
    parts = sorted(p.name for p in src.glob("model_*.c"))
    assert parts and "model.c" in [Path(n).name for n in names]
    text = "".join((src / p).read_text() for p in ["model.c", *parts])
    assert "part2_sb_" in text and ("malloc(" in text) == (stack == 0)
    listed = (src / "buildDescription.xml").read_text() if version == 3 else ""
    md = fmpy.read_model_description(str(split))
    files = (
        md.buildConfigurations[0].sourceFileSets[0].sourceFiles
        if version == 2
        else fmpy.model_description.read_build_description(str(split))[0].sourceFileSets[0].sourceFiles
    )
    assert set(parts) <= set(files) and (version == 2 or all(p in listed for p in parts))
    for c in ["model.c", *parts]:
        cmd = ["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c", str(src / c), f"-I{src}"]
        proc = subprocess.run([*cmd, "-o", str(tmp_path / "x.o")], capture_output=True, text=True)
        assert proc.returncode == 0, f"{c}:\n{proc.stderr[-3000:]}"
    expected = _simulate(whole)
    assert np.ptp(expected[:, 1]) > 0.1
    np.testing.assert_allclose(_simulate(split), expected, rtol=1e-12, atol=1e-12)
    if shutil.which("cmake"):
        source_only = _without_binaries(split)
        cmd = [sys.executable, "-m", "fmpy", "compile", "--all-warnings", "--warning-as-error", str(source_only)]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        np.testing.assert_allclose(_simulate(source_only), expected, rtol=1e-12, atol=1e-12)
