"""FMU export: native C FMUs (FMI 2.0 and 3.0, Co-Simulation and Model Exchange).

:func:`export_fmu` turns a :class:`symbody.System` (or its derived
:class:`symbody.Equations`) into an FMU that needs no Python at run time:
generated C for the model's blocks (``model.c``) plus the hand-written
runtime of ``fmu_templates/`` (FMI wrappers, solvers, linear algebra),
compiled with the system C compiler.  ``backend="python"`` builds a
Co-Simulation FMU with pythonfmu from the numpy blocks instead.

Design choices (see also ``fmu_templates/README.md``):

* **States.**  Model Exchange exposes all coordinates and their velocities
  as states, also for constrained systems, and stabilizes the constraints
  with Baumgarte's method (``baumgarte.alpha``, ``baumgarte.beta``).  The
  alternative -- independent coordinates with the dependent ones solved
  inside -- was rejected: the state would change meaning at configurations
  where another choice of independent coordinates is needed (dead points of
  a four-bar), non-holonomic constraints have no position-level
  parametrization, and every derivative evaluation would hide a Newton
  iteration that can fail inside the host's integrator.  With all
  coordinates the FMU's states are the model's own names, the right-hand side
  is smooth and cheap (one linear solve), and the drift is damped.
* **Co-Simulation** integrates the same stabilized ODE with an embedded
  solver chosen by the parameter ``solver.method`` (``rk4``, ``dopri5``,
  ``rosenbrock23``) and projects positions (Newton with minimum-norm steps)
  and velocities onto the constraints after each internal step, so the
  constraints hold to ``solver.projection_tol``.
* **Initialization** assembles constrained models: Newton on ``Phi_init``
  from the start values, keeping the coordinates the model fixes for
  assembly (``System.fix_initial``) at the start values the importer set,
  then velocities, keeping those the importer set (the independent ones).
  Such states have ``initial="approx"``.
* **Directional derivatives** are exact: Jacobians of the residual of
  ``[M D^T; D 0][ddq; lam] = [delta; gamma]`` solved numerically with the
  factorization of the dynamics (:mod:`symbody.fmu.jacobians`); the Jacobians
  are symbolic (``jacobians="exact"``, the default of small models) or built
  column by column from forward-mode tangent code (``"forward"``, whose code
  grows like the residuals', not like rows x columns); ``"none"`` exports no
  derivative code (central differences for the implicit solver).

Example (export a torque-driven pendulum, simulate it with fmpy):
    >>> from symbody.models import pendulum
    >>> eq = pendulum().derive()
    >>> import tempfile, pathlib, fmpy
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "pendulum.fmu"
    >>> fmu = export_fmu(eq, out, fmi_version=3, kind="both")
    >>> res = fmpy.simulate_fmu(str(fmu), stop_time=1.0, start_values={"T": 0.0})
    >>> round(float(res["theta"][0]), 6), bool(abs(res["theta"]).max() <= 0.3 + 1e-9)
    (0.3, True)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ExportError

if TYPE_CHECKING:  # for type checkers, which do not run __getattr__
    from ..equations import Equations
    from ..model.system import System
    from .spec import FmuSpec
    from .variables import KINDS, SETTINGS, SOLVER_METHODS

__all__ = ["export_fmu", "FmuSpec", "KINDS", "SETTINGS", "SOLVER_METHODS"]

# Imported on first use (PEP 562): simulating an FMU needs none of the code generation.
_LAZY = {"FmuSpec": "spec", "KINDS": "variables", "SETTINGS": "variables", "SOLVER_METHODS": "variables"}


def __getattr__(name: str) -> Any:
    """Import ``FmuSpec`` and the variable tables on first use."""
    import importlib

    if name not in _LAZY:
        raise AttributeError(f"module 'symbody.fmu' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def _progress(progress) -> tuple[Callable[[str], None], Callable[[], None]]:
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return (lambda stage: None), lambda: None
    from tqdm import tqdm

    # disable=None: a bar on a terminal only, never in a log or a captured stream
    bar = tqdm(total=5, desc="export", unit="stage", file=sys.stderr, leave=False, delay=1.0, disable=None)

    def step(stage: str) -> None:
        bar.set_postfix_str(stage, refresh=False)
        bar.update(1)

    return step, bar.close


def export_fmu(
    model: System | Equations,
    path: str | Path,
    fmi_version: int = 2,
    kind: str | None = None,
    backend: str = "c",
    progress: bool | Callable[[str], None] = False,
    platforms: list[str] | None = None,
    jacobians: str | None = None,
    with_matlab: bool = False,
) -> Path:
    """Export a model as an FMU.

    Args:
        model: a :class:`symbody.System` or its :class:`symbody.Equations`.
        path: the ``.fmu`` file to write (replaced atomically).
        fmi_version: 2 or 3 (the Python backend supports 2 only).
        kind: ``"cs"``, ``"me"`` or ``"both"`` (default: ``both`` for C, ``cs`` for Python).
        backend: ``"c"`` (native, default) or ``"python"`` (pythonfmu).
        progress: show a progress bar for long exports, or a callable ``f(stage)``.
        platforms: platforms to build binaries for (``x86_64-linux``, ``x86_64-windows``, ``aarch64-linux``,
            or the FMI 2 names ``linux64``, ``win64``); default: the host and every platform whose cross
            compiler is installed (:mod:`symbody.fmu.platforms`).
        jacobians: how the native FMU evaluates Jacobians (implicit solver, directional derivatives):
            ``"exact"`` (symbolic Jacobians in ``model.c``), ``"forward"`` (forward-mode tangent code,
            a Jacobian column per tangent), ``"none"`` (central differences; the FMU provides no
            directional derivatives); default: ``exact`` when its code is small, ``forward`` otherwise.
        with_matlab: also put the model's MATLAB / GNU Octave functions in the FMU (:mod:`symbody.fmu.matlab`:
            ``extra/org.symbody.matlab/`` in FMI 3, ``documentation/matlab/`` in FMI 2).

    Returns:
        The path of the FMU.

    Raises:
        ExportError: invalid options, code generation, compilation or packaging failure.
    """
    from ..equations import Equations

    step, close = _progress(progress)
    try:
        if isinstance(model, Equations):
            eq = model
        elif hasattr(model, "derive"):
            step("deriving")
            eq = model.derive(progress=bool(progress))
        else:
            raise ExportError(f"cannot export {type(model).__name__}: expected a symbody.System or Equations")
        extra = _matlab_entries(eq, fmi_version) if with_matlab else []
        if backend == "python":
            from .python_backend import build_python_fmu
            from .spec import FmuSpec

            if kind not in (None, "cs"):
                raise ExportError("the Python backend builds Co-Simulation FMUs only (--kind cs)")
            if fmi_version != 2:
                raise ExportError("the Python backend (pythonfmu) builds FMI 2.0 FMUs only (--fmi 2)")
            if platforms:
                raise ExportError("--platforms applies to the native C backend only")
            if jacobians not in (None, "exact"):
                raise ExportError("the Python backend evaluates exact Jacobians only (--jacobians exact)")
            if eq.frictions:
                raise ExportError(
                    f"model {eq.name!r} has stick-slip friction: the Python backend does not handle its stick and "
                    "slip events; simulate it with symbody.numeric.simulate"
                )
            return build_python_fmu(FmuSpec(eq, 2, "cs", backend="python"), path, step, extra)
        if backend != "c":
            raise ExportError(f"unknown backend {backend!r}: use 'c' or 'python'")
        from .build import build_fmu
        from .spec import FmuSpec

        spec = FmuSpec(eq, fmi_version, kind or "both", jacobians)
        step("Jacobians")
        _ = spec.source
        return build_fmu(spec, path, step, platforms, extra)
    finally:
        close()


def _matlab_entries(eq: Equations, fmi_version: int) -> list[tuple[str, bytes]]:
    """The ``.m`` files for ``--with-matlab`` (checked before anything is built)."""
    from .matlab import matlab_entries

    if fmi_version not in (2, 3):
        raise ExportError(f"unknown FMI version {fmi_version!r}: use 2 or 3")
    return matlab_entries(eq, fmi_version)
