#pragma once
// Which decode path an mla_decode problem runs on the hip backend, and why. Plain host code, so
// the rule is tested without a GPU.
//
// path=split_kv and path=persistent run as requested. path=auto decides by batch and length:
//   split-KV when problem.num_splits is set (a split-KV setting: the caller means that path), or
//     when some q_len exceeds kPersistentAutoMaxQLen (beyond speculative decode: many q tiles
//     per request, each re-reading the request's kv);
//   persistent when the batch has at least as many requests as the device has CUs (every CU gets
//     whole requests and the plan evens out their lengths), or when the kv lengths are uneven,
//     the longest at least kUnevenKvFactor x the mean (split-KV cuts every request into the same
//     number of splits, so the device waits on the longest request's splits, while the planner
//     cuts a long request into CU-sized pieces);
//   split-KV otherwise: few requests of similar length, which uniform splits already spread over
//     the device without a plan to build and upload.
#include <string>

#include "core/mla_problem.hpp"

namespace mlacheck {

inline constexpr int kPersistentAutoMaxQLen = 16;
inline constexpr int kUnevenKvFactor = 4;

struct DecodePathChoice {
  DecodePath path = DecodePath::split_kv;  // persistent or split_kv, never automatic
  std::string reason;                      // RunDiagnostics::path_reason
};

// compute_units: CUs (AMD) or SMs (NVIDIA) of the device that runs the problem.
DecodePathChoice choose_decode_path(const MlaDecodeProblem& p, int compute_units);

}  // namespace mlacheck
