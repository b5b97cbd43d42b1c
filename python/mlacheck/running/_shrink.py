"""Shrinking a failing case of a Python backend (docs/shrinking.md): the harness's own loop
(mlacheck_shrink_run, the one `mlacheck shrink` runs for plugins) calls back into Python to run the
backend on each candidate, and keeps the first that fails the same way.

    result = mlacheck.shrink(case, my_decode)
    print(result.describe())          # the original, each step, the shrunk case and its replay line
"""

from __future__ import annotations


import ctypes
import dataclasses
from dataclasses import dataclass

from ..api import _capi
from ._backend import adapt, check
from ..api._case import Case
from ..api._plan import plan as open_plan
from ..api._verdict import Verdict, verdict_from_handle

# const mlacheck_verdict* (*)(const char* repro, void* user)
_JUDGE = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)

NOT_FAILING = "not failing"


@dataclass(frozen=True)
class ShrinkStep:
    change: str  # what the step changed: "drop requests 0-9 of 21", "kv of request 0: 5521 -> 4"
    repro: str  # the case after it


@dataclass(frozen=True)
class ShrinkResult:
    """What mlacheck.shrink found. `verdict` is the original's row with the shrunk case in its
    shrunk_repro column (what a report should hold); `shrunk_verdict` the shrunk case's final run,
    which fails the way the original did (`failure`) unless the original does not fail."""

    original: str  # the original's repro string
    shrunk: str  # the result's: the original when it does not fail or nothing smaller fails the same way
    failure: str  # how the original fails, as candidates had to ("FAILED O values"); "" when it does not
    stop: str  # "not failing", "minimal", "max steps" or "max seconds"
    steps: tuple[ShrinkStep, ...]
    candidates_run: int  # candidates run (the original's run and the final re-runs not counted)
    seconds: float
    verdict: Verdict
    shrunk_verdict: Verdict

    @property
    def failing(self) -> bool:
        """Whether the original fails (and so the result does)."""
        return self.stop != NOT_FAILING

    @property
    def shrunk_command(self) -> str:
        return self.verdict.command_for(self.shrunk)

    def describe(self) -> str:
        head = self.verdict
        lines = [f"original: {head.state}" + (f": {head.reason}" if head.reason else ""), f"  {head.repro_command}"]
        if not self.failing:
            lines.append("NOT FAILING: the case does not fail on this backend; nothing to shrink, the original is kept")
            return "\n".join(lines)
        for i, step in enumerate(self.steps, 1):
            lines += [f"step {i}: {step.change}", f"  {step.repro}"]
        shrunk = self.shrunk_verdict
        lines.append(
            f"shrunk ({self.stop} after {len(self.steps)} steps, {self.candidates_run} candidates run, "
            f"{self.seconds:.1f} s): {shrunk.state}" + (f": {shrunk.reason}" if shrunk.reason else "")
        )
        lines.append(f"  {self.shrunk_command}")
        return "\n".join(lines)


def _repro_of(case) -> str:
    if isinstance(case, Case):
        return case.repro
    if isinstance(case, str):
        return case
    raise TypeError(f"a case is an mlacheck.Case or a repro string, got {type(case).__qualname__}")


def _run_repro(repro: str, backend) -> Verdict:
    case = open_plan(repro=repro)[0]
    try:
        return check(case, backend)
    finally:
        case.release()


def shrink(case, backend, *, max_steps: int = 200, max_seconds: float = 600.0) -> ShrinkResult:
    """Shrinks `case` (an mlacheck.Case or a repro string of an mla_decode case) on `backend` (any
    backend mlacheck.check takes) to the smallest case found that still fails the same way: at most
    `max_steps` candidates, none started after `max_seconds`. Deterministic for a deterministic
    backend. The result is re-run and fails, or the original is kept; a case that does not fail is
    kept and reported (stop "not failing"). A malformed repro string raises mlacheck.MlacheckError
    naming what is wrong; an exception the backend's harness code raises (not the backend's own:
    that is an ERRORED verdict) stops the shrink and is raised again here."""
    repro = _repro_of(case)
    adapter = adapt(backend)
    held: list[Verdict] = []  # the verdict the C side reads, alive until the next call
    raised: list[BaseException] = []

    def judge(candidate: bytes, _user) -> int | None:
        try:
            verdict = _run_repro(candidate.decode("utf-8"), adapter)
            held[:] = [verdict]
            return verdict._handle.pointer
        except BaseException as error:  # noqa: BLE001 - carried across the C frames and raised again below
            raised.append(error)
            return None

    callback = _JUDGE(judge)
    pointer = ctypes.c_void_p()
    try:
        _capi.call(
            "mlacheck_shrink_run", _capi.cstr(repro), int(max_steps), float(max_seconds), callback, None,
            ctypes.byref(pointer),
        )
    except _capi.MlacheckError:
        if raised:
            raise raised[0] from None
        raise
    try:
        texts = [ctypes.c_char_p() for _ in range(4)]
        _capi.call("mlacheck_shrink_summary", pointer, *(ctypes.byref(t) for t in texts))
        original, shrunk, failure, stop = (_capi.text(t.value) for t in texts)
        run, count, seconds = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_double()
        _capi.call("mlacheck_shrink_counts", pointer, ctypes.byref(run), ctypes.byref(count), ctypes.byref(seconds))
        steps = []
        for i in range(count.value):
            change, step_repro = ctypes.c_char_p(), ctypes.c_char_p()
            _capi.call("mlacheck_shrink_step", pointer, i, ctypes.byref(change), ctypes.byref(step_repro))
            steps.append(ShrinkStep(_capi.text(change.value), _capi.text(step_repro.value)))
        verdicts = []
        for which in (0, 1):
            v = ctypes.c_void_p()
            _capi.call("mlacheck_shrink_verdict", pointer, which, ctypes.byref(v))
            verdicts.append(verdict_from_handle(v.value))
    finally:
        _capi.lib().mlacheck_shrink_free(pointer)
    return ShrinkResult(
        original=original,
        shrunk=shrunk,
        failure=failure,
        stop=stop,
        steps=tuple(steps),
        candidates_run=run.value,
        seconds=seconds.value,
        # Rows of this Python backend: their repro lines name it (python -m mlacheck run --backend).
        verdict=dataclasses.replace(verdicts[0], backend_spec=adapter.spec),
        shrunk_verdict=dataclasses.replace(verdicts[1], backend_spec=adapter.spec),
    )
