#include "plan/bench_shapes.hpp"

#include <string>

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

}  // namespace mlacheck
