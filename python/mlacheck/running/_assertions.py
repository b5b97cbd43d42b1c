"""mlacheck.assert_passes: check() asserted (api/_verdict_failure.py holds what the assertion raises)."""

from __future__ import annotations

from ..api._case import Case
from ..api._verdict import Verdict
from ..api._verdict_failure import assert_passed
from ._backend import check


def assert_passes(case: Case, backend) -> Verdict:
    """mlacheck.check(case, backend), asserted: see assert_passed."""
    __tracebackhide__ = True
    return assert_passed(check(case, backend))
