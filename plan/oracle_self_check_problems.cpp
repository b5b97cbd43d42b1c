#include "plan/oracle_self_check_problems.hpp"

#include <string>

namespace mlacheck {

namespace {

struct Shape {
  const char* name;
  int total_heads, tp, lv, rope, block_size;
  std::vector<int> kv_lens, q_lens;
  DType kv_dtype;
  FillProfile profile = FillProfile::uniform;
  float kv_scale = 0.0625f;  // fp8 caches
};

}  // namespace

std::vector<MlaDecodeProblem> oracle_self_check_problems(std::uint64_t seed) {
  const std::vector<Shape> shapes = {
      {"deepseek-v3-tp8", 128, 8, 512, 64, 64, {300, 17, 1}, {1, 4, 1}, DType::bf16},
      {"kimi-k2.5-tp8", 64, 8, 512, 64, 16, {129, 64, 6}, {6, 3, 6}, DType::bf16},
      {"deepseek-v2-lite-tp2", 16, 2, 512, 64, 7, {50, 8}, {5, 7}, DType::fp8_e4m3fn},
      {"mistral-small-4", 32, 1, 256, 64, 1, {33, 2}, {2, 2}, DType::f16},
      {"twelve-head-rank", 96, 8, 128, 64, 16, {97}, {3}, DType::fp8_e4m3fnuz},
      // The fills that stress precision: scores and LSE in the hundreds with a dominant first key,
      // and fp8 codes from subnormal to near the largest finite at the largest per-tensor scale.
      {"deepseek-v3-tp8-sink", 128, 8, 512, 64, 16, {300, 17}, {2, 1}, DType::bf16, FillProfile::sink},
      {"kimi-k2.5-tp8-extreme", 64, 8, 512, 64, 16, {129, 6}, {3, 6}, DType::fp8_e4m3fn, FillProfile::extreme, 256.0f},
  };
  std::vector<MlaDecodeProblem> out;
  for (const Shape& s : shapes) {
    MlaDecodeProblem p;
    p.name = std::string("oracle-") + s.name;
    p.total_heads = s.total_heads;
    p.tp = s.tp;
    p.tp_rank = s.tp - 1;
    p.kv_lora_rank = s.lv;
    p.rope_dim = s.rope;
    p.block_size = s.block_size;
    p.kv_lens = s.kv_lens;
    p.q_lens = s.q_lens;
    p.kv_dtype = s.kv_dtype;
    if (is_fp8(s.kv_dtype)) p.kv_scale = s.kv_scale;
    p.profile = s.profile;
    p.seed = seed;
    out.push_back(with_defaults(p));
  }
  return out;
}

}  // namespace mlacheck
