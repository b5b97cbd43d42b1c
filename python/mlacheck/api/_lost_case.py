"""The one place a row is built for a case whose worker process or device was lost (a crash, an
exit, a hang, a lost GPU context): ERRORED, its reason worded by the harness as `mlacheck run`
words it (harness/lost_case.hpp, through mlacheck_outcome_set_lost). Nothing reads the reason
back to decide anything: the loss kind (`how`) is typed data, and the library sets the row's typed
error kind from it (crashed, timed_out, device_lost: core/disposition.hpp)."""

from __future__ import annotations

from ._case import Case, Outcome
from ._verdict import Verdict

WORKER_PROCESS = "the case's worker process"  # "<process> died while running this case: ..."


def lost_verdict(case: Case, how: str, detail: str, *, limit_s: float = 0.0, backend: tuple[str, str, str] = ("", "", "")) -> Verdict:
    """`case` made ERRORED: `how` is "process_died" (detail: "signal 11 (Segmentation fault)",
    "exit status 0", with the backend's last frames where known), "timed_out" (limit_s: the
    watchdog's limit) or "device_lost" (detail: the GPU error). `backend`: name, version and
    device for the row, as the worker reported them."""
    outcome = Outcome(case)
    name, version, device = backend
    outcome.set_backend(name, version, device, "")
    outcome.set_lost(how, WORKER_PROCESS, detail, limit_s)
    return outcome.judge()
