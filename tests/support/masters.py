"""Co-simulation masters written out by hand with fmpy, each exchanging values in the order of one real master, so
that a test can check that master against the same FMUs run in Python: ``symbody simulate`` (connections in the
order of the feedthrough graph, at the communication point), libcosim's fixed-step algorithm and Ecos's (both
Jacobi: every FMU steps, then the values read after the step are passed on).

Each loop takes the FMU files by component name, the connections ``(source, output, target, input)``, start values
by component and the communication step, and returns the recorded ``(component, variable)`` columns at every
communication point."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from support.cosim import Stepper

Connection = tuple[str, str, str, str]


def _instances(fmus: dict[str, Path], start: dict[str, dict[str, float]]) -> dict[str, Stepper]:
    return {name: Stepper(fmu, 0.0, start.get(name, {})) for name, fmu in fmus.items()}


def _row(t: float, inst: dict[str, Stepper], record: list[tuple[str, str]]) -> list[float]:
    return [t, *(inst[c].get([v])[0] for c, v in record)]


def gauss_seidel(fmus, connections: list[Connection], start, h: float, steps: int, record) -> np.ndarray:
    """``symbody simulate``: at each point read each output and set its input, in the given order, then step."""
    inst = _instances(fmus, start)
    rows = []
    for k in range(steps + 1):
        for src, out, dst, inp in connections:
            inst[dst].set({inp: inst[src].get([out])[0]})
        rows.append(_row(k * h, inst, record))
        if k < steps:
            for s in inst.values():
                s.step(h)
    return np.array(rows)


def libcosim(fmus, connections: list[Connection], start, h: float, steps: int, record) -> np.ndarray:
    """libcosim (fixed_step_algorithm): the values read after each step (or initialization iteration) of every
    FMU are set into the inputs before the next; N iterations of set-then-read during initialization."""
    inst = _instances(fmus, start)  # (Stepper initializes in one go; the iterations below act after it)
    pending: dict[tuple[str, str], float] = {}

    def read() -> dict[tuple[str, str], float]:
        return {(s, o): inst[s].get([o])[0] for s, o, _, _ in connections}

    def transfer(cache) -> None:
        for s, o, d, i in connections:
            pending[(d, i)] = cache[(s, o)]

    def apply() -> None:
        for (d, i), v in pending.items():
            inst[d].set({i: v})

    for _ in range(len(inst) + 1):  # N iterations, then the start of the simulation
        apply()
        transfer(read())
    rows = [_row(0.0, inst, record)]
    for k in range(steps):
        apply()
        for s in inst.values():
            s.step(h)
        transfer(read())
        rows.append(_row((k + 1) * h, inst, record))
    return np.array(rows)


def ecos(fmus, connections: list[Connection], start, h: float, steps: int, record) -> np.ndarray:
    """Ecos (simulation::step): every FMU sets its inputs, steps and is read; the values read are passed on and
    set, and the outputs read again (so that the next step starts from inputs set at the new point)."""
    inst = _instances(fmus, start)
    pending: dict[tuple[str, str], float] = {}
    cache: dict[tuple[str, str], float] = {}

    def apply_and_read() -> None:
        for (d, i), v in pending.items():
            inst[d].set({i: v})
        cache.update({(s, o): inst[s].get([o])[0] for s, o, _, _ in connections})

    def transfer() -> None:
        for s, o, d, i in connections:
            pending[(d, i)] = cache[(s, o)]

    for _ in range(len(inst) + 1):
        apply_and_read()
        transfer()
    apply_and_read()
    rows = [_row(0.0, inst, record)]
    for k in range(steps):
        for (d, i), v in pending.items():
            inst[d].set({i: v})
        for s in inst.values():
            s.step(h)
        cache.update({(s, o): inst[s].get([o])[0] for s, o, _, _ in connections})
        transfer()
        apply_and_read()
        rows.append(_row((k + 1) * h, inst, record))
    return np.array(rows)
