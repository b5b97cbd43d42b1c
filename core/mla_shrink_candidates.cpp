#include "core/mla_shrink_candidates.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "core/mla_sequence.hpp"

namespace mlacheck {

namespace {

long long dtype_rank(DType t) {
  switch (t) {
    case DType::bf16:
      return 0;
    case DType::f16:
      return 1;
    case DType::f32:
      return 2;
    case DType::fp8_e4m3fn:
    case DType::fp8_e4m3fnuz:
      return 3;
  }
  return 4;
}

long long sum(const std::vector<int>& v) {
  long long s = 0;
  for (int x : v) s += x;
  return s;
}

double default_scale(const MlaDecodeProblem& p) { return 1.0 / std::sqrt(static_cast<double>(lk(p))); }

std::int64_t block_bytes(const MlaDecodeProblem& p) { return std::int64_t{p.block_size} * cache_row_bytes(p); }

// Pool blocks beyond first_block + the blocks the requests need.
std::int64_t spare_blocks(const MlaDecodeProblem& p) {
  return std::int64_t{p.num_blocks} - p.first_block - blocks_needed(p);
}

// The values of `targets` below `current` and at least `floor`, ascending and distinct.
std::vector<int> smaller_values(std::vector<int> targets, int current, int floor) {
  std::erase_if(targets, [&](int t) { return t >= current || t < floor; });
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  return targets;
}

std::string arrow(long long from, long long to) { return std::to_string(from) + " -> " + std::to_string(to); }

class CandidateList {
 public:
  explicit CandidateList(const MlaDecodeProblem& from) : from_(from), size_(shrink_size(from)) {}

  // How a candidate's pool follows the change.
  struct Pool {
    bool keep_offset = true;  // move first_block so the requests' blocks start as many bytes in
    bool keep_spare = true;   // keep the spare blocks beyond the requests'
  };

  // Completes `c` (scale, first_block, num_blocks, canonical sequence lists) and keeps it when it
  // is valid, smaller than the problem it came from and not already listed.
  void add(MlaDecodeProblem c, std::string change, Pool pool) {
    if (from_.scale == default_scale(from_)) c.scale = default_scale(c);
    if (pool.keep_offset && from_.first_block > 0) {
      const std::int64_t offset = std::int64_t{from_.first_block} * block_bytes(from_);
      const std::int64_t per_block = block_bytes(c);
      const std::int64_t first = (offset + per_block - 1) / per_block;
      if (first > std::numeric_limits<int>::max()) return;
      c.first_block = static_cast<int>(first);
    }
    if (pool.keep_spare) {
      const std::int64_t blocks = std::int64_t{c.first_block} + blocks_needed(c) + spare_blocks(from_);
      if (blocks > std::numeric_limits<int>::max()) return;
      c.num_blocks = static_cast<int>(blocks);
    }
    const int num_blocks = c.num_blocks;
    c = with_defaults(c);  // the canonical (empty) join and leave lists; num_blocks and scale are set
    c.num_blocks = num_blocks;
    try {
      validate(c);
    } catch (const std::invalid_argument&) {
      return;  // e.g. a sequence step left with no token, a width the pool's limits refuse
    }
    if (!(shrink_size(c) < size_)) return;
    if (std::any_of(out_.begin(), out_.end(), [&](const ShrinkCandidate& k) { return k.problem == c; })) return;
    out_.push_back({std::move(c), std::move(change)});
  }
  void add(MlaDecodeProblem c, std::string change) { add(std::move(c), std::move(change), Pool{}); }

  std::vector<ShrinkCandidate> take() { return std::move(out_); }

 private:
  const MlaDecodeProblem& from_;
  ShrinkSize size_;
  std::vector<ShrinkCandidate> out_;
};

// Requests [first, last) removed, with their join and leave entries.
MlaDecodeProblem without_requests(MlaDecodeProblem p, int first, int last) {
  const auto erase = [&](std::vector<int>& v) {
    if (v.empty()) return;
    v.erase(v.begin() + first, v.begin() + last);
  };
  erase(p.kv_lens);
  erase(p.q_lens);
  erase(p.joins);
  erase(p.leaves);
  return p;
}

// The sequence cut to its first `steps` steps: one step is step 0 as a one-step problem; a slot
// that is never active any more becomes padding.
MlaDecodeProblem first_steps(const MlaDecodeProblem& p, int steps) {
  if (steps == 1) return sequence_step(p, 0);
  MlaDecodeProblem c = p;
  c.steps = steps;
  for (int r = 0; r < batch(p); ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int join = std::min(join_step(p, r), steps);
    const int leave = std::min(leave_step(p, r), steps);
    if (!c.joins.empty()) c.joins[i] = join;
    if (!c.leaves.empty()) c.leaves[i] = leave;
    if (join >= leave) c.kv_lens[i] = 0;
  }
  return c;
}

void fewer_requests(const MlaDecodeProblem& p, CandidateList& out) {
  const int n = batch(p);
  for (int chunk = n / 2; chunk >= 1; chunk /= 2) {
    for (int first = 0; first < n; first += chunk) {
      const int last = std::min(first + chunk, n);
      if (last - first == n) continue;
      const std::string which = last - first == 1
                                    ? "request " + std::to_string(first)
                                    : "requests " + std::to_string(first) + "-" + std::to_string(last - 1);
      out.add(without_requests(p, first, last), "drop " + which + " of " + std::to_string(n));
    }
  }
}

void fewer_steps(const MlaDecodeProblem& p, CandidateList& out) {
  if (!is_sequence(p)) return;
  for (int steps : smaller_values({1, p.steps / 2, p.steps - 1}, p.steps, 1)) {
    out.add(first_steps(p, steps), "steps " + arrow(p.steps, steps));
  }
}

void shorter_caches(const MlaDecodeProblem& p, CandidateList& out) {
  for (int r = 0; r < batch(p); ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int kv = p.kv_lens[i];
    if (kv == 0) continue;  // a padded slot stays one
    for (int to : smaller_values({p.q_lens[i], kv / 2, kv - 1}, kv, std::max(1, p.q_lens[i]))) {
      MlaDecodeProblem c = p;
      c.kv_lens[i] = to;
      out.add(std::move(c), "kv of request " + std::to_string(r) + ": " + arrow(kv, to));
    }
  }
}

void shorter_queries(const MlaDecodeProblem& p, CandidateList& out) {
  for (int r = 0; r < batch(p); ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int q = p.q_lens[i];
    for (int to : smaller_values({1, q / 2, q - 1}, q, 1)) {
      MlaDecodeProblem c = p;
      c.q_lens[i] = to;
      out.add(std::move(c), "q of request " + std::to_string(r) + ": " + arrow(q, to));
    }
  }
}

void fewer_heads(const MlaDecodeProblem& p, CandidateList& out) {
  const int h = heads(p);
  if (p.tp > 1) {
    MlaDecodeProblem c = p;
    c.total_heads = h;
    c.tp = 1;
    c.tp_rank = 0;
    out.add(std::move(c), "tp " + arrow(p.tp, 1) + " (the rank's " + std::to_string(h) + " heads as the model)");
  }
  if (p.tp_rank > 0) {
    MlaDecodeProblem c = p;
    c.tp_rank = 0;
    out.add(std::move(c), "rank " + arrow(p.tp_rank, 0));
  }
  for (int to : smaller_values({1, 2, 4, 8, 16, h / 2}, h, 1)) {
    MlaDecodeProblem c = p;
    c.total_heads = to * p.tp;
    out.add(std::move(c), "heads per rank " + arrow(h, to));
  }
}

void smaller_widths(const MlaDecodeProblem& p, CandidateList& out) {
  for (int to : smaller_values({16, 64, 128, 256, p.kv_lora_rank / 2 / 16 * 16}, p.kv_lora_rank, 16)) {
    MlaDecodeProblem c = p;
    c.kv_lora_rank = to;
    out.add(std::move(c), "lv " + arrow(p.kv_lora_rank, to));
  }
  for (int to : smaller_values({0, 16, 32, 64, p.rope_dim / 2}, p.rope_dim, 0)) {
    MlaDecodeProblem c = p;
    c.rope_dim = to;
    out.add(std::move(c), "rope " + arrow(p.rope_dim, to));
  }
}

void smaller_blocks(const MlaDecodeProblem& p, CandidateList& out) {
  for (int to : smaller_values({1, 16, 64, p.block_size / 2}, p.block_size, 1)) {
    MlaDecodeProblem c = p;
    c.block_size = to;
    out.add(std::move(c), "bs " + arrow(p.block_size, to));
  }
}

std::string dtype_change(std::string_view field, DType from, DType to) {
  return std::string(field) + " " + std::string(to_string(from)) + " -> " + std::string(to_string(to));
}

void simpler_dtypes(const MlaDecodeProblem& p, CandidateList& out) {
  if (p.q_dtype != DType::bf16) {
    MlaDecodeProblem c = p;
    c.q_dtype = DType::bf16;
    c.q_scale = 1.0f;  // a scale only fp8 queries carry
    out.add(std::move(c), dtype_change("q_dtype", p.q_dtype, DType::bf16));
  }
  if (p.kv_dtype != DType::bf16) {  // refused while q is fp8 (q and cache of one fp8 type)
    MlaDecodeProblem c = p;
    c.kv_dtype = DType::bf16;
    c.kv_scale = 1.0f;
    out.add(std::move(c), dtype_change("kv_dtype", p.kv_dtype, DType::bf16));
  }
  if (p.o_dtype != DType::bf16) {
    MlaDecodeProblem c = p;
    c.o_dtype = DType::bf16;
    out.add(std::move(c), dtype_change("o_dtype", p.o_dtype, DType::bf16));
  }
  if (p.q_scale != 1.0f) {
    MlaDecodeProblem c = p;
    c.q_scale = 1.0f;
    out.add(std::move(c), "q_scale -> 1");
  }
  if (p.kv_scale != 1.0f) {
    MlaDecodeProblem c = p;
    c.kv_scale = 1.0f;
    out.add(std::move(c), "kv_scale -> 1");
  }
}

void smaller_pool(const MlaDecodeProblem& p, CandidateList& out) {
  if (p.first_block > 0) {
    MlaDecodeProblem c = p;
    c.first_block = 0;
    out.add(std::move(c), "first_block " + arrow(p.first_block, 0), {.keep_offset = false, .keep_spare = true});
  }
  if (spare_blocks(p) > 0) {
    MlaDecodeProblem c = p;
    c.num_blocks = c.first_block + blocks_needed(c);
    out.add(std::move(c), "blocks " + arrow(p.num_blocks, c.num_blocks) + " (no spare blocks)",
            {.keep_offset = true, .keep_spare = false});
  }
}

void simpler_fill(const MlaDecodeProblem& p, CandidateList& out) {
  if (p.profile != FillProfile::uniform) {
    MlaDecodeProblem c = p;
    c.profile = FillProfile::uniform;
    out.add(std::move(c), "profile " + std::string(to_string(p.profile)) + " -> uniform");
  }
  if (p.fill != FillMode::exact && p.profile == FillProfile::uniform) {
    MlaDecodeProblem c = p;
    c.fill = FillMode::exact;
    out.add(std::move(c), "fill random -> exact");
  }
}

}  // namespace

ShrinkSize shrink_size(const MlaDecodeProblem& p) {
  return {batch(p),
          p.steps,
          sum(p.kv_lens),
          sum(p.q_lens),
          p.total_heads,
          p.tp,
          p.tp_rank,
          p.kv_lora_rank,
          p.rope_dim,
          p.block_size,
          dtype_rank(p.q_dtype),
          dtype_rank(p.kv_dtype),
          dtype_rank(p.o_dtype),
          p.q_scale != 1.0f ? 1 : 0,
          p.kv_scale != 1.0f ? 1 : 0,
          p.first_block,
          p.num_blocks,
          p.profile != FillProfile::uniform ? 1 : 0,
          p.fill == FillMode::random ? 1 : 0};
}

std::vector<ShrinkCandidate> mla_shrink_candidates(const MlaDecodeProblem& p) {
  CandidateList out(p);
  fewer_requests(p, out);
  fewer_steps(p, out);
  shorter_caches(p, out);
  shorter_queries(p, out);
  fewer_heads(p, out);
  smaller_widths(p, out);
  smaller_blocks(p, out);
  simpler_dtypes(p, out);
  smaller_pool(p, out);
  simpler_fill(p, out);
  return out.take();
}

}  // namespace mlacheck
