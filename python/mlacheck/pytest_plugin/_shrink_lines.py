"""`pytest --mlacheck-shrink`: a --mlacheck-backend item whose case fails is shrunk on the same
backend (mlacheck.shrink) before its row is written. The row keeps the original repro and carries
the shrunk one (report column shrunk_repro), and the failure prints the shrinking's steps count,
the shrunk case's verdict and the lines that replay it: `mlacheck run --case` (Verdict.describe)
and the pytest line re-running the backend on it alone."""

from __future__ import annotations

import pytest

from ._rerun import backend_rerun
from ..running._shrink import ShrinkResult, shrink
from ..api._verdict import Verdict

_RESULT_KEY = pytest.StashKey[ShrinkResult]()


def add_shrink_options(group) -> None:
    group.addoption(
        "--mlacheck-shrink",
        action="store_true",
        help="shrink the case of every failing --mlacheck-backend item to the smallest that still fails the same "
        "way, and print it with the lines that replay it (docs/shrinking.md)",
    )
    group.addoption(
        "--mlacheck-shrink-steps", type=int, default=200, metavar="N", help="candidates run per shrink (default 200)"
    )
    group.addoption(
        "--mlacheck-shrink-seconds",
        type=float,
        default=600.0,
        metavar="S",
        help="start no candidate after this many seconds of a shrink (default 600)",
    )


def shrunk_if_asked(item: pytest.Item, verdict: Verdict, backend) -> Verdict:
    """The verdict to report: with --mlacheck-shrink and a failing verdict, the original's row with
    the shrunk case in its shrunk_repro column (the result is kept for the failure's text)."""
    options = item.config.option
    if not options.mlacheck_shrink or not verdict.is_failure:
        return verdict
    result = shrink(
        verdict.repro, backend, max_steps=options.mlacheck_shrink_steps, max_seconds=options.mlacheck_shrink_seconds
    )
    item.stash[_RESULT_KEY] = result
    # A case that passed its second run (a failure that comes and goes) keeps its failing verdict.
    return result.verdict if result.failing else verdict


def shrink_lines(item: pytest.Item) -> str:
    """What the failure adds when its case was shrunk: "" when it was not."""
    result = item.stash.get(_RESULT_KEY, None)
    if result is None:
        return ""
    if not result.failing:  # the backend passed the case on its second run: a failure that comes and goes
        return "\nshrink: the case did not fail again when shrinking started; nothing was shrunk"
    shrunk = result.shrunk_verdict
    lines = [
        f"shrunk ({result.stop} after {len(result.steps)} steps, {result.candidates_run} candidates run): "
        f"{shrunk.state}" + (f": {shrunk.reason}" if shrunk.reason else ""),
        f"  shrunk: {backend_rerun(item.config, result.shrunk)}",
    ]
    return "\n" + "\n".join(lines)
