#include "core/mla_sequence_inputs.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "core/fill.hpp"
#include "core/mla_sequence.hpp"

namespace mlacheck {

MlaSequenceInputs::MlaSequenceInputs(const MlaDecodeProblem& seq) : seq_(with_defaults(seq)) {
  validate(seq_);
  const int n = batch(seq_);
  seq_offset_.assign(static_cast<std::size_t>(n), 0);
  std::int64_t next = 0;
  for (int r = 0; r < n; ++r) {
    seq_offset_[static_cast<std::size_t>(r)] = next;
    next += final_kv_len(seq_, r);
  }
  held_.assign(static_cast<std::size_t>(n), {});
  // The free list: a seeded permutation of the pool's blocks, handed out from the back.
  free_.resize(static_cast<std::size_t>(host_cache_blocks(seq_)));
  fill_permutation(free_, seq_.seed, "block_table");
  for (std::int32_t& b : free_) b += seq_.first_block;
  inputs_.kv_cache.assign(
      static_cast<std::size_t>(host_cache_blocks(seq_)) * static_cast<std::size_t>(seq_.block_size * lk(seq_)),
      std::numeric_limits<float>::quiet_NaN());
}

int MlaSequenceInputs::steps() const noexcept { return seq_.steps; }

void MlaSequenceInputs::advance() {
  if (step_ + 1 >= seq_.steps) {
    throw std::out_of_range("mla_decode " + seq_.name + ": no step after step " + std::to_string(step_) + " of " +
                            std::to_string(seq_.steps));
  }
  ++step_;
  problem_ = sequence_step(seq_, step_);
  written_.clear();
  const int n = batch(seq_);
  // 1. Requests that left give their blocks back, last block first, so that the next request to
  //    take blocks gets the departed request's first block first.
  for (int r = 0; r < n; ++r) {
    auto& held = held_[static_cast<std::size_t>(r)];
    if (active_at(seq_, r, step_) || held.empty()) continue;
    free_.insert(free_.end(), held.rbegin(), held.rend());
    held.clear();
  }
  // 2. Active requests grow to the blocks their length needs; 3. their new tokens are written.
  for (int r = 0; r < n; ++r) {
    if (!active_at(seq_, r, step_)) continue;
    auto& held = held_[static_cast<std::size_t>(r)];
    const int len = kv_len_at(seq_, r, step_);
    while (static_cast<int>(held.size()) < blocks_for(problem_, r)) {
      if (free_.empty()) {
        throw std::logic_error("mla_decode " + seq_.name + ": step " + std::to_string(step_) +
                               " ran out of pool blocks (num_blocks=" + std::to_string(seq_.num_blocks) + ")");
      }
      held.push_back(free_.back());
      free_.pop_back();
    }
    const int first_new = join_step(seq_, r) == step_ ? 0 : kv_len_at(seq_, r, step_ - 1);
    for (int pos = first_new; pos < len; ++pos) write_token(r, pos);
  }
  build_table();
  draw_q();
}

void MlaSequenceInputs::write_token(int request, int pos) {
  const auto r = static_cast<std::size_t>(request);
  const std::size_t width = static_cast<std::size_t>(lk(seq_));
  const std::int64_t block = held_[r][static_cast<std::size_t>(pos / seq_.block_size)];
  const std::int64_t slot = block * seq_.block_size + pos % seq_.block_size;
  const std::span<float> row = std::span(inputs_.kv_cache).subspan(host_cache_index(seq_, slot), width);
  fill_latents(seq_, static_cast<std::size_t>(seq_offset_[r]), pos, row);
  written_.push_back(slot);
}

void MlaSequenceInputs::build_table() {
  const int stride = std::max(1, max_blocks_per_request(problem_));
  inputs_.block_table_stride = stride;
  inputs_.block_table.assign(static_cast<std::size_t>(batch(seq_)) * static_cast<std::size_t>(stride), -1);
  for (int r = 0; r < batch(seq_); ++r) {
    const auto& held = held_[static_cast<std::size_t>(r)];
    std::copy(held.begin(), held.end(),
              inputs_.block_table.begin() + static_cast<std::ptrdiff_t>(r) * static_cast<std::ptrdiff_t>(stride));
  }
}

void MlaSequenceInputs::draw_q() {
  const std::size_t tokens = static_cast<std::size_t>(total_q_tokens(seq_));
  inputs_.q.resize(tokens * static_cast<std::size_t>(heads(seq_) * lk(seq_)));
  fill_q_tokens(seq_, static_cast<std::size_t>(step_) * tokens, inputs_.q);
}

}  // namespace mlacheck
