"""pytest plugin: every case of an mlacheck plan as one test item of a kernel repository's suite.

    pytest -p mlacheck.pytest_plugin --mlacheck-backend mymodule:decode \
        [--mlacheck-plan default|scenarios|properties] [--mlacheck-seed S] [--mlacheck-size N] \
        [--mlacheck-case REPRO] [--mlacheck-scenarios FILE] [--mlacheck-report DIR]

`--mlacheck-backend module:attribute` names the backend: a callable decode(inputs) -> o | (o, lse),
an object with run(inputs, outputs), or a class of such objects (instantiated with no arguments).
Items are named by case id. An item passes when the case is PASSED; is skipped with the reason
when the backend's supports() refuses it, the case is a kv_gather case, or the verdict is
MISTRUSTED or KNOWN_BUG; fails with the verdict's reason, the errors against their bounds and
`mlacheck run --case "<repro>"` when it is FAILED or ERRORED. Without --mlacheck-backend the plugin
adds nothing, so it can stay in a repository's addopts.
"""

from __future__ import annotations

import importlib

import pytest

from ._backend import adapt, check
from ._plan import plan as open_plan
from ._report import Report

_NOT_FAILED_NOT_PASSED = ("SKIPPED", "MISTRUSTED", "KNOWN_BUG")


def pytest_addoption(parser):
    group = parser.getgroup("mlacheck", "MLA decode correctness cases from mlacheck")
    group.addoption("--mlacheck-backend", metavar="MODULE:ATTR", help="the backend under test (enables the plugin)")
    group.addoption(
        "--mlacheck-plan",
        default="default",
        choices=("default", "scenarios", "properties"),
        help="the cases: what `mlacheck run` runs, the scenario table, or a property sweep (default: default)",
    )
    group.addoption("--mlacheck-seed", type=int, default=1, help="seed of the generated cases (default 1)")
    group.addoption("--mlacheck-size", type=int, default=None, help="cases of the property sweep (default 64)")
    group.addoption("--mlacheck-case", metavar="REPRO", help="run the one case of this repro string instead")
    group.addoption("--mlacheck-scenarios", metavar="FILE", help="scenario table (default: mlacheck's own)")
    group.addoption("--mlacheck-report", metavar="DIR", help="write report.csv, junit.xml and report.html here")


def load_backend(spec: str):
    """The object `module:attribute` names; a class is instantiated with no arguments."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise pytest.UsageError(f"--mlacheck-backend {spec!r}: expected MODULE:ATTRIBUTE, e.g. mykernels.mla:decode")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise pytest.UsageError(
            f"--mlacheck-backend {spec!r}: cannot import {module_name!r}: {e}. Is its folder on sys.path "
            "(PYTHONPATH, or `python -m pytest` run from it)?"
        ) from e
    target = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise pytest.UsageError(f"--mlacheck-backend {spec!r}: {module_name} has no attribute {attribute!r}") from None
    if isinstance(target, type):
        target = target()
    return target


class MlacheckCaseFailure(Exception):
    def __init__(self, verdict):
        super().__init__(verdict.reason)
        self.verdict = verdict


class MlacheckItem(pytest.Item):
    def __init__(self, *, case_index: int, session_state: "_SessionState", **kwargs):
        super().__init__(**kwargs)
        self.case_index = case_index
        self.state = session_state

    def runtest(self):
        verdict = check(self.state.plan[self.case_index], self.state.backend)
        if self.state.report is not None:
            self.state.report.append(verdict)
        self.user_properties.append(("mlacheck_state", verdict.state))
        self.user_properties.append(("mlacheck_repro", verdict.repro))
        if verdict.state in _NOT_FAILED_NOT_PASSED:
            pytest.skip(f"{verdict.state}: {verdict.reason}")
        if verdict.state != "PASSED":
            raise MlacheckCaseFailure(verdict)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, MlacheckCaseFailure):
            return excinfo.value.verdict.describe()
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"mlacheck case {self.name}"


class MlacheckPlanCollector(pytest.Collector):
    """The plan's cases, one item each."""

    def __init__(self, *, session_state: "_SessionState", **kwargs):
        super().__init__(**kwargs)
        self.state = session_state

    def collect(self):
        for index, case in enumerate(self.state.plan):
            yield MlacheckItem.from_parent(self, name=case.id, case_index=index, session_state=self.state)


class _SessionState:
    def __init__(self, config):
        options = config.option
        self.backend = adapt(load_backend(options.mlacheck_backend))
        if options.mlacheck_case:
            self.plan = open_plan(repro=options.mlacheck_case)
        else:
            self.plan = open_plan(
                options.mlacheck_plan,
                seed=options.mlacheck_seed,
                size=options.mlacheck_size,
                scenarios=options.mlacheck_scenarios,
            )
        self.report = None
        if options.mlacheck_report:
            title = f"mlacheck: {self.backend.name} on {self.plan.description}"
            self.report = Report(options.mlacheck_report, title=title)


_STATE_KEY = pytest.StashKey[_SessionState]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    # tryfirst: the cases join the items before -k, -m and deselection see them.
    if not config.option.mlacheck_backend:
        return
    state = _SessionState(config)
    config.stash[_STATE_KEY] = state
    # Item ids read "mlacheck::<case id>" (the session's own id is empty).
    collector = MlacheckPlanCollector.from_parent(session, name="mlacheck", nodeid="mlacheck", session_state=state)
    items.extend(collector.collect())


def pytest_sessionfinish(session):
    state = session.config.stash.get(_STATE_KEY, None)
    if state is not None and state.report is not None:
        state.report.finish()
