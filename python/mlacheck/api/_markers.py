"""The pytest markers mlacheck's cases carry, so a suite selects them like any other tests:
`mlacheck` on every case, one per op (`mlacheck_mla_decode`) and one per plan kind
(`mlacheck_plan_scenarios`). `-m "not mlacheck"` leaves them all out."""

from __future__ import annotations

from . import _capi

MARKER = "mlacheck"
_PLAN_KINDS = (*_capi.PLAN_KINDS, "repro", "tier", "plan_file")


def op_marker(op: str) -> str:
    return f"{MARKER}_{op}"


def plan_marker(plan_kind: str) -> str:
    return f"{MARKER}_plan_{plan_kind}"


def marker_names(op: str, plan_kind: str) -> list[str]:
    """The markers of a case of `op` from a plan of `plan_kind`."""
    return [MARKER, op_marker(op), plan_marker(plan_kind)]


# A case is marked by its kind: its op, or the oracle self-check. The lines are written when pytest
# configures, where the plugin must not load the library (a suite without cases never does), so
# the ops are listed here; python/tests/test_plan.py fails when they differ from the library's
# registry (_capi.op_names()).
MARKED_KINDS = ("mla_decode", "kv_gather", "oracle_self_check")


def marker_definitions() -> list[str]:
    """Lines for the ini "markers" setting, so --strict-markers accepts every marker a case carries."""
    lines = [f"{MARKER}: an mlacheck case (an item of --mlacheck-backend, or a test parametrized over mlacheck's cases)"]
    lines += [f"{op_marker(kind)}: an mlacheck case of op {kind}" for kind in MARKED_KINDS]
    lines += [f"{plan_marker(kind)}: an mlacheck case of the {kind} plan" for kind in _PLAN_KINDS]
    return lines
