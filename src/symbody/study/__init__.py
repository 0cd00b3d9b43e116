"""Parameter studies of FMUs: full-factorial sweeps and Latin-hypercube Monte Carlo on dask.distributed.

* :mod:`symbody.study.design`: case tables (factorial grids, Latin-hypercube samples) and stable run ids;
* :mod:`symbody.study.runner`: one run of an FMU whose instance is reset and reused, failures recorded;
* :mod:`symbody.study.results`: the results table on disk (CSV or Parquet), written as runs finish, resumed;
* :mod:`symbody.study.orchestration`: :func:`sweep`, the runs on a dask cluster (a LocalCluster by default);
* :mod:`symbody.study.cli`: the ``symbody sweep`` command.

The public names load their module on first use (PEP 562), so that the command line
registers ``sweep`` without importing the study machinery.

Example:
    >>> from symbody.study import factorial
    >>> len(factorial({"m_payload": [1e3, 2e3, 4e3], "l": [5.0, 10.0]}))
    6
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .design import StudyError, factorial, latin_hypercube, parse_values, run_id
    from .orchestration import sweep
    from .results import ResultsFileWarning
    from .runner import FmuRunner, RunSettings

_LAZY = {
    "sweep": "orchestration",
    **dict.fromkeys(("StudyError", "factorial", "latin_hypercube", "parse_values", "run_id"), "design"),
    **dict.fromkeys(("FmuRunner", "RunSettings"), "runner"),
    "ResultsFileWarning": "results",
}

__all__ = [
    "sweep",
    "factorial",
    "latin_hypercube",
    "parse_values",
    "run_id",
    "FmuRunner",
    "RunSettings",
    "StudyError",
    "ResultsFileWarning",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use."""
    import importlib

    if name not in _LAZY:
        raise AttributeError(f"module 'symbody.study' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
