"""Report folders: report.csv a row at a time, then junit.xml and report.html, written by the
harness's report writer (the one `mlacheck run --out` uses); and one folder merged from the
report.csv files of several processes (shards, pytest-xdist workers), as `mlacheck merge` merges."""

from __future__ import annotations

import ctypes
import os
import weakref
from collections.abc import Sequence

from . import _capi
from ._verdict import Verdict


class Report:
    """Creates `directory` if needed and report.csv in it; append() writes and flushes each row;
    finish() writes junit.xml and report.html from report.csv. As a context manager it finishes on
    exit."""

    CSV = "report.csv"
    JUNIT = "junit.xml"
    HTML = "report.html"

    def __init__(self, directory: str | os.PathLike, title: str | None = None, space=None):
        """`space`: the backend's mlacheck.Space, shown in report.html with what it excludes."""
        self.directory = os.fspath(directory)
        self.title = title
        os.makedirs(self.directory, exist_ok=True)
        pointer = ctypes.c_void_p()
        _capi.call("mlacheck_report_open", _capi.cstr(self.directory), ctypes.byref(pointer))
        self._pointer = pointer.value
        self._finalizer = weakref.finalize(self, _capi.lib().mlacheck_report_free, self._pointer)
        if space is not None:
            _capi.call("mlacheck_report_set_space", self._pointer, _capi.cstr(space.text))
        self.rows = 0

    def path(self, name: str) -> str:
        return os.path.join(self.directory, name)

    def append(self, verdict: Verdict) -> None:
        handle = verdict._handle  # noqa: SLF001 - the C row behind the verdict
        if handle is None:
            raise ValueError(f"verdict {verdict.id!r} was not produced by the harness")
        _capi.call("mlacheck_report_append", self._pointer, handle.pointer)
        self.rows += 1

    def finish(self) -> None:
        _capi.call("mlacheck_report_finish", self._pointer, _capi.cstr(self.title))

    def __enter__(self) -> "Report":
        return self

    def __exit__(self, *exc) -> None:
        self.finish()


def merge_reports(inputs: Sequence[str | os.PathLike], directory: str | os.PathLike, title: str | None = None) -> int:
    """Merges the report.csv files `inputs` (in that order) into `directory`: report.csv, junit.xml
    and report.html, replacing what it held. Returns the number of rows. Every input is read
    before anything is written; a missing or damaged input, an id two inputs share (named with
    both files and lines), or an input that is the merged report.csv itself raise MlacheckError
    and leave the folder as it was."""
    paths = [_capi.cstr(os.fspath(path)) for path in inputs]
    array = (ctypes.c_char_p * max(len(paths), 1))(*paths)
    rows = ctypes.c_int64()
    _capi.call(
        "mlacheck_report_merge",
        array,
        len(paths),
        _capi.cstr(os.fspath(directory)),
        _capi.cstr(title),
        ctypes.byref(rows),
    )
    return rows.value
