"""How the --mlacheck-backend items get their verdicts under isolation (the default): the cases of
every selected item run ahead, in the session's worker processes (running/_worker_pool.py), from
the first item's runtest on; each item's runtest waits for its own case's row. The cases are
prepared ahead in the workers (the harness's prefetcher), as `mlacheck run` and mlacheck.run do,
so the session runs at the pace of the backend, not of one case's setup after another.

Selected means: collected, not deselected (-k, -m, --deselect) and not skipped by a marker
(skip, a true skipif, xfail(run=False)): those cases never run. Under pytest-xdist an xdist worker
does not know which items it will be handed, so it runs each item's case when the item runs, on
its own pool (kept between items: the backend is imported once), pinned to one GPU (the worker's
number modulo the visible GPUs) so `-n` workers do not pile onto one device."""

from __future__ import annotations

import threading

import pytest

from ..api._capi import MlacheckError
from ..api._verdict import Verdict
from ..running._worker_pool import WorkerPool, visible_devices
from ._xdist import worker_id


def _runs(item: pytest.Item) -> bool:
    """Whether pytest will call the item's runtest: no skip mark applies, no xfail(run=False)."""
    from _pytest.skipping import evaluate_skip_marks, evaluate_xfail_marks

    if evaluate_skip_marks(item) is not None:
        return False
    xfailed = evaluate_xfail_marks(item)
    return xfailed is None or xfailed.run


class CaseScheduler:
    """One per session: the worker pool and the verdicts of the items' cases as they arrive.
    `on_row(verdict)` is called with each row as it arrives (the session's report)."""

    def __init__(self, state, on_row):
        config = state.config
        options = config.option
        devices = None
        per_device = options.mlacheck_workers_per_device
        worker = worker_id(config)
        if worker is not None:
            _, visible = visible_devices()
            devices = [visible[int(worker.lstrip("gw") or 0) % len(visible)]]
            if per_device is None:  # xdist's workers already share the GPUs: one process each
                per_device = 1
        self._pool = WorkerPool(
            options.mlacheck_backend,
            devices=devices,
            per_device=per_device,
            graph=options.mlacheck_graph,
            timeout_base_s=options.mlacheck_timeout_base,
        )
        self._state = state
        self._on_row = on_row
        self._ahead = worker is None  # xdist: each item when it runs
        self._verdicts: dict[int, Verdict] = {}
        self._scheduled: set[int] = set()
        self._done = threading.Condition()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None

    def start(self, items) -> None:
        """Starts running the cases of `items` (the session's items; the mlacheck ones that will
        run are taken) in the background."""
        if not self._ahead or self._thread is not None:
            return
        indices = [item.case_index for item in items if hasattr(item, "case_index") and _runs(item)]
        self._scheduled = set(indices)
        self._thread = threading.Thread(target=self._run, args=(indices,), name="mlacheck-scheduler", daemon=True)
        self._thread.start()

    def _run(self, indices) -> None:
        plan = self._state.plan
        cases = [plan[i] for i in indices]
        try:
            self._pool.run(cases, lambda position, verdict: self._arrived(indices[position], verdict))
        except BaseException as e:  # noqa: BLE001 - handed to the items waiting for their rows
            self._error = e
        with self._done:
            self._done.notify_all()

    def _arrived(self, case_index: int, verdict: Verdict) -> None:
        self._on_row(verdict)
        with self._done:
            self._verdicts[case_index] = verdict
            self._done.notify_all()

    def verdict(self, case_index: int) -> Verdict:
        """The case's verdict: waited for when it runs ahead, else run now."""
        if case_index in self._scheduled:
            with self._done:
                while case_index not in self._verdicts and self._error is None and self._thread.is_alive():
                    self._done.wait(1.0)
            if case_index in self._verdicts:
                return self._verdicts.pop(case_index)
            if self._error is not None:  # a fresh exception per item: one shared would grow its traceback
                raise MlacheckError(f"the worker processes stopped: {type(self._error).__name__}: {self._error}")
        if self._thread is not None:
            self._thread.join()  # the pool serves one call at a time
        self._pool.run([self._state.plan[case_index]], lambda _, verdict: self._arrived(case_index, verdict))
        return self._verdicts.pop(case_index)

    def close(self) -> None:
        self._pool.close()
        if self._thread is not None:
            self._thread.join(timeout=10)
