"""Tests of the Triton MLA decode (triton_mla_decode.py) on a CUDA GPU: the default plan passes,
drawn within the backend's declared space (no row FAILED or ERRORED, nearly every case it
supports PASSED, its staged outputs' guards intact); the pytest plugin runs it as items; and its
two seeded defects (the causal mask dropped, log2 e forgotten) FAIL naming O or LSE. Without
PyTorch, Triton or a GPU torch sees, every test is skipped, saying which."""

from __future__ import annotations

import importlib.util
import os
import re

import pytest

import mlacheck


def _why_not_here() -> str | None:
    """Why this machine cannot run the Triton example (None: it can)."""
    if importlib.util.find_spec("torch") is None:
        return "the Triton example needs PyTorch, which this interpreter lacks"
    if importlib.util.find_spec("triton") is None:
        return "the Triton example needs Triton, which this interpreter lacks"
    import torch

    if not torch.cuda.is_available():
        return "the Triton example needs a CUDA GPU: torch sees none here"
    return None


# Every test is collected and skipped with the reason (a skipped module would leave pytest with no
# test collected: exit status 5, not 0).
WHY_NOT_HERE = _why_not_here()
pytestmark = pytest.mark.skipif(WHY_NOT_HERE is not None, reason=WHY_NOT_HERE or "")
if WHY_NOT_HERE is None:
    import torch
    import triton_mla_decode

pytest_plugins = ["pytester"]

HERE = os.path.dirname(os.path.abspath(__file__))
BROKEN = ("FAILED", "ERRORED")


def failures(verdicts):
    return "\n".join(v.describe() for v in verdicts if v.state in BROKEN)


def supported_cases(plan, backend):
    """The cases of `plan`, drawn within the backend's space as mlacheck.run draws them, that the
    backend runs (mla_decode cases its supports() accepts)."""
    return [c for c in plan.within(backend.space) if c.runs_backend and backend.supports(c.problem) is None]


def test_the_default_plan_passes(tmp_path):
    backend = triton_mla_decode.TritonMlaDecode("cuda")
    plan = mlacheck.plan("default")
    supported = supported_cases(plan, backend)
    verdicts = mlacheck.run(plan, backend, tmp_path / "report", progress=False)
    assert not failures(verdicts), failures(verdicts)
    passed = [v for v in verdicts if v.state == "PASSED"]
    # Of the supported cases, only a pool this GPU lacks the memory for may be SKIPPED (and a
    # MISTRUSTED oracle row): 90% is a floor well below what a correct kernel gets.
    assert len(supported) >= 100, len(supported)
    assert len(passed) >= 0.9 * len(supported), (len(passed), len(supported))
    # The backend's rows were checked against their staged guards (the oracle self-checks, which
    # run no backend, guard nothing).
    offered = {c.id for c in supported}
    assert all(v.canaries == "ok" for v in passed if v.id in offered)
    assert all(v.device == torch.cuda.get_device_name() for v in passed if v.id in offered)
    # The decode sequences (several steps over one cache) are among them.
    assert any("steps=" in v.repro for v in passed)
    assert (tmp_path / "report" / "report.csv").is_file()


def test_the_pytest_plugin_runs_it_as_items(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [HERE, os.environ.get("PYTHONPATH")])))
    result = pytester.runpytest_subprocess(
        "-p", "mlacheck.pytest_plugin", "-p", "no:cacheprovider", "-q",
        "--mlacheck-backend", "triton_mla_decode:TritonMlaDecode", "--mlacheck-plan", "properties",
        "--mlacheck-size", "8",
    )
    # The sweep is drawn within the space (16-bit q and cache; Lv <= 512, rope <= 128 always)
    result.assert_outcomes(passed=8)


@pytest.mark.parametrize("defect", ["NoCausalMask", "ForgotLog2e"])
def test_a_seeded_defect_fails_naming_o_or_lse(defect):
    right = triton_mla_decode.TritonMlaDecode("cuda")
    wrong = getattr(triton_mla_decode, defect)("cuda")
    plan = mlacheck.plan("properties", seed=5, size=16)

    verdicts = mlacheck.run(plan, right, progress=False)
    assert not failures(verdicts), failures(verdicts)

    verdicts = mlacheck.run(plan, wrong, progress=False)
    assert not [v for v in verdicts if v.state == "ERRORED"], failures(verdicts)
    failed = [v for v in verdicts if v.state == "FAILED"]
    # NoCausalMask is right for single-token requests only; ForgotLog2e is wrong nearly everywhere.
    assert len(failed) >= (3 if defect == "NoCausalMask" else 12), [(v.id, v.state) for v in verdicts]
    for v in failed:
        reason = re.sub(r"^step \d+ of \d+: ", "", v.reason)  # a sequence names its first failing step
        assert reason.startswith(("O: ", "LSE: ")), v.describe()


def test_the_seeded_defect_fails_through_the_pytest_plugin(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [HERE, os.environ.get("PYTHONPATH")])))
    result = pytester.runpytest_subprocess(
        "-p", "mlacheck.pytest_plugin", "-p", "no:cacheprovider",
        "--mlacheck-backend", "triton_mla_decode:ForgotLog2e", "--mlacheck-plan", "properties",
        "--mlacheck-size", "8",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes()["failed"] >= 1
    result.stdout.fnmatch_lines(["*FAILED sweep-*: *O: * of *"])
