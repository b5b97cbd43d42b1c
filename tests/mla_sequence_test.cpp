// Decode sequences (core/mla_sequence.hpp, core/mla_sequence_inputs.hpp): step problems, validation,
// repro strings, and the host's block manager and KV writer across steps.
#include "core/mla_sequence.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>

#include "core/error.hpp"
#include "core/fill.hpp"
#include "core/mla_sequence_inputs.hpp"
#include "properties/support/mla_test_problems.hpp"
#include "tests/rejected_field.hpp"

namespace mlacheck {
namespace {

// Three slots over five steps: slot 0 leaves at step 2, slot 1 stays, slot 2 joins at step 2
// (into the blocks slot 0 gave back), MTP-style q_len 2 on slot 1.
MlaDecodeProblem join_and_leave() {
  MlaDecodeProblem p = join_and_leave_sequence();
  p.kv_lora_rank = 64;
  p.rope_dim = 16;
  p.seed = 7;
  return with_defaults(p);
}

TEST(MlaSequence, StepLengthsGrowByQLenAndPadInactiveSlots) {
  const MlaDecodeProblem p = join_and_leave();
  EXPECT_TRUE(is_sequence(p));
  EXPECT_EQ(sequence_step(p, 0).kv_lens, (std::vector<int>{20, 9, 0}));
  EXPECT_EQ(sequence_step(p, 1).kv_lens, (std::vector<int>{21, 11, 0}));
  EXPECT_EQ(sequence_step(p, 2).kv_lens, (std::vector<int>{0, 13, 5}));
  EXPECT_EQ(sequence_step(p, 4).kv_lens, (std::vector<int>{0, 17, 7}));
  const MlaDecodeProblem s = sequence_step(p, 3);
  EXPECT_EQ(s.steps, 1);
  EXPECT_TRUE(s.joins.empty() && s.leaves.empty());
  EXPECT_EQ(s.num_blocks, p.num_blocks);
  EXPECT_EQ(s.q_lens, p.q_lens);
  EXPECT_EQ(rejected_field(s), "");
  EXPECT_THROW(sequence_step(p, 5), std::out_of_range);
  EXPECT_EQ(final_kv_len(p, 0), 21);
  EXPECT_EQ(final_kv_len(p, 2), 7);
  EXPECT_EQ(sequence_capacity(p).kv_lens, (std::vector<int>{21, 17, 7}));
}

TEST(MlaSequence, PoolIsSizedForTheBusiestStep) {
  const MlaDecodeProblem p = join_and_leave();
  // Step 1: 21 + 11 tokens = 3 + 2 blocks; step 4: 17 + 7 = 3 + 1 blocks.
  EXPECT_EQ(sequence_peak_blocks(p), 5);
  EXPECT_EQ(blocks_needed(p), 5);
  EXPECT_EQ(p.num_blocks, 5);
  EXPECT_EQ(sequence_max_blocks_per_request(p), 3);
  EXPECT_EQ(max_blocks_per_request(p), 3);
}

TEST(MlaSequence, ValidationNamesTheField) {
  const MlaDecodeProblem base = join_and_leave();
  EXPECT_EQ(rejected_field(base), "");
  MlaDecodeProblem p = base;
  p.joins = {0, 0};
  EXPECT_EQ(rejected_field(p), "join");
  p = base;
  p.leaves = {2, 5, 1};  // leaves before it joins
  EXPECT_EQ(rejected_field(p), "leave");
  p = base;
  p.leaves = {2, 6, 5};
  EXPECT_EQ(rejected_field(p), "leave");
  p = base;
  p.steps = 65;
  p.leaves.clear();
  EXPECT_EQ(rejected_field(p), "steps");
  p = base;
  p.joins = {0, 0, 5};  // a slot that is never active must hold no tokens
  EXPECT_EQ(rejected_field(p), "kv");
  p = base;
  p.kv_lens = {20, 1, 5};  // fewer tokens than its q_len of 2: named by the one-step rule
  EXPECT_EQ(rejected_field(p), "q");
  p = base;
  p.joins = {1, 1, 2};  // step 0 holds nothing
  EXPECT_EQ(rejected_field(p), "steps");
  p = base;
  p.num_blocks = 4;
  EXPECT_EQ(rejected_field(p), "blocks");
  MlaDecodeProblem one;
  one = with_defaults(one);
  one.joins = {0};
  EXPECT_EQ(rejected_field(one), "join");
}

// A q list shorter than kv is refused by validate(), but with_defaults sizes the pool first: it
// must read no q length past the list (valgrind found a heap read there, issue 37) and size it as
// plain decode, q=1.
TEST(MlaSequence, AShortQListIsSizedAsPlainDecodeAndRefusedByName) {
  MlaDecodeProblem short_q;
  short_q.kv_lens.assign(100, 3000);
  short_q.q_lens = {1};
  short_q.steps = 2;
  MlaDecodeProblem plain = short_q;
  plain.q_lens.assign(100, 1);
  EXPECT_EQ(sequence_peak_blocks(short_q), sequence_peak_blocks(plain));
  short_q.q_lens = {7};
  EXPECT_EQ(sequence_peak_blocks(short_q), sequence_peak_blocks(plain));
  try {
    parse_mla_decode("mla_decode:name=a;kv=100*3000;q=1;steps=2");
    FAIL() << "a q list of 1 request for 100 was accepted";
  } catch (const InvalidProblem& e) {
    EXPECT_EQ(e.field(), "q");
  }
}

TEST(MlaSequence, ReproRoundTripsAndOneStepStringsAreUnchanged) {
  const MlaDecodeProblem p = join_and_leave();
  const std::string text = to_repro(p);
  EXPECT_NE(text.find(";steps=5;join=0*2,2;leave=2,5*2"), std::string::npos) << text;
  EXPECT_EQ(parse_mla_decode(text), p);
  EXPECT_EQ(to_repro(sequence_step(p, 2)).find("steps"), std::string::npos);
  // Default lists are written as nothing: one string per sequence.
  MlaDecodeProblem q = p;
  q.joins = {0, 0, 0};
  q.leaves = {5, 5, 5};
  q.kv_lens = {20, 9, 5};
  q.num_blocks = 0;
  q = with_defaults(q);
  EXPECT_TRUE(q.joins.empty() && q.leaves.empty());
  EXPECT_EQ(to_repro(q).find("join"), std::string::npos);
  EXPECT_THROW(parse_mla_decode("mla_decode:kv=4;steps=2;join=0,1"), InvalidProblem);
  EXPECT_THROW(parse_mla_decode("mla_decode:kv=4;steps=x"), ReproParseError);
  EXPECT_THROW(parse_mla_decode("mla_decode:kv=4;steps=2147483647"), InvalidProblem);
}

// The value of request r's token pos, channel c, as the header documents it.
float expected_latent(const MlaDecodeProblem& p, std::int64_t seq_offset, int pos, int c) {
  float v = 0.0f;
  fill_tensor(std::span(&v, 1), p.kv_dtype, p.fill, p.seed, "kv", 1.0f / p.kv_scale,
              static_cast<std::size_t>((seq_offset + pos) * lk(p) + c));
  return v;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(MlaSequenceInputs, EveryStepReadsExactlyItsRequestsTokensThroughTheTable) {
  const MlaDecodeProblem p = join_and_leave();
  MlaSequenceInputs seq(p);
  const std::int64_t offsets[] = {0, 21, 21 + 17};
  std::vector<float> q_before;
  for (int s = 0; s < p.steps; ++s) {
    seq.advance();
    ASSERT_EQ(seq.step(), s);
    const MlaDecodeProblem& step = seq.problem();
    const MlaDecodeInputs& in = seq.inputs();
    EXPECT_EQ(step, sequence_step(p, s));
    EXPECT_EQ(in.block_table_stride, max_blocks_per_request(step));
    std::set<int> blocks_in_use;
    for (int r = 0; r < batch(step); ++r) {
      for (int b = 0; b < in.block_table_stride; ++b) {
        const int block = in.block_table[static_cast<std::size_t>(r * in.block_table_stride + b)];
        if (b < blocks_for(step, r)) {
          EXPECT_GE(block, p.first_block);
          EXPECT_LT(block, p.num_blocks);
          EXPECT_TRUE(blocks_in_use.insert(block).second) << "block " << block << " held twice at step " << s;
        } else {
          EXPECT_EQ(block, -1) << "slot " << r << " step " << s;
        }
      }
      for (int pos = 0; pos < step.kv_lens[static_cast<std::size_t>(r)]; ++pos) {
        const int block = in.block_table[static_cast<std::size_t>(r * in.block_table_stride + pos / p.block_size)];
        const std::size_t at = host_cache_index(p, std::int64_t{block} * p.block_size + pos % p.block_size);
        for (int c = 0; c < lk(p); c += 7) {
          ASSERT_TRUE(same_bits(in.kv_cache[at + static_cast<std::size_t>(c)], expected_latent(p, offsets[r], pos, c)))
              << "step " << s << " slot " << r << " position " << pos << " channel " << c;
        }
      }
    }
    EXPECT_EQ(in.q.size(), static_cast<std::size_t>(total_q_tokens(p) * heads(p) * lk(p)));
    EXPECT_NE(in.q, q_before) << "step " << s << " drew the previous step's q";
    q_before = in.q;
  }
  EXPECT_THROW(seq.advance(), std::out_of_range);
}

TEST(MlaSequenceInputs, EachStepWritesOnlyItsNewTokens) {
  const MlaDecodeProblem p = join_and_leave();
  MlaSequenceInputs seq(p);
  const std::size_t expected[] = {20 + 9, 1 + 2, 2 + 5, 2 + 1, 2 + 1};
  for (std::size_t expect : expected) {
    seq.advance();
    EXPECT_EQ(seq.written_slots().size(), expect) << "step " << seq.step();
    for (std::int64_t slot : seq.written_slots()) {
      EXPECT_FALSE(std::isnan(seq.inputs().kv_cache[host_cache_index(p, slot)]));
    }
  }
}

TEST(MlaSequenceInputs, AJoinerReusesADepartedRequestsBlocksWithTheirStaleTokens) {
  const MlaDecodeProblem p = join_and_leave();
  MlaSequenceInputs seq(p);
  seq.advance();
  seq.advance();
  const std::vector<std::int32_t> departed = seq.held_blocks()[0];
  ASSERT_EQ(departed.size(), 3u);
  seq.advance();  // step 2: slot 0 has left, slot 2 joins with 5 tokens
  EXPECT_TRUE(seq.held_blocks()[0].empty());
  ASSERT_EQ(seq.held_blocks()[2].size(), 1u);
  EXPECT_EQ(seq.held_blocks()[2][0], departed[0]);
  // Past the joiner's 5 tokens its block still holds the departed request's positions 5..7.
  const std::int64_t stale_slot = std::int64_t{departed[0]} * p.block_size + 6;
  EXPECT_TRUE(same_bits(seq.inputs().kv_cache[host_cache_index(p, stale_slot)], expected_latent(p, 0, 6, 0)));
}

TEST(MlaSequenceInputs, ProfilesAndFirstBlockAreHonoured) {
  MlaDecodeProblem p = join_and_leave();
  p.profile = FillProfile::sink;
  p.first_block = 3;
  p.num_blocks = 0;
  p = with_defaults(p);
  EXPECT_EQ(p.num_blocks, 8);
  MlaSequenceInputs seq(p);
  for (int s = 0; s < p.steps; ++s) {
    seq.advance();
    for (float v : seq.inputs().q) ASSERT_TRUE(std::isfinite(v));
    for (std::int32_t b : seq.inputs().block_table) ASSERT_TRUE(b == -1 || b >= 3);
  }
}

}  // namespace
}  // namespace mlacheck
