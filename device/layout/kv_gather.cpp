#include "device/layout/kv_gather.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "device/layout/argument_checks.hpp"

namespace mlacheck::layout {

namespace {

constexpr std::string_view kLauncher = "kv_gather";

bool all_multiples(std::initializer_list<std::int64_t> values, std::int64_t n) {
  return std::all_of(values.begin(), values.end(), [n](std::int64_t v) { return v % n == 0; });
}

// Element offsets a run of n channels starts at are multiples of n exactly when every stride the
// address is built from is (and, for NHD, head_size; SHUFFLE runs stay inside one x-group).
bool strides_allow(const KvGatherProblem& p, bool is_v, int n) {
  const std::int64_t kv = is_v ? p.kv_stride : 0;
  if (p.layout == CacheLayout::nhd)
    return all_multiples({p.head_size, p.token_stride, p.head_stride, p.block_stride, kv}, n);
  return all_multiples({p.head_stride, p.block_stride, kv}, n);
}

TensorPlan plan_tensor(const KvGatherProblem& p, const KvGatherBuffers& b, bool is_v) {
  const auto in_bytes = static_cast<int>(storage_bytes(p.cache_dtype));
  const auto out_bytes = static_cast<int>(storage_bytes(p.out_dtype));
  const void* out = is_v ? b.v_out : b.k_out;
  const auto buffers_allow = [&](int n) {
    return is_aligned(b.cache, static_cast<std::size_t>(n * in_bytes)) &&
           is_aligned(out, static_cast<std::size_t>(std::min(16, n * out_bytes)));
  };
  const int x = shuffle_x(p);
  if (p.layout == CacheLayout::shuffle && is_v) {
    // A tile reads x-token vectors of x channels and writes x-channel rows.
    if (strides_allow(p, true, x) && buffers_allow(x)) return {GatherKernel::shuffle_v_tiles, x};
    return {GatherKernel::runs, 1};
  }
  int n = 16 / in_bytes;
  while (n > 1 && !(strides_allow(p, is_v, n) && buffers_allow(n))) n /= 2;
  return {GatherKernel::runs, n};
}

}  // namespace

void check_kv_gather(const KvGatherProblem& problem, const KvGatherBuffers& buffers) {
  const KvGatherProblem p = with_defaults(problem);
  validate(p);
  const auto in_bytes = storage_bytes(p.cache_dtype);
  const auto out_bytes = storage_bytes(p.out_dtype);
  require_pointer(kLauncher, "cache", buffers.cache);
  require_pointer(kLauncher, "block_table", buffers.block_table);
  require_pointer(kLauncher, "cu_seq_lens", buffers.cu_seq_lens);
  require_pointer(kLauncher, "k_out", buffers.k_out);
  require_pointer(kLauncher, "v_out", buffers.v_out);
  require_aligned(kLauncher, "cache", buffers.cache, in_bytes);
  require_aligned(kLauncher, "k_out", buffers.k_out, out_bytes);
  require_aligned(kLauncher, "v_out", buffers.v_out, out_bytes);
  if (buffers.block_table_stride < max_blocks_per_request(p)) {
    fail_argument(kLauncher, "block_table_stride",
                  "= " + std::to_string(buffers.block_table_stride) + " is shorter than the " +
                      std::to_string(max_blocks_per_request(p)) + " blocks the longest request needs");
  }
}

KvGatherPlan plan_kv_gather(const KvGatherProblem& problem, const KvGatherBuffers& buffers) {
  check_kv_gather(problem, buffers);
  const KvGatherProblem p = with_defaults(problem);
  return {plan_tensor(p, buffers, false), plan_tensor(p, buffers, true)};
}

}  // namespace mlacheck::layout
