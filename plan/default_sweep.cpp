#include "plan/default_sweep.hpp"

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

struct Batch {
  const char* what;
  std::vector<int> kv, q;
  int block_size;
};

// The model rank's shape with the batch's lengths on one path; dtypes, fill and seed stay to the
// caller.
MlaDecodeProblem shaped(const ModelRank& m, int rank, const Batch& b, DecodePath path) {
  MlaDecodeProblem p;
  p.total_heads = m.total_heads;
  p.tp = m.tp;
  p.tp_rank = rank;
  p.kv_lora_rank = m.lv;
  p.rope_dim = m.rope;
  p.kv_lens = b.kv;
  p.q_lens = b.q;
  p.block_size = b.block_size;
  p.path = path;
  return p;
}

std::string id(const char* model, const char* what, int i) {
  return std::string(model) + "." + what + "." + std::to_string(i);
}

}  // namespace

std::vector<MlaDecodeProblem> default_mla_sweep(std::uint64_t seed) {
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
        MlaDecodeProblem p = shaped(m, m.tp - 1, b, path);
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
  // Inputs that stress precision (core/fill_profile.hpp), so that one misplaced rounding fails the
  // default run: large logits with an attention sink (row max and LSE in the hundreds, the first
  // key dominant) and latents at their dtype's extremes (near-max-finite and subnormal codes), on
  // both paths, half with f16 q and O (whose finer output rounding leaves a bf16 intermediate
  // visible), fp8 caches at per-tensor scales from 2^-8 to 2^8.
  const float fp8_scales[] = {0x1p-8f, 0x1p-3f, 0x1p3f, 0x1p8f};
  // Rotations over the 24 rows give every (profile, path) both batches and both q/O dtypes, and
  // every profile and path all four cache dtypes.
  int stress = 0, model = 0;
  for (const ModelRank& m : kModels) {
    for (FillProfile profile : {FillProfile::sink, FillProfile::extreme}) {
      for (DecodePath path : {DecodePath::split_kv, DecodePath::persistent}) {
        const Batch& b = batches[(stress + model) % 2];  // decode and mtp: long caches, query tokens
        MlaDecodeProblem p = shaped(m, 0, b, path);
        p.profile = profile;
        p.kv_dtype = kv_dtypes[(stress * 3 / 2) % 4];
        if (is_fp8(p.kv_dtype)) p.kv_scale = fp8_scales[(stress / 3) % 4];
        p.q_dtype = p.o_dtype = (stress / 2 + model / 2) % 2 == 0 ? DType::f16 : DType::bf16;
        p.seed = seed + static_cast<std::uint64_t>(i);
        p.name = id(m.name, std::string(to_string(profile)).c_str(), i) + "." + std::string(to_string(path));
        out.push_back(with_defaults(p));
        ++i;
        ++stress;
      }
    }
    ++model;
  }
  // fp8 queries against a cache of their type (issue 16, aiter's fp8 decode): 128 heads (four row
  // tiles), 16, and 8 and 12 padded on the device (repeat-interleaved and tiled 1-byte rows), each
  // on both paths, with every batch and both fp8 variants. The q scales are no powers of two, so
  // that where the kernels round scale * kv_scale * q_scale shows, and a kernel ignoring them fails.
  struct Fp8QueryRow {
    const ModelRank& model;
    const Batch& batch;
    DType dtype;
    float q_scale;
  };
  const Fp8QueryRow fp8_queries[] = {
      {kModels[0], batches[1], DType::fp8_e4m3fnuz, 5.5f},
      {kModels[1], batches[0], DType::fp8_e4m3fn, 0.3f},
      {kModels[2], batches[2], DType::fp8_e4m3fnuz, 0.0234375f},
      {kModels[5], batches[3], DType::fp8_e4m3fn, 1.7f},
  };
  int fp8_row = 0;
  for (const Fp8QueryRow& r : fp8_queries) {
    for (DecodePath path : {DecodePath::split_kv, DecodePath::persistent}) {
      MlaDecodeProblem p = shaped(r.model, r.model.tp - 1, r.batch, path);
      p.q_dtype = p.kv_dtype = r.dtype;
      p.q_scale = r.q_scale;
      p.kv_scale = 0.03125f;
      p.o_dtype = fp8_row % 3 == 2 ? DType::f16 : DType::bf16;
      p.seed = seed + static_cast<std::uint64_t>(i);
      p.name = id(r.model.name, "fp8q", i) + "." + std::string(to_string(path));
      out.push_back(with_defaults(p));
      ++i;
      ++fp8_row;
    }
  }
  return out;
}

std::vector<MlaDecodeProblem> default_sequence_sweep(std::uint64_t seed) {
  struct Sequence {
    const char* what;
    const ModelRank& model;
    Batch batch;
    int steps;
    std::vector<int> joins, leaves;
    DType q_and_o, kv;
  };
  // Small, since the oracle runs every step. DeepSeek-V3 at TP8: the 1100-token request leaves at
  // step 3 and the slot that was padding takes a 777-token request at step 4, on the blocks just
  // freed; the last slot is padding throughout. Kimi-K2.5 at TP8 (8 heads padded to 16), MTP1
  // verify (q_len 2) over an fp8 cache: a 2-token request joins at step 2, a request leaves at 3.
  const Sequence sequences[] = {
      {"sequence",
       kModels[1],
       {"", {300, 1100, 45, 777, 0}, {1, 1, 1, 1, 1}, 16},
       7,
       {0, 0, 0, 4, 0},
       {7, 3, 7, 7, 0},
       DType::bf16,
       DType::bf16},
      {"mtp-sequence",
       kModels[2],
       {"", {64, 513, 2, 0}, {2, 2, 2, 2}, 64},
       5,
       {0, 0, 2, 0},
       {5, 3, 5, 0},
       DType::f16,
       DType::fp8_e4m3fn},
  };
  std::vector<MlaDecodeProblem> out;
  int i = 0;
  for (const Sequence& s : sequences) {
    for (DecodePath path : {DecodePath::split_kv, DecodePath::persistent}) {
      MlaDecodeProblem p = shaped(s.model, s.model.tp - 1, s.batch, path);
      p.steps = s.steps;
      p.joins = s.joins;
      p.leaves = s.leaves;
      p.q_dtype = p.o_dtype = s.q_and_o;
      p.kv_dtype = s.kv;
      if (is_fp8(p.kv_dtype)) p.kv_scale = 0.03125f;
      p.seed = seed + 1000 + static_cast<std::uint64_t>(i);
      p.name = id(s.model.name, s.what, i) + "." + std::string(to_string(path));
      out.push_back(with_defaults(p));
      ++i;
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
