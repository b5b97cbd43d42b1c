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
  }
  return "?";
}

std::optional<Fault> parse_fault(std::string_view name) {
  for (Fault f : kAllFaults) {
    if (to_string(f) == name) return f;
  }
  return std::nullopt;
}

}  // namespace mlacheck
