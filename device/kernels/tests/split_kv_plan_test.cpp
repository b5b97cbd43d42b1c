// The split-KV plan without a GPU: tile widths, the choice of num_splits, workspace sizes and the
// shapes the kernels refuse.
#include "device/kernels/split_kv_plan.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "core/mla_problem.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck::kernels {
namespace {

MlaDecodeProblem problem(int total_heads, int lv, int rope, std::vector<int> kv_lens, std::vector<int> q_lens) {
  return with_defaults(latent_problem(total_heads, lv, rope, {std::move(kv_lens), std::move(q_lens)}));
}

TEST(SplitKvPlan, TileWidthsFollowLvAndRopeSeparately) {
  EXPECT_EQ(value_tile_width(512), 512);
  // Mistral-Small-4 (Lv 256, R 64): the value tile is 256, not next_pow2(Lk = 320) = 512 (S5).
  EXPECT_EQ(value_tile_width(256), 256);
  EXPECT_EQ(value_tile_width(16), 16);
  EXPECT_EQ(value_tile_width(272), 512);
  EXPECT_EQ(rope_tile_width(0), 0);
  EXPECT_EQ(rope_tile_width(1), 8);  // at least one 16-byte chunk of 16-bit codes
  EXPECT_EQ(rope_tile_width(9), 16);
  EXPECT_EQ(rope_tile_width(33), 64);
  EXPECT_EQ(rope_tile_width(64), 64);
}

TEST(SplitKvPlan, TileWidthFromLkFaultPutsBackTheUpstreamChoice) {
  EXPECT_EQ(latent_tiles(256, 64, false).value, 256);
  EXPECT_EQ(latent_tiles(256, 64, false).rope, 64);
  // Mistral-Small-4: one 512 tile for Lk = 320 and no rope tile, as the Triton decode chose.
  EXPECT_EQ(latent_tiles(256, 64, true).value, 512);
  EXPECT_EQ(latent_tiles(256, 64, true).rope, 0);
  // DeepSeek-V3: next_pow2(576) = 1024, wider than any kernel instance (kMaxValueTile).
  EXPECT_GT(latent_tiles(512, 64, true).value, kMaxValueTile);
  // Without rope Lk = Lv and the mistake changes nothing.
  EXPECT_EQ(latent_tiles(512, 0, true).value, latent_tiles(512, 0, false).value);
}

// The fp8 score products read 32-wide steps: the values' zero padding must end before the rope,
// and the rope needs its own tile.
TEST(SplitKvPlan, Fp8StepsFitTheModelWidthsButNotAHalfStepTileOrTheLkFault) {
  EXPECT_TRUE(fp8_steps_fit(512, 64, latent_tiles(512, 64, false)));
  EXPECT_TRUE(fp8_steps_fit(256, 64, latent_tiles(256, 64, false)));
  EXPECT_TRUE(fp8_steps_fit(48, 8, latent_tiles(48, 8, false)));  // padded to 64 values, 32 rope bytes
  EXPECT_TRUE(fp8_steps_fit(512, 0, latent_tiles(512, 0, false)));
  EXPECT_FALSE(fp8_steps_fit(16, 64, latent_tiles(16, 64, false)));  // a 32-byte step would reach the rope
  EXPECT_FALSE(fp8_steps_fit(256, 64, latent_tiles(256, 64, true)));
}

// Up to max_row_tiles per block, blocks of every size one per CU.
RowTilePolicy up_to(int max_row_tiles) { return RowTilePolicy{max_row_tiles, 1}; }

// Hopper's: one-tile blocks two per SM.
constexpr RowTilePolicy kHopper{4, 2};

TEST(SplitKvPlan, RowGroupsGatherTheTokensAndHeadTilesThatShareKv) {
  const auto expect_groups = [](int padded_heads, int max_q_len, int max_row_tiles, RowGroups want) {
    const RowGroups g = row_groups(padded_heads, max_q_len, up_to(max_row_tiles));
    EXPECT_EQ(g.row_tiles, want.row_tiles) << padded_heads << " heads, q_len " << max_q_len;
    EXPECT_EQ(g.head_tiles, want.head_tiles) << padded_heads << " heads, q_len " << max_q_len;
    EXPECT_EQ(g.tokens, want.tokens) << padded_heads << " heads, q_len " << max_q_len;
  };
  expect_groups(16, 1, 4, {1, 1, 1});   // 16 heads, plain decode: one row tile
  expect_groups(16, 2, 4, {2, 1, 2});   // both query tokens of a request in one block
  expect_groups(16, 6, 4, {4, 1, 4});   // q_len 6: tokens 0-3 and 4-5
  expect_groups(32, 1, 4, {2, 2, 1});   // 32 heads of one token
  expect_groups(32, 2, 4, {4, 2, 2});
  expect_groups(128, 2, 4, {4, 4, 1});  // 8 head tiles: two groups per token
  expect_groups(48, 1, 4, {4, 3, 1});   // 3 head tiles in 4 slots
  expect_groups(80, 1, 4, {1, 1, 1});   // 5 head tiles: no divisor in 2..4
  expect_groups(128, 1, 1, {1, 1, 1});  // a platform or dtype pair of one row tile
  const SplitKvShape s = split_kv_shape(problem(128, 512, 64, {100, 200, 300}, {2, 1, 2}), 1);
  EXPECT_EQ(row_group_blocks(s, row_groups(s.padded_heads, s.max_q_len, up_to(4))), 3 * 2 * 2);
}

TEST(SplitKvPlan, EnoughBlocksAlreadyMeansOneSplit) {
  EXPECT_EQ(choose_num_splits(1024, 4096, 132), 1);
  EXPECT_EQ(choose_num_splits(264, 1 << 20, 132), 1);
  // FlashMLA's 128 requests x 16 heads on 132 SMs: 128 blocks fill all but 4 SMs; a second split
  // would only add a wave.
  EXPECT_EQ(choose_num_splits(128, 4096, 132), 1);
}

TEST(SplitKvPlan, FewBlocksSplitToCoverTheDevice) {
  // 40 blocks: three splits make 120 blocks, one wave; four would need two.
  EXPECT_EQ(choose_num_splits(40, 4096, 132), 3);
  // One request: limited by split length (4096 / 256 = 16), then by kMaxAutoSplits.
  EXPECT_EQ(choose_num_splits(1, 4096, 132), 16);
  EXPECT_EQ(choose_num_splits(1, 1 << 20, 1000), kMaxAutoSplits);
  // Too short to be worth splitting.
  EXPECT_EQ(choose_num_splits(1, 300, 132), 1);
  EXPECT_EQ(choose_num_splits(1, 4096, 0), 1);  // an unknown CU count counts as one CU: nothing to fill
}

TEST(SplitKvPlan, ProblemSplitsOverrideTheChoice) {
  MlaDecodeProblem p = problem(16, 512, 64, {4096}, {1});
  EXPECT_EQ(split_kv_num_splits(p, 132, up_to(4)), 16);
  p.num_splits = 5;
  EXPECT_EQ(split_kv_num_splits(p, 132, up_to(4)), 5);
  // Row groups count as blocks: 128 heads x 2 tokens = 4 groups of 64 rows.
  EXPECT_EQ(split_kv_num_splits(problem(128, 512, 64, {4096}, {2}), 132, up_to(4)), 16);
  // 40 requests x 2 groups = 80 blocks on 132 SMs: three splits give 240 blocks, two waves of a
  // third of the length each.
  EXPECT_EQ(split_kv_num_splits(problem(128, 512, 64, std::vector<int>(40, 4096), std::vector<int>(40, 1)), 132, up_to(4)),
            3);
  EXPECT_EQ(
      split_kv_num_splits(problem(128, 512, 64, std::vector<int>(128, 4096), std::vector<int>(128, 1)), 132, up_to(4)),
      1);
}

TEST(SplitKvPlan, BlocksThatShareACuCountAsThatManySlots) {
  const auto requests = [](int heads, int n) {
    return problem(heads, 512, 64, std::vector<int>(n, 4096), std::vector<int>(n, 1));
  };
  // 128 requests x 16 heads: 128 one-tile blocks on 132 SMs holding two each; two splits fill
  // 256 of the 264 slots with half the tokens each.
  EXPECT_EQ(split_kv_num_splits(requests(16, 128), 132, kHopper), 2);
  EXPECT_EQ(split_kv_num_splits(requests(16, 128), 132, up_to(4)), 1);
  // 32 heads: 128 two-tile blocks, one per SM; a second split would take a second wave.
  EXPECT_EQ(split_kv_num_splits(requests(32, 128), 132, kHopper), 1);
  EXPECT_EQ(kHopper.blocks_per_cu(1), 2);
  EXPECT_EQ(kHopper.blocks_per_cu(2), 1);
  // 64 heads: one four-tile block per request, one per SM.
  EXPECT_EQ(split_kv_num_splits(requests(64, 128), 132, kHopper), 1);
}

TEST(SplitKvPlan, ShapeCarriesPaddedHeadsAndScales) {
  MlaDecodeProblem p = problem(64, 256, 64, {10, 20}, {1, 3});
  p.tp = 8;  // 8 heads per rank, padded to 16
  p.kv_dtype = DType::fp8_e4m3fnuz;
  p.kv_scale = 0.25f;
  EXPECT_EQ(split_kv_shape(p, 7).q_scale, 1.0f);
  p.q_dtype = DType::fp8_e4m3fnuz;  // fp8 queries with a scale of their own (issue 16)
  p.q_scale = 0.3f;
  const SplitKvShape s = split_kv_shape(p, 7);
  EXPECT_EQ(s.batch, 2);
  EXPECT_EQ(s.total_q_tokens, 4);
  EXPECT_EQ(s.max_q_len, 3);
  EXPECT_EQ(s.padded_heads, 16);
  EXPECT_EQ(s.lv, 256);
  EXPECT_EQ(s.rope, 64);
  EXPECT_EQ(s.kv_dtype, DType::fp8_e4m3fnuz);
  EXPECT_FLOAT_EQ(s.scale, static_cast<float>(p.scale));
  EXPECT_EQ(s.kv_scale, 0.25f);
  EXPECT_EQ(s.q_dtype, DType::fp8_e4m3fnuz);
  EXPECT_EQ(s.q_scale, 0.3f);
  EXPECT_EQ(s.num_splits, 7);
  EXPECT_EQ(split_kv_unsupported(s), std::nullopt);
}

TEST(SplitKvPlan, SplitRangesTileTheRequestAndThoseBeyondItsTokensAreEmpty) {
  for (int kv_len : {0, 1, 9, 15, 16, 17, 40, 4096, 4097}) {
    for (int splits : {1, 2, 3, 16, 64, 4096}) {
      SCOPED_TRACE("kv_len " + std::to_string(kv_len) + ", " + std::to_string(splits) + " splits");
      std::int64_t reached = 0;
      int non_empty = 0;
      for (int s = 0; s < splits; ++s) {
        const KvRange r = split_kv_range(kv_len, splits, s);
        if (r.end <= r.begin) {
          EXPECT_GE(r.begin, kv_len) << "split " << s << ": an empty split before the request's end";
          continue;
        }
        EXPECT_EQ(r.begin, reached) << "split " << s;
        EXPECT_EQ(r.begin % kKvTile, 0) << "split " << s;
        reached = r.end;
        ++non_empty;
      }
      EXPECT_EQ(reached, kv_len);
      // A split holds at least one kv tile, so the splits past the request's tiles are empty.
      EXPECT_LE(non_empty, (kv_len + kKvTile - 1) / kKvTile);
    }
  }
  // A padded request owns only empty splits; 9 tokens in 16 splits fill the first alone.
  EXPECT_EQ(split_kv_range(0, 8, 0).end, 0);
  EXPECT_EQ(split_kv_range(9, 16, 0).end, 9);
  EXPECT_LE(split_kv_range(9, 16, 1).end, split_kv_range(9, 16, 1).begin);
}

TEST(SplitKvPlan, WorkspaceHoldsOnePartialPerRowAndSplit) {
  const SplitKvShape s = split_kv_shape(problem(128, 512, 64, {100, 200}, {2, 1}), 4);
  const SplitKvWorkspace w = split_kv_workspace(s);
  EXPECT_EQ(w.partial_lse_floats, std::size_t{3} * 128 * 4);
  EXPECT_EQ(w.partial_o_floats, std::size_t{3} * 128 * 4 * 512);
}

TEST(SplitKvPlan, SupportsEveryModelShape) {
  for (int lv = 16; lv <= 512; lv += 16) {
    for (int rope : {0, 1, 7, 8, 33, 64}) {
      EXPECT_EQ(split_kv_unsupported(split_kv_shape(problem(16, lv, rope, {5}, {1}), 1)), std::nullopt)
          << "lv=" << lv << " rope=" << rope;
    }
  }
  for (DType kv : {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
    SplitKvShape s = split_kv_shape(problem(16, 512, 64, {5}, {1}), kMaxSplits);
    s.kv_dtype = kv;
    s.q_dtype = DType::f16;
    s.o_dtype = DType::f16;
    EXPECT_EQ(split_kv_unsupported(s), std::nullopt) << to_string(kv);
    if (is_fp8(kv)) {  // fp8 queries against their own cache type (issue 16), any positive scale
      s.q_dtype = kv;
      s.q_scale = 0.013671875f;
      EXPECT_EQ(split_kv_unsupported(s), std::nullopt) << to_string(kv);
    }
  }
}

// The reason names the field and its value.
void expect_refused(const SplitKvShape& s, const std::string& mentions) {
  const auto why = split_kv_unsupported(s);
  ASSERT_TRUE(why.has_value()) << mentions;
  EXPECT_NE(why->find(mentions), std::string::npos) << *why;
}

// `ok` with fields changed by `edit` is refused, the reason naming `mentions`.
template <class Edit>
void expect_edit_refused(const SplitKvShape& ok, const std::string& mentions, Edit edit) {
  SplitKvShape s = ok;
  edit(s);
  expect_refused(s, mentions);
}

TEST(SplitKvPlan, RefusesWhatNoKernelHandles) {
  const SplitKvShape ok = split_kv_shape(problem(16, 512, 64, {5}, {1}), 1);
  expect_edit_refused(ok, "lv=1024", [](SplitKvShape& e) { e.lv = 1024; });
  expect_edit_refused(ok, "lv=24", [](SplitKvShape& e) { e.lv = 24; });
  expect_edit_refused(ok, "rope=65", [](SplitKvShape& e) { e.rope = 65; });
  expect_edit_refused(ok, "padded_heads=24", [](SplitKvShape& e) { e.padded_heads = 24; });
  expect_edit_refused(ok, "q_dtype=f32", [](SplitKvShape& e) { e.q_dtype = DType::f32; });
  // fp8 queries run only against a cache of their own fp8 type: a bf16 cache, or the other fp8
  // variant, has no kernel instance.
  SplitKvShape s = ok;
  s.q_dtype = DType::fp8_e4m3fn;
  expect_refused(s, "q_dtype=fp8_e4m3fn");
  expect_refused(s, "kv_dtype=bf16");
  s.kv_dtype = DType::fp8_e4m3fnuz;
  expect_refused(s, "kv_dtype=fp8_e4m3fnuz");
  s.kv_dtype = DType::fp8_e4m3fn;
  EXPECT_EQ(split_kv_unsupported(s), std::nullopt);
  for (float bad : {0.0f, -1.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    s.q_scale = bad;
    expect_refused(s, "q_scale");
  }
  // a scale on bf16 queries, which the kernels would multiply in
  expect_edit_refused(ok, "q_scale", [](SplitKvShape& e) { e.q_scale = 2.0f; });
  expect_edit_refused(ok, "kv_dtype=f32", [](SplitKvShape& e) { e.kv_dtype = DType::f32; });
  expect_edit_refused(ok, "o_dtype=f32", [](SplitKvShape& e) { e.o_dtype = DType::f32; });
  expect_edit_refused(ok, "num_splits=0", [](SplitKvShape& e) { e.num_splits = 0; });
  expect_edit_refused(ok, "num_splits=4097", [](SplitKvShape& e) { e.num_splits = kMaxSplits + 1; });
  expect_edit_refused(ok, "max_q_len=0", [](SplitKvShape& e) { e.max_q_len = 0; });
  expect_edit_refused(ok, "total_q_tokens*padded_heads", [](SplitKvShape& e) {
    e.total_q_tokens = 1 << 27;
    e.padded_heads = 64;
  });
}

}  // namespace
}  // namespace mlacheck::kernels
