#!/usr/bin/env python3
"""Python route cases/s against the CLI's on the same plan (issue 28 item 5; a benchmark, run by
hand, never a timed test; issue 35 item 2 for the plugin). Runs `mlacheck run`'s default plan
(oracle self-checks, scenarios, default sweep, `--property-cases` generated cases of `--seed`)
on each route:

  python, lookahead 0   mlacheck.run(plan, backend, lookahead=0, isolation="none"): inputs and
                        oracle made when the backend asks, on the Python thread
  python, lookahead N   the same with the next N cases prepared on the harness's threads
  python workers        mlacheck.run(plan, "MODULE:ATTR") as users run it: isolated, in worker
                        processes (one per visible GPU) that prepare their cases ahead
  pytest plugin         python -m pytest -p mlacheck.pytest_plugin --mlacheck-backend MODULE:ATTR
                        (isolated, the session's items' cases run ahead in the workers)
  cli                   mlacheck run --backend CLI_BACKEND --lookahead N

and prints each one's cases, seconds and cases/s, the prefetch's speed-up, the cost of isolation
(workers / in-process) and the Python routes' cases/s as a fraction of the CLI's (issue 28's and
issue 35's target: at least 0.5 for mlacheck.run and for the plugin). The C API's plan hands out
no decode sequences (docs/python.md), so the CLI's run has the default sequence sweep's cases more;
each figure is its own rows over its own wall time. docs/performance.md has the figures measured.

    /usr/bin/python3 bench/python_route_bench.py --build build \\
        [--backend MODULE:ATTR] [--cli-backend hip|PLUGIN.so] [--lookahead N] \\
        [--seed S] [--property-cases N] [--skip-cli] [--routes python0,python,workers,plugin,cli]

--backend defaults to the package tests' NumPy decode (python/tests/numpy_backend.py); on a GPU
host pass the Python kernel under test (e.g. torch_decode.backend:TorchMlaBackend with
examples/torch_decode on PYTHONPATH), and --cli-backend hip (the default is the CPU example plugin
of the build, which runs without a GPU). The module must be importable by the worker processes
and the pytest subprocess: its folder on PYTHONPATH.
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
        raise SystemExit(f"--backend {spec}: expected MODULE:ATTR")
    target = getattr(importlib.import_module(module_name), attribute)
    return target() if isinstance(target, type) else target


def summary(states) -> str:
    counts = collections.Counter(states)
    return ", ".join(f"{n} {state.lower()}" for state, n in sorted(counts.items()))


def cpu_seconds(who) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def python_route(mlacheck, backend, args, lookahead: int | None, isolation: str = "none"):
    plan = mlacheck.plan("default", seed=args.seed, size=args.property_cases)
    start = time.perf_counter()
    cpu = cpu_seconds(resource.RUSAGE_SELF) + cpu_seconds(resource.RUSAGE_CHILDREN)
    verdicts = mlacheck.run(plan, backend, lookahead=lookahead, progress=False, isolation=isolation)
    seconds = time.perf_counter() - start
    cpu = cpu_seconds(resource.RUSAGE_SELF) + cpu_seconds(resource.RUSAGE_CHILDREN) - cpu
    oracle = sum(v.reference_ms for v in verdicts) / 1e3
    return len(verdicts), seconds, cpu, oracle, summary(v.state for v in verdicts)


def rows_of(report_csv: Path):
    with open(report_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows, sum(float(row["reference_ms"] or 0) for row in rows) / 1e3


def plugin_route(args):
    """The pytest plugin as a kernel repository runs it: a session of the plan's backend items."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "mlacheck.pytest_plugin", "-p", "no:cacheprovider",
                   "--rootdir", folder, "--mlacheck-backend", args.backend, "--mlacheck-seed", str(args.seed),
                   "--mlacheck-size", str(args.property_cases), "--mlacheck-report", str(report)]
        start, cpu = time.perf_counter(), cpu_seconds(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              check=False)
        seconds = time.perf_counter() - start
        if done.returncode not in (0, 1):  # 1: a case failed, which still times the plan
            raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stdout[-2000:]}")
        rows, oracle = rows_of(report / "report.csv")
    return len(rows), seconds, cpu_seconds(resource.RUSAGE_CHILDREN) - cpu, oracle, summary(r["state"] for r in rows)


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
        rows, oracle = rows_of(Path(out) / "report.csv")
    return len(rows), seconds, cpu_seconds(resource.RUSAGE_CHILDREN) - cpu, oracle, summary(r["state"] for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the build folder (libmlacheck_capi.so, cli/mlacheck)")
    parser.add_argument("--backend", default="numpy_backend:decode",
                        help="the Python backend, MODULE:ATTR (a callable, an object, or a class made with no arguments)")
    parser.add_argument("--cli-backend", help="mlacheck run --backend (default: the build's CPU example plugin)")
    parser.add_argument("--lookahead", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--property-cases", type=int, default=64)
    parser.add_argument("--skip-cli", action="store_true")
    parser.add_argument("--routes", default="python0,python,workers,plugin,cli",
                        help="which routes to time, comma-separated (default: all)")
    args = parser.parse_args()
    routes = set(args.routes.split(","))
    if args.skip_cli:
        routes.discard("cli")

    build = Path(args.build).resolve()
    os.environ.setdefault("MLACHECK_CAPI", str(build / "api/libmlacheck_capi.so"))
    paths = [str(build / "python"), str(SOURCE / "python/tests")]
    sys.path[:0] = paths
    # The worker processes and the pytest subprocess find the package and the backend the same way.
    os.environ["PYTHONPATH"] = os.pathsep.join(paths + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    import mlacheck

    rows = {}
    if "python0" in routes:
        rows["python0"] = ("python, lookahead 0", *python_route(mlacheck, load_backend(args.backend), args, 0))
    if "python" in routes:
        rows["python"] = (f"python, lookahead {args.lookahead}",
                          *python_route(mlacheck, load_backend(args.backend), args, args.lookahead))
    if "workers" in routes:
        rows["workers"] = ("python workers", *python_route(mlacheck, args.backend, args, None, isolation="process"))
    if "plugin" in routes:
        rows["plugin"] = ("pytest plugin", *plugin_route(args))
    if "cli" in routes:
        rows["cli"] = (f"cli, lookahead {args.lookahead}", *cli_route(args))
    print(f"default plan, seed {args.seed}, {args.property_cases} property cases; os.cpu_count() {os.cpu_count()}, "
          f"load average at the end {os.getloadavg()[0]:.1f}")
    print(f"{'route':<24} {'cases':>6} {'wall s':>8} {'cpu s':>8} {'oracle s':>8} {'cases/s':>8}  verdicts")
    for name, cases, seconds, cpu, oracle, states in rows.values():
        print(f"{name:<24} {cases:>6} {seconds:>8.1f} {cpu:>8.1f} {oracle:>8.1f} {cases / seconds:>8.2f}  {states}")
    print("cpu s: the route's process CPU time, every thread (the CLI's: its supervisor and workers); oracle s: "
          "the rows' reference_ms summed")
    rate = {key: row[1] / row[2] for key, row in rows.items()}

    def ratio(what: str, a: str, b: str, target: str = "") -> None:
        if a in rate and b in rate:
            print(f"{what}: {rate[a] / rate[b]:.2f}{target}")

    ratio(f"prefetch speed-up (python lookahead {args.lookahead} / lookahead 0)", "python", "python0")
    ratio("isolation's cost (python workers / python in-process)", "workers", "python")
    ratio("python route / cli cases/s", "workers", "cli", " (target >= 0.5)")
    ratio("pytest plugin / cli cases/s", "plugin", "cli", " (target >= 0.5)")
    ratio("pytest plugin / python workers cases/s", "plugin", "workers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
