#include "core/gather_inputs.hpp"

#include <cstddef>
#include <limits>

#include "core/fill.hpp"

namespace mlacheck {

KvGatherInputs make_inputs(const KvGatherProblem& problem) {
  const KvGatherProblem p = with_defaults(problem);
  validate(p);
  KvGatherInputs in;

  std::vector<int> blocks(static_cast<std::size_t>(batch(p)));
  for (int r = 0; r < batch(p); ++r) blocks[static_cast<std::size_t>(r)] = blocks_for(p, r);
  BlockTable table = deal_block_table(p.seed, p.num_blocks, blocks);
  in.block_table = std::move(table.entries);
  in.block_table_stride = table.stride;

  in.cache.assign(static_cast<std::size_t>(cache_elements(p)), std::numeric_limits<float>::quiet_NaN());
  const std::vector<int> cu = cu_seq_lens(p);
  const std::size_t heads = static_cast<std::size_t>(p.num_kv_heads);
  const std::size_t head_size = static_cast<std::size_t>(p.head_size);
  for (const bool is_v : {false, true}) {
    // The gathered tensor itself, [total_tokens, kv_heads, head_size], is the seeded tensor; the
    // cache holds each element wherever the layout, strides and block table put it.
    std::vector<float> logical(static_cast<std::size_t>(total_tokens(p)) * heads * head_size);
    const float scale = is_v ? p.v_scale : p.k_scale;
    fill_tensor(logical, p.cache_dtype, p.fill, p.seed, is_v ? "v" : "k", 1.0f / scale);
    for (int r = 0; r < batch(p); ++r) {
      for (int pos = 0; pos < p.kv_lens[r]; ++pos) {
        const int block = in.block_table[static_cast<std::size_t>(r * in.block_table_stride + pos / p.block_size)];
        const std::size_t token = static_cast<std::size_t>(cu[r] + pos);
        for (int h = 0; h < p.num_kv_heads; ++h) {
          const float* src = &logical[(token * heads + static_cast<std::size_t>(h)) * head_size];
          for (int c = 0; c < p.head_size; ++c) {
            in.cache[static_cast<std::size_t>(cache_offset(p, is_v, block, h, pos % p.block_size, c))] = src[c];
          }
        }
      }
    }
  }
  return in;
}

}  // namespace mlacheck
