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

// The speed targets of the benchmark issue, stated once: memory-bound shapes (heads <= 32,
// q_len 1) at >= 70% of the measured copy bandwidth; 128 heads at >= 150 TFLOP/s.
struct BenchTarget {
  std::string what;  // "70% of copy bandwidth", "150 TFLOP/s" or "" when the shape has none
  bool met = true;
};
BenchTarget decode_target(const MlaDecodeProblem& p, double gbps, double tflops, double copy_gbps);

}  // namespace mlacheck
