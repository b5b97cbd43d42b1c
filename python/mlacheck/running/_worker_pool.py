"""Worker processes for the isolated Python route (mlacheck.run and the pytest plugin, by
default): each is a fresh interpreter (`sys.executable -m mlacheck.running._worker_main`, never a
fork, so no parent's CUDA/HIP context is inherited) pinned to one GPU before it imports anything,
which imports the backend once and runs its share of the cases (_worker_main.py), preparing them
ahead through the harness's prefetcher.

As the CLI's case isolation (cli/isolated_cases.hpp): a watchdog kills a worker whose current case
outlives that case's limit (Case.timeout_s, plan/run_plan.hpp's case_timeout_s); a worker that
dies (a signal, any exit status, os._exit, sys.exit), hangs or reports a lost GPU context costs
the case it was running: that case gets one ERRORED row naming what happened
(api/_lost_case.py), and a fresh worker takes the cases that remain. Every case gets exactly one
row; rows reach the caller as they arrive."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait

from ..api._capi import MlacheckError
from ..api._case import Case
from ..api._lost_case import lost_verdict
from ..api._verdict import Verdict, verdict_from_csv
from ._backend_load import portable_backend

DEFAULT_TIMEOUT_BASE_S = 120.0  # as `mlacheck run --timeout`
# Starting a worker (the interpreter, the backend's imports, a CUDA context) is watched apart from
# the cases, by at least this limit: a small case limit must not fail a slow import.
LOADING_LIMIT_S = 120.0
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STACK_FRAMES = 6  # of the dead worker's stack, in its row


def visible_devices() -> tuple[str | None, list[str | None]]:
    """The variable that pins a process to GPUs, and the GPUs a pool spreads over: the entries of
    HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES when set, else torch's device count when torch is
    installed (read without starting CUDA here), else one worker on no GPU ([None])."""
    for variable in ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
        value = os.environ.get(variable)
        if value is not None:
            entries = [entry.strip() for entry in value.split(",") if entry.strip()]
            return variable, entries or [None]
    try:
        import torch
    except ImportError:
        return None, [None]
    count = torch.cuda.device_count()
    variable = "HIP_VISIBLE_DEVICES" if getattr(torch.version, "hip", None) else "CUDA_VISIBLE_DEVICES"
    return variable, [str(i) for i in range(count)] or [None]


def _exit_detail(returncode: int) -> str:
    """How a worker ended, in the CLI's words (cli/child_process.cpp describe_exit)."""
    if returncode < 0:
        number = -returncode
        name = signal.strsignal(number) or signal.Signals(number).name
        return f"signal {number} ({name})"
    return f"exit status {returncode}"


def _stack_detail(path: str) -> str:
    """The worker's Python stack faulthandler wrote at a crash or at the watchdog's SIGUSR1, most
    recent call first, without mlacheck's own frames (so the backend's frame comes first)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    frames = []
    for line in lines:
        line = line.strip()
        if not line.startswith("File "):
            if frames:
                break  # the first thread's stack only
            continue
        if _PACKAGE_DIR in line or "/multiprocessing/" in line:
            continue
        frames.append(line)
    if not frames:
        return ""
    return "; the worker's stack, most recent call first: " + " <- ".join(frames[:_STACK_FRAMES])


@dataclass
class _Worker:
    device: str | None
    todo: list[int] = field(default_factory=list)  # positions in the running call's cases, in order
    process: subprocess.Popen | None = None
    connection: Connection | None = None
    job: list[int] = field(default_factory=list)  # the positions its current job holds; [] when idle
    current: int | None = None  # the position it is running
    deadline: float = float("inf")
    backend: tuple[str, str, str] = ("", "", "")
    fault_path: str = ""


# Workers a GPU when not told: a Python backend keeps its GPU idle while the interpreter launches
# its kernels and the worker judges the row, so a second worker fills those gaps (the pytest
# plugin on an H100 with the torch example: 16.3 cases/s with one, 18.8 with two; docs/performance.md).
# One without a GPU: host backends already share the host's cores with the oracle.
WORKERS_PER_GPU = 2


class WorkerPool:
    """Runs cases on `backend` in worker processes: `per_device` workers on each of `devices`
    (default: visible_devices()), each on its share (round-robin) of the cases; `per_device` None:
    WORKERS_PER_GPU on each GPU, one in all without a GPU."""

    def __init__(
        self,
        backend,
        *,
        devices: Sequence[str | None] | None = None,
        per_device: int | None = None,
        graph: bool = False,
        lookahead: int | None = None,
        timeout_base_s: float = DEFAULT_TIMEOUT_BASE_S,
    ):
        if per_device is not None and per_device < 1:
            raise ValueError(f"per_device {per_device} must be >= 1")
        if not timeout_base_s > 0:
            raise ValueError(f"timeout_base_s {timeout_base_s} must be > 0")
        self._backend = portable_backend(backend)  # raises BackendNotPortable first, before any process
        variable, found = visible_devices()
        self._variable = variable if devices is None else (variable or "CUDA_VISIBLE_DEVICES")
        self._devices = list(found if devices is None else devices) or [None]
        if per_device is None:
            per_device = WORKERS_PER_GPU if self._devices != [None] else 1
        self._per_device = per_device
        self._graph = graph
        self._lookahead = lookahead
        self._timeout_base_s = timeout_base_s
        self._workers = [_Worker(d) for d in self._devices for _ in range(per_device)]

    @property
    def processes(self) -> int:
        """How many worker processes the pool runs its cases on."""
        return len(self._workers)

    def run(self, cases: Sequence[Case], on_row: Callable[[int, Verdict], None]) -> None:
        """Calls on_row(position, verdict) once per case of `cases`, as rows arrive (in order
        within one worker's share). Cases of several plans may mix; each plan must come from
        mlacheck.plan() (its PlanSpec reopens it in the workers). Workers stay up between calls
        (the backend imported once) until close(). Raises MlacheckError when the backend or a
        plan cannot be loaded in a worker."""
        plans, entries = self._plan_entries(cases)
        limits = [case.timeout_s(self._timeout_base_s) for case in cases]
        workers = self._workers
        for w in workers:
            w.todo = list(range(workers.index(w), len(cases), len(workers)))
        try:
            while any(w.todo for w in workers):
                for w in workers:
                    if w.todo and not w.job:
                        self._send_job(w, plans, entries)
                now = time.monotonic()
                timeout = max(0.0, min(w.deadline for w in workers) - now)
                ready = wait([w.connection for w in workers if w.connection is not None], timeout=min(timeout, 1.0))
                for w in workers:
                    if w.connection is not None and w.connection in ready:
                        self._receive(w, cases, limits, on_row)
                now = time.monotonic()
                for w in workers:
                    if w.process is not None and now > w.deadline:
                        self._watchdog(w, cases, limits, on_row)
        except BaseException:
            self.close()  # a worker mid-job cannot be trusted with the next one
            raise

    def close(self) -> None:
        """Stops the workers (each finishes nothing further)."""
        for w in self._workers:
            if w.connection is not None and w.process is not None and w.process.poll() is None:
                try:
                    w.connection.send(("stop",))
                except OSError:
                    pass
            self._stop(w)

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @staticmethod
    def _plan_entries(cases: Sequence[Case]):
        plans: dict[int, object] = {}
        keys: dict[int, int] = {}
        entries = []
        for case in cases:
            plan = case._plan  # noqa: SLF001 - the plan a case was opened from
            if getattr(plan, "spec", None) is None:
                raise ValueError(f"case {case.id!r} is of a plan mlacheck.plan() did not make: a worker cannot reopen it")
            key = keys.setdefault(id(plan), len(keys))
            plans[key] = plan.spec
            entries.append((key, case._index))  # noqa: SLF001 - its index in that plan
        return plans, entries

    def _spawn(self, w: _Worker) -> None:
        env = dict(os.environ)
        if w.device is not None and self._variable is not None:
            env[self._variable] = w.device  # before the worker imports torch: one GPU each
        fd, w.fault_path = tempfile.mkstemp(prefix="mlacheck-worker-", suffix=".stack")
        os.close(fd)
        ours, theirs = socket.socketpair()
        with theirs:
            w.process = subprocess.Popen(
                [sys.executable, "-m", "mlacheck.running._worker_main", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                env=env,
            )
        w.connection = Connection(ours.detach())

    def _send_job(self, w: _Worker, plans, entries) -> None:
        if w.process is None:
            self._spawn(w)
        w.job = list(w.todo)
        w.current = None
        w.deadline = time.monotonic() + max(self._timeout_base_s, LOADING_LIMIT_S)
        kind, payload = self._backend
        w.connection.send(("job", list(sys.path), kind, payload, plans, [entries[p] for p in w.job], self._graph,
                           self._lookahead, w.fault_path))

    def _receive(self, w: _Worker, cases, limits, on_row) -> None:
        try:
            message = w.connection.recv()
        except (EOFError, OSError):
            self._died(w, cases, on_row)
            return
        tag = message[0]
        if tag == "ready":
            w.backend = tuple(message[1:4])
        elif tag == "start":
            w.current = w.job[message[1]]
            w.deadline = time.monotonic() + limits[w.current]
        elif tag == "row":
            position = w.job[message[1]]
            header, record, steps, extras = message[2:6]
            verdict = dataclasses.replace(verdict_from_csv(header, record), **extras)
            if steps:
                verdict = dataclasses.replace(verdict, steps=tuple(verdict_from_csv(header, step) for step in steps))
            self._finish(w, position, verdict, on_row)
        elif tag == "device_lost":
            position = w.job[message[1]]
            self._finish(w, position, lost_verdict(cases[position], "device_lost", message[2], backend=w.backend), on_row)
            self._stop(w)  # it exits on its own; a fresh worker takes the rest
        elif tag == "done":
            w.job = []  # idle, its process kept for the next call
        elif tag == "fatal":
            raise MlacheckError(f"a worker process could not start the run: {message[1]}")

    def _finish(self, w: _Worker, position: int, verdict: Verdict, on_row) -> None:
        w.todo.remove(position)
        w.current = None
        w.deadline = float("inf") if not w.todo or w.process is None else time.monotonic() + self._timeout_base_s
        on_row(position, verdict)

    def _died(self, w: _Worker, cases, on_row) -> None:
        returncode = w.process.wait()
        lost = w.current if w.current is not None else (w.todo[0] if w.todo else None)
        detail = _exit_detail(returncode) + _stack_detail(w.fault_path)
        self._stop(w)
        if lost is not None:
            self._finish(w, lost, lost_verdict(cases[lost], "process_died", detail, backend=w.backend), on_row)

    def _watchdog(self, w: _Worker, cases, limits, on_row) -> None:
        lost = w.current if w.current is not None else w.todo[0]
        limit = limits[lost] if w.current is not None else max(self._timeout_base_s, LOADING_LIMIT_S)
        w.process.send_signal(signal.SIGUSR1)  # faulthandler writes where it hangs
        time.sleep(0.2)
        w.process.kill()
        w.process.wait()
        self._stop(w)
        self._finish(w, lost, lost_verdict(cases[lost], "timed_out", "", limit_s=limit, backend=w.backend), on_row)

    @staticmethod
    def _stop(w: _Worker) -> None:
        """Waits for the process (a worker sent "stop" or about to exit ends on its own; one that
        does not within 5 s is killed), then closes its connection."""
        if w.process is not None:
            try:
                w.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                w.process.kill()
                w.process.wait()
            w.process = None
        if w.connection is not None:
            w.connection.close()
            w.connection = None
        if w.fault_path:
            try:
                os.remove(w.fault_path)
            except OSError:
                pass
            w.fault_path = ""
        w.deadline = float("inf")
        w.job = []
