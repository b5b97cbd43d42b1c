"""Declared support spaces (core/support_space.hpp through the C API): the part of the MLA decode
problem space a backend takes. A backend declares one as its `space` attribute; mlacheck.run and
the pytest plugin then draw the property sweep within it (docs/python.md), so a narrow kernel is
tested on cases it runs instead of refusing most of what was drawn. supports() stays the final
word on what a space cannot express."""

from __future__ import annotations

import ctypes
from collections.abc import Iterable

from . import _capi

_DTYPES = ("f32", "bf16", "f16", "fp8_e4m3fn", "fp8_e4m3fnuz")


def _ints(name: str, values: Iterable[int]) -> list[int]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"Space {name}: {v!r} is not an int")
        out.append(v)
    if not out:
        raise ValueError(f"Space {name}: empty (leave it out, None, to allow every value)")
    return out


def _heads_text(heads) -> str:
    if isinstance(heads, range):
        if heads.step != 1 or len(heads) == 0:
            raise ValueError(f"Space heads: {heads!r} must be a non-empty range of step 1")
        return f"{heads.start}..{heads.stop - 1}"
    if isinstance(heads, int) and not isinstance(heads, bool):
        return str(heads)
    return ",".join(str(h) for h in sorted(set(_ints("heads", heads))))


def _dtype(name: str) -> str:
    if name not in _DTYPES:
        raise ValueError(f"Space dtypes: {name!r} is no dtype ({', '.join(_DTYPES)})")
    return name


class Space:
    """A support space. Every argument left at None allows every value of that field.

    lv_rope: (Lv, rope) pairs, e.g. [(512, 64), (512, 0)].
    dtypes: (q, cache, O) dtype names, e.g. [("bf16", "bf16", "bf16"), ("bf16", "fp8_e4m3fn",
        "bf16")]; fp8 queries are a combination whose q is fp8 ("fp8_e4m3fn", "fp8_e4m3fn", "bf16").
    heads: the rank's head counts: a range (range(16, 129)) or a collection of counts ({16, 128}).
    block_sizes: cache block sizes; max_q_len: the longest query per request.
    q_over_kv: whether requests with q_len > kv_len (padded requests, kv_len 0) are supported.
    max_pool_bytes: the largest cache pool. sequences: decode sequences. graph: graph replay
    (mlacheck.run(graph=True) refuses a backend whose space says False).

    `text` is the canonical text the C library takes; `excludes` lists what of the property
    sweep's problem space the space leaves out (the run's summary and report.html show it).
    Space.parse(text) reads canonical text back. Malformed values raise ValueError naming the
    field."""

    def __init__(
        self,
        *,
        lv_rope: Iterable[tuple[int, int]] | None = None,
        dtypes: Iterable[tuple[str, str, str]] | None = None,
        heads: range | Iterable[int] | int | None = None,
        block_sizes: Iterable[int] | None = None,
        max_q_len: int | None = None,
        q_over_kv: bool = True,
        max_pool_bytes: int | None = None,
        sequences: bool = True,
        graph: bool = True,
    ):
        parts = []
        if lv_rope is not None:
            pairs = [tuple(p) for p in lv_rope]
            if not pairs or any(len(p) != 2 for p in pairs):
                raise ValueError(f"Space lv_rope: {pairs!r} must be a non-empty list of (Lv, rope) pairs")
            parts.append("lv_rope=" + ",".join(f"{lv}/{rope}" for lv, rope in (_ints("lv_rope", p) for p in pairs)))
        if dtypes is not None:
            combos = [tuple(c) for c in dtypes]
            if not combos or any(len(c) != 3 for c in combos):
                raise ValueError(f"Space dtypes: {combos!r} must be a non-empty list of (q, cache, O) names")
            parts.append("dtypes=" + ",".join("/".join(_dtype(d) for d in c) for c in combos))
        if heads is not None:
            parts.append("heads=" + _heads_text(heads))
        if block_sizes is not None:
            parts.append("bs=" + ",".join(str(b) for b in _ints("block_sizes", block_sizes)))
        if max_q_len is not None:
            parts.append(f"max_q={_ints('max_q_len', [max_q_len])[0]}")
        if max_pool_bytes is not None:
            parts.append(f"max_pool={_ints('max_pool_bytes', [max_pool_bytes])[0]}")
        for name, flag in (("q_over_kv", q_over_kv), ("sequences", sequences), ("graph", graph)):
            if not isinstance(flag, bool):
                raise TypeError(f"Space {name}: {flag!r} is not a bool")
            parts.append(f"{name}={int(flag)}")
        self._set_text("space:" + ";".join(parts))

    def _set_text(self, text: str) -> None:
        canonical = ctypes.c_char_p()
        excludes = ctypes.c_char_p()
        try:
            _capi.call("mlacheck_space_describe", _capi.cstr(text), ctypes.byref(canonical), ctypes.byref(excludes))
        except _capi.MlacheckError as e:
            raise ValueError(str(e)) from None
        self.text: str = _capi.text(canonical.value)
        excluded = _capi.text(excludes.value)
        self.excludes: list[str] = excluded.split("; ") if excluded else []
        fields = dict(item.split("=", 1) for item in self.text.removeprefix("space:").split(";"))
        self.sequences = fields["sequences"] == "1"
        self.graph = fields["graph"] == "1"

    @classmethod
    def parse(cls, text: str) -> Space:
        """The space of canonical text (as `text` writes it, or a plugin declares it)."""
        space = cls.__new__(cls)
        space._set_text(text)
        return space

    def __eq__(self, other) -> bool:
        return isinstance(other, Space) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"mlacheck.Space.parse({self.text!r})"


def as_space(value, where: str) -> Space | None:
    """A Space, canonical text or None, as a Space (or None); anything else is a TypeError naming
    `where`."""
    if value is None or isinstance(value, Space):
        return value
    if isinstance(value, str):
        return Space.parse(value)
    raise TypeError(f"{where}: {value!r} is no mlacheck.Space (nor its text)")


def declared_space(backend) -> Space | None:
    """The space a backend declares: its `space` attribute (an object's, a class's or a callable's),
    None when it declares none."""
    return as_space(getattr(backend, "space", None), f"{getattr(backend, '__name__', type(backend).__name__)}.space")
