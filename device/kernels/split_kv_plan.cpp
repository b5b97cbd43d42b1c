#include "device/kernels/split_kv_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mlacheck::kernels {

namespace {

int next_pow2(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::string field(const char* name, std::int64_t value) { return std::string(name) + "=" + std::to_string(value); }

}  // namespace

SplitKvShape split_kv_shape(const MlaDecodeProblem& p, int num_splits) {
  SplitKvShape s;
  s.batch = batch(p);
  s.total_q_tokens = total_q_tokens(p);
  s.padded_heads = padded_heads(p);
  s.lv = p.kv_lora_rank;
  s.rope = p.rope_dim;
  s.q_dtype = p.q_dtype;
  s.kv_dtype = p.kv_dtype;
  s.o_dtype = p.o_dtype;
  s.scale = static_cast<float>(p.scale);
  s.kv_scale = p.kv_scale;
  s.num_splits = num_splits;
  return s;
}

int value_tile_width(int lv) { return next_pow2(lv); }

int rope_tile_width(int rope) { return rope == 0 ? 0 : std::max(8, next_pow2(rope)); }

LatentTiles latent_tiles(int lv, int rope, bool from_lk) {
  if (from_lk) return {next_pow2(lv + rope), 0};
  return {value_tile_width(lv), rope_tile_width(rope)};
}

int choose_num_splits(std::int64_t row_blocks, int max_kv_len, int compute_units) {
  const std::int64_t target_blocks = std::int64_t{std::max(compute_units, 1)} * kTargetBlocksPerCu;
  if (row_blocks <= 0 || row_blocks >= target_blocks) return 1;
  const std::int64_t for_occupancy = ceil_div(target_blocks, row_blocks);
  const std::int64_t for_length = std::max<std::int64_t>(1, max_kv_len / kMinSplitTokens);
  return static_cast<int>(std::min({for_occupancy, for_length, std::int64_t{kMaxAutoSplits}}));
}

int split_kv_num_splits(const MlaDecodeProblem& p, int compute_units) {
  if (p.num_splits > 0) return p.num_splits;
  const std::int64_t row_blocks = std::int64_t{total_q_tokens(p)} * (padded_heads(p) / kHeadTile);
  return choose_num_splits(row_blocks, max_kv_len(p), compute_units);
}

std::optional<std::string> split_kv_unsupported(const SplitKvShape& s) {
  if (s.batch < 1) return field("batch", s.batch) + ": needs at least one request";
  if (s.total_q_tokens < s.batch) {
    return field("total_q_tokens", s.total_q_tokens) + ": fewer query tokens than the " + std::to_string(s.batch) +
           " requests";
  }
  if (s.padded_heads < kHeadTile || s.padded_heads % kHeadTile != 0) {
    return field("padded_heads", s.padded_heads) + ": not a positive multiple of the 16-head tile (pad heads first)";
  }
  if (s.lv < 16 || s.lv > kMaxValueTile || s.lv % 16 != 0) {
    return field("lv", s.lv) + ": split-KV kernels take Lv in [16, 512], a multiple of 16";
  }
  if (s.rope < 0 || s.rope > kMaxRopeTile) return field("rope", s.rope) + ": split-KV kernels take rope in [0, 64]";
  if (s.q_dtype != DType::bf16 && s.q_dtype != DType::f16) {
    return "q_dtype=" + std::string(to_string(s.q_dtype)) + ": split-KV kernels take q in bf16 or f16";
  }
  if (s.kv_dtype == DType::f32) return "kv_dtype=f32: split-KV kernels take the cache in bf16, f16 or fp8 e4m3";
  if (s.o_dtype != DType::bf16 && s.o_dtype != DType::f16) {
    return "o_dtype=" + std::string(to_string(s.o_dtype)) + ": split-KV kernels write O in bf16 or f16";
  }
  if (!(std::isfinite(s.scale) && s.scale > 0.0f)) return "scale: must be finite and > 0 as a float";
  if (!(std::isfinite(s.kv_scale) && s.kv_scale > 0.0f)) return "kv_scale: must be finite and > 0";
  if (s.num_splits < 1 || s.num_splits > kMaxSplits) {
    return field("num_splits", s.num_splits) + ": must be in [1, " + std::to_string(kMaxSplits) + "]";
  }
  // Stage 1's grid is (token x head tile, split), stage 2's one block per (token, head) row.
  const std::int64_t rows = std::int64_t{s.total_q_tokens} * s.padded_heads;
  if (rows > std::numeric_limits<std::int32_t>::max()) {
    return field("total_q_tokens*padded_heads", rows) + ": more rows than one grid dimension holds";
  }
  return std::nullopt;
}

SplitKvWorkspace split_kv_workspace(const SplitKvShape& s) {
  const std::size_t partials = std::size_t(s.total_q_tokens) * std::size_t(s.padded_heads) * std::size_t(s.num_splits);
  return {partials * std::size_t(s.lv), partials};
}

}  // namespace mlacheck::kernels
