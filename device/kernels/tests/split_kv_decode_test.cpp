// The split-KV kernels against the Eigen oracle on small problems that walk the kernels'
// geometry: KV tile edges (1, 2, 15, 16, 17 tokens), value and rope tile widths (16-byte and
// element-wise row loads), every dtype, q_len 1..8, head padding, block sizes, and split counts
// that leave splits empty, fp8 queries. Partial buffers are poisoned with NaN, so an empty split whose
// partial were read would show. SKIPPED where no GPU is present.
#include "device/kernels/split_kv_decode.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "device/platform/device_buffer.hpp"
#include "device/platform/device_info.hpp"
#include "device/tests/direct_launch_support.hpp"
#include "device/tests/fp8_query_cases.hpp"
#include "device/tests/requires_device.hpp"
#include "properties/support/mla_test_problems.hpp"
#include "reference/head_padding.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck::kernels {
namespace {

MlaDecodeProblem problem(int heads, int lv, int rope, std::vector<int> kv_lens, std::vector<int> q_lens) {
  return latent_problem(heads, lv, rope, {std::move(kv_lens), std::move(q_lens)});
}

std::vector<std::int32_t> to_int32(const std::vector<int>& v) { return {v.begin(), v.end()}; }

struct DeviceOutputs : LaunchOutputs {
  bool wgmma = false;  // stage 1 ran on the Hopper kernel
};

// Head padding and page expansion on the host (their own kernels are tested elsewhere), then both
// stages on the default stream.
// portable: stage 1 on the portable kernel even where the Hopper one would take the launch.
DeviceOutputs run_split_kv(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int num_splits,
                           const FaultSet& faults = {}, bool portable = false) {
  const SplitKvShape shape = split_kv_shape(p, num_splits);
  const SplitKvWorkspace workspace = split_kv_workspace(shape);
  const PageIndices pages = expand_page_indices(p, in);
  const std::vector<float> q_padded = pad_heads<float>(p, in.q, lk(p));
  const std::vector<std::int32_t> qo = to_int32(qo_indptr(p));
  const std::size_t rows = std::size_t(shape.total_q_tokens) * std::size_t(shape.padded_heads);

  const DeviceBuffer q = upload_encoded("q_padded", p.q_dtype, q_padded);
  const DeviceBuffer kv = upload_encoded("kv_cache", p.kv_dtype, in.kv_cache);
  const DeviceBuffer kv_indices = DeviceBuffer::from_host("kv_indices", std::span(pages.kv_indices));
  const DeviceBuffer kv_indptr = DeviceBuffer::from_host("kv_indptr", std::span(pages.kv_indptr));
  const DeviceBuffer qo_indptr_buf = DeviceBuffer::from_host("qo_indptr", std::span(qo));
  LaunchOutputBuffers out(workspace.partial_o_floats, workspace.partial_lse_floats, rows, shape.lv, p.o_dtype);

  SplitKvArgs args;
  args.shape = shape;
  args.q = q.data();
  args.kv_cache = kv.data();
  args.kv_indices = kv_indices.as<std::int32_t>();
  args.kv_indptr = kv_indptr.as<std::int32_t>();
  args.qo_indptr = qo_indptr_buf.as<std::int32_t>();
  out.bind(args);
  args.faults = faults;
  args.portable_kernels = portable;
  launch_mla_decode_split_kv(args);

  CanaryReport canaries = verify_canaries(
      {&q, &kv, &kv_indices, &kv_indptr, &qo_indptr_buf, &out.partial_o, &out.partial_lse, &out.o, &out.lse});
  return {read_launch_outputs(p, out, std::move(canaries)), split_kv_takes_wgmma(args)};
}

// num_splits, or for 0 the automatic choice for this device.
int chosen_splits(const MlaDecodeProblem& p, int num_splits) {
  return num_splits > 0 ? num_splits
                        : split_kv_num_splits(p, device_info().compute_units,
                                              split_kv_row_tile_policy(p.q_dtype, p.kv_dtype));
}

// num_splits 0: the automatic choice for this device. took_wgmma: where to say whether stage 1 ran
// on the Hopper kernel; portable: keep it on the portable one.
void expect_matches_oracle(const MlaDecodeProblem& problem, int num_splits = 0, bool* took_wgmma = nullptr,
                           bool portable = false) {
  const MlaDecodeProblem p = with_defaults(problem);
  validate(p);
  const int splits = chosen_splits(p, num_splits);
  SCOPED_TRACE(to_repro(p) + " num_splits=" + std::to_string(splits));
  ASSERT_EQ(split_kv_unsupported(split_kv_shape(p, splits)), std::nullopt);

  const MlaDecodeInputs in = make_inputs(p);
  const DeviceOutputs got = run_split_kv(p, in, splits, {}, portable);
  if (took_wgmma != nullptr) *took_wgmma = got.wgmma;
  expect_launch_matches_oracle(p, in, got);
}

using SplitKvDecodeTest = RequiresDevice;

TEST_F(SplitKvDecodeTest, DeepSeekV3AcrossKvTileEdges) {
  expect_matches_oracle(problem(16, 512, 64, {1, 2, 15, 16, 17, 1000}, {1, 1, 1, 1, 1, 1}));
  expect_matches_oracle(problem(128, 512, 64, {1000, 17}, {1, 2}));
}

TEST_F(SplitKvDecodeTest, EveryDtypeCombination) {
  for (DType q : {DType::bf16, DType::f16}) {
    for (DType kv : {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
      for (DType o : {DType::bf16, DType::f16}) {
        MlaDecodeProblem p = problem(16, 512, 64, {33, 70}, {1, 3});
        p.q_dtype = q;
        p.kv_dtype = kv;
        p.o_dtype = o;
        if (is_fp8(kv)) p.kv_scale = 0.5f;
        expect_matches_oracle(p, 2);
      }
    }
  }
}

TEST_F(SplitKvDecodeTest, ValueAndRopeWidths) {
  // Rows of 16-bit Lk with Lk % 8 != 0 (rope 1, 5, 33) and fp8 rows with Lk % 16 != 0 (rope 8) take
  // the element-wise loads; Lv 80 and 272 leave most of their value tile empty.
  const int shapes[][2] = {{512, 64}, {256, 64}, {16, 0}, {48, 8}, {80, 5}, {128, 1}, {496, 64}, {512, 0}, {272, 33}};
  for (const auto& [lv, rope] : shapes) {
    for (DType kv : {DType::bf16, DType::fp8_e4m3fn}) {
      MlaDecodeProblem p = problem(16, lv, rope, {40, 3}, {2, 1});
      p.kv_dtype = kv;
      expect_matches_oracle(p);
    }
  }
}

TEST_F(SplitKvDecodeTest, MultiTokenQueriesSeeTheirCausalPrefix) {
  // q_len 1..8, powers of two and not (UPSTREAM S4), a request as short as its query.
  const MlaDecodeProblem p = problem(16, 512, 64, {8, 15, 16, 17, 40, 100, 9, 12}, {1, 2, 3, 4, 5, 6, 7, 8});
  for (int splits : {1, 3, 0}) expect_matches_oracle(p, splits);
}

TEST_F(SplitKvDecodeTest, PaddedHeadCounts) {
  for (int heads : {1, 2, 4, 8, 12, 24, 40}) expect_matches_oracle(problem(heads, 512, 64, {50, 7}, {2, 1}));
}

TEST_F(SplitKvDecodeTest, ModelShapes) {
  MlaDecodeProblem kimi = problem(64, 512, 64, {300, 21}, {1, 3});  // Kimi-K2.5 at TP8: 8 heads per rank
  kimi.tp = 8;
  kimi.tp_rank = 3;
  expect_matches_oracle(kimi);
  MlaDecodeProblem lite = problem(16, 512, 64, {129, 64}, {2, 2});  // DeepSeek-V2-Lite at TP2: 8 heads
  lite.tp = 2;
  lite.tp_rank = 1;
  lite.scale = 0.114721;
  expect_matches_oracle(lite);
  MlaDecodeProblem mistral = problem(32, 256, 64, {513, 40}, {1, 4});  // Mistral-Small-4: Lk 320
  mistral.block_size = 64;
  expect_matches_oracle(mistral);
}

// fp8 queries against a cache of their type (issue 16): widened to bf16 in shared memory, scores
// scaled by scale * kv_scale * q_scale, judged by the tight rule of P in bf16
// (device/tests/fp8_query_cases.hpp lists what the problems cover), on one split, three and the
// automatic count.
TEST_F(SplitKvDecodeTest, Fp8QueriesMatchTheOracle) {
  for (const MlaDecodeProblem& p : test::fp8_query_kernel_problems()) {
    const MlaDecodeInputs in = make_inputs(p);
    for (int splits : {1, 3, 0}) {
      const int n = chosen_splits(p, splits);
      SCOPED_TRACE(to_repro(p) + " num_splits=" + std::to_string(n));
      test::expect_fp8_query_run_matches_oracle(p, in, run_split_kv(p, in, n));
    }
  }
}

// The check above cannot pass a kernel that drops q_scale: the same launch handed a q_scale of 1
// (scores of the codes scaled by scale * kv_scale alone) fails it on every problem.
TEST_F(SplitKvDecodeTest, Fp8QueriesWithoutTheirScaleFail) {
  test::expect_every_run_without_q_scale_fails(
      [](const MlaDecodeProblem& p, const MlaDecodeInputs& in) { return run_split_kv(p, in, 3); });
}

TEST_F(SplitKvDecodeTest, SplitCountsIncludingEmptySplits) {
  // More splits than tiles: most splits of the short requests, and the last ones of the earlier
  // query rows, see nothing.
  const MlaDecodeProblem p = problem(16, 512, 64, {1, 2, 4097}, {1, 1, 2});
  for (int splits : {1, 2, 5, 64, 300}) expect_matches_oracle(p, splits);
}

TEST_F(SplitKvDecodeTest, PaddedRequestsWriteTheIdentity) {
  // CUDA-graph padding: kv_len 0 requests (one an MTP pad of 4 rows) between real ones, with split
  // counts from one to far beyond every request's tokens, and with padded heads.
  for (int heads : {16, 8}) {
    const MlaDecodeProblem p = problem(heads, 512, 64, {0, 33, 0, 1000}, {1, 1, 4, 2});
    for (int splits : {1, 3, 64, 0}) expect_matches_oracle(p, splits);
  }
  // The padded rows are exactly O 0 and LSE -inf (the oracle comparison allows O a tolerance).
  const MlaDecodeProblem p = with_defaults(problem(16, 512, 64, {0, 40}, {3, 1}));
  const DeviceOutputs got = run_split_kv(p, make_inputs(p), 4);
  for (std::size_t row = 0; row < 3 * 16; ++row) {
    EXPECT_EQ(got.lse[row], -std::numeric_limits<float>::infinity()) << "row " << row;
    for (std::size_t c = 0; c < 512; ++c) ASSERT_EQ(got.o[row * 512 + c], 0.0f) << "row " << row << " channel " << c;
  }
}

TEST_F(SplitKvDecodeTest, SplitsBeyondTheTokensOfMultiTokenRows) {
  // Rows 0-1 of the 18-token request (q_len 4) and rows 0-6 of the 33-token one (q_len 8) see none
  // of their requests' last split; explicit counts up to 4096 leave almost every split empty.
  const MlaDecodeProblem p = problem(16, 512, 64, {3000, 18, 33}, {1, 4, 8});
  for (int splits : {2, 11, 17, 4096}) expect_matches_oracle(p, splits);
}

// The faults of UPSTREAM R1, R2 and R7 on a shape that triggers them, run straight through the
// launcher: each leaves the mark docs/faults.md names (R12 reads past kv_indptr, which may take the
// device down, so it is proved in the forked kill matrix only).
TEST_F(SplitKvDecodeTest, PaddedRowAndEmptySplitFaultsShow) {
  const MlaDecodeProblem p = with_defaults(problem(16, 512, 64, {0, 18, 600}, {1, 4, 1}));
  const MlaDecodeInputs in = make_inputs(p);
  const DeviceOutputs clean = run_split_kv(p, in, 8);
  ASSERT_EQ(clean.o_unwritten, 0u);
  ASSERT_EQ(clean.lse_unwritten, 0u);

  const DeviceOutputs r1 = run_split_kv(p, in, 8, {Fault::empty_rows_unwritten});
  EXPECT_EQ(r1.o_unwritten, std::size_t{16} * 512) << "the padded request's one row of 16 heads";
  EXPECT_EQ(r1.lse_unwritten, 0u);

  const DeviceOutputs r2 = run_split_kv(p, in, 8, {Fault::empty_split_unwritten});
  EXPECT_TRUE(std::any_of(r2.lse.begin(), r2.lse.end(), [](float x) { return std::isnan(x); }))
      << "an unwritten empty partial merged into some row";

  const DeviceOutputs r7 = run_split_kv(p, in, 8, {Fault::split_kv_lse_unwritten});
  EXPECT_EQ(r7.lse_unwritten, r7.lse.size());
  EXPECT_EQ(r7.o_unwritten, 0u);
}

TEST_F(SplitKvDecodeTest, BlockSizes) {
  for (int block_size : {1, 7, 16, 64}) {
    MlaDecodeProblem p = problem(16, 256, 64, {100, 33}, {1, 2});
    p.block_size = block_size;
    expect_matches_oracle(p);
  }
}

TEST_F(SplitKvDecodeTest, ExactFill) {
  MlaDecodeProblem p = problem(16, 512, 64, {64, 5}, {4, 1});
  p.fill = FillMode::exact;
  expect_matches_oracle(p, 3);
}

// The Hopper kernel (split_kv_wgmma_kernel.hpp) on the launches it takes: 32, 64 and 128 heads of
// one token, 16 heads of four tokens (four row tiles with their own causal limits), 8 heads (padded
// to 16) of two tokens (two row tiles, the other two empty), Lv 512 and 256, bf16 and f16, KV tile
// edges, split counts that leave splits empty. On an sm_90 GPU every one of them
// must run on it (a build or dispatch that silently fell back would fail here), elsewhere none;
// each matches the oracle, and so does the portable kernel on the same launch.
TEST_F(SplitKvDecodeTest, HopperKernelTakesTheModelShapes) {
  const bool hopper = device_info().arch.rfind("sm_90", 0) == 0;
  std::vector<MlaDecodeProblem> problems = {
      problem(64, 512, 64, {1, 31, 32, 33, 1000, 4097}, {1, 1, 1, 1, 1, 1}),
      problem(128, 512, 64, {700, 65}, {1, 2}),
      problem(64, 256, 64, {513, 40}, {1, 1}),
      problem(32, 512, 64, {200, 31}, {1, 1}),
      problem(32, 256, 64, {513, 40}, {1, 1}),
      problem(16, 512, 64, {40, 100, 4, 9}, {4, 3, 4, 2}),
      problem(8, 512, 64, {77, 2}, {2, 2}),
  };
  MlaDecodeProblem f16 = problem(128, 256, 64, {333, 64}, {2, 1});
  f16.q_dtype = f16.kv_dtype = f16.o_dtype = DType::f16;
  problems.push_back(f16);
  for (const MlaDecodeProblem& p : problems) {
    for (int splits : {1, 3, 0}) {
      bool took = false;
      expect_matches_oracle(p, splits, &took);
      EXPECT_EQ(took, hopper) << to_repro(with_defaults(p)) << " on " << device_info().arch;
      bool took_portable = true;
      expect_matches_oracle(p, splits, &took_portable, /*portable=*/true);
      EXPECT_FALSE(took_portable);
    }
  }
}

// fp8 caches on the Hopper kernel: e4m3fn and fnuz caches at Lv 512 against fp8 q of their own
// variant (q scales that are no powers of two) and against bf16 q; two and four row tiles (64 and
// 128 heads, 16 heads of up to four tokens, 8 heads of two); KV lengths across the edges of the
// byte ring's three-tile lead (1 to 4 tiles and a partial last one) and splits left empty. On an
// sm_90 GPU every launch must take the Hopper kernel, elsewhere none; each is judged by the tight
// rule of P in the MMA type (fp8_query_cases.hpp), and so is the portable kernel on the same launch.
TEST_F(SplitKvDecodeTest, HopperKernelTakesFp8Caches) {
  const bool hopper = device_info().arch.rfind("sm_90", 0) == 0;
  struct Row {
    int heads;
    std::vector<int> kv, q;
    DType q_dtype, kv_dtype;
    float q_scale, kv_scale;
    DType o_dtype;
  };
  const DType fn = DType::fp8_e4m3fn;
  const DType fnuz = DType::fp8_e4m3fnuz;
  const Row rows[] = {
      {64, {1, 31, 32, 33, 64, 65, 96, 97, 128, 1000, 4097}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, fn, fn, 0.3f, 0.5f,
       DType::bf16},
      {128, {700, 65}, {1, 2}, fnuz, fnuz, 5.5f, 0.03125f, DType::f16},
      {16, {40, 100, 4, 9}, {4, 3, 4, 2}, fn, fn, 1.7f, 0.25f, DType::bf16},
      {8, {77, 2}, {2, 2}, fnuz, fnuz, 0.0234375f, 2.0f, DType::bf16},
      {32, {200, 31, 97}, {1, 1, 1}, DType::bf16, fn, 1.0f, 0.5f, DType::f16},
      {128, {333, 64}, {2, 1}, DType::bf16, fnuz, 1.0f, 0.125f, DType::bf16},
  };
  for (const Row& r : rows) {
    MlaDecodeProblem p = problem(r.heads, 512, 64, r.kv, r.q);
    p.q_dtype = r.q_dtype;
    p.kv_dtype = r.kv_dtype;
    p.q_scale = r.q_scale;
    p.kv_scale = r.kv_scale;
    p.o_dtype = r.o_dtype;
    p = with_defaults(p);
    validate(p);
    const MlaDecodeInputs in = make_inputs(p);
    for (int splits : {1, 3, 0}) {
      const int n = chosen_splits(p, splits);
      SCOPED_TRACE(to_repro(p) + " num_splits=" + std::to_string(n));
      const DeviceOutputs got = run_split_kv(p, in, n);
      EXPECT_EQ(got.wgmma, hopper) << "on " << device_info().arch;
      test::expect_fp8_query_run_matches_oracle(p, in, got);
      const DeviceOutputs portable = run_split_kv(p, in, n, {}, /*portable=*/true);
      EXPECT_FALSE(portable.wgmma);
      test::expect_fp8_query_run_matches_oracle(p, in, portable);
    }
  }
}

// No GPU work: a refused shape or a missing buffer stops before any launch.
TEST(SplitKvLaunch, RefusesUnsupportedShapesAndMissingBuffers) {
  SplitKvArgs args;
  args.shape = split_kv_shape(with_defaults(problem(16, 1024, 64, {5}, {1})), 1);
  EXPECT_THROW(launch_mla_decode_split_kv(args), std::invalid_argument);
  args.shape = split_kv_shape(with_defaults(problem(16, 512, 64, {5}, {1})), 1);
  EXPECT_THROW(launch_mla_decode_split_kv(args), std::invalid_argument);  // every pointer null
}

}  // namespace
}  // namespace mlacheck::kernels
