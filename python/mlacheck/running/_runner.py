"""Running a backend over a plan, as `mlacheck run` runs its own backend over its plan."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable

from ._backend import adapt, check
from ..api._case import Case
from ..api._plan import Plan
from ..api._space import declared_space
from ._prefetch import DEFAULT_LOOKAHEAD, prepared_cases
from ._progress import Progress
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
    A backend that declares a `space` (mlacheck.Space) has a Plan's property sweep drawn within it
    when the plan was opened without one (Plan.within); report.html and the summary line on
    stderr say what the space excludes."""
    if lookahead is not None and (isinstance(lookahead, bool) or not isinstance(lookahead, int) or lookahead < 0):
        raise ValueError(f"lookahead {lookahead!r} must be None or an int >= 0")
    space = declared_space(backend)
    if space is not None and graph and not space.graph:
        raise ValueError("graph=True: the backend's space declares no graph replay (Space(graph=False))")
    if isinstance(plan, Plan):
        plan = plan.within(space)
    adapter = adapt(backend)
    if progress and not hasattr(plan, "__len__"):
        plan = list(plan)  # the total is known before the first case
    meter = Progress(len(plan)) if progress else None
    report = Report(report_dir, title, space) if report_dir is not None else None
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
    if meter is not None:
        meter.finish()
    if space is not None and space.excludes:
        print(space_summary(space), file=sys.stderr)
    return verdicts


def space_summary(space) -> str:
    """The summary line naming what of the problem space the backend's space excludes."""
    return "the backend's space excludes: " + "; ".join(space.excludes)
