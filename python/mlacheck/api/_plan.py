"""Plans: the case lists `mlacheck run` runs (plan/run_plan.hpp through the C API)."""

from __future__ import annotations

import ctypes
import os
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

from . import _capi
from ._case import Case
from ._data import packaged_table
from ._space import Space, as_space


@dataclass(frozen=True)
class PlanSpec:
    """What mlacheck.plan() was given: plain data that reopens the same plan in another process
    (a worker process of mlacheck.run or the pytest plugin). A parameter plan() takes is a field
    here, so it reaches the workers too."""

    kind: str | None = None
    repro: str | None = None
    seed: int = 1
    size: int | None = None
    scenarios: str | None = None
    known_bugs: str | None = None
    space: str | None = None  # the Space's text
    tier: str | None = None
    plan_file: str | None = None  # absolute, so a worker in another folder opens the same file

    def open(self) -> "Plan":
        return plan(self.kind, repro=self.repro, seed=self.seed, size=self.size, scenarios=self.scenarios,
                    known_bugs=self.known_bugs, space=self.space, tier=self.tier, plan_file=self.plan_file)


class Plan:
    """An ordered list of cases. Indexing and iteration open each case afresh (its inputs and
    oracle are made on demand and freed with it), so iterating a large plan holds one case at a
    time. `kind` is the plan's kind ("default", "scenarios", "properties"), "repro" for the one
    case of a repro string, "tier" or "plan_file" for a plan file's; `space` the Space its property sweep was drawn within (None: the full
    sweep)."""

    def __init__(self, pointer: int, kind: str, description: str, reopen: dict | None = None,
                 space: Space | None = None):
        self._pointer = pointer
        self._finalizer = weakref.finalize(self, _capi.lib().mlacheck_plan_free, pointer)
        count = ctypes.c_int64()
        _capi.call("mlacheck_plan_size", pointer, ctypes.byref(count))
        self._size = count.value
        self.kind = kind
        self.description = description
        self.spec: PlanSpec | None = None  # set by plan(): how a worker process reopens this plan
        self.space = space
        self._reopen = reopen  # plan()'s arguments, to open the same plan within a space

    def within(self, space: Space | None) -> Plan:
        """This plan with its property sweep drawn within `space`: a default, properties, tier or plan-file plan
        opened without a space is opened again with it (its default sweep and scenarios are as
        before); a plan that has a space already, or no property sweep (scenarios, repro), is
        returned as it is."""
        if space is None or self.space is not None or self._reopen is None:
            return self
        if self.kind in ("tier", "plan_file"):
            return plan(space=space, **self._reopen)
        if self.kind not in ("default", "properties"):
            return self
        return plan(self.kind, space=space, **self._reopen)

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: int) -> Case:
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError(f"case index {index} is outside the plan's {self._size} cases")
        return Case(self, index)

    def __iter__(self) -> Iterator[Case]:
        for i in range(self._size):
            yield self[i]

    def backend_cases(self) -> Iterator[Case]:
        """The cases a backend under test runs (mla_decode), skipping kv_gather cases and the
        oracle self-checks."""
        return (case for case in self if case.runs_backend)

    def __repr__(self) -> str:
        return f"mlacheck.Plan({self.description}, {self._size} cases)"


def _with_known_bugs(pointer: int, known_bugs: str | None) -> int:
    """Sets the known-bug table the plan's verdicts are settled with: the packaged one for None,
    none for "", else that file (a FAILED or ERRORED verdict an entry matches is KNOWN_BUG)."""
    table = packaged_table("known_bugs.csv") if known_bugs is None else known_bugs
    if table is None:
        return pointer  # no package data here: the plan keeps the table the library found
    try:
        _capi.call("mlacheck_plan_set_known_bugs", pointer, _capi.cstr(table))
    except BaseException:
        _capi.lib().mlacheck_plan_free(pointer)
        raise
    return pointer


def plan(kind: str | None = None, *, repro: str | None = None, seed: int = 1, size: int | None = None,
         scenarios: str | None = None, known_bugs: str | None = None, space: Space | str | None = None,
         tier: str | None = None, plan_file: str | os.PathLike | None = None) -> Plan:
    """A plan of cases.

    kind "default": what `mlacheck run` runs (oracle self-checks, every scenario, the default
    sweep, a property sweep of `size` cases, 64 by default); "scenarios": the scenario table
    (scenarios/upstream.csv, or the file `scenarios` names); "properties": `size` cases (64 by
    default) drawn from the property generators. `seed` seeds the generated cases.
    repro="mla_decode:...": the one case of a repro string (kind must then be left out).
    known_bugs: the known-bug table verdicts are settled with (scenarios/README.md), the packaged
    scenarios/known_bugs.csv by default, "" for none: a FAILED or ERRORED verdict an entry matches
    is KNOWN_BUG, as under `mlacheck run`.
    space: a mlacheck.Space (or its text): the property sweep is drawn within it (every case
    inside it, no kv_gather cases); the default sweep and scenarios are unchanged.
    tier="smoke" (or "pre-merge", "nightly"): the cases of that tier's plan file, as `mlacheck run
    --tier`; plan_file="x.plan": the cases of a plan file (plan/plan_file.hpp), as `mlacheck run
    --plan`. Either takes known_bugs and space, and neither kind, repro, seed, size nor scenarios
    (the file says those). A malformed plan file is MlacheckError naming file:line.
    """
    if tier is not None or plan_file is not None:
        plan_file = None if plan_file is None else os.path.abspath(os.fspath(plan_file))
        opened = _open_plan_file(tier, plan_file, kind=kind, repro=repro, seed=seed, size=size, scenarios=scenarios,
                                 known_bugs=known_bugs, space=space)
    else:
        opened = _open(kind, repro=repro, seed=seed, size=size, scenarios=scenarios, known_bugs=known_bugs,
                       space=space)
    opened.spec = PlanSpec(kind, repro, seed, size, scenarios, known_bugs,
                           None if opened.space is None else opened.space.text, tier, plan_file)
    return opened


def _open_plan_file(tier, plan_file, *, kind, repro, seed, size, scenarios, known_bugs, space) -> Plan:
    if tier is not None and plan_file is not None:
        raise ValueError("give a tier or a plan file, not both")
    given = [name for name, value in (("kind", kind), ("repro", repro), ("size", size), ("scenarios", scenarios))
             if value is not None] + (["seed"] if seed != 1 else [])
    if given:
        raise ValueError(f"a {'tier' if tier is not None else 'plan file'} names its own cases: leave out "
                         + ", ".join(given))
    space = as_space(space, "plan(space=)")
    space_text = _capi.cstr(None if space is None else space.text)
    pointer = ctypes.c_void_p()
    if tier is not None:
        _capi.call("mlacheck_plan_open_tier", _capi.cstr(tier), space_text, ctypes.byref(pointer))
        kind, description, reopen = "tier", f"tier {tier}", {"tier": tier, "known_bugs": known_bugs}
    else:
        _capi.call("mlacheck_plan_open_file", _capi.cstr(plan_file), space_text, ctypes.byref(pointer))
        kind, description, reopen = "plan_file", f"plan file {plan_file}", {"plan_file": plan_file,
                                                                           "known_bugs": known_bugs}
    if space is not None:
        description += ", within a space"
    return Plan(_with_known_bugs(pointer.value, known_bugs), kind, description, reopen, space)


def _open(kind, *, repro, seed, size, scenarios, known_bugs, space) -> Plan:
    if repro is not None:
        if kind is not None:
            raise ValueError("give a plan kind or a repro string, not both")
        pointer = ctypes.c_void_p()
        _capi.call("mlacheck_plan_open_repro", _capi.cstr(repro), ctypes.byref(pointer))
        if space is not None:
            raise ValueError("a repro string's plan has no property sweep to draw within a space")
        return Plan(_with_known_bugs(pointer.value, known_bugs), "repro", f"repro {repro}")
    space = as_space(space, "plan(space=)")
    reopen = {"seed": seed, "size": size, "scenarios": scenarios, "known_bugs": known_bugs}
    kind = "default" if kind is None else kind
    if kind not in _capi.PLAN_KINDS:
        raise ValueError(f"plan kind {kind!r} is not one of {', '.join(_capi.PLAN_KINDS)}")
    if size is not None and size < 0:
        raise ValueError(f"size {size} must be >= 0")
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed {seed} must be in [0, 2^64)")
    if scenarios is None and kind in ("default", "scenarios"):
        scenarios = packaged_table("upstream.csv")
    pointer = ctypes.c_void_p()
    _capi.call(
        "mlacheck_plan_open_space",
        _capi.PLAN_KINDS[kind],
        seed,
        -1 if size is None else size,
        _capi.cstr(scenarios),
        _capi.cstr(None if space is None else space.text),
        ctypes.byref(pointer),
    )
    detail = f"seed={seed}" + ("" if size is None else f", size={size}") + ("" if space is None else ", within a space")
    return Plan(_with_known_bugs(pointer.value, known_bugs), kind, f"{kind} ({detail})", reopen, space)
