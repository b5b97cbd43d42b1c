#pragma once
// The shapes `mlacheck bench` times: FlashMLA's benchmark set (128 requests, kv_len 4096 and 8192,
// 16/32/64/128 heads, q_len 1 and 2, bf16, block size 64) plus 8 heads (Kimi-K2.5 at TP8) and
// Lv 256 (Mistral-Small-4), and fp8 e4m3 q and cache at 16, 64 and 128 heads (names ending -fp8),
// each on both decode paths. The roofline it reports against: bench/decode_roofline.hpp.
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

std::vector<MlaDecodeProblem> decode_bench_shapes(bool quick);

}  // namespace mlacheck
