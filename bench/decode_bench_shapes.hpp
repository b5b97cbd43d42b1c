#pragma once
// What `mlacheck bench` times, and the roofline arithmetic it reports against.
//
// Shapes: FlashMLA's benchmark set (128 requests, kv_len 4096 and 8192, 16/32/64/128 heads,
// q_len 1 and 2, bf16, block size 64) plus 8 heads (Kimi-K2.5 at TP8) and Lv 256
// (Mistral-Small-4), and fp8 e4m3 q and cache at 16, 64 and 128 heads (names ending -fp8), each on
// both decode paths.
#include <string>
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

std::vector<MlaDecodeProblem> decode_bench_shapes(bool quick);

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
