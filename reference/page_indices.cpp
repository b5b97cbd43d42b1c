#include "reference/page_indices.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace mlacheck {

PageIndices expand_page_indices(std::span<const std::int32_t> block_table, int block_table_stride,
                                std::span<const int> kv_lens, int block_size, int num_blocks) {
  const std::size_t batch = kv_lens.size();
  if (block_size < 1) throw std::invalid_argument("expand_page_indices: block_size must be >= 1");
  if (static_cast<std::int64_t>(num_blocks) * block_size > std::numeric_limits<std::int32_t>::max()) {
    throw std::invalid_argument("expand_page_indices: num_blocks x block_size overflows a 32-bit slot");
  }
  if (block_table.size() < batch * static_cast<std::size_t>(block_table_stride)) {
    throw std::invalid_argument("expand_page_indices: block table holds " + std::to_string(block_table.size()) +
                                " entries, fewer than batch x stride");
  }
  PageIndices out;
  out.kv_indptr.assign(batch + 1, 0);
  for (std::size_t b = 0; b < batch; ++b) out.kv_indptr[b + 1] = out.kv_indptr[b] + kv_lens[b];
  out.kv_indices.reserve(static_cast<std::size_t>(out.kv_indptr[batch]));
  for (std::size_t b = 0; b < batch; ++b) {
    const std::string at = " (request " + std::to_string(b) + ")";
    const int blocks = (kv_lens[b] + block_size - 1) / block_size;
    if (blocks > block_table_stride) {
      throw std::invalid_argument("expand_page_indices: kv_len " + std::to_string(kv_lens[b]) + " needs " +
                                  std::to_string(blocks) + " blocks, the table row holds " +
                                  std::to_string(block_table_stride) + at);
    }
    for (int pos = 0; pos < kv_lens[b]; ++pos) {
      const std::int32_t block = block_table[b * static_cast<std::size_t>(block_table_stride) +
                                             static_cast<std::size_t>(pos / block_size)];
      if (block < 0 || block >= num_blocks) {
        throw std::invalid_argument("expand_page_indices: block id " + std::to_string(block) + " at position " +
                                    std::to_string(pos) + " is outside [0, " + std::to_string(num_blocks) + ")" + at);
      }
      out.kv_indices.push_back(block * block_size + pos % block_size);
    }
  }
  return out;
}

PageIndices expand_page_indices(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  return expand_page_indices(in.block_table, in.block_table_stride, p.kv_lens, p.block_size, p.num_blocks);
}

PageIndices page_form_indices(std::span<const std::int32_t> block_table, int block_table_stride,
                              std::span<const int> kv_lens, int block_size, int num_blocks) {
  // The token form checks the table; its first token of each page is that page's block id.
  const PageIndices tokens = expand_page_indices(block_table, block_table_stride, kv_lens, block_size, num_blocks);
  PageIndices out;
  out.kv_indptr.assign(tokens.kv_indptr.size(), 0);
  for (std::size_t b = 0; b + 1 < tokens.kv_indptr.size(); ++b) {
    const int kv_len = tokens.kv_indptr[b + 1] - tokens.kv_indptr[b];
    for (int pos = 0; pos < kv_len; pos += block_size) {
      out.kv_indices.push_back(tokens.kv_indices[static_cast<std::size_t>(tokens.kv_indptr[b] + pos)] / block_size);
    }
    out.kv_indptr[b + 1] = static_cast<std::int32_t>(out.kv_indices.size());
  }
  return out;
}

PageIndices page_form_indices(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  return page_form_indices(in.block_table, in.block_table_stride, p.kv_lens, p.block_size, p.num_blocks);
}

}  // namespace mlacheck
