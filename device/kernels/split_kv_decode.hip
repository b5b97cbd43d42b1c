// The split-KV launcher: checks the shape, chooses the row groups, turns the runtime dtypes and the
// row tiles into template arguments, and enqueues stage 1 and stage 2.
#include "device/kernels/split_kv_decode.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "device/kernels/kernel_dispatch.hpp"
#include "device/kernels/split_kv_merge_kernel.hpp"
#include "device/kernels/split_kv_partial_kernel.hpp"
#include "device/platform/gpu_check.hpp"

namespace mlacheck::kernels {

namespace {

void require_pointer(const void* ptr, const char* name) {
  if (ptr == nullptr) throw std::invalid_argument(std::string("split-KV MLA decode: ") + name + " is null");
}

}  // namespace

RowTilePolicy split_kv_row_tile_policy(DType q_dtype, DType kv_dtype) { return row_tile_policy(q_dtype, kv_dtype); }

void launch_mla_decode_split_kv(const SplitKvArgs& a, StreamHandle stream_handle) {
  const SplitKvShape& s = a.shape;
  if (auto why = split_kv_unsupported(s)) throw std::invalid_argument("split-KV MLA decode: " + *why);
  require_pointer(a.q, "q");
  require_pointer(a.kv_cache, "kv_cache");
  require_pointer(a.kv_indices, "kv_indices");
  require_pointer(a.kv_indptr, "kv_indptr");
  require_pointer(a.qo_indptr, "qo_indptr");
  require_pointer(a.partial_o, "partial_o");
  require_pointer(a.partial_lse, "partial_lse");
  require_pointer(a.o, "o");
  require_pointer(a.lse, "lse");
  const auto stream = static_cast<hipStream_t>(stream_handle);

  PartialParams partial{};
  const LatentTiles tiles = latent_tiles(s.lv, s.rope, a.faults.has(Fault::tile_width_from_lk));
  partial.attention =
      attention_params(a.q, s.q_dtype, a.kv_cache, s.kv_dtype, s.lv, s.rope, {s.scale, s.kv_scale, s.q_scale}, tiles,
                       a.faults);
  partial.attention.precision = precision_fault_bits(a.faults);
  partial.groups = row_groups(s.padded_heads, s.max_q_len, row_tile_policy(s.q_dtype, s.kv_dtype));
  partial.q = a.q;
  partial.kv_indices = a.kv_indices;
  partial.kv_indptr = a.kv_indptr;
  partial.qo_indptr = a.qo_indptr;
  partial.partial_o = a.partial_o;
  partial.partial_lse = a.partial_lse;
  partial.padded_heads = s.padded_heads;
  partial.num_splits = s.num_splits;
  partial.token_groups = (s.max_q_len + partial.groups.tokens - 1) / partial.groups.tokens;
  partial.collapse_non_pow2_rows = a.faults.has(Fault::non_pow2_qlen_rows_collapse);
  partial.skip_empty_rows = a.faults.has(Fault::empty_split_unwritten);
  partial.kv_range_by_query_row = a.faults.has(Fault::lengths_indexed_by_query_row);
  partial.kv_of_first_request = a.kv_of_first_request;
  partial.attention.cache_offset_32bit = a.faults.has(Fault::cache_offset_32bit);

  const std::int64_t blocks = row_group_blocks(s, partial.groups);
  if (blocks > std::numeric_limits<std::int32_t>::max()) {
    throw std::invalid_argument("split-KV MLA decode: " + std::to_string(blocks) + " row groups exceed one grid dimension");
  }
  const dim3 partial_grid(static_cast<unsigned>(blocks), static_cast<unsigned>(s.num_splits));
  with_attention_kernel(s.q_dtype, s.kv_dtype, partial.groups.row_tiles, [&](auto q_tag, auto kv_tag, auto row_tiles) {
    using Q = typename decltype(q_tag)::type;
    using KV = typename decltype(kv_tag)::type;
    constexpr int kRowTiles = decltype(row_tiles)::value;
    const auto kernel = split_kv_partial_kernel<Q, KV, kRowTiles>;
    const std::size_t shared_bytes = attention_shared_bytes<Q, KV, kRowTiles>();
    allow_shared_bytes(reinterpret_cast<const void*>(kernel), shared_bytes);
    kernel<<<partial_grid, kAttentionThreads, shared_bytes, stream>>>(partial);
  });
  GPU_CHECK_LAUNCH("split_kv_partial_kernel", stream);

  MergeParams merge{};
  merge.partial_o = a.partial_o;
  merge.partial_lse = a.partial_lse;
  merge.o = a.o;
  merge.lse = a.lse;
  merge.lv = s.lv;
  merge.num_splits = s.num_splits;
  merge.empty_rows_o_unwritten = a.faults.has(Fault::empty_rows_unwritten);
  merge.lse_unwritten = a.faults.has(Fault::split_kv_lse_unwritten);
  const auto rows = static_cast<unsigned>(s.total_q_tokens * s.padded_heads);
  // Whole 16-byte granules: ptxas merges the merge loop's guarded tail reads of the weights into
  // one wider load from the granule's start, up to 3 floats past num_splits (memcheck saw it).
  const std::size_t weights_bytes = (std::size_t(s.num_splits) + 3) / 4 * 4 * sizeof(float);
  with_16bit_type("o_dtype", s.o_dtype, [&](auto o_tag) {
    using O = typename decltype(o_tag)::type;
    split_kv_merge_kernel<O><<<rows, kMergeThreads, weights_bytes, stream>>>(merge);
  });
  GPU_CHECK_LAUNCH("split_kv_merge_kernel", stream);
}

}  // namespace mlacheck::kernels
