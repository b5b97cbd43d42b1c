#pragma once
// Where a kv_gather problem's cache keeps each element, as a plain value the kernels take by
// value. offset() is the only place a gather kernel forms a cache address, so the stride faults
// (UPSTREAM S6 NHD / S7 SHUFFLE: addresses computed as if the cache were contiguous) go back in
// as one substitution of the strides below, never as a second copy of a kernel.
#include <cstdint>

#include "core/dtype_convert.hpp"
#include "core/gather_problem.hpp"
#include "device/faults.hpp"

namespace mlacheck::layout {

struct CacheGeometry {
  CacheLayout layout = CacheLayout::nhd;
  int kv_heads = 0;
  int head_size = 0;
  int block_size = 0;
  int num_blocks = 0;
  int shuffle_x = 0;  // elements in 16 bytes (SHUFFLE's x)
  std::int64_t block_stride = 0;
  std::int64_t head_stride = 0;
  std::int64_t token_stride = 0;  // NHD only
  std::int64_t kv_stride = 0;     // V's offset from K

  // Element offset of K (is_v false) or V of (block, head, token in block, channel): core's
  // cache_offset(), which tests/ and the layout tests hold this against.
  MLACHECK_HD std::int64_t offset(bool is_v, int block, int head, int token, int c) const {
    const std::int64_t base = (is_v ? kv_stride : 0) + block * block_stride + head * head_stride;
    if (layout == CacheLayout::nhd) return base + token * token_stride + c;
    const std::int64_t x = shuffle_x;
    if (!is_v) return base + token * x + (c / x) * block_size * x + c % x;
    return base + (token / x) * head_size * x + token % x + c * x;
  }
};

// The geometry of with_defaults(p) (so strides left at 0 mean the layout's dense ones).
// With `gather-ignores-strides` (NHD) or `shuffle-gather-ignores-strides` (SHUFFLE) on, the
// upstream mistake comes back here: block, head and token strides as if the cache were dense
// (block_id * kv_heads * head_size * block_size), while V still starts where the cache's V view
// does (upstream passed correct K and V base pointers and lost only the strides).
CacheGeometry cache_geometry(const KvGatherProblem& p, const FaultSet& faults = {});

}  // namespace mlacheck::layout
