#pragma once
// The one float a decode kernel multiplies its q.k dot products of stored codes by. Kernels take
// scores against codes: an fp8 cache holds kv_scale * code, an fp8 query q_scale * code (1 for
// 16-bit queries), so a score is scale * kv_scale * q_scale * (code dot product). Where that float
// product rounds is part of the arithmetic: the launchers (device/kernels/kernel_dispatch.hpp) and
// their host twin, the kernel arithmetic model (reference/kernel_arithmetic_model.cpp), both form
// it here, so they round it identically. Header only: the launchers' host code compiles it too.
namespace mlacheck {

struct CodeScales {
  float scale = 0.0f;     // softmax scale, as a float
  float kv_scale = 1.0f;  // cache value = kv_scale * code
  float q_scale = 1.0f;   // query value = q_scale * code (fp8 queries; 1 otherwise)
};

// Multiplied left to right in float: two roundings (none past the first where q_scale is 1), a
// relative error of at most 2^-23 shared by every score of a launch, which the tolerance's score
// term (gamma(Lk + 8) over the roundings of a score, docs/tolerance.md) covers.
inline float code_score_scale(const CodeScales& s) { return s.scale * s.kv_scale * s.q_scale; }

}  // namespace mlacheck
