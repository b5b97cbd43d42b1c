"""Builds the mlacheck wheel: the Python package of python/mlacheck, with libmlacheck_capi.so built
by CMake and the data tables beside it (pyproject.toml holds the metadata).

The library is built without a GPU backend, tests or the command-line tool: the Python route runs
the caller's own kernels, and the C API needs only Eigen, rapidcheck and libfccp. MLACHECK_CMAKE_ARGS
adds CMake arguments (shell words); a library that cannot be built fails the wheel with CMake's
reason, never a wheel without it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

ROOT = Path(__file__).resolve().parent
# Shipped as package data in mlacheck/data/, from their source folders (the tiers' plan files lie
# beside the tables there, where plan/data_files.hpp looks for them).
TABLES = ("scenarios/upstream.csv", "scenarios/known_bugs.csv", "plan/production_factors.csv",
          "plan/impossible_combinations.csv", "plan/tiers/smoke.plan", "plan/tiers/pre-merge.plan",
          "plan/tiers/nightly.plan")


def cmake_project_version() -> str:
    """The version of `project(mlacheck VERSION x.y.z ...)` in CMakeLists.txt: one version for the
    CLI, the library, the CMake package and the wheel."""
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"^project\(mlacheck VERSION ([0-9]+\.[0-9]+\.[0-9]+)", text, re.MULTILINE)
    if match is None:
        raise SystemExit("setup.py: CMakeLists.txt has no `project(mlacheck VERSION x.y.z` line to take the version from")
    return match.group(1)


def run_step(what: str, command: list[str]) -> None:
    print(f"mlacheck wheel: {what}: {shlex.join(command)}", flush=True)
    try:
        subprocess.run(command, check=True)
    except FileNotFoundError as e:
        raise SystemExit(f"mlacheck wheel: cannot {what}: {e.filename} is not installed (cmake >= 3.25 is needed)") from e
    except subprocess.CalledProcessError as e:
        raise SystemExit(
            f"mlacheck wheel: cannot {what}: `{shlex.join(command)}` exited with status {e.returncode} (its output is "
            "above). libmlacheck_capi.so needs a C++20 compiler, CMake >= 3.25, Eigen 3.4, rapidcheck and libfccp "
            "(scripts/install-deps.sh installs them on Debian 12)"
        ) from e


class BuildPackageWithLibrary(build_py):
    """build_py, then the C API library and the data tables into the built package."""

    def run(self):
        super().run()
        build_temp = Path(self.get_finalized_command("build").build_temp).resolve() / "cmake"
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_temp),
            "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_TESTING=OFF", "-DMLACHECK_BUILD_CLI=OFF", "-DMLACHECK_GPU=off",
        ] + shlex.split(os.environ.get("MLACHECK_CMAKE_ARGS", ""))
        run_step("configure libmlacheck_capi.so", configure)
        jobs = str(os.cpu_count() or 1)
        run_step("build libmlacheck_capi.so", ["cmake", "--build", str(build_temp), "--target", "mlacheck_capi", "-j", jobs])

        package = Path(self.build_lib) / "mlacheck"
        recorded = {}
        exec((build_temp / "python" / "mlacheck" / "_paths.py").read_text(), recorded)
        library = Path(recorded["CAPI_LIBRARY"]).resolve()
        if not library.is_file():
            raise SystemExit(f"mlacheck wheel: the build reported {library}, which does not exist")
        shutil.copyfile(library, package / "libmlacheck_capi.so")
        shutil.copyfile(build_temp / "python" / "mlacheck" / "_version.py", package / "_version.py")
        (package / "data").mkdir(exist_ok=True)
        for table in TABLES:
            shutil.copyfile(ROOT / table, package / "data" / Path(table).name)
        (package / "_paths.py").write_text(
            '"""Written by setup.py: this wheel\'s harness C API library, and its package data folder."""\n\n'
            'CAPI_LIBRARY = "libmlacheck_capi.so"\n'
            'PACKAGE_DATA = "data"\n'
        )


class PackageWithLibrary(Distribution):
    """A platform package: the library makes the package's files platform-specific (platlib)."""

    def has_ext_modules(self):
        return True


def glibc_platform_tag(library: Path, machine: str) -> str:
    """manylinux_<x>_<y>_<machine> of the newest glibc symbol version `library` needs (read from
    its ELF version needs by scripts/glibc_needs.py): pip installs the wheel only where it loads."""
    recorded = {"__name__": "glibc_needs"}
    exec((ROOT / "scripts" / "glibc_needs.py").read_text(), recorded)
    major, minor = recorded["glibc_level"](str(library))
    return f"manylinux_{major}_{minor}_{machine}"


class PlatformWheel(bdist_wheel):
    """The wheel holds a native library but no extension module: any CPython 3 on this platform
    loads it through ctypes, so it is tagged py3-none-<platform>, the platform being
    manylinux_<x>_<y> of the glibc the built library needs (linux_<machine> elsewhere)."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        library = Path(self.bdist_dir or "") / "mlacheck" / "libmlacheck_capi.so"
        if platform.startswith("linux_") and library.is_file():
            platform = glibc_platform_tag(library, platform[len("linux_"):])
        return "py3", "none", platform


setup(
    version=cmake_project_version(),
    distclass=PackageWithLibrary,
    cmdclass={"build_py": BuildPackageWithLibrary, "bdist_wheel": PlatformWheel},
    # build/ is the CMake build folder of the README's commands; setuptools keeps out of it.
    options={"build": {"build_base": "build-wheel"}},
)
