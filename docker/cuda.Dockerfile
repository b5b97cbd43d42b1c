# mlacheck for NVIDIA GPUs: the same kernel sources built as CUDA, whose default command is the
# main job.
#
#   docker build -f docker/cuda.Dockerfile -t mlacheck-cuda .
#   docker run --rm --gpus all -v "$PWD/report:/report" mlacheck-cuda
#
# docs/containers.md says more. This recipe is checked (scripts/check-ci-recipes.sh), not yet built.
#
# CUDA 12.8 on Ubuntu 24.04, whose packages hold every library the build needs and a CMake new
# enough for it (3.28); nvcc 12.8 takes Ubuntu 24.04's g++ 13. For CUDA 13.0:
# --build-arg CUDA_IMAGE=nvidia/cuda:13.0.1-devel-ubuntu24.04.
ARG CUDA_IMAGE=nvidia/cuda:12.8.1-devel-ubuntu24.04
FROM ${CUDA_IMAGE}

# 90a: H100 and H200 with the Hopper-only warpgroup kernels (docs/ci.md: code built for plain 90
# keeps the portable kernels only). Several targets: "90a;100".
ARG CUDA_ARCHITECTURES=90a

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
# tables without them. The CUDA runtime is linked statically,
# so the image needs only the host's driver, which --gpus mounts.
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
      -DMLACHECK_GPU=cuda -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
      "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}" \
 && cmake --build build \
 && cmake --install build --prefix /usr/local \
 && cd / && rm -rf /opt/mlacheck \
 && mlacheck --version && mlacheck scenarios --list > /dev/null \
 && python3 -c 'import numpy, mlacheck'

WORKDIR /
# --require-device: a container that sees no GPU exits 2 instead of reporting SKIPPED rows.
CMD ["mlacheck", "run", "--require-device", "--out", "/report"]
