"""Running a backend over a plan, as `mlacheck run` runs its own backend over its plan."""

from __future__ import annotations

import csv
import os
import shutil
from collections.abc import Callable, Iterable

from ._backend import adapt, check
from ..api._case import Case
from ._prefetch import DEFAULT_LOOKAHEAD, prepared_cases
from ._progress import Progress
from ..api._report import Report, merge_reports
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
    force: bool = False,
    resume: bool = False,
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
    as `mlacheck run --force/--resume`."""
    if lookahead is not None and (isinstance(lookahead, bool) or not isinstance(lookahead, int) or lookahead < 0):
        raise ValueError(f"lookahead {lookahead!r} must be None or an int >= 0")
    if force and resume:
        raise ValueError("force=True replaces the report and resume=True adds to it: pass one")
    done = _cases_done(report_dir, force, resume)
    if done:
        plan = [case for case in plan if case.id not in done]
    adapter = adapt(backend)
    if progress and not hasattr(plan, "__len__"):
        plan = list(plan)  # the total is known before the first case
    meter = Progress(len(plan)) if progress else None
    # A resumed run writes its rows beside the earlier ones and merges both at the end.
    rows_dir = os.path.join(report_dir, "resumed") if done else report_dir
    report = Report(rows_dir, title) if report_dir is not None else None
    verdicts = []
    for case, preparation_error in prepared_cases(plan, lookahead):
        verdict = check(case, adapter, graph=graph, preparation_error=preparation_error)
        if report is not None:
            report.append(verdict)
        if on_verdict is not None:
            on_verdict(verdict)
        if meter is not None:
            meter.case_done(verdict.is_failure)
        verdicts.append(verdict)
    if report is not None:
        report.finish()
    if done:
        _merge_resumed(report_dir, rows_dir, title)
    if meter is not None:
        meter.finish()
    return verdicts


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
