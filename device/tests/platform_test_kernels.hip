#include "device/tests/platform_test_kernels.hpp"

#include "device/platform/gpu_check.hpp"
#include "device/platform/warp_reduce.hpp"

namespace mlacheck::test {
namespace {

__global__ void store_one(float* out) { *out = 1.0f; }

// Does nothing: if a runtime ever accepted the over-sized launch, nothing may fault (a fault on
// ROCm would end the whole test process).
__global__ void idle_kernel() {}

__global__ void iota_kernel(float* out, int offset, int count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) out[offset + i] = static_cast<float>(i);
}

template <class T>
__global__ void strided_store(T* out, int count, int step, T value) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) * step;
  if (i < count) out[i] = value;
}

__global__ void warp_kernel(LaneResults* out, int group) {
  const int rank = gpu::thread_rank();
  const float v = value_of(rank);
  out[rank] = {gpu::warp_sum(v), gpu::warp_max(v), gpu::warp_reduce(v, gpu::Sum<float>{}, group), gpu::wave_size()};
}

__global__ void block_kernel(float* out) {
  __shared__ float scratch[gpu::kBlockReduceSlots];
  const int rank = gpu::thread_rank();
  const float v = value_of(rank);
  const float sum = gpu::block_sum(v, scratch);
  const float max = gpu::block_max(v, scratch);
  out[2 * rank] = sum;
  out[2 * rank + 1] = max;
}

__global__ void negative_max_kernel(float* out) {
  __shared__ float scratch[gpu::kBlockReduceSlots];
  const int rank = gpu::thread_rank();
  out[rank] = gpu::block_max(-1.0f - static_cast<float>(rank), scratch);
}

unsigned blocks_for(int count) { return static_cast<unsigned>((count + 255) / 256); }

}  // namespace

void set_device_minus_one() { GPU_CHECK(hipSetDevice(-1)); }

bool last_error_is_clear() { return hipGetLastError() == hipSuccess; }

void launch_oversized_block() {
  idle_kernel<<<1, 4096>>>();
  GPU_CHECK_LAUNCH("idle_kernel", nullptr);
}

void launch_store_to(std::uintptr_t address) {
  store_one<<<1, 1>>>(reinterpret_cast<float*>(address));
  GPU_CHECK_LAUNCH("store_one", nullptr);
}

void write_iota(DeviceBuffer& out, int offset, int count) {
  iota_kernel<<<blocks_for(count), 256>>>(out.as<float>(), offset, count);
  GPU_CHECK_LAUNCH("iota_kernel", nullptr);
  GPU_CHECK(hipDeviceSynchronize());
}

void write_every_float(DeviceBuffer& out, int step, float value) {
  const int count = static_cast<int>(out.size<float>());
  strided_store<<<blocks_for(count), 256>>>(out.as<float>(), count, step, value);
  GPU_CHECK_LAUNCH("strided_store<float>", nullptr);
}

void write_prefix_u16(DeviceBuffer& out, int count, std::uint16_t value) {
  strided_store<<<blocks_for(count), 256>>>(out.as<std::uint16_t>(), count, 1, value);
  GPU_CHECK_LAUNCH("strided_store<uint16_t>", nullptr);
}

std::vector<LaneResults> run_warp_reductions(int threads, int group) {
  DeviceBuffer out("lanes", threads * sizeof(LaneResults));
  warp_kernel<<<1, threads>>>(out.as<LaneResults>(), group);
  GPU_CHECK_LAUNCH("warp_kernel", nullptr);
  return out.download<LaneResults>();
}

std::vector<float> run_block_reductions(int warp_size, int warps) {
  DeviceBuffer out("block", 2 * warp_size * warps * sizeof(float));
  block_kernel<<<1, dim3(static_cast<unsigned>(warp_size), static_cast<unsigned>(warps))>>>(out.as<float>());
  GPU_CHECK_LAUNCH("block_kernel", nullptr);
  return out.download<float>();
}

std::vector<float> run_block_max_of_negatives(int threads) {
  DeviceBuffer out("max", threads * sizeof(float));
  negative_max_kernel<<<1, threads>>>(out.as<float>());
  GPU_CHECK_LAUNCH("negative_max_kernel", nullptr);
  return out.download<float>();
}

}  // namespace mlacheck::test
