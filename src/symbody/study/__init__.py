"""Parameter studies of FMUs: full-factorial sweeps and Latin-hypercube Monte Carlo on dask.distributed.

* :mod:`symbody.study.design`: case tables (factorial grids, Latin-hypercube samples) and stable run ids;
* :mod:`symbody.study.runner`: one run of an FMU whose instance is reset and reused, failures recorded;
* :mod:`symbody.study.results`: the results table on disk (CSV or Parquet), written as runs finish, resumed;
* :mod:`symbody.study.sweep`: :func:`sweep`, the orchestration on a dask cluster (a LocalCluster by default);
* :mod:`symbody.study.cli`: the ``symbody sweep`` command.

Example:
    >>> from symbody.study import factorial
    >>> len(factorial({"m_payload": [1e3, 2e3, 4e3], "l": [5.0, 10.0]}))
    6
"""

from .design import StudyError, factorial, latin_hypercube, parse_values, run_id
from .runner import FmuRunner, RunSettings
from .sweep import sweep

__all__ = ["sweep", "factorial", "latin_hypercube", "parse_values", "run_id", "FmuRunner", "RunSettings", "StudyError"]
