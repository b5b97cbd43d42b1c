// Host inputs of both problems: the values a request reads depend only on (request, position,
// channel), never on how the cache is laid out, and everything no request reads is NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "core/fill.hpp"
#include "core/gather_inputs.hpp"
#include "core/mla_inputs.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem mla(int block_size, int spare_blocks = 0) {
  MlaDecodeProblem p;
  p.total_heads = 16;
  p.kv_lora_rank = 32;
  p.rope_dim = 16;
  p.kv_lens = {5, 40, 17};
  p.q_lens = {1, 3, 2};
  p.block_size = block_size;
  p.seed = 9;
  p = with_defaults(p);
  p.num_blocks += spare_blocks;
  return p;
}

// The cached latents of every request in logical order [sum kv_lens, Lk], read through the table.
std::vector<float> logical_kv(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  std::vector<float> out;
  const int width = lk(p);
  for (int r = 0; r < batch(p); ++r) {
    for (int pos = 0; pos < p.kv_lens[r]; ++pos) {
      const int block = in.block_table[r * in.block_table_stride + pos / p.block_size];
      const auto first =
          in.kv_cache.begin() + (static_cast<std::ptrdiff_t>(block) * p.block_size + pos % p.block_size) * width;
      out.insert(out.end(), first, first + width);
    }
  }
  return out;
}

TEST(MlaInputs, RankSlicesConcatenateToTheModelQ) {
  const MlaDecodeProblem whole = mla(16);
  const std::vector<float> q = make_inputs(whole).q;
  const int width = lk(whole);
  for (int tp : {2, 4, 16}) {
    std::vector<std::vector<float>> ranks;
    for (int rank = 0; rank < tp; ++rank) {
      MlaDecodeProblem p = whole;
      p.tp = tp;
      p.tp_rank = rank;
      ranks.push_back(make_inputs(p).q);
    }
    std::vector<float> joined;
    const int rank_row = whole.total_heads / tp * width;
    for (int t = 0; t < total_q_tokens(whole); ++t) {
      for (const auto& r : ranks) joined.insert(joined.end(), r.begin() + t * rank_row, r.begin() + (t + 1) * rank_row);
    }
    EXPECT_EQ(joined, q) << "tp=" << tp;
  }
}

TEST(MlaInputs, ValuesReadDoNotDependOnBlockSizeOrPoolSize) {
  const MlaDecodeProblem base = mla(1);
  const std::vector<float> expected = logical_kv(base, make_inputs(base));
  EXPECT_EQ(expected.size(), static_cast<std::size_t>(62 * lk(base)));
  for (int bs : {2, 3, 16, 64}) {
    for (int spare : {0, 7}) {
      const MlaDecodeProblem p = mla(bs, spare);
      EXPECT_EQ(logical_kv(p, make_inputs(p)), expected) << "bs=" << bs << " spare=" << spare;
    }
  }
}

TEST(MlaInputs, SeededKvTensorIsTheLogicalCache) {
  const MlaDecodeProblem p = mla(16);
  std::vector<float> seeded(static_cast<std::size_t>(62 * lk(p)));
  fill_tensor(seeded, p.kv_dtype, p.fill, p.seed, "kv");
  EXPECT_EQ(logical_kv(p, make_inputs(p)), seeded);
}

// The requests fill on several threads: the same bytes as on one, NaN slots included.
TEST(MlaInputs, AreTheSameBytesOnEveryThreadCount) {
  const MlaDecodeProblem p = mla(3, 4);
  const MlaDecodeInputs one = make_inputs(p, 1);
  for (int threads : {2, 3, 8}) {
    const MlaDecodeInputs many = make_inputs(p, threads);
    EXPECT_EQ(many.q, one.q) << threads;
    EXPECT_EQ(many.block_table, one.block_table) << threads;
    ASSERT_EQ(many.kv_cache.size(), one.kv_cache.size()) << threads;
    EXPECT_EQ(std::memcmp(many.kv_cache.data(), one.kv_cache.data(), one.kv_cache.size() * sizeof(float)), 0)
        << threads;
  }
}

TEST(MlaInputs, EverySlotNoRequestUsesIsNaN) {
  const MlaDecodeProblem p = mla(16, 3);
  const MlaDecodeInputs in = make_inputs(p);
  ASSERT_EQ(in.kv_cache.size(), static_cast<std::size_t>(p.num_blocks * p.block_size * lk(p)));
  const auto finite = std::count_if(in.kv_cache.begin(), in.kv_cache.end(), [](float v) { return !std::isnan(v); });
  EXPECT_EQ(finite, 62 * lk(p));  // all read values are finite, so every other slot is NaN
  for (float v : logical_kv(p, in)) ASSERT_FALSE(std::isnan(v));
}

TEST(MlaInputs, BlockTableDealsAPermutationInOrder) {
  const MlaDecodeProblem p = mla(4, 5);
  const MlaDecodeInputs in = make_inputs(p);
  ASSERT_EQ(in.block_table_stride, 10);  // ceil(40 / 4)
  ASSERT_EQ(in.block_table.size(), static_cast<std::size_t>(3 * 10));
  std::set<int> used;
  for (int r = 0; r < batch(p); ++r) {
    for (int i = 0; i < in.block_table_stride; ++i) {
      const int id = in.block_table[r * in.block_table_stride + i];
      if (i < blocks_for(p, r)) {
        EXPECT_GE(id, 0);
        EXPECT_LT(id, p.num_blocks);
        EXPECT_TRUE(used.insert(id).second) << "block " << id << " dealt twice";
      } else {
        EXPECT_EQ(id, -1);
      }
    }
  }
  EXPECT_EQ(used.size(), static_cast<std::size_t>(blocks_needed(p)));
  std::vector<std::int32_t> in_order(in.block_table.begin(), in.block_table.begin() + 2);
  EXPECT_NE(in_order, (std::vector<std::int32_t>{0, 1}));
  MlaDecodeProblem other = p;
  other.seed = 10;
  EXPECT_NE(make_inputs(other).block_table, in.block_table);
}

TEST(MlaInputs, ValuesAreOfTheirDtypes) {
  MlaDecodeProblem p = mla(16);
  p.q_dtype = DType::f16;
  p.kv_dtype = DType::fp8_e4m3fnuz;
  p.kv_scale = 1.0f / 64;
  const MlaDecodeInputs in = make_inputs(p);
  for (float v : in.q) ASSERT_EQ(round_to(DType::f16, v), v);
  float top = 0.0f;
  for (float code : logical_kv(p, in)) {
    ASSERT_EQ(round_to(DType::fp8_e4m3fnuz, code), code);
    top = std::max(top, std::abs(code));
  }
  EXPECT_GT(top * p.kv_scale, 0.9f);  // dequantised values span about [-1, 1]
  EXPECT_LE(top * p.kv_scale, 1.0f);
}

// fp8 queries hold codes of their dtype whose dequantised values (q_scale * code) span about
// [-1, 1], for every profile.
TEST(MlaInputs, Fp8QueriesAreCodesScaledToUnitSize) {
  for (FillProfile profile : {FillProfile::uniform, FillProfile::sink, FillProfile::extreme}) {
    for (float q_scale : {1.0f / 256, 0.3f, 16.0f}) {
      MlaDecodeProblem p = mla(16);
      p.q_dtype = DType::fp8_e4m3fnuz;
      p.kv_dtype = DType::fp8_e4m3fnuz;
      p.q_scale = q_scale;
      p.profile = profile;
      const MlaDecodeInputs in = make_inputs(p);
      float top = 0.0f;
      for (float code : in.q) {
        ASSERT_EQ(round_to(DType::fp8_e4m3fnuz, code), code) << to_repro(p);
        top = std::max(top, std::abs(code));
      }
      EXPECT_LE(top, max_finite(DType::fp8_e4m3fnuz)) << to_repro(p);
      if (profile == FillProfile::uniform) {
        EXPECT_GT(top * q_scale, 0.85f) << to_repro(p);
        EXPECT_LE(top * q_scale, 1.0625f) << to_repro(p);  // within an fp8 ulp of the range
      }
    }
  }
}

TEST(MlaInputs, ExactModeUsesSmallIntegers) {
  MlaDecodeProblem p = mla(16);
  p.fill = FillMode::exact;
  const MlaDecodeInputs in = make_inputs(p);
  std::set<float> seen(in.q.begin(), in.q.end());
  for (float v : logical_kv(p, in)) seen.insert(v);
  EXPECT_EQ(seen, (std::set<float>{-2, -1, 0, 1, 2}));
}

// --- kv_gather ----------------------------------------------------------------------------------

KvGatherProblem gather(CacheLayout layout, bool interleaved, int block_size, DType cache, int spare_blocks = 0) {
  KvGatherProblem p;
  p.layout = layout;
  p.interleaved = interleaved;
  p.num_kv_heads = 2;
  p.head_size = 32;
  p.block_size = block_size;
  p.kv_lens = {5, 70, 33};
  p.cache_dtype = cache;
  p.out_dtype = cache;
  p.seed = 4;
  p.num_blocks = blocks_needed(p) + spare_blocks;
  return with_defaults(p);
}

// K (is_v false) or V of every request token, [tokens, kv_heads, head_size], read through the
// problem's own addressing.
std::vector<float> logical(const KvGatherProblem& p, const KvGatherInputs& in, bool is_v) {
  std::vector<float> out;
  for (int r = 0; r < batch(p); ++r) {
    for (int pos = 0; pos < p.kv_lens[r]; ++pos) {
      const int block = in.block_table[r * in.block_table_stride + pos / p.block_size];
      for (int h = 0; h < p.num_kv_heads; ++h) {
        for (int c = 0; c < p.head_size; ++c) {
          out.push_back(in.cache[static_cast<std::size_t>(cache_offset(p, is_v, block, h, pos % p.block_size, c))]);
        }
      }
    }
  }
  return out;
}

TEST(GatherInputs, EveryLayoutHoldsTheSeededTensors) {
  for (DType dtype : {DType::bf16, DType::fp8_e4m3fn}) {
    std::vector<float> k(static_cast<std::size_t>(108 * 2 * 32)), v(k.size());
    fill_tensor(k, dtype, FillMode::random, 4, "k");
    fill_tensor(v, dtype, FillMode::random, 4, "v");
    for (CacheLayout layout : {CacheLayout::nhd, CacheLayout::shuffle}) {
      for (bool interleaved : {false, true}) {
        for (int bs : {16, 32, 64}) {
          const KvGatherProblem p = gather(layout, interleaved, bs, dtype);
          const KvGatherInputs in = make_inputs(p);
          const auto finite = std::count_if(in.cache.begin(), in.cache.end(), [](float x) { return !std::isnan(x); });
          EXPECT_EQ(finite, static_cast<std::ptrdiff_t>(2 * k.size()));  // every other address is NaN
          EXPECT_EQ(logical(p, in, false), k) << to_repro(p);
          EXPECT_EQ(logical(p, in, true), v) << to_repro(p);
        }
      }
    }
  }
}

TEST(GatherInputs, PaddedStridesLeaveNaNGaps) {
  KvGatherProblem p = gather(CacheLayout::nhd, false, 16, DType::f16);
  p.head_stride = 40;  // 8 elements of padding after each head
  p.token_stride = 2 * 40;
  p.block_stride = 16 * 80;
  p.kv_stride = p.block_stride * p.num_blocks;
  const KvGatherInputs in = make_inputs(p);
  EXPECT_EQ(in.cache.size(), static_cast<std::size_t>(cache_elements(p)));
  EXPECT_TRUE(std::isnan(in.cache[32]));  // first padding element
  const KvGatherProblem dense = gather(CacheLayout::nhd, false, 16, DType::f16);
  EXPECT_EQ(logical(p, in, false), logical(dense, make_inputs(dense), false));
}

TEST(GatherInputs, BlockTableDealsAPermutationInOrder) {
  const KvGatherProblem p = gather(CacheLayout::nhd, false, 16, DType::bf16, 4);
  const KvGatherInputs in = make_inputs(p);
  ASSERT_EQ(in.block_table_stride, 5);
  std::set<int> used;
  for (int r = 0; r < batch(p); ++r) {
    for (int i = 0; i < in.block_table_stride; ++i) {
      const int id = in.block_table[r * in.block_table_stride + i];
      if (i < blocks_for(p, r)) {
        EXPECT_TRUE(id >= 0 && id < p.num_blocks && used.insert(id).second) << id;
      } else {
        EXPECT_EQ(id, -1);
      }
    }
  }
}

TEST(GatherInputs, Fp8CodesCarryTheirScales) {
  KvGatherProblem p = gather(CacheLayout::shuffle, true, 32, DType::fp8_e4m3fnuz);
  p.out_dtype = DType::bf16;
  p.k_scale = 1.0f / 32;
  p.v_scale = 1.0f / 8;
  const KvGatherInputs in = make_inputs(p);
  for (bool is_v : {false, true}) {
    const float scale = is_v ? p.v_scale : p.k_scale;
    float top = 0.0f;
    for (float code : logical(p, in, is_v)) {
      ASSERT_EQ(round_to(p.cache_dtype, code), code);
      top = std::max(top, std::abs(code) * scale);
    }
    EXPECT_GT(top, 0.9f);
    EXPECT_LE(top, 1.0f);
  }
}

}  // namespace
}  // namespace mlacheck
