"""A kernel repository's own tests over mlacheck's cases: the mlacheck_case fixture, the parametrize
helpers, asserting verdicts, and the pytest line that re-runs a failing test on its case."""

from __future__ import annotations

import shlex
import sys

import pytest

import mlacheck
from conftest import BF16_MTP, repository_tests

PROPERTIES_8 = ("--mlacheck-plan", "properties", "--mlacheck-size", "8", "--mlacheck-seed", "8")
BACKEND_IDS = [f"sweep-{i}" for i in range(7)]  # the plan's eighth case is a kv_gather case


def collected(result) -> list[str]:
    return [line for line in result.outlines if "::" in line and not line.startswith(" ")]


def repro_lines(result) -> list[str]:
    return [line.split("repro: ", 1)[1] for line in result.outlines if "repro: " in line]


def test_the_fixture_runs_a_test_once_per_backend_case_of_the_chosen_plan(plugin_run):
    repository_tests(
        plugin_run.pytester,
        """
        import mlacheck
        import numpy_backend

        def test_decode(mlacheck_case):
            assert isinstance(mlacheck_case, mlacheck.Case) and mlacheck_case.kind == "mla_decode"
            mlacheck.assert_passes(mlacheck_case, numpy_backend.decode)
        """,
    )
    result = plugin_run(*PROPERTIES_8, "--collect-only", "-q")
    assert collected(result) == [f"test_repo.py::test_decode[{i}]" for i in BACKEND_IDS]
    plugin_run(*PROPERTIES_8, "--strict-markers").assert_outcomes(passed=7)
    # no --mlacheck-plan: the default plan's backend cases
    default_ids = [case.id for case in mlacheck.plan("default").backend_cases()]
    result = plugin_run("--collect-only", "-q")
    assert collected(result) == [f"test_repo.py::test_decode[{i}]" for i in default_ids]
    result = plugin_run("--mlacheck-case", BF16_MTP)
    result.assert_outcomes(passed=1)


def test_parametrize_helpers_give_case_ids_markers_and_cases(plugin_run):
    repository_tests(
        plugin_run.pytester,
        """
        import pytest
        import mlacheck
        import numpy_backend

        PLAN = mlacheck.plan("properties", size=8, seed=8)

        @mlacheck.parametrize(PLAN)
        def test_helper(case):
            mlacheck.check(case, numpy_backend.decode).assert_passed()

        @pytest.mark.parametrize("case", mlacheck.cases(mlacheck.plan("scenarios")))
        def test_scenario_ids(case):
            pass

        # Case objects without ids: pytest names them case0, case1, ... and that is safe too.
        @pytest.mark.parametrize("case", list(PLAN.backend_cases())[:2])
        def test_plain_list(case):
            assert case.id.startswith("sweep-")
        """,
    )
    scenario_ids = [case.id for case in mlacheck.plan("scenarios").backend_cases()]
    result = plugin_run("--strict-markers", "--collect-only", "-q")
    assert collected(result) == (
        [f"test_repo.py::test_helper[{i}]" for i in BACKEND_IDS]
        + [f"test_repo.py::test_scenario_ids[{i}]" for i in scenario_ids]
        + ["test_repo.py::test_plain_list[case0]", "test_repo.py::test_plain_list[case1]"]
    )
    result = plugin_run("--strict-markers", "-m", "mlacheck_plan_properties")
    result.assert_outcomes(passed=7, deselected=len(scenario_ids) + 2)
    result = plugin_run("--strict-markers", "-m", "mlacheck_plan_scenarios and mlacheck_mla_decode", "--collect-only",
                        "-q")
    assert len(collected(result)) == len(scenario_ids)
    result = plugin_run("--strict-markers", "-m", "not mlacheck")
    result.assert_outcomes(passed=2, deselected=7 + len(scenario_ids))  # the unmarked plain list


def test_collecting_cases_builds_no_inputs(monkeypatch):
    made = []
    monkeypatch.setattr(mlacheck.Case, "inputs", lambda case: made.append(case.id))
    monkeypatch.setattr(mlacheck.Case, "expected", lambda case: made.append(case.id))
    params = mlacheck.cases(mlacheck.plan("default"))
    assert len(params) == len(list(mlacheck.plan("default").backend_cases())) and not made
    assert params[0].id == params[0].values[0].id
    assert [m.name for m in params[0].marks] == ["mlacheck", "mlacheck_mla_decode", "mlacheck_plan_default"]


def test_a_case_is_released_after_its_test(plugin_run):
    repository_tests(
        plugin_run.pytester,
        """
        import mlacheck

        SEEN = {}

        @mlacheck.parametrize(mlacheck.plan("properties", size=3, seed=8))
        def test_a_uses_inputs(case):
            SEEN[case.id] = (case, case.inputs())

        def test_b_after():
            assert len(SEEN) == 3
            for case, inputs in SEEN.values():
                # released: the next need makes the inputs afresh, with the same codes
                again = case.inputs()
                assert again is not inputs
                assert (again.kv_cache.codes == inputs.kv_cache.codes).all()
        """,
    )
    plugin_run().assert_outcomes(passed=4)


def test_a_release_keeps_an_outcome_in_flight_valid(bf16_case):
    import numpy_backend

    o, lse = numpy_backend.decode(bf16_case.inputs())
    outcome = mlacheck.api._case.Outcome(bf16_case)  # noqa: SLF001 - the object judge() builds
    bf16_case.release()
    outcome.set_o(o)
    outcome.set_lse(lse, "natural")
    assert outcome.judge().state == "PASSED"


def test_verdict_assertions_pass_skip_and_fail(bf16_case):
    import numpy_backend

    assert mlacheck.assert_passes(bf16_case, numpy_backend.decode).state == "PASSED"

    def refuses(inputs):
        raise AssertionError("never called")

    refuses.supports = lambda problem: "not this shape"
    with pytest.raises(pytest.skip.Exception, match="^SKIPPED: not this shape$"):
        mlacheck.assert_passes(bf16_case, refuses)

    def wrong(inputs):
        o, lse = numpy_backend.attend(inputs)
        return numpy_backend.as_output(o * 2.0, inputs.problem.o_dtype), lse.astype("float32")

    verdict = mlacheck.check(bf16_case, wrong)
    with pytest.raises(AssertionError) as raised:
        verdict.assert_passed()
    assert isinstance(raised.value, mlacheck.VerdictFailure) and raised.value.verdict is verdict
    assert str(raised.value) == verdict.describe()
    assert str(raised.value).startswith("FAILED bf16-mtp: O: ")
    assert 'repro: mlacheck run --case "mla_decode:name=bf16-mtp;' in str(raised.value)


FAILING_TESTS = """
import mlacheck

PLAN = mlacheck.plan("properties", size=8, seed=8)

def test_fixture(mlacheck_case):
    mlacheck.assert_passes(mlacheck_case, backends.off_by_one)

@mlacheck.parametrize(PLAN)
def test_helper(case):
    mlacheck.assert_passes(case, backends.off_by_one)

@mlacheck.parametrize(PLAN)
def test_raises(case):
    raise RuntimeError("the kernel crashed on " + case.id)
"""


def test_a_failing_test_prints_the_pytest_line_that_reruns_it_on_its_case(plugin_run):
    repository_tests(plugin_run.pytester, FAILING_TESTS)
    repro = mlacheck.plan("properties", size=8, seed=8)[3].repro
    result = plugin_run(*PROPERTIES_8, "-k", "sweep-3")
    result.assert_outcomes(failed=3, deselected=18)
    lines = repro_lines(result)
    assert any(line.endswith(" --case " + shlex.quote(repro)) and " -m mlacheck run --backend " in line for line in lines)
    pytest_words = shlex.join([sys.executable, "-m", "pytest", "-p", "mlacheck.pytest_plugin"])
    test_file = str(plugin_run.pytester.path.resolve() / "test_repo.py")
    fixture_line = f"{pytest_words} {test_file}::test_fixture --mlacheck-case " + shlex.quote(repro)
    helper_line = f"{pytest_words} {shlex.quote(test_file + '::test_helper[sweep-3]')}"
    assert fixture_line in lines and helper_line in lines
    # A failure other than a verdict gets the line in a report section of its own.
    result.stdout.fnmatch_lines(["*mlacheck: re-run this test on its case*",
                                 f"{pytest_words} {shlex.quote(test_file + '::test_raises[sweep-3]')}"])
    # Each line runs that test on that case alone, and it fails again.
    for line in (fixture_line, helper_line):
        again = plugin_run.pytester.runpytest_subprocess(*shlex.split(line)[3:], "-p", "no:cacheprovider")
        again.assert_outcomes(failed=1)
        again.stdout.fnmatch_lines(["*FAILED sweep-3: O: *"])


def test_the_rerun_line_names_the_test_file_from_where_pytest_was_started(plugin_run):
    pytester = plugin_run.pytester
    tests = pytester.mkpydir("tests")
    (tests / "test_repo.py").write_text("import backends\n" + FAILING_TESTS)
    result = plugin_run(*PROPERTIES_8, "-k", "test_fixture and sweep-3", "tests")
    result.assert_outcomes(failed=1, deselected=20)
    test_file = str(pytester.path.resolve() / "tests" / "test_repo.py")
    assert any(line.startswith(shlex.join([sys.executable, "-m", "pytest", "-p", "mlacheck.pytest_plugin",
                                           f"{test_file}::test_fixture", "--mlacheck-case"]))
               for line in repro_lines(result))
