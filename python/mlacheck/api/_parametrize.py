"""A repository's own test parametrized over mlacheck's cases:

    @mlacheck.parametrize(mlacheck.plan("scenarios"))
    def test_my_kernel(case):
        mlacheck.assert_passes(case, my_decode)

or `@pytest.mark.parametrize("case", mlacheck.cases(plan))`. Each parameter is the Case itself, with
the case id as its test id and the markers of _markers.py. Collecting opens each case (its id,
repro and problem: cheap); the inputs and the oracle are made when a test asks for them, and the
pytest plugin releases them after the test."""

from __future__ import annotations

from collections.abc import Iterable

from ._case import Case
from ._markers import marker_names
from ._plan import Plan


def cases(plan: Plan | Iterable[Case]) -> list:
    """pytest.param(case, id=case.id, marks=...) for each case a backend runs (mla_decode) of a Plan,
    or for each case of any other iterable of cases, in order."""
    import pytest  # only callers that parametrize tests need pytest

    selected = plan.backend_cases() if isinstance(plan, Plan) else plan
    params = []
    for case in selected:
        if not isinstance(case, Case):
            raise TypeError(f"mlacheck.cases() takes a Plan or mlacheck.Case objects, got a {type(case).__qualname__}")
        marks = [getattr(pytest.mark, name) for name in marker_names(case.kind, case.plan_kind)]
        params.append(pytest.param(case, id=case.id, marks=marks))
    return params


def parametrize(plan: Plan | Iterable[Case], argname: str = "case"):
    """pytest.mark.parametrize(argname, cases(plan)): the test runs once per case."""
    import pytest

    return pytest.mark.parametrize(argname, cases(plan))
