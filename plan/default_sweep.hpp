#pragma once
// The device cases `mlacheck run` sweeps by default: model shapes (DeepSeek-V3, Kimi-K2.5 at TP8,
// DeepSeek-V2-Lite at TP2, Mistral-Small-4, a 12-head rank) across both decode paths, multi-token
// and non-power-of-two q_len, every cache dtype, and every gather layout; then the same models
// with the fill profiles that stress precision (sink, extreme); fp8 queries against a cache of
// their type (both e4m3 variants, scales that are no powers of two); and a few decode sequences.
// Deterministic from seed.
#include <cstdint>
#include <vector>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

std::vector<MlaDecodeProblem> default_mla_sweep(std::uint64_t seed);
// Decode sequences (core/mla_sequence.hpp, issue 13 item 3) on each path: a few steps of a captured
// batch in which requests grow, one leaves, and one joins into a slot that was padding and gets
// the departed request's blocks, so a backend's state across steps (its buffers and persistent
// plan, UPSTREAM R5) is checked by the main job. Apart from default_mla_sweep, whose users run
// one step (make_inputs, Backend::run); run_mla_case runs these step by step.
std::vector<MlaDecodeProblem> default_sequence_sweep(std::uint64_t seed);
std::vector<KvGatherProblem> default_gather_sweep(std::uint64_t seed);

}  // namespace mlacheck
