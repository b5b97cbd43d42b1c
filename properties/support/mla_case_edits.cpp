#include "properties/support/mla_case_edits.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/fill.hpp"
#include "reference/head_padding.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck {

MlaCase repage(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int block_size, std::uint64_t table_seed) {
  MlaCase c{p, {}};
  c.problem.block_size = block_size;
  c.problem.num_blocks = p.first_block + blocks_needed(c.problem) + (p.num_blocks - p.first_block - blocks_needed(p));
  const std::size_t bs = static_cast<std::size_t>(block_size);
  const std::size_t width = static_cast<std::size_t>(lk(p));

  std::vector<std::int32_t> order(static_cast<std::size_t>(host_cache_blocks(c.problem)));
  fill_permutation(order, table_seed, "block_table");
  for (std::int32_t& block : order) block += p.first_block;
  const auto stride = static_cast<std::size_t>(max_blocks_per_request(c.problem));
  c.inputs.q = in.q;
  c.inputs.block_table_stride = static_cast<int>(stride);
  c.inputs.block_table.assign(static_cast<std::size_t>(batch(p)) * stride, -1);
  c.inputs.kv_cache.assign(order.size() * bs * width, std::numeric_limits<float>::quiet_NaN());

  const PageIndices old = expand_page_indices(p, in);
  std::size_t dealt = 0;
  for (int r = 0; r < batch(p); ++r) {
    std::int32_t* row = c.inputs.block_table.data() + static_cast<std::size_t>(r) * stride;
    for (int i = 0; i < blocks_for(c.problem, r); ++i) row[i] = order[dealt++];
    for (int pos = 0; pos < p.kv_lens[r]; ++pos) {
      const std::int64_t from = old.kv_indices[static_cast<std::size_t>(old.kv_indptr[r] + pos)];
      const std::int64_t to = std::int64_t{row[static_cast<std::size_t>(pos) / bs]} * block_size + pos % block_size;
      std::copy_n(in.kv_cache.begin() + static_cast<std::ptrdiff_t>(host_cache_index(p, from)), width,
                  c.inputs.kv_cache.begin() + static_cast<std::ptrdiff_t>(host_cache_index(c.problem, to)));
    }
  }
  return c;
}

MlaCase single_token_requests(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  MlaCase c{p, in};
  c.problem.kv_lens.clear();
  c.problem.q_lens.clear();
  c.inputs.block_table.clear();
  const auto stride = static_cast<std::size_t>(in.block_table_stride);
  for (int b = 0; b < batch(p); ++b) {
    for (int t = 0; t < p.q_lens[b]; ++t) {
      c.problem.kv_lens.push_back(visible_kv(p, b, t));  // 0 for a padded request's rows
      c.problem.q_lens.push_back(1);
      const auto row = in.block_table.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b) * stride);
      c.inputs.block_table.insert(c.inputs.block_table.end(), row, row + static_cast<std::ptrdiff_t>(stride));
    }
  }
  c.problem.num_blocks = std::max(p.num_blocks, p.first_block + blocks_needed(c.problem));
  c.inputs.kv_cache.resize(static_cast<std::size_t>(host_cache_blocks(c.problem)) *
                               static_cast<std::size_t>(p.block_size) * static_cast<std::size_t>(lk(p)),
                           std::numeric_limits<float>::quiet_NaN());
  return c;
}

MlaDecodeProblem unsharded(const MlaDecodeProblem& p) {
  MlaDecodeProblem full = p;
  full.tp = 1;
  full.tp_rank = 0;
  return full;
}

MlaCase head_padded(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  MlaCase c{p, in};
  c.problem.total_heads = padded_heads(p);
  c.problem.tp = 1;
  c.problem.tp_rank = 0;
  c.inputs.q = pad_heads<float>(p, in.q, lk(p));
  return c;
}

}  // namespace mlacheck
