"""pytest plugin: mlacheck's cases as tests of a kernel repository's suite.

    pytest -p mlacheck.pytest_plugin --mlacheck-backend mymodule:decode \
        [--mlacheck-plan default|scenarios|properties] [--mlacheck-seed S] [--mlacheck-size N] \
        [--mlacheck-tier NAME | --mlacheck-plan-file FILE] [--mlacheck-case REPRO] [--mlacheck-scenarios FILE] [--mlacheck-report DIR]

`--mlacheck-backend module:attribute` names the backend: a callable decode(inputs) -> o | (o, lse),
an object with run(inputs, outputs), or a class of such objects (instantiated with no arguments).
It adds one item per case the backend runs (mla_decode), named `mlacheck::<case id>` (_items): the
argument `mlacheck::<case id>` (or --mlacheck-case-id ID) keeps that case's item alone, and
collects no test file when it is the only argument. Markers a conftest adds to the items
(pytest_collection_modifyitems) work as on any test; -rs names the case.
The items' cases run ahead in worker processes, so a crash, exit, hang or lost GPU context costs
one case (_scheduler; --mlacheck-isolation none runs them in this process, for debugging).

A suite's own test that takes the `mlacheck_case` fixture runs once per such case of the plan the
same options choose (no --mlacheck-backend needed); `mlacheck.parametrize(plan)` does the same for a
plan chosen in code (_parametrize). Every case carries the markers `mlacheck`, `mlacheck_<op>` and
`mlacheck_plan_<kind>` (_markers). A failure prints the pytest line that re-runs the backend or the
test on its case alone (_pytest_rerun). Under pytest-xdist the workers' reports are merged at the
end (_xdist), and the line naming what the backend's declared space excludes is printed once in the
terminal summary.

Without --mlacheck-backend and without a test taking a case, the plugin adds nothing.
"""

from __future__ import annotations

import pytest

from ..api._markers import marker_definitions
from ..api._parametrize import cases
from ..running._runner import space_summary
from ._case_tests import CASE_FIXTURE, register_if_needed
from ._items import BackendSession, backend_items, skip_location
from ._options import add_options, selected_plan, take_case_node_ids
from ._xdist import WorkerReportMerger, WorkerSpaceSummary, distributes, send_space_summary, send_title, worker_id

_STATE_KEY = pytest.StashKey[BackendSession]()


def pytest_addoption(parser):
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    take_case_node_ids(config)  # `mlacheck::<case id>` arguments select cases, collect no files
    for line in marker_definitions():
        config.addinivalue_line("markers", line)
    if config.option.mlacheck_backend and config.option.mlacheck_report and distributes(config):
        config.pluginmanager.register(WorkerReportMerger(config), "mlacheck-worker-report-merger")
    if config.option.mlacheck_backend and distributes(config):
        config.pluginmanager.register(WorkerSpaceSummary(), "mlacheck-worker-space-summary")


def pytest_generate_tests(metafunc):
    if CASE_FIXTURE in metafunc.fixturenames:
        metafunc.parametrize(CASE_FIXTURE, cases(selected_plan(metafunc.config)), indirect=True)


@pytest.fixture
def mlacheck_case(request):
    """An mlacheck.Case: the test runs once per case a backend runs (mla_decode) of the plan that
    --mlacheck-plan, --mlacheck-seed, --mlacheck-size, --mlacheck-scenarios, --mlacheck-tier,
    --mlacheck-plan-file or --mlacheck-case
    choose (default: the default plan), with the case id as its test id. The case's inputs are
    made when the test asks for them and released after it."""
    return request.param


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    # tryfirst: the cases join the items before -k, -m and deselection see them.
    if config.option.mlacheck_backend:
        state, new_items = backend_items(session)
        config.stash[_STATE_KEY] = state
        items.extend(new_items)
        # Items added here were never reported as collected: the terminal's "collected N items"
        # (and "-N selected" after -m) counts them only through this report.
        config.hook.pytest_collectreport(
            report=pytest.CollectReport("mlacheck", "passed", None, new_items))
    register_if_needed(config, items)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    skip_location(item, outcome.get_result())


def _space_line(config) -> str | None:
    # What the backend's declared space leaves out of the property sweep, as mlacheck.run prints it
    # (None: no space, or one that excludes nothing).
    state = config.stash.get(_STATE_KEY, None)
    if state is None or state.space is None or not state.space.excludes:
        return None
    return space_summary(state.space)


def pytest_terminal_summary(terminalreporter, config):
    line = _space_line(config)
    if line is not None and worker_id(config) is None:  # an xdist worker sends it to the controller
        terminalreporter.write_line(line)


def pytest_sessionfinish(session):
    state = session.config.stash.get(_STATE_KEY, None)
    if state is None:
        return
    state.close()  # the worker processes
    line = _space_line(session.config)
    if line is not None and worker_id(session.config) is not None:
        send_space_summary(session.config, line)
    if state.report is None:
        return
    if worker_id(session.config) is None:
        state.report.finish()
    else:  # the controller merges the workers' report.csv files (_pytest_xdist)
        send_title(session.config, state.title)
