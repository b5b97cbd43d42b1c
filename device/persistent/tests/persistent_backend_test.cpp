// The persistent path end to end through the hip backend (pad -> expand -> plan -> upload ->
// persistent kernel -> reduce -> unpad) and the harness driver `mlacheck run` uses: against the
// oracle on the split-KV tests' grid, against the split-KV path (differential), on batches of 1
// to 256 requests with kv lengths spread over 1..16384, bitwise repeatable, and the auto path
// choice recorded. Without a GPU every case is SKIPPED with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/compare.hpp"
#include "core/mla_inputs.hpp"
#include "core/tolerance.hpp"
#include "device/hip_backend/decode_path.hpp"
#include "device/platform/device_info.hpp"
#include "harness/mla_case.hpp"

namespace mlacheck {
namespace {

// One backend for the whole executable: creating a GPU context per case would dominate the time.
BackendOrReason& shared_backend() {
  static BackendOrReason backend = make_hip_backend(0);
  return backend;
}

class PersistentBackendTest : public testing::Test {
 protected:
  void SetUp() override {
    if (shared_backend().backend == nullptr) GTEST_SKIP() << shared_backend().reason;
  }
  Backend& backend() { return *shared_backend().backend; }
};

struct Model {
  const char* name;
  int total_heads, tp, lv;
};
constexpr Model kDeepSeekV3{"dsv3", 128, 1, 512};
constexpr Model kDeepSeekV3Tp8{"dsv3-tp8", 128, 8, 512};
constexpr Model kKimiTp8{"kimi-k2.5-tp8", 64, 8, 512};     // 8 heads per rank: padded to 16
constexpr Model kV2LiteTp2{"v2-lite-tp2", 16, 2, 512};     // 8 heads per rank
constexpr Model kTwelveHeads{"k3-tp8", 96, 8, 512};        // 12 heads per rank: tiled to 16
constexpr Model kMistralSmall4{"mistral-s4", 32, 1, 256};  // Lv 256, Lk 320

MlaDecodeProblem persistent(const Model& m, std::vector<int> kv_lens, std::vector<int> q_lens) {
  MlaDecodeProblem p;
  p.name = m.name;
  p.total_heads = m.total_heads;
  p.tp = m.tp;
  p.tp_rank = m.tp - 1;
  p.kv_lora_rank = m.lv;
  p.kv_lens = std::move(kv_lens);
  p.q_lens = std::move(q_lens);
  p.path = DecodePath::persistent;
  return p;
}

void expect_passed(const MlaDecodeProblem& problem) {
  const CaseResult row = run_mla_case(with_defaults(problem), shared_backend().backend.get(), shared_backend().reason);
  ASSERT_NE(row.state, ResultState::skipped) << row.reason;
  EXPECT_EQ(row.state, ResultState::passed) << row.reason << "\n  repro: " << row.repro;
  EXPECT_EQ(row.path, "persistent") << row.repro;
  EXPECT_EQ(row.canaries, "ok") << row.repro;
  for (const ComparedTensor& t : row.tensors) {
    EXPECT_EQ(t.stats.unwritten, 0u) << t.name << " " << row.repro;
    EXPECT_EQ(t.stats.nonfinite, 0u) << t.name << " " << row.repro;
  }
}

// kv lengths spread geometrically over [1, 16384]: every scale of length, short ones dense.
std::vector<int> spread_kv_lens(int requests) {
  std::vector<int> lens(static_cast<std::size_t>(requests), 16384);
  for (int i = 0; i + 1 < requests; ++i) {
    lens[static_cast<std::size_t>(i)] = static_cast<int>(std::lround(std::pow(16384.0, double(i) / (requests - 1))));
  }
  return lens;
}

// Both paths are within tol (abs A, rel R, rms r) of the oracle x, so with y the split-KV result
// as expected value: |a - y| <= 2A + 2R|x| and |x| <= (|y| + A) / (1 - R) give the bound below;
// the norms likewise. An infinite bound (LSE has no rms bound) stays infinite.
Tolerance between_paths(const Tolerance& t) {
  const auto widen = [](double bound, double shrink) { return std::isinf(bound) ? bound : 2 * bound / (1 - shrink); };
  Tolerance d;
  d.abs = widen(t.abs, t.rel);
  d.rel = widen(t.rel, t.rel);
  d.rms = widen(t.rms, t.rms);
  d.rule = "two paths each within (" + t.rule + ") of the oracle";
  return d;
}

std::vector<double> as_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST_F(PersistentBackendTest, DeepSeekV3AcrossKvTileEdges) {
  expect_passed(persistent(kDeepSeekV3, {1, 2, 15, 16, 17, 1000, 4097}, {1, 1, 1, 1, 1, 1, 1}));
  expect_passed(persistent(kDeepSeekV3Tp8, {1, 2, 15, 16, 17, 1000, 4097}, {1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(PersistentBackendTest, ModelShapesWithMultiTokenQueries) {
  for (const Model& m : {kKimiTp8, kV2LiteTp2, kTwelveHeads, kMistralSmall4, kDeepSeekV3}) {
    expect_passed(persistent(m, {8, 15, 16, 17, 40, 1000, 9, 4097}, {1, 2, 3, 4, 5, 6, 7, 8}));
  }
}

TEST_F(PersistentBackendTest, QLenUpToSixteen) {
  // q_len 9..16, powers of two and not: tiles of 8 tokens (16 padded heads) end mid-request.
  expect_passed(persistent(kKimiTp8, {16, 100, 2000, 11, 600}, {16, 9, 11, 11, 13}));
}

TEST_F(PersistentBackendTest, PaddedRequestsThroughTheWholePipeline) {
  // Staged table rows of -1, head padding and the persistent plan together (Kimi-K2 at TP8).
  expect_passed(persistent(kKimiTp8, {0, 900, 0, 2048}, {4, 4, 4, 4}));
  expect_passed(persistent(kDeepSeekV3Tp8, {1500, 700, 0, 0}, {1, 1, 1, 1}));
}

TEST_F(PersistentBackendTest, BlockSizes) {
  for (int block_size : {1, 7, 16, 64}) {
    MlaDecodeProblem p = persistent(kMistralSmall4, {1000, 33, 2, 17}, {1, 2, 2, 3});
    p.block_size = block_size;
    expect_passed(p);
  }
}

TEST_F(PersistentBackendTest, EveryDtype) {
  for (DType kv : {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
    for (DType qo : {DType::bf16, DType::f16}) {
      MlaDecodeProblem p = persistent(kKimiTp8, {1000, 15, 300}, {1, 3, 2});
      p.kv_dtype = kv;
      p.q_dtype = p.o_dtype = qo;
      if (is_fp8(kv)) p.kv_scale = 0.03125f;
      expect_passed(p);
    }
  }
}

TEST_F(PersistentBackendTest, OneToTwoHundredFiftySixRequestsWithSpreadLengths) {
  for (int requests : {1, 3, 64, 256}) {
    MlaDecodeProblem p = persistent(kDeepSeekV3Tp8, spread_kv_lens(requests), std::vector<int>(requests, 1));
    for (int i = 0; i < requests; i += 5) {  // some MTP requests
      const auto r = static_cast<std::size_t>(i);
      p.q_lens[r] = std::min(1 + i % 4, p.kv_lens[r]);
    }
    expect_passed(p);
  }
}

TEST_F(PersistentBackendTest, AgreesWithSplitKv) {
  const MlaDecodeProblem problems[] = {
      persistent(kDeepSeekV3, {1, 17, 1000, 4097}, {1, 1, 2, 1}),
      persistent(kKimiTp8, {8, 15, 16, 17, 40, 100, 9, 12}, {1, 2, 3, 4, 5, 6, 7, 8}),
      persistent(kMistralSmall4, spread_kv_lens(48), std::vector<int>(48, 1)),
  };
  for (MlaDecodeProblem p : problems) {
    p = with_defaults(p);
    SCOPED_TRACE(to_repro(p));
    const MlaDecodeInputs in = make_inputs(p);
    const MlaDecodeRun a = backend().run(p, in, {});
    MlaDecodeProblem split = p;
    split.path = DecodePath::split_kv;
    const MlaDecodeRun b = backend().run(split, in, {});
    EXPECT_EQ(a.diag.path, "persistent");
    EXPECT_EQ(b.diag.path, "split_kv");
    const auto mag = input_magnitudes(p, in);
    const MlaTolerances tol = mla_decode_tolerance(p, mag.max_abs_q, mag.max_abs_kv);
    for (const auto& [name, got, want, t] :
         {std::tuple{"O", &a.out.o, &b.out.o, tol.o}, std::tuple{"LSE", &a.out.lse, &b.out.lse, tol.lse}}) {
      ASSERT_LT(t.rel, 1.0);
      ASSERT_TRUE(t.rms < 1.0 || std::isinf(t.rms));
      const Tolerance d = between_paths(t);
      const CompareStats s = compare(as_double(*want), *got, d);
      EXPECT_TRUE(within(s, d)) << name << ": " << s.mismatches << "/" << s.total << " beyond " << d.rule
                                << ", max abs diff " << s.max_abs_err << ", rms " << s.rms_rel_err;
    }
  }
}

TEST_F(PersistentBackendTest, TwoIdenticalRunsAreBitwiseEqual) {
  const MlaDecodeProblem problems[] = {
      with_defaults(persistent(kDeepSeekV3Tp8, {16384, 3}, {4, 1})),  // one request cut into many pieces
      with_defaults(persistent(kKimiTp8, spread_kv_lens(128), std::vector<int>(128, 1))),
  };
  for (const MlaDecodeProblem& p : problems) {
    SCOPED_TRACE(to_repro(p));
    const MlaDecodeInputs in = make_inputs(p);
    const MlaDecodeRun first = backend().run(p, in, {});
    const MlaDecodeRun second = backend().run(p, in, {});
    EXPECT_TRUE(same_bits(first.out.o, second.out.o));
    EXPECT_TRUE(same_bits(first.out.lse, second.out.lse));
    EXPECT_EQ(first.diag.num_splits, second.diag.num_splits);  // the same plan: as many work items
    EXPECT_TRUE(first.diag.broken_canaries.empty());
  }
}

TEST_F(PersistentBackendTest, AutoRecordsTheChosenPathAndWhy) {
  const int cus = device_info().compute_units;
  MlaDecodeProblem big = persistent(kDeepSeekV3Tp8, std::vector<int>(cus, 64), std::vector<int>(cus, 1));
  MlaDecodeProblem small = persistent(kDeepSeekV3Tp8, {1000, 900}, {1, 1});
  big.path = small.path = DecodePath::automatic;
  for (const auto& [p, want] : {std::pair{big, "persistent"}, std::pair{small, "split_kv"}}) {
    const MlaDecodeProblem q = with_defaults(p);
    const MlaDecodeRun run = backend().run(q, make_inputs(q), {});
    EXPECT_EQ(run.diag.path, want) << run.diag.path_reason;
    EXPECT_EQ(run.diag.path_reason, choose_decode_path(q, cus).reason);
  }
}

}  // namespace
}  // namespace mlacheck
