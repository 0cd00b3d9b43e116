"""Mass-matrix factorization in the FMU runtime: Featherstone's LTDL along the tree vs dense L D L^T.

For a model without constraints whose mass matrix has the sparsity of a kinematic tree, the
runtime factors ``M = L^T D L`` along the tree (``fmu_templates/sb_ltdl.c``; R. Featherstone,
Rigid Body Dynamics Algorithms, Springer, 2008, sec. 6.5) instead of the dense ``L D L^T``.
The work timed is one ``sb_accelerations()`` call, the evaluation behind every derivative and
integration stage of the FMU ([M | delta] from model.c, factorization, solve), in a C loop
(``harness/symbody_ddq.c``) with the FMU's compiler flags: the same sources compiled once as
shipped and once with ``-DSB_MASS_DENSE``.  Models: the 3-D chain of issue 13 with n = 8
bodies (24 coordinates: a serial chain, so M is full and LTDL does the dense work through
indirect indexing) and a binary tree of 8 bodies on the same spherical joints (M is sparse).
LTDL is forced in both (model.c uses it only where it saves ``MIN_SAVING`` times the dense
work, so the chain's FMU keeps the dense loops: this benchmark is what sets that factor).
The accelerations of both builds are compared on 16 random states before timing.

Run: ``python benchmarks/bench_ltdl.py [--quick|--smoke]``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_eval_speed import EFFORT, HARNESS, LoopLibrary, _run, best_interleaved, fmt_eval  # noqa: E402
from bench_recursive import chain_3d  # noqa: E402
from common import Row  # noqa: E402

import symbody as sb  # noqa: E402
from symbody.codegen.c_eval import c_compiler  # noqa: E402
from symbody.codegen.mass_tree import factorization_work, mass_parents, mass_tree_source  # noqa: E402
from symbody.fmu.build import CFLAGS, template_dir  # noqa: E402
from symbody.fmu.sources import ModelSource  # noqa: E402
from symbody.fmu.spec import GENERIC_SOURCES  # noqa: E402
from symbody.symbolic.expr import ZERO  # noqa: E402

N_STATES = 16


def binary_tree_3d(n: int) -> sb.System:
    """``n`` bodies on Z-Y-X spherical joints, body ``k`` hanging from body ``(k - 1) // 2``.

    Example:
        >>> binary_tree_3d(3).derive().nq
        9
    """
    s = sb.System(f"tree3d_{n}")
    s.gravity((0, 0, -s.parameter("g", 9.81)))
    bases, points = [], []
    for k in range(n):
        parent = (k - 1) // 2 if k else -1
        angles = [s.coordinate(f"q{k}_{a}", 0.1 * (k + 1 + i)) for i, a in enumerate("zyx")]
        base0 = s.ground_base if parent < 0 else bases[parent]
        point = s.origin
        if parent >= 0:
            side = 0.3 if k % 2 else -0.3
            point = s.point(f"P{k}", points[parent], sb.Vector(base0, s.parameter(f"l{k}", 1.0), side, 0))
        base = s.base(f"B{k}", base0, sb.EulerAngles("zyx", angles))
        com = [s.parameter(f"c{k}_{a}", v) for a, v in zip("xyz", (0.5, 0.05, -0.03))]
        moments = [
            s.parameter(f"I{k}_{a}", v)
            for a, v in zip(("xx", "yy", "zz", "xy", "yz", "xz"), (0.1, 0.3, 0.35, 0.01, -0.02, 0.015))
        ]
        s.solid(f"link{k}", point, base, mass=s.parameter(f"m{k}", 1.0), com=com, inertia=sb.inertia(*moments))
        bases.append(base)
        points.append(point)
    return s


class UnusedJacobians:
    """Zero residual and output Jacobians: ``sb_accelerations`` never calls them, and the exact ones
    of a 24-coordinate model make model.c megabytes long (minutes of compilation)."""

    def __init__(self, eq):
        rows, nq, nu, ny = eq.nq + eq.nc, eq.nq, eq.nu, len(eq.outputs)
        zeros = lambda r, c: [[ZERO] * c for _ in range(r)]  # noqa: E731
        self.R_q, self.R_dq, self.R_u, self.R_t = zeros(rows, nq), zeros(rows, nq), zeros(rows, nu), [ZERO] * rows
        self.V_q, self.V_t = zeros(eq.nc, nq), [ZERO] * eq.nc
        self.Y_q, self.Y_dq, self.Y_u, self.Y_t = zeros(ny, nq), zeros(ny, nq), zeros(ny, nu), [ZERO] * ny
        self.Y_ddq, self.Y_lam = zeros(ny, nq), zeros(ny, eq.nc)


def model_object(eq, folder: Path) -> Path:
    """model.c (and, for large models, its parts) compiled once (FMU flags) into one object both builds link."""
    folder.mkdir(exist_ok=True)
    files = dict(ModelSource(eq, "me", jacobians=UnusedJacobians(eq)).files)
    # LTDL even where model.c keeps the dense factorization (a chain): the comparison that sets MIN_SAVING
    files["model.c"] = files["model.c"].replace(mass_tree_source(eq), mass_tree_source(eq, min_saving=0.0))
    for name, text in files.items():
        (folder / name).write_text(text)
    obj = folder / "model.o"
    sources = [str(folder / name) for name in files]
    _run([c_compiler(), *CFLAGS, f"-I{template_dir()}", "-r", "-nostdlib", *sources, "-o", str(obj)], "model.c")
    return obj


def runtime_library(model: Path, dense: bool) -> LoopLibrary:
    """The model object + FMU runtime + ``harness/symbody_ddq.c`` (FMU flags), LTDL or forced dense."""
    tdir = template_dir()
    sources = [model, HARNESS / "symbody_ddq.c", *(tdir / s for s in GENERIC_SOURCES)]
    lib = model.parent / ("dense.so" if dense else "ltdl.so")
    cmd = [c_compiler(), *CFLAGS, *(["-DSB_MASS_DENSE"] if dense else []), "-shared", f"-I{tdir}", f"-I{HARNESS}"]
    _run([*cmd, *map(str, sources), "-o", str(lib), "-lm"], f"the runtime harness of {model.parent.name}")
    return LoopLibrary(lib, "dense" if dense else "LTDL")


def measure(name: str, system: sb.System, effort, workdir: Path) -> Row:
    eq = system.derive(formulation="recursive")
    parents = mass_parents(eq.M)
    if parents is None or eq.nc:
        raise RuntimeError(f"{name}: the mass matrix has no tree structure")
    model = model_object(eq, workdir / eq.name)
    ltdl, dense = runtime_library(model, dense=False), runtime_library(model, dense=True)
    p, u = np.asarray(eq.p0, float), np.asarray(eq.u0, float)
    for lib in (ltdl, dense):
        lib.init(eq.nq - 1, p, u)  # the harness checks n + 1 == nq
    rng = np.random.default_rng(7)
    X = rng.uniform(-1.0, 1.0, (N_STATES, 2 * eq.nq))
    a = np.array([ltdl.ddq(x)[: eq.nq] for x in X])
    b = np.array([dense.ddq(x)[: eq.nq] for x in X])
    agreement = float(np.abs(a - b).max() / np.abs(b).max())
    if not agreement < 1e-12:
        raise RuntimeError(f"{name}: LTDL and dense accelerations differ by {agreement:.1e} (relative)")
    times = best_interleaved({"ltdl": lambda c: ltdl.loop(X, c), "dense": lambda c: dense.loop(X, c)}, effort)
    work, dense_work = factorization_work(parents)
    ratio = times["dense"] / times["ltdl"]
    shipped = "LTDL" if "mass_parent[]" in mass_tree_source(eq) else "the dense factorization"
    return Row(
        "tree factorization",
        f"{name} ({eq.nq} coordinates): sb_accelerations, LTDL vs dense L D L^T",
        fmt_eval(times["ltdl"]),
        f"dense {fmt_eval(times['dense'])}",
        ratio,
        "- (recorded)",
        None,
        f"Both builds link the same model.c (its Jacobian functions, not called here, left empty) with the runtime "
        f"(gcc {' '.join(CFLAGS)}), one with -DSB_MASS_DENSE; "
        f"each call evaluates [M | delta], factors M and solves. Factorization work about {work} multiply-adds "
        f"along the tree vs {dense_work} dense. ddq agree on {N_STATES} random states to {agreement:.0e} "
        f"relative. The FMU of this model uses {shipped}. Best of {effort.rounds} rounds of about "
        f"{effort.round_seconds * 1e3:g} ms; machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.",
    )


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    effort = EFFORT["smoke" if smoke else "quick" if quick else "full"]
    cases = [("3-D chain n = 2", chain_3d(2))] if smoke else [("3-D chain n = 8", chain_3d(8))]
    if not smoke:
        cases.append(("binary tree of 8 bodies, spherical joints", binary_tree_3d(8)))
    with tempfile.TemporaryDirectory(prefix="symbody_bench_ltdl_") as tmp:
        return [measure(name, system, effort, Path(tmp)) for name, system in cases]


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv, smoke="--smoke" in sys.argv):
        print(f"{r.case} | {r.symbody} | {r.alternative} | {r.ratio:.2f}x\n    {r.note}")
