"""Graph mode for decode sequences (UPSTREAM R5): an engine captures a decode step in a CUDA graph
(HIP graph on ROCm's torch) once and replays it for every later step, after copying the step's
metadata into the buffers the graph captured and running its attention backend's host-side
planning outside the graph (SGLang's init_forward_metadata_replay_cuda_graph, which calls
FlashInfer's plan()). Whatever a backend computes on the host inside the captured step, or keeps
from the call it was captured in, is frozen at step 0: a plan that goes stale at replay.

GraphReplay does what the engine does, with torch's graph API: step 0 runs once eagerly on a side
stream (the warm-up torch requires before capture: lazy initialisation, allocator pools), then is
captured and replayed; every later step is a replay alone, its inputs already written in place
into the sequence's buffers (python/mlacheck/api/_sequence.py). The backend's `before_replay(inputs)`,
its planning, is the sequence route's (running/_sequence_run.py): called on the host before
the warm-up and capture of step 0 and before every later replay, on the current stream, which the
warm-up's side stream waits on and the replay runs on."""

from __future__ import annotations

from ..api._torch_interop import require_torch, torch_module
from ._adapter import describe_exception


class GraphCaptureError(RuntimeError):
    """The backend's step could not be captured in a CUDA graph (a host synchronisation, a copy
    from pageable memory, an allocation the capture refuses ...)."""


def graph_unavailable(adapter) -> str | None:
    """Why graph mode cannot run `adapter`'s backend on this machine, or None when it can."""
    torch = torch_module()
    if torch is None:
        return "graph mode needs PyTorch with CUDA graphs; this interpreter has no torch"
    if not torch.cuda.is_available():
        return "graph mode needs a CUDA (or ROCm) device for its CUDA graphs; torch sees none on this machine"
    if adapter.is_object:
        device = adapter.output_device
        if device is None or torch.device(device).type != "cuda":
            return f"graph mode needs the backend's outputs on a CUDA device; its device is {device or 'NumPy (host)'}"
    return None


class GraphReplay:
    """Step 0 captured once on `device` (the current CUDA device when None), replayed for every step."""

    def __init__(self, device=None):
        torch = require_torch()
        self._torch = torch
        if device is None:
            device = torch.device("cuda", torch.cuda.current_device())
        self._device = torch.device(device)
        self._graph = None
        self._result = None

    @property
    def captured(self) -> bool:
        return self._graph is not None

    def run(self, call, before_capture=None):
        """The step's result: on the first call `call()` runs eagerly (exceptions are the
        backend's), `before_capture()` restores what that run wrote (the poisoned outputs), and
        `call()` is captured (a failure raises GraphCaptureError); every call then replays the
        graph and returns what the captured call returned."""
        torch = self._torch
        with torch.cuda.device(self._device):
            if self._graph is None:
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    call()
                torch.cuda.current_stream().wait_stream(side)
                if before_capture is not None:
                    before_capture()
                graph = torch.cuda.CUDAGraph()
                try:
                    with torch.cuda.graph(graph):
                        self._result = call()
                except Exception as error:  # noqa: BLE001 - what the capture refused is the verdict
                    raise GraphCaptureError(
                        f"step 0 could not be captured in a CUDA graph: {describe_exception(error)}"
                    ) from error
                self._graph = graph
            self._graph.replay()
            torch.cuda.current_stream().synchronize()
        return self._result
