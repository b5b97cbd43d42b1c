#include "device/faults.hpp"

namespace mlacheck {

std::string_view to_string(Fault f) {
  switch (f) {
    case Fault::persistent_buffers_partial: return "persistent-buffers-partial";
    case Fault::metadata_unpadded_heads: return "metadata-unpadded-heads";
    case Fault::block_table_unexpanded: return "block-table-unexpanded";
    case Fault::qo_indptr_assumes_single_token: return "qo-indptr-assumes-single-token";
    case Fault::non_pow2_qlen_rows_collapse: return "non-pow2-qlen-rows-collapse";
    case Fault::tile_width_from_lk: return "tile-width-from-lk";
    case Fault::gather_ignores_strides: return "gather-ignores-strides";
    case Fault::shuffle_gather_ignores_strides: return "shuffle-gather-ignores-strides";
    case Fault::precision_partial_o_bf16:
      return "precision-partial-o-bf16";
    case Fault::precision_running_o_bf16:
      return "precision-running-o-bf16";
    case Fault::precision_running_o_fp16:
      return "precision-running-o-fp16";
    case Fault::precision_row_sum_bf16:
      return "precision-row-sum-bf16";
    case Fault::precision_row_max_bf16:
      return "precision-row-max-bf16";
    case Fault::precision_lse_bf16:
      return "precision-lse-bf16";
    case Fault::precision_softmax_scale_bf16:
      return "precision-softmax-scale-bf16";
    case Fault::precision_row_sum_drops_key:
      return "precision-row-sum-drops-key";
    // R1, R2, R7, R12
    case Fault::empty_rows_unwritten:
      return "empty-rows-unwritten";
    case Fault::empty_split_unwritten:
      return "empty-split-unwritten";
    case Fault::split_kv_lse_unwritten:
      return "split-kv-lse-unwritten";
    case Fault::lengths_indexed_by_query_row:
      return "lengths-indexed-by-query-row";
    // R6, R8-R11
    case Fault::padded_fp8_single_request:
      return "padded-fp8-single-request";
    case Fault::kernel_ignores_page_size:
      return "kernel-ignores-page-size";
    case Fault::tokens_folded_into_heads:
      return "tokens-folded-into-heads";
    case Fault::supports_accepts_mixed_dtypes:
      return "supports-accepts-mixed-dtypes";
    case Fault::value_scale_k_times_v:
      return "value-scale-k-times-v";
    case Fault::cache_offset_32bit:
      return "cache-offset-32bit";
    case Fault::metadata_sized_for_single_token:
      return "metadata-sized-for-single-token";
    case Fault::plan_stale_at_replay:
      return "plan-stale-at-replay";
  }
  return "?";
}

std::optional<Fault> parse_fault(std::string_view name) {
  for (Fault f : kAllFaults) {
    if (to_string(f) == name) return f;
  }
  for (Fault f : kPrecisionFaults) {
    if (to_string(f) == name) return f;
  }
  return std::nullopt;
}

}  // namespace mlacheck
