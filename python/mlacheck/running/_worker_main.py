"""A worker process of the isolated Python route (`python -m mlacheck.running._worker_main FD`,
started by _worker_pool.py): imports the backend once, reopens the plans it is sent (PlanSpec),
prepares its share of the cases ahead through the harness's prefetcher and runs the backend on
each, sending every row as report CSV as soon as it is made. FD is its end of a socket pair to
the parent. Messages (pickled tuples):

    parent -> worker: ("job", sys_path, backend_kind, backend_payload, {plan key: PlanSpec},
                       [(plan key, case index), ...], graph, lookahead, faulthandler_path)
    worker -> parent: ("ready", name, version, device)   the backend is loaded
                      ("start", position)                 the case at `position` of the job begins
                      ("row", position, header, record, step records, {backend_spec, traceback})
                                                          its row (and a sequence's step rows)
                      ("device_lost", position, error)    a sticky GPU error after the case: the
                                                          worker exits; a fresh one takes the rest
                      ("done",)                           every case of the job sent
                      ("fatal", message)                  the backend or a plan did not load

A crash, an exit or a hang shows to the parent as the process ending (or the watchdog firing)
after a "start" without its row: the parent writes that case's row (api/_lost_case.py).
"""

from __future__ import annotations

import faulthandler
import signal
import sys
import traceback
from multiprocessing.connection import Connection


def _device_error() -> str | None:
    """The sticky GPU error a case left behind, if torch has a CUDA/HIP context in this process:
    a kernel's illegal memory access poisons the context, and every later call reports it."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return None
    try:
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - torch raises RuntimeError or AcceleratorError
        return f"{type(e).__name__}: {e}".strip()
    return None


_loaded: dict = {}  # what earlier jobs loaded: the backend (by its payload) and the plans (by spec)


def _run(connection: Connection, job: tuple) -> bool:
    """Runs one job; False when the worker must end (its device lost, or nothing loaded)."""
    _, sys_path, backend_kind, backend_payload, plan_specs, entries, graph, lookahead, fault_path = job
    if fault_path and "fault_file" not in _loaded:
        # A crash (SIGSEGV, SIGABRT, ...) or the watchdog's SIGUSR1 writes the Python stack here;
        # the parent puts the backend's frames in the case's row.
        fault_file = _loaded["fault_file"] = open(fault_path, "w")  # noqa: SIM115 - for the process's life
        faulthandler.enable(file=fault_file)
        faulthandler.register(signal.SIGUSR1, file=fault_file, all_threads=False)
    sys.path[:] = sys_path + [p for p in sys.path if p not in sys_path]
    from ..api._case import Case
    from ..api._torch_interop import torch_module
    from ._backend import adapt, check
    from ._backend_load import rebuild_backend
    from ._prefetch import prepared_cases

    try:
        # What the route imports on first need (torch, when installed) is loaded here, under the
        # loading limit, so the first case's watchdog limit covers the case alone.
        torch_module()
        if _loaded.get("backend_payload") != (backend_kind, backend_payload):
            _loaded["backend"] = adapt(rebuild_backend(backend_kind, backend_payload))
            _loaded["backend_payload"] = (backend_kind, backend_payload)
        backend = _loaded["backend"]
        for spec in plan_specs.values():
            if spec not in _loaded:
                _loaded[spec] = spec.open()
        plans = {key: _loaded[spec] for key, spec in plan_specs.items()}
        cases = [Case(plans[key], index) for key, index in entries]
    except Exception as e:  # noqa: BLE001 - reported to the parent, which stops the run
        connection.send(("fatal", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
        return False
    connection.send(("ready", backend.name or "", backend.version or "", backend.device_name or ""))
    prepared = prepared_cases(cases, lookahead)
    for position in range(len(cases)):
        connection.send(("start", position))
        case, preparation_error = next(prepared)
        verdict = check(case, backend, graph=graph, preparation_error=preparation_error)
        error = _device_error()
        if error is not None:
            if verdict.state == "ERRORED":
                error += f"; the backend raised: {verdict.reason}"
            connection.send(("device_lost", position, error))
            return False
        steps = [step.csv_record for step in verdict.steps]  # a decode sequence's steps, each a row
        # What report.csv does not hold travels beside the row: the spec the repro lines name and
        # the backend's whole traceback.
        extras = {"backend_spec": verdict.backend_spec, "traceback": verdict.traceback}
        connection.send(("row", position, verdict.csv_header, verdict.csv_record, steps, extras))
        case.release()
    connection.send(("done",))
    return True


def main() -> None:
    connection = Connection(int(sys.argv[1]))
    try:
        while True:
            job = connection.recv()
            if job[0] == "stop" or not _run(connection, job):
                break
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass  # the parent is gone or done with this worker
    connection.close()


if __name__ == "__main__":
    main()
