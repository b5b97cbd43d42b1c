#include "bench/decode_bench_shapes.hpp"

namespace mlacheck {

namespace {

// fp8: q and cache in fp8 e4m3 (fn), with scales that are no powers of two; bf16 otherwise.
MlaDecodeProblem shape(int heads, int kv_len, int q_len, int lv, int requests, DecodePath path, bool fp8 = false) {
  MlaDecodeProblem p;
  if (fp8) {
    p.q_dtype = p.kv_dtype = DType::fp8_e4m3fn;
    p.q_scale = 0.3f;
    p.kv_scale = 0.03125f;
  }
  p.total_heads = heads;
  p.kv_lora_rank = lv;
  p.rope_dim = 64;
  p.kv_lens.assign(static_cast<std::size_t>(requests), kv_len);
  p.q_lens.assign(static_cast<std::size_t>(requests), q_len);
  p.block_size = 64;
  p.path = path;
  p.name = "h" + std::to_string(heads) + "-kv" + std::to_string(kv_len) + "-q" + std::to_string(q_len) +
           (lv != 512 ? "-lv" + std::to_string(lv) : "") + (fp8 ? "-fp8" : "") + "." + std::string(to_string(path));
  return with_defaults(p);
}

}  // namespace

std::vector<MlaDecodeProblem> decode_bench_shapes(bool quick) {
  const int requests = quick ? 16 : 128;
  const std::vector<int> kv_lens = quick ? std::vector<int>{1024} : std::vector<int>{4096, 8192};
  std::vector<MlaDecodeProblem> out;
  for (DecodePath path : {DecodePath::split_kv, DecodePath::persistent}) {
    for (int kv : kv_lens) {
      for (int heads : {8, 16, 32, 64, 128}) {
        for (int q : {1, 2}) out.push_back(shape(heads, kv, q, 512, requests, path));
      }
      out.push_back(shape(32, kv, 1, 256, requests, path));  // Mistral-Small-4: Lv 256
    }
    // fp8 queries against their fp8 cache (aiter's fp8 decode, issue 16), widened to bf16 in the
    // kernels: 16, 64 and 128 heads at the first cache length, q_len 1.
    for (int heads : {16, 64, 128}) out.push_back(shape(heads, kv_lens.front(), 1, 512, requests, path, true));
  }
  return out;
}

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
