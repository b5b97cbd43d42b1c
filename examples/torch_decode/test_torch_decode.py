"""Tests of the torch example: it passes mlacheck's cases in both backend shapes (on CUDA too when
torch sees a GPU), the R4 rows with their pools past 4 GiB included; its deliberately wrong twin
FAILS naming tensor O, through the Python API and through the pytest plugin, and a failing case of
it shrinks to one request; its seeded 32-bit-offset twin FAILS the R4 rows while passing cases of
smaller pools; and the decode sequences (R5 rows, the default sequence sweep) pass in every backend
shape while a plan kept from step 0 fails at step 1. The graph-mode tests (`-k graph`) need CUDA: on
the CPU they skip, saying so."""

from __future__ import annotations

import functools
import os
import re
import sys

import pytest

torch = pytest.importorskip("torch", reason="the torch example needs PyTorch")

import graph_mla_decode  # noqa: E402
import mlacheck  # noqa: E402
import torch_mla_decode  # noqa: E402
import wrapped_offset_decode  # noqa: E402
import wrong_decode  # noqa: E402

pytest_plugins = ["pytester"]

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
# The scenario rows of UPSTREAM R4: every row read lies past 4 GiB of cache pool.
R4_PREFIX = "scenario.r4_"
R4_ROWS = ("r4_dsv3_past_4gib_split", "r4_dsv3_past_4gib_persistent", "r4_kimi_k2_page_ids_1m_fp8")


def r4_cases():
    cases = [c for c in mlacheck.plan("scenarios") if c.id.startswith(R4_PREFIX)]
    assert sorted(c.id for c in cases) == sorted("scenario." + row for row in R4_ROWS)
    return cases


def past_4gib_property_cases():
    """The property sweep's draws whose every row read lies past 4 GiB of pool (1% of its draws:
    two of seed 1's first 200; a canonical repro names first_block only when it is not 0)."""
    cases = [c for c in mlacheck.plan("properties", size=200, seed=1) if "first_block=" in c.repro]
    assert len(cases) == 2 and all(c.inputs().kv_cache.nbytes >= 2**32 for c in cases)
    return cases


POOLS_PAST_4GIB = {"r4_scenarios": r4_cases, "property_cases": past_4gib_property_cases}


# The typed skip reason of a row the machine lacks the memory for: not checked here, never passed.
NOT_CHECKED_HERE = "not_enough_memory"


def host_fits_smallest_pool(cases) -> bool:
    """Whether half of the host's MemAvailable (the share a case may use) holds the smallest of
    the cases' pools now."""
    smallest = min(c.inputs().kv_cache.nbytes for c in cases)
    with open("/proc/meminfo", encoding="ascii") as meminfo:
        available = next(int(line.split()[1]) * 1024 for line in meminfo if line.startswith("MemAvailable:"))
    return smallest <= available // 2


def failures(verdicts):
    return "\n".join(v.describe() for v in verdicts if v.is_failure)


@pytest.mark.parametrize("device", DEVICES)
def test_both_backend_shapes_pass_a_property_sweep(device):
    plan = mlacheck.plan("properties", size=16, seed=11)

    decode = functools.partial(torch_mla_decode.decode, device=device)  # a worker imports it by name
    for backend in (decode, torch_mla_decode.TorchMlaBackend(device)):
        verdicts = mlacheck.run(plan, backend)
        assert not failures(verdicts), failures(verdicts)
        assert sum(v.state == "PASSED" for v in verdicts) >= 12


def checked_here(verdicts, device):
    """The verdicts of cases with pools past 4 GiB that ran. On CUDA every one must have; on the CPU
    a case is SKIPPED only as not checked on this machine, and when none ran the test is skipped,
    saying so (callers first make sure the host's share holds a pool)."""
    ran = [v for v in verdicts if v.state != "SKIPPED"]
    for v in verdicts:
        if v.state == "SKIPPED":
            assert device == "cpu" and v.skip_reason == NOT_CHECKED_HERE, v.describe()
    if not ran:
        pytest.skip(f"no pool past 4 GiB fits this host's memory now: {verdicts[0].reason}")
    return ran


@pytest.mark.parametrize("device", DEVICES)
def test_the_scenarios_pass_and_staged_outputs_are_checked(device):
    host_fits_a_pool = host_fits_smallest_pool(r4_cases())
    verdicts = mlacheck.run(mlacheck.plan("scenarios"), torch_mla_decode.TorchMlaBackend(device))
    assert not failures(verdicts), failures(verdicts)
    offered = [v for v in verdicts if v.op == "mla_decode"]
    # Every row passes, the decode sequences (R5) and the pools past 4 GiB included, except an R4
    # pool this machine lacks the memory for (CPU only).
    unchecked = [v for v in offered if v.state == "SKIPPED"]
    assert all(v.id.startswith(R4_PREFIX) and v.skip_reason == NOT_CHECKED_HERE for v in unchecked)
    decoded = [v for v in offered if v not in unchecked]
    assert decoded and all(v.state == "PASSED" and v.canaries == "ok" for v in decoded)
    r4 = [v for v in verdicts if v.id.startswith(R4_PREFIX)]
    assert len(r4) == len(R4_ROWS)
    if device == "cuda" or host_fits_a_pool:
        assert checked_here(r4, device)
    if device == "cuda":
        assert all(v.device == torch.cuda.get_device_name() for v in decoded)


def test_the_wrong_decode_fails_naming_o_through_the_api():
    verdicts = mlacheck.run(mlacheck.plan("scenarios"), wrong_decode.decode)
    failed = [v for v in verdicts if v.state == "FAILED"]
    assert failed, "ignoring the block table must fail some scenario"
    # a decode sequence's row names its first failing step first
    assert all(re.sub(r"^step \d+ of \d+: ", "", v.reason).startswith("O: ") for v in failed), failures(verdicts)
    # wrong values, or NaN read from cache slots no request owns
    assert all(v.tensors["O"].mismatches + v.tensors["O"].nonfinite > 0 for v in failed)


@pytest.mark.parametrize("device", DEVICES)
def test_the_wrong_decode_fails_every_r5_sequence_on_every_device(device):
    """wrong_decode binds an expanded (zero-stride) table to its torch view's block_table. On CUDA the
    harness once copied the next step's table into that view and the whole run ended (issue 34): the
    sequences must be rows FAILED on O, none ERRORED."""
    verdicts = mlacheck.run(r5_cases(), functools.partial(wrong_decode.decode, device=device))
    assert len(verdicts) == 2 and all(v.state == "FAILED" for v in verdicts), [v.describe() for v in verdicts]
    assert all(re.sub(r"^step \d+ of \d+: ", "", v.reason).startswith("O: ") for v in verdicts), failures(verdicts)


def test_the_wrong_decode_fails_naming_o_through_the_pytest_plugin(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    result = pytester.runpytest_subprocess(
        "-p", "mlacheck.pytest_plugin", "-p", "no:cacheprovider",
        "--mlacheck-backend", "wrong_decode:decode", "--mlacheck-plan", "scenarios",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes()["failed"] >= 1
    # The first repro line replays the case with the wheel's own runner, from this interpreter.
    result.stdout.fnmatch_lines(
        ["*FAILED scenario.*: O: * of *", f"*repro: {sys.executable} -m mlacheck run --backend wrong_decode:decode --case *"]
    )


def test_the_wrong_decode_shrinks_a_failing_property_case_to_one_request():
    plan = mlacheck.plan("properties", size=16, seed=5)
    case = next(c for c in plan if c.runs_backend and mlacheck.check(c, wrong_decode.decode).state == "FAILED")
    result = mlacheck.shrink(case, wrong_decode.decode)
    assert result.failing and result.stop == "minimal", result.describe()
    assert mlacheck.plan(repro=result.shrunk)[0].problem.batch == 1, result.describe()
    assert result.shrunk_verdict.state == "FAILED" and result.shrunk_verdict.reason.startswith("O: ")
    assert mlacheck.check(mlacheck.plan(repro=result.shrunk)[0], wrong_decode.decode).state == "FAILED"
    assert result.verdict.repro == case.repro and result.verdict.shrunk_repro == result.shrunk
    assert mlacheck.shrink(case, wrong_decode.decode).shrunk == result.shrunk  # deterministic


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("source", sorted(POOLS_PAST_4GIB))
def test_the_32bit_offset_wrong_decode_fails_pools_past_4gib_the_right_one_passes(device, source):
    cases = POOLS_PAST_4GIB[source]()
    host_fits_a_pool = host_fits_smallest_pool(cases)

    # partials of module functions: a worker process imports them by name (isolation, the default)
    right = functools.partial(torch_mla_decode.decode, device=device)
    wrapped = functools.partial(wrapped_offset_decode.decode, device=device)

    passed = mlacheck.run(cases, right)
    if device == "cpu" and not host_fits_a_pool:
        pytest.skip(f"no pool of {source} fits this host's memory: {passed[0].reason}")
    ran = checked_here(passed, device)
    assert all(v.state == "PASSED" for v in ran), failures(passed)
    failed = mlacheck.run(cases, wrapped)
    caught = checked_here(failed, device)
    assert [v.id for v in caught] == [v.id for v in ran]
    for v in caught:
        assert v.state == "FAILED" and v.reason.startswith("O: "), v.describe()
        o = v.tensors["O"]
        assert o.nonfinite + o.unwritten > 0, v.describe()  # the wrapped rows read the poison below first_block


def test_the_32bit_offset_wrong_decode_is_right_below_4gib():
    # The seeded defect only shows past 4 GiB: cases of smaller pools pass.
    verdicts = mlacheck.run(mlacheck.plan("properties", size=12, seed=5), wrapped_offset_decode.decode)
    assert not failures(verdicts), failures(verdicts)
    assert sum(v.state == "PASSED" for v in verdicts) >= 9


# ---- decode sequences (UPSTREAM R5) --------------------------------------------------------------


def sequence_cases():
    """The R5 scenario rows and the default plan's sequence sweep: every curated decode sequence it
    holds. The covering array's sequences are left to the plan's runs: three of them stage a cache
    pool past 4 GiB every step, minutes per backend shape on the CPU."""
    cases = [
        c for c in mlacheck.plan("default", size=0)
        if c.kind == "mla_decode" and "steps=" in c.repro and not c.id.startswith("cover-")
    ]
    assert sum(c.id.startswith("scenario.r5_") for c in cases) == 2 and len(cases) > 2
    return cases


def r5_cases():
    return [c for c in mlacheck.plan("scenarios") if c.id.startswith("scenario.r5_")]


def steps_of(case) -> int:
    return int(re.search(r";steps=(\d+)", case.repro).group(1))


@pytest.mark.parametrize("device", DEVICES)
def test_decode_sequences_pass_in_every_backend_shape(device):
    cases = sequence_cases()

    decode = functools.partial(torch_mla_decode.decode, device=device)
    shapes = (decode, torch_mla_decode.TorchMlaBackend(device), graph_mla_decode.GraphMlaBackend(device),
              graph_mla_decode.HostPlanBackend(device))
    for backend in shapes:
        verdicts = mlacheck.run(cases, backend)
        assert all(v.state == "PASSED" for v in verdicts), failures(verdicts) or [v.describe() for v in verdicts]
        assert [len(v.steps) for v in verdicts] == [steps_of(c) for c in cases]


@pytest.mark.parametrize("device", DEVICES)
def test_a_plan_kept_from_step_0_fails_the_r5_rows_at_step_1(device):
    verdicts = mlacheck.run(r5_cases(), graph_mla_decode.StalePlanBackend(device))
    for v in verdicts:
        assert v.state == "FAILED" and v.reason.startswith("step 1 of "), v.describe()
        assert [s.state for s in v.steps][0] == "PASSED"


# Graph mode: step 0 captured in a CUDA graph and replayed for the later steps (a GPU with CUDA
# torch; `pytest examples/torch_decode/test_torch_decode.py -k graph`).
needs_cuda_graphs = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="graph mode captures CUDA graphs: torch sees no CUDA device here"
)


def test_graph_mode_without_cuda_is_a_skipped_row_saying_so():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the graph tests below run graph mode itself")
    [v] = mlacheck.run(r5_cases()[:1], graph_mla_decode.GraphMlaBackend("cpu"), graph=True)
    assert v.state == "SKIPPED" and v.reason.startswith("graph mode needs"), v.describe()


@needs_cuda_graphs
def test_graph_mode_the_correct_backend_passes_every_sequence():
    verdicts = mlacheck.run(sequence_cases(), graph_mla_decode.GraphMlaBackend("cuda"), graph=True)
    assert all(v.state == "PASSED" for v in verdicts), [v.describe() for v in verdicts]
    assert all(v.device == torch.cuda.get_device_name() for v in verdicts)


@needs_cuda_graphs
@pytest.mark.parametrize("backend", ["StalePlanBackend", "HostPlanBackend"])
def test_graph_mode_catches_a_plan_that_goes_stale_at_replay(backend):
    # StalePlanBackend keeps step 0's plan in any mode; HostPlanBackend is right eagerly (above) and
    # goes stale only under replay: its planning step ran at capture and never again.
    verdicts = mlacheck.run(r5_cases(), getattr(graph_mla_decode, backend)("cuda"), graph=True)
    assert len(verdicts) == 2
    for v in verdicts:
        assert v.state == "FAILED" and v.reason.startswith("step 1 of "), v.describe()


@needs_cuda_graphs
def test_graph_mode_names_a_backend_that_cannot_be_captured():
    # torch_mla_decode reads kv_lens on the host (.tolist()): a synchronisation capture refuses.
    [v] = mlacheck.run(r5_cases()[:1], torch_mla_decode.TorchMlaBackend("cuda"), graph=True)
    assert v.state == "ERRORED", v.describe()
    assert v.reason.startswith("step 0 of 8: graph mode: step 0 could not be captured in a CUDA graph"), v.reason


@needs_cuda_graphs
def test_graph_mode_through_the_pytest_plugin(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    for backend, outcome in (("GraphMlaBackend", "passed"), ("StalePlanBackend", "failed")):
        result = pytester.runpytest_subprocess(
            "-p", "mlacheck.pytest_plugin", "-p", "no:cacheprovider", "--mlacheck-graph",
            "--mlacheck-backend", f"graph_mla_decode:{backend}", "--mlacheck-plan", "scenarios", "-k", "r5_",
        )
        # one item per sequence
        assert result.parseoutcomes().get(outcome) == 2, result.stdout.str()
    result.stdout.fnmatch_lines(["*FAILED scenario.r5_*: step 1 of *", f"*repro: {sys.executable} -m pytest * --mlacheck-graph*"])
