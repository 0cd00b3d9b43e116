"""Drivers shared by tests/fmu/test_platforms*.py: the cranes' FMUs run by fmpy (Linux library) and by
``tests/fmu/c/portable_host.c`` cross-compiled for Windows (under wine) and aarch64 (under qemu-user),
with the same fixed input sequence, so their outputs can be compared number by number.  In Model Exchange
both drivers see events only at the ends of their rk4 steps (a hostile master: events found late)."""

from __future__ import annotations

import ctypes
import math
import os
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import fmpy
import numpy as np
from fmpy.fmi2 import FMU2Model, FMU2Slave
from fmpy.fmi3 import FMU3Model, FMU3Slave

from symbody.fmu import export_fmu
from symbody.fmu.build import fmi_headers_dir

HOST_SOURCE = Path(__file__).resolve().parents[1] / "fmu" / "c" / "portable_host.c"
H, NSTEPS = 0.01, 150  # 1.5 s of crane motion, 150 communication points

#: Input amplitudes (offset: the input's start value) of the fixed input sequence of each model.
AMPLITUDES = {
    "overhead_crane": {"F_trolley": 3000.0, "F_hoist": 2000.0},
    "tower_crane": {"tau_slew": 2.0e5, "F_trolley": 2000.0},
}
#: (offset, amplitude) of each input, by name: replaces a model's AMPLITUDES for one case
Inputs = dict[str, tuple[float, float]]


@dataclass
class Case:
    """One run: a model's FMU (extracted in ``folder``), FMI version, interface, solver.method."""

    model: str
    fmi: int
    kind: str  # "cs" or "me"
    folder: Path
    token: str = ""
    nx: int = 0
    nz: int = 0
    h: float = H
    nsteps: int = NSTEPS
    inputs: list[tuple[int, float, float]] = field(default_factory=list)  # (vr, offset, amplitude)
    outputs: list[int] = field(default_factory=list)
    method_vr: int = -1
    method: int = 0

    @classmethod
    def of(
        cls,
        model: str,
        fmi: int,
        kind: str,
        folder: Path,
        method: int = 0,
        inputs: Inputs | None = None,
        h: float = H,
        nsteps: int = NSTEPS,
    ) -> Case:
        md = fmpy.read_model_description(str(folder))
        c = cls(model, fmi, kind, folder, md.guid, len(md.derivatives), md.numberOfEventIndicators, h, nsteps)
        by_name = {v.name: v for v in md.modelVariables}
        if inputs is None:
            inputs = {name: (float(by_name[name].start), amp) for name, amp in AMPLITUDES[model].items()}
        for name, (offset, amp) in inputs.items():
            c.inputs.append((by_name[name].valueReference, offset, amp))
        c.outputs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
        if method:
            c.method_vr, c.method = by_name["solver.method"].valueReference, method
        return c

    def library(self, platform: str) -> Path:
        suffix = ".dll" if "win" in platform else ".so"
        return self.folder / "binaries" / platform / f"{self.model}{suffix}"

    def line(self, library: str) -> str:
        """This case as a line of the host's cases file."""
        ins = " ".join(f"{vr} {off!r} {amp!r}" for vr, off, amp in self.inputs)
        outs = " ".join(str(vr) for vr in self.outputs)
        return (
            f"{self.fmi} {self.kind} {library} {self.token} {self.h!r} {self.nsteps} {self.nx} {self.nz} "
            f"{self.method_vr} {self.method} "
            f"{len(self.inputs)} {ins} {len(self.outputs)} {outs}"
        )

    def input_values(self, t: float) -> list[float]:
        return [off + amp * math.sin(1.3 * t + j) for j, (_, off, amp) in enumerate(self.inputs)]


# ---------------------------------------------------------------------------------------------- fmpy


def _fmpy_instance(case: Case):
    cls = {(2, "cs"): FMU2Slave, (2, "me"): FMU2Model, (3, "cs"): FMU3Slave, (3, "me"): FMU3Model}
    inst = cls[(case.fmi, case.kind)](
        guid=case.token, unzipDirectory=str(case.folder), modelIdentifier=case.model, instanceName="fmpy"
    )
    inst.instantiate()
    return inst


def run_fmpy(case: Case) -> np.ndarray:
    """The case run with fmpy on the host's (Linux) library: rows ``t, y_1, ..., y_n``."""
    inst = _fmpy_instance(case)
    uvr = [vr for vr, _, _ in case.inputs]
    if case.fmi == 2:
        set_u, get_y = inst.setReal, inst.getReal
        inst.setupExperiment(startTime=0.0)
        if case.method_vr >= 0:
            inst.setInteger([case.method_vr], [case.method])
    else:
        set_u, get_y = inst.setFloat64, inst.getFloat64
        if case.method_vr >= 0:
            inst.setInt64([case.method_vr], [case.method])
    set_u(uvr, case.input_values(0.0))
    inst.enterInitializationMode() if case.fmi == 2 else inst.enterInitializationMode(startTime=0.0)
    inst.exitInitializationMode()
    n = case.nx
    x, dx, z = np.zeros(n), np.zeros(n), np.zeros(case.nz)
    px = x.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    pdx = dx.ctypes.data_as(ctypes.POINTER(ctypes.c_double))

    def indicators() -> np.ndarray:
        if case.nz:
            inst.getEventIndicators(z.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), case.nz)
        return z.copy()

    def event_iteration() -> None:
        while True:
            needed, terminate, *_ = inst.newDiscreteStates() if case.fmi == 2 else inst.updateDiscreteStates()
            assert not terminate, f"{case}: the FMU asked to terminate"
            if not needed:
                break
        inst.enterContinuousTimeMode()

    if case.kind == "me":
        event_iteration()
        z_old = indicators()

    def f(t: float, state: np.ndarray) -> np.ndarray:
        inst.setTime(t)
        x[:] = state
        inst.setContinuousStates(px, n)
        (inst.getDerivatives if case.fmi == 2 else inst.getContinuousStateDerivatives)(pdx, n)
        return dx.copy()

    rows = [[0.0, *get_y(case.outputs)]]
    for k in range(case.nsteps):
        t, h = k * case.h, case.h
        set_u(uvr, case.input_values(t))
        if case.kind == "cs":
            inst.doStep(t, h)
        else:
            inst.getContinuousStates(px, n)
            x0 = x.copy()
            k1 = f(t, x0)
            k2 = f(t + 0.5 * h, x0 + 0.5 * h * k1)
            k3 = f(t + 0.5 * h, x0 + 0.5 * h * k2)
            k4 = f(t + h, x0 + h * k3)
            inst.setTime(t + h)
            x[:] = x0 + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
            inst.setContinuousStates(px, n)
            enter, terminate = inst.completedIntegratorStep()[:2]
            assert not terminate, f"{case}: the FMU asked to terminate"
            z_new = indicators()
            if enter or np.any((z_old > 0.0) != (z_new > 0.0)):  # events seen at the step's end only
                inst.enterEventMode()
                event_iteration()
                z_new = indicators()
            z_old = z_new
        rows.append([(k + 1) * case.h, *get_y(case.outputs)])
    inst.terminate()
    inst.freeInstance()
    return np.array(rows)


# ---------------------------------------------------------------------------------------- C hosts


def build_host(compiler: str, out: Path) -> Path:
    """``portable_host`` compiled with ``compiler`` (statically linked for Windows)."""
    windows = "mingw" in compiler
    exe = out.with_suffix(".exe") if windows else out
    cmd = [compiler, "-std=c99", "-O1", "-Wall", "-Wextra", f"-I{fmi_headers_dir()}", str(HOST_SOURCE), "-o", str(exe)]
    cmd += ["-static"] if windows else ["-ldl", "-lm"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return exe


def parse_host_output(text: str, ncases: int) -> list[np.ndarray]:
    """The tables printed by ``portable_host``, one per case."""
    tables: list[list[list[float]]] = []
    for line in text.splitlines():
        if line.startswith("case "):
            tables.append([])
        elif line.startswith(("error:", "log:")):
            raise AssertionError(f"portable_host: {line}")
        elif line.strip():
            tables[-1].append([float(s) for s in line.split()])
    assert len(tables) == ncases, f"{len(tables)} of {ncases} cases ran:\n{text[-2000:]}"
    return [np.array(t) for t in tables]


def run_host(command: list[str], lines: list[str], env: dict[str, str] | None = None) -> list[np.ndarray]:
    """Run a host executable once on all cases (one process: wine starts once)."""
    with tempfile.TemporaryDirectory(prefix="sb_host_") as tmp:
        cases = Path(tmp) / "cases.txt"
        cases.write_text("\n".join(lines) + "\n")
        arg = windows_path(cases) if command[0] == "wine" else str(cases)
        proc = subprocess.run([*command, arg], capture_output=True, text=True, env=env, timeout=900, check=False)
    assert proc.returncode == 0, f"{command} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return parse_host_output(proc.stdout, len(lines))


def windows_path(path: Path) -> str:
    """The wine path of a Unix path (drive Z: is the Unix root)."""
    return "Z:" + str(Path(path).resolve()).replace("/", "\\")


def wine_env(prefix: Path) -> dict[str, str]:
    """Environment of a quiet wine in a temporary prefix."""
    env = dict(os.environ)
    env.update(WINEDEBUG="-all", WINEPREFIX=str(prefix), WINEDLLOVERRIDES="mscoree,mshtml=", DISPLAY="")
    return env


def tools_missing(*tools: str) -> list[str]:
    return [t for t in tools if shutil.which(t) is None]


def need(*tools: str) -> None:
    """Skip the calling test when a tool is not installed."""
    import pytest

    missing = tools_missing(*tools)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (.ci/run installs them)")


def assert_same(got: np.ndarray, want: np.ndarray, what: str, tol: float = 1e-9) -> None:
    """Equal tables to ``tol`` relative to each column's magnitude (at least 1)."""
    assert got.shape == want.shape, (what, got.shape, want.shape)
    scale = np.maximum(1.0, np.abs(want).max(axis=0))
    err = (np.abs(got - want) / scale).max()
    assert err <= tol, f"{what}: largest scaled difference {err:.3g} > {tol}"


def extracted_fmus(models: dict, folder: Path) -> dict[tuple[str, int], Path]:
    """Each model (a System or its Equations) exported for FMI 2 and 3 (CS and ME in one FMU, every installed
    platform) and extracted into ``folder``: ``{(name, fmi): extracted folder}``."""
    out = {}
    for name, model in models.items():
        for fmi in (2, 3):
            fmu = export_fmu(model, folder / f"{name}{fmi}.fmu", fmi_version=fmi)
            with zipfile.ZipFile(fmu) as zf:
                zf.extractall(folder / f"{name}{fmi}")
            out[(name, fmi)] = folder / f"{name}{fmi}"
    return out
