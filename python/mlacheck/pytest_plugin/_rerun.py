"""The pytest command lines that replay one case, printed with a failure beside
`mlacheck run --case "<repro>"` (which replays it on mlacheck's own backend): the same backend,
or the same repository test, on that case alone. Each word is quoted for a POSIX shell."""

from __future__ import annotations

import os
import shlex

import pytest

PLUGIN_MODULE = "mlacheck.pytest_plugin"


def _plugin_options(config: pytest.Config) -> list[str]:
    """`-p mlacheck.pytest_plugin` when this command line loaded the plugin (an entry point, ini
    addopts or PYTEST_ADDOPTS load it again by themselves)."""
    args = [str(a) for a in config.invocation_params.args]
    for i, arg in enumerate(args):
        if arg == f"-p{PLUGIN_MODULE}" or (arg == "-p" and args[i + 1 : i + 2] == [PLUGIN_MODULE]):
            return ["-p", PLUGIN_MODULE]
    return []


def _path_arguments(config: pytest.Config) -> list[str]:
    """The paths the command line named (their conftest files may set up the backend's imports);
    none when pytest chose them (testpaths, the current folder) or cannot say (pytest < 7.2)."""
    source = getattr(config, "args_source", None)
    if source is not None and source == pytest.Config.ArgsSource.ARGS:
        return list(config.args)
    return []


def backend_rerun(config: pytest.Config, repro: str) -> str:
    """Re-runs the --mlacheck-backend on the case of `repro`; -m mlacheck leaves the suite's other
    tests out."""
    words = ["pytest", *_plugin_options(config), *_path_arguments(config)]
    words += ["--mlacheck-backend", config.option.mlacheck_backend, "--mlacheck-case", repro, "-m", "mlacheck"]
    if getattr(config.option, "mlacheck_graph", False):
        words.append("--mlacheck-graph")
    return shlex.join(words)


def _test_path(item: pytest.Item) -> list[str]:
    """The item's node id, split at "::", its file relative to the folder pytest was started in
    (node ids are relative to the rootdir)."""
    parts = item.nodeid.split("::")
    parts[0] = os.path.relpath(item.path, item.config.invocation_params.dir)
    return parts


def fixture_test_rerun(item: pytest.Function, repro: str) -> str:
    """Re-runs a test taking the mlacheck_case fixture on the case of `repro` alone: the test's
    id without its parameters (--mlacheck-case makes the plan that one case)."""
    parts = _test_path(item)
    parts[-1] = item.originalname
    words = ["pytest", *_plugin_options(item.config), "::".join(parts), "--mlacheck-case", repro]
    return shlex.join(words)


def parametrized_test_rerun(item: pytest.Item) -> str:
    """Re-runs a test parametrized with mlacheck.cases(): its node id names the case."""
    return shlex.join(["pytest", *_plugin_options(item.config), "::".join(_test_path(item))])
