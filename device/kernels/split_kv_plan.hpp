#pragma once
// Host-side plan of the split-KV MLA decode (device/kernels/split_kv_decode.hpp launches it):
// the shape the kernels see, their tile geometry, the choice of num_splits, the partial-buffer
// sizes and the shapes they refuse. Plain C++ with no GPU types, so it is tested without a GPU.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/dtype.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck::kernels {

// Geometry shared with the kernels.
inline constexpr int kHeadTile = 16;       // padded heads per row tile (the rows of one MMA tile)
inline constexpr int kKvTile = 16;         // granule of split boundaries and of the persistent planner
inline constexpr int kMaxValueTile = 512;  // largest next_pow2(Lv) the kernels stage
inline constexpr int kMaxRopeTile = 64;    // largest rope tile: R in [0, 64]
inline constexpr int kMaxSplits = 4096;    // the most splits validate() allows
// Splits shorter than this cost more in their fixed work (q tile, pipeline fill, 16 x Lv fp32
// partial write, merge read) than they win in parallelism; the automatic choice keeps splits at
// least this long.
inline constexpr int kMinSplitTokens = 256;
inline constexpr int kMaxAutoSplits = 64;
// The fixed cost of a stage-1 block in kv tokens streamed (q tile, pipeline fill and drain,
// partial write): the automatic split choice weighs more, shorter blocks against it.
inline constexpr int kSplitOverheadTokens = 128;

// What every attention kernel (split-KV and persistent) needs from an MlaDecodeProblem for its row
// tiles, after head padding: the heads, the latent's widths, the dtypes and the scales.
struct RowTileShape {
  int padded_heads = 0;
  int lv = 0;    // kv_lora_rank: width of V and O
  int rope = 0;  // R: Lk = lv + rope
  DType q_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  DType o_dtype = DType::bf16;
  float scale = 0.0f;     // softmax scale
  float kv_scale = 1.0f;  // per-tensor dequantisation scale of the cache
  float q_scale = 1.0f;   // per-tensor dequantisation scale of fp8 q; 1 for 16-bit q
};

RowTileShape row_tile_shape(const MlaDecodeProblem& p);

// Everything the split-KV kernels need from an MlaDecodeProblem: the row tiles and the batch their
// grids cover.
struct SplitKvShape : RowTileShape {
  int batch = 0;
  int total_q_tokens = 0;
  int max_q_len = 0;
  int num_splits = 1;  // splits of each request's KV range
};

SplitKvShape split_kv_shape(const MlaDecodeProblem& p, int num_splits);

// Tile widths of the latent row, from Lv and R separately (never from Lk: UPSTREAM S5):
// values next_pow2(Lv); rope next_pow2(R), at least one 16-byte chunk of 8 elements, 0 without rope.
int value_tile_width(int lv);
int rope_tile_width(int rope);

// The tile widths the split-KV dispatch instantiates: value_tile_width(Lv) and rope_tile_width(R).
// With from_lk (fault tile-width-from-lk, UPSTREAM S5) it makes the Triton decode's choice for a
// width it had no special case for: one tile of next_pow2(Lk) meant to hold the whole row and no
// rope tile (BLOCK_DMODEL = next_pow2(Lk), BLOCK_DPE = 0). Our row layout keeps the rope after the
// value tile, so the rope then spills into the next staged row; past 512 no kernel exists.
struct LatentTiles {
  int value = 0;
  int rope = 0;
};
LatentTiles latent_tiles(int lv, int rope, bool from_lk);

// Whether the fp8 score products (32-wide k steps over fp8 byte rows, latent_staging.hpp) can read
// rows laid out with these tiles: the values' zero padding to a whole step ends before the rope,
// and the rope has a tile of its own (under tile-width-from-lk it overlaps the next row, which only
// the 16-bit codes reproduce).
bool fp8_steps_fit(int lv, int rope, const LatentTiles& tiles);

// What the attention kernels of a platform hold, for a dtype pair (kernel_dispatch.hpp says it for
// this build's GPU): at most max_row_tiles row tiles per block, and how many one-tile blocks a
// CU/SM holds at once (blocks of more row tiles: one).
struct RowTilePolicy {
  int max_row_tiles = 1;
  int one_tile_blocks_per_cu = 1;
  // Blocks of `row_tiles` row tiles resident per CU/SM.
  constexpr int blocks_per_cu(int row_tiles) const { return row_tiles == 1 ? one_tile_blocks_per_cu : 1; }
};

// How stage-1 blocks (and persistent row groups) gather query rows: a block attends `row_tiles`
// row-tile slots, holding `head_tiles` consecutive head tiles of each of `tokens` consecutive query
// tokens of one request, so every KV tile is staged once for all of them. row_tiles is a power of
// two up to policy.max_row_tiles, head_tiles divides padded_heads / 16, and head_tiles * tokens <=
// row_tiles.
struct RowGroups {
  int row_tiles = 1;
  int head_tiles = 1;
  int tokens = 1;
};
RowGroups row_groups(int padded_heads, int max_q_len, const RowTilePolicy& policy);

// Stage-1 blocks per split: request x token group x head group.
std::int64_t row_group_blocks(const SplitKvShape& s, const RowGroups& g);

// Splits per request for `row_blocks` stage-1 blocks per split on a device with `block_slots`
// blocks resident at once (CUs/SMs x blocks per CU): the count that minimises waves x (tokens per
// split + kSplitOverheadTokens), with no split shorter than kMinSplitTokens of the longest request
// and at most kMaxAutoSplits; the fewest splits on a tie.
int choose_num_splits(std::int64_t row_blocks, int max_kv_len, int block_slots);
// problem.num_splits when set (> 0), else choose_num_splits for the problem's row groups and the
// blocks of that size `compute_units` CUs hold.
int split_kv_num_splits(const MlaDecodeProblem& p, int compute_units, const RowTilePolicy& policy);

// The kv positions [begin, end) of split `split` of a request of kv_len tokens: num_splits pieces of
// ceil(kv_len / num_splits) tokens rounded up to kKvTile. With more splits than the request has
// tiles (a padded request: all of them) the last splits hold nothing (end <= begin), and a query
// row whose causal limit ends before `begin` sees none of its split: stage 1 writes such a partial
// as empty (LSE -inf), which stage 2 gives zero weight. constexpr, so stage 1 calls it too.
struct KvRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
};
constexpr KvRange split_kv_range(int kv_len, int num_splits, int split) {
  const std::int64_t per_split = (std::int64_t{kv_len} + num_splits - 1) / num_splits;
  const std::int64_t aligned = (per_split + kKvTile - 1) / kKvTile * kKvTile;
  const std::int64_t begin = std::int64_t{split} * aligned;
  return {begin, begin + aligned < kv_len ? begin + aligned : std::int64_t{kv_len}};
}

// nullopt when the kernels handle the shape; otherwise the reason, naming the field and value.
std::optional<std::string> split_kv_unsupported(const SplitKvShape& s);

// Partial buffers of stage 1, in floats: O [total_q_tokens, padded_heads, num_splits, Lv] and
// LSE [total_q_tokens, padded_heads, num_splits].
struct SplitKvWorkspace {
  std::size_t partial_o_floats = 0;
  std::size_t partial_lse_floats = 0;
};
SplitKvWorkspace split_kv_workspace(const SplitKvShape& s);

}  // namespace mlacheck::kernels
