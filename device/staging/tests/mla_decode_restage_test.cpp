// A decode sequence's staging (MlaDecodeStaging::for_sequence, restage): one set of buffers for
// every step, each step's tensors copied into them, the pool appended to with only the slots the
// step wrote, O and LSE poisoned again, collect() judging the step. In host memory (every build) and
// device memory (GPU builds with a device present).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/mla_sequence.hpp"
#include "core/mla_sequence_inputs.hpp"
#include "device/staging/mla_decode_staging.hpp"
#include "device/staging/tensor_codec.hpp"
#include "device/staging/tests/staging_memory_param.hpp"
#include "device/staging/tests/staging_test_support.hpp"
#include "properties/support/mla_test_problems.hpp"

namespace mlacheck {
namespace {

using staging_test::as_vector;
using staging_test::EachMemory;
using staging_test::ints;
using staging_test::write_raw;

// Three slots over four steps with a join and a leave (slot 2 takes the blocks slot 1 gave back),
// speculative q lengths, heads not a multiple of 16, an fp8 cache and a pool that starts past block 0.
MlaDecodeProblem sequence() {
  const MlaDecodeProblem slots = small_latent_problem("restage_case", 8, {{20, 40, 6}, {2, 1, 3}});
  MlaDecodeProblem p = as_sequence(slots, 4, {0, 0, 2}, {4, 2, 4});
  p = with_dtypes(p, DType::bf16, DType::fp8_e4m3fn, DType::bf16, 0.5f);
  p.first_block = 2;
  return with_defaults(p);
}

// The bytes of pool slot `slot` in the staged pool.
std::vector<std::byte> pool_row(MlaDecodeStaging& s, std::int64_t slot) {
  const std::vector<std::byte> pool = s.kv_cache().download();
  const auto row = static_cast<std::size_t>(cache_row_bytes(s.problem()));
  const auto at = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(slot) * row);
  return {pool.begin() + at, pool.begin() + at + static_cast<std::ptrdiff_t>(row)};
}

// The host inputs' row of `slot`, encoded as the staging encodes it.
std::vector<std::byte> host_row(const MlaDecodeProblem& p, const MlaDecodeInputs& in, std::int64_t slot) {
  const auto width = static_cast<std::size_t>(lk(p));
  return encode_tensor(p.kv_dtype, std::span<const float>(in.kv_cache).subspan(host_cache_index(p, slot), width));
}

class SequenceStaging : public EachMemory {};

TEST_P(SequenceStaging, AllocatesOnceForEveryStepWithTheWidestTable) {
  const MlaDecodeProblem seq = sequence();
  const auto s = MlaDecodeStaging::for_sequence(seq, memory(), 96);
  EXPECT_EQ(s->problem(), sequence_step(seq, 0));
  const std::size_t rows = std::size_t(total_q_tokens(seq)) * 8;
  EXPECT_EQ(s->q().bytes(), rows * 80 * 2);
  EXPECT_EQ(s->kv_cache().bytes(), static_cast<std::size_t>(cache_pool_bytes(seq)));
  EXPECT_EQ(s->block_table().bytes(), 3u * std::size_t(sequence_max_blocks_per_request(seq)) * 4);
  EXPECT_EQ(s->o().bytes(), rows * 64 * 2);
  EXPECT_EQ(s->lse().bytes(), rows * 4);
  ASSERT_NE(s->workspace(), nullptr);
  EXPECT_EQ(s->abi_tensors().block_table.strides[0], sequence_max_blocks_per_request(seq));
  EXPECT_EQ(s->abi_tensors().workspace_bytes, 96u);
  // Unstaged, everything holds its poison: the pool fp8's NaN byte.
  EXPECT_EQ(s->kv_cache().download(), std::vector<std::byte>(s->kv_cache().bytes(), std::byte{0x7F}));
  EXPECT_TRUE(s->buffers().broken_canaries().empty());
}

TEST_P(SequenceStaging, RestageCopiesExactlyTheStepsTensors) {
  const MlaDecodeProblem seq = sequence();
  const auto s = MlaDecodeStaging::for_sequence(seq, memory());
  const int stride = sequence_max_blocks_per_request(seq);
  MlaSequenceInputs inputs(seq);
  for (int k = 0; k < seq.steps; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    inputs.advance();
    const MlaDecodeProblem& step = inputs.problem();
    s->restage(step, inputs.inputs(), inputs.written_slots());
    EXPECT_EQ(s->problem(), step);
    EXPECT_STREQ(s->abi_problem().repro, to_repro(step).c_str());
    EXPECT_EQ(s->abi_problem().max_blocks_per_request, max_blocks_per_request(step));
    EXPECT_EQ(s->abi_tensors().block_table.shape[1], max_blocks_per_request(step));
    EXPECT_EQ(s->abi_tensors().block_table.strides[0], stride);
    EXPECT_EQ(s->q().download(), encode_tensor(seq.q_dtype, inputs.inputs().q));
    // The table re-laid into the fixed stride: the step's blocks, then -1.
    const std::vector<std::int32_t> table = as_vector<std::int32_t>(s->block_table().download());
    for (int r = 0; r < batch(step); ++r) {
      for (int j = 0; j < stride; ++j) {
        const std::int32_t want =
            j < blocks_for(step, r)
                ? inputs.inputs()
                      .block_table[std::size_t(r) * std::size_t(inputs.inputs().block_table_stride) + std::size_t(j)]
                : -1;
        EXPECT_EQ(table[std::size_t(r) * std::size_t(stride) + std::size_t(j)], want) << r << "," << j;
      }
    }
    EXPECT_EQ(as_vector<std::int32_t>(s->kv_lens().download()), ints(step.kv_lens));
    EXPECT_EQ(as_vector<std::int32_t>(s->q_lens().download()), ints(step.q_lens));
    EXPECT_EQ(as_vector<std::int32_t>(s->qo_indptr().download()), ints(qo_indptr(step)));
    EXPECT_EQ(as_vector<std::int32_t>(s->kv_indptr().download()), ints(kv_indptr(step)));
    // Every slot a request reads holds the host's row: the written ones of this step and of earlier
    // steps alike.
    for (int r = 0; r < batch(step); ++r) {
      for (int pos = 0; pos < step.kv_lens[std::size_t(r)]; ++pos) {
        const std::int64_t block =
            inputs.inputs().block_table[std::size_t(r) * std::size_t(inputs.inputs().block_table_stride) +
                                        std::size_t(pos / step.block_size)];
        const std::int64_t slot = block * step.block_size + pos % step.block_size;
        ASSERT_EQ(pool_row(*s, slot), host_row(step, inputs.inputs(), slot)) << "request " << r << " pos " << pos;
      }
    }
    EXPECT_TRUE(s->buffers().broken_canaries().empty());
  }
}

TEST_P(SequenceStaging, RestageAppendsOnlyTheWrittenSlots) {
  const MlaDecodeProblem seq = sequence();
  const auto s = MlaDecodeStaging::for_sequence(seq, memory());
  MlaSequenceInputs inputs(seq);
  inputs.advance();
  s->restage(inputs.problem(), inputs.inputs(), inputs.written_slots());
  const std::vector<std::int64_t> step0 = inputs.written_slots();
  ASSERT_FALSE(step0.empty());
  // Mark a slot step 0 wrote; step 1 does not write it again, so the mark must survive step 1's
  // restage: the pool is the engine's, appended to, never re-uploaded whole.
  const std::int64_t kept = step0.front();
  const auto row = static_cast<std::size_t>(cache_row_bytes(seq));
  const std::vector<std::byte> mark(row, std::byte{0x11});
  write_raw(s->kv_cache(), static_cast<std::ptrdiff_t>(static_cast<std::size_t>(kept) * row), mark);
  inputs.advance();
  const std::vector<std::int64_t>& step1 = inputs.written_slots();
  ASSERT_EQ(std::count(step1.begin(), step1.end(), kept), 0);
  s->restage(inputs.problem(), inputs.inputs(), step1);
  EXPECT_EQ(pool_row(*s, kept), mark);
  for (std::int64_t slot : step1) EXPECT_EQ(pool_row(*s, slot), host_row(seq, inputs.inputs(), slot)) << slot;
  // Below first_block nothing is ever written: the NaN poison stays.
  EXPECT_EQ(pool_row(*s, 0), std::vector<std::byte>(row, std::byte{0x7F}));
}

TEST_P(SequenceStaging, RestagePoisonsTheOutputsAgain) {
  const MlaDecodeProblem seq = sequence();
  const auto s = MlaDecodeStaging::for_sequence(seq, memory(), 64);
  MlaSequenceInputs inputs(seq);
  inputs.advance();
  s->restage(inputs.problem(), inputs.inputs(), inputs.written_slots());
  // A backend's step 0 writes O, LSE and its workspace.
  write_raw(s->o(), 0, std::vector<std::byte>(s->o().bytes(), std::byte{0}));
  write_raw(s->lse(), 0, std::vector<std::byte>(s->lse().bytes(), std::byte{0}));
  write_raw(*s->workspace(), 0, std::vector<std::byte>(64, std::byte{0}));
  const MlaDecodeRun written = s->collect();
  EXPECT_EQ(std::count(written.o_unwritten.begin(), written.o_unwritten.end(), 1), 0);
  inputs.advance();
  s->restage(inputs.problem(), inputs.inputs(), inputs.written_slots());
  const MlaDecodeRun fresh = s->collect();
  EXPECT_EQ(std::count(fresh.o_unwritten.begin(), fresh.o_unwritten.end(), 0), 0) << "O poisoned again";
  EXPECT_EQ(std::count(fresh.lse_unwritten.begin(), fresh.lse_unwritten.end(), 0), 0) << "LSE poisoned again";
  EXPECT_EQ(as_vector<std::uint32_t>(s->workspace()->download()), std::vector<std::uint32_t>(16, 0x7FFFFFFF));
  EXPECT_TRUE(fresh.diag.broken_canaries.empty());
}

TEST_P(SequenceStaging, CollectChecksTheCanariesEveryStep) {
  const MlaDecodeProblem seq = sequence();
  const auto s = MlaDecodeStaging::for_sequence(seq, memory());
  MlaSequenceInputs inputs(seq);
  inputs.advance();
  s->restage(inputs.problem(), inputs.inputs(), inputs.written_slots());
  write_raw(s->lse(), static_cast<std::ptrdiff_t>(s->lse().bytes()), std::vector<std::byte>(4, std::byte{0}));
  inputs.advance();
  s->restage(inputs.problem(), inputs.inputs(), inputs.written_slots());
  const MlaDecodeRun run = s->collect();
  ASSERT_EQ(run.diag.broken_canaries.size(), 1u);
  EXPECT_EQ(run.diag.broken_canaries[0].buffer, "lse");
}

TEST_P(SequenceStaging, RefusesWhatIsNoStepOfTheSequence) {
  const MlaDecodeProblem seq = sequence();
  const auto s = MlaDecodeStaging::for_sequence(seq, memory());
  MlaSequenceInputs inputs(seq);
  inputs.advance();
  MlaDecodeProblem other = inputs.problem();
  other.q_lens[0] = 1;  // another batch shape
  EXPECT_THROW(s->restage(other, inputs.inputs(), inputs.written_slots()), std::invalid_argument);
  MlaDecodeProblem longer = inputs.problem();
  longer.kv_lens[0] = 100;  // past the request's final length
  EXPECT_THROW(s->restage(longer, inputs.inputs(), inputs.written_slots()), std::invalid_argument);
  const std::vector<std::int64_t> outside = {std::int64_t{seq.num_blocks} * seq.block_size};
  EXPECT_THROW(s->restage(inputs.problem(), inputs.inputs(), outside), std::invalid_argument);
  const std::vector<std::int64_t> below = {0};  // a block below first_block
  EXPECT_THROW(s->restage(inputs.problem(), inputs.inputs(), below), std::invalid_argument);
  MlaDecodeInputs short_q = inputs.inputs();
  short_q.q.pop_back();
  EXPECT_THROW(s->restage(inputs.problem(), short_q, inputs.written_slots()), std::invalid_argument);
}

TEST_P(SequenceStaging, OneStepStagingCannotRestage) {
  const MlaDecodeProblem seq = sequence();
  MlaSequenceInputs inputs(seq);
  inputs.advance();
  MlaDecodeStaging one(inputs.problem(), inputs.inputs(), memory());
  EXPECT_THROW(one.restage(inputs.problem(), inputs.inputs(), inputs.written_slots()), std::logic_error);
}

MLACHECK_STAGING_IN_EACH_MEMORY(SequenceStaging);

}  // namespace
}  // namespace mlacheck
