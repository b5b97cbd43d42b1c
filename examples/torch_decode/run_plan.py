"""Runs the PyTorch MLA decode of torch_mla_decode.py over an mlacheck plan through the Python API
and writes a report folder. Exit status 1 when any case FAILED or ERRORED.

    python run_plan.py [--plan default|scenarios|properties] [--size N] [--seed S]
                       [--case REPRO] [--device cpu|cuda|cuda:1] [--backend decode|object|stateful]
                       [--graph] [--report DIR]
"""

from __future__ import annotations

import argparse
import collections
import functools
import sys
import time

import graph_mla_decode
import mlacheck
import torch_mla_decode


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", default="default", choices=("default", "scenarios", "properties"))
    parser.add_argument("--size", type=int, default=None, help="property sweep cases (default 64)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--case", default=None, help="one repro string instead of a plan")
    parser.add_argument("--plan-file", default=None, help="a plan file (plan/plan_file.hpp) instead of --plan")
    parser.add_argument("--device", default=None, help="torch device (default $MLACHECK_TORCH_DEVICE, cuda, cpu)")
    parser.add_argument(
        "--backend",
        default="decode",
        choices=("decode", "object", "stateful"),
        help="decode: the callable that allocates its outputs; object: writes into staged outputs; "
        "stateful: graph_mla_decode.GraphMlaBackend (begin(sequence) / step, capturable in a CUDA graph)",
    )
    parser.add_argument(
        "--graph", action="store_true", help="decode sequences in graph mode (CUDA; use --backend stateful)"
    )
    parser.add_argument("--report", default=None, help="folder for report.csv, junit.xml, report.html")
    parser.add_argument("--force", action="store_true", help="replace the report the --report folder holds")
    args = parser.parse_args(argv)

    device = args.device or torch_mla_decode.default_device()
    if args.backend == "object":
        backend = torch_mla_decode.TorchMlaBackend(device)
    elif args.backend == "stateful":
        backend = graph_mla_decode.GraphMlaBackend(device)
    else:
        backend = functools.partial(torch_mla_decode.decode, device=device)  # a worker imports it by name
        backend.name = torch_mla_decode.decode.name
        backend.version = torch_mla_decode.decode.version
    if args.case:
        plan = mlacheck.plan(repro=args.case)
    elif args.plan_file:
        plan = mlacheck.plan(plan_file=args.plan_file)
    else:
        plan = mlacheck.plan(args.plan, seed=args.seed, size=args.size)

    states = collections.Counter()
    start = time.perf_counter()

    def show(verdict):
        states[verdict.state] += 1
        if verdict.is_failure:
            print(verdict.describe(), flush=True)

    print(f"{plan}: {torch_mla_decode.decode.name} on {device}", flush=True)
    mlacheck.run(plan, backend, report_dir=args.report, force=args.force, on_verdict=show, graph=args.graph)
    seconds = time.perf_counter() - start
    summary = ", ".join(f"{count} {state}" for state, count in sorted(states.items()))
    print(f"{sum(states.values())} cases in {seconds:.1f} s: {summary}")
    return 1 if states["FAILED"] or states["ERRORED"] else 0


if __name__ == "__main__":
    sys.exit(main())
