"""The pytest command lines that replay one case, printed with a failure beside the repro line
of the verdict: the same backend, or the same repository test, on that case alone. Each line
starts with this interpreter (`sys.executable -m pytest`, the venv's pytest) and names every path
absolutely, so it runs the same from any folder. Each word is quoted for a POSIX shell."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from ..api._plan import plan as open_plan

PLUGIN_MODULE = "mlacheck.pytest_plugin"
NODE_PREFIX = "mlacheck::"  # the --mlacheck-backend items' node ids: mlacheck::<case id>


def _pytest_words() -> list[str]:
    return [sys.executable, "-m", "pytest"]


def _plugin_options(config: pytest.Config) -> list[str]:
    """`-p mlacheck.pytest_plugin` when this command line loaded the plugin (an entry point, ini
    addopts or PYTEST_ADDOPTS load it again by themselves)."""
    args = [str(a) for a in config.invocation_params.args]
    for i, arg in enumerate(args):
        if arg == f"-p{PLUGIN_MODULE}" or (arg == "-p" and args[i + 1 : i + 2] == [PLUGIN_MODULE]):
            return ["-p", PLUGIN_MODULE]
    return []


def _import_root(spec: str) -> str | None:
    """The sys.path folder the backend's module was imported from (None: a module without a
    file, e.g. a namespace package or a built-in)."""
    module_name = spec.partition(":")[0]
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    if not file:
        return None
    root = Path(file).resolve().parent
    levels = module_name.count(".") + (1 if Path(file).name == "__init__.py" else 0)
    for _ in range(levels):
        root = root.parent
    return str(root)


def backend_rerun(config: pytest.Config, repro: str) -> str:
    """Re-runs the --mlacheck-backend on the case of `repro` alone: --mlacheck-case makes the plan
    that one case and the argument mlacheck::<case id> selects its item without collecting any
    test file, so none of the suite's other tests runs."""
    options = config.option
    words = [*_pytest_words(), "-p", PLUGIN_MODULE, "--mlacheck-backend", options.mlacheck_backend]
    root = _import_root(options.mlacheck_backend)
    if root is not None:
        words += ["--mlacheck-backend-path", root]
    if options.mlacheck_known_bugs is not None:
        known_bugs = options.mlacheck_known_bugs
        words += ["--mlacheck-known-bugs", os.path.abspath(known_bugs) if known_bugs else ""]
    if getattr(options, "mlacheck_graph", False):
        words.append("--mlacheck-graph")
    words += ["--mlacheck-case", repro, NODE_PREFIX + open_plan(repro=repro)[0].id]
    return shlex.join(words)


def _test_path(item: pytest.Item) -> list[str]:
    """The item's node id, split at "::", its file as an absolute path (node ids are relative to
    the rootdir)."""
    parts = item.nodeid.split("::")
    parts[0] = str(Path(item.path).resolve())
    return parts


def fixture_test_rerun(item: pytest.Function, repro: str) -> str:
    """Re-runs a test taking the mlacheck_case fixture on the case of `repro` alone: the test's
    id without its parameters (--mlacheck-case makes the plan that one case)."""
    parts = _test_path(item)
    parts[-1] = item.originalname
    words = [*_pytest_words(), *_plugin_options(item.config), "::".join(parts), "--mlacheck-case", repro]
    return shlex.join(words)


def parametrized_test_rerun(item: pytest.Item) -> str:
    """Re-runs a test parametrized with mlacheck.cases(): its node id names the case."""
    return shlex.join([*_pytest_words(), *_plugin_options(item.config), "::".join(_test_path(item))])
