"""A results file cut short (an interrupted copy, a full disk) or edited by hand is resumed from its complete rows.

The last row cut at any byte is run again, never taken as done with a cut value or an empty status;
the rows before it are read back exactly as they were written.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from symbody.study import ResultsFileWarning, sweep
from symbody.study.results import ResultsFile

STUDY = "7c1d0e5a9b3f2d4c"
ROWS = [
    {"run_id": "0a1b", "m": 1.0, "theta.max": 0.1 + 0.2, "status": "ok", "message": "", "elapsed": 0.25},
    {"run_id": "0a1c", "m": 2.5, "theta.max": math.pi, "status": "ok", "message": "", "elapsed": 1.0 / 3.0},
    {  # quoted in the file: a comma, a quote, a line break; non-ASCII: a cut may split a character
        "run_id": "0a1d",
        "m": 12345.678,
        "theta.max": float("nan"),
        "status": "error",
        "message": 'the solver said "no", stopped\nat t = 1.5 µs (∞ force)',
        "elapsed": 2.0e-3,
    },
]


def write(path, rows) -> bytes:
    store = ResultsFile(path, STUDY, ["m"])
    for row in rows:
        store.add(dict(row))
    store.flush(force=True)
    return path.read_bytes()


def resumed(path) -> tuple[ResultsFile, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        store = ResultsFile(path, STUDY, ["m"])
    return store, [w for w in caught if issubclass(w.category, ResultsFileWarning)]


def test_a_file_cut_at_any_byte_of_its_last_row_resumes_from_the_rows_before(tmp_path):
    path = tmp_path / "r.csv"
    before = write(path, ROWS[:2])
    full = write(path, ROWS)
    assert full.startswith(before) and b'"the solver said ""no"", stopped\nat' in full
    for cut in range(len(before), len(full) + 1):
        path.write_bytes(full[:cut])
        store, caught = resumed(path)
        done = ["0a1b", "0a1c"] if cut < len(full) else ["0a1b", "0a1c", "0a1d"]
        assert sorted(store.finished()) == done, cut
        assert len(caught) == (len(before) < cut < len(full)), cut
        assert all("the rows starting on line 4: cut or malformed" in str(w.message) for w in caught)
        for row, original in zip(store.rows, ROWS[: len(done)]):
            for key, value in original.items():  # exactly as written
                assert row[key] == value or (value != value and row[key] != row[key]), (cut, key)


def test_malformed_rows_anywhere_are_run_again(tmp_path):
    path = tmp_path / "r.csv"
    lines = write(path, ROWS[:2]).decode().splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    bad = [
        "0a20,1.0\n",  # fields missing
        lines[1].rstrip("\n") + ",extra\n",  # a field too many
        lines[1].replace("0a1b", "0a21").replace(",ok,", ",running,"),  # no status a finished run records
        lines[1].replace("0a1b", ""),  # no run id
    ]
    assert header[0] == "run_id" and ",ok," in lines[1]
    path.write_text(lines[0] + bad[0] + lines[1] + bad[1] + bad[2] + lines[2] + bad[3])
    store, caught = resumed(path)
    assert sorted(store.finished()) == ["0a1b", "0a1c"]
    assert len(caught) == 1 and "the rows starting on line 2, 4, 5, 7: cut or malformed" in str(caught[0].message)


def test_a_sweep_resumed_on_a_cut_file_runs_the_cut_row_again(tmp_path):
    from symbody.fmu import export_fmu
    from symbody.models import pendulum

    fmu = export_fmu(pendulum(), tmp_path / "p.fmu", kind="cs")
    out = tmp_path / "r.csv"
    calls: list = []

    def count(traj) -> float:
        calls.append(1)
        return float(traj["theta"].max())

    kw = dict(stop_time=0.5, outputs=["theta"], metrics={"top": count}, workers=0, progress=False, output=out)
    cases = {"theta": [0.1, 0.2, 0.3]}
    reference = sweep(fmu, cases, **kw)
    full = out.read_bytes()
    last = full.rindex(b"\n", 0, len(full) - 1) + 1
    cut = last + full[last:].index(b",", full[last:].index(b",") + 1) + 4  # inside the value after theta
    out.write_bytes(full[:cut])
    assert pd.read_csv(out, dtype={"run_id": str})["status"].isna().tolist() == [False, False, True]
    calls.clear()
    with pytest.warns(ResultsFileWarning, match="line 4: cut or malformed, their runs are made again"):
        df = sweep(fmu, cases, **kw)
    assert len(calls) == 1 and df.attrs["runs"] == 1 and df.attrs["skipped"] == 2
    assert (df["status"] == "ok").all()
    columns = ["run_id", "theta", "theta.final", "theta.max", "top"]
    assert np.array_equal(df[columns].to_numpy(), reference[columns].to_numpy())
    again = pd.read_csv(out, dtype={"run_id": str})
    assert again["run_id"].tolist() == reference["run_id"].tolist() and (again["status"] == "ok").all()
