#pragma once
// How large the GPU properties' cases grow (at rapidcheck's largest size; small cases come first).
// The default run, 500 cases per property, must take under 3 minutes on one H100 host. The GPU's
// kernels take almost none of it (0.14 s of MatchesOracle's 32 s when measured); the host takes
// the rest: filling, encoding and uploading each case's cache (about 12 s per 10^9 cache elements
// on the H100 host) and the CPU oracle (double precision, one thread). So the oracle's work per
// case is bounded (max_oracle_flops, which also bounds the cache a case fills), caches stay short,
// and 16k-token caches stay rare. docs/properties.md has the measured times.
#include "generators/gather_problem_gen.hpp"
#include "generators/mla_problem_gen.hpp"

namespace mlacheck {

// Device against oracle: up to 64 requests, caches up to 2048 tokens, 2% of cases with one at 16k,
// one in eight a decode sequence (run_mla_case judges every step; the steps share the oracle's
// budget); only shapes the kernels take (refusals are drawn by
// MlaDecodeOnGpu.RefusalsAreSkippedNotPassed).
inline constexpr MlaGenLimits kOracleCaseLimits{.max_batch = 64,
                                                .max_kv_len = 2048,
                                                .long_kv_percent = 2,
                                                .max_oracle_flops = 3e9,
                                                .device_shapes_only = true,
                                                .sequence_percent = 12};
// Device against device (no oracle): the same shapes; the budget keeps input fills and uploads
// alike, so both kinds of property see the same space. One step each: these properties call
// Backend::run on the problem, which runs one step.
inline constexpr MlaGenLimits kDeviceOnlyCaseLimits{
    .max_batch = 64, .max_kv_len = 2048, .long_kv_percent = 2, .max_oracle_flops = 3e9, .device_shapes_only = true};
// Tensor parallelism: the model's oracle runs tp (up to 16) times a rank's heads, and every rank
// encodes and uploads the whole cache, so a rank's budget is smaller.
inline constexpr MlaGenLimits kTensorParallelCaseLimits{.max_batch = 32,
                                                       .max_kv_len = 1024,
                                                       .long_kv_percent = 1,
                                                       .max_oracle_flops = 6e8,
                                                       .device_shapes_only = true};
// Refusals: every problem validate() accepts, small (a refused case costs nothing on the device).
inline constexpr MlaGenLimits kRefusalCaseLimits{.max_batch = 4, .max_kv_len = 64};
// Gathers copy [tokens, kv_heads, head_size] for K and V: the host fill and compare bound them.
inline constexpr GatherGenLimits kGatherCaseLimits{.max_batch = 8, .max_kv_len = 1024};

}  // namespace mlacheck
