#include "device/persistent/persistent_shape.hpp"

#include "device/kernels/split_kv_plan.hpp"

namespace mlacheck::kernels {

PersistentShape persistent_shape(const MlaDecodeProblem& p) {
  PersistentShape s;
  s.padded_heads = padded_heads(p);
  s.lv = p.kv_lora_rank;
  s.rope = p.rope_dim;
  s.q_dtype = p.q_dtype;
  s.kv_dtype = p.kv_dtype;
  s.o_dtype = p.o_dtype;
  s.scale = static_cast<float>(p.scale);
  s.kv_scale = p.kv_scale;
  s.q_scale = p.q_scale;
  return s;
}

std::optional<std::string> persistent_unsupported(const PersistentShape& s) {
  // One request of one token stands in for the batch: the persistent grid comes from the plan, so
  // only the per-row-tile limits apply.
  SplitKvShape tile;
  tile.batch = 1;
  tile.total_q_tokens = 1;
  tile.max_q_len = 1;
  tile.padded_heads = s.padded_heads;
  tile.lv = s.lv;
  tile.rope = s.rope;
  tile.q_dtype = s.q_dtype;
  tile.kv_dtype = s.kv_dtype;
  tile.o_dtype = s.o_dtype;
  tile.scale = s.scale;
  tile.kv_scale = s.kv_scale;
  tile.q_scale = s.q_scale;
  tile.num_splits = 1;
  return split_kv_unsupported(tile);
}

PersistentWorkspace persistent_workspace(const MetadataInfo& plan, int lv) {
  const std::size_t rows = static_cast<std::size_t>(plan.partial_rows) * static_cast<std::size_t>(plan.padded_heads);
  return {rows * static_cast<std::size_t>(lv), rows};
}

}  // namespace mlacheck::kernels
