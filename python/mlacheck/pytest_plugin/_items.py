"""The items of `--mlacheck-backend MODULE:ATTR`: one per case the backend runs, each checking the
backend on its case when it runs (the case is opened then, so collecting builds no inputs)."""

from __future__ import annotations

import pytest

from ..api._verdict_failure import VerdictFailure, assert_passed
from ..running._backend import adapt, check
from ..running._backend_load import BackendSpecError, load_backend, resolve_backend
from ..api._markers import marker_names
from ..api._plan import Plan
from ..api._space import declared_space
from ._options import selected_plan
from ._rerun import backend_rerun
from ._scheduler import CaseScheduler
from ._shrink_lines import shrink_lines, shrunk_if_asked
from ._xdist import report_directory
from ..api._report import Report


def backend_of(config: pytest.Config):
    """The backend --mlacheck-backend names, loaded in this process (a class instantiated)."""
    try:
        return load_backend(config.option.mlacheck_backend, config.option.mlacheck_backend_path)
    except BackendSpecError as e:
        raise pytest.UsageError(f"--mlacheck-backend: {e}") from e


class BackendSession:
    """The backend under test, its plan and the report its items' verdicts go to."""

    def __init__(self, config: pytest.Config):
        self.config = config
        spec = config.option.mlacheck_backend
        self.isolated = config.option.mlacheck_isolation == "process"
        self._backend = None
        if self.isolated:  # run in the worker processes; its module imported here to check the spec
            try:
                target = resolve_backend(spec, config.option.mlacheck_backend_path)
            except BackendSpecError as e:
                raise pytest.UsageError(f"--mlacheck-backend: {e}") from e
            name = str(getattr(target, "name", None) or spec)  # its declared name, as the rows carry it
        else:
            target = self.backend.backend
            name = self.backend.name
        # A declared space draws the property sweep within it (a plan opened without a space).
        self.space = declared_space(target)
        if self.space is not None and config.option.mlacheck_graph and not self.space.graph:
            raise pytest.UsageError("--mlacheck-graph: the backend's space declares no graph replay (Space(graph=False))")
        self.plan: Plan = selected_plan(config).within(self.space)
        self.title = f"mlacheck: {name} on {self.plan.description}"
        directory = report_directory(config)
        self.report = Report(directory, title=self.title, space=self.space) if directory else None
        self.scheduler: CaseScheduler | None = None
        # --mlacheck-shrink rewrites a failing row before it is written: then runtest writes it.
        self.rows_on_arrival = not config.option.mlacheck_shrink

    @property
    def backend(self):
        """The backend, loaded in this process (isolation none, or to shrink a failing case)."""
        if self._backend is None:
            self._backend = adapt(backend_of(self.config))
        return self._backend

    def verdict(self, item: "MlacheckItem"):
        """The item's case's verdict: from the workers (ahead of the item) or checked here."""
        if not self.isolated:
            verdict = check(self.plan[item.case_index], self.backend, graph=self.config.option.mlacheck_graph)
            if self.report is not None and self.rows_on_arrival:
                self.report.append(verdict)
            return verdict
        if self.scheduler is None:
            self.scheduler = CaseScheduler(self, self._arrived)
            self.scheduler.start(item.session.items)
        return self.scheduler.verdict(item.case_index)

    def _arrived(self, verdict) -> None:
        if self.report is not None and self.rows_on_arrival:
            self.report.append(verdict)  # as it arrives: a killed session keeps every finished row

    def close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.close()


class MlacheckItem(pytest.Item):
    """One case of the plan, run on the backend under test when the item runs (a decode sequence
    is one item: all its steps; --mlacheck-graph replays them from a CUDA graph)."""

    def __init__(self, *, case_index: int, session_state: BackendSession, **kwargs):
        super().__init__(**kwargs)
        self.case_index = case_index
        self.state = session_state

    def runtest(self):
        verdict = self.state.verdict(self)
        if not self.state.rows_on_arrival:
            verdict = shrunk_if_asked(self, verdict, self.state.backend)  # --mlacheck-shrink
            if self.state.report is not None:
                self.state.report.append(verdict)
        self.user_properties.append(("mlacheck_state", verdict.state))
        self.user_properties.append(("mlacheck_repro", verdict.repro))
        assert_passed(verdict)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, VerdictFailure):
            failure = excinfo.value
            failure.reruns = [backend_rerun(self.config, failure.verdict.repro)]
            return str(failure) + shrink_lines(self)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        # A line number (0: the item has no source line of its own) is what pytest's skip and
        # xfail markers need to place a report; -rs lines name the case (skip_location).
        return self.path, 0, f"mlacheck case {self.name}"


class MlacheckPlanCollector(pytest.Collector):
    """The plan's backend cases, one item each (kv_gather cases and the oracle self-checks test
    mlacheck itself, not the backend, so they are no items)."""

    def __init__(self, *, session_state: BackendSession, **kwargs):
        super().__init__(**kwargs)
        self.state = session_state

    def collect(self):
        plan = self.state.plan
        wanted = set(self.config.option.mlacheck_case_id)
        found = set()
        for index, case in enumerate(plan):
            if not case.runs_backend or (wanted and case.id not in wanted):
                continue
            found.add(case.id)
            item = MlacheckItem.from_parent(self, name=case.id, case_index=index, session_state=self.state)
            for name in marker_names(case.kind, plan.kind):
                item.add_marker(name)
            yield item
        if wanted - found:
            missing = ", ".join(sorted(wanted - found))
            raise pytest.UsageError(
                f"mlacheck: no backend case of {plan.description} has the id {missing} "
                "(`pytest --mlacheck-backend M:A --collect-only -q` lists the ids)"
            )


def backend_items(session: pytest.Session) -> tuple[BackendSession, list[MlacheckItem]]:
    state = BackendSession(session.config)
    # Item ids read "mlacheck::<case id>" (the session's own id is empty).
    collector = MlacheckPlanCollector.from_parent(session, name="mlacheck", nodeid="mlacheck", session_state=state)
    return state, list(collector.collect())


def skip_location(item: pytest.Item, report: pytest.TestReport) -> None:
    """A skipped mlacheck item's report placed at its node id (mlacheck::<case id>) rather than at
    a line of the plugin's own files, so that -rs names the case."""
    if isinstance(item, MlacheckItem) and report.skipped and isinstance(report.longrepr, tuple):
        _, _, reason = report.longrepr
        report.longrepr = (item.nodeid, None, reason)
