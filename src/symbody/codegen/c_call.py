"""Call a compiled C kernel from Python: through a CPython extension module, or through :mod:`ctypes`.

A :class:`Kernel` is generated C with one entry point,
``int <entry>(const double *in, double *out0, double *out1, ...)``: the inputs
``[t, <vector 0>, <vector 1>, ...]`` packed in one array, one output array per
result, and a status (0: success; otherwise the kernel's ``failure`` message is
raised).  :func:`kernel_function` compiles it and returns a function
``f(t, <vectors>..., out=None)`` that

- checks every argument (a wrong length is refused by the vector's name, a
  number where a vector is expected, a missing required vector, an array with
  two dimensions or complex values: a ``ValueError``/``TypeError``, never a
  crash), converts lists, integer arrays and strided views;
- returns fresh arrays, or fills the arrays given in ``out=`` (writable,
  C-contiguous float64 of the result's shape) and returns them.

The fast way is a CPython extension module compiled with the kernel in one
file (``METH_FASTCALL``, float64 vectors read through the buffer protocol, one
``numpy.empty`` per output; well under a microsecond per call beyond the kernel).  Without Python's
headers, or if that build fails, the same kernel is called through
``ctypes`` with the same checks and results (a few microseconds per call).
Both are built once per source, compiler and Python version and cached on disk
(``$SYMBODY_CACHE/evaluators`` or ``~/.cache/symbody/evaluators``, a folder only the user can write;
every library is verified against the hash recorded at its build before it is loaded: see
:mod:`symbody.codegen.build_cache`).

Example:
    >>> source = "int twice(const double *in, double *out) { out[0] = 2.0 * in[1]; return 0; }\\n"
    >>> f = kernel_function(Kernel("twice", source, (("x", 1, False),), ((1,),)))
    >>> f(0.0, [1.5])[0].tolist()
    [3.0]
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ExportError, NumericalError
from .build_cache import cached_build, entry_key
from .c_module import extension_source

#: how a kernel is called: ``"auto"`` (extension module when possible), ``"extension"`` or ``"ctypes"``
CALL_PATHS = ("auto", "extension", "ctypes")
#: compiler flags of every kernel (the extension adds Python's include folder)
KERNEL_FLAGS = ("-std=c99", "-O2", "-fPIC", "-shared")
#: kernels whose extension module failed to build or load in this process (then "auto" means ctypes)
_EXTENSION_FAILED: list[str] = []


@dataclass(frozen=True)
class Kernel:
    """Generated C with one entry point ``int <entry>(const double *in, double *out0, ...)``.

    Attributes:
        entry: the C name of the entry point.
        source: the C source (without ``#include <Python.h>``, which the extension adds first).
        slots: the vector arguments after ``t``: (name, length, optional); an optional vector
            left out (or ``None``) is zeros.
        shapes: the shape of each output.
        failure: message of a non-zero status (``%d``: the status); `` at q = ...`` follows when
            the kernel has a ``q`` argument.
        single: one output, returned (and given in ``out``) as an array rather than a tuple of one.
    """

    entry: str
    source: str
    slots: tuple[tuple[str, int, bool], ...]
    shapes: tuple[tuple[int, ...], ...]
    failure: str = "the evaluation failed (status %d)"
    single: bool = False


def kernel_function(kernel: Kernel, path: str = "auto") -> Callable[..., Any]:
    """The compiled kernel as a Python function (see the module docstring).

    Args:
        path: ``"extension"``, ``"ctypes"`` or ``"auto"`` (the extension module when Python's headers
            are installed and it compiles, else ctypes).

    Raises:
        ExportError: no C compiler, a compilation error, or ``path="extension"`` without Python's headers.
    """
    if path not in CALL_PATHS:
        raise ValueError(f"path must be one of {', '.join(CALL_PATHS)}, not {path!r}")
    if path == "extension" or (path == "auto" and not _EXTENSION_FAILED):
        headers = python_headers()
        if headers is not None:
            try:
                return _extension_function(kernel, headers)
            except (ExportError, ImportError, OSError):
                if path == "extension":
                    raise
                _EXTENSION_FAILED.append(kernel.entry)  # "auto" tries no more extensions in this process
        elif path == "extension":
            raise ExportError("Python's C headers (Python.h) are not installed: install python3-dev")
    return CtypesKernel(kernel)


def call_path(f: Callable[..., Any]) -> str:
    """``"extension"`` or ``"ctypes"``: how a function of :func:`kernel_function` calls its kernel."""
    return "ctypes" if isinstance(f, CtypesKernel) else "extension"


def call_directly(obj: Any, function: Callable[..., Any]) -> None:
    """Make ``obj(...)`` call ``function(...)`` without a Python frame in between.

    ``obj`` becomes an instance of a subclass of its class (of the same name) whose ``__call__``
    is ``function`` itself, so that a call costs what the compiled function costs; ``function``
    takes the arguments of the class's own ``__call__`` (which documents them).
    """
    cls = type(obj)
    if isinstance(function, CtypesKernel):
        function = function.__call__  # its bound method: one call fewer on the way
    attributes = {"__call__": staticmethod(function), "__slots__": (), "__doc__": cls.__doc__}
    attributes.update(__module__=cls.__module__, __qualname__=cls.__qualname__)
    obj.__class__ = type(cls.__name__, (cls,), attributes)


def python_headers() -> Path | None:
    """The folder holding ``Python.h`` of the running interpreter, or None when it is not installed."""
    for key in ("include", "platinclude"):
        folder = sysconfig.get_paths().get(key)
        if folder and (Path(folder) / "Python.h").is_file():
            return Path(folder)
    return None


# ---------------------------------------------------------------------------- building and caching
def c_compiler() -> str:
    """The C compiler to use: ``$CC`` or ``gcc``/``cc`` on PATH.

    Raises:
        ExportError: no compiler is found.
    """
    cc = os.environ.get("CC")
    if cc:
        return cc
    for candidate in ("gcc", "cc", "clang"):
        path = shutil.which(candidate)
        if path:
            return path
    raise ExportError("no C compiler found: install gcc (or set the CC environment variable)")


def compile_shared(
    sources: Sequence[Path], output: Path, include: Sequence[Path] = (), flags: Sequence[str] = ()
) -> None:
    """Compile C sources into a shared library with the system compiler (``-O2 -fPIC -shared``).

    Raises:
        ExportError: the compiler is missing or reports an error (its message is included).
    """
    cmd = [c_compiler(), *KERNEL_FLAGS, *flags]
    cmd += [f"-I{p}" for p in include]
    cmd += [str(s) for s in sources]
    cmd += ["-o", str(output), "-lm"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise ExportError(f"cannot run the C compiler {cmd[0]!r}: {e}") from None
    if proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip()
        raise ExportError(f"C compilation failed ({' '.join(cmd[:2])} ...):\n{msg[:4000]}")


@lru_cache(maxsize=8)
def _compiler_identity(cc: str) -> str:
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return cc
    return f"{cc} {out.splitlines()[0] if out else ''}"


def build_cached(source: str, stem: str, suffix: str, include: Sequence[Path] = (), flags: Sequence[str] = ()) -> Path:
    """Compile ``source`` into the shared library ``<stem>_<hash><suffix>``, cached (``evaluators`` of
    :mod:`symbody.codegen.build_cache`: a private folder, the library verified before it is loaded).

    The hash covers the source, the compiler, its flags and the interpreter, so a library is built once.
    """
    cc = c_compiler()
    parts = (source, _compiler_identity(cc), " ".join([*KERNEL_FLAGS, *flags]), *map(str, include), sys.version)
    name = f"{stem}_{entry_key(*parts)[:24]}"
    library = name + suffix

    def build(folder: Path) -> None:
        src = folder / f"{name}.c"
        src.write_text(source)
        compile_shared([src], folder / library, include=include, flags=flags)
        src.unlink()

    return cached_build("evaluators", name, [library], build)[library]


def _extension_function(kernel: Kernel, headers: Path) -> Callable[..., Any]:
    module_name = "_symbody_kernel_" + hashlib.sha256(kernel.source.encode()).hexdigest()[:16]
    source = extension_source(kernel, module_name)
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    # macOS links extension modules against the interpreter when they are loaded
    flags = ("-undefined", "dynamic_lookup") if sys.platform == "darwin" else ()
    library = build_cached(source, module_name, suffix, include=[headers], flags=flags)
    # the file name carries a hash of the full source; the module is named after its PyInit_ function
    spec = importlib.util.spec_from_file_location(module_name, library)
    if spec is None or spec.loader is None:
        raise ExportError(f"cannot load the compiled evaluator {library}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.configure(np.empty, NumericalError)
    return module.evaluate


# ---------------------------------------------------------------------------- the ctypes path
_FLOAT64 = np.dtype(np.float64)


class CtypesKernel:
    """The kernel through one ``ctypes`` call: arguments copied into a preallocated buffer whose address
    (like those of the output buffers) is converted once.

    ``ctypes.PyDLL`` keeps the interpreter lock during the call and a lock serializes callers,
    so threads sharing a kernel cannot overwrite each other's buffers.
    """

    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        library = build_cached(kernel.source, "symbody_kernel", ".so")
        self._lib = ctypes.PyDLL(str(library))
        fn = getattr(self._lib, kernel.entry)
        fn.restype = ctypes.c_int
        fn.argtypes = None  # the arguments below are ready-made ctypes objects
        self._fn = fn
        self.slots = kernel.slots
        self.names = ("t", *(name for name, _, _ in kernel.slots), "out")
        self.buffer = np.zeros(1 + sum(n for _, n, _ in kernel.slots))
        self.outs = [np.zeros(shape) for shape in kernel.shapes]
        self._args = tuple(ctypes.c_void_p(a.ctypes.data) for a in (self.buffer, *self.outs))
        self.views: list[np.ndarray] = []
        k = 1
        for _, n, _ in kernel.slots:
            self.views.append(self.buffer[k : k + n])
            k += n
        self.lock = threading.Lock()
        self.n_positional = len(self.names) - 1
        self.dirty = [False] * len(self.slots)  # an optional vector holds values of an earlier call
        self.optional = [k for k, (_, _, optional) in enumerate(self.slots) if optional]
        # t and every vector up to the last required one, by position (fewer: bound by _bind, which names
        # the first missing vector)
        self.n_required = 1 + max([k + 1 for k, (_, _, optional) in enumerate(self.slots) if not optional] or [0])
        self.plan = [(view, (slot[1],), slot) for view, slot in zip(self.views, self.slots)]  # shape to expect

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or not self.n_required <= len(args) <= self.n_positional:
            args = tuple(self._bind(args, kwargs))[:-1]
        out = kwargs.get("out") if kwargs else None
        targets = None if out is None else self._outputs(out)
        t = args[0]
        if t.__class__ is not float and isinstance(t, (str, bytes, complex)):
            raise TypeError(f"t must be a real number, not {type(t).__name__}")
        with self.lock:
            try:
                self.buffer[0] = t
            except (TypeError, ValueError):
                raise TypeError(f"t must be a real number, not {type(t).__name__}") from None
            for (view, shape, slot), x in zip(self.plan, args[1:]):
                if x.__class__ is np.ndarray and x.dtype is _FLOAT64 and x.shape == shape:
                    view[:] = x  # the common case, checked at once
                elif x is not None or not slot[2]:
                    _read(*slot, x, view)
            for k in self.optional:  # zeros for optional vectors left out, unless they are zeros already
                given = k + 1 < len(args) and args[k + 1] is not None
                if not given and self.dirty[k]:
                    self.views[k][:] = 0.0
                self.dirty[k] = given
            status = self._fn(*self._args)
            if status:
                raise NumericalError(self._failure(status, args))
            if targets is None:
                if self.kernel.single:
                    return self.outs[0].copy()
                return tuple([buffer.copy() for buffer in self.outs])
            for target, buffer in zip(targets, self.outs):
                target[...] = buffer
        return targets[0] if self.kernel.single else tuple(targets)

    def _failure(self, status: int, values: Sequence[Any]) -> str:
        message = self.kernel.failure % status
        names = [name for name, _, _ in self.slots]
        if "q" in names:
            message += f" at q = {np.asarray(values[1 + names.index('q')])}"
        return message

    def _bind(self, args: tuple, kwargs: dict) -> list[Any]:
        """Arguments by position and name, as the extension binds them: ``[t, vectors..., out]``."""
        positional = len(self.names) - 1
        if len(args) > positional:
            raise TypeError(f"takes at most {positional} positional arguments ({len(args)} given)")
        values: list[Any] = [*args, *([None] * (len(self.names) - len(args)))]
        given = [True] * len(args) + [False] * (len(self.names) - len(args))
        for key, value in kwargs.items():
            if key not in self.names:
                raise TypeError(f"unexpected keyword argument {key!r}")
            k = self.names.index(key)
            if given[k]:
                raise TypeError(f"got multiple values for argument {key!r}")
            values[k], given[k] = value, True
        if not given[0]:
            raise TypeError("missing required argument 't'")
        return values

    def _outputs(self, out: Any) -> list[np.ndarray]:
        shapes, single = self.kernel.shapes, self.kernel.single
        if not single and (not isinstance(out, (tuple, list)) or len(out) != len(shapes)):
            raise TypeError(f"out must be a tuple of {len(shapes)} arrays")
        items = [out] if single else list(out)
        for k, (a, shape) in enumerate(zip(items, shapes)):
            ok = isinstance(a, np.ndarray) and a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable
            if not ok or a.shape != shape:
                what = "out" if single else f"out[{k}]"
                raise TypeError(f"{what} must be a writable C-contiguous float64 array of shape {shape}")
        for i in range(len(items)):
            for j in range(i):
                if np.shares_memory(items[i], items[j]):
                    raise ValueError(f"out[{j}] and out[{i}] overlap")
        return items


def _read(name: str, n: int, optional: bool, x: Any, view: np.ndarray) -> None:
    """Copy one vector argument into its part of the input buffer, checked as the extension does."""
    if x is None:
        if not optional:
            raise ValueError(f"{name} is required ({n} values)")
        view[:] = 0.0
        return
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise ValueError(f"{name} must be a vector of {n} values, not an array of {x.ndim} dimensions")
        if np.iscomplexobj(x):
            raise TypeError(f"{name} has complex values")
    elif not hasattr(x, "__len__") or isinstance(x, (str, bytes)):
        raise ValueError(f"{name} must be a sequence of {n} values, not {type(x).__name__}")
    if len(x) != n:
        raise ValueError(f"{name} has {len(x)} values, the model has {n}")
    if n:
        if not isinstance(x, np.ndarray):
            try:
                x = [float(v) if not isinstance(v, (str, bytes, bytearray, complex)) else None for v in x]
            except (TypeError, ValueError):
                x = [None]
            bad = [i for i, v in enumerate(x) if v is None]
            if bad:
                raise TypeError(f"{name}[{bad[0]}] is not a real number")
        view[:] = x


__all__ = [
    "call_directly",
    "c_compiler",
    "compile_shared",
    "Kernel",
    "kernel_function",
    "call_path",
    "python_headers",
    "build_cached",
    "CtypesKernel",
]
