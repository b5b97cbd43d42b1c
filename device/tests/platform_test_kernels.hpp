// Host entry points to the kernels the platform tests launch. The tests themselves are plain
// C++ (.cpp): Debian's clang 15 crashes compiling GoogleTest's header as HIP in C++20 mode, and
// test logic has no business in device translation units anyway.
#pragma once

#include <cstdint>
#include <vector>

#include "device/platform/device_buffer.hpp"

namespace mlacheck::test {

// GPU_CHECK(hipSetDevice(-1)): fails with or without a device; throws GpuError.
void set_device_minus_one();
// Whether the runtime's last-error slot is clear (hipGetLastError() == hipSuccess).
bool last_error_is_clear();
// A launch of 4096 threads per block, more than any device allows, then GPU_CHECK_LAUNCH.
void launch_oversized_block();
// One thread stores a float to `address`, then GPU_CHECK_LAUNCH (sync_after_launch decides
// whether a fault surfaces here).
void launch_store_to(std::uintptr_t address);

// out[offset + i] = i for i in [0, count), as floats; synchronises.
void write_iota(DeviceBuffer& out, int offset, int count);
// Sets every step-th element (from 0) of a float buffer to value.
void write_every_float(DeviceBuffer& out, int step, float value);
// Sets the first count 16-bit elements to value.
void write_prefix_u16(DeviceBuffer& out, int count, std::uint16_t value);

struct LaneResults {
  float sum;        // warp_sum
  float max;        // warp_max
  float group_sum;  // warp_reduce over aligned groups of `group` lanes
  int wave;         // wave_size()
};

// Reduces value_of(thread_rank) in one block of `threads` threads; one entry per thread.
std::vector<LaneResults> run_warp_reductions(int threads, int group);
// block_sum and block_max of value_of(thread_rank) in one (warp_size x warps) block;
// per thread: {sum, max}.
std::vector<float> run_block_reductions(int warp_size, int warps);
// block_max of -1 - thread_rank in one block of `threads` threads; per thread.
std::vector<float> run_block_max_of_negatives(int threads);

// Distinct small integers, so float sums are exact and each warp's maximum is unique.
constexpr float value_of(int rank) { return static_cast<float>((rank * 37) % 101) - 60.0f; }

}  // namespace mlacheck::test
