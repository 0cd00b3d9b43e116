"""Building native FMUs: sources, compilation with the system C compiler, packaging.

An FMU is a ZIP file with ``modelDescription.xml``, ``binaries/<platform>/
<modelIdentifier>.{so,dll}`` for every platform built (:mod:`symbody.fmu.platforms`:
the host, Windows x64 with mingw-w64, aarch64 Linux) and ``sources/`` (the
generated ``model.c``, the generic runtime of ``fmu_templates/`` and the FMI
headers vendored in ``symbody/fmu/fmi_headers``; FMI 3 adds
``sources/buildDescription.xml``), so that importers on other platforms can
rebuild it.  The generic runtime does not depend on the model, so its object
files are compiled once per compiler and flags and cached (``$SYMBODY_CACHE/objects`` or
``~/.cache/symbody/objects``, private to the user and verified before use: see
:mod:`symbody.codegen.build_cache`); only ``model.c`` and its ``model_<k>.c`` are compiled per
model and platform, the platforms in parallel, the files of each platform in
parallel too, longest first (:func:`compile_order`).  The files that hold
derivative code only (the tangent code of the ``forward`` Jacobian mode) are
compiled at :data:`DERIVATIVE_LEVEL` (:func:`derivative_flags`), the rest at -O2.

Linux binaries are compiled with ``sb_glibc_floor.h`` forced in, so they need
no symbol version newer than GLIBC_2.17.  Windows DLLs link libgcc statically
and export only the FMI functions (``__declspec(dllexport)`` of the FMI
headers), so they depend on the Windows system DLLs only.

The FMU is written atomically: it is assembled in a temporary file next to
the destination and moved into place only when complete, so a failure never
leaves a partial file nor touches an existing one.

Example:
    >>> import symbody as sb  # doctest: +SKIP
    >>> from symbody.fmu import export_fmu  # doctest: +SKIP
    >>> export_fmu(system, "pendulum.fmu", fmi_version=3, kind="both")  # doctest: +SKIP
    PosixPath('pendulum.fmu')
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple, TypeAlias

from ..codegen.build_cache import cached_build, entry_key
from ..codegen.c_eval import c_compiler
from ..errors import ExportError
from .description import build_description, model_description
from .files import write_atomically
from .platforms import Platform, host_platform, select_platforms
from .spec import GENERIC_SOURCES, FmuSpec

if TYPE_CHECKING:
    from .controller_spec import ControllerSpec

    #: What a native build reads: a model's spec or a controller's.
    NativeSpec: TypeAlias = FmuSpec | ControllerSpec

#: Flags of the host build (position-independent code for a shared library).
CFLAGS = ("-std=c99", "-O2", "-fPIC")
#: Optimization level of the files of derivative code (:func:`derivative_flags`).  The tangent code of the
#: ``forward`` mode is long straight-line arithmetic, most of the C of a large model: gcc 12 compiles it at
#: -Og (its level for fast compilation with reasonable optimization) in about half the time of -O2, and the
#: Jacobians it gives evaluate within 5 % of -O2, with the same values (``benchmarks/bench_export.py
#: --jacobian-speed``: bicycle and 3-D chain n = 4, x86-64).  No level changes a value: ISO C modes contract
#: no floating-point operations.  Compilers without -Og (clang) read it as -O1.
DERIVATIVE_LEVEL = "-Og"
#: Compile time per byte of a derivative file relative to -O2 (gcc 12, the files of the benchmarks above).
DERIVATIVE_SPEED = 0.5
WRAPPERS = ("fmi2Functions.c", "fmi3Functions.c")
#: The runtime files of a build: those of a model's FMU (:class:`~symbody.fmu.spec.FmuSpec`) and both FMI
#: wrappers; a controller's (:class:`~symbody.fmu.controller_spec.ControllerSpec`) has its own, named by its spec.
MODEL_RUNTIME = (*GENERIC_SOURCES, *WRAPPERS)
#: Forced-include header of the Linux builds (glibc symbol versions), not shipped in sources/.
GLIBC_FLOOR_HEADER = "sb_glibc_floor.h"
#: Memory estimate of one compiler (gcc 12 -O2 on the generated files of the 3-D chain: 40-95 kB of C,
#: 40-145 MB resident): this much per byte of source, plus :data:`COMPILER_BASE_BYTES`.
COMPILER_BYTES_PER_SOURCE_BYTE = 2000
COMPILER_BASE_BYTES = 64 * 2**20
#: How often the build looks for a finished compiler.
POLL_SECONDS = 0.005


def template_dir() -> Path:
    """The folder of the hand-written C runtime (``fmu_templates/``).

    Raises:
        ExportError: the templates cannot be found.
    """
    env = os.environ.get("SYMBODY_TEMPLATES")
    candidates = [Path(env)] if env else []
    here = Path(__file__).resolve()
    candidates += [here.parent / "templates", here.parents[3] / "fmu_templates"]
    for c in candidates:
        if (c / "symbody_model.h").is_file():
            return c
    raise ExportError(
        "the FMU templates (fmu_templates/) were not found; set SYMBODY_TEMPLATES to their folder "
        f"(looked in {', '.join(str(c) for c in candidates)})"
    )


def fmi_headers_dir() -> Path:
    """The FMI 2 / FMI 3 headers vendored in the package (``symbody/fmu/fmi_headers``, BSD licensed)."""
    d = Path(__file__).resolve().parent / "fmi_headers"
    if not (d / "fmi2Functions.h").is_file() or not (d / "fmi3Functions.h").is_file():
        raise ExportError(f"the FMI headers were not found in {d}: the symbody installation is incomplete")
    return d


def fmi_headers(fmi_version: int) -> list[Path]:
    d = fmi_headers_dir()
    return sorted(d.glob(f"fmi{fmi_version}*.h"))


def write_sources(spec: NativeSpec, directory: Path) -> list[Path]:
    """Write everything ``sources/`` holds into ``directory``; returns the C files to compile.

    ``spec`` is a model's :class:`~symbody.fmu.spec.FmuSpec` or anything with the same reading
    interface (a controller's :class:`~symbody.fmu.controller_spec.ControllerSpec`): its generated
    ``source.files``, the template files ``runtime_sources``, ``runtime_headers`` and ``wrapper_source``.
    """
    directory.mkdir(parents=True, exist_ok=True)
    tdir = template_dir()
    for name, text in spec.source.files.items():
        (directory / name).write_text(text)
    for name in (*spec.runtime_sources, *spec.runtime_headers, spec.wrapper_source):
        shutil.copyfile(tdir / name, directory / name)
    for h in fmi_headers(spec.fmi_version):
        shutil.copyfile(h, directory / h.name)
    if spec.fmi_version == 3:
        (directory / "buildDescription.xml").write_bytes(build_description(spec))
    return [directory / n for n in spec.source_files]


def _cannot_run(cc: str, error: OSError) -> ExportError:
    """The error for a C compiler that cannot be started, saying where its name came from."""
    origin = " (set by the CC environment variable)" if os.environ.get("CC") == cc else ""
    return ExportError(f"cannot run the C compiler {cc!r}{origin}: {error.strerror or error}")


class _Cancelled(Exception):
    """A compilation stopped because another platform's compilation of the same export failed."""


def _wait(proc: subprocess.Popen, stop: threading.Event | None) -> tuple[str, str]:
    """Wait for a compiler process; kill it when ``stop`` is set (another compilation failed)."""
    while True:
        try:
            return proc.communicate(timeout=0.05)
        except subprocess.TimeoutExpired:
            if stop is not None and stop.is_set():
                proc.kill()
                proc.communicate()
                raise _Cancelled() from None


def _run(cmd: list[str], what: str, stop: threading.Event | None = None) -> None:
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise _cannot_run(cmd[0], e) from None
    try:
        out, err = _wait(proc, stop)
    except BaseException:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        raise
    if proc.returncode != 0:
        msg = (err or out).strip()
        raise ExportError(f"compiling {what} failed:\n{msg[:4000]}")


def _compiler_id(cc: str) -> str:
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, check=False).stdout
    except OSError as e:
        raise _cannot_run(cc, e) from None
    return out.splitlines()[0] if out else cc


def compile_flags(platform: Platform | None = None) -> tuple[str, ...]:
    """C compiler flags of one platform (default: the host)."""
    p = platform or host_platform()
    flags = ["-std=c99", "-O2"]
    if p.system != "windows":
        flags.append("-fPIC")
    if p.system == "linux":
        flags += ["-include", str(template_dir() / GLIBC_FLOOR_HEADER)]
    if p.name.startswith("aarch64"):
        # GCC schedules instructions before register allocation at -O2 on aarch64 (not on x86-64); on the
        # long straight-line blocks of model.c that pass doubles the compile time of the cross build
        flags.append("-fno-schedule-insns")
    return tuple(flags)


def derivative_flags(platform: Platform | None = None) -> tuple[str, ...]:
    """Compiler flags of the generated files that hold derivative code only (``ModelSource.derivative_files``:
    the tangent functions of the ``forward`` Jacobian mode): those of :func:`compile_flags` at
    :data:`DERIVATIVE_LEVEL`.

    Example:
        >>> from symbody.fmu.platforms import PLATFORMS
        >>> derivative_flags(PLATFORMS["x86_64-windows"])
        ('-std=c99', '-Og')
    """
    return tuple(DERIVATIVE_LEVEL if f == "-O2" else f for f in compile_flags(platform))


def link_flags(platform: Platform | None = None) -> tuple[str, ...]:
    """Linker flags of one platform after the objects (libgcc static on Windows, libm elsewhere).

    Windows DLLs get no link time stamp, no symbol table and the default image base (the automatic
    one hashes the temporary file name), so that the same model exported twice gives the same
    binaries: builds are reproducible and a parameter study recognises its FMU again.
    """
    p = platform or host_platform()
    if p.system == "windows":
        return ("-static-libgcc", "-Wl,--no-insert-timestamp", "-Wl,--disable-auto-image-base", "-s")
    return ("-lm",)


def available_memory() -> int | None:
    """Bytes of memory available to new processes (``MemAvailable`` of ``/proc/meminfo``), None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def parallel_compilers(cores: int, source_bytes: list[int], available: int | None) -> int:
    """How many compilers run at once: one per core, but no more than half of the ``available`` memory holds
    at the estimate for the largest source (:data:`COMPILER_BYTES_PER_SOURCE_BYTE`); always at least one.

    Example:
        >>> parallel_compilers(64, [40_000, 90_000], None)
        64
        >>> parallel_compilers(64, [40_000, 90_000], 2 * 2**30)  # 236 MiB each, 1 GiB for all
        4
    """
    width = max(1, cores)
    if available is None or not source_bytes:
        return width
    each = COMPILER_BASE_BYTES + COMPILER_BYTES_PER_SOURCE_BYTE * max(source_bytes)
    return max(1, min(width, (available // 2) // each))


class CompileJob(NamedTuple):
    """One compilation: ``source`` into ``obj``, with ``flags`` instead of the build's own when given;
    ``speed`` is the compiler's time per byte relative to the build's own flags (for :func:`compile_order`)."""

    source: Path
    obj: Path
    flags: tuple[str, ...] | None = None
    speed: float = 1.0


def compile_order(jobs: list[CompileJob], size: Callable[[Path], int] | None = None) -> list[CompileJob]:
    """The jobs longest first, so that the last to start are the shortest and the compilers finish together
    (the longest-processing-time rule of Graham, "Bounds on multiprocessing timing anomalies", SIAM J. Appl.
    Math. 17, 1969).  A job's time is estimated as the size of its source times its ``speed``: on generated
    code whose functions are cut to bounded cost, the compile time is about linear in the size.  Equal
    estimates keep their order.

    Example:
        >>> jobs = [CompileJob(Path(n), Path(n[:-2] + ".o")) for n in ("a.c", "b.c", "c.c", "d.c")]
        >>> jobs[1] = jobs[1]._replace(speed=0.5)  # b.c is compiled at a faster optimization level
        >>> sizes = {"a.c": 10, "b.c": 30, "c.c": 20, "d.c": 20}
        >>> [j.source.name for j in compile_order(jobs, lambda path: sizes[path.name])]
        ['c.c', 'd.c', 'b.c', 'a.c']
    """
    measure = size or _size
    return sorted(jobs, key=lambda j: -measure(j.source) * j.speed)


def _compile_objects(
    cc: str,
    flags: tuple[str, ...],
    jobs: list[CompileJob] | list[tuple[Path, Path]],
    include: list[Path],
    stop: threading.Event | None = None,
    what: str = "",
    label: str = "the FMU runtime",
) -> None:
    """Compile ``(source, object)`` pairs (or :class:`CompileJob`) in parallel, as many at once as there are
    cores and memory for (:func:`parallel_compilers`), longest first (:func:`compile_order`), a new one
    starting as soon as any finishes.

    On any failure (or ``stop``) the other compilers are stopped.
    """
    todo = compile_order([CompileJob(*j) for j in jobs])
    sizes = [_size(j.source) for j in todo]
    width = parallel_compilers(os.cpu_count() or 1, sizes, available_memory())
    running: list[tuple[str, subprocess.Popen, IO[bytes]]] = []
    try:
        while todo or running:
            while todo and len(running) < width:
                job = todo.pop(0)
                cmd = [cc, *(flags if job.flags is None else job.flags), "-c", str(job.source)]
                cmd += [*(f"-I{d}" for d in include), "-o", str(job.obj)]
                out: IO[bytes] = tempfile.TemporaryFile()  # not a pipe: a chatty compiler never blocks on it
                try:
                    started = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
                except OSError as e:
                    out.close()
                    raise _cannot_run(cc, e) from None
                running.append((job.source.name, started, out))
            name, p, log = running.pop(_first_done(running, stop))
            with log:
                log.seek(0)
                err = log.read().decode(errors="replace")
            if p.returncode != 0:
                raise ExportError(f"compiling {label} ({name}){what} failed:\n{err.strip()[:4000]}")
    finally:
        for _name, p, log in running:
            if p.poll() is None:
                p.kill()
                p.wait()
            log.close()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _first_done(running: list[tuple[str, subprocess.Popen, IO[bytes]]], stop: threading.Event | None) -> int:
    """Index of the first of the ``running`` compilers to finish; raises :class:`_Cancelled` when ``stop`` is
    set first (the compilers are killed by the caller)."""
    while True:
        for k, (_name, p, _log) in enumerate(running):
            if p.poll() is not None:
                return k
        if stop is not None and stop.is_set():
            raise _Cancelled()
        time.sleep(POLL_SECONDS)


def runtime_objects(
    cc: str | None = None,
    flags: tuple[str, ...] | None = None,
    stop: threading.Event | None = None,
    what: str = "",
    names: Sequence[str] = MODEL_RUNTIME,
) -> dict[str, Path]:
    """Object files of the template files ``names`` (default: the generic runtime of model FMUs and both FMI
    wrappers), compiled once and cached.

    The cache key hashes the template sources, the FMI headers, the compiler and its flags (default:
    the host's).  The objects live in the ``objects`` folder of :mod:`symbody.codegen.build_cache`
    (private to the user, each object verified against the hash recorded at its build before it is
    linked; a failed entry is rebuilt).
    """
    cc = cc or c_compiler()
    flags = compile_flags() if flags is None else flags
    tdir, hdir = template_dir(), fmi_headers_dir()
    parts: list[str | bytes] = [_compiler_id(cc), " ".join(flags), " ".join(names)]
    for f in sorted([*tdir.glob("*.c"), *tdir.glob("*.h"), *hdir.glob("fmi*.h")]):
        parts += [f.name, f.read_bytes()]
    objects = {n: n[:-2] + ".o" for n in names}

    def build(folder: Path) -> None:
        _compile_objects(cc, flags, [(tdir / n, folder / o) for n, o in objects.items()], [tdir, hdir], stop, what)

    paths = cached_build("objects", entry_key(*parts)[:20], list(objects.values()), build)
    return {n: paths[o] for n, o in objects.items()}


def compile_binary(
    spec: NativeSpec,
    sources: Path,
    output: Path,
    platform: Platform | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Compile ``sources/model.c`` (and its ``model_<k>.c``, in parallel, longest first; the files of derivative
    code with :func:`derivative_flags`) for ``platform`` (default: the host) and link it with the cached runtime.

    ``stop`` (set by a failing parallel compilation) kills the compiler and raises an internal cancellation.
    """
    p = platform or host_platform()
    cc = p.compiler or c_compiler()
    flags = compile_flags(p)
    what = f" for {p.name}" if not p.is_host else ""
    runtime = (*spec.runtime_sources, spec.wrapper_source)
    objs = runtime_objects(cc, flags, stop, what, MODEL_RUNTIME if runtime[-1] in WRAPPERS else runtime)
    model_files = list(spec.source.files)
    model_o = [output.with_suffix(f".{name[:-2]}.o") for name in model_files]
    derivative = set(spec.source.derivative_files)
    dflags = derivative_flags(p)
    try:
        jobs = [
            CompileJob(sources / name, o, dflags, DERIVATIVE_SPEED)
            if name in derivative
            else CompileJob(sources / name, o)
            for name, o in zip(model_files, model_o)
        ]
        _compile_objects(cc, flags, jobs, [sources], stop, what, label="the model")
        link = [cc, "-shared", "-o", str(output), *map(str, model_o)]
        link += [str(objs[n]) for n in runtime] + [*link_flags(p)]
        _run(link, f"the FMU library {output.name}{what}", stop)
    finally:
        for o in model_o:
            o.unlink(missing_ok=True)


def compile_binaries(spec: NativeSpec, sources: Path, binaries: Path, platforms: list[Platform]) -> list[Path]:
    """Compile the FMU's library for every platform, in parallel; returns the library files.

    Raises:
        ExportError: a compilation failed (the first failure, in platform order).
    """
    jobs = []
    for p in platforms:
        folder = binaries / p.folder(spec.fmi_version)
        folder.mkdir(parents=True, exist_ok=True)
        jobs.append((p, folder / (spec.model_identifier + p.suffix)))
    for p, _ in jobs:  # every compiler starts, before anything is compiled or cached
        _compiler_id(p.compiler or c_compiler())
    if len(jobs) == 1:
        compile_binary(spec, sources, jobs[0][1], jobs[0][0])
        return [jobs[0][1]]
    stop = threading.Event()

    def build(p: Platform, out: Path) -> None:
        try:
            compile_binary(spec, sources, out, p, stop)
        except BaseException:
            stop.set()  # the other platforms' compilers are killed: a failed export leaves nothing behind
            raise

    errors: list[BaseException] = []
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        try:
            futures = [pool.submit(build, p, out) for p, out in jobs]
            for f in futures:
                try:
                    f.result()
                except _Cancelled:
                    pass
                except Exception as e:  # noqa: BLE001 - the first failure is raised below
                    errors.append(e)
        except BaseException:  # interrupted while waiting
            stop.set()
            raise
    if errors:
        raise errors[0]
    return [out for _, out in jobs]


def _zip_dir(zf: zipfile.ZipFile, folder: Path, prefix: str) -> None:
    for f in sorted(folder.rglob("*")):
        if f.is_file():
            zf.write(f, f"{prefix}/{f.relative_to(folder).as_posix()}")


def build_fmu(
    spec: NativeSpec,
    path: str | Path,
    progress: Callable[[str], None] | None = None,
    platforms: list[str] | None = None,
    extra: Sequence[tuple[str, bytes]] = (),
) -> Path:
    """Generate, compile and package the native FMU of ``spec`` into ``path``.

    ``platforms`` are FMI 3 platform tuples or FMI 2 folder names (default: the
    host and every platform whose cross compiler is installed, see
    :func:`symbody.fmu.platforms.select_platforms`); ``extra`` are more archive entries
    (path, content), e.g. the MATLAB functions of :mod:`symbody.fmu.matlab`.

    Raises:
        ExportError: an unavailable platform, code generation, compilation or packaging failed
            (nothing is written).
    """
    step = progress or (lambda stage: None)
    path = Path(path)
    targets = select_platforms(platforms, spec.fmi_version)
    with tempfile.TemporaryDirectory(prefix="symbody_fmu_") as tmp:
        work = Path(tmp)
        step("generating C")
        src = write_sources(spec, work / "sources")
        xml = model_description(spec)
        step("compiling")
        compile_binaries(spec, work / "sources", work / "binaries", targets)
        del src
        step("packaging")

        def fill(tmpfile: Path) -> None:
            with zipfile.ZipFile(tmpfile, "w", zipfile.ZIP_DEFLATED) as zf:
                zf.writestr("modelDescription.xml", xml)
                for entry in spec.archive_entries():  # the geometry document of a model
                    zf.writestr(*entry)
                _zip_dir(zf, work / "binaries", "binaries")
                _zip_dir(zf, work / "sources", "sources")
                for entry in extra:
                    zf.writestr(*entry)

        return write_atomically(path, fill)
