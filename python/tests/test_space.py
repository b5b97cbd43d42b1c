"""Declared support spaces (mlacheck.Space, issue 34): canonical text, errors naming the field,
plan(space=) drawing every property case inside the space while the default sweep and scenarios
stay as they are, Plan.within, the e4m3fn twins of the default plan's fnuz cases, and a backend's
`space` attribute picked up by mlacheck.run (object and callable) with report.html naming what the
space excludes."""

from __future__ import annotations

import pytest

import mlacheck
import numpy_backend

NARROW = mlacheck.Space(
    lv_rope=[(64, 16)],
    dtypes=[("bf16", "bf16", "bf16"), ("bf16", "fp8_e4m3fn", "f16")],
    heads={4, 16},
    block_sizes=[4, 16],
    max_q_len=2,
    q_over_kv=False,
    sequences=False,
)


def inside(problem) -> bool:
    return (
        (problem.kv_lora_rank, problem.rope_dim) == (64, 16)
        and (problem.q_dtype, problem.kv_dtype, problem.o_dtype) in {("bf16", "bf16", "bf16"), ("bf16", "fp8_e4m3fn", "f16")}
        and problem.heads in (4, 16)
        and problem.block_size in (4, 16)
        and problem.max_q_len <= 2
        and all(q <= kv for q, kv in zip(problem.q_lens, problem.kv_lens))
    )


def test_text_round_trips_and_names_what_is_excluded():
    assert NARROW.text == (
        "space:lv_rope=64/16;dtypes=bf16/bf16/bf16,bf16/fp8_e4m3fn/f16;heads=4,16;bs=4,16;max_q=2;q_over_kv=0;"
        "max_pool=*;sequences=0;graph=1"
    )
    assert mlacheck.Space.parse(NARROW.text) == NARROW
    assert "fp8 queries" in NARROW.excludes and "fp8_e4m3fnuz" in NARROW.excludes
    assert "heads other than 4, 16" in NARROW.excludes and "decode sequences" in NARROW.excludes
    assert mlacheck.Space().excludes == []
    assert mlacheck.Space(heads=range(16, 129)).text.startswith("space:lv_rope=*;dtypes=*;heads=16..128;")


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"dtypes": [("bf16", "bf16", "fp8_e4m3fn")]}, "'dtypes'"),
        ({"dtypes": [("bf16", "bf17", "bf16")]}, "dtypes"),
        ({"heads": range(64, 16)}, "heads"),
        ({"heads": [0, 16]}, "'heads'"),
        ({"block_sizes": []}, "block_sizes"),
        ({"max_q_len": -1}, "'max_q'"),
        ({"lv_rope": [(512,)]}, "lv_rope"),
    ],
)
def test_errors_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        mlacheck.Space(**kwargs)


def test_parse_errors_name_the_key():
    with pytest.raises(ValueError, match="unknown key 'colour'"):
        mlacheck.Space.parse("colour=red")
    with pytest.raises(TypeError, match="plan\\(space=\\)"):
        mlacheck.plan("properties", space=42)
    with pytest.raises(ValueError, match="no property sweep"):
        mlacheck.plan(repro="mla_decode:name=x", space=NARROW)


def test_every_property_case_lies_inside_the_space():
    plan = mlacheck.plan("properties", seed=2, size=60, space=NARROW)
    assert plan.space == NARROW and len(plan) == 60
    assert all(case.runs_backend for case in plan)  # no kv_gather cases within a space
    assert all(inside(case.problem) for case in plan)
    # And the sweep spreads over what the space allows.
    problems = [case.problem for case in plan]
    assert {(p.q_dtype, p.kv_dtype, p.o_dtype) for p in problems} == {("bf16", "bf16", "bf16"), ("bf16", "fp8_e4m3fn", "f16")}
    assert {p.heads for p in problems} == {4, 16} and {p.block_size for p in problems} == {4, 16}
    # The same text opens the same plan.
    assert [c.repro for c in mlacheck.plan("properties", seed=2, size=60, space=NARROW.text)] == [c.repro for c in plan]


def test_the_default_sweep_and_scenarios_stay_as_they_are():
    plain = mlacheck.plan("default", size=8)
    spaced = mlacheck.plan("default", size=8, space=NARROW)
    curated = lambda plan: [c.repro for c in plan if not c.id.startswith("sweep-")]  # noqa: E731
    assert curated(spaced) == curated(plain)
    assert [c.repro for c in mlacheck.plan("scenarios")] == [c.repro for c in mlacheck.plan("scenarios")]
    assert all(inside(c.problem) for c in spaced if c.id.startswith("sweep-"))


def test_within_reopens_a_plan_opened_without_a_space():
    plan = mlacheck.plan("properties", seed=4, size=10)
    within = plan.within(NARROW)
    assert within.space == NARROW and all(inside(c.problem) for c in within)
    assert within.within(mlacheck.Space()) is within  # a space already: kept
    scenarios = mlacheck.plan("scenarios")
    assert scenarios.within(NARROW) is scenarios


def test_each_fnuz_case_of_the_default_sweep_has_its_e4m3fn_twin():
    cases = {c.id: c.problem for c in mlacheck.plan("default", size=0) if c.runs_backend}
    # The default sweeps' and the scenario rows' fnuz cases; the covering array (cover-N) holds
    # e4m3fn as a value of its own dtype factors, so its fnuz rows have no twins.
    fnuz = [i for i, p in cases.items() if "fp8_e4m3fnuz" in (p.kv_dtype, p.q_dtype) and not i.startswith("cover-")]
    assert fnuz and sum(i.startswith("scenario.") for i in fnuz) >= 2
    for case_id in fnuz:
        twin = cases[case_id + "-fn"]
        original = cases[case_id]
        assert twin.kv_dtype == "fp8_e4m3fn" and "fp8_e4m3fnuz" not in (twin.q_dtype, twin.kv_dtype)
        assert (twin.kv_lens, twin.q_lens, twin.heads, twin.kv_scale) == (
            original.kv_lens, original.q_lens, original.heads, original.kv_scale)


def test_run_picks_up_a_callables_space_and_reports_what_it_excludes(tmp_path, capsys):
    def decode(inputs):
        return numpy_backend.decode(inputs)

    decode.space = NARROW
    decode.supports = lambda problem: None if inside(problem) else "outside the narrow space"
    # A function defined in this test cannot reach a worker process: it runs in this one.
    verdicts = mlacheck.run(mlacheck.plan("properties", seed=6, size=6), decode, tmp_path, progress=False,
                            isolation="none")
    assert [v.state for v in verdicts] == ["PASSED"] * 6
    html = (tmp_path / "report.html").read_text()
    assert 'id="backend-space"' in html and "heads other than 4, 16" in html
    assert "the backend's space excludes: Lv 128, 256, 512;" in capsys.readouterr().err


def test_a_space_without_graph_refuses_graph_mode():
    class NoGraph:
        space = mlacheck.Space(graph=False)

        def __call__(self, inputs):
            return numpy_backend.decode(inputs)

    with pytest.raises(ValueError, match="no graph replay"):
        mlacheck.run(mlacheck.plan("properties", size=1), NoGraph(), progress=False, graph=True)


def test_a_space_that_is_no_space_is_refused_naming_the_backend():
    def decode(inputs):
        return numpy_backend.decode(inputs)

    decode.space = {"heads": 16}
    with pytest.raises(TypeError, match="decode.space"):
        mlacheck.run(mlacheck.plan("properties", size=1), decode, progress=False)
