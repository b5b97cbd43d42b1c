// Constrained generation (generators/mla_problem_gen.hpp with MlaGenLimits::space): every draw
// and every shrink of it lies inside the space, and a sweep spreads over every value the space
// allows. No GPU needed.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "core/support_space.hpp"
#include "generators/mla_problem_gen.hpp"

namespace mlacheck {
namespace {

constexpr int kSweep = 300;

// The property sweep's bounds (plan/run_plan.cpp's property_sweep_limits) with a space.
MlaGenLimits sweep_limits(const SupportSpace& space) {
  MlaGenLimits limits{.max_batch = 64,
                      .max_kv_len = 16384,
                      .long_kv_percent = 3,
                      .max_oracle_flops = 1.6e10,
                      .device_shapes_only = true,
                      .heads128_percent = 12,
                      .past_4gib_percent = 1,
                      .sequence_percent = 12};
  limits.space = space;
  return limits;
}

std::vector<rc::Shrinkable<MlaDecodeProblem>> draw(const SupportSpace& space, std::uint64_t seed) {
  rc::Random random(seed);
  const rc::Gen<MlaDecodeProblem> gen = gen_mla_decode_problem(sweep_limits(space));
  std::vector<rc::Shrinkable<MlaDecodeProblem>> out;
  for (int i = 0; i < kSweep; ++i) out.push_back(gen(random.split(), i * 100 / (kSweep - 1)));
  return out;
}

const SupportSpace kFlashInferLike = parse_space(
    "lv_rope=512/64,512/0;dtypes=bf16/bf16/bf16,f16/f16/f16,bf16/fp8_e4m3fn/bf16;heads=16..128");
const SupportSpace kNarrow = parse_space(
    "lv_rope=256/32,512/64,128/0;dtypes=f16/f16/bf16,fp8_e4m3fn/fp8_e4m3fn/bf16;heads=8,16,128;bs=16,64;"
    "max_q=4;q_over_kv=0;max_pool=67108864;sequences=0;graph=0");

TEST(SpaceGeneration, EveryDrawLiesInsideTheSpace) {
  for (const SupportSpace& space : {kFlashInferLike, kNarrow}) {
    for (const auto& s : draw(space, 11)) {
      std::string why;
      EXPECT_TRUE(contains(space, s.value(), &why)) << why << ": " << to_repro(s.value());
    }
  }
}

TEST(SpaceGeneration, ShrinkingStaysInsideTheSpace) {
  // The first shrinks of each of the first draws, and a greedy path down from each (as rapidcheck
  // walks toward a minimal counterexample).
  for (const SupportSpace& space : {kFlashInferLike, kNarrow}) {
    const auto draws = draw(space, 12);
    for (std::size_t d = 0; d < 40; ++d) {
      rc::Shrinkable<MlaDecodeProblem> at = draws[d];
      for (int depth = 0; depth < 6; ++depth) {
        auto shrinks = at.shrinks();
        int seen = 0;
        std::optional<rc::Shrinkable<MlaDecodeProblem>> next;
        for (auto it = shrinks.next(); it && seen < 12; it = shrinks.next(), ++seen) {
          std::string why;
          EXPECT_TRUE(contains(space, it->value(), &why)) << why << ": " << to_repro(it->value());
          if (!next) next = *it;
        }
        if (!next) break;
        at = *next;
      }
    }
  }
}

TEST(SpaceGeneration, ASweepSpreadsOverEveryAllowedValue) {
  for (const SupportSpace& space : {kFlashInferLike, kNarrow}) {
    std::set<std::pair<int, int>> widths;
    std::set<std::tuple<DType, DType, DType>> dtypes;
    std::set<int> heads_seen;
    std::set<int> block_sizes;
    std::set<int> q_lens;
    for (const auto& s : draw(space, 13)) {
      const MlaDecodeProblem& p = s.value();
      widths.insert({p.kv_lora_rank, p.rope_dim});
      dtypes.insert({p.q_dtype, p.kv_dtype, p.o_dtype});
      heads_seen.insert(heads(p));
      block_sizes.insert(p.block_size);
      for (int q : p.q_lens) q_lens.insert(q);
    }
    const std::string name = to_text(space);
    for (const auto& w : space.lv_rope) EXPECT_TRUE(widths.contains(w)) << name << ": " << w.first << "/" << w.second;
    for (const DtypeCombo& c : space.dtypes) EXPECT_TRUE(dtypes.contains({c.q, c.kv, c.o})) << name;
    for (int h : space.head_list) EXPECT_TRUE(heads_seen.contains(h)) << name << ": heads " << h;
    if (space.head_list.empty()) {
      EXPECT_TRUE(heads_seen.contains(space.heads_min)) << name;
      EXPECT_TRUE(heads_seen.contains(std::min(space.heads_max, 128))) << name;
      EXPECT_GT(heads_seen.size(), 10u) << name << ": a range spreads beyond the model splits";
    }
    for (int b : space.block_sizes) EXPECT_TRUE(block_sizes.contains(b)) << name << ": bs " << b;
    const int max_q = space.max_q_len > 0 ? space.max_q_len : 8;
    for (int q = 1; q <= max_q; ++q) EXPECT_TRUE(q_lens.contains(q)) << name << ": q_len " << q;
  }
}

}  // namespace
}  // namespace mlacheck
