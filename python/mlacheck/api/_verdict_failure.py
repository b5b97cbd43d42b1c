"""Asserting a verdict in a test: PASSED passes; FAILED and ERRORED raise VerdictFailure (an
AssertionError whose message is the verdict's description, repro lines included); SKIPPED,
MISTRUSTED and KNOWN_BUG skip the test with the state and reason, as the plugin's own items do."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._verdict import Verdict

SKIPPING_STATES = ("SKIPPED", "MISTRUSTED", "KNOWN_BUG")  # neither a pass nor a failure


class VerdictFailure(AssertionError):
    """A FAILED or ERRORED verdict. `reruns` holds extra command lines that replay the case (the
    pytest plugin adds the one re-running this test on it); they print as more `repro:` lines."""

    __module__ = "mlacheck"  # shown in tracebacks as mlacheck.VerdictFailure

    def __init__(self, verdict: Verdict):
        super().__init__(verdict.id)
        self.verdict = verdict
        self.reruns: list[str] = []

    def __str__(self) -> str:
        return self.verdict.describe(self.reruns)


def _skip(reason: str) -> None:
    __tracebackhide__ = True
    try:
        import pytest
    except ImportError:  # a unittest suite: SkipTest is its skip
        import unittest

        raise unittest.SkipTest(reason) from None
    pytest.skip(reason)


def assert_passed(verdict: Verdict) -> Verdict:
    """Returns a PASSED verdict; skips the test for SKIPPED, MISTRUSTED and KNOWN_BUG; raises
    VerdictFailure for FAILED and ERRORED."""
    __tracebackhide__ = True  # pytest shows the test's line, not this one
    if verdict.state in SKIPPING_STATES:
        _skip(f"{verdict.state}: {verdict.reason}")
    if verdict.state != "PASSED":
        raise VerdictFailure(verdict)
    return verdict
