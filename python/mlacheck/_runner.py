"""Running a backend over a plan, as `mlacheck run` runs its own backend over its plan."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from ._backend import adapt, check
from ._case import Case
from ._report import Report
from ._verdict import Verdict


def run(
    plan: Iterable[Case],
    backend,
    report_dir: str | os.PathLike | None = None,
    *,
    title: str | None = None,
    on_verdict: Callable[[Verdict], None] | None = None,
    graph: bool = False,
) -> list[Verdict]:
    """Checks `backend` on every case of `plan` (a Plan or any iterable of cases) in order and
    returns the verdicts. With `report_dir`, writes report.csv as each case ends, then junit.xml
    and report.html. `on_verdict` is called with each verdict as it is made (progress, logging).
    `graph`: decode sequences in graph mode (step 0 captured in a CUDA graph, replayed for the
    later steps; docs/python.md)."""
    adapter = adapt(backend)
    report = Report(report_dir, title) if report_dir is not None else None
    verdicts = []
    for case in plan:
        verdict = check(case, adapter, graph=graph)
        if report is not None:
            report.append(verdict)
        if on_verdict is not None:
            on_verdict(verdict)
        verdicts.append(verdict)
    if report is not None:
        report.finish()
    return verdicts
