"""A symbody Co-Simulation FMU initialized with a solver and tolerance, its ``logSolver`` messages recorded."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from symbody.fmu.testing import FmuSession


def recording(fmu) -> tuple[FmuSession, list[str]]:
    """A session of ``fmu`` with its ``logSolver`` messages going to the returned list (not yet initialized)."""
    messages: list[str] = []

    def logger(*args):
        messages.append(args[-1].decode() if isinstance(args[-1], bytes) else args[-1])

    s = FmuSession(fmu, logger=logger, debug_logging=True)
    try:
        s.fmu.setDebugLogging(True, ["logSolver"])
    except BaseException:
        s.close()
        raise
    return s, messages


@contextmanager
def logged_solver(fmu, method: int, rtol: float) -> Iterator[tuple[FmuSession, list[str]]]:
    """The initialized session (``solver.method``, ``solver.rtol``, ``solver.atol = rtol / 100``) and the list
    its ``logSolver`` messages go to; closed on leaving."""
    s, messages = recording(fmu)
    try:
        s.initialize(**{"solver.method": method, "solver.rtol": rtol, "solver.atol": rtol * 1e-2})
        yield s, messages
    finally:
        s.close()
