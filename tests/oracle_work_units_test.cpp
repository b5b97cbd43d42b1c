// The oracle's cut of a case into units for its threads (reference/oracle_work_units.hpp): the
// fixed decomposition, enough units for a 16-core host on the sweep's largest shapes, and a split
// request's results against the unsplit implementation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/tolerance.hpp"
#include "reference/mla_decode_reference.hpp"
#include "reference/oracle_work_units.hpp"
#include "tests/legacy_oracle_statistics.hpp"

namespace mlacheck {
namespace {

// The ranges of a decomposition tile [0, size) in order, none narrower than min(size, width).
void expect_tiles(int size, int count, IndexRange (*range)(int, int), int width, const std::string& what) {
  int next = 0;
  for (int i = 0; i < count; ++i) {
    const IndexRange r = range(size, i);
    EXPECT_EQ(r.begin, next) << what << " " << size << ", unit " << i;
    EXPECT_GE(r.size(), std::min(size, width)) << what << " " << size << ", unit " << i;
    next = r.end;
  }
  EXPECT_EQ(next, size) << what << " " << size;
}

TEST(OracleWorkUnits, TileEachRequestWithoutANarrowUnit) {
  for (int tokens : {0, 1, 7, 255, 256, 257, 511, 512, 4096, 6000, 8192}) {
    expect_tiles(tokens, key_chunk_count(tokens), key_chunk, kOracleKeyChunk, "keys");
  }
  EXPECT_EQ(key_chunk_count(0), 0);
  EXPECT_EQ(key_chunk_count(257), 1);  // the remainder joins the last chunk
  EXPECT_EQ(key_chunk_count(4096), 16);
  for (int lv : {16, 96, 208, 512}) expect_tiles(lv, value_block_count(lv), value_block, kOracleValueColumns, "channels");
  EXPECT_EQ(value_block_count(512), 5);
  // Row blocks keep the statistics' fixed blocks of 8 rows, the last one shorter.
  EXPECT_EQ(row_block_count(18), 3);
  EXPECT_EQ(row_block(18, 2).begin, 16);
  EXPECT_EQ(row_block(18, 2).end, 18);
}

MlaDecodeProblem deepseek_v3(int q_len) {
  MlaDecodeProblem p;
  p.total_heads = 128;
  p.kv_lora_rank = 512;
  p.rope_dim = 64;
  p.kv_lens.assign(8, 4096);
  p.q_lens.assign(8, q_len);
  p.block_size = 64;
  return with_defaults(p);
}

// The shapes whose oracle had a handful of units a case: DeepSeek-V3 decode (8 requests of 128
// heads, q_len 1 and 4, kv 4096) and the MTP3 verify scenario (TP8: 16 heads a rank, 4 query
// tokens, kv 8192). Every stage now has at least 16 units, one a thread of a 16-core host.
TEST(OracleWorkUnits, GiveEveryThreadOfASixteenCoreHostAUnitOnTheLargestShapes) {
  const MlaDecodeProblem mtp = parse_mla_decode(
      "mla_decode:name=mtp3;heads=128;tp=8;rank=0;lv=512;rope=64;scale=0.041666666666666664;kv=8192*2,6000,8192;"
      "q=4*4;bs=16;q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;path=persistent;seed=44");
  for (const MlaDecodeProblem& p : {deepseek_v3(1), deepseek_v3(4), mtp}) {
    const OracleWorkUnits u = oracle_work_units(p);
    EXPECT_GE(u.fewest(), 16) << to_repro(p) << ": keys " << u.key_chunks << ", rows " << u.row_blocks << ", values "
                              << u.value_blocks;
  }
  const OracleWorkUnits q1 = oracle_work_units(deepseek_v3(1));
  EXPECT_EQ(q1.key_chunks, 8 * 16);
  EXPECT_EQ(q1.row_blocks, 8 * 16);
  EXPECT_EQ(q1.value_blocks, 8 * 5);
  EXPECT_EQ(oracle_work_units(mtp).key_chunks, 3 * 32 + 23);
  EXPECT_EQ(oracle_work_units(mtp).row_blocks, 4 * 8);
}

// Requests split into several key chunks and value blocks (one of a single row, which Eigen
// multiplies on its matrix-vector path; chunk and block remainders; a padded request) give the
// outputs of the unsplit implementation bit for bit and its statistics within the relative 1e-12
// that the statistics' rewrite already differed by, on every thread count.
TEST(OracleWorkUnits, SplitRequestsEqualTheUnsplitImplementation) {
  std::vector<MlaDecodeProblem> problems;
  MlaDecodeProblem p;
  p.name = "split";
  p.total_heads = 24;
  p.kv_lora_rank = 208;
  p.rope_dim = 2;
  p.kv_lens = {1300, 0, 517};
  p.q_lens = {2, 3, 1};
  p.block_size = 16;
  p.seed = 7;
  problems.push_back(with_defaults(p));
  MlaDecodeProblem row = p;
  row.name = "one-row";
  row.total_heads = 1;
  row.kv_lens = {777};
  row.q_lens = {1};
  problems.push_back(with_defaults(row));
  MlaDecodeProblem exact = p;
  exact.name = "split-exact";
  exact.fill = FillMode::exact;
  exact.scale = 0.125;
  problems.push_back(with_defaults(exact));
  for (const MlaDecodeProblem& q : problems) {
    ASSERT_GT(key_chunk_count(q.kv_lens[0]), 1) << q.name;
    ASSERT_GT(value_block_count(q.kv_lora_rank), 1) << q.name;
    const MlaDecodeInputs in = make_inputs(q);
    MlaErrorScales unsplit;
    const MlaDecodeOutputs<double> legacy =
        legacy_twin::legacy_mla_decode_reference(q, in, PRoundingPoint::kept_f32, &unsplit);
    for (int threads : {1, 2, 16}) {
      MlaErrorScales split;
      const MlaDecodeOutputs<double> out = mla_decode_reference(q, in, PRoundingPoint::kept_f32, &split, threads);
      const std::string what = q.name + ", " + std::to_string(threads) + " threads";
      ASSERT_EQ(out.o.size(), legacy.o.size()) << what;
      EXPECT_EQ(0, std::memcmp(out.o.data(), legacy.o.data(), out.o.size() * sizeof(double))) << what;
      EXPECT_EQ(0, std::memcmp(out.lse.data(), legacy.lse.data(), out.lse.size() * sizeof(double))) << what;
      static_assert(sizeof(MlaErrorScales) % sizeof(double) == 0, "MlaErrorScales holds doubles only");
      const double* a = reinterpret_cast<const double*>(&split);
      const double* b = reinterpret_cast<const double*>(&unsplit);
      for (std::size_t i = 0; i < sizeof(MlaErrorScales) / sizeof(double); ++i) {
        EXPECT_LE(std::abs(a[i] - b[i]), 1e-12 * std::max(std::abs(a[i]), std::abs(b[i])))
            << what << ", field " << i << ": " << a[i] << " unsplit " << b[i];
      }
      EXPECT_GT(split.p_bucketed[MlaErrorScales::kPBucketBf16].all, 0.0) << what;
    }
    // With P rounded as a kernel rounds it, too.
    const MlaDecodeOutputs<double> rounded = mla_decode_reference(q, in, PRoundingPoint::to_q_dtype, nullptr, 16);
    const MlaDecodeOutputs<double> rounded_legacy =
        legacy_twin::legacy_mla_decode_reference(q, in, PRoundingPoint::to_q_dtype, nullptr);
    EXPECT_EQ(0, std::memcmp(rounded.o.data(), rounded_legacy.o.data(), rounded.o.size() * sizeof(double))) << q.name;
  }
}

}  // namespace
}  // namespace mlacheck
