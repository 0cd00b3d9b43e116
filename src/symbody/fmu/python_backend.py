"""``--backend python``: a Co-Simulation FMU built with pythonfmu from the numpy blocks.

The FMU holds Python files in ``resources/``: the generated blocks
module (numpy code of ``[M | delta]``, the constraints, outputs, exact
residual Jacobians, the blocks of the unilateral contacts and the switching
functions of the loads, from :mod:`symbody.codegen.python`), the hand-written
:mod:`symbody.fmu.python_runtime` (solvers, projection, assembly) with
:mod:`symbody.fmu.python_settings` and :mod:`symbody.fmu.python_events`
(contacts and switching loads inside ``doStep``), the laws it shares with
:mod:`symbody.numeric` (:mod:`symbody.numeric.constraint_laws` and
:mod:`symbody.numeric.event_laws`), and a generated pythonfmu
slave class.  Variables and value references are those
of the native FMU (:mod:`symbody.fmu.variables`), and the
``modelDescription.xml`` is symbody's own (units, ModelStructure), with the
capabilities of pythonfmu.  It needs Python with numpy and pythonfmu where
it runs; the native backend does not.

Example:
    >>> from symbody.fmu import export_fmu  # doctest: +SKIP
    >>> export_fmu(system, "pendulum_py.fmu", backend="python")  # doctest: +SKIP
"""

from __future__ import annotations

import builtins
import hashlib
import keyword
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

from ..codegen.evaluators import layout_of
from ..codegen.python import python_source
from ..errors import ExportError
from ..model.contacts import contact_blocks
from .build import write_atomically
from .description import model_description
from .geometry import geometry_entry
from .sources import initial_fixes
from .spec import FmuSpec
from .start_velocities import independent_velocities
from .variables import SETTINGS_DEFAULTS

RUNTIME = Path(__file__).with_name("python_runtime.py")
SETTINGS = Path(__file__).with_name("python_settings.py")  # imported by the runtime
EVENTS = Path(__file__).with_name("python_events.py")  # imported by the runtime: contacts, switching loads
CONTACTS = Path(__file__).with_name("python_contacts.py")  # imported by the events: contact modes
ASSEMBLY = Path(__file__).with_name("python_assembly.py")  # imported by the runtime: assembly, projection
SOLVERS = Path(__file__).with_name("python_solvers.py")  # imported by the runtime: rk4, dopri5, rosenbrock23
LAWS = Path(__file__).parents[1] / "numeric" / "event_laws.py"  # the laws of events, shared with numeric
CONSTRAINT_LAWS = LAWS.with_name("constraint_laws.py")  # the laws of the constraints, shared with numeric
#: their names inside the FMU
RUNTIME_MODULES = (
    "symbody_python_runtime",
    "symbody_python_settings",
    "symbody_python_events",
    "symbody_python_contacts",
    "symbody_event_laws",
    "symbody_constraint_laws",
    "symbody_python_assembly",
    "symbody_python_solvers",
)
SHIPPED = dict(zip(RUNTIME_MODULES, (RUNTIME, SETTINGS, EVENTS, CONTACTS, LAWS, CONSTRAINT_LAWS, ASSEMBLY, SOLVERS)))


def blocks_module(spec: FmuSpec) -> str:
    """Source of the numpy blocks module of the Python FMU."""
    eq, jac = spec.eq, spec.jacobians
    n, nc, nh = eq.nq, eq.nc, eq.nh
    contacts, switches = list(eq.contacts), list(eq.switches)
    b = eq.blocks()
    flat = jac.flat
    funcs: list[tuple[str, dict]] = [
        ("M_delta", {"M": b["M"], "delta": b["delta"]}),
        ("constraints", {"D": b["D"], "beta": b["beta"], "gamma": b["gamma"], "Phi": b["Phi"]}),
        ("Phi_Phi_q", {"Phi_q": b["Phi_q"], "Phi": b["Phi"]}),
        ("D_beta", {"D": b["D"], "beta": b["beta"]}),
        ("Phi_init", {"Phi_init_q": b["Phi_init_q"], "Phi_init": b["Phi_init"]}),
        ("outputs", {"y": b["outputs"]}),
        ("rates", {"rates": b["rates"]}),
        (
            "residual_jacobians",
            {
                "R_q": (flat(jac.R_q), (n + nc, n)),
                "R_dq": (flat(jac.R_dq), (n + nc, n)),
                "R_t": (list(jac.R_t), (n + nc,)),
            },
        ),
        ("velocity_jacobians", {"V_q": (flat(jac.V_q), (nc, n)), "V_t": (list(jac.V_t), (nc,))}),
        ("contacts", contact_blocks(contacts, n)),  # unilateral contacts and switching loads (python_events)
        ("switches", {"sw": (switches, (len(switches),))}),
    ]
    parts = [
        f'"""numpy blocks of the symbody model {eq.name!r} (generated; do not edit)."""\n',
        "import math\n\nimport numpy as np\n\n\n",
        "def _sign(x):\n    return float((x > 0) - (x < 0))\n\n\n",
    ]
    for name, blocks in funcs:
        parts.append(python_source(blocks, layout_of(eq), fname=name))
        parts.append("\n\n")
    info = {
        "nq": n,
        "nc": nc,
        "nh": nh,
        "ninit": len(eq.Phi_init),
        "nu": eq.nu,
        "ny": len(eq.outputs),
        "ns": eq.nx,
        "s0": [float(x.x0) for x in eq.states],
        "motion": [k for _, k in eq.motion_inputs],
        "q0": [float(c.q0) for c in eq.coordinates],
        "dq0": [float(c.dq0) for c in eq.coordinates],
        "u0": [float(u.value) for u in eq.inputs],
        "p0": [float(p.value) for p in eq.parameters],
        "settings0": [float(x) for x in SETTINGS_DEFAULTS],
        "init_fix": initial_fixes(eq),
        "independent": independent_velocities(eq),
        "coordinate_names": [c.name for c in eq.coordinates],
        "constraint_names": [r.name for r in eq.constraint_rows],
        "output_names": [o.name for o in eq.outputs],
        "nk": len(contacts),
        "nsw": len(switches),
        "contact_names": [c.name for c in contacts],
    }
    parts.append(f"INFO = {info!r}\n")
    return "".join(parts)


_SLAVE = '''"""pythonfmu slave of the symbody model {name!r} (generated; do not edit)."""

import os as _os
import sys as _sys

from pythonfmu import Boolean, Fmi2Causality, Fmi2Slave, Fmi2Variability, Integer, Real
from pythonfmu.enums import Fmi2Status


def _own_modules(names):
    """Import ``names`` from this FMU's folder: a module of that name that another FMU of the process loaded
    (a model of the same name, a runtime of another symbody version) must not stand in for this FMU's."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    for name in names:
        module = _sys.modules.get(name)
        where = getattr(module, "__file__", None) or ""
        if module is not None and _os.path.dirname(_os.path.abspath(where)) != here:
            del _sys.modules[name]  # (the FMUs that imported it keep their reference)
    _sys.path.insert(0, here)
    try:
        return [__import__(name) for name in names]
    finally:
        _sys.path.remove(here)


blocks, runtime = _own_modules({own_modules!r})[:2]

# (name, kind, index, type, causality, variability, min, max) in value-reference order
VARIABLES = {variables!r}


class {name}(Fmi2Slave):
    """Co-Simulation of {name!r} with symbody's numpy runtime."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.model = runtime.Model(blocks, blocks.INFO)
        for name, kind, index, vtype, causality, variability, lo, hi in VARIABLES:
            getter, setter = self._accessors(kind, index, vtype)
            if setter is not None:
                setter = self._checked(name, kind, index, lo, hi, setter)
            cls = {{"Real": Real, "Integer": Integer, "Boolean": Boolean}}[vtype]
            kw = dict(getter=getter, setter=setter)
            if causality in ("input", "parameter", "output"):
                kw["causality"] = getattr(Fmi2Causality, causality)
            if variability in ("tunable", "continuous"):
                kw["variability"] = getattr(Fmi2Variability, variability)
            self.register_variable(cls(name, **kw), nested=False)

    def _accessors(self, kind, i, vtype):
        m = self.model
        n = m.n
        if kind == "time":
            return (lambda: m.t), None
        if kind == "q":
            return (lambda: m.x[i]), self._setter(lambda v: m.x.__setitem__(i, v))
        if kind == "dq":
            def set_velocity(v):
                m.x[n + i] = v
                m.dq_set[i] = True  # a velocity the host chose: kept by the assembly

            return (lambda: m.x[n + i]), self._setter(set_velocity)
        if kind == "ddq":
            return (lambda: self._calculated(0, i)), None
        if kind == "y":
            return (lambda: self._calculated(2, i)), None
        if kind == "x":
            return (lambda: m.x[2 * n + i]), self._setter(lambda v: m.x.__setitem__(2 * n + i, v))
        if kind == "dx":
            return (lambda: self._calculated(3, i)), None
        if kind == "u":
            return (lambda: m.u[i]), self._setter(lambda v: m.u.__setitem__(i, v))
        if kind == "p":
            return (lambda: m.p[i]), self._setter(lambda v: m.p.__setitem__(i, v))
        conv = {{"Real": float, "Integer": int, "Boolean": bool}}[vtype]
        return (lambda: conv(m.settings[i])), self._setter(lambda v: m.set_setting(i, float(v)))

    def _calculated(self, block, i):
        """An acceleration or output; where it cannot be computed: NaN with an error message (an exception
        would make pythonfmu return fmi2Fatal)."""
        try:
            value = float((*self.model.values(), self.model.state_rates())[block][i])
            if block == 2 and i in self.model.undetermined_outputs:
                self._undetermined(i)
            return value
        except runtime.NUMERICAL_ERRORS as e:
            self.log(f"fmi2GetReal: cannot compute the value at t = {{self.model.t!r}}: {{e}}", Fmi2Status.error)
            return runtime.math.nan

    def _undetermined(self, i):
        """Reading output i where it depends on constraint reactions the equations do not determine (a
        singular position): a warning (pythonfmu's GetReal returns fmi2OK; the C FMU returns fmi2Warning)."""
        name = blocks.INFO["output_names"][i]
        self.log(
            f"fmi2GetReal: output {{name!r}} at t = {{self.model.t!r}} depends on constraint reactions the "
            "equations do not determine here: a singular position, where constraint rows vanish or become "
            "dependent; the value is the bounded filtered one (the reaction along the dependent rows is damped "
            "to zero), not the physical reaction, which needs the motion before and after",
            Fmi2Status.warning,
        )

    def _setter(self, assign):
        def setter(value):
            assign(value)
            self.model.changed()

        return setter

    def _checked(self, name, kind, index, lo, hi, setter):
        """Refuse what the C runtime refuses (non-finite, out of range, invalid settings), with a message.

        pythonfmu answers any exception with fmi2Fatal: the value is not stored and the error logged.
        """
        def check(value):
            problem = runtime.value_problem(kind, index, float(value), lo, hi)
            if problem is not None:
                return self._refuse(name, f"fmi2Set: value {{value!r}} of variable '{{name}}' {{problem}}")
            events, before = self.model.events, float(self.model.p[index]) if kind == "p" else None
            setter(value)
            problem = events.coefficient_problem() if events is not None and kind == "p" else None
            if problem is not None:  # a restitution outside [0, 1]: the value is not kept
                setter(before)
                return self._refuse(name, f"fmi2Set: value {{value!r}} of variable '{{name}}': {{problem}}")
            self.model.refused.pop(name, None)

        return check

    def _refuse(self, what, message):
        """Refuse a call without an exception (see symbody_python_runtime): the error is logged, and the
        FMU discards every step until the host repairs it."""
        self.log(message + " (refused: steps are discarded until a valid value is set)", Fmi2Status.error)
        self.model.refused[what] = message

    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        start = float(start_time)
        if not runtime.math.isfinite(start):
            return self._refuse("experiment", f"fmi2SetupExperiment: startTime {{start!r}} is not finite")
        if stop_time is not None and not float(stop_time) >= start:
            return self._refuse("experiment", f"fmi2SetupExperiment: stopTime {{stop_time!r}} is before {{start!r}}")
        if tolerance is not None and not 0.0 < float(tolerance) < runtime.math.inf:
            problem = f"tolerance {{tolerance!r}} is invalid: it must be positive and finite"
            return self._refuse("experiment", f"fmi2SetupExperiment: {{problem}}")
        self.model.t = start
        self.model.stop_time = runtime.math.inf if stop_time is None else float(stop_time)
        if tolerance is not None:  # solver.rtol, unless the host set it or solver.ignore_external_tolerance
            self.model.experiment_tolerance(float(tolerance))

    def exit_initialization_mode(self):
        try:
            self.model.initialize()
        except runtime.HostError as e:
            self._refuse("initialization", f"fmi2ExitInitializationMode: {{e}}")
        except runtime.NUMERICAL_ERRORS as e:
            self._refuse("initialization", f"fmi2ExitInitializationMode: the initial state is not admissible: {{e}}")

    def do_step(self, current_time, step_size):
        t0, h = float(current_time), float(step_size)
        try:
            ok = self.model.do_step(t0, h)
        except runtime.HostError as e:  # a step from the wrong time or past the stop time: nothing happens
            self.log(str(e), Fmi2Status.error)
            return False
        if self.model.events is not None:  # the impacts and contact mode changes inside the step
            for message in self.model.events.messages:
                self.log(message, Fmi2Status.ok, "logEvents")
            self.model.events.messages = []
            for message in self.model.events.solver_messages:  # the event tolerance replacing the importer's
                self.log(message, Fmi2Status.ok, "logSolver")
            self.model.events.solver_messages = []
        if ok and self.model.warning:
            self.log(self.model.warning, Fmi2Status.warning)
        if not ok:
            self.log(
                f"DoStep: step from t = {{t0!r}} to {{t0 + h!r}} discarded, state kept at t = {{t0!r}}: "
                f"{{self.model.problem}}",
                Fmi2Status.discard,
            )
        return ok
'''


def slave_digest(slave: str, blocks: str) -> str:
    """16 hex digits of the SHA-256 of the slave script, its blocks and the runtime shipped with them."""
    h = hashlib.sha256()
    for text in (slave, blocks, *(SHIPPED[m].read_text(encoding="utf-8") for m in RUNTIME_MODULES)):
        h.update(text.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def slave_script(spec: FmuSpec, blocks_name: str) -> str:
    """Source of the pythonfmu slave class (its name is the model identifier)."""
    variables = [(v.name, v.kind, v.index, v.type, v.causality, v.variability, v.min, v.max) for v in spec.variables]
    own = (blocks_name, "symbody_python_runtime", *(m for m in RUNTIME_MODULES if m != "symbody_python_runtime"))
    return _SLAVE.format(name=spec.model_identifier, own_modules=own, variables=variables)


#: global names of the slave script that the model's class must not replace
_SLAVE_GLOBALS = frozenset(
    "Boolean Fmi2Causality Fmi2Slave Fmi2Variability Integer Real blocks runtime VARIABLES".split()
    + ["_os", "_sys", "_own_modules"]
)


#: third-party modules the slave, its blocks and the runtime import (directly or through pythonfmu)
_PACKAGES = frozenset("numpy scipy pythonfmu fmpy sympy".split())


def check_python_identifier(name: str) -> None:
    """Raise ExportError if ``name`` cannot name the slave class and script of a Python FMU.

    The class is named after the model and its script ``<name>.py`` sits on the
    importer's module path, so the name must not be one of the script's own
    globals nor shadow a module of the standard library or of the packages the FMU
    imports (``numpy``, ``math``, ``pythonfmu``...).

    Example:
        >>> check_python_identifier("crane")
        >>> try:
        ...     check_python_identifier("numpy")
        ... except ExportError as e:
        ...     print(e)
        the Python backend cannot name the FMU 'numpy': it would shadow the Python module 'numpy' \
(rename the system, or export with the C backend)
    """
    if name in _SLAVE_GLOBALS or keyword.iskeyword(name) or name in dir(builtins):
        clash = "a name the generated Python uses"
    elif name in sys.stdlib_module_names or name in _PACKAGES or name.startswith("symbody"):
        clash = f"the Python module {name!r}"
    else:
        return
    raise ExportError(
        f"the Python backend cannot name the FMU {name!r}: it would shadow {clash} "
        "(rename the system, or export with the C backend)"
    )


def build_python_fmu(
    spec: FmuSpec,
    path: str | Path,
    progress: Callable[[str], None] | None = None,
    extra: Sequence[tuple[str, bytes]] = (),
) -> Path:
    """Build the pythonfmu Co-Simulation FMU of ``spec`` (FMI 2.0) into ``path``; ``extra`` are more archive
    entries (path, content).

    Raises:
        ExportError: pythonfmu is missing or fails (nothing is written).
    """
    step = progress or (lambda stage: None)
    if spec.fmi_version != 2 or spec.kind != "cs":
        raise ExportError("the Python backend builds FMI 2.0 Co-Simulation FMUs only")
    try:
        from pythonfmu.builder import FmuBuilder
    except ImportError:
        raise ExportError("the Python backend needs pythonfmu (pip install pythonfmu)") from None
    name = spec.model_identifier
    check_python_identifier(name)
    blocks_name = f"symbody_blocks_{name}"
    step("generating Python")
    xml = model_description(spec, native=False)
    with tempfile.TemporaryDirectory(prefix="symbody_pyfmu_") as tmp:
        work = Path(tmp)
        src = work / "src"
        src.mkdir()
        slave, blocks = slave_script(spec, blocks_name), blocks_module(spec)
        # the script's module is named after its content: the importer's process may hold the module of another
        # FMU of a model of the same name (pythonfmu imports the script by name, and Python keeps modules by name)
        script = src / f"{name}_{slave_digest(slave, blocks)}.py"
        script.write_text(slave)
        (src / f"{blocks_name}.py").write_text(blocks)
        for module, source in SHIPPED.items():
            shutil.copyfile(source, src / f"{module}.py")
        step("packaging")
        out = work / "out"
        out.mkdir()
        # pythonfmu imports the script by its bare name: a module of the host process with the
        # model's name (a test's helper, a user's package) must not stand in for it
        own = (script.stem, blocks_name, *RUNTIME_MODULES)
        shadowed = {mod: sys.modules.pop(mod) for mod in own if mod in sys.modules}
        try:
            built = Path(
                FmuBuilder.build_FMU(
                    script,
                    dest=out,
                    project_files=[src / f"{blocks_name}.py", *(src / f"{mod}.py" for mod in RUNTIME_MODULES)],
                )
            )
        except Exception as e:  # noqa: BLE001 - report any pythonfmu failure as an export error
            raise ExportError(f"pythonfmu failed to build the FMU: {type(e).__name__}: {e}") from e
        finally:
            for mod in own:
                sys.modules.pop(mod, None)
            sys.modules.update(shadowed)

        def fill(tmpfile: Path) -> None:
            with zipfile.ZipFile(built) as zin, zipfile.ZipFile(tmpfile, "w", zipfile.ZIP_DEFLATED) as zout:
                zout.writestr("modelDescription.xml", xml)
                zout.writestr(*geometry_entry(spec))
                for entry in extra:
                    zout.writestr(*entry)
                added = {path for path, _ in extra}
                for item in zin.infolist():
                    if item.filename != "modelDescription.xml" and item.filename not in added:
                        zout.writestr(item, zin.read(item.filename))

        return write_atomically(Path(path), fill)
