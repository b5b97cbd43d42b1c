"""--mlacheck-report under pytest-xdist: each worker writes its rows to DIR/<worker id>/report.csv
and the controller, when the session ends, merges them into DIR (report.csv, junit.xml,
report.html) through mlacheck_report_merge. Without xdist the session writes DIR itself."""

from __future__ import annotations

import os

import pytest

from ..api._capi import MlacheckError
from ..api._report import Report, merge_reports

_TITLE_KEY = "mlacheck_report_title"  # a worker's report title, sent to the controller
_SPACE_KEY = "mlacheck_space_summary"  # what the backend's space excludes, printed by the controller


def worker_id(config: pytest.Config) -> str | None:
    """The xdist worker id ("gw0") in a worker process, else None."""
    workerinput = getattr(config, "workerinput", None)
    return None if workerinput is None else workerinput["workerid"]


def report_directory(config: pytest.Config) -> str | None:
    """Where this process writes its report: DIR, or DIR/<worker id> in an xdist worker."""
    directory = config.option.mlacheck_report
    if not directory:
        return None
    worker = worker_id(config)
    return directory if worker is None else os.path.join(directory, worker)


def send_title(config: pytest.Config, title: str) -> None:
    """From a worker: the report title, for the merged report."""
    config.workeroutput[_TITLE_KEY] = title


def send_space_summary(config: pytest.Config, line: str) -> None:
    """From a worker: the space summary line, which only the controller's terminal shows."""
    config.workeroutput[_SPACE_KEY] = line


class WorkerSpaceSummary:
    """Registered in the controller of a distributed session with --mlacheck-backend: prints the
    line the workers sent naming what the backend's declared space excludes (the same in each)."""

    def __init__(self):
        self.line: str | None = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        self.line = self.line or getattr(node, "workeroutput", {}).get(_SPACE_KEY)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.line:
            terminalreporter.write_line(self.line)


def distributes(config: pytest.Config) -> bool:
    """Whether this process is an xdist controller handing the tests to workers."""
    return (
        worker_id(config) is None
        and config.pluginmanager.hasplugin("xdist")
        and getattr(config.option, "dist", "no") != "no"
        and not config.option.collectonly  # xdist collects in the controller then
    )


class WorkerReportMerger:
    """Registered in the controller of a distributed session with --mlacheck-report."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.directory = config.option.mlacheck_report
        self.workers: list[str] = []
        self.title: str | None = None
        self.error: str | None = None
        # A merged report from an earlier session must not outlive a merge that fails in this one.
        for name in (Report.CSV, Report.JUNIT, Report.HTML):
            path = os.path.join(self.directory, name)
            if os.path.isfile(path):
                os.remove(path)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:
        # A worker that replaces a crashed one gets an id of its own; the crashed one's rows stay.
        worker = node.workerinput["workerid"]
        if worker not in self.workers:
            self.workers.append(worker)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        self.title = self.title or getattr(node, "workeroutput", {}).get(_TITLE_KEY)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.workers:
            return
        inputs = [os.path.join(self.directory, worker, Report.CSV) for worker in self.workers]
        try:
            merge_reports(inputs, self.directory, title=self.title)
        except MlacheckError as e:
            self.error = f"mlacheck: the workers' reports were not merged into {self.directory}: {e}"
            if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.error is not None:
            terminalreporter.write_sep("=", "mlacheck report", red=True, bold=True)
            terminalreporter.write_line(self.error)
