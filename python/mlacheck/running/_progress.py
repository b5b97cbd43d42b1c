"""Progress of a long run on stderr, the Python twin of cli/progress.hpp (same lines): cases
done of the total, failures so far, cases per second and the time left at that rate. On a
terminal one line rewritten in place after every case; otherwise (CI logs) a plain line at most
every `interval_s` seconds. The last line gives the time the run took."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def progress_line(done: int, total: int, failed: int, elapsed_s: float, final: bool) -> str:
    """`[done/total] F failed, R cases/s, ETA E s` (`took E s` on the last line). The rate is
    done / elapsed and the time left (total - done) / rate; 0 while nothing is known."""
    rate = done / elapsed_s if elapsed_s > 0 else 0.0
    left = max(total - done, 0) / rate if rate > 0 else 0.0
    return f"[{done}/{total}] {failed} failed, {rate:.1f} cases/s, " + (
        f"took {elapsed_s:.0f} s" if final else f"ETA {left:.0f} s"
    )


class Progress:
    def __init__(
        self,
        total: int,
        stream=None,
        interactive: bool | None = None,
        interval_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.total = total
        self.done = 0
        self.failed = 0
        self._stream = sys.stderr if stream is None else stream
        if interactive is None:
            isatty = getattr(self._stream, "isatty", None)
            interactive = bool(isatty and isatty())
        self._interactive = interactive
        self._interval_s = interval_s
        self._clock = clock
        self._start = self._last = clock()

    def case_done(self, failed: bool) -> None:
        self.done += 1
        self.failed += int(bool(failed))
        if self._interactive or self._clock() - self._last >= self._interval_s:
            self._print(final=False)

    def finish(self) -> None:
        self._print(final=True)

    def _print(self, final: bool) -> None:
        now = self._last = self._clock()
        line = progress_line(self.done, self.total, self.failed, now - self._start, final)
        if self._interactive:
            # \r and erase-to-end rewrite the line in place; the last one ends it.
            self._stream.write("\r" + line + ("\n" if final else "\x1b[K"))
        else:
            self._stream.write(line + "\n")
        self._stream.flush()
