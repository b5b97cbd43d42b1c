// A decode sequence's staging: allocated once for every step, restaged step by step into the same
// buffers -- what an engine replaying a captured CUDA graph does with its captured tensors. The
// pool persists across steps (only the written rows are copied in), so a kernel reading a slot it
// should not -- a departed request's block now handed to a joiner, a token of a later position --
// reads what the engine would have left there.
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mla_sequence.hpp"
#include "device/staging/block_table_layout.hpp"
#include "device/staging/mla_decode_staging.hpp"
#include "device/staging/tensor_codec.hpp"

namespace mlacheck {

namespace {

std::vector<std::int32_t> to_int32(const std::vector<int>& v) { return {v.begin(), v.end()}; }

MlaDecodeProblem checked_sequence(const MlaDecodeProblem& seq) {
  MlaDecodeProblem s = with_defaults(seq);
  validate(s);
  return s;
}

// std::invalid_argument unless `step` is some step of `seq`: every field but the lengths equal to
// the sequence's one-step form, and no length past the request's final one.
void expect_step_of(const MlaDecodeProblem& seq, const MlaDecodeProblem& step) {
  const MlaDecodeProblem capacity = sequence_capacity(seq);
  MlaDecodeProblem shape = step;
  shape.kv_lens = capacity.kv_lens;
  if (shape != capacity) {
    throw std::invalid_argument(staging_where(seq) + "the problem restaged (" + to_repro(step) +
                                ") is no step of the sequence: fields other than kv differ");
  }
  for (int r = 0; r < batch(seq); ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (step.kv_lens[i] > capacity.kv_lens[i]) {
      throw std::invalid_argument(staging_where(seq) + "request " + std::to_string(r) +
                                  " of the step restaged has kv_len " + std::to_string(step.kv_lens[i]) +
                                  ", past its final length " + std::to_string(capacity.kv_lens[i]) +
                                  " in the sequence");
    }
  }
}

}  // namespace

std::unique_ptr<MlaDecodeStaging> MlaDecodeStaging::for_sequence(const MlaDecodeProblem& seq, StagingMemory memory,
                                                                 std::uint64_t workspace_bytes) {
  // The constructor is private (it leaves the buffers unstaged), so not make_unique.
  return std::unique_ptr<MlaDecodeStaging>(new MlaDecodeStaging(SequenceTag{}, seq, memory, workspace_bytes));
}

MlaDecodeStaging::MlaDecodeStaging(SequenceTag, const MlaDecodeProblem& seq, StagingMemory memory,
                                   std::uint64_t workspace_bytes)
    : sequence_(checked_sequence(seq)), buffers_(memory) {
  const MlaDecodeProblem& s = *sequence_;
  abi_problem_ = std::make_unique<AbiMlaProblem>(sequence_step(s, 0));
  const auto n = [](std::int64_t v) { return static_cast<std::size_t>(v); };
  const std::size_t rows = n(total_q_tokens(s)) * n(heads(s));
  table_stride_ = sequence_max_blocks_per_request(s);
  // Same names and order as the one-step staging's buffers, so canary reports read alike. The
  // inputs start poisoned too: the first restage writes every one of them.
  q_ = &buffers_.output("q", s.q_dtype, rows * n(lk(s)));
  kv_cache_ = &buffers_.output("kv_cache", s.kv_dtype, n(cache_pool_bytes(s)) / storage_bytes(s.kv_dtype));
  block_table_ = &buffers_.indices("block_table", n(batch(s)) * n(table_stride_));
  kv_lens_ = &buffers_.indices("kv_lens", n(batch(s)));
  q_lens_ = &buffers_.indices("q_lens", n(batch(s)));
  qo_indptr_ = &buffers_.indices("qo_indptr", n(batch(s)) + 1);
  kv_indptr_ = &buffers_.indices("kv_indptr", n(batch(s)) + 1);
  o_ = &buffers_.output("o", s.o_dtype, rows * n(s.kv_lora_rank));
  lse_ = &buffers_.output("lse", DType::f32, rows);
  if (workspace_bytes > 0) workspace_ = &buffers_.scratch("workspace", static_cast<std::size_t>(workspace_bytes));
  describe_tensors(workspace_bytes);
}

void MlaDecodeStaging::restage(const MlaDecodeProblem& step_in, const MlaDecodeInputs& in,
                               std::span<const std::int64_t> written_slots) {
  if (!sequence_) {
    throw std::logic_error(staging_where(problem()) + "restage() needs a staging made by for_sequence()");
  }
  const MlaDecodeProblem step = with_defaults(step_in);
  expect_step_of(*sequence_, step);
  auto abi = std::make_unique<AbiMlaProblem>(step);  // validates the step
  const mlacheck_mla_problem& a = abi->get();
  const auto n = [](std::int64_t v) { return static_cast<std::size_t>(v); };
  expect_input_elements(step, "q", in.q.size(), n(a.total_q_tokens) * n(a.heads) * n(a.lk));
  expect_input_elements(step, "kv_cache", in.kv_cache.size(),
                        n(host_cache_blocks(step)) * n(step.block_size) * n(a.lk));
  const std::vector<std::int32_t> table = engine_block_table(step, in, table_stride_);

  q_->upload(encode_tensor(step.q_dtype, in.q));
  block_table_->upload(std::as_bytes(std::span<const std::int32_t>(table)));
  kv_lens_->upload(std::as_bytes(std::span<const std::int32_t>(a.kv_lens, n(a.batch))));
  q_lens_->upload(std::as_bytes(std::span<const std::int32_t>(a.q_lens, n(a.batch))));
  const std::vector<std::int32_t> qo = to_int32(mlacheck::qo_indptr(step));
  const std::vector<std::int32_t> kv = to_int32(mlacheck::kv_indptr(step));
  qo_indptr_->upload(std::as_bytes(std::span<const std::int32_t>(qo)));
  kv_indptr_->upload(std::as_bytes(std::span<const std::int32_t>(kv)));
  upload_written_rows(step, in, written_slots);
  // Outputs poisoned again: a step that leaves an element unwritten must not pass on the value an
  // earlier step wrote there.
  dtype_poison(*o_, step.o_dtype);
  dtype_poison(*lse_, DType::f32);
  if (workspace_ != nullptr) workspace_poison(*workspace_);

  abi_problem_ = std::move(abi);
  describe_tensors(tensors_.workspace_bytes);
}

void MlaDecodeStaging::upload_written_rows(const MlaDecodeProblem& step, const MlaDecodeInputs& in,
                                           std::span<const std::int64_t> written_slots) {
  const std::int64_t first = std::int64_t{step.first_block} * step.block_size;
  const std::int64_t end = std::int64_t{step.num_blocks} * step.block_size;
  for (std::int64_t slot : written_slots) {
    if (slot < first || slot >= end) {
      throw std::invalid_argument(staging_where(step) + "written slot " + std::to_string(slot) +
                                  " is outside the pool's slots [" + std::to_string(first) + ", " +
                                  std::to_string(end) + ") the inputs hold");
    }
  }
  const auto width = static_cast<std::size_t>(lk(step));
  const auto row_bytes = static_cast<std::size_t>(cache_row_bytes(step));
  const std::span<const float> host(in.kv_cache);
  // Runs of consecutive slots go up as one copy: a request's new tokens mostly share a block, and
  // one copy per row would cost a synchronous device copy per token.
  for (std::size_t i = 0; i < written_slots.size();) {
    std::size_t j = i + 1;
    while (j < written_slots.size() && written_slots[j] == written_slots[j - 1] + 1) ++j;
    const std::int64_t start = written_slots[i];
    const std::size_t count = j - i;
    const std::vector<std::byte> codes =
        encode_tensor(step.kv_dtype, host.subspan(host_cache_index(step, start), count * width));
    kv_cache_->upload_at(static_cast<std::size_t>(start) * row_bytes, codes);
    i = j;
  }
}

}  // namespace mlacheck
