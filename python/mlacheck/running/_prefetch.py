"""Cases prepared ahead of the backend: their inputs made and encoded and their oracle run on
threads of the harness library (mlacheck_prefetch_*, include/mlacheck/harness_api.h) while Python
runs the backend on the case before, as `mlacheck run --lookahead` prepares cases ahead of the
GPU. ctypes releases the GIL for the length of every C call, so those threads run while Python
does."""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Iterable, Iterator

from ..api import _capi
from ..api._case import Case, _CaseHandle

# None: the library's default, one case per host thread from 4 to 32, as `mlacheck run --lookahead`.
DEFAULT_LOOKAHEAD = None


class Prefetch:
    """Cases `indices` of `plan`, prepared in that order, at most `lookahead` of them waiting.
    close() (or dropping it) cancels: nothing further starts, the preparations under way finish."""

    def __init__(self, plan, indices: Iterable[int], lookahead: int | None = DEFAULT_LOOKAHEAD, threads: int = 0):
        if lookahead is not None and lookahead < 1:
            raise ValueError(f"lookahead {lookahead} must be >= 1 (0 prepares each case when the backend asks)")
        indices = list(indices)
        index_array = (ctypes.c_int64 * len(indices))(*indices)
        pointer = ctypes.c_void_p()
        _capi.call(
            "mlacheck_prefetch_open",
            plan._pointer,  # noqa: SLF001 - the plan's C handle
            index_array,
            len(indices),
            0 if lookahead is None else lookahead,  # 0: the library's default
            threads,
            ctypes.byref(pointer),
        )
        self._pointer = pointer.value
        self._finalizer = weakref.finalize(self, _capi.lib().mlacheck_prefetch_free, self._pointer)

    def next(self) -> tuple[_CaseHandle, str | None]:
        """The next case's handle, once prepared, and what its preparation raised (None if
        nothing). Raises MlacheckError when even opening the case failed."""
        pointer = ctypes.c_void_p()
        error = ctypes.c_char_p()
        _capi.call("mlacheck_prefetch_next", self._pointer, ctypes.byref(pointer), ctypes.byref(error))
        message = _capi.text(error.value)
        if pointer.value is None:
            raise _capi.MlacheckError(f"opening a prefetched case failed: {message}")
        return _CaseHandle.adopt(pointer.value), message

    def close(self) -> None:
        self._finalizer()


def prepared_cases(plan, lookahead: int | None) -> Iterator[tuple[Case, str | None]]:
    """The cases of `plan` (a Plan or any iterable of cases) in order, each with what its
    preparation raised (None if nothing). With lookahead 0 nothing is prepared ahead: each case
    makes its inputs and oracle when the backend asks. Cases of several plans get a Prefetch per
    plan (each holds up to `lookahead` prepared cases)."""
    from ..api._plan import Plan  # _plan imports _case, as this module does

    if lookahead == 0:
        for case in plan:
            yield case, None
        return
    if isinstance(plan, Plan):
        # Cases made from the prepared handles: each is opened once, on a harness thread.
        ahead = Prefetch(plan, range(len(plan)), lookahead)
        try:
            for i in range(len(plan)):
                handle, error = ahead.next()
                yield Case(plan, i, handle), error
        finally:
            ahead.close()
        return
    cases = list(plan)
    by_plan: dict[int, tuple[object, list[int]]] = {}
    for case in cases:
        by_plan.setdefault(id(case._plan), (case._plan, []))[1].append(case._index)  # noqa: SLF001
    prefetches = {key: Prefetch(p, indices, lookahead) for key, (p, indices) in by_plan.items()}
    try:
        for case in cases:
            handle, error = prefetches[id(case._plan)].next()  # noqa: SLF001
            case._adopt(handle)  # noqa: SLF001 - the prepared handle replaces the one it opened
            yield case, error
    finally:
        for ahead in prefetches.values():
            ahead.close()
