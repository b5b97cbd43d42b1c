"""The command line of `python -m mlacheck` (and the wheel's `mlacheck` script):

    python -m mlacheck run --backend MODULE:ATTR [--backend-path DIR]
        [--case REPRO | --plan default|scenarios|properties [--seed S] [--size N] [--scenarios FILE]]
        [--known-bugs FILE] [--out DIR [--force | --resume]] [--graph] [--no-progress]
    python -m mlacheck plan [--case REPRO | --plan ... ]

`run` exits 0 when no row is FAILED or ERRORED, 1 when one is, 2 on bad input (named)."""

from __future__ import annotations

import argparse
import sys

from ..api._capi import MlacheckError
from ..api._plan import plan as open_plan
from ..running._backend_load import BackendSpecError, resolve_backend
from ..running._runner import run


def _add_plan_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--case", metavar="REPRO", help="the one case of this repro string")
    parser.add_argument("--plan", choices=("default", "scenarios", "properties"), default="default",
                        help="the cases (default: default, what `mlacheck run` runs)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated cases (default 1)")
    parser.add_argument("--size", type=int, default=None, help="cases of the property sweep (default 64)")
    parser.add_argument("--scenarios", metavar="FILE", help="scenario table (default: mlacheck's own)")
    parser.add_argument("--known-bugs", metavar="FILE", help="known-bug table (default: mlacheck's own; '' for none)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m mlacheck", description="MLA decode correctness cases for a Python backend")
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="check a Python backend on a plan's cases")
    run_parser.add_argument("--backend", required=True, metavar="MODULE:ATTR", help="the backend under test")
    run_parser.add_argument("--backend-path", metavar="DIR", help="a folder put first on sys.path before the import")
    _add_plan_options(run_parser)
    run_parser.add_argument("--out", metavar="DIR", help="write report.csv, junit.xml and report.html here")
    run_parser.add_argument("--force", action="store_true", help="replace a report already in --out")
    run_parser.add_argument("--resume", action="store_true", help="run only the cases the report in --out lacks")
    run_parser.add_argument("--graph", action="store_true", help="decode sequences in graph mode (CUDA graphs)")
    run_parser.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    plan_parser = commands.add_parser("plan", help="list a plan's cases: id, kind, repro")
    _add_plan_options(plan_parser)
    return parser


def _open(args):
    if args.case:
        return open_plan(repro=args.case, known_bugs=args.known_bugs)
    return open_plan(args.plan, seed=args.seed, size=args.size, scenarios=args.scenarios, known_bugs=args.known_bugs)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        plan = _open(args)
        if args.command == "plan":
            for case in plan:
                print(f"{case.id}\t{case.kind}\t{case.repro}")
            return 0
        if args.force and args.resume:
            raise ValueError("--force replaces the report in --out and --resume adds to it: pass one")
        resolve_backend(args.backend, args.backend_path)  # a bad spec is exit 2 before any case runs
        # The spec itself goes to the worker processes, which import it there (its folder, put on
        # sys.path above, reaches them with this process's sys.path).
        verdicts = run(plan, args.backend, args.out, force=args.force, resume=args.resume, graph=args.graph,
                       progress=not args.no_progress)
    except (MlacheckError, BackendSpecError, ValueError, FileExistsError) as e:
        print(f"mlacheck: {e}", file=sys.stderr)
        return 2
    failures = [v for v in verdicts if v.is_failure]
    for verdict in failures:
        print(verdict.describe())
    counts: dict[str, int] = {}
    for verdict in verdicts:
        counts[verdict.state] = counts.get(verdict.state, 0) + 1
    print(f"{len(verdicts)} cases: " + ", ".join(f"{n} {state}" for state, n in sorted(counts.items())))
    if args.out:
        print(f"report: {args.out}/report.csv")
    return 1 if failures else 0
