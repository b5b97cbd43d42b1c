#include "generators/mla_problem_gen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_sequence.hpp"
#include "generators/shared_gens.hpp"

namespace mlacheck {

namespace {

using rc::gen::inRange;

// The widest rope MLA decode kernels stage (the hip backend's split-KV and persistent paths, as
// AITER's): device/kernels/split_kv_plan.hpp's kMaxRopeTile, which test support cannot include.
constexpr int kKernelsMaxRope = 64;

// The longest cache per request that keeps a pool of `requests` such caches, their partial blocks,
// the spare blocks and a sequence's growth (8 steps of 8 tokens) within the space's max_pool.
int pool_kv_cap(const SupportSpace& space, const MlaDecodeProblem& p, int requests) {
  if (space.max_pool_bytes <= 0) return std::numeric_limits<int>::max();
  // A space without dtypes has its cache dtype drawn later: size rows for the widest (f32).
  const std::int64_t bytes = space.dtypes.empty() ? 4 : static_cast<std::int64_t>(storage_bytes(p.kv_dtype));
  const std::int64_t row = static_cast<std::int64_t>(lk(p)) * bytes;
  const std::int64_t blocks = space.max_pool_bytes / (row * p.block_size) - 2 - 2 * requests;
  const std::int64_t per_request = blocks * p.block_size / requests - 64;
  return static_cast<int>(std::clamp<std::int64_t>(per_request, 1, std::numeric_limits<int>::max()));
}

// Whether one more request of `tokens` fits the space's pool beside the batch drawn so far.
bool pool_allows_tokens(const SupportSpace* space, const MlaDecodeProblem& p, int tokens) {
  if (space == nullptr || space->max_pool_bytes <= 0) return true;
  return pool_kv_cap(*space, p, batch(p) + 1) >= tokens;
}

// Percent-weighted coin that shrinks toward false.
rc::Gen<bool> gen_percent(int percent) {
  const auto p = static_cast<std::size_t>(std::clamp(percent, 0, 100));
  return weighted_shrinking_element<bool>({{100 - p, false}, {p, true}});
}

// (total_heads, tp). Model splits give per-rank 1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128.
rc::Gen<std::pair<int, int>> gen_head_split(int heads128_percent) {
  const auto model = rc::gen::exec([] {
    const int total = *shrinking_element(16, 32, 64, 96, 128);
    std::vector<int> tps;
    for (int tp : {1, 2, 4, 8, 16}) {
      if (total % tp == 0) tps.push_back(tp);
    }
    return std::pair{total, *shrinking_element_of(tps)};
  });
  const auto random = rc::gen::exec([] {
    const int per_rank = *inRange(1, 33);
    const int tp = *shrinking_element(1, 2, 3, 4);
    return std::pair{per_rank * tp, tp};
  });
  const auto split = rc::gen::oneOf(model, random);
  if (heads128_percent <= 0) return split;
  // The widest rank first in the list: a counterexample shrinks away from it to the smaller splits.
  return rc::gen::exec([split, heads128_percent] {
    const bool widest = *weighted_shrinking_element<bool>(
        {{static_cast<std::size_t>(100 - heads128_percent), false}, {static_cast<std::size_t>(heads128_percent), true}});
    return widest ? std::pair{128, 1} : *split;
  });
}

// (Lv, rope): the narrowest real shape first, since shrinking_element shrinks toward earlier entries.
// Random widths are multiples of 16: Lv up to 512; rope up to 128, or 64 for device shapes.
rc::Gen<std::pair<int, int>> gen_latent_widths(bool device_shapes_only) {
  const int rope_steps = device_shapes_only ? kKernelsMaxRope / 16 : 8;
  return rc::gen::oneOf(
      shrinking_element(std::pair{128, 64}, std::pair{256, 32}, std::pair{256, 64}, std::pair{512, 64}),
      rc::gen::exec([rope_steps] { return std::pair{16 * *inRange(1, 33), 16 * *inRange(0, rope_steps + 1)}; }));
}

// max_q_len > 0 keeps the entries up to it (a space's max_q).
rc::Gen<int> gen_q_len(int max_q_len = 0) {
  // Non-powers of two carry the most weight: aiter #2720 collapses rows for q_len 3, 5, 6, 7.
  // 4 (MTP3) and 8 (vLLM's spec_decode_medium, aiter #5679) are the speculative shapes engines run.
  std::vector<std::pair<std::size_t, int>> weighted{{4, 1}, {1, 2}, {3, 3}, {2, 4}, {3, 5}, {3, 6}, {3, 7}, {2, 8}};
  if (max_q_len > 0) std::erase_if(weighted, [max_q_len](const auto& w) { return w.second > max_q_len; });
  return weighted_shrinking_element<int>(std::move(weighted));
}

// Per-rank head counts within a space: the model splits' counts it allows and, for a range,
// uniform counts across it (capped at 128, the widest rank the sweep draws); each on 1, 2, 4 or 8
// ranks. The smallest allowed count first, so counterexamples shrink toward it.
rc::Gen<std::pair<int, int>> gen_space_head_split(const SupportSpace& space, int heads128_percent) {
  std::vector<int> listed = space.head_list;
  if (listed.empty()) {
    for (int h : {1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}) {
      if (allows_heads(space, h)) listed.push_back(h);
    }
    if (!allows_heads(space, 128) || listed.empty()) listed.push_back(std::min(space.heads_max, std::max(space.heads_min, 128)));
  }
  std::sort(listed.begin(), listed.end());
  listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
  rc::Gen<int> per_rank = shrinking_element_of(listed);
  if (space.head_list.empty() && space.heads_max > space.heads_min) {
    const int top = std::max(space.heads_min, std::min(space.heads_max, 128));
    per_rank = rc::gen::oneOf(per_rank, inRange(space.heads_min, top + 1));
  }
  const bool widest_allowed = heads128_percent > 0 && allows_heads(space, 128);
  return rc::gen::exec([per_rank, widest_allowed, heads128_percent] {
    if (widest_allowed && *gen_percent(heads128_percent)) return std::pair{128, 1};
    const int h = *per_rank;
    const int tp = *shrinking_element(1, 2, 4, 8);
    return std::pair{h * tp, tp};
  });
}

// The longest cache whose oracle work for one request of q_len tokens fits `flops` (0: no bound).
int oracle_kv_cap(const MlaDecodeProblem& p, int q_len, double flops) {
  if (flops <= 0.0) return std::numeric_limits<int>::max();
  const double per_token = 2.0 * q_len * heads(p) * (lk(p) + p.kv_lora_rank);
  return static_cast<int>(std::min(flops / per_token, static_cast<double>(std::numeric_limits<int>::max())));
}

// Turns the one-step batch `p` (its kv_lens: each request's length at its first step) into a
// decode sequence of `steps` steps that validate_sequence accepts: a padded request (kv_len 0)
// stays padding throughout; a real one joins at step 0 or, one in four, later into a slot that was
// padding, and leaves at the end or, one in four, earlier. A step no request would hold a token
// in keeps the first real request from the first step to the last. Everything shrinks toward a
// fixed batch (every request from step 0 to the end).
void gen_sequence(MlaDecodeProblem& p, int steps) {
  p.steps = steps;
  const int n = batch(p);
  p.joins.assign(static_cast<std::size_t>(n), 0);
  p.leaves.assign(static_cast<std::size_t>(n), steps);
  for (std::size_t r = 0; r < static_cast<std::size_t>(n); ++r) {
    if (p.kv_lens[r] == 0) {
      p.leaves[r] = 0;  // join == leave: a slot that is padding at every step
      continue;
    }
    if (*gen_percent(25)) p.joins[r] = *inRange(1, steps);
    if (p.joins[r] + 1 < steps && *gen_percent(25)) p.leaves[r] = *inRange(p.joins[r] + 1, steps);
  }
  for (int s = 0; s < steps; ++s) {
    bool held = false;
    for (int r = 0; r < n; ++r) held |= active_at(p, r, s) && p.kv_lens[static_cast<std::size_t>(r)] > 0;
    if (held) continue;
    const auto first = static_cast<std::size_t>(
        std::find_if(p.kv_lens.begin(), p.kv_lens.end(), [](int kv) { return kv > 0; }) - p.kv_lens.begin());
    p.joins[first] = 0;
    p.leaves[first] = steps;
    break;
  }
}

}  // namespace

bool device_shape(const MlaDecodeProblem& p) {
  const auto sixteen_bit = [](DType t) { return t == DType::bf16 || t == DType::f16; };
  // fp8 queries widen to bf16 beside their own fp8 cache (validate() allows no other pairing).
  const bool q_taken = sixteen_bit(p.q_dtype) || (is_fp8(p.q_dtype) && p.kv_dtype == p.q_dtype);
  return q_taken && sixteen_bit(p.o_dtype) && p.kv_dtype != DType::f32 && p.kv_lora_rank <= 512 &&
         p.rope_dim <= kKernelsMaxRope;
}

rc::Gen<MlaDecodeProblem> gen_mla_decode_problem(MlaGenLimits limits) {
  return rc::gen::withSize([limits](int size) {
    return rc::gen::exec([limits, size] {
      MlaDecodeProblem p;
      p.name = *gen_problem_name();
      const SupportSpace* space = limits.space ? &*limits.space : nullptr;
      std::tie(p.total_heads, p.tp) = space != nullptr ? *gen_space_head_split(*space, limits.heads128_percent)
                                                       : *gen_head_split(limits.heads128_percent);
      p.tp_rank = *inRange(0, p.tp);
      std::tie(p.kv_lora_rank, p.rope_dim) = space != nullptr && !space->lv_rope.empty()
                                                 ? *shrinking_element_of(space->lv_rope)
                                                 : *gen_latent_widths(limits.device_shapes_only);
      p.block_size = space != nullptr && !space->block_sizes.empty()
                         ? *shrinking_element_of(space->block_sizes)
                         : *rc::gen::oneOf(shrinking_element(16, 1, 64), inRange(1, 129));
      // A space's dtypes are drawn before the cache lengths, which its pool bounds.
      if (space != nullptr && !space->dtypes.empty()) {
        const DtypeCombo combo = *shrinking_element_of(space->dtypes);
        p.q_dtype = combo.q;
        p.kv_dtype = combo.kv;
        p.o_dtype = combo.o;
      }

      const int requests = *inRange(1, 1 + std::max(1, limits.max_batch * size / 100));
      const int kv_cap = std::min(size_cap(size, limits.max_kv_len),
                                  space != nullptr ? pool_kv_cap(*space, p, requests) : std::numeric_limits<int>::max());
      // Drawn only when asked for, so that limits without sequences draw what they drew before.
      // The oracle runs every step of a sequence: its steps share the case's budget.
      const bool sequences = space == nullptr || space->sequences;
      const int steps =
          sequences && limits.sequence_percent > 0 && *gen_percent(limits.sequence_percent) ? *inRange(2, 9) : 1;
      const double flops_share = limits.max_oracle_flops * std::clamp(size, 1, 100) / 100.0 / requests / steps;
      p.q_lens.clear();
      p.kv_lens.clear();
      // Speculative decode verifies num_spec + 1 tokens for every request: one batch in three shares
      // one q_len, the shape dispatchers key on (aiter #5679 picks its variant by heads x q_len).
      const bool shared_q_len = *weighted_shrinking_element<bool>({{2, false}, {1, true}});
      const int max_q = space != nullptr ? space->max_q_len : 0;
      const int batch_q_len = *gen_q_len(max_q);
      for (int r = 0; r < requests; ++r) {
        const int q_len = shared_q_len ? batch_q_len : *gen_q_len(max_q);
        p.q_lens.push_back(q_len);
        // One request in eight is a padded row (kv_len 0, its table row all -1): CUDA-graph
        // padding and ranks owning no KV (UPSTREAM R1). Shrinks toward a real request.
        // A space without q_len > kv_len rows draws none.
        const bool padded = (space == nullptr || space->q_over_kv) && *weighted_shrinking_element<bool>({{7, false}, {1, true}});
        p.kv_lens.push_back(
            padded ? 0 : *gen_kv_len(q_len, p.block_size, std::min(kv_cap, oracle_kv_cap(p, q_len, flops_share))));
      }
      // validate() wants one cached token somewhere: an all-padding batch has nothing to compare.
      if (std::all_of(p.kv_lens.begin(), p.kv_lens.end(), [](int kv) { return kv == 0; })) {
        p.kv_lens[0] =
            *gen_kv_len(p.q_lens[0], p.block_size, std::min(kv_cap, oracle_kv_cap(p, p.q_lens[0], flops_share)));
      }
      if (limits.long_kv_percent > 0 && pool_allows_tokens(space, p, 16385) &&
          *weighted_shrinking_element<bool>({{100 - static_cast<std::size_t>(limits.long_kv_percent), false},
                                             {static_cast<std::size_t>(limits.long_kv_percent), true}})) {
        p.kv_lens[static_cast<std::size_t>(*inRange(0, requests))] = *shrinking_element(16384, 16383, 16385);
      }
      if (steps > 1) gen_sequence(p, steps);
      // blocks_needed: a sequence's busiest step (core/mla_sequence.hpp).
      p.num_blocks = blocks_needed(p) + *inRange(0, 3);  // spare blocks hold NaN
      if (space != nullptr && space->max_pool_bytes > 0 && cache_pool_bytes(p) > space->max_pool_bytes) {
        p.num_blocks = blocks_needed(p);  // a pool at the space's limit keeps no spare blocks
      }

      if (space != nullptr && !space->dtypes.empty()) {
        // drawn above, before the cache lengths
      } else if (limits.device_shapes_only) {
        p.q_dtype = *shrinking_element(DType::bf16, DType::f16);
        p.kv_dtype = *shrinking_element(DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz);
        p.o_dtype = *shrinking_element(DType::bf16, DType::f16);
      } else {
        p.q_dtype = *shrinking_element(DType::bf16, DType::f16, DType::f32);
        p.kv_dtype =
            *shrinking_element(DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz, DType::f32);
        p.o_dtype = *shrinking_element(DType::bf16, DType::f16, DType::f32);
      }
      if (is_fp8(p.kv_dtype)) {
        p.kv_scale = *rc::gen::oneOf(shrinking_element(1.0f, 0.5f, 0.0625f, 2.0f),
                                     rc::gen::map(inRange(1, 1 << 16), [](int k) { return static_cast<float>(k) / 4096.0f; }));
      }
      // 0 takes with_defaults' 1/sqrt(Lk); the others are model scales (DeepSeek-V3 and V2-Lite
      // with YaRN) and arbitrary values that exercise the repro string's number formatting.
      p.scale = *rc::gen::oneOf(shrinking_element(0.0, 0.135234, 0.114721),
                                rc::gen::map(inRange(1, 1000000), [](int k) { return static_cast<double>(k) * 1e-6; }));
      p.path = *shrinking_element(DecodePath::automatic, DecodePath::persistent, DecodePath::split_kv);
      if (limits.path) p.path = *limits.path;
      // Explicit counts reach past short requests' tokens (UPSTREAM R2): their last splits are empty.
      p.num_splits = *rc::gen::oneOf(rc::gen::just(0), inRange(1, 33), shrinking_element(64, 128));
      p.fill = *shrinking_element(FillMode::random, FillMode::exact);
      p.seed = *rc::gen::arbitrary<std::uint64_t>();
      // Drawn last, so the shapes above are those drawn before profiles existed. A shaped fp8 cache
      // takes a power-of-two scale from 2^-8 to 2^8, its codes sized to it as a quantiser would.
      if (p.fill == FillMode::random) {
        p.profile = *weighted_shrinking_element<FillProfile>(
            {{2, FillProfile::uniform}, {1, FillProfile::sink}, {1, FillProfile::extreme}});
        if (p.profile != FillProfile::uniform && is_fp8(p.kv_dtype)) {
          p.kv_scale = std::ldexp(1.0f, *inRange(-8, 9));
        }
      }
      // fp8 queries (issue 16): one in three fp8 caches takes queries of its type, with a scale of
      // their own from 2^-8 to 2^8, powers of two and not. Random codes are sized to the scale;
      // exact fills keep their small integers, so their scale stays within 2 (q within 4, as the
      // cache's values within 32): scores of millions are a one-hot softmax, not a test. The same
      // rule for the device shapes: the kernels widen fp8 q to bf16 as they widen the cache.
      // A space's combination names its queries' dtype: fp8 queries only where it lists them.
      const bool space_dtypes = space != nullptr && !space->dtypes.empty();
      if (space_dtypes ? is_fp8(p.q_dtype)
                       : is_fp8(p.kv_dtype) && *weighted_shrinking_element<bool>({{2, false}, {1, true}})) {
        p.q_dtype = p.kv_dtype;
        const int largest = p.fill == FillMode::exact ? 2 * 4096 : 256 * 4096;
        p.q_scale = *rc::gen::oneOf(
            shrinking_element(1.0f, 0.5f, 0.0625f, 2.0f),
            rc::gen::map(inRange(16, largest + 1), [](int k) { return static_cast<float>(k) / 4096.0f; }));
      }
      if (limits.past_4gib_percent > 0 && (space == nullptr || space->max_pool_bytes == 0) &&
          *weighted_shrinking_element<bool>({{100 - static_cast<std::size_t>(limits.past_4gib_percent), false},
                                             {static_cast<std::size_t>(limits.past_4gib_percent), true}})) {
        // Past the first block whose rows all lie 2^32 bytes on, by up to a few blocks (the
        // spare blocks above keep their count).
        const int spare = p.num_blocks - blocks_needed(p);
        p.first_block = first_block_past_4gib(p) + *inRange(0, 8);
        p.num_blocks = p.first_block + blocks_needed(p) + spare;
      }
      p = with_defaults(p);
      validate(p);  // a generator bug surfaces here, with the offending field named
      std::string outside;
      if (space != nullptr && !contains(*space, p, &outside)) {
        throw std::logic_error("gen_mla_decode_problem drew a case outside its space (" + outside + "): " + to_repro(p));
      }
      return p;
    });
  });
}

void showValue(const MlaDecodeProblem& p, std::ostream& os) { os << to_repro(p); }

}  // namespace mlacheck
