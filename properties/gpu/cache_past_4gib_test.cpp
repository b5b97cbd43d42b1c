// Caches past 4 GiB on the GPU (issue 13 item 2, UPSTREAM R4): generated cases whose every cache
// row lies 2^32 bytes or more past the pool's base, each with a device pool over 4 GiB, against the
// oracle; and fault cache-offset-32bit caught on each of them while it stays harmless below 4 GiB.
// A fixed, small number of draws rather than a rapidcheck property: each case allocates and
// poisons a pool over 4 GiB, so the property sweep's case count would dominate the run, and
// `mlacheck mutate --past-4gib-percent` draws such cases at random. A case the GPU has no memory
// for is SKIPPED with the reason (admission, Backend::lacks_memory).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>
#include <string>
#include <vector>

#include "generators/mla_problem_gen.hpp"
#include "harness/mla_case.hpp"
#include "properties/gpu/case_assertions.hpp"
#include "properties/gpu/coverage.hpp"
#include "properties/gpu/gpu_devices.hpp"
#include "properties/gpu/property_check.hpp"

namespace mlacheck {
namespace {

constexpr int kDraws = 12;
// Every draw past 4 GiB; device shapes; the oracle's work per case small.
constexpr MlaGenLimits kPast4GiBLimits{
    .max_batch = 8, .max_kv_len = 1024, .max_oracle_flops = 3e8, .device_shapes_only = true, .past_4gib_percent = 100};

// kDraws problems at sizes spread over rapidcheck's range, from a fixed seed, every one past 4 GiB
// and each path in turn (auto, persistent, split-KV) so both decode paths read past 4 GiB.
std::vector<MlaDecodeProblem> draws() {
  std::vector<MlaDecodeProblem> out;
  rc::Random random(13);
  const rc::Gen<MlaDecodeProblem> gen = gen_mla_decode_problem(kPast4GiBLimits);
  constexpr DecodePath kPaths[] = {DecodePath::automatic, DecodePath::persistent, DecodePath::split_kv};
  for (int i = 0; i < kDraws; ++i) {
    MlaDecodeProblem p = gen(random.split(), 10 + i * 90 / kDraws).value();
    p.name = "past4g-" + std::to_string(i);
    p.path = kPaths[i % 3];
    out.push_back(p);
  }
  return out;
}

TEST(MlaDecodeOnGpu, CacheRowsPast4GiBMatchOracle) {
  if (const auto why = gpu_unavailable()) GTEST_SKIP() << *why;
  Backend* backend = gpu_backends().front();
  int ran = 0;
  std::string skipped;
  for (const MlaDecodeProblem& p : draws()) {
    ASSERT_TRUE(cache_rows_past_4gib(p)) << to_repro(p);
    const CaseResult row = run_mla_case(p, backend, "");
    if (row.state == ResultState::skipped) {
      EXPECT_EQ(row.skip_reason, SkipReason::not_enough_memory) << describe_row(row);  // every draw is a device shape
      skipped = row.reason;
      continue;
    }
    ++ran;
    EXPECT_EQ(row.state, ResultState::passed) << describe_row(row);
    EXPECT_EQ(row.canaries, "ok") << describe_row(row);
    coverage().passed(current_property(), mla_buckets(p, true));
  }
  std::cout << ran << " of " << kDraws << " cases past 4 GiB ran" << std::endl;
  if (ran == 0) GTEST_SKIP() << "no case fit this GPU: " << skipped;
  coverage().expect(current_property(), {"cache rows past 4 GiB", "path=persistent", "path=split_kv"});
}

TEST(MlaDecodeOnGpu, CacheOffset32BitIsCaughtPast4GiBOnly) {
  if (const auto why = gpu_unavailable()) GTEST_SKIP() << *why;
  Backend* backend = gpu_backends().front();
  const FaultSet fault{Fault::cache_offset_32bit};
  int ran = 0;
  std::string skipped;
  for (const MlaDecodeProblem& p : draws()) {
    const CaseResult row = run_mla_case(p, backend, "", fault);
    if (row.state == ResultState::skipped) {
      skipped = row.reason;
      continue;
    }
    ++ran;
    // Every row read wraps onto the NaN-poisoned blocks below first_block: the comparison fails.
    EXPECT_EQ(row.state, ResultState::failed) << describe_row(row);
    // The same shape with its blocks from block 0 on: 32-bit offsets are right there.
    MlaDecodeProblem low = p;
    low.first_block = 0;
    low.num_blocks = 0;
    low = with_defaults(low);
    const CaseResult low_row = run_mla_case(low, backend, "", fault);
    EXPECT_EQ(low_row.state, ResultState::passed) << describe_row(low_row);
  }
  if (ran == 0) GTEST_SKIP() << "no case fit this GPU: " << skipped;
}

}  // namespace
}  // namespace mlacheck
