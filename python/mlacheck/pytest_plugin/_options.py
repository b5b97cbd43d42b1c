"""The pytest plugin's command line options, and the plan they choose (one per session, shared by
the --mlacheck-backend items and the tests taking the mlacheck_case fixture)."""

from __future__ import annotations

import pytest

from ..api._capi import MlacheckError
from ..api._plan import Plan
from ..api._plan import plan as open_plan
from ._rerun import NODE_PREFIX
from ._shrink_lines import add_shrink_options


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("mlacheck", "MLA decode correctness cases from mlacheck")
    group.addoption("--mlacheck-backend", metavar="MODULE:ATTR", help="the backend under test: one item per case")
    group.addoption(
        "--mlacheck-plan",
        default="default",
        choices=("default", "scenarios", "properties"),
        help="the cases: what `mlacheck run` runs, the scenario table, or a property sweep (default: default)",
    )
    group.addoption(
        "--mlacheck-tier",
        metavar="NAME",
        help="the cases of a named tier (smoke, pre-merge, nightly), as `mlacheck run --tier`; replaces --mlacheck-plan",
    )
    group.addoption(
        "--mlacheck-plan-file",
        metavar="FILE",
        help="the cases of a plan file (plan/tiers/*.plan are examples), as `mlacheck run --plan`; replaces "
        "--mlacheck-plan",
    )
    group.addoption("--mlacheck-seed", type=int, default=1, help="seed of the generated cases (default 1)")
    group.addoption("--mlacheck-size", type=int, default=None, help="cases of the property sweep (default 64)")
    group.addoption("--mlacheck-case", metavar="REPRO", help="run the one case of this repro string instead")
    group.addoption("--mlacheck-scenarios", metavar="FILE", help="scenario table (default: mlacheck's own)")
    group.addoption(
        "--mlacheck-case-id",
        metavar="ID",
        action="append",
        default=[],
        help="keep only the --mlacheck-backend item of this case id (repeatable); a command-line "
        "argument `mlacheck::ID` does the same and collects no test files",
    )
    group.addoption(
        "--mlacheck-backend-path",
        metavar="DIR",
        help="a folder put first on sys.path before --mlacheck-backend is imported (the printed re-run "
        "lines name it, so that they work from any folder)",
    )
    group.addoption(
        "--mlacheck-known-bugs",
        metavar="FILE",
        help="known-bug table the verdicts are settled with (default: mlacheck's own; an empty "
        "string: none), as `mlacheck run --known-bugs`",
    )
    group.addoption(
        "--mlacheck-graph",
        action="store_true",
        help="decode sequences in graph mode: each sequence's step 0 captured in a CUDA graph and replayed "
        "for its later steps (needs torch with a CUDA device; UPSTREAM R5)",
    )
    group.addoption(
        "--mlacheck-report",
        metavar="DIR",
        help="write report.csv, junit.xml and report.html of the --mlacheck-backend items here "
        "(under pytest-xdist each worker writes DIR/<worker id>/report.csv, merged at the end)",
    )
    group.addoption(
        "--mlacheck-isolation",
        default="process",
        choices=("process", "none"),
        help="process (default): the --mlacheck-backend items' cases run ahead in worker processes, so a crash, "
        "exit, hang or lost GPU context costs one case (an ERRORED row); none: in this process, for debugging",
    )
    group.addoption(
        "--mlacheck-timeout-base",
        type=float,
        default=120.0,
        metavar="S",
        help="the watchdog's base limit per case in seconds, grown with the case's work (default 120, as "
        "`mlacheck run --timeout`)",
    )
    group.addoption(
        "--mlacheck-workers-per-device",
        type=int,
        default=None,
        metavar="N",
        help="worker processes per visible GPU (default 2, and 1 under pytest-xdist, whose workers "
        "already share the GPUs; one in all without a GPU)",
    )
    add_shrink_options(group)


_PLAN_KEY = pytest.StashKey[Plan]()


def selected_plan(config: pytest.Config) -> Plan:
    """The plan the options name, opened once per session. Plans are deterministic by their
    options, so every pytest-xdist worker collects the same cases."""
    plan = config.stash.get(_PLAN_KEY, None)
    if plan is None:
        options = config.option
        try:
            if options.mlacheck_case:
                plan = open_plan(repro=options.mlacheck_case, known_bugs=options.mlacheck_known_bugs)
            elif options.mlacheck_tier or options.mlacheck_plan_file:
                plan = open_plan(tier=options.mlacheck_tier, plan_file=options.mlacheck_plan_file,
                                 known_bugs=options.mlacheck_known_bugs)
            else:
                plan = open_plan(
                    options.mlacheck_plan,
                    seed=options.mlacheck_seed,
                    size=options.mlacheck_size,
                    scenarios=options.mlacheck_scenarios,
                    known_bugs=options.mlacheck_known_bugs,
                )
        except (MlacheckError, ValueError) as e:
            raise pytest.UsageError(f"mlacheck plan: {e}") from e
        config.stash[_PLAN_KEY] = plan
    return plan


def take_case_node_ids(config: pytest.Config) -> None:
    """Moves the command line's `mlacheck::<case id>` arguments (no file or folder pytest could
    collect) into --mlacheck-case-id, so that `pytest --mlacheck-backend M:A mlacheck::sweep-3`
    runs that one case: with no other path argument, no test file is collected."""
    node_args = [arg for arg in config.args if str(arg).startswith(NODE_PREFIX)]
    if not node_args:
        return
    config.option.mlacheck_case_id = [*config.option.mlacheck_case_id, *(a[len(NODE_PREFIX):] for a in node_args)]
    config.args[:] = [arg for arg in config.args if arg not in node_args]
