"""Verdicts: the row `mlacheck run` writes for a case, read from the harness's own CSV record of it
(docs/report-columns.md), so a Python run and a CLI run describe a case in the same words."""

from __future__ import annotations

import csv
import ctypes
import io
import math
import shlex
import sys
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field

from . import _capi

_METRICS = (
    "max_abs_err",
    "max_rel_err",
    "rms_rel_err",
    "cosine",
    "mismatches",
    "nonfinite",
    "unwritten",
    "total",
    "tol_abs",
    "tol_rel",
    "tol_rms",
    "tol_rule",
    "nan_written",
    "worst_element",
)
_COUNTS = ("mismatches", "nonfinite", "unwritten", "total", "nan_written")
_TEXTS = ("tol_rule", "worst_element")


def _number(text: str) -> float:
    return float(text) if text else math.nan


@dataclass(frozen=True)
class TensorErrors:
    """One compared tensor: its errors against the oracle and the bound it was held to."""

    name: str  # "O" or "LSE"
    max_abs_err: float
    max_rel_err: float
    rms_rel_err: float  # ||actual - expected|| / ||expected||
    cosine: float
    mismatches: int  # elements outside tol_abs + tol_rel * |expected|
    nonfinite: int  # NaN/Inf the kernel wrote where the oracle is finite (NaN where it is Inf)
    unwritten: int  # elements still holding the poison: never written
    total: int
    tol_abs: float
    tol_rel: float
    tol_rms: float
    tol_rule: str  # how the bounds were derived (docs/tolerance.md)
    nan_written: int  # of nonfinite, the NaNs the kernel wrote
    worst_element: str  # "request 3, query token 0, head 17, channel 130"; "" when none was compared


@dataclass(frozen=True)
class Verdict:
    id: str
    op: str
    repro: str
    backend: str
    device: str
    path: str
    state: str  # PASSED, FAILED, ERRORED, SKIPPED, MISTRUSTED, KNOWN_BUG
    reason: str  # empty when PASSED
    canaries: str  # "ok", "broken: o(after)", or "n/a" when nothing was guarded
    tensors: dict[str, TensorErrors]  # by name; empty when nothing was compared
    reference_ms: float
    device_ms: float
    wall_ms: float
    is_failure: bool  # FAILED or ERRORED: a run with one fails
    columns: dict[str, str] = field(repr=False)  # every report.csv cell of the row, by column
    csv_header: str = field(repr=False)
    csv_record: str = field(repr=False)
    _handle: object = field(repr=False, compare=False, default=None)
    # A decode sequence's steps that ran, each judged as a one-step case (in order; the row is the
    # sequence's). Empty for a one-step case.
    steps: tuple["Verdict", ...] = field(repr=False, compare=False, default=())
    # The typed disposition (docs/report-columns.md), each the name of its kind or "" where it does
    # not apply: why a SKIPPED row was not checked ("unsupported", "not_enough_memory", "no_device",
    # "not_checked_by_policy"), what made an ERRORED one ("crashed", "timed_out", "device_lost",
    # "backend_exception", "harness_error", "backend_not_started"), why a FAILED one failed
    # ("wrong_output", or "refused_curated": the built-in backend refused a curated case), and how
    # a faulted row was caught ("comparison", "guard", "refusal", "crash", joined by "|").
    skip_reason: str = ""
    error_kind: str = ""
    fail_kind: str = ""
    caught_by: str = ""
    # `module:attribute` of the Python backend that made the row ("" when none an import can
    # reach): the repro lines name `python -m mlacheck run --backend SPEC`.
    backend_spec: str = field(repr=False, compare=False, default="")
    # The backend's full traceback when it raised (the row's reason names its innermost own frame).
    traceback: str = field(repr=False, compare=False, default="")

    @property
    def passed(self) -> bool:
        return self.state == "PASSED"

    @property
    def shrunk_repro(self) -> str:
        """The smallest case found that still fails the same way, when this case was shrunk
        (mlacheck.shrink, pytest --mlacheck-shrink; report column shrunk_repro); "" otherwise."""
        return self.columns.get("shrunk_repro", "")

    @property
    def repro_command(self) -> str:
        """The command that replays this case alone: `python -m mlacheck run --backend SPEC --case`
        on the Python backend that made the row (the wheel's own command), else the C++ tool's
        `mlacheck run --case` on its own backend."""
        return self.command_for(self.repro)

    def command_for(self, repro: str) -> str:
        """The repro command of the case `repro` on this row's backend (repro_command's form)."""
        if self.backend_spec:
            words = [sys.executable, "-m", "mlacheck", "run", "--backend", self.backend_spec, "--case", repro]
            return shlex.join(words)
        return f'mlacheck run --case "{repro}"'

    def describe(self, reruns: Iterable[str] = ()) -> str:
        """One line per fact a person needs: state, reason, errors against bounds, and the repro
        line, followed by one more `repro:` line for each command of `reruns` (e.g. the pytest
        command that re-runs this backend on this case)."""
        lines = [f"{self.state} {self.id}" + (f": {self.reason}" if self.reason else "")]
        for t in self.tensors.values():
            lines.append(
                f"  {t.name}: max_abs_err={t.max_abs_err:.3g} (tol_abs={t.tol_abs:.3g} + tol_rel={t.tol_rel:.3g}*|e|)"
                f" rms_rel_err={t.rms_rel_err:.3g} (tol_rms={t.tol_rms:.3g}) mismatches={t.mismatches}"
                f" nonfinite={t.nonfinite} unwritten={t.unwritten} of {t.total}"
            )
        if self.canaries not in ("ok", "n/a"):
            lines.append(f"  canaries: {self.canaries}")
        lines.append(f"  repro: {self.repro_command}")
        lines.extend(f"  repro: {command}" for command in reruns)
        if self.shrunk_repro and self.shrunk_repro != self.repro:
            lines.append(f"  shrunk: {self.command_for(self.shrunk_repro)}")
        if self.traceback:
            lines.append("  backend traceback:")
            lines.extend("    " + line for line in self.traceback.rstrip().splitlines())
        return "\n".join(lines)

    def assert_passed(self) -> "Verdict":
        """Returns the verdict when PASSED; skips the test (pytest.skip) when SKIPPED, MISTRUSTED or
        KNOWN_BUG; raises mlacheck.VerdictFailure, an AssertionError whose message is describe(),
        when FAILED or ERRORED."""
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        from ._verdict_failure import assert_passed  # it names Verdict in its annotations only

        return assert_passed(self)


class _VerdictHandle:
    """Owns the C verdict (a report appends rows from it)."""

    def __init__(self, pointer: int):
        self.pointer = pointer
        self._finalizer = weakref.finalize(self, _capi.lib().mlacheck_verdict_free, pointer)


def verdict_from_handle(pointer: int) -> Verdict:
    handle = _VerdictHandle(pointer)
    header = ctypes.c_char_p()
    record = ctypes.c_char_p()
    _capi.call("mlacheck_verdict_csv", pointer, ctypes.byref(header), ctypes.byref(record))
    failure = ctypes.c_int32()
    _capi.call("mlacheck_verdict_is_failure", pointer, ctypes.byref(failure))
    kinds = [ctypes.c_char_p() for _ in range(4)]
    _capi.call("mlacheck_verdict_disposition", pointer, *(ctypes.byref(k) for k in kinds))
    skip_reason, error_kind, fail_kind, caught_by = (_capi.text(k.value) or "" for k in kinds)
    header_text = _capi.text(header.value)
    record_text = _capi.text(record.value)
    names = next(csv.reader(io.StringIO(header_text)))
    cells = next(csv.reader(io.StringIO(record_text)))
    if len(names) != len(cells):
        raise _capi.MlacheckError(f"verdict row has {len(cells)} cells for {len(names)} columns")
    columns = dict(zip(names, cells))
    tensors = {}
    for name in ("O", "LSE", "K", "V"):
        prefix = name.lower() + "_"
        if not columns.get(prefix + "total"):
            continue
        values = {}
        for metric in _METRICS:
            cell = columns[prefix + metric]
            if metric in _TEXTS:
                values[metric] = cell
            elif metric in _COUNTS:
                values[metric] = int(cell)
            else:
                values[metric] = _number(cell)
        tensors[name] = TensorErrors(name=name, **values)
    return Verdict(
        id=columns["id"],
        op=columns["op"],
        repro=columns["repro"],
        backend=columns["backend"],
        device=columns["device"],
        path=columns["path"],
        state=columns["state"],
        reason=columns["reason"],
        canaries=columns["canaries"],
        tensors=tensors,
        reference_ms=_number(columns["reference_ms"]),
        device_ms=_number(columns["device_ms"]),
        wall_ms=_number(columns["wall_ms"]),
        is_failure=bool(failure.value),
        columns=columns,
        csv_header=header_text,
        csv_record=record_text,
        _handle=handle,
        skip_reason=skip_reason,
        error_kind=error_kind,
        fail_kind=fail_kind,
        caught_by=caught_by,
    )


def verdict_from_csv(header: str, record: str) -> Verdict:
    """The verdict another process made, from its report.csv header and record (mlacheck_verdict_csv
    text): a verdict of this process, which a Report here can append."""
    pointer = ctypes.c_void_p()
    _capi.call("mlacheck_verdict_from_csv", _capi.cstr(header), _capi.cstr(record), ctypes.byref(pointer))
    return verdict_from_handle(pointer.value)
