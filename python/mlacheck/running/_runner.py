"""Running a backend over a plan, as `mlacheck run` runs its own backend over its plan."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from ._backend import adapt, check
from ._backend_load import load_backend
from ..api._case import Case
from ._prefetch import DEFAULT_LOOKAHEAD, prepared_cases
from ._progress import Progress
from ._worker_pool import DEFAULT_TIMEOUT_BASE_S, WorkerPool
from ..api._report import Report
from ..api._verdict import Verdict


def run(
    plan: Iterable[Case],
    backend,
    report_dir: str | os.PathLike | None = None,
    *,
    title: str | None = None,
    on_verdict: Callable[[Verdict], None] | None = None,
    lookahead: int | None = DEFAULT_LOOKAHEAD,
    progress: bool = True,
    graph: bool = False,
    isolation: str = "process",
    timeout_base_s: float = DEFAULT_TIMEOUT_BASE_S,
    devices: list[str] | None = None,
    workers_per_device: int = 1,
) -> list[Verdict]:
    """Checks `backend` on every case of `plan` (a Plan or any iterable of cases) in order and
    returns the verdicts. With `report_dir`, writes report.csv as each case ends, then junit.xml
    and report.html. `on_verdict` is called with each verdict as it is made (progress, logging).
    `lookahead` cases ahead of the backend have their inputs and oracle made on the harness's
    threads (None: the library's default, one per host thread from 4 to 32; 0: each case when the
    backend asks); the verdicts are the same either way.
    `progress` prints cases done, failures, cases/s and the time left on stderr (_progress.py).
    `graph`: decode sequences in graph mode (step 0 captured in a CUDA graph, replayed for the
    later steps; docs/python.md).
    `isolation` "process" (the default): the cases run in worker processes (_worker_pool.py), so a
    crash, an exit, a hang or a lost GPU context in the backend costs one case, an ERRORED row
    naming what happened, and the rest still run; `backend` must then be a "module:attribute"
    spec or an object a worker can import (BackendNotPortable says so otherwise). "none": in this
    process, for debugging. `timeout_base_s`: the watchdog's base limit per case (grown with the
    case's work, as `mlacheck run --timeout`); `devices`: the GPUs to spread the workers over
    (default: the visible ones), `workers_per_device` workers each."""
    if isolation not in ("process", "none"):
        raise ValueError(f"isolation {isolation!r} must be \"process\" or \"none\"")
    if lookahead is not None and (isinstance(lookahead, bool) or not isinstance(lookahead, int) or lookahead < 0):
        raise ValueError(f"lookahead {lookahead!r} must be None or an int >= 0")
    if progress and not hasattr(plan, "__len__"):
        plan = list(plan)  # the total is known before the first case
    meter = Progress(len(plan)) if progress else None
    report = Report(report_dir, title) if report_dir is not None else None

    def record(verdict: Verdict) -> Verdict:
        if report is not None:
            report.append(verdict)
        if on_verdict is not None:
            on_verdict(verdict)
        if meter is not None:
            meter.case_done(verdict.is_failure)
        return verdict

    if isolation == "process":
        cases = list(plan)
        by_position: dict[int, Verdict] = {}
        with WorkerPool(backend, devices=devices, per_device=workers_per_device, graph=graph, lookahead=lookahead,
                        timeout_base_s=timeout_base_s) as pool:
            pool.run(cases, lambda position, verdict: by_position.__setitem__(position, record(verdict)))
        verdicts = [by_position[i] for i in range(len(cases))]  # every case has its row (WorkerPool.run)
    else:
        adapter = adapt(load_backend(backend) if isinstance(backend, str) else backend)
        verdicts = [
            record(check(case, adapter, graph=graph, preparation_error=preparation_error))
            for case, preparation_error in prepared_cases(plan, lookahead)
        ]
    if report is not None:
        report.finish()
    if meter is not None:
        meter.finish()
    return verdicts
