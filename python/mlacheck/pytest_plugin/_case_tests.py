"""What the plugin does for a suite's own tests that take a case (the mlacheck_case fixture, or
parameters from mlacheck.cases()): after each such test its case's inputs and oracle are released,
so a suite of many cases holds one case's at a time; a failure names the pytest command that
re-runs the test on its case. Registered only when some collected test has a case parameter, so
other sessions pay nothing."""

from __future__ import annotations

import pytest

from ..api._verdict_failure import VerdictFailure
from ..api._case import Case
from ._rerun import fixture_test_rerun, parametrized_test_rerun

CASE_FIXTURE = "mlacheck_case"


def _case_parameters(item: pytest.Item) -> dict[str, Case]:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return {}
    return {name: value for name, value in callspec.params.items() if isinstance(value, Case)}


def rerun_command(item: pytest.Item) -> str | None:
    """The command that re-runs `item` on its case alone, or None when it takes no case."""
    cases = _case_parameters(item)
    if CASE_FIXTURE in cases and isinstance(item, pytest.Function):
        return fixture_test_rerun(item, cases[CASE_FIXTURE].repro)
    return parametrized_test_rerun(item) if cases else None


class CaseTests:
    """The hooks for tests taking cases (a plugin object registered by register_if_needed)."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        failure = call.excinfo.value if call.excinfo is not None else None
        command = rerun_command(item) if failure is not None else None
        if isinstance(failure, VerdictFailure) and command is not None:
            # Before the report is made: its text then holds the line beside the other repro lines.
            failure.reruns = [command]
        outcome = yield
        report = outcome.get_result()
        if command is not None and report.failed and not isinstance(failure, VerdictFailure):
            report.sections.append(("mlacheck: re-run this test on its case", command))

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> None:
        for case in _case_parameters(item).values():
            case.release()


_NAME = "mlacheck-case-tests"


def register_if_needed(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.has_plugin(_NAME) and any(_case_parameters(item) for item in items):
        config.pluginmanager.register(CaseTests(), _NAME)
