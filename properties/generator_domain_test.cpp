// What the generators spend their budget on, measured against the hip backend's host-side shape
// check (kernels::split_kv_unsupported: the shapes both decode paths refuse, no GPU needed). The
// device-facing limits must draw nothing the kernels refuse; everything validate() accepts, drawn
// with the same distributions, is what they drew before they knew the kernels' domain, and this
// test prints that share for comparison.
#include <gtest/gtest.h>

#include <cstdio>

#include "device/kernels/split_kv_plan.hpp"
#include "properties/gpu/case_limits.hpp"
#include "properties/support/gather_problem_gen.hpp"
#include "properties/support/mla_problem_gen.hpp"

namespace mlacheck {
namespace {

constexpr int kDraws = 2000;

bool refused(const MlaDecodeProblem& p) {
  return kernels::split_kv_unsupported(kernels::split_kv_shape(p, 1)).has_value();
}

// Draws kDraws problems with sizes sweeping rapidcheck's 0..100, as a property run does.
std::vector<MlaDecodeProblem> draw(const MlaGenLimits& limits, std::uint64_t seed) {
  std::vector<MlaDecodeProblem> out;
  rc::Random random(seed);
  const rc::Gen<MlaDecodeProblem> gen = gen_mla_decode_problem(limits);
  for (int i = 0; i < kDraws; ++i) out.push_back(gen(random.split(), i % 101).value());
  return out;
}

double refused_share(const std::vector<MlaDecodeProblem>& problems) {
  int n = 0;
  for (const MlaDecodeProblem& p : problems) n += refused(p) ? 1 : 0;
  return static_cast<double>(n) / static_cast<double>(problems.size());
}

TEST(GeneratorDomain, DevicePropertiesDrawNothingTheKernelsRefuse) {
  for (const auto& [name, limits] : {std::pair{"oracle", kOracleCaseLimits}, std::pair{"device-only", kDeviceOnlyCaseLimits},
                                     std::pair{"tensor-parallel", kTensorParallelCaseLimits}}) {
    const double device = refused_share(draw(limits, 7));
    MlaGenLimits everything = limits;
    everything.device_shapes_only = false;
    const double before = refused_share(draw(everything, 7));
    std::printf("%s limits: %.1f%% of %d draws refused (%.1f%% when drawing everything validate() accepts)\n", name,
                100.0 * device, kDraws, 100.0 * before);
    EXPECT_EQ(device, 0.0) << name;
  }
}

TEST(GeneratorDomain, TheKernelsRefuseExactlyWhatLiesOutsideTheDeviceShapes) {
  // The refusal test (MlaDecodeOnGpu.RefusalsAreSkippedNotPassed) draws from outside the domain:
  // it must be what the backend refuses, and the domain must be all it takes.
  int outside = 0;
  for (const MlaDecodeProblem& p : draw(kRefusalCaseLimits, 11)) {
    EXPECT_EQ(refused(p), !device_shape(p)) << to_repro(p);
    outside += device_shape(p) ? 0 : 1;
  }
  EXPECT_GT(outside, kDraws / 4) << "the refusal test would rarely see a refusal";
}

TEST(GeneratorDomain, GathersIncludeOneHeadNhdCachesWithTiedStrides) {
  // One kv head in NHD, token-major and dense: head_stride == token_stride. The generator once
  // steered these to head-major strides around a validate() bug that is fixed.
  rc::Random random(13);
  const rc::Gen<KvGatherProblem> gen = gen_kv_gather_problem();
  int tied = 0;
  for (int i = 0; i < kDraws; ++i) {
    const KvGatherProblem p = gen(random.split(), i % 101).value();
    tied += p.layout == CacheLayout::nhd && p.num_kv_heads == 1 && p.block_size > 1 && p.head_stride == p.token_stride;
  }
  EXPECT_GT(tied, 0);
}

}  // namespace
}  // namespace mlacheck
