"""The share of each plan a FlashInfer-like kernel supports (narrow_decode.py's supports()),
before and after issue 34: the property sweep drawn first and refused afterwards vs drawn within
the declared space, and the default plan without and with the e4m3fn twins of its fnuz cases.
Needs no GPU: only supports() runs.

    python examples/torch_decode/space_shares.py [--size 300] [--seed 1]
"""

from __future__ import annotations

import argparse

import mlacheck
from narrow_decode import SPACE, flashinfer_like_refusal


def supported(cases, refusal=flashinfer_like_refusal) -> tuple[int, int]:
    cases = [c for c in cases if c.runs_backend]
    return sum(refusal(c.problem) is None for c in cases), len(cases)


def fnuz_refusal(problem) -> str | None:
    """A CUDA kernel that takes every shape but has no e4m3fnuz (Triton, most NVIDIA kernels)."""
    return "no e4m3fnuz" if "fp8_e4m3fnuz" in (problem.q_dtype, problem.kv_dtype) else None


def line(name: str, counts: tuple[int, int]) -> str:
    ok, total = counts
    return f"{name:<38} {ok:>4} of {total:>4} backend cases supported ({100.0 * ok / max(total, 1):5.1f}%)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    default = list(mlacheck.plan("default", seed=args.seed, size=0))
    print(line("default, before (no -fn twins)", supported(c for c in default if not c.id.endswith("-fn"))))
    print(line("default, after (with -fn twins)", supported(default)))
    before = [c for c in default if not c.id.endswith("-fn")]
    print(line("default, e4m3fn-only kernel, before", supported(before, fnuz_refusal)))
    print(line("default, e4m3fn-only kernel, after", supported(default, fnuz_refusal)))
    print(line("scenarios", supported(mlacheck.plan("scenarios"))))
    print(line("properties, before (no space)", supported(mlacheck.plan("properties", seed=args.seed, size=args.size))))
    print(line("properties, after (within the space)",
               supported(mlacheck.plan("properties", seed=args.seed, size=args.size, space=SPACE))))
    print("the backend's space excludes: " + "; ".join(SPACE.excludes))


if __name__ == "__main__":
    main()
