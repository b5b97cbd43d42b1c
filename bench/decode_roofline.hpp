#pragma once
// The roofline arithmetic `mlacheck bench` reports its timings against, and the speed targets it
// holds them to (the shapes it times: plan/bench_shapes.hpp).
#include <string>

#include "core/mla_problem.hpp"

namespace mlacheck {

// Bytes a decode must move at least: every KV token read once, q read once, O written once.
double decode_min_bytes(const MlaDecodeProblem& p);
// Matrix FLOPs: 2 (Lk + Lv) per KV token per query row (QK^T and PV), over the causal view.
double decode_flops(const MlaDecodeProblem& p);

// The speed targets of issue 16, stated once: q_len 1 up to 64 heads at >= 85% of the measured
// copy bandwidth (Lv 256: >= 75%); 128 heads, and q_len 2 at 64 heads, at >= 350 TFLOP/s; the
// persistent path no slower than split-KV on a shape where auto picks it (persistent_target: its
// time over split-KV's on the same shape, 0 when there is no split-KV twin).
struct BenchTarget {
  std::string what;  // e.g. "85% of copy bandwidth", or "" when the shape has none
  bool met = true;
};
BenchTarget decode_target(const MlaDecodeProblem& p, double gbps, double tflops, double copy_gbps);
// Timing noise allowed when comparing the two paths' medians: 2%.
inline constexpr double kPathComparisonNoise = 1.02;
BenchTarget persistent_target(double persistent_over_split);

}  // namespace mlacheck
