#include "core/fill.hpp"

#include <algorithm>
#include <utility>

namespace mlacheck {

namespace {

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// splitmix64's output function: a bijection that spreads every input bit over the whole word.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001B3ull;
  }
  return h;
}

// One element of a chunk's stream. Every element draws exactly one number so that an element's
// value is fixed by its position in the chunk.
float draw(SplitMix64& rng, DType t, FillMode mode, float range) {
  if (mode == FillMode::exact) return static_cast<float>(static_cast<int>(rng.below(5)) - 2);
  return round_to(t, rng.uniform_pm1() * range);
}

}  // namespace

std::uint64_t SplitMix64::next() {
  state_ += kGolden;
  return mix64(state_);
}

float SplitMix64::uniform_pm1() {
  // 24 bits fill a float significand exactly: k * 2^-23 - 1 is exact for k < 2^24.
  const auto k = static_cast<std::int32_t>(next() >> 40);
  return static_cast<float>(k - (1 << 23)) * 0x1p-23f;
}

std::uint64_t SplitMix64::below(std::uint64_t n) {
  // One draw, no rejection loop (so every element consumes one number); the modulo bias is below
  // n/2^64, far below anything a test can see.
  return next() % n;
}

std::uint64_t tensor_seed(std::uint64_t seed, std::string_view tensor, std::uint64_t chunk) {
  // Mixing between the three inputs keeps (seed, name, chunk) triples that differ in one field
  // from landing on nearby generator states.
  return mix64(mix64(fnv1a(tensor) ^ mix64(seed + kGolden)) + chunk * kGolden);
}

void fill_tensor(std::span<float> out, DType t, FillMode mode, std::uint64_t seed, std::string_view tensor, float range,
                 std::size_t first) {
  const std::size_t end = first + out.size();
  std::size_t i = first;
  while (i < end) {
    const std::size_t chunk = i / kFillChunk;
    const std::size_t chunk_begin = chunk * kFillChunk;
    const std::size_t chunk_end = std::min(end, chunk_begin + kFillChunk);
    SplitMix64 rng(tensor_seed(seed, tensor, chunk));
    // A slice that starts inside a chunk replays the chunk's stream up to its first element.
    for (std::size_t skip = chunk_begin; skip < i; ++skip) rng.next();
    for (; i < chunk_end; ++i) out[i - first] = draw(rng, t, mode, range);
  }
  if (first == 0 && !out.empty() && out[0] == 0.0f) {
    out[0] = mode == FillMode::exact ? 1.0f : round_to(t, range);
  }
}

void fill_permutation(std::span<std::int32_t> out, std::uint64_t seed, std::string_view tensor) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int32_t>(i);
  SplitMix64 rng(tensor_seed(seed, tensor, 0));
  for (std::size_t i = out.size(); i > 1; --i) {
    std::swap(out[i - 1], out[rng.below(i)]);
  }
}

BlockTable deal_block_table(std::uint64_t seed, int num_blocks, const std::vector<int>& blocks_per_request,
                            int first_block) {
  std::vector<std::int32_t> order(static_cast<std::size_t>(num_blocks - first_block));
  fill_permutation(order, seed, "block_table");
  for (std::int32_t& block : order) block += first_block;
  BlockTable table;
  for (int n : blocks_per_request) table.stride = std::max(table.stride, n);
  table.entries.assign(blocks_per_request.size() * static_cast<std::size_t>(table.stride), -1);
  std::size_t dealt = 0;
  for (std::size_t r = 0; r < blocks_per_request.size(); ++r) {
    for (int i = 0; i < blocks_per_request[r]; ++i) {
      table.entries[r * static_cast<std::size_t>(table.stride) + static_cast<std::size_t>(i)] = order[dealt++];
    }
  }
  return table;
}

}  // namespace mlacheck
