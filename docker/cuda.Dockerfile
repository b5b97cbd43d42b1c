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
# Only the mlacheck executable: the test programs are a CI job's business (BUILD_TESTING=OFF leaves
# them out, and GoogleTest with them; --target mlacheck skips the C API and the examples).
# The source stays: mlacheck reads scenarios/*.csv from it. The CUDA runtime is linked statically,
# so the image needs only the host's driver, which --gpus mounts. --help proves the binary loads.
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
      -DMLACHECK_GPU=cuda -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
      "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}" \
 && cmake --build build --target mlacheck \
 && build/cli/mlacheck --help > /dev/null

ENV PATH=/opt/mlacheck/build/cli:${PATH}
# --require-device: a container that sees no GPU exits 2 instead of reporting SKIPPED rows.
CMD ["mlacheck", "run", "--require-device", "--out", "/report"]
