// The variant rules of device/hip_backend/decode_variant.hpp, without a GPU: which shapes the historic
// dispatch mistakes of R8 and R9 apply to, and, through the oracle as the host model of the folded
// dispatch, that R9's folding changes every query row but a request's last by far more than any
// tolerance (upstream saw max diffs of 0.11-0.16).
#include "device/hip_backend/decode_variant.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "core/compare.hpp"
#include "core/mla_inputs.hpp"
#include "core/tolerance.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem decode(int total_heads, int tp, std::vector<int> kv_lens, std::vector<int> q_lens) {
  MlaDecodeProblem p;
  p.name = "variant";
  p.total_heads = total_heads;
  p.tp = tp;
  p.kv_lens = std::move(kv_lens);
  p.q_lens = std::move(q_lens);
  return with_defaults(p);
}

const FaultSet kFolding{Fault::tokens_folded_into_heads};
const FaultSet kPages{Fault::kernel_ignores_page_size};

TEST(FoldedDispatch, OnlyWithTheFault) {
  EXPECT_FALSE(folded_decode_problem(decode(128, 8, {40, 300}, {8, 8}), {}));
  EXPECT_FALSE(folded_decode_problem(decode(128, 8, {40, 300}, {8, 8}), {Fault::non_pow2_qlen_rows_collapse}));
}

TEST(FoldedDispatch, FoldsSixteenHeadsAtQlen8IntoOneTokenOf128Heads) {
  const MlaDecodeProblem p = decode(128, 8, {8, 40, 300}, {8, 8, 8});
  const auto folded = folded_decode_problem(p, kFolding);
  ASSERT_TRUE(folded);
  EXPECT_EQ(heads(*folded), kFoldedVariantHeads);
  EXPECT_EQ(padded_heads(*folded), kFoldedVariantHeads);
  EXPECT_EQ(folded->q_lens, (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(folded->kv_lens, p.kv_lens);
  EXPECT_EQ(folded->tp, p.tp);
  EXPECT_EQ(folded->tp_rank, p.tp_rank);
  // The same q, O and LSE memory: rows of tokens x padded heads.
  EXPECT_EQ(total_q_tokens(*folded) * heads(*folded), total_q_tokens(p) * padded_heads(p));
  EXPECT_NO_THROW(validate(*folded));
}

TEST(FoldedDispatch, FoldsEveryShapeOf128RowsBelow128Heads) {
  EXPECT_TRUE(folded_decode_problem(decode(64, 8, {100}, {8}), kFolding));        // 8 heads, padded to 16
  EXPECT_TRUE(folded_decode_problem(decode(96, 8, {100}, {8}), kFolding));        // 12 heads, tiled to 16
  EXPECT_TRUE(folded_decode_problem(decode(32, 1, {100}, {4}), kFolding));        // 32 x 4
  EXPECT_TRUE(folded_decode_problem(decode(64, 1, {100, 9}, {2, 2}), kFolding));  // 64 x 2
}

TEST(FoldedDispatch, LeavesOtherShapesAlone) {
  EXPECT_FALSE(folded_decode_problem(decode(128, 8, {100, 200}, {2, 2}), kFolding));  // 32 rows: q_len 2 passed
  EXPECT_FALSE(folded_decode_problem(decode(128, 8, {100, 200}, {8, 4}), kFolding));  // ragged: cannot fold
  EXPECT_FALSE(folded_decode_problem(decode(128, 1, {100}, {1}), kFolding));          // already one token
  EXPECT_FALSE(folded_decode_problem(decode(128, 1, {100}, {2}), kFolding));          // 256 rows
  EXPECT_FALSE(folded_decode_problem(decode(128, 8, {100}, {6}), kFolding));          // 96 rows
}

TEST(FoldedDispatch, TheOracleOnTheFoldedShapeLosesTheCausalRule) {
  // The host model of the fault: the folded problem on p's own inputs (16 heads need no padding,
  // so p's q is the padded q the kernels read), judged by the case's own tolerance.
  const MlaDecodeProblem p = decode(128, 8, {8, 40, 300}, {8, 8, 8});
  const MlaDecodeProblem folded = *folded_decode_problem(p, kFolding);
  const MlaDecodeInputs in = make_inputs(p);
  const MlaDecodeOutputs<double> right = mla_decode_reference(p, in);
  const MlaDecodeOutputs<double> wrong = mla_decode_reference(folded, in);
  ASSERT_EQ(right.o.size(), wrong.o.size());
  const auto max_abs = [](const std::vector<float>& v) {
    double m = 0.0;
    for (float x : v) m = std::max(m, static_cast<double>(std::abs(x)));
    return m;
  };
  const Tolerance tol = mla_decode_tolerance(p, max_abs(in.q), max_abs(in.kv_cache) * p.kv_scale).o;
  EXPECT_FALSE(within(compare(right.o, wrong.o, tol), tol)) << tol.rule;

  const std::size_t row = static_cast<std::size_t>(heads(p)) * static_cast<std::size_t>(p.kv_lora_rank);
  for (int b = 0; b < batch(p); ++b) {
    for (int t = 0; t < 8; ++t) {
      const std::size_t first = static_cast<std::size_t>(8 * b + t) * row;
      double diff = 0.0;
      for (std::size_t i = first; i < first + row; ++i) diff = std::max(diff, std::abs(right.o[i] - wrong.o[i]));
      if (t == 7) {
        EXPECT_LT(diff, 1e-9) << "request " << b << ": its last row sees the whole kv either way";
      } else {
        EXPECT_GT(diff, 1e-3) << "request " << b << " row " << t << " sees " << 7 - t << " tokens after it";
      }
    }
  }
}

TEST(PageFormDispatch, AppliesToBf16AtPageSizes16To128) {
  MlaDecodeProblem p = decode(128, 8, {100, 300}, {1, 1});
  for (int page : {16, 32, 64, 128}) {
    p.block_size = page;
    p.num_blocks = 0;
    EXPECT_TRUE(kernel_reads_pages_as_tokens(with_defaults(p), kPages)) << page;
    EXPECT_FALSE(kernel_reads_pages_as_tokens(with_defaults(p), {})) << page;
  }
  for (int page : {1, 8, 17, 256}) {
    p.block_size = page;
    p.num_blocks = 0;
    EXPECT_FALSE(kernel_reads_pages_as_tokens(with_defaults(p), kPages)) << page;
  }
  p.block_size = 16;
  p.num_blocks = 0;
  MlaDecodeProblem fp8 = with_defaults(p);
  fp8.kv_dtype = DType::fp8_e4m3fn;
  EXPECT_FALSE(kernel_reads_pages_as_tokens(fp8, kPages));
  MlaDecodeProblem f16_q = with_defaults(p);
  f16_q.q_dtype = DType::f16;
  EXPECT_FALSE(kernel_reads_pages_as_tokens(f16_q, kPages));
}

TEST(PageFormDispatch, PagedIndptrCountsPages) {
  MlaDecodeProblem p = decode(128, 8, {1, 16, 17, 100}, {1, 1, 1, 1});
  p.block_size = 16;
  p.num_blocks = 0;
  EXPECT_EQ(paged_kv_indptr(with_defaults(p)), (std::vector<std::int32_t>{0, 1, 2, 4, 11}));
}

}  // namespace
}  // namespace mlacheck
