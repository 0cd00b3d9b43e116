"""Native FMUs under the C test hosts of ``tests/fmu/c/``, with sanitizers and valgrind.

``fmi2_host.c`` and ``fmi3_host.c`` call every FMI function of their version,
the right way and the wrong way (NULL instance and arrays, unknown value
references, wrong types and counts, NaN, infinite and out-of-range values,
calls in the wrong state, corrupted FMU states, numerical faults), check the
status, the log message and that a failed call leaves the state as it was,
and instantiate/step/free 1000 times.  They link a generated ``model.c`` with
the runtime of ``fmu_templates/`` directly, so the tools below see the whole
FMU:

* AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included):
  every host run, three models (open chain, closed loop, redundant
  constraints), FMI 2 and FMI 3;
* ThreadSanitizer: instances in parallel threads (one per thread) give the
  single-thread results bit for bit, without data races;
* valgrind memcheck: a long simulation of every interface and solver, and
  the abuse run, without invalid accesses, uninitialized reads or leaks.

A tool that is not installed skips its tests with the reason. The runs under the sanitizers and
valgrind are marked slow (their instrumented builds of the runtime alone take half a minute): CI
runs them, the default run checks only that the hosts call every FMI function.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

import symbody as sb
from symbody.codegen.c_eval import c_compiler
from symbody.fmu.build import fmi_headers_dir, template_dir
from symbody.fmu.spec import GENERIC_SOURCES, FmuSpec
from symbody.loader import load_model

from support.motion_models import tied_carts

ROOT = Path(__file__).resolve().parents[2]
HOSTS = ROOT / "tests" / "fmu" / "c"
EXAMPLES = ROOT / "examples"

FLAVORS = {
    "asan": ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
    "tsan": ["-O1", "-g", "-fsanitize=thread"],
    "plain": ["-O1", "-g"],  # for valgrind
}
SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1",
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    "TSAN_OPTIONS": "halt_on_error=1:second_deadlock_stack=1",
}


def redundant_pendulum() -> sb.System:
    """A pendulum in Cartesian coordinates with its rod constraint twice: [M D^T; D 0] is singular (LU path).

    The mass declares a range that admits negative values, so that the runtime's own check of an
    indefinite mass matrix is exercised (a mass parameter without a declared range gets ``min = 0``).
    """
    s = sb.System("redundant_pendulum")
    L, g = s.parameter("L", 1.0, unit="m"), s.parameter("g", 9.81, unit="m/s2")
    m = s.parameter("m", 1.0, unit="kg", min=-1e6)
    x, y = s.coordinate("x", 0.6, unit="m"), s.coordinate("y", -0.8, unit="m")
    s.particle("bob", s.point("P", s.origin, (x, y, 0)), m)
    s.gravity((0, -g, 0))
    s.generalized_force("push", x, s.input("F", unit="N"))
    s.constraint("rod", x**2 + y**2 - L**2)
    s.constraint("rod_again", 2 * (x**2 + y**2 - L**2))
    s.fix_initial(x)
    s.output("tension", -s.multiplier("rod") - 2 * s.multiplier("rod_again"), unit="N/m")
    return s


def root_spring() -> sb.System:
    """A mass on a spring whose force grows as the square root of the stretch, ``m x'' = -k sqrt(x)``.

    At ``x = 0`` the force is finite (zero) but its derivative ``-k / (2 sqrt(x))`` is infinite: the
    model is not differentiable there, and directional derivatives cannot be finite.
    """
    s = sb.System("root_spring")
    k = s.parameter("k", 1.0, min=0.0)
    x = s.coordinate("x", 1.0)
    s.particle("body", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("spring", x, -k * sb.sqrt(x))
    return s


# model -> (System builder, host arguments: bounded parameters and faults that must give Discard)
MODELS = {
    "simple_pendulum": (
        lambda: load_model(EXAMPLES / "simple_pendulum.py"),
        [
            "mass=m",
            "length=l",
            "discard=m:0:singular mass matrix",
            "discard=l:0:singular mass matrix",
            # a damper 1e4 N m s/rad makes the pendulum stiff (lambda = -1e4 1/s): rk4 at solver.step = 1e-3
            # is beyond its stability limit (|h lambda| = 10 > 2.8); its message says what to change
            "rk4-discard=c:1e4:solver.step",
            # a torque of 1e308 N m: the rk4 update overflows although every stage is finite
            "rk4-discard=T:1e308:not finite",
        ],
    ),
    "four_bar": (
        lambda: load_model(EXAMPLES / "four_bar.py"),
        [
            "cs-discard=l4:10:Newton iteration did not converge",  # the loop cannot close: projection fails
            "keep-velocity=theta3",  # theta1 is held for assembly; the rocker's start velocity is the host's
        ],
    ),
    "root_spring": (root_spring, ["nondiff=x:0"]),
    # a motion input moving a constraint, first-order states whose rates use its multiplier
    "tied_carts": (tied_carts, []),
    "redundant_pendulum": (
        redundant_pendulum,
        ["discard=m:0:has no inertia", "discard=m:-1:not positive semi-definite"],
    ),
}


def _compiles(flags: tuple[str, ...], tmp: Path) -> bool:
    """Whether the C compiler builds and runs a program with these flags (sanitizer runtimes installed)."""
    src = tmp / "probe.c"
    src.write_text('#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n')
    exe = tmp / ("probe_" + str(abs(hash(flags))))
    try:
        cc = c_compiler()
        if subprocess.run([cc, *flags, str(src), "-o", str(exe)], capture_output=True).returncode != 0:
            return False
        return subprocess.run([str(exe)], capture_output=True, env=_env(), timeout=30).returncode == 0
    except (OSError, sb.ExportError, subprocess.TimeoutExpired):
        return False


def _env() -> dict[str, str]:
    return {**os.environ, **SANITIZER_ENV}


class HostBuilder:
    """Builds the test hosts: generic objects once per flavor, ``model.c`` and the link per model."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.cc = c_compiler()
        self.includes = [f"-I{template_dir()}", f"-I{fmi_headers_dir()}", f"-I{HOSTS}"]

    def _run(self, cmd: list[str]) -> None:
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"

    @functools.cache  # noqa: B019 - one builder per session
    def generic_objects(self, flavor: str, version: int) -> tuple[Path, ...]:
        out = self.workdir / f"{flavor}{version}"
        out.mkdir(parents=True, exist_ok=True)
        sources = [template_dir() / n for n in (*GENERIC_SOURCES, f"fmi{version}Functions.c")]
        sources.append(HOSTS / f"fmi{version}_host.c")
        flags = ["-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror", *FLAVORS[flavor]]
        procs = []
        for src in sources:
            obj = out / (src.stem + ".o")
            cmd = [self.cc, *flags, *self.includes, "-c", str(src), "-o", str(obj)]
            procs.append((obj, cmd, subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)))
        for _obj, cmd, p in procs:
            _, err = p.communicate()
            assert p.returncode == 0, f"{' '.join(cmd)}\n{err}"
        return tuple(obj for obj, _, _ in procs)

    @functools.cache  # noqa: B019
    def model_source(self, model: str, version: int) -> Path:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sb.RedundantConstraintWarning)
            eq = MODELS[model][0]().derive()
        out = self.workdir / f"{model}{version}"
        out.mkdir(parents=True, exist_ok=True)
        (out / "model.c").write_text(FmuSpec(eq, version, "both").source.text)
        return out / "model.c"

    @functools.cache  # noqa: B019
    def host(self, model: str, version: int, flavor: str) -> Path:
        objects = self.generic_objects(flavor, version)
        src = self.model_source(model, version)
        flags = ["-std=c99", *FLAVORS[flavor]]
        obj = src.with_name(f"model_{flavor}.o")
        self._run([self.cc, *flags, *self.includes, "-c", str(src), "-o", str(obj)])
        exe = src.with_name(f"fmi{version}_host_{flavor}")
        self._run([self.cc, *flags, str(obj), *map(str, objects), "-o", str(exe), "-lm", "-pthread"])
        return exe


@pytest.fixture(scope="module")
def builder(tmp_path_factory) -> HostBuilder:
    try:
        return HostBuilder(tmp_path_factory.mktemp("hosts"))
    except sb.ExportError as e:
        pytest.skip(f"no C compiler: {e}")


@functools.cache
def _flavor_works(flavor: str, tmp: str) -> bool:
    return _compiles(tuple(FLAVORS[flavor]), Path(tmp))


def _need(flavor: str, tmp_path_factory) -> None:
    if not _flavor_works(flavor, str(tmp_path_factory.getbasetemp())):
        pytest.skip(f"the C compiler cannot build and run programs with {' '.join(FLAVORS[flavor][2:])}")


def run_host(exe: Path, *args: str, wrapper: tuple[str, ...] = (), timeout: float = 300) -> str:
    proc = subprocess.run(
        [*wrapper, str(exe), *args], capture_output=True, text=True, env=_env(), timeout=timeout, cwd=exe.parent
    )
    report = f"{' '.join(proc.args)}\nexit status {proc.returncode}\n{proc.stdout}\n{proc.stderr[-20000:]}"
    assert proc.returncode == 0, report
    assert " 0 failed" in proc.stdout, report
    for alarm in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "WARNING: ThreadSanitizer"):
        assert alarm not in proc.stderr, report
    return proc.stdout


@pytest.mark.parametrize("version", (2, 3))
def test_the_hosts_call_every_fmi_function(version):
    """Every function type of the FMI headers is called by the host (a new one must be added to it)."""
    types = (fmi_headers_dir() / f"fmi{version}FunctionTypes.h").read_text()
    functions = set(re.findall(rf"\b(fmi{version}\w+)TYPE\b", types))
    host = (HOSTS / f"fmi{version}_host.c").read_text()
    assert len(functions) > 40
    assert sorted(f for f in functions if f"{f}(" not in host) == []


def _host_functions(version: int) -> dict[str, str]:
    """name -> body of each function the host defines, its standard's names made alike (fmi2/fmi3 -> fmiN)."""
    text = (HOSTS / f"fmi{version}_host.c").read_text()
    text = re.sub(r"fmi[23]Component|fmi[23]Instance", "Fmu", text).replace(f"fmi{version}", "fmiN")
    found = re.finditer(r"^static [^;{]*?\b(\w+)\(([^)]*)\)\n\{\n(.*?)^\}", text, re.M | re.S)
    return {m.group(1): m.group(3) for m in found}


def test_the_hosts_share_their_common_checks():
    """The checks both hosts run are written once (host_checks.h): no function of one host is the other's after
    renaming, the adapters to each standard's functions (h_*) aside."""
    fmi2, fmi3 = _host_functions(2), _host_functions(3)
    assert len(fmi2) > 15 and len(fmi3) > 15
    same = sorted(name for name in fmi2.keys() & fmi3.keys() if fmi2[name] == fmi3[name] and not name.startswith("h_"))
    assert same == []
    checks = set(re.findall(r"^static [^;{]*?\b(\w+)\([^)]*\)\n\{", (HOSTS / "host_checks.h").read_text(), re.M))
    assert {"simulate", "test_cycles", "test_stop_time", "run_threads"} <= checks
    assert checks.isdisjoint(fmi2) and checks.isdisjoint(fmi3), checks & (fmi2.keys() | fmi3.keys())


@pytest.mark.slow
@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("model", sorted(MODELS))
def test_every_fmi_function_under_address_and_undefined_sanitizers(model, version, builder, tmp_path_factory):
    """Abuse of every FMI function: right status and message, state kept, no memory error, UB or leak."""
    _need("asan", tmp_path_factory)
    out = run_host(builder.host(model, version, "asan"), "abuse", *MODELS[model][1])
    checks = int(out.split(":")[1].split()[0])
    assert checks > 5000  # the host really ran its checks (1000 instantiate/step/free cycles included)


@pytest.mark.slow
@pytest.mark.parametrize("version", (2, 3))
def test_parallel_instances_under_thread_sanitizer(version, builder, tmp_path_factory):
    """Eight instances in eight threads, twice: bit-identical to one instance at a time, no data race."""
    _need("tsan", tmp_path_factory)
    run_host(builder.host("four_bar", version, "tsan"), "threads", "seconds=1")


def _valgrind() -> str:
    exe = shutil.which("valgrind")
    if exe is None:
        pytest.skip("valgrind is not installed (the memcheck run of the FMU needs it)")
    return exe


VALGRIND = ("--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=all", "--track-origins=yes", "-q")


@pytest.mark.slow
@pytest.mark.parametrize("version", (2, 3))
def test_long_run_is_valgrind_clean(version, builder):
    """Every solver and both interfaces for 5 s of a closed loop, snapshots, derivatives: memcheck clean."""
    valgrind = _valgrind()
    run_host(builder.host("four_bar", version, "plain"), "long", "seconds=5", wrapper=(valgrind, *VALGRIND))


@pytest.mark.slow
def test_abuse_is_valgrind_clean(builder):
    """The error paths read no uninitialized memory (what the sanitizers cannot see)."""
    valgrind = _valgrind()
    exe = builder.host("redundant_pendulum", 2, "plain")
    run_host(exe, "abuse", *MODELS["redundant_pendulum"][1], wrapper=(valgrind, *VALGRIND))
