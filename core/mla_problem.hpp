#pragma once
// The mla_decode problem descriptor: one value that drives fill, reference, backend and compare.
// Derived quantities are free functions of it, so they are computed the same way everywhere.
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace mlacheck {

enum class DecodePath : std::uint8_t { automatic, persistent, split_kv };
enum class FillMode : std::uint8_t { random, exact };
// The shape of random fills (core/fill_profile.hpp): uniform values of about unit size, or inputs
// built so that a misplaced rounding shows (issue 12 item 5).
enum class FillProfile : std::uint8_t {
  uniform,  // q and dequantised latents uniform in about [-1, 1)
  sink,     // large logits: per-row score offsets 4..512 with spreads 0.03..4 and an attention sink at position 0
  extreme,  // latents at their dtype's extremes: tokens of near-max-finite, unit and subnormal codes
};
// How a head count below the kernels' minimum tile of 16 (or not a multiple of it) is padded.
enum class HeadPadMode : std::uint8_t {
  none,               // heads is a multiple of 16
  repeat_interleave,  // heads divides 16: head h fills padded heads [h*16/heads, (h+1)*16/heads)
  tile,               // otherwise: padded head j reads head j % heads; outputs sliced to [:heads]
};

std::string_view to_string(DecodePath p);
std::string_view to_string(FillMode f);
std::string_view to_string(FillProfile f);
std::string_view to_string(HeadPadMode m);

struct MlaDecodeProblem {
  std::string name = "case";  // [A-Za-z0-9_.-]+
  int total_heads = 16;       // query heads of the model
  int tp = 1;                 // tensor-parallel ranks; each rank owns total_heads / tp heads
  int tp_rank = 0;            // the rank this problem runs (its slice of the model's q)
  int kv_lora_rank = 512;     // Lv: width of the values (and of O)
  int rope_dim = 64;          // R: Lk = Lv + R is the width of q and of each cached latent
  double scale = 0.0;         // softmax scale; 0 until with_defaults() sets 1/sqrt(Lk)
  // Per request: cached tokens including the new ones. 0 is a padded request (CUDA-graph pad rows,
  // a rank owning none of the KV): its table row is all -1 and every one of its rows is empty.
  std::vector<int> kv_lens{1};
  std::vector<int> q_lens{1};   // per request: query tokens (1 decode, >1 speculative/MTP)
  int block_size = 16;        // tokens per cache block
  int num_blocks = 0;         // blocks in the cache pool; 0 until with_defaults() sets blocks_needed
  DType q_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  DType o_dtype = DType::bf16;
  float kv_scale = 1.0f;      // per-tensor dequantisation scale of the cache (fp8); 1 otherwise
  // Issue 16 item 2: fp8 queries (aiter's fp8 decode of DeepSeek-V3 and Kimi-K2) hold codes of
  // q_dtype, q = q_scale * code, against a cache of the same fp8 type; 1 for 16-bit and f32 queries.
  float q_scale = 1.0f;
  DecodePath path = DecodePath::automatic;
  int num_splits = 0;         // split-KV splits per request; 0 lets the backend choose
  FillMode fill = FillMode::random;
  std::uint64_t seed = 1;
  // Issue 12 item 5: how random fills are shaped; anything but uniform needs fill=random.
  FillProfile profile = FillProfile::uniform;
  // Issue 13 item 2 (caches past 4 GiB): the requests' blocks are dealt from pool blocks
  // [first_block, num_blocks); the blocks below are pool memory no request reads. A first_block
  // past 2^32 bytes puts every row a kernel reads past 4 GiB while the host holds only the blocks
  // from first_block on (make_inputs), so memory stays proportional to the tokens.
  int first_block = 0;
  // Issue 13 item 3 (decode sequences, core/mla_sequence.hpp): steps > 1 runs this many decode
  // steps over one cache, with kv_lens the requests' lengths at their first step; per request, the
  // step it joins (empty: 0) and the first step it has left (empty: steps). Empty for steps 1.
  int steps = 1;
  std::vector<int> joins;
  std::vector<int> leaves;

  bool operator==(const MlaDecodeProblem&) const = default;
};

// Derived values.
int heads(const MlaDecodeProblem& p);         // per rank: total_heads / tp
int padded_heads(const MlaDecodeProblem& p);  // what the kernels see: 16 below 16, else next multiple of 16
HeadPadMode head_pad_mode(const MlaDecodeProblem& p);
int lk(const MlaDecodeProblem& p);            // kv_lora_rank + rope_dim
int batch(const MlaDecodeProblem& p);
int total_q_tokens(const MlaDecodeProblem& p);
int max_q_len(const MlaDecodeProblem& p);
int max_kv_len(const MlaDecodeProblem& p);
int blocks_for(const MlaDecodeProblem& p, int request);  // ceil(kv_len / block_size)
int blocks_needed(const MlaDecodeProblem& p);
// Causal rule, aligned bottom-right: query row `row` of `request` sees kv positions
// [0, kv_len - q_len + row] -- this many, never below 0. A row that sees none (every row of a
// padded request) is empty: its O is 0 and its LSE -inf.
int visible_kv(const MlaDecodeProblem& p, int request, int row);
int max_blocks_per_request(const MlaDecodeProblem& p);
// The cache pool in bytes: a row is Lk codes of kv_dtype; the pool num_blocks * block_size rows.
std::int64_t cache_row_bytes(const MlaDecodeProblem& p);
std::int64_t cache_pool_bytes(const MlaDecodeProblem& p);
// Blocks the host inputs hold: [first_block, num_blocks).
int host_cache_blocks(const MlaDecodeProblem& p);
// Whether every cache row a request reads lies 2^32 bytes or more past the pool's base (the rows
// of blocks >= first_block), so a 32-bit byte offset of any of them wraps.
bool cache_rows_past_4gib(const MlaDecodeProblem& p);
// The smallest first_block that puts block first_block's first row 2^32 bytes past the base.
int first_block_past_4gib(const MlaDecodeProblem& p);
// Prefix sums over requests (size batch + 1): query tokens and kv tokens.
std::vector<int> qo_indptr(const MlaDecodeProblem& p);
std::vector<int> kv_indptr(const MlaDecodeProblem& p);
// Padded head j reads this per-rank head.
int padded_head_source(const MlaDecodeProblem& p, int padded_head);
// Per-rank head h is read back from this padded head.
int unpadded_head_location(const MlaDecodeProblem& p, int head);

// Fills the fields whose 0 means "derive" (scale, num_blocks = first_block + blocks_needed);
// leaves explicit values alone.
MlaDecodeProblem with_defaults(MlaDecodeProblem p);
// Throws InvalidProblem naming the first invalid field and its value.
void validate(const MlaDecodeProblem& p);

// Canonical one-line form: every field, fixed order, shortest round-trip numbers, runs of equal
// lengths written v*n; q_scale only for fp8 queries, first_block only when it is not 0, and steps,
// join and leave only for a sequence (join and leave only when not their defaults), so the strings
// of problems from before those fields stay canonical. parse_mla_decode(to_repro(p)) == p for every
// valid p.
//   mla_decode:name=x;heads=128;tp=8;rank=0;lv=512;rope=64;scale=...;kv=4096*8;q=1*8;bs=64;...
std::string to_repro(const MlaDecodeProblem& p);
// Accepts the canonical form, keys in any order and omitted keys (defaults, then with_defaults);
// rejects unknown or repeated keys and malformed values with ReproParseError; validates.
MlaDecodeProblem parse_mla_decode(std::string_view repro);

}  // namespace mlacheck
