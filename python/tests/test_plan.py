"""Plans: the same case lists `mlacheck run` builds, by kind, seed and size; errors name the input."""

from __future__ import annotations

import pytest

import mlacheck
from conftest import BF16_MTP


def kinds(plan):
    counts = {}
    for case in plan:
        counts[case.kind] = counts.get(case.kind, 0) + 1
    return counts


def test_default_plan_is_what_mlacheck_run_runs():
    plan = mlacheck.plan("default")
    counts = kinds(plan)
    # oracle self-checks, scenarios, the default sweeps and 64 property cases
    assert counts["oracle_self_check"] == 7  # five model shapes and the two shaped fill profiles
    assert counts["mla_decode"] > 48 and counts["kv_gather"] > 12
    ids = [case.id for case in plan]
    assert len(set(ids)) == len(ids)
    assert ids[0].startswith("oracle-")
    assert any(i.startswith("scenario.") for i in ids)
    assert sum(1 for i in ids if i.startswith("sweep-")) == 64


def test_size_sets_the_property_sweep_and_seed_changes_it():
    small = mlacheck.plan("properties", size=5, seed=3)
    assert [c.id for c in small] == [f"sweep-{i}" for i in range(5)]
    again = mlacheck.plan("properties", size=5, seed=3)
    other = mlacheck.plan("properties", size=5, seed=4)
    assert [c.repro for c in small] == [c.repro for c in again]
    assert [c.repro for c in small] != [c.repro for c in other]
    assert len(mlacheck.plan("default", size=0)) == len(mlacheck.plan("default")) - 64


def test_scenarios_plan_holds_the_scenario_table_only():
    plan = mlacheck.plan("scenarios")
    assert len(plan) > 0
    assert all(case.id.startswith("scenario.") for case in plan)
    assert {"mla_decode", "kv_gather"} >= set(kinds(plan))


def test_missing_scenario_table_is_named(tmp_path):
    missing = tmp_path / "nope.csv"
    with pytest.raises(mlacheck.MlacheckError, match="nope.csv does not exist"):
        mlacheck.plan("scenarios", scenarios=str(missing))


def test_repro_plan_has_the_one_case():
    plan = mlacheck.plan(repro=BF16_MTP)
    assert len(plan) == 1
    case = plan[0]
    assert case.id == "bf16-mtp"
    assert case.kind == "mla_decode"
    # the canonical form of the same problem: parsing it again gives the same case
    assert mlacheck.plan(repro=case.repro)[0].repro == case.repro


def test_malformed_repro_names_the_key():
    with pytest.raises(mlacheck.MlacheckError, match="mlacheck_plan_open_repro: .*'heads'"):
        mlacheck.plan(repro="mla_decode:heads=x")
    with pytest.raises(mlacheck.MlacheckError, match="q=5.*exceeds kv_len=2"):
        mlacheck.plan(repro="mla_decode:kv=2;q=5")


def test_bad_arguments_are_refused_before_the_library():
    with pytest.raises(ValueError, match="plan kind 'everything'"):
        mlacheck.plan("everything")
    with pytest.raises(ValueError, match="not both"):
        mlacheck.plan("default", repro=BF16_MTP)
    with pytest.raises(ValueError, match="size -1"):
        mlacheck.plan("properties", size=-1)


def test_indexing_and_backend_cases():
    plan = mlacheck.plan("default", size=8)
    assert plan[-1].id == plan[len(plan) - 1].id
    with pytest.raises(IndexError):
        plan[len(plan)]
    backend_cases = list(plan.backend_cases())
    assert backend_cases and all(c.kind == "mla_decode" for c in backend_cases)


def test_kv_gather_cases_say_why_they_are_unsupported():
    gather = next(c for c in mlacheck.plan("default", size=0) if c.kind == "kv_gather")
    assert "mla_decode only" in gather.unsupported_reason
    with pytest.raises(mlacheck.MlacheckError, match="kv_gather case") as info:
        gather.problem
    assert info.value.status == 2  # MLACHECK_ERROR_WRONG_CASE


def test_a_cases_op_is_the_librarys_registry_name():
    # Each case's op comes from the library's registry (mlacheck_case_op, mlacheck_op_names), every
    # kind but the self-check is its op, and the marker lines (written before the library may
    # load) match the registry.
    from mlacheck.api import _capi, _markers

    ops = _capi.op_names()
    assert ops[:2] == ["mla_decode", "kv_gather"]
    cases = list(mlacheck.plan("default", size=0))
    assert {c.op for c in cases} <= set(ops)
    assert {"mla_decode", "kv_gather"} <= {c.op for c in cases}
    for c in cases:
        assert c.kind == ("oracle_self_check" if c.kind == "oracle_self_check" else c.op)
        assert c.repro.startswith(c.op + ":")
    assert any(c.kind == "oracle_self_check" and c.op == "mla_decode" for c in cases)
    assert list(_markers.MARKED_KINDS) == [*ops, "oracle_self_check"], "the marker lines miss an op of the registry"


def _built_tool():
    """The `mlacheck` tool of the build tree whose library this process loaded (build/cli/mlacheck
    beside build/api/libmlacheck_capi.so), or None."""
    import os
    from pathlib import Path

    library = os.environ.get("MLACHECK_CAPI")
    tool = None if library is None else Path(library).resolve().parents[1] / "cli" / "mlacheck"
    return tool if tool is not None and tool.is_file() else None


def test_the_smoke_tier_is_what_mlacheck_plan_lists():
    smoke = mlacheck.plan(tier="smoke")
    ids = [case.id for case in smoke]
    # smoke.plan: oracle self-checks, scenarios, the pairwise covering array, up to 64 light property
    # cases (a draw over the work budget 20 times is left out); no default sweep.
    assert len(set(ids)) == len(ids) and ids[0].startswith("oracle-")
    assert any(i.startswith("scenario.") for i in ids) and any(i.startswith("cover-") for i in ids)
    sweep = [int(i.removeprefix("sweep-")) for i in ids if i.startswith("sweep-")]
    assert 48 <= len(sweep) <= 64 and max(sweep) < 64
    assert not set(ids) & {case.id for case in mlacheck.plan("default") if case.id.startswith("model-")}
    assert smoke.kind == "tier" and smoke.spec.tier == "smoke"
    assert [c.repro for c in smoke.spec.open()] == [c.repro for c in smoke]
    tool = _built_tool()
    if tool is None:
        pytest.skip("no build/cli/mlacheck beside MLACHECK_CAPI's library to list the tier with")
    import subprocess

    listed = subprocess.run([str(tool), "plan", "--tier", "smoke"], check=True, capture_output=True, text=True)
    assert ids == [line.split(" ", 1)[0] for line in listed.stdout.splitlines() if not line.startswith(("cases:", "over "))]


def test_a_plan_file_opens_its_sources_and_reopens_from_another_folder(tmp_path, monkeypatch):
    (tmp_path / "cases.txt").write_text(f"# one curated case\n{BF16_MTP}\n")
    (tmp_path / "mine.plan").write_text("properties seed=5 size=3\nrepro-file path=cases.txt\n")
    monkeypatch.chdir(tmp_path)
    opened = mlacheck.plan(plan_file="mine.plan")
    assert opened.kind == "plan_file" and len(opened) == 4
    assert opened[0].id == "bf16-mtp"  # the repro file's case, then the property sweep
    assert [c.repro for c in opened][1:] == [c.repro for c in mlacheck.plan("properties", seed=5, size=3)]
    monkeypatch.chdir("/")
    assert [c.id for c in opened.spec.open()] == [c.id for c in opened]  # the spec holds an absolute path


def test_a_malformed_plan_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.plan"
    bad.write_text("# fine\nscenarios\nproperties size=many\n")
    with pytest.raises(mlacheck.MlacheckError, match=r"mlacheck_plan_open_file: .*bad\.plan:3: .*size"):
        mlacheck.plan(plan_file=bad)
    with pytest.raises(mlacheck.MlacheckError, match="no-such.plan"):
        mlacheck.plan(plan_file=tmp_path / "no-such.plan")
    with pytest.raises(mlacheck.MlacheckError, match="tier 'huge' is not one of smoke, pre-merge, nightly"):
        mlacheck.plan(tier="huge")
    with pytest.raises(ValueError, match="leave out kind, size"):
        mlacheck.plan("default", tier="smoke", size=3)
    with pytest.raises(ValueError, match="a tier or a plan file, not both"):
        mlacheck.plan(tier="smoke", plan_file=bad)


def test_a_tier_opens_within_a_space():
    space = mlacheck.Space(heads=range(16, 129), max_q_len=8)
    within = mlacheck.plan(tier="smoke").within(space)
    assert within.space == space and within.spec.tier == "smoke" and within.spec.space == space.text
    sweep = [case.problem for case in within if case.id.startswith("sweep-") and case.kind == "mla_decode"]
    assert sweep and all(16 <= p.heads <= 128 for p in sweep)
