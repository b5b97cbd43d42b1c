#!/usr/bin/env bash
# Installs every Debian package mlacheck needs (Debian 12). Idempotent: apt-get skips what is
# already installed, and the CMake shim folder is rebuilt in place.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libgtest-dev libgmock-dev librapidcheck-dev libfccp-dev libcli11-dev
  # junit.xml is validated against the common JUnit schema with xmllint.
  libxml2-utils
  # The Python package's tests and the PyTorch example (docs/python.md).
  python3-numpy python3-torch python3-pytest
  # The wheel (pyproject.toml, setup.py) built and installed into a virtual environment, and the
  # pytest plugin under pytest-xdist (docs/install.md).
  python3-build python3-venv python3-pip python3-setuptools python3-wheel python3-pytest-xdist
  # The container recipes and example workflows: YAML parsed, shell steps shellchecked
  # (scripts/check-ci-recipes.sh).
  shellcheck python3-yaml
  # AMD build (compile and link for gfx90a/gfx940 without a GPU) through CMake's HIP language.
  hipcc libamdhip64-dev libamd-comgr-dev libhsa-runtime-dev rocm-device-libs
  # gfx942 (MI300X) compile check with clang-19 (-DMLACHECK_HIP_CLANG19=ON; hipcc's clang-15 knows
  # no gfx942), and the LLVM 19 tools scripts/check-amd-code-objects.sh reads code objects with.
  clang-19 lld-19 clang-tools-19 llvm-19
)
if [ "${MLACHECK_WITH_BROWSER:-0}" = "1" ]; then PACKAGES+=(chromium); fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"
