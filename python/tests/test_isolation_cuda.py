"""Isolation on a CUDA GPU: a backend whose kernel loses the CUDA context (a device-side assert, a
Triton kernel storing out of bounds: an illegal memory access) costs its case alone, a
`device lost: <the CUDA error>` row; a fresh worker (a fresh context) runs the rest."""

from __future__ import annotations

import pytest

import mlacheck
from test_isolation import BROKEN, small_table  # noqa: F401 - the fixture

torch = pytest.importorskip("torch", reason="PyTorch is not installed in this interpreter")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device here: the lost-context cases need one", allow_module_level=True)


@pytest.mark.parametrize("backend", ["device_asserts", "illegal_address"])
def test_a_lost_cuda_context_is_one_device_lost_row(backend, small_table):  # noqa: F811
    if backend == "illegal_address":
        pytest.importorskip("triton", reason="Triton is not installed in this interpreter")
    plan = mlacheck.plan("scenarios", scenarios=small_table)
    verdicts = mlacheck.run(plan, f"breaking_backends:{backend}", progress=False)
    states = {v.id: v for v in verdicts}
    broken = states.pop(BROKEN)
    assert broken.state == "ERRORED" and broken.reason.startswith("device lost: "), broken.reason
    assert all(v.state == "PASSED" for v in states.values()), [v.describe() for v in states.values()]
