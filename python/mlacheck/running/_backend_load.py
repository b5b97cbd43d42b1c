"""How a backend reaches a worker process: by a "module:attribute" spec the worker imports, or
as a pickle of an object the worker can import by its qualified name (a module-level function or
class, an instance of such a class). An object that cannot reach a worker is an error naming the
two ways out (a spec, or isolation="none"), never a silent run in this process."""

from __future__ import annotations

import importlib
import pickle


class BackendNotPortable(TypeError):
    """The backend cannot be sent to a worker process."""


def load_backend(spec: str):
    """The object `module:attribute` names; a class is instantiated with no arguments. Raises
    ValueError naming the spec and what is wrong."""
    target = resolve_backend(spec)
    return target() if isinstance(target, type) else target


def resolve_backend(spec: str):
    """What `module:attribute` names, imported but not instantiated (the pytest plugin checks a
    spec this way before its workers load it). Raises ValueError naming what is wrong."""
    load_backend_spec_shape(spec)
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(
            f"backend {spec!r}: cannot import {module_name!r}: {e}. Is its folder on sys.path "
            "(PYTHONPATH, or `python -m pytest` run from it)?"
        ) from e
    target = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ValueError(f"backend {spec!r}: {module_name} has no attribute {attribute!r}") from None
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
        raise ValueError(f"backend {spec!r}: expected MODULE:ATTRIBUTE, e.g. mykernels.mla:decode")


def rebuild_backend(kind: str, payload):
    """In the worker: the backend portable_backend described."""
    if kind == "spec":
        return load_backend(payload)
    return pickle.loads(payload)
