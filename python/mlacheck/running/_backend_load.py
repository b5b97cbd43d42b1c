"""Loading a backend named `module:attribute` (pytest --mlacheck-backend, python -m mlacheck run
--backend, a worker process), the spec that names a loaded backend again (the repro lines of its
verdicts), and how a backend reaches a worker process: by a spec the worker imports, or as a
pickle of an object the worker can import by its qualified name (a module-level function or class,
an instance of such a class). An object that cannot reach a worker is an error naming the two ways
out (a spec, or isolation="none"), never a silent run in this process."""

from __future__ import annotations

import importlib
import pickle
import sys


class BackendNotPortable(TypeError):
    """The backend cannot be sent to a worker process."""


class BackendSpecError(ValueError):
    """A `module:attribute` that names no backend: what was asked and why it cannot be had."""


def load_backend(spec: str, path: str | None = None):
    """The object `module:attribute` names; a class is instantiated with no arguments. `path`
    goes first on sys.path before the import (worker processes get this process's sys.path).
    Raises BackendSpecError naming the spec and what is wrong."""
    target = resolve_backend(spec, path)
    return target() if isinstance(target, type) else target


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


def resolve_backend(spec: str, path: str | None = None):
    """What `module:attribute` names, imported but not instantiated (the pytest plugin checks a
    spec this way before its workers load it). Raises BackendSpecError naming what is wrong."""
    if path and path not in sys.path:
        sys.path.insert(0, path)
    load_backend_spec_shape(spec)
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise BackendSpecError(
            f"backend {spec!r}: cannot import {module_name!r}: {e}. Is its folder on sys.path "
            "(PYTHONPATH, or `python -m pytest` run from it)?"
        ) from e
    target = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise BackendSpecError(f"backend {spec!r}: {module_name} has no attribute {attribute!r}") from None
    return target


def portable_backend(backend) -> tuple[str, object]:
    """("spec", "module:attr") for a spec string, else ("pickle", bytes). Raises BackendNotPortable
    for an object a worker could not rebuild: a lambda, a closure, anything defined in __main__
    (a worker imports modules, not the parent's script) or anything pickle refuses."""
    if isinstance(backend, str):
        load_backend_spec_shape(backend)
        return "spec", backend
    owner = backend if isinstance(backend, type) or callable(backend) and hasattr(backend, "__qualname__") else type(backend)
    module = getattr(owner, "__module__", None)
    qualname = getattr(owner, "__qualname__", "")
    why = None
    if module == "__main__":
        why = f"{qualname} is defined in __main__, which a worker process does not import"
    elif "<lambda>" in qualname or "<locals>" in qualname:
        why = f"{qualname} is not importable by its qualified name"
    if why is None:
        try:
            return "pickle", pickle.dumps(backend)
        except Exception as e:  # noqa: BLE001 - pickle raises several types for one meaning
            why = f"pickling it failed: {type(e).__name__}: {e}"
    raise BackendNotPortable(
        f"the backend {backend!r} cannot reach a worker process ({why}). Pass a 'module:attribute' "
        "spec naming it (the worker imports it), move it to an importable module, or run in this "
        "process with isolation=\"none\" (no protection from crashes and hangs)."
    )


def load_backend_spec_shape(spec: str) -> None:
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise BackendSpecError(f"backend {spec!r}: expected MODULE:ATTRIBUTE, e.g. mykernels.mla:decode")


def rebuild_backend(kind: str, payload):
    """In the worker: the backend portable_backend described."""
    if kind == "spec":
        return load_backend(payload)
    return pickle.loads(payload)
