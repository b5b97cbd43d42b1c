"""The runner's prefetch (inputs and oracle made on the harness's threads ahead of the backend):
the same verdicts in the same order as without it, an error of one case's preparation on that
case's row, and a prefetch closed early neither hangs nor crashes."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import threading

import pytest

import mlacheck
import numpy_backend
from conftest import BF16_MTP, FP8_CACHE
from conftest import run_in_process
from mlacheck.running._prefetch import Prefetch

# 14M cached tokens of 576 channels: a host cache of 32 GB of floats, past the 16 GiB of address
# space the process that runs it allows itself, so making its inputs fails (out of memory) on any
# machine.
TOO_LARGE = (
    "mla_decode:name=too-large;heads=16;tp=1;rank=0;lv=512;rope=64;kv=14000000;q=1;bs=64;"
    "q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=1"
)
ADDRESS_SPACE = 16 << 30
TIMES = ("reference_ms", "device_ms", "wall_ms")


def rows(verdicts):
    """What a verdict says of its case, without what varies from run to run: the times, and the
    free memory a pool too large for this machine is measured against."""
    return [
        {k: re.sub(r"\d+ MiB are free", "N MiB are free", v) for k, v in verdict.columns.items() if k not in TIMES}
        for verdict in verdicts
    ]


def test_prefetching_gives_the_verdicts_of_no_prefetch_in_the_same_order():
    plan = mlacheck.plan("properties", size=8, seed=4)
    alone = run_in_process(plan, numpy_backend.decode, lookahead=0, progress=False)
    ahead = run_in_process(plan, numpy_backend.decode, lookahead=3, progress=False)
    assert [v.id for v in ahead] == [v.id for v in alone]
    assert rows(ahead) == rows(alone)
    assert {v.state for v in alone} >= {"PASSED", "SKIPPED"}  # judged cases and a pool too large here


def test_prefetching_a_list_of_cases_of_several_plans_keeps_their_order():
    generated = mlacheck.plan("properties", size=3, seed=9)
    cases = [mlacheck.plan(repro=FP8_CACHE)[0], *generated, mlacheck.plan(repro=BF16_MTP)[0]]
    alone = run_in_process(cases, numpy_backend.decode, lookahead=0, progress=False)
    ahead = run_in_process(cases, numpy_backend.decode, lookahead=2, progress=False)
    assert [v.id for v in ahead] == [c.id for c in cases]
    assert rows(ahead) == rows(alone)


RUN_WITH_LITTLE_MEMORY = """
import json, resource, sys
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (min(ADDRESS_SPACE, soft if soft >= 0 else ADDRESS_SPACE), hard))
import mlacheck, numpy_backend
cases = [mlacheck.plan(repro=r)[0] for r in REPROS]
verdicts = mlacheck.run(cases, numpy_backend.decode, lookahead=LOOKAHEAD, progress=False, isolation="none")
print(json.dumps([[v.id, v.state, v.reason, v.is_failure] for v in verdicts]))
"""


@pytest.mark.parametrize("lookahead", [0, 2])
def test_a_case_whose_preparation_fails_reports_it_on_its_own_row(lookahead):
    script = (
        RUN_WITH_LITTLE_MEMORY.replace("ADDRESS_SPACE", str(ADDRESS_SPACE))
        .replace("REPROS", repr([BF16_MTP, TOO_LARGE, FP8_CACHE]))
        .replace("LOOKAHEAD", str(lookahead))
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    first, broken, last = json.loads(done.stdout)
    assert first[:2] == ["bf16-mtp", "PASSED"] and last[:2] == ["fp8-cache", "PASSED"], (first, last)
    assert broken == [
        "too-large",
        "ERRORED",
        "making the case's inputs failed: mlacheck_case_inputs: out of memory",
        True,
    ]


def test_a_prefetch_closed_mid_way_neither_hangs_nor_crashes():
    plan = mlacheck.plan("properties", size=24, seed=5)
    ahead = Prefetch(plan, range(len(plan)), lookahead=4)
    handle, error = ahead.next()
    assert error is None
    case = mlacheck.Case(plan, 0, handle)
    done = threading.Event()

    def close():
        ahead.close()  # cases under preparation finish, the rest never start
        done.set()

    closer = threading.Thread(target=close)
    closer.start()
    closer.join(timeout=120)
    assert done.is_set(), "closing the prefetch hung"
    # The case taken before the close is the caller's, whole.
    assert mlacheck.check(case, numpy_backend.decode).state in ("PASSED", "SKIPPED")
    ahead.close()  # twice is harmless


def test_a_prefetch_outlives_its_plan_and_a_run_cut_short_closes_it():
    plan = mlacheck.plan("properties", size=6, seed=6)
    ahead = Prefetch(plan, [5, 1], lookahead=2)
    ids = [plan[5].id, plan[1].id]
    del plan
    gc.collect()  # the plan is freed; the prefetch copied its entries
    assert [mlacheck.Case(None, 0, ahead.next()[0]).id for _ in range(2)] == ids
    with pytest.raises(mlacheck.MlacheckError, match="all 2 cases of the prefetch were taken"):
        ahead.next()

    seen = []

    def stop_after_two(verdict):
        seen.append(verdict)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_in_process(mlacheck.plan("properties", size=16, seed=7), numpy_backend.decode, on_verdict=stop_after_two)
    assert len(seen) == 2


def test_lookahead_must_be_a_count():
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="lookahead"):
            run_in_process(mlacheck.plan(repro=BF16_MTP), numpy_backend.decode, lookahead=bad)
