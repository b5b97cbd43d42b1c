"""Running a backend over a plan, as `mlacheck run` runs its own backend over its plan."""

from __future__ import annotations

import csv
import os
import shutil
import sys
from collections.abc import Callable, Iterable

from ..api._case import Case
from ..api._plan import Plan
from ..api._report import Report, merge_reports
from ..api._space import declared_space
from ..api._verdict import Verdict
from ._backend import adapt, check
from ._backend_load import load_backend, resolve_backend
from ._prefetch import DEFAULT_LOOKAHEAD, prepared_cases
from ._progress import Progress
from ._worker_pool import DEFAULT_TIMEOUT_BASE_S, WorkerPool


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
    force: bool = False,
    resume: bool = False,
    isolation: str = "process",
    timeout_base_s: float = DEFAULT_TIMEOUT_BASE_S,
    devices: list[str] | None = None,
    workers_per_device: int | None = None,
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
    A `report_dir` that already holds a report.csv is refused (FileExistsError) unless `force`
    (replace it) or `resume` (run only the cases whose ids it lacks, and merge their rows into it),
    as `mlacheck run --force/--resume`.
    `isolation` "process" (the default): the cases run in worker processes (_worker_pool.py), so a
    crash, an exit, a hang or a lost GPU context in the backend costs one case, an ERRORED row
    naming what happened, and the rest still run; `backend` must then be a "module:attribute"
    spec or an object a worker can import (BackendNotPortable says so otherwise). "none": in this
    process, for debugging. `timeout_base_s`: the watchdog's base limit per case (grown with the
    case's work, as `mlacheck run --timeout`); `devices`: the GPUs to spread the workers over
    (default: the visible ones), `workers_per_device` workers each (None: two a GPU, one in all
    without a GPU).
    A backend that declares a `space` (mlacheck.Space) has a Plan's property sweep drawn within it
    when the plan was opened without one (Plan.within); report.html and the summary line on
    stderr say what the space excludes."""
    if isolation not in ("process", "none"):
        raise ValueError(f"isolation {isolation!r} must be \"process\" or \"none\"")
    if lookahead is not None and (isinstance(lookahead, bool) or not isinstance(lookahead, int) or lookahead < 0):
        raise ValueError(f"lookahead {lookahead!r} must be None or an int >= 0")
    if force and resume:
        raise ValueError("force=True replaces the report and resume=True adds to it: pass one")
    space = declared_space(resolve_backend(backend) if isinstance(backend, str) else backend)
    if space is not None and graph and not space.graph:
        raise ValueError("graph=True: the backend's space declares no graph replay (Space(graph=False))")
    if isinstance(plan, Plan):
        plan = plan.within(space)
    done = _cases_done(report_dir, force, resume)
    if done:
        plan = [case for case in plan if case.id not in done]
    if progress and not hasattr(plan, "__len__"):
        plan = list(plan)  # the total is known before the first case
    meter = Progress(len(plan)) if progress else None
    # A resumed run writes its rows beside the earlier ones and merges both at the end.
    rows_dir = os.path.join(report_dir, "resumed") if done else report_dir
    report = Report(rows_dir, title, space) if report_dir is not None else None

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
    if done:
        _merge_resumed(report_dir, rows_dir, title)
    if meter is not None:
        meter.finish()
    if space is not None and space.excludes:
        print(space_summary(space), file=sys.stderr)
    return verdicts


def space_summary(space) -> str:
    """The summary line naming what of the problem space the backend's space excludes."""
    return "the backend's space excludes: " + "; ".join(space.excludes)


def _cases_done(report_dir, force: bool, resume: bool) -> set[str]:
    """The case ids of the report already in `report_dir` that a resumed run skips (none without
    one); a report there without force or resume is refused."""
    if report_dir is None or not os.path.isfile(os.path.join(report_dir, "report.csv")):
        return set()
    if not (force or resume):
        raise FileExistsError(
            f"{os.fspath(report_dir)} already holds a report (report.csv): pass force=True to replace it or "
            "resume=True to run only the cases it lacks"
        )
    if force:
        return set()
    with open(os.path.join(report_dir, "report.csv"), newline="") as f:
        return {row["id"] for row in csv.DictReader(f)}


def _merge_resumed(report_dir, rows_dir: str, title: str | None) -> None:
    """report_dir's earlier rows and the resumed run's rows (rows_dir) as one report in report_dir."""
    earlier = os.path.join(report_dir, "earlier")
    os.makedirs(earlier, exist_ok=True)
    shutil.move(os.path.join(report_dir, "report.csv"), os.path.join(earlier, "report.csv"))
    merge_reports([os.path.join(earlier, "report.csv"), os.path.join(rows_dir, "report.csv")], report_dir, title)
    shutil.rmtree(earlier)
    shutil.rmtree(rows_dir)
