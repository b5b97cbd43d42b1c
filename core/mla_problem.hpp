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
// How a head count below the kernels' minimum tile of 16 (or not a multiple of it) is padded.
enum class HeadPadMode : std::uint8_t {
  none,               // heads is a multiple of 16
  repeat_interleave,  // heads divides 16: head h fills padded heads [h*16/heads, (h+1)*16/heads)
  tile,               // otherwise: padded head j reads head j % heads; outputs sliced to [:heads]
};

std::string_view to_string(DecodePath p);
std::string_view to_string(FillMode f);
std::string_view to_string(HeadPadMode m);

struct MlaDecodeProblem {
  std::string name = "case";  // [A-Za-z0-9_.-]+
  int total_heads = 16;       // query heads of the model
  int tp = 1;                 // tensor-parallel ranks; each rank owns total_heads / tp heads
  int tp_rank = 0;            // the rank this problem runs (its slice of the model's q)
  int kv_lora_rank = 512;     // Lv: width of the values (and of O)
  int rope_dim = 64;          // R: Lk = Lv + R is the width of q and of each cached latent
  double scale = 0.0;         // softmax scale; 0 until with_defaults() sets 1/sqrt(Lk)
  std::vector<int> kv_lens{1};  // per request: cached tokens including the new ones
  std::vector<int> q_lens{1};   // per request: query tokens (1 decode, >1 speculative/MTP)
  int block_size = 16;        // tokens per cache block
  int num_blocks = 0;         // blocks in the cache pool; 0 until with_defaults() sets blocks_needed
  DType q_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  DType o_dtype = DType::bf16;
  float kv_scale = 1.0f;      // per-tensor dequantisation scale of the cache (fp8); 1 otherwise
  DecodePath path = DecodePath::automatic;
  int num_splits = 0;         // split-KV splits per request; 0 lets the backend choose
  FillMode fill = FillMode::random;
  std::uint64_t seed = 1;

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
int max_blocks_per_request(const MlaDecodeProblem& p);
// Prefix sums over requests (size batch + 1): query tokens and kv tokens.
std::vector<int> qo_indptr(const MlaDecodeProblem& p);
std::vector<int> kv_indptr(const MlaDecodeProblem& p);
// Padded head j reads this per-rank head.
int padded_head_source(const MlaDecodeProblem& p, int padded_head);
// Per-rank head h is read back from this padded head.
int unpadded_head_location(const MlaDecodeProblem& p, int head);

// Fills the fields whose 0 means "derive" (scale, num_blocks); leaves explicit values alone.
MlaDecodeProblem with_defaults(MlaDecodeProblem p);
// Throws InvalidProblem naming the first invalid field and its value.
void validate(const MlaDecodeProblem& p);

// Canonical one-line form: every field, fixed order, shortest round-trip numbers, runs of equal
// lengths written v*n. parse_mla_decode(to_repro(p)) == p for every valid p.
//   mla_decode:name=x;heads=128;tp=8;rank=0;lv=512;rope=64;scale=...;kv=4096*8;q=1*8;bs=64;...
std::string to_repro(const MlaDecodeProblem& p);
// Accepts the canonical form, keys in any order and omitted keys (defaults, then with_defaults);
// rejects unknown or repeated keys and malformed values with ReproParseError; validates.
MlaDecodeProblem parse_mla_decode(std::string_view repro);

}  // namespace mlacheck
