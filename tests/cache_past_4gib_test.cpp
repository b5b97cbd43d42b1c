// Caches past 4 GiB (issue 13 item 2, UPSTREAM R4): the descriptor's first_block, host inputs that
// hold only the blocks requests read, the oracles reading through block ids past 2^32 bytes, and
// the 64-bit row offsets the kernels use against the 32-bit ones of fault cache-offset-32bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cache_offsets.hpp"
#include "core/error.hpp"
#include "core/mla_inputs.hpp"
#include "properties/support/mla_test_problems.hpp"
#include "reference/mla_decode_plain.hpp"
#include "reference/mla_decode_reference.hpp"
#include "reference/page_indices.hpp"
#include "tests/rejected_field.hpp"

namespace mlacheck {
namespace {

constexpr std::int64_t k4GiB = std::int64_t{1} << 32;

// DeepSeek-V3 at TP8 in bf16 with block size 32: a row is 1152 bytes, a block 36864.
MlaDecodeProblem low(int first_block = 0) {
  MlaDecodeProblem p = test_problem("past4g", 16, {{300, 37, 1}, {1, 4, 1}, 32});
  p.seed = 5;
  p.first_block = first_block;
  return with_defaults(p);
}

MlaDecodeProblem past_4gib() {
  MlaDecodeProblem p = low();
  p.first_block = first_block_past_4gib(p) + 3;
  p.num_blocks = 0;
  return with_defaults(p);
}

// The latents of every request in logical order, read through the table and host_cache_index.
std::vector<float> logical_kv(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  std::vector<float> out;
  for (int r = 0; r < batch(p); ++r) {
    for (int pos = 0; pos < p.kv_lens[r]; ++pos) {
      const std::int64_t block =
          in.block_table[static_cast<std::size_t>(r * in.block_table_stride + pos / p.block_size)];
      const auto first = in.kv_cache.begin() +
                         static_cast<std::ptrdiff_t>(host_cache_index(p, block * p.block_size + pos % p.block_size));
      out.insert(out.end(), first, first + lk(p));
    }
  }
  return out;
}

TEST(CachePast4GiB, FirstBlockOfTheUpstreamGeometry) {
  const MlaDecodeProblem p = low();
  EXPECT_EQ(cache_row_bytes(p), 1152);
  EXPECT_EQ(first_block_past_4gib(p), 116509);  // ceil(2^32 / 36864)
  MlaDecodeProblem q = low(116508);
  EXPECT_FALSE(cache_rows_past_4gib(q));
  q = low(116509);
  EXPECT_TRUE(cache_rows_past_4gib(q));
  // UPSTREAM R4: page ids around 1M at page size 32, kv_lora 512, an fp8 cache (576-byte rows).
  q = low(1000000);
  q.kv_dtype = DType::fp8_e4m3fn;
  EXPECT_TRUE(cache_rows_past_4gib(q));
  EXPECT_GT(cache_pool_bytes(q), 17 * (std::int64_t{1} << 30));  // 18.4 GB
}

TEST(CachePast4GiB, DescriptorDerivesThePoolAndRoundTrips) {
  const MlaDecodeProblem p = past_4gib();
  EXPECT_EQ(p.num_blocks, p.first_block + blocks_needed(p));
  EXPECT_EQ(host_cache_blocks(p), blocks_needed(p));
  EXPECT_GT(cache_pool_bytes(p), k4GiB);
  const std::string repro = to_repro(p);
  EXPECT_NE(repro.find(";first_block=" + std::to_string(p.first_block)), std::string::npos) << repro;
  EXPECT_EQ(parse_mla_decode(repro), p);
}

TEST(CachePast4GiB, OldReproStringsStayCanonical) {
  const MlaDecodeProblem p = low();
  const std::string repro = to_repro(p);
  EXPECT_EQ(repro.find("first_block"), std::string::npos) << repro;
  EXPECT_EQ(parse_mla_decode(repro).first_block, 0);
  EXPECT_EQ(to_repro(parse_mla_decode(repro)), repro);
  EXPECT_EQ(parse_mla_decode("mla_decode:kv=17;bs=16").num_blocks, 2);
  EXPECT_EQ(parse_mla_decode("mla_decode:kv=17;bs=16;first_block=5").num_blocks, 7);
}

TEST(CachePast4GiB, ValidationNamesFirstBlockAndThePool) {
  MlaDecodeProblem p = low();
  p.first_block = -1;
  EXPECT_EQ(rejected_field(p), "first_block");
  p = past_4gib();
  p.num_blocks = p.first_block + blocks_needed(p) - 1;  // one block short of the requests' blocks
  EXPECT_EQ(rejected_field(p), "blocks");
  p = low();
  p.first_block = 60000000;  // 2^31 slots and beyond: the 32-bit slot index runs out
  p.num_blocks = 0;
  EXPECT_EQ(rejected_field(with_defaults(p)), "blocks");
  // first_block + the requests' blocks past INT_MAX: the default count saturates, never wraps.
  p.first_block = std::numeric_limits<int>::max();
  p.num_blocks = 0;
  EXPECT_EQ(with_defaults(p).num_blocks, std::numeric_limits<int>::max());
  EXPECT_EQ(rejected_field(with_defaults(p)), "blocks");
}

TEST(CachePast4GiB, HostInputsHoldOnlyTheBlocksRequestsRead) {
  const MlaDecodeProblem p = past_4gib();
  const MlaDecodeInputs in = make_inputs(p);
  // Host memory proportional to the tokens: 10 + 2 + 1 blocks of 32 rows, not a 4 GiB pool.
  EXPECT_EQ(in.kv_cache.size(), static_cast<std::size_t>(13 * 32 * lk(p)));
  EXPECT_LT(in.kv_cache.size() * sizeof(float), std::size_t{1} << 20);
  std::set<int> ids;
  for (int r = 0; r < batch(p); ++r) {
    for (int j = 0; j < blocks_for(p, r); ++j) {
      const int id = in.block_table[static_cast<std::size_t>(r * in.block_table_stride + j)];
      EXPECT_GE(id, p.first_block);
      EXPECT_LT(id, p.num_blocks);
      ids.insert(id);
    }
  }
  EXPECT_EQ(ids.size(), 13u);  // each block dealt once
  EXPECT_THROW((void)host_cache_index(p, std::int64_t{p.first_block} * p.block_size - 1), std::out_of_range);
  EXPECT_THROW((void)host_cache_index(p, std::int64_t{p.num_blocks} * p.block_size), std::out_of_range);
}

TEST(CachePast4GiB, ValuesReadDoNotDependOnWhereThePoolPutsThem) {
  const MlaDecodeProblem base = low();
  const MlaDecodeProblem high = past_4gib();
  const MlaDecodeInputs base_in = make_inputs(base);
  const MlaDecodeInputs high_in = make_inputs(high);
  EXPECT_EQ(logical_kv(high, high_in), logical_kv(base, base_in));
  EXPECT_EQ(high_in.q, base_in.q);
}

TEST(CachePast4GiB, OraclesReadThroughHighBlockIds) {
  const MlaDecodeProblem base = low();
  const MlaDecodeProblem high = past_4gib();
  const MlaDecodeInputs base_in = make_inputs(base);
  const MlaDecodeInputs high_in = make_inputs(high);
  const MlaDecodeOutputs<double> expected = mla_decode_reference(base, base_in);
  const MlaDecodeOutputs<double> got = mla_decode_reference(high, high_in);
  EXPECT_EQ(got.o, expected.o);  // the same values in the same order: bit for bit
  EXPECT_EQ(got.lse, expected.lse);
  for (double v : got.o) ASSERT_TRUE(std::isfinite(v));
  const MlaDecodeOutputs<double> plain = mla_decode_plain(high, high_in);
  EXPECT_EQ(plain.o, mla_decode_plain(base, base_in).o);
}

TEST(CachePast4GiB, RowOffsetsAre64Bit) {
  // slot 4M of a 576-wide bf16 row: element 2.3e9, byte 4.6e9, past both int32 and 2^32 bytes.
  constexpr std::int32_t slot = 4000000;
  EXPECT_EQ(cache_row_offset(slot, 576), std::int64_t{2304000000});
  EXPECT_EQ(cache_row_offset(std::int32_t{2147483647}, 4096), std::int64_t{2147483647} * 4096);
  // Below 4 GiB the 32-bit offset is right; past it, it wraps by 2^32 bytes.
  EXPECT_EQ(wrapped_cache_row_offset(1000, 576, 2), cache_row_offset(1000, 576));
  EXPECT_EQ(wrapped_cache_row_offset(slot, 576, 2), (std::int64_t{slot} * 1152 - k4GiB) / 2);
  EXPECT_EQ(wrapped_cache_row_offset(slot, 576, 1), (std::int64_t{slot} * 576) % k4GiB);
  static_assert(cache_row_offset(3, 576) == 1728);
}

// Why fault cache-offset-32bit cannot pass a case whose rows all lie past 4 GiB: every row it reads
// moves exactly 2^32 * k bytes down, onto a block below first_block, which the host never held and
// staging fills with NaN codes (device/staging), so O turns NaN and the comparison fails.
TEST(CachePast4GiB, EveryWrappedRowLandsInThePoisonBelowFirstBlock) {
  for (DType kv : {DType::bf16, DType::fp8_e4m3fn}) {
    MlaDecodeProblem p = low();
    p.kv_dtype = kv;
    p.first_block = first_block_past_4gib(p) + 1;
    p.num_blocks = 0;
    p = with_defaults(p);
    ASSERT_TRUE(cache_rows_past_4gib(p));
    const MlaDecodeInputs in = make_inputs(p);
    const PageIndices pages = expand_page_indices(p, in);
    const auto element_bytes = static_cast<int>(storage_bytes(kv));
    const std::int64_t first_row = std::int64_t{p.first_block} * p.block_size * lk(p);
    for (std::int32_t slot : pages.kv_indices) {
      const std::int64_t right = cache_row_offset(slot, lk(p));
      const std::int64_t wrapped = wrapped_cache_row_offset(slot, lk(p), element_bytes);
      ASSERT_GE(right, first_row);
      ASSERT_NE(wrapped, right) << "slot " << slot;
      ASSERT_EQ((right - wrapped) * element_bytes % k4GiB, 0) << "slot " << slot;
      ASSERT_LE(wrapped + lk(p), first_row) << "slot " << slot << ": a wrapped row overlaps the blocks read";
    }
  }
}

}  // namespace
}  // namespace mlacheck
