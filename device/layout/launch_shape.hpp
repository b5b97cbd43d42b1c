#pragma once
// Launch shapes of the layout kernels, all stride loops so that a bounded grid covers any size:
// - flat: x over units;
// - per request: y over requests, x over the units of one request. Requests are independent and
//   read their own length once; a long request still spreads over many blocks.
// The block size is a multiple of every warp width (32, 64), and nothing here depends on it.
#include <algorithm>
#include <cstdint>

#include "device/platform/gpu_runtime.hpp"

namespace mlacheck::layout {

inline constexpr int kLayoutThreads = 256;
// Enough blocks to fill any current GPU many times over; the stride loops do the rest.
inline constexpr std::int64_t kMaxLayoutBlocks = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxGridY = 65535;  // CUDA's limit on gridDim.y

inline dim3 flat_grid(std::int64_t units) {
  const std::int64_t x = std::clamp<std::int64_t>((units + kLayoutThreads - 1) / kLayoutThreads, 1, kMaxLayoutBlocks);
  return dim3(static_cast<unsigned>(x));
}

inline dim3 request_grid(int batch, std::int64_t max_units_per_request) {
  const std::int64_t y = std::clamp<std::int64_t>(batch, 1, kMaxGridY);
  const std::int64_t x = std::clamp<std::int64_t>((max_units_per_request + kLayoutThreads - 1) / kLayoutThreads, 1,
                                                  std::max<std::int64_t>(1, kMaxLayoutBlocks / y));
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y));
}

__device__ inline std::int64_t first_unit() { return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline std::int64_t unit_stride() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

// The pool block holding position pos of the request whose table row is `row`, or -1 where the
// row or the pool has none. The launchers check the host-side shape; this keeps device data that
// disagrees with it (a length past the row, an id past the pool) from becoming an out-of-bounds
// access: the output keeps its poison and the harness reports it unwritten.
__device__ inline int table_block(const std::int32_t* row, int row_entries, int block_size, int num_blocks, int pos) {
  const int entry = pos / block_size;
  if (entry >= row_entries) return -1;
  const int block = row[entry];
  return block >= 0 && block < num_blocks ? block : -1;
}

}  // namespace mlacheck::layout
