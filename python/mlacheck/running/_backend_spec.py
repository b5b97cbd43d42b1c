"""Loading a backend named `module:attribute` (pytest --mlacheck-backend, python -m mlacheck run
--backend), and the spec that names a loaded backend again (the repro lines of its verdicts)."""

from __future__ import annotations

import importlib
import sys


class BackendSpecError(ValueError):
    """A `module:attribute` that names no backend: what was asked and why it cannot be had."""


def load_backend(spec: str, path: str | None = None):
    """The object `module:attribute` names; a class is instantiated with no arguments. `path`
    goes first on sys.path before the import."""
    if path:
        sys.path.insert(0, path)
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise BackendSpecError(f"backend {spec!r}: expected MODULE:ATTRIBUTE, e.g. mykernels.mla:decode")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise BackendSpecError(
            f"backend {spec!r}: cannot import {module_name!r}: {e}. Is its folder on sys.path "
            "(PYTHONPATH, or run from it)?"
        ) from e
    target = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise BackendSpecError(f"backend {spec!r}: {module_name} has no attribute {attribute!r}") from None
    if isinstance(target, type):
        target = target()
    return target


def spec_of(backend) -> str:
    """The `module:attribute` load_backend would load `backend` again from: a function's own name,
    an object's class (instantiated with no arguments); "" when it has none an import can reach
    (defined in __main__ or inside a function)."""
    target = backend if callable(backend) and hasattr(backend, "__qualname__") else type(backend)
    module = getattr(target, "__module__", None)
    qualname = getattr(target, "__qualname__", "")
    if not module or module == "__main__" or "<" in qualname:
        return ""
    return f"{module}:{qualname}"
