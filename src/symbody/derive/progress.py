"""Progress of a long derivation: a bar on stderr that appears only after two seconds.

Example:
    >>> report, close = progress_reporter(False)
    >>> report is None
    True
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

Progress = Callable[[int, int, str], None]


def progress_reporter(enabled: bool | Progress | None) -> tuple[Progress | None, Callable[[], None]]:
    """``(callback, close)``: the user's callback, none (``False``) or a delayed ``tqdm`` bar (``None``, ``True``)."""
    if callable(enabled):
        return enabled, lambda: None
    if enabled is False:
        return None, lambda: None
    state: dict[str, Any] = {"bar": None, "t0": time.perf_counter()}

    def report(done: int, total: int, what: str) -> None:
        if state["bar"] is None:
            if time.perf_counter() - state["t0"] < 2.0:
                return
            try:
                from tqdm import tqdm
            except ImportError:  # pragma: no cover - tqdm is a dependency
                return
            # disable=None: a bar on a terminal only, never in a log or a captured stream
            bar = state["bar"] = tqdm(
                total=total, desc="deriving", unit="item", file=sys.stderr, leave=False, disable=None
            )
            bar.update(done)
            return
        bar = state["bar"]
        bar.set_postfix_str(what[:20], refresh=False)
        bar.update(done - bar.n)

    def close() -> None:
        if state["bar"] is not None:
            state["bar"].close()

    return report, close


__all__ = ["Progress", "progress_reporter"]
