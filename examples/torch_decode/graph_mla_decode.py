"""MLA decode backends of the stateful shape (`begin(sequence)` / `step(inputs, outputs)`), written to
be captured in a CUDA graph: every step is device work on tensors of the sequence's fixed sizes
(no host synchronisation, no allocation that depends on a step's lengths), so mlacheck's graph mode
(`mlacheck.run(..., graph=True)`, `pytest --mlacheck-graph`) can capture step 0 and replay it for
the later steps, as an engine does (UPSTREAM R5).

  GraphMlaBackend       correct: reads kv_lens, the block table and qo_indptr from the inputs at
                        every step, on the device; passes eagerly and in graph mode.
  StalePlanBackend      keeps the kv_lens and block table of its first step (a plan made once and
                        never refreshed): fails from step 1 on, eagerly and in graph mode.
  HostPlanBackend       plans on the host from the step's problem at every step() and writes the
                        plan as constants: right eagerly, stale under graph replay (the planning
                        step never ran again; the captured writes replay step 0's plan).

Device: the `device` argument, else $MLACHECK_TORCH_DEVICE, else "cuda" when torch sees a GPU,
else "cpu". Scores and softmax in float32, as torch_mla_decode.py."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from torch_mla_decode import _OUT_DTYPES, default_device, dequantised, stored_bits


class GraphMlaBackend:
    """A decode step of fixed shapes: queries padded to [batch, max_q_len], every request's cache
    gathered to the sequence's max_kv_len through its block table row, masks from kv_lens."""

    name = "torch-graph-mla-decode"
    version = f"torch {torch.__version__}"
    lse_base = "natural"
    writes_lse = True

    def __init__(self, device=None):
        self.device = device or default_device()
        self.sequence = None

    def supports(self, problem):
        if problem.o_dtype not in _OUT_DTYPES:
            return f"o_dtype {problem.o_dtype} has no torch dtype here"
        return None

    def begin(self, sequence):
        """Sizes every tensor of the steps from the sequence: the batch, max_q_len, max_kv_len."""
        p = sequence.problem
        self.sequence = sequence
        device = torch.device(self.device)
        self.max_q = p.max_q_len
        self.max_kv = max(1, sequence.max_kv_len)
        self.positions = torch.arange(self.max_kv, device=device)  # [max_kv]
        self.tokens = torch.arange(p.total_q_tokens, device=device)  # [T]

    def lengths(self, t):
        """(kv_lens, block_table) the step reads: the inputs' own (a subclass keeps others)."""
        return t.kv_lens, t.block_table

    def step(self, inputs, outputs):
        p = self.sequence.problem  # the sequence's fixed fields; the step's lengths come from the tensors
        t = inputs.as_torch(self.device)
        kv_lens, table = self.lengths(t)
        kv_lens = kv_lens.long()
        bs = p.block_size
        # Each request's cache rows in position order: [batch, max_kv] pool rows, 0 where past kv_len.
        valid = self.positions[None, :] < kv_lens[:, None]
        blocks = table.long()[:, self.positions // bs]
        rows = (blocks * bs + self.positions % bs).masked_fill(~valid, 0)
        # Query token -> (request, index within the request), from qo_indptr.
        qo = t.qo_indptr.long()
        request = torch.searchsorted(qo[1:], self.tokens, right=True)  # [T]
        index = self.tokens - qo[request]
        # Query row i of a request with q_len rows sees positions [0, kv_len - q_len + i].
        q_lens = t.q_lens.long()
        visible = kv_lens[:, None] - q_lens[:, None] + 1 + torch.arange(self.max_q, device=q_lens.device)[None, :]
        hidden = self.positions[None, None, :] >= visible[..., None]  # [batch, max_q, max_kv]
        attend_planned(p, t.q, t.kv_cache, DecodePlan(rows, valid, hidden, request, index), outputs)


@dataclass
class DecodePlan:
    """Where a fixed-shape decode step reads, as device tensors of the sequence's sizes: `rows`
    [batch, max_kv] pool rows of each request's positions (0 past kv_len), `valid` [batch, max_kv]
    positions below kv_len, `hidden` [batch, max_q, max_kv] positions a query row may not see,
    `request` and `index` [T] each query token's request and row within it."""

    rows: torch.Tensor
    valid: torch.Tensor
    hidden: torch.Tensor
    request: torch.Tensor
    index: torch.Tensor


def attend_planned(p, q_codes, kv_cache, plan: DecodePlan, outputs) -> None:
    """One decode step of fixed shapes over `plan`: the cache gathered at the planned rows, the
    queries padded to [batch, max_q], the hidden positions masked; O and natural LSE written into
    `outputs` (problem `p` gives the dtypes, scales and sizes)."""
    batch, max_kv = plan.rows.shape
    max_q = plan.hidden.shape[1]
    pool_rows = stored_bits(kv_cache).reshape(-1, p.lk)
    cached = pool_rows[plan.rows.reshape(-1)].view(kv_cache.dtype).reshape(batch, max_kv, p.lk)
    keys = dequantised(cached, p.kv_dtype, p.kv_scale).masked_fill(~plan.valid[..., None], 0.0)
    q = dequantised(q_codes, p.q_dtype, p.q_scale)  # [T, heads, lk]
    padded = torch.zeros(batch, max_q, p.heads, p.lk, dtype=torch.float32, device=q.device)
    padded[plan.request, plan.index] = q
    scores = torch.einsum("bqhc,bnc->bqhn", padded, keys) * p.scale  # [batch, max_q, heads, max_kv]
    scores = scores.masked_fill(plan.hidden[:, :, None, :], float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)  # -inf for a padded row: it sees no token
    weights = torch.exp(scores - torch.nan_to_num(lse, neginf=0.0)[..., None])
    o = torch.einsum("bqhn,bnc->bqhc", weights, keys[..., : p.kv_lora_rank])
    outputs.o.copy_(o[plan.request, plan.index].to(outputs.o.dtype))
    outputs.lse.copy_(lse[plan.request, plan.index])


class StalePlanBackend(GraphMlaBackend):
    """Keeps the kv_lens and block table of its first step for every later one."""

    name = "torch-stale-plan-mla-decode"

    def begin(self, sequence):
        super().begin(sequence)
        self.plan = None

    def lengths(self, t):
        if self.plan is None:
            self.plan = (t.kv_lens.clone(), t.block_table.clone())
        return self.plan


class HostPlanBackend(GraphMlaBackend):
    """Plans kv_lens on the host from the step's problem (the scheduler's metadata) at every step()
    and writes it into its device plan as per-request constants; the block table it reads from the
    inputs. Eagerly every step is planned afresh; under graph replay step() is not called again,
    and the captured fills replay the constants of step 0."""

    name = "torch-host-plan-mla-decode"

    def begin(self, sequence):
        super().begin(sequence)
        self.device_plan = torch.zeros(sequence.problem.batch, dtype=torch.int32, device=torch.device(self.device))

    def lengths(self, t):
        for request, kv_len in enumerate(t.problem.kv_lens):
            self.device_plan[request].fill_(kv_len)  # a kernel argument: captured by value
        return self.device_plan, t.block_table
