// Known answers for the reference: small cases worked out by hand, so that the oracles are pinned
// to the definitions of DESIGN.md and UPSTREAM.md and not only to each other (the properties
// compare them with each other and with themselves).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_inputs.hpp"
#include "properties/support/mla_test_problems.hpp"
#include "reference/head_padding.hpp"
#include "reference/kv_gather_reference.hpp"
#include "reference/mla_decode_plain.hpp"
#include "reference/mla_decode_reference.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck {
namespace {

TEST(ExpandPageIndices, GivesBlockTimesBlockSizePlusOffset) {
  // Request 0 owns blocks 3 then 1, request 1 owns block 0; block size 4.
  const std::vector<std::int32_t> table{3, 1, 0, -1};
  const std::vector<int> kv_lens{5, 3};
  const PageIndices pages = expand_page_indices(table, 2, kv_lens, 4, 4);
  EXPECT_EQ(pages.kv_indices, (std::vector<std::int32_t>{12, 13, 14, 15, 4, 0, 1, 2}));
  EXPECT_EQ(pages.kv_indptr, (std::vector<std::int32_t>{0, 5, 8}));
}

TEST(ExpandPageIndices, PageFormHoldsOneBlockIdPerPage) {
  // The same table in the form a paged kernel takes (fault kernel-ignores-page-size, R8): request 0
  // has ceil(5 / 4) = 2 pages, request 1 one.
  const std::vector<std::int32_t> table{3, 1, 0, -1};
  const std::vector<int> kv_lens{5, 3};
  const PageIndices pages = page_form_indices(table, 2, kv_lens, 4, 4);
  EXPECT_EQ(pages.kv_indices, (std::vector<std::int32_t>{3, 1, 0}));
  EXPECT_EQ(pages.kv_indptr, (std::vector<std::int32_t>{0, 2, 3}));
  EXPECT_THROW(page_form_indices(std::vector<std::int32_t>{3, -1}, 2, std::vector<int>{5}, 4, 4),
               std::invalid_argument);
}

TEST(ExpandPageIndices, RejectsATableThatDoesNotCoverTheCache) {
  const std::vector<int> kv_lens{5};
  EXPECT_THROW(expand_page_indices(std::vector<std::int32_t>{3, -1}, 2, kv_lens, 4, 4), std::invalid_argument);
  EXPECT_THROW(expand_page_indices(std::vector<std::int32_t>{3, 4}, 2, kv_lens, 4, 4), std::invalid_argument);
  EXPECT_THROW(expand_page_indices(std::vector<std::int32_t>{3}, 1, kv_lens, 4, 4), std::invalid_argument);
}

MlaDecodeProblem heads_problem(int total_heads, int tp) {
  MlaDecodeProblem p;
  p.total_heads = total_heads;
  p.tp = tp;
  return with_defaults(p);
}

TEST(HeadPadding, RepeatInterleavesHeadCountsDividing16) {
  const MlaDecodeProblem p = heads_problem(32, 8);  // 4 heads per rank
  std::vector<float> q(4);
  std::iota(q.begin(), q.end(), 0.0f);  // one row, head h holds h
  EXPECT_EQ(pad_heads<float>(p, q, 1),
            (std::vector<float>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));  // q.repeat_interleave(4)
  std::vector<float> o(16);
  std::iota(o.begin(), o.end(), 0.0f);
  EXPECT_EQ(unpad_heads<float>(p, o, 1), (std::vector<float>{0, 4, 8, 12}));  // o[:, ::4]
}

TEST(HeadPadding, TilesOtherHeadCountsToTheNextMultipleOf16) {
  const MlaDecodeProblem p = heads_problem(96, 8);  // 12 heads per rank
  std::vector<double> q(24);
  std::iota(q.begin(), q.end(), 0.0);  // one row, head h holds (2h, 2h + 1)
  const std::vector<double> padded = pad_heads<double>(p, q, 2);
  ASSERT_EQ(padded.size(), 32u);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(padded[2 * j], 2.0 * (j % 12)) << "padded head " << j;
    EXPECT_EQ(padded[2 * j + 1], 2.0 * (j % 12) + 1) << "padded head " << j;
  }
  EXPECT_EQ(unpad_heads<double>(p, padded, 2), q);  // o[:, :12]
}

// One head, Lk = Lv = 16, scale 1, two query tokens over two cached tokens stored in reversed
// blocks. Scores: q = e0 gives s = (0, 1). Row 0 sees token 0 only; row 1 sees both.
struct TwoTokenCase {
  MlaDecodeProblem p;
  MlaDecodeInputs in;
  std::vector<double> v0, v1;  // the cached latents (and values)
};

TwoTokenCase two_token_case() {
  TwoTokenCase c;
  c.p.total_heads = 1;
  c.p.kv_lora_rank = 16;
  c.p.rope_dim = 0;
  c.p.scale = 1.0;
  c.p.kv_lens = {2};
  c.p.q_lens = {2};
  c.p.block_size = 1;
  c.p = with_defaults(c.p);
  c.v0.assign(16, 0.0);
  c.v1.assign(16, 0.0);
  c.v0[1] = 1.0;
  c.v1[0] = 1.0;
  c.v1[1] = 3.0;
  c.in.q.assign(32, 0.0f);
  c.in.q[0] = c.in.q[16] = 1.0f;
  c.in.block_table = {1, 0};  // token 0 in block 1, token 1 in block 0
  c.in.block_table_stride = 2;
  c.in.kv_cache.assign(32, 0.0f);
  for (int i = 0; i < 16; ++i) {
    c.in.kv_cache[16 + i] = static_cast<float>(c.v0[i]);
    c.in.kv_cache[i] = static_cast<float>(c.v1[i]);
  }
  return c;
}

void expect_two_token_answer(const MlaDecodeOutputs<double>& out, double w0) {
  // Row 1: O = (w0 v0 + 1 v1) / (e^-1 + 1) with m = 1, w0 = e^-1 (or its rounding); LSE = 1 + ln(e^-1 + 1).
  const double l = std::exp(-1.0) + 1.0;
  ASSERT_EQ(out.o.size(), 32u);
  for (int c = 0; c < 16; ++c) {
    const double row0 = c == 1 ? 1.0 : 0.0;
    const double row1 = (w0 * (c == 1 ? 1.0 : 0.0) + (c == 0 ? 1.0 : c == 1 ? 3.0 : 0.0)) / l;
    EXPECT_NEAR(out.o[c], row0, 1e-14) << "row 0 channel " << c;
    EXPECT_NEAR(out.o[16 + c], row1, 1e-14) << "row 1 channel " << c;
  }
  EXPECT_NEAR(out.lse[0], 0.0, 1e-14);
  EXPECT_NEAR(out.lse[1], 1.0 + std::log(l), 1e-14);
}

TEST(MlaDecodeOracles, GiveTheHandWorkedCausalAnswer) {
  const TwoTokenCase c = two_token_case();
  expect_two_token_answer(mla_decode_reference(c.p, c.in), std::exp(-1.0));
  expect_two_token_answer(mla_decode_plain(c.p, c.in), std::exp(-1.0));
}

TEST(MlaDecodeOracles, RoundPToTheQueryDtypeBeforePV) {
  const TwoTokenCase c = two_token_case();  // q_dtype bf16
  const double rounded = round_to(DType::bf16, static_cast<float>(std::exp(-1.0)));
  ASSERT_NE(rounded, std::exp(-1.0));
  expect_two_token_answer(mla_decode_reference(c.p, c.in, PRoundingPoint::to_q_dtype), rounded);
  expect_two_token_answer(mla_decode_plain(c.p, c.in, PRoundingPoint::to_q_dtype), rounded);
}

// The oracle takes the one rounding-point enum: every point that rounds P to one dtype is modelled,
// P kept stays exact, and a hi + lo split, which no single rounding models, is refused.
TEST(MlaDecodeOracles, RoundPWhereTheDeclaredPointRoundsIt) {
  const TwoTokenCase c = two_token_case();  // q_dtype bf16
  const double to_f16 = round_to(DType::f16, static_cast<float>(std::exp(-1.0)));
  const double to_bf16 = round_to(DType::bf16, static_cast<float>(std::exp(-1.0)));
  ASSERT_NE(to_f16, to_bf16);
  expect_two_token_answer(mla_decode_reference(c.p, c.in, PRoundingPoint::to_f16), to_f16);
  expect_two_token_answer(mla_decode_plain(c.p, c.in, PRoundingPoint::to_f16), to_f16);
  expect_two_token_answer(mla_decode_reference(c.p, c.in, PRoundingPoint::undeclared), to_bf16);
  expect_two_token_answer(mla_decode_reference(c.p, c.in, PRoundingPoint::kept_f32), std::exp(-1.0));
  EXPECT_EQ(oracle_p_dtype(c.p, PRoundingPoint::kept_f32), std::nullopt);
  EXPECT_EQ(oracle_p_dtype(c.p, PRoundingPoint::to_mma_input), DType::bf16);  // bf16 q and cache: S = bf16
  MlaDecodeProblem split = c.p;
  split.kv_dtype = DType::f16;  // bf16 q against an f16 cache: P = hi + lo in f16
  EXPECT_THROW((void)oracle_p_dtype(split, PRoundingPoint::to_mma_input), std::invalid_argument);
}

// fp8 queries (issue 16): q = q_scale * code, so codes 4 with q_scale 1/4 are the case's q of 1.
TEST(MlaDecodeOracles, DequantiseFp8QueriesByTheirScale) {
  TwoTokenCase c = two_token_case();
  c.p.q_dtype = DType::fp8_e4m3fn;
  c.p.kv_dtype = DType::fp8_e4m3fn;  // the values 0, 1 and 3 are fp8 codes
  c.p.q_scale = 0.25f;
  c.in.q[0] = c.in.q[16] = 4.0f;
  validate(c.p);
  expect_two_token_answer(mla_decode_reference(c.p, c.in), std::exp(-1.0));
  expect_two_token_answer(mla_decode_plain(c.p, c.in), std::exp(-1.0));
}

// A padded request (kv_len 0, its table row all -1) appended to a batch: the other requests read
// the same q, cache and table, so their outputs must not change by a bit, and every row of the
// padded request is the identity of the LSE merge (O 0, LSE -inf) in both oracles.
TEST(MlaDecodeOracles, PaddedRequestRowsAreTheIdentity) {
  const MlaDecodeProblem base = with_defaults(on_tp_rank(small_latent_problem("case", 16, {{37, 5}, {3, 1}}), 2, 0));
  MlaDecodeProblem padded = base;
  padded.kv_lens.push_back(0);
  padded.q_lens.push_back(4);  // an MTP pad request keeps its query rows
  padded = with_defaults(padded);
  ASSERT_EQ(padded.num_blocks, base.num_blocks);

  const MlaDecodeInputs in = make_inputs(padded);
  const auto stride = static_cast<std::size_t>(in.block_table_stride);
  for (std::size_t j = 0; j < stride; ++j) EXPECT_EQ(in.block_table[2 * stride + j], -1) << "table column " << j;
  EXPECT_EQ(expand_page_indices(padded, in).kv_indptr, (std::vector<int>{0, 37, 42, 42}));

  const MlaDecodeOutputs<double> before = mla_decode_reference(base, make_inputs(base));
  const std::size_t h = static_cast<std::size_t>(heads(padded));
  const std::size_t lv = static_cast<std::size_t>(padded.kv_lora_rank);
  const std::size_t kept_rows = static_cast<std::size_t>(total_q_tokens(base)) * h;
  for (const MlaDecodeOutputs<double>& out : {mla_decode_reference(padded, in), mla_decode_plain(padded, in)}) {
    ASSERT_EQ(out.lse.size(), (kept_rows + 4 * h));
    for (std::size_t r = 0; r < kept_rows; ++r) {
      EXPECT_NEAR(out.lse[r], before.lse[r], 1e-12) << "row " << r;
      EXPECT_TRUE(std::isfinite(out.lse[r])) << "row " << r;
    }
    for (std::size_t r = kept_rows; r < out.lse.size(); ++r) {
      EXPECT_EQ(out.lse[r], -std::numeric_limits<double>::infinity()) << "padded row " << r;
      for (std::size_t c = 0; c < lv; ++c) ASSERT_EQ(out.o[r * lv + c], 0.0) << "padded row " << r << " channel " << c;
    }
  }
  const MlaDecodeOutputs<double> after = mla_decode_reference(padded, in);
  for (std::size_t i = 0; i < before.o.size(); ++i) ASSERT_NEAR(after.o[i], before.o[i], 1e-12) << "O element " << i;
}

// Cache value = its own address, so a gathered value names the address it was read from.
KvGatherInputs addresses_as_values(const KvGatherProblem& p, std::vector<std::int32_t> table) {
  KvGatherInputs in;
  in.cache.resize(static_cast<std::size_t>(cache_elements(p)));
  std::iota(in.cache.begin(), in.cache.end(), 0.0f);
  in.block_table_stride = static_cast<int>(table.size());
  in.block_table = std::move(table);
  return in;
}

TEST(KvGatherReference, ReadsNhdThroughTheTable) {
  KvGatherProblem p;
  p.num_kv_heads = 2;
  p.head_size = 2;
  p.block_size = 2;
  p.kv_lens = {3};
  p = with_defaults(p);  // dense: head 2, token 4, block 8, V at 16
  const KvGatherOutputs<float> out = kv_gather_reference(p, addresses_as_values(p, {1, 0}));
  // token 0: block 1 slot 0; token 1: block 1 slot 1; token 2: block 0 slot 0.
  EXPECT_EQ(out.k, (std::vector<float>{8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3}));
  EXPECT_EQ(out.v, (std::vector<float>{24, 25, 26, 27, 28, 29, 30, 31, 16, 17, 18, 19}));
}

TEST(KvGatherReference, ReadsShuffleAtUpstreamAddresses) {
  KvGatherProblem p;
  p.layout = CacheLayout::shuffle;
  p.interleaved = true;
  p.num_kv_heads = 1;
  p.head_size = 16;
  p.block_size = 8;  // bf16: x = 8
  p.kv_lens = {8};
  p = with_defaults(p);  // one block of 128 elements: K at 0, V at 128
  const KvGatherOutputs<float> out = kv_gather_reference(p, addresses_as_values(p, {0}));
  // K (slot 3, c 9) at 3*8 + (9/8)*8*8 + 9%8 = 89; V at (3/8)*16*8 + 3%8 + 9*8 = 75, after K.
  EXPECT_EQ(out.k[3 * 16 + 9], 89.0f);
  EXPECT_EQ(out.v[3 * 16 + 9], 128.0f + 75.0f);
}

TEST(KvGatherReference, DequantisesFp8OnceToTheOutputDtype) {
  KvGatherProblem p;
  p.num_kv_heads = 1;
  p.head_size = 1;
  p.block_size = 1;
  p.kv_lens = {1};
  p.cache_dtype = DType::fp8_e4m3fn;
  p.out_dtype = DType::bf16;
  p.k_scale = 0.3f;
  p.v_scale = 3.0f;
  p = with_defaults(p);
  KvGatherInputs in = addresses_as_values(p, {0});
  in.cache = {1.5f, -448.0f};
  const KvGatherOutputs<float> out = kv_gather_reference(p, in);
  EXPECT_EQ(out.k[0], round_to(DType::bf16, 1.5f * 0.3f));
  EXPECT_NE(out.k[0], 1.5f * 0.3f);  // the rounding is observable here
  EXPECT_EQ(out.v[0], -1344.0f);     // exact in bf16
}

}  // namespace
}  // namespace mlacheck
