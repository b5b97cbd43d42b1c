#pragma once
// The kv_gather problem descriptor: gather K and V of a set of requests from paged caches into
// contiguous [tokens, kv_heads, head_size] buffers, reading every cache address through strides.
//
// Cache addressing, in elements from the start of one pool buffer that holds K and V:
//   K of (block, head, token, c):  block*block_stride + head*head_stride + offset(token, c)
//   V of the same:                 kv_stride + (the same)
//   NHD:     offset = token*token_stride + c            (per block: [block_size, kv_heads, head_size])
//   SHUFFLE: within one (block, head) tile of block_size*head_size contiguous elements, x = 16 bytes
//            / element size:  K at token*x + (c/x)*block_size*x + c%x
//                             V at (token/x)*head_size*x + token%x + c*x
// Contiguous caches ([2, num_blocks, ...]) put all V after all K; hybrid-interleaved caches
// ([K0][V0][K1][V1]...) have block_stride = 2*hidden and kv_stride = hidden, hidden being one
// block's elements. Any positive strides are allowed as long as no two elements share an address.
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

enum class CacheLayout : std::uint8_t { nhd, shuffle };
std::string_view to_string(CacheLayout l);

struct KvGatherProblem {
  std::string name = "case";
  CacheLayout layout = CacheLayout::nhd;
  bool interleaved = false;  // hybrid [K0][V0][K1][V1]; selects the default strides
  int num_kv_heads = 2;
  int head_size = 256;
  int block_size = 16;
  int num_blocks = 0;        // 0 until with_defaults() sets blocks_needed
  std::vector<int> kv_lens{1};
  DType cache_dtype = DType::bf16;
  DType out_dtype = DType::bf16;  // cache_dtype (bitwise copy) or bf16/f16 from fp8 (dequantised)
  float k_scale = 1.0f;
  float v_scale = 1.0f;
  // Strides in elements; 0 until with_defaults() sets the layout's dense ones.
  std::int64_t block_stride = 0;
  std::int64_t head_stride = 0;
  std::int64_t token_stride = 0;  // NHD only; 0 for SHUFFLE
  std::int64_t kv_stride = 0;     // offset of V from K
  FillMode fill = FillMode::random;
  std::uint64_t seed = 1;

  bool operator==(const KvGatherProblem&) const = default;
};

int batch(const KvGatherProblem& p);
int total_tokens(const KvGatherProblem& p);
int blocks_for(const KvGatherProblem& p, int request);
int blocks_needed(const KvGatherProblem& p);
int max_blocks_per_request(const KvGatherProblem& p);
std::vector<int> cu_seq_lens(const KvGatherProblem& p);  // prefix sums, size batch + 1
int shuffle_x(const KvGatherProblem& p);                   // 16 / element bytes
bool dequantises(const KvGatherProblem& p);                // fp8 cache into a wider out_dtype
// Element offset of K (is_v false) or V (is_v true) of (block, head, token in block, channel).
std::int64_t cache_offset(const KvGatherProblem& p, bool is_v, int block, int head, int token, int c);
// Elements the pool buffer needs: the largest offset + 1.
std::int64_t cache_elements(const KvGatherProblem& p);

KvGatherProblem with_defaults(KvGatherProblem p);
void validate(const KvGatherProblem& p);
//   kv_gather:name=x;layout=nhd;interleaved=1;kv_heads=2;head_size=256;bs=16;blocks=..;kv=..;...
std::string to_repro(const KvGatherProblem& p);
KvGatherProblem parse_kv_gather(std::string_view repro);

}  // namespace mlacheck
