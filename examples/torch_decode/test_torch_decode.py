"""Tests of the torch example: it passes mlacheck's cases in both backend shapes (on CUDA too when
torch sees a GPU), and its deliberately wrong twin FAILS naming tensor O, through the Python API
and through the pytest plugin."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch", reason="the torch example needs PyTorch")

import mlacheck  # noqa: E402
import torch_mla_decode  # noqa: E402
import wrong_decode  # noqa: E402

pytest_plugins = ["pytester"]

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def failures(verdicts):
    return "\n".join(v.describe() for v in verdicts if v.is_failure)


@pytest.mark.parametrize("device", DEVICES)
def test_both_backend_shapes_pass_a_property_sweep(device):
    plan = mlacheck.plan("properties", size=16, seed=11)

    def decode(inputs):
        return torch_mla_decode.decode(inputs, device)

    for backend in (decode, torch_mla_decode.TorchMlaBackend(device)):
        verdicts = mlacheck.run(plan, backend)
        assert not failures(verdicts), failures(verdicts)
        assert sum(v.state == "PASSED" for v in verdicts) >= 12


@pytest.mark.parametrize("device", DEVICES)
def test_the_scenarios_pass_and_staged_outputs_are_checked(device):
    verdicts = mlacheck.run(mlacheck.plan("scenarios"), torch_mla_decode.TorchMlaBackend(device))
    assert not failures(verdicts), failures(verdicts)
    # Scenarios whose cache pool lies past 4 GiB, and decode sequences (UPSTREAM R5), are not offered
    # through the C API: SKIPPED, named.
    offered = [
        v for v in verdicts
        if v.op == "mla_decode" and "first_block=" not in v.reason and "decode sequence" not in v.reason
    ]
    assert all(v.state == "SKIPPED" for v in verdicts if v.op == "mla_decode" and v not in offered)
    assert offered and all(v.state == "PASSED" and v.canaries == "ok" for v in offered)
    decoded = offered
    if device == "cuda":
        assert all(v.device == torch.cuda.get_device_name() for v in decoded)


def test_the_wrong_decode_fails_naming_o_through_the_api():
    verdicts = mlacheck.run(mlacheck.plan("scenarios"), wrong_decode.decode)
    failed = [v for v in verdicts if v.state == "FAILED"]
    assert failed, "ignoring the block table must fail some scenario"
    assert all(v.reason.startswith("O: ") for v in failed), failures(verdicts)
    # wrong values, or NaN read from cache slots no request owns
    assert all(v.tensors["O"].mismatches + v.tensors["O"].nonfinite > 0 for v in failed)


def test_the_wrong_decode_fails_naming_o_through_the_pytest_plugin(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    result = pytester.runpytest_subprocess(
        "-p", "mlacheck.pytest_plugin", "-p", "no:cacheprovider",
        "--mlacheck-backend", "wrong_decode:decode", "--mlacheck-plan", "scenarios",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes()["failed"] >= 1
    result.stdout.fnmatch_lines(["*FAILED scenario.*: O: * of *", '*repro: mlacheck run --case "*'])
