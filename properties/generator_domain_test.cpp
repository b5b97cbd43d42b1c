// What the generators spend their budget on, measured against the hip backend's host-side shape
// check (kernels::split_kv_unsupported: the shapes both decode paths refuse, no GPU needed). The
// device-facing limits must draw nothing the kernels refuse; everything validate() accepts, drawn
// with the same distributions, is what they drew before they knew the kernels' domain, and this
// test prints that share for comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/cache_offsets.hpp"
#include "core/mla_sequence.hpp"
#include "device/hip_backend/decode_path.hpp"
#include "device/hip_backend/decode_variant.hpp"
#include "device/hip_backend/persistent_plan.hpp"
#include "device/kernels/split_kv_plan.hpp"
#include "device/planner/planner_error.hpp"
#include "generators/gather_problem_gen.hpp"
#include "generators/mla_problem_gen.hpp"
#include "properties/gpu/case_limits.hpp"

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

// Fault metadata-sized-for-single-token (R3) shows on a persistent case (an H100: 132 SMs, one
// block each) whose partial rows outgrow one row per partial. Counted without the cases our
// builder refuses (the buffers short of items: 128+ padded heads), which mutate catches too.
bool single_token_sizing_shows_on_an_h100(const MlaDecodeProblem& p) {
  constexpr int kSms = 132;
  if (choose_decode_path(p, kSms).path != DecodePath::persistent) return false;
  try {
    const PersistentPlan plan =
        plan_persistent_decode(planner_inputs(p), kSms, {Fault::metadata_sized_for_single_token});
    return plan.partial_rows < plan.header.partial_rows;
  } catch (const InvalidPlanInput&) {
    return false;
  }
}

// `mlacheck mutate` finds a fault only if its generator draws the fault's trigger often enough for
// a run of --cases 100 (its default limits, mirrored here) to meet it several times.
TEST(GeneratorDomain, MutateDrawsTheTriggersOfTheVariantFaults) {
  MlaGenLimits mutate;
  mutate.max_batch = 8;
  mutate.max_kv_len = 2048;
  mutate.max_oracle_flops = 4e9;
  mutate.device_shapes_only = true;
  struct Trigger {
    const char* fault;
    bool (*drawn)(const MlaDecodeProblem&);
    int count = 0;
  };
  Trigger triggers[] = {
      {"padded-fp8-single-request (R6)",
       [](const MlaDecodeProblem& p) {
         return head_pad_mode(p) != HeadPadMode::none && is_fp8(p.kv_dtype) && batch(p) > 1 &&
                p.path != DecodePath::persistent;
       }},
      {"kernel-ignores-page-size (R8)",
       [](const MlaDecodeProblem& p) {
         return kernel_reads_pages_as_tokens(p, {Fault::kernel_ignores_page_size}) && max_kv_len(p) > 1;
       }},
      {"tokens-folded-into-heads (R9)",
       [](const MlaDecodeProblem& p) {
         return folded_decode_problem(p, {Fault::tokens_folded_into_heads}).has_value();
       }},
      {"supports-accepts-mixed-dtypes (R10)",
       [](const MlaDecodeProblem& p) {
         return storage_bytes(p.kv_dtype) == 2 && p.q_dtype != p.kv_dtype && p.path != DecodePath::split_kv;
       }},
      {"value-scale-k-times-v (R11)",
       [](const MlaDecodeProblem& p) { return is_fp8(p.kv_dtype) && p.kv_scale != 1.0f; }},
      {"metadata-sized-for-single-token (R3)", single_token_sizing_shows_on_an_h100},
  };
  for (const MlaDecodeProblem& p : draw(mutate, 17)) {
    for (Trigger& t : triggers) t.count += t.drawn(p) ? 1 : 0;
  }
  for (const Trigger& t : triggers) {
    std::printf("%s: %d of %d draws\n", t.fault, t.count, kDraws);
    EXPECT_GE(t.count, kDraws / 100) << t.fault << ": fewer than one draw in a hundred";
  }
}

// Issue 13 item 2: past_4gib_percent places a case's blocks past 4 GiB of pool, with host inputs
// of the blocks read only, and every such draw is one where fault cache-offset-32bit reads only
// the NaN-poisoned blocks below first_block (so `mlacheck mutate` catches it on any of them).
TEST(GeneratorDomain, Past4GiBDrawsPutEveryRowReadPastTheWrap) {
  MlaGenLimits limits = kOracleCaseLimits;
  limits.past_4gib_percent = 100;
  for (const MlaDecodeProblem& p : draw(limits, 17)) {
    ASSERT_TRUE(cache_rows_past_4gib(p)) << to_repro(p);
    // The host holds the requests' blocks and the few spare ones, not the pool.
    ASSERT_LE(host_cache_blocks(p), blocks_needed(p) + 3) << to_repro(p);
    ASSERT_GE(cache_pool_bytes(p), std::int64_t{1} << 32) << to_repro(p);
    ASSERT_FALSE(refused(p)) << to_repro(p);
    // The wrapped offset of the pool's last row still lies below first_block's first row.
    const std::int64_t last_slot = std::int64_t{p.num_blocks} * p.block_size - 1;
    const std::int64_t first_row = std::int64_t{p.first_block} * p.block_size * lk(p);
    const auto eb = static_cast<int>(storage_bytes(p.kv_dtype));
    ASSERT_LE(wrapped_cache_row_offset(static_cast<std::int32_t>(last_slot), lk(p), eb) + lk(p), first_row)
        << to_repro(p);
  }
  // Rare when asked to be, and never unless asked.
  limits.past_4gib_percent = 5;
  int past = 0;
  for (const MlaDecodeProblem& p : draw(limits, 19)) past += cache_rows_past_4gib(p) ? 1 : 0;
  EXPECT_GT(past, kDraws * 2 / 100);
  EXPECT_LT(past, kDraws * 9 / 100);
  for (const MlaDecodeProblem& p : draw(kOracleCaseLimits, 23)) ASSERT_EQ(p.first_block, 0);
}

// Issue 16 item 2: the generators draw fp8 queries (against their own fp8 cache type, with scales
// that are not powers of two too), the device limits as the host ones: the kernels take every
// such draw (widened to bf16), padded heads and multi-token rows among them.
TEST(GeneratorDomain, Fp8QueriesAreDrawnForTheHostAndTheDevice) {
  MlaGenLimits host;
  host.max_batch = 4;
  host.max_kv_len = 256;
  for (const auto& [limits, seed] : {std::pair{host, 29}, std::pair{kOracleCaseLimits, 31}}) {
    int fp8 = 0, odd_scale = 0, fnuz = 0, padded = 0, multi_token = 0;
    for (const MlaDecodeProblem& p : draw(limits, static_cast<std::uint64_t>(seed))) {
      if (!is_fp8(p.q_dtype)) continue;
      ++fp8;
      ASSERT_EQ(p.kv_dtype, p.q_dtype) << to_repro(p);
      if (limits.device_shapes_only) {
        ASSERT_FALSE(refused(p)) << to_repro(p);
      }
      odd_scale += std::ldexp(1.0f, std::ilogb(p.q_scale)) != p.q_scale ? 1 : 0;
      fnuz += p.q_dtype == DType::fp8_e4m3fnuz ? 1 : 0;
      padded += head_pad_mode(p) != HeadPadMode::none ? 1 : 0;
      multi_token += max_q_len(p) > 1 ? 1 : 0;
    }
    EXPECT_GT(fp8, kDraws / 20) << limits.device_shapes_only;
    EXPECT_GT(odd_scale, fp8 / 4);
    EXPECT_GT(fnuz, fp8 / 4);
    EXPECT_LT(fnuz, fp8 * 3 / 4);
    EXPECT_GT(padded, fp8 / 10);
    EXPECT_GT(multi_token, fp8 / 2);
  }
}

// The oracle's work over every step of a case (2 * q_len * heads * kv_len * (Lk + Lv) per request
// and step), the quantity max_oracle_flops bounds.
double oracle_flops(const MlaDecodeProblem& p) {
  double flops = 0.0;
  for (int s = 0; s < p.steps; ++s) {
    for (int r = 0; r < batch(p); ++r) {
      flops += 2.0 * p.q_lens[static_cast<std::size_t>(r)] * heads(p) * kv_len_at(p, r, s) * (lk(p) + p.kv_lora_rank);
    }
  }
  return flops;
}

// Issue 13 item 3: with sequence_percent, decode sequences that validate() accepts (the generator
// validates every draw; here each step too), of 2..8 steps, with and without requests joining and
// leaving, whose oracle work over all steps stays near the one-step budget, so the GPU property's
// time does not grow with them; and none unless asked for.
TEST(GeneratorDomain, SequenceDrawsAreValidSmallAndVaried) {
  MlaGenLimits limits = kOracleCaseLimits;
  int sequences = 0, changing = 0, joining = 0, leaving = 0;
  std::vector<int> steps_seen(9, 0);
  for (const MlaDecodeProblem& p : draw(limits, 29)) {
    if (!is_sequence(p)) continue;
    ++sequences;
    ASSERT_NO_THROW(validate_sequence(p)) << to_repro(p);
    ASSERT_GE(p.steps, 2) << to_repro(p);
    ASSERT_LE(p.steps, 8) << to_repro(p);
    ++steps_seen[static_cast<std::size_t>(p.steps)];
    for (int s = 0; s < p.steps; ++s) ASSERT_NO_THROW(validate(sequence_step(p, s))) << to_repro(p) << " step " << s;
    ASSERT_FALSE(refused(p)) << to_repro(p);
    bool joins = false, leaves = false;
    for (int r = 0; r < batch(p); ++r) {
      const bool active = join_step(p, r) < leave_step(p, r);
      joins |= active && join_step(p, r) > 0;
      leaves |= active && leave_step(p, r) < p.steps;
    }
    joining += joins ? 1 : 0;
    leaving += leaves ? 1 : 0;
    changing += joins || leaves ? 1 : 0;
    // Outside the rare 16k requests, the steps share the budget: a little over it at most (each
    // step adds q_len tokens, and a request holds at least its q_len).
    if (max_kv_len(sequence_capacity(p)) <= limits.max_kv_len + 64) {
      EXPECT_LE(oracle_flops(p), 1.5 * limits.max_oracle_flops + 1e8) << to_repro(p);
    }
  }
  std::printf("%d of %d draws are sequences: %d with a request joining or leaving (%d join, %d leave)\n", sequences,
              kDraws, changing, joining, leaving);
  EXPECT_GT(sequences, kDraws * 8 / 100);
  EXPECT_LT(sequences, kDraws * 17 / 100);
  EXPECT_GT(changing, sequences / 4);
  EXPECT_LT(changing, sequences);  // fixed batches too
  EXPECT_GT(joining, 0);
  EXPECT_GT(leaving, 0);
  for (int steps = 2; steps <= 8; ++steps) EXPECT_GT(steps_seen[static_cast<std::size_t>(steps)], 0) << steps;
  // Never unless asked for: the CPU properties and the device-only ones run one step.
  for (const MlaGenLimits& none : {kDeviceOnlyCaseLimits, kTensorParallelCaseLimits, MlaGenLimits{}}) {
    for (const MlaDecodeProblem& p : draw(none, 31)) ASSERT_FALSE(is_sequence(p)) << to_repro(p);
  }
}

// `mlacheck mutate` hunts plan-stale-at-replay (UPSTREAM R5) with every draw a persistent sequence
// (cli/fault_search.cpp's fault_mla_limits, mirrored here): each must change its lengths after the
// first step, where the plan of that step goes stale.
TEST(GeneratorDomain, MutateDrawsTheStalePlanTriggerEveryTime) {
  MlaGenLimits mutate;
  mutate.max_batch = 8;
  mutate.max_kv_len = 2048;
  mutate.max_oracle_flops = 4e9;
  mutate.device_shapes_only = true;
  mutate.sequence_percent = 100;
  mutate.path = DecodePath::persistent;
  for (const MlaDecodeProblem& p : draw(mutate, 37)) {
    ASSERT_TRUE(is_sequence(p)) << to_repro(p);
    ASSERT_EQ(p.path, DecodePath::persistent) << to_repro(p);
    bool stale = false;
    for (int s = 1; s < p.steps; ++s) stale |= sequence_step(p, s).kv_lens != sequence_step(p, 0).kv_lens;
    ASSERT_TRUE(stale) << to_repro(p);
  }
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
