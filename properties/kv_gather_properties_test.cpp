// The gather oracle reads the logical cache whatever the layout, interleave and strides.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/dtype.hpp"
#include "core/fill.hpp"
#include "core/gather_inputs.hpp"
#include "generators/gather_problem_gen.hpp"
#include "reference/kv_gather_reference.hpp"

namespace mlacheck {
namespace {

// The addressing of gather_problem.hpp and UPSTREAM.md, written out here rather than taken from
// core's cache_offset() (which the gather oracle uses), so that data placed by this function and
// read back by the oracle proves the two agree.
std::int64_t documented_offset(const KvGatherProblem& p, bool is_v, int block, int head, int token, int c) {
  const std::int64_t base =
      (is_v ? p.kv_stride : 0) + std::int64_t{block} * p.block_stride + std::int64_t{head} * p.head_stride;
  if (p.layout == CacheLayout::nhd) return base + std::int64_t{token} * p.token_stride + c;
  const std::int64_t x = 16 / static_cast<std::int64_t>(storage_bytes(p.cache_dtype));
  const std::int64_t block_size = p.block_size;
  const std::int64_t head_size = p.head_size;
  if (!is_v) return base + token * x + (c / x) * block_size * x + c % x;
  return base + (token / x) * head_size * x + token % x + c * x;
}

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
           return std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y);
         });
}

RC_GTEST_PROP(KvGather, EveryLayoutGathersTheLogicalCache, (const KvGatherProblem& p)) {
  const auto uz = [](auto v) { return static_cast<std::size_t>(v); };
  const std::size_t h = uz(p.num_kv_heads);
  const std::size_t d = uz(p.head_size);
  const std::size_t bs = uz(p.block_size);

  // The logical pool, [num_blocks, kv_heads, block_size, head_size] for K and V, placed into a
  // NaN cache at the documented addresses; the block table is make_inputs' own.
  KvGatherInputs in = make_inputs(p);
  in.cache.assign(uz(cache_elements(p)), std::numeric_limits<float>::quiet_NaN());
  std::vector<float> logical[2];
  for (const bool is_v : {false, true}) {
    std::vector<float>& pool = logical[is_v];
    pool.resize(uz(p.num_blocks) * h * bs * d);
    fill_tensor(pool, p.cache_dtype, p.fill, p.seed, is_v ? "logical_v" : "logical_k");
    for (std::size_t i = 0; i < pool.size(); ++i) {
      const auto c = static_cast<int>(i % d);
      const auto token = static_cast<int>(i / d % bs);
      const auto head = static_cast<int>(i / (d * bs) % h);
      const auto block = static_cast<int>(i / (d * bs * h));
      in.cache[uz(documented_offset(p, is_v, block, head, token, c))] = pool[i];
    }
  }

  KvGatherOutputs<float> expected;
  for (int r = 0; r < static_cast<int>(p.kv_lens.size()); ++r) {
    for (int pos = 0; pos < p.kv_lens[uz(r)]; ++pos) {
      const auto block = uz(in.block_table[uz(r) * uz(in.block_table_stride) + uz(pos) / bs]);
      for (std::size_t head = 0; head < h; ++head) {
        for (std::size_t c = 0; c < d; ++c) {
          const std::size_t at = ((block * h + head) * bs + uz(pos) % bs) * d + c;
          const float k = logical[0][at];
          const float v = logical[1][at];
          expected.k.push_back(dequantises(p) ? round_to(p.out_dtype, k * p.k_scale) : k);
          expected.v.push_back(dequantises(p) ? round_to(p.out_dtype, v * p.v_scale) : v);
        }
      }
    }
  }

  const KvGatherOutputs<float> out = kv_gather_reference(p, in);
  RC_ASSERT(bitwise_equal(out.k, expected.k));
  RC_ASSERT(bitwise_equal(out.v, expected.v));
  RC_TAG(std::string(to_string(p.layout)), p.interleaved ? "interleaved" : "contiguous");
  RC_CLASSIFY(dequantises(p), "dequantised");
  RC_CLASSIFY(cache_elements(p) > 2 * std::int64_t{p.num_blocks} * p.block_size * p.num_kv_heads * p.head_size,
              "padded strides");
}

}  // namespace
}  // namespace mlacheck
