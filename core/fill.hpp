#pragma once
// Deterministic fills. A tensor's values depend only on (seed, tensor name, element index): the
// tensor is cut into fixed chunks of kFillChunk elements and each chunk has its own generator
// seeded from (seed, name, chunk index), so any thread count or chunk order gives the same bytes.
// No std::rand, no std::random_device.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

inline constexpr std::size_t kFillChunk = 4096;

// A small counter-based generator (splitmix64): cheap to seed per chunk, good enough statistics
// for test data.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform float in [-1, 1) with 24 random bits.
  float uniform_pm1();
  // Uniform integer in [0, n).
  std::uint64_t below(std::uint64_t n);

 private:
  std::uint64_t state_;
};

// Stable 64-bit hash of a tensor name (FNV-1a), mixed into seeds.
std::uint64_t tensor_seed(std::uint64_t seed, std::string_view tensor, std::uint64_t chunk);

// Fills out[i] for i in [0, out.size()) with values of dtype `t` (as floats):
// - random: uniform in [-range, range) rounded to t;
// - exact:  small integers in [-2, 2], exactly representable everywhere, so that sums stay exact.
// The result is never all-zero: the tensor's element 0 is never zero (a zero there becomes 1, or
// `range` rounded to t), which holds however the tensor is sliced.
// `first` is the index of out[0] within the whole tensor (so parallel callers can fill slices).
void fill_tensor(std::span<float> out, DType t, FillMode mode, std::uint64_t seed, std::string_view tensor,
                 float range = 1.0f, std::size_t first = 0);

// A permutation of [0, n) drawn from (seed, tensor): Fisher-Yates with one generator.
void fill_permutation(std::span<std::int32_t> out, std::uint64_t seed, std::string_view tensor);

// A block table [requests, stride] dealing a seeded permutation ("block_table") of the pool's
// blocks [first_block, num_blocks) to the requests in order, blocks_per_request[r] each; the stride
// is the largest count and entries past a request's blocks hold -1.
struct BlockTable {
  std::vector<std::int32_t> entries;
  int stride = 0;
};
BlockTable deal_block_table(std::uint64_t seed, int num_blocks, const std::vector<int>& blocks_per_request,
                            int first_block = 0);

}  // namespace mlacheck
