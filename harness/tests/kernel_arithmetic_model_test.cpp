// The tolerance model against a float model of a correct kernel (reference/kernel_arithmetic_model):
// soundness — over random problems and every legitimate variation the correct model stays within
// the tight bounds (elementwise O, rms O, LSE); tightness — each single precision mistake
// (IntermediatePrecision) is caught on the default sweep's shapes. Both print their figures (worst
// bound-used ratio; how often each mistake is caught). MLACHECK_TOLERANCE_SEEDS=k runs k seeds of
// the tightness sweep instead of the default 1 (docs/tolerance.md has the 8-seed table).
#include "reference/kernel_arithmetic_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "core/compare.hpp"
#include "core/fill.hpp"
#include "core/tolerance.hpp"
#include "device/tests/fp8_query_cases.hpp"
#include "harness/mla_judge.hpp"
#include "plan/default_sweep.hpp"
#include "properties/support/mla_test_problems.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {
namespace {

// How much of each bound a model's output uses (1: at the bound).
struct Used {
  double o_elem = 0.0;
  double o_rms = 0.0;
  double lse = 0.0;
  bool within() const { return o_elem <= 1.0 && o_rms <= 1.0 && lse <= 1.0; }
};

double elementwise_used(const std::vector<double>& e, const std::vector<float>& a, const Tolerance& t) {
  double worst = 0.0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (static_cast<double>(a[i]) == e[i]) continue;  // equal, infinities too (LSE -inf of an empty row)
    const double err = std::abs(static_cast<double>(a[i]) - e[i]);
    if (!std::isfinite(err)) return INFINITY;
    worst = std::max(worst, err / (t.abs + t.rel * std::abs(e[i])));
  }
  return worst;
}

struct Oracle {
  MlaDecodeOutputs<double> exact;
  MlaErrorScales scales;
};

Oracle oracle(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  Oracle o;
  o.exact = mla_decode_reference(p, in, PRoundingPoint::kept_f32, &o.scales);
  return o;
}

Used judge(const MlaDecodeProblem& p, const Oracle& o, const MlaDecodeOutputs<float>& actual, PRoundingPoint declared) {
  const MlaTolerances tol = mla_decode_tolerance(p, o.scales, declared);
  const MlaDecodeOutputs<double> expected = faithful_oracle(p, tol, o.exact);
  Used u;
  u.o_elem = elementwise_used(expected.o, actual.o, tol.o);
  u.o_rms = compare(expected.o, actual.o, tol.o).rms_rel_err / tol.o.rms;
  u.lse = elementwise_used(expected.lse, actual.lse, tol.lse);
  return u;
}

// --- soundness -----------------------------------------------------------------------------------

MlaDecodeProblem random_problem(SplitMix64& g, int index) {
  const DType sixteen[] = {DType::bf16, DType::f16};
  const DType caches[] = {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz};
  const DType outs[] = {DType::bf16, DType::f16, DType::f32};
  MlaDecodeProblem p;
  p.name = "sound." + std::to_string(index);
  p.q_dtype = sixteen[g.below(2)];
  p.kv_dtype = caches[g.below(4)];
  p.o_dtype = outs[g.below(3)];
  if (is_fp8(p.kv_dtype)) p.kv_scale = g.below(2) == 0 ? 0.03125f : 1.0f;
  p.kv_lora_rank = g.below(2) == 0 ? 512 : 256;
  p.total_heads = 1 + static_cast<int>(g.below(4));
  const int batch = 1 + static_cast<int>(g.below(2));
  p.kv_lens.clear();
  p.q_lens.clear();
  for (int b = 0; b < batch; ++b) {
    // Lengths from 1 to a few thousand, log-spread, with the granule's edges.
    const int kinds[] = {1, 2, 15, 16, 17, 33, 100, 257, 1000, 2049, 3001};
    const int kv = kinds[g.below(std::size(kinds))];
    p.kv_lens.push_back(kv);
    p.q_lens.push_back(std::min(kv, 1 + static_cast<int>(g.below(3))));
  }
  p.fill = g.below(5) == 0 ? FillMode::exact : FillMode::random;
  p.seed = g.next();
  return with_defaults(p);
}

KernelVariation random_variation(SplitMix64& g) {
  const int tiles[] = {1, 16, 32, 64};
  const int splits[] = {1, 2, 5, 64};
  const AccumulationOrder orders[] = {AccumulationOrder::sequential, AccumulationOrder::reversed,
                                      AccumulationOrder::blocked};
  KernelVariation v;
  v.tile_tokens = tiles[g.below(4)];
  v.splits = splits[g.below(4)];
  v.order = orders[g.below(3)];
  v.fma = g.below(2) == 0;
  v.exp2_error_ulps = static_cast<int>(g.below(3));
  return v;
}

TEST(KernelArithmeticModel, ACorrectKernelStaysWithinTheTightBounds) {
  SplitMix64 g(20261123);
  Used worst_declared, worst_generic;
  int cases = 0;
  for (int i = 0; i < 40; ++i) {
    const MlaDecodeProblem p = random_problem(g, i);
    const MlaDecodeInputs in = make_inputs(p);
    const Oracle o = oracle(p, in);
    for (int k = 0; k < 2; ++k) {
      KernelModelConfig config;
      config.variation = random_variation(g);
      const MlaDecodeOutputs<float> out = kernel_arithmetic_model(p, in, config);
      for (PRoundingPoint declared : {PRoundingPoint::to_mma_input, PRoundingPoint::undeclared}) {
        const Used u = judge(p, o, out, declared);
        Used& w = declared == PRoundingPoint::undeclared ? worst_generic : worst_declared;
        w.o_elem = std::max(w.o_elem, u.o_elem);
        w.o_rms = std::max(w.o_rms, u.o_rms);
        if (u.lse > w.lse && std::getenv("MLACHECK_TOLERANCE_VERBOSE") != nullptr) {
          std::printf("LSE %.3f (%s) %s tile %d splits %d order %d fma %d ulps %d\n  %s\n", u.lse,
                      std::string(to_string(declared)).c_str(), to_repro(p).c_str(), config.variation.tile_tokens,
                      config.variation.splits, static_cast<int>(config.variation.order), config.variation.fma,
                      config.variation.exp2_error_ulps, mla_decode_tolerance(p, o.scales, declared).lse.rule.c_str());
        }
        w.lse = std::max(w.lse, u.lse);
        EXPECT_TRUE(u.within()) << to_repro(p) << " tile " << config.variation.tile_tokens << " splits "
                                << config.variation.splits << " order " << static_cast<int>(config.variation.order)
                                << " fma " << config.variation.fma << " exp ulps " << config.variation.exp2_error_ulps
                                << " declared " << to_string(declared) << ": used O " << u.o_elem << " rms " << u.o_rms
                                << " LSE " << u.lse;
      }
      ++cases;
    }
  }
  std::printf(
      "soundness: %d model runs; worst bound used, declared (mma_input): O %.3f rms %.3f LSE %.3f; "
      "undeclared: O %.3f rms %.3f LSE %.3f\n",
      cases, worst_declared.o_elem, worst_declared.o_rms, worst_declared.lse, worst_generic.o_elem, worst_generic.o_rms,
      worst_generic.lse);
}

// fp8 queries (issue 16) against their fp8 cache: codes widened to bf16 (exact), P rounded to
// bf16 where declared, scores scaled by scale * kv_scale * q_scale. Query scales across 2^-8..2^8,
// powers of two and not.
TEST(KernelArithmeticModel, Fp8QueriesStayWithinTheTightBounds) {
  SplitMix64 g(20261126);
  const float q_scales[] = {0.00390625f, 0.3f, 1.0f, 5.5f, 256.0f};
  double worst = 0.0;
  for (int i = 0; i < 16; ++i) {
    MlaDecodeProblem p = random_problem(g, i);
    p.q_dtype = i % 2 == 0 ? DType::fp8_e4m3fn : DType::fp8_e4m3fnuz;
    p.kv_dtype = p.q_dtype;
    p.kv_scale = g.below(2) == 0 ? 0.03125f : 1.0f;
    p.q_scale = q_scales[g.below(std::size(q_scales))];
    validate(p);
    const MlaDecodeInputs in = make_inputs(p);
    const Oracle o = oracle(p, in);
    KernelModelConfig config;
    config.variation = random_variation(g);
    // Ours (P in bf16, declared mma_input) and aiter's kind (P in fp8, declared to_q_dtype); each
    // also judged undeclared.
    for (PRoundingPoint kernel : {PRoundingPoint::to_mma_input, PRoundingPoint::to_q_dtype}) {
      config.p_rounding = kernel;
      const MlaDecodeOutputs<float> out = kernel_arithmetic_model(p, in, config);
      for (PRoundingPoint declared : {kernel, PRoundingPoint::undeclared}) {
        const Used u = judge(p, o, out, declared);
        worst = std::max({worst, u.o_elem, u.o_rms, u.lse});
        EXPECT_TRUE(u.within()) << to_repro(p) << " tile " << config.variation.tile_tokens << " splits "
                                << config.variation.splits << " P " << to_string(kernel) << " declared "
                                << to_string(declared) << ": used O " << u.o_elem << " rms " << u.o_rms << " LSE "
                                << u.lse;
      }
    }
  }
  std::printf("fp8 queries: 32 model runs, worst bound used %.3f\n", worst);
}

// The fp8-query problems of the decode kernel tests (device/tests/fp8_query_cases.hpp, both paths):
// their check passes the model of a correct kernel and fails the model of one that drops q_scale
// (the same codes, scores scaled by scale * kv_scale alone) on every problem, over the tile and
// split counts the devices run. So the GPU tests Fp8QueriesWithoutTheirScaleFail hold by more than
// luck, and a kernel ignoring q_scale cannot pass Fp8QueriesMatchTheOracle.
TEST(KernelArithmeticModel, TheKernelTestsCatchAnFp8KernelIgnoringQScale) {
  for (const MlaDecodeProblem& p : test::fp8_query_kernel_problems()) {
    const MlaDecodeInputs in = make_inputs(p);
    for (const auto& [tile_tokens, splits] : {std::pair{16, 1}, std::pair{32, 3}}) {
      KernelModelConfig config;
      config.variation.tile_tokens = tile_tokens;
      config.variation.splits = splits;
      const MlaDecodeOutputs<float> correct = kernel_arithmetic_model(p, in, config);
      EXPECT_TRUE(test::matches_oracle_as_declared(p, in, correct.o, correct.lse)) << to_repro(p);
      const MlaDecodeOutputs<float> dropped = kernel_arithmetic_model(test::ignoring_q_scale(p), in, config);
      EXPECT_FALSE(test::matches_oracle_as_declared(p, in, dropped.o, dropped.lse)) << to_repro(p);
    }
  }
}

// --- tightness -----------------------------------------------------------------------------------

struct Mistake {
  std::string name;
  IntermediatePrecision precision;
  // False for an f16 rounding of O itself (the running accumulator, the split partials): one or a
  // few roundings of the size of the output's own f16/bf16 rounding, which the bounds, allowing
  // for that rounding, do not reliably see on these shapes (docs/tolerance.md has the rates).
  bool must_be_caught = true;
};

std::vector<Mistake> mistakes() {
  std::vector<Mistake> out;
  for (DType t : {DType::bf16, DType::f16}) {
    const std::string d(to_string(t));
    IntermediatePrecision ip;
    ip.partial_o = t;
    out.push_back({"partial_o=" + d, ip, t == DType::bf16});
    ip = {};
    ip.running_o = t;
    out.push_back({"running_o=" + d, ip, t == DType::bf16});
    ip = {};
    ip.row_sum = t;
    out.push_back({"row_sum=" + d, ip});
    ip = {};
    ip.row_max = t;
    out.push_back({"row_max=" + d, ip});
    ip = {};
    ip.lse = t;
    out.push_back({"lse=" + d, ip});
    ip = {};
    ip.softmax_scale = t;
    out.push_back({"softmax_scale=" + d, ip});
  }
  IntermediatePrecision drop;
  drop.drop_one_key_from_normaliser = true;
  out.push_back({"drop_one_key", drop});
  return out;
}

// The default sweep's problems (shapes, dtypes, lengths) with at most two heads per rank, so the
// model runs in seconds; each path gets the split count its device plan would typically choose.
std::vector<MlaDecodeProblem> sweep_shapes(std::uint64_t seed) {
  std::vector<MlaDecodeProblem> out;
  for (MlaDecodeProblem p : default_mla_sweep(seed)) {
    if (p.path == DecodePath::persistent) continue;  // the same shapes as the split-KV rows
    p.total_heads = std::min(heads(p), 2) * p.tp;
    p.scale = 0.0;
    p.num_blocks = 0;
    out.push_back(with_defaults(p));
  }
  return out;
}

int seeds_to_run() {
  const char* env = std::getenv("MLACHECK_TOLERANCE_SEEDS");
  return env != nullptr ? std::max(1, std::atoi(env)) : 1;
}

TEST(KernelArithmeticModel, EveryPrecisionMistakeIsCaughtOnTheDefaultSweepShapes) {
  const std::vector<Mistake> all = mistakes();
  const int seeds = seeds_to_run();
  std::vector<int> caught(all.size(), 0), rows(all.size(), 0);
  std::vector<double> worst_used(all.size(), 0.0);
  int total_rows = 0;
  for (int s = 0; s < seeds; ++s) {
    std::vector<bool> seen(all.size(), false);
    for (const MlaDecodeProblem& p : sweep_shapes(1 + static_cast<std::uint64_t>(s))) {
      const MlaDecodeInputs in = make_inputs(p);
      const Oracle o = oracle(p, in);
      KernelModelConfig config;
      config.variation.splits = p.kv_lens.size() == 4 && p.kv_lens[0] > 1000 ? 8 : 3;
      const Used clean = judge(p, o, kernel_arithmetic_model(p, in, config), PRoundingPoint::to_mma_input);
      EXPECT_TRUE(clean.within()) << to_repro(p);
      ++total_rows;
      for (std::size_t m = 0; m < all.size(); ++m) {
        config.precision = all[m].precision;
        const Used u = judge(p, o, kernel_arithmetic_model(p, in, config), PRoundingPoint::to_mma_input);
        const double used = std::max({u.o_elem, u.o_rms, u.lse});
        worst_used[m] = std::max(worst_used[m], used);
        if (!u.within()) {
          seen[m] = true;
          ++rows[m];
        }
      }
    }
    for (std::size_t m = 0; m < all.size(); ++m) caught[m] += seen[m] ? 1 : 0;
  }
  std::printf("tightness over %d seed(s), %d rows each:\n", seeds, total_rows / seeds);
  for (std::size_t m = 0; m < all.size(); ++m) {
    std::printf("  %-20s caught on %d/%d seeds, %d rows failing, worst bound used %.1f\n", all[m].name.c_str(),
                caught[m], seeds, rows[m], worst_used[m]);
    if (all[m].must_be_caught) {
      EXPECT_GT(caught[m], seeds / 2) << all[m].name << " escaped on most seeds";
    }
  }
}

// --- the judging step ---------------------------------------------------------------------------

CaseResult judge_row(const MlaDecodeProblem& p, const Oracle& o, const MlaDecodeOutputs<float>& out,
                     PRoundingPoint declared) {
  CaseResult row;
  const std::vector<double> lse(out.lse.begin(), out.lse.end());
  judge_mla_outputs(row, p, o.exact, o.scales, declared, {out.o, {}, true, lse, {}}, RunDiagnostics{});
  return row;
}

// harness/mla_judge compares a declared backend with the kernel-faithful oracle where the rule
// picks it (P split exactly: mixed 16-bit q/kv), with the exact one otherwise, and an undeclared
// backend always with the exact one under the generic model.
TEST(KernelArithmeticModel, TheJudgeUsesTheFaithfulOracleWhereTheBackendDeclaredItsRounding) {
  MlaDecodeProblem p;
  p.total_heads = 4;
  p.kv_lens = {700, 5};
  p.q_lens = {2, 1};
  p.q_dtype = DType::bf16;
  p.kv_dtype = DType::f16;  // S = f16 != q_dtype: P split into hi + lo
  p.o_dtype = DType::bf16;
  p = with_defaults(p);
  const MlaDecodeInputs in = make_inputs(p);
  const Oracle o = oracle(p, in);
  KernelModelConfig config;
  config.variation.splits = 3;
  const MlaDecodeOutputs<float> out = kernel_arithmetic_model(p, in, config);

  const CaseResult declared = judge_row(p, o, out, PRoundingPoint::to_mma_input);
  ASSERT_EQ(declared.tensors.size(), 2u);
  EXPECT_EQ(declared.state, ResultState::passed) << declared.reason;
  EXPECT_NE(declared.tensors[0].tol.rule.find("P=hi+lo(f16)"), std::string::npos) << declared.tensors[0].tol.rule;
  EXPECT_NE(declared.tensors[0].tol.rule.find("oracle O rounded to o_dtype"), std::string::npos);
  const CaseResult generic = judge_row(p, o, out, PRoundingPoint::undeclared);
  EXPECT_EQ(generic.state, ResultState::passed) << generic.reason;
  EXPECT_EQ(generic.tensors[0].tol.rule.find("oracle O rounded"), std::string::npos);
  EXPECT_LT(declared.tensors[0].tol.rms, generic.tensors[0].tol.rms / 2);
  EXPECT_LT(declared.tensors[1].tol.abs, generic.tensors[1].tol.abs / 10);  // no P charge on the LSE

  // The faithful comparison is what makes a running O kept in bf16 visible here.
  config.precision.running_o = DType::bf16;
  EXPECT_EQ(judge_row(p, o, kernel_arithmetic_model(p, in, config), PRoundingPoint::to_mma_input).state,
            ResultState::failed);
}

// Issue 13's problem space: a padded request (kv_len 0) gets the identity the kernels write, O 0
// and LSE -inf, whatever the splits; blocks dealt from first_block on are read where the host holds
// them (host_cache_index), so the outputs do not depend on where the pool's blocks lie.
// Weights within an ulp of each other round alike, so their P errors add up coherently. A sink row
// with fp8 keys at scale 1e-6 is near-tied, and its structured channels are values too (rope 0);
// charged per token, a correct kernel that rounds P with an f32 O used 1.02-1.36 of its rms bound
// here; charged per rounding bucket, 0.36-0.44.
TEST(KernelArithmeticModel, TiedScoresRoundTheirPAlikeAndStayWithinTheBound) {
  const MlaDecodeProblem base = parse_mla_decode(
      "mla_decode:name=fz1078;heads=5;lv=64;rope=0;scale=1e-06;kv=64,17,0;q=1,16,1;bs=16;q_dtype=f16;"
      "kv_dtype=fp8_e4m3fnuz;o_dtype=f32;kv_scale=0.125;fill=random;seed=1267301686715172397;profile=sink");
  double worst = 0.0;
  for (std::uint64_t seed : {base.seed, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{4}}) {
    // f16 queries, and fp8 queries of the cache's type (P to fp8 under to_q_dtype).
    for (float q_scale : {0.0f, 0.375f}) {
      MlaDecodeProblem p = base;
      p.seed = seed;
      if (q_scale > 0.0f) {
        p.q_dtype = p.kv_dtype;
        p.q_scale = q_scale;
      }
      const MlaDecodeInputs in = make_inputs(p);
      const Oracle o = oracle(p, in);
      for (PRoundingPoint declared :
           {PRoundingPoint::to_q_dtype, PRoundingPoint::to_bf16, PRoundingPoint::to_mma_input}) {
        KernelModelConfig config;
        config.p_rounding = declared;
        const Used u = judge(p, o, kernel_arithmetic_model(p, in, config), declared);
        EXPECT_TRUE(u.within()) << "seed " << seed << " q " << to_string(p.q_dtype) << " declared "
                                << to_string(declared) << ": O " << u.o_elem << " rms " << u.o_rms << " LSE " << u.lse;
        worst = std::max(worst, u.o_rms);
      }
    }
  }
  std::printf("tied scores: worst rms bound used %.3f\n", worst);
}

// The false alarms of the GPU property sittings, each a clean run of the hip backend the tight rule
// failed; the model reproduces all five. The H100 sitting's four (2-19% over the rms bound): three
// outputs on rounding ties (exact fills, kv_scale 1 + 2^-11, single-token rows) whose whole error
// is the oracle's own rounding r, above the statistical output-rounding size; a P split into f16
// hi + lo whose lo part is subnormal (weights below 1/8 of huge extreme-profile values). The H200
// sitting's fifth (1.7 times the bound): the same row with P rounded to f16 whole, its weights of
// about 1e-5 f16 subnormals.
TEST(KernelArithmeticModel, ThePropertySittingsFalseAlarmsStayWithinTheBound) {
  const char* repros[] = {
      "mla_decode:heads=16;lv=128;rope=64;scale=2.1e-05;kv=7,1,0;q=1*3;bs=16;q_dtype=f16;kv_dtype=fp8_e4m3fn;"
      "o_dtype=f16;kv_scale=1.0004883;splits=1;fill=exact;seed=0",
      "mla_decode:heads=16;lv=128;rope=64;kv=1;q=1;bs=2;q_dtype=bf16;kv_dtype=fp8_e4m3fn;o_dtype=f16;"
      "kv_scale=1.0004883;fill=exact;seed=0",
      "mla_decode:heads=32;lv=16;rope=0;scale=1e-06;kv=2;q=2;bs=1;q_dtype=f16;kv_dtype=fp8_e4m3fn;o_dtype=bf16;"
      "kv_scale=0.06274414;fill=exact;seed=0",
      "mla_decode:heads=3;tp=3;lv=256;rope=32;scale=1e-06;kv=3;q=3;bs=1;q_dtype=bf16;kv_dtype=f16;o_dtype=f16;"
      "seed=0;profile=extreme",
      "mla_decode:heads=3;tp=3;lv=256;rope=32;scale=1e-06;kv=3;q=3;bs=1;q_dtype=f16;kv_dtype=f16;o_dtype=f16;"
      "seed=0;profile=extreme"};
  double worst = 0.0;
  for (const char* repro : repros) {
    const MlaDecodeProblem p = parse_mla_decode(repro);
    const MlaDecodeInputs in = make_inputs(p);
    const Oracle o = oracle(p, in);
    for (int tile : {16, 32}) {
      KernelModelConfig config;
      config.variation.tile_tokens = tile;
      const MlaDecodeOutputs<float> out = kernel_arithmetic_model(p, in, config);
      for (PRoundingPoint declared : {PRoundingPoint::to_mma_input, PRoundingPoint::undeclared}) {
        const Used u = judge(p, o, out, declared);
        EXPECT_TRUE(u.within()) << repro << " tile " << tile << " " << to_string(declared) << ": O " << u.o_elem
                                << " rms " << u.o_rms << " LSE " << u.lse;
        worst = std::max(worst, u.o_rms);
      }
    }
  }
  std::printf("sitting's false alarms: worst rms bound used %.3f\n", worst);
}

TEST(KernelArithmeticModel, PaddedRequestsAndPoolsFromFirstBlock) {
  const MlaDecodeProblem p = with_defaults(test_problem("case", 4, {{0, 40, 0}, {2, 3, 1}}));
  MlaDecodeProblem moved = p;
  moved.first_block = 7;
  moved.num_blocks = 0;
  moved = with_defaults(moved);
  const MlaDecodeInputs in = make_inputs(p);
  const MlaDecodeInputs moved_in = make_inputs(moved);
  for (int splits : {1, 3}) {
    SCOPED_TRACE(splits);
    KernelModelConfig config;
    config.variation.splits = splits;
    const MlaDecodeOutputs<float> out = kernel_arithmetic_model(p, in, config);
    const int h = heads(p);
    const int lv = p.kv_lora_rank;
    for (int token : {0, 1, 5}) {  // request 0's two rows, request 2's one
      for (int head = 0; head < h; ++head) {
        const std::size_t row = static_cast<std::size_t>(token * h + head);
        EXPECT_EQ(out.lse[row], -INFINITY) << "token " << token;
        const auto o = out.o.begin() + static_cast<std::ptrdiff_t>(row * static_cast<std::size_t>(lv));
        EXPECT_EQ(std::count(o, o + lv, 0.0f), lv) << "token " << token << " head " << head;
      }
    }
    const MlaDecodeOutputs<float> moved_out = kernel_arithmetic_model(moved, moved_in, config);
    EXPECT_EQ(moved_out.o, out.o);
    EXPECT_EQ(moved_out.lse, out.lse);
  }
}

}  // namespace
}  // namespace mlacheck
