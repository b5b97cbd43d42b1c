#pragma once
// fp8 queries (issue 16 item 2) in the decode kernel tests: the problems both paths' tests run
// (device/kernels/tests/split_kv_decode_test.cpp, device/persistent/tests/persistent_kernel_test.cpp)
// and the host proof that their check catches a kernel ignoring q_scale
// (harness/tests/kernel_arithmetic_model_test.cpp), and how a run is judged.
#include <gtest/gtest.h>

#include <vector>

#include "core/compare.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/tolerance.hpp"
#include "properties/support/mla_test_problems.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck::test {

// Both e4m3 variants, q scales that are no powers of two (so where scale * kv_scale * q_scale rounds
// matters, and dropping it changes every score), head padding (8 heads repeat-interleaved, 12
// tiled), one to four row tiles, q_len up to 8 and not a power of two, KV tile edges, a padded
// request, element-wise q rows (Lk 56), Lv 256, an exact fill and the sink profile. On an H100 the
// e4m3fn rows take the fp8 score products and the fnuz rows the widened bf16 ones.
inline std::vector<MlaDecodeProblem> fp8_query_kernel_problems() {
  struct Row {
    int heads, lv, rope;
    std::vector<int> kv, q;
    DType dtype;
    float q_scale, kv_scale;
    DType o_dtype;
    FillMode fill = FillMode::random;
    FillProfile profile = FillProfile::uniform;
  };
  const Row rows[] = {
      {16, 512, 64, {1, 17, 300, 1000}, {1, 1, 3, 2}, DType::fp8_e4m3fn, 0.3f, 0.5f, DType::bf16},
      {128, 512, 64, {1000, 17}, {1, 2}, DType::fp8_e4m3fnuz, 5.5f, 0.03125f, DType::f16},
      {8, 512, 64, {50, 7}, {2, 1}, DType::fp8_e4m3fnuz, 0.0234375f, 2.0f, DType::bf16},
      {12, 512, 64, {40, 129}, {3, 1}, DType::fp8_e4m3fn, 1.7f, 0.25f, DType::f16},
      {16, 512, 64, {8, 15, 40, 100}, {5, 6, 7, 8}, DType::fp8_e4m3fn, 0.3f, 1.0f, DType::bf16},
      {16, 512, 64, {0, 300}, {2, 1}, DType::fp8_e4m3fnuz, 0.3f, 0.5f, DType::bf16},
      {16, 48, 8, {40, 3}, {2, 1}, DType::fp8_e4m3fnuz, 0.3f, 0.5f, DType::bf16},
      {32, 256, 64, {513, 40}, {1, 4}, DType::fp8_e4m3fn, 0.3f, 0.5f, DType::bf16},
      {16, 512, 64, {64, 5}, {4, 1}, DType::fp8_e4m3fn, 1.5f, 0.5f, DType::bf16, FillMode::exact},
      {16, 512, 64, {700, 33}, {1, 2}, DType::fp8_e4m3fnuz, 0.3f, 0.125f, DType::f16, FillMode::random,
       FillProfile::sink},
      // e4m3fn takes the fp8 score products where the GPU has them: four row tiles, and values and
      // rope padded to whole 32-wide steps with rows staged byte by byte.
      {128, 512, 64, {1000, 17}, {1, 2}, DType::fp8_e4m3fn, 5.5f, 0.03125f, DType::f16},
      {16, 48, 8, {40, 3}, {2, 1}, DType::fp8_e4m3fn, 0.3f, 0.5f, DType::bf16},
  };
  std::vector<MlaDecodeProblem> out;
  for (const Row& r : rows) {
    MlaDecodeProblem p = latent_problem(r.heads, r.lv, r.rope, {r.kv, r.q});
    p = with_dtypes(p, r.dtype, r.dtype, r.o_dtype, r.kv_scale);
    p.name = "fp8q";
    p.q_scale = r.q_scale;
    p.fill = r.fill;
    p.profile = r.profile;
    out.push_back(with_defaults(p));
  }
  return out;
}

// The problem a kernel that ignores q_scale computes: the same codes with a scale of 1.
inline MlaDecodeProblem ignoring_q_scale(MlaDecodeProblem p) {
  p.q_scale = 1.0f;
  return p;
}

// O and LSE against the oracle by the tight rule of the rounding point the hip backend declares
// (PRoundingPoint::to_mma_input: P in bf16 for fp8 queries), O against the oracle rounded to
// o_dtype where the rule picks it, as harness/mla_judge.cpp judges a case. Not the worst-case rule
// the kernel tests take for 16-bit queries: it charges P's rounding at q's dtype, for fp8 2^-4 of
// each weight, which leaves O so loose that a kernel dropping q_scale could pass.
inline testing::AssertionResult matches_oracle_as_declared(const MlaDecodeProblem& p, const MlaDecodeInputs& in,
                                                           const std::vector<float>& o, const std::vector<float>& lse) {
  MlaErrorScales scales;
  const MlaDecodeOutputs<double> exact = mla_decode_reference(p, in, PRoundingPoint::kept_f32, &scales);
  const MlaTolerances tol = mla_decode_tolerance(p, scales, PRoundingPoint::to_mma_input);
  const std::vector<double> want_o = tol.oracle_o_rounded ? faithful_oracle(p, tol, {exact.o, {}}).o : exact.o;
  const CompareStats os = compare(want_o, o, tol.o);
  const CompareStats ls = compare(exact.lse, lse, tol.lse);
  if (within(os, tol.o) && within(ls, tol.lse)) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "O: " << os.mismatches << "/" << os.total << " mismatches, " << os.nonfinite
                                     << " non-finite, max abs err " << os.max_abs_err << " at " << os.worst_index
                                     << ", rms " << os.rms_rel_err << "; " << tol.o.rule << "\nLSE: " << ls.mismatches
                                     << "/" << ls.total << " mismatches, " << ls.nonfinite << " non-finite, max abs err "
                                     << ls.max_abs_err << " at " << ls.worst_index << "; " << tol.lse.rule;
}

// A kernel test's run (o, lse, o_unwritten, lse_unwritten, canaries) of fp8-query problem p: every
// output written, every canary intact, O and LSE within the declared rule.
template <class Run>
void expect_fp8_query_run_matches_oracle(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const Run& got) {
  EXPECT_TRUE(got.canaries.intact()) << got.canaries.describe();
  EXPECT_EQ(got.o_unwritten, 0u);
  EXPECT_EQ(got.lse_unwritten, 0u);
  EXPECT_TRUE(matches_oracle_as_declared(p, in, got.o, got.lse));
}

// Runs every problem as a kernel that drops q_scale would (run(problem handed q_scale 1, the
// problem's inputs) -> a run as above): the check must fail each.
template <class RunFn>
void expect_every_run_without_q_scale_fails(RunFn&& run) {
  for (const MlaDecodeProblem& p : fp8_query_kernel_problems()) {
    SCOPED_TRACE(to_repro(p));
    const MlaDecodeInputs in = make_inputs(p);
    const auto got = run(ignoring_q_scale(p), in);
    EXPECT_FALSE(matches_oracle_as_declared(p, in, got.o, got.lse));
  }
}

}  // namespace mlacheck::test
