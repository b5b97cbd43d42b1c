#pragma once
// KV gather on the device (UPSTREAM S6/S7): K and V of every request's tokens, in order, from a
// paged pool into contiguous [total_tokens, kv_heads, head_size] buffers, every cache address
// through the problem's layout and strides (cache_geometry.hpp). A bitwise copy, or for an fp8
// cache gathered to bf16/f16, code * scale rounded once to the output type.
// Host twin: reference/kv_gather_reference.hpp. Launcher: launchers.hpp. This header is plain C++.
#include <cstdint>

#include "core/gather_problem.hpp"

namespace mlacheck::layout {

// Device pointers of one gather; sizes, layout, strides, dtypes and scales come from the problem.
struct KvGatherBuffers {
  const void* cache = nullptr;  // cache_elements(p) elements of cache_dtype, K and V at p's strides
  // [batch, block_table_stride] block ids in [0, num_blocks); entries past a request's blocks are
  // never read.
  const std::int32_t* block_table = nullptr;
  int block_table_stride = 0;
  const std::int32_t* cu_seq_lens = nullptr;  // [batch + 1]: prefix sums of p.kv_lens
  void* k_out = nullptr;                      // [total_tokens, kv_heads, head_size] of out_dtype
  void* v_out = nullptr;
};

// How one tensor (K or V) is moved.
enum class GatherKernel : std::uint8_t {
  // One thread per (token, head, run of `run_elems` channels that lie contiguous in the cache):
  // NHD K and V, SHUFFLE K, and SHUFFLE V with run_elems 1 when it cannot use tiles.
  runs,
  // SHUFFLE V, whose x consecutive tokens of a channel are contiguous: one thread loads an x by x
  // tile (x channels, 16 bytes each) and transposes it in registers into x output rows.
  shuffle_v_tiles,
};

struct TensorPlan {
  GatherKernel kernel = GatherKernel::runs;
  int run_elems = 1;  // runs: channels per thread, as wide as strides and alignment allow (<= 16 bytes)
};

struct KvGatherPlan {
  TensorPlan k;
  TensorPlan v;
};

// Throws InvalidProblem for an invalid p, std::invalid_argument naming the buffer for a null or
// misaligned pointer or a block table row shorter than p's longest request needs.
void check_kv_gather(const KvGatherProblem& p, const KvGatherBuffers& buffers);

// The widest vector path the strides and the buffers' alignment allow (p and buffers checked).
KvGatherPlan plan_kv_gather(const KvGatherProblem& p, const KvGatherBuffers& buffers);

}  // namespace mlacheck::layout
