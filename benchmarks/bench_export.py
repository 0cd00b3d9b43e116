"""Export time of native FMUs against the size of the model (issue 13, "Scale").

Each export runs in a child process (``symbody.fmu.export_fmu``, host platform
only, a fresh folder of cached runtime objects shared by all cases so that the
generic runtime is compiled once, before the timings) and reports its wall
time, its CPU time (Python plus compilers) and its peak memory (the largest
resident set of the process, its own ``VmHWM``, and of any compiler it ran,
``resource.getrusage``; a compiler's figure includes the resident set it shares
with the exporting process when it starts), and the peak of the Python side
alone, up to the generated C text (derivation, optimization, tangents, C
emission).  Ratios are taken within one run, against the export
of ``examples/tower_crane.py``:

* the 3-D chain of ``bench_recursive`` with n = 4 (12 DOF, default formulation
  and Jacobian mode): at most 3x;
* a Whipple-bicycle-sized model (:func:`bicycle`: 8 coordinates, one holonomic
  and four non-holonomic constraint rows): at most 3x;
* the chain with n = 8 (and n = 16 without ``--quick``) exports at all, with
  a peak memory under 2 GB.

``--smoke`` exports the chain with n = 2 only.

``--jacobian-speed`` measures what the lower optimization level of the
tangent files (``symbody.fmu.build.DERIVATIVE_LEVEL``) costs at run time: the
generated sources of the bicycle and of the chain n = 4 in the ``forward`` mode,
compiled with their tangent files at ``-O2`` and at that level, linked with
the runtime into a small program that times ``sb_residual_jacobians`` (all the
Jacobian columns of the residual, from the tangent code) at the start values.

Run: ``python benchmarks/bench_export.py [--quick|--smoke|--jacobian-speed]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, Row  # noqa: E402

import symbody as sb  # noqa: E402

#: Peak memory allowed for one export (issue 13).
MEMORY_LIMIT_MB = 2048.0


def bicycle() -> sb.System:
    """A bicycle of the size of the Whipple model: rear frame, fork, two knife-edge wheels rolling on the ground.

    Coordinates: the rear contact point ``x, y``, yaw ``psi``, roll ``phi``, pitch
    ``theta``, the wheel angles and the steer angle (8); constraint rows: the
    front contact on the ground (holonomic) and rolling without slipping of
    both wheels (4 non-holonomic rows).  Geometry and inertias are of the order
    of Meijaard, Papadopoulos, Ruina and Schwab, "Linearized dynamics equations
    for the balance and steer of a bicycle: a benchmark and review", Proc. R.
    Soc. A 463 (2007), not its exact benchmark values.

    Example:
        >>> eq = bicycle().derive()
        >>> eq.nq, eq.nc, eq.nh
        (8, 5, 1)
    """
    s = sb.System("bicycle")
    g = s.parameter("g", 9.81)
    s.gravity((0, 0, -g))
    rr, rf = s.parameter("rR", 0.3), s.parameter("rF", 0.35)
    wb, trail, rake = s.parameter("w", 1.02), s.parameter("c", 0.08), s.parameter("rake", 0.314)
    x, y = s.coordinate("x", 0.0), s.coordinate("y", 0.0)
    psi, phi, theta = s.coordinate("psi", 0.0), s.coordinate("phi", 0.05), s.coordinate("theta", 0.0)
    qr, steer, qf = s.coordinate("q_rear", 0.0), s.coordinate("steer", 0.02), s.coordinate("q_front", 0.0)
    lean = s.base("lean", s.base("heading", s.ground_base, sb.Rz(psi)), sb.Rx(phi))
    frame = s.base("frame", lean, sb.Ry(theta))
    fork = s.base("fork", s.base("head", frame, sb.Ry(rake)), sb.Rz(steer))
    rear_contact = s.point("Pr", s.origin, (x, y, 0))
    rear_centre = s.point("Cr", rear_contact, sb.Vector(lean, 0, 0, rr))
    head = s.point("H", rear_centre, sb.Vector(frame, wb - 0.3, 0, 0.55))
    front_centre = s.point("Cf", head, sb.Vector(fork, 0.3 * sb.cos(rake) - trail, 0, -0.55 + rf - rr))
    axle = sb.Vector(fork, 0, 1, 0)
    down = axle.cross(sb.Vector(s.ground_base, 0, 0, 1).cross(axle)).normalized()  # in the wheel plane, up
    front_contact = s.point("Pf", front_centre, down * (-rf))
    rear = s.solid("rear_wheel", rear_centre, s.base("rear_spin", frame, sb.Ry(qr)), mass=2.0,
                   inertia=(0.0603, 0.12, 0.0603))  # fmt: skip
    body = s.point("B", rear_centre, sb.Vector(frame, 0.3, 0, 0.6))
    s.solid("rear_body", body, frame, mass=85.0, inertia=sb.inertia(9.2, 11.0, 2.8, 0.0, 0.0, 2.4))
    fork_com = s.point("E", head, sb.Vector(fork, 0.02, 0, -0.2))
    s.solid("front_fork", fork_com, fork, mass=4.0, inertia=sb.inertia(0.05892, 0.06, 0.00708, 0.0, 0.0, -0.00756))
    front = s.solid("front_wheel", front_centre, s.base("front_spin", fork, sb.Ry(qf)), mass=3.0,
                    inertia=(0.1405, 0.28, 0.1405))  # fmt: skip
    s.constraint("front_contact", s.position(front_contact).components(s.ground_base)[2])
    s.velocity_constraint("rear_rolling", s.velocity(rear_contact, solid=rear), base=s.ground_base, components="xy")
    s.velocity_constraint("front_rolling", s.velocity(front_contact, solid=front), base=s.ground_base, components="xy")
    return s


_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {bench!r})
from symbody.fmu import export_fmu
case, out, jacobians = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None
if case == "tower_crane":
    from common import load_example
    system = load_example("tower_crane")
elif case == "bicycle":
    from bench_export import bicycle
    system = bicycle()
else:
    from bench_recursive import chain_3d
    system = chain_3d(int(case.split("_")[1]))
def peak_kb():
    # this process's own high-water mark (VmHWM: its memory since exec); ru_maxrss on Linux also keeps
    # the resident set of the process it was forked from (run.py after other benchmarks: hundreds of MB)
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
python_kb = []
def stage(name):
    if name == "compiling":  # code generation done: the peak of the Python side
        python_kb.append(peak_kb())
t0 = time.perf_counter()
eq = system.derive()
t1 = time.perf_counter()
export_fmu(eq, out, platforms=["x86_64-linux"], jacobians=jacobians, progress=stage)
t2 = time.perf_counter()
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
import zipfile
with zipfile.ZipFile(out) as zf:
    code = [i for i in zf.infolist() if i.filename.startswith("sources/model")]
    head = zf.read("sources/model.c")[:4096].decode()
mode = head.split(" * Jacobians: ")[1].split(" ")[0]
print(json.dumps({{"derive": t1 - t0, "export": t2 - t1, "code_kb": sum(i.file_size for i in code) / 1024.0,
                  "files": len(code), "jacobians": mode,
                  "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
                  "peak_mb": max(peak_kb(), kids.ru_maxrss) / 1024.0, "python_mb": python_kb[0] / 1024.0}}))
"""


def export_once(case: str, cache: str, timeout: float = 1800.0, jacobians: str | None = None) -> dict:
    """Derive and export ``case`` (``tower_crane``, ``bicycle`` or ``chain_<n>``) in a child process.

    Returns ``{"derive", "export", "cpu", "peak_mb", "python_mb", ...}`` (seconds, megabytes) or
    ``{"error": text}``.
    """
    env = {**os.environ, "SYMBODY_CACHE": cache}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory(prefix="bench_export_") as tmp:
        cmd = [sys.executable, "-c", _CHILD.format(bench=str(Path(__file__).resolve().parent)), case]
        cmd += [str(Path(tmp) / f"{case}.fmu")] + ([jacobians] if jacobians else [])
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout:.0f} s"}
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _text(r: dict) -> str:
    if "error" in r:
        return r["error"]
    return (
        f"{r['export']:.1f} s (CPU {r['cpu']:.1f} s, peak {r['peak_mb']:.0f} MB, {r['python_mb']:.0f} MB up to the C "
        f"text; {r['jacobians']} Jacobians, "
        f"{r['code_kb']:.0f} kB of C in {r['files']} files)"
    )


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    cases = ["chain_2"] if smoke else ["chain_4", "bicycle", "chain_8"] + ([] if quick else ["chain_16"])
    with tempfile.TemporaryDirectory(prefix="bench_export_cache_") as cache:
        export_once("tower_crane", cache)  # compiles and caches the generic runtime
        base = export_once("tower_crane", cache)
        res = {c: export_once(c, cache) for c in cases}
    if "error" in base:
        raise RuntimeError(f"exporting tower_crane failed: {base['error']}")
    rows = []
    for case in cases:
        r = res[case]
        what = "Whipple-sized bicycle (8 coordinates, 5 rows)" if case == "bicycle" else f"3-D chain n = {case[6:]}"
        ok = "error" not in r and r["peak_mb"] < MEMORY_LIMIT_MB
        ratio = r["export"] / base["export"] if "error" not in r else None
        bounded = case in ("chain_4", "bicycle")
        rows.append(
            Row(
                "FMU export",
                f"export of the {what} vs examples/tower_crane.py",
                _text(r),
                _text(base),
                None if ratio is None else 1.0 / ratio,
                ">= 0.33x (at most 3x the time)" if bounded else f"exports, peak < {MEMORY_LIMIT_MB:.0f} MB",
                ok and (ratio is not None and ratio <= 3.0 if bounded else True),
                "" if "error" in r else f"{ratio:.2f}x the export time, derived in {r['derive']:.2f} s",
            )
        )
    return rows


_TIMER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "symbody_model.h"

static double now(void) /* processor time (ISO C), seconds */
{
    return (double)clock() / CLOCKS_PER_SEC;
}

int main(int argc, char **argv)
{
    const int n = sb_model.nq, nc = sb_model.nc, nu = sb_model.nu, reps = argc > 1 ? atoi(argv[1]) : 1000;
    double *q = calloc((size_t)n, sizeof(double)), *ddq = calloc((size_t)n, sizeof(double));
    double *lam = calloc((size_t)(nc + sb_model.nk + sb_model.nf + 1), sizeof(double));
    double *Rq = calloc((size_t)((n + nc) * n), sizeof(double)), *Rdq = calloc((size_t)((n + nc) * n), sizeof(double));
    double *Ru = calloc((size_t)((n + nc) * (nu + 1)), sizeof(double)), *Rt = calloc((size_t)(n + nc), sizeof(double));
    for (int i = 0; i < n; ++i) { q[i] = sb_model.q0[i] + 0.1 + 0.01 * i; ddq[i] = 0.05 * i; }
    for (int r = 0; r < nc; ++r) lam[r] = 1.0 + r;
    SbPoint in = {0.5, q, sb_model.dq0, sb_model.u0, sb_model.p0, ddq, lam};
    double best = 1e30, sum = 0.0;
    for (int round = 0; round < 7; ++round) {
        double t0 = now();
        for (int k = 0; k < reps; ++k) {
            q[0] += 1e-12;
            sb_residual_jacobians(&in, Rq, Rdq, Ru, Rt);
        }
        double t = (now() - t0) / reps;
        best = t < best ? t : best;
    }
    for (int i = 0; i < (n + nc) * n; ++i) sum += Rq[i] + Rdq[i];
    printf("%.6g %.17g\n", best * 1e6, sum);
    return 0;
}
"""


def jacobian_speed(case: str, levels: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    """Microseconds of one ``sb_residual_jacobians`` (best of 3 x 7 rounds) with the tangent files of ``case``
    (``bicycle`` or ``chain_<n>``, ``forward`` mode) compiled at each of ``levels``, and a checksum of the
    Jacobians (the same at every level: no optimization level changes a value in ISO C)."""
    from bench_recursive import chain_3d

    from symbody.codegen.c_eval import c_compiler
    from symbody.fmu import build
    from symbody.fmu.spec import GENERIC_SOURCES, FmuSpec

    system = bicycle() if case == "bicycle" else chain_3d(int(case.split("_")[1]))
    spec = FmuSpec(system.derive(), 2, "both", "forward")
    cc, flags = c_compiler(), build.compile_flags()
    runtime = build.runtime_objects(cc, flags)
    out: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench_jacobians_") as tmp:
        work = Path(tmp)
        build.write_sources(spec, work / "sources")
        (work / "timer.c").write_text(_TIMER)
        programs = {}
        for level in levels:
            objects = []
            for name in spec.source.files:
                own = [level if f == "-O2" else f for f in flags] if name in spec.source.derivative_files else flags
                obj = work / f"{name[:-2]}{level}.o"
                cmd = [cc, *own, "-c", str(work / "sources" / name), f"-I{work / 'sources'}", "-o", str(obj)]
                subprocess.run(cmd, check=True)
                objects.append(str(obj))
            exe = work / f"timer{level}"
            cmd = [cc, *flags, str(work / "timer.c"), f"-I{work / 'sources'}", *objects]
            cmd += [str(runtime[n]) for n in GENERIC_SOURCES] + ["-lm", "-o", str(exe)]
            subprocess.run(cmd, check=True)
            programs[level] = exe
        for _ in range(3):  # interleaved, the best of each: a passing load slows one level less
            for level, exe in programs.items():
                timed = subprocess.run([str(exe), "2000"], capture_output=True, text=True, check=True)
                micro, checksum = (float(x) for x in timed.stdout.split())
                out[level] = (min(micro, out.get(level, (micro, 0.0))[0]), checksum)
    return out


def main(argv: list[str]) -> None:
    if "--jacobian-speed" in argv:
        from symbody.fmu.build import DERIVATIVE_LEVEL

        levels = tuple(dict.fromkeys(("-O2", DERIVATIVE_LEVEL, *[a for a in argv if a.startswith("-O")])))
        for case in ("bicycle", "chain_4"):
            res = jacobian_speed(case, levels)
            base = res["-O2"][0]
            text = ", ".join(f"{lv} {us:.1f} us ({us / base:.2f}x)" for lv, (us, _) in res.items())
            same = len({c for _, c in res.values()}) == 1
            print(f"sb_residual_jacobians of {case} (forward mode): {text}; same values: {same}")
        return
    for row in run(quick="--quick" in argv, smoke="--smoke" in argv):
        print(f"{row.case}\n    symbody:     {row.symbody}\n    tower crane: {row.alternative}\n    {row.note}")


if __name__ == "__main__":
    main(sys.argv[1:])
