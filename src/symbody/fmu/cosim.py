"""Running a system structure with fmpy at a fixed communication step (``symbody simulate loop.ssp``).

The master, at each communication point ``t`` (the start time included):

1. exchanges values along the connections in the order of the *feedthrough graph*: a connection
   ``A.o=B.i`` comes after every connection feeding an input of ``A`` that ``A.o`` depends on at the same
   instant (the FMUs' ``ModelStructure``: a static gain, a PID's proportional path, a plant's
   acceleration output); connections that wait for none keep the ``--connect`` order.  Each exchange
   reads the output then sets the input, so a component with direct feedthrough answers with the
   inputs of the same instant (no delay through a static controller);
2. records the outputs;
3. steps every FMU from ``t`` to ``t + h`` (in the order of the components), the inputs held.

A cycle in the feedthrough graph is an algebraic loop: refused, naming its connections.  Before the
first exchange the bound values are set (SSP parameter bindings, then ``--set``), every FMU enters
initialization at the start time, the values are exchanged, and every FMU leaves initialization.

This order is Gauss-Seidel-like.  libcosim and Ecos exchange values after the step, all at once (a Jacobi
scheme): an output that depends on an input at the same instant reaches the next component one
communication step later.

Example:
    >>> from symbody.fmu.system_structure import Link
    >>> deps = {("ctrl", "F"): {"x"}, ("plant", "x"): set()}
    >>> links = [Link("ctrl", "F", "plant", "F"), Link("plant", "x", "ctrl", "x")]
    >>> [str(link) for link in exchange_order(links, deps)]
    ['plant.x=ctrl.x', 'ctrl.F=plant.F']
"""

from __future__ import annotations

import ctypes
import math
import time as clock
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .run import SimulationError, restore_fmi2_message_proxy
from .system_structure import Element, Link, StructureError, SystemStructure


def feedthrough(element: Element) -> dict[tuple[str, str], set[str]]:
    """``{(component, output): inputs it depends on at the same instant}`` from the FMU's ModelStructure
    (an output without a dependency list depends on every input)."""
    inputs = {v.name for v in element.md.modelVariables if v.causality == "input"}
    out: dict[tuple[str, str], set[str]] = {}
    for unknown in element.md.outputs:
        deps = unknown.dependencies
        names = inputs if deps is None else {d.name for d in deps} & inputs
        out[(element.name, unknown.variable.name)] = set(names)
    return out


def exchange_order(links: list[Link], depends: Mapping[tuple[str, str], set[str]]) -> list[Link]:
    """The connections in the order values are exchanged (topological in the feedthrough graph, ties in the
    given order).

    Raises:
        StructureError: an algebraic loop, naming the connections that form it.
    """
    feeds = {(link.target, link.input): k for k, link in enumerate(links)}
    before: list[set[int]] = []
    for link in links:
        needs = depends.get((link.source, link.output), set())
        before.append({feeds[(link.source, i)] for i in needs if (link.source, i) in feeds})
    done: list[int] = []
    waiting = set(range(len(links)))
    while waiting:
        ready = [k for k in sorted(waiting) if before[k] <= set(done)]
        if not ready:
            raise StructureError(f"algebraic loop: {_cycle(links, before, waiting)} (every output depends on its "
                                 "input at the same instant; break it with a component without direct feedthrough)")
        done.append(ready[0])
        waiting.discard(ready[0])
    return [links[k] for k in done]


def _cycle(links: list[Link], before: list[set[int]], waiting: set[int]) -> str:
    """One cycle among the waiting connections, as text."""
    k = min(waiting)
    path: list[int] = []
    while k not in path:
        path.append(k)
        k = min(before[k] & waiting)
    loop = path[path.index(k):]
    return " -> ".join(str(links[j]) for j in reversed(loop))


# --------------------------------------------------------------------------------------------- running


class Running:
    """One FMU of a running structure (fmpy's slave), with typed Get and Set by name."""

    def __init__(self, element: Element, folder: str, callbacks: Any, log3: Any):
        from fmpy.fmi2 import FMU2Slave
        from fmpy.fmi3 import FMU3Slave

        md = element.md
        self.name = element.name
        self.fmi3 = element.fmi_version == 3
        self.variables = element.variables
        cls = FMU3Slave if self.fmi3 else FMU2Slave
        self.slave = cls(guid=md.guid, unzipDirectory=folder, modelIdentifier=md.coSimulation.modelIdentifier,
                         instanceName=element.name)
        if self.fmi3:
            self.slave.instantiate(logMessage=log3)
        else:
            self.slave.instantiate(callbacks=callbacks)

    def _typed(self, name: str) -> tuple[int, str]:
        v = self.variables[name]
        kind = {"Real": "Real", "Float64": "Real", "Float32": "Real", "Boolean": "Boolean"}.get(v.type, "Integer")
        return v.valueReference, kind

    def get(self, name: str) -> float:
        vr, kind = self._typed(name)
        s = self.slave
        if kind == "Real":
            return float((s.getFloat64 if self.fmi3 else s.getReal)([vr])[0])
        if kind == "Boolean":
            return float(s.getBoolean([vr])[0])
        return float((s.getInt64 if self.fmi3 else s.getInteger)([vr])[0])

    def set(self, name: str, value: float | int | bool) -> None:
        vr, kind = self._typed(name)
        s = self.slave
        if kind == "Real":
            (s.setFloat64 if self.fmi3 else s.setReal)([vr], [float(value)])
        elif kind == "Boolean":
            s.setBoolean([vr], [bool(value)])
        else:
            (s.setInt64 if self.fmi3 else s.setInteger)([vr], [int(value)])


def _recorded(structure: SystemStructure, outputs: list[str] | None) -> list[tuple[str, str]]:
    if outputs is None:
        return [(e.name, v.name) for e in structure.elements for v in e.md.modelVariables if v.causality == "output"]
    out = []
    for text in outputs:
        comp, dot, var = text.partition(".")
        element = structure.element(comp)
        if not dot or var not in element.variables:
            raise StructureError(f"--output {text}: name a variable as component.variable ({comp} has no {var!r})")
        out.append((comp, var))
    return out


def simulate_structure(
    structure: SystemStructure,
    *,
    start_time: float | None = None,
    stop_time: float | None = None,
    step: float | None = None,
    start_values: Mapping[str, str] | None = None,
    outputs: list[str] | None = None,
    timeout: float | None = None,
) -> np.ndarray:
    """Run a system structure (see the module docstring for the order of the calls); returns a structured
    array with ``time`` and the recorded ``component.variable`` columns at every communication point.

    Args:
        structure: the structure (its FMU files must exist).
        start_time, stop_time: default the structure's experiment (stop: its ``stop``, else 1 s later).
        step: the communication step (default the structure's; it must divide the simulated time).
        start_values: ``{"comp.var": "value"}`` set before initialization, after the structure's bindings.
        outputs: ``comp.var`` to record (default every output of every component).
        timeout: wall-clock limit in seconds.

    Raises:
        StructureError: an algebraic loop, an unknown name, a step that does not divide the time.
        SimulationError: an FMU failed (its messages and the time are named).
    """
    start = structure.start if start_time is None else start_time
    stop = (structure.stop if structure.stop is not None else start + 1.0) if stop_time is None else stop_time
    h = structure.step if step is None else step
    if h is None:
        raise StructureError("the structure names no communication step: give one (--interval)")
    if not (math.isfinite(start) and math.isfinite(stop) and stop > start):
        raise StructureError(f"the stop time {stop:g} must come after the start time {start:g}")
    count = (stop - start) / h
    if not (h > 0) or abs(count - round(count)) > 1e-9 * max(1.0, count):
        raise StructureError(f"the communication step {h:g} s does not divide the simulated time {stop - start:g} s")
    steps = round(count)
    depends: dict[tuple[str, str], set[str]] = {}
    for e in structure.elements:
        depends.update(feedthrough(e))
    order = exchange_order(structure.links, depends)
    values = _start_values(structure, start_values or {})
    recorded = _recorded(structure, outputs)
    return _run(structure, order, values, recorded, start, h, steps, timeout)


def _start_values(structure: SystemStructure, extra: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    from .system_structure import _typed

    values = {comp: dict(v) for comp, v in structure.bindings.items()}
    fed = {(link.target, link.input) for link in structure.links}
    for key, text in extra.items():
        comp, dot, var = key.partition(".")
        element = structure.element(comp)
        if not dot:
            raise StructureError(f"--set {key}: name a variable as component.variable")
        if (comp, var) in fed:
            raise StructureError(f"--set {key}: this input is connected; its value comes from the connection")
        values.setdefault(comp, {})[var] = _typed(element, var, str(text))
    return values


def _run(structure, order, values, recorded, start, h, steps, timeout) -> np.ndarray:
    import tempfile

    import fmpy
    from fmpy import calloc, free
    from fmpy.fmi2 import (
        fmi2CallbackAllocateMemoryTYPE,
        fmi2CallbackFreeMemoryTYPE,
        fmi2CallbackFunctions,
        fmi2CallbackLoggerTYPE,
    )
    from fmpy.fmi3 import fmi3LogMessageCallback

    messages: list[str] = []

    def log2(env, instance, status, category, message) -> None:
        if status >= 2:
            messages.append(f"{instance.decode(errors='replace')}: {message.decode(errors='replace')}")

    def log3(env, status, category, message) -> None:
        if status >= 2:
            messages.append(message.decode(errors="replace"))

    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(log2)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    log3_callback = fmi3LogMessageCallback(log3)
    running: dict[str, Running] = {}
    started = clock.monotonic()
    t = start
    try:
        from fmpy.logging import addLoggerProxy

        addLoggerProxy(ctypes.byref(callbacks))
    except (ImportError, OSError):  # no native message proxy on this platform
        pass
    try:
        with tempfile.TemporaryDirectory(prefix="symbody_cosim_") as tmp:
            for e in structure.elements:
                folder = Path(tmp) / e.name
                fmpy.extract(str(e.fmu), str(folder))
                running[e.name] = Running(e, str(folder), callbacks, log3_callback)
            what = "initialization"
            for name, r in running.items():
                if not r.fmi3:
                    r.slave.setupExperiment(startTime=start)
                for var, value in values.get(name, {}).items():
                    r.set(var, value)
                if r.fmi3:
                    r.slave.enterInitializationMode(startTime=start)
                else:
                    r.slave.enterInitializationMode()
            _exchange(running, order)
            for r in running.values():
                r.slave.exitInitializationMode()
            rows = []
            for k in range(steps + 1):
                what = f"t = {t:.12g} s"
                _exchange(running, order)
                rows.append([t, *(running[c].get(v) for c, v in recorded)])
                if k == steps:
                    break
                for name, r in running.items():
                    what = f"the step of {name} from t = {t:.12g} s"
                    r.slave.doStep(t, h)
                t = start + (k + 1) * h
                if timeout is not None and clock.monotonic() - started > timeout:
                    raise SimulationError(f"stopped at t = {t:g} s after the time limit of {timeout:g} s (--timeout)")
            for r in running.values():
                r.slave.terminate()
    except SimulationError:
        raise
    except Exception as e:  # noqa: BLE001 - fmpy raises plain exceptions for failed FMI calls
        detail = f" ({'; '.join(dict.fromkeys(messages[-3:]))})" if messages else ""
        raise SimulationError(f"the system {structure.name!r} failed in {what}: {e}{detail}", "fmu") from None
    finally:
        for r in running.values():
            try:
                r.slave.freeInstance()
            except Exception:  # noqa: BLE001, S110 - freeing after a failure must not hide it
                pass
        restore_fmi2_message_proxy()
    names = ["time", *(f"{c}.{v}" for c, v in recorded)]
    result = np.zeros(len(rows), dtype=[(n, float) for n in names])
    for j, n in enumerate(names):
        result[n] = [row[j] for row in rows]
    return result


def _exchange(running: dict[str, Running], order: list[Link]) -> None:
    for link in order:
        running[link.target].set(link.input, running[link.source].get(link.output))
