"""Scaling on the 3-D chain: symbody's generated C vs Pinocchio's ABA, derivation vs SymPy's KanesMethod.

The model is the chain of ``bench_recursive.py``: ``n`` rigid bodies on
spherical joints parametrized by intrinsic Z-Y-X Euler angles (3 DOF each),
centre of mass off every axis, full inertia tensor, gravity.  For each ``n``
(1, 2, 4, 8 and, in the full run, 16) the script measures

- **accelerations**: symbody's ``model.c`` (generated as for the FMU) linked
  with the FMU runtime, one ``sb_accelerations()`` per evaluation
  (``harness/chain3d_symbody.c``, ``gcc -O2`` as the FMU, with its AVX2 clone of the hot function
  where the processor has AVX2: ``symbody.codegen.c_isa``), against
  ``pinocchio::aba`` on the same chain built with ``JointModelSphericalZYX``
  joints, the same inertias, centres of mass and lengths
  (``harness/chain3d_pinocchio.cpp``, ``-O3 -DNDEBUG``, compiled once and
  cached like the harness of ``bench_eval_speed.py``).  symbody's derivation
  chooses its formulation by the code it produces: from n = 4 the accelerations
  come straight from ``model.c`` by the articulated-body algorithm
  (``sb_accelerations_direct``, no mass matrix factored); below, ``[M | delta]``
  and the runtime's factorization and solve.  Both use the Euler
  angles and their rates as coordinates; before any timing their
  accelerations must agree to 1e-9 at random states with random parameters.
  Without the compiled C++ harness (smoke and quick runs without the cache)
  the check uses ``pinocchio.aba`` from Python and no Pinocchio time is given.
  The harnesses' ``model.c`` leaves the Jacobian functions empty (never called
  by ``sb_accelerations``), as ``bench_ltdl.py`` does.
- **derivation**: ``chain_3d(n).derive()`` against SymPy's ``KanesMethod`` on
  the same chain (``sympy.physics.mechanics``, body-fixed ZYX orientation,
  speeds = angle rates), the latter up to the ``n`` it finishes within a time
  budget; at the smallest ``n`` the accelerations of KanesMethod's equations
  are also compared with symbody's (an independent derivation).
- **operations** of ``[M | delta]``, ``M`` and ``delta``, and of the accelerations
  of the articulated-body algorithm where the formulation has them
  (``symbody.codegen.counts.op_count``).
- **export**: ``export_fmu`` of the derived equations (generate C, compile,
  package, this machine's platform only; up to n = 4 in quick runs: from n = 8
  the FMU's exact residual Jacobians make ``model.c`` megabytes long and its
  compilation takes minutes); the largest exported chain's FMU is then run
  for a few co-simulation steps with fmpy.

The exponents ``p`` of ``y ~ n^p`` are fitted by least squares on the log-log
points with n >= 2; the full and quick runs draw them in ``chain3d_scaling.png``
next to ``RESULTS.md``.

At n = 8 the accelerations are also timed through the FMI 2 Model Exchange interface
(``harness/chain3d_fmi2.c``: ``fmi2SetContinuousStates`` and ``fmi2GetDerivatives`` per evaluation,
the wrapper linked in), in the same interleaved rounds.

Targets (issues 13 and 27): at n = 8 (24 DOF) the accelerations through ``sb_accelerations`` at least
twice as fast as Pinocchio's ABA; n = 16 (48 DOF) exports and runs; ``[M | delta]`` operations
no faster than n^2, the bias forces (``delta``) about n (and the articulated-body
accelerations, which include ``delta``, about n).

Run: ``python benchmarks/bench_chain3d.py [--quick|--smoke]``.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from symbody.codegen.counts import op_count

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_eval_speed import (  # noqa: E402
    EFFORT,
    best_interleaved,
    fmt_eval,
    pinocchio_harness,
)
from bench_ltdl import UnusedJacobians  # noqa: E402
from bench_recursive import chain_3d, exponent  # noqa: E402
from chain3d_kane import kane_accelerations, kane_chain_3d  # noqa: E402
from common import Row, fmt_time  # noqa: E402

HERE = Path(__file__).resolve().parent
HARNESS = HERE / "harness"
PLOT = HERE / "chain3d_scaling.png"
N_STATES = 16
#: relative agreement required between symbody's and Pinocchio's accelerations
TOLERANCE = 1e-9
#: the size of the targets (issues 13 and 27): n = 8, 24 DOF
TARGET_N = 8
#: entries per body in the parameter layout of harness/chain3d_loop.h
BODY_FIELDS = ("m", "c_x", "c_y", "c_z", "I_xx", "I_yy", "I_zz", "I_xy", "I_yz", "I_xz", "l")


# ---------------------------------------------------------------------------- parameters and states
def random_parameters(n: int, rng: np.random.Generator) -> np.ndarray:
    """``[g, (m, c, I, l) per body]`` (harness/chain3d_loop.h); inertias of random point clouds (physical)."""
    p = [9.81]
    for _ in range(n):
        m = rng.uniform(0.5, 2.0)
        com = rng.uniform(-0.3, 0.3, 3)
        points, weights = rng.uniform(-0.4, 0.4, (4, 3)), rng.uniform(0.1, 0.5, 4) * m
        inertia = sum(w * (r @ r * np.eye(3) - np.outer(r, r)) for w, r in zip(weights, points))
        I = np.asarray(inertia)
        p += [m, *com, I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[1, 2], I[0, 2], rng.uniform(0.5, 1.5)]
    return np.array(p)


def random_states(n: int, rng: np.random.Generator) -> np.ndarray:
    """N_STATES states ``[q; dq]``, pitch angles away from the Z-Y-X singularity at +-pi/2."""
    q = rng.uniform(-1.0, 1.0, (N_STATES, 3 * n))
    dq = rng.uniform(-2.0, 2.0, (N_STATES, 3 * n))
    return np.ascontiguousarray(np.hstack([q, dq]))


def layout_index(name: str) -> int:
    """Position of symbody's parameter ``name`` (``chain_3d``'s names) in the harness layout."""
    if name == "g":
        return 0
    if name[0] == "l":  # l{k}: length of body k to the next joint
        return 1 + 11 * int(name[1:]) + 10
    if name[0] == "m":
        return 1 + 11 * int(name[1:])
    k, axis = name[1:].split("_")
    if name[0] == "c":
        return 1 + 11 * int(k) + 1 + "xyz".index(axis)
    return 1 + 11 * int(k) + 4 + ("xx", "yy", "zz", "xy", "yz", "xz").index(axis)


# ---------------------------------------------------------------------------- compiled harnesses
class ChainLibrary:
    """A compiled harness of ``harness/chain3d_loop.h`` loaded with ctypes."""

    def __init__(self, path: Path, label: str):
        self.label = label
        self.lib = ctypes.CDLL(str(path))
        ptr, i, d = ctypes.c_void_p, ctypes.c_int, ctypes.c_double
        self.lib.chain_init.argtypes = [i, ptr]
        self.lib.chain_init.restype = i
        self.lib.chain_ddq.argtypes = [ptr, ptr]
        self.lib.chain_ddq.restype = i
        self.lib.chain_loop.argtypes = [i, ptr, ctypes.c_long, ctypes.POINTER(d)]
        self.lib.chain_loop.restype = d
        self.n = 0
        self.constants = 0  # entries of the constants block of symbody's model.c

    def init(self, n: int, p: np.ndarray) -> None:
        p = np.ascontiguousarray(p, float)
        if self.lib.chain_init(n, p.ctypes.data) != 0:
            raise RuntimeError(f"{self.label}: chain_init failed for n = {n}")
        self.n = n

    def ddq(self, x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, float)
        out = np.zeros(3 * self.n)
        if self.lib.chain_ddq(x.ctypes.data, out.ctypes.data) != 0:
            raise RuntimeError(f"{self.label}: evaluation failed at x = {x}")
        return out

    def loop(self, X: np.ndarray, iterations: int) -> float:
        """Seconds per evaluation over ``iterations`` evaluations cycling through the rows of ``X``."""
        X = np.ascontiguousarray(X, float)
        checksum = ctypes.c_double()
        t = self.lib.chain_loop(X.shape[0], X.ctypes.data, iterations, ctypes.byref(checksum))
        if not t > 0 or not np.isfinite(checksum.value):
            raise RuntimeError(f"{self.label}: timed loop failed")
        return t


def compile_or_raise(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"compiling {what} failed:\n{(proc.stderr or proc.stdout).strip()[:3000]}")


def runtime_objects(workdir: Path) -> list[Path]:
    """The FMU runtime of ``fmu_templates/`` compiled once per run (FMU flags) into ``workdir/runtime``."""
    from symbody.codegen.c_eval import c_compiler
    from symbody.fmu.build import CFLAGS, template_dir
    from symbody.fmu.spec import GENERIC_SOURCES

    folder = workdir / "runtime"
    objects = [folder / (Path(s).stem + ".o") for s in GENERIC_SOURCES]
    if not folder.is_dir():
        folder.mkdir()
        tdir = template_dir()
        for source, obj in zip(GENERIC_SOURCES, objects):
            cmd = [c_compiler(), *CFLAGS, "-c", f"-I{tdir}", str(tdir / source), "-o", str(obj)]
            compile_or_raise(cmd, f"the runtime file {source}")
    return objects


def symbody_library(eq, workdir: Path, fmi: bool = False) -> ChainLibrary:
    """symbody's ``model.c`` (as in the FMU) + FMU runtime + ``harness/chain3d_symbody.c`` (``sb_accelerations``),
    FMU flags; ``fmi``: + the FMI 2 wrapper and ``harness/chain3d_fmi2.c`` (``fmi2SetContinuousStates`` and
    ``fmi2GetDerivatives``)."""
    from symbody.codegen.c_eval import c_compiler
    from symbody.fmu.build import CFLAGS, fmi_headers_dir, template_dir
    from symbody.fmu.sources import ModelSource

    folder = workdir / (eq.name + ("_fmi2" if fmi else ""))
    folder.mkdir()
    # the Jacobian functions, never called by sb_accelerations, left empty: exact ones take minutes to compile
    model = ModelSource(eq, "me", jacobians=UnusedJacobians(eq))
    for name, text in model.files.items():  # model.c and, for large models, model_<k>.c
        (folder / name).write_text(text)
    order = ",".join(str(layout_index(s.name)) for s in eq.p_symbols)
    harness = [HARNESS / "chain3d_symbody.c"]
    if fmi:
        harness = [HARNESS / "chain3d_fmi2.c", template_dir() / "fmi2Functions.c"]
    sources = [*(folder / name for name in model.files), *harness, *runtime_objects(workdir)]
    lib = folder / "chain3d_symbody.so"
    cmd = [c_compiler(), *CFLAGS, "-shared", f"-DCHAIN3D_ORDER={order}", f"-I{template_dir()}", f"-I{HARNESS}"]
    cmd.append(f"-I{fmi_headers_dir()}")
    compile_or_raise([*cmd, *map(str, sources), "-o", str(lib), "-lm"], f"the symbody harness of {eq.name}")
    out = ChainLibrary(lib, "symbody through FMI 2" if fmi else "symbody")
    out.constants = len(model.constants)
    return out


def pinocchio_library(compile_if_missing: bool) -> tuple[ChainLibrary | None, str]:
    """The compiled C++ ABA harness of the chain (cached in the ``bench`` folder of
    :mod:`symbody.codegen.build_cache`), or None and the reason."""
    lib, why = pinocchio_harness("chain3d_pinocchio.cpp", "chain3d_loop.h", compile_if_missing)
    return (ChainLibrary(lib, "Pinocchio C++"), "") if lib else (None, why)


def pinocchio_python_ddq(n: int, p: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``ddq(x)`` of the chain of ``harness/chain3d_pinocchio.cpp`` built with Pinocchio's Python API."""
    import pinocchio as pin

    model = pin.Model()
    model.gravity.linear = np.array([0.0, 0.0, -p[0]])
    parent = 0
    for k in range(n):
        b = p[1 + 11 * k : 12 + 11 * k]
        placement = pin.SE3.Identity()
        if k > 0:
            placement.translation = np.array([p[11 * k], 0.0, 0.0])
        parent = model.addJoint(parent, pin.JointModelSphericalZYX(), placement, f"joint{k}")
        I = np.array([[b[4], b[7], b[9]], [b[7], b[5], b[8]], [b[9], b[8], b[6]]])
        model.appendBodyToJoint(parent, pin.Inertia(b[0], np.array(b[1:4]), I), pin.SE3.Identity())
    data, tau = model.createData(), np.zeros(3 * n)
    return lambda x: np.array(pin.aba(model, data, x[: 3 * n].copy(), x[3 * n :].copy(), tau))


def relative_difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / (1.0 + np.max(np.abs(b))))


# ---------------------------------------------------------------------------- one size
@dataclass
class Measured:
    """Everything measured at one n (times in seconds; None: not measured)."""

    n: int
    derive: float
    export: float | None
    ops: dict[str, int]
    symbody_c: float
    pin_cpp: float | None
    agreement: float
    checked: str
    library: ChainLibrary | None = None  # symbody's harness, initialized with p
    p: np.ndarray = field(default_factory=lambda: np.zeros(0))
    X: np.ndarray = field(default_factory=lambda: np.zeros(0))
    kane: float | None = None
    kane_agreement: float | None = None
    symbody_fmi: float | None = None  # through fmi2SetContinuousStates and fmi2GetDerivatives (n = TARGET_N)
    notes: list[str] = field(default_factory=list)
    formulation: str = ""


def derive_timed(n: int):
    t0 = time.perf_counter()
    eq = chain_3d(n).derive()
    return eq, time.perf_counter() - t0


def export_timed(eq, workdir: Path) -> tuple[Path, float]:
    from symbody.fmu import export_fmu

    t0 = time.perf_counter()
    fmu = export_fmu(eq, workdir / f"{eq.name}.fmu", fmi_version=2, kind="cs", platforms=["x86_64-linux"])
    return fmu, time.perf_counter() - t0


def run_fmu(fmu: Path, steps: int = 10, h: float = 1e-3) -> np.ndarray:
    """States of the chain's FMU after ``steps`` co-simulation steps of ``h`` with fmpy (raises if not finite)."""
    import fmpy
    from fmpy.simulation import instantiate_fmu

    md = fmpy.read_model_description(str(fmu))
    unzip = fmpy.extract(str(fmu))
    try:
        inst = instantiate_fmu(unzip, md, "CoSimulation")
        inst.setupExperiment(startTime=0.0)
        inst.enterInitializationMode()
        inst.exitInitializationMode()
        for k in range(steps):
            inst.doStep(k * h, h)
        states = [v.valueReference for v in md.modelVariables if v.causality == "output"]
        values = np.array(inst.getReal(states))
        inst.terminate()
        inst.freeInstance()
    finally:
        shutil.rmtree(unzip, ignore_errors=True)
    if not np.all(np.isfinite(values)) or values.size == 0:
        raise RuntimeError(f"{fmu.name}: outputs not finite after {steps} steps")
    return values


def measure(n: int, effort_key: str, workdir: Path, pin_lib: ChainLibrary | None, export: bool) -> Measured:
    rng = np.random.default_rng(3000 + n)
    p, X = random_parameters(n, rng), random_states(n, rng)
    eq, t_derive = derive_timed(n)
    t_export = export_timed(eq, workdir)[1] if export else None  # the FMU stays in workdir: run() runs one
    ops = {"M_delta": op_count(eq, "M", "delta"), "M": op_count(eq, "M"), "delta": op_count(eq, "delta")}
    if eq.accelerations:  # the hot path of the articulated formulation: ddq and the pivots the runtime checks
        ops["ddq"] = op_count(eq, "accelerations", "pivots")
    sb = symbody_library(eq, workdir)
    sb.init(n, p)
    reference = np.array([sb.ddq(x) for x in X])
    if pin_lib is not None:
        pin_lib.init(n, p)
        other, checked = np.array([pin_lib.ddq(x) for x in X]), "Pinocchio C++ aba"
    else:
        pin_py = pinocchio_python_ddq(n, p)
        other, checked = np.array([pin_py(x) for x in X]), "pinocchio.aba from Python"
    agreement = relative_difference(other, reference)
    if not agreement <= TOLERANCE:
        raise RuntimeError(f"n = {n}: {checked} and symbody disagree on ddq (relative difference {agreement:.2e})")
    loops: dict[str, Callable[[int], float]] = {"symbody_c": lambda c: sb.loop(X, c)}
    if pin_lib is not None:
        loops["pin_cpp"] = lambda c: pin_lib.loop(X, c)
    if n == TARGET_N:  # the same accelerations through the FMI 2 Model Exchange interface
        fmi = symbody_library(eq, workdir, fmi=True)
        fmi.init(n, p)
        through = relative_difference(np.array([fmi.ddq(x) for x in X]), reference)
        if not through == 0.0:
            raise RuntimeError(f"n = {n}: the FMI 2 interface gives other accelerations ({through:.2e})")
        loops["symbody_fmi"] = lambda c: fmi.loop(X, c)
    times = best_interleaved(loops, EFFORT[effort_key])
    out = Measured(n, t_derive, t_export, ops, times["symbody_c"], times.get("pin_cpp"), agreement, checked)
    out.symbody_fmi = times.get("symbody_fmi")
    out.ops["constants"] = sb.constants
    out.formulation = eq.formulation
    out.library, out.p, out.X = sb, p, X
    return out


def add_kane(results: list[Measured], budget: float, largest: int) -> None:
    """KanesMethod's derivation time of each chain up to ``largest`` bodies, while expected within ``budget`` s.

    The expected time grows as n^3 from the last measured one (a lower bound: it grew faster when measured).
    """
    last: tuple[int, float] | None = None
    for m in results:
        if m.n > largest or (last is not None and last[1] * (m.n / last[0]) ** 3 > budget):
            return
        t0 = time.perf_counter()
        kane = kane_chain_3d(m.n)
        m.kane = time.perf_counter() - t0
        last = (m.n, m.kane)
        if m is results[0] and m.library is not None:
            ours = np.array([m.library.ddq(x) for x in m.X[:4]])
            theirs = kane_accelerations(kane, m.n, m.p, m.X[:4])
            m.kane_agreement = relative_difference(theirs, ours)
            if not m.kane_agreement <= TOLERANCE:
                raise RuntimeError(f"n = {m.n}: KanesMethod and symbody disagree ({m.kane_agreement:.2e})")


# ---------------------------------------------------------------------------- fits, plot, rows
def fitted(results: list[Measured], value: Callable[[Measured], float | None]) -> float | None:
    """Exponent of ``value ~ n^p`` over the sizes with n >= 2 that have a value (None: fewer than two)."""
    points = [(m.n, value(m)) for m in results if m.n >= 2 and value(m) is not None]
    if len(points) < 2:
        return None
    return exponent([n for n, _ in points], [v for _, v in points])  # type: ignore[misc]


SERIES: dict[str, Callable[[Measured], float | None]] = {
    "[M|delta] ops": lambda m: m.ops["M_delta"],
    "M ops": lambda m: m.ops["M"],
    "delta ops": lambda m: m.ops["delta"],
    "ddq ops (articulated)": lambda m: m.ops.get("ddq"),
    "symbody derive": lambda m: m.derive,
    "KanesMethod": lambda m: m.kane,
    "symbody export": lambda m: m.export,
    "symbody ddq (C)": lambda m: m.symbody_c,
    "Pinocchio ABA (C++)": lambda m: m.pin_cpp,
}
PANELS = (
    ("operations", ("[M|delta] ops", "M ops", "delta ops", "ddq ops (articulated)")),
    ("derivation time (s)", ("symbody derive", "KanesMethod")),
    ("export time (s)", ("symbody export",)),
    ("time per ddq evaluation (s)", ("symbody ddq (C)", "Pinocchio ABA (C++)")),
)


def plot(results: list[Measured], path: Path) -> None:
    """Log-log plots of operations, derivation, export and evaluation time vs n, fitted exponents in the legends."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(17, 4.2))
    for ax, (title, names) in zip(axes, PANELS):
        for name in names:
            pts = [(m.n, SERIES[name](m)) for m in results if SERIES[name](m) is not None]
            if not pts:
                continue
            p = fitted(results, SERIES[name])
            label = name + ("" if p is None else f"  (n^{p:.2f})")
            ax.loglog([a for a, _ in pts], [b for _, b in pts], "o-", label=label)
        ax.set_xticks([m.n for m in results], [str(m.n) for m in results])
        ax.minorticks_off()
        ax.set_xlabel("bodies n (3 DOF each)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(
        "3-D chain on Z-Y-X spherical joints: symbody vs Pinocchio and SymPy KanesMethod (exponents over n >= 2)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def eval_row(m: Measured, pin_reason: str) -> Row:
    checked = f"ddq agree with {m.checked} on {N_STATES} random states to {m.agreement:.0e} relative."
    target = ">= 2x" if m.n == TARGET_N else "-"
    if m.pin_cpp is None:
        return Row(
            "3-D chain",
            f"n = {m.n} ({3 * m.n} DOF): ddq, symbody C vs Pinocchio ABA",
            fmt_eval(m.symbody_c),
            "Pinocchio C++ not timed",
            None,
            target,
            None,
            f"C++ harness not used: {pin_reason}. {checked}",
        )
    ratio = m.pin_cpp / m.symbody_c
    return Row(
        "3-D chain",
        f"n = {m.n} ({3 * m.n} DOF): ddq, symbody C vs Pinocchio ABA",
        fmt_eval(m.symbody_c),
        f"Pinocchio {fmt_eval(m.pin_cpp)}",
        ratio,
        target,
        ratio >= 2.0 if m.n == TARGET_N else None,
        f"model.c + FMU runtime (sb_accelerations, gcc -O2, model.c's AVX2 clone where the processor has AVX2; "
        f"{hot_path(m)}) vs pinocchio::aba with "
        f"JointModelSphericalZYX (-O3 -DNDEBUG), C/C++ loops, interleaved rounds. {checked}",
    )


def fmi_row(m: Measured) -> Row:
    """The accelerations of the target size through the FMI 2 Model Exchange interface."""
    assert m.symbody_fmi is not None and m.pin_cpp is not None
    return Row(
        "3-D chain",
        f"n = {m.n} ({3 * m.n} DOF): ddq through FMI 2 (SetContinuousStates + GetDerivatives) vs Pinocchio ABA",
        fmt_eval(m.symbody_fmi),
        f"Pinocchio {fmt_eval(m.pin_cpp)}",
        m.pin_cpp / m.symbody_fmi,
        "- (recorded)",
        None,
        "model.c + FMU runtime + fmi2Functions.c (harness/chain3d_fmi2.c: per evaluation fmi2SetContinuousStates "
        "and fmi2GetDerivatives of an initialized Model Exchange instance in continuous-time mode, the same "
        "accelerations bit for bit), timed in the rounds of the row above; the interface costs "
        f"{fmt_eval(m.symbody_fmi - m.symbody_c)} per evaluation over sb_accelerations.",
    )


def hot_path(m: Measured) -> str:
    """What ``sb_accelerations`` evaluates for the chain of ``m``."""
    constants = f"; {m.ops['constants']} parameter-only subexpressions in the constants block"
    if "ddq" in m.ops:
        return f"{m.formulation} formulation: ddq from model.c, {m.ops['ddq']} ops, no M factored{constants}"
    return f"{m.formulation} formulation: [M|delta] {m.ops['M_delta']} ops, then M factored and solved{constants}"


def derivation_row(m: Measured) -> Row:
    ops = f"[M|delta] {m.ops['M_delta']} ops (M {m.ops['M']}, delta {m.ops['delta']})"
    if "ddq" in m.ops:
        ops += f", articulated-body ddq {m.ops['ddq']} ops ({m.formulation} formulation)"
    exported = "not timed (quick run)" if m.export is None else fmt_time(m.export)
    note = f"{ops}; export (generate C, compile, package) {exported}."
    if m.kane_agreement is not None:
        note += f" KanesMethod's accelerations agree with symbody's to {m.kane_agreement:.0e} relative."
    return Row(
        "3-D chain",
        f"n = {m.n} ({3 * m.n} DOF): derivation vs KanesMethod",
        fmt_time(m.derive),
        "KanesMethod not run (over the time budget)" if m.kane is None else f"KanesMethod {fmt_time(m.kane)}",
        None if m.kane is None else m.kane / m.derive,
        "-",
        None,
        note,
    )


def exponent_row(results: list[Measured]) -> Row:
    p = {k: fitted(results, f) for k, f in SERIES.items()}
    last = [m for m in results if m.n >= 2][-2:]
    keys = ("M_delta", "delta", "ddq") if all("ddq" in m.ops for m in last) else ("M_delta", "delta")
    local = {k: exponent([m.n for m in last], [m.ops[k] for m in last]) for k in keys}

    def show(key: str) -> str:
        return "-" if p[key] is None else f"{p[key]:.2f}"

    ddq_note = f", articulated-body ddq n^{local['ddq']:.2f}" if "ddq" in local else ""
    return Row(
        "3-D chain",
        f"n = {results[1].n}..{results[-1].n}: fitted exponents of y ~ n^p",
        f"ops [M|delta] {show('[M|delta] ops')}, M {show('M ops')}, delta {show('delta ops')}, "
        f"articulated-body ddq {show('ddq ops (articulated)')}; "
        f"derive {show('symbody derive')}, export {show('symbody export')}, ddq {show('symbody ddq (C)')}",
        f"Pinocchio ABA {show('Pinocchio ABA (C++)')}, KanesMethod {show('KanesMethod')}",
        None,
        "[M|delta] <= 2, delta ~ 1",
        local["M_delta"] <= 2.0 and local["delta"] <= 1.2,
        f"last doubling (n = {last[0].n} -> {last[1].n}): [M|delta] n^{local['M_delta']:.2f}, "
        f"delta n^{local['delta']:.2f}{ddq_note} (the articulated-body ddq fitted over the sizes that have it). "
        f"Log-log plots: [{PLOT.name}]({PLOT.name}) (next to RESULTS.md).",
    )


def export_run_row(m: Measured, states: np.ndarray) -> Row:
    return Row(
        "3-D chain",
        f"n = {m.n} ({3 * m.n} DOF): FMU exports and runs",
        "not exported" if m.export is None else f"exported in {fmt_time(m.export)}",
        "-",
        None,
        "n = 16 exports and runs",
        True if m.n >= 16 else None,
        f"FMI 2 CS FMU run by fmpy for 10 steps of 1 ms, {states.size} finite outputs.",
    )


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    sizes = (1, 2) if smoke else ((1, 2, 4, 8) if quick else (1, 2, 4, 8, 16))
    # the FMU's exact residual Jacobians make model.c megabytes long from n = 8 (minutes of compilation)
    export_max = 4 if quick else 16
    effort_key = "smoke" if smoke else "quick" if quick else "full"
    load = os.getloadavg()[0]
    pin_lib, pin_reason = pinocchio_library(compile_if_missing=not (quick or smoke))
    derive_timed(1)  # warm-up: imports and caches of the first derivation are not the chain's cost
    results: list[Measured] = []
    with tempfile.TemporaryDirectory(prefix="symbody_bench_chain3d_") as tmp:
        for n in sizes:
            results.append(measure(n, effort_key, Path(tmp), pin_lib, export=n <= export_max))
        largest = [m for m in results if m.export is not None][-1]
        states = run_fmu(Path(tmp) / f"{chain_3d(largest.n).name}.fmu")
    kane_chain_3d(1)  # warm-up of sympy.physics.mechanics
    add_kane(results, budget=40.0 if quick else 120.0, largest=1 if smoke else 16)
    rows = [eval_row(m, pin_reason) for m in results]
    rows += [fmi_row(m) for m in results if m.symbody_fmi is not None and m.pin_cpp is not None]
    rows += [derivation_row(m) for m in results]
    if len([m for m in results if m.n >= 2]) >= 2:
        rows.append(exponent_row(results))
    rows.append(export_run_row(largest, states))
    if not smoke:
        plot(results, PLOT)
    rows[0].note += (
        f" Machine load average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores during these rows"
        " (other jobs running: the ratios of one run are what counts);"
        f" each time is the best of {EFFORT[effort_key].rounds} rounds."
    )
    return rows


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv, smoke="--smoke" in sys.argv):
        ratio = "-" if r.ratio is None else f"{r.ratio:.2f}x"
        print(f"{r.case} | {r.symbody} | {r.alternative} | {ratio} | {r.target} | {r.met}\n    {r.note}")
