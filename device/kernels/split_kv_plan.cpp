#include "device/kernels/split_kv_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mlacheck::kernels {

namespace {

std::int64_t next_pow2(std::int64_t v) {
  std::int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::string field(const char* name, std::int64_t value) { return std::string(name) + "=" + std::to_string(value); }

}  // namespace

RowTileShape row_tile_shape(const MlaDecodeProblem& p) {
  RowTileShape s;
  s.padded_heads = padded_heads(p);
  s.lv = p.kv_lora_rank;
  s.rope = p.rope_dim;
  s.q_dtype = p.q_dtype;
  s.kv_dtype = p.kv_dtype;
  s.o_dtype = p.o_dtype;
  s.scale = static_cast<float>(p.scale);
  s.kv_scale = p.kv_scale;
  s.q_scale = p.q_scale;
  return s;
}

SplitKvShape split_kv_shape(const MlaDecodeProblem& p, int num_splits) {
  SplitKvShape s{row_tile_shape(p)};
  s.batch = batch(p);
  s.total_q_tokens = total_q_tokens(p);
  s.max_q_len = max_q_len(p);
  s.num_splits = num_splits;
  return s;
}

int value_tile_width(int lv) { return static_cast<int>(next_pow2(lv)); }

int rope_tile_width(int rope) { return rope == 0 ? 0 : static_cast<int>(std::max<std::int64_t>(8, next_pow2(rope))); }

LatentTiles latent_tiles(int lv, int rope, bool from_lk) {
  if (from_lk) return {static_cast<int>(next_pow2(lv + rope)), 0};
  return {value_tile_width(lv), rope_tile_width(rope)};
}

bool fp8_steps_fit(int lv, int rope, const LatentTiles& tiles) {
  return (lv + 31) / 32 * 32 <= tiles.value && tiles.rope >= rope;
}

RowGroups row_groups(int padded_heads, int max_q_len, const RowTilePolicy& policy) {
  const int head_tiles = std::max(1, padded_heads / kHeadTile);
  const std::int64_t wanted = std::int64_t{head_tiles} * std::max(1, max_q_len);
  int row_tiles = 1;
  while (row_tiles < policy.max_row_tiles && row_tiles < wanted) row_tiles *= 2;
  RowGroups g;
  g.head_tiles = std::min(row_tiles, head_tiles);
  while (head_tiles % g.head_tiles != 0) --g.head_tiles;
  g.tokens = std::max(1, std::min(row_tiles / g.head_tiles, max_q_len));
  // The power of two holding the slots used: 3 head tiles of one token take 4 slots (one idle);
  // 5 head tiles (no divisor from 2 to 4) go one to a block.
  g.row_tiles = static_cast<int>(next_pow2(g.head_tiles * g.tokens));
  return g;
}

std::int64_t row_group_blocks(const SplitKvShape& s, const RowGroups& g) {
  return std::int64_t{s.batch} * ceil_div(s.max_q_len, g.tokens) * (s.padded_heads / kHeadTile / g.head_tiles);
}

int choose_num_splits(std::int64_t row_blocks, int max_kv_len, int block_slots) {
  if (row_blocks <= 0) return 1;
  const std::int64_t slots = std::max(block_slots, 1);
  const std::int64_t longest = std::max(max_kv_len, 1);
  const std::int64_t most = std::min<std::int64_t>(kMaxAutoSplits, std::max<std::int64_t>(1, longest / kMinSplitTokens));
  int best = 1;
  std::int64_t best_cost = std::numeric_limits<std::int64_t>::max();
  for (std::int64_t s = 1; s <= most; ++s) {
    const std::int64_t cost = ceil_div(row_blocks * s, slots) * (ceil_div(longest, s) + kSplitOverheadTokens);
    if (cost < best_cost) {
      best_cost = cost;
      best = static_cast<int>(s);
    }
  }
  return best;
}

int split_kv_num_splits(const MlaDecodeProblem& p, int compute_units, const RowTilePolicy& policy) {
  if (p.num_splits > 0) return p.num_splits;
  const SplitKvShape s = split_kv_shape(p, 1);
  const RowGroups g = row_groups(s.padded_heads, s.max_q_len, policy);
  return choose_num_splits(row_group_blocks(s, g), max_kv_len(p), compute_units * policy.blocks_per_cu(g.row_tiles));
}

std::optional<std::string> split_kv_unsupported(const SplitKvShape& s) {
  if (s.batch < 1) return field("batch", s.batch) + ": needs at least one request";
  if (s.total_q_tokens < s.batch) {
    return field("total_q_tokens", s.total_q_tokens) + ": fewer query tokens than the " + std::to_string(s.batch) +
           " requests";
  }
  if (s.max_q_len < 1 || s.max_q_len > s.total_q_tokens) {
    return field("max_q_len", s.max_q_len) + ": must be in [1, total_q_tokens]";
  }
  if (s.padded_heads < kHeadTile || s.padded_heads % kHeadTile != 0) {
    return field("padded_heads", s.padded_heads) + ": not a positive multiple of the 16-head tile (pad heads first)";
  }
  if (s.lv < 16 || s.lv > kMaxValueTile || s.lv % 16 != 0) {
    return field("lv", s.lv) + ": split-KV kernels take Lv in [16, 512], a multiple of 16";
  }
  if (s.rope < 0 || s.rope > kMaxRopeTile) return field("rope", s.rope) + ": split-KV kernels take rope in [0, 64]";
  // fp8 q widens exactly to bf16 beside its cache's codes; against any other cache it would need a
  // second MMA type, and no kernel instance holds that pair (validate() refuses it too).
  if (is_fp8(s.q_dtype)) {
    if (s.kv_dtype != s.q_dtype) {
      return "q_dtype=" + std::string(to_string(s.q_dtype)) + ": split-KV kernels take fp8 q only against a cache of " +
             "the same type, not kv_dtype=" + std::string(to_string(s.kv_dtype));
    }
  } else if (s.q_dtype != DType::bf16 && s.q_dtype != DType::f16) {
    return "q_dtype=" + std::string(to_string(s.q_dtype)) +
           ": split-KV kernels take q in bf16, f16 or fp8 e4m3 (against a cache of its type)";
  }
  if (s.kv_dtype == DType::f32) return "kv_dtype=f32: split-KV kernels take the cache in bf16, f16 or fp8 e4m3";
  if (s.o_dtype != DType::bf16 && s.o_dtype != DType::f16) {
    return "o_dtype=" + std::string(to_string(s.o_dtype)) + ": split-KV kernels write O in bf16 or f16";
  }
  if (!(std::isfinite(s.scale) && s.scale > 0.0f)) return "scale: must be finite and > 0 as a float";
  if (!(std::isfinite(s.kv_scale) && s.kv_scale > 0.0f)) return "kv_scale: must be finite and > 0";
  if (!(std::isfinite(s.q_scale) && s.q_scale > 0.0f)) return "q_scale: must be finite and > 0";
  if (!is_fp8(s.q_dtype) && s.q_scale != 1.0f) return "q_scale: only fp8 queries carry a scale, it must be 1 here";
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
