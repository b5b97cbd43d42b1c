#!/usr/bin/env bash
# Installs what building mlacheck needs on the Ubuntu images its containers start from:
# rocm/dev-ubuntu-22.04 (docker/rocm.Dockerfile, docs/examples/amd-gpu-ci.yml) and
# nvidia/cuda:*-devel-ubuntu24.04 (docker/cuda.Dockerfile, docs/examples/nvidia-gpu-ci.yml).
# scripts/install-deps.sh is the Debian 12 counterpart; the GPU toolchain comes with the image.
#
# Ubuntu 22.04 and 24.04 package every library the build uses (universe): Eigen 3.4, rapidcheck,
# CLI11, fast-cpp-csv-parser, and GoogleTest for the tests. Two things differ on 22.04:
#   - its CMake is 3.22 and the build needs 3.25, so a pinned CMake comes from PyPI instead;
#   - its default g++ is 11; g++-12 is what Debian 12's CI builds with, so the ROCm image uses it
#     (ROCm's clang compiles the .hip files against the newest libstdc++ it finds: g++-12's).
#
# Usage: install-container-deps.sh [--tests]
#   --tests  also what the test suite needs: GoogleTest (a build with BUILD_TESTING on), xmllint
#            for the JUnit schema test, NumPy and pytest for the Python package's tests (those
#            three skip without them). The images build with -DBUILD_TESTING=OFF and go without.
set -euo pipefail

# Pinned, so that the image builds the same way each time; a 3.x release, since CMake 4 refuses
# projects and package configs that still ask for policies older than 3.5.
CMAKE_FROM_PYPI=3.31.6
CMAKE_NEEDED=3.25

with_tests=0
case "${1:-}" in
  "") ;;
  --tests) with_tests=1 ;;
  *)
    echo "usage: $0 [--tests]" >&2
    exit 2
    ;;
esac
if [ "$(id -u)" -ne 0 ]; then
  echo "install-container-deps.sh: run as root (container images build as root)" >&2
  exit 2
fi

# shellcheck source=/dev/null
. /etc/os-release
# What the libraries and the mlacheck tool need: Eigen (the oracle), rapidcheck (the property
# sweep's generators), CLI11, fast-cpp-csv-parser.
# NumPy: the installed Python package (mlacheck, python -m mlacheck) cannot be imported without it.
packages=(
  ninja-build
  libeigen3-dev librapidcheck-dev libcli11-dev libfccp-dev
  python3-numpy
)
case "${ID}-${VERSION_ID}" in
  ubuntu-22.04)
    packages+=(g++-12 python3-pip)
    cmake_from_pypi=1
    ;;
  ubuntu-24.04)
    packages+=(g++ cmake)
    cmake_from_pypi=0
    ;;
  *)
    echo "install-container-deps.sh: written for Ubuntu 22.04 and 24.04, not ${PRETTY_NAME:-$ID}" \
         "(Debian 12: scripts/install-deps.sh)" >&2
    exit 2
    ;;
esac
if [ "$with_tests" -eq 1 ]; then
  # GoogleTest, which a build with BUILD_TESTING on needs; gmock comes along (it is small), since
  # whether each release's GTest package config wants its files was not checked.
  packages+=(libgtest-dev libgmock-dev libxml2-utils python3-pytest)
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}"
rm -rf /var/lib/apt/lists/*

if [ "$cmake_from_pypi" -eq 1 ]; then
  # Lands in /usr/local/bin, ahead of /usr/bin on PATH.
  python3 -m pip install --no-cache-dir --disable-pip-version-check "cmake==${CMAKE_FROM_PYPI}"
  hash -r
fi

cmake_version=$(cmake --version | awk 'NR == 1 {print $3}')
if ! dpkg --compare-versions "$cmake_version" ge "$CMAKE_NEEDED"; then
  echo "install-container-deps.sh: cmake on PATH is $cmake_version, the build needs $CMAKE_NEEDED" >&2
  exit 1
fi
echo "install-container-deps.sh: ${packages[*]}; cmake $cmake_version"
