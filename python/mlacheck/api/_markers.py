"""The pytest markers mlacheck's cases carry, so a suite selects them like any other tests:
`mlacheck` on every case, one per op (`mlacheck_mla_decode`) and one per plan
(`mlacheck_plan_scenarios`). `-m "not mlacheck"` leaves them all out."""

from __future__ import annotations

from . import _capi

MARKER = "mlacheck"
_PLAN_KINDS = (*_capi.PLAN_KINDS, "repro")


def op_marker(op: str) -> str:
    return f"{MARKER}_{op}"


def plan_marker(plan_kind: str) -> str:
    return f"{MARKER}_plan_{plan_kind}"


def marker_names(op: str, plan_kind: str) -> list[str]:
    """The markers of a case of `op` from a plan of `plan_kind`."""
    return [MARKER, op_marker(op), plan_marker(plan_kind)]


def marker_definitions() -> list[str]:
    """Lines for the ini "markers" setting, so --strict-markers accepts every marker a case carries."""
    lines = [f"{MARKER}: an mlacheck case (an item of --mlacheck-backend, or a test parametrized over mlacheck's cases)"]
    lines += [f"{op_marker(op)}: an mlacheck case of op {op}" for op in _capi.op_names()]
    lines += [f"{plan_marker(kind)}: an mlacheck case of the {kind} plan" for kind in _PLAN_KINDS]
    return lines
