#include "core/mla_sequence.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/repro_format.hpp"
#include "core/validate_util.hpp"

namespace mlacheck {

namespace {

constexpr std::string_view kOp = "mla_decode";
constexpr int kMaxSteps = 64;

void require(bool ok, std::string_view field, std::int64_t value, std::string reason) {
  require_field(ok, kOp, field, value, std::move(reason));
}

// A request's query length; past the end of a q list shorter than kv (which validate() refuses)
// the plain-decode default holds, so that with_defaults can size such a problem without reading
// past the list.
std::int64_t q_len_or_default(const MlaDecodeProblem& p, int r) {
  const auto i = static_cast<std::size_t>(r);
  return i < p.q_lens.size() ? p.q_lens[i] : 1;
}

// kv_len at step s in 64 bits, for validation before the lengths are known to fit an int.
std::int64_t wide_kv_len_at(const MlaDecodeProblem& p, int r, int s) {
  if (!active_at(p, r, s)) return 0;
  const auto i = static_cast<std::size_t>(r);
  return std::int64_t{p.kv_lens[i]} + std::int64_t{s - join_step(p, r)} * q_len_or_default(p, r);
}

std::int64_t blocks_of(const MlaDecodeProblem& p, std::int64_t kv_len) {
  return (kv_len + p.block_size - 1) / p.block_size;
}

// Saturated to int: a count past it is refused by validate() as too many blocks.
int saturate(std::int64_t n) { return static_cast<int>(std::min<std::int64_t>(n, std::numeric_limits<int>::max())); }

}  // namespace

bool is_sequence(const MlaDecodeProblem& p) { return p.steps > 1; }

// Past the end of a list of the wrong length (which validate_sequence refuses) the defaults hold,
// so that with_defaults can size a problem before validate() has seen it.
int join_step(const MlaDecodeProblem& p, int request) {
  const auto r = static_cast<std::size_t>(request);
  return r < p.joins.size() ? p.joins[r] : 0;
}

int leave_step(const MlaDecodeProblem& p, int request) {
  const auto r = static_cast<std::size_t>(request);
  return r < p.leaves.size() ? p.leaves[r] : p.steps;
}

bool active_at(const MlaDecodeProblem& p, int request, int step) {
  return step >= join_step(p, request) && step < leave_step(p, request);
}

int kv_len_at(const MlaDecodeProblem& p, int request, int step) {
  return static_cast<int>(wide_kv_len_at(p, request, step));
}

int final_kv_len(const MlaDecodeProblem& p, int request) {
  const int last = leave_step(p, request) - 1;
  return last >= join_step(p, request) ? kv_len_at(p, request, last) : 0;
}

MlaDecodeProblem sequence_step(const MlaDecodeProblem& p, int step) {
  if (step < 0 || step >= p.steps) {
    throw std::out_of_range("mla_decode " + p.name + ": step " + std::to_string(step) + " is not in [0, " +
                            std::to_string(p.steps) + ")");
  }
  MlaDecodeProblem s = p;
  s.steps = 1;
  s.joins.clear();
  s.leaves.clear();
  for (int r = 0; r < batch(p); ++r) s.kv_lens[static_cast<std::size_t>(r)] = kv_len_at(p, r, step);
  return s;
}

int sequence_peak_blocks(const MlaDecodeProblem& p) {
  if (p.block_size < 1) return 0;  // validate() names the block size
  std::int64_t peak = 0;
  // Steps past the limit are refused by validate_sequence; a repro string's huge count must not
  // stall with_defaults first.
  for (int s = 0; s < std::min(p.steps, kMaxSteps); ++s) {
    std::int64_t held = 0;
    for (int r = 0; r < batch(p); ++r) held += blocks_of(p, wide_kv_len_at(p, r, s));
    peak = std::max(peak, held);
  }
  return saturate(peak);
}

int sequence_max_blocks_per_request(const MlaDecodeProblem& p) {
  if (p.block_size < 1) return 0;
  std::int64_t most = 0;
  for (int r = 0; r < batch(p); ++r) {
    const int last = std::min(leave_step(p, r), kMaxSteps) - 1;
    most = std::max(most, blocks_of(p, wide_kv_len_at(p, r, last)));
  }
  return saturate(most);
}

MlaDecodeProblem sequence_capacity(const MlaDecodeProblem& p) {
  MlaDecodeProblem c = p;
  c.steps = 1;
  c.joins.clear();
  c.leaves.clear();
  for (int r = 0; r < batch(p); ++r) c.kv_lens[static_cast<std::size_t>(r)] = final_kv_len(p, r);
  return c;
}

void validate_sequence(const MlaDecodeProblem& p) {
  if (p.steps == 1) {
    if (!p.joins.empty()) fail_field(kOp, "join", repro::format_int_list(p.joins), "needs steps > 1");
    if (!p.leaves.empty()) fail_field(kOp, "leave", repro::format_int_list(p.leaves), "needs steps > 1");
    return;
  }
  require(p.steps >= 1 && p.steps <= kMaxSteps, "steps", p.steps, "must be in [1, " + std::to_string(kMaxSteps) + "]");
  for (auto [field, list] : {std::pair{"join", &p.joins}, std::pair{"leave", &p.leaves}}) {
    if (!list->empty() && list->size() != p.kv_lens.size()) {
      fail_field(kOp, field, repro::format_int_list(*list),
                 "has " + std::to_string(list->size()) + " requests but kv has " + std::to_string(p.kv_lens.size()));
    }
  }
  for (int r = 0; r < batch(p); ++r) {
    const std::string at = " (request " + std::to_string(r) + ")";
    const int join = join_step(p, r);
    const int leave = leave_step(p, r);
    require(join >= 0 && join <= p.steps, "join", join, "must be in [0, steps=" + std::to_string(p.steps) + "]" + at);
    require(leave >= join && leave <= p.steps, "leave", leave,
            "must be in [join=" + std::to_string(join) + ", steps=" + std::to_string(p.steps) + "]" + at);
    const int kv = p.kv_lens[static_cast<std::size_t>(r)];
    if (join == leave) {
      require(kv == 0, "kv", kv, "must be 0 for a slot that is padding at every step (join == leave)" + at);
    } else {
      require(kv >= q_len_or_default(p, r), "kv", kv,
              "must be >= q_len=" + std::to_string(q_len_or_default(p, r)) +
                  " at the request's first step (a sequence's request holds its own query tokens)" + at);
      require(wide_kv_len_at(p, r, leave - 1) <= (1 << 24), "kv", kv, "grows past 2^24 tokens by its last step" + at);
    }
  }
  for (int s = 0; s < p.steps; ++s) {
    std::int64_t tokens = 0;
    for (int r = 0; r < batch(p); ++r) tokens += wide_kv_len_at(p, r, s);
    require(tokens >= 1, "steps", p.steps, "step " + std::to_string(s) + " has no request holding a cached token");
    require(tokens <= std::numeric_limits<std::int32_t>::max(), "kv", tokens,
            "total kv tokens of step " + std::to_string(s) + " must fit a 32-bit index");
  }
}

}  // namespace mlacheck
