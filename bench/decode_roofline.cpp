#include "bench/decode_roofline.hpp"

namespace mlacheck {

double decode_min_bytes(const MlaDecodeProblem& p) {
  double kv_tokens = 0.0;
  for (int kv : p.kv_lens) kv_tokens += kv;
  const double tokens = total_q_tokens(p);
  return kv_tokens * lk(p) * static_cast<double>(storage_bytes(p.kv_dtype)) +
         tokens * heads(p) * lk(p) * static_cast<double>(storage_bytes(p.q_dtype)) +
         tokens * heads(p) * (p.kv_lora_rank * static_cast<double>(storage_bytes(p.o_dtype)) + 4.0);
}

double decode_flops(const MlaDecodeProblem& p) {
  double rows_times_kv = 0.0;
  for (int r = 0; r < batch(p); ++r) {
    // Query row t sees kv_len - (q_len - 1 - t) tokens.
    for (int t = 0; t < p.q_lens[r]; ++t) rows_times_kv += p.kv_lens[r] - (p.q_lens[r] - 1 - t);
  }
  return 2.0 * (lk(p) + p.kv_lora_rank) * rows_times_kv * heads(p);
}

BenchTarget decode_target(const MlaDecodeProblem& p, double gbps, double tflops, double copy_gbps) {
  const int h = heads(p);
  const int q = max_q_len(p);
  if (h == 128 || (h == 64 && q == 2)) return {"350 TFLOP/s", tflops >= 350.0};
  if (q == 1 && h <= 64 && p.kv_lora_rank == 256) return {"75% of copy bandwidth", gbps >= 0.75 * copy_gbps};
  if (q == 1 && h <= 64) return {"85% of copy bandwidth", gbps >= 0.85 * copy_gbps};
  return {"", true};
}

BenchTarget persistent_target(double persistent_over_split) {
  if (persistent_over_split <= 0.0) return {"", true};
  return {"persistent <= split-KV", persistent_over_split <= kPathComparisonNoise};
}

}  // namespace mlacheck
