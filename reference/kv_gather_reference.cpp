#include "reference/kv_gather_reference.hpp"

#include <stdexcept>
#include <string>

#include "core/dtype.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck {

KvGatherOutputs<float> kv_gather_reference(const KvGatherProblem& p, const KvGatherInputs& in) {
  validate(p);
  if (in.cache.size() != static_cast<std::size_t>(cache_elements(p))) {
    throw std::invalid_argument("kv_gather inputs: cache holds " + std::to_string(in.cache.size()) +
                                " values, the problem's strides need " + std::to_string(cache_elements(p)));
  }
  // The gather walks tokens in the same order as the MLA page-index expansion, so it shares it.
  const PageIndices pages =
      expand_page_indices(in.block_table, in.block_table_stride, p.kv_lens, p.block_size, p.num_blocks);
  const bool dequantise = dequantises(p);
  const auto load = [&](bool is_v, int block, int head, int token, int c) {
    const float value = in.cache[static_cast<std::size_t>(cache_offset(p, is_v, block, head, token, c))];
    if (!dequantise) return value;
    return round_to(p.out_dtype, value * (is_v ? p.v_scale : p.k_scale));
  };

  const std::size_t row = static_cast<std::size_t>(p.num_kv_heads) * static_cast<std::size_t>(p.head_size);
  KvGatherOutputs<float> out;
  out.k.resize(pages.kv_indices.size() * row);
  out.v.resize(pages.kv_indices.size() * row);
  for (std::size_t i = 0; i < pages.kv_indices.size(); ++i) {
    const int block = pages.kv_indices[i] / p.block_size;
    const int token = pages.kv_indices[i] % p.block_size;
    for (int head = 0; head < p.num_kv_heads; ++head) {
      for (int c = 0; c < p.head_size; ++c) {
        const std::size_t at = i * row + static_cast<std::size_t>(head) * static_cast<std::size_t>(p.head_size) +
                               static_cast<std::size_t>(c);
        out.k[at] = load(false, block, head, token, c);
        out.v[at] = load(true, block, head, token, c);
      }
    }
  }
  return out;
}

}  // namespace mlacheck
