#include "harness/default_sweep.hpp"

#include <string>

namespace mlacheck {

namespace {

struct ModelRank {
  const char* name;
  int total_heads, tp, lv, rope;
};

constexpr ModelRank kModels[] = {
    {"dsv3", 128, 1, 512, 64},       // DeepSeek-V3, one rank holding all heads
    {"dsv3-tp8", 128, 8, 512, 64},   // 16 per rank
    {"kimi-k2.5-tp8", 64, 8, 512, 64},  // 8 per rank: padded to 16
    {"v2-lite-tp2", 16, 2, 512, 64},    // 8 per rank
    {"mistral-s4", 32, 1, 256, 64},     // Lv 256: the tile-width bug's shape
    {"k3-tp8", 96, 8, 512, 64},         // 12 per rank: tiled to 16
};

std::string id(const char* model, const char* what, int i) {
  return std::string(model) + "." + what + "." + std::to_string(i);
}

}  // namespace

std::vector<MlaDecodeProblem> default_mla_sweep(std::uint64_t seed) {
  struct Batch {
    const char* what;
    std::vector<int> kv, q;
    int block_size;
  };
  const Batch batches[] = {
      {"decode", {4097, 1000, 17, 1}, {1, 1, 1, 1}, 64},
      {"mtp", {2048, 515, 16, 7}, {3, 5, 6, 7}, 16},
      {"bs7", {1000, 15, 2}, {4, 2, 2}, 7},
      {"bs1", {100, 33}, {8, 1}, 1},
  };
  const DType kv_dtypes[] = {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz};
  std::vector<MlaDecodeProblem> out;
  int i = 0;
  for (const ModelRank& m : kModels) {
    for (const Batch& b : batches) {
      for (DecodePath path : {DecodePath::split_kv, DecodePath::persistent}) {
        MlaDecodeProblem p;
        p.total_heads = m.total_heads;
        p.tp = m.tp;
        p.tp_rank = m.tp - 1;
        p.kv_lora_rank = m.lv;
        p.rope_dim = m.rope;
        p.kv_lens = b.kv;
        p.q_lens = b.q;
        p.block_size = b.block_size;
        p.path = path;
        p.kv_dtype = kv_dtypes[i % 4];
        if (is_fp8(p.kv_dtype)) p.kv_scale = 0.03125f;
        p.q_dtype = p.o_dtype = (i % 3 == 2) ? DType::f16 : DType::bf16;
        p.seed = seed + static_cast<std::uint64_t>(i);
        p.name = id(m.name, b.what, i) + "." + std::string(to_string(path));
        out.push_back(with_defaults(p));
        ++i;
      }
    }
  }
  return out;
}

std::vector<KvGatherProblem> default_gather_sweep(std::uint64_t seed) {
  std::vector<KvGatherProblem> out;
  int i = 0;
  for (CacheLayout layout : {CacheLayout::nhd, CacheLayout::shuffle}) {
    for (bool interleaved : {false, true}) {
      for (DType dtype : {DType::bf16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
        KvGatherProblem p;
        p.layout = layout;
        p.interleaved = interleaved;
        p.num_kv_heads = 2;  // Qwen3.5's MHA side: 2 kv heads of 256
        p.head_size = 256;
        p.block_size = 16;
        p.kv_lens = {1000, 17, 16, 1};
        p.cache_dtype = dtype;
        p.out_dtype = is_fp8(dtype) ? DType::bf16 : dtype;
        if (is_fp8(dtype)) p.k_scale = p.v_scale = 0.5f;
        p.seed = seed + static_cast<std::uint64_t>(i);
        p.name = std::string("qwen35.") + std::string(to_string(layout)) + (interleaved ? ".hybrid." : ".dense.") +
                 std::string(to_string(dtype));
        out.push_back(with_defaults(p));
        ++i;
      }
    }
  }
  return out;
}

}  // namespace mlacheck
