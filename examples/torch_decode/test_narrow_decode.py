"""Tests of the narrow decode (narrow_decode.py, issue 34): a property sweep drawn within its
declared space is >= 90% inside what its supports() accepts and spreads over every value the
space allows; mlacheck.run and the pytest plugin pick the backend's space up and its cases PASS
(on CUDA too when torch sees a GPU), report.html and the summary line naming what the space
excludes; without the declaration the same sweep is nearly all SKIPPED."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch", reason="the torch example needs PyTorch")

import mlacheck  # noqa: E402
import narrow_decode  # noqa: E402

pytest_plugins = ["pytester"]

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
SWEEP = 300


def backend_problems(plan):
    return [c.problem for c in plan if c.runs_backend]


def test_a_sweep_within_the_space_is_nearly_all_supported():
    problems = backend_problems(mlacheck.plan("properties", seed=3, size=SWEEP, space=narrow_decode.SPACE))
    accepted = sum(narrow_decode.flashinfer_like_refusal(p) is None for p in problems)
    assert len(problems) == SWEEP
    assert accepted >= 0.9 * SWEEP, f"{accepted} of {SWEEP} accepted"
    # Drawn first and refused afterwards, the same sweep is nearly all outside.
    unconstrained = backend_problems(mlacheck.plan("properties", seed=3, size=SWEEP))
    assert sum(narrow_decode.flashinfer_like_refusal(p) is None for p in unconstrained) < 0.1 * len(unconstrained)


def test_the_sweep_spreads_over_every_value_the_space_allows():
    problems = backend_problems(mlacheck.plan("properties", seed=4, size=SWEEP, space=narrow_decode.SPACE))
    assert {(p.kv_lora_rank, p.rope_dim) for p in problems} == {(512, 64), (512, 0)}
    assert {(p.q_dtype, p.kv_dtype, p.o_dtype) for p in problems} == narrow_decode._DTYPES
    heads = {p.heads for p in problems}
    assert min(heads) == 16 and max(heads) == 128 and len(heads) > 10, sorted(heads)
    assert {q for p in problems for q in p.q_lens} == set(range(1, 9))
    assert {1, 16, 64} <= {p.block_size for p in problems}


@pytest.mark.parametrize("device", DEVICES)
def test_run_draws_within_the_declared_space_and_passes(device, tmp_path, capsys):
    verdicts = mlacheck.run(
        mlacheck.plan("properties", seed=5, size=8), narrow_decode.NarrowDecode(device), tmp_path, progress=False
    )
    states = [v.state for v in verdicts]
    assert states and set(states) == {"PASSED"}, [(v.id, v.state, v.reason) for v in verdicts if v.state != "PASSED"]
    html = (tmp_path / "report.html").read_text()
    assert 'id="backend-space"' in html and "fp8_e4m3fnuz" in html and "heads &lt; 16" in html
    err = capsys.readouterr().err
    assert "the backend's space excludes: Lv 128, 256;" in err and "fp8 queries" in err


def test_without_the_declaration_the_same_sweep_is_mostly_skipped():
    class Undeclared(narrow_decode.NarrowDecode):
        space = None

    # A class defined here cannot reach a worker process: this one runs in the test's process.
    verdicts = mlacheck.run(mlacheck.plan("properties", seed=5, size=8), Undeclared("cpu"), progress=False,
                            isolation="none")
    skipped = sum(v.state == "SKIPPED" for v in verdicts)
    assert skipped >= 0.75 * len(verdicts), [v.state for v in verdicts]


def test_the_pytest_plugin_draws_within_the_space(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [HERE, os.environ.get("PYTHONPATH")])))
    result = pytester.runpytest_subprocess(
        "-p", "mlacheck.pytest_plugin", "-p", "no:cacheprovider", "-q",
        "--mlacheck-backend", "narrow_decode:NarrowDecode", "--mlacheck-plan", "properties", "--mlacheck-size", "8",
    )
    result.assert_outcomes(passed=8)
