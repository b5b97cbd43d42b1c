"""The data tables (the scenario table upstream.csv, the known-bug list known_bugs.csv) that a wheel
ships as package data, found with importlib.resources.

A copy of the package without package data (a build tree's, or one `cmake --install` put beside
its library) leaves finding them to the library, which looks beside itself and in its source tree
(plan/data_files.hpp). Either way a table that cannot be found is an error naming it: a plan never
quietly loses its scenarios.
"""

from __future__ import annotations

from importlib import resources

from ._capi import MlacheckError


def packaged_table(name: str) -> str | None:
    """The path of table `name` in this copy's package data, or None when this copy ships none
    (the library then finds the table). A wheel that lacks the table is damaged: MlacheckError."""
    try:
        from .. import _paths
    except ImportError:
        return None
    folder = getattr(_paths, "PACKAGE_DATA", None)
    if folder is None:
        return None
    path = resources.files("mlacheck").joinpath(folder, name)
    if not path.is_file():
        raise MlacheckError(
            f"this installed mlacheck is damaged: its package data {path} is missing; reinstall the wheel "
            "(or name a table with scenarios=...)"
        )
    return str(path)
