"""Evaluation speed: accelerations of the n-link pendulum on a cart, symbody vs Pinocchio and PyDy.

The work measured is one evaluation of the accelerations ``ddq`` at a state
``(q, dq)`` with given inputs and parameters, for ``examples/n_link_pendulum_on_cart.py``
with n = 1, 3, 10, 20 links.

- symbody: the model's ``model.c`` (generated exactly as for a native FMU) linked
  with the FMU runtime of ``fmu_templates/`` and compiled with the FMU's flags;
  each evaluation is one ``sb_accelerations()`` call (the closed form of
  ``model.c`` with its pivots checked where the equations have one, else
  [M | delta], finiteness checks, L D L^T factorization and solve), the
  function behind every derivative of the FMU.  Harness: ``harness/symbody_ddq.c``.
- Pinocchio: the articulated-body algorithm ``pinocchio::aba`` on the same chain
  (prismatic cart joint, revolute joints about z, point masses at the link ends,
  gravity -y) built joint by joint in C++ (``harness/pinocchio_aba.cpp``,
  header-only Pinocchio from the ``pin`` wheel with Eigen from ``cmeel-eigen``,
  ``-O3 -DNDEBUG``).  Its first compilation takes a minute or more; the library
  is cached (``$SYMBODY_CACHE`` or ``~/.cache/symbody``, folder ``bench``, verified before use:
  :mod:`symbody.codegen.build_cache`); in
  ``--quick`` and smoke runs it is used only when cached.  Both are also timed
  from Python, one call each: ``pinocchio.aba`` against symbody's
  ``compile_accelerations(eq)`` (one call into the CPython extension module
  compiled with it: the closed form of the equations where they have one, the
  symbolic elimination up to 8 coordinates and the articulated-body algorithm
  on larger trees, else [M | delta] and L D L^T).
- PyDy: ``generate_ode_function(..., generator="cython")`` on
  ``pydy.models.n_link_pendulum_on_cart`` (KanesMethod's mass matrix and forcing,
  SymPy ``cse``, Cython wrapper, numpy solve), called from Python as its users
  do.  For like-with-like comparisons two more rows give symbody called from
  Python (``compile_accelerations``), and the generated code alone: PyDy's generated C and
  symbody's ``sb_M_delta`` in the same C loop, each followed by the same LDL^T
  solve (``harness/pydy_ddq.c``, ``harness/symbody_blocks_ddq.c``).

Before timing, the accelerations of all tools are compared on random states
with random parameters and inputs (Pinocchio's relative joint angles are
converted to the absolute link angles of the other two); a disagreement stops
the benchmark.  Timed loops cycle through 16 random states and take the best
of several rounds, the tools interleaved round by round so that load from
other processes affects them alike.

Targets (issue 6): within 2x of Pinocchio up to n = 10; at least 100x faster
than PyDy's Cython right-hand side.  Issue 13: under 3 us per call of the compiled
evaluator from Python (the per-call overhead row, at n = 1, with the time of the
ctypes fallback in its note).

Run: ``python benchmarks/bench_eval_speed.py [--quick]`` (or through ``benchmarks/run.py``).
"""

from __future__ import annotations

import ctypes
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, load_example  # noqa: E402

from symbody.codegen.build_cache import cached_build, cached_files, entry_key  # noqa: E402
from symbody.codegen.c_eval import compile_accelerations, compile_evaluator  # noqa: E402

HARNESS = Path(__file__).resolve().parent / "harness"
N_STATES = 16
#: relative agreement required between the tools' accelerations
TOLERANCE = 1e-8
#: compile flags of the Pinocchio harness: release flags, plus the definitions of Pinocchio's CMake target
PINOCCHIO_FLAGS = (
    "-std=c++17",
    "-O3",
    "-DNDEBUG",
    "-fPIC",
    "-shared",
    "-DBOOST_MPL_LIMIT_LIST_SIZE=30",
    "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
    "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS",
    "-DBOOST_FUSION_INVOKE_MAX_ARITY=12",
)


# ---------------------------------------------------------------------------- timing settings
@dataclass(frozen=True)
class Effort:
    """How long to time: each round runs at least ``round_seconds``; the best of ``rounds`` counts."""

    round_seconds: float
    rounds: int


#: many short rounds: on a busy machine the best round is the one no other process interrupted
EFFORT = {"smoke": Effort(0.001, 3), "quick": Effort(0.002, 20), "full": Effort(0.002, 60)}


def fmt_eval(s: float) -> str:
    """A time per evaluation: ns below 10 us, else us."""
    return f"{s * 1e9:.0f} ns" if s < 1e-5 else f"{s * 1e6:.1f} us"


# ---------------------------------------------------------------------------- compiled harnesses
class LoopLibrary:
    """A compiled harness (``harness/bench_loop.h``) loaded with ctypes."""

    def __init__(self, path: Path, label: str):
        self.label = label
        self.lib = ctypes.CDLL(str(path))
        ptr, i, d = ctypes.c_void_p, ctypes.c_int, ctypes.c_double
        self.lib.bench_init.argtypes = [i, ptr, ptr]
        self.lib.bench_init.restype = i
        self.lib.bench_ddq.argtypes = [ptr, ptr]
        self.lib.bench_ddq.restype = i
        self.lib.bench_loop.argtypes = [i, ptr, ctypes.c_long, ctypes.POINTER(d)]
        self.lib.bench_loop.restype = d
        self.n = 0

    def init(self, n: int, p: np.ndarray, u: np.ndarray) -> None:
        p, u = np.ascontiguousarray(p, float), np.ascontiguousarray(u, float)
        if self.lib.bench_init(n, p.ctypes.data, u.ctypes.data) != 0:
            raise RuntimeError(f"{self.label}: bench_init failed for n = {n}")
        self.n = n

    def ddq(self, x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, float)
        out = np.zeros(self.n + 1)
        if self.lib.bench_ddq(x.ctypes.data, out.ctypes.data) != 0:
            raise RuntimeError(f"{self.label}: evaluation failed at x = {x}")
        return out

    def loop(self, X: np.ndarray, iterations: int) -> float:
        """Seconds per evaluation over ``iterations`` evaluations cycling through the rows of ``X``."""
        X = np.ascontiguousarray(X, float)
        checksum = ctypes.c_double()
        t = self.lib.bench_loop(X.shape[0], X.ctypes.data, iterations, ctypes.byref(checksum))
        if not t > 0 or not np.isfinite(checksum.value):
            raise RuntimeError(f"{self.label}: timed loop failed")
        return t


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"compiling {what} failed:\n{(proc.stderr or proc.stdout).strip()[:3000]}")


def symbody_library(eq, workdir: Path) -> LoopLibrary:
    """symbody's ``model.c`` (as in the FMU) + FMU runtime + ``harness/symbody_ddq.c``, with the FMU's flags."""
    from symbody.codegen.c_eval import c_compiler
    from symbody.fmu.build import CFLAGS, template_dir
    from symbody.fmu.sources import ModelSource
    from symbody.fmu.spec import GENERIC_SOURCES

    tdir = template_dir()
    folder = workdir / f"symbody_{eq.name}"
    folder.mkdir()
    files = ModelSource(eq, "me").files  # model.c and, for large models, model_<k>.c
    for name, text in files.items():
        (folder / name).write_text(text)
    sources = [*(folder / name for name in files), HARNESS / "symbody_ddq.c", *(tdir / s for s in GENERIC_SOURCES)]
    lib = folder / "symbody_ddq.so"
    cmd = [c_compiler(), *CFLAGS, "-shared", f"-I{tdir}", f"-I{HARNESS}", *map(str, sources), "-o", str(lib), "-lm"]
    _run(cmd, f"the symbody harness of {eq.name}")
    out = LoopLibrary(lib, "symbody")
    out.lib.bench_rhs.argtypes = [ctypes.c_void_p] * 4
    out.lib.bench_rhs.restype = ctypes.c_int
    return out


def symbody_blocks_library(eq, workdir: Path) -> LoopLibrary:
    """symbody's generated ``sb_M_delta`` + the harness's LDL^T (``harness/symbody_blocks_ddq.c``), no runtime."""
    from symbody.codegen.c_eval import c_compiler
    from symbody.fmu.build import CFLAGS, template_dir

    folder = workdir / f"symbody_{eq.name}"
    lib = folder / "symbody_blocks_ddq.so"
    # every file of the model's sources: large models are split into model.c and model_<k>.c
    sources = [*sorted(folder.glob("model*.c")), HARNESS / "symbody_blocks_ddq.c"]
    cmd = [c_compiler(), *CFLAGS, "-shared", f"-I{template_dir()}", f"-I{HARNESS}", *map(str, sources)]
    _run([*cmd, "-o", str(lib), "-lm"], f"the symbody block harness of {eq.name}")
    return LoopLibrary(lib, "symbody blocks")


def symbody_python_rhs(library: LoopLibrary, n: int) -> Callable:
    """``rhs(x, t, u, p) -> xdot`` calling the compiled symbody evaluator through ctypes (PyDy's calling form)."""
    fn = library.lib.bench_rhs

    def rhs(x: np.ndarray, t: float, u: np.ndarray, p: np.ndarray) -> np.ndarray:
        xdot = np.empty(2 * (n + 1))
        if fn(x.ctypes.data, u.ctypes.data, p.ctypes.data, xdot.ctypes.data):
            raise RuntimeError("symbody evaluation failed")
        return xdot

    return rhs


@dataclass
class PydyCase:
    rhs: Callable  # rhs(x, t, r, p) -> xdot, PyDy's Cython-generated right-hand side
    library: LoopLibrary  # PyDy's generated C in the C loop


def pydy_case(n: int, workdir: Path) -> PydyCase:
    """PyDy's Cython right-hand side of ``pydy.models.n_link_pendulum_on_cart`` and its generated C in a C loop.

    Arguments are ordered as symbody's: specifieds ``[F, T1..Tn]``, constants
    ``[g, m0..mn, l0..l(n-1)]``.  The minimal form (mass matrix of the speeds,
    ``qdot = u``) is used: it is PyDy's fastest Cython right-hand side.
    """
    import sympy as sm
    from pydy.codegen.ode_function_generators import generate_ode_function
    from pydy.models import n_link_pendulum_on_cart

    from symbody.codegen.c_eval import c_compiler
    from symbody.fmu.build import CFLAGS

    system = n_link_pendulum_on_cart(n, cart_force=True, joint_torques=True)
    kane = system.eom_method
    constants = {str(s): s for s in system.constants_symbols}
    specifieds = {str(s): s for s in system.specifieds_symbols}
    constant_order = ["g", *(f"m{i}" for i in range(n + 1)), *(f"l{i}" for i in range(n))]
    specified_order = ["F(t)", *(f"T{i + 1}(t)" for i in range(n))]
    folder = workdir / f"pydy_{n}"
    rhs = generate_ode_function(
        kane.forcing,
        system.coordinates,
        system.speeds,
        [constants[c] for c in constant_order],
        mass_matrix=kane.mass_matrix,
        coordinate_derivatives=sm.Matrix(system.speeds),
        specifieds=[specifieds[s] for s in specified_order],
        generator="cython",
        prefix=f"pydy_nlink_{n}",
        tmp_dir=str(folder),
    )
    generated = sorted(folder.glob("pydy_nlink_*_c.c"))
    if len(generated) != 1:
        raise RuntimeError(f"PyDy's generated C not found in {folder}")
    lib = folder / "pydy_ddq.so"
    sources = [generated[0], HARNESS / "pydy_ddq.c"]
    cmd = [c_compiler(), *CFLAGS, "-shared", f"-I{HARNESS}", *map(str, sources), "-o", str(lib), "-lm"]
    _run(cmd, f"PyDy's generated C (n = {n})")
    return PydyCase(rhs, LoopLibrary(lib, "PyDy C"))


# ---------------------------------------------------------------------------- Pinocchio
def pinocchio_prefix() -> Path | None:
    """The ``cmeel.prefix`` folder holding Pinocchio's and Eigen's headers, if both are installed."""
    try:
        import pinocchio
    except ImportError:
        return None
    here = Path(pinocchio.__file__).resolve()
    for parent in here.parents:
        if parent.name == "cmeel.prefix":
            ok = (parent / "include/pinocchio/algorithm/aba.hpp").is_file()
            return parent if ok and (parent / "include/eigen3/Eigen/Core").is_file() else None
    return None


def pinocchio_harness(source: str, header: str, compile_if_missing: bool) -> tuple[Path | None, str]:
    """A C++ harness of ``harness/`` compiled against Pinocchio (cached by compiler, version, flags and
    sources in the ``bench`` folder of :mod:`symbody.codegen.build_cache`): its path, or None and the reason."""
    prefix = pinocchio_prefix()
    if prefix is None:
        return None, "Pinocchio's C++ headers or Eigen (pip install pin cmeel-eigen) are missing"
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if not cxx:
        return None, "no C++ compiler found"
    import pinocchio

    src = HARNESS / source
    flags = " ".join(PINOCCHIO_FLAGS)
    parts = (cxx, pinocchio.__version__, str(prefix), flags, src.read_bytes(), (HARNESS / header).read_bytes())
    name = f"{src.stem}_{entry_key(*parts)[:16]}"
    library = name + ".so"
    found = cached_files("bench", name, [library])
    if found is None:
        if not compile_if_missing:
            return None, "the C++ ABA harness is not compiled yet (the full run compiles and caches it)"
        cmd = [cxx, *PINOCCHIO_FLAGS, f"-I{HARNESS}", f"-I{prefix / 'include'}", f"-I{prefix / 'include/eigen3'}"]

        def build(folder: Path) -> None:
            _run([*cmd, str(src), "-o", str(folder / library)], f"the Pinocchio harness {source}")

        try:
            found = cached_build("bench", name, [library], build)
        except RuntimeError as e:
            return None, str(e).splitlines()[0]
    return found[library], ""


def pinocchio_library(compile_if_missing: bool) -> tuple[LoopLibrary | None, str]:
    """The compiled C++ ABA harness of the planar chain (cached), or None and the reason."""
    lib, why = pinocchio_harness("pinocchio_aba.cpp", "bench_loop.h", compile_if_missing)
    return (LoopLibrary(lib, "Pinocchio C++"), "") if lib else (None, why)


def pinocchio_python_model(n: int, p: np.ndarray):
    """The chain of ``harness/pinocchio_aba.cpp`` built with Pinocchio's Python API: ``(model, data)``."""
    import pinocchio as pin

    g, mass, length = p[0], p[1 : n + 2], p[n + 2 :]
    model = pin.Model()
    model.gravity.linear = np.array([0.0, -g, 0.0])
    parent = model.addJoint(0, pin.JointModelPX(), pin.SE3.Identity(), "cart")
    model.appendBodyToJoint(parent, pin.Inertia(mass[0], np.zeros(3), np.zeros((3, 3))), pin.SE3.Identity())
    for i in range(n):
        placement = pin.SE3.Identity()
        if i > 0:
            placement.translation = np.array([length[i - 1], 0.0, 0.0])
        parent = model.addJoint(parent, pin.JointModelRZ(), placement, f"joint{i + 1}")
        inertia = pin.Inertia(mass[i + 1], np.array([length[i], 0.0, 0.0]), np.zeros((3, 3)))
        model.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    return model, model.createData()


def to_relative(X: np.ndarray) -> np.ndarray:
    """States [q; dq] with absolute link angles -> Pinocchio's relative joint angles (cart coordinate unchanged)."""
    nq = X.shape[-1] // 2
    out = np.array(X, dtype=float)
    for part in (slice(0, nq), slice(nq, 2 * nq)):
        a = X[..., part]
        out[..., part][..., 2:] = a[..., 2:] - a[..., 1:-1]
    return out


def to_absolute(ddq_rel: np.ndarray) -> np.ndarray:
    """Accelerations in relative joint angles -> absolute link angles."""
    out = np.array(ddq_rel, dtype=float)
    out[1:] = np.cumsum(ddq_rel[1:])
    return out


# ---------------------------------------------------------------------------- cases, checks, timing
def random_case(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parameters ``[g, m0..mn, l0..l(n-1)]``, inputs ``[F, T1..Tn]`` and N_STATES states ``[q; dq]``."""
    p = np.concatenate([[9.81], rng.uniform(0.5, 2.0, n + 1), rng.uniform(0.5, 1.5, n)])
    u = rng.uniform(-1.0, 1.0, n + 1)
    q = np.column_stack([rng.uniform(-1, 1, N_STATES), rng.uniform(-np.pi, np.pi, (N_STATES, n))])
    dq = rng.uniform(-2.0, 2.0, (N_STATES, n + 1))
    return p, u, np.ascontiguousarray(np.hstack([q, dq]))


def check_agreement(n: int, reference: np.ndarray, others: dict[str, np.ndarray]) -> float:
    """Largest relative difference of each tool's ddq from symbody's; raises when above TOLERANCE."""
    worst = 0.0
    for name, values in others.items():
        err = float(np.max(np.abs(values - reference)) / (1.0 + np.max(np.abs(reference))))
        if not err <= TOLERANCE:
            raise RuntimeError(f"n = {n}: {name} and symbody disagree on ddq (relative difference {err:.2e})")
        worst = max(worst, err)
    return worst


def calibrate(time_block: Callable[[int], float], round_seconds: float) -> int:
    """Number of repetitions for which one block lasts about ``round_seconds``."""
    count = 1
    while True:
        t = time_block(count) * count
        if t >= round_seconds or count >= 1 << 26:
            return count
        count = int(count * min(100.0, max(2.0, 1.2 * round_seconds / max(t, 1e-9))))


def best_interleaved(blocks: dict[str, Callable[[int], float]], effort: Effort) -> dict[str, float]:
    """Best time per evaluation of each timed block, the blocks run round by round (same load for all)."""
    counts = {k: calibrate(f, effort.round_seconds) for k, f in blocks.items()}
    best = dict.fromkeys(blocks, float("inf"))
    for _ in range(effort.rounds):
        for k, f in blocks.items():
            best[k] = min(best[k], f(counts[k]))
    return best


def python_block(fn: Callable, arguments: list[tuple]) -> Callable[[int], float]:
    """A timed block calling ``fn(*args)`` ``count`` times, cycling through ``arguments``; seconds per call."""

    def block(count: int) -> float:
        k, m = 0, len(arguments)
        gc.disable()  # as timeit does: a collection of other modules' garbage is not the callee's cost
        try:
            t0 = time.perf_counter()
            for _ in range(count):
                fn(*arguments[k])
                k = k + 1 if k + 1 < m else 0
            return (time.perf_counter() - t0) / count
        finally:
            gc.enable()

    return block


# ---------------------------------------------------------------------------- one size
@dataclass
class Measured:
    """Seconds per evaluation of every variant at one n (None: not measured)."""

    n: int
    symbody_c: float
    symbody_py: float
    symbody_blocks: float
    pydy_py: float | None
    pydy_c: float | None
    pin_cpp: float | None
    pin_py: float | None
    symbody_eval: float
    symbody_eval_ctypes: float
    call_path: str
    agreement: float
    checked: list[str]


def measure(n: int, effort: Effort, workdir: Path, pin_lib: LoopLibrary | None, with_pydy: bool) -> Measured:
    rng = np.random.default_rng(1000 + n)
    p, u, X = random_case(n, rng)
    eq = load_example("n_link_pendulum_on_cart", n=n).derive()
    if [s.name for s in eq.p_symbols] != ["g", *(f"m{i}" for i in range(n + 1)), *(f"l{i}" for i in range(n))]:
        raise RuntimeError("unexpected parameter order of examples/n_link_pendulum_on_cart.py")
    sb = symbody_library(eq, workdir)
    sb.init(n, p, u)
    reference = np.array([sb.ddq(x) for x in X])
    sb_rhs = symbody_python_rhs(sb, n)
    blocks = symbody_blocks_library(eq, workdir)
    blocks.init(n, p, u)
    eval_args = [(0.0, x[: n + 1].copy(), x[n + 1 :].copy(), u, p) for x in X]
    accelerations = compile_accelerations(eq)  # [M | delta] + L D L^T in one call
    others: dict[str, np.ndarray] = {
        "symbody FMU runtime through ctypes": np.array([sb_rhs(x, 0.0, u, p)[n + 1 :] for x in X]),
        "symbody [M | delta] + LDL^T": np.array([blocks.ddq(x) for x in X]),
        "symbody compile_accelerations (Python)": np.array([accelerations(*a) for a in eval_args]),
    }
    loops: dict[str, Callable[[int], float]] = {
        "symbody_c": lambda c: sb.loop(X, c),
        "symbody_blocks": lambda c: blocks.loop(X, c),
    }
    calls: dict[str, Callable[[int], float]] = {"symbody_py": python_block(accelerations, eval_args)}
    evaluator = compile_evaluator(eq, "M", "delta")
    evaluator_ctypes = compile_evaluator(eq, "M", "delta", path="ctypes")
    others["symbody CEvaluator [M | delta] (Python)"] = np.array([np.linalg.solve(*evaluator(*a)) for a in eval_args])
    others["symbody CEvaluator [M | delta] (ctypes)"] = np.array(
        [np.linalg.solve(*evaluator_ctypes(*a)) for a in eval_args]
    )
    calls["symbody_eval"] = python_block(evaluator, eval_args)
    calls["symbody_eval_ctypes"] = python_block(evaluator_ctypes, eval_args)

    X_rel = to_relative(X)
    if pin_lib is not None:
        pin_lib.init(n, p, u)
        others["Pinocchio ABA (C++)"] = np.array([to_absolute(pin_lib.ddq(x)) for x in X_rel])
        loops["pin_cpp"] = lambda c: pin_lib.loop(X_rel, c)
    if _has("pinocchio"):
        import pinocchio as pin

        model, data = pinocchio_python_model(n, p)
        qv = [(model, data, x[: n + 1].copy(), x[n + 1 :].copy(), u) for x in X_rel]
        others["pinocchio.aba (Python)"] = np.array([to_absolute(pin.aba(*a)) for a in qv])
        calls["pin_py"] = python_block(pin.aba, qv)
    if with_pydy:
        pydy = pydy_case(n, workdir)
        pydy.library.init(n, p, u)
        # copies: PyDy's right-hand side returns the same output array on every call
        others["PyDy Cython RHS"] = np.array([pydy.rhs(x, 0.0, u, p)[n + 1 :].copy() for x in X])
        others["PyDy generated C"] = np.array([pydy.library.ddq(x) for x in X])
        loops["pydy_c"] = lambda c: pydy.library.loop(X, c)
        calls["pydy_py"] = python_block(pydy.rhs, [(x, 0.0, u, p) for x in X])
    agreement = check_agreement(n, reference, others)
    times = best_interleaved(loops, effort)
    gc.collect()
    times.update(best_interleaved(calls, effort))
    return Measured(
        n,
        times["symbody_c"],
        times["symbody_py"],
        times["symbody_blocks"],
        times.get("pydy_py"),
        times.get("pydy_c"),
        times.get("pin_cpp"),
        times.get("pin_py"),
        times["symbody_eval"],
        times["symbody_eval_ctypes"],
        evaluator.call_path,
        agreement,
        list(others),
    )


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# ---------------------------------------------------------------------------- rows
def pinocchio_rows(m: Measured, pin_reason: str, describe: bool) -> list[Row]:
    """The rows against Pinocchio: C/C++ loop (when the harness is compiled) and both from Python;
    ``describe`` adds how they are measured (first size only)."""
    target = ">= 0.5x (within 2x)" if m.n <= 10 else "- (recorded)"
    checked = f"ddq agree on {N_STATES} random states to {m.agreement:.0e} relative ({', '.join(m.checked)})."
    rows = []
    if m.pin_cpp is not None:
        ratio = m.pin_cpp / m.symbody_c
        how = (
            "Both timed in a C/C++ loop; symbody = model.c + FMU runtime (sb_accelerations, gcc -O2 as the FMU), "
            "Pinocchio = header-only aba (-O3 -DNDEBUG). "
            if describe
            else ""
        )
        rows.append(
            Row(
                "ddq evaluation",
                f"n = {m.n}: symbody vs Pinocchio ABA, C/C++ loop",
                fmt_eval(m.symbody_c),
                f"Pinocchio {fmt_eval(m.pin_cpp)}",
                ratio,
                target,
                ratio >= 0.5 if m.n <= 10 else None,
                how + checked,
            )
        )
    if m.pin_py is not None:
        ratio = m.pin_py / m.symbody_py
        how = (
            "One Python call each: symbody's compile_accelerations(eq)(t, q, dq, u, p) -> ddq ([M | delta] and "
            f"L D L^T solve in one C call, through its CPython extension module: path '{m.call_path}') against "
            "pin.aba(model, data, q, v, tau) through Pinocchio's bindings. "
            if describe
            else ""
        )
        harness = "" if m.pin_cpp is not None else f"C++ harness not used: {pin_reason}. "
        rows.append(
            Row(
                "ddq evaluation",
                f"n = {m.n}: symbody vs Pinocchio ABA, both from Python",
                fmt_eval(m.symbody_py),
                f"pinocchio.aba {fmt_eval(m.pin_py)}",
                ratio,
                target,
                ratio >= 0.5 if m.n <= 10 else None,
                f"{how}{harness}symbody in a C loop: {fmt_eval(m.symbody_c)}."
                + ("" if m.pin_cpp is not None else f" {checked}"),
            )
        )
    if not rows:
        rows.append(
            Row(
                "ddq evaluation",
                f"n = {m.n}: symbody vs Pinocchio ABA",
                fmt_eval(m.symbody_c),
                "Pinocchio not installed",
                None,
                target,
                None,
                "skipped: pip install pin cmeel-eigen (the bench extra).",
            )
        )
    return rows


def overhead_row(m: Measured) -> Row:
    """Per-call time of symbody's Python evaluator (``compile_evaluator``) next to ``pinocchio.aba``."""
    case = f"per-call overhead from Python, n = {m.n}: compiled [M | delta] evaluator vs pinocchio.aba"
    how = (
        f"f(t, q, dq, u, p) -> (M, delta) of symbody.codegen.c_eval, call path '{m.call_path}' (one call into the "
        f"CPython extension module compiled with the evaluator: arguments read through the buffer protocol, "
        f"fresh output arrays) against pin.aba(model, data, q, v, tau), both timed from Python in the same run, "
        f"each call including its own evaluation (symbody's [M | delta] alone takes well under "
        f"{fmt_eval(m.symbody_blocks)}, the C loop time of [M | delta] + LDL^T). The ctypes fallback (used "
        f"without Python's headers) of the same evaluator: {fmt_eval(m.symbody_eval_ctypes)} per call."
    )
    alternative = "Pinocchio not installed" if m.pin_py is None else f"pinocchio.aba {fmt_eval(m.pin_py)}"
    return Row(
        "ddq evaluation",
        case,
        fmt_eval(m.symbody_eval),
        alternative,
        None if m.pin_py is None else m.pin_py / m.symbody_eval,
        "< 3 us",
        m.symbody_eval < 3e-6,
        how,
    )


def pydy_rows(m: Measured, describe: bool) -> list[Row]:
    """The rows against PyDy; ``describe`` adds how they are measured (first size only)."""
    if m.pydy_py is None or m.pydy_c is None:
        return [
            Row(
                "ddq evaluation",
                f"n = {m.n}: symbody vs PyDy Cython RHS",
                fmt_eval(m.symbody_c),
                "PyDy or Cython not installed",
                None,
                ">= 100x",
                None,
                "skipped: pip install pydy cython (the bench extra).",
            )
        ]
    ratio = m.pydy_py / m.symbody_c
    return [
        Row(
            "ddq evaluation",
            f"n = {m.n}: symbody C loop vs PyDy Cython RHS (called from Python)",
            fmt_eval(m.symbody_c),
            f"PyDy {fmt_eval(m.pydy_py)}",
            ratio,
            ">= 100x",
            ratio >= 100,
            "PyDy's right-hand side exists only as a Python callable (generate_ode_function, generator='cython', "
            "mass matrix of the speeds, numpy solve); the next two rows compare like with like."
            if describe
            else "",
        ),
        Row(
            "ddq evaluation",
            f"n = {m.n}: vs PyDy Cython RHS, both called from Python",
            fmt_eval(m.symbody_py),
            f"PyDy {fmt_eval(m.pydy_py)}",
            m.pydy_py / m.symbody_py,
            "-",
            None,
            "symbody's compile_accelerations(eq)(t, q, dq, u, p) -> ddq (one call into its CPython extension "
            "module) against PyDy's rhs(x, t, r, p) -> xdot."
            if describe
            else "",
        ),
        Row(
            "ddq evaluation",
            f"n = {m.n}: generated C only, same C loop and LDL^T solve",
            fmt_eval(m.symbody_blocks),
            f"PyDy's C {fmt_eval(m.pydy_c)}",
            m.pydy_c / m.symbody_blocks,
            "-",
            None,
            "symbody's sb_M_delta vs PyDy's generated evaluate() (SymPy cse of KanesMethod's M and forcing), "
            "each followed by the same LDL^T (harness/bench_solve.h), both gcc -O2."
            if describe
            else "",
        ),
    ]


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    sizes = (1,) if smoke else ((1, 3, 10) if quick else (1, 3, 10, 20))
    effort = EFFORT["smoke" if smoke else "quick" if quick else "full"]
    load = os.getloadavg()[0]
    pin_lib, pin_reason = pinocchio_library(compile_if_missing=not (quick or smoke))
    with_pydy = _has("pydy") and _has("Cython")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="symbody_bench_eval_") as tmp:
        for n in sizes:
            m = measure(n, effort, Path(tmp), pin_lib, with_pydy)
            rows += pinocchio_rows(m, pin_reason, describe=n == sizes[0])
            if n == sizes[0]:
                rows.append(overhead_row(m))
            rows += pydy_rows(m, describe=n == sizes[0])
    rows[0].note += (
        f" Machine load average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores during these rows;"
        f" each time is the best of {effort.rounds} rounds of about {effort.round_seconds * 1e3:g} ms."
    )
    return rows


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv, smoke="--smoke" in sys.argv):
        ratio = "-" if r.ratio is None else f"{r.ratio:.2f}x"
        print(f"{r.case} | {r.symbody} | {r.alternative} | {ratio} | {r.target} | {r.met}\n    {r.note}")
