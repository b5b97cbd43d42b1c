"""A FlashInfer-style MLA decode: a wrapper split into plan() on the host and run() on the device, as
FlashInfer's BatchMLAPagedAttentionWrapper is, and the backends that drive it the way an engine does
under CUDA graphs (SGLang's init_forward_metadata_replay_cuda_graph plans, then the graph replays).

  PagedMlaWrapper       made once for a sequence's sizes, its schedule tensors allocated then and
                        never again (the buffers a captured graph reads). plan() takes the step's
                        metadata as host arrays, works out the schedule in NumPy (each request's pool
                        rows, the positions each query row may see, each query token's request) and
                        copies it into those tensors; run() reads only them, q and the cache.
  PlannedMlaBackend     a stateful backend over the wrapper: begin(sequence) makes the wrapper,
                        before_replay(inputs) plans from the step's metadata (the hook mlacheck calls
                        on the host before every step, outside any graph capture), step() runs.
                        Passes every decode sequence eagerly and in graph mode.
  StaleWrapperBackend   plans at its first before_replay only (an integration that forgets to plan
                        again before a replay): right at step 0, wrong from the first step whose
                        metadata differs from step 0's (kv_lens grow every step: step 1), eagerly
                        and in graph mode alike, since run() reads nothing but the plan.

Device: the `device` argument, else $MLACHECK_TORCH_DEVICE, else "cuda" when torch sees a GPU,
else "cpu". Scores and softmax in float32 (graph_mla_decode.attend_planned)."""

from __future__ import annotations

import numpy as np
import torch

from graph_mla_decode import DecodePlan, GraphMlaBackend, attend_planned


class PagedMlaWrapper:
    """plan(kv_lens, q_lens, qo_indptr, block_table) then run(q, kv_cache, outputs), for at most
    `batch` requests of `max_q` query rows and `max_kv` cached tokens in blocks of `block_size`."""

    def __init__(self, batch: int, total_q_tokens: int, max_q: int, max_kv: int, block_size: int, device):
        self.block_size = block_size
        self.max_q = max_q
        self.max_kv = max_kv
        self.tokens = total_q_tokens
        where = torch.device(device)
        # The schedule: allocated here only, rewritten in place by every plan().
        self.schedule = DecodePlan(
            rows=torch.zeros(batch, max_kv, dtype=torch.int64, device=where),
            valid=torch.zeros(batch, max_kv, dtype=torch.bool, device=where),
            hidden=torch.ones(batch, max_q, max_kv, dtype=torch.bool, device=where),
            request=torch.zeros(total_q_tokens, dtype=torch.int64, device=where),
            index=torch.zeros(total_q_tokens, dtype=torch.int64, device=where),
        )

    def plan(self, kv_lens: np.ndarray, q_lens: np.ndarray, qo_indptr: np.ndarray, block_table: np.ndarray) -> None:
        """Works out the step's schedule on the host and copies it into the schedule's tensors."""
        kv_lens = kv_lens.astype(np.int64)
        q_lens = q_lens.astype(np.int64)
        positions = np.arange(self.max_kv)
        valid = positions[None, :] < kv_lens[:, None]
        blocks = block_table.astype(np.int64)[:, positions // self.block_size]
        rows = np.where(valid, blocks * self.block_size + positions % self.block_size, 0)
        qo = qo_indptr.astype(np.int64)
        tokens = np.arange(self.tokens)
        request = np.searchsorted(qo[1:], tokens, side="right")
        index = tokens - qo[request]
        # Query row i of a request with q_len rows sees positions [0, kv_len - q_len + i].
        visible = kv_lens[:, None] - q_lens[:, None] + 1 + np.arange(self.max_q)[None, :]
        hidden = positions[None, None, :] >= visible[..., None]
        s = self.schedule
        for tensor, value in ((s.rows, rows), (s.valid, valid), (s.hidden, hidden), (s.request, request), (s.index, index)):
            tensor.copy_(torch.from_numpy(np.ascontiguousarray(value)))

    def run(self, p, q: torch.Tensor, kv_cache: torch.Tensor, outputs) -> None:
        """The step as planned: device work on fixed shapes only, so it can be captured."""
        attend_planned(p, q, kv_cache, self.schedule, outputs)


class PlannedMlaBackend(GraphMlaBackend):
    """An engine's integration of the wrapper: plan before every step, then run (the fixed-shape
    backend's attributes and sizes, its step the wrapper's run())."""

    name = "torch-paged-mla-wrapper"

    def begin(self, sequence):
        super().begin(sequence)
        p = sequence.problem
        self.wrapper = PagedMlaWrapper(p.batch, p.total_q_tokens, self.max_q, self.max_kv, p.block_size, self.device)

    def before_replay(self, inputs):
        """Plans the step from its metadata on the host (mlacheck calls this before every step)."""
        self.wrapper.plan(inputs.kv_lens.codes, inputs.q_lens.codes, inputs.qo_indptr.codes, inputs.block_table.codes)

    def step(self, inputs, outputs):
        t = inputs.as_torch(self.device)
        self.wrapper.run(self.sequence.problem, t.q, t.kv_cache, outputs)


class StaleWrapperBackend(PlannedMlaBackend):
    """Plans once, at the first before_replay of a sequence, and never again."""

    name = "torch-stale-paged-mla-wrapper"

    def begin(self, sequence):
        super().begin(sequence)
        self.planned = False

    def before_replay(self, inputs):
        if not self.planned:
            super().before_replay(inputs)
            self.planned = True
