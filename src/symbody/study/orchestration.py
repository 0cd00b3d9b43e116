"""Parameter sweeps and Monte Carlo studies of an FMU on dask.distributed, from a laptop to a cluster.

:func:`sweep` builds the case table (full factorial of value lists and/or a
Latin-hypercube sample of ranges), ships the FMU to the workers as bytes,
runs every case there (each worker extracts and instantiates the FMU once and
resets the instance between runs, :mod:`symbody.study.runner`) and collects
one row per run.  By default it starts a ``LocalCluster`` with one worker
process per core; ``scheduler=`` (an address or a scheduler file) or
``client=`` runs on an existing cluster (dask-jobqueue, Kubernetes, ...)
without any other change.  ``workers=0`` runs the cases one after another in
this process.

A failing run (the FMU's Error or Discard, an exception, a timeout, a crashed
worker) is a row with its ``status`` and ``message``, never the end of the
study.  With ``output=`` the table is written as the runs finish and a study
started again on the same file skips the runs it already holds.

Controllers and metrics travel to the workers pickled (cloudpickle): functions
defined in a script or in a notebook go by value; those of modules the
workers cannot import need ``cloudpickle.register_pickle_by_value(module)``
(see ``examples/crane_control/sweep_lqr.py``).  A script that starts the
default ``LocalCluster`` keeps its work under ``if __name__ == "__main__":``
(the worker processes import the script).

Example (a pendulum from three start angles, in this process):
    >>> import tempfile, pathlib
    >>> from symbody.models import pendulum
    >>> from symbody.fmu import export_fmu
    >>> fmu = export_fmu(pendulum().derive(), pathlib.Path(tempfile.mkdtemp()) / "p.fmu", kind="cs")
    >>> df = sweep(fmu, {"theta": [0.1, 0.2, 0.3]}, stop_time=1.0, outputs=["theta"], workers=0, progress=False)
    >>> df[["theta", "theta.max", "status"]].round(6).values.tolist()
    [[0.1, 0.1, 'ok'], [0.2, 0.2, 'ok'], [0.3, 0.3, 'ok']]
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import logging
import math
import os
import re
import tempfile
import uuid
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from .design import Case, StudyError, check_unique, cross, factorial, latin_hypercube, run_id
from .results import ResultsFile, write_trajectory
from .runner import ERROR, FmuRunner, RunSettings, check_disjoint_drives, fmu_hash, run_cases


def sweep(
    fmu: str | Path | bytes,
    params: Mapping[str, Sequence[float]] | None = None,
    *,
    samples: Mapping[str, tuple[float, float]] | None = None,
    n_samples: int | None = None,
    seed: int | None = 0,
    cases: Sequence[Mapping[str, float]] | None = None,
    start_values: Mapping[str, float] | None = None,
    stop_time: float,
    outputs: Sequence[str] = (),
    interval: float | None = None,
    kind: str = "cs",
    inputs: np.ndarray | None = None,
    controller: Any = None,
    sample_period: float | None = None,
    metrics: Mapping[str, Callable[[np.ndarray], Any]] | None = None,
    record: Sequence[str] = (),
    timeout: float | None = None,
    output: str | Path | None = None,
    trajectories: str | Path | None = None,
    retry_failed: bool = False,
    client: Any = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool = True,
    flush_interval: float = 2.0,
) -> pd.DataFrame:
    """Run an FMU over a table of cases and return one row per run as a pandas DataFrame.

    Args:
        fmu: the ``.fmu`` file (or its bytes).
        params: ``{name: values}``, crossed into a full factorial.
        samples, n_samples, seed: ``{name: (low, high)}`` sampled by a Latin hypercube of
            ``n_samples`` points (reproducible with ``seed``), crossed with ``params``.
        cases: an explicit list of cases instead (``{name: value}`` each).
        start_values: values set in every run (a case's own values win).
        stop_time, interval, kind, inputs: as in ``symbody simulate`` (``inputs``: an fmpy signal).
        controller, sample_period: a sampled controller in closed loop with the FMU (see
            :class:`symbody.study.runner.RunSettings`), or a factory ``controller(case)``; ``inputs``
            may drive the inputs it leaves alone (one driven by both is refused).
        outputs: variables summarized as ``NAME.final``, ``NAME.min``, ``NAME.max``.
        metrics: ``{name: f(trajectory)}``, user metrics as further columns.
        record: further variables recorded for the metrics.
        timeout: wall-clock seconds per run; a slower run is recorded with status ``timeout``.
        output: ``.csv`` or ``.parquet`` file written as the runs finish; an existing file of the
            same study is resumed (its runs are skipped; failed ones rerun with ``retry_failed``).
        trajectories: folder for one Parquet file per run (``<run_id>.parquet``, column ``trajectory``).
        client, scheduler, workers: an existing ``distributed.Client``; or a scheduler address or
            scheduler file; or the number of processes of a new ``LocalCluster`` (default: the
            cores; 0: run here, one case after another).
        progress: show a progress bar.
        flush_interval: least number of seconds between two rewrites of ``output``.

    Returns:
        DataFrame with ``run_id``, the case values, the summaries and metrics, ``status``,
        ``message``, ``elapsed`` (s), ``trajectory`` (with ``trajectories``) and ``study``, in the
        order of the cases;
        ``df.attrs`` holds ``runs`` (made now), ``skipped`` (found in ``output``) and
        ``instantiations`` (FMU instances created by the workers).
    """
    parquet = str(output or "").lower().endswith(".parquet") or trajectories is not None
    _require("pandas", *(["pyarrow"] if parquet else []))
    if workers is not None and (client is not None or scheduler is not None):
        raise StudyError("workers sizes a new local cluster; an existing cluster (client, scheduler) has its own")
    data = fmu if isinstance(fmu, bytes) else _read_fmu(fmu)
    table = design_cases(params, samples, n_samples, seed, cases)
    settings = RunSettings(
        stop_time=float(stop_time),
        outputs=tuple(outputs),
        fixed=dict(start_values or {}),
        interval=interval,
        kind=kind,
        inputs=inputs,
        controller=controller,
        sample_period=sample_period,
        metrics=dict(metrics or {}),
        record=tuple(record),
        timeout=timeout,
        keep_trajectory=trajectories is not None,
    )
    check_names(data, table, settings)
    key = fmu_hash(data)
    ids = [run_id(c) for c in table]
    store = ResultsFile(output, study_key(content_key(data), settings, list(table[0])), list(table[0]), flush_interval)
    store.order = ids
    done = store.finished(include_failed=not retry_failed)
    pending = [(rid, case) for rid, case in zip(ids, table) if rid not in done]
    folder = None if trajectories is None else Path(trajectories)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    counts: dict[Any, int] = {}

    def record_row(rid: str, case: Case, row: dict[str, Any]) -> None:
        worker, made = row.pop("_worker", None), row.pop("_instantiations", 0)
        counts[worker] = max(counts.get(worker, 0), made)
        traj = row.pop("_trajectory", None)
        if folder is not None:
            row["trajectory"] = "" if traj is None else str(write_trajectory(traj, folder / f"{rid}.parquet"))
        store.add({"run_id": rid, **case, **row})
        store.flush()

    try:
        if pending:
            run = _run_here if (workers == 0 and client is None and scheduler is None) else _run_on_dask
            run(data, key, settings, pending, record_row, client, scheduler, workers, progress)
    finally:
        store.flush(force=True)
    df = store.frame(order=ids)
    df.attrs.update(runs=len(pending), skipped=len(table) - len(pending), instantiations=sum(counts.values()))
    return df


def design_cases(
    params: Mapping[str, Sequence[float]] | None,
    samples: Mapping[str, tuple[float, float]] | None,
    n_samples: int | None,
    seed: int | None,
    cases: Sequence[Mapping[str, float]] | None,
) -> list[Case]:
    """The case table of a study (see :func:`sweep`)."""
    if cases is not None:
        if params or samples:
            raise StudyError("give either cases or params/samples, not both")
        table = [{str(k): float(v) for k, v in c.items()} for c in cases]
    else:
        if samples and not n_samples:
            raise StudyError("sampled ranges need the number of samples (n_samples, --samples N)")
        if n_samples and not samples:
            raise StudyError("a number of samples needs ranges to sample (samples, --sample NAME=low:high)")
        table = factorial(dict(params or {}))
        if samples:
            table = cross(table, latin_hypercube(samples, int(n_samples or 0), seed))
    if not table or table == [{}]:
        raise StudyError("the study has no cases: give parameters to sweep or sample")
    if len({tuple(c) for c in table}) != 1:
        raise StudyError("every case must set the same variables")
    check_unique(table)
    return table


def check_names(data: bytes, table: Sequence[Case], settings: RunSettings) -> None:
    """Refuse names the FMU does not have, before any run."""
    import fmpy

    with tempfile.TemporaryDirectory(prefix="symbody_study_") as tmp:
        path = Path(tmp) / "model.fmu"
        path.write_bytes(data)
        try:
            md = fmpy.read_model_description(str(path))
        except Exception as e:  # noqa: BLE001 - fmpy raises plain exceptions
            raise StudyError(f"cannot read the FMU: {e}") from None
    names = {v.name for v in md.modelVariables}
    used: dict[str, str] = {}
    used.update({n: "swept" for n in table[0]})
    used.update({n: "set" for n in settings.fixed})
    used.update({n: "output" for n in settings.outputs})
    used.update({n: "recorded" for n in settings.record})
    if settings.inputs is not None:
        used.update({n: "input-file" for n in settings.inputs.dtype.names or () if n != "time"})
    ctrl = settings.controller
    if ctrl is not None and hasattr(ctrl, "measured"):
        used.update({n: "controller" for n in [*ctrl.measured, *ctrl.inputs]})
    for name, role in used.items():
        if name not in names:
            raise StudyError(f"the FMU {md.modelName!r} has no variable {name!r} ({role})")
    variables = {v.name: v for v in md.modelVariables}
    for name in [*table[0], *settings.fixed]:
        v = variables[name]
        if v.causality == "independent" or (v.causality not in ("parameter", "input") and v.initial == "calculated"):
            raise StudyError(f"{name!r} cannot be set: the FMU calculates it ({v.causality})")
    _check_integral(md, table, settings.fixed)
    available = {"cs": md.coSimulation, "me": md.modelExchange}
    if settings.kind not in available or available[settings.kind] is None:
        raise StudyError(f"the FMU {md.modelName!r} has no {settings.kind!r} interface")
    if ctrl is not None and (settings.sample_period is None or not settings.sample_period > 0):
        raise StudyError("a controller in the loop needs a positive sample_period")
    if ctrl is not None:
        h, n = settings.sample_period, round(settings.stop_time / (settings.sample_period or 1.0))
        if h and abs(n * h - settings.stop_time) > 1e-9 * max(1.0, settings.stop_time):
            raise StudyError(f"the stop time {settings.stop_time:g} s is not a multiple of the sample period {h:g} s")
    if ctrl is not None and hasattr(ctrl, "inputs"):
        try:
            check_disjoint_drives(ctrl.inputs, settings.inputs)
        except ValueError as e:
            raise StudyError(str(e)) from None
    if ctrl is not None and settings.kind != "cs":
        raise StudyError("a controller in the loop drives the Co-Simulation interface: use kind='cs'")
    if not settings.stop_time > 0:
        raise StudyError(f"stop time must be positive, not {settings.stop_time:g}")


def _check_integral(md, table: Sequence[Case], fixed: Mapping[str, float]) -> None:
    """Integer, enumeration and Boolean variables take whole values (0 or 1 for a Boolean), never rounded."""
    kinds = {v.name: v.type for v in md.modelVariables}
    for values in (*table, fixed):
        for name, value in values.items():
            kind = kinds.get(name, "")
            whole = float(value) == int(float(value))
            if (kind.startswith(("Int", "UInt", "Enumeration")) and not whole) or (
                kind == "Boolean" and float(value) not in (0.0, 1.0)
            ):
                allowed = "0 or 1" if kind == "Boolean" else "whole numbers"
                raise StudyError(f"{name!r} ({kind} variable of the FMU) takes {allowed}, not {value!r}")


def content_key(data: bytes) -> str:
    """A hash of an FMU's files, blind to the export date (the same model exported again has the same key)."""
    digest = hashlib.sha256()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for name in sorted(z.namelist()):
                content = z.read(name)
                if name == "modelDescription.xml":
                    content = re.sub(rb'generationDateAndTime="[^"]*"', b"", content)
                digest.update(name.encode() + b"\0" + hashlib.sha256(content).digest())
    except zipfile.BadZipFile:
        raise StudyError("the FMU is not a zip archive") from None
    return digest.hexdigest()


def study_key(fmu_key: str, settings: RunSettings, swept: Sequence[str] = ()) -> str:
    """A hash of what the runs of a study share, and of the names it varies (another study's file is refused)."""
    inputs = None if settings.inputs is None else hashlib.sha256(settings.inputs.tobytes()).hexdigest()
    ctrl = settings.controller
    text = json.dumps(
        {
            "fmu": fmu_key,
            "swept": sorted(swept),
            "fixed": sorted((k, float(v).hex()) for k, v in settings.fixed.items()),
            "stop_time": float(settings.stop_time).hex(),
            "interval": None if settings.interval is None else float(settings.interval).hex(),
            "kind": settings.kind,
            "outputs": list(settings.outputs),
            "record": list(settings.record),
            "inputs": inputs,
            "controller": None if ctrl is None else getattr(ctrl, "__qualname__", type(ctrl).__qualname__),
            "sample_period": settings.sample_period,
            "metrics": sorted(settings.metrics),
        }
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _require(*modules: str) -> None:
    """The optional packages of studies, or a StudyError telling how to install them."""
    import importlib.util

    missing = [m for m in dict.fromkeys(modules) if importlib.util.find_spec(m) is None]
    if missing:
        raise StudyError(f"parameter studies need {', '.join(missing)}: pip install 'symbody[sweep]'")


def _read_fmu(path: str | Path) -> bytes:
    p = Path(path)
    if not p.is_file():
        raise StudyError(f"FMU {str(p)!r} not found")
    return p.read_bytes()


def _progress(total: int, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="sweep", unit="run", disable=not enabled)


def _run_here(data, key, settings, pending, record_row, client, scheduler, workers, progress) -> None:
    """Every case in this process, one after another, on one runner."""
    runner = FmuRunner(data)
    try:
        with _progress(len(pending), progress) as bar:
            for rid, case in pending:
                row = runner.run(case, settings)
                row["_instantiations"], row["_worker"] = runner.instantiations, "here"
                record_row(rid, case, row)
                bar.update()
    finally:
        runner.close()


def _run_on_dask(data, key, settings, pending, record_row, client, scheduler, workers, progress) -> None:
    """The cases as tasks on a dask cluster, in batches; rows are recorded as they finish.

    When a worker dies (an FMU that crashed its process), the scheduler retries its tasks
    elsewhere and gives up on those it saw on dying workers too often; such a task may be
    innocent, a neighbour of the crashing run.  Its batch is split into single runs, and a
    single run that still fails is run again alone on the cluster at the end: only a run that
    fails alone is recorded as failed.
    """
    _require("distributed")
    from distributed import as_completed

    with _client(client, scheduler, workers) as c:
        token = uuid.uuid4().hex[:8]
        batches: dict[Any, list] = {}
        count = itertools.count()

        def submit(batch: list) -> Any:
            name = f"symbody-runs-{batch[0][0]}-{len(batch)}-{token}-{next(count)}"
            # the FMU's bytes travel with every batch (no shared file system, nothing lost with a worker);
            # each worker unpacks them once (runner cache keyed by their hash)
            future = c.submit(run_cases, data, key, settings, batch, pure=False, key=name)
            batches[future] = batch
            return future

        def record(batch: list, results: list) -> None:
            cases = dict(batch)
            for rid, row in results:
                record_row(rid, cases[rid], row)
            bar.update(len(results))

        size = batch_size(len(pending), max(1, len(c.scheduler_info().get("workers", {}))))
        queue = as_completed([submit(pending[i : i + size]) for i in range(0, len(pending), size)])
        suspects: list = []
        try:
            with _progress(len(pending), progress) as bar:
                for future in queue:
                    batch = batches.pop(future)
                    try:
                        record(batch, future.result())
                    except Exception:  # noqa: BLE001 - a lost worker: split the batch, or suspect the run
                        if len(batch) > 1:
                            for one in batch:
                                queue.add(submit([one]))
                        else:
                            suspects.extend(batch)
                for one in suspects:  # alone on the cluster: nothing else can take its worker down
                    future = submit([one])
                    try:
                        results = future.result()
                    except Exception as e:  # noqa: BLE001 - it crashed its worker by itself
                        message = f"the run's worker failed: {type(e).__name__}: {e}"
                        results = [(one[0], {"status": ERROR, "message": message, "_worker": future.key})]
                    batches.pop(future, None)
                    record([one], results)
        finally:
            c.cancel(list(batches))


def batch_size(runs: int, workers: int) -> int:
    """Runs per task: about eight tasks per worker (scheduling cost amortized, the load still balanced), at most 50.

    Example:
        >>> batch_size(200, 2), batch_size(10, 4), batch_size(100000, 64)
        (13, 1, 50)
    """
    return max(1, min(50, math.ceil(runs / (8 * workers))))


@contextlib.contextmanager
def _client(client, scheduler: str | None, workers: int | None) -> Iterator[Any]:
    """The given client, a client of the given scheduler, or one of a new LocalCluster (closed after)."""
    from distributed import Client, LocalCluster

    if client is not None:
        yield client
        return
    if scheduler is not None:
        is_file = os.path.isfile(scheduler)
        with Client(scheduler_file=scheduler) if is_file else Client(scheduler) as c:
            yield c
        return
    n = workers or os.cpu_count() or 1
    with (
        LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c
