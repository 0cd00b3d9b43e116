"""The results table of a study on disk: CSV or Parquet, rewritten atomically as runs finish, read back to resume.

Every row carries its ``run_id`` (a hash of the case's values, see
:func:`symbody.study.design.run_id`) and ``study``, a hash of everything the
runs share (the FMU, the fixed start values, the stop time, the outputs ...).
A study resumed on the same file skips the run ids already in it; a file
written by another study (another FMU or other settings) is refused rather
than mixed.  The file is replaced through a temporary file at most every
``flush_interval`` seconds and at the end, so an interrupted study leaves a
complete table of the runs finished so far.  A CSV file cut short elsewhere (a
copy interrupted, a full disk) or edited by hand is read up to its last complete
row: a row cut in the middle or malformed (fields missing or extra, no known
status, no line end) is not taken as done but run again, with a
:class:`ResultsFileWarning` (:func:`complete_rows`).

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "r.csv"
    >>> f = ResultsFile(path, study="abc", case_names=["m"])
    >>> f.add({"run_id": "01", "m": 1.0, "status": "ok", "message": ""}); f.flush(force=True)
    >>> sorted(ResultsFile(path, study="abc", case_names=["m"]).finished())
    ['01']
"""

from __future__ import annotations

import codecs
import csv
import io
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..fmu.files import write_atomically
from .design import StudyError
from .runner import DISCARD, ERROR, OK, TIMEOUT

SUFFIXES = (".csv", ".parquet")
LEADING = ["run_id"]
TRAILING = ["status", "message", "elapsed", "trajectory", "study"]
TEXT_COLUMNS = {"run_id": str, "status": str, "message": str, "trajectory": str, "study": str}
#: the statuses a finished run records
STATUSES = frozenset({OK, ERROR, DISCARD, TIMEOUT})


class ResultsFileWarning(UserWarning):
    """Rows of a results file were cut or malformed: their runs are made again."""


def complete_rows(text: str) -> tuple[str, list[int]]:
    r"""The CSV ``text`` of a results file without its incomplete rows, and the lines where those started.

    A row is complete when it has a field for every column of the header, a ``run_id``, a known
    ``status`` (:data:`STATUSES`) and its line end: a row cut at any byte (a value cut short, the
    status or the study key missing or cut) is not, and neither is one with fields missing or extra.
    Rows keep their text, so that values read back exactly as written.

    Example:
        >>> text = "run_id,x,status,study\n01,1.5,ok,abc\n02,2.5,o"
        >>> complete_rows(text)
        ('run_id,x,status,study\n01,1.5,ok,abc\n', [3])
    """
    lines = io.StringIO(text, newline="").readlines()
    reader = csv.reader(lines)
    try:
        header = next(reader)
    except (StopIteration, csv.Error):
        return text, []  # no header: not a results file, as the reader of the table says
    columns = {name: k for k, name in enumerate(header)}
    if "run_id" not in columns or "status" not in columns:
        return text, []
    kept, dropped = lines[: reader.line_num], []
    while True:
        start = reader.line_num
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error:
            dropped.append(start + 1)  # a malformed record: the reader cannot go on behind it
            break
        record = lines[start : reader.line_num]
        ended = record[-1].endswith(("\n", "\r"))
        if ended and len(row) == len(header) and row[columns["run_id"]] and row[columns["status"]] in STATUSES:
            kept += record
        elif any(line.strip() for line in record):
            dropped.append(start + 1)
    return "".join(kept), dropped


def check_path(path: str | Path) -> Path:
    """A results path with a known suffix (``.csv`` or ``.parquet``) in an existing folder."""
    p = Path(path)
    if p.suffix.lower() not in SUFFIXES:
        raise StudyError(f"results file {str(p)!r} must end in .csv or .parquet")
    if not p.resolve().parent.is_dir():
        raise StudyError(f"folder of the results file {str(p)!r} does not exist")
    return p


def _decode(data: bytes) -> str:
    """UTF-8 text of a file; a character cut at the very end (the file cut there) is left out with its row."""
    return codecs.getincrementaldecoder("utf-8")().decode(data, final=False)


class ResultsFile:
    """The rows of a study, those found in its file and those added since.

    Args:
        path: ``.csv`` or ``.parquet`` file (None: keep the rows in memory only).
        study: the study's key; a file holding rows of another study is refused.
        case_names: the swept names (their columns come first, after ``run_id``).
        flush_interval: least number of seconds between two rewrites of the file.
    """

    def __init__(
        self, path: str | Path | None, study: str, case_names: Sequence[str] = (), flush_interval: float = 2.0
    ):
        self.path = None if path is None else check_path(path)
        self.study = study
        self.case_names = list(case_names)
        self.flush_interval = flush_interval
        found = self._read() if self.path is not None and self.path.exists() else []
        self._rows: dict[str, dict[str, Any]] = {r["run_id"]: r for r in found}
        self._dirty = False
        self._last_flush = time.monotonic()
        self.order: list[str] = []  # run ids of the current study, the order of the rows in the file

    def _read(self) -> list[dict[str, Any]]:
        import pandas as pd

        assert self.path is not None
        dropped: list[int] = []
        try:
            if self.path.suffix.lower() == ".csv":
                text, dropped = complete_rows(_decode(self.path.read_bytes()))
                df = pd.read_csv(io.StringIO(text), dtype=TEXT_COLUMNS)
            else:
                df = pd.read_parquet(self.path)
        except Exception as e:  # noqa: BLE001 - any unreadable file gets the same advice
            raise StudyError(f"cannot read the results file {str(self.path)!r} to resume ({e})") from None
        if "run_id" not in df.columns or "study" not in df.columns:
            raise StudyError(f"{str(self.path)!r} is not a results file of symbody sweep (no run_id/study columns)")
        if dropped:
            where = f"{str(self.path)!r}, the rows starting on line {', '.join(map(str, dropped))}"
            warnings.warn(ResultsFileWarning(f"{where}: cut or malformed, their runs are made again"), stacklevel=3)
        studies = set(df["study"].dropna())
        if studies - {self.study}:
            raise StudyError(
                f"{str(self.path)!r} holds the results of another study (other FMU or settings): "
                "choose another results file or delete it"
            )
        for column in ("message", "trajectory"):
            if column in df.columns:
                df[column] = df[column].fillna("")
        return df.to_dict("records")

    def finished(self, include_failed: bool = True) -> set[str]:
        """Run ids already in the table (only the successful ones unless ``include_failed``)."""
        return {r["run_id"] for r in self.rows if include_failed or r.get("status") == "ok"}

    def add(self, row: dict[str, Any]) -> None:
        """Add (or replace, by run id) one row."""
        self._rows[row["run_id"]] = {**row, "study": self.study}
        self._dirty = True

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Every row, those read from the file first."""
        return list(self._rows.values())

    def columns(self) -> list[str]:
        """Column order: run id, swept names, outputs and metrics as they came, then status and bookkeeping."""
        seen: dict[str, None] = {}
        for r in self.rows:
            seen.update(dict.fromkeys(r))
        head = [c for c in [*LEADING, *self.case_names] if c in seen or c in self.case_names]
        tail = [c for c in TRAILING if c in seen]
        return head + [c for c in seen if c not in head and c not in tail] + tail

    def frame(self, order: Sequence[str] | None = None):
        """The table as a DataFrame; with ``order`` (run ids) only those rows, in that order.

        Without ``order`` every row: those of the study's :attr:`order` first, in that order.
        """
        import pandas as pd

        if order is None:
            rank = {rid: i for i, rid in enumerate(self.order)}
            rows = sorted(self.rows, key=lambda r: rank.get(r["run_id"], len(rank)))
        else:
            rows = [self._rows[i] for i in order if i in self._rows]
        df = pd.DataFrame(rows, columns=self.columns())
        if "trajectory" in df.columns:
            df["trajectory"] = df["trajectory"].fillna("")
        return df

    def flush(self, force: bool = False) -> None:
        """Rewrite the file atomically if rows were added and ``flush_interval`` has passed (or ``force``)."""
        if self.path is None or not self._dirty:
            return
        if not force and time.monotonic() - self._last_flush < self.flush_interval:
            return
        df = self.frame()
        if self.path.suffix.lower() == ".csv":
            write_atomically(self.path, lambda tmp: df.to_csv(tmp, index=False))
        else:
            write_atomically(self.path, lambda tmp: df.to_parquet(tmp, index=False))
        self._dirty = False
        self._last_flush = time.monotonic()


def write_trajectory(traj, path: Path) -> Path:
    """One run's trajectory (structured array) as a Parquet file, written atomically."""
    import pandas as pd

    df = pd.DataFrame({name: traj[name] for name in traj.dtype.names})
    return write_atomically(path, lambda tmp: df.to_parquet(tmp, index=False))
