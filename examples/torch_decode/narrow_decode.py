"""A narrow MLA decode (issue 34): the torch decode of torch_mla_decode.py restricted to the space
FlashInfer's BatchMLAPagedAttentionWrapper takes (release 0.6.18): Lv 512 with rope 64 or 0; q,
cache and O all bf16 or all f16, or an fp8 e4m3fn cache with bf16 q and O; no fp8 queries; at
least 16 heads a rank. It declares that space as `space`, so mlacheck.run and the pytest plugin
draw its property sweep within it; supports() refuses everything outside it (written out field by
field rather than from the Space, so a sweep that strays is refused, not silently accepted).

    mlacheck.run(mlacheck.plan("properties", size=300), NarrowDecode())
    pytest -p mlacheck.pytest_plugin --mlacheck-backend narrow_decode:NarrowDecode --mlacheck-plan properties
"""

from __future__ import annotations

import mlacheck
from torch_mla_decode import _OUT_DTYPES, attend, default_device

SPACE = mlacheck.Space(
    lv_rope=[(512, 64), (512, 0)],
    dtypes=[("bf16", "bf16", "bf16"), ("f16", "f16", "f16"), ("bf16", "fp8_e4m3fn", "bf16")],
    heads=range(16, 129),
)

_DTYPES = {("bf16", "bf16", "bf16"), ("f16", "f16", "f16"), ("bf16", "fp8_e4m3fn", "bf16")}


def flashinfer_like_refusal(problem) -> str | None:
    """Why the FlashInfer-like space refuses `problem` (None: it is inside)."""
    if problem.kv_lora_rank != 512 or problem.rope_dim not in (64, 0):
        return f"Lv {problem.kv_lora_rank} with rope {problem.rope_dim}: only Lv 512 with rope 64 or 0"
    if problem.q_dtype.startswith("fp8"):
        return f"fp8 queries ({problem.q_dtype}) are not supported"
    if (problem.q_dtype, problem.kv_dtype, problem.o_dtype) not in _DTYPES:
        return f"q/cache/O {problem.q_dtype}/{problem.kv_dtype}/{problem.o_dtype} is not supported"
    if problem.heads < 16:
        return f"{problem.heads} heads a rank: at least 16"
    return None


class NarrowDecode:
    """The object backend shape, writing into the outputs mlacheck staged on `device`."""

    name = "torch-narrow-decode"
    version = "flashinfer-like space"
    lse_base = "natural"
    writes_lse = True
    space = SPACE

    def __init__(self, device=None):
        self.device = device or default_device()

    def supports(self, problem):
        return flashinfer_like_refusal(problem)

    def run(self, inputs, outputs):
        o, lse = attend(inputs.as_torch(self.device), inputs.problem)
        outputs.o.copy_(o.to(_OUT_DTYPES[inputs.problem.o_dtype]))
        outputs.lse.copy_(lse)
