# mlacheck for AMD Instinct GPUs: the HIP build, whose default command is the main job.
#
#   docker build -f docker/rocm.Dockerfile -t mlacheck-rocm .
#   docker run --rm --device=/dev/kfd --device=/dev/dri --group-add video \
#     -v "$PWD/report:/report" mlacheck-rocm
#
# docs/containers.md says more. This recipe is checked (scripts/check-ci-recipes.sh), not yet built.
#
# The base is the ROCm development image that vLLM's ROCm images build on (vllm-project/vllm,
# docker/Dockerfile.rocm_base: rocm/dev-ubuntu-22.04:7.2.1-complete), so mlacheck meets the same
# compiler and runtime as the AITER kernels it tests. ROCm 7.0 is the first release that supports
# the MI350X and MI355X (gfx950): its release notes add them, and vLLM's install notes say "MI350
# requires ROCm 7.0 or above". gfx942 (MI300X) has been supported since ROCm 6.
ARG ROCM_IMAGE=rocm/dev-ubuntu-22.04:7.2.1-complete
FROM ${ROCM_IMAGE}

# The GPUs the fat binary carries code for: MI300X/MI325X and MI350X/MI355X. Add gfx90a for MI200.
ARG HIP_ARCHITECTURES="gfx942;gfx950"

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# Dependencies first, in a layer of their own, so that a source change does not reinstall them.
COPY scripts/install-container-deps.sh /tmp/install-container-deps.sh
RUN /tmp/install-container-deps.sh && rm /tmp/install-container-deps.sh

COPY . /opt/mlacheck
WORKDIR /opt/mlacheck
# Built without the test programs (BUILD_TESTING=OFF leaves them out, and GoogleTest with them) and
# installed under /usr/local: the mlacheck tool, libmlacheck_capi.so, the headers, the CMake
# package, the Python package and the data tables, which the installed tool finds from its prefix.
# The source and build folders go; `scenarios --list` from / proves the installed tool finds its
# tables without them.
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
      -DMLACHECK_GPU=hip -DCMAKE_CXX_COMPILER=g++-12 \
      -DCMAKE_HIP_COMPILER=/opt/rocm/llvm/bin/clang++ \
      "-DCMAKE_HIP_ARCHITECTURES=${HIP_ARCHITECTURES}" \
 && cmake --build build \
 && cmake --install build --prefix /usr/local \
 && cd / && rm -rf /opt/mlacheck \
 && mlacheck --version && mlacheck scenarios --list > /dev/null \
 && python3 -c 'import numpy, mlacheck'

WORKDIR /
# --require-device: a container that sees no GPU exits 2 instead of reporting SKIPPED rows.
CMD ["mlacheck", "run", "--require-device", "--out", "/report"]
