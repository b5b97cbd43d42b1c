#!/usr/bin/env python3
"""Python route cases/s against the CLI's on the same plan (issue 28 item 5; a benchmark, run by
hand, never a timed test). Runs `mlacheck run`'s default plan (oracle self-checks, scenarios,
default sweep, `--property-cases` generated cases of `--seed`) three times:

  python, lookahead 0   mlacheck.run(plan, backend, lookahead=0): inputs and oracle made when the
                        backend asks, on the Python thread
  python, lookahead N   the same with the next N cases prepared on the harness's threads
  cli                   mlacheck run --backend CLI_BACKEND --lookahead N

and prints each one's cases, seconds and cases/s, the prefetch's speed-up and the Python route's
cases/s as a fraction of the CLI's (issue 28's target: at least 0.5). The C API's plan hands out
no decode sequences (docs/python.md), so the CLI's run has the default sequence sweep's cases more;
each figure is its own rows over its own wall time. docs/performance.md has the figures measured.

    /usr/bin/python3 bench/python_route_bench.py --build build \\
        [--backend MODULE:CALLABLE] [--cli-backend hip|PLUGIN.so] [--lookahead N] \\
        [--seed S] [--property-cases N] [--skip-cli]

--backend defaults to the package tests' NumPy decode (python/tests/numpy_backend.py); on a GPU
host pass the Python kernel under test, and --cli-backend hip (the default is the CPU example
plugin of the build, which runs without a GPU).
"""

from __future__ import annotations

import argparse
import collections
import csv
import importlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent


def load_backend(spec: str):
    module_name, _, attribute = spec.partition(":")
    if not attribute:
        raise SystemExit(f"--backend {spec}: expected MODULE:CALLABLE")
    return getattr(importlib.import_module(module_name), attribute)


def summary(states) -> str:
    counts = collections.Counter(states)
    return ", ".join(f"{n} {state.lower()}" for state, n in sorted(counts.items()))


def cpu_seconds(who) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def python_route(mlacheck, backend, args, lookahead: int):
    plan = mlacheck.plan("default", seed=args.seed, size=args.property_cases)
    start, cpu = time.perf_counter(), cpu_seconds(resource.RUSAGE_SELF)
    verdicts = mlacheck.run(plan, backend, lookahead=lookahead, progress=False)
    seconds = time.perf_counter() - start
    oracle = sum(v.reference_ms for v in verdicts) / 1e3
    return len(verdicts), seconds, cpu_seconds(resource.RUSAGE_SELF) - cpu, oracle, summary(v.state for v in verdicts)


def cli_route(args):
    backend = args.cli_backend or str(Path(args.build) / "examples/cpu_plugin/libmlacheck_cpu_plugin.so")
    with tempfile.TemporaryDirectory() as out:
        command = [str(Path(args.build) / "cli/mlacheck"), "run", "--backend", backend, "--seed", str(args.seed),
                   "--property-cases", str(args.property_cases), "--lookahead", str(args.lookahead), "--out", out]
        start, cpu = time.perf_counter(), cpu_seconds(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        seconds = time.perf_counter() - start
        if done.returncode not in (0, 1):  # 1: a case failed, which still times the plan
            raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
        with open(Path(out) / "report.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    oracle = sum(float(row["reference_ms"] or 0) for row in rows) / 1e3
    return len(rows), seconds, cpu_seconds(resource.RUSAGE_CHILDREN) - cpu, oracle, summary(r["state"] for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the build folder (libmlacheck_capi.so, cli/mlacheck)")
    parser.add_argument("--backend", default="numpy_backend:decode", help="the Python backend, MODULE:CALLABLE")
    parser.add_argument("--cli-backend", help="mlacheck run --backend (default: the build's CPU example plugin)")
    parser.add_argument("--lookahead", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--property-cases", type=int, default=64)
    parser.add_argument("--skip-cli", action="store_true")
    args = parser.parse_args()

    build = Path(args.build).resolve()
    os.environ.setdefault("MLACHECK_CAPI", str(build / "api/libmlacheck_capi.so"))
    sys.path[:0] = [str(build / "python"), str(SOURCE / "python/tests")]
    import mlacheck

    backend = load_backend(args.backend)
    rows = [("python, lookahead 0", *python_route(mlacheck, backend, args, 0)),
            (f"python, lookahead {args.lookahead}", *python_route(mlacheck, backend, args, args.lookahead))]
    if not args.skip_cli:
        rows.append((f"cli, lookahead {args.lookahead}", *cli_route(args)))
    print(f"default plan, seed {args.seed}, {args.property_cases} property cases; os.cpu_count() {os.cpu_count()}, "
          f"load average at the end {os.getloadavg()[0]:.1f}")
    print(f"{'route':<24} {'cases':>6} {'wall s':>8} {'cpu s':>8} {'oracle s':>8} {'cases/s':>8}  verdicts")
    for name, cases, seconds, cpu, oracle, states in rows:
        print(f"{name:<24} {cases:>6} {seconds:>8.1f} {cpu:>8.1f} {oracle:>8.1f} {cases / seconds:>8.2f}  {states}")
    print("cpu s: the route's process CPU time, every thread (the CLI's: its supervisor and workers); oracle s: "
          "the rows' reference_ms summed")
    rate = [row[1] / row[2] for row in rows]
    print(f"prefetch speed-up (python lookahead {args.lookahead} / lookahead 0): {rate[1] / rate[0]:.2f}x")
    if len(rate) == 3:
        print(f"python route / cli cases/s: {rate[1] / rate[2]:.2f} (target >= 0.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
