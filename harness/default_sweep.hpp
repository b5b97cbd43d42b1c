#pragma once
// The device cases `mlacheck run` sweeps by default: model shapes (DeepSeek-V3, Kimi-K2.5 at TP8,
// DeepSeek-V2-Lite at TP2, Mistral-Small-4, a 12-head rank) across both decode paths, multi-token
// and non-power-of-two q_len, every cache dtype, and every gather layout; then the same models
// with the fill profiles that stress precision (sink, extreme). Deterministic from seed.
#include <cstdint>
#include <vector>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

std::vector<MlaDecodeProblem> default_mla_sweep(std::uint64_t seed);
std::vector<KvGatherProblem> default_gather_sweep(std::uint64_t seed);

}  // namespace mlacheck
