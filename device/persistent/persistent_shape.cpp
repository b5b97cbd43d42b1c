#include "device/persistent/persistent_shape.hpp"

namespace mlacheck::kernels {

PersistentShape persistent_shape(const MlaDecodeProblem& p) { return row_tile_shape(p); }

std::optional<std::string> persistent_unsupported(const PersistentShape& s) {
  // One request of one token stands in for the batch: the persistent grid comes from the plan, so
  // only the per-row-tile limits apply.
  SplitKvShape tile{s};
  tile.batch = 1;
  tile.total_q_tokens = 1;
  tile.max_q_len = 1;
  tile.num_splits = 1;
  return split_kv_unsupported(tile);
}

PersistentWorkspace persistent_workspace(const MetadataInfo& plan, int lv) {
  const std::size_t rows = static_cast<std::size_t>(plan.partial_rows) * static_cast<std::size_t>(plan.padded_heads);
  return {rows * static_cast<std::size_t>(lv), rows};
}

}  // namespace mlacheck::kernels
