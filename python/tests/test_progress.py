"""The Python runner's progress lines: the format and arithmetic of cli/progress.hpp's, plain lines
at an interval off a terminal, one line rewritten in place on one."""

from __future__ import annotations

import io

import mlacheck
import numpy_backend
from conftest import BF16_MTP
from conftest import run_in_process
from mlacheck.running._progress import Progress, progress_line


def test_the_line_gives_done_failed_rate_and_time_left():
    # 30 of 200 cases in 10 s: 3 cases/s, 170 left take 56.7 s.
    assert progress_line(30, 200, 2, 10.0, False) == "[30/200] 2 failed, 3.0 cases/s, ETA 57 s"
    assert progress_line(200, 200, 2, 64.4, True) == "[200/200] 2 failed, 3.1 cases/s, took 64 s"
    assert progress_line(0, 50, 0, 0.0, False) == "[0/50] 0 failed, 0.0 cases/s, ETA 0 s"
    assert progress_line(7, 5, 1, 1.0, False) == "[7/5] 1 failed, 7.0 cases/s, ETA 0 s"


class FakeClock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_off_a_terminal_plain_lines_come_at_the_interval():
    clock = FakeClock(100.0)
    out = io.StringIO()  # not a terminal
    progress = Progress(4, out, interval_s=30.0, clock=clock)
    for now, failed in ((110.0, False), (131.0, True), (140.0, False), (150.0, False)):
        clock.now = now
        progress.case_done(failed)
    progress.finish()
    assert out.getvalue() == "[2/4] 1 failed, 0.1 cases/s, ETA 31 s\n[4/4] 1 failed, 0.1 cases/s, took 50 s\n"


def test_on_a_terminal_one_line_is_rewritten_in_place():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    clock = FakeClock(0.0)
    out = Terminal()
    progress = Progress(2, out, clock=clock)
    for now in (2.0, 4.0):
        clock.now = now
        progress.case_done(False)
    progress.finish()
    assert out.getvalue() == (
        "\r[1/2] 0 failed, 0.5 cases/s, ETA 2 s\x1b[K"
        "\r[2/2] 0 failed, 0.5 cases/s, ETA 0 s\x1b[K"
        "\r[2/2] 0 failed, 0.5 cases/s, took 4 s\n"
    )


def test_run_reports_progress_on_stderr_unless_asked_not_to(capsys):
    plan = mlacheck.plan(repro=BF16_MTP)
    run_in_process(plan, numpy_backend.decode)
    err = capsys.readouterr().err
    assert err.startswith("[1/1] 0 failed, ") and ", took " in err and err.endswith(" s\n"), err
    run_in_process(plan, numpy_backend.decode, progress=False)
    assert capsys.readouterr().err == ""
