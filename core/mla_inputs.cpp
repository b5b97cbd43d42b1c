#include "core/mla_inputs.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "core/fill.hpp"
#include "core/fill_profile.hpp"
#include "core/parallel_for.hpp"

namespace mlacheck {

MlaDecodeInputs make_inputs(const MlaDecodeProblem& problem, int threads) {
  const MlaDecodeProblem p = with_defaults(problem);
  validate(p);
  const std::size_t width = static_cast<std::size_t>(lk(p));
  MlaDecodeInputs in;
  in.q.resize(static_cast<std::size_t>(total_q_tokens(p)) * static_cast<std::size_t>(heads(p)) * width);
  fill_q_tokens(p, 0, in.q);

  std::vector<int> blocks(static_cast<std::size_t>(batch(p)));
  for (int r = 0; r < batch(p); ++r) blocks[static_cast<std::size_t>(r)] = blocks_for(p, r);
  BlockTable table = deal_block_table(p.seed, p.num_blocks, blocks, p.first_block);
  in.block_table = std::move(table.entries);
  in.block_table_stride = table.stride;

  const std::size_t block_size = static_cast<std::size_t>(p.block_size);
  in.kv_cache.assign(static_cast<std::size_t>(host_cache_blocks(p)) * block_size * width,
                     std::numeric_limits<float>::quiet_NaN());
  const std::vector<int> indptr = kv_indptr(p);
  // Requests own disjoint blocks (deal_block_table) and each element's value is fixed by its
  // position in its fill stream, so requests fill on any threads in any order with the same bytes.
  std::vector<std::vector<float>> request_kv_of(static_cast<std::size_t>(std::max(threads, 1)));
  parallel_for(batch(p), threads, [&](int r, int worker) {
    std::vector<float>& request_kv = request_kv_of[static_cast<std::size_t>(worker)];
    const std::size_t len = static_cast<std::size_t>(p.kv_lens[r]);
    request_kv.resize(len * width);
    fill_latents(p, static_cast<std::size_t>(indptr[r]), 0, request_kv);
    for (std::size_t pos = 0; pos < len; ++pos) {
      const auto block = static_cast<std::size_t>(
          in.block_table[static_cast<std::size_t>(r * in.block_table_stride) + pos / block_size]);
      const std::size_t slot = block * block_size + pos % block_size;
      std::copy_n(
          request_kv.begin() + static_cast<std::ptrdiff_t>(pos * width), width,
          in.kv_cache.begin() + static_cast<std::ptrdiff_t>(host_cache_index(p, static_cast<std::int64_t>(slot))));
    }
  });
  return in;
}

void fill_q_tokens(const MlaDecodeProblem& p, std::size_t first_token, std::span<float> q) {
  const std::size_t width = static_cast<std::size_t>(lk(p));
  const std::size_t rank_heads = static_cast<std::size_t>(heads(p));
  const std::size_t q_row = rank_heads * width;
  // Shaped profiles start from the same noise, unrounded (f32 holds the fill's 24-bit uniforms).
  const bool shaped = p.profile != FillProfile::uniform;
  for (std::size_t t = 0; t < q.size() / q_row; ++t) {
    const std::size_t model_head =
        (first_token + t) * static_cast<std::size_t>(p.total_heads) + static_cast<std::size_t>(p.tp_rank) * rank_heads;
    const std::span<float> token_q = q.subspan(t * q_row, q_row);
    // fp8 queries hold codes: q_scale * code is of the size a 16-bit q's value is.
    fill_tensor(token_q, shaped ? DType::f32 : p.q_dtype, p.fill, p.seed, "q", 1.0f / p.q_scale, model_head * width);
    for (std::size_t h = 0; shaped && h < rank_heads; ++h) {
      shape_q_row(p, model_head + h, token_q.subspan(h * width, width));
    }
  }
}

void fill_latents(const MlaDecodeProblem& p, std::size_t request_token, int first_pos, std::span<float> latents) {
  const std::size_t width = static_cast<std::size_t>(lk(p));
  const std::size_t first = (request_token + static_cast<std::size_t>(first_pos)) * width;
  if (p.profile == FillProfile::uniform) {
    fill_tensor(latents, p.kv_dtype, p.fill, p.seed, "kv", 1.0f / p.kv_scale, first);
    return;
  }
  fill_tensor(latents, DType::f32, p.fill, p.seed, "kv", 1.0f, first);
  for (std::size_t i = 0; i < latents.size() / width; ++i) {
    const int pos = first_pos + static_cast<int>(i);
    shape_latent(p, request_token + static_cast<std::size_t>(pos), pos, latents.subspan(i * width, width));
  }
}

std::size_t host_cache_index(const MlaDecodeProblem& p, std::int64_t slot) {
  const std::int64_t first = std::int64_t{p.first_block} * p.block_size;
  const std::int64_t end = std::int64_t{p.num_blocks} * p.block_size;
  if (slot < first || slot >= end) {
    throw std::out_of_range("mla_decode " + p.name + ": cache slot " + std::to_string(slot) +
                            " is outside the slots [" + std::to_string(first) + ", " + std::to_string(end) +
                            ") of the blocks the host holds (first_block=" + std::to_string(p.first_block) + ")");
  }
  return static_cast<std::size_t>(slot - first) * static_cast<std::size_t>(lk(p));
}

}  // namespace mlacheck
